//! Brute-force references shared by the unit tests of the joins, and the images, keys and
//! views of outputs shared by the end-to-end tests of `run_method` (`method_tests.rs`,
//! `invariant_tests.rs`).

use super::{ClusterConfig, ClusterOutput, Method, Threshold};
use crate::DocId;

/// All pairs `(a, b, overlap)` with `a < b` whose overlap passes `pass(overlap, |a|, |b|)`.
pub fn brute_pairs(
    sets: &[Vec<u64>],
    pass: impl Fn(usize, usize, usize) -> bool,
) -> Vec<(u32, u32, u32)> {
    let mut out = Vec::new();
    for a in 0..sets.len() {
        for b in a + 1..sets.len() {
            let sa: std::collections::BTreeSet<_> = sets[a].iter().collect();
            let ov = sets[b].iter().filter(|x| sa.contains(x)).count();
            if pass(ov, sets[a].len(), sets[b].len()) {
                out.push((a as u32, b as u32, ov as u32));
            }
        }
    }
    out
}

/// Sorts and de-duplicates every set.
pub fn norm(v: Vec<Vec<u64>>) -> Vec<Vec<u64>> {
    v.into_iter()
        .map(|mut s| {
            s.sort_unstable();
            s.dedup();
            s
        })
        .collect()
}

// ---------- shared by the end-to-end tests of `run_method` ----------

pub fn ids(v: &[u32]) -> Vec<DocId> {
    v.iter().map(|&d| DocId(d)).collect()
}

pub fn docs_of(out: &ClusterOutput) -> Vec<(Vec<DocId>, u32)> {
    out.clusters
        .iter()
        .map(|c| (c.docs.clone(), c.support))
        .collect()
}

pub fn pair_list(out: &ClusterOutput) -> Vec<(u32, u32, Option<u32>)> {
    out.pairs.iter().map(|p| (p.a.0, p.b.0, p.shared)).collect()
}

pub fn cfg(method: Method, th: Threshold) -> ClusterConfig {
    ClusterConfig {
        method,
        threshold: th,
        ..Default::default()
    }
}

/// splitmix64 finalizer: the test's own hash mixer.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// k-mins image: position i holds min over the set of mix(x ^ seed_i).
pub fn k_mins(set: &[u64], n: usize) -> Vec<u64> {
    (0..n)
        .map(|i| {
            set.iter()
                .map(|&x| mix(x ^ mix(i as u64 + 1)))
                .min()
                .unwrap_or(0)
        })
        .collect()
}

/// bottom-n image: the n smallest of mix(x), ascending.
pub fn bottom_k(set: &[u64], n: usize) -> Vec<u64> {
    let mut v: Vec<u64> = set.iter().map(|&x| mix(x)).collect();
    v.sort_unstable();
    v.truncate(n);
    v
}

/// Keys: 0-1 share {1,2,3}, 1-2 share {4,5,6}, 0-2 share {7}; 3-4 share {8,9,10};
/// doc 5 shares only {1} with 0 and 1; element 99 is in every document.
pub fn hand_keys() -> Vec<Vec<u64>> {
    vec![
        vec![1, 2, 3, 7, 99],
        vec![1, 2, 3, 4, 5, 6, 99],
        vec![4, 5, 6, 7, 99],
        vec![8, 9, 10, 99],
        vec![8, 9, 10, 99],
        vec![1, 99, 50],
    ]
}
