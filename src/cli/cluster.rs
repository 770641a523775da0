//! `fimdup cluster`: corpus (or images file) -> clusters.jsonl, pairs.csv, summary.json.

use std::path::PathBuf;
use std::time::Instant;

use fimdup::cluster::job::{load_sets, verify_with_corpus, CorpusSource, Prepared};
use fimdup::cluster::{
    candidate_threshold, write_clusters, write_pairs, write_summary, ClusterConfig, Grouping,
    Measure, Method, Phase, Regroup, Threshold, VERIFY_SIGMAS,
};
use fimdup::sketch::pipeline::sketch_corpus;
use fimdup::sketch::{ImageInputs, Scheme};

use super::common::{
    is_images_file, peak_rss_bytes, print_json, progress, PipelineArgs, SpillArgs, Verify,
};

/// Cluster near-duplicate documents with one method.
///
/// concept: sets of documents sharing at least k image elements, as maximal frequent
/// itemsets of the shingle-rows context (IK09); no transitive-closure chains.
/// union-find: pairs sharing >= k elements, joined by union-find (B97).
/// lsh: banded k-mins signatures, a filtering pass, center clustering (H00).
/// super-shingle: documents sharing a super shingle, joined by union-find (B97 5.3).
/// exact: every pair whose exact resemblance of full shingle sets is >= t (prefix filtering).
///
/// --threshold is a resemblance for every method, translated to each method's own k (stated
/// in the summary); --min-common gives the paper's absolute k instead. Identical,
/// lexically-equivalent and shingle-equivalent documents are collapsed first and added back.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fimdup cluster datasets/default/docs.jsonl --method concept --threshold 0.8 --out out/concept
  fimdup cluster datasets/default/docs.jsonl --method lsh --threshold 0.8 --verify exact --out out/lsh
  fimdup cluster out/default.img --method union-find --min-common 100 --max-df 1000 --out out/uf
  fimdup cluster out/big.0.img out/big.1.img --memory-budget 2GiB --tmp-dir /scratch --out out/big
  fimdup cluster docs.jsonl --method exact --measure containment --threshold 0.5 --out out/cont
  fimdup cluster docs.jsonl --method union-find --measure containment --scheme mod-m --modulus 4 \\
      --threshold 0.5 --out out/cont-uf")]
pub struct Args {
    /// A corpus (as for `fimdup sketch`), or images files made by `fimdup sketch` (one file,
    /// the N shards of one `--shard i/N` run, or whole files concatenated in order).
    #[arg(required = true, num_args = 1.., value_name = "INPUT")]
    pub input: Vec<PathBuf>,
    /// The method.
    #[arg(
        long,
        default_value = "concept",
        value_name = "concept|union-find|lsh|super-shingle|exact"
    )]
    pub method: Method,
    /// Resemblance threshold in [0, 1], translated to the method's own k.
    #[arg(long, value_name = "t", conflicts_with = "min_common")]
    pub threshold: Option<f64>,
    /// The paper's absolute k: shared image elements (concept, union-find), agreeing
    /// positions (lsh), shared super shingles (super-shingle).
    #[arg(long, value_name = "k")]
    pub min_common: Option<u32>,
    /// What --threshold measures: resemblance (every method) or max-containment
    /// |A n B| / min(|A|, |B|) (exact; union-find on mod-m images, --scheme mod-m).
    #[arg(
        long,
        default_value = "resemblance",
        value_name = "resemblance|containment"
    )]
    pub measure: Measure,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// Drop image elements held by more than D documents first (B97 5.1).
    #[arg(long, value_name = "D")]
    pub max_df: Option<u32>,
    /// concept: stop with an error when more itemsets than this come out.
    #[arg(long, default_value_t = 1_000_000, value_name = "N")]
    pub max_itemsets: u64,
    /// Stop with an error when the clusters have more member pairs than this.
    #[arg(long, default_value_t = 50_000_000, value_name = "N")]
    pub max_pairs: u64,
    /// concept: mine the whole context at once instead of one connected component at a time.
    #[arg(long)]
    pub no_split: bool,
    /// lsh: number of bands b (rows r = n / b) instead of the optimised choice.
    #[arg(long, value_name = "B")]
    pub bands: Option<u32>,
    /// lsh: weight of the false-negative area when choosing b and r (false positives get
    /// 1 - w; the filtering pass removes false positives, so recall is worth more).
    #[arg(long, default_value_t = 0.5, value_name = "W")]
    pub fn_weight: f64,
    /// lsh: how filtered pairs become clusters.
    #[arg(long, default_value = "center", value_name = "center|union-find")]
    pub grouping: Grouping,
    /// super-shingle: image elements per super shingle.
    #[arg(long, default_value_t = 8, value_name = "N")]
    pub super_per: u32,
    /// Keep only the pairs whose exact resemblance passes the threshold (re-reads the
    /// documents; needs a corpus as INPUT).
    #[arg(long, value_name = "exact")]
    pub verify: Option<Verify>,
    /// With --verify exact: the threshold the method finds candidates at [default: the
    /// threshold minus 2 standard errors of the estimate, sqrt(t(1-t)/n), so that pairs just
    /// above the threshold whose estimate falls short are still verified].
    #[arg(long, value_name = "t")]
    pub candidate_threshold: Option<f64>,
    /// Output directory (clusters.jsonl, pairs.csv, summary.json).
    #[arg(long)]
    pub out: PathBuf,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub spill: SpillArgs,
}

/// The default scheme of a method.
pub fn default_scheme(method: Method) -> Scheme {
    match method {
        Method::Lsh | Method::SuperShingle => Scheme::KMins,
        _ => Scheme::BottomK,
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let t0 = Instant::now();
    let pcfg = args.pipeline.config_or(default_scheme(args.method))?;
    let threshold = match (args.threshold, args.min_common) {
        (_, Some(k)) => Threshold::MinCommon(k),
        (Some(t), None) => Threshold::Resemblance(t),
        (None, None) => Threshold::Resemblance(0.8),
    };
    let mut cfg = ClusterConfig {
        method: args.method,
        threshold,
        measure: args.measure,
        ..ClusterConfig::default()
    };
    cfg.context.max_df = args.max_df;
    cfg.concept.max_itemsets = Some(args.max_itemsets);
    cfg.concept.split_components = !args.no_split;
    cfg.max_pairs = Some(args.max_pairs);
    cfg.lsh.bands_rows = match args.bands {
        None => None,
        Some(b) => {
            let n = pcfg.sketch.size as u32;
            anyhow::ensure!(
                b >= 1 && n % b == 0,
                "--bands {b} must divide the image size {n}"
            );
            Some((b, n / b))
        }
    };
    anyhow::ensure!(
        (0.0..=1.0).contains(&args.fn_weight),
        "--fn-weight must be in [0, 1], not {}",
        args.fn_weight
    );
    cfg.lsh.fn_weight = args.fn_weight;
    cfg.lsh.fp_weight = 1.0 - args.fn_weight;
    cfg.lsh.grouping = args.grouping;
    cfg.super_shingle.per = args.super_per;
    let verify = args.verify == Some(Verify::Exact);
    anyhow::ensure!(
        args.candidate_threshold.is_none() || verify,
        "--candidate-threshold only applies with --verify exact"
    );
    let verify_t = match (verify, threshold) {
        (true, Threshold::Resemblance(t)) => {
            let n = match pcfg.sketch.scheme {
                fimdup::sketch::Scheme::ModM => 0,
                _ => pcfg.sketch.size,
            };
            let tc = args
                .candidate_threshold
                .unwrap_or_else(|| candidate_threshold(t, n, VERIFY_SIGMAS));
            anyhow::ensure!(
                (0.0..=t).contains(&tc),
                "--candidate-threshold must be in [0, {t}] (the threshold), not {tc}"
            );
            cfg.threshold = Threshold::Resemblance(tc);
            Some(t)
        }
        (true, Threshold::MinCommon(_)) => anyhow::bail!("--verify exact needs --threshold t"),
        (false, _) => None,
    };
    cfg.validate()?;

    args.spill.install()?;
    let input = args.input[0].clone();
    let images_input = is_images_file(&input);
    if args.input.len() > 1 {
        if let Some(p) = args.input.iter().find(|p| !is_images_file(p)) {
            anyhow::bail!(
                "{}: several inputs must all be images files made by `fimdup sketch`",
                p.display()
            );
        }
    }
    anyhow::ensure!(
        !(images_input && (verify || args.method == Method::Exact)),
        "{}: {} needs the documents, not an images file",
        input.display(),
        if verify {
            "--verify exact"
        } else {
            "the exact method"
        }
    );
    let pb = progress(None, "sketching");
    let mut offsets: Option<Vec<u64>> = None;
    let mut prep = if images_input
        && matches!(args.method, Method::Concept | Method::UnionFind)
        && args.measure == Measure::Resemblance
    {
        // Only the context is needed: build it in passes over the files, under the
        // memory budget, instead of holding every image.
        Prepared::from_images_streamed(&args.input, &cfg.context, &fimdup::spill::global())?
    } else if images_input {
        let set = ImageInputs::open(&args.input)?.read_all()?;
        Prepared::new(set, None)?
    } else {
        let out = sketch_corpus(&input, &pcfg, &|n| pb.set_position(n))?;
        offsets = out.offsets;
        Prepared::new(out.images, Some(&out.fingerprints))?
    };
    pb.finish_and_clear();
    let shingle = prep.params.shingle;
    if args.method == Method::Exact {
        let sets = load_sets(&input, &pcfg.corpus, &pcfg.text, &shingle, None)?;
        prep.sets = Some(sets.into_iter().map(|(_, s)| s).collect());
    }
    let sketch_secs = t0.elapsed().as_secs_f64();
    let mut out = prep.run(&cfg)?;
    if let Some(t) = verify_t {
        anyhow::ensure!(
            args.measure == Measure::Resemblance,
            "--verify exact checks resemblance; it cannot be combined with --measure containment"
        );
        let tv = Instant::now();
        let regroup = Regroup::for_method(args.method, cfg.lsh.grouping == Grouping::UnionFind);
        let src = CorpusSource {
            path: &input,
            corpus: &pcfg.corpus,
            text: &pcfg.text,
            shingle: &shingle,
            offsets: offsets.as_deref(),
            ext_ids: Some(prep.ext_ids()),
        };
        verify_with_corpus(&mut out, &src, t, regroup)?;
        if let Threshold::Resemblance(tc) = cfg.threshold {
            out.summary.candidate_threshold = Some(tc);
        }
        out.summary.threshold = Some(t);
        out.summary.phases.push(Phase {
            name: "verify".into(),
            seconds: tv.elapsed().as_secs_f64(),
        });
    }
    out.summary.phases.insert(
        0,
        Phase {
            name: "sketch".into(),
            seconds: sketch_secs,
        },
    );
    // The two outputs are independent: written (and synced) side by side.
    let (c, p) = rayon::join(
        || {
            write_clusters(
                &args.out.join("clusters.jsonl"),
                &out.clusters,
                prep.ext_ids(),
            )
        },
        || write_pairs(&args.out.join("pairs.csv"), &out.pairs, prep.ext_ids()),
    );
    c?;
    p?;
    let secs = t0.elapsed().as_secs_f64();
    let mut summary = serde_json::to_value(&out.summary)?;
    summary["seconds"] = serde_json::json!(secs);
    summary["peak_rss_bytes"] = serde_json::json!(peak_rss_bytes());
    summary["scheme"] = serde_json::json!(prep.scheme().name());
    write_summary(&args.out.join("summary.json"), &summary)?;
    if args.json {
        print_json(&summary)?;
    }
    let s = &out.summary;
    eprintln!(
        "{}: {} documents ({} collapsed into equivalents), k = {} ({}), {} clusters (largest {}), {} pairs in {:.2}s -> {}",
        s.method,
        s.documents,
        s.collapsed.removed,
        s.k.map_or("-".into(), |k| k.to_string()),
        s.k_rule,
        s.clusters,
        s.largest_cluster,
        s.pairs,
        secs,
        args.out.display()
    );
    Ok(())
}
