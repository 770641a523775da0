//! `fimdup overlap`: how much two collections overlap, by sampling and checking (L20).

use std::path::{Path, PathBuf};
use std::time::Instant;

use fimdup::index::overlap::{estimate_overlap, OverlapConfig};
use fimdup::index::Index;
use fimdup::sketch::pipeline::{sketch_corpus, PipelineConfig};
use fimdup::sketch::{Image, SketchParams};

use super::common::{print_json, progress, PipelineArgs};

/// Estimates the fraction of A with a near-duplicate in B and of B in A by sampling each
/// and checking the other (capture-recapture), and from them the relative size |A|/|B| =
/// frac(B in A) / frac(A in B), with confidence intervals (exact hypergeometric intervals
/// for the fractions, sampling without replacement; for the ratio, the Bonferroni
/// combination of both fractions' bounds). The ratio assumes near-duplicates pair
/// documents one to one (no near-duplicates inside a collection). A sample as large as a collection checks all of it (exact fraction).
///
/// A and B are corpora (sketched with the options below) or index directories (their own
/// images; the parameters of both sides must agree).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fimdup overlap crawl-a.jsonl crawl-b.jsonl --sample 2000 --threshold 0.8
  fimdup overlap idx-a idx-b --json")]
pub struct Args {
    /// First collection (corpus or index directory).
    pub a: PathBuf,
    /// Second collection (corpus or index directory).
    pub b: PathBuf,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// Documents sampled from each collection.
    #[arg(long, default_value_t = OverlapConfig::default().sample, value_name = "N")]
    pub sample: usize,
    /// Resemblance threshold of "has a near-duplicate".
    #[arg(long, default_value_t = OverlapConfig::default().threshold, value_name = "T")]
    pub threshold: f64,
    /// Seed of the samples.
    #[arg(long, default_value_t = OverlapConfig::default().seed, value_name = "S")]
    pub sample_seed: u64,
    /// Confidence level of the intervals.
    #[arg(long, default_value_t = OverlapConfig::default().confidence, value_name = "C")]
    pub confidence: f64,
    /// Print the result as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

fn load(p: &Path, cfg: &PipelineConfig) -> anyhow::Result<(SketchParams, Vec<Image>)> {
    if p.join(fimdup::index::store::CURRENT).is_file() {
        let idx = Index::open(p)?;
        return Ok((idx.params().clone(), idx.images()?));
    }
    let pb = progress(None, "sketching");
    let out = sketch_corpus(p, cfg, &|n| pb.set_position(n))?;
    pb.finish_and_clear();
    Ok((out.images.params, out.images.images))
}

impl Args {
    /// The library's configuration for these flags.
    pub fn config(&self) -> OverlapConfig {
        OverlapConfig {
            sample: self.sample,
            threshold: self.threshold,
            seed: self.sample_seed,
            confidence: self.confidence,
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let t0 = Instant::now();
    let cfg = args.pipeline.config()?;
    let oc = args.config();
    oc.validate()?;
    let (pa, a) = load(&args.a, &cfg)?;
    let (pb, b) = load(&args.b, &cfg)?;
    pa.ensure_compatible(&pb, &args.b)?;
    let rep = estimate_overlap(&a, &b, &pa.sketch, &oc)?;
    let secs = t0.elapsed().as_secs_f64();
    if args.json {
        print_json(&serde_json::json!({
            "a": args.a,
            "b": args.b,
            "threshold": args.threshold,
            "seed": args.sample_seed,
            "a_in_b": rep.a_in_b,
            "b_in_a": rep.b_in_a,
            "size_ratio_a_over_b": rep.size_ratio,
            "confidence": rep.confidence,
            "seconds": secs,
        }))?;
    }
    let f = |x: &fimdup::index::overlap::Fraction| {
        format!(
            "{:.3} [{:.3}, {:.3}] ({}/{}{})",
            x.estimate,
            x.low,
            x.high,
            x.hits,
            x.sampled,
            if x.exact { ", exact" } else { "" }
        )
    };
    let ratio = match rep.size_ratio {
        Some(r) => format!("{:.3} [{:.3}, {:.3}]", r.estimate, r.low, r.high),
        None => "undefined (no overlap found)".into(),
    };
    eprintln!(
        "A in B: {}; B in A: {}; |A|/|B| = {} at {:.0}% confidence (actual sizes {} / {}) in {:.2}s",
        f(&rep.a_in_b),
        f(&rep.b_in_a),
        ratio,
        100.0 * rep.confidence,
        a.len(),
        b.len(),
        secs
    );
    Ok(())
}
