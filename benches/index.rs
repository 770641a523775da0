//! Benchmarks of the index: single-query latency (mean by criterion; p50 and p99 of every
//! query timed alone, printed; on the index in memory and on the same index saved and
//! opened, its postings memory-mapped), and adding a sweep (all pages again, 1 % gone, 1 %
//! changed, 1 % new) vs rebuilding over both sweeps.
//! `cargo bench --bench index` (FIMDUP_BENCH_DOCS sets the index size, default 100000;
//! FIMDUP_BENCH_ADD_ONLY=1 / FIMDUP_BENCH_QUERY_ONLY=1 run one group).
//!
//! Documents are synthetic: groups of 4 near-duplicates of ~200 random shingle hashes
//! (up to 10 % edited), sketched with bottom-k n = 128 (the default scheme) directly from
//! the hashes, so the figures are those of the index alone (no text processing).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use fimdup::index::{CorpusSpec, Index, IndexConfig, NewDoc, QueryOptions};
use fimdup::shingle::ShingleConfig;
use fimdup::sketch::pipeline::PipelineConfig;
use fimdup::sketch::{Image, SketchConfig, Sketcher};
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

fn docs(n: usize, seed: u64, prefix: &str, sk: &Sketcher) -> Vec<NewDoc> {
    let groups = n.div_ceil(4);
    (0..groups)
        .into_par_iter()
        .flat_map_iter(|g| {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ (g as u64) << 20);
            let base: Vec<u64> = (0..200).map(|_| rng.gen()).collect();
            (0..4)
                .map(|v| {
                    let mut d = base.clone();
                    for _ in 0..rng.gen_range(0..20) {
                        let i = rng.gen_range(0..d.len());
                        d[i] = rng.gen();
                    }
                    NewDoc {
                        ext_id: format!("{prefix}{g}-{v}"),
                        image: sk.sketch_hashes(&mut d),
                        containment: None,
                    }
                })
                .collect::<Vec<_>>()
        })
        .collect::<Vec<_>>()
        .into_iter()
        .take(n)
        .collect()
}

fn pipeline() -> PipelineConfig {
    PipelineConfig {
        shingle: ShingleConfig::default(),
        sketch: SketchConfig::default(),
        ..PipelineConfig::default()
    }
}

fn build(d: Vec<NewDoc>) -> Index {
    let mut idx = Index::new(&pipeline(), IndexConfig::default()).unwrap();
    idx.add_documents(d, Some("s1"), "bench", CorpusSpec::default())
        .unwrap();
    idx
}

/// Times every query alone, five passes over `queries` after one unmeasured pass, and
/// prints the median, the 99th percentile and the largest latency.
fn percentiles(name: &str, queries: &[Image], query: impl Fn(&Image) -> usize) {
    let mut found = 0;
    for q in queries {
        found += query(q);
    }
    let mut t = Vec::with_capacity(queries.len() * 5);
    for _ in 0..5 {
        for q in queries {
            let start = std::time::Instant::now();
            std::hint::black_box(query(q));
            t.push(start.elapsed().as_secs_f64() * 1e6);
        }
    }
    t.sort_by(f64::total_cmp);
    let at = |p: f64| t[((t.len() - 1) as f64 * p).round() as usize];
    eprintln!(
        "{name}: {} timings of {} queries ({found} answers a pass): p50 {:.1} us, p99 {:.1} us, max {:.1} us",
        t.len(),
        queries.len(),
        at(0.5),
        at(0.99),
        at(1.0)
    );
}

fn bench(c: &mut Criterion) {
    let n: usize = std::env::var("FIMDUP_BENCH_DOCS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let sk = Sketcher::new(ShingleConfig::default(), SketchConfig::default()).unwrap();
    let add_only = std::env::var("FIMDUP_BENCH_ADD_ONLY").is_ok();
    let query_only = std::env::var("FIMDUP_BENCH_QUERY_ONLY").is_ok();
    let base = docs(n, 1, "d", &sk);
    let t0 = std::time::Instant::now();
    let idx = build(base.clone());
    eprintln!(
        "built an index of {} documents in {:.2}s ({} clusters)",
        idx.len(),
        t0.elapsed().as_secs_f64(),
        idx.clusters().len()
    );
    let mut g = c.benchmark_group("index");
    g.sample_size(10);
    if !add_only {
        // queries: edited copies of indexed documents (each has ~3 near-duplicates) and
        // fresh documents (no answer)
        let queries: Vec<Image> = docs(200, 99, "q", &sk)
            .into_iter()
            .map(|d| d.image)
            .chain(idx.images().unwrap().into_iter().step_by(n / 200 + 1))
            .collect();
        let opts = QueryOptions {
            threshold: 0.5,
            ..QueryOptions::default()
        };
        let dir = tempfile::tempdir().unwrap();
        idx.save(dir.path()).unwrap();
        let mapped = Index::open(dir.path()).unwrap();
        for (name, ix) in [("query_1_doc", &idx), ("query_1_doc_mapped", &mapped)] {
            let name = format!("{name}_{n}");
            let mut i = 0;
            g.bench_function(&name, |b| {
                b.iter(|| {
                    i = (i + 1) % queries.len();
                    ix.query_image(&queries[i], None, &opts).unwrap().len()
                })
            });
            percentiles(&name, &queries, |q| {
                ix.query_image(q, None, &opts).unwrap().len()
            });
        }
    }
    if !query_only {
        // the next full sweep: every indexed page again, except 1 % gone (lost) and 1 %
        // changed (new versions), plus 1 % new pages
        let mut sweep: Vec<NewDoc> = Vec::with_capacity(n + n / 50);
        for (i, d) in base.iter().enumerate() {
            match i % 100 {
                0 => {}
                1 => {
                    let mut v = d.image.values().to_vec();
                    v[0] ^= 1; // one element changed: a new version
                    v.sort_unstable();
                    sweep.push(NewDoc {
                        image: Image::from_values(v),
                        ..d.clone()
                    });
                }
                _ => sweep.push(d.clone()),
            }
        }
        sweep.extend(docs(n / 100, 2, "s", &sk));
        g.bench_function(format!("add_sweep_to_{n}"), |b| {
            b.iter_batched(
                || (idx.clone(), sweep.clone()),
                |(mut ix, s)| {
                    ix.add_documents(s, Some("s2"), "bench", CorpusSpec::default())
                        .unwrap()
                        .added
                },
                BatchSize::LargeInput,
            )
        });
        let all: Vec<NewDoc> = base.iter().cloned().chain(sweep.iter().cloned()).collect();
        {
            let mut ix = idx.clone();
            let r = ix
                .add_documents(sweep.clone(), Some("s2"), "bench", CorpusSpec::default())
                .unwrap();
            eprintln!(
                "sweep of {}: {} added, {} unchanged, {} lost ({} found)",
                r.documents,
                r.added,
                r.unchanged,
                r.lost.len(),
                r.lost.iter().filter(|l| l.found.is_some()).count()
            );
        }
        g.bench_function(format!("rebuild_both_sweeps_{n}"), |b| {
            b.iter_batched(|| all.clone(), |a| build(a).len(), BatchSize::LargeInput)
        });
        let dir = tempfile::tempdir().unwrap();
        g.bench_function(format!("save_{n}"), |b| {
            b.iter(|| idx.save(dir.path()).unwrap())
        });
        g.bench_function(format!("open_{n}"), |b| {
            b.iter(|| Index::open(dir.path()).unwrap().len())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
