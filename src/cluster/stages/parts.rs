//! The outputs of a run divided into groups, written in parts: each group's results become
//! the lines of `clusters.jsonl`, `pairs.csv` and `removed.csv` with the external ids they
//! name ([`group_rows`]); each line has a key in its file's order ([`ClusterLine::key`],
//! [`PairLine::x`], [`RemovedLine::doc`]), so that the lines can be divided among the
//! parts by key ranges; each part's owner orders its lines as one process orders the whole
//! file ([`finish_part_clusters`], [`sort_pair_lines`], [`sort_removed_lines`]) and
//! writes them ([`write_clusters_part`], [`write_pairs_part`], [`write_removed_part`];
//! part names by [`part_file`]).
//!
//! The one-process orders: clusters by size (largest first), then member DocIds
//! (ascending, compared as sequences), then support (largest first), equal member lists
//! once, numbered from 0 in that order ([`crate::cluster::finish_clusters`]); pairs by
//! (external id, external id, DocId, DocId), each pair with the smaller (external id,
//! DocId) first ([`crate::cluster::pair_rows`]); removals by the removed DocId. A
//! `removed.csv` row names the first cluster in that order holding both documents.
//!
//! Invariants: the keys refine into the files' orders (a key range is a contiguous run of
//! its file), lines with equal keys go to one part, and the parts' cluster numbers start
//! at the clusters of the parts before them; so the parts, concatenated in order (the CSV
//! header in part 0 only), are the one-process files byte for byte. A group is a union of
//! components, so its clusters are disjoint from every other group's: the first member of
//! a cluster names its group, and a removal's cluster is found within its group
//! ([`ClusterRef::At`]) and numbered by the owner of that cluster's key ([`resolve`]).

use std::collections::HashMap;
use std::path::Path;

use super::group::GroupFound;
use super::merge::Totals;
use crate::cluster::{
    cluster_order, finish_clusters, pair_count_of, pair_ends, write_cluster_lines,
    write_pair_lines, ScoredPair,
};
use crate::dedup::write::write_removed_lines;
use crate::dedup::{Reason, ScoreKind};
use crate::{DocId, Result};

/// A line of `clusters.jsonl`: member DocIds (ascending) with their external ids.
#[derive(Clone, Debug)]
pub struct ClusterLine {
    /// The members.
    pub docs: Vec<u32>,
    /// Their external ids, in the same order.
    pub ids: Vec<String>,
    /// The method's support.
    pub support: u32,
}

impl ClusterLine {
    /// The line's key: its size (largest first) and first member ([`cluster_key`]).
    pub fn key(&self) -> u64 {
        cluster_key(self.docs.len(), self.docs[0])
    }
}

/// The key of a cluster of `len` members whose first is `first`: ascending keys are the
/// clusters' order by size (largest first), then first member.
pub fn cluster_key(len: usize, first: u32) -> u64 {
    (u64::from(u32::MAX - len.min(u32::MAX as usize) as u32) << 32) | u64::from(first)
}

/// A row of `pairs.csv`: the pair with the smaller (external id, DocId) first.
#[derive(Clone, Debug)]
pub struct PairLine {
    /// The first document's external id (the line's key).
    pub x: String,
    /// The second document's external id.
    pub y: String,
    /// The first document.
    pub a: u32,
    /// The second document.
    pub b: u32,
    /// Shared elements, when the pair was an edge.
    pub shared: Option<u32>,
    /// The method's estimate.
    pub estimate: Option<f64>,
    /// The exact resemblance.
    pub exact: Option<f64>,
}

/// The cluster a `removed.csv` row names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClusterRef {
    /// No cluster holds both documents.
    None,
    /// The `nth` of the clusters with key `key` (in the order of the file).
    At { key: u64, nth: u32 },
    /// Its number in `clusters.jsonl`.
    Id(u32),
}

/// A row of `removed.csv`.
#[derive(Clone, Debug)]
pub struct RemovedLine {
    /// The removed document (the line's key).
    pub doc: u32,
    /// Its external id.
    pub id: String,
    /// The external id of the kept document it resembles.
    pub representative: String,
    /// The first cluster holding both.
    pub cluster: ClusterRef,
    /// The pair's score.
    pub score: Option<f64>,
    /// What the score is.
    pub kind: ScoreKind,
}

/// One group's lines.
#[derive(Clone, Debug, Default)]
pub struct GroupRows {
    /// Its clusters, in the file's order.
    pub clusters: Vec<ClusterLine>,
    /// Its pairs.
    pub pairs: Vec<PairLine>,
    /// Its removals.
    pub removals: Vec<RemovedLine>,
}

/// One group's results as lines with the external ids they name (the group's owner holds
/// its members' ids), its counts added to `totals`.
pub fn group_rows(r: GroupFound, totals: &mut Totals) -> GroupRows {
    let mut ids = r.ids;
    ids.sort_unstable_by_key(|x| x.0);
    let ext = |d: u32| -> String {
        ids.binary_search_by_key(&d, |x| x.0)
            .map(|i| ids[i].1.clone())
            .unwrap_or_default()
    };
    let sets = r.clusters.len() as u64;
    totals.sets += sets;
    if r.largest_component > 2 {
        totals.mined += sets;
    }
    totals.edges += r.edges;
    totals.verify_removed += r.verify_removed;
    totals.candidates += r.candidates;
    totals.components += r.components;
    totals.largest_component = totals.largest_component.max(r.largest_component);
    let finished = finish_clusters(
        (r.clusters.into_iter())
            .map(|(docs, s)| (docs.into_iter().map(DocId).collect(), s))
            .collect(),
    );
    let mut clustered: Vec<u32> = Vec::new();
    let mut clusters = Vec::with_capacity(finished.len());
    for c in &finished {
        let docs: Vec<u32> = c.docs.iter().map(|d| d.0).collect();
        totals.largest_cluster = totals.largest_cluster.max(docs.len() as u64);
        totals.member_pairs += pair_count_of(docs.len());
        clustered.extend_from_slice(&docs);
        let ids = docs.iter().map(|&d| ext(d)).collect();
        clusters.push(ClusterLine {
            docs,
            ids,
            support: c.support,
        });
    }
    clustered.sort_unstable();
    clustered.dedup();
    totals.clusters += clusters.len() as u64;
    totals.clustered_documents += clustered.len() as u64;

    // A removal names the first cluster holding both documents: the clusters holding each
    // member, in order.
    let mut of: HashMap<u32, Vec<usize>> = HashMap::new();
    if !r.removals.is_empty() {
        for (i, c) in clusters.iter().enumerate() {
            for &d in &c.docs {
                of.entry(d).or_default().push(i);
            }
        }
    }
    let at = |i: usize| {
        let key = clusters[i].key();
        let first = clusters[..i].partition_point(|c| c.key() < key);
        ClusterRef::At {
            key,
            nth: (i - first) as u32,
        }
    };
    let mut removals = Vec::with_capacity(r.removals.len());
    for (d, m, score, kind, reason) in r.removals {
        let slot = match reason {
            Reason::Identical => 0,
            Reason::LexicallyEquivalent => 1,
            Reason::NearDuplicate => 2,
            Reason::AgainstIndex => 3,
        };
        totals.removed[slot] += 1;
        let shared = (of.get(&d).into_iter().flatten())
            .copied()
            .find(|&i| clusters[i].docs.binary_search(&m).is_ok());
        removals.push(RemovedLine {
            doc: d,
            id: ext(d),
            representative: ext(m),
            cluster: shared.map_or(ClusterRef::None, at),
            score,
            kind,
        });
    }

    totals.pairs += r.pairs.len() as u64;
    let pairs = (r.pairs.into_iter())
        .map(|(a, b, shared, estimate, exact)| {
            let ((x, a), (y, b)) = pair_ends((ext(a), a), (ext(b), b));
            PairLine {
                x,
                y,
                a,
                b,
                shared,
                estimate,
                exact,
            }
        })
        .collect();
    GroupRows {
        clusters,
        pairs,
        removals,
    }
}

/// A part's clusters in the file's order, equal member lists once (the one kept is the
/// first: the largest support).
pub fn finish_part_clusters(mut lines: Vec<ClusterLine>) -> Vec<ClusterLine> {
    lines.sort_by(|x, y| cluster_order((&x.docs, x.support), (&y.docs, y.support)));
    lines.dedup_by(|later, first| later.docs == first.docs);
    lines
}

/// The number in `clusters.jsonl` of the cluster `r` names, when it is one of `lines` (a
/// part's clusters in order, numbered from `base`); other references are returned as
/// they are.
pub fn resolve(lines: &[ClusterLine], base: u32, r: ClusterRef) -> ClusterRef {
    match r {
        ClusterRef::At { key, nth } => {
            let first = lines.partition_point(|c| c.key() < key);
            ClusterRef::Id(base + (first as u32) + nth)
        }
        other => other,
    }
}

/// A part's pairs in the file's order.
pub fn sort_pair_lines(lines: &mut [PairLine]) {
    lines.sort_unstable_by(|l, r| (&l.x, &l.y, l.a, l.b).cmp(&(&r.x, &r.y, r.a, r.b)));
}

/// A part's removals in the file's order.
pub fn sort_removed_lines(lines: &mut [RemovedLine]) {
    lines.sort_unstable_by_key(|l| l.doc);
}

/// The name of part `part` of `parts` of the output file `name`: the name itself when
/// there is one part, else `stem.part-00000.ext` (`clusters.part-00002.jsonl`), so that
/// the parts sort in order.
pub fn part_file(name: &str, part: usize, parts: usize) -> String {
    if parts <= 1 {
        return name.to_string();
    }
    match name.split_once('.') {
        Some((stem, ext)) => format!("{stem}.part-{part:05}.{ext}"),
        None => format!("{name}.part-{part:05}"),
    }
}

/// The pattern naming every part of `name` (`clusters.part-*.jsonl`), or the name itself
/// for one part.
pub fn part_pattern(name: &str, parts: usize) -> String {
    part_file(name, 0, parts).replace("00000", "*")
}

/// Writes a part's clusters (in order), numbered from `base`.
pub fn write_clusters_part(path: &Path, lines: &[ClusterLine], base: u32) -> Result<()> {
    write_cluster_lines(
        path,
        lines.iter().enumerate().map(|(i, c)| {
            let ids = c.ids.iter().map(String::as_str).collect();
            Ok((base + i as u32, ids, c.support))
        }),
    )
}

/// Writes a part's pairs (in order), after the header when `header`.
pub fn write_pairs_part(path: &Path, header: bool, lines: &[PairLine]) -> Result<()> {
    write_pair_lines(
        path,
        header,
        lines.iter().map(|p| {
            let pair = ScoredPair {
                a: DocId(p.a),
                b: DocId(p.b),
                shared: p.shared,
                estimate: p.estimate,
                exact: p.exact,
            };
            (p.x.as_str(), p.y.as_str(), pair)
        }),
    )
}

/// Writes a part's removals (in order, their clusters numbered), after the header when
/// `header`.
pub fn write_removed_part(path: &Path, header: bool, lines: &[RemovedLine]) -> Result<()> {
    write_removed_lines(
        path,
        header,
        lines.iter().map(|r| {
            let cluster = match r.cluster {
                ClusterRef::Id(c) => Some(c),
                _ => None,
            };
            (
                r.id.as_str(),
                r.representative.as_str(),
                cluster,
                r.score,
                r.kind,
            )
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_keys_order_by_size_then_first_member() {
        let mut keys = vec![
            cluster_key(2, 0),
            cluster_key(5, 9),
            cluster_key(2, 7),
            cluster_key(5, 1),
            cluster_key(3, 4),
        ];
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                cluster_key(5, 1),
                cluster_key(5, 9),
                cluster_key(3, 4),
                cluster_key(2, 0),
                cluster_key(2, 7)
            ]
        );
        assert!(cluster_key(3, u32::MAX) < cluster_key(2, 0));
    }

    #[test]
    fn part_names_sort_in_order() {
        assert_eq!(part_file("pairs.csv", 3, 1), "pairs.csv");
        assert_eq!(part_file("pairs.csv", 3, 4), "pairs.part-00003.csv");
        assert_eq!(part_pattern("clusters.jsonl", 4), "clusters.part-*.jsonl");
        assert!(part_file("removed.csv", 9, 12) < part_file("removed.csv", 10, 12));
    }
}
