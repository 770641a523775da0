//! Seeded, stable mixers used by the sketch schemes. Everything here is plain wrapping
//! 64-bit arithmetic, identical on every machine and version (changing any constant is a
//! format change and needs a new images-file version).

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
