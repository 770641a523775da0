//! The per-group stage over a partition of the groups: [`run_group`] runs the library's
//! method ([`run_method`]) on one group's members alone, verifies its pairs against the
//! corpus when the job verifies, makes a deduplication's choice on it, and maps the
//! results back to DocIds ([`GroupFound`]).
//!
//! Invariant: a group is a union of connected components of the pair graph with their
//! collapsed members (see [`crate::cluster::concept`]'s component split), so its clusters,
//! pairs and removals are those of the whole run restricted to its members.

use std::path::Path;
use std::sync::Mutex;

use hashbrown::HashMap;
use serde::{Deserialize, Serialize};

use crate::cluster::{
    collapse, run_method, verify_output, verify_with_corpus, CandidateRule, ClusterConfig,
    ClusterInputs, CorpusSource, Grouping, Job, MaximalMiner, Regroup,
};
use crate::context::{Context, ContextConfig, DocKeys};
use crate::dedup::{Dedup, Reason, Representative, ScoreKind};
use crate::sketch::pipeline::Fingerprints;
use crate::sketch::SketchParams;
use crate::{DocId, Error, Result};

/// A group member's record: what the method needs of it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Member {
    /// Its DocId.
    pub doc: u32,
    /// Its external id.
    pub ext: String,
    /// Where its record starts in the corpus file.
    pub offset: u64,
    /// Its keys (image elements, or full shingle set for the exact join), ascending.
    pub keys: Vec<u64>,
    /// Its positional image values (k-mins, one-permutation), else empty.
    pub values: Vec<u64>,
    /// Its raw text fingerprint.
    pub raw: u64,
    /// Its canonical text fingerprint.
    pub canonical: u64,
    /// Its image fingerprint (none when the equivalence is lexical).
    pub image: Option<u64>,
}

/// The full shingle sets of the members of a worker's groups, sent by their holders when
/// exact verification cannot read the corpus again at offsets ([`GroupJob::sets`]): in
/// memory, or on disk under a spill directory ([`DocKeys`]), looked up by DocId. Every set
/// is pushed before the first is read.
pub struct CarriedSets {
    store: Mutex<DocKeys>,
    at: HashMap<u32, usize>,
}

impl CarriedSets {
    /// An empty store, in memory or in a key file under `spill_dir`.
    pub fn new(spill_dir: Option<&Path>) -> Result<CarriedSets> {
        Ok(CarriedSets {
            store: Mutex::new(DocKeys::new(spill_dir)?),
            at: HashMap::new(),
        })
    }

    /// Stores the set of document `doc`.
    pub fn push(&mut self, doc: u32, set: Vec<u64>) -> Result<()> {
        let store = self.store.get_mut().unwrap_or_else(|p| p.into_inner());
        self.at.insert(doc, store.len());
        store.push(set, Vec::new())
    }

    /// The set of document `doc`; an error when none was pushed.
    pub fn get(&self, doc: u32) -> Result<Vec<u64>> {
        let i = *(self.at.get(&doc)).ok_or_else(|| {
            Error::Distributed(format!("no shingle set arrived for document {doc}"))
        })?;
        let mut store = self.store.lock().unwrap_or_else(|p| p.into_inner());
        Ok(store.get(i)?.0)
    }
}

/// A member pair: `(a, b, shared, estimate, exact)`.
pub type PairRow = (u32, u32, Option<u32>, Option<f64>, Option<f64>);

/// A removed document: `(document, the kept one it resembles, score, kind, reason)`.
pub type RemovalRow = (u32, u32, Option<f64>, ScoreKind, Reason);

/// What the method found on one group, by DocId.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct GroupFound {
    /// Clusters: members and support.
    pub clusters: Vec<(Vec<u32>, u32)>,
    /// Member pairs.
    pub pairs: Vec<PairRow>,
    /// The method's edges.
    pub edges: u64,
    /// Pairs exact verification removed.
    pub verify_removed: u64,
    /// LSH candidate pairs before the filtering pass.
    pub candidates: u64,
    /// Connected components.
    pub components: u64,
    /// The largest component's size.
    pub largest_component: u64,
    /// The members' external ids.
    pub ids: Vec<(u32, String)>,
    /// A deduplication's removals among the members.
    pub removals: Vec<RemovalRow>,
}

/// What every group of a run shares.
pub struct GroupJob<'a> {
    /// The job.
    pub job: &'a Job,
    /// The method's configuration with the run's threshold ([`super::divided_method`]).
    pub cfg: &'a ClusterConfig,
    /// The corpus file (read again for exact verification).
    pub path: &'a Path,
    /// The images' parameters.
    pub params: &'a SketchParams,
    /// The method's candidate rule.
    pub rule: &'a CandidateRule,
    /// The elements the rows stage dropped that two documents share, ascending.
    pub dropped: &'a [u64],
    /// A deduplication: its choice is made on each group.
    pub dedup: Option<&'a Dedup>,
    /// The members' full shingle sets, sent to this worker: exact verification tests the
    /// pairs on them instead of reading the corpus again at offsets.
    pub sets: Option<&'a CarriedSets>,
}

/// The method on one group (members sorted by DocId), mapped back to DocIds; a method
/// that mines its clusters mines them with `miner` ([`crate::cluster::fp_miner`], or one of `giant.rs`).
pub fn run_group(
    g: Vec<Member>,
    gj: &GroupJob<'_>,
    miner: &dyn MaximalMiner,
) -> Result<GroupFound> {
    // The members' records as the columns the library's inputs take.
    let len = g.len();
    let mut docs = Vec::with_capacity(len);
    let mut ext_ids = Vec::with_capacity(len);
    let mut offsets = Vec::with_capacity(len);
    let mut keys = Vec::with_capacity(len);
    let mut values = Vec::with_capacity(len);
    let mut raws = Vec::with_capacity(len);
    let mut canons = Vec::with_capacity(len);
    let mut imgs = Vec::with_capacity(len);
    for m in g {
        docs.push(m.doc);
        ext_ids.push(m.ext);
        offsets.push(m.offset);
        keys.push(m.keys);
        values.push(m.values);
        raws.push(m.raw);
        canons.push(m.canonical);
        imgs.push(m.image);
    }
    let col = collapse(&raws, &canons, &imgs)?;
    let fps = Fingerprints {
        raw: raws,
        canonical: canons,
    };
    let job = gj.job;
    // The rows stage dropped the rows the row filter drops: the group's context keeps
    // every row of its kept elements.
    let mut cfg = *gj.cfg;
    cfg.context = ContextConfig {
        min_df: 1,
        max_df: None,
    };
    let cfg = &cfg;
    let spill = job.spill_config();
    // The context of the representatives' kept elements (the globally dropped ones left
    // out), for the context methods.
    let ctx = match gj.rule {
        CandidateRule::Elements { .. } => {
            let kept: Vec<Vec<u64>> = (keys.iter().enumerate())
                .map(|(i, k)| {
                    if !col.is_rep(DocId(i as u32)) {
                        return Vec::new();
                    }
                    (k.iter().copied())
                        .filter(|k| gj.dropped.binary_search(k).is_err())
                        .collect()
                })
                .collect();
            Some(Context::from_doc_keys(&kept, &cfg.context, spill)?)
        }
        _ => None,
    };
    let positional = gj.params.sketch.scheme.is_positional();
    let inputs = ClusterInputs {
        n_docs: len,
        keys: Some(&keys),
        sets: gj.rule.needs_sets().then_some(&keys[..]),
        positional: positional.then_some(&values[..]),
        context: ctx.as_ref(),
        image_size: Some(gj.params.sketch.size),
        collapse: Some(&col),
        miner: Some(miner),
        spill: Some(spill),
        ..ClusterInputs::default()
    };
    let mut out = run_method(&inputs, cfg)?;
    if let Some(t) = job.verified_threshold() {
        let regroup = Regroup::for_method(cfg.method, cfg.lsh.grouping == Grouping::UnionFind);
        if let Some(sets) = gj.sets {
            let fetch = |d: DocId| sets.get(docs[d.index()]);
            verify_output(&mut out, fetch, t, regroup, Some(&col))?;
        } else {
            let pipeline = job.pipeline();
            let src = CorpusSource {
                path: gj.path,
                corpus: &pipeline.corpus,
                text: &pipeline.text,
                shingle: &gj.params.shingle,
                offsets: Some(&offsets),
                ext_ids: Some(&ext_ids),
            };
            let budget = Some(spill.budget.map_or(crate::plan::DEFAULT_VERIFY_BYTES, |b| {
                crate::plan::group_verify_share(b.0)
            }));
            verify_with_corpus(&mut out, &src, t, regroup, budget, Some(&col))?;
        }
    }
    let doc = |d: DocId| docs[d.index()];
    let removals = match gj.dedup {
        None => Vec::new(),
        Some(dedup) => (dedup.choose_group(&col, &out, &fps).into_iter().enumerate())
            .filter_map(|(i, r)| {
                let r = r?;
                let Representative::Doc(m) = r.representative else {
                    unreachable!("no index is looked up in a divided deduplication")
                };
                Some((docs[i], doc(m), r.score, r.kind, r.reason))
            })
            .collect(),
    };
    Ok(GroupFound {
        clusters: (out.clusters.iter())
            .map(|c| (c.docs.iter().map(|&d| doc(d)).collect(), c.support))
            .collect(),
        pairs: (out.pairs.iter())
            .map(|p| (doc(p.a), doc(p.b), p.shared, p.estimate, p.exact))
            .collect(),
        edges: out.summary.edges,
        verify_removed: out.summary.verify_removed.unwrap_or(0),
        candidates: out.summary.candidates.unwrap_or(0),
        components: out.summary.components,
        largest_component: out.summary.largest_component,
        ids: docs.iter().copied().zip(ext_ids).collect(),
        removals,
    })
}
