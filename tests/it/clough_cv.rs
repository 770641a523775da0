//! `sweep --cv 5 --group-by task` on the Clough & Stevenson (2011) corpus against the
//! figures of the procedure `eval/clough/cv.py` used: for each task held out, one sweep
//! with the truth restricted to the other four tasks' pairs (`--labeled-only`), the
//! threshold with its best F1 (ties: the higher threshold), and that threshold's P/R/F1 from
//! a second sweep with the truth restricted to the held-out task's pairs. With five tasks
//! and five folds every fold is one task, so the figures must agree fold for fold.

use crate::common::{self, ok, s};

use std::path::Path;

use serde_json::Value;

const TASKS: [&str; 5] = ["a", "b", "c", "d", "e"];

/// One fold of one method: threshold, train F1, test truth, found, common, test F1.
type Fold = (f64, f64, u64, u64, u64, f64);

/// `(a, b, plagiarised, task)` of the 95 labeled pairs, `a < b`.
fn pairs(dir: &Path) -> Vec<(String, String, String, String)> {
    let text = std::fs::read_to_string(dir.join("pairs_vs_source.tsv")).unwrap();
    let mut out = Vec::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (a, b) = if f[0] < f[1] {
            (f[0], f[1])
        } else {
            (f[1], f[0])
        };
        let task = f[1].strip_prefix("orig_task").unwrap().to_string();
        assert!(f[0].ends_with(&format!("_task{task}")));
        out.push((a.into(), b.into(), f[4].into(), task));
    }
    assert_eq!(out.len(), 95);
    out
}

fn write_truth(path: &Path, pairs: &[(String, String, String, String)], tasks: &[&str]) {
    let mut csv = String::from("a,b,plagiarised\n");
    for (a, b, p, t) in pairs {
        if tasks.contains(&t.as_str()) {
            csv.push_str(&format!("{a},{b},{p}\n"));
        }
    }
    std::fs::write(path, csv).unwrap();
}

fn sweep(docs: &Path, truth: &Path, out: &Path, measure: &[&str], extra: &[&str]) -> Value {
    let mut args = vec![
        "sweep",
        s(docs),
        "--truth",
        s(truth),
        "--truth-rule",
        "plagiarised=1",
        "--labeled-only",
        "--unit",
        "word",
        "--shingle-len",
        "3",
        "--thresholds",
        "0.9:0.1:0.1",
        "--errors",
        "0",
        "--json",
        "--out",
        s(out),
    ];
    args.extend_from_slice(measure);
    args.extend_from_slice(extra);
    serde_json::from_slice(&ok(&args).stdout).unwrap()
}

/// The method's best (threshold, F1) among `rows` (ties within 1e-12: higher threshold).
fn best(rows: &[Value], method: &str) -> (f64, f64) {
    let mut b: Option<(f64, f64)> = None;
    for r in rows.iter().filter(|r| r["method"] == method) {
        let (t, f) = (r["threshold"].as_f64().unwrap(), r["f1"].as_f64().unwrap());
        b = match b {
            Some((bt, bf)) if !(f > bf + 1e-12 || ((f - bf).abs() <= 1e-12 && t > bt)) => {
                Some((bt, bf))
            }
            _ => Some((t, f)),
        };
    }
    b.unwrap()
}

#[test]
fn cv_equals_the_per_task_sweeps() {
    let dir = common::dataset("clough_stevenson_2011");
    let docs = dir.join("docs.jsonl");
    let tmp = tempfile::tempdir().unwrap();
    let pairs = pairs(&dir);
    let all = tmp.path().join("all.csv");
    write_truth(&all, &pairs, &TASKS);
    let measures: [&[&str]; 2] = [
        &[
            "--measure",
            "resemblance",
            "--methods",
            "concept,union-find,lsh,super-shingle,exact",
            "--scheme",
            "bottom-k",
            "--size",
            "128",
        ],
        &[
            "--measure",
            "containment",
            "--methods",
            "exact,union-find",
            "--scheme",
            "mod-m",
            "--modulus",
            "4",
        ],
    ];
    for (mi, measure) in measures.iter().enumerate() {
        let cv = sweep(
            &docs,
            &all,
            &tmp.path().join(format!("cv{mi}")),
            measure,
            &["--cv", "5", "--group-by", "task"],
        );
        assert!(tmp.path().join(format!("cv{mi}/cv.csv")).exists());
        let rows = cv["rows"].as_array().unwrap();
        let methods: Vec<String> = cv["cv"]["methods"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["method"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(methods.len(), if mi == 0 { 5 } else { 2 });
        // Independent: per held-out task, the sweeps on the restricted truths.
        // expected[method] = [(threshold, train F1, truth, found, common, test F1)] by task
        let mut expected: Vec<Vec<Fold>> = vec![vec![]; methods.len()];
        for held in TASKS {
            let train: Vec<&str> = TASKS.iter().copied().filter(|t| *t != held).collect();
            let (tr, te) = (
                tmp.path().join(format!("train_{held}.csv")),
                tmp.path().join(format!("test_{held}.csv")),
            );
            write_truth(&tr, &pairs, &train);
            write_truth(&te, &pairs, &[held]);
            let a = sweep(&docs, &tr, &tmp.path().join("t"), measure, &[]);
            let b = sweep(&docs, &te, &tmp.path().join("u"), measure, &[]);
            for (k, m) in methods.iter().enumerate() {
                let (t, f) = best(a["rows"].as_array().unwrap(), m);
                let r = b["rows"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|r| r["method"] == m.as_str() && r["threshold"].as_f64() == Some(t))
                    .unwrap();
                expected[k].push((
                    t,
                    f,
                    r["truth_pairs"].as_u64().unwrap(),
                    r["found"].as_u64().unwrap(),
                    r["common"].as_u64().unwrap(),
                    r["f1"].as_f64().unwrap(),
                ));
            }
        }
        for (k, m) in methods.iter().enumerate() {
            let mut got: Vec<Fold> = cv["cv"]["rows"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|r| r["method"] == m.as_str())
                .map(|r| {
                    assert_eq!(r["units"], 1, "{m}: one task a fold");
                    (
                        r["threshold"].as_f64().unwrap(),
                        r["train_f1"].as_f64().unwrap(),
                        r["test_truth"].as_u64().unwrap(),
                        r["test_found"].as_u64().unwrap(),
                        r["test_common"].as_u64().unwrap(),
                        r["test_f1"].as_f64().unwrap(),
                    )
                })
                .collect();
            let key = |x: &Fold| (x.2, x.3, x.4, x.0.to_bits());
            let mut want = expected[k].clone();
            got.sort_by_key(key);
            want.sort_by_key(key);
            assert_eq!(got.len(), 5);
            for (g, w) in got.iter().zip(&want) {
                assert_eq!((g.0, g.2, g.3, g.4), (w.0, w.2, w.3, w.4), "{m}");
                assert!(
                    (g.1 - w.1).abs() < 1e-12 && (g.5 - w.5).abs() < 1e-12,
                    "{m}"
                );
            }
            let mean = want.iter().map(|w| w.5).sum::<f64>() / 5.0;
            let summary = &cv["cv"]["methods"][k];
            assert!(
                (summary["cv_f1"].as_f64().unwrap() - mean).abs() < 1e-12,
                "{m}"
            );
            // tuned on all: the sweep's own best row
            let (t, f) = best(rows, m);
            assert_eq!(summary["tuned_threshold"].as_f64().unwrap(), t, "{m}");
            assert!(
                (summary["tuned_f1"].as_f64().unwrap() - f).abs() < 1e-12,
                "{m}"
            );
        }
    }
}

#[test]
fn cv_bad_input_is_a_clear_error() {
    let dir = common::dataset("clough_stevenson_2011");
    let docs = dir.join("docs.jsonl");
    let tmp = tempfile::tempdir().unwrap();
    let truth = tmp.path().join("t.csv");
    write_truth(&truth, &pairs(&dir), &TASKS);
    let out = tmp.path().join("o");
    let base = [
        "sweep",
        s(&docs),
        "--truth",
        s(&truth),
        "--labeled-only",
        "--methods",
        "exact",
        "--thresholds",
        "0.5,0.3",
        "--errors",
        "0",
        "--out",
        s(&out),
    ];
    let cases: [(&[&str], &str); 4] = [
        (&["--cv", "1"], "cv: 1 folds; expected 2"),
        (
            &["--cv", "6", "--group-by", "task"],
            "6 folds need at least as many units",
        ),
        (
            &["--group-by", "task"],
            "give a number of resamples or of folds",
        ),
        (
            &["--cv", "3", "--group-by", "task", "--bootstrap", "10"],
            "",
        ),
    ];
    for (extra, want) in cases {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        let o = common::run(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        if want.is_empty() {
            assert!(o.status.success(), "{extra:?}: {err}");
            assert!(out.join("cv.csv").exists() && out.join("paired.csv").exists());
        } else {
            assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
            assert!(err.contains(want), "{extra:?}: {err}");
        }
    }
}

#[test]
fn cv_csv_is_the_same_for_any_thread_count() {
    let dir = common::dataset("clough_stevenson_2011");
    let docs = dir.join("docs.jsonl");
    let tmp = tempfile::tempdir().unwrap();
    let truth = tmp.path().join("t.csv");
    write_truth(&truth, &pairs(&dir), &TASKS);
    let mut got = Vec::new();
    for threads in ["1", "2"] {
        let out = tmp.path().join(threads);
        ok(&[
            "sweep",
            s(&docs),
            "--truth",
            s(&truth),
            "--truth-rule",
            "plagiarised=1",
            "--labeled-only",
            "--methods",
            "concept,exact",
            "--thresholds",
            "0.9:0.1:0.1",
            "--errors",
            "0",
            "--cv",
            "4",
            "--cv-seed",
            "9",
            "--threads",
            threads,
            "--out",
            s(&out),
        ]);
        got.push(std::fs::read(out.join("cv.csv")).unwrap());
    }
    assert_eq!(got[0], got[1]);
    // 100 documents in 4 folds of 25; 8 rows (2 methods x 4 folds)
    let text = String::from_utf8(got[0].clone()).unwrap();
    assert_eq!(text.lines().count(), 9);
    assert!(text
        .lines()
        .skip(1)
        .all(|l| l.split(',').nth(2) == Some("25")));
}
