//! Sketching throughput for each scheme at n = 128 with word 5-shingles on deterministic
//! synthetic 300-word documents. The text module is not used: documents are tokenized by
//! splitting on spaces straight into a `Canonical`, so the figures are shingling + sketching
//! only (no canonicalization). Run: `cargo bench --bench sketch`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use fimdup::shingle::{shingle_hashes_scratch, ShingleConfig};
use fimdup::sketch::{Scheme, Scratch, SketchConfig, Sketcher};
use fimdup::text::Canonical;
use rand::{Rng, SeedableRng};

const DOCS: usize = 1000;
const WORDS: usize = 300;

fn corpus() -> Vec<Canonical> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(42);
    let vocab: Vec<String> = (0..20_000)
        .map(|i| {
            let len = rng.gen_range(2..10);
            let mut w: String = (0..len)
                .map(|_| rng.gen_range(b'a'..=b'z') as char)
                .collect();
            w.push_str(&(i % 7).to_string());
            w
        })
        .collect();
    (0..DOCS)
        .map(|_| {
            let mut text = String::new();
            let mut tokens = Vec::with_capacity(WORDS);
            for k in 0..WORDS {
                if k > 0 {
                    text.push(' ');
                }
                // Zipf-like: squares favour frequent words.
                let r: f64 = rng.gen();
                let w = &vocab[(r * r * vocab.len() as f64) as usize];
                let start = text.len() as u32;
                text.push_str(w);
                tokens.push(start..text.len() as u32);
            }
            Canonical { text, tokens }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let docs = corpus();
    let bytes: u64 = docs.iter().map(|d| d.text.len() as u64).sum();
    let shingle = ShingleConfig::default();
    {
        // Baseline: token hashing + rolling shingle hashes only.
        let mut g = c.benchmark_group("shingle-hashes");
        g.sample_size(20);
        g.throughput(Throughput::Elements(DOCS as u64));
        g.bench_function("docs", |b| {
            let (mut out, mut toks) = (Vec::new(), Vec::new());
            b.iter(|| {
                for d in &docs {
                    out.clear();
                    shingle_hashes_scratch(d, &shingle, &mut out, &mut toks);
                    std::hint::black_box(&out);
                }
            })
        });
        g.finish();
    }
    for scheme in Scheme::ALL {
        let cfg = SketchConfig {
            scheme,
            size: 128,
            modulus: 25,
            seed: 1,
            weighting: None,
        };
        let sk = Sketcher::new(shingle, cfg).unwrap();
        let mut g = c.benchmark_group(format!("sketch/{scheme}"));
        g.sample_size(20);
        g.throughput(Throughput::Elements(DOCS as u64));
        g.bench_function("docs", |b| {
            let mut s = Scratch::default();
            b.iter_batched_ref(
                || (),
                |_| {
                    for d in &docs {
                        std::hint::black_box(sk.sketch_with(d, &mut s));
                    }
                },
                BatchSize::SmallInput,
            )
        });
        g.throughput(Throughput::Bytes(bytes));
        g.bench_function("bytes", |b| {
            let mut s = Scratch::default();
            b.iter(|| {
                for d in &docs {
                    std::hint::black_box(sk.sketch_with(d, &mut s));
                }
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
