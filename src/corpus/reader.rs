//! The streaming reader: [`open`] picks a format's source, and [`CorpusReader`] numbers its
//! documents, checks their external ids ([`super::IdCheck`]) and counts them.
//!
//! Invariant: documents come out in input order with dense [`DocId`]s 0, 1, 2, ... and
//! external ids that are unique (or renamed to be, see [`super::DuplicateIds`]); after the
//! first error the reader is finished (it yields `None`).

use std::fmt;
use std::path::{Path, PathBuf};

use super::unique::{check_for, duplicate_error, first_occurrence, IdCheck};
use super::{csv, dir, jsonl, lines, parquet, shards, texts, warc, CorpusConfig, Format};
use crate::{DocId, Error, Result};

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

/// Counts gathered while reading (read them after the iteration, or at any time).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CorpusStats {
    /// Documents yielded.
    pub documents: u64,
    /// Documents whose text had invalid UTF-8 (decoded lossily).
    pub lossy_utf8: u64,
    /// Documents whose text is empty or only whitespace (kept).
    pub empty: u64,
    /// Total bytes of document text (after decoding).
    pub text_bytes: u64,
    /// Malformed lines (and Parquet rows) skipped with `skip_bad_lines`.
    pub skipped_bad_lines: u64,
    /// WARC records that are not `response` records (skipped).
    pub skipped_records: u64,
    /// Documents larger than the largest document size (skipped): JSONL and plain-text
    /// lines, directory files, WARC record blocks, Parquet texts.
    pub skipped_oversized: u64,
    /// Repeated external ids renamed (`X#2`, ...) with [`super::DuplicateIds::Suffix`].
    pub renamed_ids: u64,
    /// Files read (1, or the number of files of a directory or Parquet corpus).
    pub files: u64,
}

impl CorpusStats {
    /// Adds the counts of `b` (another part of the same input) to these.
    pub fn add(&mut self, b: &CorpusStats) {
        self.documents += b.documents;
        self.lossy_utf8 += b.lossy_utf8;
        self.empty += b.empty;
        self.text_bytes += b.text_bytes;
        self.skipped_bad_lines += b.skipped_bad_lines;
        self.skipped_records += b.skipped_records;
        self.skipped_oversized += b.skipped_oversized;
        self.renamed_ids += b.renamed_ids;
        self.files += b.files;
    }
}

impl CorpusStats {
    /// Counts one document yielded with `text` (`lossy`: decoded with replacements).
    #[inline]
    pub(super) fn count_document(&mut self, text: &str, lossy: bool) {
        self.documents += 1;
        self.lossy_utf8 += u64::from(lossy);
        self.empty += u64::from(text.trim().is_empty());
        self.text_bytes += text.len() as u64;
    }
}

/// The error of a corpus with more documents than 32-bit DocIds can number.
pub(super) fn too_many_documents(path: &Path) -> Error {
    Error::Limit(format!(
        "{}: more than {} documents; DocIds are 32-bit",
        path.display(),
        u64::from(u32::MAX) + 1
    ))
}

/// A document before it gets its DocId.
pub(super) struct Raw {
    /// 1-based line where the document starts (WARC: its record's version line; a
    /// directory: 1; Parquet: its row in its file; in-memory texts: the position plus 1).
    pub(super) line: u64,
    pub(super) ext_id: String,
    pub(super) text: String,
    pub(super) lossy: bool,
}

/// One format's documents in input order (the reader numbers and counts them).
pub(super) trait Source: Send {
    /// The next document, `None` at the end; skipped lines and records go to `stats`.
    fn next_raw(&mut self, stats: &mut CorpusStats) -> Result<Option<Raw>>;

    /// Appends the record of the last document returned, as the input wrote it (a line
    /// with its line end, a CSV row, a WARC record); false when the format has no such
    /// record (a file of a directory).
    fn record(&self, _out: &mut Vec<u8>) -> bool {
        false
    }

    /// Appends what an output of records must start with (the header row of CSV/TSV).
    fn preamble(&self, _out: &mut Vec<u8>) {}

    /// The file the last document came from, when the source reads several files whose
    /// positions are counted per file (Parquet directories); `None`: the corpus path.
    fn file(&self) -> Option<&Path> {
        None
    }
}

/// The reader of one file (or directory, or in-memory texts) of `format`.
pub(super) fn source_for(
    path: &Path,
    format: Format,
    cfg: &CorpusConfig,
) -> Result<Box<dyn Source>> {
    Ok(match format {
        Format::Jsonl => Box::new(jsonl::Jsonl::open(path, cfg)?),
        Format::Csv | Format::Tsv => Box::new(csv::Delimited::open(path, format, cfg)?),
        Format::Lines => Box::new(lines::Lines::open(path, cfg.max_doc_bytes)?),
        Format::Dir => Box::new(dir::Dir::open(path, cfg.max_doc_bytes)?),
        Format::Warc => Box::new(warc::WarcDocs::open(path, cfg.max_doc_bytes)?),
        Format::Parquet => Box::new(parquet::ParquetDocs::open(path, cfg)?),
        Format::Texts => Box::new(texts::TextsDocs::open(path, cfg)?),
    })
}

/// A streaming corpus reader: yields documents in input order with dense DocIds.
pub struct CorpusReader {
    src: Box<dyn Source>,
    path: PathBuf,
    format: Format,
    next_id: u64,
    stats: CorpusStats,
    done: bool,
    check: Option<IdCheck>,
    cfg: CorpusConfig,
    last_line: u64,
}

impl fmt::Debug for CorpusReader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CorpusReader")
            .field("path", &self.path)
            .field("format", &self.format)
            .field("stats", &self.stats)
            .finish()
    }
}

/// Opens a corpus for streaming (validates `cfg`, guesses the format if not given); a
/// sharded corpus ([`super::shards`]) reads its shards one after the other.
/// `-` reads standard input (the format must then be given; `dir` and `parquet` cannot
/// be). In-memory texts ([`Format::Texts`]) are read from [`CorpusConfig::texts`], `path`
/// being only their name.
pub fn open(path: &Path, cfg: &CorpusConfig) -> Result<CorpusReader> {
    let format = cfg.format_of(path)?;
    super::refuse_over_cap(path, cfg)?;
    let src: Box<dyn Source> = match shards::list(path, cfg)? {
        Some(list) => Box::new(shards::ShardDocs::open(list, format, cfg)?),
        None => source_for(path, format, cfg)?,
    };
    Ok(CorpusReader::with_source(path, format, cfg, src))
}

/// Opens the row groups of the Parquet file `path` whose bytes start in `[start, end)`
/// (a piece of a divided run, [`super::split::assign_pieces`]); its rows keep their
/// numbers in the file, its DocIds start at 0.
pub fn open_row_groups(
    path: &Path,
    cfg: &CorpusConfig,
    start: u64,
    end: u64,
) -> Result<CorpusReader> {
    let format = cfg.format_of(path)?;
    if format != Format::Parquet {
        return Err(Error::config(format!(
            "{}: only a Parquet file is read by row groups",
            path.display()
        )));
    }
    let src = Box::new(parquet::ParquetDocs::open_window(path, cfg, start, end)?);
    Ok(CorpusReader::with_source(path, format, cfg, src))
}

impl CorpusReader {
    fn with_source(path: &Path, format: Format, cfg: &CorpusConfig, src: Box<dyn Source>) -> Self {
        // Directories and Parquet corpora count their files as they open them.
        let files = u64::from(!matches!(format, Format::Dir | Format::Parquet));
        CorpusReader {
            src,
            path: path.to_path_buf(),
            format,
            next_id: 0,
            stats: CorpusStats {
                files,
                ..CorpusStats::default()
            },
            done: false,
            check: check_for(format, cfg),
            cfg: cfg.clone(),
            last_line: 0,
        }
    }
}

impl CorpusReader {
    /// The counts so far.
    pub fn stats(&self) -> CorpusStats {
        self.stats
    }

    /// The format being read.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The corpus path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The 1-based line where the last document yielded starts (a WARC record: its version
    /// line; a file of a directory: 1; a Parquet row: its row number in its file).
    pub fn last_line(&self) -> u64 {
        self.last_line
    }

    /// Appends the record of the last document yielded, as the input wrote it: a JSONL or
    /// plain-text line with its line end (`\n` added to a last line without one), a CSV/TSV
    /// row (written again with the same delimiter, quoting fields only where needed, and a
    /// `\n`), a WARC record (version line, headers, block and the two line ends). False for
    /// a file of a directory (copy the file instead).
    pub fn record(&self, out: &mut Vec<u8>) -> bool {
        self.src.record(out)
    }

    /// Appends what a file of records of this input starts with: the header row of a
    /// CSV/TSV file (as [`CorpusReader::record`] writes rows), nothing for other formats.
    pub fn preamble(&self, out: &mut Vec<u8>) {
        self.src.preamble(out)
    }

    /// The file the last document yielded came from: the corpus path, or for a directory of
    /// Parquet files the one being read.
    pub fn current_file(&self) -> &Path {
        self.src.file().unwrap_or(&self.path)
    }

    /// Up to `n` next documents (fewer only at the end; empty when the corpus is exhausted).
    /// On an error the documents read before it in this batch are lost with it (the error
    /// ends the reading anyway).
    pub fn next_batch(&mut self, n: usize) -> Result<Vec<Document>> {
        let mut v = Vec::with_capacity(n.min(1 << 16));
        self.fill_batch(&mut v, n)?;
        Ok(v)
    }

    /// Clears `batch` and fills it with up to `n` next documents; returns how many.
    pub fn fill_batch(&mut self, batch: &mut Vec<Document>, n: usize) -> Result<usize> {
        batch.clear();
        while batch.len() < n {
            match self.next() {
                Some(Ok(d)) => batch.push(d),
                Some(Err(e)) => return Err(e),
                None => break,
            }
        }
        Ok(batch.len())
    }

    /// Reads everything, returning the documents (holds the whole corpus: for small inputs
    /// and tests).
    pub fn read_all(self) -> Result<Vec<Document>> {
        self.collect()
    }
}

impl Iterator for CorpusReader {
    type Item = Result<Document>;

    fn next(&mut self) -> Option<Result<Document>> {
        if self.done {
            return None;
        }
        match self.src.next_raw(&mut self.stats) {
            Ok(Some(mut raw)) => {
                if self.next_id > u64::from(u32::MAX) {
                    self.done = true;
                    return Some(Err(too_many_documents(&self.path)));
                }
                self.last_line = raw.line;
                if let Some(c) = &mut self.check {
                    if let Err(d) = c.check(&mut raw.ext_id) {
                        self.done = true;
                        let first = first_occurrence(&self.path, &self.cfg, &d.id);
                        let here = self.src.file().unwrap_or(&self.path);
                        return Some(Err(duplicate_error(here, raw.line, &d, first)));
                    }
                    self.stats.renamed_ids = c.renamed();
                }
                let id = DocId(self.next_id as u32);
                self.next_id += 1;
                self.stats.count_document(&raw.text, raw.lossy);
                Some(Ok(Document {
                    id,
                    ext_id: raw.ext_id,
                    text: raw.text,
                    lossy: raw.lossy,
                }))
            }
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}
