//! Sketching throughput (documents/s) of the streaming parallel pipeline
//! (`sketch_stream`: parallel reader, ASCII fast-path canonicalization, token-hash
//! shingling, sketching), at n = 128 with word 5-shingles, on a deterministic synthetic JSONL
//! corpus of 300-word documents written to a temporary file; plus the sequential reference
//! pipeline (`sketch_stream_reference`) for the ratio, the same stream under the `alnum` and
//! `whitespace` tokenizers and NFKC normalization, and the per-document sketch of each
//! scheme from token hashes, and the token hash itself on the corpus's words beside
//! rapidhash v1. Threads: the global rayon pool (`RAYON_NUM_THREADS`).
//! Run: `cargo bench --bench sketch`.

use std::io::Write;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fimdup::shingle::{token_hash, ShingleConfig};
use fimdup::sketch::pipeline::{
    sketch_stream, sketch_stream_reference, PipelineConfig, SketchBatch, SketchSink,
};
use fimdup::sketch::{Scheme, Scratch, SketchConfig, SketchParams, Sketcher, Weighting};
use fimdup::text::{Normalization, Tokenizer};
use rand::{Rng, SeedableRng};

const DOCS: usize = 5000;
const WORDS: usize = 300;

/// Deterministic 300-word documents over a Zipf-like vocabulary, with capitals and
/// punctuation so that canonicalization has work to do.
fn texts() -> Vec<String> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(42);
    let vocab: Vec<String> = (0..20_000)
        .map(|_| {
            let len = rng.gen_range(2..10);
            (0..len)
                .map(|_| rng.gen_range(b'a'..=b'z') as char)
                .collect()
        })
        .collect();
    (0..DOCS)
        .map(|_| {
            let mut text = String::new();
            for k in 0..WORDS {
                let r: f64 = rng.gen();
                let w = &vocab[(r * r * vocab.len() as f64) as usize];
                if k > 0 {
                    text.push_str(if rng.gen_ratio(1, 12) { ". " } else { " " });
                }
                if k == 0 || rng.gen_ratio(1, 20) {
                    let mut c = w.chars();
                    let first = c.next().unwrap().to_ascii_uppercase();
                    text.push(first);
                    text.push_str(c.as_str());
                } else {
                    text.push_str(w);
                }
            }
            text
        })
        .collect()
}

/// Counts the images and drops them.
struct Null(usize);

impl SketchSink for Null {
    fn begin(&mut self, _: &SketchParams) -> fimdup::Result<()> {
        Ok(())
    }
    fn batch(&mut self, b: SketchBatch) -> fimdup::Result<()> {
        self.0 += std::hint::black_box(b.images).len();
        Ok(())
    }
}

fn bench(c: &mut Criterion) {
    let docs = texts();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.jsonl");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        for (i, t) in docs.iter().enumerate() {
            let line = serde_json::json!({"id": i, "text": t}).to_string();
            writeln!(f, "{line}").unwrap();
        }
    }
    let cfg = PipelineConfig::default();
    {
        let mut g = c.benchmark_group("pipeline");
        g.sample_size(10);
        g.throughput(Throughput::Elements(DOCS as u64));
        g.bench_function("sketch_stream", |b| {
            b.iter(|| {
                let mut s = Null(0);
                sketch_stream(&path, &cfg, &|_| {}, &mut s).unwrap();
                assert_eq!(s.0, DOCS);
            })
        });
        for tokenizer in [Tokenizer::Alnum, Tokenizer::Whitespace] {
            let mut other = cfg.clone();
            other.text.tokenizer = tokenizer;
            g.bench_function(format!("sketch_stream_{tokenizer}"), |b| {
                b.iter(|| {
                    let mut s = Null(0);
                    sketch_stream(&path, &other, &|_| {}, &mut s).unwrap();
                    assert_eq!(s.0, DOCS);
                })
            });
        }
        let mut nfkc = cfg.clone();
        nfkc.text.normalization = Normalization::Nfkc;
        g.bench_function("sketch_stream_nfkc", |b| {
            b.iter(|| {
                let mut s = Null(0);
                sketch_stream(&path, &nfkc, &|_| {}, &mut s).unwrap();
                assert_eq!(s.0, DOCS);
            })
        });
        g.bench_function("sketch_stream_reference", |b| {
            b.iter(|| {
                let mut s = Null(0);
                sketch_stream_reference(&path, &cfg, &mut s).unwrap();
                assert_eq!(s.0, DOCS);
            })
        });
        g.finish();
    }
    // The token hash alone on the documents' words (throughput in words), beside rapidhash
    // v1, a hash of the multiply-mix family built for short keys.
    let words: Vec<&str> = docs
        .iter()
        .flat_map(|t| t.split(' '))
        .take(200_000)
        .collect();
    let mut g = c.benchmark_group("token_hash");
    g.sample_size(20);
    g.throughput(Throughput::Elements(words.len() as u64));
    g.bench_function("xxh3", |b| {
        b.iter(|| {
            words
                .iter()
                .fold(0u64, |a, w| a ^ token_hash(std::hint::black_box(w), 0))
        })
    });
    let secrets = rapidhash::v1::RapidSecrets::seed_cpp(0);
    g.bench_function("rapidhash-v1", |b| {
        b.iter(|| {
            words.iter().fold(0u64, |a, w| {
                a ^ rapidhash::v1::rapidhash_v1_inline::<false, false, false, false>(
                    std::hint::black_box(w).as_bytes(),
                    &secrets,
                )
            })
        })
    });
    g.finish();
    // Sketching alone, from token hashes (no reading or canonicalization).
    let shingle = ShingleConfig::default();
    let toks: Vec<Vec<u64>> = docs
        .iter()
        .take(1000)
        .map(|t| t.split(' ').map(|w| token_hash(w, shingle.seed)).collect())
        .collect();
    let mut g = c.benchmark_group("sketch_token_hashes");
    g.sample_size(10);
    g.throughput(Throughput::Elements(toks.len() as u64));
    // Every scheme on the shingle set (ICWS on the bag, which it needs), then the bag
    // flattened for k-mins beside ICWS sampling the same counts.
    let runs = Scheme::ALL
        .into_iter()
        .map(|s| (s, s == Scheme::Icws, s.name().to_string()))
        .chain([(Scheme::KMins, true, "k-mins-bag".to_string())]);
    for (scheme, bag, name) in runs {
        let sk = Sketcher::new(
            shingle,
            SketchConfig {
                scheme,
                size: 128,
                modulus: 25,
                seed: 1,
                weighting: bag.then_some(Weighting::Bag),
                bits: None,
            },
        )
        .unwrap();
        g.bench_function(name.as_str(), |b| {
            let mut s = Scratch::default();
            b.iter(|| {
                for t in &toks {
                    std::hint::black_box(sk.sketch_token_hashes(t, &mut s));
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
