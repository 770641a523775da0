//! Opening and decoding inputs, shared by the formats: gzip-aware opening (a zero-byte
//! `*.gz` file is empty), read errors naming file and line, lossy UTF-8 decoding, and a line
//! reader.
//!
//! Invariant: [`LineReader`] numbers lines from 1, drops a UTF-8 byte order mark at the
//! start of the input (an input holding only one has no line, as the parallel reader sees
//! it) and strips `\n` / `\r\n`; read errors name the line being read.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// Maps a read error: corrupt compressed data and the like are bad input (a parse error
/// naming the file and line), anything else is an I/O error.
pub(crate) fn read_err(path: &Path, line: u64, e: std::io::Error) -> Error {
    use std::io::ErrorKind::*;
    match e.kind() {
        InvalidData | InvalidInput | UnexpectedEof => {
            let what = if crate::io::is_gzip(path) {
                "corrupt or truncated gzip data"
            } else {
                "unreadable data"
            };
            Error::parse(
                path,
                line,
                format!("{what} ({e}); expected a readable {}", kind_of(path)),
            )
        }
        _ => Error::io(path, e),
    }
}

fn kind_of(path: &Path) -> &'static str {
    if crate::io::is_gzip(path) {
        "gzip stream"
    } else {
        "file"
    }
}

/// Opens an input like [`crate::io::open_read`], except that a zero-byte `*.gz` file reads
/// as empty (it holds no gzip member, but is what an empty compressed output often is).
pub(super) fn open_read(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    if crate::io::is_gzip(path) && path != Path::new("-") {
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

/// Reads one line, with its line end, into `buf` (cleared first) and counts it in `line`;
/// false at the end of the input. A read error names line `line + 1` of `path`.
pub(super) fn read_line(
    r: &mut dyn BufRead,
    path: &Path,
    line: &mut u64,
    buf: &mut Vec<u8>,
) -> Result<bool> {
    buf.clear();
    let n = r
        .read_until(b'\n', buf)
        .map_err(|e| read_err(path, *line + 1, e))?;
    if n == 0 {
        return Ok(false);
    }
    *line += 1;
    Ok(true)
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
}

impl LineReader {
    pub(super) fn open(path: &Path) -> Result<Self> {
        Ok(LineReader {
            r: open_read(path)?,
            path: path.to_path_buf(),
            line: 0,
            buf: Vec::new(),
        })
    }

    /// Reads the next line into `self.buf`; false at the end.
    pub(super) fn next_line(&mut self) -> Result<bool> {
        if !read_line(&mut *self.r, &self.path, &mut self.line, &mut self.buf)? {
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
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
        }
        Ok(true)
    }
}

/// True when a line holds only ASCII whitespace (a blank JSONL line: no document).
#[inline]
pub(super) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|c| c.is_ascii_whitespace())
}
