//! `fimdup._fimdup`: the native half of the Python package. Every call turns its options
//! into the library's configurations (built and validated by the library) and runs the
//! library's own job ([`fimdup::cluster::Job`], [`fimdup::dedup::Dedup`],
//! [`fimdup::report::run_sweep`], [`fimdup::mine::mine`], [`fimdup::index::Index`]); the
//! Python half (`fimdup/__init__.py`) turns Python inputs into a `Corpus` (`corpus.rs`) and the raw
//! results into numpy arrays, pyarrow tables and lists.
//!
//! Invariants: the GIL is released while the library works (`threads` chooses the rayon
//! pool: all cores by default); library errors become Python exceptions with the library's
//! messages (`errors.rs`); results are handed over in the library's own order, which is the
//! order of the files the CLI writes; no default is written here: the options come from
//! Python, whose defaults are the library's (`options::defaults`).

mod corpus;
mod errors;
mod jobs;
mod mine;
mod options;
mod pool;
mod rindex;

use pyo3::prelude::*;

/// The module.
#[pymodule]
fn _fimdup(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("FormatError", py.get_type::<errors::FormatError>())?;
    m.add("LimitError", py.get_type::<errors::LimitError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("__git_hash__", fimdup::GIT_HASH)?;
    m.add_class::<corpus::Corpus>()?;
    m.add_class::<jobs::Images>()?;
    m.add_class::<jobs::ClusterResult>()?;
    m.add_class::<jobs::DedupResult>()?;
    m.add_class::<jobs::TruthArg>()?;
    m.add_class::<rindex::Index>()?;
    m.add_function(wrap_pyfunction!(jobs::sketch, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::cluster, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::dedup, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::sweep, m)?)?;
    m.add_function(wrap_pyfunction!(mine::mine, m)?)?;
    m.add_function(wrap_pyfunction!(mine::mine_file, m)?)?;
    m.add_function(wrap_pyfunction!(options::defaults, m)?)?;
    Ok(())
}
