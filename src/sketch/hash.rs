//! Seeded, stable mixers used by the sketch schemes, and the one hash of a group of image
//! values ([`group_hashes`]: super shingles, LSH bands). Everything here is plain wrapping
//! 64-bit arithmetic or xxh3 with an explicit seed, identical on every machine and version
//! (changing any constant is a format change and needs a new images-file version).

pub use crate::shingle::fmix64;

/// SplitMix64 step: advances `state` and returns the next output (Steele, Lea, Flood 2014).
#[inline]
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A seeded random permutation of `u64`: `x -> fmix64(x ^ k0) + k1` (each step a bijection).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Permutation {
    k0: u64,
    k1: u64,
}

impl Permutation {
    /// The permutation of `seed`, derived with a SplitMix64 stream under the given `domain`
    /// tag (so different uses of one seed give unrelated permutations).
    pub fn new(seed: u64, domain: u64) -> Self {
        let mut s = seed ^ domain.wrapping_mul(0xD6E8_FEB8_6659_FD93);
        let k0 = splitmix64(&mut s);
        let k1 = splitmix64(&mut s);
        Permutation { k0, k1 }
    }

    /// Applies the permutation.
    #[inline]
    pub fn apply(&self, x: u64) -> u64 {
        fmix64(x ^ self.k0).wrapping_add(self.k1)
    }
}

/// `floor(x * n / 2^64)`: maps a uniform `u64` to `0..n` (Lemire's multiply-shift range
/// reduction; monotone in `x`).
#[inline]
pub fn reduce(x: u64, n: usize) -> usize {
    ((x as u128 * n as u128) >> 64) as usize
}

/// Per-position key salt used to make positional image elements distinct across positions.
#[inline]
pub fn position_salt(pos: usize) -> u64 {
    fmix64((pos as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5851_F42D_4C95_7F2D)
}

/// A fast exact test "`m` divides `x`" without a division (Granlund & Montgomery 1994):
/// with `m = 2^s * d`, `d` odd, `m | x` iff `x` has at least `s` trailing zeros and
/// `(x >> s) * d^-1 mod 2^64 <= (2^64 - 1) / d`.
#[derive(Clone, Copy, Debug)]
pub struct Divisor {
    shift: u32,
    inv: u64,
    limit: u64,
}

impl Divisor {
    /// The test for `m >= 1`.
    pub fn new(m: u64) -> Self {
        let m = m.max(1);
        let shift = m.trailing_zeros();
        let d = m >> shift;
        // Newton iteration for the inverse of an odd d modulo 2^64 (each step doubles the
        // correct low bits; d * d == 1 mod 8 gives 3 to start).
        let mut inv = d;
        for _ in 0..5 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(d.wrapping_mul(inv)));
        }
        Divisor {
            shift,
            inv,
            limit: u64::MAX / d,
        }
    }

    /// True when `m` divides `x`.
    #[inline]
    pub fn divides(&self, x: u64) -> bool {
        let low = (1u64 << self.shift) - 1;
        x & low == 0 && (x >> self.shift).wrapping_mul(self.inv) <= self.limit
    }
}

/// The hashes of groups of an image's values, in image order: super shingles (B97 5.3) and
/// LSH bands (H00) are both these.
/// * `positional` (k-mins images): group `j < count` is the `per` consecutive positions
///   `j*per .. (j+1)*per` (only full groups), hashed as `xxh3_64_with_seed(j ++ values,
///   seed)` over little-endian `u64`s, so group `j` only matches group `j` (an LSH band of
///   `per` rows);
/// * sorted images ("shingling the shingles"): the windows of `per` consecutive values
///   starting at `0, 1, .., count - 1` (those that fit), hashed as
///   `xxh3_64_with_seed(values, seed)`.
///
/// An image shorter than `per`, or `per == 0`, has none.
pub fn group_hashes(
    values: &[u64],
    positional: bool,
    per: usize,
    count: usize,
    seed: u64,
) -> Vec<u64> {
    use xxhash_rust::xxh3::xxh3_64_with_seed;
    if per == 0 || values.len() < per {
        return Vec::new();
    }
    let mut buf = Vec::with_capacity(8 * (per + 1));
    let mut hash = |index: Option<u64>, group: &[u64]| {
        buf.clear();
        if let Some(j) = index {
            buf.extend_from_slice(&j.to_le_bytes());
        }
        for v in group {
            buf.extend_from_slice(&v.to_le_bytes());
        }
        xxh3_64_with_seed(&buf, seed)
    };
    if positional {
        values
            .chunks_exact(per)
            .take(count)
            .enumerate()
            .map(|(j, g)| hash(Some(j as u64), g))
            .collect()
    } else {
        values
            .windows(per)
            .take(count)
            .map(|w| hash(None, w))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divisor_matches_remainder() {
        let mut s = 1u64;
        for m in (1..200u64).chain([1 << 20, 3 << 40, 25, 1000, u64::MAX, u64::MAX - 1, 1 << 63]) {
            let d = Divisor::new(m);
            for k in 0..300u64 {
                let r = splitmix64(&mut s);
                for x in [r, r - r % m, k, k.wrapping_mul(m), u64::MAX, 0] {
                    assert_eq!(d.divides(x), x % m == 0, "m {m} x {x}");
                }
            }
        }
    }
}
