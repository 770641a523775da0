//! `fimdup sketch`: corpus -> images file.

use std::path::PathBuf;
use std::time::Instant;

use fimdup::sketch::{sketch_to_file, Shard};

use super::common::{input_notes, print_json, progress, PipelineArgs, SpillArgs};

/// Canonicalize, shingle and sketch every document of a corpus into an images file.
///
/// Writes IMAGES (a binary file with every parameter in its header, written as the
/// documents come) and IMAGES.ids.tsv (DocId -> external id). With --shard i/N only the
/// documents at positions i, i + N, i + 2N, ... of the corpus are written, under the DocIds
/// they have in the whole corpus; `context` and `cluster` take the N shard files together.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fimdup sketch datasets/default/docs.jsonl --out out/default.img
  fimdup sketch pages.warc.gz --html --scheme k-mins --size 200 --out out/pages.img
  fimdup sketch corpus.csv --text-column body --id-column url --unit char --shingle-len 10 --out out/c.img
  fimdup sketch big.jsonl --shard 0/2 --out out/big.0.img && fimdup sketch big.jsonl --shard 1/2 --out out/big.1.img")]
pub struct Args {
    /// Corpus: JSONL, CSV/TSV, plain lines, a directory, or WARC (any of them .gz).
    pub input: PathBuf,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// Output images file.
    #[arg(long)]
    pub out: PathBuf,
    /// Sketch only part i of N of the corpus (the documents at positions i, i + N, ...; their
    /// DocIds are their positions, so shards never collide).
    #[arg(long, value_name = "i/N", default_value = "0/1")]
    pub shard: Shard,
    #[command(flatten)]
    pub spill: SpillArgs,
    #[command(flatten)]
    pub dist: super::common::DistArgs,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let cfg = args.pipeline.config()?;
    // Checked like everywhere else; sketching streams its images out (a distributed run
    // spills the batches that wait for earlier ones on process 0).
    #[cfg_attr(not(feature = "distributed"), allow(unused_variables))]
    let spill = args.spill.config()?;
    let t0 = Instant::now();
    #[cfg(feature = "distributed")]
    let (local, distributed) = match args.dist.topology()? {
        Some(topo) => {
            match fimdup::dataflow::sketch_to_file_on(
                &args.input,
                &cfg,
                &args.out,
                args.shard,
                &topo,
                &spill,
            )? {
                Some(d) => (
                    Some((d.stats, d.written)),
                    Some(serde_json::json!({
                        "processes": topo.processes(),
                        "workers": topo.workers(),
                        "per_process": d.processes,
                    })),
                ),
                None => {
                    super::common::share_done(&topo, &args.out);
                    return Ok(());
                }
            }
        }
        None => (None, None),
    };
    #[cfg(not(feature = "distributed"))]
    let (local, distributed): (_, Option<serde_json::Value>) = {
        args.dist.refuse()?;
        (None, None)
    };
    let (stats, written) = match local {
        Some(r) => r,
        None => {
            let pb = progress(None, "sketching");
            let r = sketch_to_file(&args.input, &cfg, &args.out, args.shard, &|n| {
                pb.set_position(n)
            });
            pb.finish_and_clear();
            r?
        }
    };
    let secs = t0.elapsed().as_secs_f64();
    let s = &stats;
    if args.json {
        print_json(&serde_json::json!({
            "input": args.input,
            "out": args.out,
            "documents": s.corpus.documents,
            "shard": args.shard.to_string(),
            "written": written,
            "empty_documents": s.corpus.empty,
            "short_documents": s.short,
            "empty_images": s.empty_images,
            "lossy_utf8": s.corpus.lossy_utf8,
            "skipped_bad_lines": s.corpus.skipped_bad_lines,
            "skipped_oversized": s.corpus.skipped_oversized,
            "renamed_ids": s.corpus.renamed_ids,
            "tokens": s.tokens,
            "bytes": s.corpus.text_bytes,
            "scheme": cfg.sketch.scheme.name(),
            "size": cfg.sketch.size,
            "shingle_len": cfg.shingle.len,
            "seconds": secs,
            "distributed": distributed,
        }))?;
    }
    eprintln!(
        "sketched {} documents (shard {}: {} written; {} empty, {} shorter than {} {}s, {} lossy UTF-8{}) with {} n={} in {:.2}s -> {}",
        s.corpus.documents,
        args.shard,
        written,
        s.corpus.empty,
        s.short,
        cfg.shingle.len,
        cfg.text.unit.name(),
        s.corpus.lossy_utf8,
        input_notes(&s.corpus),
        cfg.sketch.scheme.name(),
        if cfg.sketch.scheme == fimdup::sketch::Scheme::ModM { cfg.sketch.modulus as usize } else { cfg.sketch.size },
        secs,
        args.out.display()
    );
    Ok(())
}
