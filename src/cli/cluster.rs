//! `fimdup cluster`: corpus (or images file) -> clusters.jsonl, pairs.csv, summary.json.

use std::path::PathBuf;
use std::time::Instant;

use fimdup::cluster::{Input, JobBuilder, JobOptions, Measure, Method, Verify};
use fimdup::corpus::remote::OutDir;

use super::common::{input_notes, print_json, progress, PipelineArgs, SpillArgs};
use super::method_args::MethodArgs;

/// Cluster near-duplicate documents with one method.
///
/// concept: sets of documents sharing at least k image elements, as maximal frequent
/// itemsets of the shingle-rows context (IK09); no transitive-closure chains.
/// union-find: pairs sharing >= k elements, joined by union-find (B97).
/// lsh: banded k-mins signatures, a filtering pass, center clustering (H00).
/// super-shingle: documents sharing a super shingle, joined by union-find (B97 5.3).
/// exact: every pair whose exact resemblance of full shingle sets is >= t (prefix filtering).
/// simhash: Charikar's fingerprints within Hamming distance h, joined by union-find (C02,
/// MJS07's permuted tables).
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
  fimdup cluster docs.jsonl --method simhash --bits 64 --hamming 3 --out out/simhash
  fimdup cluster docs.jsonl --method union-find --measure containment --scheme mod-m --modulus 4 \\
      --threshold 0.5 --out out/cont-uf")]
pub struct Args {
    /// A corpus (as for `fimdup sketch`), or images files made by `fimdup sketch` (one file,
    /// the N shards of one `--shard i/N` run, or whole files concatenated in order).
    #[arg(required = true, num_args = 1.., value_name = "INPUT")]
    pub input: Vec<PathBuf>,
    #[command(flatten)]
    pub job: JobArgs,
    /// Output directory (clusters.jsonl, pairs.csv, summary.json).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub dist: super::common::DistArgs,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Print the memory plan after the run (each stage's planned share, the largest share
    /// it was handed and each phase's measured peak) and add it to summary.json as
    /// `memory_plan`.
    #[arg(long)]
    pub explain_plan: bool,
}

/// The clustering job's options (shared by `cluster` and `dedup`).
#[derive(clap::Args, Debug)]
pub struct JobArgs {
    /// The method.
    #[arg(
        long,
        default_value_t = JobOptions::default().method,
        value_name = "concept|union-find|lsh|super-shingle|exact|simhash"
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
        default_value_t = JobOptions::default().measure,
        value_name = "resemblance|containment"
    )]
    pub measure: Measure,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// Drop image elements held by more than D documents first (B97 5.1).
    #[arg(long, value_name = "D")]
    pub max_df: Option<u32>,
    /// Stop with an error when the clusters have more member pairs than this.
    #[arg(long, default_value_t = JobOptions::default().max_pairs, value_name = "N")]
    pub max_pairs: u64,
    /// The methods' own options (declared in each method's file).
    #[command(flatten)]
    pub method_options: MethodArgs,
    /// Keep only the pairs whose exact resemblance passes the threshold (re-reads the
    /// documents; needs a corpus as INPUT).
    #[arg(long, value_name = "exact")]
    pub verify: Option<Verify>,
    /// With --verify exact: the threshold the method finds candidates at [default: the
    /// threshold minus 2 standard errors of the estimate, sqrt(t(1-t)/n), so that pairs just
    /// above the threshold whose estimate falls short are still verified].
    #[arg(long, value_name = "t")]
    pub candidate_threshold: Option<f64>,
    #[command(flatten)]
    pub spill: SpillArgs,
    /// Build the context in N partitions by key range instead of as many as the memory
    /// plan gives (the output is the same for any N).
    #[arg(long, value_name = "N")]
    pub partitions: Option<usize>,
}

impl JobArgs {
    /// The library's named options for these flags.
    pub fn options(&self) -> JobOptions {
        JobOptions {
            method: self.method,
            threshold: self.threshold,
            min_common: self.min_common,
            measure: self.measure,
            verify: self.verify,
            candidate_threshold: self.candidate_threshold,
            max_df: self.max_df,
            max_pairs: self.max_pairs,
            memory_budget: self.spill.memory_budget,
            tmp_dir: self.spill.tmp_dir.clone(),
            partitions: self.partitions,
            explain_plan: false,
            options: self.method_options.0.clone(),
        }
    }

    /// The job these options describe.
    pub fn builder(&self) -> anyhow::Result<JobBuilder> {
        let pipeline = self.pipeline.config_or(self.method.default_scheme())?;
        Ok(self.options().builder(pipeline)?)
    }
}

/// The job in this process, with a progress bar.
fn run_local(
    job: &fimdup::cluster::Job,
    input: &Input,
) -> anyhow::Result<fimdup::cluster::JobOutput> {
    let pb = progress(None, "sketching");
    let out = job.run(input, &|n| pb.set_position(n));
    pb.finish_and_clear();
    Ok(out?)
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let t0 = Instant::now();
    let job = args
        .job
        .builder()?
        .explain_plan(args.explain_plan)
        .build()?;
    let input = Input::from_paths(&args.input)?;
    let dir = OutDir::new(&args.out, args.job.spill.tmp_dir.as_deref())?;
    #[cfg(feature = "distributed")]
    let out = match args.dist.topology()? {
        Some(topo) => match fimdup::dataflow::run_job(&job, &input, &topo, dir.path())
            .map_err(|e| dir.name_urls(e))?
        {
            Some(out) => out,
            None => {
                dir.publish()?;
                super::common::share_done(&topo, &args.out);
                return Ok(());
            }
        },
        None => run_local(&job, &input)?,
    };
    #[cfg(not(feature = "distributed"))]
    let out = {
        args.dist.refuse()?;
        run_local(&job, &input)?
    };
    out.write(dir.path()).map_err(|e| dir.name_urls(e))?;
    dir.publish()?;
    if let Some(p) = &out.memory_plan {
        super::common::print_plan(p);
    }
    if args.json {
        print_json(&out.summary_json()?)?;
    }
    let s = &out.output.summary;
    eprintln!(
        "{}: {} documents ({} collapsed into equivalents{}), k = {} ({}), {} clusters (largest {}), {} pairs in {:.2}s -> {}",
        s.method,
        s.documents,
        s.collapsed.removed,
        input_notes(&out.input_stats),
        s.k.map_or("-".into(), |k| k.to_string()),
        s.k_rule,
        s.clusters,
        s.largest_cluster,
        s.pairs,
        t0.elapsed().as_secs_f64(),
        args.out.display()
    );
    Ok(())
}
