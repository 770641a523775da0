//! Shingles: w-grams of canonical tokens (words or characters) with a length and an offset
//! (the distance between the starts of two consecutive shingles, IK09), hashed to 64 bits
//! with a seeded, stable hash; plus the exact resemblance and containment of full shingle
//! sets (B97, the seminar report S).
//!
//! # Which shingles
//! For a document of `t` tokens, shingle `j` covers tokens `s .. s + len` with start
//! `s = j * offset`, for every `s` with `s + len <= t`. A document with fewer than `len`
//! tokens (in particular an empty one) has **no** shingle; the sketch stage gives it the
//! empty image, which shares nothing with any image (such documents are kept, counted in the
//! stage's report and given an empty image). Identical and lexically-equivalent documents
//! are nonetheless duplicates of each other at any length: they are collapsed before
//! clustering, and exact verification passes them ([`crate::cluster::verify`]).
//!
//! # The hash (stable across versions and machines)
//! 1. Each token is hashed with `xxh3_64_with_seed(token_utf8_bytes, seed)` (xxhash-rust,
//!    XXH3 64-bit, a fixed published algorithm).
//! 2. The `len` token hashes `t_0 .. t_{len-1}` of a shingle are combined as the polynomial
//!    `H = sum_k t_k * B^(len-1-k)` in wrapping 64-bit arithmetic with the odd constant
//!    [`ROLL_BASE`]; it is computed as a rolling (Rabin-Karp style) hash, two multiplications
//!    per token whatever the length.
//! 3. The shingle hash is `fmix64(H ^ len)` (the MurmurHash3 64-bit finalizer, a bijection)
//!    so that its bits are well mixed.
//!
//! Two distinct shingles of the same length collide with probability about `2^-56` at most
//! (the polynomial loses a few low bits when tokens are swapped, `B^d - 1` being even).
//!
//! Invariant: [`shingle_set`] is sorted ascending without duplicates (the set F(D)).

use crate::sorted::intersection_size;
use crate::text::Canonical;
use crate::{Error, Result};
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Multiplier of the rolling polynomial hash (odd, so its powers are invertible mod 2^64).
pub const ROLL_BASE: u64 = 0x9E37_79B9_7F4A_7C15 | 1;

/// Largest accepted shingle length.
pub const MAX_SHINGLE_LEN: usize = 1 << 16;

/// The default shingle length of a unit: 5 words (IK09, B97) or 9 characters.
pub fn default_len(unit: crate::text::Unit) -> usize {
    match unit {
        crate::text::Unit::Word => 5,
        crate::text::Unit::Char => 9,
    }
}

/// How shingles are cut and hashed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ShingleConfig {
    /// Tokens per shingle (`w`); default [`default_len`] of words, 5.
    pub len: usize,
    /// Distance between the starts of two consecutive shingles; default 1 (all shingles).
    pub offset: usize,
    /// Seed of the token hash.
    pub seed: u64,
}

impl Default for ShingleConfig {
    fn default() -> Self {
        ShingleConfig {
            len: default_len(crate::text::Unit::Word),
            offset: 1,
            seed: 0,
        }
    }
}

impl ShingleConfig {
    /// A validated configuration.
    pub fn new(len: usize, offset: usize, seed: u64) -> Result<Self> {
        let c = ShingleConfig { len, offset, seed };
        c.validate()?;
        Ok(c)
    }

    /// Checks `1 <= len <= MAX_SHINGLE_LEN` and `offset >= 1`.
    pub fn validate(&self) -> Result<()> {
        if self.len == 0 || self.len > MAX_SHINGLE_LEN {
            return Err(Error::config(format!(
                "shingle length must be in 1..={MAX_SHINGLE_LEN}, got {}",
                self.len
            )));
        }
        if self.offset == 0 || self.offset > u32::MAX as usize {
            return Err(Error::config(format!(
                "shingle offset must be in 1..={}, got {}",
                u32::MAX,
                self.offset
            )));
        }
        Ok(())
    }

    /// Number of shingles of a document with `ntokens` tokens.
    pub fn count(&self, ntokens: usize) -> usize {
        if ntokens < self.len {
            0
        } else {
            (ntokens - self.len) / self.offset + 1
        }
    }
}

/// MurmurHash3's 64-bit finalizer: a bijection of `u64` with good avalanche.
#[inline]
pub fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^= k >> 33;
    k
}

/// Hash of one token (step 1 of the module's hash).
#[inline]
pub fn token_hash(token: &str, seed: u64) -> u64 {
    xxh3_64_with_seed(token.as_bytes(), seed)
}

/// Shingle hashes from a sequence of token hashes (steps 2-3), appended to `out` in
/// document order (one per shingle, duplicates kept).
pub fn shingle_hashes_from_tokens(token_hashes: &[u64], cfg: &ShingleConfig, out: &mut Vec<u64>) {
    let n = token_hashes.len();
    let w = cfg.len;
    if w == 0 || cfg.offset == 0 || n < w {
        return;
    }
    out.reserve(cfg.count(n));
    let tag = w as u64;
    // B^(w-1), the weight of the token leaving the window.
    let mut top = 1u64;
    for _ in 1..w {
        top = top.wrapping_mul(ROLL_BASE);
    }
    let mut h = 0u64;
    for &t in &token_hashes[..w] {
        h = h.wrapping_mul(ROLL_BASE).wrapping_add(t);
    }
    out.push(fmix64(h ^ tag));
    let off = cfg.offset;
    if off >= w {
        // Windows do not overlap: hash each directly.
        let mut s = off;
        while s + w <= n {
            let mut h = 0u64;
            for &t in &token_hashes[s..s + w] {
                h = h.wrapping_mul(ROLL_BASE).wrapping_add(t);
            }
            out.push(fmix64(h ^ tag));
            s += off;
        }
        return;
    }
    let mut since = 0usize;
    for s in 1..=n - w {
        h = h
            .wrapping_sub(token_hashes[s - 1].wrapping_mul(top))
            .wrapping_mul(ROLL_BASE)
            .wrapping_add(token_hashes[s + w - 1]);
        since += 1;
        if since == off {
            since = 0;
            out.push(fmix64(h ^ tag));
        }
    }
}

/// Appends to `out` one 64-bit hash per shingle of `doc`, in document order (duplicates
/// kept: this is the multiset of shingles). Documents with fewer than `cfg.len` tokens give
/// nothing. `cfg` is assumed valid (see [`ShingleConfig::validate`]).
pub fn shingle_hashes(doc: &Canonical, cfg: &ShingleConfig, out: &mut Vec<u64>) {
    let mut toks = Vec::with_capacity(doc.len());
    shingle_hashes_scratch(doc, cfg, out, &mut toks);
}

/// As [`shingle_hashes`], reusing `token_scratch` for the token hashes.
pub fn shingle_hashes_scratch(
    doc: &Canonical,
    cfg: &ShingleConfig,
    out: &mut Vec<u64>,
    token_scratch: &mut Vec<u64>,
) {
    if doc.len() < cfg.len {
        return;
    }
    token_scratch.clear();
    token_scratch.extend(doc.iter().map(|t| token_hash(t, cfg.seed)));
    shingle_hashes_from_tokens(token_scratch, cfg, out);
}

/// The shingle set F(D): the shingle hashes of `doc`, sorted ascending, duplicates removed.
pub fn shingle_set(doc: &Canonical, cfg: &ShingleConfig) -> Vec<u64> {
    let mut v = Vec::new();
    shingle_hashes(doc, cfg, &mut v);
    v.sort_unstable();
    v.dedup();
    v
}

/// Exact resemblance (Jaccard) `|A n B| / |A u B|` of two ascending duplicate-free sets.
/// Two empty sets have resemblance 0 (an empty document resembles nothing).
pub fn resemblance(a: &[u64], b: &[u64]) -> f64 {
    let i = intersection_size(a, b);
    let u = a.len() + b.len() - i;
    if u == 0 {
        0.0
    } else {
        i as f64 / u as f64
    }
}

/// Exact containment of A in B, `|A n B| / |A|`, of two ascending duplicate-free sets;
/// 0 when A is empty.
pub fn containment(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() {
        0.0
    } else {
        intersection_size(a, b) as f64 / a.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(s: &str) -> Canonical {
        let mut tokens = Vec::new();
        let mut pos = 0u32;
        for w in s.split(' ') {
            tokens.push(pos..pos + w.len() as u32);
            pos += w.len() as u32 + 1;
        }
        Canonical {
            text: s.to_string(),
            tokens,
        }
    }

    /// Independent reference: hash every window from scratch.
    fn direct(doc: &Canonical, cfg: &ShingleConfig) -> Vec<u64> {
        let t: Vec<u64> = doc.iter().map(|x| token_hash(x, cfg.seed)).collect();
        let mut out = Vec::new();
        let mut s = 0;
        while s + cfg.len <= t.len() {
            let mut h = 0u64;
            for k in 0..cfg.len {
                let mut p = 1u64;
                for _ in 0..cfg.len - 1 - k {
                    p = p.wrapping_mul(ROLL_BASE);
                }
                h = h.wrapping_add(t[s + k].wrapping_mul(p));
            }
            out.push(fmix64(h ^ cfg.len as u64));
            s += cfg.offset;
        }
        out
    }

    #[test]
    fn rolling_equals_direct_for_all_offsets() {
        let d = canon("the quick brown fox jumps over the lazy dog and the quick cat");
        for len in 1..=6 {
            for offset in 1..=7 {
                let cfg = ShingleConfig::new(len, offset, 7).unwrap();
                let mut v = Vec::new();
                shingle_hashes(&d, &cfg, &mut v);
                assert_eq!(v, direct(&d, &cfg), "len {len} offset {offset}");
                assert_eq!(v.len(), cfg.count(d.len()));
            }
        }
    }

    #[test]
    fn short_documents_have_no_shingle() {
        let cfg = ShingleConfig::default();
        let mut v = Vec::new();
        shingle_hashes(&canon("a b c d"), &cfg, &mut v);
        assert!(v.is_empty());
        shingle_hashes(&Canonical::default(), &cfg, &mut v);
        assert!(v.is_empty());
        shingle_hashes(&canon("a b c d e"), &cfg, &mut v);
        assert_eq!(v.len(), 1);
    }

    #[test]
    fn config_validation() {
        assert!(ShingleConfig::new(0, 1, 0).is_err());
        assert!(ShingleConfig::new(3, 0, 0).is_err());
        assert!(ShingleConfig::default().validate().is_ok());
    }

    #[test]
    fn seed_changes_hashes_and_equal_shingles_hash_equal() {
        let a = canon("x y z x y z");
        let c1 = ShingleConfig::new(3, 1, 1).unwrap();
        let c2 = ShingleConfig::new(3, 1, 2).unwrap();
        let mut v1 = Vec::new();
        let mut v2 = Vec::new();
        shingle_hashes(&a, &c1, &mut v1);
        shingle_hashes(&a, &c2, &mut v2);
        assert_ne!(v1, v2);
        assert_eq!(v1[0], v1[3]);
        assert_eq!(shingle_set(&a, &c1).len(), 3);
    }
}
