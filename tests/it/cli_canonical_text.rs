//! The canonical-text flags end to end: `--normalize nfkc` makes a full-width copy of a
//! document its duplicate, `--lang de --stopwords lang --stem` and `--lang ru ...` make
//! inflected variants duplicates, `--lang id --stopwords lang` drops Indonesian function
//! words, bad values exit 2 naming what was expected, and images files record the settings
//! (a later stage refuses images made with other ones).

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use common::{ok, run, s};

fn write(dir: &Path, docs: &[(&str, &str)]) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let p = dir.join("docs.jsonl");
    let mut t = String::new();
    for (id, text) in docs {
        t.push_str(&serde_json::json!({"id": id, "text": text}).to_string());
        t.push('\n');
    }
    std::fs::write(&p, t).unwrap();
    p
}

fn pairs(corpus: &Path, out: &Path, flags: &[&str]) -> BTreeSet<(String, String)> {
    let mut args = vec!["cluster", s(corpus), "--method", "exact"];
    args.extend_from_slice(&["--threshold", "0.9"]);
    args.extend_from_slice(flags);
    args.extend_from_slice(&["--out", s(out)]);
    ok(&args);
    std::fs::read_to_string(out.join("pairs.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].to_string(), f[1].to_string())
        })
        .collect()
}

fn pair(a: &str, b: &str) -> (String, String) {
    (a.to_string(), b.to_string())
}

/// Full-width Latin (U+FF01..U+FF5E) of an ASCII string: what NFKC folds back.
fn full_width(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '!'..='~' => char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap(),
            ' ' => '\u{3000}',
            c => c,
        })
        .collect()
}

#[test]
fn nfkc_pairs_a_full_width_copy() {
    let dir = tempfile::tempdir().unwrap();
    let text = "The quick brown fox jumps over the lazy dog near the river bank today";
    let fw = full_width(text);
    assert!(fw.chars().all(|c| !c.is_ascii()));
    let corpus = write(
        dir.path(),
        &[
            ("ascii", text),
            ("wide", &fw),
            (
                "other",
                "A completely different sentence about seven green apples in a basket",
            ),
        ],
    );
    assert_eq!(
        pairs(&corpus, &dir.path().join("plain"), &[]),
        BTreeSet::new()
    );
    assert_eq!(
        pairs(&corpus, &dir.path().join("nfkc"), &["--normalize", "nfkc"]),
        BTreeSet::from([pair("ascii", "wide")])
    );
    // NFC composes but does not fold compatibility forms.
    assert_eq!(
        pairs(&corpus, &dir.path().join("nfc"), &["--normalize", "nfc"]),
        BTreeSet::new()
    );
}

#[test]
fn german_and_russian_variants_are_duplicates_with_their_language() {
    let dir = tempfile::tempdir().unwrap();
    // Same content words; articles, and case and number endings differ. With the NLTK lists
    // and the Snowball project's Python stemmers (snowballstemmer 3.0) both German texts
    // become `haus kind ufer fluss neb alt bruck gart` and both Russian ones
    // `чита книг дом город стар стран долг зимн вечер`.
    let corpus = write(
        dir.path(),
        &[
            (
                "de1",
                "Die Häuser der Kinder am Ufer des Flusses neben den alten Brücken und Gärten",
            ),
            (
                "de2",
                "Das Haus des Kindes am Ufer der Flüsse neben der alten Brücke und dem Garten",
            ),
            (
                "ru1",
                "Я читал книги о домах и городах старой страны в долгие зимние вечера",
            ),
            (
                "ru2",
                "Она читала книгу о доме и городе старых стран в долгий зимний вечер",
            ),
        ],
    );
    assert_eq!(
        pairs(&corpus, &dir.path().join("plain"), &[]),
        BTreeSet::new()
    );
    let de = ["--lang", "de", "--stopwords", "lang", "--stem"];
    let got = pairs(&corpus, &dir.path().join("de"), &de);
    assert!(got.contains(&pair("de1", "de2")), "{got:?}");
    assert!(!got.contains(&pair("ru1", "ru2")), "{got:?}");
    let ru = ["--lang", "russian", "--stopwords", "lang", "--stem"];
    let got = pairs(&corpus, &dir.path().join("ru"), &ru);
    assert!(got.contains(&pair("ru1", "ru2")), "{got:?}");
    assert!(!got.contains(&pair("de1", "de2")), "{got:?}");
}

#[test]
fn indonesian_stop_words_and_bad_values() {
    let dir = tempfile::tempdir().unwrap();
    // The two differ only in Indonesian function words (yang, dan, di, itu, ada, pada).
    let corpus = write(
        dir.path(),
        &[
            (
                "id1",
                "rumah yang besar dan indah itu ada di desa pada musim hujan tahun lalu",
            ),
            ("id2", "rumah besar indah desa musim hujan tahun lalu"),
        ],
    );
    assert_eq!(
        pairs(&corpus, &dir.path().join("plain"), &[]),
        BTreeSet::new()
    );
    assert_eq!(
        pairs(
            &corpus,
            &dir.path().join("id"),
            &["--lang", "id", "--stopwords", "lang"]
        ),
        BTreeSet::from([pair("id1", "id2")])
    );
    for (flags, want) in [
        (vec!["--lang", "id", "--stem"], "no stemmer for indonesian"),
        (vec!["--lang", "xx"], "unknown language \"xx\""),
        (
            vec!["--tokenizer", "regex"],
            "expected unicode, alnum or whitespace",
        ),
        (vec!["--normalize", "nfd"], "expected none, nfc or nfkc"),
        (
            vec!["--unit", "char", "--tokenizer", "alnum"],
            "needs word units",
        ),
    ] {
        let out = dir.path().join("bad");
        let mut args = vec!["cluster", s(&corpus), "--method", "exact", "--out", s(&out)];
        args.extend_from_slice(&flags);
        let o = run(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{flags:?}: {err}");
        assert!(err.contains(want), "{flags:?}: {err}");
        assert!(!out.join("pairs.csv").exists(), "{flags:?}");
    }
}

#[test]
fn images_record_the_text_settings() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = write(
        dir.path(),
        &[
            (
                "a",
                "alloc_zeroed returns a pointer to zeroed memory of the given layout",
            ),
            (
                "b",
                "alloc zeroed returns a pointer to zeroed memory of the given layout",
            ),
        ],
    );
    let img = dir.path().join("alnum.img");
    ok(&[
        "sketch",
        s(&corpus),
        "--tokenizer",
        "alnum",
        "--normalize",
        "nfkc",
        "--out",
        s(&img),
    ]);
    // The images cluster as made: the pair that only alnum words make identical is found.
    let out = dir.path().join("c");
    ok(&[
        "cluster",
        s(&img),
        "--method",
        "concept",
        "--threshold",
        "0.9",
        "--out",
        s(&out),
    ]);
    let p = std::fs::read_to_string(out.join("pairs.csv")).unwrap();
    assert!(
        p.lines().nth(1).is_some_and(|l| l.starts_with("a,b,")),
        "{p}"
    );
    // Images made with other text settings are not mixed with them, naming the parameter.
    let other = write(
        &dir.path().join("o"),
        &[("c", "another text of some words about a topic")],
    );
    for (flags, name) in [
        (vec![], "tokenizer = unicode"),
        (vec!["--tokenizer", "alnum"], "normalize = none"),
    ] {
        let img2 = dir.path().join("other.img");
        let mut args = vec!["sketch", s(&other), "--out", s(&img2)];
        args.extend_from_slice(&flags);
        ok(&args);
        let o = run(&[
            "cluster",
            s(&img),
            s(&img2),
            "--method",
            "concept",
            "--threshold",
            "0.9",
            "--out",
            s(&dir.path().join("d")),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(name), "{name}: {err}");
    }
}
