//! Delimited text rows, CSV or TSV: the one low-level reader under the pair files
//! ([`PairReader`](super::pairs::PairReader)) and the cluster-assignment CSV of truths.
//!
//! The delimiter is a tab when the file name ends in `.tsv` (before a `.gz` or `.zst`
//! suffix) or when the first line (as far as the first buffer holds it) contains a tab, and
//! a comma otherwise; standard input (`-`) is detected by its first line too. Quoting is
//! the corpus readers' (RFC 4180 with either separator, as pandas writes it; see
//! `corpus::dialect`): a field that starts with `"` is quoted and may hold separators, line
//! breaks and `""` for a `"`; a `"` inside an unquoted field is an ordinary character.
//! Fields are trimmed after unquoting; blank lines are skipped.
//! Invariant: a row's line is the line where it starts, blank lines before it counted; errors
//! name the file and that line; a file that ends inside a quoted field is an error naming
//! the line of its last row. (The CSV reader skips blank lines itself and then dates the
//! row from the first blank line, so [`BlankLines`] hands it every blank line outside
//! quoted fields as a line of one space, which trims to the blank row skipped here; line
//! breaks inside quoted fields are handed on as they are.)

use std::io::BufRead;
use std::path::Path;

use crate::corpus::dialect::{self, QuoteScanner, UNCLOSED_QUOTE};
use crate::{Error, Result};

/// Reads the non-blank rows of a CSV or TSV file one by one.
pub(crate) struct Rows<'p> {
    path: &'p Path,
    tab: bool,
    rdr: csv::Reader<BlankLines<Box<dyn BufRead + Send>>>,
    rec: csv::StringRecord,
    /// The line where the last row read (blank or not) starts.
    last_line: u64,
}

/// Reads `inner` with its line ends outside quoted fields made plain for the CSV reader,
/// which dates rows well only then: `\r\n` and a lone `\r` become `\n`, and a space is put
/// at the start of every blank line (a line break at the start of a line). Bytes inside
/// quoted fields are handed on unchanged.
struct BlankLines<R> {
    inner: R,
    /// The quoting of the bytes read from `inner` so far.
    scan: QuoteScanner,
    /// The space of the current line start has been handed out.
    spaced: bool,
    /// A `\r` outside quoted fields read and held back: dropped when a `\n` follows, else
    /// handed out as `\n`.
    cr: bool,
}

impl<R> BlankLines<R> {
    fn new(inner: R, tab: bool) -> Self {
        BlankLines {
            inner,
            scan: QuoteScanner::new(tab),
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
                self.spaced = false;
                continue;
            }
            // A line end at the start of a line outside quoted fields (not the `\n` of a
            // `\r\n`) ends a blank line.
            let blank = !self.cr && self.scan.at_row_start() && (b == b'\n' || b == b'\r');
            if blank && !self.spaced {
                out[n] = b' ';
                n += 1;
                self.spaced = true;
                continue;
            }
            let quoted = self.scan.in_quoted_field();
            self.scan.step(b);
            used += 1;
            if b == b'\r' && !quoted {
                self.cr = true;
                continue;
            }
            self.cr = false;
            out[n] = b;
            n += 1;
            self.spaced = false;
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
        let rdr = dialect::reader(tab)
            .has_headers(false)
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(BlankLines::new(r, tab));
        Ok(Rows {
            path,
            tab,
            rdr,
            rec: csv::StringRecord::new(),
            last_line: 1,
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
                if self.rdr.get_ref().scan.in_quoted_field() {
                    return Err(Error::parse(self.path, self.last_line, UNCLOSED_QUOTE));
                }
                return Ok(false);
            }
            self.last_line = self.line();
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

    /// The (line, fields) of every row of `text` written as `name`, or the error's line and
    /// message.
    #[allow(clippy::type_complexity)]
    fn read(name: &str, text: &str) -> std::result::Result<Vec<(u64, Vec<String>)>, (u64, String)> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        let mut r = Rows::open(&p).unwrap();
        let mut v = Vec::new();
        loop {
            match r.advance() {
                Ok(true) => v.push((r.line(), r.record().iter().map(str::to_string).collect())),
                Ok(false) => return Ok(v),
                Err(Error::Parse { line, msg, .. }) => return Err((line, msg)),
                Err(e) => panic!("{e}"),
            }
        }
    }

    /// The (line, first field) of every row of `text`.
    fn rows(text: &str) -> Vec<(u64, String)> {
        read("x.csv", text)
            .unwrap()
            .into_iter()
            .map(|(l, f)| (l, f[0].clone()))
            .collect()
    }

    fn row(line: u64, fields: &[&str]) -> (u64, Vec<String>) {
        (line, fields.iter().map(|f| f.to_string()).collect())
    }

    #[test]
    fn tsv_quoting_follows_csv() {
        // Quoted fields hold tabs, line ends (blank lines and `\r\n` kept as they are) and
        // `""`; unquoted fields keep their quotes; rows are dated by their first line (the
        // third by line 7, after a blank line).
        let text = "a\tb\n\"x\ty\"\t\"1\n\n2\r\n\"\"3\"\"\"\n\n5\" screen\ts\"\"t\r\n\"\"\tz\n";
        assert_eq!(
            read("p.tsv", text).unwrap(),
            [
                row(1, &["a", "b"]),
                row(2, &["x\ty", "1\n\n2\r\n\"3\""]),
                row(7, &["5\" screen", "s\"\"t"]),
                row(8, &["", "z"]),
            ]
        );
        // A file that ends inside a quoted field names the line of its last row.
        let (line, msg) = read("p.tsv", "a\tb\nx\ty\n\"open\tz\n\nmore\n").unwrap_err();
        assert_eq!(line, 3);
        assert!(msg.contains("ends inside a quoted field"), "{msg}");
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
