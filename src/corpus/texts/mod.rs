//! An in-memory corpus handed over by a program (the Python package) as an Arrow C stream of
//! record batches (`ArrowTexts::from_arrow_stream`, with the `parquet` feature, which
//! brings Arrow): the batches are kept as they came (the Arrow C data interface: the strings
//! are never copied into other objects), and every job reads them in place, as the corpus
//! [`Format::Texts`](super::Format::Texts) that [`SharedTexts::config`] describes, named
//! [`TEXTS_NAME`] where a corpus has a path. A program may keep the texts themselves and
//! hand over only the id and key columns (`OuterTexts`, `ArrowTexts::from_outer_texts`:
//! the Python package's own `str` objects, read where they are).
//!
//! Invariants: row `i` of the stream (across batches) is DocId `i` (no text is skipped as
//! oversized); its external id is column `id` (an int64 as its decimal string, a string as
//! itself) or, without that column, the position `i`; its record (what a JSONL corpus of
//! the same documents holds on line `i + 1`, [`SharedTexts::record`]) is
//! `{"id":..,"text":..}` with `"key":..` when there is a key column, so kept records, keys
//! and the content hash are those of that JSONL file. The columns are checked when the
//! stream is imported: a null text, id or string key, a key that is not finite or the
//! wrong Arrow type is an error naming `texts[i]`, `ids[i]` or `keys[i]`. Errors that a job
//! meets in the texts name the position, `texts[i]` ([`rename_error`]).

#[cfg(not(feature = "parquet"))]
mod absent;
#[cfg(feature = "parquet")]
mod arrow;
/// Without the `parquet` feature, the place of the Arrow reader's tests: one ignored test
/// that names the feature, so that a run lists what it left out.
#[cfg(all(test, not(feature = "parquet")))]
mod arrow {
    #[test]
    #[ignore = "needs the `parquet` feature"]
    fn left_out() {}
}
mod read;
mod shared;

#[cfg(not(feature = "parquet"))]
pub use absent::ArrowTexts;
#[cfg(feature = "parquet")]
pub use arrow::{ArrowTexts, FFI_ArrowArrayStream, OuterTexts};
pub(super) use read::TextsDocs;
pub use shared::{rename_error, SharedTexts};

/// The name the in-memory texts have where a corpus has a path (in errors, reports).
pub const TEXTS_NAME: &str = "<texts>";

/// The external id of one in-memory document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextId<'a> {
    /// An integer id (a JSON number in the record), or the position.
    Int(i64),
    /// A string id.
    Str(&'a str),
}

/// A value of the `key` column, for the keep policy `field:key` of a deduplication.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TextKey<'a> {
    /// A finite number.
    Num(f64),
    /// A string.
    Str(&'a str),
    /// No value (taken last).
    Missing,
}
