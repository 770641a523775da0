//! The [`Sketcher`]: shingle hashes to images under each scheme (see the permutations in
//! [the module docs](super)), one document at a time ([`Sketcher::sketch_with`]) or a batch
//! in parallel ([`sketch_batch`]).
//!
//! Invariant: an image is a deterministic function of the shingle hashes and the seeds,
//! whatever the thread count.

use rayon::prelude::*;

use super::hash::{self, fmix64, reduce, splitmix64, Permutation};
use super::{bbit, icws, kmins, simhash, weight};
use super::{DocFreq, Image, Scheme, SketchConfig, SketchParams, TextParams, Weighting};
use crate::shingle::{shingle_hashes_from_tokens, shingle_hashes_scratch, ShingleConfig};
use crate::text::Canonical;
use crate::{Error, Result};

#[cfg(test)]
mod tests;

const DOMAIN_PI: u64 = 1;
const DOMAIN_KMINS: u64 = 2;
const DOMAIN_DENSIFY: u64 = 3;
/// Probes per empty bin before densification falls back to the next non-empty bin.
const DENSIFY_PROBES: u64 = 1024;

/// Reusable buffers for sketching one document at a time.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    tokens: Vec<u64>,
    hashes: Vec<u64>,
    elems: Vec<u64>,
    filled: Vec<bool>,
    perm: Vec<u64>,
    sorted: Vec<u64>,
    weights: Vec<(u64, f64)>,
}

/// A ready-to-use sketcher: shingle and sketch configuration plus the precomputed
/// permutation parameters (and the document-frequency table for tf-idf).
#[derive(Clone, Debug)]
pub struct Sketcher {
    shingle: ShingleConfig,
    cfg: SketchConfig,
    pi: Permutation,
    a: Vec<u64>,
    b: Vec<u64>,
    densify_key: u64,
    /// SimHash projection keys, one per fingerprint word.
    simhash_keys: Vec<u64>,
    /// The per-sample keys of ICWS (empty for the other schemes).
    icws_keys: Vec<u64>,
    /// The key of the b-bit reduction.
    bbit_key: u64,
    df: Option<DocFreq>,
}

impl Sketcher {
    /// Validates both configurations and precomputes the permutations. Fails for
    /// [`Weighting::TfIdf`], which needs [`Sketcher::with_doc_freq`].
    pub fn new(shingle: ShingleConfig, cfg: SketchConfig) -> Result<Self> {
        if matches!(cfg.weighting, Some(Weighting::TfIdf { .. })) {
            return Err(Error::config(
                "tf-idf weighting needs the document frequencies of a first pass",
            ));
        }
        Self::build(shingle, cfg, None)
    }

    /// As [`Sketcher::new`] with the document-frequency table of a first pass
    /// ([`DocFreq::from_docs`]); required for [`Weighting::TfIdf`], refused otherwise.
    pub fn with_doc_freq(shingle: ShingleConfig, cfg: SketchConfig, df: DocFreq) -> Result<Self> {
        if !matches!(cfg.weighting, Some(Weighting::TfIdf { .. })) {
            return Err(Error::config(
                "a document-frequency table is only used with tf-idf weighting",
            ));
        }
        Self::build(shingle, cfg, Some(df))
    }

    fn build(shingle: ShingleConfig, cfg: SketchConfig, df: Option<DocFreq>) -> Result<Self> {
        shingle.validate()?;
        cfg.validate()?;
        let (mut a, mut b) = (Vec::new(), Vec::new());
        if cfg.scheme == Scheme::KMins {
            let mut s = cfg.seed ^ DOMAIN_KMINS.wrapping_mul(0xD6E8_FEB8_6659_FD93);
            for _ in 0..cfg.size {
                a.push(splitmix64(&mut s) | 1);
                b.push(splitmix64(&mut s));
            }
        }
        let simhash_keys = if cfg.scheme == Scheme::SimHash {
            simhash::keys(cfg.seed, cfg.size / 64)
        } else {
            Vec::new()
        };
        let mut s = cfg.seed ^ DOMAIN_DENSIFY.wrapping_mul(0xD6E8_FEB8_6659_FD93);
        Ok(Sketcher {
            simhash_keys,
            shingle,
            cfg,
            pi: Permutation::new(cfg.seed, DOMAIN_PI),
            a,
            b,
            densify_key: splitmix64(&mut s),
            icws_keys: if cfg.scheme == Scheme::Icws {
                icws::sample_keys(cfg.seed, cfg.size)
            } else {
                Vec::new()
            },
            bbit_key: bbit::key(cfg.seed),
            df,
        })
    }

    /// The shingle configuration.
    pub fn shingle_config(&self) -> &ShingleConfig {
        &self.shingle
    }

    /// The sketch configuration.
    pub fn config(&self) -> &SketchConfig {
        &self.cfg
    }

    /// The fingerprint of the tf-idf table, if any (goes into [`SketchParams`]).
    pub fn weight_table(&self) -> Option<u64> {
        self.df.as_ref().map(DocFreq::fingerprint)
    }

    /// The header parameters of images made by this sketcher with text options `text`.
    pub fn params(&self, text: TextParams) -> SketchParams {
        SketchParams {
            text,
            shingle: self.shingle,
            sketch: self.cfg,
            weight_table: self.weight_table(),
        }
    }

    /// The image of a canonical document.
    pub fn sketch(&self, doc: &Canonical) -> Image {
        self.sketch_with(doc, &mut Scratch::default())
    }

    /// As [`Sketcher::sketch`], reusing `scratch`.
    pub fn sketch_with(&self, doc: &Canonical, scratch: &mut Scratch) -> Image {
        let mut hashes = std::mem::take(&mut scratch.hashes);
        hashes.clear();
        shingle_hashes_scratch(doc, &self.shingle, &mut hashes, &mut scratch.tokens);
        let img = self.sketch_hashes_with(&mut hashes, scratch);
        scratch.hashes = hashes;
        img
    }

    /// The image of a document given the hashes of its canonical tokens, in order
    /// ([`crate::shingle::token_hash`] of each token with the shingle seed): the same image
    /// as [`Sketcher::sketch_with`] on that document, without the canonical text or the
    /// shingle strings (the shingle hashes are rolled from the token hashes).
    pub fn sketch_token_hashes(&self, token_hashes: &[u64], scratch: &mut Scratch) -> Image {
        let mut hashes = std::mem::take(&mut scratch.hashes);
        hashes.clear();
        shingle_hashes_from_tokens(token_hashes, &self.shingle, &mut hashes);
        let img = self.sketch_hashes_with(&mut hashes, scratch);
        scratch.hashes = hashes;
        img
    }

    /// The image of a multiset of shingle hashes (any order, duplicates allowed; only the
    /// weighted modes look at multiplicities). `hashes` may be reordered.
    pub fn sketch_hashes(&self, hashes: &mut [u64]) -> Image {
        self.sketch_hashes_with(hashes, &mut Scratch::default())
    }

    fn sketch_hashes_with(&self, hashes: &mut [u64], scratch: &mut Scratch) -> Image {
        if self.cfg.scheme == Scheme::SimHash {
            return self.simhash(hashes, &mut scratch.weights);
        }
        if self.cfg.scheme == Scheme::Icws {
            // A validated ICWS configuration has a weighting.
            let w = self.cfg.weighting.unwrap_or(Weighting::Bag);
            weight::weights(hashes, w, self.df.as_ref(), &mut scratch.weights);
            let mut values = Vec::new();
            icws::sample(&scratch.weights, &self.icws_keys, &mut values);
            return self.reduced(Image { values });
        }
        let mut elems = std::mem::take(&mut scratch.elems);
        let xs: &[u64] = match self.cfg.weighting {
            None => hashes,
            Some(w) => {
                weight::flatten(hashes, w, self.df.as_ref(), self.cfg.seed, &mut elems);
                &elems
            }
        };
        let img = if xs.is_empty() {
            Image::empty()
        } else {
            match self.cfg.scheme {
                Scheme::BottomK => self.bottom_k(xs, &mut scratch.perm, &mut scratch.sorted),
                Scheme::KMins => self.k_mins(xs),
                Scheme::OnePermutation => self.one_permutation(xs, &mut scratch.filled),
                Scheme::ModM => self.mod_m(xs),
                Scheme::SimHash => unreachable!("simhash images are made above"),
                Scheme::Icws => unreachable!("ICWS is sketched above"),
            }
        };
        scratch.elems = elems;
        self.reduced(img)
    }

    /// The image with each value cut to the configured b bits ([`bbit::reduce`]), if any.
    fn reduced(&self, mut img: Image) -> Image {
        if let Some(b) = self.cfg.bits {
            bbit::reduce(&mut img.values, b, self.bbit_key);
        }
        img
    }

    fn bottom_k(&self, xs: &[u64], v: &mut Vec<u64>, sorted: &mut Vec<u64>) -> Image {
        let n = self.cfg.size;
        let len = xs.len();
        // Permuted values are uniform on u64: keep those below a threshold that about
        // n + 4 sqrt(n) of the `len` values pass (one branch-free pass), then sort only
        // those. If they hold at least n distinct values, the n smallest distinct values
        // of all are among them (every value left out is larger than each kept one).
        let expect = n + 4 * (n as f64).sqrt() as usize + 8;
        if len > expect + expect / 4 {
            let tau = ((expect as u128) << 64) / len as u128;
            let tau = u64::try_from(tau).unwrap_or(u64::MAX);
            v.clear();
            v.resize(len, 0);
            let mut c = 0usize;
            for &x in xs {
                let y = self.pi.apply(x);
                v[c] = y;
                c += usize::from(y < tau);
            }
            v.truncate(c);
            sort_below(v, tau, sorted);
            sorted.dedup();
            if sorted.len() >= n {
                return Image {
                    values: sorted[..n].to_vec(),
                };
            }
            // Too few passed (duplicates, or chance): the full sort.
        }
        v.clear();
        v.extend(xs.iter().map(|&x| self.pi.apply(x)));
        if v.len() <= SORT_BELOW_MAX {
            // Few values (a short document): the bucket sort over all of u64.
            sort_below(v, u64::MAX, sorted);
            sorted.dedup();
            sorted.truncate(n);
            return Image {
                values: sorted.clone(),
            };
        }
        v.sort_unstable();
        v.dedup();
        v.truncate(n);
        Image { values: v.clone() }
    }

    /// The fingerprint of the shingle multiset: distinct shingles of weight 1 without a
    /// weighting (integer votes), else the real weights of [`weight::weights`].
    fn simhash(&self, hashes: &mut [u64], weighted: &mut Vec<(u64, f64)>) -> Image {
        if self.cfg.weighting.is_none() {
            hashes.sort_unstable();
            let mut n = 0;
            for i in 0..hashes.len() {
                if i == 0 || hashes[i] != hashes[n - 1] {
                    hashes[n] = hashes[i];
                    n += 1;
                }
            }
            if n == 0 {
                return Image::empty();
            }
            return Image {
                values: simhash::of_set(&hashes[..n], &self.simhash_keys),
            };
        }
        let w = self.cfg.weighting.unwrap_or(Weighting::Bag);
        weight::weights(hashes, w, self.df.as_ref(), weighted);
        if weighted.is_empty() {
            return Image::empty();
        }
        Image {
            values: simhash::of_weighted(weighted, &self.simhash_keys),
        }
    }

    fn k_mins(&self, xs: &[u64]) -> Image {
        let n = self.cfg.size;
        let mut mins = vec![u64::MAX; n];
        kmins::update(&self.a[..n], &self.b[..n], xs, &mut mins);
        Image { values: mins }
    }

    fn one_permutation(&self, xs: &[u64], filled: &mut Vec<bool>) -> Image {
        let n = self.cfg.size;
        let mut bins = vec![u64::MAX; n];
        filled.clear();
        filled.resize(n, false);
        for &x in xs {
            let v = self.pi.apply(x);
            let j = reduce(v, n).min(n - 1);
            // Branch-free: unconditional stores (a value u64::MAX is still marked filled).
            bins[j] = bins[j].min(v);
            filled[j] = true;
        }
        densify(&mut bins, filled, self.densify_key);
        Image { values: bins }
    }

    fn mod_m(&self, xs: &[u64]) -> Image {
        let div = hash::Divisor::new(self.cfg.modulus);
        let mut v: Vec<u64> = xs
            .iter()
            .map(|&x| self.pi.apply(x))
            .filter(|&y| div.divides(y))
            .collect();
        v.sort_unstable();
        v.dedup();
        Image { values: v }
    }
}

/// Optimal densification (Shrivastava 2017) of one-permutation bins: each bin `i` not
/// `filled` takes the value of the first filled bin among the probes
/// `reduce(fmix64(key ^ (i << 32 | t)), n)`, `t = 1, 2, ...`, or after
/// `min(DENSIFY_PROBES, 64 n)` failed probes the next filled bin cyclically. At least one
/// bin must be filled.
pub(crate) fn densify(bins: &mut [u64], filled: &[bool], key: u64) {
    let n = bins.len();
    for i in 0..n {
        if filled[i] {
            continue;
        }
        let mut src = None;
        for t in 1..=DENSIFY_PROBES.min(64 * n as u64) {
            let j = reduce(fmix64(key ^ ((i as u64) << 32 | t)), n);
            if filled[j] {
                src = Some(j);
                break;
            }
        }
        let j = src.unwrap_or_else(|| {
            (1..=n)
                .map(|d| (i + d) % n)
                .find(|&j| filled[j])
                .expect("at least one bin is filled")
        });
        bins[i] = bins[j];
    }
}

/// Buckets of [`sort_below`] (a power of two).
const SORT_BUCKETS: usize = 256;

/// Most values [`sort_below`] sorts over all of `u64` (a bucket then holds about 8 of
/// them; more and the insertion steps would outgrow a comparison sort).
const SORT_BELOW_MAX: usize = 8 * SORT_BUCKETS;

/// Sorts `v` (values below `tau`) into `out`: one counting pass on the values' top bits,
/// which puts them in order but within a bucket, then an insertion sort of that almost
/// sorted sequence. For the few hundred values below the bottom-k threshold, spread about
/// uniformly below it, a bucket holds about one value and the whole costs a few passes;
/// any input is still sorted exactly (a skewed one only costs more insertion steps).
fn sort_below(v: &[u64], tau: u64, out: &mut Vec<u64>) {
    // The bucket of x: its bits below the highest bit of tau, top 8 of them.
    let bits = 64 - tau.leading_zeros();
    let shift = bits.saturating_sub(SORT_BUCKETS.trailing_zeros());
    let bucket = |x: u64| ((x >> shift) as usize) & (SORT_BUCKETS - 1);
    let mut start = [0u32; SORT_BUCKETS + 1];
    for &x in v {
        start[bucket(x) + 1] += 1;
    }
    for b in 0..SORT_BUCKETS {
        start[b + 1] += start[b];
    }
    out.clear();
    out.resize(v.len(), 0);
    for &x in v {
        let b = bucket(x);
        out[start[b] as usize] = x;
        start[b] += 1;
    }
    for i in 1..out.len() {
        let x = out[i];
        let mut j = i;
        while j > 0 && out[j - 1] > x {
            out[j] = out[j - 1];
            j -= 1;
        }
        out[j] = x;
    }
}

/// Sketches a batch of documents in parallel (rayon); `out[i]` is the image of `docs[i]`,
/// identical for any thread count.
pub fn sketch_batch(docs: &[Canonical], sketcher: &Sketcher) -> Vec<Image> {
    docs.par_iter()
        .map_init(Scratch::default, |s, d| sketcher.sketch_with(d, s))
        .collect()
}
