//! [`Dedup::run`]: the clustering job, the optional passes (index, keep keys), the choice,
//! and the outputs; [`DedupSummary`] is `summary.json`.
//!
//! Invariant: the outputs depend only on the input and the configuration (every step is
//! ordered by DocId or by the keep order, never by thread timing).

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::keys::{against_index, against_opened, keep_order, read_keys};
use super::select::{self, count_reasons, Reason, Removal, Representative, ScoreKind};
use super::write::{removed_rows, write_kept, write_removed, RemovedRow};
use super::{Dedup, Keep};
use crate::cluster::{write_clusters, write_summary, Cluster, ClusterSummary, Input, Phase};
use crate::corpus::CorpusStats;
use crate::{Error, Result};

/// Removed documents by reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RemovedBy {
    /// The same raw text as the kept document.
    pub identical: u64,
    /// The same canonical text.
    pub lexically_equivalent: u64,
    /// Resembling the kept document at the threshold.
    pub near_duplicate: u64,
    /// Resembling a document of the index deduplicated against.
    pub against_index: u64,
}

/// `summary.json` of a deduplication.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DedupSummary {
    /// The input.
    pub input: PathBuf,
    /// Its format.
    pub format: String,
    /// Documents read.
    pub documents: u64,
    /// Documents kept.
    pub kept: u64,
    /// Documents removed.
    pub removed: u64,
    /// Removed documents by reason.
    pub removed_by: RemovedBy,
    /// The file (or directory) of the kept documents in the output directory (none when
    /// nothing was written: [`Dedup::select`]).
    pub kept_file: Option<String>,
    /// The keep policy.
    pub keep: String,
    /// One document per cluster instead of the greedy choice.
    pub per_cluster: bool,
    /// The index deduplicated against.
    pub against: Option<PathBuf>,
    /// Whether the method's pairs were verified exactly.
    pub verified: bool,
    /// The clustering run (method, threshold, k, clusters, collapse, phases).
    pub cluster: ClusterSummary,
    /// What the corpus reader counted.
    pub input_stats: CorpusStats,
    /// With several processes or workers: what each process did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distributed: Option<serde_json::Value>,
    /// Seconds end to end.
    pub seconds: f64,
    /// Peak resident memory of the process, if known.
    pub peak_rss_bytes: Option<u64>,
}

/// What [`Dedup::run`] returns besides the files, and [`Dedup::select`] instead of them
/// (after a divided run, which wrote its removals and clusters in parts, the summary
/// only: `removed`, `ext_ids` and `clusters` are empty).
#[derive(Clone, Debug)]
pub struct DedupOutput {
    /// The summary (as written).
    pub summary: DedupSummary,
    /// The removal of every removed document (`None`: kept), by DocId.
    pub removed: Vec<Option<Removal>>,
    /// External ids in DocId order.
    pub ext_ids: Vec<String>,
    /// The method's clusters (as `clusters.jsonl` lists them).
    pub clusters: Vec<Cluster>,
}

/// What a deduplication chose, for [`Dedup::conclude`] to write and summarize.
#[derive(Debug)]
pub struct Chosen<'a> {
    /// When the run started.
    pub t0: Instant,
    /// The input.
    pub input: &'a Path,
    /// The output directory (none: nothing is written).
    pub out: Option<&'a Path>,
    /// The name of the kept file (or the pattern of the kept parts) in `out`.
    pub kept_file: Option<String>,
    /// When writing the outputs began (the kept records are written first).
    pub write_started: Instant,
    /// The method's output (its summary's phases up to the choice).
    pub cluster: crate::cluster::ClusterOutput,
    /// The removal of every removed document (`None`: kept), by DocId.
    pub removed: Vec<Option<Removal>>,
    /// External ids in DocId order (those of the documents named by a cluster or a
    /// removal at least).
    pub ext_ids: Vec<String>,
    /// What the corpus reader counted.
    pub input_stats: CorpusStats,
    /// `removed.csv` and `clusters.jsonl` were written in parts by the processes of a
    /// divided run, with these counts: `removed`, `ext_ids` and `cluster`'s clusters are
    /// empty, and only `summary.json` is written.
    pub parts: Option<WrittenParts>,
}

/// The counts of a deduplication whose `removed.csv` and `clusters.jsonl` were written in
/// parts (a divided run).
#[derive(Clone, Copy, Debug)]
pub struct WrittenParts {
    /// Documents read.
    pub documents: u64,
    /// Removed documents by reason.
    pub removed_by: RemovedBy,
}

impl DedupOutput {
    /// Whether each document is kept, by DocId.
    pub fn kept_mask(&self) -> Vec<bool> {
        self.removed.iter().map(Option::is_none).collect()
    }

    /// The rows of `removed.csv`, in its order.
    pub fn removed_rows(&self) -> Vec<RemovedRow<'_>> {
        rows_of(&self.removed, &self.ext_ids, &self.clusters)
    }
}

/// The rows of `removed.csv`: each removal with the cluster holding both documents.
fn rows_of<'a>(
    removed: &'a [Option<Removal>],
    ext_ids: &'a [String],
    clusters: &[Cluster],
) -> Vec<RemovedRow<'a>> {
    let of = select::clusters_of(removed.len(), clusters);
    let shared = |a, b| select::shared_cluster(&of, clusters, a, b);
    removed_rows(removed, ext_ids, &shared, clusters)
}

impl Dedup {
    /// Deduplicates the corpus at `input` into the directory `out` (see the module docs):
    /// `kept.<ext>`, `removed.csv`, `clusters.jsonl` and `summary.json`. `progress` is
    /// told the documents sketched so far.
    pub fn run(
        &self,
        input: &Path,
        out: &Path,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<DedupOutput> {
        let t0 = Instant::now();
        // A corpus in object storage is staged whole for the run.
        let job = &self.job;
        let tmp = job.spill_config().tmp_dir.as_deref();
        crate::corpus::remote::with_staged(input, &job.pipeline().corpus, tmp, |local| {
            self.check_input(local)?;
            let s = job.prepare(&Input::Corpus(local.to_path_buf()), progress)?;
            self.finish(t0, local, Some(out), s, None)
        })
    }

    /// What [`Dedup::run`] decides, without writing anything: the removals, the clusters
    /// and the summary (with no kept file).
    pub fn select(&self, input: &Path, progress: &(dyn Fn(u64) + Sync)) -> Result<DedupOutput> {
        let t0 = Instant::now();
        self.check_input(input)?;
        let s = self
            .job
            .prepare(&Input::Corpus(input.to_path_buf()), progress)?;
        self.finish(t0, input, None, s, None)
    }

    /// Why the choice of this deduplication cannot be made group by group, with each
    /// process writing the kept records of its pieces ([`Dedup::choose_group`],
    /// [`super::write::write_kept_part`]); `None` when it can: the keep order is the input
    /// order, no index is deduplicated against, and the kept records are the input's own
    /// lines (JSONL or lines read line by line, one file or shards), written in the
    /// input's compression ([`super::write::kept_by_lines`]; a compressed file is one
    /// piece, and the kept file a frame per file), or a Parquet corpus's rows (its pieces
    /// are row groups, whose rows the writer classifies as the reader does), kept as
    /// Parquet or JSONL; the caller checks that the input is divided at all.
    pub fn divided_because(&self, input: &Path) -> Result<Option<&'static str>> {
        let corpus = &self.job.pipeline().corpus;
        let format = corpus.format_of(input)?;
        Ok(if self.keep != Keep::First {
            Some("the keep order by length or by a field needs every document's key")
        } else if self.against.is_some() {
            Some("documents are looked up in an index first")
        } else if format == crate::corpus::Format::Parquet {
            None
        } else if !crate::corpus::split::read_by_lines(format, corpus) {
            Some("bad lines are skipped, so a record's place is known only to a whole read")
        } else if !super::write::kept_by_lines(format, corpus, self.out_format) {
            Some("the kept records are converted to another format")
        } else {
            None
        })
    }

    /// The choice ([`super::select`]) among the documents of one group: a union of
    /// connected components of the method's edges and of the collapse classes, numbered
    /// `0..n` in input order, with the method's output on them; `fps` holds their
    /// fingerprints. Documents outside every group are kept, so the choices of the groups
    /// together are the choice of the whole corpus (with the input's keep order).
    pub fn choose_group(
        &self,
        collapse: &crate::cluster::Collapse,
        cl: &crate::cluster::ClusterOutput,
        fps: &crate::sketch::pipeline::Fingerprints,
    ) -> Vec<Option<Removal>> {
        let n = collapse.n_docs();
        let order: Vec<crate::DocId> = (0..n as u32).map(crate::DocId).collect();
        let mut removed = vec![None; n];
        if self.per_cluster {
            select::per_cluster(&order, &cl.clusters, &cl.pairs, Some(fps), &mut removed);
        } else {
            select::greedy(&order, collapse, &cl.edges, Some(fps), &mut removed);
        }
        removed
    }

    /// A deduplication needs a corpus, not an images file.
    pub fn check_input(&self, input: &Path) -> Result<()> {
        // In-memory texts have a name, not a file.
        let texts = self.job.pipeline().corpus.texts.is_some();
        if !texts && crate::sketch::file::is_images_file(input) {
            return Err(Error::config(format!(
                "{}: deduplication writes the kept documents, so it needs the corpus, not an images file",
                input.display()
            )));
        }
        Ok(())
    }

    /// [`Dedup::run`] against the index of [`DedupBuilder::against`](super::DedupBuilder::against),
    /// with the kept documents added to it as one batch (tagged `tag`), all under the
    /// index's writer lock (waiting up to `wait` for another writer): the index is opened
    /// for writing, deduplicated against, added to and saved as a new generation before the
    /// lock goes ([`Dedup::run_adding`]). Nothing is saved when a step fails.
    pub fn run_adding_to_index(
        &self,
        input: &Path,
        out: &Path,
        tag: Option<&str>,
        wait: std::time::Duration,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<(DedupOutput, Added)> {
        let Some(dir) = &self.against else {
            return Err(Error::config(
                "adding the kept documents to an index needs the index deduplicated against",
            ));
        };
        let (mut index, lock) = crate::index::Index::open_for_write(dir, wait)?;
        let (output, report) = self.run_adding(input, out, &mut index, tag, progress)?;
        let generation = index.save_locked(&lock)?;
        Ok((
            output,
            Added {
                report,
                generation,
                documents: index.len() as u64,
            },
        ))
    }

    /// [`Dedup::run`] against `index` (opened with its writer lock held, the index of
    /// [`DedupBuilder::against`](super::DedupBuilder::against)), then the kept documents,
    /// sketched with the index's parameters, added to it as a batch
    /// ([`Index::add_batch`](crate::index::Index::add_batch), tagged `tag`); the caller
    /// saves the index. An index that keeps its sources is refused: its source ordinals
    /// would name the input's documents, of which only the kept ones are added.
    pub fn run_adding(
        &self,
        input: &Path,
        out: &Path,
        index: &mut crate::index::Index,
        tag: Option<&str>,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<(DedupOutput, crate::index::AddReport)> {
        if self.against.is_none() {
            return Err(Error::config(
                "adding the kept documents to an index needs the index deduplicated against",
            ));
        }
        if index.config().keep_sources {
            return Err(Error::config(
                "the kept documents cannot be added to an index that keeps its sources (its \
                 exact queries re-read each document's corpus); add the kept file with \
                 `fimdup index add`",
            ));
        }
        let t0 = Instant::now();
        self.check_input(input)?;
        let s = self
            .job
            .prepare(&Input::Corpus(input.to_path_buf()), progress)?;
        let (output, docs) = self.finish_against(t0, input, Some(out), s, None, Some(index))?;
        let kept: Vec<crate::index::NewDoc> = docs
            .into_iter()
            .zip(&output.removed)
            .filter(|(_, r)| r.is_none())
            .map(|(d, _)| d)
            .collect();
        let corpus = crate::index::CorpusSpec::from_config(&self.job.pipeline().corpus);
        let rep = index.add_batch(kept, tag, &input.to_string_lossy(), corpus)?;
        Ok((output, rep))
    }

    /// Runs the method on the prepared corpus, chooses the documents to keep and writes
    /// the output into `out` (when given); `distributed` is what a multi-process engine
    /// adds to the summary.
    pub fn finish(
        &self,
        t0: Instant,
        input: &Path,
        out: Option<&Path>,
        s: crate::cluster::Sketched,
        distributed: Option<serde_json::Value>,
    ) -> Result<DedupOutput> {
        Ok(self.finish_against(t0, input, out, s, distributed, None)?.0)
    }

    /// [`Dedup::finish`], against the opened index `adding` instead of the one at the
    /// [`against`](super::DedupBuilder::against) path when given, and then also returning
    /// every document sketched with that index's parameters (in input order).
    fn finish_against(
        &self,
        t0: Instant,
        input: &Path,
        out: Option<&Path>,
        mut s: crate::cluster::Sketched,
        distributed: Option<serde_json::Value>,
        adding: Option<&crate::index::Index>,
    ) -> Result<(DedupOutput, Vec<crate::index::NewDoc>)> {
        let job = &self.job;
        let corpus_cfg = &job.pipeline().corpus;
        let mut cl = job.run_on(&mut s)?;
        // The choice needs the clusters, the collapse and the fingerprints, not the context.
        s.drop_context();
        let n = s.n_docs();
        let mut phases = crate::cluster::job::with_preparation(
            s.phases(),
            std::mem::take(&mut cl.summary.phases),
        );

        let mut removed: Vec<Option<Removal>> = vec![None; n];
        let mut docs = Vec::new();
        if let (Some(dir), Some(t)) = (&self.against, self.threshold) {
            let ta = Instant::now();
            let hits = match adding {
                Some(index) => {
                    let (hits, d) = against_opened(index, input, corpus_cfg, t, n, true)?;
                    docs = d;
                    hits
                }
                None => against_index(dir, input, corpus_cfg, t, n)?,
            };
            for (d, h) in hits.into_iter().enumerate() {
                if let Some((id, est)) = h {
                    removed[d] = Some(Removal {
                        representative: Representative::Indexed(id),
                        score: Some(est),
                        kind: ScoreKind::Estimate,
                        reason: Reason::AgainstIndex,
                    });
                }
            }
            phases.push(Phase::ended("against index", ta.elapsed().as_secs_f64()));
        }
        let tk = Instant::now();
        let keys = read_keys(input, corpus_cfg, &self.keep, n)?;
        let order = keep_order(n, &self.keep, keys);
        let fps = s.fingerprints();
        if self.per_cluster {
            select::per_cluster(&order, &cl.clusters, &cl.pairs, fps, &mut removed);
        } else {
            select::greedy(
                &order,
                s.prepared().collapse(),
                &cl.edges,
                fps,
                &mut removed,
            );
        }
        phases.push(Phase::ended("choose", tk.elapsed().as_secs_f64()));

        let input_stats = s.input_stats();
        let ext_ids = s.into_ext_ids();
        cl.summary.phases = phases;
        let tw = Instant::now();
        let kept_file = match out {
            Some(out) => {
                std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
                let mask: Vec<bool> = removed.iter().map(Option::is_none).collect();
                Some(write_kept(input, corpus_cfg, self.out_format, &mask, out)?)
            }
            None => None,
        };
        let kept_name = kept_file.as_ref().map(|k| k.name.clone());
        let out = self.conclude(
            Chosen {
                t0,
                input,
                out,
                kept_file: kept_name,
                write_started: tw,
                cluster: cl,
                removed,
                ext_ids,
                input_stats,
                parts: None,
            },
            distributed,
        )?;
        if let Some(kept) = &kept_file {
            debug_assert_eq!(kept.documents, out.summary.kept);
        }
        Ok((out, docs))
    }

    /// Writes `removed.csv`, `clusters.jsonl` (unless written in parts, [`Chosen::parts`])
    /// and `summary.json` of what was chosen (into `chosen.out`, when given) and returns
    /// the output; `distributed` is what a multi-process engine adds to the summary.
    pub fn conclude(
        &self,
        chosen: Chosen<'_>,
        distributed: Option<serde_json::Value>,
    ) -> Result<DedupOutput> {
        let Chosen {
            t0,
            input,
            out,
            kept_file,
            write_started,
            cluster: mut cl,
            removed,
            ext_ids,
            input_stats,
            parts,
        } = chosen;
        let job = &self.job;
        let format = job.pipeline().corpus.format_of(input)?;
        let clusters = std::mem::take(&mut cl.clusters);
        let (n, removed_by) = match parts {
            Some(p) => (p.documents, p.removed_by),
            None => {
                let reasons = count_reasons(&removed);
                let by = |r| reasons.get(&r).copied().unwrap_or(0);
                let removed_by = RemovedBy {
                    identical: by(Reason::Identical),
                    lexically_equivalent: by(Reason::LexicallyEquivalent),
                    near_duplicate: by(Reason::NearDuplicate),
                    against_index: by(Reason::AgainstIndex),
                };
                (removed.len() as u64, removed_by)
            }
        };
        if let (Some(out), None) = (out, parts) {
            std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
            write_removed(
                &out.join("removed.csv"),
                &rows_of(&removed, &ext_ids, &clusters),
                &ext_ids,
            )?;
            write_clusters(&out.join("clusters.jsonl"), &clusters, &ext_ids)?;
            cl.summary
                .phases
                .push(Phase::ended("write", write_started.elapsed().as_secs_f64()));
        }

        let n_removed = removed_by.identical
            + removed_by.lexically_equivalent
            + removed_by.near_duplicate
            + removed_by.against_index;
        let summary = DedupSummary {
            input: input.to_path_buf(),
            format: format.to_string(),
            documents: n,
            kept: n - n_removed,
            removed: n_removed,
            removed_by,
            kept_file,
            keep: self.keep.to_string(),
            per_cluster: self.per_cluster,
            against: self.against.clone(),
            verified: job.verifies(),
            cluster: cl.summary,
            input_stats,
            distributed,
            seconds: t0.elapsed().as_secs_f64(),
            peak_rss_bytes: crate::spill::peak_rss_bytes(),
        };
        if let (Some(out), Some(_)) = (out, &summary.kept_file) {
            write_summary(
                &out.join("summary.json"),
                &serde_json::to_value(&summary)
                    .map_err(|e| Error::config(format!("summary: {e}")))?,
            )?;
        }
        Ok(DedupOutput {
            summary,
            removed,
            ext_ids,
            clusters,
        })
    }
}

/// What [`Dedup::run_adding_to_index`] added to the index.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Added {
    /// The batch's sweep report.
    pub report: crate::index::AddReport,
    /// The index's generation saved.
    pub generation: u64,
    /// The documents the index holds after it.
    pub documents: u64,
}
