//! The sweep report's error analysis on the default corpus, checked against the method's
//! own output (`fimdup cluster` pairs.csv) and the truth file read here: the listed false
//! positives and misses are the set differences of predicted and true pairs, nearest the
//! threshold first; the report states the grid edge and how it was made.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::{ok, s};

type Pair = (String, String);

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn pair(a: &str, b: &str) -> Pair {
    if a < b {
        (a.into(), b.into())
    } else {
        (b.into(), a.into())
    }
}

/// The truth's positive pairs under the ROMIP rule (edit_similarity > 0.85), read with the
/// csv crate.
fn truth_positives() -> BTreeSet<Pair> {
    let mut r = csv::Reader::from_path(root().join("datasets/default/truth.csv")).unwrap();
    let h = r.headers().unwrap().clone();
    let col = h.iter().position(|c| c == "edit_similarity").unwrap();
    r.records()
        .map(|x| x.unwrap())
        .filter(|x| x[col].parse::<f64>().unwrap() > 0.85)
        .map(|x| pair(&x[0], &x[1]))
        .collect()
}

fn pairs_csv(path: &Path) -> BTreeSet<Pair> {
    let mut r = csv::Reader::from_path(path).unwrap();
    r.records()
        .map(|x| x.unwrap())
        .map(|x| pair(&x[0], &x[1]))
        .collect()
}

struct ErrorRow {
    method: String,
    threshold: f64,
    a: String,
    b: String,
    kind: String,
    estimate: Option<f64>,
    exact: Option<f64>,
}

fn errors_csv(path: &Path) -> Vec<ErrorRow> {
    let mut r = csv::Reader::from_path(path).unwrap();
    assert_eq!(
        r.headers().unwrap().iter().collect::<Vec<_>>(),
        [
            "method",
            "threshold",
            "a",
            "b",
            "kind",
            "exact",
            "estimate",
            "shared",
            "score"
        ]
    );
    r.records()
        .map(|x| x.unwrap())
        .map(|x| ErrorRow {
            method: x[0].into(),
            threshold: x[1].parse().unwrap(),
            a: x[2].into(),
            b: x[3].into(),
            kind: x[4].into(),
            exact: x[5].parse().ok(),
            estimate: x[6].parse().ok(),
        })
        .collect()
}

const METHODS: [&str; 3] = ["concept", "union-find", "lsh"];
const THRESHOLDS: [&str; 2] = ["0.8", "0.6"];

#[test]
fn error_lists_are_the_set_differences() {
    let dir = tempfile::tempdir().unwrap();
    let docs = root().join("datasets/default/docs.jsonl");
    let truth = root().join("datasets/default/truth.csv");
    let out = dir.path().join("sweep");
    ok(&[
        "sweep",
        s(&docs),
        "--truth",
        s(&truth),
        "--html",
        "--methods",
        &METHODS.join(","),
        "--thresholds",
        &THRESHOLDS.join(","),
        "--errors",
        "1000000",
        "--out",
        s(&out),
    ]);
    let listed = errors_csv(&out.join("errors.csv"));
    let positives = truth_positives();
    for m in METHODS {
        for t in THRESHOLDS {
            let c = dir.path().join(format!("{m}-{t}"));
            ok(&[
                "cluster",
                s(&docs),
                "--html",
                "--method",
                m,
                "--threshold",
                t,
                "--out",
                s(&c),
            ]);
            let found = pairs_csv(&c.join("pairs.csv"));
            let fp: BTreeSet<Pair> = found.difference(&positives).cloned().collect();
            let miss: BTreeSet<Pair> = positives.difference(&found).cloned().collect();
            let tv: f64 = t.parse().unwrap();
            let of = |kind: &str| -> BTreeSet<Pair> {
                listed
                    .iter()
                    .filter(|e| e.method == m && e.threshold == tv && e.kind == kind)
                    .map(|e| (e.a.clone(), e.b.clone()))
                    .collect()
            };
            assert_eq!(of("false-positive"), fp, "{m} at {t}: false positives");
            assert_eq!(of("miss"), miss, "{m} at {t}: misses");
            assert!(
                !fp.is_empty() || !miss.is_empty(),
                "{m} at {t} makes no error"
            );
        }
    }
    // Every listed pair of documents in the corpus has an exact value in [0, 1].
    assert!(listed
        .iter()
        .all(|e| e.exact.is_some_and(|x| (0.0..=1.0).contains(&x))));

    // Capped: the first N of each list, nearest the threshold first.
    let capped = dir.path().join("capped");
    ok(&[
        "sweep",
        s(&docs),
        "--truth",
        s(&truth),
        "--html",
        "--methods",
        "union-find",
        "--thresholds",
        "0.8",
        "--errors",
        "7",
        "--out",
        s(&capped),
    ]);
    let few = errors_csv(&capped.join("errors.csv"));
    for kind in ["false-positive", "miss"] {
        let all: Vec<&ErrorRow> = listed
            .iter()
            .filter(|e| e.method == "union-find" && e.threshold == 0.8 && e.kind == kind)
            .collect();
        let got: Vec<&ErrorRow> = few.iter().filter(|e| e.kind == kind).collect();
        assert_eq!(got.len(), all.len().min(7), "{kind}");
        let dist = |e: &ErrorRow| (e.estimate.unwrap() - 0.8).abs();
        assert!(
            got.windows(2).all(|w| dist(w[0]) <= dist(w[1])),
            "{kind}: order"
        );
        let worst = got.iter().map(|e| dist(e)).fold(0.0, f64::max);
        let nearer = all.iter().filter(|e| dist(e) < worst).count();
        assert!(nearer < 7, "{kind}: a nearer pair was left out");
    }
    let html = std::fs::read_to_string(capped.join("report.html")).unwrap();
    assert!(html.contains("<h2 id=\"errors\">Error analysis</h2>"));
    assert!(html.contains("<mark class=\"fd-shared\">"));
    assert!(html.contains("id=\"fd-data\""));
    assert!(html.contains("class=\"fd-hits\""));
    assert!(!html.contains("http://") || !html.contains("src=\"http"));
}

#[test]
fn report_says_how_it_was_made_and_flags_the_grid_edge() {
    let dir = tempfile::tempdir().unwrap();
    let docs = root().join("datasets/default/docs.jsonl");
    let truth = root().join("datasets/default/truth.csv");
    let out = dir.path().join("sweep");
    // The exact join's best F1 on the default corpus lies below 0.9 (0.55 over the full
    // grid): a grid of 0.95 and 0.9 has it at its lower edge.
    let o = ok(&[
        "sweep",
        s(&docs),
        "--truth",
        s(&truth),
        "--html",
        "--methods",
        "exact",
        "--thresholds",
        "0.95,0.9",
        "--errors",
        "0",
        "--json",
        "--out",
        s(&out),
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let m = &v["methods"][0];
    assert_eq!(m["method"], "exact");
    assert_eq!(m["threshold"], 0.9);
    assert_eq!(m["best_at_grid_edge"], true);
    assert_eq!(m["suggest"], "0.9:0.7:0.05");
    assert_eq!(v["rows"].as_array().unwrap().len(), 2);
    assert!(!out.join("errors.csv").exists(), "--errors 0 lists none");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("best at the grid's edge: add 0.9:0.7:0.05"),
        "{md}"
    );
    let hash = format!(
        "{:032x}",
        xxhash_rust::xxh3::xxh3_128(&std::fs::read(&docs).unwrap())
    );
    let params: BTreeMap<String, String> = md
        .lines()
        .filter_map(|l| {
            let c: Vec<&str> = l.trim_matches('|').split(" | ").collect();
            (c.len() == 2).then(|| (c[0].trim().to_string(), c[1].trim().to_string()))
        })
        .collect();
    assert_eq!(params["corpus content hash (xxh3-128)"], hash);
    assert_eq!(
        params["corpus bytes"],
        format!("{} (1 files)", std::fs::metadata(&docs).unwrap().len())
    );
    assert_eq!(params["documents"], "1500");
    assert_eq!(params["fimdup version"], env!("CARGO_PKG_VERSION"));
    assert!(
        params["command line"].contains("sweep")
            && params["command line"].contains("--thresholds 0.95,0.9")
    );
    assert!(!params["git commit"].is_empty());
    assert_eq!(params["truth rule"], "edit_similarity>0.85");
}

/// `--external`: another tool's pairs (here union-find's pairs.csv rewritten as a scored and
/// an unscored file) in the same rows and error lists, counted here from the files.
#[test]
fn external_predictions_are_swept_beside_the_methods() {
    let dir = tempfile::tempdir().unwrap();
    let docs = root().join("datasets/default/docs.jsonl");
    let truth = root().join("datasets/default/truth.csv");
    let c = dir.path().join("uf");
    ok(&[
        "cluster",
        s(&docs),
        "--html",
        "--method",
        "union-find",
        "--threshold",
        "0.6",
        "--out",
        s(&c),
    ]);
    let mut r = csv::Reader::from_path(c.join("pairs.csv")).unwrap();
    let h = r.headers().unwrap().clone();
    let est = h.iter().position(|x| x == "estimate").unwrap();
    let scored: Vec<(Pair, f64)> = r
        .records()
        .map(|x| x.unwrap())
        .filter_map(|x| Some((pair(&x[0], &x[1]), x[est].parse::<f64>().ok()?)))
        .collect();
    assert!(scored.len() > 100);
    let mut f1 = String::from("a,b,score\n");
    let mut f2 = String::from("a,b\n");
    for ((a, b), sc) in &scored {
        f1.push_str(&format!("{a},{b},{sc}\n"));
        f2.push_str(&format!("{b},{a}\n"));
    }
    let (p1, p2) = (dir.path().join("scored.csv"), dir.path().join("plain.csv"));
    std::fs::write(&p1, f1).unwrap();
    std::fs::write(&p2, f2).unwrap();
    let out = dir.path().join("sweep");
    let o = ok(&[
        "sweep",
        s(&docs),
        "--truth",
        s(&truth),
        "--html",
        "--methods",
        "exact",
        "--thresholds",
        "0.9,0.7",
        "--external",
        &format!("tool={}", s(&p1)),
        "--external",
        &format!("plain={}", s(&p2)),
        "--errors",
        "1000000",
        "--json",
        "--out",
        s(&out),
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    let positives = truth_positives();
    let listed = errors_csv(&out.join("errors.csv"));
    for t in [0.9, 0.7] {
        let found: BTreeSet<Pair> = scored
            .iter()
            .filter(|(_, sc)| *sc >= t)
            .map(|(p, _)| p.clone())
            .collect();
        let row = rows
            .iter()
            .find(|r| r["method"] == "tool" && r["threshold"] == t)
            .unwrap();
        assert_eq!(row["found"], found.len() as u64);
        assert_eq!(row["common"], found.intersection(&positives).count() as u64);
        let fp: BTreeSet<Pair> = listed
            .iter()
            .filter(|e| e.method == "tool" && e.threshold == t && e.kind == "false-positive")
            .map(|e| (e.a.clone(), e.b.clone()))
            .collect();
        assert_eq!(fp, found.difference(&positives).cloned().collect());
    }
    let plain: Vec<&serde_json::Value> = rows.iter().filter(|r| r["method"] == "plain").collect();
    assert_eq!(plain.len(), 1, "an unscored file is one point");
    let all: BTreeSet<Pair> = scored.iter().map(|(p, _)| p.clone()).collect();
    assert_eq!(plain[0]["found"], all.len() as u64);
    assert_eq!(
        plain[0]["common"],
        all.intersection(&positives).count() as u64
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("plain (unscored)") && html.contains("tool"));
    // A name taken by a method is refused.
    let o = common::run(&[
        "sweep",
        s(&docs),
        "--truth",
        s(&truth),
        "--methods",
        "exact",
        "--external",
        &format!("exact={}", s(&p1)),
        "--out",
        s(&dir.path().join("x")),
    ]);
    assert_eq!(o.status.code(), Some(2));
}

/// tf-idf images need the corpus's document frequencies: the error lists still come out,
/// with exact values and views, and without an estimate.
#[test]
fn tfidf_sweeps_list_errors_without_estimates() {
    let dir = tempfile::tempdir().unwrap();
    let docs = root().join("datasets/default/docs.jsonl");
    let truth = root().join("datasets/default/truth.csv");
    let out = dir.path().join("sweep");
    ok(&[
        "sweep",
        s(&docs),
        "--truth",
        s(&truth),
        "--html",
        "--weighting",
        "tfidf",
        "--methods",
        "union-find",
        "--thresholds",
        "0.8",
        "--errors",
        "3",
        "--out",
        s(&out),
    ]);
    let listed = errors_csv(&out.join("errors.csv"));
    let rows = fimdup::report::read_results_csv(&out.join("results.csv")).unwrap();
    let count = |kind: &str| listed.iter().filter(|e| e.kind == kind).count() as u64;
    assert_eq!(count("miss"), rows[0].unique_truth.min(3));
    assert_eq!(count("false-positive"), rows[0].unique_ours.min(3));
    assert!(listed
        .iter()
        .all(|e| e.estimate.is_none() && e.exact.is_some()));
}
