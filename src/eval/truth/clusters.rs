//! The reader of cluster-assignment truths: one cluster per document, as JSON lines
//! `{"id": "doc1", "cluster": "c7"}` (`*.jsonl`, `*.ndjson`, also compressed) or as a CSV or
//! TSV with the header `id,cluster[,...]` (further columns ignored).
//!
//! Ids and clusters may be strings or numbers (a number is its decimal text, so `7` and
//! `"7"` are one cluster). Invariants: a document listed twice with the same cluster counts
//! once; listed with two different clusters it is an error naming the file and the line;
//! clusters and their members are kept in first-seen order.

use std::path::Path;

use super::format::is_cluster_header;
use crate::corpus::ext_id_from_json;
use crate::eval::delimited::Rows;
use crate::eval::ids::Ids;
use crate::eval::json_lines::for_each_json_line;
use crate::{Error, Result};

/// The documents of a cluster truth, grouped.
#[derive(Clone, Debug, Default)]
pub(crate) struct DocClusters {
    /// The labeled documents.
    pub docs: Ids,
    /// Members of each cluster (ids of `docs`), clusters in first-seen order.
    pub members: Vec<Vec<u32>>,
    /// Each document's cluster (index into `members`) and the line it was listed on.
    of: Vec<(u32, u64)>,
    /// Cluster names.
    clusters: Ids,
}

impl DocClusters {
    /// Reads JSON lines when the name says so (`.jsonl`, `.ndjson`), else CSV or TSV.
    pub fn read(path: &Path) -> Result<Self> {
        let name = crate::eval::delimited::plain_name(path);
        if name.ends_with(".jsonl") || name.ends_with(".ndjson") {
            Self::read_jsonl(path)
        } else {
            Self::read_csv(path)
        }
    }

    fn read_jsonl(path: &Path) -> Result<Self> {
        let mut c = DocClusters::default();
        for_each_json_line(path, |line, mut v| {
            let mut field = |name: &str| {
                let bad = || {
                    Error::parse(
                        path,
                        line,
                        format!("expected \"{name}\": a string or a number (a line is {{\"id\": .., \"cluster\": ..}})"),
                    )
                };
                let s =
                    ext_id_from_json(v.get_mut(name).ok_or_else(bad)?.take()).map_err(|_| bad())?;
                if s.is_empty() {
                    return Err(Error::parse(path, line, format!("empty \"{name}\"")));
                }
                Ok(s)
            };
            let (id, cluster) = (field("id")?, field("cluster")?);
            c.add(path, line, &id, &cluster)
        })?;
        Ok(c)
    }

    fn read_csv(path: &Path) -> Result<Self> {
        let mut rows = Rows::open(path)?;
        let mut c = DocClusters::default();
        if !rows.advance()? {
            return Ok(c);
        }
        if !is_cluster_header(rows.record()) {
            return Err(Error::parse(
                path,
                rows.line(),
                "expected the header id,cluster of a cluster-assignment file",
            ));
        }
        let fields = rows.record().len();
        while rows.advance()? {
            let (rec, line) = (rows.record(), rows.line());
            if rec.len() != fields {
                return Err(Error::parse(
                    path,
                    line,
                    format!(
                        "expected {fields} {}-separated fields, found {}",
                        rows.separator(),
                        rec.len()
                    ),
                ));
            }
            if rec[0].is_empty() || rec[1].is_empty() {
                return Err(Error::parse(path, line, "empty document id or cluster"));
            }
            c.add(path, line, &rec[0], &rec[1])?;
        }
        Ok(c)
    }

    fn add(&mut self, path: &Path, line: u64, id: &str, cluster: &str) -> Result<()> {
        let k = self.clusters.intern(cluster);
        if k as usize == self.members.len() {
            self.members.push(Vec::new());
        }
        let d = self.docs.intern(id);
        if d as usize == self.of.len() {
            self.of.push((k, line));
            self.members[k as usize].push(d);
            return Ok(());
        }
        let (first, first_line) = self.of[d as usize];
        if first != k {
            return Err(Error::parse(
                path,
                line,
                format!(
                    "document {id} is in cluster {cluster} here and in cluster {} on line {first_line}",
                    self.clusters.name(first)
                ),
            ));
        }
        Ok(())
    }

    /// Number of labeled documents.
    pub fn len(&self) -> usize {
        self.of.len()
    }
}
