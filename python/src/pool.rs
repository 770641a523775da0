//! `threads=`: the library's work runs on a rayon pool of that many threads (one pool per
//! size, made once), with the GIL released; `None` runs on the global pool (all cores).

use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::marker::Ungil;
use pyo3::prelude::*;

static POOLS: Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(Vec::new());

fn pool(n: usize) -> PyResult<Arc<rayon::ThreadPool>> {
    let mut pools = POOLS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, p)) = pools.iter().find(|(k, _)| *k == n) {
        return Ok(p.clone());
    }
    let p = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .thread_name(|i| format!("fimdup-{i}"))
            .build()
            .map_err(|e| PyValueError::new_err(format!("threads={n}: {e}")))?,
    );
    pools.push((n, p.clone()));
    Ok(p)
}

/// Runs `f` without the GIL on the pool that `threads` names.
pub fn run<T, F>(py: Python<'_>, threads: Option<usize>, f: F) -> PyResult<T>
where
    T: Ungil + Send,
    F: Ungil + Send + FnOnce() -> T,
{
    match threads {
        None => Ok(py.allow_threads(f)),
        Some(0) => Err(PyValueError::new_err("threads must be at least 1")),
        Some(n) => {
            let p = pool(n)?;
            Ok(py.allow_threads(move || p.install(f)))
        }
    }
}
