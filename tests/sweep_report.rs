//! Sweeps on generated corpora: F1 curves for every method; on version chains (the
//! transitive-closure trap) concept clusters hold no false duplicate while union-find
//! chains unrelated versions together; and `demo` writes a report listing every method.

use std::path::Path;
use std::process::Command;

use fimdup::cluster::Method;
use fimdup::eval::{FalseClusterConfig, TruthRule, TruthTable};
use fimdup::gen::{generate, write_corpus, GenConfig, Mix};
use fimdup::report::sweep::{sweep, SweepConfig, SweepThresholds};
use fimdup::report::SweepRow;

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
        labeled_only: false,
        errors: 0,
        external: Vec::new(),
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

#[test]
fn every_method_has_an_f1_curve_and_the_exact_join_bounds_precision() {
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
    // Exact pairs at resemblance >= t contain every pair the exact join finds at a higher t.
    let exact: Vec<&SweepRow> = rows.iter().filter(|r| r.method == "exact").collect();
    assert!(
        exact.windows(2).all(|w| w[0].found <= w[1].found),
        "{exact:?}"
    );
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
