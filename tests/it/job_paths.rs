//! Every entry point runs the one library job (`cluster::Job`): `fimdup cluster` and
//! `fimdup sweep` find the same pairs for every method at the same threshold, with and
//! without exact verification; and a job on a corpus sketched once (as a sweep runs it)
//! gives what it gives on the corpus itself.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use fimdup::cluster::{Input, JobBuilder, Method, Threshold, Verify};
use fimdup::sketch::pipeline::PipelineConfig;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_fimdup")
}

fn default_corpus() -> (PathBuf, PathBuf) {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/default");
    (d.join("docs.jsonl"), d.join("truth.csv"))
}

fn run(args: &[&str]) {
    let out = Command::new(bin()).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "fimdup {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The `a,b` pairs of a pairs.csv.
fn pairs(path: &Path) -> BTreeSet<(String, String)> {
    let mut r = csv::Reader::from_path(path).unwrap();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            (rec[0].to_string(), rec[1].to_string())
        })
        .collect()
}

/// The truth's pairs with resemblance >= 0.8, read here with the csv crate.
fn positives(truth: &Path) -> BTreeSet<(String, String)> {
    let mut r = csv::Reader::from_path(truth).unwrap();
    let h = r.headers().unwrap().clone();
    let col = h.iter().position(|c| c == "resemblance").unwrap();
    r.records()
        .map(|x| x.unwrap())
        .filter(|x| x[col].parse::<f64>().unwrap() >= 0.8)
        .map(|x| {
            let (a, b) = (x[0].to_string(), x[1].to_string());
            if a < b {
                (a, b)
            } else {
                (b, a)
            }
        })
        .collect()
}

/// `(method, threshold) -> (found, common)` from a sweep's results.csv.
fn sweep_rows(path: &Path) -> BTreeMap<(String, String), (usize, usize)> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let h = r.headers().unwrap().clone();
    let col = |name: &str| h.iter().position(|c| c == name).unwrap();
    let (m, t, f, c) = (col("method"), col("threshold"), col("found"), col("common"));
    r.records()
        .map(|x| x.unwrap())
        .map(|x| {
            (
                (x[m].to_string(), x[t].to_string()),
                (x[f].parse().unwrap(), x[c].parse().unwrap()),
            )
        })
        .collect()
}

#[test]
fn cluster_and_sweep_find_the_same_pairs() {
    let (docs, truth) = default_corpus();
    let (docs_s, truth_s) = (docs.to_str().unwrap(), truth.to_str().unwrap());
    let pos = positives(&truth);
    let dir = tempfile::tempdir().unwrap();
    for verify in [false, true] {
        let sweep_dir = dir.path().join(format!("sweep-{verify}"));
        let mut args = vec![
            "sweep",
            docs_s,
            "--truth",
            truth_s,
            "--truth-rule",
            "resemblance>=0.8",
            "--html",
            "--thresholds",
            "0.8,0.6",
            "--out",
            sweep_dir.to_str().unwrap(),
        ];
        if verify {
            args.extend(["--verify", "exact"]);
        }
        run(&args);
        let rows = sweep_rows(&sweep_dir.join("results.csv"));
        for m in Method::ALL {
            for t in ["0.8", "0.6"] {
                let out = dir.path().join(format!("{m}-{t}-{verify}"));
                let mut args = vec![
                    "cluster",
                    docs_s,
                    "--html",
                    "--method",
                    m.name(),
                    "--threshold",
                    t,
                    "--out",
                    out.to_str().unwrap(),
                ];
                if verify {
                    args.extend(["--verify", "exact"]);
                }
                run(&args);
                let got = pairs(&out.join("pairs.csv"));
                let common = got.intersection(&pos).count();
                let what = format!("{m} at {t}, verify {verify}");
                assert!(!got.is_empty(), "{what}: a test with pairs");
                assert_eq!(
                    rows[&(m.name().to_string(), t.to_string())],
                    (got.len(), common),
                    "{what}: sweep (found, common) vs cluster's pairs.csv"
                );
            }
        }
    }
}

#[test]
fn a_job_on_a_prepared_corpus_equals_the_job_on_the_corpus() {
    let (docs, _) = default_corpus();
    let input = Input::Corpus(docs);
    let mut pipeline = PipelineConfig::default();
    pipeline.text.html = true;
    for m in Method::ALL {
        pipeline.sketch.scheme = m.default_scheme();
        let job = |t: f64, verify: bool| {
            JobBuilder::new(m)
                .threshold(Threshold::Resemblance(t))
                .pipeline(pipeline.clone())
                .verify(verify.then_some(Verify::Exact))
                .build()
                .unwrap()
        };
        let mut once = job(0.9, false).prepare(&input, &|_| {}).unwrap();
        for t in [0.9, 0.7] {
            for verify in [false, true] {
                let j = job(t, verify);
                let whole = j.run(&input, &|_| {}).unwrap();
                let reused = j.run_on(&mut once).unwrap();
                let what = format!("{m} at {t}, verify {verify}");
                assert_eq!(whole.output.pairs, reused.pairs, "{what}");
                assert_eq!(whole.output.clusters, reused.clusters, "{what}");
                assert_eq!(whole.ext_ids, once.ext_ids(), "{what}");
            }
        }
    }
}

#[test]
fn bad_job_settings_are_refused_before_anything_runs() {
    let refuse = |b: &mut JobBuilder, needle: &str| {
        let e = b.build().unwrap_err().to_string();
        assert!(e.contains(needle), "{e:?} lacks {needle:?}");
        assert!(!e.contains("--"), "a library message names a flag: {e:?}");
    };
    refuse(
        JobBuilder::new(Method::Concept)
            .threshold(Threshold::MinCommon(100))
            .verify(Some(Verify::Exact)),
        "resemblance threshold",
    );
    refuse(
        JobBuilder::new(Method::Concept).candidate_threshold(Some(0.5)),
        "only applies with exact verification",
    );
    refuse(
        JobBuilder::new(Method::Concept)
            .verify(Some(Verify::Exact))
            .candidate_threshold(Some(0.9)),
        "must be in [0, 0.8]",
    );
    let opt = |k: &str, v: serde_json::Value| {
        let mut o = fimdup::cluster::MethodValues::default();
        o.set(k, v);
        o
    };
    refuse(
        JobBuilder::new(Method::Lsh).method_options(opt("bands", 7.into())),
        "a divisor of the image size",
    );
    refuse(
        JobBuilder::new(Method::Lsh).method_options(opt("fn_weight", 1.5.into())),
        "[0, 1]",
    );
    refuse(
        JobBuilder::new(Method::Exact).threshold(Threshold::MinCommon(3)),
        "resemblance threshold",
    );
}

/// A job under a memory budget gives what the job without a budget gives, for every method
/// with and without exact verification, whether the corpus's images fit in the budget (held
/// in memory), fill it after a few blocks (what is held goes to a temporary file and the
/// rest follows: the images for the methods that hold them again, the raw keys for concept
/// and union-find) or after the first (concept and union-find from a context built in
/// passes over the file, its rows in a file when they do not fit; verification in batches);
/// a budget below what a method holds is refused before anything is written, naming the
/// documents and the memory needed.
#[test]
fn a_budget_changes_the_memory_not_the_output() {
    use fimdup::spill::{MemoryBudget, SpillConfig};
    let (docs, _) = default_corpus();
    let input = Input::Corpus(docs);
    let tmp = tempfile::tempdir().unwrap();
    let mut pipeline = PipelineConfig::default();
    pipeline.text.html = true;
    for m in Method::ALL {
        pipeline.sketch.scheme = m.default_scheme();
        for verify in [false, true] {
            let job = |budget: Option<u64>| {
                JobBuilder::new(m)
                    .threshold(Threshold::Resemblance(0.7))
                    .pipeline(pipeline.clone())
                    .verify(verify.then_some(Verify::Exact))
                    .spill(SpillConfig {
                        budget: budget.map(MemoryBudget),
                        tmp_dir: Some(tmp.path().to_path_buf()),
                        process: None,
                        ..Default::default()
                    })
                    .build()
                    .unwrap()
            };
            let want = job(None).run(&input, &|_| {}).unwrap();
            let what = format!("{m}, verify {verify}");
            assert!(!want.output.pairs.is_empty(), "{what}");
            // Large enough for every method on 1,500 documents (the images held); filled
            // after a few blocks of the 2.3 MB corpus; small enough that concept and
            // union-find build their context in several passes.
            for budget in [40 << 20, 2 << 20, 400 << 10] {
                match job(Some(budget)).run(&input, &|_| {}) {
                    Ok(got) => {
                        assert_eq!(got.output.pairs, want.output.pairs, "{what} {budget}");
                        assert_eq!(got.output.clusters, want.output.clusters, "{what} {budget}");
                        assert_eq!(got.ext_ids, want.ext_ids, "{what} {budget}");
                    }
                    Err(e) => {
                        let e = e.to_string();
                        assert!(
                            budget <= 2 << 20
                                && !matches!(m, Method::Concept | Method::UnionFind)
                                && e.starts_with("memory budget too small: ")
                                && e.contains("needs at least")
                                && e.contains("for 1500 documents"),
                            "{what} {budget}: {e}"
                        );
                    }
                }
            }
        }
    }
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "spill files left"
    );
}

/// The context-only methods under a budget the images outgrow (their keys then go to a
/// temporary key file) collapse the same documents as without a budget, by either
/// equivalence: the image fingerprints kept beside the key file are those of the images.
#[test]
fn a_budget_keeps_the_collapse_of_either_equivalence() {
    use fimdup::cluster::Equivalence;
    use fimdup::spill::{MemoryBudget, SpillConfig};
    let tmp = tempfile::tempdir().unwrap();
    // The default corpus, and after it documents that only the image equivalence
    // collapses: a 60-word passage repeated three times and four times has one shingle set
    // (so one image) and two different texts.
    let (docs, _) = default_corpus();
    let mut text = std::fs::read_to_string(&docs).unwrap();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for i in 0..40 {
        let passage: Vec<String> = (0..60)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                format!("w{}", x % 5000)
            })
            .collect();
        let passage = passage.join(" ");
        for times in [3, 4] {
            let body = vec![passage.as_str(); times].join(" ");
            text.push_str(&format!(
                "{{\"id\":\"rep{i}x{times}\",\"text\":\"{body}\"}}\n"
            ));
        }
    }
    let corpus = tmp.path().join("docs.jsonl");
    std::fs::write(&corpus, text).unwrap();
    let input = Input::Corpus(corpus.clone());
    let spill = tmp.path().join("spill");
    std::fs::create_dir(&spill).unwrap();
    for m in [Method::Concept, Method::UnionFind] {
        let mut by_image = 0;
        for eq in [Equivalence::Shingle, Equivalence::Lexical] {
            let job = |budget: Option<u64>| {
                JobBuilder::new(m)
                    .threshold(Threshold::Resemblance(0.7))
                    .equivalence(eq)
                    .spill(SpillConfig {
                        budget: budget.map(MemoryBudget),
                        tmp_dir: Some(spill.clone()),
                        process: None,
                        ..Default::default()
                    })
                    .build()
                    .unwrap()
            };
            let want = job(None).run(&input, &|_| {}).unwrap();
            assert!(!want.output.pairs.is_empty(), "{m} {eq:?}");
            // Each repeated passage's two documents collapse by their image, not by text.
            let collapsed = want.output.summary.documents - want.output.summary.representatives;
            match eq {
                Equivalence::Shingle => by_image = collapsed,
                Equivalence::Lexical => assert!(
                    collapsed + 40 <= by_image,
                    "{m}: {collapsed} collapsed by text, {by_image} by image"
                ),
            }
            for budget in [2 << 20, 400 << 10] {
                let got = job(Some(budget)).run(&input, &|_| {}).unwrap();
                let what = format!("{m} {eq:?} {budget}");
                assert_eq!(got.output.pairs, want.output.pairs, "{what}");
                assert_eq!(got.output.clusters, want.output.clusters, "{what}");
                assert_eq!(
                    got.output.summary.representatives, want.output.summary.representatives,
                    "{what}"
                );
            }
        }
    }
    assert_eq!(
        std::fs::read_dir(&spill).unwrap().count(),
        0,
        "spill files left"
    );
}

/// The summary's phases name the stages in order, the context among them whether it was
/// built while preparing (under a budget the images outgrow) or after, and give the
/// process's peak memory at the end of each: never falling, never above the run's peak.
#[test]
fn phases_name_the_stages_and_the_memory_at_their_end() {
    use fimdup::spill::{MemoryBudget, SpillConfig};
    let (docs, _) = default_corpus();
    let input = Input::Corpus(docs);
    let tmp = tempfile::tempdir().unwrap();
    for budget in [None, Some(400 << 10)] {
        let got = JobBuilder::new(Method::Concept)
            .threshold(Threshold::Resemblance(0.7))
            .verify(Some(Verify::Exact))
            .spill(SpillConfig {
                budget: budget.map(MemoryBudget),
                tmp_dir: Some(tmp.path().to_path_buf()),
                process: None,
                ..Default::default()
            })
            .build()
            .unwrap()
            .run(&input, &|_| {})
            .unwrap();
        let phases = &got.output.summary.phases;
        let names: Vec<&str> = phases.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            ["sketch", "context", "mine", "pairs", "verify"],
            "{budget:?}"
        );
        let total: f64 = phases.iter().map(|p| p.seconds).sum();
        assert!(
            total <= got.seconds * 1.01 + 1e-3,
            "{budget:?}: {total} > {}",
            got.seconds
        );
        if cfg!(target_os = "linux") {
            let peaks: Vec<u64> = phases.iter().map(|p| p.peak_rss_bytes.unwrap()).collect();
            assert!(
                peaks.windows(2).all(|w| w[0] <= w[1]),
                "{budget:?}: {peaks:?}"
            );
            assert!(
                peaks[0] > 0 && peaks[4] <= got.peak_rss_bytes.unwrap(),
                "{peaks:?}"
            );
        }
    }
}

/// Without a budget, concept and union-find on a corpus whose images outgrow what the job
/// holds in memory write the keys to a temporary key file and build the context while
/// preparing (the default plan past 512 MiB of images; here past 64 KiB): the same pairs,
/// clusters and ids, with and without verification, and no file left behind.
#[test]
fn the_default_plan_keeps_keys_on_disk_past_its_images() {
    use fimdup::spill::SpillConfig;
    let (docs, _) = default_corpus();
    let input = Input::Corpus(docs);
    let tmp = tempfile::tempdir().unwrap();
    for m in [Method::Concept, Method::UnionFind] {
        for verify in [None, Some(Verify::Exact)] {
            let job = |held: Option<u64>| {
                let mut b = JobBuilder::new(m);
                b.threshold(Threshold::Resemblance(0.7))
                    .verify(verify)
                    .spill(SpillConfig {
                        budget: None,
                        tmp_dir: Some(tmp.path().to_path_buf()),
                        process: None,
                        ..Default::default()
                    });
                if let Some(h) = held {
                    b.images_in_memory(h);
                }
                b.build().unwrap()
            };
            let (held, spilled) = (job(None), job(Some(64 << 10)));
            let s = held.prepare(&input, &|_| {}).unwrap();
            assert!(
                s.prepared().context_build().is_none(),
                "{m}: 1,500 images held"
            );
            let s = spilled.prepare(&input, &|_| {}).unwrap();
            assert!(s.prepared().context_build().is_some(), "{m}: no key file");
            let want = held.run(&input, &|_| {}).unwrap();
            let got = spilled.run(&input, &|_| {}).unwrap();
            assert!(!want.output.pairs.is_empty(), "{m}");
            assert_eq!(got.output.pairs, want.output.pairs, "{m} {verify:?}");
            assert_eq!(got.output.clusters, want.output.clusters, "{m} {verify:?}");
            assert_eq!(got.ext_ids, want.ext_ids, "{m} {verify:?}");
        }
    }
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "spill files left"
    );
}

/// A budget below the context's ids and per-document data is refused naming the corpus
/// (not the temporary key file the images had gone to), the documents and the memory
/// needed: as soon as the documents read so far need more than the budget (a small one,
/// before the corpus's end), else after the corpus is read (then naming every document).
#[test]
fn a_budget_below_the_context_is_refused_naming_the_corpus() {
    use fimdup::spill::{MemoryBudget, SpillConfig};
    let (docs, _) = default_corpus();
    let tmp = tempfile::tempdir().unwrap();
    let refusal = |budget: u64| {
        JobBuilder::new(Method::Concept)
            .spill(SpillConfig {
                budget: Some(MemoryBudget(budget)),
                tmp_dir: Some(tmp.path().to_path_buf()),
                process: None,
                ..Default::default()
            })
            .build()
            .unwrap()
            .run(&Input::Corpus(docs.clone()), &|_| {})
            .unwrap_err()
            .to_string()
    };
    let head = format!(
        "memory budget too small: {}: the context of ",
        docs.display()
    );
    // 64 KiB: past the budget before the last of the 1,500 documents is read.
    let e = refusal(64 << 10);
    let so_far: usize = e
        .strip_prefix(&format!("{head}the "))
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{e}"));
    assert!(
        so_far < 1500 && e.contains(" documents read so far needs at least "),
        "{e}"
    );
    // Just below what the whole context's ids need: refused once every document is read
    // (when the last batch comes, or after it).
    let e = refusal(150 << 10);
    assert!(
        e.starts_with(&format!(
            "{head}the 1500 documents read so far needs at least "
        )) || e.starts_with(&format!("{head}1500 documents needs at least ")),
        "{e}"
    );
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "spill files left"
    );
}
