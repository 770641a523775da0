//! `fimdup index build|query|add`: the persisted index.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use fimdup::corpus::CorpusConfig;
use fimdup::index::{Candidates, Index, IndexConfig, Measure, Query, QueryOptions, WriteLock};

use super::common::{input_notes, print_json, progress, CorpusArgs, PipelineArgs, SpillArgs};

/// A persisted index of images: on-the-fly resemblance and containment queries, and new
/// sweeps added incrementally with a lost-and-found report (Broder et al. 1997, 6.1-6.2).
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub(super) cmd: Cmd,
}

#[derive(clap::Subcommand, Debug)]
pub(super) enum Cmd {
    /// Build an index directory from a corpus (the first sweep).
    Build(BuildArgs),
    /// Find the indexed documents resembling (or containing) query documents.
    Query(QueryArgs),
    /// Add a new sweep: new and changed documents get new DocIds, joined to the clusters.
    Add(AddArgs),
    /// Remove documents by external id (every version): queries, clusters and sweeps no
    /// longer see them, and merges drop them.
    Remove(RemoveArgs),
    /// Merge every segment of the index into one (dropping removed documents).
    Merge(MergeArgs),
}

/// `fimdup index remove`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fimdup index remove idx https://example.com/a https://example.com/b
  fimdup index remove idx --ids-file gone.txt --json

Every version of each external id is marked removed in a new generation (a tombstone list);
the segments are not rewritten until they are merged. The clusters the documents were in are
split into what remains connected. Takes the writer lock like `index add`.")]
pub struct RemoveArgs {
    /// Index directory.
    pub index: PathBuf,
    /// External ids to remove.
    pub ids: Vec<String>,
    /// Also the external ids in this file, one a line.
    #[arg(long, value_name = "FILE")]
    pub ids_file: Option<PathBuf>,
    #[command(flatten)]
    pub wait: WaitArgs,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// How long a writer waits for the index's writer lock.
#[derive(clap::Args, Debug)]
pub struct WaitArgs {
    /// When another process is writing the index, wait up to this many seconds for it to
    /// finish before giving up (exit 2).
    #[arg(long, default_value_t = 0, value_name = "SECONDS")]
    pub wait: u64,
}

impl WaitArgs {
    /// The wait.
    pub fn duration(&self) -> Duration {
        Duration::from_secs(self.wait)
    }
}

/// `fimdup index merge`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fimdup index merge idx

`index add` merges segments of similar size by itself (log-structured, 8 at a time); `merge`
forces one segment of everything, without the removed documents. Readers keep the previous
generation until the new one is complete. Takes the writer lock like `index add`.

The merged postings are built in memory. Under --memory-budget a merge that would not fit
stops before it starts (exit 2) saying how much it needs; `index add` under a budget leaves
such a merge of its merge policy for `index merge` (and says so).")]
pub struct MergeArgs {
    /// Index directory.
    pub index: PathBuf,
    /// Bound on the merge's memory, e.g. 4GiB: a merge that needs more is refused before it
    /// starts (exit 2) [default: no limit].
    #[arg(long, value_name = "SIZE")]
    pub memory_budget: Option<fimdup::spill::MemoryBudget>,
    #[command(flatten)]
    pub wait: WaitArgs,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// `fimdup index build`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fimdup index build docs.jsonl --out idx --tag 2026-11-01
  fimdup index build pages.warc.gz --html --scheme k-mins --size 128 --threshold 0.8 --out idx
  fimdup index build docs.jsonl --containment --keep-sources --out idx
  fimdup index build docs.jsonl --out idx --memory-budget 4GiB --tmp-dir /scratch

The index is held in memory while it is built. Under --memory-budget the corpus is sketched
to a temporary images file in --tmp-dir first; when the index of that many documents cannot
fit in the budget the build stops there (exit 2) saying how much it needs, and otherwise the
peak stays within the budget plus about 256 MiB. The index is the same either way.")]
pub struct BuildArgs {
    /// Corpus: JSONL, CSV/TSV, plain lines, a directory, or WARC (any of them .gz).
    pub input: PathBuf,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// Resemblance threshold of the clusters kept in the index (and of the LSH bands).
    #[arg(long, default_value_t = IndexConfig::default().threshold, value_name = "T")]
    pub threshold: f64,
    /// Also keep a mod-m image per document (modulus --containment-modulus) so that
    /// containment can be estimated whatever --scheme is.
    #[arg(long)]
    pub containment: bool,
    /// Modulus of the containment images.
    #[arg(
        long,
        default_value_t = IndexConfig::default().containment_modulus,
        value_name = "M"
    )]
    pub containment_modulus: u64,
    /// Record the corpus path and position of every document, for `query --exact`.
    #[arg(long)]
    pub keep_sources: bool,
    /// Tag of this sweep (e.g. the crawl date) [default: sweep-1].
    #[arg(long, value_name = "T")]
    pub tag: Option<String>,
    /// Index directory (created; an existing index there gets a new generation).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub spill: SpillArgs,
    #[command(flatten)]
    pub wait: WaitArgs,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// `fimdup index query`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fimdup index query idx page.html --threshold 0.8 --top 5
  cat page.txt | fimdup index query idx - --json
  fimdup index query idx --jsonl queries.jsonl --measure containment --threshold 0.9")]
pub struct QueryArgs {
    /// Index directory.
    pub index: PathBuf,
    /// Query documents: files (each one document), `-` for standard input.
    pub docs: Vec<PathBuf>,
    /// Many queries in a JSONL file, or a Parquet file or directory of Parquet files (fields
    /// or columns --text-field, --id-field; `.zst`/`.gz` JSONL decompressed).
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
    /// JSONL field holding the text.
    #[arg(long, default_value_t = CorpusConfig::default().text_field)]
    pub text_field: String,
    /// JSONL field holding the id.
    #[arg(long, default_value_t = CorpusConfig::default().id_field)]
    pub id_field: String,
    /// Report documents whose estimated measure is at least T.
    #[arg(long, default_value_t = QueryOptions::default().threshold, value_name = "T")]
    pub threshold: f64,
    /// resemblance, or containment of the query in the document (needs mod-m images).
    #[arg(
        long,
        default_value_t = QueryOptions::default().measure,
        value_name = "resemblance|containment"
    )]
    pub measure: Measure,
    /// Keep the best N documents per query.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Candidates from the LSH band table (positional schemes) instead of the context.
    #[arg(long)]
    pub lsh: bool,
    /// Also compute the exact measure from the sources (index built with --keep-sources).
    #[arg(long)]
    pub exact: bool,
    /// Print the results as JSON on stdout (default: TSV query, doc_id, ext_id, estimate).
    #[arg(long)]
    pub json: bool,
}

/// `fimdup index add`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fimdup index add idx crawl-2026-12.jsonl --tag 2026-12-01
  fimdup index add idx crawl.jsonl --json > lost-and-found.json
  fimdup index add idx new-pages.jsonl --batch

With --batch, INPUT is a batch of new documents (a day's new pages) and nothing is lost.
Otherwise INPUT is the full new sweep: indexed external ids absent from it are reported as lost, each
with the most similar document of the new sweep (its probable new location). Lost documents
stay in the index, tagged with the sweep they were last seen in. The text and sketch options
are the index's own.

One writer at a time: `add` takes the index's writer lock (the file INDEX/LOCK) before it
reads the index and keeps it until the new generation is in place; a second writer waits up to
--wait seconds, then exits 2 naming the holder's pid. Queries never wait.

Under --memory-budget the new sweep is sketched to a temporary images file in --tmp-dir first;
when the index with its documents cannot fit in the budget `add` stops there (exit 2, the index
unchanged) saying how much it needs.")]
pub struct AddArgs {
    /// Index directory.
    pub index: PathBuf,
    /// The new sweep (a corpus).
    pub input: PathBuf,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub spill: SpillArgs,
    /// Tag of this sweep [default: sweep-<number>].
    #[arg(long, value_name = "T")]
    pub tag: Option<String>,
    /// INPUT is a batch of new documents, not the full new sweep: nothing is reported lost,
    /// and the next full sweep reports as lost what the full sweep before it and the batches
    /// since held and it lacks.
    #[arg(long)]
    pub batch: bool,
    #[command(flatten)]
    pub wait: WaitArgs,
    /// Print the summary and the lost-and-found report as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.cmd {
        Cmd::Build(a) => build(a),
        Cmd::Query(a) => query(a),
        Cmd::Add(a) => add(a),
        Cmd::Remove(a) => remove(a),
        Cmd::Merge(a) => merge(a),
    }
}

fn remove(a: RemoveArgs) -> anyhow::Result<()> {
    let t0 = Instant::now();
    let mut ids = a.ids.clone();
    if let Some(f) = &a.ids_file {
        let text = std::fs::read_to_string(f).map_err(|e| fimdup::Error::io(f, e))?;
        ids.extend(text.lines().filter(|l| !l.is_empty()).map(String::from));
    }
    anyhow::ensure!(!ids.is_empty(), "give external ids or --ids-file FILE");
    let (mut idx, lock) = Index::open_for_write(&a.index, a.wait.duration())?;
    let rep = idx.remove(&ids)?;
    let generation = idx.save_locked(&lock)?;
    let secs = t0.elapsed().as_secs_f64();
    if a.json {
        print_json(&serde_json::json!({
            "index": a.index,
            "generation": generation,
            "removed": rep.removed,
            "unknown": rep.unknown,
            "clusters": rep.clusters,
            "removed_total": idx.deleted_count(),
            "seconds": secs,
        }))?;
    }
    eprintln!(
        "removed {} documents ({} ids unknown), {} clusters in {:.2}s -> {} (generation {})",
        rep.removed,
        rep.unknown.len(),
        rep.clusters,
        secs,
        a.index.display(),
        generation
    );
    Ok(())
}

fn merge(a: MergeArgs) -> anyhow::Result<()> {
    let t0 = Instant::now();
    let spill = fimdup::spill::SpillConfig::new(a.memory_budget, None)?;
    let (mut idx, lock) = Index::open_for_write_with(&a.index, a.wait.duration(), &spill)?;
    let rep = idx.merge_all_within(a.memory_budget)?;
    let generation = idx.save_locked(&lock)?;
    let secs = t0.elapsed().as_secs_f64();
    if a.json {
        print_json(&serde_json::json!({
            "index": a.index,
            "generation": generation,
            "segments_before": rep.segments_before,
            "segments_after": rep.segments_after,
            "documents_rewritten": rep.documents_rewritten,
            "seconds": secs,
        }))?;
    }
    eprintln!(
        "merged {} segments into {} ({} documents rewritten) in {:.2}s -> {} (generation {})",
        rep.segments_before,
        rep.segments_after,
        rep.documents_rewritten,
        secs,
        a.index.display(),
        generation
    );
    Ok(())
}

impl BuildArgs {
    /// The library's build options for these flags.
    pub fn config(&self) -> IndexConfig {
        IndexConfig {
            threshold: self.threshold,
            containment: self.containment,
            containment_modulus: self.containment_modulus,
            keep_sources: self.keep_sources,
        }
    }
}

impl QueryArgs {
    /// The library's query options for these flags.
    pub fn options(&self) -> QueryOptions {
        QueryOptions {
            threshold: self.threshold,
            measure: self.measure,
            top: self.top,
            candidates: if self.lsh {
                Candidates::Lsh
            } else {
                Candidates::Context
            },
            exact: self.exact,
        }
    }
}

fn build(a: BuildArgs) -> anyhow::Result<()> {
    let t0 = Instant::now();
    let cfg = a.pipeline.config()?;
    let icfg = a.config();
    let spill = a.spill.config()?;
    let pb = progress(None, "indexing");
    let (idx, rep) = Index::build_with(&a.input, &cfg, icfg, a.tag.as_deref(), &spill, &|n| {
        pb.set_position(n)
    })?;
    pb.finish_and_clear();
    let lock = WriteLock::acquire(&a.out, a.wait.duration())?;
    let generation = idx.save_locked(&lock)?;
    let secs = t0.elapsed().as_secs_f64();
    if a.json {
        print_json(&serde_json::json!({
            "input": a.input,
            "index": a.out,
            "generation": generation,
            "documents": rep.documents,
            "stored": rep.added,
            "duplicate_ids_unchanged": rep.unchanged,
            "renamed_ids": rep.renamed_ids,
            "skipped_oversized": rep.skipped_oversized,
            "clusters": rep.clusters,
            "threshold": a.threshold,
            "bands": idx.bands(),
            "params": idx.params(),
            "seconds": secs,
        }))?;
    }
    eprintln!(
        "indexed {} documents ({} stored, {} clusters at t={}{}) in {:.2}s -> {} (generation {})",
        rep.documents,
        rep.added,
        rep.clusters,
        a.threshold,
        notes(&rep),
        secs,
        a.out.display(),
        generation
    );
    Ok(())
}

fn add(a: AddArgs) -> anyhow::Result<()> {
    let t0 = Instant::now();
    let spill = a.spill.config()?;
    let (mut idx, lock) = Index::open_for_write_with(&a.index, a.wait.duration(), &spill)?;
    let pb = progress(None, "adding");
    let add = if a.batch {
        Index::add_batch_corpus_with
    } else {
        Index::add_corpus_with
    };
    let rep = add(
        &mut idx,
        &a.input,
        &a.corpus.config(),
        a.tag.as_deref(),
        &spill,
        &|n| pb.set_position(n),
    )?;
    pb.finish_and_clear();
    let generation = idx.save_locked(&lock)?;
    let secs = t0.elapsed().as_secs_f64();
    let found = rep.lost.iter().filter(|l| l.found.is_some()).count();
    if a.json {
        let lost: Vec<_> = rep
            .lost
            .iter()
            .map(|l| {
                serde_json::json!({
                    "doc": l.doc,
                    "ext_id": l.ext_id,
                    "found": l.found.as_ref().map(|(d, e, s)| serde_json::json!({
                        "doc": d, "ext_id": e, "resemblance": s
                    })),
                })
            })
            .collect();
        print_json(&serde_json::json!({
            "index": a.index,
            "generation": generation,
            "tag": rep.tag,
            "documents": rep.documents,
            "added": rep.added,
            "unchanged": rep.unchanged,
            "renamed_ids": rep.renamed_ids,
            "skipped_oversized": rep.skipped_oversized,
            "merges": rep.merges,
            "segment_merges": rep.segment_merges,
            "clusters": rep.clusters,
            "total_documents": idx.len(),
            "lost": lost,
            "seconds": secs,
        }))?;
    }
    eprintln!(
        "sweep {}: {} documents, {} added, {} unchanged, {} cluster merges, {} lost ({} found elsewhere{}) in {:.2}s -> {} (generation {})",
        rep.tag,
        rep.documents,
        rep.added,
        rep.unchanged,
        rep.merges,
        rep.lost.len(),
        found,
        notes(&rep),
        secs,
        a.index.display(),
        generation
    );
    Ok(())
}

fn query(a: QueryArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        !a.docs.is_empty() || a.jsonl.is_some(),
        "give query documents (files or -) or --jsonl FILE"
    );
    let t0 = Instant::now();
    let idx = Index::open(&a.index)?;
    let t_open = t0.elapsed().as_secs_f64();
    let mut queries = Query::read_files(&a.docs)?;
    if let Some(j) = &a.jsonl {
        queries.extend(Query::read_corpus(j, &a.text_field, &a.id_field)?);
    }
    let t1 = Instant::now();
    let results = idx.query_texts(&queries, &a.options())?;
    let q_secs = t1.elapsed().as_secs_f64();
    if a.json {
        print_json(&serde_json::json!({
            "index": a.index,
            "measure": a.measure,
            "threshold": a.threshold,
            "queries": results,
        }))?;
    } else {
        println!(
            "query\tdoc_id\text_id\testimate{}",
            if a.exact { "\texact" } else { "" }
        );
        for r in &results {
            let n = &r.query;
            for h in &r.hits {
                match h.exact {
                    Some(x) => {
                        println!("{n}\t{}\t{}\t{:.6}\t{:.6}", h.doc, h.ext_id, h.estimate, x)
                    }
                    None => println!("{n}\t{}\t{}\t{:.6}", h.doc, h.ext_id, h.estimate),
                }
            }
        }
    }
    let empty = results.iter().filter(|r| r.empty_image).count();
    let total_hits: usize = results.iter().map(|r| r.hits.len()).sum();
    eprintln!(
        "{} queries ({} too short to sketch), {} hits, index of {} documents opened in {:.3}s, queries answered in {:.3} ms each",
        queries.len(),
        empty,
        total_hits,
        idx.len(),
        t_open,
        1000.0 * q_secs / queries.len().max(1) as f64
    );
    Ok(())
}

/// [`input_notes`] of a sweep.
fn notes(rep: &fimdup::index::AddReport) -> String {
    let mut n = input_notes(&fimdup::corpus::CorpusStats {
        renamed_ids: rep.renamed_ids,
        skipped_oversized: rep.skipped_oversized,
        ..Default::default()
    });
    let m = &rep.segment_merges;
    if m.deferred > 0 {
        n.push_str(&format!(
            "; a segment merge left for `index merge`: it needs {} MiB, more than the memory budget",
            m.deferred_needs.div_ceil(1 << 20)
        ));
    }
    n
}
