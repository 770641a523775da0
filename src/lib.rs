//! # fimdup
//!
//! Near-duplicate document clustering by frequent itemset mining (Ignatov & Kuznetsov 2009),
//! together with the classic baselines it is measured against (Broder et al. 1997 union-find
//! over resemblance pairs, Haveliwala et al. 2000 LSH with center clustering, an exact
//! similarity join) and the evaluation that compares them against labeled duplicate pairs.
//!
//! The modules read as the pipeline; data flows one way:
//!
//! ```text
//! corpus -> text -> shingle -> sketch -> context -> mine -> cluster -> eval -> report
//!                                                               \-> explain (one pair)
//!                                            \-> index (queries, incremental sweeps)
//! ```
//!
//! The library never prints, exits or parses argv: the `fimdup` binary (`src/main.rs`,
//! `src/cli/`) does that. Every fallible function returns [`Result`] with the one
//! library error enum [`Error`], whose messages name the file and line at fault.

/// The git commit this crate was built from (12 hex digits), or `unknown` outside a git
/// checkout; set by `build.rs`. Reports and `fimdup --version` carry it.
pub const GIT_HASH: &str = env!("FIMDUP_GIT_HASH");

pub mod cleanup;
pub mod codec;
pub mod error;
pub mod ids;
pub mod io;

pub mod cluster;
pub mod context;
pub mod corpus;
#[cfg(feature = "distributed")]
pub mod dataflow;
/// Without the `distributed` feature, the place of the module's tests: one ignored test that
/// names the feature, so that a run lists what it left out.
#[cfg(all(test, not(feature = "distributed")))]
mod dataflow {
    #[test]
    #[ignore = "needs the `distributed` feature"]
    fn left_out() {}
}
pub mod dedup;
pub mod defaults;
pub mod eval;
pub mod explain;
pub mod fimi;
pub mod gen;
pub mod index;
pub mod mine;
pub mod plan;
pub mod report;
pub mod shingle;
pub mod sketch;
pub mod sorted;
pub mod spill;
pub mod text;

pub use error::{Error, Result};
pub use ids::DocId;
