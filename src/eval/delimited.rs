//! Delimited text rows, CSV or TSV: the one low-level reader under the pair files
//! ([`PairReader`](super::pairs::PairReader)) and the cluster-assignment CSV of truths.
//!
//! The delimiter is a tab when the file name ends in `.tsv` (before a `.gz` or `.zst`
//! suffix) or when the first line (as far as the first buffer holds it) contains a tab, and
//! a comma otherwise; standard input (`-`) is detected by its first line too. Fields are
//! trimmed; quoting follows CSV (`"` quotes, in TSV as in CSV); blank lines are skipped.
//! Invariant: a row's line is the line where it starts, blank lines before it counted; errors
//! name the file and that line. (The CSV reader skips blank lines itself and then dates the
//! row from the first blank line, so [`BlankLines`] hands it every blank line as a line of
//! one space, which trims to the blank row skipped here.)

use std::io::BufRead;
use std::path::Path;

use crate::{Error, Result};

/// Reads the non-blank rows of a CSV or TSV file one by one.
pub(crate) struct Rows<'p> {
    path: &'p Path,
    tab: bool,
    rdr: csv::Reader<BlankLines<Box<dyn BufRead + Send>>>,
    rec: csv::StringRecord,
}

/// Reads `inner` with its line ends made plain for the CSV reader, which dates rows well
/// only then: `\r\n` and a lone `\r` become `\n`, and a space is put at the start of every blank line
/// (a line break at the start of a line), inside quoted fields too.
struct BlankLines<R> {
    inner: R,
    /// The next byte starts a line.
    line_start: bool,
    /// The space of the current line start has been handed out.
    spaced: bool,
    /// A `\r` read and held back: dropped when a `\n` follows, else handed out as `\n`.
    cr: bool,
}

impl<R> BlankLines<R> {
    fn new(inner: R) -> Self {
        BlankLines {
            inner,
            line_start: true,
            spaced: false,
            cr: false,
        }
    }
}

impl<R: BufRead> std::io::Read for BlankLines<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let data = self.inner.fill_buf()?;
        if data.is_empty() {
            if std::mem::take(&mut self.cr) {
                out[0] = b'\n';
                return Ok(1);
            }
            return Ok(0);
        }
        let (mut n, mut used) = (0, 0);
        while used < data.len() && n < out.len() {
            let b = data[used];
            if self.cr && b != b'\n' {
                self.cr = false;
                out[n] = b'\n';
                n += 1;
                (self.line_start, self.spaced) = (true, false);
                continue;
            }
            if self.line_start && !self.spaced && (b == b'\n' || b == b'\r') {
                out[n] = b' ';
                n += 1;
                self.spaced = true;
                continue;
            }
            used += 1;
            if b == b'\r' {
                self.cr = true;
                continue;
            }
            self.cr = false;
            out[n] = b;
            n += 1;
            (self.line_start, self.spaced) = (b == b'\n', false);
        }
        self.inner.consume(used);
        Ok(n)
    }
}

/// The file name of `path` in lowercase without a `.gz` or `.zst` suffix (`X.TSV.gz` ->
/// `x.tsv`), to tell a file's kind by its extension.
pub(crate) fn plain_name(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match name
        .strip_suffix(".gz")
        .or_else(|| name.strip_suffix(".zst"))
    {
        Some(n) => n.to_string(),
        None => name,
    }
}

/// True when `path` names a TSV file by its extension (`x.tsv`, `x.tsv.gz`, `x.TSV.zst`).
fn tsv_by_name(path: &Path) -> bool {
    plain_name(path).ends_with(".tsv")
}

impl<'p> Rows<'p> {
    /// Opens `path` (decompressing `*.gz` and `*.zst`) and picks its delimiter.
    pub fn open(path: &'p Path) -> Result<Self> {
        let mut r = crate::io::open_read(path)?;
        let tab = tsv_by_name(path) || {
            let buf = r.fill_buf().map_err(|e| Error::io(path, e))?;
            let first = buf.split(|&b| b == b'\n').next().unwrap_or(&[]);
            first.contains(&b'\t')
        };
        let rdr = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(if tab { b'\t' } else { b',' })
            .trim(csv::Trim::All)
            .from_reader(BlankLines::new(r));
        Ok(Rows {
            path,
            tab,
            rdr,
            rec: csv::StringRecord::new(),
        })
    }

    /// The file being read.
    pub fn path(&self) -> &'p Path {
        self.path
    }

    /// `comma` or `tab`, for messages such as "expected 2 tab-separated fields".
    pub fn separator(&self) -> &'static str {
        if self.tab {
            "tab"
        } else {
            "comma"
        }
    }

    /// Reads the next non-blank row into [`Rows::record`]; false at the end.
    pub fn advance(&mut self) -> Result<bool> {
        loop {
            let more = self.rdr.read_record(&mut self.rec).map_err(|e| {
                let line = e.position().map(|p| p.line()).unwrap_or(0);
                let kind = if self.tab { "TSV" } else { "CSV" };
                Error::parse(self.path, line, format!("invalid {kind}: {e}"))
            })?;
            if !more {
                return Ok(false);
            }
            if !(self.rec.len() == 1 && self.rec[0].is_empty()) {
                return Ok(true);
            }
        }
    }

    /// The row [`Rows::advance`] read last.
    pub fn record(&self) -> &csv::StringRecord {
        &self.rec
    }

    /// The line where the last row starts.
    pub fn line(&self) -> u64 {
        self.rec.position().map(|p| p.line()).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The (line, first field) of every row of `text`.
    fn rows(text: &str) -> Vec<(u64, String)> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.csv");
        std::fs::write(&p, text).unwrap();
        let mut r = Rows::open(&p).unwrap();
        let mut v = Vec::new();
        while r.advance().unwrap() {
            v.push((r.line(), r.record()[0].to_string()));
        }
        v
    }

    #[test]
    fn eval_rows_are_dated_by_the_line_they_start_on() {
        let want = vec![(2, "a".to_string()), (4, "b".into()), (7, "c".into())];
        assert_eq!(rows("\na,1\n\nb,2\n\n\nc,3"), want);
        assert_eq!(rows("\r\na,1\r\n\r\nb,2\r\n\r\n\r\nc,3\r\n"), want);
        assert_eq!(rows("\ra,1\r\rb,2\r\r\rc,3"), want);
        assert_eq!(
            rows("\na,1\n\n\"b\n\",2\n\n\nc,3\n"),
            want[..2]
                .iter()
                .cloned()
                .chain([(8, "c".into())])
                .collect::<Vec<_>>()
        );
    }
}
