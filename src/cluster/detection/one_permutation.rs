//! Which positions two one-permutation images agree on, by simulation ([`Simulations`]).
//!
//! One-permutation hashing puts each element in the bin of its hash value and keeps the
//! bin's minimum; empty bins are filled by densification ([`crate::sketch`]). Two images
//! agree at a bin both fill when the smallest value of the union in it is a common element,
//! so each bin agrees with probability about the resemblance `s`; but the bins share one
//! permutation, so their agreements are not independent (they are drawn without
//! replacement from the union's elements), and a densified bin agrees only when both images
//! copied it from the same bin. The number of agreeing bins is therefore more concentrated
//! than `Binomial(n, s)` and depends on the set sizes; no closed law is used: for a pair of
//! sets of `a` and `b` elements with `c` in common, [`TRIALS`] pairs of images are made from
//! independent uniform hash values (binned and densified as the sketcher does, with the
//! densification's probe key drawn afresh for each trial), and a rule's probability is the
//! fraction of trials that satisfy it, with the variance of that fraction
//! (`p̃ (1 - p̃) / TRIALS`, `p̃ = (hits + 1/2) / (TRIALS + 1)`, never 0).
//!
//! Invariants: a pair's simulated agreements are a deterministic function of `(a, b, c, n)`
//! (the random stream is seeded by them), so equal sizes give equal patterns whatever the
//! order, thread count or run; one simulation serves every rule and threshold on `n`-bin
//! images (its `TRIALS * ceil(n / 64)` words are kept).

use rayon::prelude::*;

use super::{PairSets, Probability};
use crate::sketch::hash::{fmix64, reduce, splitmix64};

/// Simulated pairs of images per pair of set sizes.
pub const TRIALS: usize = 256;

/// The agreement patterns of [`TRIALS`] simulated pairs of one-permutation images, by the
/// pair's set sizes and the image size.
#[derive(Debug, Default)]
pub struct Simulations {
    patterns: hashbrown::HashMap<(PairSets, u32), Vec<u64>>,
}

/// Positions `0..n` of an agreement pattern that agree.
pub(crate) fn agreeing(bits: &[u64]) -> u32 {
    bits.iter().map(|w| w.count_ones()).sum()
}

/// Groups `j < count` of `per` consecutive positions `j*per .. (j+1)*per` that agree on all
/// their positions.
pub(crate) fn full_groups(bits: &[u64], per: u32, count: u32) -> u32 {
    let bit = |i: usize| bits[i / 64] >> (i % 64) & 1 == 1;
    let per = per as usize;
    let n = bits.len() * 64;
    (0..count as usize)
        .filter(|&j| (j + 1) * per <= n && (j * per..(j + 1) * per).all(bit))
        .count() as u32
}

impl Simulations {
    /// Makes the simulations of `n`-bin images that `pairs` still lack (in parallel).
    pub(crate) fn simulate(&mut self, pairs: &[PairSets], n: u32) {
        let mut missing: Vec<PairSets> = pairs
            .iter()
            .filter(|p| !self.patterns.contains_key(&(**p, n)))
            .copied()
            .collect();
        missing.sort_unstable();
        missing.dedup();
        let made: Vec<(PairSets, Vec<u64>)> = missing
            .into_par_iter()
            .map(|p| (p, simulate(p, n as usize, TRIALS)))
            .collect();
        for (p, bits) in made {
            self.patterns.insert((p, n), bits);
        }
    }

    /// The fraction of the simulated trials of `pair` on `n`-bin images whose agreement
    /// pattern satisfies `rule`, with its variance (see the module docs). The simulation
    /// must have been made.
    pub(crate) fn fraction(
        &self,
        pair: &PairSets,
        n: u32,
        rule: impl Fn(&[u64]) -> bool,
    ) -> Probability {
        let bits = &self.patterns[&(*pair, n)];
        let words = (n as usize).div_ceil(64);
        let hits = bits.chunks_exact(words).filter(|t| rule(t)).count();
        let t = TRIALS as f64;
        let smoothed = (hits as f64 + 0.5) / (t + 1.0);
        Probability {
            p: hits as f64 / t,
            variance: smoothed * (1.0 - smoothed) / t,
        }
    }
}

/// The agreement patterns of `trials` simulated pairs of `n`-bin one-permutation images of
/// sets of `a` and `b` elements with `c` in common: `ceil(n / 64)` words per trial, bit `i`
/// set when bin `i` agrees.
fn simulate(pair: PairSets, n: usize, trials: usize) -> Vec<u64> {
    let PairSets { a, b, common: c } = pair;
    let words = n.div_ceil(64);
    let mut out = vec![0u64; trials * words];
    if a == 0 || b == 0 || n == 0 {
        return out;
    }
    let mut state = fmix64(a ^ fmix64(b ^ fmix64(c ^ fmix64(n as u64 ^ 0x0e9_1d05))));
    let (mut bins_a, mut bins_b) = (vec![u64::MAX; n], vec![u64::MAX; n]);
    let (mut filled_a, mut filled_b) = (vec![false; n], vec![false; n]);
    for t in 0..trials {
        bins_a.fill(u64::MAX);
        bins_b.fill(u64::MAX);
        filled_a.fill(false);
        filled_b.fill(false);
        let put = |bins: &mut [u64], filled: &mut [bool], v: u64| {
            let j = reduce(v, n).min(n - 1);
            bins[j] = bins[j].min(v);
            filled[j] = true;
        };
        for _ in 0..c {
            let v = splitmix64(&mut state);
            put(&mut bins_a, &mut filled_a, v);
            put(&mut bins_b, &mut filled_b, v);
        }
        for _ in c..a {
            put(&mut bins_a, &mut filled_a, splitmix64(&mut state));
        }
        for _ in c..b {
            put(&mut bins_b, &mut filled_b, splitmix64(&mut state));
        }
        let key = splitmix64(&mut state);
        crate::sketch::densify(&mut bins_a, &filled_a, key);
        crate::sketch::densify(&mut bins_b, &filled_b, key);
        let row = &mut out[t * words..(t + 1) * words];
        for i in 0..n {
            if bins_a[i] == bins_b[i] {
                row[i / 64] |= 1 << (i % 64);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shingle::ShingleConfig;
    use crate::sketch::{Scheme, SketchConfig, Sketcher};
    use rand::SeedableRng;

    /// Agreeing positions of the crate's one-permutation images of random sets of the given
    /// sizes, one count per trial (each trial with its own sketch seed).
    fn sketched(pair: PairSets, n: usize, trials: usize) -> Vec<u32> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        (0..trials)
            .map(|t| {
                let sk = Sketcher::new(
                    ShingleConfig::default(),
                    SketchConfig {
                        scheme: Scheme::OnePermutation,
                        size: n,
                        seed: t as u64,
                        ..SketchConfig::default()
                    },
                )
                .unwrap();
                let (a, b, c) = (pair.a as usize, pair.b as usize, pair.common as usize);
                let (mut x, mut y) = crate::cluster::detection::random_pair(&mut rng, a, b, c);
                let (ix, iy) = (sk.sketch_hashes(&mut x), sk.sketch_hashes(&mut y));
                ix.values()
                    .iter()
                    .zip(iy.values())
                    .filter(|(p, q)| p == q)
                    .count() as u32
            })
            .collect()
    }

    #[test]
    fn the_simulation_matches_the_sketcher() {
        let n = 64;
        for pair in [
            PairSets::new(100, 100, 70).unwrap(),
            PairSets::new(40, 55, 30).unwrap(),
            PairSets::new(300, 200, 180).unwrap(),
        ] {
            let mut sims = Simulations::default();
            sims.simulate(&[pair], n as u32);
            let real = sketched(pair, n, 2000);
            // P(>= k agree) at three k around the mean, against the sketcher's fraction:
            // both are fractions of independent trials.
            let mean = real.iter().sum::<u32>() as f64 / real.len() as f64;
            for k in [mean as u32 - 3, mean as u32, mean as u32 + 3] {
                let sim = sims.fraction(&pair, n as u32, |bits| agreeing(bits) >= k);
                let got = real.iter().filter(|&&x| x >= k).count() as f64 / real.len() as f64;
                let se = (sim.p * (1.0 - sim.p) / real.len() as f64 + sim.variance).sqrt();
                assert!(
                    (got - sim.p).abs() <= 4.0 * se + 0.01,
                    "{pair:?} k={k}: sketcher {got}, simulation {} (s.e. {se:.4})",
                    sim.p
                );
            }
            // each bin agrees with probability s, but the bins are not independent: with
            // few empty bins (a union of at least 2n elements) the count is more
            // concentrated than Binomial(n, s), its variance well below n s (1 - s)
            let s = pair.resemblance();
            let var = real.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>()
                / (real.len() - 1) as f64;
            assert!((mean - n as f64 * s).abs() < 1.0, "{pair:?}: mean {mean}");
            if pair.a + pair.b - pair.common >= 2 * n as u64 {
                assert!(
                    var < 0.85 * n as f64 * s * (1.0 - s),
                    "{pair:?}: variance {var}"
                );
            }
        }
    }

    #[test]
    fn groups_and_counts_of_a_pattern() {
        // positions 0-3 and 8-11 agree, and position 70
        let bits = [0b1111_0000_1111u64, 1 << 6];
        assert_eq!(agreeing(&bits), 9);
        assert_eq!(full_groups(&bits, 4, 3), 2);
        assert_eq!(full_groups(&bits, 4, 1), 1);
        assert_eq!(full_groups(&bits, 2, 8), 4);
        // a simulation is a function of the sizes: the same patterns twice
        let p = PairSets::new(50, 60, 40).unwrap();
        assert_eq!(simulate(p, 128, 8), simulate(p, 128, 8));
        assert!(simulate(PairSets::new(0, 5, 0).unwrap(), 16, 4)
            .iter()
            .all(|&w| w == 0));
    }
}
