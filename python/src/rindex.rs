//! `fimdup.Index`: the persisted index (`fimdup index build|query|add`) held open. A query
//! is the library's [`fimdup::index::Index::query_texts`], the call `fimdup index query`
//! makes; here its results are only converted.

use std::path::PathBuf;
use std::time::Duration;

use fimdup::cluster::Measure;
use fimdup::index::{Candidates, IndexConfig, Query, QueryOptions, WriteLock};
use fimdup::sketch::Scheme;
use fimdup::Error;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::corpus::Corpus;
use crate::errors::IntoPy;
use crate::options;
use crate::pool;
use fimdup::sketch::PipelineOptions;

/// How long a build or an add waits for another writer of the index directory (the
/// command waits `--wait` seconds, 0 unless given: a Python session waits instead of
/// failing).
const WAIT: Duration = Duration::from_secs(60);

/// An index directory, open.
#[pyclass(module = "fimdup._fimdup")]
pub struct Index {
    path: PathBuf,
    index: fimdup::index::Index,
}

fn add_json(
    rep: &fimdup::index::AddReport,
    path: &std::path::Path,
    generation: u64,
    total: usize,
) -> PyResult<String> {
    let mut v = report_json(rep)?;
    v["index"] = serde_json::json!(path);
    v["generation"] = serde_json::json!(generation);
    v["total_documents"] = serde_json::json!(total);
    Ok(v.to_string())
}

fn report_json(rep: &impl serde::Serialize) -> PyResult<serde_json::Value> {
    serde_json::to_value(rep)
        .map_err(|e| Error::config(format!("report: {e}")))
        .py_err()
}

impl Index {
    /// A write's report with the index, its new generation and its size.
    fn finish(&self, mut v: serde_json::Value, generation: u64) -> PyResult<String> {
        v["index"] = serde_json::json!(self.path);
        v["generation"] = serde_json::json!(generation);
        v["total_documents"] = serde_json::json!(self.index.len());
        Ok(v.to_string())
    }
}

#[pymethods]
impl Index {
    /// Opens the index made by `fimdup index build` (or `Index.build`) at `path`.
    #[new]
    fn open(py: Python<'_>, path: PathBuf) -> PyResult<Index> {
        let index = py
            .allow_threads(|| fimdup::index::Index::open(&path))
            .py_err()?;
        Ok(Index { path, index })
    }

    /// Builds an index of `corpus` at `path` (the first sweep, tagged `tag`); returns it
    /// and the sweep's report (JSON).
    #[staticmethod]
    #[pyo3(signature = (path, corpus, sketch, threshold, containment, containment_modulus, keep_sources, tag=None, threads=None))]
    #[allow(clippy::too_many_arguments)]
    fn build(
        py: Python<'_>,
        path: PathBuf,
        corpus: &Corpus,
        sketch: &str,
        threshold: f64,
        containment: bool,
        containment_modulus: u64,
        keep_sources: bool,
        tag: Option<String>,
        threads: Option<usize>,
    ) -> PyResult<(Index, String)> {
        let so: PipelineOptions = options::parse(sketch, "sketch").py_err()?;
        let cfg = so.config(corpus.config(), Scheme::BottomK).py_err()?;
        let icfg = IndexConfig {
            threshold,
            containment,
            containment_modulus,
            keep_sources,
        };
        let input = corpus.path().to_path_buf();
        let out = path.clone();
        let r = pool::run(py, threads, move || {
            let (idx, rep) =
                fimdup::index::Index::build(&input, &cfg, icfg, tag.as_deref(), &|_| {})?;
            let lock = WriteLock::acquire(&out, WAIT)?;
            let generation = idx.save_locked(&lock)?;
            Ok::<_, Error>((idx, rep, generation))
        })?;
        let (index, rep, generation) = corpus.res(r)?;
        let json = add_json(&rep, &path, generation, index.len())?;
        Ok((Index { path, index }, json))
    }

    /// Adds `corpus` as a new sweep (`batch`: a batch of new documents, nothing lost),
    /// saves the index, and returns the report (JSON).
    #[pyo3(signature = (corpus, tag=None, threads=None, batch=false))]
    fn add(
        &mut self,
        py: Python<'_>,
        corpus: &Corpus,
        tag: Option<String>,
        threads: Option<usize>,
        batch: bool,
    ) -> PyResult<String> {
        let input = corpus.path().to_path_buf();
        let cfg = corpus.config();
        let path = self.path.clone();
        let r = pool::run(py, threads, move || {
            let spill = fimdup::spill::SpillConfig::default();
            let (mut idx, lock) = fimdup::index::Index::open_for_write_with(&path, WAIT, &spill)?;
            let add = if batch {
                fimdup::index::Index::add_batch_corpus_with
            } else {
                fimdup::index::Index::add_corpus_with
            };
            let rep = add(&mut idx, &input, &cfg, tag.as_deref(), &spill, &|_| {})?;
            let generation = idx.save_locked(&lock)?;
            Ok::<_, Error>((idx, rep, generation))
        })?;
        let (index, rep, generation) = corpus.res(r)?;
        self.index = index;
        add_json(&rep, &self.path, generation, self.index.len())
    }

    /// Marks every version of the external ids `ids` removed (`fimdup index remove`), saves
    /// the index, and returns the report (JSON).
    fn remove(&mut self, py: Python<'_>, ids: Vec<String>) -> PyResult<String> {
        let path = self.path.clone();
        let (index, rep, generation) = py
            .allow_threads(move || {
                let (mut idx, lock) = fimdup::index::Index::open_for_write(&path, WAIT)?;
                let rep = idx.remove(&ids)?;
                let generation = idx.save_locked(&lock)?;
                Ok::<_, Error>((idx, rep, generation))
            })
            .py_err()?;
        self.index = index;
        let mut v = report_json(&rep)?;
        v["removed_total"] = serde_json::json!(self.index.deleted_count());
        self.finish(v, generation)
    }

    /// Merges every segment into one, without the removed documents (`fimdup index
    /// merge`), saves the index, and returns the report (JSON).
    fn merge(&mut self, py: Python<'_>) -> PyResult<String> {
        let path = self.path.clone();
        let (index, rep, generation) = py
            .allow_threads(move || {
                let (mut idx, lock) = fimdup::index::Index::open_for_write(&path, WAIT)?;
                let rep = idx.merge_all()?;
                let generation = idx.save_locked(&lock)?;
                Ok::<_, Error>((idx, rep, generation))
            })
            .py_err()?;
        self.index = index;
        self.finish(report_json(&rep)?, generation)
    }

    /// The hits of every text, in order: (DocId, external id, estimate, exact or None)
    /// lists.
    #[pyo3(signature = (texts, threshold, measure, top, lsh, exact, threads=None))]
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn query(
        &self,
        py: Python<'_>,
        texts: Vec<String>,
        threshold: f64,
        measure: &str,
        top: Option<usize>,
        lsh: bool,
        exact: bool,
        threads: Option<usize>,
    ) -> PyResult<Vec<Vec<(u32, String, f64, Option<f64>)>>> {
        let opts = QueryOptions {
            threshold,
            measure: measure.parse::<Measure>().py_err()?,
            top,
            candidates: if lsh {
                Candidates::Lsh
            } else {
                Candidates::Context
            },
            exact,
        };
        let queries: Vec<Query> = texts
            .into_iter()
            .enumerate()
            .map(|(i, text)| Query {
                name: i.to_string(),
                text,
            })
            .collect();
        let idx = &self.index;
        let results = pool::run(py, threads, move || idx.query_texts(&queries, &opts))?.py_err()?;
        Ok(results
            .into_iter()
            .map(|r| {
                r.hits
                    .into_iter()
                    .map(|h| (h.doc.0, h.ext_id, h.estimate, h.exact))
                    .collect()
            })
            .collect())
    }

    fn __len__(&self) -> usize {
        self.index.len()
    }

    /// The directory.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// The index's parameters (JSON), its threshold and its LSH bands.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let params = serde_json::to_string(self.index.params())
            .map_err(|e| Error::config(format!("params: {e}")))
            .py_err()?;
        d.set_item("params", params)?;
        d.set_item("threshold", self.index.config().threshold)?;
        d.set_item("bands", self.index.bands())?;
        d.set_item("documents", self.index.len())?;
        Ok(d)
    }
}
