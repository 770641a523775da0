//! Corpus readers: streams of documents from JSONL, CSV/TSV, plain lines, directories and
//! WARC files, any of them gzip-compressed.
//!
//! Invariant: documents come out in input order with dense [`DocId`]s 0, 1, 2, ... and their
//! external id strings; readers stream and never hold the whole corpus unless asked.

use crate::DocId;

/// One input document.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Document {
    /// Dense id in input order.
    pub id: DocId,
    /// The id the input gave it (JSON field, CSV column, line number, relative path, URI).
    pub ext_id: String,
    /// The document text (decoded lossily if it was not valid UTF-8).
    pub text: String,
    /// True when invalid UTF-8 was replaced while decoding.
    pub lossy: bool,
}
