//! Corpus readers: streams of documents from JSONL, CSV/TSV, plain lines, directories and
//! WARC files, any of them gzip- or zstd-compressed, and Parquet files (alone or a directory
//! of them).
//!
//! [`open`] picks a reader by [`CorpusConfig::format`] or by guessing from the path
//! ([`Format::guess`]) and returns a [`CorpusReader`], an iterator of
//! `Result<`[`Document`]`>`; [`CorpusReader::next_batch`] hands out batches for parallel
//! canonicalization. What each format yields:
//!
//! | format | one document per | external id | text |
//! |---|---|---|---|
//! | `jsonl` | non-blank line (a JSON object) | field `id_field`: a string, or a number (integers as written, others as serde_json prints them); empty `id_field`: the line number | field `text_field` (a string) |
//! | `csv`, `tsv` | data row (a header row names the columns) | column `id_column`; empty `id_column`: the line number where the row starts | column `text_column` |
//! | `lines` | line (blank lines included: they are empty documents) | 1-based line number | the line without its line end |
//! | `dir` | regular file, recursive, sorted by relative path; names starting with `.` skipped | relative path with `/` separators | file content (`*.gz`, `*.zst` decompressed) |
//! | `warc` | `response` record (others skipped and counted) | `WARC-Target-URI` | HTTP body after the HTTP headers |
//! | `parquet` | row of a `*.parquet` file, or of every `*.parquet` file of a directory (recursive, sorted by relative path, names starting with `.` skipped); see [`parquet`] | column `id_column` (a string, or an integer in decimal; `a.b` is field `b` of struct column `a`); empty `id_column`: the row number across the corpus | column `text_column` (a string, or binary decoded lossily) |
//!
//! A UTF-8 byte order mark at the start of a file is dropped (a file holding only one is
//! empty); a zero-byte `*.gz` or `*.zst` file is an empty input. A directory holding a
//! `*.parquet` file is guessed to be a Parquet corpus (its other files are ignored); give
//! `dir` to read every file as a document. Parquet is never read from standard input, nor
//! through gzip or zstd (it compresses its own pages); positions in its messages are the
//! file and the 1-based row within it.
//! CSV and TSV follow the same quoting (RFC 4180, as pandas writes them, with a comma or a
//! tab between fields): a field that starts with `"` is quoted (it may hold separators and
//! line breaks, and `""` is one `"`); a field that does not keeps every `"` in it literally
//! (`5" screen`).
//! Invalid UTF-8 is decoded lossily (U+FFFD) and counted in [`CorpusStats::lossy_utf8`].
//! Malformed lines (bad JSON, not an object, missing or non-string text, missing id, ragged
//! CSV/TSV rows, Parquet rows with a null text or id) are an [`Error::Parse`](crate::Error::Parse)
//! naming the file and line, or, with [`CorpusConfig::skip_bad_lines`], skipped and counted.
//! Structural damage (truncated or malformed WARC records or Parquet files, a CSV/TSV file
//! ending inside a quoted field, corrupt gzip or zstd, a missing Parquet column or one of the
//! wrong type, I/O errors) is always an error. After the first
//! error the reader is finished (it yields `None`).
//!
//! A document larger than [`CorpusConfig::max_doc_bytes`] (a JSONL or plain-text line, a
//! directory file, a WARC record block or decoded HTTP body, a Parquet text) is skipped, read past without
//! being held, and counted in [`CorpusStats::skipped_oversized`]; a longer CSV/TSV row or
//! WARC header line is an error. A repeated external id is an error naming both places or
//! renamed, as [`CorpusConfig::duplicate_ids`] says (see [`DuplicateIds`]).
//!
//! A corpus may be **sharded** ([`shards`]): a pattern such as `data/part-*.jsonl.zst`, or
//! a directory given with a record format (`--format jsonl`, `csv`, `tsv`, `lines`,
//! `warc`), names many files of one format that are read, sorted by name, each by its
//! format's reader, as one corpus: DocIds run on over the shards, positions in messages are
//! the shard's, and ids that are positions are `shard-name:position`. A divided run reads
//! a sharded corpus, and a directory of Parquet files, file by file ([`split`]).
//!
//! [`texts`] holds documents handed over in memory (the Python package's, as Arrow record
//! batches) and reads them in place as [`Format::Texts`]: one document per text, in order,
//! external id the `id` column (an integer in decimal, or a string) or the 0-based position,
//! nothing skipped; the corpus path is only their name, `<texts>`.
//!
//! Invariant: documents come out in input order with dense [`DocId`](crate::DocId)s 0, 1, 2, ... and their
//! external id strings, distinct within the input (unless [`DuplicateIds::Keep`]); readers
//! stream and never hold the whole corpus unless asked (a directory reader holds the list of
//! file paths, one file's content at a time; a Parquet reader one batch of rows of one row
//! group; in-memory texts are held by their owner, and read without a copy but for the
//! document handed on), nor any document larger than the limit (a Parquet text longer than
//! the limit is decoded with its batch, but never handed on; in-memory texts have no limit).

mod cap;
mod config;
mod csv;
pub(crate) mod dialect;
mod dir;
mod format;
mod id_table;
mod input;
mod jsonl;
mod lines;
pub mod par;
pub mod parquet;
mod reader;
pub mod remote;
pub mod shards;
pub mod split;
pub mod texts;
mod unique;
pub mod warc;

pub(crate) use cap::{refuse_over_cap, MAX_DOCUMENTS};
pub use config::{CorpusConfig, DEFAULT_MAX_DOC_BYTES};
pub(crate) use dir::walk;
pub use format::Format;
pub use id_table::{id_table_path, read_id_table, write_id_table, IdTableWriter, ID_TABLE_HEADER};
pub use jsonl::ext_id_from_json;
pub use reader::{open, open_row_groups, CorpusReader, CorpusStats, Document};
#[cfg(feature = "distributed")]
pub(crate) use unique::duplicate_error;
#[cfg(feature = "distributed")]
pub(crate) use unique::ids_can_repeat;
pub use unique::{duplicate_id_error, first_repeat, Duplicate, DuplicateIds, IdCheck};
