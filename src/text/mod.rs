//! Canonical text: the token sequence that shingles are cut from.
//!
//! (Foundation issue: HTML stripping, Unicode lowercasing, word tokenization, stop words,
//! stemming, character mode, fingerprint of the canonical form.)
//!
//! Invariant: a [`Canonical`] holds the canonical text and the byte ranges of its tokens, in
//! order; tokens never overlap and each range lies on UTF-8 boundaries of `text`.

use std::ops::Range;

/// The unit that shingles are made of.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Words (Unicode word boundaries, digits kept).
    #[default]
    Word,
    /// Characters of the canonical character stream (whitespace collapsed).
    Char,
}

/// A document in canonical form.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Canonical {
    /// The canonical text.
    pub text: String,
    /// Byte ranges of the tokens in `text`, in order.
    pub tokens: Vec<Range<u32>>,
}

impl Canonical {
    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// True when there is no token.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// Token `i`.
    pub fn token(&self, i: usize) -> &str {
        let r = &self.tokens[i];
        &self.text[r.start as usize..r.end as usize]
    }

    /// Iterates over the tokens.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.tokens
            .iter()
            .map(move |r| &self.text[r.start as usize..r.end as usize])
    }
}
