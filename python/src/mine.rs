//! `fimdup.mine`: the FIMI miner on transactions handed over as buffers (items as u32, row
//! offsets as u64) or read from a FIMI file; the itemsets come back sorted as
//! [`fimdup::mine::mine`] sorts them, as three buffers (items, offsets, supports).

use std::path::PathBuf;

use fimdup::fimi::{read_transactions, FimiOptions, Transactions};
use fimdup::mine::{Itemset, MinSupport, MineConfig, Target};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::IntoPy;
use crate::jobs::bytes;
use crate::pool;

fn config(
    minsup: f64,
    absolute: bool,
    target: &str,
    max_itemsets: Option<u64>,
) -> PyResult<MineConfig> {
    let minsup = if absolute {
        if minsup < 1.0 || minsup.fract() != 0.0 {
            return Err(PyValueError::new_err(format!(
                "an absolute minimum support must be a whole number >= 1, not {minsup}"
            )));
        }
        MinSupport::Absolute(minsup as u64)
    } else {
        MinSupport::Relative(minsup)
    };
    let cfg = MineConfig {
        minsup,
        target: target.parse::<Target>().py_err()?,
        max_itemsets,
    };
    cfg.validate().py_err()?;
    Ok(cfg)
}

type Buffers<'py> = (
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
);

fn out<'py>(py: Python<'py>, sets: Vec<Itemset>) -> Buffers<'py> {
    let mut items = Vec::new();
    let mut offsets = Vec::with_capacity(sets.len() + 1);
    offsets.push(0u64);
    for s in &sets {
        items.extend_from_slice(&s.items);
        offsets.push(items.len() as u64);
    }
    let supports: Vec<u32> = sets.iter().map(|s| s.support).collect();
    (bytes(py, &items), bytes(py, &offsets), bytes(py, &supports))
}

fn words<T: Copy + Default, const N: usize>(b: &[u8], from: fn([u8; N]) -> T) -> PyResult<Vec<T>> {
    if !b.len().is_multiple_of(N) {
        return Err(PyValueError::new_err(
            "buffer length is not a whole number of items",
        ));
    }
    Ok(b.chunks_exact(N)
        .map(|c| from(c.try_into().expect("chunks of N bytes")))
        .collect())
}

/// Mines transactions given as items (u32 little-endian) and row offsets (u64).
#[pyfunction]
#[pyo3(signature = (items, offsets, minsup, absolute, target, max_itemsets, threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn mine<'py>(
    py: Python<'py>,
    items: &[u8],
    offsets: &[u8],
    minsup: f64,
    absolute: bool,
    target: &str,
    max_itemsets: Option<u64>,
    threads: Option<usize>,
) -> PyResult<Buffers<'py>> {
    let cfg = config(minsup, absolute, target, max_itemsets)?;
    let items: Vec<u32> = words(items, u32::from_le_bytes)?;
    let offsets: Vec<u64> = words(offsets, u64::from_le_bytes)?;
    if offsets.first() != Some(&0)
        || offsets.windows(2).any(|w| w[0] > w[1])
        || offsets.last().copied() != Some(items.len() as u64)
    {
        return Err(PyValueError::new_err(
            "row offsets do not describe the items",
        ));
    }
    let t = Transactions::from_rows(
        offsets
            .windows(2)
            .map(|w| &items[w[0] as usize..w[1] as usize]),
    );
    let sets = pool::run(py, threads, move || fimdup::mine::mine(&t, &cfg))?.py_err()?;
    Ok(out(py, sets))
}

/// Mines a FIMI file (`*.gz` decompressed).
#[pyfunction]
#[pyo3(signature = (path, minsup, absolute, target, max_itemsets, threads=None))]
pub fn mine_file<'py>(
    py: Python<'py>,
    path: PathBuf,
    minsup: f64,
    absolute: bool,
    target: &str,
    max_itemsets: Option<u64>,
    threads: Option<usize>,
) -> PyResult<Buffers<'py>> {
    let cfg = config(minsup, absolute, target, max_itemsets)?;
    let sets = pool::run(py, threads, move || {
        let t = read_transactions(&path, FimiOptions::default())?;
        fimdup::mine::mine(&t, &cfg)
    })?
    .py_err()?;
    Ok(out(py, sets))
}
