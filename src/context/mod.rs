//! The inverted shingle-by-document context (IK09 section 2.2).
//!
//! A [`Context`] maps each image element (a `u64` key, see `sketch`) to the set of documents
//! whose image holds it, as an ascending list of DocIds; all rows are held in one compact
//! [`Transactions`](crate::fimi::Transactions) (CSR: 4 bytes per incidence plus one offset
//! per row). A [`ContextBuilder`] builds it from `(key, DocId)` incidences streamed in, by
//! sorted runs spilled to disk under a memory budget ([`crate::spill`]); when the incidences
//! fit in the budget, [`Context::from_doc_keys`] builds it in memory by a parallel radix
//! partition of the key range instead (same result), and [`Context::from_key_source`] does
//! the same radix build from keys read again from disk (a [`KeySource`], e.g. images files)
//! in passes, without holding them. Every entry point takes its memory budget as a
//! [`SpillConfig`](crate::spill::SpillConfig) argument. The `<id,id,count>` pair counts have
//! an in-memory ([`pair_counts_of_rows`]) and a spilled ([`pair_counts_spilled`]) form with
//! the same result. A context is written as FIMI ([`crate::fimi`]) in one of two
//! [`Orientation`]s: `shingle-rows` (IK09: one line per image element listing the DocIds that
//! hold it; mining it yields sets of documents) or `doc-rows` (one line per document listing
//! the indices of the elements it holds).
//!
//! Files: `config.rs` (what to keep, orientation, stats), `builder.rs` (sorted runs and
//! grouping into rows), `radix.rs` (the in-memory and streamed radix builds), `rows.rs` (the
//! [`Context`] itself and its FIMI form), `images.rs` (the keys of images files as a key
//! source, and [`context_of_images`]), `keyfile.rs` (keys written to temporary partitions by key
//! range while a corpus is sketched, read back as a key source a range at a time:
//! [`KeyFile`]), `docfile.rs` (documents' records in DocId order in a temporary file, read
//! again in order or by DocId: [`DocFile`]), `doc_keys.rs` (a part's
//! documents' keys and values in memory or in a key file, read in order or by index:
//! [`DocKeys`]), `spilled.rs` (rows kept in a temporary file when a
//! budget that bounds the whole process cannot hold them: [`SpilledContext`], read back as a
//! [`RowSource`]), `pairs.rs` (pair counts), `prefix.rs` (the prefix filter every pair search
//! by prefixes uses: [`PrefixFilter`]).
//!
//! Invariants:
//! - rows are ordered by ascending key, so a context built from the same images is the same
//!   whatever the number of threads, the budget and the build;
//! - every row holds at least `min_df` (default 2) documents: an element held by one document
//!   cannot join a cluster, so it is dropped and counted; with `max_df`, rows holding more
//!   documents are dropped too (B97 5.1) and counted.

mod builder;
mod config;
mod doc_keys;
mod docfile;
pub(crate) mod images;
mod keyfile;
mod pairs;
pub mod prefix;
mod radix;
mod rows;
mod spilled;

#[cfg(test)]
mod tests;

pub use builder::ContextBuilder;
pub use config::{ContextConfig, ContextStats, Orientation, RowFate};
pub use doc_keys::DocKeys;
pub use docfile::{DocFile, DocFileWriter};
pub use images::context_of_images;
pub use keyfile::{KeyFile, KeyFileWriter};
pub use pairs::{
    pair_counts, pair_counts_in_memory_bytes, pair_counts_of_rows, pair_counts_spilled,
    pair_counts_streamed, pair_incidences,
};
pub use prefix::PrefixFilter;
pub use radix::{BuiltContext, KeySource, KeyStats};
pub use rows::Context;
pub use spilled::{RowSource, SpilledContext};
