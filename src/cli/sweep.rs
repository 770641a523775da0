//! `fimdup sweep`: every method at every threshold, evaluated, plotted and reported.

use std::path::{Path, PathBuf};

use fimdup::cluster::{Measure, Method};
use fimdup::eval::similarity::TruthTokenizer;
use fimdup::eval::{ExternalSpec, TruthFormat};
use fimdup::report::sweep::SweepOutput;
use fimdup::report::{
    best_per_method, best_rows, run_sweep, series_rows, SweepOptions, SweepTruth,
};

use fimdup::cluster::Verify;

use super::common::{print_json, PipelineArgs};

/// Sweep the threshold for several methods against labeled pairs; write results.csv, the
/// plots (f1.svg, pr.svg, time.svg) and report.html / report.md.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fimdup sweep datasets/default/docs.jsonl --truth datasets/default/truth.csv --out out/sweep
  fimdup sweep docs.jsonl --truth truth.csv --truth-rule 'resemblance>=0.8' \\
      --methods concept,union-find --min-common 120:100:5 --out out/paper
  fimdup sweep docs.jsonl --truth pairs.csv --truth-rule 'plagiarised=1' --labeled-only \\
      --measure containment --methods exact,union-find --scheme mod-m --modulus 4 \\
      --thresholds 0.9:0.1:0.1 --out out/containment")]
pub struct Args {
    /// The corpus (as for `fimdup sketch`).
    pub input: PathBuf,
    #[command(flatten)]
    pub sweep: SweepArgs,
    /// Output directory.
    #[arg(long)]
    pub out: PathBuf,
}

/// The options shared by `sweep` and `demo`.
#[derive(clap::Args, Debug)]
pub struct SweepArgs {
    /// Labeled pairs: a truth.csv (`a,b,resemblance,...`), a plain `a,b` list (CSV or TSV),
    /// a cluster assignment (JSONL or CSV id,cluster) or a PAN XML directory.
    #[arg(long, required = false)]
    pub truth: Option<PathBuf>,
    /// How the truth is written: pairs, clusters, pan (implies --labeled-only), or auto: a
    /// directory is pan, *.jsonl or a CSV with header id,cluster is clusters, else pairs.
    #[arg(
        long,
        default_value_t = TruthFormat::default(),
        value_name = "auto|pairs|clusters|pan"
    )]
    pub truth_format: TruthFormat,
    /// Which truth rows are duplicates, e.g. 'edit_similarity>0.85' (the ROMIP rule of IK09,
    /// the default for scored truth files) or 'resemblance>=0.8'.
    #[arg(long, value_name = "RULE")]
    pub truth_rule: Option<String>,
    /// Methods, comma-separated.
    #[arg(
        long,
        default_values_t = SweepOptions::default().methods,
        value_delimiter = ','
    )]
    pub methods: Vec<Method>,
    /// Resemblance thresholds FROM:TO:STEP (inclusive) or a comma list.
    #[arg(
        long,
        default_value_t = SweepOptions::default().thresholds,
        conflicts_with = "min_common"
    )]
    pub thresholds: String,
    /// The paper's absolute k instead (e.g. 150:100:5 for 150-element images).
    #[arg(long, value_name = "FROM:TO:STEP")]
    pub min_common: Option<String>,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// Drop image elements held by more than D documents (B97 5.1).
    #[arg(long, value_name = "D")]
    pub max_df: Option<u32>,
    /// Keep only the pairs whose exact resemblance passes the threshold.
    #[arg(long, value_name = "exact")]
    pub verify: Option<Verify>,
    /// A cluster is a false duplicate when a member pair's exact resemblance is below this.
    #[arg(long, default_value_t = SweepOptions::default().floor)]
    pub floor: f64,
    /// The words of the exact resemblances the false-cluster check computes from the corpus for
    /// member pairs the truth gives no resemblance for (word 5-shingle Jaccard), all lowercased
    /// per character; a text starting with `<` has every <...> tag replaced by a space first.
    /// word: runs of alphanumeric characters and `_` (\w+). alnum: runs of alphanumeric
    /// characters and combining marks (General_Category M*). whitespace: runs of
    /// non-whitespace, punctuation kept. unicode: UAX #29 words (unicode_words).
    #[arg(
        long,
        default_value_t = SweepOptions::default().truth_tokenizer,
        value_name = "word|alnum|whitespace|unicode"
    )]
    pub truth_tokenizer: TruthTokenizer,
    /// What the thresholds measure: resemblance |A n B| / |A u B| (every method) or
    /// max-containment |A n B| / min(|A|, |B|) (exact, and union-find on mod-m images:
    /// give --scheme mod-m; other methods are refused).
    #[arg(
        long,
        default_value_t = SweepOptions::default().measure,
        value_name = "resemblance|containment"
    )]
    pub measure: Measure,
    /// Evaluate only the pairs the truth file lists (positive or negative): a predicted pair
    /// absent from the truth file is ignored, counted neither as found nor as a false
    /// positive. For truths that label only some pairs (e.g. answers against their source).
    #[arg(long)]
    pub labeled_only: bool,
    /// Another tool's pairs, evaluated beside the methods: NAME=PAIRS.csv (repeatable). A
    /// file with a score column (`score`, or a third column) is swept over the same
    /// thresholds (pairs scored at least the threshold); one without is a single point.
    #[arg(long, value_name = "NAME=PAIRS.csv")]
    pub external: Vec<String>,
    /// List up to N false positives and N misses of every method at every threshold in the
    /// report (side by side, nearest the threshold first) and in errors.csv; 0 lists none.
    #[arg(long, value_name = "N", default_value_t = SweepOptions::default().errors)]
    pub errors: usize,
    /// Bootstrap confidence intervals: resample the labeled unit (documents, or the groups
    /// of --group-by) N times with replacement and give every row 95 % percentile intervals
    /// of precision, recall and F1 (results.csv gains precision_lo .. f1_hi), draw F1's band
    /// in f1.svg, and compare every two methods' best F1 on the same resamples (paired.csv
    /// and the report's paired table). 0: no bootstrap.
    #[arg(long, value_name = "N", default_value_t = SweepOptions::default().bootstrap)]
    pub bootstrap: usize,
    /// Seed of the bootstrap's resamples (the same seed gives the same bytes for any
    /// --threads).
    #[arg(long, value_name = "S", default_value_t = SweepOptions::default().bootstrap_seed)]
    pub bootstrap_seed: u64,
    /// Resample (and, with --cv, deal into folds) groups instead of documents: FIELD (a
    /// task, a source, a family) names each document's group: a JSONL field, or a CSV/TSV or
    /// Parquet column; a document without it (absent, null, an empty cell) is a group of its
    /// own.
    #[arg(long, value_name = "FIELD")]
    pub group_by: Option<String>,
    /// Cross-validated F1: deal the documents (or the groups of --group-by) into K folds by
    /// a seeded hash; per method and fold, choose the threshold with the best F1 on the other
    /// folds' pairs and score it on the fold's own (cv.csv, the report's cross-validation
    /// table beside the best F1 tuned on all pairs). 0: none.
    #[arg(long, value_name = "K", default_value_t = SweepOptions::default().cv)]
    pub cv: usize,
    /// Seed of the fold assignment.
    #[arg(long, value_name = "S", default_value_t = SweepOptions::default().cv_seed)]
    pub cv_seed: u64,
    /// With --cv K: choose on every set of M folds and report on the other K - M (a comma
    /// list of sizes makes every split of each, e.g. --cv 5 --cv-choose 2,3: the 10 splits
    /// of two folds against three and the 10 of three against two). Each split's figure is
    /// beside the best F1 tuned on its own report-set. Default: each fold reported against
    /// the other K - 1.
    #[arg(long, value_name = "M[,M...]", value_delimiter = ',', requires = "cv")]
    pub cv_choose: Vec<usize>,
    /// Time every run (each scheme's sketch, the exact method's shingle sets, each method at
    /// each threshold) up to N times, until its repetitions took --repeat-seconds: a row's
    /// seconds and peak memory are the least of them, results.csv gains the most
    /// (seconds_max, peak_rss_max_bytes) and the count (repeats), and the plots draw the
    /// spread. 1: each run once.
    #[arg(long, value_name = "N", default_value_t = SweepOptions::default().repeats)]
    pub repeats: usize,
    /// Stop repeating a run once its repetitions took S seconds together (a run that takes
    /// longer than S runs once).
    #[arg(long, value_name = "S", default_value_t = SweepOptions::default().repeat_seconds)]
    pub repeat_seconds: f64,
    /// Print JSON on stdout: {"rows": [...], "methods": [best threshold per method, with
    /// "best_at_grid_edge" and "suggest"], "paired": [with --bootstrap], "cv": {with --cv:
    /// "rows" per method and fold, "methods" per method}}.
    #[arg(long)]
    pub json: bool,
}

impl SweepArgs {
    /// The library's named options for these flags (but the pipeline's and the truth's).
    pub fn options(&self) -> SweepOptions {
        SweepOptions {
            methods: self.methods.clone(),
            thresholds: self.thresholds.clone(),
            min_common: self.min_common.clone(),
            verify: self.verify,
            labeled_only: self.labeled_only,
            floor: self.floor,
            truth_tokenizer: self.truth_tokenizer,
            max_df: self.max_df,
            measure: self.measure,
            errors: self.errors,
            bootstrap: self.bootstrap,
            bootstrap_seed: self.bootstrap_seed,
            group_by: self.group_by.clone(),
            cv: self.cv,
            cv_seed: self.cv_seed,
            cv_choose: self.cv_choose.clone(),
            shingle_lens: Vec::new(),
            repeats: self.repeats,
            repeat_seconds: self.repeat_seconds,
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let truth = args
        .sweep
        .truth
        .clone()
        .ok_or_else(|| anyhow::anyhow!("--truth FILE is required"))?;
    sweep_and_report(&args.input, &truth, &args.sweep, &args.out, &[])
}

/// Runs a sweep and writes the report; prints the summary table.
pub fn sweep_and_report(
    input: &Path,
    truth_path: &Path,
    a: &SweepArgs,
    out_dir: &Path,
    extra_params: &[(String, String)],
) -> anyhow::Result<()> {
    let (pipeline, shingle_lens) = a.pipeline.sweep_config()?;
    let opts = SweepOptions {
        shingle_lens,
        ..a.options()
    };
    let external = a
        .external
        .iter()
        .map(|spec| ExternalSpec::parse(spec)?.read())
        .collect::<fimdup::Result<_>>()?;
    let cfg = opts.config(pipeline, external)?;
    let (_, thresholds_label) = opts.thresholds()?;
    let mut caller: Vec<(String, String)> = vec![("command line".into(), command_line())];
    caller.extend(extra_params.iter().cloned());
    let truth = SweepTruth {
        path: truth_path,
        format: a.truth_format,
        rule: a.truth_rule.as_deref(),
    };
    let res = run_sweep(
        input,
        truth,
        cfg,
        &thresholds_label,
        &caller,
        Some(out_dir),
        &|_| {},
    )?;
    if a.json {
        let mut v = serde_json::json!({
            "rows": res.rows,
            "methods": best_per_method(&series_rows(&res.rows)),
        });
        if res.bootstrap.is_some() {
            v["bootstrap"] = serde_json::to_value(&res.bootstrap)?;
            v["paired"] = serde_json::to_value(&res.paired)?;
        }
        if res.cv.is_some() {
            v["cv"] = serde_json::to_value(&res.cv)?;
        }
        print_json(&v)?;
    }
    print_table(&res, out_dir);
    Ok(())
}

/// This process's command line, quoted for a POSIX shell where needed.
fn command_line() -> String {
    std::env::args()
        .map(|a| {
            let plain = !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-./:=,@%+".contains(c));
            if plain {
                a
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn print_table(res: &SweepOutput, out_dir: &Path) {
    let rows = series_rows(&res.rows);
    eprintln!(
        "{} documents, {} duplicate pairs in the truth; best F1 per method:",
        res.documents, res.truth_pairs
    );
    eprintln!(
        "  {:<14} {:>9} {:>6} {:>9} {:>9} {:>7} {:>7} {:>7} {:>6} {:>8}",
        "method", "threshold", "k", "found", "common", "P", "R", "F1", "false", "seconds"
    );
    for r in best_rows(&rows) {
        eprintln!(
            "  {:<14} {:>9} {:>6} {:>9} {:>9} {:>7.4} {:>7.4} {:>7.4} {:>6} {:>8}",
            r.method,
            if r.threshold.is_finite() {
                r.threshold.to_string()
            } else {
                "unscored".into()
            },
            r.k.map_or("-".into(), |k| k.to_string()),
            r.found,
            r.common,
            r.precision,
            r.recall,
            r.f1,
            r.false_clusters.map_or("-".into(), |f| f.to_string()),
            if r.seconds.is_finite() {
                format!("{:.3}", r.seconds)
            } else {
                "-".into()
            }
        );
    }
    if let Some(b) = &res.bootstrap {
        eprintln!(
            "95 % intervals of best F1 ({} resamples of {} {}, seed {}):",
            b.resamples,
            b.units,
            if b.unit == "documents" {
                "documents"
            } else {
                "groups"
            },
            b.seed
        );
        for r in best_rows(&rows) {
            if let Some((lo, hi)) = r.f1_interval() {
                eprintln!("  {:<14} F1 {:.4} [{lo:.4}, {hi:.4}]", r.method, r.f1);
            }
        }
        for p in &res.paired {
            eprintln!(
                "  {} - {}: {:+.4} [{:+.4}, {:+.4}], {} wins {:.0} %, {} wins {:.0} %",
                p.a,
                p.b,
                p.diff,
                p.diff_lo,
                p.diff_hi,
                p.a,
                100.0 * p.a_wins,
                p.b,
                100.0 * p.b_wins
            );
        }
    }
    if let Some(c) = &res.cv {
        let what = if c.shingle_lens.is_empty() {
            "threshold"
        } else {
            "shingle length and threshold"
        };
        let how = if c.leave_one_out {
            format!("{} folds; {what} chosen on the other folds", c.folds)
        } else {
            let sizes: Vec<String> = c.choose.iter().map(|m| m.to_string()).collect();
            format!(
                "{} splits of {} folds, {what} chosen on {} of them",
                c.splits,
                c.folds,
                sizes.join(" or ")
            )
        };
        eprintln!(
            "cross-validated F1 ({how}; {} units: {}, seed {}):",
            c.units, c.unit, c.seed
        );
        for m in &c.methods {
            let tuned = match m.tuned_shingle_len {
                Some(w) => format!("w={w} t={}", m.tuned_threshold),
                None => m.tuned_threshold.to_string(),
            };
            let mut edge = Vec::new();
            if m.splits_at_edge > 0 {
                edge.push(format!("threshold in {} of {}", m.splits_at_edge, c.splits));
            }
            if let Some(n) = m.splits_shingle_len_at_edge.filter(|&n| n > 0) {
                edge.push(format!("shingle length in {n} of {}", c.splits));
            }
            eprintln!(
                "  {:<14} CV F1 {:.4} [{:.4}-{:.4}], tuned on the report-set {:.4}, pooled {:.4}; tuned on all {:.4} at {tuned}{}",
                m.method,
                m.cv_f1,
                m.min_f1,
                m.max_f1,
                m.report_tuned_f1,
                m.pooled_f1,
                m.tuned_f1,
                if edge.is_empty() {
                    String::new()
                } else {
                    format!("; at the grid's edge: {}", edge.join(", "))
                }
            );
        }
    }
    for b in best_per_method(&rows)
        .iter()
        .filter(|b| b.best_at_grid_edge)
    {
        eprintln!(
            "  note: {}'s best F1 is at the edge of the grid ({}){}",
            b.method,
            b.threshold,
            b.suggest
                .as_ref()
                .map_or(String::new(), |s| format!("; try adding {s}"))
        );
    }
    eprintln!("report: {}", out_dir.join("report.html").display());
}
