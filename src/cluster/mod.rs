//! Clustering: concept clusters by maximal frequent itemsets (IK09), Broder union-find over
//! the `<id,id,count>` pairs (B97 4.1), LSH with the filtering pass and center clustering
//! (H00), super shingles (B97 5.3) and an exact similarity join (prefix filtering), plus the
//! B97 5.2 collapse of identical / lexically- / shingle-equivalent documents, the
//! translation of a threshold into each method's own `k`, exact verification, and the
//! writers of `clusters.jsonl`, `pairs.csv` and the summary.
//!
//! Layout: [`Job`] (`job.rs`) is the one job every entry point runs (input -> prepared
//! corpus -> method -> verification -> output); [`Prepared`] (`prepared.rs`) a corpus
//! sketched once for any method; [`run_method`] (`run.rs`) one method on primitive inputs,
//! with each method's own step in its file (`concept.rs`, `union_find.rs`, `lsh.rs`,
//! `supershingle.rs`, `exact.rs`, `simhash.rs`, each a `method::MethodSpec` registered in
//! `config.rs` with its options declared in its file, `declared.rs`; `containment.rs` the
//! mod-m containment step of union-find);
//! `threshold.rs` every translation of a
//! threshold; `verify.rs` exact verification and regrouping; `config.rs` the method and its
//! options; `output.rs` the records and writers; `stages/` the stages of a run as
//! functions over a partition (documents, rows, classes, groups), which the many-process
//! run (`dataflow`, behind the `distributed` feature) calls on each worker's part.
//!
//! Invariants:
//! - a cluster has at least two documents (singletons are not clusters); clusters are sorted
//!   by size descending, then documents ascending, then support descending, and numbered in
//!   that order;
//! - `pairs` are all member pairs of all clusters, each once (`a < b` by DocId), sorted; the
//!   scores of a pair come from the method's edge between the two documents' representatives
//!   when there is one (for `exact`, only the joined pairs: its answer is its pairs);
//! - the output depends only on the inputs and the configuration, not on the thread count
//!   nor on the entry point.

pub mod bbit_pairs;
pub mod candidates;
pub mod collapse;
pub mod concept;
pub mod config;
pub mod containment;
pub mod declared;
pub mod detection;
pub mod exact;
mod held_keys;
pub mod henzinger;
pub mod job;
mod job_output;
pub mod lsh;
pub mod method;
mod options;
pub mod output;
pub mod pair_detail;
pub mod prepared;
pub mod run;
pub mod simhash;
pub mod stages;
pub mod supershingle;
#[cfg(test)]
mod testutil;
pub mod threshold;
pub mod uf;
pub mod union_find;
pub mod verify;

#[cfg(test)]
mod invariant_tests;
#[cfg(test)]
mod method_tests;

pub use candidates::{candidate_rule, CandidateRule};
pub use collapse::{collapse, Collapse, CollapseSummary, Equivalence};
pub use concept::{concept_clusters, fp_miner, ConceptConfig, ConceptResult, MaximalMiner};
pub use config::{ClusterConfig, Method, Threshold};
pub use containment::{containment_join, mod_m_containment_pairs, ContainmentPair, Measure};
pub use declared::{MethodValues, OptKind, OptionDecl};
pub use exact::{exact_join, verify_exact, ExactConfig, ExactPair};
pub use job::{Input, Job, JobBuilder, JobOutput, Sketched, Verify};
pub use lsh::{center_clusters, Grouping, LshConfig};
pub use method::Reads;
pub use options::JobOptions;
pub use output::{
    pair_ends, pair_rows, write_cluster_lines, write_clusters, write_pair_lines, write_pairs,
    write_summary, Cluster, ClusterOutput, ClusterSummary, Phase, ScoredPair,
};
pub use prepared::Prepared;
pub use run::{
    check_max_pairs, check_pair_count, cluster_order, components_with_support, finish_clusters,
    pair_count_of, run_method, ClusterInputs,
};
pub use simhash::SimHashConfig;
pub use supershingle::SuperShingleConfig;
pub use threshold::{
    candidate_threshold, choose_bands, choose_bands_for, image_kind, image_kind_of,
    k_for_threshold, ImageKind, VERIFY_SIGMAS,
};
pub use union_find::union_find_clusters;
pub use verify::{verify_output, verify_with_corpus, CorpusSource, Regroup, MAX_CLIQUE_CLUSTER};
