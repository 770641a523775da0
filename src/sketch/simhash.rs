//! Charikar's random-projection fingerprint (SimHash, STOC 2002), the image of
//! [`super::Scheme::SimHash`]: `f` bits (the image size, a multiple of 64) held as `f / 64`
//! little-endian words, word `j` bit `b` being fingerprint bit `64 j + b`.
//!
//! Every distinct shingle `t` of weight `w(t) > 0` votes on every bit: `+w(t)` when bit `i`
//! of its projection is set, `-w(t)` otherwise; fingerprint bit `i` is set when the sum is
//! positive. The projection of `t` is `fmix64(t ^ key_j)` for word `j`, with `key_j` drawn
//! from a SplitMix64 stream of the seed, so each bit is an independent fair coin per shingle
//! (the random hyperplane of Charikar's construction, with +-1 coordinates). For two
//! documents whose weight vectors meet at angle `theta`, each bit differs with probability
//! `theta / pi` ([`bit_differs`]; Goemans and Williamson's lemma); on sets (weight 1) of
//! equal size with resemblance `J`, `cos theta = 2J / (1 + J)` ([`angle_of_resemblance`]).
//!
//! The weights ([`super::weight::weights`]): 1 for every distinct shingle without a
//! weighting, its count with the bag weighting, `count * ln(N / df)` (unrounded) with tf-idf.
//!
//! Invariant: the fingerprint is a function of the shingle multiset, the weighting, the
//! document frequencies and the seed only; without a weighting the sums are exact integer
//! counts, so the bits are the same on every platform (with tf-idf, `ln` may move a bit whose
//! sum is within an ulp of 0).

use super::hash::{fmix64, splitmix64};

const DOMAIN_SIMHASH: u64 = 5;

/// The per-word projection keys of `words` words under `seed`.
pub(crate) fn keys(seed: u64, words: usize) -> Vec<u64> {
    let mut s = seed ^ DOMAIN_SIMHASH.wrapping_mul(0xD6E8_FEB8_6659_FD93);
    (0..words).map(|_| splitmix64(&mut s)).collect()
}

/// `SPREAD[v]` has byte `i` equal to bit `i` of `v`: adding it to a word of eight byte
/// counters counts the set bits of one byte of a projection, eight at a time.
const SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut v = 0;
    while v < 256 {
        let mut i = 0;
        while i < 8 {
            t[v] |= (((v >> i) & 1) as u64) << (8 * i);
            i += 1;
        }
        v += 1;
    }
    t
};

/// The fingerprint of distinct shingles of weight 1 (`set`, any order, no duplicates) under
/// the projection `keys`: one word per key. Counts are integers, so the result is exact.
pub(crate) fn of_set(set: &[u64], keys: &[u64]) -> Vec<u64> {
    let len = set.len() as u32;
    let mut out = Vec::with_capacity(keys.len());
    let mut ones = [0u32; 64];
    for &key in keys {
        ones.fill(0);
        // Byte counters: lane i of packed[j] counts bit 8 j + i; flushed before a lane
        // can pass 255.
        for chunk in set.chunks(255) {
            let mut packed = [0u64; 8];
            for &t in chunk {
                let p = fmix64(t ^ key).to_le_bytes();
                for j in 0..8 {
                    packed[j] += SPREAD[p[j] as usize];
                }
            }
            for (j, w) in packed.iter().enumerate() {
                for (i, c) in w.to_le_bytes().iter().enumerate() {
                    ones[8 * j + i] += u32::from(*c);
                }
            }
        }
        // Bit set when the +1 votes outnumber the -1 votes: 2 * ones > len.
        let mut w = 0u64;
        for (b, &c) in ones.iter().enumerate() {
            w |= u64::from(2 * c > len) << b;
        }
        out.push(w);
    }
    out
}

/// The fingerprint of weighted shingles `(t, w)` (distinct `t`, `w > 0`) under `keys`.
pub(crate) fn of_weighted(weighted: &[(u64, f64)], keys: &[u64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(keys.len());
    let mut sum = [0f64; 64];
    for &key in keys {
        sum.fill(0.0);
        for &(t, wt) in weighted {
            let p = fmix64(t ^ key);
            for (b, s) in sum.iter_mut().enumerate() {
                // +w for a set bit, -w for a clear one.
                *s += if (p >> b) & 1 == 1 { wt } else { -wt };
            }
        }
        let mut w = 0u64;
        for (b, &s) in sum.iter().enumerate() {
            w |= u64::from(s > 0.0) << b;
        }
        out.push(w);
    }
    out
}

/// Bits in which two fingerprints of the same width differ.
#[inline]
pub fn hamming(a: &[u64], b: &[u64]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
}

/// The probability that one fingerprint bit differs for weight vectors at angle `theta`
/// (radians in `[0, pi]`): `theta / pi`.
pub fn bit_differs(theta: f64) -> f64 {
    (theta / std::f64::consts::PI).clamp(0.0, 1.0)
}

/// The angle between the 0/1 vectors of two sets of equal size with resemblance `j`:
/// `acos(2j / (1 + j))` (the cosine `|A n B| / sqrt(|A| |B|)` with `|A| = |B|` and
/// `|A n B| = 2j |A| / (1 + j)`).
pub fn angle_of_resemblance(j: f64) -> f64 {
    let j = j.clamp(0.0, 1.0);
    (2.0 * j / (1.0 + j)).clamp(-1.0, 1.0).acos()
}

/// The resemblance of equal-size sets whose vectors meet at `theta` (the inverse of
/// [`angle_of_resemblance`]): with `c = cos theta`, `J = c / (2 - c)`.
pub fn resemblance_of_angle(theta: f64) -> f64 {
    let c = theta.cos().clamp(0.0, 1.0);
    c / (2.0 - c)
}

/// The resemblance a Hamming distance `d` of `f`-bit fingerprints estimates: the angle
/// `pi d / f` mapped through [`resemblance_of_angle`].
pub fn estimate_resemblance(d: u32, f: u32) -> f64 {
    if f == 0 {
        return 0.0;
    }
    resemblance_of_angle(std::f64::consts::PI * f64::from(d) / f64::from(f))
}

/// The Hamming threshold `h` a resemblance threshold `t` implies on `f`-bit fingerprints:
/// the expected distance of a pair at `t`, `floor(f * theta(t) / pi)`.
pub fn hamming_for_resemblance(t: f64, f: u32) -> u32 {
    (f64::from(f) * bit_differs(angle_of_resemblance(t)) + 1e-9).floor() as u32
}

/// The probability that two `f`-bit fingerprints whose bits differ independently with
/// probability `p` differ in at most `h` bits (the binomial distribution function).
pub fn within(h: u32, f: u32, p: f64) -> f64 {
    if h >= f {
        return 1.0;
    }
    let p = p.clamp(0.0, 1.0);
    if p == 0.0 {
        return 1.0;
    }
    if p == 1.0 {
        return 0.0;
    }
    // Sum the terms in log space (f up to thousands of bits).
    let (lp, lq) = (p.ln(), (1.0 - p).ln());
    let mut log_c = 0.0f64; // ln C(f, 0)
    let mut total = 0.0;
    for i in 0..=h {
        if i > 0 {
            log_c += f64::from(f - i + 1).ln() - f64::from(i).ln();
        }
        total += (log_c + f64::from(i) * lp + f64::from(f - i) * lq).exp();
    }
    total.min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute_bit(set: &[(u64, f64)], key: u64, b: u32) -> bool {
        let s: f64 = set
            .iter()
            .map(|&(t, w)| {
                if (fmix64(t ^ key) >> b) & 1 == 1 {
                    w
                } else {
                    -w
                }
            })
            .sum();
        s > 0.0
    }

    #[test]
    fn set_and_weighted_agree_with_the_definition() {
        let set: Vec<u64> = (0..37u64).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
        let k = keys(7, 2);
        let a = of_set(&set, &k);
        let ones: Vec<(u64, f64)> = set.iter().map(|&t| (t, 1.0)).collect();
        assert_eq!(a, of_weighted(&ones, &k));
        for (j, &key) in k.iter().enumerate() {
            for b in 0..64 {
                assert_eq!((a[j] >> b) & 1 == 1, brute_bit(&ones, key, b));
            }
        }
    }

    #[test]
    fn mapping_round_trips() {
        for &j in &[0.0, 0.3, 0.5, 0.8, 0.95, 1.0] {
            let back = resemblance_of_angle(angle_of_resemblance(j));
            assert!((back - j).abs() < 1e-12, "{j} -> {back}");
        }
        // At t = 0.8 on 64 bits: theta = acos(16/18) = 0.4759, 64 * 0.4759 / pi = 9.70.
        assert_eq!(hamming_for_resemblance(0.8, 64), 9);
        assert_eq!(hamming_for_resemblance(1.0, 64), 0);
    }

    /// The fraction of differing bits over many pairs of random sets of known sizes and
    /// intersection stays within 3 standard errors of `theta / pi`, the angle from the
    /// sizes (sets of a few hundred shingles, as documents have).
    #[test]
    fn differing_bits_follow_the_angle() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for &(a, b, c) in &[
            (300usize, 300usize, 240usize),
            (200, 400, 150),
            (250, 250, 100),
            (500, 450, 430),
        ] {
            let pairs = 400;
            let (mut differ, mut bits) = (0u64, 0u64);
            for p in 0..pairs {
                let k = keys(p as u64 ^ 0xABCD, 1);
                let common: Vec<u64> = (0..c).map(|_| rng.gen()).collect();
                let mut x = common.clone();
                x.extend((c..a).map(|_| rng.gen::<u64>()));
                let mut y = common;
                y.extend((c..b).map(|_| rng.gen::<u64>()));
                differ += u64::from(hamming(&of_set(&x, &k), &of_set(&y, &k)));
                bits += 64;
            }
            let cos = c as f64 / ((a * b) as f64).sqrt();
            let p = bit_differs(cos.acos());
            let got = differ as f64 / bits as f64;
            // Each bit is its own projection: independent draws of probability p.
            let se = (p * (1.0 - p) / bits as f64).sqrt();
            assert!(
                (got - p).abs() <= 3.0 * se,
                "a={a} b={b} c={c}: {got} vs {p} (se {se})"
            );
        }
    }

    #[test]
    fn within_is_the_binomial_cdf() {
        // f = 4, p = 1/2: P(d <= 1) = (1 + 4) / 16.
        assert!((within(1, 4, 0.5) - 5.0 / 16.0).abs() < 1e-12);
        assert_eq!(within(4, 4, 0.3), 1.0);
        let direct: f64 = (0..=3u32)
            .map(|i| {
                let c = (0..i).fold(1.0, |c, k| c * f64::from(64 - k) / f64::from(k + 1));
                c * 0.1f64.powi(i as i32) * 0.9f64.powi(64 - i as i32)
            })
            .sum();
        assert!((within(3, 64, 0.1) - direct).abs() < 1e-12);
    }
}
