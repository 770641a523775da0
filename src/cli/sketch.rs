//! `fimdup sketch`: corpus -> images file.

use std::path::PathBuf;
use std::time::Instant;

use fimdup::corpus::IdTableWriter;
use fimdup::sketch::pipeline::sketch_corpus;
use fimdup::DocId;

use super::common::{id_table_for, print_json, progress, PipelineArgs};

/// Canonicalize, shingle and sketch every document of a corpus into an images file.
///
/// Writes IMAGES (a binary file with every parameter in its header) and IMAGES.ids.tsv
/// (DocId -> external id).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fimdup sketch datasets/default/docs.jsonl --out out/default.img
  fimdup sketch pages.warc.gz --html --scheme k-mins --size 200 --out out/pages.img
  fimdup sketch corpus.csv --text-column body --id-column url --unit char --shingle-len 10 --out out/c.img")]
pub struct Args {
    /// Corpus: JSONL, CSV/TSV, plain lines, a directory, or WARC (any of them .gz).
    pub input: PathBuf,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// Output images file.
    #[arg(long)]
    pub out: PathBuf,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let cfg = args.pipeline.config()?;
    let t0 = Instant::now();
    let pb = progress(None, "sketching");
    let out = sketch_corpus(&args.input, &cfg, &|n| pb.set_position(n))?;
    pb.finish_and_clear();
    out.images.write(&args.out)?;
    let mut ids = IdTableWriter::create(&id_table_for(&args.out))?;
    for (i, e) in out.images.ext_ids.iter().enumerate() {
        ids.push(DocId(i as u32), e)?;
    }
    ids.commit()?;
    let secs = t0.elapsed().as_secs_f64();
    let s = &out.stats;
    if args.json {
        print_json(&serde_json::json!({
            "input": args.input,
            "out": args.out,
            "documents": s.corpus.documents,
            "empty_documents": s.corpus.empty,
            "short_documents": s.short,
            "empty_images": s.empty_images,
            "lossy_utf8": s.corpus.lossy_utf8,
            "skipped_bad_lines": s.corpus.skipped_bad_lines,
            "tokens": s.tokens,
            "bytes": s.corpus.text_bytes,
            "scheme": cfg.sketch.scheme.name(),
            "size": cfg.sketch.size,
            "shingle_len": cfg.shingle.len,
            "seconds": secs,
        }))?;
    }
    eprintln!(
        "sketched {} documents ({} empty, {} shorter than {} {}s, {} lossy UTF-8) with {} n={} in {:.2}s -> {}",
        s.corpus.documents,
        s.corpus.empty,
        s.short,
        cfg.shingle.len,
        cfg.text.unit.name(),
        s.corpus.lossy_utf8,
        cfg.sketch.scheme.name(),
        if cfg.sketch.scheme == fimdup::sketch::Scheme::ModM { cfg.sketch.modulus as usize } else { cfg.sketch.size },
        secs,
        args.out.display()
    );
    Ok(())
}
