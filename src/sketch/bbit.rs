//! b-bit minwise hashing (Li and Koenig, WWW 2010): a positional image keeps `b` bits of each
//! value, so it is `b / 64` of the size, and the resemblance is estimated with the correction
//! for chance agreement.
//!
//! The `b` bits of value `v` are the low bits of `fmix64(v ^ key)` (a bijection of `v` keyed
//! by the seed, [`key`]): equal values give equal bits, and two different values (the minima
//! of different shingles) agree on `b` bits with probability `C = 2^-b`, whatever the low bits
//! of the permutation are worth (the low bits of a k-mins minimum `a x + b` alone are not
//! uniform). Two positions therefore agree with probability `P = J + (1 - J) C`, the sparse
//! case of Li and Koenig (their `C1 = C2 = 2^-b` when both sets are small against the
//! universe), and `R = (P - C) / (1 - C)` is unbiased for `J` ([`estimate`]).
//!
//! In the images file a b-bit image is `ceil(n b / 8)` bytes: value `i` is bits
//! `i b .. (i + 1) b` of the little-endian bit string ([`pack`], [`unpack`]; `b` divides 8, so
//! a value never straddles two bytes).
//!
//! Invariants: `b` is one of [`BITS`] and only positional schemes take it ([`validate`]); a
//! reduced value is below `2^b`; [`unpack`] reads exactly what [`pack`] wrote.

use super::hash::{fmix64, splitmix64};
use super::Scheme;
use crate::{Error, Result};

/// The accepted numbers of bits.
pub const BITS: [u8; 4] = [1, 2, 4, 8];

const DOMAIN_BBIT: u64 = 5;

/// Refuses `bits` outside [`BITS`] and b-bit images of a sorted scheme (bottom-k, mod-m),
/// whose values are compared as sets, not position by position.
pub fn validate(bits: Option<u8>, scheme: Scheme) -> Result<()> {
    let Some(b) = bits else { return Ok(()) };
    if !BITS.contains(&b) {
        return Err(Error::config(format!(
            "--b-bit takes 1, 2, 4 or 8 bits, not {b}"
        )));
    }
    if !scheme.is_positional() {
        return Err(Error::config(format!(
            "--b-bit keeps b bits of each position of a positional image: it takes \
             --scheme k-mins, one-permutation or icws, not {scheme}"
        )));
    }
    Ok(())
}

/// The key of the bit reduction for sketch seed `seed`.
pub fn key(seed: u64) -> u64 {
    let mut s = seed ^ DOMAIN_BBIT.wrapping_mul(0xD6E8_FEB8_6659_FD93);
    splitmix64(&mut s)
}

/// Replaces every value by its `bits` low bits after the keyed mix (see the module docs).
pub fn reduce(values: &mut [u64], bits: u8, key: u64) {
    let mask = mask(bits);
    for v in values {
        *v = fmix64(*v ^ key) & mask;
    }
}

fn mask(bits: u8) -> u64 {
    (1u64 << bits) - 1
}

/// `C = 2^-b`: the probability that the `b` bits of two different values agree.
pub fn chance(bits: u8) -> f64 {
    (-f64::from(bits)).exp2()
}

/// Probability that one position of two b-bit images agrees for resemblance `s`:
/// `C + (1 - C) s`.
pub fn agreement(s: f64, bits: u8) -> f64 {
    let c = chance(bits);
    c + (1.0 - c) * s.clamp(0.0, 1.0)
}

/// The unbiased resemblance estimate from `agree` agreeing positions of `n`:
/// `(P - C) / (1 - C)` with `P = agree / n`, clamped to `[0, 1]` (0 when `n` is 0).
pub fn estimate(agree: usize, n: usize, bits: u8) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let c = chance(bits);
    let p = agree as f64 / n as f64;
    ((p - c) / (1.0 - c)).clamp(0.0, 1.0)
}

/// Bytes of a packed image of `n` values of `bits` bits.
pub fn packed_len(n: usize, bits: u8) -> usize {
    (n * usize::from(bits)).div_ceil(8)
}

/// Appends the `values` (each below `2^bits`) packed `bits` to a value.
pub fn pack(values: &[u64], bits: u8, out: &mut Vec<u8>) {
    let per = usize::from(8 / bits);
    for chunk in values.chunks(per) {
        let mut byte = 0u8;
        for (j, &v) in chunk.iter().enumerate() {
            byte |= ((v & mask(bits)) as u8) << (j * usize::from(bits));
        }
        out.push(byte);
    }
}

/// The `n` values of `bits` bits packed in `bytes` (which holds [`packed_len`] bytes); `None`
/// when the bits past the last value are not zero (a record [`pack`] did not write).
pub fn unpack(bytes: &[u8], n: usize, bits: u8) -> Option<Vec<u64>> {
    let per = usize::from(8 / bits);
    let mut out = Vec::with_capacity(n);
    for (i, &byte) in bytes.iter().enumerate() {
        let here = per.min(n - (i * per).min(n));
        for j in 0..here {
            out.push(u64::from(byte >> (j * usize::from(bits))) & mask(bits));
        }
        if here < per && byte >> (here * usize::from(bits)) != 0 {
            return None;
        }
    }
    (out.len() == n).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_round_trip_and_size() {
        let mut s = 3u64;
        for bits in BITS {
            for n in [1usize, 7, 8, 9, 128, 131] {
                let mut v: Vec<u64> = (0..n).map(|_| splitmix64(&mut s)).collect();
                reduce(&mut v, bits, key(9));
                assert!(v.iter().all(|&x| x < 1 << bits));
                let mut out = Vec::new();
                pack(&v, bits, &mut out);
                assert_eq!(out.len(), packed_len(n, bits));
                // The fewest whole bytes holding n * bits bits.
                assert!(out.len() * 8 >= n * bits as usize);
                assert!((out.len() - 1) * 8 < n * bits as usize);
                assert_eq!(unpack(&out, n, bits), Some(v));
            }
        }
        // A stray bit past the last value is refused.
        assert_eq!(unpack(&[0b0100], 1, 2), None);
        assert_eq!(unpack(&[0b0111], 1, 2), None);
        assert_eq!(unpack(&[0b0011], 1, 2), Some(vec![3]));
    }

    #[test]
    fn options_are_checked() {
        assert!(validate(Some(2), Scheme::KMins).is_ok());
        assert!(validate(None, Scheme::BottomK).is_ok());
        let e = validate(Some(3), Scheme::KMins).unwrap_err().to_string();
        assert!(e.contains("--b-bit") && e.contains("1, 2, 4 or 8"), "{e}");
        let e = validate(Some(2), Scheme::BottomK).unwrap_err().to_string();
        assert!(e.contains("--b-bit") && e.contains("bottom-k"), "{e}");
    }

    /// Different values agree on their b bits with probability 2^-b (binomial, 3 standard
    /// errors), and the estimator inverts the agreement model.
    #[test]
    fn chance_agreement_matches_theory() {
        let mut s = 11u64;
        let trials = 200_000usize;
        for bits in BITS {
            let k = key(1);
            let mut agree = 0usize;
            for _ in 0..trials {
                let mut v = [splitmix64(&mut s), splitmix64(&mut s)];
                reduce(&mut v, bits, k);
                agree += usize::from(v[0] == v[1]);
            }
            let c = chance(bits);
            let se = (c * (1.0 - c) / trials as f64).sqrt();
            let p = agree as f64 / trials as f64;
            assert!((p - c).abs() < 3.0 * se, "b={bits}: {p} vs {c}");
            for j in [0.0, 0.3, 0.8, 1.0] {
                let n = 1_000_000usize;
                let a = (agreement(j, bits) * n as f64).round() as usize;
                assert!((estimate(a, n, bits) - j).abs() < 1e-5);
            }
        }
    }
}
