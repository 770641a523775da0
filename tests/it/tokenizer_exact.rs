//! `fimdup cluster --method exact --tokenizer alnum` finds exactly the pairs whose word
//! 5-shingle Jaccard, with words = maximal runs of alphanumeric characters (`[[:alnum:]]+`
//! over Unicode, lowercased), is at least the threshold, with the same resemblance; the
//! reference below is written here (`HashSet`s of word windows), not taken from the library.
//! The corpus is code-like text in which `_`, `.` and `::` join words, so that the default
//! (UAX #29) tokenizer finds other pairs.

use crate::common;

use std::collections::{BTreeMap, HashSet};

use common::{ok, s};
use rand::{Rng, SeedableRng};

const T: f64 = 0.5;

fn alnum_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            cur.extend(c.to_lowercase());
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn shingles(words: &[String]) -> HashSet<Vec<String>> {
    words.windows(5).map(|w| w.to_vec()).collect()
}

fn jaccard(a: &HashSet<Vec<String>>, b: &HashSet<Vec<String>>) -> f64 {
    let inter = a.intersection(b).count();
    let union = a.len() + b.len() - inter;
    if union == 0 {
        0.0
    } else {
        inter as f64 / union as f64
    }
}

/// Families of code-like documents: a base of 40 words, some joined by `_`, `.` or `::`, and
/// variants that join other words and edit a few.
fn corpus() -> Vec<(String, String)> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let vocab: Vec<String> = (0..300)
        .map(|_| {
            (0..rng.gen_range(2..8))
                .map(|_| rng.gen_range(b'a'..=b'z') as char)
                .collect()
        })
        .collect();
    let render = |words: &[String], rng: &mut rand_chacha::ChaCha8Rng| {
        let mut t = String::new();
        for (i, w) in words.iter().enumerate() {
            if i > 0 {
                t.push_str(match rng.gen_range(0..10) {
                    0 | 1 => "_",
                    2 => ".",
                    3 => "::",
                    4 => ", ",
                    _ => " ",
                });
            }
            t.push_str(w);
        }
        t
    };
    let mut docs = Vec::new();
    for f in 0..30 {
        let base: Vec<String> = (0..40)
            .map(|_| vocab[rng.gen_range(0..vocab.len())].clone())
            .collect();
        for v in 0..4 {
            let mut words = base.clone();
            for _ in 0..v {
                let i = rng.gen_range(0..words.len());
                words[i] = vocab[rng.gen_range(0..vocab.len())].clone();
            }
            docs.push((format!("f{f:02}v{v}"), render(&words, &mut rng)));
        }
    }
    docs
}

fn exact_pairs(
    corpus: &std::path::Path,
    out: &std::path::Path,
    tokenizer: &str,
) -> BTreeMap<(String, String), f64> {
    ok(&[
        "cluster",
        s(corpus),
        "--method",
        "exact",
        "--threshold",
        &T.to_string(),
        "--tokenizer",
        tokenizer,
        "--out",
        s(out),
    ]);
    let mut r = csv::Reader::from_path(out.join("pairs.csv")).unwrap();
    let h = r.headers().unwrap().clone();
    let col = |name: &str| {
        h.iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("{name} in {h:?}"))
    };
    let (a, b, e) = (col("a"), col("b"), col("exact"));
    r.records()
        .map(|row| {
            let row = row.unwrap();
            (
                (row[a].to_string(), row[b].to_string()),
                row[e].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn exact_with_alnum_words_equals_the_brute_force_alnum_jaccard() {
    let dir = tempfile::tempdir().unwrap();
    let docs = corpus();
    let path = dir.path().join("code.jsonl");
    let mut text = String::new();
    for (id, t) in &docs {
        text.push_str(&serde_json::json!({"id": id, "text": t}).to_string());
        text.push('\n');
    }
    std::fs::write(&path, text).unwrap();

    let sets: Vec<HashSet<Vec<String>>> =
        docs.iter().map(|d| shingles(&alnum_words(&d.1))).collect();
    let mut want = BTreeMap::new();
    for i in 0..docs.len() {
        for j in i + 1..docs.len() {
            let r = jaccard(&sets[i], &sets[j]);
            if r >= T {
                let (a, b) = (docs[i].0.clone(), docs[j].0.clone());
                want.insert(if a < b { (a, b) } else { (b, a) }, r);
            }
        }
    }
    assert!(want.len() >= 90, "{} pairs", want.len());
    let got = exact_pairs(&path, &dir.path().join("alnum"), "alnum");
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    for (k, r) in &want {
        assert!((got[k] - r).abs() < 1e-6, "{k:?}: {} vs {r}", got[k]);
    }
    // The default words keep `a_b` and `a.b` whole: another answer on this corpus.
    let uni = exact_pairs(&path, &dir.path().join("unicode"), "unicode");
    assert!(uni.len() < want.len(), "{} vs {}", uni.len(), want.len());
}
