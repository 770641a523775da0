//! The first and last stages of a run divided into groups: [`divided_method`] sets the
//! method's configuration and candidate rule, [`translation_header`] finds the summary
//! fields that translate the threshold (from the method on one document of the run's
//! image size), and the groups' counts summed over the parts ([`Totals`]) are checked
//! against the whole run's limits ([`check_totals`]) and make the summary one process
//! makes ([`merged_summary`]); the clusters, pairs and removals themselves are written in
//! parts ([`super::group_rows`]).
//!
//! Invariants: the whole run's limits are checked as one process checks them
//! ([`crate::cluster::Method`]'s merged check, `max_pairs` on the clusters' member
//! pairs); a deduplication whose kept parts do not hold exactly the documents kept is an
//! error; the summary equals one process's but for its timings.

use crate::cluster::threshold::image_kind_of;
use serde::{Deserialize, Serialize};

use crate::cluster::{
    candidate_rule, check_pair_count, fp_miner, run_method, CandidateRule, ClusterConfig,
    ClusterInputs, ClusterSummary, CollapseSummary, Job, Phase, Threshold,
};
use crate::sketch::Scheme;
use crate::spill::SpillConfig;
use crate::{Error, Result};

/// The summary fields that translate the threshold (k, its rule, the image size, LSH's
/// bands and rows), from the method run on one document whose image has `n` elements
/// (none when `any` is false: every image of the corpus is empty).
pub fn translation_header(
    cfg: &ClusterConfig,
    scheme: Scheme,
    n: usize,
    any: bool,
    spill: &SpillConfig,
) -> Result<ClusterSummary> {
    let image: Vec<u64> = if any {
        (0..n as u64).collect()
    } else {
        Vec::new()
    };
    let keys = vec![image.clone()];
    let values = [image];
    let inputs = ClusterInputs {
        n_docs: 1,
        keys: Some(&keys),
        sets: Some(&keys),
        positional: scheme.is_positional().then_some(&values[..]),
        image_size: Some(n),
        miner: Some(&fp_miner),
        spill: Some(spill),
        ..ClusterInputs::default()
    };
    Ok(run_method(&inputs, cfg)?.summary)
}

/// The method's configuration, threshold translation and candidate rule for a run divided
/// into groups, with images of `n` elements in `scheme` (`any`: some image is not empty):
/// the job's configuration at the threshold for `n`, without `max_pairs` (the merge checks
/// it on the whole run).
pub fn divided_method(
    job: &Job,
    sketch: &crate::sketch::SketchConfig,
    n: usize,
    any: bool,
) -> Result<(ClusterConfig, ClusterSummary, CandidateRule)> {
    let scheme = sketch.scheme;
    let mut cfg = *job.cluster_config();
    cfg.threshold = job.threshold_at(n);
    cfg.image_kind =
        image_kind_of(sketch).ok_or_else(|| Error::config("mod-m images have no divided run"))?;
    if matches!(cfg.image_kind, crate::cluster::ImageKind::BBit { .. })
        && cfg.method.reads() == crate::cluster::method::Reads::Elements
    {
        return Err(Error::config(format!(
            "{} on b-bit images has no divided run (its rows of (position, value) hold 1/2^b \
             of the documents each): run it in one process, or use --method lsh",
            cfg.method
        )));
    }
    cfg.max_pairs = None;
    let head = translation_header(&cfg, scheme, n, any, job.spill_config())?;
    let rule = candidate_rule(&cfg, &head, scheme, n)?.ok_or_else(|| {
        Error::config(format!("{} has no candidate rule to divide by", cfg.method))
    })?;
    Ok((cfg, head, rule))
}

/// What the parts of a divided run counted, summed.
#[derive(Clone, Copy, Debug, Default)]
pub struct PartCounts {
    /// The collapse classes' counts.
    pub collapsed: CollapseSummary,
    /// Rows the context kept.
    pub context_rows: u64,
    /// Rows dropped under `min_df`.
    pub dropped_rare: u64,
    /// Rows dropped over `max_df`.
    pub dropped_common: u64,
    /// The rows were not exchanged (the prefixes only, in element order): the rows and
    /// the drops above are not counted, and the summary leaves them out.
    pub prefix_only: bool,
}

/// What the groups of a divided run found, counted: each worker counts its groups
/// ([`super::group_rows`]) and the counts are summed over the workers ([`Totals::add`]),
/// so that every worker checks the whole run's limits ([`check_totals`]) and worker 0
/// fills the summary ([`merged_summary`]) without the clusters and pairs themselves.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct Totals {
    /// Clusters as the groups' methods gave them.
    pub sets: u64,
    /// Concept itemsets of components of more than two representatives (mined, not paired).
    pub mined: u64,
    /// Clusters of the output.
    pub clusters: u64,
    /// Documents in at least one cluster.
    pub clustered_documents: u64,
    /// Documents in the largest cluster.
    pub largest_cluster: u64,
    /// The clusters' member pairs.
    pub member_pairs: u64,
    /// Rows of `pairs.csv`.
    pub pairs: u64,
    /// The methods' edges.
    pub edges: u64,
    /// Pairs exact verification removed.
    pub verify_removed: u64,
    /// LSH candidate pairs before the filtering pass.
    pub candidates: u64,
    /// Connected components.
    pub components: u64,
    /// The largest component's size.
    pub largest_component: u64,
    /// A deduplication's removals by reason: identical, lexically equivalent,
    /// near-duplicate, against an index.
    pub removed: [u64; 4],
    /// A deduplication's kept records written in the parts.
    pub kept_written: u64,
}

impl Totals {
    /// Adds the counts of another part.
    pub fn add(&mut self, o: &Totals) {
        self.sets += o.sets;
        self.mined += o.mined;
        self.clusters += o.clusters;
        self.clustered_documents += o.clustered_documents;
        self.largest_cluster = self.largest_cluster.max(o.largest_cluster);
        self.member_pairs += o.member_pairs;
        self.pairs += o.pairs;
        self.edges += o.edges;
        self.verify_removed += o.verify_removed;
        self.candidates += o.candidates;
        self.components += o.components;
        self.largest_component = self.largest_component.max(o.largest_component);
        for (a, b) in self.removed.iter_mut().zip(o.removed) {
            *a += b;
        }
        self.kept_written += o.kept_written;
    }

    /// Documents removed.
    pub fn removed_documents(&self) -> u64 {
        self.removed.iter().sum()
    }
}

/// The whole run's limits on the totals of every part, as one process checks them
/// ([`crate::cluster::Method`]'s merged check, then `max_pairs`); for a deduplication
/// (`dedup`) of `n_docs` documents, the kept parts must hold exactly the documents kept.
pub fn check_totals(job: &Job, t: &Totals, n_docs: u64, dedup: bool) -> Result<()> {
    let cfg = job.cluster_config();
    cfg.method.check_merged(cfg, t.mined, t.sets)?;
    check_pair_count(t.member_pairs, cfg.max_pairs)?;
    if dedup {
        let kept = n_docs - t.removed_documents();
        let written = t.kept_written;
        if kept != written {
            return Err(Error::Distributed(format!(
                "the kept parts hold {written} records, not the {kept} documents kept (did the input change?)"
            )));
        }
    }
    Ok(())
}

/// The summary one process makes, from the totals of every part of a run of `n_docs`
/// documents: `head` from [`translation_header`], `context` when the method builds a
/// context (its rows are counted), `phases` the run's timings.
pub fn merged_summary(
    t: &Totals,
    counts: &PartCounts,
    n_docs: u64,
    job: &Job,
    head: ClusterSummary,
    context: bool,
    phases: Vec<Phase>,
) -> ClusterSummary {
    let cfg = job.cluster_config();
    let n = head.image_size as usize;
    let collapsed = counts.collapsed;
    ClusterSummary {
        method: cfg.method.name().to_string(),
        documents: n_docs,
        representatives: n_docs - collapsed.removed,
        collapsed,
        threshold: match (job.verified_threshold(), cfg.threshold) {
            (Some(t), _) | (None, Threshold::Resemblance(t)) => Some(t),
            (None, Threshold::MinCommon(_)) => None,
        },
        candidate_threshold: match (job.verified_threshold(), job.threshold_at(n)) {
            (Some(_), Threshold::Resemblance(tc)) => Some(tc),
            _ => None,
        },
        k: head.k,
        k_rule: head.k_rule,
        image_size: head.image_size,
        bands: head.bands,
        rows: head.rows,
        candidates: head.candidates.map(|_| t.candidates),
        context_rows: (context && !counts.prefix_only).then_some(counts.context_rows),
        dropped_common: (!counts.prefix_only).then_some(counts.dropped_common),
        dropped_rare: (!counts.prefix_only).then_some(counts.dropped_rare),
        edges: t.edges,
        pairs: t.pairs,
        verify_removed: job.verifies().then_some(t.verify_removed),
        clusters: t.clusters,
        clustered_documents: t.clustered_documents,
        largest_cluster: t.largest_cluster,
        components: t.components,
        largest_component: t.largest_component,
        phases,
    }
}
