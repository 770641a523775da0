//! Sweeps on generated corpora: F1 curves for every method; on version chains (the
//! transitive-closure trap) concept clusters hold no false duplicate while union-find
//! chains unrelated versions together; and `demo` writes a report listing every method.

use std::collections::HashSet;
use std::path::Path;
use std::process::Command;

use fimdup::cluster::Method;
use fimdup::eval::{FalseClusterConfig, TruthRule, TruthTable};
use fimdup::gen::{generate, write_corpus, GenConfig, Mix};
use fimdup::report::sweep::{sweep, SweepConfig, SweepThresholds};
use fimdup::report::timing::Repeat;
use fimdup::report::{read_results_csv, write_results_csv, SweepRow, TIMING_COLUMNS};

fn chains_corpus(dir: &Path) {
    let cfg = GenConfig {
        seed: 11,
        docs: 400,
        mix: Mix {
            unrelated: 0.4,
            edit_families: 0.0,
            version_chains: 0.6,
            templates: 0.0,
            containment: 0.0,
            copies: 0.0,
        },
        ..GenConfig::default()
    };
    write_corpus(dir, &generate(&cfg).unwrap()).unwrap();
}

fn rows_for(dir: &Path, methods: Vec<Method>, thresholds: Vec<f64>) -> Vec<SweepRow> {
    rows_repeated(dir, methods, thresholds, Repeat::default())
}

fn rows_repeated(
    dir: &Path,
    methods: Vec<Method>,
    thresholds: Vec<f64>,
    repeat: Repeat,
) -> Vec<SweepRow> {
    let truth = TruthTable::read(&dir.join("truth.csv")).unwrap();
    let rule = TruthRule::parse("edit_similarity>0.85").unwrap();
    let labels = truth.labels(Some(&rule)).unwrap();
    let cfg = SweepConfig {
        methods,
        thresholds: SweepThresholds::Resemblance(thresholds),
        pipeline: Default::default(),
        cluster: Default::default(),
        spill: Default::default(),
        verify: false,
        false_clusters: FalseClusterConfig::default(),
        truth_tokenizer: Default::default(),
        labeled_only: false,
        errors: 0,
        external: Vec::new(),
        bootstrap: None,
        cv: None,
        shingle_lens: Vec::new(),
        repeat,
    };
    sweep(&dir.join("docs.jsonl"), &truth, &labels, &cfg, &|_| {})
        .unwrap()
        .rows
}

#[test]
fn concept_clusters_avoid_the_chain_trap_union_find_falls_in() {
    let dir = tempfile::tempdir().unwrap();
    chains_corpus(dir.path());
    let rows = rows_for(
        dir.path(),
        vec![Method::Concept, Method::UnionFind],
        vec![0.9, 0.8, 0.7, 0.6],
    );
    assert_eq!(rows.len(), 8);
    for r in &rows {
        let fc = r
            .false_clusters
            .expect("cluster methods report false clusters");
        if r.method == "concept" {
            assert_eq!(fc, 0, "concept at {}: {r:?}", r.threshold);
        }
        // Both methods find chain neighbours (resemblance ~0.77) at the lower thresholds.
        if r.threshold <= 0.7 {
            assert!(r.common > 0, "{r:?}");
        }
    }
    let uf_false: u64 = rows
        .iter()
        .filter(|r| r.method == "union-find")
        .map(|r| r.false_clusters.unwrap())
        .sum();
    assert!(uf_false > 0, "union-find never chained versions: {rows:?}");
    // At 0.6, union-find joins more pairs than concept clusters hold (the chains).
    let at = |m: &str| {
        rows.iter()
            .find(|r| r.method == m && r.threshold == 0.6)
            .unwrap()
            .found
    };
    assert!(at("union-find") > at("concept"));
}

/// Word 5-shingle sets of the corpus's documents, computed here from the raw texts
/// (lowercase, words are maximal runs of alphanumeric characters), by id.
fn reference_shingles(docs: &Path) -> Vec<(String, HashSet<String>)> {
    std::fs::read_to_string(docs)
        .unwrap()
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let text = v["text"].as_str().unwrap().to_lowercase();
            let words: Vec<&str> = text
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .collect();
            let set = words.windows(5).map(|w| w.join(" ")).collect();
            (v["id"].as_str().unwrap().to_string(), set)
        })
        .collect()
}

#[test]
fn every_method_has_an_f1_curve_and_the_exact_join_finds_exactly_the_pairs_above_t() {
    let dir = tempfile::tempdir().unwrap();
    write_corpus(
        dir.path(),
        &generate(&GenConfig {
            docs: 400,
            seed: 5,
            ..GenConfig::default()
        })
        .unwrap(),
    )
    .unwrap();
    let methods = vec![
        Method::Concept,
        Method::UnionFind,
        Method::Lsh,
        Method::SuperShingle,
        Method::Exact,
    ];
    let ts = vec![0.9, 0.7, 0.5];
    let rows = rows_for(dir.path(), methods.clone(), ts.clone());
    assert_eq!(rows.len(), methods.len() * ts.len());
    for m in &methods {
        let curve: Vec<&SweepRow> = rows.iter().filter(|r| r.method == m.name()).collect();
        assert_eq!(curve.len(), ts.len(), "{m:?}");
        assert!(curve.iter().any(|r| r.f1 > 0.3), "{m:?}: {curve:?}");
        for r in &curve {
            // The five values are consistent.
            assert_eq!(r.common + r.unique_truth, r.truth_pairs);
            assert_eq!(r.common + r.unique_ours, r.found);
            assert!((0.0..=1.0).contains(&r.f1));
        }
    }

    // The exact join against a brute-force Jaccard written here: at every threshold it finds
    // exactly the pairs whose word 5-shingle resemblance is at least t, so its found, common
    // and precision equal the reference's, computed with the truth file read here too.
    let docs = reference_shingles(&dir.path().join("docs.jsonl"));
    let mut positives: HashSet<(String, String)> = HashSet::new();
    let mut r = csv::Reader::from_path(dir.path().join("truth.csv")).unwrap();
    let headers = r.headers().unwrap().clone();
    let es = headers.iter().position(|h| h == "edit_similarity").unwrap();
    for rec in r.records() {
        let rec = rec.unwrap();
        if rec[es].parse::<f64>().unwrap() > 0.85 {
            positives.insert((rec[0].to_string(), rec[1].to_string()));
        }
    }
    let mut jaccard: Vec<(f64, (String, String))> = Vec::new();
    for i in 0..docs.len() {
        for j in i + 1..docs.len() {
            let (x, y) = (&docs[i].1, &docs[j].1);
            let inter = x.intersection(y).count();
            let union = x.len() + y.len() - inter;
            if inter > 0 {
                let (a, b) = (docs[i].0.clone(), docs[j].0.clone());
                let key = if a < b { (a, b) } else { (b, a) };
                jaccard.push((inter as f64 / union as f64, key));
            }
        }
    }
    for &t in &ts {
        let above: Vec<&(String, String)> = jaccard
            .iter()
            .filter(|(j, _)| *j >= t)
            .map(|(_, k)| k)
            .collect();
        let common = above.iter().filter(|k| positives.contains(k)).count() as u64;
        let r = rows
            .iter()
            .find(|r| r.method == "exact" && r.threshold == t)
            .unwrap();
        assert_eq!(r.found, above.len() as u64, "exact at {t}: {r:?}");
        assert_eq!(r.common, common, "exact at {t}: {r:?}");
        assert_eq!(r.truth_pairs, positives.len() as u64, "{r:?}");
        assert!(common > 0, "no true pair at resemblance >= {t}");
    }
}

#[test]
fn demo_writes_a_report_listing_every_method() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_fimdup"))
        .args(["demo", "--out", dir.path().to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    let rows = fimdup::report::read_results_csv(&dir.path().join("results.csv")).unwrap();
    for m in ["concept", "union-find", "lsh", "super-shingle", "exact"] {
        assert!(html.contains(m), "report.html lacks {m}");
        assert!(err.contains(m), "summary table lacks {m}");
        // 0.95:0.5:0.05 is ten thresholds.
        assert_eq!(rows.iter().filter(|r| r.method == m).count(), 10, "{m}");
    }
    for f in ["f1.svg", "pr.svg", "time.svg", "report.md"] {
        assert!(dir.path().join(f).is_file(), "{f}");
    }
}

#[test]
fn repetitions_give_every_row_its_spread_and_change_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    chains_corpus(dir.path());
    let run = |max: usize, seconds: f64| {
        rows_repeated(
            dir.path(),
            vec![Method::Concept, Method::Exact],
            vec![0.9, 0.7],
            Repeat { max, seconds },
        )
    };
    let once = run(1, 60.0);
    let four = run(4, 60.0);
    // Four allowed, but the time is reached after the first: once.
    let timed_out = run(4, 0.0);
    assert_eq!(four.len(), 4);
    for r in once.iter().chain(&timed_out) {
        assert_eq!(r.repeats, Some(1), "{r:?}");
        assert_eq!(r.seconds_max, Some(r.seconds), "{r:?}");
        assert_eq!(r.peak_rss_max_bytes, r.peak_rss_bytes, "{r:?}");
    }
    for r in &four {
        assert_eq!(r.repeats, Some(4), "{r:?}");
        let most = r.seconds_max.unwrap();
        assert!(r.seconds > 0.0 && most >= r.seconds, "{r:?}");
        if cfg!(target_os = "linux") {
            let (least, most) = (r.peak_rss_bytes.unwrap(), r.peak_rss_max_bytes.unwrap());
            assert!(least > 1 << 20 && most >= least, "{r:?}");
        }
    }
    // Everything but the timing columns is the same however often the runs are repeated.
    let data = |rows: &[SweepRow]| -> Vec<SweepRow> {
        rows.iter()
            .map(|r| SweepRow {
                seconds: 0.0,
                peak_rss_bytes: None,
                repeats: None,
                seconds_max: None,
                peak_rss_max_bytes: None,
                ..r.clone()
            })
            .collect()
    };
    assert_eq!(data(&once), data(&four));
    assert_eq!(data(&once), data(&timed_out));
    // results.csv carries the spread last, and reads back.
    let path = dir.path().join("results.csv");
    write_results_csv(&path, &four).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let head: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    assert_eq!(
        head[head.len() - 3..],
        ["repeats", "seconds_max", "peak_rss_max_bytes"]
    );
    assert!(TIMING_COLUMNS.iter().all(|c| head.contains(c)));
    let line: Vec<&str> = text.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(line[head.len() - 3], "4");
    assert_eq!(read_results_csv(&path).unwrap(), four);
}
