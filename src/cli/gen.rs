//! `fimdup gen`: writes a synthetic corpus (`docs.jsonl`), its exact truth (`truth.csv`) and
//! the parameters used (`params.json`).

use std::path::PathBuf;

use fimdup::eval::similarity::TruthTokenizer;
use fimdup::gen::{generate_to_dir, read_config, GenConfig};

/// Generate a synthetic corpus with known near-duplicates and its truth.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fimdup gen --out out/gen --docs 2000 --seed 1
  fimdup gen --out out/gen-html --docs 500 --html
  fimdup gen --out out/custom --config my-params.json   # start from datasets/default/params.json
  fimdup gen --out out/big --config eval/peers/corpus.json --docs 1000000 --stream
  fimdup gen --out out/gen-alnum --truth-tokenizer alnum   # truth on alphanumeric runs")]
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
    /// Write documents as they are generated, in bounded memory (needed beyond 1,000,000
    /// documents): group kinds interleaved, file order a windowed shuffle, truth only within
    /// groups (no corpus-wide join). Same as `"stream": true` in the config.
    #[arg(long)]
    stream: bool,
    /// The words truth.csv is computed on, all lowercased per character; a text starting with
    /// `<` has every <...> tag replaced by a space first. word: runs of alphanumeric characters
    /// and `_` (\w+). alnum: runs of alphanumeric characters and combining marks
    /// (General_Category M*). whitespace: runs of non-whitespace, punctuation kept. unicode:
    /// UAX #29 words (unicode_words). word is the generated word sequence itself; any other
    /// re-tokenizes each written text. Same as "truth_tokenizer" in the config [default: word,
    /// or the config's].
    #[arg(long, value_name = "word|alnum|whitespace|unicode")]
    truth_tokenizer: Option<TruthTokenizer>,
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
    if args.stream {
        cfg.stream = true;
    }
    if let Some(t) = args.truth_tokenizer {
        cfg.truth_tokenizer = t;
    }
    cfg.validate()?;
    let summary = generate_to_dir(&cfg, &args.out)?;
    let kinds = &summary.pairs_by_kind;
    if args.json {
        let v = serde_json::json!({
            "out": args.out.display().to_string(),
            "docs": summary.docs,
            "truth_pairs": summary.truth_pairs,
            "pairs_by_kind": kinds,
            "seed": cfg.seed,
        });
        println!("{v}");
    }
    eprintln!(
        "fimdup gen: {} docs, {} truth pairs ({}) -> {}",
        summary.docs,
        summary.truth_pairs,
        kinds
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", "),
        args.out.display()
    );
    Ok(())
}
