//! [`run_method`]: one method on primitive inputs ([`ClusterInputs`]: element keys,
//! positional images, full shingle sets, or a ready [`Context`]) under a validated
//! [`ClusterConfig`], returning a [`ClusterOutput`] whose clusters and pairs are sorted.
//!
//! Each method's own step lives in its file (`concept::run`, `uf::run`, `lsh::run`,
//! `supershingle::run`, `exact::run`, `containment::run_mod_m`) and hands back the clusters
//! of representatives and the method's edges (`Found`); what every method shares is
//! here: the checks of the inputs, the context of concept / union-find, the connected
//! components of an edge list, the expansion of collapsed classes, the cluster order and
//! the member pairs.
//!
//! Invariants: see the module docs of [`super`] (clusters of at least two documents in their
//! sorted order, every member pair once and sorted, output independent of the thread count).

use std::borrow::Cow;
use std::time::Instant;

use rayon::prelude::*;

use super::method::Reads;
use super::{
    threshold, uf, Cluster, ClusterConfig, ClusterOutput, ClusterSummary, Collapse, ImageKind,
    MaximalMiner, Phase, ScoredPair, Threshold,
};
use crate::context::{Context, SpilledContext};
use crate::spill::SpillConfig;
use crate::{DocId, Error, Result};

/// The inputs a method may need; give what the method uses (see [`run_method`]). Document
/// `d` is index `d` of every slice.
#[derive(Clone, Copy, Default)]
pub struct ClusterInputs<'a> {
    /// Number of documents.
    pub n_docs: usize,
    /// Image element keys per document (bottom-k values, or k-mins keys that encode the
    /// permutation index): concept, union-find, super-shingle on bottom-k images.
    pub keys: Option<&'a [Vec<u64>]>,
    /// Positional (k-mins) images: `n` values per document, empty for an empty document:
    /// lsh, super-shingle; concept / union-find derive keys from them when `keys` is absent
    /// ([`crate::sketch::positional_keys`]).
    pub positional: Option<&'a [Vec<u64>]>,
    /// Full shingle sets, ascending and distinct: exact.
    pub sets: Option<&'a [Vec<u64>]>,
    /// Precomputed super shingles per document (e.g. `sketch::super_shingles`): used by
    /// super-shingle instead of computing them from `positional` / `keys`.
    pub super_shingles: Option<&'a [Vec<u64>]>,
    /// A ready context for concept / union-find (used as is instead of `keys`).
    pub context: Option<&'a Context>,
    /// A ready context whose rows are in a file, of the representatives only (concept /
    /// union-find; used instead of `context` and `keys`).
    pub spilled: Option<&'a SpilledContext>,
    /// Image size `n` (sketch size); inferred as the longest image when absent.
    pub image_size: Option<usize>,
    /// Image length per document, for the support of a collapsed class that stands alone
    /// when neither keys nor positional images are given (with a ready `context`); `n`
    /// when absent.
    pub image_lens: Option<&'a [u32]>,
    /// Collapse of equivalent documents: only representatives are clustered.
    pub collapse: Option<&'a Collapse>,
    /// The maximal itemset miner for concept clusters.
    pub miner: Option<&'a dyn MaximalMiner>,
    /// Where the context and the pair counts may spill; `None`: in memory.
    pub spill: Option<&'a SpillConfig>,
}

/// Wall-clock time per phase of a run.
pub(super) struct Timer {
    phases: Vec<Phase>,
    t: Instant,
}

impl Timer {
    fn new() -> Self {
        Timer {
            phases: Vec::new(),
            t: Instant::now(),
        }
    }

    /// Ends the current phase as `name` and starts the next.
    pub(super) fn lap(&mut self, name: &str) {
        let now = Instant::now();
        self.phases
            .push(Phase::ended(name, (now - self.t).as_secs_f64()));
        self.t = now;
    }
}

/// What a method's own step finds: clusters of representatives with their support, and
/// the method's edges between representatives (sorted by `(a, b)`).
pub(super) struct Found {
    pub sets: Vec<(Vec<DocId>, u32)>,
    pub edges: Vec<ScoredPair>,
}

/// Keeps of `pairs` those whose representatives are an edge (`edges` sorted by `(a, b)`)
/// or equal: for a method whose answer is its pairs (the exact join), not the transitive
/// pairs of its components.
fn retain_joined(pairs: &mut Vec<ScoredPair>, edges: &[ScoredPair], collapse: Option<&Collapse>) {
    let rep = |d: DocId| collapse.map_or(d, |c| c.rep(d));
    pairs.retain(|p| {
        let (ra, rb) = (rep(p.a), rep(p.b));
        ra == rb
            || edges
                .binary_search_by_key(&(ra.min(rb), ra.max(rb)), |e| (e.a, e.b))
                .is_ok()
    });
}

/// One run in progress: the inputs, the configuration, the summary being filled and the
/// phase timer; handed to each method's `run`.
pub(super) struct Arm<'r, 'a> {
    pub inputs: &'r ClusterInputs<'a>,
    pub cfg: &'r ClusterConfig,
    /// Image size `n` (0 when unknown).
    pub n: usize,
    pub summary: ClusterSummary,
    pub timer: Timer,
}

static NO_SPILL: SpillConfig = SpillConfig {
    budget: None,
    tmp_dir: None,
    process: None,
    partitions: None,
    ledger: crate::plan::Ledger::NONE,
};

impl<'a> Arm<'_, 'a> {
    pub(super) fn collapse(&self) -> Option<&'a Collapse> {
        self.inputs.collapse
    }

    pub(super) fn spill(&self) -> &'a SpillConfig {
        self.inputs.spill.unwrap_or(&NO_SPILL)
    }

    pub(super) fn n_docs(&self) -> usize {
        self.inputs.n_docs
    }

    /// `x`, or a configuration error saying the method needs `what`.
    pub(super) fn need<T: ?Sized>(&self, x: Option<&'a T>, what: &str) -> Result<&'a T> {
        x.ok_or_else(|| Error::config(format!("method {} needs {what}", self.cfg.method)))
    }

    /// The method's k for the configured threshold over images of `n` elements of `kind`
    /// (the rule is written into the summary).
    pub(super) fn k(&mut self, n: usize, kind: ImageKind) -> Result<u32> {
        Ok(match self.cfg.threshold {
            Threshold::MinCommon(k) => {
                self.summary.k_rule = format!("min-common {k}");
                k
            }
            Threshold::Resemblance(t) => {
                if n == 0 {
                    return Err(Error::config(
                        "cannot translate the threshold: image size unknown",
                    ));
                }
                self.summary.k_rule = threshold::describe(t, n, kind);
                threshold::k_for_threshold(t, n, kind)
            }
        })
    }

    /// The context whose rows are in a file, when one was given; fills the context fields of
    /// the summary.
    pub(super) fn spilled_context(&mut self) -> Result<Option<&'a SpilledContext>> {
        let Some(c) = self.inputs.spilled else {
            return Ok(None);
        };
        if c.n_docs() as usize != self.inputs.n_docs {
            return Err(Error::config(format!(
                "context has {} documents, inputs say {}",
                c.n_docs(),
                self.inputs.n_docs
            )));
        }
        let st = c.stats();
        self.summary.dropped_common = Some(st.dropped_common);
        self.summary.dropped_rare = Some(st.dropped_rare);
        self.summary.context_rows = Some(c.len() as u64);
        self.timer.lap("context");
        Ok(Some(c))
    }

    /// The context of the representatives: the given one, else built from the keys (or
    /// from the positional images' keys). Fills the context fields of the summary.
    pub(super) fn context(&mut self) -> Result<Cow<'a, Context>> {
        let inputs = self.inputs;
        let collapse = inputs.collapse;
        let mut ctx = match inputs.context {
            Some(c) => Cow::Borrowed(c),
            None => {
                let derived: Vec<Vec<u64>>;
                let keys: &[Vec<u64>] = match (inputs.keys, inputs.positional) {
                    (Some(k), _) => k,
                    (None, Some(p)) => {
                        derived = p
                            .iter()
                            .map(|im| {
                                let mut k = Vec::with_capacity(im.len());
                                crate::sketch::positional_keys(im, &mut k);
                                k
                            })
                            .collect();
                        &derived
                    }
                    (None, None) => {
                        return Err(Error::config(format!(
                            "method {} needs a context, keys or positional images",
                            self.cfg.method
                        )))
                    }
                };
                Cow::Owned(Context::from_doc_keys(
                    &mask(keys, collapse),
                    &self.cfg.context,
                    self.spill(),
                )?)
            }
        };
        // A given context may hold documents that collapse into others: restrict it to the
        // representatives (unless it holds only representatives already, e.g. one built
        // streaming by `Prepared::from_images_streamed`).
        if let (Cow::Borrowed(c), Some(col)) = (&ctx, collapse) {
            if c.rows()
                .iter()
                .any(|r| r.iter().any(|&d| !col.is_rep(DocId(d))))
            {
                ctx = Cow::Owned(c.restrict(&|d| col.is_rep(d)));
            }
        }
        let c: &Context = &ctx;
        if c.n_docs() as usize != inputs.n_docs {
            return Err(Error::config(format!(
                "context has {} documents, inputs say {}",
                c.n_docs(),
                inputs.n_docs
            )));
        }
        let st = c.stats();
        self.summary.dropped_common = Some(st.dropped_common);
        self.summary.dropped_rare = Some(st.dropped_rare);
        self.summary.context_rows = Some(c.rows().len() as u64);
        self.timer.lap("context");
        Ok(ctx)
    }

    /// Connected components of `edges` with their weakest edge as support; fills the
    /// component fields of the summary.
    pub(super) fn components(&mut self, edges: &[(DocId, DocId, u32)]) -> Vec<(Vec<DocId>, u32)> {
        let sets = components_with_support(self.inputs.n_docs, edges);
        self.summary.components = sets.len() as u64;
        self.summary.largest_component = sets.iter().map(|c| c.0.len() as u64).max().unwrap_or(0);
        sets
    }

    /// `(a, b, shared)` edges as scored pairs, each with `estimate(i, shared)`.
    pub(super) fn scored(
        edges: &[(DocId, DocId, u32)],
        estimate: impl Fn(usize, u32) -> Option<f64>,
        exact: impl Fn(usize) -> Option<f64>,
    ) -> Vec<ScoredPair> {
        edges
            .iter()
            .enumerate()
            .map(|(i, &(a, b, c))| ScoredPair {
                a,
                b,
                shared: Some(c),
                estimate: estimate(i, c),
                exact: exact(i),
            })
            .collect()
    }
}

/// The order of clusters in `clusters.jsonl`, of (members ascending, support) pairs: by
/// size (largest first), then members (compared as sequences), then support (largest
/// first). One process ([`finish_clusters`]) and each part of a divided run
/// ([`crate::cluster::stages::finish_part_clusters`]) order by it.
pub fn cluster_order<T: Ord>(x: (&[T], u32), y: (&[T], u32)) -> std::cmp::Ordering {
    (y.0.len().cmp(&x.0.len()))
        .then_with(|| x.0.cmp(y.0))
        .then(y.1.cmp(&x.1))
}

/// Sorts clusters (see the module invariants), drops duplicates of a document set (keeping
/// the highest support) and numbers them.
pub fn finish_clusters(sets: Vec<(Vec<DocId>, u32)>) -> Vec<Cluster> {
    let mut sets: Vec<(Vec<DocId>, u32)> = sets
        .into_iter()
        .map(|(mut d, s)| {
            d.sort_unstable();
            d.dedup();
            (d, s)
        })
        .filter(|(d, _)| d.len() >= 2)
        .collect();
    sets.sort_by(|x, y| cluster_order((&x.0, x.1), (&y.0, y.1)));
    sets.dedup_by(|later, first| later.0 == first.0);
    sets.into_iter()
        .enumerate()
        .map(|(i, (docs, support))| Cluster {
            id: i as u32,
            docs,
            support,
        })
        .collect()
}

/// An [`Error::Limit`] when `clusters` have more member pairs than `max_pairs`.
pub fn check_max_pairs(clusters: &[Cluster], max_pairs: Option<u64>) -> Result<()> {
    let total_pairs: u64 = clusters.iter().map(|c| pair_count_of(c.docs.len())).sum();
    check_pair_count(total_pairs, max_pairs)
}

/// The member pairs of a cluster of `len` documents.
pub fn pair_count_of(len: usize) -> u64 {
    let l = len as u64;
    l * l.saturating_sub(1) / 2
}

/// An [`Error::Limit`] when `total_pairs` member pairs are more than `max_pairs`.
pub fn check_pair_count(total_pairs: u64, max_pairs: Option<u64>) -> Result<()> {
    match max_pairs {
        Some(m) if total_pairs > m => Err(Error::Limit(format!(
            "the clusters have {total_pairs} member pairs, more than max_pairs = {m}"
        ))),
        _ => Ok(()),
    }
}

/// Connected components (size >= 2) of weighted edges, each with the smallest weight of its
/// edges as support.
pub fn components_with_support(
    n_docs: usize,
    edges: &[(DocId, DocId, u32)],
) -> Vec<(Vec<DocId>, u32)> {
    let comps = uf::components(n_docs, edges.iter().map(|&(a, b, _)| (a, b)));
    let mut comp_of = vec![u32::MAX; n_docs];
    for (i, c) in comps.iter().enumerate() {
        for d in c {
            comp_of[d.index()] = i as u32;
        }
    }
    let mut support = vec![u32::MAX; comps.len()];
    for &(a, _, w) in edges {
        let c = comp_of[a.index()] as usize;
        support[c] = support[c].min(w);
    }
    comps.into_iter().zip(support).collect()
}

/// The documents' vectors with the non-representatives' emptied.
pub(super) fn mask<'a>(v: &'a [Vec<u64>], collapse: Option<&Collapse>) -> Vec<&'a [u64]> {
    v.iter()
        .enumerate()
        .map(|(d, x)| match collapse {
            Some(c) if !c.is_rep(DocId(d as u32)) => &[][..],
            _ => x.as_slice(),
        })
        .collect()
}

/// Resemblance estimate from `c` shared elements of images of size `n`.
pub(super) fn estimate(c: u32, n: usize, kind: ImageKind) -> Option<f64> {
    if n == 0 {
        return None;
    }
    let q = (f64::from(c) / n as f64).min(1.0);
    Some(match kind {
        ImageKind::KMins => q,
        // q = 2J/(1+J)  =>  J = q/(2-q) (first-order inversion, see `threshold`).
        ImageKind::BottomK => q / (2.0 - q),
        ImageKind::BBit { bits } => crate::sketch::bbit::estimate(c as usize, n, bits),
    })
}

/// Checks that every input covers `n_docs` documents.
fn check_inputs(inputs: &ClusterInputs<'_>) -> Result<()> {
    let n_docs = inputs.n_docs;
    if let Some(c) = inputs.collapse {
        if c.n_docs() != n_docs {
            return Err(Error::config(format!(
                "collapse covers {} documents, inputs have {n_docs}",
                c.n_docs()
            )));
        }
    }
    for (what, v) in [
        ("keys", inputs.keys),
        ("positional images", inputs.positional),
        ("shingle sets", inputs.sets),
        ("super-shingle lists", inputs.super_shingles),
    ] {
        if let Some(v) = v {
            if v.len() != n_docs {
                return Err(Error::config(format!(
                    "{} {what} given for {n_docs} documents",
                    v.len()
                )));
            }
        }
    }
    if let Some(l) = inputs.image_lens {
        if l.len() != n_docs {
            return Err(Error::config(format!(
                "{} image lengths given for {n_docs} documents",
                l.len()
            )));
        }
    }
    Ok(())
}

/// Runs one method end to end (collapse-aware) and returns sorted clusters, pairs, edges and
/// the summary. Inputs used: concept / union-find: `context`, else `keys`, else `positional`
/// (through [`crate::sketch::positional_keys`]), plus `miner` for concept; lsh:
/// `positional`; super-shingle: `super_shingles`, else `positional` (positional groups),
/// else `keys` (sliding windows over sorted values); exact: `sets`.
pub fn run_method(inputs: &ClusterInputs<'_>, cfg: &ClusterConfig) -> Result<ClusterOutput> {
    cfg.validate()?;
    check_inputs(inputs)?;
    let method = cfg.method;
    let n_docs = inputs.n_docs;
    let collapse = inputs.collapse;
    let mut summary = ClusterSummary {
        method: method.name().to_string(),
        documents: n_docs as u64,
        representatives: (0..n_docs)
            .filter(|&d| collapse.is_none_or(|c| c.is_rep(DocId(d as u32))))
            .count() as u64,
        collapsed: collapse.map(|c| *c.summary()).unwrap_or_default(),
        dropped_common: Some(0),
        dropped_rare: Some(0),
        ..Default::default()
    };
    if let Threshold::Resemblance(t) = cfg.threshold {
        summary.threshold = Some(t);
    }
    let longest = |v: Option<&[Vec<u64>]>| v.map(|v| v.iter().map(Vec::len).max().unwrap_or(0));
    let n = inputs
        .image_size
        .or_else(|| longest(inputs.positional))
        .or_else(|| longest(inputs.keys))
        .unwrap_or(0);
    summary.image_size = n as u64;
    let mut arm = Arm {
        inputs,
        cfg,
        n,
        summary,
        timer: Timer::new(),
    };
    let found = method.spec().run(&mut arm)?;
    finish(arm, found)
}

/// Expands collapsed classes, orders the clusters, checks the pair cap and lists the
/// member pairs.
fn finish(arm: Arm<'_, '_>, found: Found) -> Result<ClusterOutput> {
    let Arm {
        inputs,
        cfg,
        n,
        summary: mut s,
        mut timer,
    } = arm;
    let n_docs = inputs.n_docs;
    let collapse = inputs.collapse;
    let Found { sets, edges } = found;
    // Support of a collapsed class standing alone: its representative's image size.
    let class_support = |d: DocId| -> u32 {
        let len = |v: Option<&[Vec<u64>]>| v.map(|v| v[d.index()].len());
        let l = match cfg.method.reads() {
            Reads::Sets => len(inputs.sets),
            Reads::Positional => len(inputs.positional),
            Reads::Elements | Reads::Images => len(inputs.keys)
                .or_else(|| len(inputs.positional))
                .or_else(|| inputs.image_lens.map(|v| v[d.index()] as usize)),
        };
        l.unwrap_or(n) as u32
    };
    let expanded = match collapse {
        Some(c) => c.expand_clusters(sets, class_support),
        None => sets,
    };
    let clusters = finish_clusters(expanded);
    s.clusters = clusters.len() as u64;
    s.largest_cluster = clusters
        .iter()
        .map(|c| c.docs.len() as u64)
        .max()
        .unwrap_or(0);
    let mut in_any = bitvec::bitvec![0; n_docs];
    for c in &clusters {
        for d in &c.docs {
            in_any.set(d.index(), true);
        }
    }
    s.clustered_documents = in_any.count_ones() as u64;
    check_max_pairs(&clusters, cfg.max_pairs)?;
    let mut pairs = member_pairs(&clusters, &edges, collapse, &class_support);
    if cfg.method.spec().answers_with_pairs() {
        retain_joined(&mut pairs, &edges, collapse);
    }
    s.edges = edges.len() as u64;
    s.pairs = pairs.len() as u64;
    timer.lap("pairs");
    s.phases = timer.phases;
    Ok(ClusterOutput {
        clusters,
        pairs,
        edges,
        summary: s,
    })
}

/// All member pairs of `clusters`, each once, sorted, with the scores of the edge between
/// the two representatives (for two members of one collapsed class: `shared` = the class
/// support and estimate 1).
fn member_pairs(
    clusters: &[Cluster],
    edges: &[ScoredPair],
    collapse: Option<&Collapse>,
    class_support: &(dyn Fn(DocId) -> u32 + Sync),
) -> Vec<ScoredPair> {
    let rep = |d: DocId| collapse.map_or(d, |c| c.rep(d));
    let mut pairs: Vec<(DocId, DocId)> = clusters
        .par_iter()
        .flat_map_iter(|c| {
            let d = &c.docs;
            (0..d.len()).flat_map(move |i| (i + 1..d.len()).map(move |j| (d[i], d[j])))
        })
        .collect();
    pairs.par_sort_unstable();
    pairs.dedup();
    pairs
        .par_iter()
        .map(|&(a, b)| {
            let (ra, rb) = (rep(a), rep(b));
            if ra == rb {
                return ScoredPair {
                    a,
                    b,
                    shared: Some(class_support(ra)),
                    estimate: Some(1.0),
                    exact: None,
                };
            }
            let key = if ra < rb { (ra, rb) } else { (rb, ra) };
            match edges.binary_search_by_key(&key, |e| (e.a, e.b)) {
                Ok(i) => ScoredPair { a, b, ..edges[i] },
                Err(_) => ScoredPair {
                    a,
                    b,
                    shared: None,
                    estimate: None,
                    exact: None,
                },
            }
        })
        .collect()
}
