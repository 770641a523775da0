//! What a clustering method is to the rest of the library: one value behind the
//! `MethodSpec` trait, implemented in the method's own file (`concept.rs`,
//! `union_find.rs`, `lsh.rs`, `supershingle.rs`, `exact.rs`), and one line in the
//! registration list of [`super::Method`] (`config.rs`). The job, the prepared corpus, the
//! candidate rule of the divided run, verification, the sweep's detection models and the
//! CLI's method names ask the method through this trait rather than matching on `Method`.
//!
//! Invariant: a method's answers to these questions are constants of the method and its
//! configuration (never of the input), so every entry point, one process or many, makes the
//! same choices.

use super::candidates::CandidateRule;
use super::declared::OptionDecl;
use super::detection::Detection;
use super::pair_detail::{MethodDetail, PairView};
use super::run::{Arm, Found};
use super::{ClusterConfig, ClusterSummary, Regroup, Threshold};
use crate::sketch::pipeline::PipelineConfig;
use crate::sketch::Scheme;
use crate::{Error, Result};

/// What a method reads of a sketched corpus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reads {
    /// Image elements (a context or the images' keys): concept, union-find.
    Elements,
    /// Positional images (k-mins, one-permutation): lsh.
    Positional,
    /// Images of either kind (positional groups, or sliding windows over sorted values):
    /// super-shingle.
    Images,
    /// The documents' full shingle sets: the exact join.
    Sets,
}

/// One clustering method: its name, what it reads, the scheme it runs on, its threshold
/// rules, its step of [`super::run_method`], its candidate rule for the divided run and its
/// regrouping after verification.
pub(super) trait MethodSpec: Sync {
    /// The CLI name.
    fn name(&self) -> &'static str;

    /// Its own options ([`super::declared`]): the flags, keywords, checks and summary
    /// fields made from them.
    fn options(&self) -> &'static [OptionDecl] {
        &[]
    }

    /// After the given options are written into `cfg`: what follows from them and the
    /// pipeline (lsh's rows, simhash's scheme and width), and the combinations the
    /// declarations cannot check.
    fn configure(&self, _cfg: &mut ClusterConfig, _pipeline: &mut PipelineConfig) -> Result<()> {
        Ok(())
    }

    /// Refuses images of a scheme it cannot read: every method but the fingerprint ones
    /// refuses simhash fingerprints, which hold bits, not elements.
    fn check_scheme(&self, scheme: Scheme) -> Result<()> {
        if scheme.is_fingerprint() {
            return Err(Error::config(format!(
                "{} reads image elements, not {} fingerprints: sketch another --scheme, or run simhash or henzinger",
                self.name(),
                scheme.name()
            )));
        }
        Ok(())
    }

    /// What it reads of a sketched corpus.
    fn reads(&self) -> Reads;

    /// Whether it mines maximal itemsets ([`super::ClusterInputs::miner`]).
    fn mines(&self) -> bool {
        false
    }

    /// The image scheme it runs on when none is asked for: k-mins for the methods that
    /// band positions, bottom-k for the others.
    fn default_scheme(&self) -> Scheme {
        match self.reads() {
            Reads::Positional | Reads::Images => Scheme::KMins,
            Reads::Elements | Reads::Sets => Scheme::BottomK,
        }
    }

    /// The scheme it runs on when several methods share one requested scheme (a sweep):
    /// the banding methods take k-mins images of the same size and seed when the requested
    /// scheme is not positional; the others take it.
    fn scheme_for(&self, requested: Scheme) -> Scheme {
        match self.reads() {
            Reads::Positional | Reads::Images if !requested.is_positional() => Scheme::KMins,
            _ => requested,
        }
    }

    /// Whether it measures containment too (else resemblance only).
    fn measures_containment(&self) -> bool {
        false
    }

    /// Refuses a threshold it cannot take (checked with the rest of the configuration).
    fn check_threshold(&self, _threshold: Threshold) -> Result<()> {
        Ok(())
    }

    /// Whether its answer is its pairs (only the joined pairs of a cluster are output), not
    /// every member pair of its clusters.
    fn answers_with_pairs(&self) -> bool {
        false
    }

    /// The regrouping after exact verification that keeps its cluster semantics
    /// (`grouping_components`: lsh's grouping is union-find).
    fn regroup(&self, _grouping_components: bool) -> Regroup {
        Regroup::Cliques
    }

    /// Its step of [`super::run_method`]: the clusters and the scored edges.
    fn run(&self, arm: &mut Arm<'_, '_>) -> Result<Found>;

    /// Its rule for finding candidate pairs by key (the divided run), on images of `n`
    /// elements of `scheme`, with `head` the summary of the method at that size; `None` when
    /// no rule by key finds its pairs.
    fn candidate_rule(
        &self,
        cfg: &ClusterConfig,
        head: &ClusterSummary,
        scheme: Scheme,
        n: usize,
    ) -> Result<Option<CandidateRule>>;

    /// Its theoretical probability of finding a pair as an edge ([`Detection`], before any
    /// verification), from the run's `summary` (its k, bands, threshold), on `n`-element
    /// images of `scheme` (`None`: weighted images, which no model here covers); `None` where
    /// it has no model.
    fn detection(
        &self,
        _cfg: &ClusterConfig,
        _summary: &ClusterSummary,
        _scheme: Option<Scheme>,
        _n: u32,
    ) -> Option<Detection> {
        None
    }

    /// What it compared for one pair (`fimdup explain`'s verdict), and one sentence saying
    /// so.
    fn pair_detail(&self, view: &PairView<'_>) -> Result<(MethodDetail, String)>;

    /// The whole run's limits on what the groups of a divided run produced together
    /// (`mined`: the itemsets of the components each group mined; `sets`: the clusters
    /// before expansion), checked after they are merged as one process checks them.
    fn check_merged(&self, _cfg: &ClusterConfig, _mined: u64, _sets: u64) -> Result<()> {
        Ok(())
    }

    /// Why a run with `cfg` cannot be divided by component, if it cannot.
    fn undivided_because(&self, _cfg: &ClusterConfig) -> Option<&'static str> {
        None
    }
}
