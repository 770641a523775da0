//! A small WARC (ISO 28500, WARC/1.0 and WARC/1.1) record reader with `Content-Length`
//! framing, and the extraction of the HTTP payload of `response` records.
//!
//! Record layout: a version line `WARC/1.0` or `WARC/1.1`, header lines `Name: value`
//! (continuation lines start with a space or tab), an empty line, exactly `Content-Length`
//! bytes of block, then two line ends. Line ends may be CRLF (the standard) or LF. Blank
//! lines between records are tolerated. Compressed `.warc.gz` files (one gzip member per
//! record) are decompressed by [`crate::io::open_read`] before they reach this parser.
//!
//! Invariant: errors name the file, the 1-based line of the (decompressed) stream where the
//! record starts, the record number and what was expected; a truncated or malformed record
//! never panics and never allocates more than the bytes actually present. With a limit
//! ([`WarcReader::with_max_block`]) no more than the limit is held either: a longer header
//! line is an error, a longer block is read past and not kept ([`Record::skipped`]), so a
//! `Content-Length` larger than the rest of the input costs reading to its end (then the
//! record is reported truncated) and never an allocation of that size.

use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

use super::input::{decode, open_read, read_err, read_line, Got};
use super::reader::{Raw, Source};
use super::CorpusStats;
use crate::{Error, Result};

/// One WARC record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// 1-based record number in the file.
    pub number: u64,
    /// 1-based line where the record's version line is.
    pub line: u64,
    /// The version line (`WARC/1.0` or `WARC/1.1`).
    pub version: String,
    /// Header fields in order, names as written.
    pub headers: Vec<(String, String)>,
    /// The record block (`Content-Length` bytes); empty when `skipped`.
    pub block: Vec<u8>,
    /// The block was longer than the reader's limit: read past and not kept.
    pub skipped: bool,
}

impl Record {
    /// The value of header `name` (case-insensitive), first occurrence.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Streams the records of a WARC file.
pub struct WarcReader {
    r: Box<dyn BufRead + Send>,
    path: PathBuf,
    line: u64,
    record: u64,
    buf: Vec<u8>,
    max: u64,
}

impl WarcReader {
    /// Reads records from `r`; `path` is used in error messages.
    pub fn new(r: Box<dyn BufRead + Send>, path: &Path) -> Self {
        WarcReader {
            r,
            path: path.to_path_buf(),
            line: 0,
            record: 0,
            buf: Vec::new(),
            max: u64::MAX,
        }
    }

    /// Holds no header line or block longer than `max` bytes (see the module docs).
    pub fn with_max_block(mut self, max: u64) -> Self {
        self.max = max;
        self
    }

    /// Reads one line into `self.buf` (without its line end); false at end of input.
    fn read_line(&mut self) -> Result<bool> {
        match read_line(
            &mut *self.r,
            &self.path,
            &mut self.line,
            &mut self.buf,
            self.max,
        )? {
            Got::Eof => return Ok(false),
            Got::Oversized(n) => {
                return Err(self.err(
                    self.line,
                    format!(
                        "a line of {n} bytes; expected a WARC line of at most {} bytes",
                        self.max
                    ),
                ))
            }
            Got::Line(_) => {}
        }
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
        }
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        Ok(true)
    }

    /// An error about record `rec` (names the file, its line and record number).
    pub fn record_error(&self, rec: &Record, msg: impl std::fmt::Display) -> Error {
        Error::parse(
            &self.path,
            rec.line,
            format!("WARC record {}: {msg}", rec.number),
        )
    }

    fn err(&self, line: u64, msg: impl std::fmt::Display) -> Error {
        Error::parse(
            &self.path,
            line,
            format!("WARC record {}: {msg}", self.record),
        )
    }

    /// The next record, or `None` at the end of the file.
    pub fn next_record(&mut self) -> Result<Option<Record>> {
        // Skip blank lines (the two line ends after each block, stray ones).
        loop {
            if !self.read_line()? {
                return Ok(None);
            }
            if !self.buf.iter().all(|c| c.is_ascii_whitespace()) {
                break;
            }
        }
        self.record += 1;
        let start = self.line;
        let version = String::from_utf8_lossy(&self.buf).trim().to_string();
        if version != "WARC/1.0" && version != "WARC/1.1" {
            return Err(self.err(
                start,
                format!(
                    "found {:?}; expected a version line WARC/1.0 or WARC/1.1",
                    trunc(&version)
                ),
            ));
        }
        let mut headers: Vec<(String, String)> = Vec::new();
        loop {
            if !self.read_line()? {
                return Err(self.err(
                    start,
                    "truncated record: end of file inside the header block; expected an empty line after the headers",
                ));
            }
            if self.buf.is_empty() {
                break;
            }
            let l = String::from_utf8_lossy(&self.buf).into_owned();
            if l.starts_with([' ', '\t']) {
                match headers.last_mut() {
                    Some((_, v)) => {
                        if !v.is_empty() {
                            v.push(' ');
                        }
                        v.push_str(l.trim());
                        continue;
                    }
                    None => {
                        return Err(self.err(
                            self.line,
                            "continuation line before any header; expected `Name: value`",
                        ))
                    }
                }
            }
            match l.split_once(':') {
                Some((k, v)) if !k.trim().is_empty() && !k.contains(char::is_whitespace) => {
                    headers.push((k.to_string(), v.trim().to_string()));
                }
                _ => {
                    return Err(self.err(
                        self.line,
                        format!(
                            "malformed header line {:?}; expected `Name: value`",
                            trunc(&l)
                        ),
                    ))
                }
            }
        }
        let cl = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("Content-Length"))
            .map(|(_, v)| v.clone())
            .ok_or_else(|| self.err(start, "no Content-Length header; expected one"))?;
        let len: u64 = cl.parse().map_err(|_| {
            self.err(
                start,
                format!(
                    "Content-Length {:?}; expected a non-negative integer",
                    trunc(&cl)
                ),
            )
        })?;
        let mut block = Vec::new();
        let skipped = len > self.max;
        let got = if skipped {
            self.skip_block(len)?
        } else {
            let got = (&mut self.r)
                .take(len)
                .read_to_end(&mut block)
                .map_err(|e| read_err(&self.path, self.line + 1, e))?;
            self.line += memchr::memchr_iter(b'\n', &block).count() as u64;
            got as u64
        };
        if got < len {
            return Err(self.err(
                start,
                format!("truncated record: Content-Length says {len} bytes, only {got} remain"),
            ));
        }
        // A block that does not end a line leaves the next line end to the separator.
        Ok(Some(Record {
            number: self.record,
            line: start,
            version,
            headers,
            block,
            skipped,
        }))
    }

    /// Reads past up to `len` bytes without keeping them (counting their lines); returns
    /// how many there were.
    fn skip_block(&mut self, len: u64) -> Result<u64> {
        let mut left = len;
        while left > 0 {
            let avail = match self.r.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(read_err(&self.path, self.line + 1, e)),
            };
            if avail.is_empty() {
                break;
            }
            let n = avail.len().min(usize::try_from(left).unwrap_or(usize::MAX));
            self.line += memchr::memchr_iter(b'\n', &avail[..n]).count() as u64;
            self.r.consume(n);
            left -= n as u64;
        }
        Ok(len - left)
    }
}

fn trunc(s: &str) -> String {
    if s.chars().count() > 60 {
        let t: String = s.chars().take(60).collect();
        format!("{t}...")
    } else {
        s.to_string()
    }
}

/// The payload of an HTTP response message: the body after the status line and headers.
/// `Transfer-Encoding: chunked` is undone and `Content-Encoding: gzip`/`deflate` decoded when
/// possible (on any failure the body is returned as stored). A block that does not start
/// with `HTTP/` is returned whole.
pub fn http_body(block: &[u8]) -> Vec<u8> {
    http_body_max(block, u64::MAX).unwrap_or_default()
}

/// [`http_body`], but `None` when the body, decoded, would be longer than `max` bytes
/// (decoding stops there).
pub fn http_body_max(block: &[u8], max: u64) -> Option<Vec<u8>> {
    let body = http_body_raw(block, max)?;
    (body.len() as u64 <= max).then_some(body)
}

fn http_body_raw(block: &[u8], max: u64) -> Option<Vec<u8>> {
    if !block.starts_with(b"HTTP/") {
        return Some(block.to_vec());
    }
    let (head_end, body_start) = match (
        memchr::memmem::find(block, b"\r\n\r\n"),
        memchr::memmem::find(block, b"\n\n"),
    ) {
        (Some(a), Some(b)) if b < a => (b, b + 2),
        (Some(a), _) => (a, a + 4),
        (None, Some(b)) => (b, b + 2),
        (None, None) => return Some(Vec::new()),
    };
    let head = String::from_utf8_lossy(&block[..head_end]);
    let mut chunked = false;
    let mut encoding = String::new();
    for l in head.lines().skip(1) {
        if let Some((k, v)) = l.split_once(':') {
            let k = k.trim();
            if k.eq_ignore_ascii_case("transfer-encoding")
                && v.to_ascii_lowercase().contains("chunked")
            {
                chunked = true;
            } else if k.eq_ignore_ascii_case("content-encoding") {
                encoding = v.trim().to_ascii_lowercase();
            }
        }
    }
    let mut body = block[body_start..].to_vec();
    if chunked {
        if let Some(b) = dechunk(&body) {
            body = b;
        }
    }
    let limit = max.saturating_add(1);
    let mut out = Vec::new();
    let decoded = if encoding == "gzip" || encoding == "x-gzip" {
        flate2::read::MultiGzDecoder::new(&body[..])
            .take(limit)
            .read_to_end(&mut out)
            .is_ok()
    } else if encoding == "deflate" {
        flate2::read::ZlibDecoder::new(&body[..])
            .take(limit)
            .read_to_end(&mut out)
            .is_ok()
    } else {
        false
    };
    if decoded {
        if out.len() as u64 > max {
            return None;
        }
        body = out;
    }
    Some(body)
}

/// Undoes HTTP chunked transfer coding; `None` when the data is not well-formed.
fn dechunk(mut b: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(b.len());
    loop {
        let eol = memchr::memchr(b'\n', b)?;
        let size_line = std::str::from_utf8(&b[..eol]).ok()?.trim();
        let size_hex = size_line.split(';').next()?.trim();
        let size = usize::from_str_radix(size_hex, 16).ok()?;
        b = &b[eol + 1..];
        if size == 0 {
            return Some(out);
        }
        if b.len() < size {
            return None;
        }
        out.extend_from_slice(&b[..size]);
        b = &b[size..];
        if b.starts_with(b"\r\n") {
            b = &b[2..];
        } else if b.starts_with(b"\n") {
            b = &b[1..];
        }
    }
}

/// The `response` records of a WARC file as documents (the corpus format `warc`): the
/// external id is the `WARC-Target-URI` (angle brackets removed), the text the HTTP body
/// after the HTTP headers; other records are skipped and counted.
pub(super) struct WarcDocs {
    r: WarcReader,
    max: u64,
    /// The record of the last document.
    last: Option<Record>,
}

impl Record {
    /// Appends the record as a WARC file holds it: version line, headers, an empty line,
    /// the block and two line ends (CRLF throughout).
    pub fn write_to(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.version.as_bytes());
        out.extend_from_slice(b"\r\n");
        for (n, v) in &self.headers {
            out.extend_from_slice(n.as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(v.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(&self.block);
        out.extend_from_slice(b"\r\n\r\n");
    }
}

impl WarcDocs {
    pub(super) fn open(path: &Path, max_doc_bytes: u64) -> Result<Self> {
        Ok(WarcDocs {
            r: WarcReader::new(open_read(path)?, path).with_max_block(max_doc_bytes),
            max: max_doc_bytes,
            last: None,
        })
    }
}

impl Source for WarcDocs {
    fn next_raw(&mut self, stats: &mut CorpusStats) -> Result<Option<Raw>> {
        loop {
            let Some(rec) = self.r.next_record()? else {
                return Ok(None);
            };
            let is_response = rec
                .header("WARC-Type")
                .is_some_and(|t| t.eq_ignore_ascii_case("response"));
            if !is_response {
                stats.skipped_records += 1;
                continue;
            }
            let Some(uri) = rec.header("WARC-Target-URI") else {
                return Err(self.r.record_error(
                    &rec,
                    "response record without WARC-Target-URI; expected the URI as the document id",
                ));
            };
            // WARC/1.0 examples write the URI in angle brackets.
            let uri = uri
                .strip_prefix('<')
                .and_then(|u| u.strip_suffix('>'))
                .unwrap_or(uri)
                .to_string();
            let Some(body) = (!rec.skipped)
                .then(|| http_body_max(&rec.block, self.max))
                .flatten()
            else {
                stats.skipped_oversized += 1;
                continue;
            };
            let (text, lossy) = decode(body);
            let line = rec.line;
            self.last = Some(rec);
            return Ok(Some(Raw {
                line,
                ext_id: uri,
                text,
                lossy,
            }));
        }
    }

    fn record(&self, out: &mut Vec<u8>) -> bool {
        match &self.last {
            Some(r) => {
                r.write_to(out);
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dechunk_works() {
        assert_eq!(
            dechunk(b"4\r\nWiki\r\n5;x=1\r\npedia\r\n0\r\n\r\n").unwrap(),
            b"Wikipedia"
        );
        assert_eq!(dechunk(b"zz\r\n"), None);
        assert_eq!(dechunk(b"10\r\nshort"), None);
    }

    #[test]
    fn http_body_strips_headers() {
        assert_eq!(
            http_body(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>x</p>"),
            b"<p>x</p>"
        );
        assert_eq!(http_body(b"HTTP/1.0 200 OK\n\nbody"), b"body");
        assert_eq!(
            http_body(
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
            ),
            b"abc"
        );
        assert_eq!(http_body(b"not http"), b"not http");
        assert_eq!(http_body(b"HTTP/1.1 204 No Content"), b"");
    }
}
