//! `--truth-tokenizer`: the evaluation's words chosen by name, end to end (`fimdup eval`,
//! `fimdup sweep`, `fimdup gen`), checked against brute-force computations written here,
//! not taken from the library.

use std::collections::{BTreeSet, HashSet};
use std::path::Path;
use std::process::Command;

use fimdup::eval::similarity::TruthTokenizer;
use fimdup::gen::{generate, write_corpus, GenConfig, GeneratedCorpus};

fn fimdup(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_fimdup"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The text lowercased, with every `<...>` replaced by a space first when it starts with `<`
/// (after whitespace).
fn plain_lower(text: &str) -> String {
    let mut plain = String::new();
    if text.trim_start().starts_with('<') {
        let mut in_tag = false;
        for c in text.chars() {
            match (in_tag, c) {
                (false, '<') => in_tag = true,
                (true, '>') => {
                    in_tag = false;
                    plain.push(' ');
                }
                (false, c) => plain.push(c),
                (true, _) => {}
            }
        }
    } else {
        plain.push_str(text);
    }
    plain.to_lowercase()
}

fn split_by(text: &str, keep: impl Fn(char) -> bool) -> Vec<String> {
    plain_lower(text)
        .split(|c: char| !keep(c))
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect()
}

/// `[[:alnum:]]+` words: runs of `char::is_alphanumeric` (the texts here hold no combining
/// marks, which `alnum` also keeps in a word).
fn alnum_words(text: &str) -> Vec<String> {
    split_by(text, char::is_alphanumeric)
}

/// `\w+` words: runs of alphanumeric characters and `_`.
fn w_words(text: &str) -> Vec<String> {
    split_by(text, |c| c.is_alphanumeric() || c == '_')
}

/// Runs of non-whitespace.
fn ws_words(text: &str) -> Vec<String> {
    split_by(text, |c| !c.is_whitespace())
}

/// Word 5-shingles; fewer than five words (at least one) make one shingle, all of them.
fn shingles(words: &[String]) -> HashSet<Vec<String>> {
    if words.is_empty() {
        return HashSet::new();
    }
    words
        .windows(words.len().min(5))
        .map(<[_]>::to_vec)
        .collect()
}

fn jaccard(a: &HashSet<Vec<String>>, b: &HashSet<Vec<String>>) -> f64 {
    let i = a.intersection(b).count();
    let u = a.len() + b.len() - i;
    if u == 0 {
        0.0
    } else {
        i as f64 / u as f64
    }
}

fn containment(a: &HashSet<Vec<String>>, b: &HashSet<Vec<String>>) -> f64 {
    if a.is_empty() {
        0.0
    } else {
        a.intersection(b).count() as f64 / a.len() as f64
    }
}

/// Two documents that differ by `_` and `.` inside tokens (and in their last word).
const DOC_A: &str = "Call alloc_zeroed from std.io when the buffer must start empty, then read \
                     the next block of bytes into it.";
const DOC_B: &str = "Call alloc zeroed from std io when the buffer must start empty, then read \
                     the next block of bytes into memory.";

fn write(path: &Path, s: &str) {
    std::fs::write(path, s).unwrap();
}

/// `fimdup eval --corpus`: the false-cluster resemblance of a pair the truth gives no
/// resemblance for is computed with the words asked for.
#[test]
fn eval_false_cluster_resemblance_follows_the_tokenizer() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs.jsonl");
    let line = |id: &str, text: &str| serde_json::json!({"id": id, "text": text}).to_string();
    write(
        &docs,
        &format!("{}\n{}\n", line("a", DOC_A), line("b", DOC_B)),
    );
    // a plain pair list: no resemblance column, so the corpus supplies it
    let truth = dir.path().join("truth.csv");
    write(&truth, "a,b\na,b\n");
    let clusters = dir.path().join("clusters.jsonl");
    write(&clusters, "{\"id\":\"c1\",\"docs\":[\"a\",\"b\"]}\n");
    let want_word = jaccard(&shingles(&w_words(DOC_A)), &shingles(&w_words(DOC_B)));
    let want_alnum = jaccard(
        &shingles(&alnum_words(DOC_A)),
        &shingles(&alnum_words(DOC_B)),
    );
    // word: a has alloc_zeroed where b has alloc zeroed, and the last words differ;
    // alnum: only the last words differ
    assert!(want_word < want_alnum && want_alnum < 1.0);
    let worst = |tok: Option<&str>| {
        let mut args = vec![
            "eval",
            "--truth",
            truth.to_str().unwrap(),
            "--clusters",
            clusters.to_str().unwrap(),
            "--corpus",
            docs.to_str().unwrap(),
            "--floor",
            "1",
            "--json",
        ];
        if let Some(t) = tok {
            args.extend(["--truth-tokenizer", t]);
        }
        let (code, out, err) = fimdup(&args);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let fc = &v["false_clusters"];
        assert_eq!(fc["false_clusters"], 1, "{out}");
        assert_eq!(fc["examples"][0]["worst_a"], "a");
        fc["examples"][0]["worst_resemblance"].as_f64().unwrap()
    };
    let default = worst(None);
    assert!(
        (default - want_word).abs() < 1e-12,
        "{default} vs {want_word}"
    );
    let word = worst(Some("word"));
    assert!((word - want_word).abs() < 1e-12, "{word} vs {want_word}");
    let alnum = worst(Some("alnum"));
    assert!(
        (alnum - want_alnum).abs() < 1e-12,
        "{alnum} vs {want_alnum}"
    );
    let ws = worst(Some("whitespace"));
    let want_ws = jaccard(&shingles(&ws_words(DOC_A)), &shingles(&ws_words(DOC_B)));
    assert!((ws - want_ws).abs() < 1e-12, "{ws} vs {want_ws}");

    // refused: an unknown name (the accepted ones are named), and the flag without --corpus
    let (code, _, err) = fimdup(&[
        "eval",
        "--truth",
        truth.to_str().unwrap(),
        "--clusters",
        clusters.to_str().unwrap(),
        "--corpus",
        docs.to_str().unwrap(),
        "--truth-tokenizer",
        "words",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("word, alnum, whitespace or unicode"), "{err}");
    let (code, _, err) = fimdup(&[
        "eval",
        "--truth",
        truth.to_str().unwrap(),
        "--clusters",
        clusters.to_str().unwrap(),
        "--truth-tokenizer",
        "alnum",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--corpus"), "{err}");
}

/// `fimdup sweep`: the false-cluster check computes resemblances of pairs the truth does not
/// give with `--truth-tokenizer`. The pipeline (UAX #29 words) sees the two documents as
/// equal, so the exact method clusters them; with `whitespace` words ("one," is not "one")
/// they share no shingle, a false cluster.
#[test]
fn sweep_false_clusters_follow_the_tokenizer() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs.jsonl");
    let x = "one two three four five six seven eight nine ten";
    let y = "One, two, three, four, five, six, seven, eight, nine, ten.";
    assert_eq!(jaccard(&shingles(&w_words(x)), &shingles(&w_words(y))), 1.0);
    assert_eq!(
        jaccard(&shingles(&ws_words(x)), &shingles(&ws_words(y))),
        0.0
    );
    let z = "an unrelated document about something else entirely, with other words";
    let line = |id: &str, text: &str| serde_json::json!({"id": id, "text": text}).to_string();
    write(
        &docs,
        &format!("{}\n{}\n{}\n", line("x", x), line("y", y), line("z", z)),
    );
    let truth = dir.path().join("truth.csv");
    write(&truth, "a,b\nx,y\n");
    let false_clusters = |tok: &str| {
        let out = dir.path().join(format!("out-{tok}"));
        let (code, json, err) = fimdup(&[
            "sweep",
            docs.to_str().unwrap(),
            "--truth",
            truth.to_str().unwrap(),
            "--methods",
            "exact",
            "--thresholds",
            "0.9",
            "--errors",
            "0",
            "--truth-tokenizer",
            tok,
            "--out",
            out.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let row = &v["rows"][0];
        assert_eq!(row["common"], 1, "{json}");
        let report = std::fs::read_to_string(out.join("report.md")).unwrap();
        assert!(report.contains(tok), "the report names the tokenizer");
        row["false_clusters"].as_u64().unwrap()
    };
    assert_eq!(false_clusters("word"), 0);
    assert_eq!(false_clusters("whitespace"), 1);
}

fn small(tok: TruthTokenizer, html: bool) -> GenConfig {
    GenConfig {
        seed: 3,
        docs: 300,
        html,
        truth_tokenizer: tok,
        ..GenConfig::default()
    }
}

fn files(c: &GeneratedCorpus) -> [Vec<u8>; 3] {
    let dir = tempfile::tempdir().unwrap();
    write_corpus(dir.path(), c).unwrap();
    let read = |f: &str| std::fs::read(dir.path().join(f)).unwrap();
    [read("docs.jsonl"), read("truth.csv"), read("params.json")]
}

/// Every listed pair's resemblance and containments equal the brute force over `words`, and
/// every pair at or above the floor (or in one family) is listed.
fn check_truth(c: &GeneratedCorpus, words: fn(&str) -> Vec<String>) {
    let sets: Vec<HashSet<Vec<String>>> =
        c.docs.iter().map(|d| shingles(&words(&d.text))).collect();
    let at: std::collections::HashMap<&str, usize> = c
        .docs
        .iter()
        .enumerate()
        .map(|(i, d)| (d.id.as_str(), i))
        .collect();
    let mut listed = BTreeSet::new();
    for r in &c.truth {
        let (i, j) = (at[r.a.as_str()], at[r.b.as_str()]);
        listed.insert((i, j));
        let res = jaccard(&sets[i], &sets[j]);
        assert!((res - r.resemblance).abs() < 1e-12, "{r:?} vs {res}");
        assert!((containment(&sets[i], &sets[j]) - r.containment_ab).abs() < 1e-12);
        assert!((containment(&sets[j], &sets[i]) - r.containment_ba).abs() < 1e-12);
    }
    let floor = c.config.truth_floor;
    for i in 0..sets.len() {
        for j in i + 1..sets.len() {
            let (x, y) = (&c.docs[i], &c.docs[j]);
            let same = x.family.is_some() && x.family == y.family;
            if same
                || jaccard(&sets[i], &sets[j]) >= floor
                || containment(&sets[i], &sets[j]) >= floor
                || containment(&sets[j], &sets[i]) >= floor
            {
                assert!(listed.contains(&(i, j)), "{} {} missing", x.id, y.id);
            }
        }
    }
}

/// `alnum`: the truth's values are the brute force over `[[:alnum:]]+` words. The generated
/// words are ASCII letters and digits, so these are the generated words themselves and the
/// files equal the default's but for params.json, which records the tokenizer.
#[test]
fn gen_alnum_truth_is_the_alnum_brute_force() {
    for html in [false, true] {
        let c = generate(&small(TruthTokenizer::Alnum, html)).unwrap();
        check_truth(&c, alnum_words);
        let alnum = files(&c);
        let word = files(&generate(&small(TruthTokenizer::Word, html)).unwrap());
        assert!(alnum[0] == word[0] && alnum[1] == word[1], "html={html}");
        assert_ne!(alnum[2], word[2]);
        let p = String::from_utf8(alnum[2].clone()).unwrap();
        assert!(p.contains("\"truth_tokenizer\": \"alnum\""), "{p}");
        assert!(!String::from_utf8(word[2].clone())
            .unwrap()
            .contains("truth_tokenizer"));
    }
}

/// `whitespace`: punctuation stays in the words, so the truth differs from the default's;
/// its values are the brute force over runs of non-whitespace; the documents are the same.
#[test]
fn gen_whitespace_truth_is_the_whitespace_brute_force() {
    for html in [false, true] {
        let c = generate(&small(TruthTokenizer::Whitespace, html)).unwrap();
        check_truth(&c, ws_words);
        let ws = files(&c);
        let word = files(&generate(&small(TruthTokenizer::Word, html)).unwrap());
        assert!(ws[0] == word[0], "html={html}");
        assert_ne!(ws[1], word[1]);
    }
}

/// `fimdup gen --truth-tokenizer`: the flag reaches the generator (the alnum truth.csv is the
/// brute force over alnum words, read back from the written files), `word` is the default
/// (byte-identical files), and a bad name is refused.
#[test]
fn gen_cli_flag() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        let mut args = vec![
            "gen",
            "--out",
            out.to_str().unwrap(),
            "--docs",
            "200",
            "--seed",
            "9",
        ];
        args.extend_from_slice(extra);
        let (code, _, err) = fimdup(&args);
        assert_eq!(code, 0, "{err}");
        let read = |f: &str| std::fs::read(out.join(f)).unwrap();
        [read("docs.jsonl"), read("truth.csv"), read("params.json")]
    };
    let default = run("default", &[]);
    let word = run("word", &["--truth-tokenizer", "word"]);
    assert!(default == word, "--truth-tokenizer word changed the output");
    let ws = run("ws", &["--truth-tokenizer", "whitespace"]);
    assert_eq!(ws[0], default[0]);
    assert_ne!(ws[1], default[1]);
    let alnum = run("alnum", &["--truth-tokenizer", "alnum"]);
    let texts: std::collections::HashMap<String, String> = std::str::from_utf8(&alnum[0])
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["id"].as_str().unwrap().to_string(),
                v["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let truth = std::str::from_utf8(&alnum[1]).unwrap();
    let mut rows = 0;
    for l in truth.lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        let (a, b) = (
            shingles(&alnum_words(&texts[f[0]])),
            shingles(&alnum_words(&texts[f[1]])),
        );
        let want = jaccard(&a, &b);
        let got: f64 = f[2].parse().unwrap();
        assert!((got - want).abs() <= 5e-7, "{l}: {want}");
        rows += 1;
    }
    assert!(rows > 100, "{rows} rows");
    let back: GenConfig = serde_json::from_slice(&alnum[2]).unwrap();
    assert_eq!(back.truth_tokenizer, TruthTokenizer::Alnum);
    let (code, _, err) = fimdup(&[
        "gen",
        "--out",
        dir.path().join("bad").to_str().unwrap(),
        "--truth-tokenizer",
        "Alnum",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("word, alnum, whitespace or unicode"), "{err}");
}
