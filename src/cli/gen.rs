//! `fimdup gen`: writes a synthetic corpus (`docs.jsonl`), its exact truth (`truth.csv`) and
//! the parameters used (`params.json`).

use std::path::PathBuf;

use fimdup::gen::{generate, read_config, write_corpus, GenConfig};

/// Generate a synthetic corpus with known near-duplicates and its truth.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fimdup gen --out out/gen --docs 2000 --seed 1
  fimdup gen --out out/gen-html --docs 500 --html
  fimdup gen --out out/custom --config my-params.json   # start from datasets/default/params.json")]
pub struct Args {
    /// Output directory (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Number of documents [default: 1500, or the config's].
    #[arg(long)]
    docs: Option<usize>,
    /// Seed [default: 20090101, or the config's].
    #[arg(long)]
    seed: Option<u64>,
    /// Render documents as HTML pages.
    #[arg(long)]
    html: bool,
    /// Generator parameters (JSON, e.g. datasets/default/params.json); flags override it.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Print a JSON summary on stdout.
    #[arg(long)]
    json: bool,
}

/// Runs `fimdup gen`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let mut cfg = match &args.config {
        Some(p) => read_config(p)?,
        None => GenConfig::default(),
    };
    if let Some(n) = args.docs {
        cfg.docs = n;
    }
    if let Some(s) = args.seed {
        cfg.seed = s;
    }
    if args.html {
        cfg.html = true;
    }
    cfg.validate()?;
    let corpus = generate(&cfg)?;
    write_corpus(&args.out, &corpus)?;
    let mut kinds: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for r in &corpus.truth {
        *kinds.entry(r.kind.as_str()).or_default() += 1;
    }
    if args.json {
        let v = serde_json::json!({
            "out": args.out.display().to_string(),
            "docs": corpus.docs.len(),
            "truth_pairs": corpus.truth.len(),
            "pairs_by_kind": kinds,
            "seed": cfg.seed,
        });
        println!("{v}");
    }
    eprintln!(
        "fimdup gen: {} docs, {} truth pairs ({}) -> {}",
        corpus.docs.len(),
        corpus.truth.len(),
        kinds
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", "),
        args.out.display()
    );
    Ok(())
}
