//! [`ArrowTexts`] in a build without the `parquet` feature (no Arrow): a type with no value,
//! so no in-memory corpus can be made and its readers are never reached.

use super::{TextId, TextKey};

/// In-memory texts; none can be made without the `parquet` feature.
#[derive(Debug)]
pub enum ArrowTexts {}

impl ArrowTexts {
    /// Number of documents.
    pub fn len(&self) -> u64 {
        match *self {}
    }

    /// True when there is no document.
    pub fn is_empty(&self) -> bool {
        match *self {}
    }

    /// Whether the ids are a column.
    pub fn has_ids(&self) -> bool {
        match *self {}
    }

    /// The text of document `i`.
    pub fn text(&self, _i: u64) -> &str {
        match *self {}
    }

    /// The external id of document `i`.
    pub fn id(&self, _i: u64) -> TextId<'_> {
        match *self {}
    }

    /// The key of document `i`.
    pub fn key(&self, _i: u64) -> Option<TextKey<'_>> {
        match *self {}
    }
}
