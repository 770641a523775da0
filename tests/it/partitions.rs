//! The context is built in partitions by key range (passes over the keys held in memory,
//! or over the key file on disk); how many is the memory plan's choice, or the user's
//! (`--partitions`). The count changes how the work is cut, never the output: for every
//! method, with and without exact verification, with and without a budget, held in memory
//! or keyed on disk, and for a deduplication, 1, 2, 7 and 64 partitions write the same
//! bytes as the plan's own choice.

use std::path::{Path, PathBuf};

use fimdup::cluster::{Input, JobBuilder, Method, Threshold, Verify};
use fimdup::dedup::DedupBuilder;
use fimdup::sketch::pipeline::PipelineConfig;
use fimdup::spill::{MemoryBudget, SpillConfig};

const COUNTS: [Option<usize>; 5] = [None, Some(1), Some(2), Some(7), Some(64)];

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/default/docs.jsonl")
}

/// The files of `dir`, by name, with their bytes (summary.json left out: it has timings).
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != "summary.json")
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// A job of `m` at 0.7 on the default corpus (`verify`, `budget`, `on_disk`: its keys go to
/// a key file at once, `parts` partitions).
fn job(
    m: Method,
    verify: bool,
    budget: Option<u64>,
    on_disk: bool,
    parts: Option<usize>,
    tmp: &Path,
) -> JobBuilder {
    let mut pipeline = PipelineConfig::default();
    pipeline.text.html = true;
    pipeline.sketch.scheme = m.default_scheme();
    let mut b = JobBuilder::new(m);
    b.threshold(Threshold::Resemblance(0.7))
        .pipeline(pipeline)
        .verify(verify.then_some(Verify::Exact))
        .spill(SpillConfig::new(budget.map(MemoryBudget), Some(tmp.to_path_buf())).unwrap())
        .partitions(parts);
    if on_disk {
        b.images_in_memory(0);
    }
    b
}

#[test]
fn every_method_gives_the_same_bytes_for_any_partition_count() {
    let input = Input::Corpus(corpus());
    let tmp = tempfile::tempdir().unwrap();
    let mut n = 0;
    for m in Method::ALL {
        for verify in [false, true] {
            for budget in [None, Some(4 << 20)] {
                for on_disk in [false, true] {
                    let mut want = None;
                    for parts in COUNTS {
                        let what = format!(
                            "{m}, verify {verify}, budget {budget:?}, on disk {on_disk}, {parts:?} partitions"
                        );
                        let out = tmp.path().join(format!("o{n}"));
                        n += 1;
                        let got = match job(m, verify, budget, on_disk, parts, tmp.path())
                            .build()
                            .unwrap()
                            .run(&input, &|_| {})
                        {
                            Ok(o) => o,
                            // A method that holds every image or set may refuse the budget;
                            // then it refuses it for every count.
                            Err(e) => {
                                assert!(budget.is_some(), "{what}: {e}");
                                assert!(
                                    e.to_string().starts_with("memory budget too small"),
                                    "{what}: {e}"
                                );
                                assert!(want.is_none(), "{what}: refused after running");
                                continue;
                            }
                        };
                        got.write(&out).unwrap();
                        let f = files(&out);
                        assert!(
                            f.iter().any(|(n, b)| n == "pairs.csv" && b.len() > 20),
                            "{what}"
                        );
                        match &want {
                            None => want = Some(f),
                            Some(w) => assert!(w == &f, "{what}: other bytes"),
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn a_deduplication_keeps_the_same_bytes_for_any_partition_count() {
    let tmp = tempfile::tempdir().unwrap();
    for budget in [None, Some(4 << 20)] {
        for on_disk in [false, true] {
            let mut want = None;
            for (i, parts) in COUNTS.into_iter().enumerate() {
                let out = tmp
                    .path()
                    .join(format!("d{}{on_disk}{i}", budget.is_some()));
                let d = DedupBuilder::new(job(
                    Method::Concept,
                    true,
                    budget,
                    on_disk,
                    parts,
                    tmp.path(),
                ))
                .build()
                .unwrap();
                d.run(&corpus(), &out, &|_| {}).unwrap();
                let f = files(&out);
                assert!(f.len() >= 2, "{f:?}");
                match &want {
                    None => want = Some(f),
                    Some(w) => assert!(w == &f, "{parts:?} partitions, budget {budget:?}"),
                }
            }
        }
    }
}
