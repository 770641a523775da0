//! CSV and TSV: one document per data row; a header row names the columns.
//!
//! TSV is read without quoting (a `"` is an ordinary character); CSV uses RFC 4180
//! quoting. Invariant: every row holds as many fields as the header (a ragged row is an
//! error naming its line, or skipped with `skip_bad_lines`); an empty input holds no
//! documents; a row longer than the largest document size is an error naming its line,
//! found after reading at most that size plus [`READ_AHEAD`] bytes of it (quoting makes the
//! end of a row unknowable without reading it, so it is not skipped).

use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::input::{decode, decode_ref, open_read, read_err};
use super::reader::{Raw, Source};
use super::{CorpusConfig, CorpusStats, Format};
use crate::{Error, Result};

/// Bytes the CSV parser may read beyond the row it is parsing (more than its buffer).
pub(super) const READ_AHEAD: u64 = 1 << 16;

/// The input of the CSV parser, failing once more than `max` bytes were read since the
/// last row ended (`since` is reset after each row).
struct Capped {
    inner: Box<dyn BufRead + Send>,
    since: Arc<AtomicU64>,
    max: u64,
}

/// The marker of a row longer than allowed, carried through the CSV parser as an I/O error.
#[derive(Debug)]
struct RowTooLong;

impl std::fmt::Display for RowTooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("row too long")
    }
}

impl std::error::Error for RowTooLong {}

impl Read for Capped {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let since = self.since.fetch_add(n as u64, Ordering::Relaxed) + n as u64;
        if since > self.max.saturating_add(READ_AHEAD) {
            return Err(std::io::Error::other(RowTooLong));
        }
        Ok(n)
    }
}

pub(super) struct Delimited {
    rdr: ::csv::Reader<Capped>,
    since: Arc<AtomicU64>,
    max: u64,
    path: PathBuf,
    text_col: usize,
    id_col: Option<usize>,
    skip_bad: bool,
    rec: ::csv::ByteRecord,
    /// The header row as read.
    headers: ::csv::ByteRecord,
    /// Tab-separated without quoting (else comma-separated with RFC 4180 quoting).
    tsv: bool,
    /// Header-less empty input.
    empty: bool,
}

/// Writes `rec` as one row of `\n`-terminated CSV (quoting only where needed) or TSV.
fn write_row(rec: &::csv::ByteRecord, tsv: bool, out: &mut Vec<u8>) {
    if tsv {
        for (i, f) in rec.iter().enumerate() {
            if i > 0 {
                out.push(b'\t');
            }
            out.extend_from_slice(f);
        }
        out.push(b'\n');
        return;
    }
    let mut w = ::csv::WriterBuilder::new()
        .terminator(::csv::Terminator::Any(b'\n'))
        .from_writer(out);
    // Writing to a vector cannot fail.
    let _ = w.write_byte_record(rec);
    let _ = w.flush();
}

impl Delimited {
    pub(super) fn open(path: &Path, format: Format, cfg: &CorpusConfig) -> Result<Self> {
        let since = Arc::new(AtomicU64::new(0));
        let r = Capped {
            inner: open_read(path)?,
            since: since.clone(),
            max: cfg.max_doc_bytes,
        };
        let tsv = format == Format::Tsv;
        let mut rdr = ::csv::ReaderBuilder::new()
            .delimiter(if tsv { b'\t' } else { b',' })
            .quoting(!tsv)
            .has_headers(true)
            .flexible(false)
            .from_reader(r);
        let headers = rdr
            .byte_headers()
            .map_err(|e| csv_err(path, 1, e, cfg.max_doc_bytes))?
            .clone();
        since.store(0, Ordering::Relaxed);
        let names: Vec<String> = headers
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let h = if i == 0 {
                    h.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(h)
                } else {
                    h
                };
                String::from_utf8_lossy(h).trim().to_string()
            })
            .collect();
        // csv reports an empty header record for an empty file: no documents.
        let empty = headers.is_empty();
        let what = if tsv { "TSV" } else { "CSV" };
        let hline = headers.position().map_or(1, |p| p.line());
        let find = |want: &str, opt: &str| -> Result<usize> {
            names.iter().position(|n| n == want).ok_or_else(|| {
                Error::parse(
                    path,
                    hline,
                    format!(
                        "no column {want:?} in the {what} header (columns: {}); expected a header naming it ({opt})",
                        names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
                    ),
                )
            })
        };
        let (text_col, id_col) = if empty {
            (0, None)
        } else {
            let t = find(&cfg.text_column, "the configured text column")?;
            let i = if cfg.id_column.is_empty() {
                None
            } else {
                Some(find(
                    &cfg.id_column,
                    "the configured id column; an empty id column name numbers the lines",
                )?)
            };
            (t, i)
        };
        Ok(Delimited {
            rdr,
            since,
            max: cfg.max_doc_bytes,
            path: path.to_path_buf(),
            text_col,
            id_col,
            skip_bad: cfg.skip_bad_lines,
            rec: ::csv::ByteRecord::new(),
            headers,
            tsv,
            empty,
        })
    }
}

/// The error of a row longer than `max` bytes starting at `line`.
fn too_long(path: &Path, line: u64, max: u64) -> Error {
    Error::parse(
        path,
        line,
        format!(
            "row longer than {max} bytes; expected rows no larger than the largest document size"
        ),
    )
}

fn csv_err(path: &Path, fallback_line: u64, e: ::csv::Error, max: u64) -> Error {
    let line = e.position().map_or(fallback_line, |p| p.line());
    match e.into_kind() {
        ::csv::ErrorKind::Io(io) if io.get_ref().is_some_and(|i| i.is::<RowTooLong>()) => {
            too_long(path, line, max)
        }
        ::csv::ErrorKind::Io(io) => read_err(path, line, io),
        ::csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => Error::parse(
            path,
            line,
            format!("found {len} fields; expected {expected_len} (as many as the header)"),
        ),
        other => Error::parse(path, line, format!("{other:?}")),
    }
}

impl Source for Delimited {
    fn next_raw(&mut self, stats: &mut CorpusStats) -> Result<Option<Raw>> {
        if self.empty {
            return Ok(None);
        }
        loop {
            // The line the next row starts on (for an error while reading it).
            let next_line = self.rdr.position().line();
            let read = self.rdr.read_byte_record(&mut self.rec);
            self.since.store(0, Ordering::Relaxed);
            match read {
                Ok(false) => return Ok(None),
                Ok(true) if self.rec.as_slice().len() as u64 > self.max => {
                    return Err(too_long(&self.path, next_line, self.max))
                }
                Ok(true) => {}
                Err(e) => {
                    if self.skip_bad && matches!(e.kind(), ::csv::ErrorKind::UnequalLengths { .. })
                    {
                        stats.skipped_bad_lines += 1;
                        continue;
                    }
                    return Err(csv_err(&self.path, next_line, e, self.max));
                }
            }
            let line = self.rec.position().map_or(0, |p| p.line());
            let Some(t) = self.rec.get(self.text_col) else {
                // Unreachable with flexible(false), but never index out of bounds.
                if self.skip_bad {
                    stats.skipped_bad_lines += 1;
                    continue;
                }
                return Err(Error::parse(&self.path, line, "missing the text column"));
            };
            let (text, lossy_t) = decode(t.to_vec());
            let (ext_id, lossy_i) = match self.id_col {
                Some(c) => {
                    let (s, l) = decode_ref(self.rec.get(c).unwrap_or(b""));
                    (s.into_owned(), l)
                }
                None => (line.to_string(), false),
            };
            return Ok(Some(Raw {
                line,
                ext_id,
                text,
                lossy: lossy_t || lossy_i,
            }));
        }
    }

    fn record(&self, out: &mut Vec<u8>) -> bool {
        write_row(&self.rec, self.tsv, out);
        true
    }

    fn preamble(&self, out: &mut Vec<u8>) {
        if !self.empty {
            write_row(&self.headers, self.tsv, out);
        }
    }
}
