//! `fimdup dedup`: corpus -> the kept documents in the input's format, removed.csv,
//! clusters.jsonl, summary.json.

use std::path::PathBuf;

use fimdup::corpus::remote::OutDir;
use fimdup::dedup::{DedupOptions, Keep, OutFormat};

use super::cluster::JobArgs;
use super::common::{input_notes, print_json, progress};

/// Remove near-duplicates from a corpus: the corpus back without them, in its format.
///
/// Documents are taken in keep order (--keep; default: input order) and a document is kept
/// unless it resembles an already kept document at the threshold or above. So no two kept
/// documents resemble each other at the threshold (exactly, with --verify exact), and every
/// removed document names a kept one it resembles (removed.csv: id, representative,
/// cluster, score, score_kind): no transitive chain removes a document that resembles
/// nothing kept. --per-cluster keeps one document per cluster of the method instead
/// (union-find based tools do this). --against INDEX also removes documents that resemble
/// a document of an existing index (`fimdup index build`).
///
/// Writes OUT/kept.<ext> (the kept records as the input wrote them, in input order and
/// compression; a directory corpus gives OUT/kept/), OUT/removed.csv, OUT/clusters.jsonl and
/// OUT/summary.json (documents, kept, removed by reason). The input is read twice (sketch,
/// then write), plus once for --against and once for a --keep other than first.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fimdup dedup datasets/default/docs.jsonl --out out/dedup
  fimdup dedup docs.jsonl.zst --threshold 0.7 --verify exact --keep longest --out out/clean
  fimdup dedup data/ --text-column content --keep field:meta.date:desc --out out/clean
  fimdup dedup new.jsonl --against out/index --out out/new-only
  fimdup dedup new.jsonl --against out/index --add --tag batch-7 --out out/new-only
  fimdup dedup docs.jsonl --method union-find --per-cluster --out out/uf-per-cluster")]
pub struct Args {
    /// The corpus (any format `fimdup sketch` reads).
    #[arg(value_name = "INPUT")]
    pub input: PathBuf,
    #[command(flatten)]
    pub job: JobArgs,
    /// Which document of near-duplicates is kept: first (input order), longest, shortest,
    /// or field:NAME[:asc|:desc] (a JSONL field, CSV/TSV or Parquet column; nested a.b).
    #[arg(long, default_value_t = DedupOptions::default().keep, value_name = "POLICY")]
    pub keep: Keep,
    /// Keep one document per cluster of the method instead of the greedy choice.
    #[arg(long)]
    pub per_cluster: bool,
    /// Also remove documents resembling a document of this index (`fimdup index build`).
    #[arg(long, value_name = "INDEX")]
    pub against: Option<PathBuf>,
    /// Then add the kept documents to the --against index (one new segment, a batch sweep
    /// that loses nothing), under its writer lock taken before the index is read.
    #[arg(long, requires = "against")]
    pub add: bool,
    /// Tag of the batch added with --add [default: sweep-<number>].
    #[arg(long, value_name = "T", requires = "add")]
    pub tag: Option<String>,
    /// With --add, when another process is writing the index, wait up to this many seconds
    /// for it to finish before giving up (exit 2).
    #[arg(long, default_value_t = 0, value_name = "SECONDS")]
    pub wait: u64,
    /// The format of the kept documents.
    #[arg(
        long,
        value_enum,
        default_value_t = DedupOptions::default().out_format,
        value_name = "same|jsonl|parquet"
    )]
    pub out_format: OutFormat,
    /// Output directory.
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub dist: super::common::DistArgs,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

impl Args {
    /// The library's named options for the deduplication's own flags.
    pub fn options(&self) -> DedupOptions {
        DedupOptions {
            keep: self.keep.clone(),
            per_cluster: self.per_cluster,
            against: self.against.clone(),
            out_format: self.out_format,
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let dedup = args.options().builder(args.job.builder()?).build()?;
    #[cfg(not(feature = "distributed"))]
    args.dist.refuse()?;
    if args.add {
        return run_adding(&args, &dedup);
    }
    let dir = OutDir::new(&args.out, args.job.spill.tmp_dir.as_deref())?;
    #[cfg(feature = "distributed")]
    if let Some(topo) = args.dist.topology()? {
        let out = fimdup::dataflow::run_dedup(&dedup, &args.input, dir.path(), &topo)
            .map_err(|e| dir.name_urls(e))?;
        dir.publish()?;
        return match out {
            Some(out) => report(&args, &out),
            None => {
                super::common::share_done(&topo, &args.out);
                Ok(())
            }
        };
    }
    let pb = progress(None, "sketching");
    let out = dedup.run(&args.input, dir.path(), &|n| pb.set_position(n));
    pb.finish_and_clear();
    let out = out.map_err(|e| dir.name_urls(e))?;
    dir.publish()?;
    report(&args, &out)
}

/// `--against INDEX --add`: the index opened under its writer lock, the batch deduplicated
/// against it, the kept documents added, the new generation saved before the lock goes.
fn run_adding(args: &Args, dedup: &fimdup::dedup::Dedup) -> anyhow::Result<()> {
    #[cfg(feature = "distributed")]
    anyhow::ensure!(
        args.dist.topology()?.is_none(),
        "--add runs in one process (it holds the index's writer lock)"
    );
    let dir = args.against.as_ref().expect("--add requires --against");
    let pb = progress(None, "sketching");
    let done = dedup.run_adding_to_index(
        &args.input,
        &args.out,
        args.tag.as_deref(),
        std::time::Duration::from_secs(args.wait),
        &|n| pb.set_position(n),
    );
    pb.finish_and_clear();
    let (out, added) = done?;
    report(args, &out)?;
    eprintln!(
        "added {} kept documents to {} as sweep {} (generation {}, {} documents)",
        added.report.added,
        dir.display(),
        added.report.tag,
        added.generation,
        added.documents
    );
    Ok(())
}

/// Prints the summary.
fn report(args: &Args, out: &fimdup::dedup::DedupOutput) -> anyhow::Result<()> {
    let s = &out.summary;
    if args.json {
        print_json(&serde_json::to_value(s)?)?;
    }
    let r = &s.removed_by;
    eprintln!(
        "dedup ({}): {} documents, {} kept, {} removed ({} identical, {} lexically equivalent, {} near-duplicates, {} against the index{}) in {:.2}s -> {}",
        s.cluster.method,
        s.documents,
        s.kept,
        s.removed,
        r.identical,
        r.lexically_equivalent,
        r.near_duplicate,
        r.against_index,
        input_notes(&s.input_stats),
        s.seconds,
        args.out.join(s.kept_file.as_deref().unwrap_or_default()).display()
    );
    Ok(())
}
