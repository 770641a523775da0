//! The generator: determinism, canonical tokens, and the sanity of its truth, checked against
//! independent computations from the written text (word shingle sets and a full-matrix edit
//! distance written in this file, a brute-force join).

use std::collections::{BTreeMap, HashMap, HashSet};

use fimdup::gen::{generate, generate_to_dir, write_corpus, GenConfig, GeneratedCorpus};

/// Lowercased `\w+` words (alphanumeric characters and `_`), written here and not taken from
/// the library: a text that starts with `<` (after whitespace) is HTML, and everything from
/// each `<` to the next `>` becomes a space first.
fn ref_words(text: &str) -> Vec<String> {
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
    plain
        .to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect()
}

/// Word 5-shingles of `words` as strings; fewer than five words (at least one) make one
/// shingle, the whole sequence.
fn ref_shingles(text: &str) -> HashSet<String> {
    let words = ref_words(text);
    if words.is_empty() {
        return HashSet::new();
    }
    words
        .windows(words.len().min(5))
        .map(|w| w.join(" "))
        .collect()
}

/// `|A n B| / |A u B|` (0 for two empty sets).
fn ref_resemblance(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    let i = a.intersection(b).count();
    let u = a.len() + b.len() - i;
    if u == 0 {
        0.0
    } else {
        i as f64 / u as f64
    }
}

/// `|A n B| / |A|` (0 when A is empty).
fn ref_containment(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    if a.is_empty() {
        0.0
    } else {
        a.intersection(b).count() as f64 / a.len() as f64
    }
}

fn small(seed: u64, html: bool) -> GenConfig {
    GenConfig {
        seed,
        docs: 300,
        html,
        ..GenConfig::default()
    }
}

fn files(c: &GeneratedCorpus) -> (Vec<u8>, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    write_corpus(dir.path(), c).unwrap();
    (
        std::fs::read(dir.path().join("docs.jsonl")).unwrap(),
        std::fs::read(dir.path().join("truth.csv")).unwrap(),
    )
}

/// Full (n+1)x(m+1) matrix Levenshtein, written independently of the library's two-row one.
fn lev_matrix(a: &[String], b: &[String]) -> usize {
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let c = if a[i - 1] == b[j - 1] { 0 } else { 1 };
            d[i][j] = (d[i - 1][j - 1] + c)
                .min(d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1);
        }
    }
    d[a.len()][b.len()]
}

#[test]
fn same_seed_same_bytes_other_seed_differs() {
    for html in [false, true] {
        let a = files(&generate(&small(7, html)).unwrap());
        let b = files(&generate(&small(7, html)).unwrap());
        assert!(
            a == b,
            "same seed must give byte-identical files (html={html})"
        );
        let c = files(&generate(&small(8, html)).unwrap());
        assert_ne!(a.0, c.0);
        assert_ne!(a.1, c.1);
    }
}

#[test]
fn text_tokenizes_to_the_canonical_sequence() {
    for html in [false, true] {
        let c = generate(&small(11, html)).unwrap();
        assert_eq!(c.docs.len(), 300);
        for d in &c.docs {
            assert_eq!(
                ref_words(&d.text),
                d.canonical,
                "doc {} (html={html})",
                d.id
            );
            if html {
                assert!(d.text.trim_start().starts_with('<'), "{}", d.id);
            }
        }
    }
}

/// A corpus whose unrelated documents share many 5-grams (100 words, Zipf exponent 1.5,
/// documents of 10-40 words): thousands of truth pairs across groups (`other`).
fn crowded(seed: u64) -> GenConfig {
    GenConfig {
        seed,
        docs: 400,
        vocab: 100,
        zipf_exponent: 1.5,
        doc_words: [10, 40],
        ..GenConfig::default()
    }
}

#[test]
fn truth_matches_independent_computation() {
    for (c, others) in [
        (generate(&small(3, false)).unwrap(), false),
        (generate(&crowded(4)).unwrap(), true),
    ] {
        truth_matches_brute_force(&c);
        let n = c.truth.iter().filter(|r| r.kind == "other").count();
        assert_eq!(n > 1000, others, "{n} pairs across groups");
    }
}

/// Every truth row's values equal the independent ones; the rows are exactly the pairs of a
/// family plus the pairs at or above the floor (brute force over every pair), in `(a, b)`
/// order, with their family's kind or `other`.
fn truth_matches_brute_force(c: &GeneratedCorpus) {
    let sets: HashMap<&str, HashSet<String>> = c
        .docs
        .iter()
        .map(|d| (d.id.as_str(), ref_shingles(&d.text)))
        .collect();
    let by_id: BTreeMap<&str, &fimdup::gen::GenDoc> =
        c.docs.iter().map(|d| (d.id.as_str(), d)).collect();
    let mut listed = std::collections::BTreeSet::new();
    for r in &c.truth {
        assert!(r.a < r.b);
        listed.insert((r.a.clone(), r.b.clone()));
        let res = ref_resemblance(&sets[r.a.as_str()], &sets[r.b.as_str()]);
        assert!((res - r.resemblance).abs() < 1e-12, "{r:?} vs {res}");
        let cab = ref_containment(&sets[r.a.as_str()], &sets[r.b.as_str()]);
        assert!((cab - r.containment_ab).abs() < 1e-12);
        let cba = ref_containment(&sets[r.b.as_str()], &sets[r.a.as_str()]);
        assert!((cba - r.containment_ba).abs() < 1e-12);
        let (wa, wb) = (
            ref_words(&by_id[r.a.as_str()].text),
            ref_words(&by_id[r.b.as_str()].text),
        );
        let es = 1.0 - lev_matrix(&wa, &wb) as f64 / wa.len().max(wb.len()) as f64;
        assert!((es - r.edit_similarity).abs() < 1e-12, "{r:?} vs {es}");
    }
    // brute force: every pair at or above the floor is listed; every within-family pair too;
    // nothing else
    let floor = c.config.truth_floor;
    let mut want = Vec::new();
    for (i, x) in c.docs.iter().enumerate() {
        for y in &c.docs[i + 1..] {
            let (sx, sy) = (&sets[x.id.as_str()], &sets[y.id.as_str()]);
            let r = ref_resemblance(sx, sy);
            let cx = ref_containment(sx, sy);
            let cy = ref_containment(sy, sx);
            let same = x.family.is_some() && x.family == y.family;
            if r >= floor || cx >= floor || cy >= floor || same {
                let kind = match &x.family {
                    Some(f) if same => f.split('-').next().unwrap().to_string(),
                    _ => "other".to_string(),
                };
                want.push((x.id.clone(), y.id.clone(), kind));
            }
        }
    }
    let got: Vec<(String, String, String)> = c
        .truth
        .iter()
        .map(|r| (r.a.clone(), r.b.clone(), r.kind.clone()))
        .collect();
    assert_eq!(listed.len(), got.len(), "a pair listed twice");
    assert!(
        got == want,
        "{} rows, {} by brute force",
        got.len(),
        want.len()
    );
}

/// `generate_to_dir` (which writes each document from its draft and keeps only its words)
/// writes the bytes `write_corpus` writes for `generate`'s corpus: plain, HTML, another truth
/// tokenizer, and a corpus with pairs across groups.
#[test]
fn generate_to_dir_writes_what_generate_writes() {
    let configs = [
        small(5, false),
        small(6, true),
        GenConfig {
            truth_tokenizer: fimdup::eval::similarity::TruthTokenizer::Whitespace,
            ..small(7, true)
        },
        crowded(8),
    ];
    for c in configs {
        let a = tempfile::tempdir().unwrap();
        write_corpus(a.path(), &generate(&c).unwrap()).unwrap();
        let b = tempfile::tempdir().unwrap();
        let summary = generate_to_dir(&c, b.path()).unwrap();
        for f in ["docs.jsonl", "truth.csv", "params.json"] {
            let (x, y) = (
                std::fs::read(a.path().join(f)).unwrap(),
                std::fs::read(b.path().join(f)).unwrap(),
            );
            assert!(x == y, "{f} differs for {c:?}");
        }
        let truth = std::fs::read_to_string(b.path().join("truth.csv")).unwrap();
        assert_eq!(summary.docs, c.docs);
        assert_eq!(summary.truth_pairs, truth.lines().count() - 1);
        let others = truth.lines().filter(|l| l.ends_with(",other")).count();
        assert_eq!(
            summary.pairs_by_kind.get("other").copied().unwrap_or(0),
            others
        );
    }
}

#[test]
fn kinds_behave_as_intended() {
    let c = generate(&GenConfig {
        docs: 600,
        ..GenConfig::default()
    })
    .unwrap();
    let by_id: BTreeMap<&str, &fimdup::gen::GenDoc> =
        c.docs.iter().map(|d| (d.id.as_str(), d)).collect();
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut chain_ends: BTreeMap<String, (String, String)> = BTreeMap::new();
    for r in &c.truth {
        let (a, b) = (by_id[r.a.as_str()], by_id[r.b.as_str()]);
        *seen.entry(r.kind.as_str()).or_default() += 1;
        match r.kind.as_str() {
            "chain" => {
                let va: i32 = a.kind[1..].parse().unwrap();
                let vb: i32 = b.kind[1..].parse().unwrap();
                if (va - vb).abs() == 1 {
                    // chain_step 2-4% of words: edit similarity in [0.95, 0.99]
                    assert!(
                        (0.95..=0.99).contains(&r.edit_similarity),
                        "chain neighbours {} {}: {}",
                        r.a,
                        r.b,
                        r.edit_similarity
                    );
                    assert!(r.resemblance > 0.5, "{r:?}");
                }
                if va.min(vb) == 1 && va.max(vb) == c.config.chain_length as i32 {
                    chain_ends.insert(a.family.clone().unwrap(), (r.a.clone(), r.b.clone()));
                    // the transitive-closure trap: the ends are not near-duplicates
                    assert!(r.resemblance < 0.5 && r.edit_similarity < 0.85, "{r:?}");
                }
            }
            "copy" => {
                assert_eq!((r.resemblance, r.edit_similarity), (1.0, 1.0), "{r:?}");
                let exact = a.kind == "exact" || b.kind == "exact";
                let only_base_exact = exact && (a.kind == "base" || b.kind == "base");
                if only_base_exact {
                    assert_eq!(a.text, b.text);
                } else if a.kind != "exact" && b.kind != "exact" {
                    assert_ne!(a.text, b.text, "{} {} should differ in surface", r.a, r.b);
                }
            }
            "template" => {
                // a large shared frame: high resemblance, yet not ROMIP duplicates
                assert!(r.resemblance > 0.3, "{r:?}");
                assert!(r.edit_similarity < 0.85, "{r:?}");
            }
            "containment" => {
                if a.kind == "contained" {
                    assert_eq!(r.containment_ab, 1.0);
                    assert!(r.resemblance < 0.6);
                } else if b.kind == "contained" {
                    assert_eq!(r.containment_ba, 1.0);
                }
            }
            _ => {}
        }
    }
    for k in ["chain", "copy", "template", "containment", "edit"] {
        assert!(seen.get(k).copied().unwrap_or(0) > 0, "no {k} pairs");
    }
    assert!(!chain_ends.is_empty(), "no full chain");
    // template content: words outside the group's frame barely overlap between pages
    let mut groups: BTreeMap<&str, Vec<&fimdup::gen::GenDoc>> = BTreeMap::new();
    for d in &c.docs {
        if d.kind == "page" {
            groups
                .entry(d.family.as_deref().unwrap())
                .or_default()
                .push(d);
        }
    }
    for pages in groups.values() {
        let sets: Vec<std::collections::BTreeSet<&str>> = pages
            .iter()
            .map(|p| p.canonical.iter().map(String::as_str).collect())
            .collect();
        let frame: std::collections::BTreeSet<&str> =
            sets.iter().skip(1).fold(sets[0].clone(), |acc, s| {
                acc.intersection(s).copied().collect()
            });
        for i in 0..sets.len() {
            for j in i + 1..sets.len() {
                let x: std::collections::BTreeSet<&str> =
                    sets[i].difference(&frame).copied().collect();
                let y: std::collections::BTreeSet<&str> =
                    sets[j].difference(&frame).copied().collect();
                let inter = x.intersection(&y).count() as f64;
                let uni = x.union(&y).count() as f64;
                assert!(
                    inter / uni < 0.3,
                    "template content overlap {}",
                    inter / uni
                );
            }
        }
    }
}

#[test]
fn config_is_validated() {
    let mut c = GenConfig::default();
    c.mix.copies = 0.5;
    assert!(generate(&c).unwrap_err().to_string().contains("mix"));
    let c = GenConfig {
        docs: 0,
        ..GenConfig::default()
    };
    assert!(c.validate().unwrap_err().to_string().contains("docs"));
    let c = GenConfig {
        chain_step: [0.05, 0.01],
        ..GenConfig::default()
    };
    assert!(c.validate().unwrap_err().to_string().contains("chain_step"));
    // tiny corpora still work
    let c = generate(&GenConfig {
        docs: 3,
        ..GenConfig::default()
    })
    .unwrap();
    assert_eq!(c.docs.len(), 3);
}

/// The committed default corpus is exactly what the default config generates.
#[test]
fn committed_default_corpus_is_reproducible() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/datasets/default");
    let c = generate(&GenConfig::default()).unwrap();
    let (docs, truth) = files(&c);
    assert!(
        docs == std::fs::read(format!("{root}/docs.jsonl")).unwrap(),
        "docs.jsonl differs: regenerate with `fimdup gen --out datasets/default`"
    );
    assert!(
        truth == std::fs::read(format!("{root}/truth.csv")).unwrap(),
        "truth.csv differs"
    );
    let params =
        fimdup::gen::read_config(std::path::Path::new(&format!("{root}/params.json"))).unwrap();
    assert_eq!(params, GenConfig::default());
}
