//! The workers: how the lines of a block become documents ([`LineKind`], [`parse_line`]),
//! and the parsing and mapping of one block ([`run_job`]).
//!
//! Invariant: a line is decoded and parsed exactly as the sequential reader reads it (same
//! text, external id, lossy flag, and error message at the same line), and documents get
//! dense DocIds from the block's first one.

use std::borrow::Cow;
use std::path::Path;

use super::block::{Block, MapDoc, RawDoc};
use super::cut::Job;
use super::order::Piece;
use crate::corpus::input::{decode_ref, is_blank};
use crate::corpus::jsonl::parse_jsonl_line_fast;
use crate::corpus::{CorpusConfig, CorpusStats, Format};
use crate::{DocId, Error, Result};

/// How the lines of a block become documents.
#[derive(Clone, Copy)]
pub(super) enum LineKind<'a> {
    Jsonl {
        text_field: &'a str,
        id_field: &'a str,
    },
    Lines,
}

impl<'a> LineKind<'a> {
    /// JSONL with the fields of `cfg`, or plain lines.
    pub(super) fn new(jsonl: bool, cfg: &'a CorpusConfig) -> Self {
        if jsonl {
            LineKind::Jsonl {
                text_field: &cfg.text_field,
                id_field: &cfg.id_field,
            }
        } else {
            LineKind::Lines
        }
    }
}

/// How the parallel reader reads `path` by lines (JSONL, unless malformed lines are to be
/// skipped, or plain lines); `None` for the formats read by the sequential reader.
pub(super) fn line_kind<'c>(path: &Path, cfg: &'c CorpusConfig) -> Result<Option<LineKind<'c>>> {
    let format = cfg.format_of(path)?;
    if crate::corpus::shards::is_sharded(path, cfg) {
        // Shards are read one after the other by the sequential reader.
        return Ok(None);
    }
    Ok(crate::corpus::split::read_by_lines(format, cfg)
        .then(|| LineKind::new(format == Format::Jsonl, cfg)))
}

/// The result of a block of lines that failed with `e` after the documents `ext_ids`
/// (at `lines`, when their ids are to be checked).
fn failed<T>(e: Error, ext_ids: Vec<String>, lines: Option<Vec<u64>>) -> Result<Piece<T>> {
    match lines {
        Some(lines) => Ok(Piece::Failed(ext_ids, lines, e)),
        None => Err(e),
    }
}

/// Parses and maps one block; with `check_ids`, a block of lines also gives the line of
/// every document (for the duplicate check of the calling thread).
#[allow(clippy::too_many_arguments)]
pub(super) fn run_job<S, T>(
    job: Job,
    kind: Option<LineKind<'_>>,
    path: &Path,
    wanted: Option<&[DocId]>,
    skip: fn() -> T,
    check_ids: bool,
    st: &mut S,
    f: &impl MapDoc<S, T>,
) -> Result<Piece<T>> {
    let mut stats = CorpusStats::default();
    let unwanted = |d: DocId| wanted.is_some_and(|w| w.binary_search(&d).is_err());
    match job {
        Job::Docs(docs, lines) => {
            let first = docs.first().map_or(DocId(0), |d| d.id);
            let mut items = Vec::with_capacity(docs.len());
            let mut ext_ids = Vec::with_capacity(docs.len());
            for d in docs {
                if unwanted(d.id) {
                    items.push(skip());
                    ext_ids.push(String::new());
                    continue;
                }
                items.push(f(
                    st,
                    RawDoc {
                        id: d.id,
                        ext_id: &d.ext_id,
                        text: Cow::Owned(d.text),
                        lossy: d.lossy,
                        offset: None,
                    },
                )?);
                ext_ids.push(d.ext_id);
            }
            Ok(Piece::Block(
                Block {
                    first,
                    items,
                    ext_ids,
                    seq: 0,
                    lines: None,
                },
                stats,
                // The sequential reader checked the ids; the lines go to a share's
                // consumer (the calling thread checks none here).
                Some(lines),
            ))
        }
        Job::Lines {
            bytes,
            first_line,
            first_doc,
            first_byte,
        } => {
            let kind = kind.unwrap_or(LineKind::Lines);
            let mut items = Vec::new();
            let mut ext_ids = Vec::new();
            let mut lines = Vec::new();
            let mut line_no = first_line - 1;
            let mut id = first_doc;
            let mut at = 0u64;
            for raw in bytes.split_inclusive(|&b| b == b'\n') {
                line_no += 1;
                let offset = first_byte.map(|b| b + at);
                at += raw.len() as u64;
                let mut l = raw;
                if let Some(x) = l.strip_suffix(b"\n") {
                    l = x.strip_suffix(b"\r").unwrap_or(x);
                }
                if unwanted(DocId(id as u32)) {
                    // Not decoded nor parsed; a blank JSONL line is still no document.
                    let blank = matches!(kind, LineKind::Jsonl { .. }) && is_blank(l);
                    if !blank {
                        items.push(skip());
                        ext_ids.push(String::new());
                        id += 1;
                    }
                    continue;
                }
                let (ext_id, text, lossy) = match parse_line(l, kind) {
                    Ok(Some((ext, text, lossy))) => {
                        (ext.unwrap_or_else(|| line_no.to_string()), text, lossy)
                    }
                    Ok(None) => continue,
                    Err(msg) => {
                        let e = Error::parse(path, line_no, msg);
                        return failed(e, ext_ids, check_ids.then_some(lines));
                    }
                };
                stats.count_document(&text, lossy);
                let item = f(
                    st,
                    RawDoc {
                        id: DocId(id as u32),
                        ext_id: &ext_id,
                        text,
                        lossy,
                        offset,
                    },
                );
                match item {
                    Ok(item) => items.push(item),
                    Err(e) => return failed(e, ext_ids, check_ids.then_some(lines)),
                }
                ext_ids.push(ext_id);
                if check_ids {
                    lines.push(line_no);
                }
                id += 1;
            }
            Ok(Piece::Block(
                Block {
                    first: DocId(first_doc as u32),
                    items,
                    ext_ids,
                    seq: 0,
                    lines: None,
                },
                stats,
                check_ids.then_some(lines),
            ))
        }
    }
}

/// One line of a line format (without its line end) as a document: its external id
/// (`None`: the line number is the id), text and whether UTF-8 was replaced; `Ok(None)` for
/// a blank JSONL line (no document).
pub(super) fn parse_line<'a>(
    l: &'a [u8],
    kind: LineKind<'_>,
) -> std::result::Result<Option<ParsedLine<'a>>, String> {
    match kind {
        LineKind::Lines => {
            let (text, lossy) = decode_ref(l);
            Ok(Some((None, text, lossy)))
        }
        LineKind::Jsonl {
            text_field,
            id_field,
        } => {
            if is_blank(l) {
                return Ok(None);
            }
            match decode_ref(l) {
                (Cow::Borrowed(line), lossy) => parse_jsonl_line_fast(line, text_field, id_field)
                    .map(|(i, t)| Some((i, t, lossy))),
                (Cow::Owned(line), lossy) => parse_jsonl_line_fast(&line, text_field, id_field)
                    .map(|(i, t)| Some((i, Cow::Owned(t.into_owned()), lossy))),
            }
        }
    }
}

/// What [`parse_line`] makes of a line: external id (if the line names one), text, lossy.
type ParsedLine<'a> = (Option<String>, Cow<'a, str>, bool);
