//! The reader thread: cuts JSONL and plain lines into blocks of whole lines (at most
//! [`ParOptions::block_bytes`] and [`MAX_BLOCK_LINES`] lines each), or hands over the
//! documents of the sequential reader in batches for the other formats.
//!
//! Invariants: blocks are numbered densely in input order, and the cut depends only on the
//! input and the block size; each block knows its first line, first DocId and (for a
//! seekable file) its first byte; a line longer than the largest document is read past,
//! never held, and counted; at most one block is shipped per permit received.

use std::io::BufRead;
use std::path::Path;
use std::sync::mpsc;

use super::parse::LineKind;
use crate::corpus::input::{append_line, is_blank, read_err, Got};
use crate::corpus::reader::too_many_documents;
use crate::corpus::split::LineRange;
use crate::corpus::CorpusStats;
use crate::Result;

#[cfg(doc)]
use super::ParOptions;

/// Documents per batch when the sequential reader feeds the workers (fallback formats).
const FALLBACK_DOCS: usize = 1024;

/// Lines per block at most, whatever their size: the results of a block take memory per
/// document, so a block of millions of empty lines must not be one block.
const MAX_BLOCK_LINES: u64 = 8192;

/// What the reader hands to a worker.
pub(super) enum Job {
    /// Whole lines (each with its `\n`, except maybe the last line of the input) of a
    /// line-based format.
    Lines {
        bytes: Vec<u8>,
        /// 1-based line number of the first line.
        first_line: u64,
        /// DocId of the first document.
        first_doc: u64,
        /// Byte offset in the file of `bytes[0]`, when the input is a seekable file.
        first_byte: Option<u64>,
    },
    /// Documents already read by the sequential reader, with the 1-based line where each
    /// starts ([`crate::corpus::CorpusReader::last_line`]).
    Docs(Vec<crate::corpus::Document>, Vec<u64>),
}

/// Whether positions in the bytes read from `path` are positions in the file: an
/// uncompressed regular file (not standard input, not gzip or zstd).
pub(super) fn offsets_are_file_offsets(path: &Path) -> bool {
    path != Path::new("-")
        && !crate::io::Compression::of_path(path).is_compressed()
        && std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// The sizes the reader of line-based formats works with.
#[derive(Clone, Copy)]
pub(super) struct LineLimits {
    /// Bytes per block (at least one line).
    pub(super) block_bytes: usize,
    /// The longest line kept (longer ones are read past and counted).
    pub(super) max_doc_bytes: u64,
}

/// The reader of line-based formats: cuts blocks and dispatches them with `run(seq, job)`.
/// With `seekable`, each block carries the file offset of its first byte. A line longer
/// than the largest document ends the block before it and is read past, not held.
/// Returns the sequence number of the end and how the reading ended (with the number of
/// lines skipped as too long).
#[allow(clippy::too_many_arguments)]
pub(super) fn read_lines(
    mut r: Box<dyn BufRead + Send>,
    path: &Path,
    kind: Option<LineKind<'_>>,
    limits: LineLimits,
    seekable: bool,
    from: LineRange,
    permits: &mpsc::Receiver<()>,
    mut run: impl FnMut(u64, Job),
) -> (u64, Result<(Option<CorpusStats>, u64)>) {
    let LineLimits {
        block_bytes,
        max_doc_bytes,
    } = limits;
    let mut oversized = 0u64;
    let jsonl = matches!(kind, Some(LineKind::Jsonl { .. }));
    let mut seq = 0u64;
    // Lines and documents before the reader's first byte (`from`: the whole input, or one
    // byte range of it).
    let mut line = from.first_line - 1;
    let mut docs = from.first_doc;
    let mut buf: Vec<u8> = Vec::with_capacity(block_bytes + (block_bytes >> 2));
    let mut first_line = from.first_line;
    let mut first_doc = from.first_doc;
    let mut block_lines = 0u64;
    // Bytes read from the input so far, and the offset of `buf[0]` in it.
    let mut read = from.start;
    let mut first_byte = from.start;
    let mut ship = |buf: &mut Vec<u8>,
                    first_line: u64,
                    first_doc: u64,
                    first_byte: u64,
                    seq: &mut u64|
     -> bool {
        if permits.recv().is_err() {
            return false; // the consumer has stopped
        }
        let bytes = std::mem::replace(buf, Vec::with_capacity(block_bytes + (block_bytes >> 2)));
        run(
            *seq,
            Job::Lines {
                bytes,
                first_line,
                first_doc,
                first_byte: seekable.then_some(first_byte),
            },
        );
        *seq += 1;
        true
    };
    // How the reading ends; the lines before the end are shipped in any case.
    let end = loop {
        let start = buf.len();
        let n = match append_line(&mut *r, &mut buf, max_doc_bytes) {
            Ok(Got::Eof) => break Ok((None, oversized)),
            Ok(Got::Line(n)) => n,
            Ok(Got::Oversized(n)) => {
                // Not a document: the lines before it go as one block, the next block
                // starts after it.
                if !buf.is_empty() && !ship(&mut buf, first_line, first_doc, first_byte, &mut seq) {
                    return (seq, Ok((None, oversized)));
                }
                read += n;
                line += 1;
                oversized += 1;
                block_lines = 0;
                first_line = line + 1;
                first_doc = docs;
                first_byte = read;
                continue;
            }
            Err(e) => break Err(read_err(path, line + 1, e)),
        };
        read += n as u64;
        line += 1;
        if line == 1 && from.start == 0 && buf.starts_with(b"\xEF\xBB\xBF") {
            buf.drain(..3);
            first_byte = 3;
        }
        let is_doc = !jsonl || !is_blank(&buf[start..]);
        if is_doc {
            if docs > u64::from(u32::MAX) {
                buf.truncate(start);
                break Err(too_many_documents(path));
            }
            docs += 1;
        }
        block_lines += 1;
        if buf.len() >= block_bytes || block_lines >= MAX_BLOCK_LINES {
            if !ship(&mut buf, first_line, first_doc, first_byte, &mut seq) {
                return (seq, Ok((None, oversized)));
            }
            block_lines = 0;
            first_line = line + 1;
            first_doc = docs;
            first_byte = read;
        }
    };
    if !buf.is_empty() && !ship(&mut buf, first_line, first_doc, first_byte, &mut seq) {
        return (seq, Ok((None, oversized)));
    }
    (seq, end)
}

/// The reader of the other formats: the sequential reader in batches.
pub(super) fn read_seq(
    mut r: crate::corpus::CorpusReader,
    block_bytes: usize,
    permits: &mpsc::Receiver<()>,
    mut run: impl FnMut(u64, Job),
) -> (u64, Result<Option<CorpusStats>>) {
    let mut seq = 0u64;
    loop {
        let mut docs = Vec::new();
        let mut lines = Vec::new();
        let mut bytes = 0usize;
        let mut end = None;
        while docs.len() < FALLBACK_DOCS && bytes < block_bytes {
            match r.next() {
                Some(Ok(d)) => {
                    bytes += d.text.len() + d.ext_id.len();
                    docs.push(d);
                    lines.push(r.last_line());
                }
                Some(Err(e)) => {
                    end = Some(Err(e));
                    break;
                }
                None => {
                    end = Some(Ok(Some(r.stats())));
                    break;
                }
            }
        }
        if !docs.is_empty() {
            if permits.recv().is_err() {
                return (seq, Ok(None));
            }
            run(seq, Job::Docs(docs, lines));
            seq += 1;
        }
        if let Some(e) = end {
            return (seq, e);
        }
    }
}
