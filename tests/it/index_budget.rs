//! `fimdup index build` and `index add` under `--memory-budget`, end to end with the built
//! binary, on generated corpora (`fimdup gen --config eval/peers/corpus.json`):
//! * the generation directories built and extended with and without a budget are
//!   byte-identical (default bottom-k; k-mins with LSH bands, containment images and
//!   sources), and the spill directory is empty afterwards;
//! * a budget below what the index needs exits 2 before any work on the index, saying
//!   "needs at least N MiB for M documents", and leaves no index (build) or the index as it
//!   was (add: checked before the index is read, and again with the sweep's documents); a
//!   budget of exactly N MiB is enough;
//! * an add counts the mapped segments by their documents' ids and state, not as a whole
//!   index in memory, and leaves a merge of the merge policy that would not fit for `index
//!   merge` (the queries' answers the same as without a budget).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common;
use common::{ok, run, s};

/// A generated corpus like the scale runs' (`eval/peers/corpus.json`), ids prefixed.
fn gen(dir: &Path, name: &str, n: usize, seed: u64, prefix: &str) -> PathBuf {
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("eval/peers/corpus.json");
    common::gen(
        dir,
        name,
        n,
        seed,
        prefix,
        &["--config", s(&config), "--stream"],
    )
}

/// Every file of the generation `CURRENT` names and of every segment directory:
/// `gen/name` or `seg-NNNNNN/name` -> bytes.
fn generation(idx: &Path) -> (String, BTreeMap<String, Vec<u8>>) {
    let current = std::fs::read_to_string(idx.join("CURRENT")).unwrap();
    let g = current.split(' ').next().unwrap().to_string();
    let mut files = BTreeMap::new();
    let mut dirs = vec![(idx.join(&g), "gen".to_string())];
    for e in std::fs::read_dir(idx).unwrap() {
        let n = e.unwrap().file_name().to_string_lossy().into_owned();
        if n.starts_with("seg-") {
            dirs.push((idx.join(&n), n));
        }
    }
    for (dir, label) in dirs {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            files.insert(
                format!("{label}/{}", e.file_name().to_string_lossy()),
                std::fs::read(e.path()).unwrap(),
            );
        }
    }
    (g, files)
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap()
}

/// The `N` of "needs at least N MiB for M documents" in `stderr`, and `M`.
fn needs(stderr: &str) -> (u64, u64) {
    let rest = stderr
        .split("needs at least ")
        .nth(1)
        .unwrap_or_else(|| panic!("no \"needs at least\" in {stderr}"));
    let mut w = rest.split_whitespace();
    let n = w.next().unwrap().parse().unwrap();
    assert_eq!(w.next(), Some("MiB"));
    assert_eq!(w.next(), Some("for"));
    let m = w.next().unwrap().parse().unwrap();
    assert_eq!(w.next(), Some("documents,"));
    assert_eq!(w.next(), Some("more"));
    (n, m)
}

fn empty_dir(d: &Path) -> bool {
    std::fs::read_dir(d).unwrap().next().is_none()
}

#[test]
fn budgeted_builds_and_sweeps_are_byte_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let first = gen(d, "first", 1500, 11, "");
    // The second sweep: 1000 documents of the first unchanged, 500 lost, 500 new.
    let other = gen(d, "other", 500, 12, "b-");
    let text = std::fs::read_to_string(&first).unwrap();
    let mut second: String = text.lines().take(1000).map(|l| format!("{l}\n")).collect();
    second.push_str(&std::fs::read_to_string(&other).unwrap());
    let second_path = d.join("second.jsonl");
    std::fs::write(&second_path, second).unwrap();
    let spill = d.join("spill");
    std::fs::create_dir(&spill).unwrap();

    let variants: [&[&str]; 2] = [
        &[],
        &[
            "--scheme",
            "k-mins",
            "--size",
            "64",
            "--containment",
            "--keep-sources",
        ],
    ];
    for (v, extra) in variants.iter().enumerate() {
        let mut gens = Vec::new();
        for budget in [None, Some("256MiB")] {
            let idx = d.join(format!("idx-{v}-{}", budget.unwrap_or("none")));
            let mut bf = Vec::new();
            if let Some(b) = budget {
                bf = vec!["--memory-budget", b, "--tmp-dir", s(&spill)];
            }
            let mut args = vec!["index", "build", s(&first), "--out", s(&idx), "--json"];
            args.extend_from_slice(extra);
            args.extend_from_slice(&bf);
            let b = json(&ok(&args));
            assert_eq!(b["documents"], 1500);
            assert_eq!(b["stored"], 1500);
            let built = generation(&idx);
            assert_eq!(built.0, "gen-000001");
            let mut args = vec!["index", "add", s(&idx), s(&second_path), "--json"];
            args.extend_from_slice(&bf);
            let a = json(&ok(&args));
            assert_eq!(a["documents"], 1500);
            assert_eq!(a["added"], 500);
            assert_eq!(a["unchanged"], 1000);
            assert_eq!(a["total_documents"], 2000);
            assert_eq!(a["lost"].as_array().unwrap().len(), 500);
            let added = generation(&idx);
            assert_eq!(added.0, "gen-000002");
            assert!(empty_dir(&spill), "spill files left behind");
            gens.push((built, added));
        }
        let names: Vec<&String> = gens[0].0 .1.keys().collect();
        let seg: &[&str] = if v == 0 {
            &["context.bin", "docs.bin", "ids.bin", "values.bin"]
        } else {
            &[
                "bands.bin",
                "containment-context.bin",
                "containment-values.bin",
                "context.bin",
                "docs.bin",
                "ids.bin",
                "values.bin",
            ]
        };
        let mut want = vec!["gen/manifest.json".to_string(), "gen/state.bin".to_string()];
        want.extend(seg.iter().map(|f| format!("seg-000001/{f}")));
        assert_eq!(names, want.iter().collect::<Vec<_>>());
        // The sweep wrote one segment beside the first, which it left as it was.
        let after: Vec<&String> = gens[0].1 .1.keys().collect();
        want.extend(seg.iter().map(|f| format!("seg-000002/{f}")));
        assert_eq!(after, want.iter().collect::<Vec<_>>());
        for f in seg {
            let k = format!("seg-000001/{f}");
            assert_eq!(gens[0].0 .1[&k], gens[0].1 .1[&k], "{k} rewritten");
        }
        assert!(gens[0] == gens[1], "variant {v}: generations differ");
    }
}

#[test]
fn a_budget_below_the_index_is_refused_before_the_work() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let corpus = gen(d, "c", 2000, 21, "");
    let sweep = gen(d, "s", 1000, 22, "s-");
    let spill = d.join("spill");
    std::fs::create_dir(&spill).unwrap();
    let idx = d.join("idx");
    let build = |budget: &str| {
        run(&[
            "index",
            "build",
            s(&corpus),
            "--out",
            s(&idx),
            "--memory-budget",
            budget,
            "--tmp-dir",
            s(&spill),
        ])
    };
    let add = |budget: &str| {
        run(&[
            "index",
            "add",
            s(&idx),
            s(&sweep),
            "--memory-budget",
            budget,
            "--tmp-dir",
            s(&spill),
        ])
    };
    // Exit 2 and "memory budget too small: `what` needs at least N MiB for M documents":
    // its stderr.
    let refused = |o: &Output, what: &str| -> String {
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.starts_with(&format!(
                "fimdup: memory budget too small: {what} needs at least "
            )),
            "{err}"
        );
        err
    };

    let (need, docs) = needs(&refused(&build("1MiB"), "index build"));
    assert_eq!(docs, 2000);
    // 2000 documents of 128 values: more than 2000 * 128 * 20 bytes, less than 10 times that.
    assert!((5..=50).contains(&need), "{need} MiB");
    assert!(!idx.exists(), "a refused build left {}", idx.display());
    assert!(empty_dir(&spill));

    // One MiB less than it says is refused too; what it says is enough.
    let o = build(&format!("{}MiB", need - 1));
    assert_eq!(o.status.code(), Some(2));
    assert!(!idx.exists());
    let o = build(&format!("{need}MiB"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let before = generation(&idx);

    // A sweep that does not fit: refused, the index as it was. The index's segment is
    // mapped (its documents counted by their ids and state), the sweep's 1000 documents
    // are counted as a build of them with the join's keys beside.
    let (need_add, docs) = needs(&refused(&add("2MiB"), "index add"));
    assert_eq!(docs, 3000);
    assert!(
        need_add > 2 && need_add < need + need / 2,
        "{need_add}, {need}"
    );
    assert_eq!(generation(&idx), before);
    let entries: Vec<String> = std::fs::read_dir(&idx)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !entries.iter().any(|e| e.starts_with("gen-000002")),
        "{entries:?}"
    );
    assert!(empty_dir(&spill));

    // A budget the index as it is does not fit in: refused before the index is read. Its
    // segment is mapped, so it needs the documents' ids and state only: 2000 documents of
    // 160 bytes, less than building it needed.
    let err = refused(&add("200KiB"), "index add");
    assert!(err.contains("as it is"), "{err}");
    let (open_need, docs) = needs(&err);
    assert_eq!(docs, 2000, "{err}");
    assert_eq!(open_need, (2000 * 160u64).div_ceil(1 << 20), "{err}");
    assert!(open_need < need, "{open_need} >= {need}");
    assert_eq!(generation(&idx), before);
    assert!(empty_dir(&spill));

    // What the sweep said it needs is enough.
    let o = add(&format!("{need_add}MiB"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_ne!(generation(&idx), before);
    assert!(empty_dir(&spill));
}

/// The answers of `index query` of `queries` against `idx`.
fn answers(idx: &Path, queries: &Path) -> serde_json::Value {
    json(&ok(&[
        "index",
        "query",
        s(idx),
        "--jsonl",
        s(queries),
        "--json",
    ]))["queries"]
        .clone()
}

#[test]
fn a_budget_counts_mapped_segments_as_their_ids_and_leaves_a_merge_that_does_not_fit() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let corpus = gen(d, "c", 2000, 31, "");
    let batches: Vec<PathBuf> = (0..8u64)
        .map(|i| gen(d, &format!("b{i}"), 200, 40 + i, &format!("b{i}-")))
        .collect();
    let spill = d.join("spill");
    std::fs::create_dir(&spill).unwrap();
    let (free, tight) = (d.join("free"), d.join("tight"));
    for idx in [&free, &tight] {
        ok(&["index", "build", s(&corpus), "--out", s(idx)]);
    }
    // 3 MiB holds each sweep of 200 documents beside the mapped segments (about 2 MiB), far
    // less than the whole index in memory would take, but not the merge of the eight
    // segments of 200 (their postings built anew: about 4 MiB).
    let whole = 3600 * (fimdup::index::BYTES_PER_DOC + 128 * fimdup::index::BYTES_PER_VALUE);
    assert!(whole > 3 << 20, "{whole}");
    let add = |idx: &Path, batch: &Path, budget: bool| -> (serde_json::Value, String) {
        let mut args = vec!["index", "add", s(idx), s(batch), "--batch", "--json"];
        if budget {
            args.extend(["--memory-budget", "3MiB", "--tmp-dir", s(&spill)]);
        }
        let o = ok(&args);
        (json(&o), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    for (i, b) in batches.iter().enumerate() {
        let (f, _) = add(&free, b, false);
        let (t, err) = add(&tight, b, true);
        assert_eq!(f["added"], 200);
        assert_eq!(t["added"], 200);
        assert_eq!(f["clusters"], t["clusters"], "batch {i}");
        assert_eq!(f["merges"], t["merges"], "batch {i}");
        assert_eq!(f["segment_merges"]["deferred"], 0);
        if i < 7 {
            assert_eq!(t["segment_merges"], f["segment_merges"], "batch {i}");
            assert_eq!(t["segment_merges"]["segments_after"], i as u64 + 2);
        } else {
            // The eighth segment of 200: the policy merges the eight, unless the budget
            // cannot hold their postings.
            assert_eq!(f["segment_merges"]["segments_before"], 9);
            assert_eq!(f["segment_merges"]["segments_after"], 2);
            assert_eq!(t["segment_merges"]["segments_after"], 9);
            assert_eq!(t["segment_merges"]["deferred"], 1);
            let need = t["segment_merges"]["deferred_needs"].as_u64().unwrap();
            assert!(need > 3 << 20 && need < whole, "{need}");
            assert!(
                err.contains("a segment merge left for `index merge`"),
                "{err}"
            );
        }
        assert!(empty_dir(&spill));
    }
    // The segments differ; no answer does.
    let queries = d.join("q.jsonl");
    let mut q = std::fs::read_to_string(&batches[7]).unwrap();
    let text = std::fs::read_to_string(&corpus).unwrap();
    q.push_str(text[..20_000].rsplit_once('\n').unwrap().0);
    q.push('\n');
    std::fs::write(&queries, q).unwrap();
    let want = answers(&free, &queries);
    assert!(want.as_array().unwrap().len() > 200, "{want}");
    assert_eq!(answers(&tight, &queries), want);
    // `index merge` under the same budget says what it needs; without one it merges.
    let o = run(&["index", "merge", s(&tight), "--memory-budget", "3MiB"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with("fimdup: memory budget too small: index merge needs at least "),
        "{err}"
    );
    let m = json(&ok(&["index", "merge", s(&tight), "--json"]));
    assert_eq!(m["segments_after"], 1);
    assert_eq!(answers(&tight, &queries), want);
}
