//! A parallel corpus reader: reading, parsing and a per-document map overlap, and the
//! results come back in input order.
//!
//! [`par_map_corpus_with`] runs three kinds of work at once:
//! * a **reader thread** (one, sequential) reads the input. For JSONL and plain lines
//!   (gzip- or zstd-compressed or not, standard input included) it cuts the byte stream into blocks
//!   of about [`DEFAULT_BLOCK_BYTES`] and at most 8192 lines (a block's results take
//!   memory per document) at line boundaries, reading lines as the sequential reader does
//!   (so read errors name the same line), counting the documents of
//!   each block so that every block knows its first [`DocId`]. Formats that cannot be cut
//!   cheaply (CSV/TSV, whose quoted fields may hold line ends, directories, WARC, Parquet)
//!   and JSONL with [`CorpusConfig::skip_bad_lines`] (whose document count is only known
//!   after parsing), and sharded corpora ([`crate::corpus::shards`], read shard after
//!   shard)
//!   fall back to the sequential [`super::CorpusReader`], whose documents are handed over
//!   in batches;
//! * **workers** (rayon tasks on the current pool, so `--threads` applies) parse each
//!   block and call the map function on each of its documents, with a per-worker state;
//! * the **calling thread** reorders the finished blocks and hands them to the consumer in
//!   input order.
//!
//! The external ids travel beside the mapped results ([`Block::ext_ids`]): the calling
//! thread passes those of the line formats through the [`IdCheck`] in input order (the
//! sequential reader checks those of the other formats itself), so a duplicate is found,
//! or renamed, exactly as the sequential reader would. A line longer than
//! [`CorpusConfig::max_doc_bytes`] is read past by the reader thread (never held) and
//! counted, as the sequential reader does.
//!
//! Invariants: documents get exactly the DocIds, external ids, texts and counts that the
//! sequential reader gives them; blocks reach the consumer in input order, so the result
//! does not depend on the number of threads; the first error in document order wins (a
//! later block may fail first in time, it is reported only if nothing before it failed), and
//! it is the sequential reader's error (same file, line and message). At most
//! [`ParOptions::in_flight`] blocks exist at once (read, being mapped, or waiting to be
//! consumed), so memory is bounded by about `in_flight * block_bytes` of raw text plus
//! their results: the raw corpus is never held whole.
//!
//! Files: `options.rs` (block size, blocks in flight), `block.rs` (what the map function
//! and the consumer see: [`RawDoc`], [`Block`]), `map.rs` (the entry points and the threads
//! behind them), `cut.rs` (the reader thread: blocks of lines, or batches of the sequential
//! reader), `parse.rs` (the workers: lines to documents, one block parsed and mapped),
//! `order.rs` (the calling thread: reordering, the duplicate check, delivery), `share.rs`
//! (one worker's share of a corpus, and the duplicate check across shares), `line_doc.rs`
//! (documents read again at their byte offsets).

mod block;
mod cut;
mod line_doc;
mod map;
mod options;
mod order;
mod parse;
mod share;

pub use block::{Block, Consume, MapDoc, RawDoc};
pub use line_doc::{LineDoc, LineDocReader};
pub use map::{
    par_map_corpus, par_map_corpus_opts, par_map_corpus_share, par_map_corpus_wanted,
    par_map_corpus_with, read_all_par, read_all_par_opts,
};
pub use options::{ParOptions, DEFAULT_BLOCK_BYTES};
pub use share::{Share, ShareIds};

#[cfg(doc)]
use super::{CorpusConfig, IdCheck};
#[cfg(doc)]
use crate::DocId;
