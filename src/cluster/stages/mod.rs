//! The stages of a clustering run as functions over a partition (a slice of documents,
//! rows, collapse classes or groups), so that a run divided among many workers
//! (`dataflow`, behind the `distributed` feature) holds no stage logic of its
//! own: it only moves each stage's inputs to the worker owning them and calls these.
//!
//! Layout: `classes.rs` (the collapse of the documents sharing a collapse key,
//! [`fold_class`]), `pairs.rs` (pairs counted over rows, [`count_pairs`], and candidates
//! tested on full lists by the prefix filter, [`link_candidates`]), `forest.rs` (a part's
//! edges as a spanning forest, [`spanning_forest`]), `components.rs` (the connected
//! components over a partition of the nodes by large-star and small-star,
//! [`large_star`], [`small_star`], [`star_violations`], and the groups placed on workers,
//! [`Placement`]), `group.rs` (the method on one group, [`run_group`]), `giant.rs` (a
//! giant group's mining divided among the workers: [`Relay`], [`mine_share`],
//! [`joined_parts`]),
//! `merge.rs` (the method's configuration and rule, [`divided_method`], the threshold's
//! translation, [`translation_header`], the groups' counts summed, [`Totals`], checked
//! against the run's limits, [`check_totals`], and made into its summary,
//! [`merged_summary`]), `parts.rs` (the groups' results as the lines of the output files
//! with a key in each file's order, [`group_rows`], and each part ordered and written).
//!
//! Invariant: run over the parts of any partition and merged, the stages give what one
//! process gives on the whole corpus (the divided run's tests check it byte for byte).

mod classes;
mod components;
mod forest;
mod giant;
mod group;
mod merge;
mod pairs;
mod parts;

pub use classes::{fold_class, Prints};
pub use components::{
    big_group, both_ways, hashed_owner, large_star, node_count, oriented, place_big, small_star,
    split_groups, star_labels, star_sizes, star_violations, Arc, Placement,
};
pub use forest::spanning_forest;
pub use giant::{
    divided_from, joined_parts, mine_share, Component, Relay, Request, DIVIDED_MINING_MIN_DOCS,
};
pub use group::{run_group, CarriedSets, GroupFound, GroupJob, Member, PairRow, RemovalRow};
pub use merge::{
    check_totals, divided_method, merged_summary, translation_header, PartCounts, Totals,
};
pub use pairs::{count_pairs, link_candidates};
pub use parts::{
    cluster_key, finish_part_clusters, group_rows, part_file, part_pattern, resolve,
    sort_pair_lines, sort_removed_lines, write_clusters_part, write_pairs_part, write_removed_part,
    ClusterLine, ClusterRef, GroupRows, PairLine, RemovedLine,
};
