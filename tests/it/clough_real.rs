//! The Clough & Stevenson (2011) corpus of plagiarised short answers, through the library:
//! the exact containment join separates `cut` answers from `non` answers against their
//! source, and `--labeled-only` keeps answer-answer pairs out of the counts.
//!
//! Reads `datasets/clough_stevenson_2011` (the corpus ships in the repository).

use crate::common;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use fimdup::cluster::{ClusterConfig, Input, JobBuilder, Measure, Method, Sketched, Threshold};
use fimdup::eval::{FalseClusterConfig, TruthRule, TruthTable};
use fimdup::report::sweep::{sweep, SweepConfig, SweepThresholds};
use fimdup::shingle::ShingleConfig;
use fimdup::sketch::pipeline::PipelineConfig;

fn data() -> PathBuf {
    let dir = common::dataset("clough_stevenson_2011");
    for f in ["docs.jsonl", "pairs_vs_source.tsv"] {
        assert!(dir.join(f).exists(), "{} is missing", dir.join(f).display());
    }
    dir
}

/// (answer, source) -> category, from the TSV; and the truth CSV written from it.
fn labels(dir: &Path, out: &Path) -> BTreeMap<(String, String), String> {
    let text = std::fs::read_to_string(dir.join("pairs_vs_source.tsv")).unwrap();
    let mut m = BTreeMap::new();
    let mut csv = String::from("a,b,plagiarised,category\n");
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (a, b) = if f[0] < f[1] {
            (f[0], f[1])
        } else {
            (f[1], f[0])
        };
        csv.push_str(&format!("{a},{b},{},{}\n", f[4], f[3]));
        m.insert((a.to_string(), b.to_string()), f[3].to_string());
    }
    std::fs::write(out, csv).unwrap();
    assert_eq!(m.len(), 95);
    m
}

/// Lowercased words of `text`, written here after the Unicode word-boundary rules (UAX #29)
/// that matter for English prose: a word is a run of alphanumeric characters and `_`, which
/// continues across one `.`, `:`, `'`, `‘` or `’` between two letters (`e.g`, `can't`) and
/// across one `.`, `,`, `;`, `'`, `‘` or `’` between two digits (`3.14`, `1,000`).
fn reference_words(text: &str) -> Vec<String> {
    let cs: Vec<char> = text.to_lowercase().chars().collect();
    let in_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut words = Vec::new();
    let mut cur = String::new();
    for (i, &c) in cs.iter().enumerate() {
        if in_word(c) {
            cur.push(c);
            continue;
        }
        let (prev, next) = (i.checked_sub(1).map(|j| cs[j]), cs.get(i + 1).copied());
        let joins = match (prev, next) {
            (Some(p), Some(n)) if !cur.is_empty() => {
                (p.is_alphabetic()
                    && n.is_alphabetic()
                    && matches!(c, '.' | ':' | '\'' | '\u{2018}' | '\u{2019}'))
                    || (p.is_numeric()
                        && n.is_numeric()
                        && matches!(c, '.' | ',' | ';' | '\'' | '\u{2018}' | '\u{2019}'))
            }
            _ => false,
        };
        if joins {
            cur.push(c);
        } else if !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// Word 3-shingle containment `|A n B| / min(|A|, |B|)` of every labelled (answer, source)
/// pair, from the raw texts and `reference_words`. Keyed by the pair, with its category.
fn reference_containment(
    docs: &Path,
    cats: &BTreeMap<(String, String), String>,
) -> BTreeMap<(String, String), (String, f64)> {
    let mut shingles: HashMap<String, HashSet<String>> = HashMap::new();
    for line in std::fs::read_to_string(docs).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let words = reference_words(v["text"].as_str().unwrap());
        let set = words.windows(3).map(|w| w.join(" ")).collect();
        shingles.insert(v["id"].as_str().unwrap().to_string(), set);
    }
    cats.iter()
        .map(|((a, b), cat)| {
            let (x, y) = (&shingles[a], &shingles[b]);
            let common = x.intersection(y).count() as f64;
            let c = common / x.len().min(y.len()) as f64;
            ((a.clone(), b.clone()), (cat.clone(), c))
        })
        .collect()
}

fn pipeline() -> PipelineConfig {
    PipelineConfig {
        shingle: ShingleConfig::new(3, 1, 0).unwrap(),
        ..Default::default()
    }
}

#[test]
fn exact_containment_separates_cut_from_non() {
    let dir = data();
    let tmp = tempfile::tempdir().unwrap();
    let truth_path = tmp.path().join("truth.csv");
    let cats = labels(&dir, &truth_path);
    let docs = dir.join("docs.jsonl");
    let p = pipeline();

    // Per-category recall of the direct edges (pairs whose own containment passes).
    let input = Input::Corpus(docs.clone());
    let job = |t: f64| {
        JobBuilder::new(Method::Exact)
            .threshold(Threshold::Resemblance(t))
            .measure(Measure::Containment)
            .pipeline(p.clone())
            .build()
            .unwrap()
    };
    let mut prep = job(0.5).prepare(&input, &|_| {}).unwrap();
    // The reference: word 3-shingle containment of every labelled pair, computed here from
    // the raw texts (`reference_words`), not by the library. The join at a threshold near 0
    // gives the library's exact containment of every labelled pair that shares a shingle:
    // each equals the reference's.
    let reference = reference_containment(&docs, &cats);
    let low = job(0.001).run_on(&mut prep).unwrap();
    let ids = prep.ext_ids().to_vec();
    let mut library: BTreeMap<(String, String), f64> = BTreeMap::new();
    for e in &low.edges {
        let (a, b) = (ids[e.a.index()].clone(), ids[e.b.index()].clone());
        let k = if a < b { (a, b) } else { (b, a) };
        library.insert(k, e.exact.or(e.estimate).unwrap());
    }
    for (k, (cat, c)) in &reference {
        let got = library.get(k).copied().unwrap_or(0.0);
        assert!(
            (got - c).abs() < 1e-9,
            "{k:?} ({cat}): library {got}, reference {c}"
        );
    }
    // At the threshold of its own reference containment a pair passes; just above, it does not.
    let pairs_at = |t: f64, prep: &mut Sketched| -> Vec<(String, String)> {
        let out = job(t).run_on(prep).unwrap();
        out.edges
            .iter()
            .map(|e| {
                let (a, b) = (ids[e.a.index()].clone(), ids[e.b.index()].clone());
                if a < b {
                    (a, b)
                } else {
                    (b, a)
                }
            })
            .collect()
    };
    for (k, (cat, c)) in reference.iter().filter(|(_, (_, c))| *c > 0.0) {
        assert!(
            pairs_at(*c, &mut prep).contains(k),
            "{k:?} ({cat}) at its own {c}"
        );
        if *c < 1.0 {
            let above = c + 1e-9;
            assert!(
                !pairs_at(above, &mut prep).contains(k),
                "{k:?} ({cat}) at {above}"
            );
        }
    }
    let mut run = |t: f64| {
        let out = job(t).run_on(&mut prep).unwrap();
        let ids = prep.ext_ids();
        let mut hits: BTreeMap<String, usize> = BTreeMap::new();
        for e in &out.edges {
            let (a, b) = (ids[e.a.index()].clone(), ids[e.b.index()].clone());
            let k = if a < b { (a, b) } else { (b, a) };
            if let Some(c) = cats.get(&k) {
                *hits.entry(c.clone()).or_default() += 1;
            }
        }
        hits
    };
    let check = |t: f64, h: &BTreeMap<String, usize>| {
        let mut want: BTreeMap<String, usize> = BTreeMap::new();
        for (cat, c) in reference.values() {
            if *c >= t {
                *want.entry(cat.clone()).or_default() += 1;
            }
        }
        for cat in ["cut", "light", "heavy", "non"] {
            let w = want.get(cat).copied().unwrap_or(0);
            let g = h.get(cat).copied().unwrap_or(0);
            assert_eq!(g, w, "{cat} at {t}: library {h:?}, reference {want:?}");
        }
        want
    };
    let get = |h: &BTreeMap<String, usize>, c: &str| h.get(c).copied().unwrap_or(0);
    let h = run(0.5);
    let want = check(0.5, &h);
    // The claim of the test's name, on the reference's own values: at 0.5 and at 0.3 no `non`
    // answer passes and more `cut` answers pass than `heavy` ones.
    assert_eq!(get(&want, "non"), 0, "{want:?}");
    assert!(get(&want, "cut") > get(&want, "heavy"), "{want:?}");
    assert_eq!(get(&h, "non"), 0, "{h:?}");
    let h3 = run(0.3);
    let want3 = check(0.3, &h3);
    assert_eq!(get(&want3, "non"), 0, "{want3:?}");
    assert!(get(&want3, "cut") > get(&want3, "heavy"), "{want3:?}");
    assert_eq!(get(&h3, "non"), 0, "{h3:?}");

    // The sweep through the library, labeled-only: at 0.5 every counted pair is a true one.
    let truth = TruthTable::read(&truth_path).unwrap();
    let rule = TruthRule::parse("plagiarised=1").unwrap();
    let lab = truth.labels(Some(&rule)).unwrap();
    assert_eq!(lab.len(), 57);
    let cfg = |labeled_only: bool| SweepConfig {
        methods: vec![Method::Exact],
        thresholds: SweepThresholds::Resemblance(vec![0.5]),
        pipeline: p.clone(),
        cluster: ClusterConfig {
            measure: Measure::Containment,
            ..Default::default()
        },
        spill: Default::default(),
        verify: false,
        false_clusters: FalseClusterConfig::default(),
        truth_tokenizer: Default::default(),
        labeled_only,
        errors: 0,
        external: Vec::new(),
        bootstrap: None,
        cv: None,
        shingle_lens: Vec::new(),
        repeat: Default::default(),
    };
    let only = sweep(&docs, &truth, &lab, &cfg(true), &|_| {})
        .unwrap()
        .rows;
    let r = &only[0];
    assert_eq!(r.unique_ours, 0, "{r:?}");
    assert_eq!(r.found, r.common);
    // Cluster member pairs include the direct edges.
    assert!(
        r.common >= (get(&h, "cut") + get(&h, "light")) as u64,
        "{r:?}"
    );
    // Without --labeled-only the answer-answer pairs of the same clusters count as false
    // positives.
    let all = sweep(&docs, &truth, &lab, &cfg(false), &|_| {})
        .unwrap()
        .rows;
    assert_eq!(all[0].common, r.common);
    assert!(all[0].unique_ours > 0, "{:?}", all[0]);
}
