//! CSV and TSV: one document per data row; a header row names the columns.
//!
//! Both follow the quoting of [`super::dialect`] (RFC 4180, as pandas writes them): a field
//! that starts with `"` is quoted (it may hold separators, line breaks and `""` for a
//! `"`), a field that does not keeps every `"` in it literally. Invariant: every row holds
//! as many fields as the header (a ragged row is an error naming the line it starts on, or
//! skipped with `skip_bad_lines`); an input that ends inside a quoted field is an error
//! naming the line its last row starts on (never skipped: the rest of the file was read as
//! that field); an empty input holds no documents; a row longer than the largest document
//! size is an error naming its line, found after reading at most that size plus
//! [`READ_AHEAD`] bytes of it (quoting makes the end of a row unknowable without reading
//! it, so it is not skipped). A row is written back ([`Source::record`]) through the
//! dialect's writer, which quotes a field only where needed, so it reads back equal.

use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::dialect::{self, QuoteScanner, UNCLOSED_QUOTE};
use super::input::{decode, decode_ref, open_read, read_err};
use super::reader::{Raw, Source};
use super::{CorpusConfig, CorpusStats, Format};
use crate::{Error, Result};

/// Bytes the CSV parser may read beyond the row it is parsing (more than its buffer).
pub(super) const READ_AHEAD: u64 = 1 << 16;

/// The input of the CSV parser, failing once more than `max` bytes were read since the
/// last row ended (`since` is reset after each row); `scan` follows the quoting of the bytes
/// read, to tell an input that ends inside a quoted field.
struct Capped {
    inner: Box<dyn BufRead + Send>,
    since: Arc<AtomicU64>,
    max: u64,
    scan: QuoteScanner,
    /// The input is exhausted.
    eof: bool,
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
        self.scan.feed(&buf[..n]);
        self.eof |= n == 0 && !buf.is_empty();
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
    /// Tab-separated (else comma-separated).
    tsv: bool,
    /// The line where the last row parsed (a document's or a skipped one) starts.
    last_row_line: u64,
    /// Header-less empty input.
    empty: bool,
}

/// Writes `rec` as one `\n`-terminated row of TSV or CSV, quoting only where needed.
fn write_row(rec: &::csv::ByteRecord, tsv: bool, out: &mut Vec<u8>) {
    let mut w = dialect::writer(tsv).from_writer(out);
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
            scan: QuoteScanner::new(format == Format::Tsv),
            eof: false,
        };
        let tsv = format == Format::Tsv;
        let mut rdr = dialect::reader(tsv)
            .has_headers(true)
            .flexible(false)
            .from_reader(r);
        let headers = rdr
            .byte_headers()
            .map_err(|e| csv_err(path, 1, e, cfg.max_doc_bytes))?
            .clone();
        since.store(0, Ordering::Relaxed);
        let hline = headers.position().map_or(1, |p| p.line());
        let input = rdr.get_ref();
        if input.eof && input.scan.in_quoted_field() {
            return Err(Error::parse(path, hline, UNCLOSED_QUOTE));
        }
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
            last_row_line: hline,
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
            if !matches!(read, Ok(false)) {
                self.last_row_line = next_line;
            }
            match read {
                Ok(false) if self.rdr.get_ref().scan.in_quoted_field() => {
                    return Err(Error::parse(&self.path, self.last_row_line, UNCLOSED_QUOTE))
                }
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

#[cfg(test)]
mod tests {
    use super::super::{open, CorpusConfig};
    use crate::Error;

    /// Writes `text` as `name` in a temporary directory and reads it with `cfg`: the
    /// (external id, text) of every document and each one's record as written back, or
    /// the error as `(line, message)`.
    #[allow(clippy::type_complexity)]
    fn read(
        name: &str,
        text: &str,
        cfg: &CorpusConfig,
    ) -> Result<(Vec<(String, String)>, String), (u64, String)> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        let mut r = open(&p, cfg).map_err(parse_err)?;
        let mut out = Vec::new();
        r.preamble(&mut out);
        let mut docs = Vec::new();
        while let Some(d) = r.next() {
            let d = d.map_err(parse_err)?;
            assert!(r.record(&mut out));
            docs.push((d.ext_id, d.text));
        }
        Ok((docs, String::from_utf8(out).unwrap()))
    }

    fn parse_err(e: Error) -> (u64, String) {
        match e {
            Error::Parse { line, msg, .. } => (line, msg),
            e => panic!("not a parse error: {e}"),
        }
    }

    fn docs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn tsv_quoted_fields_hold_tabs_line_ends_and_doubled_quotes() {
        let cfg = CorpusConfig::default();
        let text = "id\ttext\n\"a\tb\"\t\"one\ttwo\nthree \"\"q\"\"\"\n\"\"\"\"\t\"\"\n";
        let (got, back) = read("q.tsv", text, &cfg).unwrap();
        assert_eq!(got, docs(&[("a\tb", "one\ttwo\nthree \"q\""), ("\"", "")]));
        // Written back quoted where needed, it reads as the same documents.
        assert_eq!(read("back.tsv", &back, &cfg).unwrap().0, got);
        // The same rows with commas as CSV.
        let csv = "id,text\n\"a\tb\",\"one\ttwo\nthree \"\"q\"\"\"\n\"\"\"\",\"\"\n";
        assert_eq!(read("q.csv", csv, &cfg).unwrap().0, got);
    }

    #[test]
    fn tsv_unquoted_fields_keep_inner_quotes() {
        let cfg = CorpusConfig::default();
        let text = "id\ttext\n1\t5\" screen\n2\tsays \"hi\" and \"\"\n3\t\"quoted\" then more\n";
        let (got, back) = read("u.tsv", text, &cfg).unwrap();
        assert_eq!(
            got,
            docs(&[
                ("1", "5\" screen"),
                ("2", "says \"hi\" and \"\""),
                // A field starting with `"` is quoted; what follows its closing quote is
                // appended (as Python's csv module reads it).
                ("3", "quoted then more"),
            ])
        );
        assert_eq!(read("back.tsv", &back, &cfg).unwrap().0, got);
    }

    #[test]
    fn ragged_and_unclosed_rows_name_the_line_they_start_on() {
        let cfg = CorpusConfig::default();
        // The third row starts on line 4, after a row spanning two lines.
        let text = "id\ttext\n1\t\"a\nb\"\n2\tc\textra\n";
        let (line, msg) = read("r.tsv", text, &cfg).unwrap_err();
        assert_eq!(line, 4);
        assert!(msg.contains("found 3 fields; expected 2"), "{msg}");
        // Skipped with skip_bad_lines.
        let skip = CorpusConfig {
            skip_bad_lines: true,
            ..CorpusConfig::default()
        };
        assert_eq!(
            read("r.tsv", text, &skip).unwrap().0,
            docs(&[("1", "a\nb")])
        );
        // A quote that is never closed swallows the rest of the file: an error naming the
        // line its row starts on, also with skip_bad_lines.
        let text = "id\ttext\n1\tx\n2\t\"open\n3\ty\n";
        for cfg in [&cfg, &skip] {
            let (line, msg) = read("o.tsv", text, cfg).unwrap_err();
            assert_eq!(line, 3);
            assert!(msg.contains("ends inside a quoted field"), "{msg}");
        }
        let text = "id\t\"text\n1\tx\n";
        let (line, msg) = read("h.tsv", text, &cfg).unwrap_err();
        assert_eq!(line, 1);
        assert!(msg.contains("ends inside a quoted field"), "{msg}");
        // A quote closed at the very end is no error.
        let text = "id\ttext\n1\t\"x\ny\"";
        assert_eq!(read("c.tsv", text, &cfg).unwrap().0, docs(&[("1", "x\ny")]));
    }
}
