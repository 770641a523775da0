//! `fimdup eval`: compares a method's pairs or clusters with labeled pairs and prints the
//! paper's five values, precision, recall, F1 and the false-duplicate clusters.

use std::path::PathBuf;

use fimdup::eval::similarity::TruthTokenizer;
use fimdup::eval::{EvalOptions, Prediction, Truth, TruthFormat};

/// Evaluate predicted duplicates against labeled pairs.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fimdup eval --truth datasets/default/truth.csv --pairs out/concept/pairs.csv
  fimdup eval --truth datasets/default/truth.csv --truth-rule 'resemblance>=0.8' \\
      --clusters out/concept/clusters.jsonl --corpus datasets/default/docs.jsonl --json
  fimdup eval --truth pan-pc-11/suspicious-documents --pairs out/pan/pairs.csv")]
pub struct Args {
    /// The truth: `truth.csv` of `fimdup gen` (needs a rule; default the ROMIP rule
    /// edit_similarity>0.85), any CSV or TSV with header a,b[,columns..], a headerless a,b
    /// list (every listed pair positive), a cluster assignment (JSONL {"id":..,"cluster":..}
    /// or CSV id,cluster) or a directory of PAN plagiarism XML files (see --truth-format).
    #[arg(long)]
    truth: PathBuf,
    /// How the truth is written: pairs, clusters, pan (a directory; implies --labeled-only),
    /// or auto: a directory is pan, *.jsonl or a CSV with header id,cluster is clusters,
    /// anything else pairs.
    #[arg(
        long,
        default_value_t = TruthFormat::default(),
        value_name = "auto|pairs|clusters|pan"
    )]
    pub(super) truth_format: TruthFormat,
    /// Which truth rows are duplicates: `<column><op><number>`, op one of > >= < <= =.
    #[arg(long)]
    pub(super) truth_rule: Option<String>,
    /// Predicted pairs (header a,b plus optional score columns).
    #[arg(
        long,
        conflicts_with = "clusters",
        required_unless_present = "clusters"
    )]
    pairs: Option<PathBuf>,
    /// Predicted clusters (JSONL: {"id":..,"docs":[..],"support":k} per line).
    #[arg(long)]
    clusters: Option<PathBuf>,
    /// The corpus (JSONL with id and text) to compute resemblance of cluster pairs that the
    /// truth does not list.
    #[arg(long)]
    corpus: Option<PathBuf>,
    /// The words of --corpus's exact resemblances (word 5-shingle Jaccard, for cluster pairs
    /// the truth gives no resemblance for), all lowercased per character; a text starting with
    /// `<` has every <...> tag replaced by a space first. word: runs of alphanumeric characters
    /// and `_` (\w+). alnum: runs of alphanumeric characters and combining marks
    /// (General_Category M*). whitespace: runs of non-whitespace, punctuation kept. unicode:
    /// UAX #29 words (unicode_words).
    #[arg(
        long,
        default_value_t = EvalOptions::default().truth_tokenizer,
        value_name = "word|alnum|whitespace|unicode",
        requires = "corpus"
    )]
    truth_tokenizer: TruthTokenizer,
    /// A cluster with a pair of resemblance below this is a false-duplicate cluster.
    #[arg(long, default_value_t = EvalOptions::default().floor)]
    floor: f64,
    /// How many of the worst false-duplicate clusters to list.
    #[arg(long, default_value_t = EvalOptions::default().examples)]
    examples: usize,
    /// Evaluate only the pairs the truth file lists (positive or negative): a predicted pair
    /// absent from the truth file is ignored, counted neither as found nor as a false
    /// positive. For truths that label only some pairs (e.g. answers against their source);
    /// always on for a pan truth, which labels only suspicious x source pairs.
    #[arg(long)]
    labeled_only: bool,
    /// Bootstrap confidence intervals: resample the labeled unit (the documents of --corpus,
    /// or its groups by --group-by; without --corpus the documents the truth and the
    /// prediction name) N times with replacement and give 95 % percentile intervals of
    /// precision, recall and F1. 0: none.
    #[arg(long, value_name = "N", default_value_t = EvalOptions::default().bootstrap)]
    bootstrap: usize,
    /// Seed of the bootstrap's resamples.
    #[arg(long, value_name = "S", default_value_t = EvalOptions::default().bootstrap_seed)]
    bootstrap_seed: u64,
    /// Resample groups instead of documents: FIELD of the --corpus records (a task, a
    /// source, a family: a JSONL field, or a CSV/TSV or Parquet column) names each
    /// document's group; a document without it is a group of its own.
    #[arg(long, value_name = "FIELD", requires_all = ["bootstrap", "corpus"])]
    group_by: Option<String>,
    /// Print a JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

impl Args {
    /// The library's named options for these flags.
    pub fn options(&self) -> EvalOptions {
        EvalOptions {
            labeled_only: self.labeled_only,
            floor: self.floor,
            examples: self.examples,
            corpus: self.corpus.clone(),
            truth_tokenizer: self.truth_tokenizer,
            bootstrap: self.bootstrap,
            bootstrap_seed: self.bootstrap_seed,
            group_by: self.group_by.clone(),
        }
    }
}

/// Runs `fimdup eval`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let opts = args.options();
    // The truth first: its errors come before those of the prediction.
    let truth = opts.load_truth(&Truth::File {
        path: args.truth.clone(),
        format: args.truth_format,
        rule: args.truth_rule.clone(),
    })?;
    let pred = match (&args.pairs, &args.clusters) {
        (Some(p), _) => Prediction::read_pairs_csv(p)?,
        (None, Some(c)) => Prediction::read_clusters_jsonl(c)?,
        (None, None) => anyhow::bail!("one of --pairs or --clusters is required"),
    };
    let ev = opts.evaluate(&pred, &truth)?;
    let fc = &ev.false_clusters;
    if args.json {
        let v = serde_json::to_value(&ev)?;
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        let mut rows: Vec<(&str, String)> = vec![
            ("pairs in the truth", ev.truth_pairs.to_string()),
            ("pairs found", ev.found.to_string()),
            ("unique to the truth", ev.unique_truth.to_string()),
            ("unique to ours", ev.unique_ours.to_string()),
            ("common", ev.common.to_string()),
            ("precision", format!("{:.4}", ev.precision)),
            ("recall", format!("{:.4}", ev.recall)),
            ("F1", format!("{:.4}", ev.f1)),
        ];
        if let Some(ap) = ev.average_precision {
            rows.push(("average precision", format!("{ap:.4}")));
        }
        let interval = |lo: Option<f64>, hi: Option<f64>| {
            lo.zip(hi)
                .map_or(String::new(), |(l, h)| format!("  [{l:.4}, {h:.4}]"))
        };
        println!(
            "truth: {} ({} format; positive: {})",
            ev.truth, ev.truth_format, ev.rule
        );
        if let Some(l) = &ev.listed {
            println!("labeled only: {l}");
        }
        for (k, v) in rows {
            let iv = match k {
                "precision" => interval(ev.precision_lo, ev.precision_hi),
                "recall" => interval(ev.recall_lo, ev.recall_hi),
                "F1" => interval(ev.f1_lo, ev.f1_hi),
                _ => String::new(),
            };
            println!("{k:<22}{v:>12}{iv}");
        }
        if let Some(b) = &ev.bootstrap {
            println!(
                "  (95 % percentile intervals: {} resamples of {} {}, seed {})",
                b.resamples,
                b.units,
                if b.unit == "documents" {
                    "documents"
                } else {
                    "groups"
                },
                b.seed
            );
        }
        match &fc {
            None => println!("false-duplicate clusters: n/a (pairs, not clusters)"),
            Some(r) => {
                println!(
                    "{:<22}{:>12}",
                    "false-dup. clusters",
                    format!("{} of {}", r.false_clusters, r.clusters)
                );
                println!(
                    "  (a pair with resemblance < {} in the cluster)",
                    args.floor
                );
                for e in &r.examples {
                    println!(
                        "  cluster {} ({} docs): {} ~ {} resemblance {:.3}, {} pairs below",
                        e.id, e.size, e.worst_a, e.worst_b, e.worst_resemblance, e.pairs_below
                    );
                }
                if r.unresolved_pairs > 0 {
                    println!(
                        "  {} cluster pairs have no known resemblance (pass --corpus)",
                        r.unresolved_pairs
                    );
                }
            }
        }
    }
    eprintln!(
        "fimdup eval: P {:.4} R {:.4} F1 {:.4}{} ({} found, {} in the truth)",
        ev.precision,
        ev.recall,
        ev.f1,
        ev.f1_lo
            .zip(ev.f1_hi)
            .map_or(String::new(), |(l, h)| format!(" [{l:.4}, {h:.4}]")),
        ev.found,
        ev.truth_pairs
    );
    Ok(())
}
