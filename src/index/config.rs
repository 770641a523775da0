//! Build-time options of an index ([`IndexConfig`]) and what it records of each sweep
//! ([`Sweep`], [`CorpusSpec`]: enough to read the sweep's corpus again).

use crate::corpus::{CorpusConfig, DuplicateIds, Format};
use crate::{Error, Result};

/// Build-time options of an index; serialized by the names the command takes
/// ([`crate::defaults`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct IndexConfig {
    /// Resemblance threshold of the clusters (and of the LSH band choice); in `(0, 1]`.
    pub threshold: f64,
    /// Keep a second, mod-m image per document so that containment can be estimated
    /// whatever the main scheme (ignored when the main scheme is mod-m).
    pub containment: bool,
    /// Modulus of the containment images.
    pub containment_modulus: u64,
    /// Record each document's source (corpus path + ordinal) for exact queries.
    pub keep_sources: bool,
}

impl Default for IndexConfig {
    fn default() -> Self {
        IndexConfig {
            threshold: 0.5,
            containment: false,
            containment_modulus: crate::sketch::SketchConfig::default().modulus,
            keep_sources: false,
        }
    }
}

impl IndexConfig {
    /// Checks the threshold and the modulus.
    pub fn validate(&self) -> Result<()> {
        check_threshold(self.threshold)?;
        if self.containment && self.containment_modulus == 0 {
            return Err(Error::config("containment modulus must be >= 1"));
        }
        Ok(())
    }
}

/// Checks a threshold is in `(0, 1]`.
pub(super) fn check_threshold(t: f64) -> Result<()> {
    if !(t > 0.0 && t <= 1.0) {
        return Err(Error::config(format!(
            "threshold must be in (0, 1], not {t}"
        )));
    }
    Ok(())
}

/// One sweep (crawl) added to the index.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Sweep {
    /// The user's tag (e.g. a crawl date); defaults to `sweep-<number>`.
    pub tag: String,
    /// The corpus path as given (absolute when sources are kept).
    pub input: String,
    /// Corpus options needed to read it again (`--exact`).
    pub corpus: CorpusSpec,
    /// Documents read.
    pub documents: u64,
    /// Documents stored as new DocIds (new or changed).
    pub added: u64,
    /// A batch ([`Index::add_batch`](super::Index::add_batch)): new documents, not a
    /// complete crawl, so nothing is lost by it and the next complete sweep reports what
    /// the sweep before the batch (and the batches since) held and it lacks.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub batch: bool,
}

/// The serializable part of a [`CorpusConfig`].
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CorpusSpec {
    /// Format name, `None` = guessed from the extension.
    pub format: Option<String>,
    /// JSONL text field.
    pub text_field: String,
    /// JSONL id field.
    pub id_field: String,
    /// CSV/TSV text column.
    pub text_column: String,
    /// CSV/TSV id column.
    pub id_column: String,
    /// Malformed lines skipped.
    pub skip_bad_lines: bool,
    /// What repeated ids got (`error`, `suffix`; `keep`, unchecked, in indexes made before
    /// ids were checked).
    #[serde(default = "keep_ids")]
    pub duplicate_ids: String,
    /// The largest document in bytes (`None`, no limit, in indexes made before there was one).
    #[serde(default)]
    pub max_doc_bytes: Option<u64>,
}

fn keep_ids() -> String {
    DuplicateIds::Keep.name().to_string()
}

impl CorpusSpec {
    /// From a corpus configuration.
    pub fn from_config(c: &CorpusConfig) -> Self {
        CorpusSpec {
            format: c.format.map(|f| f.name().to_string()),
            text_field: c.text_field.clone(),
            id_field: c.id_field.clone(),
            text_column: c.text_column.clone(),
            id_column: c.id_column.clone(),
            skip_bad_lines: c.skip_bad_lines,
            duplicate_ids: c.duplicate_ids.name().to_string(),
            max_doc_bytes: Some(c.max_doc_bytes),
        }
    }

    /// Back to a corpus configuration.
    pub fn to_config(&self) -> Result<CorpusConfig> {
        Ok(CorpusConfig {
            format: self
                .format
                .as_deref()
                .map(str::parse::<Format>)
                .transpose()?,
            text_field: self.text_field.clone(),
            id_field: self.id_field.clone(),
            text_column: self.text_column.clone(),
            id_column: self.id_column.clone(),
            skip_bad_lines: self.skip_bad_lines,
            duplicate_ids: match self.duplicate_ids.as_str() {
                "" => DuplicateIds::Keep,
                s => s.parse()?,
            },
            max_doc_bytes: self.max_doc_bytes.unwrap_or(u64::MAX),
            texts: None,
        })
    }
}
