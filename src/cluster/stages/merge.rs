//! The first and last stages of a run divided into groups: [`divided_method`] sets the
//! method's configuration and candidate rule, [`translation_header`] finds the summary
//! fields that translate the threshold (from the method on one document of the run's
//! image size), and [`merge_groups`] merges the groups' results and the parts'
//! counts into the output one process makes.
//!
//! Invariants: the merged clusters and pairs are ordered as one process orders them
//! ([`finish_clusters`], pairs by `(a, b)`), and the whole run's limits are checked as one
//! process checks them ([`crate::cluster::Method`]'s merged check, [`check_max_pairs`]);
//! a deduplication whose kept parts do not hold exactly the documents kept is an error.

use crate::cluster::threshold::image_kind_of;
use crate::cluster::{
    candidate_rule, check_max_pairs, finish_clusters, fp_miner, run_method, CandidateRule,
    ClusterConfig, ClusterInputs, ClusterOutput, ClusterSummary, CollapseSummary, Job, Phase,
    ScoredPair, Threshold,
};
use crate::dedup::{Removal, Representative};
use crate::sketch::Scheme;
use crate::spill::SpillConfig;
use crate::{DocId, Error, Result};

use super::group::GroupFound;

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
    /// A deduplication's kept records written in the parts.
    pub kept_written: u64,
}

/// What [`merge_groups`] makes.
pub struct Merged {
    /// The clusters, pairs and summary.
    pub output: ClusterOutput,
    /// The external ids of the documents in groups (empty for the others).
    pub ext_ids: Vec<String>,
    /// A deduplication's removal of every removed document, by DocId.
    pub removed: Option<Vec<Option<Removal>>>,
}

/// Merges the groups' results of a run of `n_docs` documents into one output: `head`
/// from [`translation_header`], `context` when the method builds a context (its rows are
/// counted), `dedup` when the job is a deduplication, `phases` the run's timings.
#[allow(clippy::too_many_arguments)]
pub fn merge_groups(
    n_docs: usize,
    results: Vec<GroupFound>,
    counts: &PartCounts,
    job: &Job,
    head: ClusterSummary,
    context: bool,
    dedup: bool,
    phases: Vec<Phase>,
) -> Result<Merged> {
    let cfg = job.cluster_config();
    let n = head.image_size as usize;
    let mut ext_ids = vec![String::new(); n_docs];
    let mut sets: Vec<(Vec<DocId>, u32)> = Vec::new();
    let mut pairs: Vec<ScoredPair> = Vec::new();
    let (mut edges, mut components, mut largest_component) = (0u64, 0u64, 0u64);
    let mut verify_removed = 0u64;
    let mut candidates = head.candidates.map(|_| 0u64);
    // Concept itemsets of components of more than two representatives (mined, not paired).
    let mut mined = 0u64;
    let mut removed: Option<Vec<Option<Removal>>> = dedup.then(|| vec![None; n_docs]);
    for r in results {
        if let Some(removed) = &mut removed {
            for (d, m, score, kind, reason) in r.removals {
                removed[d as usize] = Some(Removal {
                    representative: Representative::Doc(DocId(m)),
                    score,
                    kind,
                    reason,
                });
            }
        }
        if r.largest_component > 2 {
            mined += r.clusters.len() as u64;
        }
        for (d, id) in r.ids {
            ext_ids[d as usize] = id;
        }
        sets.extend(
            (r.clusters.into_iter()).map(|(docs, s)| (docs.into_iter().map(DocId).collect(), s)),
        );
        pairs.extend(
            (r.pairs.into_iter()).map(|(a, b, shared, estimate, exact)| ScoredPair {
                a: DocId(a),
                b: DocId(b),
                shared,
                estimate,
                exact,
            }),
        );
        edges += r.edges;
        verify_removed += r.verify_removed;
        if let Some(c) = &mut candidates {
            *c += r.candidates;
        }
        components += r.components;
        largest_component = largest_component.max(r.largest_component);
    }
    // The whole run's limits (each group checked its own), as one process checks them.
    cfg.method.check_merged(cfg, mined, sets.len() as u64)?;
    let clusters = finish_clusters(sets);
    pairs.sort_unstable_by_key(|p| (p.a, p.b));
    check_max_pairs(&clusters, cfg.max_pairs)?;
    if let Some(removed) = &removed {
        let kept = removed.iter().filter(|r| r.is_none()).count() as u64;
        let written = counts.kept_written;
        if kept != written {
            return Err(Error::Distributed(format!(
                "the kept parts hold {written} records, not the {kept} documents kept (did the input change?)"
            )));
        }
    }
    let collapsed = counts.collapsed;
    let mut clustered: Vec<DocId> = clusters
        .iter()
        .flat_map(|c| c.docs.iter().copied())
        .collect();
    clustered.sort_unstable();
    clustered.dedup();
    let summary = ClusterSummary {
        method: cfg.method.name().to_string(),
        documents: n_docs as u64,
        representatives: n_docs as u64 - collapsed.removed,
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
        candidates,
        context_rows: context.then_some(counts.context_rows),
        dropped_common: counts.dropped_common,
        dropped_rare: counts.dropped_rare,
        edges,
        pairs: pairs.len() as u64,
        verify_removed: job.verifies().then_some(verify_removed),
        clusters: clusters.len() as u64,
        clustered_documents: clustered.len() as u64,
        largest_cluster: (clusters.iter())
            .map(|c| c.docs.len() as u64)
            .max()
            .unwrap_or(0),
        components,
        largest_component,
        phases,
    };
    Ok(Merged {
        output: ClusterOutput {
            clusters,
            pairs,
            edges: Vec::new(),
            summary,
        },
        ext_ids,
        removed,
    })
}
