//! Images (sketches) of documents: bottom-k, k-mins, one-permutation hashing with
//! densification, mod-m, weighted/bag images, super shingles, fingerprints, estimators, and
//! the images file ([`file`](mod@file)).
//!
//! A document's shingle hashes (see [`crate::shingle`]) are reduced to an [`Image`], a short
//! list of `u64` values, by one of the [`Scheme`]s:
//!
//! | scheme | image | layout |
//! |---|---|---|
//! | [`Scheme::BottomK`] | the `n` smallest distinct values of one permutation `pi` (B97 MIN_s) | sorted, at most `n` |
//! | [`Scheme::KMins`] | `min_x h_i(x)` for `i < n` (IK09 "minimal elements in n permutations") | positional, exactly `n` |
//! | [`Scheme::OnePermutation`] | per bin `i < n`: min of `pi(x)` over the `x` falling in bin `i`, empty bins densified | positional, exactly `n` |
//! | [`Scheme::ModM`] | `{pi(x) : pi(x) mod m = 0}` (B97 MOD_m) | sorted, variable size |
//!
//! Invariants:
//! * A document with no shingle (empty, or fewer tokens than the shingle length) gets the
//!   EMPTY image (no value), whatever the scheme; an empty image shares nothing with any
//!   image, its estimated resemblance with anything is 0 and it has no keys.
//! * A non-empty positional image has exactly `n` values, value `i` belonging to
//!   permutation/bin `i`. A sorted image is strictly ascending.
//! * Everything is a deterministic function of the shingle hashes and the seeds; batches are
//!   sketched in parallel but the result does not depend on the thread count.
//!
//! # The permutations
//! * `pi` (bottom-k, one-permutation, mod-m) is [`hash::Permutation`]:
//!   `x -> fmix64(x ^ k0) + k1`, `k0, k1` drawn from SplitMix64 of the seed. It is a true
//!   bijection of `u64`, so equal values mean equal shingle hashes.
//! * k-mins uses `h_i(x) = a_i * x + b_i (mod 2^64)` with `a_i` odd and `a_i, b_i` from a
//!   SplitMix64 stream of the seed: each `h_i` is a bijection (again, equal minima mean the
//!   same shingle), the family is the classic multiply-add universal family, and the `n`
//!   functions have independent parameters, so the `n` minima of one set are independent
//!   draws. Min-wise independence is only approximate for a 2-universal family on
//!   adversarial sets, but the inputs are already XXH3-based shingle hashes (random-looking
//!   keys), where the measured error matches the binomial theory (tests/sketch_props.rs).
//!   One multiply and one add per (shingle, permutation) instead of a full hash.
//! * one-permutation hashing (Shrivastava & Li 2014) puts `pi(x)` in bin
//!   `floor(pi(x) * n / 2^64)` (bins are disjoint value ranges, so a value identifies its
//!   bin); empty bins are filled by optimal densification (Shrivastava 2017): empty bin `i`
//!   probes bins `j = reduce(fmix64(K ^ (i << 32 | t)), n)` for `t = 1, 2, ...` with a
//!   seed-derived `K` shared by all documents and copies the value of the first bin that was
//!   non-empty (after `min(64 n, 1024)` failed probes, which only happens for documents
//!   with a handful of shingles in a large image, it takes the next non-empty bin
//!   cyclically).

pub mod file;
pub mod hash;
pub mod inputs;
mod kmins;
pub mod pipeline;
pub mod weight;

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::shingle::{shingle_hashes_from_tokens, shingle_hashes_scratch, ShingleConfig};
use crate::sorted::intersection_size;
use crate::text::Canonical;
use crate::{Error, Result};
use hash::{fmix64, position_salt, reduce, splitmix64, Permutation};

pub use file::{ImageReader, ImageSet, ImageWriter, Shard, SketchParams, TextParams};
pub use inputs::{sketch_to_file, ImageFileSink, ImageInputs};
pub use weight::{DocFreq, Weighting};

/// Largest accepted image size `n`.
pub const MAX_SIZE: usize = 1 << 16;

const DOMAIN_PI: u64 = 1;
const DOMAIN_KMINS: u64 = 2;
const DOMAIN_DENSIFY: u64 = 3;
/// Probes per empty bin before densification falls back to the next non-empty bin.
const DENSIFY_PROBES: u64 = 1024;
const DOMAIN_SUPER: u64 = 0x5355_5045_5253_4831;

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
}

impl Scheme {
    /// All schemes, in file-code order.
    pub const ALL: [Scheme; 4] = [
        Scheme::BottomK,
        Scheme::KMins,
        Scheme::OnePermutation,
        Scheme::ModM,
    ];

    /// The command-line name (`bottom-k`, `k-mins`, `one-permutation`, `mod-m`).
    pub fn name(self) -> &'static str {
        match self {
            Scheme::BottomK => "bottom-k",
            Scheme::KMins => "k-mins",
            Scheme::OnePermutation => "one-permutation",
            Scheme::ModM => "mod-m",
        }
    }

    /// True for schemes whose image value `i` belongs to permutation (or bin) `i`.
    pub fn is_positional(self) -> bool {
        matches!(self, Scheme::KMins | Scheme::OnePermutation)
    }

    /// Code stored in the images file.
    pub(crate) fn code(self) -> u8 {
        match self {
            Scheme::BottomK => 0,
            Scheme::KMins => 1,
            Scheme::OnePermutation => 2,
            Scheme::ModM => 3,
        }
    }

    pub(crate) fn from_code(c: u8) -> Option<Self> {
        Scheme::ALL.get(c as usize).copied()
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
                    "unknown scheme {s:?}; expected bottom-k, k-mins, one-permutation or mod-m"
                ))
            })
    }
}

/// Parameters of the image scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct SketchConfig {
    /// The scheme.
    pub scheme: Scheme,
    /// Image size `n` (bottom-k, k-mins, one-permutation); default 128.
    pub size: usize,
    /// Modulus `m` (mod-m); default 25 (B97 kept 1 in 25).
    pub modulus: u64,
    /// Seed of the permutations.
    pub seed: u64,
    /// Bag / tf-idf images (H00); `None` uses the shingle set.
    pub weighting: Option<Weighting>,
}

impl Default for SketchConfig {
    fn default() -> Self {
        SketchConfig {
            scheme: Scheme::BottomK,
            size: 128,
            modulus: 25,
            seed: 0,
            weighting: None,
        }
    }
}

impl SketchConfig {
    /// Checks `1 <= size <= MAX_SIZE` (not for mod-m), `modulus >= 1` (mod-m) and the
    /// weighting.
    pub fn validate(&self) -> Result<()> {
        if self.scheme != Scheme::ModM && (self.size == 0 || self.size > MAX_SIZE) {
            return Err(Error::config(format!(
                "image size must be in 1..={MAX_SIZE}, got {}",
                self.size
            )));
        }
        if self.scheme == Scheme::ModM && self.modulus == 0 {
            return Err(Error::config("mod-m needs a modulus >= 1"));
        }
        if let Some(w) = self.weighting {
            w.validate()?;
        }
        Ok(())
    }
}

/// The image of one document. Empty for documents without shingles.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Image {
    values: Vec<u64>,
}

impl Image {
    /// The empty image.
    pub fn empty() -> Self {
        Image::default()
    }

    /// Wraps raw values (the caller keeps the scheme's layout invariant; the images-file
    /// reader checks it).
    pub fn from_values(values: Vec<u64>) -> Self {
        Image { values }
    }

    /// The values (sorted for bottom-k / mod-m, positional for k-mins / one-permutation).
    pub fn values(&self) -> &[u64] {
        &self.values
    }

    /// The values, moved out.
    pub fn into_values(self) -> Vec<u64> {
        self.values
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True for the empty image.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Appends to `out` the keys of this image's elements, sorted ascending and distinct:
    /// the items of the inverted context. Two images of one scheme share a key iff they
    /// share an image element:
    /// * sorted schemes (bottom-k, mod-m): the key is the value itself (exact).
    /// * positional schemes: value `v` at position `i` has key `fmix64(v ^ salt(i))` with a
    ///   fixed per-position salt ([`hash::position_salt`]). For one position this is a
    ///   bijection of `v`, so equal positions share a key exactly when the values are equal.
    ///   Equal values at different positions get different keys. A false share needs
    ///   `v' = v ^ salt(i) ^ salt(j)` for some `(i, v) != (j, v')`: with `E` distinct
    ///   elements in a corpus, the expected number of such collisions is at most
    ///   `E^2 / 2^65` (about 3e-4 for 10^8 elements).
    ///
    /// The empty image has no key.
    pub fn keys(&self, scheme: Scheme, out: &mut Vec<u64>) {
        if scheme.is_positional() {
            positional_keys(&self.values, out);
        } else {
            out.extend_from_slice(&self.values);
        }
    }
}

/// Appends to `out` the keys of a positional image's values, sorted ascending and distinct:
/// value `v` at position `i` has key `fmix64(v ^ salt(i))` (see [`Image::keys`]). The one
/// positional-key function of the crate.
pub fn positional_keys(values: &[u64], out: &mut Vec<u64>) {
    let start = out.len();
    out.extend(
        values
            .iter()
            .enumerate()
            .map(|(i, &v)| fmix64(v ^ position_salt(i))),
    );
    out[start..].sort_unstable();
    // Positional values repeat after densification, but their keys differ; dedup only
    // guards against the negligible cross-position collisions.
    let mut tail = out.split_off(start);
    tail.dedup();
    out.extend(tail);
}

/// Reusable buffers for sketching one document at a time.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    tokens: Vec<u64>,
    hashes: Vec<u64>,
    elems: Vec<u64>,
    filled: Vec<bool>,
    perm: Vec<u64>,
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
        let mut s = cfg.seed ^ DOMAIN_DENSIFY.wrapping_mul(0xD6E8_FEB8_6659_FD93);
        Ok(Sketcher {
            shingle,
            cfg,
            pi: Permutation::new(cfg.seed, DOMAIN_PI),
            a,
            b,
            densify_key: splitmix64(&mut s),
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
                Scheme::BottomK => self.bottom_k(xs, &mut scratch.perm),
                Scheme::KMins => self.k_mins(xs),
                Scheme::OnePermutation => self.one_permutation(xs, &mut scratch.filled),
                Scheme::ModM => self.mod_m(xs),
            }
        };
        scratch.elems = elems;
        img
    }

    fn bottom_k(&self, xs: &[u64], v: &mut Vec<u64>) -> Image {
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
            v.sort_unstable();
            v.dedup();
            if v.len() >= n {
                return Image {
                    values: v[..n].to_vec(),
                };
            }
            // Too few passed (duplicates, or chance): the full sort.
        }
        v.clear();
        v.extend(xs.iter().map(|&x| self.pi.apply(x)));
        v.sort_unstable();
        v.dedup();
        v.truncate(n);
        Image { values: v.clone() }
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
        for i in 0..n {
            if filled[i] {
                continue;
            }
            let mut src = None;
            for t in 1..=DENSIFY_PROBES.min(64 * n as u64) {
                let j = reduce(fmix64(self.densify_key ^ ((i as u64) << 32 | t)), n);
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

/// Sketches a batch of documents in parallel (rayon); `out[i]` is the image of `docs[i]`,
/// identical for any thread count.
pub fn sketch_batch(docs: &[Canonical], sketcher: &Sketcher) -> Vec<Image> {
    docs.par_iter()
        .map_init(Scratch::default, |s, d| sketcher.sketch_with(d, s))
        .collect()
}

/// Number of image elements shared by `a` and `b`: equal positions (both non-empty) for
/// positional schemes, the size of the intersection for sorted ones. This equals the number
/// of shared [`Image::keys`] (up to the collision bound stated there).
pub fn shared_elements(a: &Image, b: &Image, scheme: Scheme) -> usize {
    if a.is_empty() || b.is_empty() {
        return 0;
    }
    if scheme.is_positional() {
        a.values
            .iter()
            .zip(&b.values)
            .filter(|(x, y)| x == y)
            .count()
    } else {
        intersection_size(&a.values, &b.values)
    }
}

/// Estimated resemblance of the documents of `a` and `b` (0 if either image is empty).
/// * bottom-k: `|MIN_n(A u B) n A n B| / |MIN_n(A u B)|` (B97 / S, unbiased), where `A`,
///   `B` are the images;
/// * k-mins, one-permutation: equal positions / n;
/// * mod-m: `|V(A) n V(B)| / |V(A) u V(B)|` (0 when both samples are empty).
pub fn estimate_resemblance(a: &Image, b: &Image, cfg: &SketchConfig) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    match cfg.scheme {
        Scheme::KMins | Scheme::OnePermutation => {
            let n = a.len().min(b.len());
            shared_elements(a, b, cfg.scheme) as f64 / n as f64
        }
        Scheme::ModM => crate::shingle::resemblance(&a.values, &b.values),
        Scheme::BottomK => {
            let (x, y) = (&a.values, &b.values);
            let n = cfg.size;
            let (mut i, mut j, mut taken, mut both) = (0, 0, 0usize, 0usize);
            while taken < n && (i < x.len() || j < y.len()) {
                if j >= y.len() || (i < x.len() && x[i] < y[j]) {
                    i += 1;
                } else if i >= x.len() || y[j] < x[i] {
                    j += 1;
                } else {
                    both += 1;
                    i += 1;
                    j += 1;
                }
                taken += 1;
            }
            both as f64 / taken as f64
        }
    }
}

/// Estimated containment of A in B, `|V(A) n V(B)| / |V(A)|`, from mod-m images (0 when
/// `V(A)` is empty). Other schemes: [`Error::Config`].
pub fn estimate_containment(a: &Image, b: &Image, cfg: &SketchConfig) -> Result<f64> {
    if cfg.scheme != Scheme::ModM {
        return Err(Error::config(format!(
            "containment can only be estimated from mod-m images, not {}",
            cfg.scheme
        )));
    }
    Ok(crate::shingle::containment(&a.values, &b.values))
}

/// Super shingles (B97 5.3): shingles of the image, sorted ascending and distinct: the
/// [`hash::group_hashes`] of its values with the seed `cfg.seed ^ DOMAIN` (positional
/// schemes: `count` bands of `per` rows; sorted schemes: windows of `per` values). Two
/// documents share a positional super shingle iff they agree on that whole band.
pub fn super_shingles(image: &Image, cfg: &SketchConfig, count: usize, per: usize) -> Vec<u64> {
    let mut out = hash::group_hashes(
        &image.values,
        cfg.scheme.is_positional(),
        per,
        count,
        cfg.seed ^ DOMAIN_SUPER,
    );
    out.sort_unstable();
    out.dedup();
    out
}

/// Fingerprint of raw bytes (B97 5.2: the whole original content finds identical
/// documents; the canonical text finds lexically-equivalent ones): `xxh3_64` with seed 0.
pub fn content_fingerprint(bytes: &[u8]) -> u64 {
    xxh3_64_with_seed(bytes, 0)
}

/// Fingerprint of an image (B97 5.2, shingle-equivalent documents): `xxh3_64` (seed 0) of
/// the values in little endian; `None` for the empty image (empty documents are never
/// shingle-equivalent to anything).
pub fn image_fingerprint(image: &Image) -> Option<u64> {
    if image.is_empty() {
        return None;
    }
    let mut buf = Vec::with_capacity(8 * image.len());
    for x in &image.values {
        buf.extend_from_slice(&x.to_le_bytes());
    }
    Some(xxh3_64_with_seed(&buf, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sk(scheme: Scheme, n: usize) -> Sketcher {
        let cfg = SketchConfig {
            scheme,
            size: n,
            modulus: 4,
            seed: 9,
            weighting: None,
        };
        Sketcher::new(ShingleConfig::default(), cfg).unwrap()
    }

    #[test]
    fn bottom_k_is_n_smallest_permuted() {
        let s = sk(Scheme::BottomK, 16);
        for len in [3usize, 16, 40, 65, 300, 1000, 5000] {
            let mut xs: Vec<u64> = (0..len as u64).map(|i| i * 7919 % 1000).collect();
            let mut want: Vec<u64> = xs.iter().map(|&x| s.pi.apply(x)).collect();
            want.sort_unstable();
            want.dedup();
            want.truncate(16);
            assert_eq!(s.sketch_hashes(&mut xs).values(), &want[..], "len {len}");
        }
    }

    /// The threshold pass and its fallback (many repeated values, few distinct ones) give
    /// the n smallest distinct permuted values, for sizes around the threshold's margins.
    #[test]
    fn bottom_k_threshold_and_fallback() {
        for n in [1usize, 7, 128, 200] {
            let s = sk(Scheme::BottomK, n);
            for len in [n, n + 1, 2 * n, 3 * n + 50, 10 * n + 100] {
                for distinct in [1u64, n as u64 / 2 + 1, n as u64, len as u64] {
                    let mut xs: Vec<u64> = (0..len as u64).map(|i| fmix64(i % distinct)).collect();
                    let mut want: Vec<u64> = xs.iter().map(|&x| s.pi.apply(x)).collect();
                    want.sort_unstable();
                    want.dedup();
                    want.truncate(n);
                    let got = s.sketch_hashes(&mut xs);
                    assert_eq!(
                        got.values(),
                        &want[..],
                        "n {n} len {len} distinct {distinct}"
                    );
                }
            }
        }
    }

    #[test]
    fn k_mins_is_min_per_permutation() {
        let s = sk(Scheme::KMins, 8);
        let mut xs: Vec<u64> = (0..11u64).map(fmix64).collect();
        let img = s.sketch_hashes(&mut xs.clone());
        for i in 0..8 {
            let m = xs
                .iter()
                .map(|&x| s.a[i].wrapping_mul(x).wrapping_add(s.b[i]))
                .min()
                .unwrap();
            assert_eq!(img.values()[i], m);
        }
        xs.clear();
        assert!(s.sketch_hashes(&mut xs).is_empty());
    }

    #[test]
    fn oph_bins_and_densification() {
        let s = sk(Scheme::OnePermutation, 64);
        let mut xs: Vec<u64> = (0..5u64).map(fmix64).collect();
        let img = s.sketch_hashes(&mut xs.clone());
        assert_eq!(img.len(), 64);
        let mut own = 0;
        for (i, &v) in img.values().iter().enumerate() {
            // every value is the permuted value of some input
            assert!(xs.iter().any(|&x| s.pi.apply(x) == v));
            if reduce(v, 64) == i {
                own += 1;
                let m = xs
                    .iter()
                    .map(|&x| s.pi.apply(x))
                    .filter(|&y| reduce(y, 64) == i)
                    .min();
                assert_eq!(m, Some(v));
            }
        }
        let distinct_bins: std::collections::BTreeSet<usize> =
            xs.iter().map(|&x| reduce(s.pi.apply(x), 64)).collect();
        assert_eq!(own, distinct_bins.len());
        xs.clear();
        assert!(s.sketch_hashes(&mut xs).is_empty());
    }

    #[test]
    fn oph_single_shingle_fills_every_bin() {
        let s = sk(Scheme::OnePermutation, 4096);
        let img = s.sketch_hashes(&mut [12345]);
        let v = s.pi.apply(12345);
        assert!(img.values().iter().all(|&x| x == v));
    }

    #[test]
    fn mod_m_keeps_multiples() {
        let s = sk(Scheme::ModM, 0);
        let mut xs: Vec<u64> = (0..400u64).collect();
        let img = s.sketch_hashes(&mut xs);
        let want: Vec<u64> = {
            let mut w: Vec<u64> = (0..400u64)
                .map(|x| s.pi.apply(x))
                .filter(|y| y % 4 == 0)
                .collect();
            w.sort_unstable();
            w
        };
        assert_eq!(img.values(), &want[..]);
        assert!(img.len() > 50 && img.len() < 150);
    }

    #[test]
    fn keys_match_shared_elements() {
        for scheme in Scheme::ALL {
            let s = sk(scheme, 32);
            let mut a: Vec<u64> = (0..100u64).collect();
            let mut b: Vec<u64> = (50..160u64).collect();
            let (ia, ib) = (s.sketch_hashes(&mut a), s.sketch_hashes(&mut b));
            let (mut ka, mut kb) = (Vec::new(), Vec::new());
            ia.keys(scheme, &mut ka);
            ib.keys(scheme, &mut kb);
            assert_eq!(
                intersection_size(&ka, &kb),
                shared_elements(&ia, &ib, scheme),
                "{scheme}"
            );
            assert!(shared_elements(&ia, &ib, scheme) > 0, "{scheme}");
        }
    }

    #[test]
    fn positional_keys_distinguish_positions() {
        let a = Image::from_values(vec![5, 6]);
        let b = Image::from_values(vec![6, 5]);
        let (mut ka, mut kb) = (Vec::new(), Vec::new());
        a.keys(Scheme::KMins, &mut ka);
        b.keys(Scheme::KMins, &mut kb);
        assert_eq!(intersection_size(&ka, &kb), 0);
        assert_eq!(shared_elements(&a, &b, Scheme::KMins), 0);
        a.keys(Scheme::BottomK, &mut kb);
        assert_eq!(kb.len(), 4);
    }

    #[test]
    fn super_shingles_and_fingerprints() {
        let cfg = SketchConfig {
            scheme: Scheme::KMins,
            size: 8,
            ..Default::default()
        };
        let a = Image::from_values((0..8).collect());
        let mut bv: Vec<u64> = (0..8).collect();
        bv[5] = 99;
        let b = Image::from_values(bv);
        let (sa, sb) = (
            super_shingles(&a, &cfg, 4, 2),
            super_shingles(&b, &cfg, 4, 2),
        );
        assert_eq!(sa.len(), 4);
        assert_eq!(intersection_size(&sa, &sb), 3);
        assert!(super_shingles(&Image::empty(), &cfg, 4, 2).is_empty());
        // Sorted: windows of 3 starting at 0..count.
        let cfg = SketchConfig::default();
        let x = Image::from_values(vec![1, 2, 3, 4, 5]);
        let y = Image::from_values(vec![1, 2, 3, 9, 10]);
        let (sx, sy) = (
            super_shingles(&x, &cfg, 10, 3),
            super_shingles(&y, &cfg, 10, 3),
        );
        assert_eq!(sx.len(), 3);
        assert_eq!(intersection_size(&sx, &sy), 1);
        assert_eq!(image_fingerprint(&Image::empty()), None);
        assert_eq!(image_fingerprint(&x), image_fingerprint(&x.clone()));
        assert_ne!(image_fingerprint(&x), image_fingerprint(&y));
    }

    #[test]
    fn config_validation() {
        let mut c = SketchConfig::default();
        assert!(c.validate().is_ok());
        c.size = 0;
        assert!(c.validate().is_err());
        c.scheme = Scheme::ModM;
        assert!(c.validate().is_ok());
        c.modulus = 0;
        assert!(c.validate().is_err());
        let c = SketchConfig {
            weighting: Some(Weighting::TfIdf { total: 100 }),
            ..Default::default()
        };
        assert!(Sketcher::new(ShingleConfig::default(), c).is_err());
        assert!(Sketcher::with_doc_freq(ShingleConfig::default(), c, DocFreq::new()).is_ok());
        assert_eq!("k-mins".parse::<Scheme>().unwrap(), Scheme::KMins);
        assert!("kmins".parse::<Scheme>().is_err());
    }
}
