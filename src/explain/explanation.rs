//! The result types of an explanation: [`Doc`] (the input), [`Explanation`], [`Side`],
//! [`SharedShingle`], [`ConfigEcho`].
//!
//! Invariants: see the module docs of [`super`] (passages sorted and disjoint, positions
//! ascending token indices, texts canonical).

use std::ops::Range;

use super::Verdict;
use crate::shingle::ShingleConfig;
use crate::sketch::{SketchConfig, TextParams};

/// One document to explain: its id (shown as is) and its raw text (canonicalized by the
/// [`super::Explainer`]).
#[derive(Clone, Copy, Debug)]
pub struct Doc<'a> {
    /// The document's id.
    pub id: &'a str,
    /// The raw text.
    pub text: &'a str,
}

/// One side (document) of an explanation.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Side {
    /// The document's id.
    pub id: String,
    /// The canonical text (what shingles are cut from).
    pub text: String,
    /// Distinct shingles.
    pub shingles: usize,
    /// Merged, sorted, non-overlapping byte ranges of `text` covered by shared shingles.
    pub passages: Vec<Range<usize>>,
}

/// A shingle present in both documents (hash-equal, as [`crate::shingle`] hashes them).
#[derive(Clone, Debug, serde::Serialize)]
pub struct SharedShingle {
    /// Its canonical text (as it reads in A).
    pub text: String,
    /// Its hash, 16 hex digits (a string, so that JSON readers keep all 64 bits).
    pub hash: String,
    /// Token index of every occurrence in A, ascending.
    pub positions_a: Vec<usize>,
    /// Token index of every occurrence in B, ascending.
    pub positions_b: Vec<usize>,
    /// Byte range in A's canonical text of every occurrence (same order as `positions_a`).
    pub ranges_a: Vec<Range<usize>>,
    /// Byte range in B's canonical text of every occurrence (same order as `positions_b`).
    pub ranges_b: Vec<Range<usize>>,
}

/// The options the explanation was computed with.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ConfigEcho {
    /// Canonical text options.
    pub text: TextParams,
    /// Shingle length, offset and seed.
    pub shingle: ShingleConfig,
    /// The image scheme of the estimate.
    pub sketch: SketchConfig,
}

/// Everything fimdup computes about a pair of documents (see the module docs of
/// [`super`]).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Explanation {
    /// The first document.
    pub a: Side,
    /// The second document.
    pub b: Side,
    /// Exact resemblance (Jaccard) of the full shingle sets.
    pub resemblance: f64,
    /// Exact containment of A in B, `|S(A) n S(B)| / |S(A)|`.
    pub containment_ab: f64,
    /// Exact containment of B in A.
    pub containment_ba: f64,
    /// Resemblance estimated from the two images (the scheme of `config.sketch`).
    pub estimate: f64,
    /// Image elements the two images share (equal positions for positional schemes, common
    /// values for sorted ones).
    pub shared_image_elements: usize,
    /// The shingles present in both documents, ordered by their first position in A.
    pub shared_shingles: Vec<SharedShingle>,
    /// The verdict of one method at one threshold, when asked for.
    pub verdict: Option<Verdict>,
    /// Tokens of A's canonical text.
    pub tokens_a: usize,
    /// Tokens of B's canonical text.
    pub tokens_b: usize,
    /// Distinct shingles of A and B together, `|S(A) u S(B)|`.
    pub union_shingles: usize,
    /// Values in A's image.
    pub image_size_a: usize,
    /// Values in B's image.
    pub image_size_b: usize,
    /// The options used.
    pub config: ConfigEcho,
}
