//! The persisted index: on-the-fly resemblance queries, incremental sweeps with a "lost and
//! found" report (B97 6.1-6.2), containment queries, and collection overlap by sampling
//! (L20, [`overlap`]).
//!
//! An [`Index`] holds, per document (DocId `i`, dense, in insertion order): the external
//! id, the image, optionally a second mod-m image for containment, the sweep it was first
//! and last seen in, optionally the ordinal of its source document in that sweep's corpus,
//! and its cluster label. The documents are divided into segments, contiguous DocId ranges
//! (one per sweep, merged as they accumulate, see [`segment`]); each segment holds the
//! inverted context of its documents (element key -> documents, [`Postings`]) and for
//! positional schemes their LSH band table (band key -> documents). Besides the index
//! holds the sweeps (tag, input, corpus options) and the removed documents (tombstones).
//!
//! # Invariants
//! * Query results do not depend on how the index was built: candidates are the documents
//!   sharing at least `need` image elements with the query, where `need` is a bound that
//!   every document with estimated measure `>= t` satisfies (see [`min_shared`]), so
//!   [`Index::query_image`] returns exactly what a brute-force scan of all images with the
//!   same estimator returns. A query visits every segment; each document is in exactly
//!   one, so the answer does not depend on how the documents are divided into segments
//!   (nor on merges).
//! * Clusters are the connected components of the graph "estimated resemblance `>= t`"
//!   (`t` = the index threshold, B97 union-find). [`Index::add_documents`] only compares the
//!   new documents with everything (old and new), never old with old; because the
//!   components of a graph do not depend on the order its edges arrive in, building in
//!   two sweeps gives the same clusters as building once over both. A cluster's label is its
//!   smallest DocId.
//! * Removed documents ([`Index::remove`], all versions of an external id) keep their DocIds
//!   but no query, cluster, sweep or lost-and-found report sees them: the clusters are the
//!   components of the graph over the documents not removed, and a later sweep stores a
//!   removed external id again as a new document. Merges drop their postings and images.
//! * Sweeps: a document whose external id is already in the index with an identical image
//!   (its latest version) is not stored again; that version is marked seen in the new sweep.
//!   A changed document is stored as a new version (a new DocId) tagged with the sweep.
//!   Lost documents (external id not seen in the latest sweep) STAY in the index, tagged
//!   with the sweep they were last seen in, so that later sweeps can still find where they
//!   moved (B97 6.2) and so that clusters equal those of a single build over all sweeps.
//!   A batch ([`Index::add_batch`], [`Index::add_batch_corpus_with`], `index add --batch`,
//!   `dedup --against INDEX --add`) is a sweep of new documents that loses nothing; the
//!   next complete sweep reports as lost what the complete sweep before it and the batches
//!   since held and it lacks. A complete sweep queries every lost document (against the
//!   segments holding documents it saw), so its cost grows with what it lacks; a batch's
//!   queries are its own documents' only.
//! * tf-idf weighted images are refused: their weights depend on the whole collection, so
//!   they cannot be extended incrementally.
//! * Nothing here prints; every failure is an [`Error`](crate::Error).
//!
//! # Memory
//! The index is held in memory while it is used, except the postings and the images of the
//! segments read from disk, which are memory-mapped and used in place (their pages are read
//! when a lookup or an estimate touches them; see `images` and [`Postings`]): the external
//! ids, the per-document state and the `latest` map are what an open holds.
//! [`memory_needed`] counts an index built in memory ([`BYTES_PER_DOC`] a document,
//! [`BYTES_PER_VALUE`] an image value, about 3 KB a document at 128 values), an upper
//! bound; an index opened from disk holds its mapped segments' documents at
//! [`crate::plan::INDEX_BYTES_PER_MAPPED_DOC`] each, and a sweep or a merge adds what the
//! memory plan says ([`crate::plan::index_sweep_needs`],
//! [`crate::plan::index_merge_adds`]). A sweep's postings are built as one new segment
//! ([`Postings::extend`]); a merge frees its parts' postings before it builds the merged
//! ones. Only new segments and the small per-generation files are written, one file at a
//! time, streamed, so a build, a sweep, a merge or an open holds little beside the index
//! itself. Under a memory
//! budget ([`Index::build_with`], [`Index::add_corpus_with`],
//! [`Index::open_for_write_with`]) the sweep is sketched to a temporary images file first,
//! and when the index with it would not fit the call fails with
//! [`Error::Budget`](crate::Error::Budget) before the index is touched; the index is the
//! same with or without a budget, except that a merge of the merge policy that would not
//! fit waits for `index merge` ([`Index::merge_by_policy_within`]; the segments differ, no
//! answer does).
//!
//! The code: `config` (build options, sweeps), `inherent` (the [`Index`] and its
//! accessors), `ids` (the external ids and their latest versions), `images` (the images
//! by DocId, in memory or mapped), `mapped` (a mapped file checked block by block),
//! `build` (new index, sweeps, clusters, lost and found), `join` (a sweep's candidate
//! pairs by a join of postings), [`segment`]
//! (segments, the merge policy, merges, removals), `query` (queries of images and of
//! texts, [`Index::query_texts`], and exact measures), [`Postings`] (key -> documents),
//! [`overlap`] (collection overlap). The on-disk layout (segment directories, generations,
//! format versions), the atomic generation switch and the checksums are in [`store`], the
//! writer lock in `lock` ([`WriteLock`]); the byte codec is the crate's one,
//! [`crate::codec`].

mod build;
mod config;
mod ids;
mod images;
mod inherent;
mod join;
mod lock;
mod mapped;
pub mod overlap;
mod postings;
mod query;
pub mod segment;
pub mod store;

pub use build::{memory_needed, AddReport, Lost, NewDoc, BYTES_PER_DOC, BYTES_PER_VALUE};
pub use config::{CorpusSpec, IndexConfig, Sweep};
pub use inherent::Index;
pub use lock::{WriteLock, LOCK};
pub use postings::Postings;
pub use query::{min_shared, Candidates, Hit, Query, QueryOptions, QueryResult, QuerySketcher};
pub use segment::{max_segments, MergeReport, RemoveReport, MERGE_FACTOR};

/// What a query measures: the one [`crate::cluster::Measure`] of the crate. For a
/// query, `Resemblance` is the estimated resemblance of the query and the document and
/// `Containment` the estimated containment of the query IN the document, `|Q n D| / |Q|`
/// (mod-m images).
pub use crate::cluster::Measure;
