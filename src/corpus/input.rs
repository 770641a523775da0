//! Opening and decoding inputs, shared by the formats: decompressing opening (a zero-byte
//! `*.gz` or `*.zst` file is empty), read errors naming file and line, lossy UTF-8 decoding, and a line
//! reader whose lines are bounded in length.
//!
//! Invariant: [`LineReader`] numbers lines from 1, drops a UTF-8 byte order mark at the
//! start of the input (an input holding only one has no line, as the parallel reader sees
//! it) and strips `\n` / `\r\n`; read errors name the line being read; a line longer than
//! its limit is read past without being held.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use crate::io::Compression;
use crate::{Error, Result};

/// Maps a read error: corrupt compressed data and the like are bad input (a parse error
/// naming the file and line), anything else is an I/O error.
pub(crate) fn read_err(path: &Path, line: u64, e: std::io::Error) -> Error {
    use std::io::ErrorKind::*;
    match e.kind() {
        InvalidData | InvalidInput | UnexpectedEof => {
            let msg = match Compression::of_path(path) {
                Compression::None => format!("unreadable data ({e}); expected a readable file"),
                c => format!(
                    "corrupt or truncated {0} data ({e}); expected a readable {0} stream",
                    c.name()
                ),
            };
            Error::parse(path, line, msg)
        }
        _ => Error::io(path, e),
    }
}

/// Opens an input like [`crate::io::open_read`], except that a zero-byte `*.gz` or `*.zst`
/// file reads as empty (it holds no gzip member or zstd frame, but is what an empty
/// compressed output often is).
pub(super) fn open_read(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    if Compression::of_path(path).is_compressed() && path != Path::new("-") {
        let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        if meta.is_file() && meta.len() == 0 {
            return Ok(Box::new(std::io::empty()));
        }
    }
    crate::io::open_read(path)
}

/// Decodes bytes as UTF-8, lossily; the flag says whether anything was replaced.
pub(super) fn decode(bytes: Vec<u8>) -> (String, bool) {
    match String::from_utf8(bytes) {
        Ok(s) => (s, false),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), true),
    }
}

/// Decodes borrowed bytes as UTF-8, lossily (borrowing when valid); the flag says whether
/// anything was replaced.
pub(super) fn decode_ref(bytes: &[u8]) -> (std::borrow::Cow<'_, str>, bool) {
    match std::str::from_utf8(bytes) {
        Ok(s) => (std::borrow::Cow::Borrowed(s), false),
        Err(_) => (String::from_utf8_lossy(bytes), true),
    }
}

/// What [`append_line`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Got {
    /// The end of the input.
    Eof,
    /// A line of this many bytes (line end included), appended.
    Line(usize),
    /// A line longer than the limit, read past and not stored: this many bytes.
    Oversized(u64),
}

/// Appends the next line, with its `\n`, to `buf`, unless it holds more than `max` bytes
/// before its `\n`: such a line is read past in bounded memory (never stored) and `buf` is
/// left as it was. On an error `buf` is left as it was too.
pub(super) fn append_line(
    r: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    max: u64,
) -> std::io::Result<Got> {
    let start = buf.len();
    let mut total = 0u64;
    let mut over = false;
    loop {
        let avail = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                buf.truncate(start);
                return Err(e);
            }
        };
        if avail.is_empty() {
            break;
        }
        let (take, done) = match memchr::memchr(b'\n', avail) {
            Some(i) => (i + 1, true),
            None => (avail.len(), false),
        };
        if !over {
            if total + (take - usize::from(done)) as u64 > max {
                over = true;
                buf.truncate(start);
            } else {
                buf.extend_from_slice(&avail[..take]);
            }
        }
        total += take as u64;
        r.consume(take);
        if done {
            break;
        }
    }
    Ok(match (total, over) {
        (0, _) => Got::Eof,
        (n, true) => Got::Oversized(n),
        (n, false) => Got::Line(n as usize),
    })
}

/// Reads one line, with its line end, into `buf` (cleared first) and counts it in `line`;
/// a line longer than `max` bytes is read past and reported as [`Got::Oversized`] (`buf`
/// empty). A read error names line `line + 1` of `path`.
pub(super) fn read_line(
    r: &mut dyn BufRead,
    path: &Path,
    line: &mut u64,
    buf: &mut Vec<u8>,
    max: u64,
) -> Result<Got> {
    buf.clear();
    let got = append_line(r, buf, max).map_err(|e| read_err(path, *line + 1, e))?;
    if got != Got::Eof {
        *line += 1;
    }
    Ok(got)
}

/// Line reader that tracks the 1-based line number and strips `\n` / `\r\n`.
pub(super) struct LineReader {
    r: Box<dyn BufRead + Send>,
    /// The input's path (for messages).
    pub(super) path: PathBuf,
    /// 1-based number of the line in `buf` (0 before the first).
    pub(super) line: u64,
    /// The last line read, without its line end.
    pub(super) buf: Vec<u8>,
    /// Whether the last line was longer than `max` (then `buf` is empty).
    pub(super) oversized: bool,
    /// The line end stripped from the last line: `\n`, `\r\n`, or empty (the last line of
    /// an input that does not end with one).
    pub(super) ending: &'static [u8],
    max: u64,
}

impl LineReader {
    /// Reads `path` without a limit on the line length.
    pub(super) fn open(path: &Path) -> Result<Self> {
        Self::open_max(path, u64::MAX)
    }

    /// Reads `path`; lines longer than `max` bytes are read past (see `oversized`).
    pub(super) fn open_max(path: &Path, max: u64) -> Result<Self> {
        Ok(LineReader {
            r: open_read(path)?,
            path: path.to_path_buf(),
            line: 0,
            buf: Vec::new(),
            oversized: false,
            ending: b"",
            max,
        })
    }

    /// Reads the next line into `self.buf`; false at the end.
    pub(super) fn next_line(&mut self) -> Result<bool> {
        let got = read_line(
            &mut *self.r,
            &self.path,
            &mut self.line,
            &mut self.buf,
            self.max,
        )?;
        self.oversized = matches!(got, Got::Oversized(_));
        if got == Got::Eof {
            return Ok(false);
        }
        if self.line == 1 && self.buf.starts_with(b"\xEF\xBB\xBF") {
            self.buf.drain(..3); // UTF-8 byte order mark
            if self.buf.is_empty() {
                // The input holds only the byte order mark: it has no line.
                self.line = 0;
                return Ok(false);
            }
        }
        self.ending = b"";
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
            self.ending = b"\n";
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
                self.ending = b"\r\n";
            }
        }
        Ok(true)
    }
}

impl LineReader {
    /// The last line as it was written: its bytes and its line end (`\n` when it had
    /// none, so that records written one after the other stay lines).
    pub(super) fn record(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.buf);
        out.extend_from_slice(if self.ending.is_empty() {
            b"\n"
        } else {
            self.ending
        });
    }
}

/// True when a line holds only ASCII whitespace (a blank JSONL line: no document).
#[inline]
pub(super) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|c| c.is_ascii_whitespace())
}
