//! Newtype identifiers.
//!
//! Invariant: a [`DocId`] is dense and assigned in input order (0, 1, 2, ...); the external
//! id string of each document is kept beside it by the corpus reader and written in a
//! `(doc_id, external_id)` table next to every output that uses DocIds.

use serde::{Deserialize, Serialize};

/// Dense document identifier, assigned in input order starting at 0.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct DocId(pub u32);

impl DocId {
    /// The id as a `usize` index.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl std::fmt::Display for DocId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl From<u32> for DocId {
    fn from(v: u32) -> Self {
        DocId(v)
    }
}
