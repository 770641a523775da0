//! [`JobOptions`]: a clustering job described by named options with the command's defaults,
//! as every entry point receives them (`fimdup cluster` / `dedup` flags, the Python
//! package's keyword arguments); [`JobOptions::builder`] makes the [`JobBuilder`] that
//! validates them, so the translation from options to a job is written once.
//!
//! Invariant: the defaults are those of [`ClusterConfig::default`] (and its parts), stated
//! there once; the command's flags and the Python package's keywords take them from
//! [`JobOptions::default`]: concept at resemblance 0.8, no verification, at most 1,000,000
//! itemsets and 50,000,000 pairs, LSH false-negative weight 0.5 and center grouping, no
//! memory budget. A method's own options (`bands`, `max_itemsets`, `hamming`...) are the
//! flattened [`MethodValues`], defaulted and checked from the method's declarations.

use std::path::PathBuf;
use std::str::FromStr;

use super::declared::MethodValues;
use super::{ClusterConfig, JobBuilder, Measure, Method, Threshold, Verify};
use crate::sketch::by_name;
use crate::sketch::pipeline::PipelineConfig;
use crate::spill::{MemoryBudget, SpillConfig};
use crate::{Error, Result};

/// Every option of a clustering job but the pipeline (see the module docs); serialized by
/// the names the command takes ([`crate::defaults`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct JobOptions {
    /// The method.
    #[serde(with = "by_name")]
    pub method: Method,
    /// Resemblance threshold (`None`: 0.8 unless `min_common` is given).
    pub threshold: Option<f64>,
    /// The paper's absolute k instead of a threshold.
    pub min_common: Option<u32>,
    /// What the threshold measures.
    #[serde(with = "by_name")]
    pub measure: Measure,
    /// Exact verification of the candidates.
    #[serde(with = "by_name::option")]
    pub verify: Option<Verify>,
    /// With verification: the threshold candidates are found at.
    pub candidate_threshold: Option<f64>,
    /// Drop image elements held by more than this many documents.
    pub max_df: Option<u32>,
    /// Stop when the clusters have more member pairs than this.
    pub max_pairs: u64,
    /// Bound on the run's memory.
    #[serde(with = "by_name::option")]
    pub memory_budget: Option<MemoryBudget>,
    /// Where spilled runs go.
    pub tmp_dir: Option<PathBuf>,
    /// Key-range partitions of the context build instead of the memory plan's passes
    /// (the same output for any count).
    pub partitions: Option<usize>,
    /// Add the memory plan, and what each stage used, to the summary of a clustering
    /// (`memory_plan`; a deduplication's summary does not carry it).
    pub explain_plan: bool,
    /// The method's own options, by the names its file declares ([`super::declared`]);
    /// any other key lands here too and is refused when the job is built.
    #[serde(flatten)]
    pub options: MethodValues,
}

impl Default for JobOptions {
    /// [`ClusterConfig::default`]'s values (see the module docs).
    fn default() -> Self {
        let c = ClusterConfig::default();
        JobOptions {
            method: c.method,
            threshold: None,
            min_common: None,
            measure: c.measure,
            verify: None,
            candidate_threshold: None,
            max_df: c.context.max_df,
            max_pairs: c.max_pairs.expect("the default caps the pairs"),
            memory_budget: None,
            tmp_dir: None,
            partitions: None,
            explain_plan: false,
            options: MethodValues::default(),
        }
    }
}

impl JobOptions {
    /// The threshold: `min_common` when given, else the resemblance (default
    /// [`Threshold::default`], 0.8).
    pub fn threshold(&self) -> Result<Threshold> {
        match (self.threshold, self.min_common) {
            (Some(_), Some(_)) => Err(Error::config("give a threshold or min_common, not both")),
            (_, Some(k)) => Ok(Threshold::MinCommon(k)),
            (Some(t), None) => Ok(Threshold::Resemblance(t)),
            (None, None) => Ok(Threshold::default()),
        }
    }

    /// The job's options but the method's own (not yet checked: [`JobBuilder::build`]
    /// checks them and adds the method's).
    pub fn cluster_config(&self) -> Result<ClusterConfig> {
        let mut cfg = ClusterConfig {
            method: self.method,
            threshold: self.threshold()?,
            measure: self.measure,
            max_pairs: Some(self.max_pairs),
            ..ClusterConfig::default()
        };
        cfg.context.max_df = self.max_df;
        Ok(cfg)
    }

    /// The job on images made by `pipeline` (see [`crate::sketch::PipelineOptions::config`]
    /// with [`Method::default_scheme`] of [`JobOptions::method`]).
    pub fn builder(&self, pipeline: PipelineConfig) -> Result<JobBuilder> {
        let mut b = JobBuilder::new(self.method);
        b.cluster(self.cluster_config()?)
            .pipeline(pipeline)
            .method_options(self.options.clone())
            .verify(self.verify)
            .candidate_threshold(self.candidate_threshold)
            .spill(SpillConfig::new(self.memory_budget, self.tmp_dir.clone())?)
            .partitions(self.partitions)
            .explain_plan(self.explain_plan);
        Ok(b)
    }
}

impl std::fmt::Display for Verify {
    /// The name [`FromStr`] reads.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verify::Exact => "exact",
        })
    }
}

impl FromStr for Verify {
    type Err = Error;

    /// `exact`.
    fn from_str(s: &str) -> Result<Verify> {
        match s {
            "exact" => Ok(Verify::Exact),
            _ => Err(Error::config(format!(
                "unknown verification {s:?}: expected exact"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sketch::{PipelineOptions, Scheme};

    #[test]
    fn named_options_make_the_job_the_command_makes() {
        let o: JobOptions = serde_json::from_str(
            r#"{"method":"lsh","threshold":0.7,"verify":"exact","memory_budget":"1GiB"}"#,
        )
        .unwrap();
        assert_eq!(o.method, Method::Lsh);
        assert_eq!(o.verify, Some(Verify::Exact));
        let p = PipelineOptions::default()
            .config(Default::default(), o.method.default_scheme())
            .unwrap();
        assert_eq!(p.sketch.scheme, Scheme::KMins);
        let job = o.builder(p.clone()).unwrap().build().unwrap();
        assert_eq!(job.verified_threshold(), Some(0.7));
        let both: JobOptions = serde_json::from_str(r#"{"threshold":0.7,"min_common":3}"#).unwrap();
        assert!(both.threshold().is_err());
        assert_eq!(
            serde_json::from_str::<JobOptions>("{}").unwrap(),
            JobOptions::default()
        );
        assert!(serde_json::from_str::<JobOptions>(r#"{"method":"nope"}"#).is_err());
        // a method's own option by its declared name; an unknown key is refused at build
        let l: JobOptions = serde_json::from_str(r#"{"method":"lsh","bands":16}"#).unwrap();
        let job = l.builder(p.clone()).unwrap().build().unwrap();
        assert_eq!(job.cluster_config().lsh.bands_rows, Some((16, 8)));
        assert_eq!(job.method_options()["bands"], 16);
        assert_eq!(job.method_options()["grouping"], "center");
        let u: JobOptions = serde_json::from_str(r#"{"method":"lsh","bandz":16}"#).unwrap();
        let e = u
            .builder(p.clone())
            .unwrap()
            .build()
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown option \"bandz\""), "{e}");
        // written by name, read back the same
        let v = serde_json::to_value(&o).unwrap();
        assert_eq!(v["method"], "lsh");
        assert_eq!(v["memory_budget"], "1GiB");
        assert_eq!(serde_json::from_value::<JobOptions>(v).unwrap(), o);
    }
}
