//! Choosing the kept documents: the greedy pass in keep order (the default) and one
//! document per cluster, on the method's output.
//!
//! The greedy pass works on groups of equivalent documents (the collapse of the job: every
//! member of a group has the same image, or with [`crate::cluster::Equivalence::Lexical`]
//! the same full shingle set) and the method's edges between group representatives. In keep
//! order, a document is removed when a member of its own group was kept (they are
//! equivalent), or when a group joined to its group by an edge has a kept member (the best
//! scoring one is named, ties to the one taken first); else it is kept.
//!
//! Invariants: each group keeps at most one document and no edge joins two groups with kept
//! documents; a removed document names a kept one, joined to it by its group or an edge,
//! with that pair's score; documents removed beforehand (against an index) are neither kept
//! nor named.

use hashbrown::HashMap;

use crate::cluster::{Cluster, Collapse, ScoredPair};
use crate::sketch::pipeline::Fingerprints;
use crate::DocId;

/// Why a document was removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// The same raw text as the kept document.
    Identical,
    /// The same canonical token sequence (differs only in case, spacing, markup, ...).
    LexicallyEquivalent,
    /// Resembles the kept document at the threshold.
    NearDuplicate,
    /// Resembles a document of the index deduplicated against.
    AgainstIndex,
}

impl Reason {
    /// The name written in `summary.json`.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Identical => "identical",
            Reason::LexicallyEquivalent => "lexically-equivalent",
            Reason::NearDuplicate => "near-duplicate",
            Reason::AgainstIndex => "against-index",
        }
    }
}

/// What a removal's score is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ScoreKind {
    /// The exact resemblance of the full shingle sets.
    Exact,
    /// The method's estimate from the images.
    Estimate,
    /// No score: the two are in one cluster without an edge between them (per-cluster mode
    /// of a transitive method).
    None,
}

impl ScoreKind {
    /// The name written in `removed.csv`.
    pub fn name(self) -> &'static str {
        match self {
            ScoreKind::Exact => "exact",
            ScoreKind::Estimate => "estimate",
            ScoreKind::None => "",
        }
    }
}

/// The document a removed one is named after.
#[derive(Clone, Debug, PartialEq)]
pub enum Representative {
    /// A kept document of the input.
    Doc(DocId),
    /// A document of the index deduplicated against (its external id).
    Indexed(String),
}

/// One removed document.
#[derive(Clone, Debug, PartialEq)]
pub struct Removal {
    /// The kept (or indexed) document it resembles.
    pub representative: Representative,
    /// The score of the pair.
    pub score: Option<f64>,
    /// What the score is.
    pub kind: ScoreKind,
    /// Why it was removed.
    pub reason: Reason,
}

/// How two members of one group relate: the reason and the kind of their score 1.
fn group_pair(fps: Option<&Fingerprints>, a: DocId, b: DocId) -> (Reason, ScoreKind) {
    match fps {
        Some(f) if f.raw[a.index()] == f.raw[b.index()] => (Reason::Identical, ScoreKind::Exact),
        Some(f) if f.canonical[a.index()] == f.canonical[b.index()] => {
            (Reason::LexicallyEquivalent, ScoreKind::Exact)
        }
        // Equal images only: the estimate is 1.
        _ => (Reason::NearDuplicate, ScoreKind::Estimate),
    }
}

/// The score of an edge: exact when verified, else the estimate.
fn edge_score(p: &ScoredPair) -> (Option<f64>, ScoreKind) {
    match (p.exact, p.estimate) {
        (Some(x), _) => (Some(x), ScoreKind::Exact),
        (None, Some(e)) => (Some(e), ScoreKind::Estimate),
        (None, None) => (None, ScoreKind::None),
    }
}

/// The greedy pass (see the module docs). `order` lists every DocId once, in keep order;
/// `edges` join group representatives (sorted or not); `removed` holds the documents
/// removed beforehand and receives the rest of the removals (`None` = kept).
pub fn greedy(
    order: &[DocId],
    collapse: &Collapse,
    edges: &[ScoredPair],
    fps: Option<&Fingerprints>,
    removed: &mut [Option<Removal>],
) {
    let n = collapse.n_docs();
    let mut rank = vec![u32::MAX; n];
    for (i, d) in order.iter().enumerate() {
        rank[d.index()] = i as u32;
    }
    // The edges at each representative.
    let adj = Rows::new(
        n,
        edges
            .iter()
            .enumerate()
            .flat_map(|(i, e)| [(e.a, i as u32), (e.b, i as u32)]),
    );
    let mut kept_of: Vec<Option<DocId>> = vec![None; n];
    for &d in order {
        if removed[d.index()].is_some() {
            continue;
        }
        let g = collapse.rep(d);
        if let Some(m) = kept_of[g.index()] {
            let (reason, kind) = group_pair(fps, d, m);
            removed[d.index()] = Some(Removal {
                representative: Representative::Doc(m),
                score: Some(1.0),
                kind,
                reason,
            });
            continue;
        }
        // The kept neighbour with the best score, ties to the one taken first.
        let mut best: Option<(DocId, &ScoredPair)> = None;
        let key = |m: DocId, e: &ScoredPair| (edge_score(e).0.unwrap_or(0.0), rank[m.index()]);
        for &ei in adj.get(g) {
            let e = &edges[ei as usize];
            let other = if e.a == g { e.b } else { e.a };
            let Some(m) = kept_of[other.index()] else {
                continue;
            };
            let better = best.is_none_or(|(bm, be)| {
                let ((s, r), (bs, br)) = (key(m, e), key(bm, be));
                s > bs || (s == bs && r < br)
            });
            if better {
                best = Some((m, e));
            }
        }
        match best {
            Some((m, e)) => {
                let (score, kind) = edge_score(e);
                removed[d.index()] = Some(Removal {
                    representative: Representative::Doc(m),
                    score,
                    kind,
                    reason: Reason::NearDuplicate,
                });
            }
            None => kept_of[g.index()] = Some(d),
        }
    }
}

/// One document per cluster: in keep order, a document is removed when a cluster holding
/// it already has a kept member (the first such cluster names it), else kept. `pairs` are
/// the method's member pairs (sorted by `(a, b)`), for the scores.
pub fn per_cluster(
    order: &[DocId],
    clusters: &[Cluster],
    pairs: &[ScoredPair],
    fps: Option<&Fingerprints>,
    removed: &mut [Option<Removal>],
) {
    let of = clusters_of(removed.len(), clusters);
    let mut kept_in: Vec<Option<DocId>> = vec![None; clusters.len()];
    for &d in order {
        if removed[d.index()].is_some() {
            continue;
        }
        let mine = of.get(d);
        if let Some(&c) = mine.iter().find(|&&c| kept_in[c as usize].is_some()) {
            let m = kept_in[c as usize].expect("found as kept");
            let (a, b) = if d < m { (d, m) } else { (m, d) };
            let (score, kind, reason) = match pairs.binary_search_by_key(&(a, b), |p| (p.a, p.b)) {
                Ok(i) => {
                    let (s, k) = edge_score(&pairs[i]);
                    let reason = match group_pair(fps, d, m) {
                        (r, ScoreKind::Exact) => r,
                        _ => Reason::NearDuplicate,
                    };
                    (s, k, reason)
                }
                Err(_) => (None, ScoreKind::None, Reason::NearDuplicate),
            };
            removed[d.index()] = Some(Removal {
                representative: Representative::Doc(m),
                score,
                kind,
                reason,
            });
        } else {
            for &c in mine {
                kept_in[c as usize] = Some(d);
            }
        }
    }
}

/// Compressed rows: a list of `u32` items per document, in the order they were given.
pub struct Rows {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Rows {
    /// The rows of `n` documents holding `(document, item)` pairs (`pairs` is walked twice:
    /// once to count, once to fill).
    fn new<I: Iterator<Item = (DocId, u32)> + Clone>(n: usize, pairs: I) -> Rows {
        let mut start = vec![0u32; n + 1];
        for (d, _) in pairs.clone() {
            start[d.index() + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut items = vec![0u32; start[n] as usize];
        for (d, x) in pairs {
            items[fill[d.index()] as usize] = x;
            fill[d.index()] += 1;
        }
        Rows { start, items }
    }

    /// The items of `d`.
    pub fn get(&self, d: DocId) -> &[u32] {
        &self.items[self.start[d.index()] as usize..self.start[d.index() + 1] as usize]
    }
}

/// Which clusters (by position in the list, ascending) hold each of `n` documents.
pub fn clusters_of(n: usize, clusters: &[Cluster]) -> Rows {
    Rows::new(
        n,
        clusters
            .iter()
            .enumerate()
            .flat_map(|(ci, c)| c.docs.iter().map(move |&d| (d, ci as u32))),
    )
}

/// The first cluster (position in the list) holding both `a` and `b`, if any.
pub fn shared_cluster(of: &Rows, clusters: &[Cluster], a: DocId, b: DocId) -> Option<u32> {
    of.get(a)
        .iter()
        .copied()
        .find(|&c| clusters[c as usize].docs.binary_search(&b).is_ok())
}

/// Counts by reason.
pub fn count_reasons(removed: &[Option<Removal>]) -> HashMap<Reason, u64> {
    let mut m = HashMap::new();
    for r in removed.iter().flatten() {
        *m.entry(r.reason).or_insert(0) += 1;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::collapse;

    fn pair(a: u32, b: u32, est: f64) -> ScoredPair {
        ScoredPair {
            a: DocId(a),
            b: DocId(b),
            shared: None,
            estimate: Some(est),
            exact: None,
        }
    }

    fn ids(v: &[u32]) -> Vec<DocId> {
        v.iter().map(|&d| DocId(d)).collect()
    }

    /// A chain 0-1-2-3 (each only resembling its neighbours): union-find would remove
    /// three; the greedy pass keeps 0 and 2 and removes 1 and 3, each naming a neighbour.
    #[test]
    fn a_chain_keeps_every_other_document() {
        let n = 4;
        let c = Collapse::identity(n);
        let edges = [pair(0, 1, 0.9), pair(1, 2, 0.85), pair(2, 3, 0.8)];
        let mut removed = vec![None; n];
        greedy(&ids(&[0, 1, 2, 3]), &c, &edges, None, &mut removed);
        let reps: Vec<Option<DocId>> = removed
            .iter()
            .map(|r| {
                r.as_ref().map(|r| match r.representative {
                    Representative::Doc(d) => d,
                    _ => unreachable!(),
                })
            })
            .collect();
        assert_eq!(reps, vec![None, Some(DocId(0)), None, Some(DocId(2))]);
        assert_eq!(removed[3].as_ref().unwrap().score, Some(0.8));
        // Keep order decides: from the end, 3 and 1 are kept.
        let mut removed = vec![None; n];
        greedy(&ids(&[3, 2, 1, 0]), &c, &edges, None, &mut removed);
        let kept: Vec<usize> = (0..n).filter(|&d| removed[d].is_none()).collect();
        assert_eq!(kept, vec![1, 3]);
    }

    /// The best-scoring kept neighbour is named; group members name the kept member with
    /// the reason their fingerprints give.
    #[test]
    fn best_neighbour_and_group_reasons() {
        // 0, 1 identical; 2 lexically equivalent to 0; 3 resembles 0 (0.8) and 4 (0.9).
        let fps = Fingerprints {
            raw: vec![10, 10, 11, 12, 13],
            canonical: vec![20, 20, 20, 21, 22],
        };
        let img = vec![Some(1), Some(1), Some(1), Some(2), Some(3)];
        let c = collapse(&fps.raw, &fps.canonical, &img).unwrap();
        let edges = [pair(0, 3, 0.8), pair(3, 4, 0.9)];
        let mut removed = vec![None; 5];
        greedy(&ids(&[0, 1, 2, 4, 3]), &c, &edges, Some(&fps), &mut removed);
        let r = |d: usize| removed[d].clone().unwrap();
        assert!(removed[0].is_none() && removed[4].is_none());
        assert_eq!(r(1).reason, Reason::Identical);
        assert_eq!(r(2).reason, Reason::LexicallyEquivalent);
        assert_eq!(r(2).kind, ScoreKind::Exact);
        assert_eq!(r(3).representative, Representative::Doc(DocId(4)));
        assert_eq!(r(3).score, Some(0.9));
    }

    /// Documents removed beforehand are neither kept nor named.
    #[test]
    fn removed_beforehand_are_not_representatives() {
        let c = Collapse::identity(3);
        let edges = [pair(0, 1, 0.9), pair(1, 2, 0.9)];
        let mut removed = vec![None; 3];
        removed[0] = Some(Removal {
            representative: Representative::Indexed("x".into()),
            score: Some(0.95),
            kind: ScoreKind::Estimate,
            reason: Reason::AgainstIndex,
        });
        greedy(&ids(&[0, 1, 2]), &c, &edges, None, &mut removed);
        assert!(removed[1].is_none());
        assert_eq!(
            removed[2].as_ref().unwrap().representative,
            Representative::Doc(DocId(1))
        );
    }

    /// Per cluster: one document per union-find cluster, chains included.
    #[test]
    fn per_cluster_keeps_one_per_cluster() {
        let clusters = vec![Cluster {
            id: 0,
            docs: ids(&[0, 1, 2, 3]),
            support: 1,
        }];
        let pairs = [pair(0, 1, 0.9), pair(1, 2, 0.85), pair(2, 3, 0.8)];
        let mut removed = vec![None; 5];
        per_cluster(
            &ids(&[0, 1, 2, 3, 4]),
            &clusters,
            &pairs,
            None,
            &mut removed,
        );
        let kept: Vec<usize> = (0..5).filter(|&d| removed[d].is_none()).collect();
        assert_eq!(kept, vec![0, 4]);
        // 0-3 has no edge: no score.
        assert_eq!(removed[3].as_ref().unwrap().kind, ScoreKind::None);
        assert_eq!(removed[1].as_ref().unwrap().score, Some(0.9));
    }
}
