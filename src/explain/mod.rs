//! Why a pair of documents was found or missed: everything fimdup computes about two
//! documents, side by side.
//!
//! An [`Explainer`] (built from a validated [`PipelineConfig`](crate::sketch::pipeline::PipelineConfig))
//! takes two raw documents ([`Doc`]) and returns an [`Explanation`]:
//!
//! - the exact resemblance and both containments (A in B, B in A) of the full shingle sets
//!   ([`crate::shingle::resemblance`], [`crate::shingle::containment`]);
//! - the resemblance estimate from the two images and the number of image elements they
//!   share ([`crate::sketch::estimate_resemblance`], [`crate::sketch::shared_elements`]: the
//!   count the concept and union-find methods compare with their k);
//! - the shared shingles, with every position (token index) and byte range where they occur
//!   in both canonical texts, and per side the passages they cover;
//! - with [`Explainer::explain_method`], the [`Verdict`] of one clustering method at one
//!   threshold: the method is run on the two documents alone, through the very path
//!   `fimdup cluster` takes ([`crate::cluster::Prepared::run`]: collapse, threshold
//!   translation, images of [`Method::scheme_for`](crate::cluster::Method::scheme_for) the
//!   pipeline's scheme), and the numbers the method compared are reported with it.
//!
//! The texts shown are the CANONICAL texts (what shingles are cut from: HTML stripped,
//! lowercased, punctuation dropped, stop words removed and words stemmed as configured),
//! not the raw documents.
//!
//! What one pair cannot show: guards and choices that depend on the rest of a corpus
//! (`max_df` dropping elements held by many documents, the itemset and pair caps, the
//! collapse of a document with a third one, LSH center clustering giving a document to
//! another center, exact verification). A verdict says whether the method pairs the two
//! documents when they are the whole corpus.
//!
//! Invariants:
//! - a shingle is shared when its hash ([`crate::shingle`]) occurs in both documents;
//!   shingle `j` starts at token `j * offset` and covers `len` tokens, so positions respect
//!   the shingle length and offset; a document with fewer tokens than the shingle length has
//!   no shingle (resemblance 0, no shared shingle, no passage);
//! - [`Side::passages`] are sorted, non-overlapping, non-empty byte ranges of
//!   [`Side::text`] on UTF-8 boundaries, the union of the ranges of the shared shingles'
//!   occurrences in that text;
//! - the library never prints: [`render`] returns strings (terminal, HTML).
//!
//! Layout: `explanation.rs` (the result types), `explainer.rs` ([`Explainer`]), `find.rs`
//! ([`find_pair`]: the two documents of a corpus by id),
//! `shared.rs` (shared shingles and passages), `verdict.rs` (one method's verdict),
//! [`render`] (terminal and HTML views).

mod explainer;
mod explanation;
mod find;
pub mod render;
mod shared;
mod verdict;

pub use explainer::Explainer;
pub use explanation::{ConfigEcho, Doc, Explanation, SharedShingle, Side};
pub use find::find_pair;
pub use shared::merge_ranges;
pub use verdict::{MethodDetail, Verdict, GUARD_NOTE};
