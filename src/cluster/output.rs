//! Output records and writers: the run's [`ClusterOutput`] and [`ClusterSummary`], `clusters.jsonl`,
//! `pairs.csv`, and the summary JSON.
//!
//! Invariants: writers go through [`crate::io::AtomicFile`]; clusters are written
//! in their (sorted) order with member external ids in ascending DocId (input) order; pairs
//! are written once each as `a,b` with `a < b` by external id string, sorted by `(a, b)`
//! strings (ties, from repeated external ids, by DocId). Floats use Rust's shortest
//! round-trip formatting, so output bytes depend only on the values.

use std::io::Write;
use std::path::Path;

use super::CollapseSummary;
use crate::io::AtomicFile;
use crate::{DocId, Error, Result};

/// One cluster.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Cluster {
    /// Position in the sorted cluster list (0-based).
    pub id: u32,
    /// Member documents, ascending, at least two.
    pub docs: Vec<DocId>,
    /// The method's support: shared image elements for concept clusters; for the pair-graph
    /// methods the smallest score (shared elements, agreeing positions, shared super
    /// shingles, overlap) of the edges that built the cluster.
    pub support: u32,
}

/// One unordered document pair (`a < b` by DocId) with the scores the method knows.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ScoredPair {
    /// Smaller DocId.
    pub a: DocId,
    /// Larger DocId.
    pub b: DocId,
    /// Shared image elements / agreeing positions / shared super shingles / exact overlap,
    /// when the pair was an edge of the method (not only a co-member of a cluster).
    pub shared: Option<u32>,
    /// The method's resemblance estimate for the pair, when known (with `--measure
    /// containment`: the containment estimate).
    pub estimate: Option<f64>,
    /// Exact resemblance of the full shingle sets, when computed (with `--measure
    /// containment`: the exact max-containment).
    pub exact: Option<f64>,
}

/// Time spent in one phase, and the process's memory at its end.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Phase {
    /// Phase name.
    pub name: String,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// The process's peak resident memory so far when the phase ended (`VmHWM`, which
    /// never falls): the phase in which it first reaches the run's peak is the one that
    /// sets it. `None` where unknown, and for a phase of several processes.
    pub peak_rss_bytes: Option<u64>,
}

impl Phase {
    /// A phase of this process ending now.
    pub fn ended(name: impl Into<String>, seconds: f64) -> Self {
        Phase {
            name: name.into(),
            seconds,
            peak_rss_bytes: crate::spill::peak_rss_bytes(),
        }
    }
}

/// Summary of a run (serialized into `summary.json`).
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
    /// Context rows (elements kept), for concept / union-find; null for the other methods
    /// and when a divided run exchanged prefixes only (`--exchange prefix`: the rows are
    /// not counted).
    pub context_rows: Option<u64>,
    /// Elements dropped as too common (`max_df`, B97 5.1); null when a divided run
    /// exchanged prefixes only (`--exchange prefix`).
    pub dropped_common: Option<u64>,
    /// Elements dropped as held by fewer than `min_df` documents; null when a divided run
    /// exchanged prefixes only (`--exchange prefix`).
    pub dropped_rare: Option<u64>,
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

/// What a method returns ([`super::run_method`], [`super::Job`]).
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

/// Writes `clusters.jsonl`: `{"id":..,"docs":[external ids..],"support":k}` per line.
pub fn write_clusters(path: &Path, clusters: &[Cluster], ext_ids: &[String]) -> Result<()> {
    let lines = clusters.iter().map(|c| {
        let docs = (c.docs.iter())
            .map(|d| ext(ext_ids, *d))
            .collect::<Result<Vec<_>>>()?;
        Ok((c.id, docs, c.support))
    });
    write_cluster_lines(path, lines)
}

/// Writes the lines of `clusters.jsonl` (or of a part of it), each `(id, member external
/// ids, support)`, in the order given.
pub fn write_cluster_lines<'a>(
    path: &Path,
    lines: impl IntoIterator<Item = Result<(u32, Vec<&'a str>, u32)>>,
) -> Result<()> {
    #[derive(serde::Serialize)]
    struct Line<'a> {
        id: u32,
        docs: Vec<&'a str>,
        support: u32,
    }
    let mut f = AtomicFile::create(path)?;
    for l in lines {
        let (id, docs, support) = l?;
        let line = Line { id, docs, support };
        serde_json::to_writer(&mut f, &line).map_err(|e| Error::io(path, e.into()))?;
        f.write_all(b"\n").map_err(|e| Error::io(path, e))?;
    }
    f.commit()
}

fn ext(ext_ids: &[String], d: DocId) -> Result<&str> {
    ext_ids.get(d.index()).map(String::as_str).ok_or_else(|| {
        Error::config(format!(
            "DocId {d} has no external id ({} given)",
            ext_ids.len()
        ))
    })
}

/// A pair's two ends, each (external id, DocId), in `pairs.csv`'s order: the smaller
/// (external id, DocId) first. One process ([`pair_rows`]) and each part of a divided run
/// orient pairs by it.
pub fn pair_ends<S: AsRef<str>, D: Ord + Copy>(x: (S, D), y: (S, D)) -> ((S, D), (S, D)) {
    if (x.0.as_ref(), x.1) <= (y.0.as_ref(), y.1) {
        (x, y)
    } else {
        (y, x)
    }
}

/// The rows of `pairs.csv` in its order: each pair with the smaller external id first,
/// sorted by (external id, external id, DocId, DocId). Every entry point that hands out
/// pairs gives them in this order.
pub fn pair_rows<'a>(
    pairs: &'a [ScoredPair],
    ext_ids: &[String],
) -> Result<Vec<(DocId, DocId, &'a ScoredPair)>> {
    let mut rows: Vec<(&str, &str, DocId, DocId, &ScoredPair)> = pairs
        .iter()
        .map(|p| {
            let ((x, a), (y, b)) = pair_ends((ext(ext_ids, p.a)?, p.a), (ext(ext_ids, p.b)?, p.b));
            Ok((x, y, a, b, p))
        })
        .collect::<Result<_>>()?;
    rows.sort_by(|l, r| (l.0, l.1, l.2, l.3).cmp(&(r.0, r.1, r.2, r.3)));
    Ok(rows.into_iter().map(|(_, _, a, b, p)| (a, b, p)).collect())
}

/// Writes `pairs.csv` with header `a,b,shared,estimate,exact` (empty cells for unknown
/// scores); see the module docs for the order.
pub fn write_pairs(path: &Path, pairs: &[ScoredPair], ext_ids: &[String]) -> Result<()> {
    let rows = pair_rows(pairs, ext_ids)?;
    let lines = (rows.into_iter())
        .map(|(a, b, p)| (ext_ids[a.index()].as_str(), ext_ids[b.index()].as_str(), *p));
    write_pair_lines(path, true, lines)
}

/// Writes the rows of `pairs.csv` (or of a part of it), each `(a, b, pair)` with the
/// external ids of its documents, in the order given; the header first when `header`.
pub fn write_pair_lines<'a>(
    path: &Path,
    header: bool,
    rows: impl IntoIterator<Item = (&'a str, &'a str, ScoredPair)>,
) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    {
        let mut w = crate::corpus::dialect::writer(false).from_writer(&mut f);
        let opt_u = |v: Option<u32>| v.map(|x| x.to_string()).unwrap_or_default();
        let opt_f = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
        let io = |e: csv::Error| Error::io(path, e.into());
        if header {
            w.write_record(["a", "b", "shared", "estimate", "exact"])
                .map_err(io)?;
        }
        for (x, y, p) in rows {
            w.write_record([x, y, &opt_u(p.shared), &opt_f(p.estimate), &opt_f(p.exact)])
                .map_err(io)?;
        }
        w.flush().map_err(|e| Error::io(path, e))?;
    }
    f.commit()
}

/// Writes any serializable summary as pretty JSON (atomically).
pub fn write_summary<T: serde::Serialize>(path: &Path, summary: &T) -> Result<()> {
    let mut bytes = serde_json::to_vec_pretty(summary).map_err(|e| Error::io(path, e.into()))?;
    bytes.push(b'\n');
    crate::io::write_atomic(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writers_order_by_external_id() {
        let dir = tempfile::tempdir().unwrap();
        let ext: Vec<String> = ["z", "b", "a,x"].iter().map(|s| s.to_string()).collect();
        let clusters = vec![Cluster {
            id: 0,
            docs: vec![DocId(0), DocId(1), DocId(2)],
            support: 3,
        }];
        let p = dir.path().join("clusters.jsonl");
        write_clusters(&p, &clusters, &ext).unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "{\"id\":0,\"docs\":[\"z\",\"b\",\"a,x\"],\"support\":3}\n"
        );
        let pairs = vec![
            ScoredPair {
                a: DocId(0),
                b: DocId(1),
                shared: Some(3),
                estimate: Some(0.75),
                exact: None,
            },
            ScoredPair {
                a: DocId(1),
                b: DocId(2),
                shared: None,
                estimate: None,
                exact: Some(0.5),
            },
            ScoredPair {
                a: DocId(0),
                b: DocId(2),
                shared: None,
                estimate: None,
                exact: None,
            },
        ];
        let p = dir.path().join("pairs.csv");
        write_pairs(&p, &pairs, &ext).unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "a,b,shared,estimate,exact\n\"a,x\",b,,,0.5\n\"a,x\",z,,,\nb,z,3,0.75,\n"
        );
        assert!(write_pairs(&p, &pairs, &ext[..1]).is_err());
    }
}
