//! The pairs of b-bit images agreeing on at least `k` of `n` positions, without the
//! context of `(position, value)` rows: each such row holds about `1 / 2^b` of the
//! documents, so counting pairs over it ([`crate::context::pair_counts`]) is quadratic.
//!
//! Pigeonhole (as Manku, Jain and Das Sarma's permuted tables): a pair agreeing on at least
//! `k` positions disagrees on at most `n - k`, so among `m = n - k + 1` disjoint blocks of
//! `floor(n / m)` consecutive positions at least one has no disagreement. The candidates
//! are the pairs with an equal block (equal group hashes of the same block index,
//! `lsh::pairs_sharing_groups`); each is then counted exactly
//! ([`super::lsh::filter_pairs`]). No pair reaching `k` is missed, and every pair returned
//! reaches it: the result is the union-find method's `<id, id, count>` phase on the same
//! images.
//!
//! Cost: two unrelated documents share a block by chance with probability about
//! `m 2^(-b floor(n/m))`; [`agreeing_pairs`] refuses a run whose expected chance candidates
//! exceed [`MAX_CHANCE_CANDIDATES`] (a low `k` with few bits), naming the way out.
//!
//! Invariant: the pairs come out sorted by `(a, b)`, whatever the thread count.

use super::lsh::{filter_pairs, image_len, pairs_sharing_groups};
use crate::{DocId, Error, Result};

/// The largest expected number of candidate pairs from chance block agreements.
pub const MAX_CHANCE_CANDIDATES: f64 = 5e7;

/// Seed of the block hashes.
const BLOCK_SEED: u64 = 0x6262_6974_626c_6b73;

/// Blocks `(m, per)` for images of `n` positions and at least `k` agreeing positions
/// (`1 <= k <= n`).
pub fn blocks(n: usize, k: usize) -> (usize, usize) {
    let m = n - k + 1;
    (m, n / m)
}

/// The pairs of `images` (b-bit values, `bits` bits each) agreeing on at least `k`
/// positions, `(a, b, agreeing positions)` sorted by `(a, b)` (see the module docs).
pub fn agreeing_pairs<S: AsRef<[u64]> + Sync>(
    images: &[S],
    k: u32,
    bits: u8,
) -> Result<Vec<(DocId, DocId, u32)>> {
    let n = image_len(images)?;
    let k = k.max(1) as usize;
    if n == 0 || k > n {
        return Ok(Vec::new());
    }
    let (m, per) = blocks(n, k);
    let docs = images.iter().filter(|im| !im.as_ref().is_empty()).count() as f64;
    let chance = docs * (docs - 1.0) / 2.0 * m as f64 * (-(bits as f64) * per as f64).exp2();
    if chance > MAX_CHANCE_CANDIDATES {
        return Err(Error::config(format!(
            "union-find on {bits}-bit images at k = {k} of {n} positions: blocks of {per} \
             positions ({m} of them) would give about {chance:.0} chance candidates for \
             {docs} documents; raise the threshold, --b-bit, or use --method lsh"
        )));
    }
    let cand = pairs_sharing_groups(images, per, m, BLOCK_SEED);
    let mut pairs = filter_pairs(images, &cand, k as u32);
    pairs.sort_unstable();
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sketch::hash::splitmix64;

    /// Against the brute force over all pairs: the same pairs and counts, for every k.
    #[test]
    fn same_pairs_as_brute_force() {
        let mut s = 9u64;
        let (docs, n, bits) = (120usize, 32usize, 2u8);
        // Families of near copies: each document copies its family's image and redraws a
        // random number of positions.
        let mut images: Vec<Vec<u64>> = Vec::new();
        for d in 0..docs {
            if d % 6 == 0 {
                images.push((0..n).map(|_| splitmix64(&mut s) & 3).collect());
            } else {
                let mut v = images[d - d % 6].clone();
                let flips = (splitmix64(&mut s) % 12) as usize;
                for _ in 0..flips {
                    let p = (splitmix64(&mut s) % n as u64) as usize;
                    v[p] = splitmix64(&mut s) & 3;
                }
                images.push(v);
            }
        }
        images.push(Vec::new());
        for k in [20u32, 24, 28, 32] {
            let got = agreeing_pairs(&images, k, bits).unwrap();
            let mut want = Vec::new();
            for a in 0..images.len() {
                for b in a + 1..images.len() {
                    if images[a].is_empty() || images[b].is_empty() {
                        continue;
                    }
                    let c = images[a]
                        .iter()
                        .zip(&images[b])
                        .filter(|(x, y)| x == y)
                        .count();
                    if c >= k as usize {
                        want.push((DocId(a as u32), DocId(b as u32), c as u32));
                    }
                }
            }
            assert!(!want.is_empty());
            assert_eq!(got, want, "k = {k}");
        }
        // A low k with one bit: refused, with the reason.
        let many: Vec<Vec<u64>> = (0..40_000)
            .map(|_| (0..n).map(|_| splitmix64(&mut s) & 1).collect())
            .collect();
        let e = agreeing_pairs(&many, 2, 1).unwrap_err().to_string();
        assert!(e.contains("chance candidates"), "{e}");
    }
}
