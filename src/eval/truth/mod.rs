//! Truths as they are published: pair lists (CSV or TSV, with value columns and truth
//! rules), cluster assignments (JSONL or CSV `id,cluster`) and PAN plagiarism-detection XML
//! directories, read into one [`TruthTable`] giving the positive pairs ([`Labels`]) and the
//! labeled pairs ([`Labeled`]).
//!
//! Invariants: one reader per format (`clusters`, `pan`; pair lists through the pair-file
//! reader); the labeled pairs of cluster and PAN truths are decided from their documents,
//! never listed.

mod clusters;
mod format;
mod labels;
mod pan;
mod table;

pub use format::TruthFormat;
pub(crate) use labels::sorted_names;
pub use labels::{Labeled, Labels};
pub use table::TruthTable;
