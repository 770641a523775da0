//! The image schemes ([`Scheme`]) and their parameters ([`SketchConfig`]).
//!
//! Invariant: a validated configuration has `1 <= size <= MAX_SIZE` (not mod-m), a
//! modulus `>= 1` (mod-m), b-bit values only on positional schemes with `b` in
//! [`super::bbit::BITS`], and a weighting for ICWS; the scheme codes of the images file never
//! change.

use super::Weighting;
use crate::{Error, Result};

/// Largest accepted image size `n`.
pub const MAX_SIZE: usize = 1 << 16;

/// How an image is chosen from the shingle hashes.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Scheme {
    /// The `n` smallest values of one permutation (B97 MIN_s, IK09 "n minimal elements in a
    /// permutation"). Sorted image.
    #[default]
    BottomK,
    /// The minimum under each of `n` permutations (IK09 "minimal elements in n
    /// permutations"). Positional image.
    KMins,
    /// One-permutation hashing with optimal densification. Positional image.
    OnePermutation,
    /// B97 MOD_m: all permuted values divisible by `m`. Sorted image of variable size.
    ModM,
    /// Charikar's random-projection fingerprint of `n` bits (`n` a multiple of 64), held as
    /// `n / 64` words ([`super::simhash`]). Not a set of elements: read by the methods that
    /// compare fingerprints by Hamming distance only.
    SimHash,
    /// Ioffe's improved consistent weighted sampling (ICDM 2010) of the real-valued shingle
    /// weights ([`super::icws`]): `n` samples, each agreeing with probability the weighted
    /// Jaccard. Positional image; needs a weighting.
    Icws,
}

impl Scheme {
    /// All schemes, in file-code order.
    pub const ALL: [Scheme; 6] = [
        Scheme::BottomK,
        Scheme::KMins,
        Scheme::OnePermutation,
        Scheme::ModM,
        Scheme::SimHash,
        Scheme::Icws,
    ];

    /// The command-line name (`bottom-k`, `k-mins`, `one-permutation`, `mod-m`,
    /// `simhash`, `icws`).
    pub fn name(self) -> &'static str {
        match self {
            Scheme::BottomK => "bottom-k",
            Scheme::KMins => "k-mins",
            Scheme::OnePermutation => "one-permutation",
            Scheme::ModM => "mod-m",
            Scheme::SimHash => "simhash",
            Scheme::Icws => "icws",
        }
    }

    /// True for schemes whose image value `i` belongs to permutation (or bin) `i`.
    pub fn is_positional(self) -> bool {
        matches!(self, Scheme::KMins | Scheme::OnePermutation | Scheme::Icws)
    }

    /// True for the fingerprint scheme (SimHash), whose image is bits, not elements.
    pub fn is_fingerprint(self) -> bool {
        self == Scheme::SimHash
    }

    /// The number of `u64` values of a non-empty image of size `n` (`None`: variable,
    /// mod-m; bottom-k: at most `n`).
    pub fn values_of(self, n: usize) -> Option<usize> {
        match self {
            Scheme::ModM => None,
            Scheme::SimHash => Some(n / 64),
            _ => Some(n),
        }
    }

    /// Code stored in the images file.
    pub(crate) fn code(self) -> u8 {
        match self {
            Scheme::BottomK => 0,
            Scheme::KMins => 1,
            Scheme::OnePermutation => 2,
            Scheme::ModM => 3,
            Scheme::SimHash => 4,
            Scheme::Icws => 5,
        }
    }

    pub(crate) fn from_code(c: u8) -> Option<Self> {
        Scheme::ALL.into_iter().find(|s| s.code() == c)
    }
}

impl std::fmt::Display for Scheme {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Scheme {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Scheme::ALL
            .into_iter()
            .find(|x| x.name() == s)
            .ok_or_else(|| {
                Error::config(format!(
                    "unknown scheme {s:?}; expected bottom-k, k-mins, one-permutation, mod-m, simhash or icws"
                ))
            })
    }
}

/// Parameters of the image scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct SketchConfig {
    /// The scheme.
    pub scheme: Scheme,
    /// Image size `n` (bottom-k, k-mins, one-permutation; simhash: the width in bits, a
    /// multiple of 64); default 128.
    pub size: usize,
    /// Modulus `m` (mod-m); default 25 (B97 kept 1 in 25).
    pub modulus: u64,
    /// Seed of the permutations.
    pub seed: u64,
    /// Bag / tf-idf images (H00); `None` uses the shingle set.
    pub weighting: Option<Weighting>,
    /// b-bit minwise hashing (Li and Koenig 2010): keep `b` bits of each positional value
    /// ([`super::bbit`]); `None` keeps the 64.
    #[serde(default)]
    pub bits: Option<u8>,
}

impl Default for SketchConfig {
    fn default() -> Self {
        SketchConfig {
            scheme: Scheme::BottomK,
            size: 128,
            modulus: 25,
            seed: 0,
            weighting: None,
            bits: None,
        }
    }
}

impl SketchConfig {
    /// Checks `1 <= size <= MAX_SIZE` (not for mod-m), `modulus >= 1` (mod-m), the
    /// weighting (required by ICWS) and the b-bit option ([`super::bbit::validate`]).
    pub fn validate(&self) -> Result<()> {
        if self.scheme != Scheme::ModM && (self.size == 0 || self.size > MAX_SIZE) {
            return Err(Error::config(format!(
                "image size must be in 1..={MAX_SIZE}, got {}",
                self.size
            )));
        }
        if self.scheme == Scheme::SimHash && !self.size.is_multiple_of(64) {
            return Err(Error::config(format!(
                "a simhash fingerprint's width (the image size) must be a multiple of 64 bits, got {}",
                self.size
            )));
        }
        if self.scheme == Scheme::ModM && self.modulus == 0 {
            return Err(Error::config("mod-m needs a modulus >= 1"));
        }
        if let Some(w) = self.weighting {
            w.validate()?;
        }
        if self.scheme == Scheme::Icws && self.weighting.is_none() {
            return Err(Error::config(
                "--scheme icws samples weighted shingles: give --weighting bag or tfidf",
            ));
        }
        super::bbit::validate(self.bits, self.scheme)
    }
}
