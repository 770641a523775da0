//! What a clustering job returns ([`JobOutput`]): the method's output, the external ids it
//! refers to, and what `summary.json` adds (timings, memory, the input's counts, the
//! multi-process block and, when asked, the memory plan), and how it is written.
//!
//! Invariants: `clusters.jsonl` and `pairs.csv` (or their parts) are each complete or
//! absent, and `summary.json` is written after them.

use std::path::Path;

use super::{write_clusters, write_pairs, write_summary, ClusterOutput};
use crate::corpus::CorpusStats;
use crate::sketch::Scheme;
use crate::{Error, Result};

/// What [`Job::run`](super::Job::run) returns: the method's output, the external ids it refers to, and what
/// `summary.json` adds.
#[derive(Clone, Debug)]
pub struct JobOutput {
    /// Clusters, pairs, edges and the summary.
    pub output: ClusterOutput,
    /// External ids in DocId order.
    pub ext_ids: Vec<String>,
    /// The image scheme.
    pub scheme: Scheme,
    /// Seconds end to end.
    pub seconds: f64,
    /// Peak resident memory of the process, if known.
    pub peak_rss_bytes: Option<u64>,
    /// What the corpus reader counted (zero for images files).
    pub input_stats: CorpusStats,
    /// With several processes or workers: the layout and what each process did, as the
    /// multi-process engine reports it (written as the summary's `distributed` block).
    pub distributed: Option<serde_json::Value>,
    /// With [`JobBuilder::explain_plan`](super::JobBuilder::explain_plan): the memory plan and what each stage used.
    pub memory_plan: Option<serde_json::Value>,
    /// The method's declared options with their values (the summary's `options`).
    pub options: serde_json::Value,
    /// The clusters and pairs files were written in parts by the processes of a divided
    /// run (`output` holds the summary only, `ext_ids` nothing): [`JobOutput::write`]
    /// writes `summary.json` alone.
    pub in_parts: bool,
}

impl JobOutput {
    /// The summary as written to `summary.json`: the run's summary plus `seconds`,
    /// `peak_rss_bytes`, `scheme`, and the input's `renamed_ids` and `skipped_oversized`.
    pub fn summary_json(&self) -> Result<serde_json::Value> {
        let mut v = serde_json::to_value(&self.output.summary)
            .map_err(|e| Error::config(format!("summary: {e}")))?;
        v["seconds"] = serde_json::json!(self.seconds);
        v["peak_rss_bytes"] = serde_json::json!(self.peak_rss_bytes);
        v["scheme"] = serde_json::json!(self.scheme.name());
        v["options"] = self.options.clone();
        v["renamed_ids"] = serde_json::json!(self.input_stats.renamed_ids);
        v["skipped_oversized"] = serde_json::json!(self.input_stats.skipped_oversized);
        if let Some(d) = &self.distributed {
            v["distributed"] = serde_json::json!(d);
        }
        if let Some(p) = &self.memory_plan {
            v["memory_plan"] = p.clone();
        }
        Ok(v)
    }

    /// Writes `clusters.jsonl` and `pairs.csv` (side by side, each complete or absent) and
    /// then `summary.json` into `dir` (the summary alone when the files were written in
    /// parts).
    pub fn write(&self, dir: &Path) -> Result<()> {
        if self.in_parts {
            return write_summary(&dir.join("summary.json"), &self.summary_json()?);
        }
        let (c, p) = rayon::join(
            || {
                write_clusters(
                    &dir.join("clusters.jsonl"),
                    &self.output.clusters,
                    &self.ext_ids,
                )
            },
            || write_pairs(&dir.join("pairs.csv"), &self.output.pairs, &self.ext_ids),
        );
        c?;
        p?;
        write_summary(&dir.join("summary.json"), &self.summary_json()?)
    }
}
