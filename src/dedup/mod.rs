//! Deduplicating a corpus: the corpus back without its near-duplicates, in the format it
//! came in, with the list of what was removed and which kept document each removed one
//! resembles.
//!
//! [`Dedup`] (built and validated by [`DedupBuilder`]) runs one clustering [`Job`] on the
//! input and then chooses what to keep ([`select`]):
//! * by default, documents are taken in keep order ([`Keep`]: input order, longest or
//!   shortest first, or by a field); a document is kept unless it resembles an already
//!   kept document at the threshold or above (an edge of the method, between documents of
//!   two groups of equivalent documents, or two members of one group);
//! * with [`DedupBuilder::per_cluster`], one document per cluster of the method is kept
//!   (what union-find based tools do), for comparison;
//! * with [`DedupBuilder::against`], documents that resemble a document of an existing
//!   index at the threshold are removed first, naming the indexed document; and
//!   [`Dedup::run_adding`] then adds the kept documents to that index as a batch (one new
//!   segment), the index opened by the caller under its writer lock, so no other writer
//!   adds between the check and the addition.
//!
//! Then the input is read a second time and the kept records are written
//! ([`mod@write`]): byte for byte for line formats (JSONL, plain lines, CSV/TSV rows, WARC
//! records), the kept files of a directory, and for Parquet every column with the input
//! schema. `removed.csv`, `clusters.jsonl` and `summary.json` come beside it.
//!
//! Invariants (default mode):
//! - kept + removed = every document read; the kept records come out in input order;
//! - no two kept documents are joined by an edge of the method: no two kept documents
//!   resemble each other at the threshold as the method sees it (with exact verification:
//!   exactly, for every pair the method proposed);
//! - every removed document names a kept document (or an indexed one) that it resembles at
//!   the threshold, with that pair's score: exact when verified (or when the two are
//!   identical or lexically equivalent), else the method's estimate; no transitive chain
//!   removes a document that resembles nothing kept;
//! - the output depends only on the input and the configuration, not on the thread count.
//!
//! With exact verification (or the exact method) only identical and lexically-equivalent
//! documents are collapsed ([`Equivalence::Lexical`]): their full shingle sets are equal,
//! so every score of a group holds for each of its members exactly.

mod config;
mod keys;
mod run;
pub mod select;
pub mod write;

pub use config::{Dedup, DedupBuilder, DedupOptions, Keep, KeyValue, OutFormat};
pub use run::{Added, Chosen, DedupOutput, DedupSummary, RemovedBy, WrittenParts};
pub use select::{Reason, Removal, Representative, ScoreKind};
pub use write::{
    kept_compression, part_name, removed_rows, write_kept_part, write_removed_lines, Kept,
    KeptPart, RemovedRow,
};

#[cfg(doc)]
use crate::cluster::{Equivalence, Job};
