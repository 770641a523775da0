//! `sweep --cv` on the Clough & Stevenson (2011) corpus against independent procedures.
//!
//! `cv_equals_the_per_task_sweeps`: `--cv 5 --group-by task` (each task held out) against,
//! for each task held out, one sweep with the truth restricted to the other four tasks'
//! pairs (`--labeled-only`), the threshold with its best F1 (ties: the higher threshold),
//! and that threshold's P/R/F1 from a second sweep with the truth restricted to the
//! held-out task's pairs. With five tasks and five folds every fold is one task, so the
//! figures must agree fold for fold.
//!
//! `cv_grid_equals_the_reference`: `--shingle-len 3,5` and `2,3,4,5` with `--cv 5
//! --group-by task --cv-choose 2,3` against `tests/it/data/clough_cv_reference.csv`, the
//! output of the retired `eval/clough/cv.py` (one sweep per measure, shingle length and set
//! of tasks with the truth cut to that set's pairs; the (w, threshold) of best F1 on the
//! choose-set, ties to the higher threshold then the shorter shingle; full-precision F1),
//! row for row: the 20 splits of every method and grid.

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
    let cases: [(&[&str], &str); 8] = [
        (&["--cv-choose", "2"], "--cv <K>"),
        (
            &["--cv", "5", "--group-by", "task", "--cv-choose", "5"],
            "cv-choose: 5 folds to choose on out of 5; expected 1 to 4",
        ),
        (
            &["--shingle-len", "3,3"],
            "shingle length 3 is given twice in the grid",
        ),
        (
            &["--shingle-len", "3,x"],
            "expected a shingle length or a comma list of them",
        ),
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
            "--shingle-len",
            "3,4",
            "--threads",
            threads,
            "--out",
            s(&out),
        ]);
        got.push(std::fs::read(out.join("cv.csv")).unwrap());
    }
    assert_eq!(got[0], got[1]);
    // 100 documents in 4 folds of 25; 8 rows (2 methods x 4 folds), each reporting one
    // fold against the other three, at a chosen length of 3 or 4
    let text = String::from_utf8(got[0].clone()).unwrap();
    assert_eq!(text.lines().count(), 9);
    for (i, l) in text.lines().skip(1).enumerate() {
        let f: Vec<&str> = l.split(',').collect();
        assert_eq!(
            (f[1], f[3], f[4]),
            (&*(i % 4).to_string(), &*(i % 4).to_string(), "25")
        );
        assert_eq!(f[2].split(' ').count(), 3);
        assert!(f[5] == "3" || f[5] == "4", "{l}");
    }
}

/// The method of the reference's label (`union-find (mod-m, m = 4)` is union-find).
fn method_of(label: &str) -> &str {
    label.split(" (").next().unwrap()
}

#[test]
fn cv_grid_equals_the_reference() {
    let dir = common::dataset("clough_stevenson_2011");
    let docs = dir.join("docs.jsonl");
    let reference =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/data/clough_cv_reference.csv");
    let mut rdr = csv::Reader::from_path(&reference).unwrap();
    let head = rdr.headers().unwrap().clone();
    let want: Vec<std::collections::HashMap<String, String>> = rdr
        .records()
        .map(|r| {
            let r = r.unwrap();
            head.iter()
                .zip(r.iter())
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect();
    assert_eq!(want.len(), 280);
    let tmp = tempfile::tempdir().unwrap();
    let truth = tmp.path().join("all.csv");
    write_truth(&truth, &pairs(&dir), &TASKS);
    let measures: [(&str, &[&str]); 2] = [
        (
            "resemblance",
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
        ),
        (
            "containment",
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
        ),
    ];
    let close = |a: f64, b: &str, what: &str| {
        let b: f64 = b.parse().unwrap();
        assert!(
            (a - b).abs() < 1e-9,
            "{what}: {a} against the reference's {b}"
        );
    };
    let mut checked = 0;
    for (grid, lens) in [("w in {3, 5}", "3,5"), ("w in {2, 3, 4, 5}", "2,3,4,5")] {
        for (measure, args) in measures {
            let out = tmp.path().join(format!("{measure}-{lens}"));
            let mut a = vec![
                "sweep",
                s(&docs),
                "--truth",
                s(&truth),
                "--truth-rule",
                "plagiarised=1",
                "--labeled-only",
                "--unit",
                "word",
                "--shingle-len",
                lens,
                "--thresholds",
                "0.9:0.1:0.1",
                "--cv",
                "5",
                "--group-by",
                "task",
                "--cv-choose",
                "2,3",
                "--json",
                "--out",
                s(&out),
            ];
            a.extend_from_slice(args);
            let v: Value = serde_json::from_slice(&ok(&a).stdout).unwrap();
            let cv = &v["cv"];
            assert_eq!(cv["splits"], 20);
            // fold -> its one task
            let task_of: Vec<String> = cv["fold_groups"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| {
                    assert_eq!(g.as_array().unwrap().len(), 1);
                    g[0].as_str().unwrap().to_string()
                })
                .collect();
            let tasks = |folds: &Value| -> String {
                let mut t: Vec<&str> = folds
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| task_of[f.as_u64().unwrap() as usize].as_str())
                    .collect();
                t.sort();
                t.concat()
            };
            let rows = cv["rows"].as_array().unwrap();
            for m in cv["methods"].as_array().unwrap() {
                let name = m["method"].as_str().unwrap();
                let refs: Vec<_> = want
                    .iter()
                    .filter(|w| {
                        w["grid"] == grid
                            && w["measure"] == measure
                            && method_of(&w["method"]) == name
                    })
                    .collect();
                assert_eq!(refs.len(), 20, "{grid} {measure} {name}");
                let mut f1s = Vec::new();
                let mut oracle = Vec::new();
                for w in &refs {
                    let what = format!(
                        "{grid} {measure} {name} choose {} report {}",
                        w["choose_tasks"], w["report_tasks"]
                    );
                    let r = rows
                        .iter()
                        .find(|r| {
                            r["method"] == name
                                && tasks(&r["choose"]) == w["choose_tasks"]
                                && tasks(&r["report"]) == w["report_tasks"]
                        })
                        .unwrap_or_else(|| panic!("{what}: no such split"));
                    assert_eq!(r["shingle_len"].to_string(), w["chosen_w"], "{what}");
                    assert_eq!(
                        format!("{:.1}", r["threshold"].as_f64().unwrap()),
                        w["chosen_threshold"],
                        "{what}"
                    );
                    close(r["train_f1"].as_f64().unwrap(), &w["choose_f1"], &what);
                    for (k, rk) in [
                        ("test_truth", "report_truth_pairs"),
                        ("test_found", "report_found"),
                        ("test_common", "report_common"),
                    ] {
                        assert_eq!(r[k].to_string(), w[rk], "{what}: {k}");
                    }
                    close(r["test_precision"].as_f64().unwrap(), &w["report_p"], &what);
                    close(r["test_recall"].as_f64().unwrap(), &w["report_r"], &what);
                    close(r["test_f1"].as_f64().unwrap(), &w["report_f1"], &what);
                    assert_eq!(
                        r["report_best_shingle_len"].to_string(),
                        w["report_best_w"],
                        "{what}"
                    );
                    assert_eq!(
                        format!("{:.1}", r["report_best_threshold"].as_f64().unwrap()),
                        w["report_best_threshold"],
                        "{what}"
                    );
                    close(
                        r["report_best_f1"].as_f64().unwrap(),
                        &w["report_best_f1"],
                        &what,
                    );
                    f1s.push(w["report_f1"].parse::<f64>().unwrap());
                    oracle.push(w["report_best_f1"].parse::<f64>().unwrap());
                    checked += 1;
                }
                // the summary: the means over the 20 splits and over each scheme's 10
                let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
                close(m["cv_f1"].as_f64().unwrap(), &mean(&f1s).to_string(), name);
                close(
                    m["report_tuned_f1"].as_f64().unwrap(),
                    &mean(&oracle).to_string(),
                    name,
                );
                for (i, (b, scheme)) in [(2, "choose 2 / report 3"), (3, "choose 3 / report 2")]
                    .into_iter()
                    .enumerate()
                {
                    let v: Vec<f64> = refs
                        .iter()
                        .filter(|w| w["scheme"] == scheme)
                        .map(|w| w["report_f1"].parse().unwrap())
                        .collect();
                    let by = &m["by_choose"][i];
                    assert_eq!(
                        (by["choose"].as_u64(), by["splits"].as_u64()),
                        (Some(b), Some(10))
                    );
                    close(by["cv_f1"].as_f64().unwrap(), &mean(&v).to_string(), name);
                }
            }
        }
    }
    assert_eq!(checked, 280);
}

#[test]
fn one_length_in_a_list_is_the_plain_sweep() {
    // `--shingle-len 3` and a grid's rows at w = 3 are the same rows
    let dir = common::dataset("clough_stevenson_2011");
    let docs = dir.join("docs.jsonl");
    let tmp = tempfile::tempdir().unwrap();
    let truth = tmp.path().join("t.csv");
    write_truth(&truth, &pairs(&dir), &TASKS);
    let run = |lens: &str, out: &str| -> Value {
        let out = tmp.path().join(out);
        let o = ok(&[
            "sweep",
            s(&docs),
            "--truth",
            s(&truth),
            "--truth-rule",
            "plagiarised=1",
            "--labeled-only",
            "--unit",
            "word",
            "--shingle-len",
            lens,
            "--methods",
            "union-find,exact",
            "--thresholds",
            "0.5,0.3,0.1",
            "--json",
            "--out",
            s(&out),
        ]);
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let one = run("3", "one");
    let grid = run("4,3", "grid");
    let header = |d: &str| {
        std::fs::read_to_string(tmp.path().join(d).join("results.csv"))
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_string()
    };
    assert!(!header("one").contains("shingle_len"));
    assert!(header("grid").starts_with("method,shingle_len,threshold,"));
    let key = |r: &Value| {
        (
            r["method"].clone(),
            r["threshold"].clone(),
            r["found"].clone(),
            r["common"].clone(),
            r["k"].clone(),
        )
    };
    let one_rows: Vec<_> = one["rows"].as_array().unwrap().iter().map(key).collect();
    let grid_rows = grid["rows"].as_array().unwrap();
    assert_eq!(grid_rows.len(), 12);
    // lengths in the order given, then methods, then thresholds
    assert!(grid_rows[..6].iter().all(|r| r["shingle_len"] == 4));
    let w3: Vec<_> = grid_rows[6..].iter().map(key).collect();
    assert!(grid_rows[6..].iter().all(|r| r["shingle_len"] == 3));
    assert_eq!(w3, one_rows);
    // a list is for sweep only
    let o = common::run(&[
        "cluster",
        s(&docs),
        "--shingle-len",
        "2,3",
        "--out",
        s(&tmp.path().join("c")),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("a list (2,3) is for sweep"));
}

/// The Clough corpus written in `tmp` as `docs.jsonl` (as shipped, but the eighth document
/// without a task), and as `docs.csv` and `docs.tsv` (id, task, text columns; the eighth
/// task empty), with `t.csv`, the truth of every task; and the shipped JSONL's text.
fn group_by_corpora(tmp: &Path) -> String {
    let dir = common::dataset("clough_stevenson_2011");
    let docs = dir.join("docs.jsonl");
    let truth = tmp.join("t.csv");
    write_truth(&truth, &pairs(&dir), &TASKS);
    let text = std::fs::read_to_string(&docs).unwrap();
    for (name, tab) in [("docs.csv", false), ("docs.tsv", true)] {
        let mut w = csv::WriterBuilder::new()
            .delimiter(if tab { b'\t' } else { b',' })
            .from_path(tmp.join(name))
            .unwrap();
        // the group column between the others, and one document without a task (its own
        // group in every format)
        w.write_record(["id", "task", "text"]).unwrap();
        for (i, line) in text.lines().enumerate() {
            let v: Value = serde_json::from_str(line).unwrap();
            let task = if i == 7 {
                ""
            } else {
                v["task"].as_str().unwrap()
            };
            w.write_record([v["id"].as_str().unwrap(), task, v["text"].as_str().unwrap()])
                .unwrap();
        }
        w.flush().unwrap();
    }
    let mut jsonl = String::new();
    for (i, line) in text.lines().enumerate() {
        let mut v: Value = serde_json::from_str(line).unwrap();
        if i == 7 {
            v["task"] = Value::Null;
        }
        jsonl.push_str(&format!("{v}\n"));
    }
    std::fs::write(tmp.join("docs.jsonl"), jsonl).unwrap();
    text
}

/// `sweep --cv 3 --group-by task` of `corpus` against `tmp/t.csv` (union-find and exact,
/// word 3-shingles, three thresholds): cv.csv and the JSON summary.
fn group_by_cv(tmp: &Path, corpus: &Path) -> (Vec<u8>, Value) {
    let truth = tmp.join("t.csv");
    let out = tmp.join(format!(
        "out-{}",
        corpus.extension().unwrap().to_str().unwrap()
    ));
    let o = ok(&[
        "sweep",
        s(corpus),
        "--truth",
        s(&truth),
        "--truth-rule",
        "plagiarised=1",
        "--labeled-only",
        "--unit",
        "word",
        "--shingle-len",
        "3",
        "--methods",
        "union-find,exact",
        "--thresholds",
        "0.5,0.3,0.1",
        "--errors",
        "0",
        "--cv",
        "3",
        "--group-by",
        "task",
        "--json",
        "--out",
        s(&out),
    ]);
    (
        std::fs::read(out.join("cv.csv")).unwrap(),
        serde_json::from_slice(&o.stdout).unwrap(),
    )
}

#[test]
fn group_by_reads_csv_and_tsv_columns() {
    // The Clough corpus as JSONL and as CSV and TSV: the same groups, so the same cv.csv
    // byte for byte.
    let tmp = tempfile::tempdir().unwrap();
    let tmp = tmp.path();
    let text = group_by_corpora(tmp);
    let (want, v) = group_by_cv(tmp, &tmp.join("docs.jsonl"));
    // five tasks and the one document without a task
    assert_eq!(v["cv"]["units"], 6);
    let mut groups: Vec<String> = v["cv"]["fold_groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| {
            g.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap().to_string())
        })
        .collect();
    groups.sort();
    let lone = text.lines().nth(7).unwrap();
    let lone: Value = serde_json::from_str(lone).unwrap();
    let mut expect: Vec<String> = TASKS.iter().map(|t| t.to_string()).collect();
    expect.push(lone["id"].as_str().unwrap().to_string());
    expect.sort();
    assert_eq!(groups, expect);
    for name in ["docs.csv", "docs.tsv"] {
        let (got, _) = group_by_cv(tmp, &tmp.join(name));
        assert_eq!(
            String::from_utf8(got).unwrap(),
            String::from_utf8(want.clone()).unwrap(),
            "{name}"
        );
    }
    // a column the header lacks
    let o = common::run(&[
        "sweep",
        s(&tmp.join("docs.csv")),
        "--truth",
        s(&tmp.join("t.csv")),
        "--cv",
        "3",
        "--group-by",
        "family",
        "--out",
        s(&tmp.join("bad")),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("docs.csv:1: no column \"family\" in the header (columns: id, task, text)"),
        "{err}"
    );
}

#[test]
#[cfg_attr(not(feature = "parquet"), ignore = "needs the `parquet` feature")]
fn group_by_reads_parquet_columns() {
    // The Clough corpus as JSONL and as Parquet (every field a column): the same groups,
    // so the same cv.csv byte for byte.
    let tmp = tempfile::tempdir().unwrap();
    let tmp = tmp.path();
    group_by_corpora(tmp);
    let pq = tmp.join("docs.parquet");
    assert_eq!(
        fimdup::corpus::parquet::jsonl_to_parquet(&tmp.join("docs.jsonl"), &pq).unwrap(),
        100
    );
    let (want, _) = group_by_cv(tmp, &tmp.join("docs.jsonl"));
    let (got, v) = group_by_cv(tmp, &pq);
    assert_eq!(v["cv"]["units"], 6);
    assert_eq!(
        String::from_utf8(got).unwrap(),
        String::from_utf8(want).unwrap()
    );
}
