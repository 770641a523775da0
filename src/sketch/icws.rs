//! Improved consistent weighted sampling (Ioffe, ICDM 2010) of a document's real-valued
//! shingle weights ([`super::weight::weights`]: counts for the bag, scaled tf-idf weights
//! unrounded): `n` samples whose values agree between two documents with probability the
//! weighted Jaccard `sum_t min(w_A(t), w_B(t)) / sum_t max(w_A(t), w_B(t))`, beside the
//! flattened bag of [`super::weight::flatten`] which rounds the weights to counts first.
//!
//! Sample `j` of a document with weights `S_t > 0`: for every shingle `t`, with
//! `r, c ~ Gamma(2, 1)` and `beta ~ U(0, 1)` drawn from `(j, t)` alone,
//! `t_k = floor(ln S_t / r + beta)`, `ln y = r (t_k - beta)` and `ln a = ln c - ln y - r`;
//! the sample is the shingle of the smallest `a` (ties: the smaller shingle hash) with its
//! `t_k`, stored as the value `fmix64(t ^ fmix64(t_k ^ DOMAIN))`. Gamma(2, 1) is drawn as
//! `-ln(u1 u2)` with `u1, u2` uniform on `(0, 1)`.
//!
//! Invariants: the draws of `(j, t)` are SplitMix64 outputs of `fmix64(t ^ key_j)`, with
//! `key_j` a SplitMix64 stream of the seed, so an image is a deterministic function of the
//! weights and the seed, whatever the thread count; an empty weight list gives no sample.
//! The logarithms and `exp` are the platform's `f64` ones: a sample can change between
//! platforms only when two candidates' `ln a` are within an ulp, or `ln S / r + beta` is
//! within an ulp of an integer.

use super::hash::{fmix64, splitmix64};

const DOMAIN_ICWS: u64 = 6;
const DOMAIN_VALUE: u64 = 0x1C45_0000_0000_0001;

/// The per-sample keys of seed `seed` for `n` samples.
pub fn sample_keys(seed: u64, n: usize) -> Vec<u64> {
    let mut s = seed ^ DOMAIN_ICWS.wrapping_mul(0xD6E8_FEB8_6659_FD93);
    (0..n).map(|_| splitmix64(&mut s)).collect()
}

/// A uniform on `(0, 1)` (never 0) from the top 53 bits of `x`.
#[inline]
fn unit(x: u64) -> f64 {
    ((x >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64)
}

/// The value stored for a sample: shingle `t` at level `tk`.
#[inline]
fn value(t: u64, tk: i64) -> u64 {
    fmix64(t ^ fmix64(tk as u64 ^ DOMAIN_VALUE))
}

/// One sample per key of `keys` from the weights `ws` (`(shingle, weight)`, ascending by
/// shingle, weights positive and finite), written to `out` (cleared; empty when `ws` is).
///
/// Pruning, which changes no sample: `a = c u1 u2 exp(-r (t_k - beta))` (as
/// `e^r = 1 / (u1 u2)`) with `r (t_k - beta) <= ln S`, so `a >= c u1 u2 / S >=
/// (1 - u3 u4) u1 u2 / S` (as `c = -ln(u3 u4) >= 1 - u3 u4`). A shingle whose bound is above
/// the sample's smallest `a` so far (by a relative margin of `1e-9`, far above rounding)
/// cannot win, and its logarithms are not computed: once a sample has seen a few shingles,
/// most of the others are passed over this way.
pub fn sample(ws: &[(u64, f64)], keys: &[u64], out: &mut Vec<u64>) {
    out.clear();
    if ws.is_empty() {
        return;
    }
    let n = keys.len();
    // The smallest `ln a` of each sample so far, and `a` itself (for the bound).
    let mut best = vec![f64::INFINITY; n];
    let mut best_a = vec![f64::INFINITY; n];
    out.resize(n, 0);
    for &(t, w) in ws {
        let ln_w = w.ln();
        let inv_w = 1.0 / w;
        for (j, &k) in keys.iter().enumerate() {
            let mut s = fmix64(t ^ k);
            let (u1, u2) = (unit(splitmix64(&mut s)), unit(splitmix64(&mut s)));
            let (u3, u4) = (unit(splitmix64(&mut s)), unit(splitmix64(&mut s)));
            let (p12, p34) = (u1 * u2, u3 * u4);
            if (1.0 - p34) * p12 * inv_w > best_a[j] * (1.0 + 1e-9) {
                continue;
            }
            let beta = unit(splitmix64(&mut s));
            let r = -p12.ln();
            let c = -p34.ln();
            let tk = (ln_w / r + beta).floor();
            let ln_a = c.ln() - r * (tk - beta) - r;
            if ln_a < best[j] {
                best[j] = ln_a;
                best_a[j] = ln_a.exp();
                out[j] = value(t, tk as i64);
            }
        }
    }
}

/// [`sample`] without the pruning: every shingle's `a` computed (the tests' reference).
#[cfg(test)]
fn sample_unpruned(ws: &[(u64, f64)], keys: &[u64], out: &mut Vec<u64>) {
    out.clear();
    if ws.is_empty() {
        return;
    }
    let mut best = vec![f64::INFINITY; keys.len()];
    out.resize(keys.len(), 0);
    for &(t, w) in ws {
        for (j, &k) in keys.iter().enumerate() {
            let mut s = fmix64(t ^ k);
            let (u1, u2) = (unit(splitmix64(&mut s)), unit(splitmix64(&mut s)));
            let (u3, u4) = (unit(splitmix64(&mut s)), unit(splitmix64(&mut s)));
            let beta = unit(splitmix64(&mut s));
            let (r, c) = (-(u1 * u2).ln(), -(u3 * u4).ln());
            let tk = (w.ln() / r + beta).floor();
            let ln_a = c.ln() - r * (tk - beta) - r;
            if ln_a < best[j] {
                best[j] = ln_a;
                out[j] = value(t, tk as i64);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sketch::hash::splitmix64;

    type Weights = Vec<(u64, f64)>;

    /// The weighted Jaccard by brute force over the union of the two weight lists.
    fn weighted_jaccard(a: &[(u64, f64)], b: &[(u64, f64)]) -> f64 {
        let mut keys: Vec<u64> = a.iter().chain(b).map(|x| x.0).collect();
        keys.sort_unstable();
        keys.dedup();
        let w = |v: &[(u64, f64)], k: u64| v.iter().find(|x| x.0 == k).map_or(0.0, |x| x.1);
        let (mut lo, mut hi) = (0.0, 0.0);
        for k in keys {
            let (x, y) = (w(a, k), w(b, k));
            lo += x.min(y);
            hi += x.max(y);
        }
        lo / hi
    }

    /// A pair of weight lists: `shared` shingles in both with independently perturbed
    /// real weights, and `own` shingles in each alone.
    fn pair(s: &mut u64, shared: usize, own: usize, spread: f64) -> (Weights, Weights) {
        let mut u = || unit(splitmix64(s));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for i in 0..shared as u64 {
            let base = 0.1 + 5.0 * u();
            a.push((fmix64(i + 1), base * (1.0 + spread * u())));
            b.push((fmix64(i + 1), base * (1.0 + spread * u())));
        }
        for i in 0..own as u64 {
            a.push((fmix64(1000 + i), 0.05 + 3.0 * u()));
            b.push((fmix64(2000 + i), 0.05 + 3.0 * u()));
        }
        a.sort_unstable_by_key(|x| x.0);
        b.sort_unstable_by_key(|x| x.0);
        (a, b)
    }

    /// On generated weighted pairs, the fraction of agreeing samples is within 3 standard
    /// errors (binomial) of the exact weighted Jaccard.
    #[test]
    fn agreement_is_the_weighted_jaccard() {
        let mut s = 17u64;
        let n = 3000;
        let keys = sample_keys(42, n);
        let (mut sa, mut sb) = (Vec::new(), Vec::new());
        for (shared, own, spread) in [(40, 5, 0.3), (30, 30, 1.0), (10, 2, 0.05), (50, 0, 2.0)] {
            let (a, b) = pair(&mut s, shared, own, spread);
            let j = weighted_jaccard(&a, &b);
            sample(&a, &keys, &mut sa);
            sample(&b, &keys, &mut sb);
            let agree = sa.iter().zip(&sb).filter(|(x, y)| x == y).count();
            let p = agree as f64 / n as f64;
            let se = (j * (1.0 - j) / n as f64).sqrt();
            assert!(
                (p - j).abs() < 3.0 * se,
                "shared {shared} own {own}: agreement {p}, weighted Jaccard {j} (se {se})"
            );
        }
    }

    /// Equal weights give equal samples, one per key; no weight, no sample; another seed,
    /// other samples.
    #[test]
    fn consistent_and_deterministic() {
        let mut s = 5u64;
        let keys = sample_keys(7, 64);
        let (a, _) = pair(&mut s, 20, 3, 0.5);
        let (mut x, mut y) = (Vec::new(), Vec::new());
        sample(&a, &keys, &mut x);
        sample(&a.clone(), &keys, &mut y);
        assert_eq!(x, y);
        assert_eq!(x.len(), 64);
        sample(&[], &keys, &mut y);
        assert!(y.is_empty());
        // Another seed gives other samples.
        sample(&a, &sample_keys(8, 64), &mut y);
        assert_ne!(x, y);
    }

    /// The pruning changes no sample: equal to the plain evaluation of every shingle.
    #[test]
    fn pruning_changes_nothing() {
        let mut s = 99u64;
        let keys = sample_keys(3, 256);
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for (shared, own, spread) in [(200, 50, 1.0), (5, 1, 0.1), (1, 0, 0.0), (300, 300, 5.0)] {
            let (a, b) = pair(&mut s, shared, own, spread);
            for v in [&a, &b] {
                sample(v, &keys, &mut x);
                sample_unpruned(v, &keys, &mut y);
                assert_eq!(x, y);
            }
        }
    }
}
