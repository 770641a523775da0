//! The fused parallel pipeline (`sketch_stream`, `sketch_corpus`, `shingle_sets`,
//! `shingle_sets_filtered`) gives exactly what the sequential reference pipeline
//! (`sketch_stream_reference`: sequential reader, general canonicalizer, `sketch_with`)
//! gives: images, external ids, raw and canonical fingerprints and counts, for every scheme
//! and text option, with 1 and 2 threads, on the default dataset and on random corpora.

use std::path::{Path, PathBuf};

use fimdup::corpus::{open, CorpusConfig};
use fimdup::shingle::{shingle_set, ShingleConfig};
use fimdup::sketch::pipeline::{
    shingle_sets, shingle_sets_at, shingle_sets_filtered, sketch_corpus, sketch_stream,
    sketch_stream_reference, PipelineConfig, SketchBatch, SketchSink, SketchStats,
};
use fimdup::sketch::{Scheme, SketchConfig, SketchParams, Weighting};
use fimdup::text::{Canonical, Canonicalizer, Scratch, StopWords, TextConfig, Unit};
use fimdup::DocId;
use proptest::prelude::*;

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

fn default_corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/default/docs.jsonl")
}

/// Everything a stream delivers, batches concatenated, plus the batch starts.
#[derive(Debug, Default, PartialEq)]
struct All {
    params: Option<SketchParams>,
    ext_ids: Vec<String>,
    images: Vec<Vec<u64>>,
    raw: Vec<u64>,
    canonical: Vec<u64>,
}

struct Sink(All, u32);

impl SketchSink for Sink {
    fn begin(&mut self, params: &SketchParams) -> fimdup::Result<()> {
        assert!(self.0.params.is_none(), "begin called twice");
        self.0.params = Some(params.clone());
        Ok(())
    }

    fn batch(&mut self, b: SketchBatch) -> fimdup::Result<()> {
        assert_eq!(b.first, self.1, "batches out of order");
        let n = b.images.len();
        assert!(n > 0);
        assert_eq!(b.ext_ids.len(), n);
        assert_eq!(b.raw_fingerprints.len(), n);
        assert_eq!(b.canonical_fingerprints.len(), n);
        self.1 += n as u32;
        self.0.ext_ids.extend(b.ext_ids);
        self.0
            .images
            .extend(b.images.iter().map(|i| i.values().to_vec()));
        self.0.raw.extend(b.raw_fingerprints);
        self.0.canonical.extend(b.canonical_fingerprints);
        Ok(())
    }
}

fn run_reference(p: &Path, cfg: &PipelineConfig) -> (All, SketchStats) {
    let mut s = Sink(All::default(), 0);
    let st = sketch_stream_reference(p, cfg, &mut s).unwrap();
    (s.0, st)
}

fn run_fused(p: &Path, cfg: &PipelineConfig, threads: usize) -> (All, SketchStats) {
    pool(threads).install(|| {
        let mut s = Sink(All::default(), 0);
        let st = sketch_stream(p, cfg, &|_| {}, &mut s).unwrap();
        (s.0, st)
    })
}

fn configs() -> Vec<(&'static str, PipelineConfig)> {
    let sk = |scheme, size, weighting| SketchConfig {
        scheme,
        size,
        modulus: 7,
        seed: 11,
        weighting,
        bits: None,
    };
    let base = PipelineConfig::default();
    let mut v = vec![("default", base.clone())];
    for (name, scheme) in [
        ("k-mins", Scheme::KMins),
        ("one-permutation", Scheme::OnePermutation),
        ("mod-m", Scheme::ModM),
    ] {
        let mut c = base.clone();
        c.sketch = sk(scheme, 64, None);
        v.push((name, c));
    }
    let mut c = base.clone();
    c.sketch = sk(Scheme::BottomK, 32, Some(Weighting::Bag));
    c.shingle = ShingleConfig::new(1, 1, 3).unwrap();
    v.push(("bag", c));
    let mut c = base.clone();
    c.sketch = sk(Scheme::KMins, 16, Some(Weighting::TfIdf { total: 50 }));
    v.push(("tf-idf", c));
    let mut c = base.clone();
    c.text = TextConfig {
        html: true,
        lowercase: false,
        stopwords: Some(StopWords::english()),
        stem: true,
        ..TextConfig::default()
    };
    c.shingle = ShingleConfig::new(3, 2, 5).unwrap();
    v.push(("html-stop-stem-offset", c));
    let mut c = base.clone();
    c.text.unit = Unit::Char;
    c.shingle = ShingleConfig::new(6, 1, 0).unwrap();
    c.sketch = sk(Scheme::BottomK, 48, None);
    v.push(("char", c));
    v
}

#[test]
fn default_dataset_fused_equals_reference() {
    let p = default_corpus();
    for (name, cfg) in configs() {
        let want = run_reference(&p, &cfg);
        assert_eq!(want.1.corpus.documents, 1500);
        for threads in [1, 2] {
            let got = run_fused(&p, &cfg, threads);
            assert!(got.0 == want.0, "{name}: {threads} threads: output differs");
            assert_eq!(got.1, want.1, "{name}: {threads} threads: stats");
        }
    }
    // sketch_corpus (the in-memory form) holds the same.
    let cfg = PipelineConfig::default();
    let (want, st) = run_reference(&p, &cfg);
    let out = pool(2).install(|| sketch_corpus(&p, &cfg, &|_| {}).unwrap());
    assert_eq!(out.stats, st);
    assert_eq!(out.images.ext_ids, want.ext_ids);
    assert_eq!(out.fingerprints.raw, want.raw);
    assert_eq!(out.fingerprints.canonical, want.canonical);
    let imgs: Vec<Vec<u64>> = out
        .images
        .images
        .iter()
        .map(|i| i.values().to_vec())
        .collect();
    assert_eq!(imgs, want.images);
}

/// Shingle sets by brute force: the sequential reader, the general canonicalizer.
fn brute_sets(p: &Path, text: &TextConfig, sh: &ShingleConfig) -> Vec<Vec<u64>> {
    let canon = Canonicalizer::new(text.clone()).unwrap();
    open(p, &CorpusConfig::default())
        .unwrap()
        .map(|d| {
            let mut c = Canonical::default();
            canon.canonicalize_reference_into(&d.unwrap().text, &mut Scratch::default(), &mut c);
            shingle_set(&c, sh)
        })
        .collect()
}

#[test]
fn shingle_sets_filtered_equals_brute_force() {
    let p = default_corpus();
    let text = TextConfig::default();
    let sh = ShingleConfig::default();
    let want = brute_sets(&p, &text, &sh);
    let cc = CorpusConfig::default();
    for threads in [1, 2] {
        let all = pool(threads).install(|| shingle_sets(&p, &cc, &text, &sh, &|_| {}).unwrap());
        assert_eq!(all, want);
        // Unsorted, with duplicates and an id past the end.
        let wanted: Vec<DocId> = [1499u32, 3, 0, 700, 3, 9999].map(DocId).to_vec();
        let got = pool(threads).install(|| {
            shingle_sets_filtered(&p, &cc, &text, &sh, Some(&wanted), &|_| {}).unwrap()
        });
        let ids: Vec<DocId> = got.iter().map(|x| x.0).collect();
        assert_eq!(ids, [0u32, 3, 700, 1499].map(DocId).to_vec());
        for (d, set) in got {
            assert_eq!(set, want[d.0 as usize], "{d}");
        }
    }
}

/// `sketch_corpus` records every document's byte offset in a JSONL or plain-lines file
/// (none for gzip), and `shingle_sets_at` reads the wanted documents back there: the same
/// sets as the brute-force pipeline, with 1 and 2 threads, across reader blocks; a file
/// changed since the offsets were recorded is an error, not wrong sets.
#[test]
fn shingle_sets_at_recorded_offsets_equal_brute_force() {
    let p = default_corpus();
    let text = TextConfig::default();
    let sh = ShingleConfig::default();
    let want = brute_sets(&p, &text, &sh);
    let cc = CorpusConfig::default();
    let cfg = PipelineConfig::default();
    let wanted: Vec<DocId> = [1499u32, 3, 0, 700, 3, 1, 2].map(DocId).to_vec();
    for threads in [1, 2] {
        let out = pool(threads).install(|| sketch_corpus(&p, &cfg, &|_| {}).unwrap());
        let offsets = out.offsets.expect("a JSONL file records offsets");
        assert_eq!(offsets.len(), want.len());
        assert!(offsets.windows(2).all(|w| w[0] < w[1]));
        let ids = &out.images.ext_ids;
        let got = pool(threads).install(|| {
            shingle_sets_at(&p, &cc, &text, &sh, &wanted, &offsets, Some(ids))
                .unwrap()
                .expect("a JSONL file is read at offsets")
        });
        let got_ids: Vec<u32> = got.iter().map(|x| x.0 .0).collect();
        assert_eq!(got_ids, [0, 1, 2, 3, 700, 1499]);
        for (d, set) in got {
            assert_eq!(set, want[d.0 as usize], "{d}");
        }
        // Offsets of another file: an error naming the file (the ids or the lines differ).
        let dir = tempfile::tempdir().unwrap();
        let changed = dir.path().join("changed.jsonl");
        let body = std::fs::read_to_string(&p).unwrap();
        let mut lines: Vec<&str> = body.lines().collect();
        lines.swap(0, 3);
        std::fs::write(&changed, lines.join("\n")).unwrap();
        let e = shingle_sets_at(&changed, &cc, &text, &sh, &wanted, &offsets, Some(ids))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("changed.jsonl") && e.contains("changed since"),
            "{e}"
        );
        // An id past the recorded offsets is an error too.
        assert!(shingle_sets_at(&p, &cc, &text, &sh, &[DocId(9999)], &offsets, Some(ids)).is_err());
    }
    // Plain lines: offsets recorded, same sets as re-reading the file.
    let dir = tempfile::tempdir().unwrap();
    let txt = dir.path().join("c.txt");
    std::fs::write(
        &txt,
        "\u{feff}a b c d e f g\r\n\nh i j k l m\nzz a b c d e f g h",
    )
    .unwrap();
    let out = sketch_corpus(&txt, &cfg, &|_| {}).unwrap();
    let offsets = out.offsets.unwrap();
    assert_eq!(offsets, [3, 18, 19, 31]);
    let w: Vec<DocId> = (0..4).map(DocId).collect();
    let at = shingle_sets_at(&txt, &cc, &text, &sh, &w, &offsets, None)
        .unwrap()
        .unwrap();
    let all = shingle_sets_filtered(&txt, &cc, &text, &sh, None, &|_| {}).unwrap();
    assert_eq!(at, all);
    // gzip: no offsets.
    let gz = dir.path().join("c.txt.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut e, b"a b c d e f\n").unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    assert!(sketch_corpus(&gz, &cfg, &|_| {}).unwrap().offsets.is_none());
}

fn doc_text() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        10 => "[a-e]{1,3}",
        2 => "[A-E0-9]{1,2}",
        1 => prop::sample::select(vec![
            ",", ".", "can't", "3.5", "<b>", "&amp;", "é", "Ünï", "’s", "\n", "  ",
        ])
        .prop_map(str::to_string),
    ];
    prop::collection::vec(word, 0..40).prop_map(|w| w.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn random_corpora_fused_equals_reference(
        docs in prop::collection::vec(doc_text(), 0..30),
        threads in 1usize..=2,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.jsonl");
        let body: String = docs
            .iter()
            .enumerate()
            .map(|(i, t)| serde_json::json!({"id": i, "text": t}).to_string() + "\n")
            .collect();
        std::fs::write(&p, body).unwrap();
        for (name, cfg) in configs() {
            let want = run_reference(&p, &cfg);
            let got = run_fused(&p, &cfg, threads);
            prop_assert!(got.0 == want.0, "{}: output differs", name);
            prop_assert_eq!(got.1, want.1, "{}", name);
        }
    }
}

/// Runs the binary; panics with its stderr when it fails.
fn fimdup(args: &[&str]) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fimdup"))
        .args(args)
        .output()
        .expect("run fimdup");
    assert!(
        out.status.success(),
        "fimdup {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `fimdup sketch --threads 1` and `--threads 2` write byte-identical images and id tables
/// on a corpus of several reader blocks (about 4 MB; blocks are 1 MiB), mixing ASCII
/// documents (fast path) with non-ASCII and HTML ones (general path).
#[test]
fn cli_sketch_identical_for_one_and_two_threads_across_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let gen = dir.path().join("gen");
    let (gen_s, n) = (gen.to_str().unwrap(), "2500");
    fimdup(&["gen", "--out", gen_s, "--docs", n, "--threads", "2"]);
    let src = std::fs::read_to_string(gen.join("docs.jsonl")).unwrap();
    let mut body = String::new();
    for (i, line) in src.lines().enumerate() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        let t = v["text"].as_str().unwrap().to_string();
        let t = match i % 13 {
            0 => t.replacen('e', "é", 3),
            5 => format!("<p>{t}</p> caf&eacute; <b>Über</b>"),
            9 => t.replace(' ', "\u{a0}"),
            _ => t,
        };
        v["text"] = t.into();
        body.push_str(&v.to_string());
        body.push('\n');
    }
    assert!(body.len() > 3 << 20, "{} bytes: too few blocks", body.len());
    let p = dir.path().join("mixed.jsonl");
    std::fs::write(&p, body).unwrap();
    let ps = p.to_str().unwrap();
    let variants: [&[&str]; 3] = [
        &["--size", "128", "--shingle-len", "5"],
        &["--html", "--stem", "--stopwords", "english", "--keep-case"],
        &["--scheme", "k-mins", "--size", "32", "--weighting", "tfidf"],
    ];
    for (k, extra) in variants.iter().enumerate() {
        let mut outs = Vec::new();
        for t in ["1", "2"] {
            let img = dir.path().join(format!("v{k}-{t}.img"));
            let mut args = vec!["sketch", ps, "--threads", t, "--out", img.to_str().unwrap()];
            args.extend_from_slice(extra);
            fimdup(&args);
            let mut ids = img.clone().into_os_string();
            ids.push(".ids.tsv");
            outs.push((std::fs::read(&img).unwrap(), std::fs::read(ids).unwrap()));
        }
        assert!(outs[0].0.len() > 2500 * 8, "variant {k}: images too small");
        let rows = outs[0].1.iter().filter(|&&c| c == b'\n').count();
        assert!(rows >= 2500, "variant {k}: {rows} id rows");
        assert!(
            outs[0] == outs[1],
            "variant {k} {extra:?}: 1 and 2 threads differ"
        );
    }
}
