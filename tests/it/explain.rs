//! `fimdup explain` end to end: Broder's rose example, resemblance against a brute-force
//! Jaccard, a corpus pair against `compare --exact`, method verdicts against `fimdup
//! cluster` on the same two documents, errors, the HTML page and plain terminal output.

use crate::common;

use std::collections::HashSet;
use std::path::Path;

use common::{fimdup, ok, run, s};

fn json(args: &[&str]) -> serde_json::Value {
    let o = ok(args);
    serde_json::from_slice(&o.stdout).unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    s(&p).to_string()
}

fn close(x: f64, y: f64) -> bool {
    (x - y).abs() < 1e-12
}

fn usizes(v: &serde_json::Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect()
}

#[test]
fn broder_rose_example() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.txt", "a rose is a rose is a rose");
    let b = write(dir.path(), "b.txt", "A rose is a flower, which is a rose.");
    let v = json(&["explain", &a, &b, "--shingle-len", "2", "--json"]);
    // S(A) = {a rose, rose is, is a}; S(B) = those and {a flower, flower which, which is}.
    assert!(close(v["resemblance"].as_f64().unwrap(), 3.0 / 6.0));
    assert!(close(v["containment_ab"].as_f64().unwrap(), 1.0));
    assert!(close(v["containment_ba"].as_f64().unwrap(), 0.5));
    assert_eq!(v["union_shingles"], 6);
    assert_eq!(v["a"]["shingles"], 3);
    assert_eq!(v["b"]["shingles"], 6);
    assert_eq!(v["a"]["text"], "a rose is a rose is a rose");
    assert_eq!(v["b"]["text"], "a rose is a flower which is a rose");
    let shared = v["shared_shingles"].as_array().unwrap();
    let texts: Vec<&str> = shared.iter().map(|x| x["text"].as_str().unwrap()).collect();
    assert_eq!(texts, ["a rose", "rose is", "is a"]);
    // A: a(0) rose(1) is(2) a(3) rose(4) is(5) a(6) rose(7);
    // B: a(0) rose(1) is(2) a(3) flower(4) which(5) is(6) a(7) rose(8).
    assert_eq!(usizes(&shared[0]["positions_a"]), [0, 3, 6]);
    assert_eq!(usizes(&shared[0]["positions_b"]), [0, 7]);
    assert_eq!(usizes(&shared[1]["positions_a"]), [1, 4]);
    assert_eq!(usizes(&shared[1]["positions_b"]), [1]);
    assert_eq!(usizes(&shared[2]["positions_a"]), [2, 5]);
    assert_eq!(usizes(&shared[2]["positions_b"]), [2, 6]);
    assert_eq!(
        shared[0]["ranges_b"],
        serde_json::json!([{"start": 0, "end": 6}, {"start": 28, "end": 34}])
    );
    // Passages: all of A; in B "a rose is a" and "is a rose".
    assert_eq!(
        v["a"]["passages"],
        serde_json::json!([{"start": 0, "end": 26}])
    );
    assert_eq!(
        v["b"]["passages"],
        serde_json::json!([{"start": 0, "end": 11}, {"start": 25, "end": 34}])
    );
    // Images hold every shingle here (bottom-128): the estimate is exact.
    assert!(close(v["estimate"].as_f64().unwrap(), 0.5));
    assert_eq!(v["shared_image_elements"], 3);
    assert_eq!(v["image_size_a"], 3);
    assert_eq!(v["image_size_b"], 6);
    assert!(v["verdict"].is_null());
}

/// A deterministic text of `n` words over a small vocabulary, and a copy with about
/// `rate` of its words replaced.
fn texts(n: usize, rate: f64, seed: u64) -> (String, String) {
    let vocab = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
        "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo",
    ];
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) as usize
    };
    let a: Vec<&str> = (0..n).map(|_| vocab[next() % vocab.len()]).collect();
    let b: Vec<String> = a
        .iter()
        .map(|w| {
            if (next() % 10_000) as f64 / 10_000.0 < rate {
                format!("zz{}", next() % 50)
            } else {
                w.to_string()
            }
        })
        .collect();
    (a.join(" "), b.join(" "))
}

/// Brute-force Jaccard of word `w`-shingles (offset 1) of lowercase ASCII texts.
fn jaccard(a: &str, b: &str, w: usize) -> f64 {
    let set = |t: &str| -> HashSet<String> {
        let words: Vec<&str> = t.split_whitespace().collect();
        words.windows(w).map(|x| x.join(" ")).collect()
    };
    let (x, y) = (set(a), set(b));
    let i = x.intersection(&y).count();
    let u = x.union(&y).count();
    if u == 0 {
        0.0
    } else {
        i as f64 / u as f64
    }
}

#[test]
fn resemblance_matches_brute_force_jaccard() {
    let dir = tempfile::tempdir().unwrap();
    for (i, (n, rate, w)) in [(300, 0.05, 3), (200, 0.2, 2), (150, 0.1, 5), (40, 0.5, 1)]
        .into_iter()
        .enumerate()
    {
        let (ta, tb) = texts(n, rate, i as u64 + 1);
        let a = write(dir.path(), &format!("a{i}.txt"), &ta);
        let b = write(dir.path(), &format!("b{i}.txt"), &tb);
        let wl = w.to_string();
        let v = json(&["explain", &a, &b, "--shingle-len", &wl, "--json"]);
        let want = jaccard(&ta, &tb, w);
        let got = v["resemblance"].as_f64().unwrap();
        assert!(close(got, want), "case {i}: {got} vs brute force {want}");
        // Every shared shingle's text occurs in both texts at the positions given.
        let wa: Vec<&str> = ta.split_whitespace().collect();
        let wb: Vec<&str> = tb.split_whitespace().collect();
        for sh in v["shared_shingles"].as_array().unwrap() {
            let text = sh["text"].as_str().unwrap();
            for p in usizes(&sh["positions_a"]) {
                assert_eq!(wa[p..p + w].join(" "), text);
            }
            for p in usizes(&sh["positions_b"]) {
                assert_eq!(wb[p..p + w].join(" "), text);
            }
        }
    }
}

#[test]
fn corpus_pair_equals_compare_exact() {
    let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/datasets/default/docs.jsonl");
    // d0000 / d0280: resemblance 0.87 in the truth (an edit pair).
    let v = json(&[
        "explain",
        "--corpus",
        corpus,
        "--ids",
        "d0000,d0280",
        "--html",
        "--json",
    ]);
    assert_eq!(v["a"]["id"], "d0000");
    assert_eq!(v["b"]["id"], "d0280");
    // The same texts through `compare --exact`.
    let dir = tempfile::tempdir().unwrap();
    let mut texts = std::collections::HashMap::new();
    for line in std::fs::read_to_string(corpus).unwrap().lines() {
        let d: serde_json::Value = serde_json::from_str(line).unwrap();
        let id = d["id"].as_str().unwrap().to_string();
        if id == "d0000" || id == "d0280" {
            texts.insert(id, d["text"].as_str().unwrap().to_string());
        }
    }
    let a = write(dir.path(), "a.html", &texts["d0000"]);
    let b = write(dir.path(), "b.html", &texts["d0280"]);
    let c = json(&["compare", &a, &b, "--html", "--exact", "--json"]);
    let r = v["resemblance"].as_f64().unwrap();
    assert!(close(r, c["resemblance"].as_f64().unwrap()));
    assert!(close(
        v["containment_ab"].as_f64().unwrap(),
        c["containment"].as_f64().unwrap()
    ));
    assert!(close(
        v["containment_ba"].as_f64().unwrap(),
        c["containment_ba"].as_f64().unwrap()
    ));
    assert!(r > 0.7, "a near-duplicate pair: {r}");
    // The two files give the same explanation as the corpus.
    let f = json(&["explain", &a, &b, "--html", "--json"]);
    assert_eq!(f["resemblance"], v["resemblance"]);
    assert_eq!(f["shared_shingles"], v["shared_shingles"]);
}

/// Whether `pairs.csv` in `out` lists the pair `x`, `y`.
fn listed(out: &Path, x: &str, y: &str) -> bool {
    let text = std::fs::read_to_string(out.join("pairs.csv")).unwrap();
    text.lines().skip(1).any(|l| {
        let f: Vec<&str> = l.split(',').collect();
        (f[0] == x && f[1] == y) || (f[0] == y && f[1] == x)
    })
}

#[test]
fn verdicts_agree_with_cluster_on_the_two_documents() {
    let dir = tempfile::tempdir().unwrap();
    let mut seen = HashSet::new();
    for (i, rate) in [0.01, 0.03, 0.06, 0.12, 0.3].into_iter().enumerate() {
        let (ta, tb) = texts(400, rate, 100 + i as u64);
        let corpus = dir.path().join(format!("c{i}.jsonl"));
        std::fs::write(
            &corpus,
            format!(
                "{}\n{}\n",
                serde_json::json!({"id": "x", "text": ta}),
                serde_json::json!({"id": "y", "text": tb})
            ),
        )
        .unwrap();
        for method in ["concept", "union-find", "lsh", "super-shingle", "exact"] {
            let out = dir.path().join(format!("out-{i}-{method}"));
            ok(&[
                "cluster",
                s(&corpus),
                "--method",
                method,
                "--threshold",
                "0.8",
                "--shingle-len",
                "3",
                "--out",
                s(&out),
            ]);
            let v = json(&[
                "explain",
                "--corpus",
                s(&corpus),
                "--ids",
                "x,y",
                "--method",
                method,
                "--threshold",
                "0.8",
                "--shingle-len",
                "3",
                "--json",
            ]);
            let verdict = &v["verdict"];
            let paired = verdict["paired"].as_bool().unwrap();
            assert_eq!(
                paired,
                listed(&out, "x", "y"),
                "{method} at rate {rate}: {}",
                verdict["reason"]
            );
            seen.insert((method, paired));
            match method {
                "lsh" => {
                    let d = &verdict["detail"];
                    let (b, r) = (d["bands"].as_u64().unwrap(), d["rows"].as_u64().unwrap());
                    assert_eq!(b * r, 128);
                    assert_eq!(verdict["scheme"], "k-mins");
                    let colliding = d["colliding_bands"].as_array().unwrap();
                    assert!(colliding.iter().all(|x| x.as_u64().unwrap() < b));
                    if colliding.is_empty() {
                        assert!(!paired);
                    }
                }
                "concept" | "union-find" => {
                    let d = &verdict["detail"];
                    let (sh, k) = (d["shared"].as_u64().unwrap(), d["k"].as_u64().unwrap());
                    assert_eq!(paired, sh >= k, "{method}: {sh} shared, k = {k}");
                    assert_eq!(sh, v["shared_image_elements"].as_u64().unwrap());
                }
                "exact" => {
                    let r = v["resemblance"].as_f64().unwrap();
                    assert_eq!(paired, r >= 0.8);
                }
                _ => {}
            }
        }
    }
    // The rates span both answers for the threshold methods.
    for m in ["concept", "union-find", "lsh", "exact"] {
        assert!(
            seen.contains(&(m, true)) && seen.contains(&(m, false)),
            "{m}: {seen:?}"
        );
    }
}

#[test]
fn errors_exit_2() {
    let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/datasets/default/docs.jsonl");
    let o = run(&["explain", "--corpus", corpus, "--ids", "d0000,no-such-id"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no-such-id") && err.contains("docs.jsonl"),
        "{err}"
    );
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.txt", "some text here");
    let missing = dir.path().join("missing.txt");
    let o = run(&["explain", &a, s(&missing)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.txt"));
    // A bad --ids value and a threshold without a method.
    assert_eq!(
        run(&["explain", "--corpus", corpus, "--ids", "d0000"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        run(&["explain", &a, &a, "--threshold", "0.5"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn html_page_and_plain_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.txt", "a rose is a rose is a rose <b>");
    let b = write(dir.path(), "b.txt", "a rose is a flower which is a rose");
    let page = dir.path().join("pair.html");
    let o = fimdup(&[
        "explain",
        &a,
        &b,
        "--shingle-len",
        "2",
        "--html-out",
        s(&page),
        "--method",
        "exact",
        "--threshold",
        "0.4",
    ])
    .env_remove("NO_COLOR")
    .output()
    .unwrap();
    assert!(o.status.success());
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<mark class=\"fd-shared\">"));
    assert!(html.contains("class=\"fd-pair\""));
    assert!(html.contains("CANONICAL"));
    // The terminal report on a pipe: no ANSI escapes, passages in [[ ]].
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(!out.contains('\x1b'), "{out}");
    assert!(out.contains("[[a rose is a rose is a rose]]"), "{out}");
    assert!(out.contains("CANONICAL"));
    assert!(out.contains("verdict: exact"));
    assert!(out.contains("resemblance     0.428571"), "{out}");
}

#[test]
fn short_documents_have_no_shingles() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.txt", "two words");
    let b = write(dir.path(), "b.txt", "two words");
    let v = json(&["explain", &a, &b, "--json"]);
    assert_eq!(v["resemblance"], 0.0);
    assert_eq!(v["a"]["shingles"], 0);
    assert!(v["shared_shingles"].as_array().unwrap().is_empty());
    assert!(v["a"]["passages"].as_array().unwrap().is_empty());
}
