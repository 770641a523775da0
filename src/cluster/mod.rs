//! Clustering methods: concept clusters by maximal frequent itemsets (IK09), Broder
//! union-find over the `<id,id,count>` pairs (B97 4.1), LSH with the filtering pass and center
//! clustering (H00), super shingles (B97 5.3), and an exact similarity join (prefix
//! filtering), plus the B97 5.2 collapse of identical / lexically- / shingle-equivalent
//! documents, the translation of a resemblance threshold into each method's own `k`, and the
//! writers of `clusters.jsonl`, `pairs.csv` and the summary.
//!
//! The entry point is [`run_method`]: it takes primitive inputs ([`ClusterInputs`]: element
//! keys, positional images, full shingle sets, or a ready [`Context`]) and a validated
//! [`ClusterConfig`], and returns a [`ClusterOutput`] whose clusters and pairs are sorted.
//! The CLI only reads inputs, calls it, and writes the output with [`write_clusters`],
//! [`write_pairs`] and [`write_summary`].
//!
//! Invariants:
//! - a cluster has at least two documents (singletons are not clusters); clusters are sorted
//!   by size descending, then documents ascending, then support descending, and numbered in
//!   that order;
//! - `pairs` are all member pairs of all clusters, each once (`a < b` by DocId), sorted; the
//!   scores of a pair come from the method's edge between the two documents' representatives
//!   when there is one;
//! - the output depends only on the inputs and the configuration, not on the thread count.

pub mod collapse;
pub mod concept;
pub mod containment;
pub mod exact;
pub mod job;
pub mod lsh;
pub mod output;
pub mod supershingle;
#[cfg(test)]
mod testutil;
pub mod threshold;
pub mod uf;

#[cfg(test)]
mod tests;

use std::time::Instant;

pub use collapse::{collapse, Collapse, CollapseSummary};
pub use concept::{concept_clusters, ConceptConfig, ConceptResult, MaximalMiner};
pub use containment::{containment_join, mod_m_containment_pairs, ContainmentPair, Measure};
pub use exact::{exact_join, verify_exact, ExactConfig, ExactPair};
pub use lsh::{center_clusters, choose_bands, Grouping, LshConfig};
pub use output::{write_clusters, write_pairs, write_summary, Cluster, Phase, ScoredPair};
pub use supershingle::SuperShingleConfig;
pub use threshold::{k_for_threshold, ImageKind};

use crate::context::{pair_counts, Context, ContextConfig};
use crate::{DocId, Error, Result};

/// The clustering method.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Maximal frequent itemsets of the shingle-rows context (IK09).
    #[default]
    Concept,
    /// Connected components of the pairs sharing `>= k` elements (B97 4.1).
    UnionFind,
    /// Bands of k-mins images, filtering pass, center clustering (H00).
    Lsh,
    /// Documents sharing super shingles, union-find (B97 5.3).
    SuperShingle,
    /// Exact similarity join on full shingle sets; clusters are connected components.
    Exact,
}

impl Method {
    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            Method::Concept => "concept",
            Method::UnionFind => "union-find",
            Method::Lsh => "lsh",
            Method::SuperShingle => "super-shingle",
            Method::Exact => "exact",
        }
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Method {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        [
            Method::Concept,
            Method::UnionFind,
            Method::Lsh,
            Method::SuperShingle,
            Method::Exact,
        ]
        .into_iter()
        .find(|m| m.name() == s)
        .ok_or_else(|| {
            Error::config(format!(
                "method must be concept, union-find, lsh, super-shingle or exact, not {s:?}"
            ))
        })
    }
}

/// The similarity threshold: a resemblance translated per method, or the paper's absolute k.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Threshold {
    /// `--threshold t`, a resemblance in `[0, 1]` (`(0, 1]` for `exact`).
    Resemblance(f64),
    /// `--min-common k`: shared image elements (concept, union-find), agreeing positions
    /// (lsh), shared super shingles (super-shingle). Not valid for `exact`.
    MinCommon(u32),
}

impl Default for Threshold {
    fn default() -> Self {
        Threshold::Resemblance(0.8)
    }
}

/// Everything that configures [`run_method`].
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ClusterConfig {
    /// The method.
    pub method: Method,
    /// The threshold.
    pub threshold: Threshold,
    /// How the images were made (decides the threshold translation).
    pub image_kind: ImageKind,
    /// Row filtering of the context built for concept / union-find (`max_df`: B97 5.1).
    pub context: ContextConfig,
    /// Concept options.
    pub concept: ConceptConfig,
    /// LSH options.
    pub lsh: LshConfig,
    /// Super-shingle options.
    pub super_shingle: SuperShingleConfig,
    /// Exact-join options.
    pub exact: ExactConfig,
    /// Stop with [`Error::Limit`] when the clusters have more member pairs than this.
    pub max_pairs: Option<u64>,
    /// What a [`Threshold::Resemblance`] value measures: resemblance (every method) or
    /// max-containment (`exact`, and `union-find` on mod-m images; see [`containment`]).
    #[serde(default)]
    pub measure: Measure,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            method: Method::default(),
            threshold: Threshold::default(),
            image_kind: ImageKind::default(),
            context: ContextConfig::default(),
            concept: ConceptConfig::default(),
            lsh: LshConfig::default(),
            super_shingle: SuperShingleConfig::default(),
            exact: ExactConfig::default(),
            max_pairs: Some(50_000_000),
            measure: Measure::Resemblance,
        }
    }
}

impl ClusterConfig {
    /// Checks every part; `Error::Config` names the bad value.
    pub fn validate(&self) -> Result<()> {
        match self.threshold {
            Threshold::Resemblance(t) if !(0.0..=1.0).contains(&t) => {
                return Err(Error::config(format!(
                    "threshold must be in [0, 1], not {t}"
                )))
            }
            Threshold::Resemblance(t) if t == 0.0 && self.method == Method::Exact => {
                return Err(Error::config("the exact join needs a threshold above 0"))
            }
            Threshold::MinCommon(0) => return Err(Error::config("min-common must be at least 1")),
            Threshold::MinCommon(_) if self.method == Method::Exact => {
                return Err(Error::config(
                    "the exact join takes --threshold (a resemblance), not --min-common",
                ))
            }
            _ => {}
        }
        if self.measure == Measure::Containment {
            if !matches!(self.method, Method::Exact | Method::UnionFind) {
                return Err(Error::config(format!(
                    "--measure containment is supported by exact and union-find (on mod-m images) only, not {}",
                    self.method
                )));
            }
            match self.threshold {
                Threshold::MinCommon(_) => {
                    return Err(Error::config(
                        "--measure containment takes --threshold (a containment), not --min-common",
                    ))
                }
                Threshold::Resemblance(t) if t == 0.0 && self.method == Method::Exact => {
                    return Err(Error::config("the exact join needs a threshold above 0"))
                }
                _ => {}
            }
        }
        if self.max_pairs == Some(0) {
            return Err(Error::config("max_pairs must be at least 1"));
        }
        self.context.validate()?;
        self.concept.validate()?;
        self.lsh.validate()?;
        self.super_shingle.validate()?;
        self.exact.validate()
    }
}

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
    /// ([`positional_keys`]).
    pub positional: Option<&'a [Vec<u64>]>,
    /// Full shingle sets, ascending and distinct: exact.
    pub sets: Option<&'a [Vec<u64>]>,
    /// Precomputed super shingles per document (e.g. `sketch::super_shingles`): used by
    /// super-shingle instead of computing them from `positional` / `keys`.
    pub super_shingles: Option<&'a [Vec<u64>]>,
    /// A ready context for concept / union-find (used as is instead of `keys`).
    pub context: Option<&'a Context>,
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
}

/// Summary of a run (serialized as the `--json` summary).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct ClusterSummary {
    /// Method name.
    pub method: String,
    /// Documents in the input.
    pub documents: u64,
    /// Documents clustered after collapsing (representatives).
    pub representatives: u64,
    /// Collapsed classes (B97 5.2).
    pub collapsed: CollapseSummary,
    /// The resemblance threshold, when one was given.
    pub threshold: Option<f64>,
    /// With exact verification: the threshold the candidates were found at (`k` belongs to
    /// it); `threshold` is then the verified one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidate_threshold: Option<f64>,
    /// The method's own absolute k (none for exact).
    pub k: Option<u32>,
    /// How k was obtained.
    pub k_rule: String,
    /// Image size n.
    pub image_size: u64,
    /// LSH bands.
    pub bands: Option<u32>,
    /// LSH rows per band.
    pub rows: Option<u32>,
    /// LSH candidate pairs before the filtering pass.
    pub candidates: Option<u64>,
    /// Context rows (elements kept), for concept / union-find.
    pub context_rows: Option<u64>,
    /// Elements dropped as too common (`max_df`, B97 5.1).
    pub dropped_common: u64,
    /// Elements dropped as held by fewer than `min_df` documents.
    pub dropped_rare: u64,
    /// Edges of the method (pairs found directly, between representatives).
    pub edges: u64,
    /// Member pairs of the clusters (the `pairs.csv` rows).
    pub pairs: u64,
    /// Pairs removed by exact verification, when it ran.
    pub verify_removed: Option<u64>,
    /// Clusters.
    pub clusters: u64,
    /// Documents in at least one cluster.
    pub clustered_documents: u64,
    /// Documents in the largest cluster.
    pub largest_cluster: u64,
    /// Connected components mined (concept) or found (pair-graph methods).
    pub components: u64,
    /// Documents in the largest connected component of the edge graph.
    pub largest_component: u64,
    /// Seconds per phase.
    pub phases: Vec<Phase>,
}

/// What [`run_method`] returns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClusterOutput {
    /// Sorted clusters.
    pub clusters: Vec<Cluster>,
    /// All member pairs of the clusters, sorted by `(a, b)`.
    pub pairs: Vec<ScoredPair>,
    /// The method's edges (between representatives; for `exact`, the pairs above the
    /// threshold), sorted by `(a, b)`.
    pub edges: Vec<ScoredPair>,
    /// The summary.
    pub summary: ClusterSummary,
}

/// The key of value `v` at position `i` of a k-mins image: `xxh3_64_with_seed(v as 8
/// little-endian bytes, seed = i)`, so equal values at different positions differ.
pub fn positional_keys(image: &[u64]) -> Vec<u64> {
    image
        .iter()
        .enumerate()
        .map(|(i, v)| xxhash_rust::xxh3::xxh3_64_with_seed(&v.to_le_bytes(), i as u64))
        .collect()
}

struct Timer {
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
    fn lap(&mut self, name: &str) {
        let now = Instant::now();
        self.phases.push(Phase {
            name: name.to_string(),
            seconds: (now - self.t).as_secs_f64(),
        });
        self.t = now;
    }
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
    sets.sort_by(|x, y| {
        y.0.len()
            .cmp(&x.0.len())
            .then_with(|| x.0.cmp(&y.0))
            .then(y.1.cmp(&x.1))
    });
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

/// B97 4.1 on a context: the pairs sharing `>= k` elements (the `<id,id,count>` phase) and
/// their connected components, each with its weakest edge as support.
#[allow(clippy::type_complexity)]
pub fn union_find_clusters(
    ctx: &Context,
    k: u32,
) -> Result<(Vec<(DocId, DocId, u32)>, Vec<(Vec<DocId>, u32)>)> {
    let edges = pair_counts(ctx.rows(), ctx.n_docs(), k, &crate::spill::global())?;
    let comps = components_with_support(ctx.n_docs() as usize, &edges);
    Ok((edges, comps))
}

fn mask<'a>(v: &'a [Vec<u64>], collapse: Option<&Collapse>) -> Vec<&'a [u64]> {
    v.iter()
        .enumerate()
        .map(|(d, x)| match collapse {
            Some(c) if !c.is_rep(DocId(d as u32)) => &[][..],
            _ => x.as_slice(),
        })
        .collect()
}

fn need<'a, T: ?Sized>(x: Option<&'a T>, what: &str, method: Method) -> Result<&'a T> {
    x.ok_or_else(|| Error::config(format!("method {method} needs {what}")))
}

/// Resemblance estimate from `c` shared elements of images of size `n`.
fn estimate(c: u32, n: usize, kind: ImageKind) -> Option<f64> {
    if n == 0 {
        return None;
    }
    let q = (f64::from(c) / n as f64).min(1.0);
    Some(match kind {
        ImageKind::KMins => q,
        // q = 2J/(1+J)  =>  J = q/(2-q) (first-order inversion, see `threshold`).
        ImageKind::BottomK => q / (2.0 - q),
    })
}

/// Runs one method end to end (collapse-aware) and returns sorted clusters, pairs, edges and
/// the summary. Inputs used: concept / union-find: `context`, else `keys`, else `positional`
/// (through [`positional_keys`]), plus `miner` for concept; lsh: `positional`; super-shingle:
/// `super_shingles`, else `positional` (positional groups), else `keys` (sliding windows over
/// sorted values); exact: `sets`.
pub fn run_method(inputs: &ClusterInputs<'_>, cfg: &ClusterConfig) -> Result<ClusterOutput> {
    cfg.validate()?;
    let method = cfg.method;
    let n_docs = inputs.n_docs;
    let mut timer = Timer::new();
    let collapse = inputs.collapse;
    if let Some(c) = collapse {
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
    let mut s = ClusterSummary {
        method: method.name().to_string(),
        documents: n_docs as u64,
        representatives: (0..n_docs)
            .filter(|&d| collapse.is_none_or_rep(DocId(d as u32)))
            .count() as u64,
        collapsed: collapse.map(|c| *c.summary()).unwrap_or_default(),
        ..Default::default()
    };
    if let Threshold::Resemblance(t) = cfg.threshold {
        s.threshold = Some(t);
    }
    let longest = |v: Option<&[Vec<u64>]>| v.map(|v| v.iter().map(Vec::len).max().unwrap_or(0));
    let n = inputs
        .image_size
        .or_else(|| longest(inputs.positional))
        .or_else(|| longest(inputs.keys))
        .unwrap_or(0);
    s.image_size = n as u64;
    let translate = |s: &mut ClusterSummary| -> Result<u32> {
        Ok(match cfg.threshold {
            Threshold::MinCommon(k) => {
                s.k_rule = format!("--min-common {k}");
                k
            }
            Threshold::Resemblance(t) => {
                if n == 0 {
                    return Err(Error::config(
                        "cannot translate the threshold: image size unknown",
                    ));
                }
                s.k_rule = threshold::describe(t, n, cfg.image_kind);
                k_for_threshold(t, n, cfg.image_kind)
            }
        })
    };
    // Direct edges between representatives: (a, b, shared, estimate, exact).
    let mut edges: Vec<ScoredPair> = Vec::new();
    let sets: Vec<(Vec<DocId>, u32)>;
    match method {
        Method::Concept | Method::UnionFind => {
            let containment = cfg.measure == Measure::Containment;
            let k = if containment {
                1
            } else {
                let k = translate(&mut s)?;
                s.k = Some(k);
                k
            };
            let built;
            let ctx: &Context = match inputs.context {
                Some(c) => c,
                None => {
                    let derived: Vec<Vec<u64>>;
                    let keys: &[Vec<u64>] = match (inputs.keys, inputs.positional) {
                        (Some(k), _) => k,
                        (None, Some(p)) => {
                            derived = p.iter().map(|im| positional_keys(im)).collect();
                            &derived
                        }
                        (None, None) => {
                            return Err(Error::config(format!(
                                "method {method} needs a context, keys or positional images"
                            )))
                        }
                    };
                    built = Context::from_doc_keys(
                        &mask(keys, collapse),
                        &cfg.context,
                        &crate::spill::global(),
                    )?;
                    &built
                }
            };
            let masked: Context;
            // A given context may hold documents that collapse into others: restrict it
            // to the representatives (unless it holds only representatives already, e.g.
            // one built streaming by `Prepared::from_images_streamed`).
            let rows: &crate::fimi::Transactions = match (inputs.context, collapse) {
                (Some(c), Some(col))
                    if c.rows()
                        .iter()
                        .any(|r| r.iter().any(|&d| !col.is_rep(DocId(d)))) =>
                {
                    masked = c.restrict(&|d| col.is_rep(d));
                    masked.rows()
                }
                _ => ctx.rows(),
            };
            if ctx.n_docs() as usize != n_docs {
                return Err(Error::config(format!(
                    "context has {} documents, inputs say {n_docs}",
                    ctx.n_docs()
                )));
            }
            let st = ctx.stats();
            s.dropped_common = st.dropped_common;
            s.dropped_rare = st.dropped_rare;
            s.context_rows = Some(rows.len() as u64);
            timer.lap("context");
            // Containment (union-find on mod-m samples): B97's estimate per sharing pair.
            let mut estimates: Option<Vec<f64>> = None;
            let raw_edges = if containment {
                let Threshold::Resemblance(t) = cfg.threshold else {
                    unreachable!("validated: containment takes a threshold")
                };
                s.k_rule = format!(
                    "mod-m containment estimate |V(a) n V(b)| / min(|V(a)|, |V(b)|) >= {t}"
                );
                let keys = need(
                    inputs.keys,
                    "mod-m image keys (for the sample sizes)",
                    method,
                )?;
                let sizes: Vec<usize> = mask(keys, collapse).iter().map(|k| k.len()).collect();
                let p = containment::mod_m_containment_pairs(rows, &sizes, t)?;
                timer.lap("pairs");
                let e: Vec<(DocId, DocId, u32)> = p.iter().map(|x| (x.0, x.1, x.2)).collect();
                estimates = Some(p.iter().map(|x| x.3).collect());
                sets = components_with_support(n_docs, &e);
                s.components = sets.len() as u64;
                s.largest_component = sets.iter().map(|c| c.0.len() as u64).max().unwrap_or(0);
                timer.lap("union-find");
                e
            } else if method == Method::Concept {
                let miner = need(inputs.miner, "a miner", method)?;
                let r = concept_clusters(rows, n_docs as u32, k, miner, &cfg.concept)?;
                s.components = r.components;
                s.largest_component = r.largest_component;
                sets = r.sets;
                timer.lap("mine");
                r.edges
            } else {
                let e = pair_counts(rows, n_docs as u32, k, &crate::spill::global())?;
                timer.lap("pairs");
                sets = components_with_support(n_docs, &e);
                s.components = sets.len() as u64;
                s.largest_component = sets.iter().map(|c| c.0.len() as u64).max().unwrap_or(0);
                timer.lap("union-find");
                e
            };
            edges = raw_edges
                .iter()
                .enumerate()
                .map(|(i, &(a, b, c))| ScoredPair {
                    a,
                    b,
                    shared: Some(c),
                    estimate: match &estimates {
                        Some(e) => Some(e[i]),
                        None => estimate(c, n, cfg.image_kind),
                    },
                    exact: None,
                })
                .collect();
        }
        Method::Lsh => {
            let images = mask(
                need(inputs.positional, "positional (k-mins) images", method)?,
                collapse,
            );
            let n = lsh::image_len(&images)?;
            s.image_size = n as u64;
            if n == 0 {
                sets = Vec::new();
            } else {
                let (k, t) = match cfg.threshold {
                    Threshold::MinCommon(k) => {
                        s.k_rule = format!("--min-common {k} agreeing positions");
                        (k, f64::from(k) / n as f64)
                    }
                    Threshold::Resemblance(t) => {
                        s.k_rule = threshold::describe(t, n, ImageKind::KMins);
                        (k_for_threshold(t, n, ImageKind::KMins), t)
                    }
                };
                s.k = Some(k);
                let (b, r) = match cfg.lsh.bands_rows {
                    Some(br) => br,
                    None => {
                        choose_bands(n as u32, t.min(1.0), cfg.lsh.fp_weight, cfg.lsh.fn_weight)?
                    }
                };
                s.bands = Some(b);
                s.rows = Some(r);
                let cand = lsh::candidate_pairs(&images, b, r, cfg.lsh.seed)?;
                s.candidates = Some(cand.len() as u64);
                timer.lap("bands");
                let kept = lsh::filter_pairs(&images, &cand, k);
                timer.lap("filter");
                let comps = components_with_support(n_docs, &kept);
                s.components = comps.len() as u64;
                s.largest_component = comps.iter().map(|c| c.0.len() as u64).max().unwrap_or(0);
                sets = match cfg.lsh.grouping {
                    Grouping::UnionFind => comps,
                    Grouping::Center => {
                        let w: Vec<(DocId, DocId, f64)> = kept
                            .iter()
                            .map(|&(a, b, c)| (a, b, f64::from(c) / n as f64))
                            .collect();
                        center_clusters(n_docs, &w)
                            .into_iter()
                            .map(|c| {
                                let center = c[0];
                                let sup = c[1..]
                                    .iter()
                                    .map(|&m| {
                                        lsh::agreements(images[center.index()], images[m.index()])
                                            as u32
                                    })
                                    .min()
                                    .unwrap_or(0);
                                (c, sup)
                            })
                            .collect()
                    }
                };
                timer.lap("cluster");
                edges = kept
                    .iter()
                    .map(|&(a, b, c)| ScoredPair {
                        a,
                        b,
                        shared: Some(c),
                        estimate: Some(f64::from(c) / n as f64),
                        exact: None,
                    })
                    .collect();
            }
        }
        Method::SuperShingle => {
            let mut ss = cfg.super_shingle;
            if let Threshold::MinCommon(k) = cfg.threshold {
                ss.min_shared = k;
            }
            s.k = Some(ss.min_shared);
            s.k_rule = format!(
                ">= {} shared super shingles of {} image elements (the threshold is not translated)",
                ss.min_shared, ss.per
            );
            let e = match (inputs.positional, inputs.keys) {
                _ if inputs.super_shingles.is_some() => supershingle::shared_value_pairs(
                    &mask(inputs.super_shingles.expect("checked"), collapse),
                    ss.min_shared,
                )?,
                (Some(p), _) => supershingle::super_shingle_pairs(&mask(p, collapse), true, &ss)?,
                (None, Some(k)) => {
                    supershingle::super_shingle_pairs(&mask(k, collapse), false, &ss)?
                }
                (None, None) => {
                    return Err(Error::config(
                        "method super-shingle needs positional images or keys",
                    ))
                }
            };
            timer.lap("super-shingles");
            sets = components_with_support(n_docs, &e);
            s.components = sets.len() as u64;
            s.largest_component = sets.iter().map(|c| c.0.len() as u64).max().unwrap_or(0);
            timer.lap("union-find");
            edges = e
                .iter()
                .map(|&(a, b, c)| ScoredPair {
                    a,
                    b,
                    shared: Some(c),
                    estimate: None,
                    exact: None,
                })
                .collect();
        }
        Method::Exact => {
            let Threshold::Resemblance(t) = cfg.threshold else {
                unreachable!("validated: exact takes a resemblance")
            };
            let sets_in = mask(need(inputs.sets, "full shingle sets", method)?, collapse);
            let pairs: Vec<ExactPair> = if cfg.measure == Measure::Containment {
                s.k_rule = format!("exact max-containment >= {t}");
                // The containment goes in the `jaccard` slot: it becomes the pair's `exact`
                // score (the run's measure).
                containment_join(&sets_in, t)?
                    .into_iter()
                    .map(|p| ExactPair {
                        a: p.a,
                        b: p.b,
                        overlap: p.overlap,
                        jaccard: p.containment,
                    })
                    .collect()
            } else {
                s.k_rule = format!("exact resemblance >= {t}");
                exact_join(&sets_in, t, &cfg.exact)?
            };
            timer.lap("join");
            let e: Vec<(DocId, DocId, u32)> = pairs.iter().map(|p| (p.a, p.b, p.overlap)).collect();
            sets = components_with_support(n_docs, &e);
            s.components = sets.len() as u64;
            s.largest_component = sets.iter().map(|c| c.0.len() as u64).max().unwrap_or(0);
            timer.lap("union-find");
            edges = pairs
                .iter()
                .map(|p| ScoredPair {
                    a: p.a,
                    b: p.b,
                    shared: Some(p.overlap),
                    estimate: None,
                    exact: Some(p.jaccard),
                })
                .collect();
        }
    }
    // Support of a collapsed class standing alone: its representative's image size.
    let class_support = |d: DocId| -> u32 {
        let len = |v: Option<&[Vec<u64>]>| v.map(|v| v[d.index()].len());
        let l = match method {
            Method::Exact => len(inputs.sets),
            Method::Lsh => len(inputs.positional),
            _ => len(inputs.keys)
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
    let mut in_any = vec![false; n_docs];
    for c in &clusters {
        for d in &c.docs {
            in_any[d.index()] = true;
        }
    }
    s.clustered_documents = in_any.iter().filter(|&&x| x).count() as u64;
    let total_pairs: u64 = clusters
        .iter()
        .map(|c| {
            let l = c.docs.len() as u64;
            l * (l - 1) / 2
        })
        .sum();
    if let Some(m) = cfg.max_pairs {
        if total_pairs > m {
            return Err(Error::Limit(format!(
                "the clusters have {total_pairs} member pairs, more than max_pairs = {m}"
            )));
        }
    }
    let pairs = member_pairs(&clusters, &edges, collapse, &class_support);
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

trait OptCollapse {
    fn is_none_or_rep(&self, d: DocId) -> bool;
}

impl OptCollapse for Option<&Collapse> {
    fn is_none_or_rep(&self, d: DocId) -> bool {
        self.map_or(true, |c| c.is_rep(d))
    }
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
    use rayon::prelude::*;
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

/// How clusters are rebuilt from the verified pairs after `--verify exact`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Regroup {
    /// Connected components of the verified pairs inside each cluster (transitive-closure
    /// methods: union-find, LSH with union-find grouping).
    Components,
    /// Maximal cliques of the verified pairs inside each cluster: every pair of a cluster
    /// passed verification (concept clusters, LSH center clusters, super shingles, exact).
    Cliques,
}

impl Regroup {
    /// The regrouping that keeps a method's cluster semantics (`grouping_components`: the
    /// LSH grouping is union-find).
    pub fn for_method(method: Method, grouping_components: bool) -> Regroup {
        match method {
            Method::UnionFind => Regroup::Components,
            Method::Lsh if grouping_components => Regroup::Components,
            _ => Regroup::Cliques,
        }
    }
}

/// Clusters of more members than this are regrouped into components even under
/// [`Regroup::Cliques`] (maximal cliques can be exponentially many).
pub const MAX_CLIQUE_CLUSTER: usize = 128;

/// Standard errors below the threshold that candidates are found at by default when exact
/// verification follows (see [`candidate_threshold`]).
pub const VERIFY_SIGMAS: f64 = 2.0;

/// The threshold a method finds candidates at when exact verification at `t` follows:
/// `t` lowered by `sigmas` standard errors of the resemblance estimate of an image of size
/// `n` at `t` (`sqrt(t (1 - t) / n)`), so that pairs just above `t` whose estimate falls
/// short are still verified. Rounded down to 4 decimals and clamped to `[0, t]`.
pub fn candidate_threshold(t: f64, n: usize, sigmas: f64) -> f64 {
    if n == 0 || !(0.0..=1.0).contains(&t) {
        return t;
    }
    let se = (t * (1.0 - t) / n as f64).sqrt();
    // Rounded down to 4 decimals, so that it prints as the number a user would type.
    ((t - sigmas * se) * 1e4).floor().clamp(0.0, t * 1e4) / 1e4
}

/// `--verify exact`: keeps the pairs (and edges) of `out` whose exact resemblance is `>= t`,
/// filling their `exact` score; documents are fetched once each through `fetch`. Each
/// cluster is then rebuilt from its verified pairs as `regroup` says (a cluster none of whose
/// pairs passed disappears); `summary.pairs`, `summary.edges`, `summary.clusters`,
/// `summary.clustered_documents`, `summary.largest_cluster` and `summary.verify_removed`
/// are updated.
pub fn verify_output<F>(out: &mut ClusterOutput, fetch: F, t: f64, regroup: Regroup) -> Result<()>
where
    F: Fn(DocId) -> Result<Vec<u64>> + Sync,
{
    use rayon::prelude::*;
    let all: Vec<(DocId, DocId)> = out
        .pairs
        .iter()
        .chain(&out.edges)
        .map(|p| (p.a, p.b))
        .collect();
    let ok = verify_exact(&all, fetch, t)?;
    let find = |p: &ScoredPair| {
        ok.binary_search_by_key(&(p.a, p.b), |e| (e.a, e.b))
            .ok()
            .map(|i| ok[i].jaccard)
    };
    let before = out.pairs.len() as u64;
    for v in [&mut out.pairs, &mut out.edges] {
        let kept: Vec<ScoredPair> = v
            .iter()
            .filter_map(|p| {
                find(p).map(|j| ScoredPair {
                    exact: Some(j),
                    ..*p
                })
            })
            .collect();
        *v = kept;
    }
    let verified: Vec<(DocId, DocId)> = ok.iter().map(|e| (e.a, e.b)).collect();
    let sets: Vec<(Vec<DocId>, u32)> = out
        .clusters
        .par_iter()
        .flat_map_iter(|c| {
            regroup_cluster(&c.docs, &verified, regroup)
                .into_iter()
                .map(move |d| (d, c.support))
        })
        .collect();
    out.clusters = finish_clusters(sets);
    let mut members: Vec<DocId> = out.clusters.iter().flat_map(|c| c.docs.clone()).collect();
    members.sort_unstable();
    members.dedup();
    out.summary.clusters = out.clusters.len() as u64;
    out.summary.clustered_documents = members.len() as u64;
    out.summary.largest_cluster = out
        .clusters
        .iter()
        .map(|c| c.docs.len() as u64)
        .max()
        .unwrap_or(0);
    out.summary.pairs = out.pairs.len() as u64;
    out.summary.edges = out.edges.len() as u64;
    out.summary.verify_removed = Some(before - out.summary.pairs);
    Ok(())
}

/// The sub-clusters (at least two members each) of the cluster `docs` (ascending) under the
/// verified pairs (`(a, b)` with `a < b`, sorted).
fn regroup_cluster(
    docs: &[DocId],
    verified: &[(DocId, DocId)],
    regroup: Regroup,
) -> Vec<Vec<DocId>> {
    let m = docs.len();
    let mut adj = vec![Vec::new(); m];
    let mut edges = Vec::new();
    for i in 0..m {
        let lo = verified.partition_point(|&(a, _)| a < docs[i]);
        for &(a, b) in verified[lo..].iter().take_while(|&&(a, _)| a == docs[i]) {
            debug_assert_eq!(a, docs[i]);
            if let Ok(j) = docs.binary_search(&b) {
                adj[i].push(j);
                adj[j].push(i);
                edges.push((DocId(i as u32), DocId(j as u32)));
            }
        }
    }
    let local: Vec<Vec<usize>> = if regroup == Regroup::Components || m > MAX_CLIQUE_CLUSTER {
        uf::components(m, edges.iter().copied())
            .into_iter()
            .map(|c| c.into_iter().map(|d| d.index()).collect())
            .collect()
    } else {
        let mut out = Vec::new();
        let mut r = Vec::new();
        bron_kerbosch(&adj, &mut r, (0..m).collect(), Vec::new(), &mut out);
        out
    };
    local
        .into_iter()
        .filter(|c| c.len() >= 2)
        .map(|c| {
            let mut d: Vec<DocId> = c.into_iter().map(|i| docs[i]).collect();
            d.sort_unstable();
            d
        })
        .collect()
}

/// Maximal cliques of the graph `adj` (Bron-Kerbosch with a pivot); `p` and `x` ascending.
fn bron_kerbosch(
    adj: &[Vec<usize>],
    r: &mut Vec<usize>,
    p: Vec<usize>,
    x: Vec<usize>,
    out: &mut Vec<Vec<usize>>,
) {
    if p.is_empty() {
        if x.is_empty() {
            out.push(r.clone());
        }
        return;
    }
    let pivot = *p
        .iter()
        .chain(&x)
        .max_by_key(|&&u| p.iter().filter(|v| adj[u].contains(v)).count())
        .expect("p is not empty");
    let mut p = p;
    let mut x = x;
    let candidates: Vec<usize> = p
        .iter()
        .copied()
        .filter(|v| !adj[pivot].contains(v))
        .collect();
    for v in candidates {
        r.push(v);
        let np: Vec<usize> = p.iter().copied().filter(|u| adj[v].contains(u)).collect();
        let nx: Vec<usize> = x.iter().copied().filter(|u| adj[v].contains(u)).collect();
        bron_kerbosch(adj, r, np, nx, out);
        r.pop();
        p.retain(|&u| u != v);
        x.push(v);
    }
}
