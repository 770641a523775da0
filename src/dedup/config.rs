//! [`DedupBuilder`] -> [`Dedup`]: the clustering job, the keep policy, per-cluster mode, the
//! index to deduplicate against and the output format, validated in one place; the same
//! options by name ([`DedupOptions`]) as the command and the Python package receive them.
//!
//! Invariant: a built [`Dedup`] runs a job that keeps the fingerprints (for the removal
//! reasons) and collapses only lexically-equivalent documents when its scores are exact
//! (verification, the exact method), so that a group's scores hold for all its members.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use crate::cluster::{Equivalence, Job, JobBuilder, Reads, Threshold};
use crate::{Error, Result};

/// Which document of a group of near-duplicates is kept: documents are taken in this order,
/// and a document is kept unless it resembles one taken before it that was kept.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Keep {
    /// Input order (the first occurrence is kept).
    #[default]
    First,
    /// The longest text (in bytes) first; ties in input order.
    Longest,
    /// The shortest text first; ties in input order.
    Shortest,
    /// By the value of a field (JSONL field, CSV/TSV column, Parquet column; nested fields
    /// as `a.b`), ascending or descending; numbers before strings, documents without the
    /// field last; ties in input order.
    Field {
        /// The field name.
        name: String,
        /// Largest value first.
        descending: bool,
    },
}

impl FromStr for Keep {
    type Err = Error;

    /// `first`, `longest`, `shortest`, `field:NAME`, `field:NAME:asc`, `field:NAME:desc`.
    fn from_str(s: &str) -> Result<Keep> {
        match s {
            "first" => return Ok(Keep::First),
            "longest" => return Ok(Keep::Longest),
            "shortest" => return Ok(Keep::Shortest),
            _ => {}
        }
        let bad = || {
            Error::config(format!(
                "unknown keep policy {s:?}; expected first, longest, shortest or field:NAME[:asc|:desc]"
            ))
        };
        let rest = s.strip_prefix("field:").ok_or_else(bad)?;
        let (name, descending) = match rest.rsplit_once(':') {
            Some((n, "desc")) => (n, true),
            Some((n, "asc")) => (n, false),
            _ => (rest, false),
        };
        if name.is_empty() {
            return Err(bad());
        }
        Ok(Keep::Field {
            name: name.to_string(),
            descending,
        })
    }
}

impl fmt::Display for Keep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Keep::First => f.write_str("first"),
            Keep::Longest => f.write_str("longest"),
            Keep::Shortest => f.write_str("shortest"),
            Keep::Field { name, descending } => {
                write!(
                    f,
                    "field:{name}:{}",
                    if *descending { "desc" } else { "asc" }
                )
            }
        }
    }
}

/// The value a document has for a [`Keep::Field`] policy.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyValue {
    /// The document has no such field (or it is null): taken last.
    Missing,
    /// A number (JSON number, numeric CSV value, Parquet numeric column).
    Num(f64),
    /// Anything else, as text.
    Str(String),
}

/// The format of the kept documents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum OutFormat {
    /// The input's format and compression (a directory: a directory of the kept files).
    #[default]
    Same,
    /// JSON lines (`{"id":..,"text":..}`, or every column of a Parquet row; a JSONL
    /// input's records as they are).
    Jsonl,
    /// Parquet (a Parquet input's schema; else the columns of the JSONL records, or `id`
    /// and `text`).
    Parquet,
}

impl OutFormat {
    /// The name the command takes.
    pub fn name(self) -> &'static str {
        match self {
            OutFormat::Same => "same",
            OutFormat::Jsonl => "jsonl",
            OutFormat::Parquet => "parquet",
        }
    }
}

impl fmt::Display for OutFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for OutFormat {
    type Err = Error;

    /// `same`, `jsonl` or `parquet`.
    fn from_str(s: &str) -> Result<OutFormat> {
        [OutFormat::Same, OutFormat::Jsonl, OutFormat::Parquet]
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                Error::config(format!(
                    "unknown output format {s:?}; expected same, jsonl or parquet"
                ))
            })
    }
}

/// A deduplication's own options (beyond its clustering job) by name, as every entry point
/// receives them (`fimdup dedup` flags, the Python `dedup` keywords), with the defaults of
/// [`DedupBuilder::new`] (each type's own default: [`Keep::First`], [`OutFormat::Same`]);
/// read and written by the names the command takes ([`crate::defaults`]).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DedupOptions {
    /// Which document of near-duplicates is kept.
    #[serde(with = "crate::sketch::by_name")]
    pub keep: Keep,
    /// One document per cluster of the method instead of the greedy choice.
    pub per_cluster: bool,
    /// Also remove documents resembling a document of this index.
    pub against: Option<PathBuf>,
    /// The format of the kept documents.
    #[serde(with = "crate::sketch::by_name")]
    pub out_format: OutFormat,
}

impl DedupOptions {
    /// The deduplication by `job` with these options (checked by [`DedupBuilder::build`]).
    pub fn builder(&self, job: JobBuilder) -> DedupBuilder {
        let mut b = DedupBuilder::new(job);
        b.keep(self.keep.clone())
            .per_cluster(self.per_cluster)
            .against(self.against.clone())
            .out_format(self.out_format);
        b
    }
}

/// Builds a [`Dedup`].
#[derive(Clone, Debug)]
pub struct DedupBuilder {
    job: JobBuilder,
    keep: Keep,
    per_cluster: bool,
    against: Option<PathBuf>,
    out_format: OutFormat,
}

impl DedupBuilder {
    /// Deduplication by the clustering job `job` (its method, threshold, verification,
    /// pipeline and memory budget).
    pub fn new(job: JobBuilder) -> DedupBuilder {
        DedupBuilder {
            job,
            keep: Keep::default(),
            per_cluster: false,
            against: None,
            out_format: OutFormat::default(),
        }
    }

    /// The keep policy (default [`Keep::First`]).
    pub fn keep(&mut self, k: Keep) -> &mut Self {
        self.keep = k;
        self
    }

    /// Keep one document per cluster of the method instead (see the module docs).
    pub fn per_cluster(&mut self, yes: bool) -> &mut Self {
        self.per_cluster = yes;
        self
    }

    /// Also remove documents that resemble a document of the index at `dir`.
    pub fn against(&mut self, dir: Option<PathBuf>) -> &mut Self {
        self.against = dir;
        self
    }

    /// The format of the kept documents.
    pub fn out_format(&mut self, f: OutFormat) -> &mut Self {
        self.out_format = f;
        self
    }

    /// Checks every setting.
    pub fn build(&self) -> Result<Dedup> {
        let probe = self.job.build()?;
        let exact_scores = probe.verifies() || probe.method().reads() == Reads::Sets;
        let mut jb = self.job.clone();
        jb.keep_fingerprints(true).equivalence(if exact_scores {
            Equivalence::Lexical
        } else {
            Equivalence::Shingle
        });
        let job = jb.build()?;
        let threshold = match job.cluster_config().threshold {
            Threshold::Resemblance(t) => Some(t),
            Threshold::MinCommon(_) => None,
        };
        if self.against.is_some() && threshold.is_none() {
            return Err(Error::config(
                "deduplicating against an index needs a resemblance threshold, not an absolute min-common k",
            ));
        }
        if job.cluster_config().measure != crate::cluster::Measure::Resemblance {
            return Err(Error::config(
                "deduplication removes documents by resemblance; the containment measure is not supported",
            ));
        }
        if cfg!(not(feature = "parquet")) && self.out_format == OutFormat::Parquet {
            return Err(Error::config(
                "--out-format parquet needs a build with the `parquet` feature (`--features parquet`, or `--features full`)",
            ));
        }
        Ok(Dedup {
            job,
            keep: self.keep.clone(),
            per_cluster: self.per_cluster,
            against: self.against.clone(),
            out_format: self.out_format,
            threshold,
        })
    }
}

/// A validated deduplication (see the module docs); made by [`DedupBuilder`].
#[derive(Clone, Debug)]
pub struct Dedup {
    pub(super) job: Job,
    pub(super) keep: Keep,
    pub(super) per_cluster: bool,
    pub(super) against: Option<PathBuf>,
    pub(super) out_format: OutFormat,
    /// The resemblance threshold, when given as one.
    pub(super) threshold: Option<f64>,
}

impl Dedup {
    /// The clustering job.
    pub fn job(&self) -> &Job {
        &self.job
    }

    /// The format the kept records are written in.
    pub fn out_format(&self) -> OutFormat {
        self.out_format
    }

    /// The keep policy.
    pub fn keep_policy(&self) -> &Keep {
        &self.keep
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_policies_parse_and_print() {
        for (s, want) in [
            ("first", "first"),
            ("longest", "longest"),
            ("shortest", "shortest"),
            ("field:score", "field:score:asc"),
            ("field:meta.date:desc", "field:meta.date:desc"),
            ("field:a:b:asc", "field:a:b:asc"),
        ] {
            assert_eq!(s.parse::<Keep>().unwrap().to_string(), want);
        }
        for bad in ["", "last", "field:", "field::desc", "Longest"] {
            let e = bad.parse::<Keep>().unwrap_err().to_string();
            assert!(e.contains("keep policy"), "{bad}: {e}");
        }
    }
}
