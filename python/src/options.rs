//! The keyword options of the Python calls (handed over as JSON objects, unknown keys
//! refused) and the library configurations they make; defaults are the CLI's.

use std::path::PathBuf;

use fimdup::cluster::{ClusterConfig, Grouping, JobBuilder, Measure, Method, Threshold, Verify};
use fimdup::corpus::CorpusConfig;
use fimdup::shingle::ShingleConfig;
use fimdup::sketch::pipeline::PipelineConfig;
use fimdup::sketch::{Scheme, SketchConfig, Weighting};
use fimdup::spill::{MemoryBudget, SpillConfig};
use fimdup::text::{StopWords, TextConfig, Unit};
use fimdup::{Error, Result};
use serde::Deserialize;

/// Parses a JSON object of options.
pub fn parse<T: for<'de> Deserialize<'de>>(json: &str, what: &str) -> Result<T> {
    serde_json::from_str(json).map_err(|e| Error::config(format!("{what} options: {e}")))
}

fn parse_enum<T: std::str::FromStr>(s: &str) -> Result<T>
where
    T::Err: Into<Error>,
{
    s.parse::<T>().map_err(Into::into)
}

/// How documents become images.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, default)]
pub struct SketchOpts {
    pub scheme: Option<String>,
    pub size: usize,
    pub modulus: u64,
    pub unit: String,
    pub shingle_len: Option<usize>,
    pub offset: usize,
    pub seed: u64,
    pub html: bool,
    pub keep_case: bool,
    pub stopwords: Option<String>,
    pub stem: bool,
    pub weighting: Option<String>,
}

impl Default for SketchOpts {
    fn default() -> Self {
        SketchOpts {
            scheme: None,
            size: 128,
            modulus: 25,
            unit: "word".into(),
            shingle_len: None,
            offset: 1,
            seed: 0,
            html: false,
            keep_case: false,
            stopwords: None,
            stem: false,
            weighting: None,
        }
    }
}

impl SketchOpts {
    /// The pipeline reading `corpus`, with `default` as the scheme when none was given.
    pub fn pipeline(&self, corpus: CorpusConfig, default: Scheme) -> Result<PipelineConfig> {
        let unit: Unit = parse_enum(&self.unit)?;
        let stopwords = match &self.stopwords {
            Some(spec) => Some(StopWords::from_spec(spec)?),
            None => None,
        };
        let text = TextConfig {
            html: self.html,
            lowercase: !self.keep_case,
            unit,
            stopwords,
            stem: self.stem,
        };
        let len = self.shingle_len.unwrap_or(match unit {
            Unit::Word => 5,
            Unit::Char => 9,
        });
        let weighting = match self.weighting.as_deref() {
            None => None,
            Some("bag") => Some(Weighting::Bag),
            Some("tfidf" | "tf-idf") => Some(Weighting::TfIdf { total: 100 }),
            Some(w) => {
                return Err(Error::config(format!(
                    "unknown weighting {w:?}: expected bag or tfidf"
                )))
            }
        };
        let sketch = SketchConfig {
            scheme: match &self.scheme {
                Some(s) => parse_enum::<Scheme>(s)?,
                None => default,
            },
            size: self.size,
            modulus: self.modulus,
            seed: self.seed,
            weighting,
        };
        let cfg = PipelineConfig {
            corpus,
            text,
            shingle: ShingleConfig::new(len, self.offset, self.seed)?,
            sketch,
        };
        cfg.validate()?;
        Ok(cfg)
    }
}

/// The clustering job's options (`fimdup cluster`'s flags).
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, default)]
pub struct JobOpts {
    pub method: String,
    pub threshold: Option<f64>,
    pub min_common: Option<u32>,
    pub measure: String,
    pub verify: Option<String>,
    pub candidate_threshold: Option<f64>,
    pub max_df: Option<u32>,
    pub max_itemsets: u64,
    pub max_pairs: u64,
    pub no_split: bool,
    pub bands: Option<u32>,
    pub fn_weight: f64,
    pub grouping: String,
    pub super_per: Option<u32>,
    pub memory_budget: Option<String>,
    pub tmp_dir: Option<PathBuf>,
}

impl Default for JobOpts {
    fn default() -> Self {
        JobOpts {
            method: "concept".into(),
            threshold: None,
            min_common: None,
            measure: "resemblance".into(),
            verify: None,
            candidate_threshold: None,
            max_df: None,
            max_itemsets: 1_000_000,
            max_pairs: 50_000_000,
            no_split: false,
            bands: None,
            fn_weight: 0.5,
            grouping: "center".into(),
            super_per: None,
            memory_budget: None,
            tmp_dir: None,
        }
    }
}

/// `verify=`: None or "exact".
pub fn verify(v: Option<&str>) -> Result<Option<Verify>> {
    match v {
        None => Ok(None),
        Some("exact") => Ok(Some(Verify::Exact)),
        Some(v) => Err(Error::config(format!(
            "unknown verification {v:?}: expected \"exact\" or None"
        ))),
    }
}

/// The spill configuration of `memory_budget` and `tmp_dir`.
pub fn spill(budget: Option<&str>, tmp_dir: Option<PathBuf>) -> Result<SpillConfig> {
    let budget = budget.map(|b| b.parse::<MemoryBudget>()).transpose()?;
    SpillConfig::new(budget, tmp_dir)
}

impl JobOpts {
    /// The job these options describe, reading `corpus` with the sketch options.
    pub fn builder(&self, sketch: &SketchOpts, corpus: CorpusConfig) -> Result<JobBuilder> {
        if self.threshold.is_some() && self.min_common.is_some() {
            return Err(Error::config("give threshold or min_common, not both"));
        }
        let method: Method = parse_enum(&self.method)?;
        let pipeline = sketch.pipeline(corpus, method.default_scheme())?;
        let threshold = match (self.threshold, self.min_common) {
            (_, Some(k)) => Threshold::MinCommon(k),
            (Some(t), None) => Threshold::Resemblance(t),
            (None, None) => Threshold::Resemblance(0.8),
        };
        let mut cfg = ClusterConfig {
            method,
            threshold,
            measure: parse_enum::<Measure>(&self.measure)?,
            max_pairs: Some(self.max_pairs),
            ..ClusterConfig::default()
        };
        cfg.context.max_df = self.max_df;
        cfg.concept.max_itemsets = Some(self.max_itemsets);
        cfg.concept.split_components = !self.no_split;
        cfg.lsh.grouping = parse_enum::<Grouping>(&self.grouping)?;
        cfg.super_shingle.per = self.super_per;
        let mut b = JobBuilder::new(method);
        b.cluster(cfg)
            .pipeline(pipeline)
            .lsh_bands(self.bands)
            .lsh_fn_weight(Some(self.fn_weight))
            .verify(verify(self.verify.as_deref())?)
            .candidate_threshold(self.candidate_threshold)
            .spill(spill(self.memory_budget.as_deref(), self.tmp_dir.clone())?);
        Ok(b)
    }
}

/// A deduplication's own options (`fimdup dedup`'s flags beyond the job's).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields, default)]
pub struct DedupOpts {
    pub keep: Option<String>,
    pub per_cluster: bool,
    pub against: Option<PathBuf>,
}

/// A sweep's options (`fimdup sweep`'s flags).
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, default)]
pub struct SweepOpts {
    pub methods: Vec<String>,
    pub thresholds: String,
    pub min_common: Option<String>,
    pub truth_format: String,
    pub truth_rule: Option<String>,
    pub verify: Option<String>,
    pub labeled_only: bool,
    pub floor: f64,
    pub max_df: Option<u32>,
    pub measure: String,
    pub errors: usize,
}

impl Default for SweepOpts {
    fn default() -> Self {
        SweepOpts {
            methods: ["concept", "union-find", "lsh", "super-shingle", "exact"]
                .map(String::from)
                .to_vec(),
            thresholds: "0.95:0.5:0.05".into(),
            min_common: None,
            truth_format: "auto".into(),
            truth_rule: None,
            verify: None,
            labeled_only: false,
            floor: 0.5,
            max_df: None,
            measure: "resemblance".into(),
            errors: fimdup::report::DEFAULT_ERRORS,
        }
    }
}
