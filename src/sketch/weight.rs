//! Weighted / bag images (H00): a document as a multiset of shingles (with `--shingle-len 1`
//! and the word unit: a multiset of words), flattened into a set of `(shingle, i)` pairs, the
//! `i`-th occurrence (`i = 0, 1, ...`) of each shingle, so that min-hashing the flattened set
//! estimates the multiset (weighted) Jaccard `sum min(c_A, c_B) / sum max(c_A, c_B)`.
//!
//! How a weight enters ([`Weighting::TfIdf`]): H00 scales each word frequency by tf-idf and
//! normalizes the bag so that its frequencies sum to a fixed number. Here a shingle `t` with
//! `c` occurrences in the document gets weight `c * ln(N / df(t))` (`N` documents in the first
//! pass, `df(t) >= 1` documents containing `t`; a shingle missing from the table counts as
//! `df = 1`); the weights are scaled so they sum to `total`, and `t` contributes
//! `round(scaled weight)` pairs `(t, 0) .. (t, k-1)` (shingles rounding to 0 are dropped,
//! as are shingles present in every document, idf 0). The `round` is the only floating-point
//! step; `ln` may differ by an ulp between platforms, which can move a count only when the
//! scaled weight is within an ulp of `k + 0.5`.
//!
//! A pair `(t, i)` is hashed as `xxh3_64_with_seed(t.to_le_bytes() ++ i.to_le_bytes(),
//! seed ^ BAG_DOMAIN)`.

use hashbrown::HashMap;
use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::shingle::{shingle_hashes, ShingleConfig};
use crate::text::Canonical;
use crate::{Error, Result};

const BAG_DOMAIN: u64 = 0xB4C5_0000_0000_0001;

/// How occurrences of a shingle enter a document's element set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Weighting {
    /// Bag: every occurrence counts, `(t, i)` for `i < count(t)`.
    Bag,
    /// tf-idf from a first pass over the corpus ([`DocFreq`]), normalized to `total` pairs.
    TfIdf {
        /// The sum the scaled weights are normalized to (H00's "fixed number").
        total: u32,
    },
}

impl Weighting {
    /// Checks `total >= 1` for tf-idf.
    pub fn validate(&self) -> Result<()> {
        match self {
            Weighting::TfIdf { total: 0 } => {
                Err(Error::config("tf-idf weighting needs total >= 1"))
            }
            _ => Ok(()),
        }
    }
}

/// Document frequencies of shingles from a first pass over a corpus.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DocFreq {
    docs: u64,
    df: HashMap<u64, u32>,
}

impl DocFreq {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts one document given its shingle hashes (any order, duplicates allowed).
    pub fn add_hashes(&mut self, hashes: &[u64]) {
        let mut v = hashes.to_vec();
        v.sort_unstable();
        v.dedup();
        self.add_set(&v);
    }

    /// Counts one document given its sorted, duplicate-free shingle set.
    pub fn add_set(&mut self, set: &[u64]) {
        self.docs += 1;
        for &h in set {
            *self.df.entry(h).or_insert(0) += 1;
        }
    }

    /// Adds the counts of `other`.
    pub fn merge(&mut self, other: &DocFreq) {
        self.docs += other.docs;
        for (&h, &c) in &other.df {
            *self.df.entry(h).or_insert(0) += c;
        }
    }

    /// The first pass over `docs` (parallel; the result does not depend on thread count).
    pub fn from_docs(docs: &[Canonical], cfg: &ShingleConfig) -> Self {
        docs.par_chunks(256)
            .map(|chunk| {
                let mut t = DocFreq::new();
                let mut v = Vec::new();
                for d in chunk {
                    v.clear();
                    shingle_hashes(d, cfg, &mut v);
                    t.add_hashes(&v);
                }
                t
            })
            .reduce(DocFreq::new, |mut a, b| {
                a.merge(&b);
                a
            })
    }

    /// Number of documents counted.
    pub fn docs(&self) -> u64 {
        self.docs
    }

    /// Number of documents containing `h`.
    pub fn df(&self, h: u64) -> u32 {
        self.df.get(&h).copied().unwrap_or(0)
    }

    /// Number of distinct shingles.
    pub fn len(&self) -> usize {
        self.df.len()
    }

    /// True when no shingle was counted.
    pub fn is_empty(&self) -> bool {
        self.df.is_empty()
    }

    /// A stable fingerprint of the table (xxh64 over the document count and the sorted
    /// `(hash, df)` pairs, little endian), stored in the images file header so that images
    /// weighted with another table are refused.
    pub fn fingerprint(&self) -> u64 {
        let mut pairs: Vec<(u64, u32)> = self.df.iter().map(|(&h, &c)| (h, c)).collect();
        pairs.sort_unstable();
        let mut x = xxhash_rust::xxh64::Xxh64::new(0);
        x.update(&self.docs.to_le_bytes());
        for (h, c) in pairs {
            x.update(&h.to_le_bytes());
            x.update(&c.to_le_bytes());
        }
        x.digest()
    }
}

/// Hash of the pair `(t, i)`.
#[inline]
pub fn pair_hash(t: u64, i: u32, seed: u64) -> u64 {
    let mut b = [0u8; 12];
    b[..8].copy_from_slice(&t.to_le_bytes());
    b[8..].copy_from_slice(&i.to_le_bytes());
    xxh3_64_with_seed(&b, seed ^ BAG_DOMAIN)
}

/// The weight of every distinct shingle of the multiset `hashes` (sorted in place) under
/// `weighting`, ascending by shingle, zero weights left out: the count for
/// [`Weighting::Bag`], the scaled tf-idf weight (see the module docs; unrounded) for
/// [`Weighting::TfIdf`]. For tf-idf `df` must be given (without it every shingle counts as
/// `df = 1`, i.e. plain tf scaling). [`flatten`] rounds these weights; ICWS
/// ([`super::icws`]) samples them as they are.
pub fn weights(
    hashes: &mut [u64],
    weighting: Weighting,
    df: Option<&DocFreq>,
    out: &mut Vec<(u64, f64)>,
) {
    out.clear();
    hashes.sort_unstable();
    let runs = hashes.chunk_by(|a, b| a == b);
    match weighting {
        Weighting::Bag => out.extend(runs.map(|r| (r[0], r.len() as f64))),
        Weighting::TfIdf { total } => {
            let n = df.map_or(1, |d| d.docs.max(1)) as f64;
            out.extend(runs.map(|r| {
                let d = df.map_or(1, |d| d.df(r[0]).max(1)) as f64;
                let idf = if df.is_some() {
                    (n / d).ln().max(0.0)
                } else {
                    1.0
                };
                (r[0], r.len() as f64 * idf)
            }));
            let sum: f64 = out.iter().map(|w| w.1).sum();
            if sum <= 0.0 {
                out.clear();
                return;
            }
            let scale = total as f64 / sum;
            for w in out.iter_mut() {
                w.1 *= scale;
            }
            out.retain(|w| w.1 > 0.0);
        }
    }
}

/// Flattens the shingle multiset `hashes` (sorted in place) into the element set `out`
/// (cleared first; not sorted) under `weighting`: shingle `t` of weight `w`
/// ([`weights`]) gives the pairs `(t, 0) .. (t, round(w) - 1)`. For [`Weighting::TfIdf`]
/// `df` must be given (without it every shingle counts as `df = 1`, i.e. plain tf scaling).
pub fn flatten(
    hashes: &mut [u64],
    weighting: Weighting,
    df: Option<&DocFreq>,
    seed: u64,
    out: &mut Vec<u64>,
) {
    let mut ws = Vec::new();
    weights(hashes, weighting, df, &mut ws);
    out.clear();
    for (t, w) in ws {
        let k = w.round() as u32;
        for i in 0..k {
            out.push(pair_hash(t, i, seed));
        }
    }
}
