//! The FIMI transaction format: one transaction per line, items are non-negative integers
//! (up to `u32::MAX`) separated by spaces.
//!
//! Reading tolerates a trailing space, tabs or repeated spaces between items, and CRLF line
//! ends; a blank line is an empty transaction. Anything else (a sign, a letter, a number
//! above `u32::MAX`, a NUL byte, and with [`FimiOptions::strictly_ascending`] an item that is
//! not larger than the previous one) is an [`Error::Parse`] naming the file and line.
//!
//! Writing emits items separated by single spaces and `\n` line ends, no trailing space.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use super::Transactions;
use crate::{Error, Result};

/// Options for reading FIMI files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FimiOptions {
    /// Require the items of every line to be strictly ascending (no duplicates). The
    /// context files this project writes always are; general FIMI inputs need not be.
    pub strictly_ascending: bool,
}

/// Streaming FIMI reader: one transaction at a time.
pub struct FimiReader {
    inner: Box<dyn BufRead + Send>,
    path: PathBuf,
    line: u64,
    buf: Vec<u8>,
    opts: FimiOptions,
}

impl FimiReader {
    /// Opens `path` (`-` for stdin, `*.gz` decompressed).
    pub fn open(path: impl AsRef<Path>, opts: FimiOptions) -> Result<Self> {
        let path = path.as_ref();
        Ok(Self::from_reader(crate::io::open_read(path)?, path, opts))
    }

    /// Wraps an already open reader; `label` names it in error messages.
    pub fn from_reader(
        inner: Box<dyn BufRead + Send>,
        label: impl Into<PathBuf>,
        opts: FimiOptions,
    ) -> Self {
        FimiReader {
            inner,
            path: label.into(),
            line: 0,
            buf: Vec::with_capacity(1024),
            opts,
        }
    }

    /// Number of lines read so far (the 1-based number of the last line returned).
    pub fn line(&self) -> u64 {
        self.line
    }

    /// Reads the next transaction into `out` (cleared first). Returns `Ok(false)` at end of
    /// input.
    pub fn read_row(&mut self, out: &mut Vec<u32>) -> Result<bool> {
        out.clear();
        self.buf.clear();
        let n = self
            .inner
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| Error::io(&self.path, e))?;
        if n == 0 {
            return Ok(false);
        }
        self.line += 1;
        let mut bytes = &self.buf[..];
        if let Some(b) = bytes.strip_suffix(b"\n") {
            bytes = b;
        }
        if let Some(b) = bytes.strip_suffix(b"\r") {
            bytes = b;
        }
        parse_line(bytes, out).map_err(|msg| Error::parse(&self.path, self.line, msg))?;
        if self.opts.strictly_ascending {
            if let Some(w) = out.windows(2).find(|w| w[0] >= w[1]) {
                return Err(Error::parse(
                    &self.path,
                    self.line,
                    format!(
                        "items must be strictly ascending, found {} after {}",
                        w[1], w[0]
                    ),
                ));
            }
        }
        Ok(true)
    }
}

/// Parses one line (without its line end) into `out`.
fn parse_line(bytes: &[u8], out: &mut Vec<u32>) -> std::result::Result<(), String> {
    let mut i = 0;
    let n = bytes.len();
    while i < n {
        let c = bytes[i];
        if c == b' ' || c == b'\t' {
            i += 1;
            continue;
        }
        if !c.is_ascii_digit() {
            return Err(format!(
                "expected a non-negative integer item, found {:?} at column {}",
                char_at(bytes, i),
                i + 1
            ));
        }
        let start = i;
        let mut v: u64 = 0;
        while i < n && bytes[i].is_ascii_digit() {
            v = v * 10 + u64::from(bytes[i] - b'0');
            if v > u64::from(u32::MAX) {
                return Err(format!(
                    "item at column {} is larger than {} (u32::MAX)",
                    start + 1,
                    u32::MAX
                ));
            }
            i += 1;
        }
        if i < n && bytes[i] != b' ' && bytes[i] != b'\t' {
            return Err(format!(
                "expected a space after the item at column {}, found {:?}",
                start + 1,
                char_at(bytes, i)
            ));
        }
        out.push(v as u32);
    }
    Ok(())
}

fn char_at(bytes: &[u8], i: usize) -> String {
    let s = String::from_utf8_lossy(&bytes[i..bytes.len().min(i + 4)]);
    s.chars().next().map(|c| c.to_string()).unwrap_or_default()
}

/// Reads a whole FIMI file into memory.
pub fn read_transactions(path: impl AsRef<Path>, opts: FimiOptions) -> Result<Transactions> {
    let mut r = FimiReader::open(path, opts)?;
    let mut t = Transactions::new();
    let mut row = Vec::new();
    while r.read_row(&mut row)? {
        t.push(&row);
    }
    Ok(t)
}

/// Writes rows in FIMI format (single spaces, `\n`, no trailing space).
pub fn write_rows<W: Write, R: AsRef<[u32]>>(
    w: &mut W,
    rows: impl IntoIterator<Item = R>,
) -> std::io::Result<()> {
    let mut buf = itoa::Buffer::new();
    for row in rows {
        let row = row.as_ref();
        for (j, &x) in row.iter().enumerate() {
            if j > 0 {
                w.write_all(b" ")?;
            }
            w.write_all(buf.format(x).as_bytes())?;
        }
        w.write_all(b"\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str, strict: bool) -> Result<Vec<Vec<u32>>> {
        let mut r = FimiReader::from_reader(
            Box::new(std::io::Cursor::new(s.as_bytes().to_vec())),
            "t.dat",
            FimiOptions {
                strictly_ascending: strict,
            },
        );
        let mut rows = Vec::new();
        let mut row = Vec::new();
        while r.read_row(&mut row)? {
            rows.push(row.clone());
        }
        Ok(rows)
    }

    #[test]
    fn tolerates_trailing_space_crlf_and_blank_lines() {
        let rows = parse("1 2 3 \r\n\n4294967295\n7  9\t10", true).unwrap();
        assert_eq!(
            rows,
            vec![vec![1, 2, 3], vec![], vec![u32::MAX], vec![7, 9, 10]]
        );
    }

    #[test]
    fn rejects_bad_lines_with_file_and_line() {
        for (input, line, needle) in [
            ("1 2\n3 x\n", 2, "found \"x\""),
            ("1 -2\n", 1, "found \"-\""),
            ("4294967296\n", 1, "u32::MAX"),
            ("1 2\n\n3,4\n", 3, "expected a space"),
            ("1 2\n2 2\n", 2, "strictly ascending"),
            ("5 3\n", 1, "strictly ascending"),
            ("1\x002\n", 1, "expected a space"),
        ] {
            let e = parse(input, true).unwrap_err().to_string();
            assert!(e.starts_with(&format!("t.dat:{line}: ")), "{input:?}: {e}");
            assert!(e.contains(needle), "{input:?}: {e}");
        }
        // Without the ascending requirement, unsorted lines are accepted as they are.
        assert_eq!(parse("5 3 3\n", false).unwrap(), vec![vec![5, 3, 3]]);
    }

    #[test]
    fn write_then_read_round_trips() {
        let rows: Vec<Vec<u32>> = vec![vec![0, 1, 5], vec![], vec![u32::MAX]];
        let mut out = Vec::new();
        write_rows(&mut out, &rows).unwrap();
        assert_eq!(
            String::from_utf8(out.clone()).unwrap(),
            "0 1 5\n\n4294967295\n"
        );
        assert_eq!(
            parse(std::str::from_utf8(&out).unwrap(), true).unwrap(),
            rows
        );
    }
}
