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

//!
//! Parquet and Arrow are the `parquet` feature (on by default). A build without it still
//! recognizes Parquet corpora (a `.parquet` name, a directory holding one) and refuses them
//! with an error saying how to build with it (`absent.rs`), so a format is never mistaken for
//! another.

use std::path::Path;

#[cfg(not(feature = "parquet"))]
mod absent;
#[cfg(feature = "parquet")]
mod columns;
#[cfg(feature = "parquet")]
mod read;
#[cfg(feature = "parquet")]
mod write;

#[cfg(not(feature = "parquet"))]
pub(super) use absent::ParquetDocs;
#[cfg(not(feature = "parquet"))]
pub use absent::{
    for_each_document_json, jsonl_to_parquet, write_kept_jsonl, write_kept_parquet, write_kept_part,
};
#[cfg(feature = "parquet")]
pub(super) use read::ParquetDocs;
#[cfg(feature = "parquet")]
pub use write::{
    for_each_document_json, jsonl_to_parquet, write_kept_jsonl, write_kept_parquet, write_kept_part,
};

/// Where each row group of the Parquet file `path` starts, in bytes (in file order): a
/// divided run cuts the file there ([`crate::corpus::split::assign_pieces`]).
pub fn row_group_starts(path: &Path) -> crate::Result<Vec<u64>> {
    #[cfg(feature = "parquet")]
    {
        let f = columns::ParquetFile::open(path)?;
        Ok(f.row_group_spans().into_iter().map(|s| s.0).collect())
    }
    #[cfg(not(feature = "parquet"))]
    {
        ParquetDocs::open(path, &super::CorpusConfig::default()).map(|_| Vec::new())
    }
}

/// The files of the Parquet corpus at `path` in the order the reader reads them (the file
/// itself, or the `*.parquet` files of a directory), each with its rows as its footer
/// counts them: a divided run reads each file by its row groups, and an id that is a row
/// number counts on over the files ([`row_id`]).
pub fn files_with_rows(path: &Path) -> crate::Result<Vec<(std::path::PathBuf, u64)>> {
    #[cfg(feature = "parquet")]
    {
        let files = columns::list_files(path)?;
        let mut out = Vec::with_capacity(files.len());
        for p in files {
            let rows = columns::ParquetFile::open(&p)?.row_group_spans();
            out.push((p, rows.iter().map(|s| s.1).sum()));
        }
        Ok(out)
    }
    #[cfg(not(feature = "parquet"))]
    {
        ParquetDocs::open(path, &super::CorpusConfig::default()).map(|_| Vec::new())
    }
}

/// The external id of row `row` (1-based, in its file) of a Parquet corpus without an id
/// column, after `rows_before` rows of the files before its file: its number across the
/// corpus.
pub fn row_id(rows_before: u64, row: u64) -> String {
    (rows_before + row).to_string()
}

/// Whether the calling thread is inside a call to the Parquet decoder that the reader
/// guards: a panic raised there is caught and becomes an error naming the file, so a panic
/// hook need not print it (the binary's does not; the fuzz targets do not count it as a
/// crash). False in a build without the `parquet` feature.
pub fn decoder_panic_is_caught() -> bool {
    #[cfg(feature = "parquet")]
    {
        columns::inside_guard()
    }
    #[cfg(not(feature = "parquet"))]
    {
        false
    }
}

/// Whether a file name ends in `.parquet` (case-insensitive).
pub(super) fn is_parquet_name(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}

/// Whether a directory holds a `*.parquet` file (recursively, hidden names skipped);
/// false when it cannot be listed.
pub(super) fn dir_has_parquet(dir: &Path) -> bool {
    let mut files = Vec::new();
    crate::corpus::dir::walk(dir, "", &mut files).is_ok()
        && files.iter().any(|(_, p)| is_parquet_name(p))
}
