//! Reading single documents of a line-format corpus file again, at the byte offsets the
//! parallel reader reported ([`LineDocReader`]).
//!
//! Invariant: a document read again has the external id and text the parallel reader gave
//! it (same parsing), or the read is an error naming the offset.

use std::path::Path;

use super::cut::offsets_are_file_offsets;
use super::parse::{line_kind, parse_line, LineKind};
use crate::corpus::CorpusConfig;
use crate::{Error, Result};

#[cfg(doc)]
use super::RawDoc;

/// Reads single documents of a line-format corpus file (JSONL or plain lines, uncompressed)
/// at the byte offsets that the parallel reader reported ([`RawDoc::offset`]): for a second
/// look at a few documents (e.g. verifying candidate pairs) without reading the whole
/// file again. Shared by threads (positional reads).
pub struct LineDocReader {
    file: std::fs::File,
    path: std::path::PathBuf,
    cfg: CorpusConfig,
    jsonl: bool,
}

/// A document read again by [`LineDocReader::read_at`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineDoc {
    /// The external id the line names (`None` in plain lines, or a JSONL line without the
    /// id field, whose id is the line number).
    pub ext_id: Option<String>,
    /// The text, decoded as the parallel reader decodes it.
    pub text: String,
}

impl LineDocReader {
    /// Opens `path`; `None` when the corpus is not a seekable line-format file (standard
    /// input, gzip, zstd, CSV/TSV, directories, Parquet, WARC, JSONL read with
    /// `skip_bad_lines`), i.e.
    /// whenever the parallel reader reports no offsets.
    pub fn open(path: &Path, cfg: &CorpusConfig) -> Result<Option<Self>> {
        let jsonl = match line_kind(path, cfg)? {
            Some(kind) => matches!(kind, LineKind::Jsonl { .. }),
            None => return Ok(None),
        };
        if !offsets_are_file_offsets(path) {
            return Ok(None);
        }
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        Ok(Some(LineDocReader {
            file,
            path: path.to_path_buf(),
            cfg: cfg.clone(),
            jsonl,
        }))
    }

    /// The document whose line starts at byte `offset`, using `buf` as scratch. An offset
    /// that does not start a document line (the file changed since it was read) is an
    /// error naming the offset.
    pub fn read_at(&self, offset: u64, buf: &mut Vec<u8>) -> Result<LineDoc> {
        buf.clear();
        let mut pos = offset;
        let mut chunk = [0u8; 8192];
        loop {
            let n = read_at(&self.file, &mut chunk, pos).map_err(|e| Error::io(&self.path, e))?;
            if n == 0 {
                break;
            }
            let got = &chunk[..n];
            if let Some(i) = memchr::memchr(b'\n', got) {
                buf.extend_from_slice(&got[..i]);
                break;
            }
            buf.extend_from_slice(got);
            pos += n as u64;
        }
        let l = buf.strip_suffix(b"\r").unwrap_or(buf);
        let kind = LineKind::new(self.jsonl, &self.cfg);
        let changed = |what: String| {
            Error::format(
                &self.path,
                format!("byte offset {offset}: {what}; the file changed since it was read"),
            )
        };
        match parse_line(l, kind) {
            Ok(Some((ext_id, text, _))) => Ok(LineDoc {
                ext_id,
                text: text.into_owned(),
            }),
            Ok(None) => Err(changed("a blank line, not a document".into())),
            Err(msg) => Err(changed(msg)),
        }
    }
}

#[cfg(unix)]
fn read_at(f: &std::fs::File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(f, buf, pos)
}

#[cfg(windows)]
fn read_at(f: &std::fs::File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(f, buf, pos)
}
