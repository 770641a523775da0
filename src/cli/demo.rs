//! `fimdup demo`: the main job on the embedded default corpus.

use std::path::{Path, PathBuf};

use super::sweep::{sweep_and_report, SweepArgs};

/// Run every method over a threshold sweep on the default corpus and write the report.
///
/// The corpus is the committed `datasets/default` (made by `fimdup gen` with its default
/// parameters); when this binary runs away from its source tree, the same corpus is
/// generated into OUT/corpus (the generator is deterministic). Duplicates are the pairs of
/// the truth with edit similarity > 0.85 (the ROMIP rule of IK09) unless --truth-rule says
/// otherwise. HTML is stripped (the corpus holds copies that differ only in markup).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fimdup demo
  fimdup demo --out out/demo --truth-rule 'resemblance>=0.8' --methods concept,lsh")]
pub struct Args {
    /// Output directory.
    #[arg(long, default_value = "out/demo")]
    pub out: PathBuf,
    #[command(flatten)]
    pub sweep: SweepArgs,
}

pub fn run(mut args: Args) -> anyhow::Result<()> {
    // The default corpus holds copies that differ only in HTML markup: strip it.
    args.sweep.pipeline.text.html = true;
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/default");
    let (docs, truth, source) = if committed.join("docs.jsonl").is_file() {
        (
            committed.join("docs.jsonl"),
            committed.join("truth.csv"),
            "committed datasets/default",
        )
    } else {
        let dir = args.out.join("corpus");
        let corpus = fimdup::gen::generate(&fimdup::gen::GenConfig::default())?;
        fimdup::gen::write_corpus(&dir, &corpus)?;
        (
            dir.join("docs.jsonl"),
            dir.join("truth.csv"),
            "generated with the default parameters",
        )
    };
    let truth = args.sweep.truth.clone().unwrap_or(truth);
    eprintln!("demo: {} ({})", docs.display(), source);
    sweep_and_report(
        &docs,
        &truth,
        &args.sweep,
        &args.out,
        &[("corpus source".into(), source.into())],
    )
}
