//! The keyword options of the Python calls, handed over as JSON objects (unknown keys
//! refused) and read into the library's own named options
//! ([`fimdup::sketch::PipelineOptions`], [`fimdup::cluster::JobOptions`],
//! [`fimdup::report::SweepOptions`]), whose defaults are the command's; a deduplication's
//! own options are here.

use std::path::PathBuf;

use fimdup::{Error, Result};
use serde::Deserialize;

/// Parses a JSON object of options.
pub fn parse<T: for<'de> Deserialize<'de>>(json: &str, what: &str) -> Result<T> {
    serde_json::from_str(json).map_err(|e| Error::config(format!("{what} options: {e}")))
}

/// A deduplication's own options (`fimdup dedup`'s flags beyond the job's).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields, default)]
pub struct DedupOpts {
    pub keep: Option<String>,
    pub per_cluster: bool,
    pub against: Option<PathBuf>,
}
