//! Parquet in a build without the `parquet` feature: every entry point refuses the file
//! with an [`Error::Format`] naming it and saying how to build with Parquet, so a Parquet
//! corpus is never read as another format and nothing is written.

use std::path::Path;

use crate::corpus::reader::{Raw, Source};
use crate::corpus::{CorpusConfig, CorpusStats};
use crate::{DocId, Error, Result};

/// The error every entry point returns.
fn absent(path: &Path) -> Error {
    Error::format(
        path,
        "a Parquet corpus, but this build of fimdup has no Parquet support; build it with the \
         `parquet` feature (`cargo build --release --features parquet`, or `--features full`)",
    )
}

/// The Parquet reader's place: opening refuses the corpus.
pub(in crate::corpus) struct ParquetDocs;

impl ParquetDocs {
    pub(in crate::corpus) fn open(path: &Path, _cfg: &CorpusConfig) -> Result<Self> {
        Err(absent(path))
    }

    pub(in crate::corpus) fn open_window(
        path: &Path,
        _cfg: &CorpusConfig,
        _start: u64,
        _end: u64,
    ) -> Result<Self> {
        Err(absent(path))
    }
}

impl Source for ParquetDocs {
    fn next_raw(&mut self, _stats: &mut CorpusStats) -> Result<Option<Raw>> {
        Ok(None)
    }
}

/// See the `parquet` feature's `write_kept_parquet`; refuses `input`.
pub fn write_kept_parquet(
    input: &Path,
    _cfg: &CorpusConfig,
    _keep: &dyn Fn(DocId) -> bool,
    _out: &Path,
) -> Result<u64> {
    Err(absent(input))
}

/// See the `parquet` feature's `write_kept_part`; refuses `input`.
pub fn write_kept_part(
    input: &Path,
    _first: &Path,
    _parts: &[(&Path, crate::corpus::split::LineRange)],
    _jsonl: bool,
    _cfg: &CorpusConfig,
    _keep: &dyn Fn(DocId) -> bool,
    _out: &Path,
) -> Result<u64> {
    Err(absent(input))
}

/// See the `parquet` feature's `write_kept_jsonl`; refuses `input`.
pub fn write_kept_jsonl(
    input: &Path,
    _cfg: &CorpusConfig,
    _keep: &dyn Fn(DocId) -> bool,
    _out: &Path,
) -> Result<u64> {
    Err(absent(input))
}

/// See the `parquet` feature's `jsonl_to_parquet`; refuses to write `out`.
pub fn jsonl_to_parquet(_jsonl: &Path, out: &Path) -> Result<u64> {
    Err(absent(out))
}

/// See the `parquet` feature's `for_each_document_json`; refuses `input`.
pub fn for_each_document_json(
    input: &Path,
    _cfg: &CorpusConfig,
    _column: Option<&str>,
    _f: impl FnMut(&[u8]) -> Result<()>,
) -> Result<u64> {
    Err(absent(input))
}
