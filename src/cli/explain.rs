//! `fimdup explain`: why a pair of documents was found or missed.

use std::io::IsTerminal;
use std::path::PathBuf;

use fimdup::cluster::{ClusterConfig, JobOptions, Measure, Method};
use fimdup::explain::{find_pair, render, Doc, Explainer};
use fimdup::sketch::Scheme;

use super::common::{print_json, PipelineArgs};

/// Why a pair was found or missed: exact resemblance and containments, the estimate from
/// the images, the shared shingles and where they occur, and the two CANONICAL texts (what
/// shingles are cut from) side by side with the shared passages marked.
///
/// The two documents are two files (each one document), or two ids of a corpus (--corpus,
/// --ids). With --method, says whether that method pairs the two documents at --threshold
/// (or --min-common) and why: concept / union-find: shared image elements against k;
/// lsh: the bands and which collide; super-shingle: the shared super shingles; exact: the
/// exact resemblance. The method runs on the two documents alone: what depends on a corpus
/// (--max-df on a corpus, caps, center clustering, verification) is not visible.
///
/// Terminal output is coloured when stdout is a terminal and NO_COLOR is unset; otherwise
/// shared passages are written between [[ and ]].
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fimdup explain a.txt b.txt --shingle-len 3
  fimdup explain --corpus datasets/default/docs.jsonl --ids d0000,d0280 --html --method lsh --threshold 0.8
  fimdup explain a.html b.html --html --json
  fimdup explain a.txt b.txt --html-out pair.html")]
pub struct Args {
    /// First document (a file).
    #[arg(
        value_name = "A",
        required_unless_present = "corpus",
        conflicts_with = "corpus"
    )]
    pub a: Option<PathBuf>,
    /// Second document (a file).
    #[arg(
        value_name = "B",
        required_unless_present = "corpus",
        conflicts_with = "corpus"
    )]
    pub b: Option<PathBuf>,
    /// A corpus (any input format fimdup reads) holding the two documents of --ids.
    #[arg(long, value_name = "CORPUS", requires = "ids")]
    pub corpus: Option<PathBuf>,
    /// The ids of the two documents in --corpus.
    #[arg(long, value_name = "ID1,ID2", requires = "corpus")]
    pub ids: Option<String>,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// Say whether this method pairs the two documents, and why.
    #[arg(long, value_name = "concept|union-find|lsh|super-shingle|exact")]
    pub method: Option<Method>,
    /// Resemblance threshold in [0, 1] of --method, translated to its own k [default: 0.8].
    #[arg(
        long,
        value_name = "t",
        conflicts_with = "min_common",
        requires = "method"
    )]
    pub threshold: Option<f64>,
    /// The method's absolute k instead of --threshold.
    #[arg(long, value_name = "k", requires = "method")]
    pub min_common: Option<u32>,
    /// What --threshold measures (as for `fimdup cluster`).
    #[arg(
        long,
        default_value_t = JobOptions::default().measure,
        value_name = "resemblance|containment"
    )]
    pub measure: Measure,
    /// Drop image elements held by more than D documents (of the two).
    #[arg(long, value_name = "D")]
    pub max_df: Option<u32>,
    /// The methods' own options (as for `fimdup cluster`).
    #[command(flatten)]
    pub method_options: super::method_args::MethodArgs,
    /// Write a self-contained HTML page of the explanation to FILE.
    #[arg(long, value_name = "FILE")]
    pub html_out: Option<PathBuf>,
    /// Print the explanation as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The clustering configuration `fimdup cluster` would use for the same options.
fn cluster_config(
    args: &Args,
    method: Method,
    pipeline: &fimdup::sketch::pipeline::PipelineConfig,
) -> anyhow::Result<ClusterConfig> {
    let opts = JobOptions {
        method,
        threshold: args.threshold,
        min_common: args.min_common,
        measure: args.measure,
        max_df: args.max_df,
        options: args.method_options.0.clone(),
        ..JobOptions::default()
    };
    Ok(*opts.builder(pipeline.clone())?.build()?.cluster_config())
}

pub fn run(args: Args) -> anyhow::Result<()> {
    // The scheme `fimdup cluster --method M` sketches with when none is given.
    let default = args.method.map_or(Scheme::BottomK, Method::default_scheme);
    let pipeline = args.pipeline.config_or(default)?;
    let explainer = Explainer::new(&pipeline)?;
    let cluster = match args.method {
        Some(m) => Some(cluster_config(&args, m, &pipeline)?),
        None => None,
    };
    let (ids, texts): ([String; 2], [String; 2]) = match (&args.corpus, &args.ids) {
        (Some(corpus), Some(ids)) => {
            let v: Vec<&str> = ids.split(',').map(str::trim).collect();
            anyhow::ensure!(
                v.len() == 2 && v.iter().all(|s| !s.is_empty()),
                "--ids takes two ids separated by a comma, not {ids:?}"
            );
            let [a, b] = find_pair(corpus, &pipeline.corpus, [v[0], v[1]])?;
            ([a.ext_id, b.ext_id], [a.text, b.text])
        }
        _ => {
            let (Some(pa), Some(pb)) = (&args.a, &args.b) else {
                anyhow::bail!("give two files A B, or --corpus C --ids ID1,ID2");
            };
            let read = |p: &PathBuf| -> anyhow::Result<String> {
                let bytes = fimdup::io::read_all(p)?;
                Ok(String::from_utf8_lossy(&bytes).into_owned())
            };
            (
                [pa.display().to_string(), pb.display().to_string()],
                [read(pa)?, read(pb)?],
            )
        }
    };
    let a = Doc {
        id: &ids[0],
        text: &texts[0],
    };
    let b = Doc {
        id: &ids[1],
        text: &texts[1],
    };
    let e = match &cluster {
        Some(c) => explainer.explain_method(a, b, c)?,
        None => explainer.explain(a, b),
    };
    if let Some(path) = &args.html_out {
        fimdup::io::write_atomic(path, render::html_page(&e).as_bytes())?;
        eprintln!("explanation written to {}", path.display());
    }
    if args.json {
        print_json(&serde_json::to_value(&e)?)?;
    } else {
        let color = std::io::stdout().is_terminal()
            && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
        print!("{}", render::terminal(&e, color));
    }
    Ok(())
}
