//! CSV and TSV: one document per data row; a header row names the columns.
//!
//! TSV is read without quoting (a `"` is an ordinary character); CSV uses RFC 4180
//! quoting. Invariant: every row holds as many fields as the header (a ragged row is an
//! error naming its line, or skipped with `skip_bad_lines`); an empty input holds no
//! documents.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use super::input::{decode, decode_ref, open_read, read_err};
use super::reader::{Raw, Source};
use super::{CorpusConfig, CorpusStats, Format};
use crate::{Error, Result};

pub(super) struct Delimited {
    rdr: ::csv::Reader<Box<dyn BufRead + Send>>,
    path: PathBuf,
    text_col: usize,
    id_col: Option<usize>,
    skip_bad: bool,
    rec: ::csv::ByteRecord,
    /// Header-less empty input.
    empty: bool,
}

impl Delimited {
    pub(super) fn open(path: &Path, format: Format, cfg: &CorpusConfig) -> Result<Self> {
        let r = open_read(path)?;
        let tsv = format == Format::Tsv;
        let mut rdr = ::csv::ReaderBuilder::new()
            .delimiter(if tsv { b'\t' } else { b',' })
            .quoting(!tsv)
            .has_headers(true)
            .flexible(false)
            .from_reader(r);
        let headers = rdr.byte_headers().map_err(|e| csv_err(path, 1, e))?.clone();
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
            path: path.to_path_buf(),
            text_col,
            id_col,
            skip_bad: cfg.skip_bad_lines,
            rec: ::csv::ByteRecord::new(),
            empty,
        })
    }
}

fn csv_err(path: &Path, fallback_line: u64, e: ::csv::Error) -> Error {
    let line = e.position().map_or(fallback_line, |p| p.line());
    match e.into_kind() {
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
            match self.rdr.read_byte_record(&mut self.rec) {
                Ok(false) => return Ok(None),
                Ok(true) => {}
                Err(e) => {
                    if self.skip_bad && matches!(e.kind(), ::csv::ErrorKind::UnequalLengths { .. })
                    {
                        stats.skipped_bad_lines += 1;
                        continue;
                    }
                    return Err(csv_err(&self.path, 0, e));
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
                ext_id,
                text,
                lossy: lossy_t || lossy_i,
            }));
        }
    }
}
