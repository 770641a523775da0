//! The keyword options of the Python calls, handed over as JSON objects (unknown keys
//! refused) and read into the library's own named options
//! ([`fimdup::sketch::PipelineOptions`], [`fimdup::cluster::JobOptions`],
//! [`fimdup::dedup::DedupOptions`], [`fimdup::eval::EvalOptions`],
//! [`fimdup::report::SweepOptions`]), whose defaults are the library's; [`defaults`] hands
//! every default to Python ([`fimdup::defaults::defaults`]), which builds its signatures
//! from them, so a default is stated once, in the library.

use fimdup::{Error, Result};
use pyo3::prelude::*;
use serde::Deserialize;

/// Parses a JSON object of options.
pub fn parse<T: for<'de> Deserialize<'de>>(json: &str, what: &str) -> Result<T> {
    serde_json::from_str(json).map_err(|e| Error::config(format!("{what} options: {e}")))
}

/// `fimdup._fimdup.defaults()`: the default of every option by group (`corpus`,
/// `pipeline`, `job`, `dedup`, `truth`, `eval`, `sweep`, `index`, `query`, `context`,
/// `mine`, `overlap`), as a dict of dicts.
#[pyfunction]
pub fn defaults(py: Python<'_>) -> PyResult<PyObject> {
    let json = fimdup::defaults::defaults().to_string();
    let loads = py.import("json")?.getattr("loads")?;
    Ok(loads.call1((json,))?.unbind())
}
