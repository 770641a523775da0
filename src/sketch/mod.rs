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
//! | [`Scheme::SimHash`] | Charikar's `n`-bit fingerprint ([`simhash`]) | `n / 64` words, bits not elements |
//! | [`Scheme::Icws`] | `n` consistent weighted samples of the real-valued shingle weights ([`icws`]) | positional, exactly `n` |
//!
//! A positional image may keep only `b` bits of each value ([`SketchConfig::bits`], b-bit
//! minwise hashing, [`bbit`]).
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
//!   keys), where the measured error matches the binomial theory (tests/it/sketch_props.rs).
//!   One multiply and one add per (shingle, permutation) instead of a full hash.
//! * one-permutation hashing (Shrivastava & Li 2014) puts `pi(x)` in bin
//!   `floor(pi(x) * n / 2^64)` (bins are disjoint value ranges, so a value identifies its
//!   bin); empty bins are filled by optimal densification (Shrivastava 2017): empty bin `i`
//!   probes bins `j = reduce(fmix64(K ^ (i << 32 | t)), n)` for `t = 1, 2, ...` with a
//!   seed-derived `K` shared by all documents and copies the value of the first bin that was
//!   non-empty (after `min(64 n, 1024)` failed probes, which only happens for documents
//!   with a handful of shingles in a large image, it takes the next non-empty bin
//!   cyclically).
//!
//! # The code
//! `scheme` ([`Scheme`], [`SketchConfig`]), `image` ([`Image`] and its keys), `sketcher`
//! ([`Sketcher`]), `estimate` (resemblance and containment from images), `fingerprint`
//! (fingerprints and super shingles), [`hash`] (the permutations and the group hash),
//! [`weight`](mod@weight), [`bbit`] (b-bit values), [`icws`] (consistent weighted
//! sampling), [`file`](mod@file) (the images file), [`inputs`], [`pipeline`].

pub mod bbit;
mod estimate;
pub mod file;
mod fingerprint;
pub mod hash;
pub mod icws;
mod image;
pub mod inputs;
mod kmins;
mod options;
pub mod pipeline;
mod scheme;
pub mod simhash;
mod sketcher;
pub mod weight;

#[cfg(test)]
mod tests;

pub use estimate::{estimate_containment, estimate_resemblance, shared_elements};
pub use file::{ImageReader, ImageSet, ImageWriter, Shard, SketchParams, TextParams};
pub use fingerprint::{content_fingerprint, image_fingerprint, super_shingles};
pub use image::{positional_keys, Image};
pub use inputs::{
    sketch_to_file, sketch_to_file_by, sketch_to_file_keeping_prints,
    sketch_to_file_keeping_prints_by, ImageFileSink, ImageInputs,
};
pub(crate) use options::by_name;
pub use options::PipelineOptions;
pub use scheme::{Scheme, SketchConfig, MAX_SIZE};
pub(crate) use sketcher::densify;
pub use sketcher::{sketch_batch, Scratch, Sketcher};
pub use weight::{DocFreq, Weighting};
