//! Parquet corpora: one document per row of a Parquet file, or of every `*.parquet` file of a
//! directory (recursively, hidden names skipped, sorted by relative path, as Hugging Face
//! dataset shards `data/train-00000-of-00003.parquet` are laid out), read as one corpus.
//!
//! The text and the id are columns named by [`CorpusConfig::text_column`] and
//! [`CorpusConfig::id_column`](super::CorpusConfig::id_column); a field of a struct column is
//! addressed as `a.b` (a top-level column whose name holds the dots itself is found first).
//! Only those columns are decoded. Text columns: `Utf8`, `LargeUtf8`, `Utf8View`, `Binary`,
//! `LargeBinary`, `BinaryView` (binary decoded lossily as UTF-8) and dictionaries of them;
//! id columns: those, or any integer type (printed in decimal); an empty id column name
//! makes the 1-based row number across the whole corpus the id.
//!
//! Invariants: documents come in the order of files, row groups and rows; the position of a
//! row (in errors and duplicate-id messages) is its file and its 1-based row number within
//! that file; a row with a null text or id is malformed (an [`Error::Parse`](crate::Error)
//! naming file and row, or skipped and counted with `skip_bad_lines`), a text longer than
//! the largest document is skipped and counted; the readers hold one batch of rows of one
//! row group at a time, never a whole file; no input makes them panic: decoder errors, and
//! as a last line of defence decoder panics, become errors naming the file. The writers
//! ([`write_kept_parquet`], [`write_kept_jsonl`]) decide which rows are documents exactly
//! as the reader does, so a DocId means the same row to both.
//!
//! [`CorpusConfig::text_column`]: super::CorpusConfig::text_column

mod columns;
mod read;
mod write;

pub(super) use columns::dir_has_parquet;
pub(super) use read::ParquetDocs;
pub use write::{for_each_document_json, jsonl_to_parquet, write_kept_jsonl, write_kept_parquet};
