//! The stages of a clustering run as functions over a partition (a slice of documents,
//! rows, collapse classes or groups), so that a run divided among many workers
//! (`dataflow`, behind the `distributed` feature) holds no stage logic of its
//! own: it only moves each stage's inputs to the worker owning them and calls these.
//!
//! Layout: `classes.rs` (the collapse of the documents sharing a collapse key,
//! [`fold_class`]), `pairs.rs` (pairs counted over rows, [`count_pairs`], and candidates
//! tested on full lists by the prefix filter, [`link_candidates`]), `forest.rs` (a part's
//! edges as a spanning forest, [`spanning_forest`], and the forests joined into placed
//! groups, [`place_groups`]), `group.rs` (the method on one group, [`run_group`]),
//! `merge.rs` (the method's configuration and rule, [`divided_method`], the threshold's
//! translation, [`translation_header`], and the groups'
//! results merged into one output, [`merge_groups`]).
//!
//! Invariant: run over the parts of any partition and merged, the stages give what one
//! process gives on the whole corpus (the divided run's tests check it byte for byte).

mod classes;
mod forest;
mod group;
mod merge;
mod pairs;

pub use classes::{fold_class, Prints};
pub use forest::{place_groups, spanning_forest};
pub use group::{run_group, GroupFound, GroupJob, Member, PairRow, RemovalRow};
pub use merge::{divided_method, merge_groups, translation_header, Merged, PartCounts};
pub use pairs::{count_pairs, link_candidates};
