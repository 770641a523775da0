//! Benchmarks of the clustering phases on synthetic near-duplicate groups:
//! `cargo bench --bench cluster`.

use criterion::{criterion_group, criterion_main, Criterion};
use fimdup::cluster::{exact_join, lsh, ExactConfig};
use fimdup::context::{Context, ContextConfig};
use fimdup::spill::SpillConfig;
use rand::{Rng, SeedableRng};

/// `groups` groups of 4 documents of ~300 random shingles, each up to 10 % edited.
fn corpus(groups: usize) -> Vec<Vec<u64>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let mut out = Vec::new();
    for _ in 0..groups {
        let base: Vec<u64> = (0..300).map(|_| rng.gen()).collect();
        for _ in 0..4 {
            let mut d = base.clone();
            for _ in 0..rng.gen_range(0..30) {
                let i = rng.gen_range(0..d.len());
                d[i] = rng.gen();
            }
            d.sort_unstable();
            d.dedup();
            out.push(d);
        }
    }
    out
}

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn bench(c: &mut Criterion) {
    let sets = corpus(2500);
    let bottom: Vec<Vec<u64>> = sets
        .iter()
        .map(|s| {
            let mut v: Vec<u64> = s.iter().map(|&x| mix(x)).collect();
            v.sort_unstable();
            v.truncate(128);
            v
        })
        .collect();
    let kmins: Vec<Vec<u64>> = sets
        .iter()
        .map(|s| {
            (0..128u64)
                .map(|i| s.iter().map(|&x| mix(x ^ mix(i + 1))).min().unwrap())
                .collect()
        })
        .collect();
    let ctx = Context::from_doc_keys(&bottom, &ContextConfig::default(), &SpillConfig::default())
        .unwrap();
    let mut g = c.benchmark_group("cluster");
    g.sample_size(10);
    g.bench_function("pair_counts_10k_docs", |b| b.iter(|| ctx.pair_counts(100)));
    g.bench_function("exact_join_10k_docs_t0.8", |b| {
        b.iter(|| exact_join(&sets, 0.8, &ExactConfig::default()).unwrap())
    });
    g.bench_function("lsh_candidates_10k_docs_8x16", |b| {
        b.iter(|| lsh::candidate_pairs(&kmins, 8, 16, 1).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
