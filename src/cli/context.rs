//! `fimdup context`: images file -> inverted context in FIMI format.

use std::path::PathBuf;

use fimdup::context::{context_of_images, ContextConfig, Orientation};
use fimdup::corpus::IdTableWriter;
use fimdup::DocId;

use super::common::{id_table_for, print_json, SpillArgs};

/// Transpose images into the inverted shingle-by-document context (FIMI format).
///
/// With the default orientation each line is one image element listing the DocIds that hold
/// it (IK09); mining it with `fimdup mine --minsup k` gives the sets of documents sharing at
/// least k elements. Elements held by one document are dropped (they cannot join a cluster).
///
/// Several images files are read as one corpus: the N shards of `fimdup sketch --shard i/N`,
/// or whole files concatenated in the order given. The images are streamed; with
/// --memory-budget the context is built by sorted runs spilled to --tmp-dir and merged.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fimdup context out/default.img --out out/default.dat
  fimdup context out/default.img --max-df 1000 --orientation doc-rows --out out/docs.dat
  fimdup context out/big.0.img out/big.1.img --memory-budget 512MiB --out out/big.dat")]
pub struct Args {
    /// Images files made by `fimdup sketch` (the shards of one run, or whole files).
    #[arg(required = true, num_args = 1..)]
    pub images: Vec<PathBuf>,
    /// Drop elements held by more than D documents (B97 5.1: very common shingles).
    #[arg(long, value_name = "D")]
    pub max_df: Option<u32>,
    /// Drop elements held by fewer than this many documents.
    #[arg(long, default_value_t = ContextConfig::default().min_df)]
    pub min_df: u32,
    /// shingle-rows: a line per element listing DocIds; doc-rows: a line per document.
    #[arg(
        long,
        default_value_t = Orientation::default(),
        value_name = "shingle-rows|doc-rows"
    )]
    pub orientation: Orientation,
    /// Output FIMI file.
    #[arg(long)]
    pub out: PathBuf,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub spill: SpillArgs,
}

impl Args {
    /// The library's configuration for these flags.
    pub fn config(&self) -> ContextConfig {
        ContextConfig {
            min_df: self.min_df,
            max_df: self.max_df,
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let cfg = args.config();
    cfg.validate()?;
    let spill = args.spill.config()?;
    let (ctx, ids) = context_of_images(&args.images, &cfg, &spill)?;
    ctx.write_fimi(&args.out, args.orientation, &spill)?;
    let mut w = IdTableWriter::create(&id_table_for(&args.out))?;
    for (d, e) in ids.iter().enumerate() {
        w.push(DocId(d as u32), e)?;
    }
    w.commit()?;
    let s = ctx.stats();
    if args.json {
        print_json(&serde_json::to_value(s)?)?;
    }
    eprintln!(
        "context of {} documents: {} distinct elements, {} rows kept, {} held by fewer than {} documents dropped, {} held by more than {} dropped, largest row {} -> {}",
        s.documents,
        s.elements,
        s.rows,
        s.dropped_rare,
        args.min_df,
        s.dropped_common,
        args.max_df.map_or("-".to_string(), |d| d.to_string()),
        s.max_row,
        args.out.display()
    );
    Ok(())
}
