//! Exact verification (`--verify exact`): any method becomes a candidate generator. The
//! candidates' full shingle sets are read again ([`CorpusSource`]: at the byte offsets the
//! sketch pass recorded, or by re-reading the corpus without parsing the other documents),
//! every candidate pair is checked against the threshold with the one resemblance predicate
//! ([`super::exact::passes`]), and each cluster is rebuilt from its verified pairs as the
//! method's [`Regroup`] says: maximal cliques (no transitive-closure chains) or connected
//! components.
//!
//! Documents shorter than a shingle have empty sets, which resemble nothing
//! ([`crate::shingle`]). Two of them are still the same text when they are identical or
//! lexically equivalent, and the collapse ([`super::collapse()`]) has grouped them: a pair of
//! two empty sets passes, at resemblance 1, exactly when its documents are in one group of
//! the [`Collapse`] given. That is exactly lexical equivalence: a document with an empty set
//! has an empty image, whose fingerprint links nothing, so it joins a group only through an
//! equal raw or canonical fingerprint, to a document with the same canonical token sequence
//! (so an empty set too); a group holding one empty set holds only lexically-equivalent
//! documents with empty sets. Non-empty lexically-equivalent documents have equal sets and
//! pass by resemblance 1 anyway. Without a collapse, two empty sets never pass.
//!
//! Invariants: a verified pair's `exact` score is its exact resemblance (1 for two
//! documents of one collapsed group whose sets are empty); with the collapse of a corpus
//! (text fingerprints), a pair of identical or lexically-equivalent documents passes,
//! whatever their length; a cluster none of whose pairs passed
//! disappears; `summary.verify_removed` counts the pairs that did not pass; the result is
//! sorted and independent of the thread count.

use std::path::Path;

use rayon::prelude::*;

use super::exact::{verify_fetched, ExactPair};
use super::{finish_clusters, uf, verify_exact, ClusterOutput, Collapse, Method, ScoredPair};
use crate::corpus::CorpusConfig;
use crate::shingle::ShingleConfig;
use crate::text::TextConfig;
use crate::{DocId, Result};

/// How clusters are rebuilt from the verified pairs after exact verification.
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
        method.spec().regroup(grouping_components)
    }
}

/// Clusters of more members than this are regrouped into components even under
/// [`Regroup::Cliques`] (maximal cliques can be exponentially many).
pub const MAX_CLIQUE_CLUSTER: usize = 128;

/// Whether `a` and `b` are in one group of `collapse` (never without one): the documents
/// whose empty sets pass verification (see the module docs).
fn same_group(collapse: Option<&Collapse>) -> impl Fn(DocId, DocId) -> bool + Sync + '_ {
    move |a, b| collapse.is_some_and(|c| c.rep(a) == c.rep(b))
}

/// Exact verification: keeps the pairs (and edges) of `out` whose exact resemblance is `>= t`,
/// filling their `exact` score; documents are fetched once each through `fetch`. Two
/// documents with empty sets pass when they are in one group of `collapse` (the collapse the
/// method ran with; see the module docs). Each cluster is then rebuilt from its verified
/// pairs as `regroup` says (a cluster none of whose pairs passed disappears);
/// `summary.pairs`, `summary.edges`, `summary.clusters`, `summary.clustered_documents`,
/// `summary.largest_cluster` and `summary.verify_removed` are updated.
pub fn verify_output<F>(
    out: &mut ClusterOutput,
    fetch: F,
    t: f64,
    regroup: Regroup,
    collapse: Option<&Collapse>,
) -> Result<()>
where
    F: Fn(DocId) -> Result<Vec<u64>> + Sync,
{
    let all: Vec<(DocId, DocId)> = out
        .pairs
        .iter()
        .chain(&out.edges)
        .map(|p| (p.a, p.b))
        .collect();
    let ok = verify_exact(&all, fetch, t, same_group(collapse))?;
    apply_verified(out, ok, regroup);
    Ok(())
}

/// Keeps the pairs and edges of `out` that `ok` holds (sorted by `(a, b)`), with their exact
/// scores, and rebuilds the clusters (see [`verify_output`]).
fn apply_verified(out: &mut ClusterOutput, ok: Vec<ExactPair>, regroup: Regroup) {
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
}

/// The sub-clusters (at least two members each) of the cluster `docs` (ascending) under the
/// verified pairs (`(a, b)` with `a < b`, sorted).
pub(super) fn regroup_cluster(
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

/// Full shingle sets of the documents of a corpus whose DocIds are in `wanted` (ascending;
/// `None` = all), re-reading the corpus: only the wanted documents are shingled and only
/// their sets are kept in memory ([`crate::sketch::pipeline::shingle_sets_filtered`]).
pub fn load_sets(
    path: &Path,
    corpus: &CorpusConfig,
    text: &TextConfig,
    shingle: &ShingleConfig,
    wanted: Option<&[DocId]>,
) -> Result<crate::sketch::pipeline::DocSets> {
    crate::sketch::pipeline::shingle_sets_filtered(path, corpus, text, shingle, wanted, &|_| {})
}

/// Where exact verification reads the documents again: the corpus and how it was read, plus,
/// when the first pass recorded them ([`crate::sketch::pipeline::SketchOutput::offsets`]),
/// the byte offset of every document's line and the external ids read then (so that only
/// the candidates are read again, and a changed file is caught).
#[derive(Clone, Copy, Debug)]
pub struct CorpusSource<'a> {
    /// The corpus file.
    pub path: &'a Path,
    /// How it is read.
    pub corpus: &'a CorpusConfig,
    /// How its text becomes tokens.
    pub text: &'a TextConfig,
    /// How tokens become shingles.
    pub shingle: &'a ShingleConfig,
    /// `offsets[d]`: where DocId `d`'s line starts, if recorded.
    pub offsets: Option<&'a [u64]>,
    /// External ids in DocId order (checked against the lines read at `offsets`).
    pub ext_ids: Option<&'a [String]>,
}

impl CorpusSource<'_> {
    /// The full shingle sets of `wanted` (ascending, distinct), in DocId order: read at the
    /// recorded offsets when there are some and the file allows it, else by re-reading the
    /// whole corpus (only the wanted documents are parsed and shingled).
    pub fn sets_of(&self, wanted: &[DocId]) -> Result<crate::sketch::pipeline::DocSets> {
        if let Some(offsets) = self.offsets {
            if let Some(sets) = crate::sketch::pipeline::shingle_sets_at(
                self.path,
                self.corpus,
                self.text,
                self.shingle,
                wanted,
                offsets,
                self.ext_ids,
            )? {
                return Ok(sets);
            }
        }
        load_sets(
            self.path,
            self.corpus,
            self.text,
            self.shingle,
            Some(wanted),
        )
    }
}

/// Exact verification of a method's output: keeps the pairs whose exact resemblance (from
/// the documents read again, see [`CorpusSource::sets_of`]) is at least `t`, or whose
/// documents have empty sets and are in one group of `collapse` (see the module docs);
/// fills their `exact` scores and rebuilds the clusters as `regroup` says (as
/// [`verify_output`] does).
pub fn verify_with_corpus(
    out: &mut ClusterOutput,
    src: &CorpusSource<'_>,
    t: f64,
    regroup: Regroup,
    budget: Option<u64>,
    collapse: Option<&Collapse>,
) -> Result<()> {
    let mut all: Vec<(DocId, DocId)> = out
        .pairs
        .iter()
        .chain(&out.edges)
        .map(|p| (p.a, p.b))
        .collect();
    all.sort_unstable();
    all.dedup();
    let mut ok = Vec::new();
    // Under a budget the pairs are verified in batches whose documents' sets fit in half of
    // it, sized from the bytes per document of the batches read so far.
    let (mut per_doc, mut i) = (None::<u64>, 0usize);
    while i < all.len() {
        let max_docs = crate::plan::verify_batch_docs(budget, per_doc);
        let mut wanted: Vec<DocId> = Vec::new();
        let mut seen = hashbrown::HashSet::new();
        let start = i;
        if budget.is_none() {
            wanted = all.iter().flat_map(|&(a, b)| [a, b]).collect();
            wanted.sort_unstable();
            wanted.dedup();
            i = all.len();
        }
        while i < all.len() {
            let (a, b) = all[i];
            let new = usize::from(!seen.contains(&a)) + usize::from(!seen.contains(&b));
            if seen.len() + new > max_docs && i > start {
                break;
            }
            for d in [a, b] {
                if seen.insert(d) {
                    wanted.push(d);
                }
            }
            i += 1;
        }
        drop(seen);
        wanted.sort_unstable();
        let sets = src.sets_of(&wanted)?;
        let bytes: u64 = sets.iter().map(|s| crate::plan::set_bytes(s.1.len())).sum();
        per_doc = Some(bytes / sets.len().max(1) as u64);
        ok.extend(verify_fetched(
            &all[start..i],
            sets,
            t,
            same_group(collapse),
        )?);
    }
    ok.sort_unstable_by_key(|e| (e.a, e.b));
    apply_verified(out, ok, regroup);
    Ok(())
}
