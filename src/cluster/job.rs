//! The one clustering job that every entry point runs: `fimdup cluster`, `sweep` and `demo`
//! (through [`crate::report::sweep`]), and any program that links the library.
//!
//! A [`Job`] is built and validated in one place ([`JobBuilder::build`]): the method, the
//! threshold, every method's options ([`ClusterConfig`]), how documents become images
//! ([`PipelineConfig`]), exact verification and the memory budget ([`SpillConfig`]). It then
//! runs on an [`Input`] in two steps that a caller may also take one at a time:
//!
//! 1. [`Job::prepare`] reads the input once into a [`Sketched`] corpus: a corpus is sketched
//!    (recording each document's byte offset where the file allows, for verification);
//!    images files are read, or, for the methods that need only the inverted context
//!    (concept, union-find by resemblance), streamed into the context under the budget
//!    without holding the images; a corpus's images are held while they fit (in the
//!    budget, or without one in [`DEFAULT_HELD_IMAGE_BYTES`] for the context-only methods);
//!    past that the context-only methods write the documents' keys to a temporary key file
//!    (`held_keys`) and build the context in passes over it, and the others
//!    (under a budget) write a temporary images file read as above;
//! 2. [`Job::run_on`] runs the method on it: the threshold is translated
//!    ([`super::threshold`]), lowered to the candidate threshold when exact verification
//!    follows, the method runs ([`super::run_method`]), and the candidates are verified and
//!    regrouped ([`super::verify`], with the prepared corpus's collapse: documents of one
//!    group whose sets are empty pass). A sweep prepares once per scheme and runs many jobs
//!    on the same [`Sketched`] corpus.
//!
//! [`Job::run`] takes both steps and returns a [`JobOutput`] that writes `clusters.jsonl`,
//! `pairs.csv` and `summary.json` ([`JobOutput::write`]).
//!
//! Invariants: the same input and configuration give the same clusters and pairs whichever
//! entry point runs the job and whatever the thread count; a job on a [`Sketched`] corpus
//! gives what it gives on the input itself.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::declared::MethodValues;
use super::held_keys::{sketch_held_or_keys_by, HeldOrKeys};
use super::method::Reads;
use super::threshold::{candidate_threshold, VERIFY_SIGMAS};
use super::verify::{load_sets, verify_output, verify_with_corpus, CorpusSource};
use super::{
    ClusterConfig, ClusterOutput, Equivalence, Grouping, Measure, Method, Phase, Prepared, Regroup,
    Threshold,
};
use crate::corpus::CorpusStats;
use crate::plan::held_image_bytes;
use crate::sketch::inputs::{sketch_held_or_to_file_by, HeldOrFile};
use crate::sketch::pipeline::{
    sketch_corpus_by, sketch_stream, Fingerprints, PipelineConfig, SketchSink, SketchStats,
};
use crate::sketch::{ImageInputs, Scheme};
use crate::spill::SpillConfig;
use crate::{Error, Result};

pub use crate::plan::DEFAULT_HELD_IMAGE_BYTES;
use crate::plan::{
    holding_needs as needed, verify_bytes, Facts, Ledger, MemoryPlan, Partitions,
    EXACT_BYTES_PER_TOKEN, HELD_DOC_BYTES,
};

/// The phases of a preparation that took `seconds`: "sketch", and "context" when `prep`
/// built its context while preparing (then "sketch" is the rest, with the peak memory
/// from before the build).
fn preparation_phases(seconds: f64, prep: &Prepared) -> Vec<Phase> {
    match prep.context_build() {
        Some((before, ctx)) => vec![
            Phase {
                name: "sketch".into(),
                seconds: (seconds - ctx.seconds).max(0.0),
                peak_rss_bytes: before,
            },
            ctx.clone(),
        ],
        None => vec![Phase::ended("sketch", seconds)],
    }
}

/// A run's phases after the preparation's: a run phase named like one of the preparation
/// (the "context" lap of a context built while preparing) is added to it.
pub(crate) fn with_preparation(prep: &[Phase], run: Vec<Phase>) -> Vec<Phase> {
    let mut out = prep.to_vec();
    for p in run {
        match out.iter_mut().find(|q| q.name == p.name) {
            Some(q) => {
                q.seconds += p.seconds;
                q.peak_rss_bytes = q.peak_rss_bytes.max(p.peak_rss_bytes);
            }
            None => out.push(p),
        }
    }
    out
}

/// What a job reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A corpus (any format [`crate::corpus`] reads).
    Corpus(PathBuf),
    /// Images files made by the sketch stage: one file, the N shards of one sharded run, or
    /// whole files in order.
    Images(Vec<PathBuf>),
}

impl Input {
    /// The input named by `paths`: images files when the first is one (then every path must
    /// be), else one corpus.
    pub fn from_paths(paths: &[PathBuf]) -> Result<Input> {
        use crate::sketch::file::is_images_file;
        let first = paths
            .first()
            .ok_or_else(|| Error::config("no input given"))?;
        if paths.len() > 1 {
            if let Some(p) = paths.iter().find(|p| !is_images_file(p)) {
                return Err(Error::config(format!(
                    "{}: several inputs must all be images files of the sketch stage",
                    p.display()
                )));
            }
        }
        Ok(if is_images_file(first) {
            Input::Images(paths.to_vec())
        } else {
            Input::Corpus(first.clone())
        })
    }

    /// The first path (the one errors name).
    pub fn path(&self) -> &Path {
        match self {
            Input::Corpus(p) => p,
            Input::Images(v) => &v[0],
        }
    }
}

/// Exact verification of a method's candidates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Verify {
    /// Keep only the pairs whose exact resemblance (full shingle sets) passes the threshold.
    Exact,
}

/// Builds a [`Job`]; every setting is checked by [`JobBuilder::build`].
#[derive(Clone, Debug)]
pub struct JobBuilder {
    cluster: ClusterConfig,
    pipeline: Option<PipelineConfig>,
    verify: Option<Verify>,
    candidate_threshold: Option<f64>,
    spill: SpillConfig,
    options: MethodValues,
    equivalence: Equivalence,
    keep_fingerprints: bool,
    held_images: u64,
    partitions: Option<usize>,
    explain_plan: bool,
}

impl JobBuilder {
    /// A job running `method` at resemblance 0.8 on images of the method's default scheme
    /// ([`Method::default_scheme`]), without verification or memory budget.
    pub fn new(method: Method) -> JobBuilder {
        JobBuilder {
            cluster: ClusterConfig {
                method,
                ..ClusterConfig::default()
            },
            pipeline: None,
            verify: None,
            candidate_threshold: None,
            spill: SpillConfig::default(),
            options: MethodValues::default(),
            equivalence: Equivalence::Shingle,
            keep_fingerprints: false,
            held_images: DEFAULT_HELD_IMAGE_BYTES,
            partitions: None,
            explain_plan: false,
        }
    }

    /// Builds the context in `n` partitions by key range (passes over the keys in memory,
    /// or over the key file on disk) instead of as many as the memory plan gives: the
    /// output is the same for any `n` (`None`: the plan decides).
    pub fn partitions(&mut self, n: Option<usize>) -> &mut Self {
        self.partitions = n;
        self
    }

    /// Adds the memory plan to the summary (`memory_plan`): each stage's planned share,
    /// the largest share handed to it while the job ran and its measured peak.
    pub fn explain_plan(&mut self, on: bool) -> &mut Self {
        self.explain_plan = on;
        self
    }

    /// Without a memory budget: the images (as `held_image_bytes` counts them) that a
    /// concept or union-find run on a corpus holds in memory; past that it writes the
    /// documents' keys to a temporary key file in the spill directory and builds the
    /// context in passes over it (default [`DEFAULT_HELD_IMAGE_BYTES`], 512 MiB). Under a
    /// budget the budget decides. The output is the same either way.
    pub fn images_in_memory(&mut self, bytes: u64) -> &mut Self {
        self.held_images = bytes;
        self
    }

    /// Which documents are collapsed before clustering (default: shingle equivalence).
    pub fn equivalence(&mut self, e: Equivalence) -> &mut Self {
        self.equivalence = e;
        self
    }

    /// Keep the raw and canonical fingerprints of a corpus in the prepared input
    /// ([`Sketched::fingerprints`]; 16 bytes a document, counted against the budget).
    pub fn keep_fingerprints(&mut self, keep: bool) -> &mut Self {
        self.keep_fingerprints = keep;
        self
    }

    /// Every method option at once (method and threshold included).
    pub fn cluster(&mut self, cfg: ClusterConfig) -> &mut Self {
        self.cluster = cfg;
        self
    }

    /// The threshold: a resemblance (translated per method) or an absolute k.
    pub fn threshold(&mut self, t: Threshold) -> &mut Self {
        self.cluster.threshold = t;
        self
    }

    /// What a resemblance threshold measures.
    pub fn measure(&mut self, m: Measure) -> &mut Self {
        self.cluster.measure = m;
        self
    }

    /// How documents become images (ignored for images files, which carry their own).
    pub fn pipeline(&mut self, p: PipelineConfig) -> &mut Self {
        self.pipeline = Some(p);
        self
    }

    /// Exact verification, or none.
    pub fn verify(&mut self, v: Option<Verify>) -> &mut Self {
        self.verify = v;
        self
    }

    /// With verification: the threshold candidates are found at (default: two standard
    /// errors of the estimate below the threshold, [`candidate_threshold`]).
    pub fn candidate_threshold(&mut self, t: Option<f64>) -> &mut Self {
        self.candidate_threshold = t;
        self
    }

    /// The memory budget and where to spill.
    pub fn spill(&mut self, s: SpillConfig) -> &mut Self {
        self.spill = s;
        self
    }

    /// The method's own options by name ([`super::declared`]): checked against the method's
    /// declarations by [`JobBuilder::build`], the others defaulted.
    pub fn method_options(&mut self, v: MethodValues) -> &mut Self {
        self.options = v;
        self
    }

    /// Checks every setting and their combinations.
    pub fn build(&self) -> Result<Job> {
        let mut cluster = self.cluster;
        let mut pipeline = match &self.pipeline {
            Some(p) => p.clone(),
            None => {
                let mut p = PipelineConfig::default();
                p.sketch.scheme = cluster.method.default_scheme();
                p
            }
        };
        let method = cluster.method;
        self.options.apply(method, &mut cluster)?;
        method.spec().configure(&mut cluster, &mut pipeline)?;
        method.spec().check_scheme(pipeline.sketch.scheme)?;
        pipeline.validate()?;
        if let (Some(b), super::Method::Concept) = (pipeline.sketch.bits, cluster.method) {
            return Err(Error::config(format!(
                "--b-bit {b}: concept clusters mine the (position, value) rows of the context, \
                 which on b-bit images hold 1/2^b of the documents each; --b-bit takes the \
                 union-find and lsh methods"
            )));
        }
        if self.candidate_threshold.is_some() && self.verify.is_none() {
            return Err(Error::config(
                "a candidate threshold only applies with exact verification",
            ));
        }
        let verify_at = match (self.verify, cluster.threshold) {
            (None, _) => None,
            (Some(Verify::Exact), Threshold::MinCommon(_)) => return Err(Error::config(
                "exact verification needs a resemblance threshold, not an absolute min-common k",
            )),
            (Some(Verify::Exact), Threshold::Resemblance(t)) => {
                if cluster.measure != Measure::Resemblance {
                    return Err(Error::config(
                        "exact verification checks resemblance; it cannot be combined with the containment measure",
                    ));
                }
                if let Some(tc) = self.candidate_threshold {
                    if !(0.0..=t).contains(&tc) {
                        return Err(Error::config(format!(
                            "the candidate threshold must be in [0, {t}] (the threshold), not {tc}"
                        )));
                    }
                }
                Some(t)
            }
        };
        cluster.validate()?;
        self.spill.validate()?;
        if self.partitions == Some(0) {
            return Err(Error::config("the number of partitions must be at least 1"));
        }
        let spill = SpillConfig {
            partitions: self.partitions.map(Partitions::new),
            ledger: Ledger::recording(),
            ..self.spill.clone()
        };
        Ok(Job {
            cluster,
            pipeline,
            verify_at,
            candidate: self.candidate_threshold,
            plan: MemoryPlan::new(spill.budget, rayon::current_num_threads(), 1),
            spill,
            equivalence: self.equivalence,
            keep_fingerprints: self.keep_fingerprints,
            held_images: self.held_images,
            explain_plan: self.explain_plan,
            options: super::declared::values_of(&cluster),
        })
    }
}

/// A validated clustering job (see the module docs); made by [`JobBuilder`].
#[derive(Clone, Debug)]
pub struct Job {
    cluster: ClusterConfig,
    pipeline: PipelineConfig,
    /// The verified threshold, with exact verification.
    verify_at: Option<f64>,
    candidate: Option<f64>,
    spill: SpillConfig,
    equivalence: Equivalence,
    keep_fingerprints: bool,
    /// Images held without a budget (see [`JobBuilder::images_in_memory`]).
    held_images: u64,
    /// The memory plan of the job (its stages record what they were handed in `spill`).
    plan: MemoryPlan,
    explain_plan: bool,
    /// The method's declared options with their values (the summary's `options`).
    options: serde_json::Value,
}

impl Job {
    /// The method's declared options with their values, as `summary.json` writes them.
    pub fn method_options(&self) -> &serde_json::Value {
        &self.options
    }
}

/// An input read once ([`Job::prepare`]), ready for any number of jobs.
#[derive(Debug)]
pub struct Sketched {
    prep: Prepared,
    /// The corpus, when the input was one (exact sets and verification read it again).
    corpus: Option<PathBuf>,
    /// How the corpus was read.
    pipeline: PipelineConfig,
    /// Byte offset of every document's line, when the sketch pass recorded them.
    offsets: Option<Vec<u64>>,
    /// Seconds spent preparing.
    seconds: f64,
    /// The preparation's phases: "sketch", and "context" when the context was built while
    /// preparing (see [`preparation_phases`]).
    phases: Vec<Phase>,
    /// What the corpus reader counted (zero for images files).
    input_stats: CorpusStats,
    /// Raw and canonical fingerprints, when the job keeps them and the input is a corpus.
    fingerprints: Option<Fingerprints>,
}

impl Sketched {
    /// Raw and canonical fingerprints of every document (DocId order), when the job keeps
    /// them ([`JobBuilder::keep_fingerprints`]) and the input was a corpus.
    pub fn fingerprints(&self) -> Option<&Fingerprints> {
        self.fingerprints.as_ref()
    }

    /// What the corpus reader counted (zero for images files).
    pub fn input_stats(&self) -> CorpusStats {
        self.input_stats
    }

    /// Byte offset of every document's line, when the sketch pass recorded them.
    pub fn offsets(&self) -> Option<&[u64]> {
        self.offsets.as_deref()
    }

    /// The prepared corpus.
    pub fn prepared(&self) -> &Prepared {
        &self.prep
    }

    /// Drops the prepared corpus's context ([`Prepared::drop_context`]).
    pub fn drop_context(&mut self) {
        self.prep.drop_context();
    }

    /// The external ids, in DocId order.
    pub fn ext_ids(&self) -> &[String] {
        self.prep.ext_ids()
    }

    /// Number of documents.
    pub fn n_docs(&self) -> usize {
        self.prep.n_docs()
    }

    /// The external ids, in DocId order, taken out of the prepared input.
    pub fn into_ext_ids(self) -> Vec<String> {
        self.prep.into_ext_ids()
    }

    /// Seconds spent preparing (sketching, or reading images files).
    pub fn seconds(&self) -> f64 {
        self.seconds
    }

    /// The preparation's phases, first of a run's: "sketch" (reading and sketching the
    /// corpus, or reading the images), then "context" when the context was built in
    /// passes while preparing.
    pub fn phases(&self) -> &[Phase] {
        &self.phases
    }

    /// Where verification reads the documents again.
    fn source(&self) -> Result<CorpusSource<'_>> {
        let path = self.corpus.as_deref().ok_or_else(|| {
            Error::config("exact verification needs the documents, not an images file")
        })?;
        Ok(CorpusSource {
            path,
            corpus: &self.pipeline.corpus,
            text: &self.pipeline.text,
            shingle: &self.prep.params().shingle,
            offsets: self.offsets.as_deref(),
            ext_ids: Some(self.prep.ext_ids()),
        })
    }

    /// Loads the full shingle sets (for `exact`) unless loaded already.
    fn ensure_sets(&mut self) -> Result<()> {
        if self.prep.has_sets() {
            return Ok(());
        }
        self.load_sets()
    }

    /// Loads the full shingle sets (what `exact` reads) from the corpus again, in place of
    /// any loaded before (dropped first): what a sweep times apart from the runs. A run of
    /// a method that reads them loads them when they are not loaded.
    pub fn load_sets(&mut self) -> Result<()> {
        self.prep.drop_sets();
        let path = self.corpus.as_deref().ok_or_else(|| {
            Error::config(
                "the exact join needs the documents' full shingle sets: give a corpus, not an images file",
            )
        })?;
        let p = &self.pipeline;
        let sets = load_sets(path, &p.corpus, &p.text, &self.prep.params().shingle, None)?;
        self.prep
            .set_sets(sets.into_iter().map(|(_, s)| s).collect())
    }
}

pub use super::job_output::JobOutput;

impl Job {
    /// The method.
    pub fn method(&self) -> Method {
        self.cluster.method
    }

    /// The method's options, with the threshold as given (not the candidate threshold).
    pub fn cluster_config(&self) -> &ClusterConfig {
        &self.cluster
    }

    /// How documents become images.
    pub fn pipeline(&self) -> &PipelineConfig {
        &self.pipeline
    }

    /// The memory budget and the temporary directory.
    pub fn spill_config(&self) -> &SpillConfig {
        &self.spill
    }

    /// Which documents are collapsed before clustering.
    pub fn equivalence(&self) -> Equivalence {
        self.equivalence
    }

    /// The verified threshold, with exact verification.
    pub fn verified_threshold(&self) -> Option<f64> {
        self.verify_at
    }

    /// Whether candidates are verified exactly.
    pub fn verifies(&self) -> bool {
        self.verify_at.is_some()
    }

    /// Reads `input` once (see the module docs); `progress` is told the documents read so
    /// far while a corpus is sketched.
    pub fn prepare(&self, input: &Input, progress: &(dyn Fn(u64) + Sync)) -> Result<Sketched> {
        let pipeline = &self.pipeline;
        self.prepare_by(input, &mut |path, sink| {
            sketch_stream(path, pipeline, progress, sink)
        })
    }

    /// [`Job::prepare`], the corpus sketched by `stream` (which feeds a sink as
    /// [`sketch_stream`] does): how a multi-process engine prepares a job.
    pub fn prepare_by(
        &self,
        input: &Input,
        stream: &mut dyn FnMut(&Path, &mut dyn SketchSink) -> Result<SketchStats>,
    ) -> Result<Sketched> {
        let t0 = Instant::now();
        let method = self.cluster.method;
        let mut input_stats = CorpusStats::default();
        let mut fingerprints = None;
        let eq = self.equivalence;
        // Concept and union-find by resemblance need only the inverted context: under a
        // budget (or from images files) it is built in passes over the images on disk
        // instead of holding them.
        // Not on b-bit images: their pairs come from blocks of the positional images
        // (`bbit_pairs`), not from the context.
        let bbit = match input {
            Input::Images(paths) => ImageInputs::open(paths)?.params().sketch.bits.is_some(),
            Input::Corpus(_) => self.pipeline().sketch.bits.is_some(),
        };
        let streamed = !bbit
            && method.reads() == Reads::Elements
            && self.cluster.measure == Measure::Resemblance;
        let (prep, corpus, offsets) = match input {
            Input::Images(paths) => {
                if self.verify_at.is_some() || method.reads() == Reads::Sets {
                    return Err(Error::config(format!(
                        "{}: {} needs the documents, not an images file",
                        paths[0].display(),
                        if self.verify_at.is_some() {
                            "exact verification"
                        } else {
                            "the exact method"
                        }
                    )));
                }
                let prep = if streamed {
                    Prepared::from_images_streamed_by(
                        paths,
                        &self.cluster.context,
                        &self.spill,
                        None,
                        eq,
                    )?
                } else {
                    let inputs = ImageInputs::open(paths)?;
                    self.check_images_fit(&paths[0], &inputs, 0)?;
                    Prepared::new_by(inputs.read_all()?, None, eq)?
                };
                (prep, None, None)
            }
            Input::Corpus(path) => 'corpus: {
                // Under a budget the images stay in memory while they and the method's
                // working set fit in it (as `check_fit` counts them); past that they go to
                // a temporary images file, keeping only the fingerprints and offsets, and
                // are prepared from the file as above: the same images and the same
                // collapse either way.
                let budget = self.spill.budget;
                // Images held without a budget, as `held_image_bytes` counts them: past
                // that the context-only methods keep their keys on disk (the default plan).
                let fits = |n: u64, held: u64| match budget {
                    Some(b) => needed(HELD_DOC_BYTES * n, held) <= b.0,
                    None => held <= self.held_images,
                };
                // The context-only methods keep just the keys, raw, in a file they read
                // again in passes; under a budget the others keep the images file they read
                // back whole.
                let spill_dir = match budget {
                    Some(_) if !streamed => {
                        Some(crate::spill::SpillDir::new_in(&self.spill.dir())?)
                    }
                    _ => None,
                };
                let file = spill_dir.as_ref().map(|d| d.path().join("corpus.img"));
                let sketched = if streamed {
                    match sketch_held_or_keys_by(
                        path,
                        budget,
                        &self.spill.dir(),
                        eq,
                        &fits,
                        &mut |sink| stream(path, sink),
                    )? {
                        HeldOrKeys::Held(out) => HeldOrFile::Held(out),
                        HeldOrKeys::Keys(s) => {
                            input_stats = s.stats.corpus;
                            // The key file lives in `s.dir` until the context is built.
                            let prep = Prepared::from_key_file(
                                path,
                                s.params,
                                s.ext_ids,
                                s.img_fp,
                                s.keys,
                                &self.cluster.context,
                                &self.spill,
                                Some(&s.prints.fps),
                            )?;
                            if self.keep_fingerprints {
                                fingerprints = Some(s.prints.fps);
                            }
                            break 'corpus (prep, Some(path.clone()), s.prints.offsets);
                        }
                    }
                } else if let Some(file) = &file {
                    sketch_held_or_to_file_by(file, &fits, &mut |sink| stream(path, sink))?
                } else {
                    HeldOrFile::Held(sketch_corpus_by(&mut |sink| stream(path, sink))?)
                };
                match sketched {
                    HeldOrFile::Held(out) => {
                        input_stats = out.stats.corpus;
                        let n = out.images.images.len() as u64;
                        let mut extra = HELD_DOC_BYTES * n;
                        if method.reads() == Reads::Sets {
                            extra += EXACT_BYTES_PER_TOKEN * out.stats.tokens;
                        }
                        let p = &out.images.params;
                        self.check_fit(
                            path,
                            n,
                            p.sketch
                                .scheme
                                .values_of(p.sketch.size)
                                .unwrap_or(p.sketch.size),
                            p.sketch.scheme.is_positional() || p.sketch.scheme.is_fingerprint(),
                            extra,
                        )?;
                        let prep = Prepared::new_by(out.images, Some(&out.fingerprints), eq)?;
                        if self.keep_fingerprints {
                            fingerprints = Some(out.fingerprints);
                        }
                        (prep, Some(path.clone()), out.offsets)
                    }
                    HeldOrFile::File(stats, prints, _) => {
                        input_stats = stats.corpus;
                        // A file is written only under a budget, where `file` is set.
                        let files: Vec<PathBuf> = file.into_iter().collect();
                        let prep = if streamed {
                            Prepared::from_images_streamed_by(
                                &files,
                                &self.cluster.context,
                                &self.spill,
                                Some(&prints.fps),
                                eq,
                            )?
                        } else {
                            let inputs = ImageInputs::open(&files)?;
                            // Offsets and fingerprints; the exact join also holds every
                            // full shingle set (8 bytes a shingle) and its working set,
                            // measured at about seven times that.
                            let mut extra = HELD_DOC_BYTES * inputs.declared_count().unwrap_or(0);
                            if method.reads() == Reads::Sets {
                                extra += EXACT_BYTES_PER_TOKEN * stats.tokens;
                            }
                            self.check_images_fit(path, &inputs, extra)?;
                            Prepared::new_by(inputs.read_all()?, Some(&prints.fps), eq)?
                        };
                        if self.keep_fingerprints {
                            fingerprints = Some(prints.fps);
                        }
                        (prep, Some(path.clone()), prints.offsets)
                    }
                }
            }
        };
        let seconds = t0.elapsed().as_secs_f64();
        Ok(Sketched {
            phases: preparation_phases(seconds, &prep),
            prep,
            corpus,
            pipeline: self.pipeline.clone(),
            offsets,
            seconds,
            input_stats,
            fingerprints,
        })
    }

    /// Under a budget, an error when holding every image of `inputs` (plus `extra` bytes)
    /// cannot fit in it, before they are read.
    fn check_images_fit(&self, path: &Path, inputs: &ImageInputs, extra: u64) -> Result<()> {
        if self.spill.budget.is_none() {
            return Ok(());
        }
        // A compressed images file does not say its count: read it and count.
        let n = match inputs.declared_count() {
            Some(n) => n,
            None => ImageInputs::open(&inputs.paths())?.for_each(|_, _, _| Ok(()))?,
        };
        let params = inputs.params();
        self.check_fit(
            path,
            n,
            params
                .sketch
                .scheme
                .values_of(params.sketch.size)
                .unwrap_or(params.sketch.size),
            params.sketch.scheme.is_positional() || params.sketch.scheme.is_fingerprint(),
            extra,
        )
    }

    /// Under a budget, an error when holding `n` images of `size` elements (plus `extra`
    /// bytes) cannot fit in it.
    fn check_fit(
        &self,
        path: &Path,
        n: u64,
        size: usize,
        positional: bool,
        extra: u64,
    ) -> Result<()> {
        let Some(budget) = self.spill.budget else {
            return Ok(());
        };
        // Per document: the external id, and the image values (keys and, for positional
        // schemes, the positional values too), each a vector ([`held_image_bytes`]).
        let need = needed(extra, n * held_image_bytes(size, positional));
        if need > budget.0 {
            return Err(Error::Budget(format!(
                "{}: {} holds {} in memory: it needs at least {} MiB for {} documents, more than the memory budget ({})",
                path.display(),
                self.cluster.method,
                if self.cluster.method.reads() == Reads::Sets {
                    "every document's full shingle set"
                } else {
                    "every image"
                },
                need.div_ceil(1 << 20),
                n,
                budget
            )));
        }
        Ok(())
    }

    /// The threshold the method runs at: the candidate threshold with verification, else
    /// the threshold itself.
    fn run_threshold(&self, s: &Sketched) -> Threshold {
        let params = s.prep.params();
        self.threshold_at(match params.sketch.scheme {
            Scheme::ModM => 0,
            _ => params.sketch.size,
        })
    }

    /// The threshold the method runs at over images of `n` elements (0 for mod-m): under
    /// exact verification the candidate threshold (given, or the verified one lowered by
    /// [`VERIFY_SIGMAS`] standard errors), else the threshold.
    pub fn threshold_at(&self, n: usize) -> Threshold {
        match self.verify_at {
            Some(t) => Threshold::Resemblance(
                self.candidate
                    .unwrap_or_else(|| candidate_threshold(t, n, VERIFY_SIGMAS)),
            ),
            None => self.cluster.threshold,
        }
    }

    /// Runs the method (and verification) on a prepared input; the exact method loads the
    /// full shingle sets into `s` the first time.
    pub fn run_on(&self, s: &mut Sketched) -> Result<ClusterOutput> {
        let t0 = Instant::now();
        let method = self.cluster.method;
        if method.reads() == Reads::Sets {
            s.ensure_sets()?;
        }
        let sets_secs = t0.elapsed().as_secs_f64();
        let mut cfg = self.cluster;
        cfg.threshold = self.run_threshold(s);
        // What the prepared corpus holds counts against the budget.
        let held = s.prep.heap_bytes()
            + s.offsets.as_ref().map_or(0, |o| 8 * o.len() as u64)
            + s.fingerprints
                .as_ref()
                .map_or(0, |f| 8 * (f.raw.len() + f.canonical.len()) as u64);
        let mut out = s
            .prep
            .run(&cfg, &self.spill.less(self.spill.in_use(held)))?;
        if method.reads() == Reads::Sets {
            out.summary
                .phases
                .insert(0, Phase::ended("shingle sets", sets_secs));
        }
        if let Some(t) = self.verify_at {
            let tv = Instant::now();
            let regroup = Regroup::for_method(method, cfg.lsh.grouping == Grouping::UnionFind);
            if s.prep.has_sets() {
                // The full sets are in memory already (loaded for the exact method on this
                // prepared corpus): verify from them instead of reading the corpus again.
                let prep = &s.prep;
                let fetch = |d: crate::DocId| -> Result<Vec<u64>> {
                    Ok(prep.set_of(d).unwrap_or_default().to_vec())
                };
                verify_output(&mut out, fetch, t, regroup, Some(prep.collapse()))?;
            } else {
                // What is resident counts, not only what is known to be held
                // (`SpillConfig::room`).
                let budget = Some(self.spill.hand("verify", verify_bytes(&self.spill, held)));
                verify_with_corpus(
                    &mut out,
                    &s.source()?,
                    t,
                    regroup,
                    budget,
                    Some(s.prep.collapse()),
                )?;
            }
            if let Threshold::Resemblance(tc) = cfg.threshold {
                out.summary.candidate_threshold = Some(tc);
            }
            out.summary.threshold = Some(t);
            out.summary
                .phases
                .push(Phase::ended("verify", tv.elapsed().as_secs_f64()));
        }
        Ok(out)
    }

    /// The memory plan of this job.
    pub fn plan(&self) -> &MemoryPlan {
        &self.plan
    }

    /// What the plan knows of a prepared input.
    pub fn facts(&self, s: &Sketched) -> Facts {
        let docs = s.n_docs() as u64;
        let image_len = s.pipeline.sketch.size;
        let reads = self.cluster.method.reads();
        Facts {
            docs,
            id_text_bytes: s.ext_ids().iter().map(|i| i.len() as u64).sum(),
            image_len,
            positional: s.pipeline.sketch.scheme.is_positional(),
            incidences: docs * image_len as u64,
            tokens: crate::plan::tokens_of_text(s.input_stats.text_bytes),
            holds_images: matches!(reads, Reads::Positional | Reads::Images),
            holds_sets: reads == Reads::Sets,
            verify: self.verify_at.is_some(),
        }
    }

    /// The plan of `facts` beside what the stages were handed and the measured peak of
    /// each phase (`phases`).
    pub fn explain(&self, facts: &Facts, phases: &[Phase]) -> serde_json::Value {
        let mut v = self.plan.explain(facts, &self.spill.ledger);
        v["measured"] = phases
            .iter()
            .map(|p| serde_json::json!({"stage": p.name, "peak_rss_bytes": p.peak_rss_bytes}))
            .collect();
        v
    }

    /// Prepares `input` and runs the job on it: the output with the preparation in its
    /// phases ("sketch"), the seconds end to end and the peak memory. A corpus in object
    /// storage is staged whole for the run ([`crate::corpus::remote`]).
    pub fn run(&self, input: &Input, progress: &(dyn Fn(u64) + Sync)) -> Result<JobOutput> {
        let t0 = Instant::now();
        let run = |input: &Input| {
            let s = self.prepare(input, progress)?;
            self.finish(t0, s, None)
        };
        match input {
            Input::Corpus(p) => {
                let tmp = self.spill.tmp_dir.as_deref();
                crate::corpus::remote::with_staged(p, &self.pipeline.corpus, tmp, |local| {
                    run(&Input::Corpus(local.to_path_buf()))
                })
            }
            Input::Images(_) => run(input),
        }
    }

    /// Runs the method on a prepared input into a [`JobOutput`] (the run began at `t0`),
    /// with what a multi-process engine adds to the summary.
    pub fn finish(
        &self,
        t0: Instant,
        mut s: Sketched,
        distributed: Option<serde_json::Value>,
    ) -> Result<JobOutput> {
        let mut output = self.run_on(&mut s)?;
        let run = std::mem::take(&mut output.summary.phases);
        output.summary.phases = with_preparation(s.phases(), run);
        let scheme = s.prep.scheme();
        let input_stats = s.input_stats;
        let memory_plan = self
            .explain_plan
            .then(|| self.explain(&self.facts(&s), &output.summary.phases));
        Ok(JobOutput {
            memory_plan,
            options: self.options.clone(),
            distributed,
            input_stats,
            output,
            scheme,
            ext_ids: s.into_ext_ids(),
            seconds: t0.elapsed().as_secs_f64(),
            peak_rss_bytes: crate::spill::peak_rss_bytes(),
            in_parts: false,
        })
    }
}
