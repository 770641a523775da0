//! What the map function and the consumer of the parallel reader see: one document
//! ([`RawDoc`]), the mapped documents of one block ([`Block`]), and the named bounds of the
//! map function ([`MapDoc`]) and of the consumer ([`Consume`]).
//!
//! Invariant: a block's items, external ids (and lines) are in input order, one per
//! document, the first at DocId [`Block::first`] and the others following densely.

use std::borrow::Cow;

use crate::{DocId, Result};

#[cfg(doc)]
use super::{par_map_corpus_share, par_map_corpus_wanted, LineDocReader, ParOptions, ShareIds};

/// One document as the map function sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawDoc<'a> {
    /// Dense id in input order (as the sequential reader assigns it).
    pub id: DocId,
    /// The id the input gave it, before the duplicate check (the checked, possibly renamed
    /// id is in [`Block::ext_ids`]).
    pub ext_id: &'a str,
    /// The text (borrowed from the block when possible).
    pub text: Cow<'a, str>,
    /// True when invalid UTF-8 was replaced while decoding.
    pub lossy: bool,
    /// Byte offset of the document's line in the file, when the input is an uncompressed
    /// regular file in a line format (JSONL or plain lines): where
    /// [`LineDocReader::read_at`] finds it again. `None` for standard input, gzip, zstd
    /// and the formats read sequentially.
    pub offset: Option<u64>,
}

/// The mapped documents of one block, in input order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block<T> {
    /// DocId of the first item (the others follow densely).
    pub first: DocId,
    /// One result per document.
    pub items: Vec<T>,
    /// The external id of every document, checked for duplicates (and renamed with
    /// [`crate::corpus::DuplicateIds::Suffix`]); empty strings for the documents a
    /// [`par_map_corpus_wanted`] does not want.
    pub ext_ids: Vec<String>,
    /// The block's sequence number: blocks are numbered densely in input order, the same
    /// way by every reader of the same input (the cut depends only on the input and
    /// [`ParOptions::block_bytes`]).
    pub seq: u64,
    /// With [`par_map_corpus_share`], the 1-based line of every document (where it starts:
    /// a CSV row's first line, a WARC record's version line, a Parquet row's number); on a
    /// line format its ids are then still to be checked ([`ShareIds`]); else `None`.
    pub lines: Option<Vec<u64>>,
}

/// The per-document map of the parallel reader: the result for one document, given the
/// worker's state (a named form of the bound `Fn(&mut S, RawDoc<'_>) -> Result<T> + Sync`,
/// which every closure of that shape meets).
pub trait MapDoc<S, T>: Fn(&mut S, RawDoc<'_>) -> Result<T> + Sync {}

impl<S, T, F: Fn(&mut S, RawDoc<'_>) -> Result<T> + Sync> MapDoc<S, T> for F {}

/// The consumer of the mapped blocks, called on the calling thread in input order.
pub trait Consume<T>: FnMut(Block<T>) -> Result<()> {}

impl<T, C: FnMut(Block<T>) -> Result<()>> Consume<T> for C {}
