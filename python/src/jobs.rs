//! `sketch`, `cluster`, `dedup`, `evaluate` and `sweep`: each runs the library's job on a
//! [`Corpus`] and keeps the library's output in a class whose methods hand it over as
//! little-endian buffers (numpy reads them without a copy per element) and lists.

use std::path::PathBuf;

use fimdup::cluster::{pair_rows, Cluster, Input, JobOutput};
use fimdup::dedup::{DedupOptions, DedupOutput};
use fimdup::eval::{EvalOptions, Labeled, Labels, Prediction, Truth, TruthFormat};
use fimdup::report::{best_per_method, run_sweep, series_rows, SweepTruth};
use fimdup::sketch::pipeline::sketch_corpus;
use fimdup::sketch::{ImageSet, Scheme};
use fimdup::Error;
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::corpus::{ids_to_py, Corpus};
use crate::errors::IntoPy;
use crate::options;
use crate::pool;
use fimdup::cluster::JobOptions;
use fimdup::report::SweepOptions;
use fimdup::sketch::PipelineOptions;

/// The bytes of a slice of plain numbers, little-endian (the only byte order built for).
pub fn bytes<'py, T: Copy>(py: Python<'py>, v: &[T]) -> Bound<'py, PyBytes> {
    // SAFETY: T is a plain number type (u8, u32, u64, i64, f64 here): every byte of the
    // slice is initialized, and the view lives only for the copy into the bytes object.
    let b =
        unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) };
    PyBytes::new(py, b)
}

/// Clusters as three buffers: offsets (u64, one more than clusters), members (u32 DocIds),
/// and per cluster its id and support (u32 each).
fn cluster_buffers<'py>(
    py: Python<'py>,
    clusters: &[Cluster],
) -> (
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
) {
    let mut offsets = Vec::with_capacity(clusters.len() + 1);
    let mut members = Vec::new();
    offsets.push(0u64);
    for c in clusters {
        members.extend(c.docs.iter().map(|d| d.0));
        offsets.push(members.len() as u64);
    }
    let ids: Vec<u32> = clusters.iter().map(|c| c.id).collect();
    let supports: Vec<u32> = clusters.iter().map(|c| c.support).collect();
    (
        bytes(py, &offsets),
        bytes(py, &members),
        bytes(py, &ids),
        bytes(py, &supports),
    )
}

/// Images of a corpus, with their parameters and ids.
#[pyclass(module = "fimdup._fimdup", frozen)]
pub struct Images {
    set: ImageSet,
    ids: crate::corpus::IdKind,
}

#[pymethods]
impl Images {
    /// Reads an images file made by `fimdup sketch` (or `Images.save`).
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Images> {
        let set = py.allow_threads(|| ImageSet::read(&path)).py_err()?;
        Ok(Images {
            set,
            ids: crate::corpus::IdKind::Str,
        })
    }

    /// Writes the images file (atomically).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        py.allow_threads(|| self.set.write(&path)).py_err()
    }

    fn __len__(&self) -> usize {
        self.set.images.len()
    }

    /// External ids (ints when the texts had int ids or none).
    fn ids(&self, py: Python<'_>) -> PyResult<PyObject> {
        ids_to_py(py, self.ids, &self.set.ext_ids)
    }

    /// Elements per image (u32 buffer).
    fn lengths<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let v: Vec<u32> = self.set.images.iter().map(|i| i.len() as u32).collect();
        bytes(py, &v)
    }

    /// Every image's values, concatenated (u64 buffer).
    fn values<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let v: Vec<u64> = self
            .set
            .images
            .iter()
            .flat_map(|i| i.values().iter().copied())
            .collect();
        bytes(py, &v)
    }

    /// Image `i`'s values (u64 buffer).
    fn image<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyBytes>> {
        let img = self.set.images.get(i).ok_or_else(|| {
            PyIndexError::new_err(format!("image {i} of {}", self.set.images.len()))
        })?;
        Ok(bytes(py, img.values()))
    }

    /// The parameters (JSON: text, shingle and sketch options).
    fn params_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.set.params)
            .map_err(|e| Error::config(format!("params: {e}")))
            .py_err()
    }

    /// The image size n (the number of values a full image holds).
    fn size(&self) -> usize {
        self.set.params.sketch.size
    }
}

/// `fimdup.sketch`: the images of a corpus.
#[pyfunction]
#[pyo3(signature = (corpus, sketch, threads=None))]
pub fn sketch(
    py: Python<'_>,
    corpus: &Corpus,
    sketch: &str,
    threads: Option<usize>,
) -> PyResult<Images> {
    let so: PipelineOptions = options::parse(sketch, "sketch").py_err()?;
    let cfg = so.config(corpus.config(), Scheme::BottomK).py_err()?;
    let path = corpus.path().to_path_buf();
    let out = pool::run(py, threads, move || sketch_corpus(&path, &cfg, &|_| {}))?;
    let out = corpus.res(out)?;
    Ok(Images {
        set: out.images,
        ids: corpus.ids,
    })
}

/// What `fimdup.cluster` ran: the library's [`JobOutput`].
#[pyclass(module = "fimdup._fimdup", frozen)]
pub struct ClusterResult {
    out: JobOutput,
    ids: crate::corpus::IdKind,
}

#[pymethods]
impl ClusterResult {
    /// External ids in DocId order (ints when the texts had int ids or none).
    fn ids(&self, py: Python<'_>) -> PyResult<PyObject> {
        ids_to_py(py, self.ids, &self.out.ext_ids)
    }

    /// The pairs in the order of `pairs.csv`: a, b (u32 DocIds), shared (i64, -1 =
    /// unknown), estimate and exact (f64, NaN = unknown).
    #[allow(clippy::type_complexity)]
    fn pairs<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
    )> {
        let rows = pair_rows(&self.out.output.pairs, &self.out.ext_ids).py_err()?;
        let a: Vec<u32> = rows.iter().map(|r| r.0 .0).collect();
        let b: Vec<u32> = rows.iter().map(|r| r.1 .0).collect();
        let shared: Vec<i64> = rows
            .iter()
            .map(|r| r.2.shared.map_or(-1, i64::from))
            .collect();
        let est: Vec<f64> = rows
            .iter()
            .map(|r| r.2.estimate.unwrap_or(f64::NAN))
            .collect();
        let exact: Vec<f64> = rows.iter().map(|r| r.2.exact.unwrap_or(f64::NAN)).collect();
        Ok((
            bytes(py, &a),
            bytes(py, &b),
            bytes(py, &shared),
            bytes(py, &est),
            bytes(py, &exact),
        ))
    }

    /// The clusters in the order of `clusters.jsonl`: offsets, members, ids, supports.
    #[allow(clippy::type_complexity)]
    fn clusters<'py>(
        &self,
        py: Python<'py>,
    ) -> (
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
    ) {
        cluster_buffers(py, &self.out.output.clusters)
    }

    /// `summary.json`.
    fn summary_json(&self) -> PyResult<String> {
        let v = self.out.summary_json().py_err()?;
        Ok(v.to_string())
    }

    /// Writes `clusters.jsonl`, `pairs.csv` and `summary.json` into `dir`, as the CLI does.
    fn write(&self, py: Python<'_>, dir: PathBuf) -> PyResult<()> {
        py.allow_threads(|| {
            std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
            self.out.write(&dir)
        })
        .py_err()
    }

    /// Evaluates these clusters (with their own ids) against `truth`, with the evaluation's
    /// options (JSON: [`EvalOptions`]); the evaluation as JSON.
    #[pyo3(signature = (truth, options, threads=None))]
    fn evaluate(
        &self,
        py: Python<'_>,
        truth: &TruthArg,
        options: &str,
        threads: Option<usize>,
    ) -> PyResult<String> {
        let ext = &self.out.ext_ids;
        let pred = Prediction::from_labeled_clusters(self.out.output.clusters.iter().map(|c| {
            (
                c.id.to_string(),
                c.docs.iter().map(|d| ext[d.index()].as_str()),
                Some(u64::from(c.support)),
            )
        }));
        evaluate_with(py, &pred, truth, options, threads)
    }
}

/// `fimdup.cluster`: one clustering job.
#[pyfunction]
#[pyo3(signature = (corpus, sketch, job, threads=None))]
pub fn cluster(
    py: Python<'_>,
    corpus: &Corpus,
    sketch: &str,
    job: &str,
    threads: Option<usize>,
) -> PyResult<ClusterResult> {
    let so: PipelineOptions = options::parse(sketch, "sketch").py_err()?;
    let jo: JobOptions = options::parse(job, "cluster").py_err()?;
    let job = so
        .config(corpus.config(), jo.method.default_scheme())
        .and_then(|p| jo.builder(p))
        .and_then(|b| b.build())
        .py_err()?;
    let input = Input::Corpus(corpus.path().to_path_buf());
    let out = pool::run(py, threads, move || job.run(&input, &|_| {}))?;
    Ok(ClusterResult {
        out: corpus.res(out)?,
        ids: corpus.ids,
    })
}

/// What `fimdup.dedup` ran: the library's [`DedupOutput`] (nothing written).
#[pyclass(module = "fimdup._fimdup", frozen)]
pub struct DedupResult {
    out: DedupOutput,
    ids: crate::corpus::IdKind,
}

#[pymethods]
impl DedupResult {
    /// External ids in DocId order.
    fn ids(&self, py: Python<'_>) -> PyResult<PyObject> {
        ids_to_py(py, self.ids, &self.out.ext_ids)
    }

    /// Whether each document is kept (u8 buffer, 1 = kept), in input order.
    fn kept_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let m: Vec<u8> = self.out.kept_mask().into_iter().map(u8::from).collect();
        bytes(py, &m)
    }

    /// The rows of `removed.csv`: (doc, representative doc or None, representative id of an
    /// indexed document or None, cluster or None, score or None, score kind, reason).
    #[allow(clippy::type_complexity)]
    fn removed(
        &self,
    ) -> Vec<(
        u32,
        Option<u32>,
        Option<String>,
        Option<u32>,
        Option<f64>,
        &'static str,
        &'static str,
    )> {
        use fimdup::dedup::Representative;
        self.out
            .removed_rows()
            .into_iter()
            .map(|r| {
                let removal = self.out.removed[r.doc.index()]
                    .as_ref()
                    .expect("a removed row is a removal");
                let (doc, indexed) = match &removal.representative {
                    Representative::Doc(d) => (Some(d.0), None),
                    Representative::Indexed(id) => (None, Some(id.clone())),
                };
                (
                    r.doc.0,
                    doc,
                    indexed,
                    r.cluster,
                    r.score,
                    r.kind.name(),
                    r.reason.name(),
                )
            })
            .collect()
    }

    /// The method's clusters (as for [`ClusterResult::clusters`]).
    #[allow(clippy::type_complexity)]
    fn clusters<'py>(
        &self,
        py: Python<'py>,
    ) -> (
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
    ) {
        cluster_buffers(py, &self.out.clusters)
    }

    /// `summary.json` (with `kept_file` null: nothing was written).
    fn summary_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.out.summary)
            .map_err(|e| Error::config(format!("summary: {e}")))
            .py_err()
    }
}

/// `fimdup.dedup`: which documents a deduplication keeps.
#[pyfunction]
#[pyo3(signature = (corpus, sketch, job, dedup, threads=None))]
pub fn dedup(
    py: Python<'_>,
    corpus: &Corpus,
    sketch: &str,
    job: &str,
    dedup: &str,
    threads: Option<usize>,
) -> PyResult<DedupResult> {
    let so: PipelineOptions = options::parse(sketch, "sketch").py_err()?;
    let jo: JobOptions = options::parse(job, "cluster").py_err()?;
    let dopts: DedupOptions = options::parse(dedup, "dedup").py_err()?;
    let d = so
        .config(corpus.config(), jo.method.default_scheme())
        .and_then(|p| jo.builder(p))
        .and_then(|b| dopts.builder(b).build())
        .py_err()?;
    let path = corpus.path().to_path_buf();
    let out = pool::run(py, threads, move || d.select(&path, &|_| {}))?;
    Ok(DedupResult {
        out: corpus.res(out)?,
        ids: corpus.ids,
    })
}

/// The truth of an evaluation, as Python gives it.
#[pyclass(module = "fimdup._fimdup", frozen)]
pub struct TruthArg {
    truth: Truth,
}

#[pymethods]
impl TruthArg {
    /// A truth file (anything `fimdup eval --truth` reads).
    #[staticmethod]
    #[pyo3(signature = (path, format, rule=None))]
    fn file(path: PathBuf, format: &str, rule: Option<String>) -> PyResult<TruthArg> {
        let format: TruthFormat = format.parse().py_err()?;
        Ok(TruthArg {
            truth: Truth::File { path, format, rule },
        })
    }

    /// Pairs in memory: the positives, and, when the truth labels negatives too, every
    /// labeled pair.
    #[staticmethod]
    #[pyo3(signature = (positives, listed=None))]
    fn pairs(
        positives: Vec<(String, String)>,
        listed: Option<Vec<(String, String)>>,
    ) -> PyResult<TruthArg> {
        let positives = Labels::from_pairs(positives).py_err()?;
        let listed = match listed {
            Some(l) => Some(Labeled::pairs(Labels::from_pairs(l).py_err()?)),
            None => None,
        };
        Ok(TruthArg {
            truth: Truth::Pairs { positives, listed },
        })
    }
}

/// The evaluation of `pred` against `truth` with `options` (JSON: [`EvalOptions`]), as
/// `fimdup eval` runs it ([`EvalOptions::load_truth`], [`EvalOptions::evaluate`]).
fn evaluate_with(
    py: Python<'_>,
    pred: &Prediction,
    truth: &TruthArg,
    options: &str,
    threads: Option<usize>,
) -> PyResult<String> {
    let opts: EvalOptions = options::parse(options, "evaluate").py_err()?;
    let ev = pool::run(py, threads, || {
        let loaded = opts.load_truth(&truth.truth)?;
        opts.evaluate(pred, &loaded)
    })?
    .py_err()?;
    serde_json::to_string(&ev)
        .map_err(|e| Error::config(format!("evaluation: {e}")))
        .py_err()
}

/// `fimdup.evaluate` of a prediction that is not a [`ClusterResult`]: pairs, clusters, or
/// a file (`pairs.csv`, or `clusters.jsonl` when the name ends in `.jsonl`); `options` as
/// for [`evaluate_with`].
#[pyfunction]
#[pyo3(signature = (truth, options, pairs=None, clusters=None, path=None, threads=None, scores=None))]
#[allow(clippy::too_many_arguments)]
pub fn evaluate(
    py: Python<'_>,
    truth: &TruthArg,
    options: &str,
    pairs: Option<Vec<(String, String)>>,
    clusters: Option<Vec<Vec<String>>>,
    path: Option<PathBuf>,
    threads: Option<usize>,
    scores: Option<Vec<Option<f64>>>,
) -> PyResult<String> {
    let pred = match (pairs, clusters, path) {
        (Some(p), None, None) => match scores {
            Some(s) if s.len() == p.len() => {
                Prediction::from_scored_pairs(p.into_iter().zip(s).map(|((a, b), s)| (a, b, s)))
                    .py_err()?
            }
            Some(_) => {
                return Err(pyo3::exceptions::PyValueError::new_err(
                    "scores must have one value per pair",
                ))
            }
            None => Prediction::from_pairs(p).py_err()?,
        },
        (None, Some(c), None) => Prediction::from_clusters(c),
        (None, None, Some(p)) => {
            let jsonl = p.extension().is_some_and(|e| e == "jsonl");
            py.allow_threads(|| {
                if jsonl {
                    Prediction::read_clusters_jsonl(&p)
                } else {
                    Prediction::read_pairs_csv(&p)
                }
            })
            .py_err()?
        }
        _ => {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "give exactly one of pairs, clusters or path",
            ))
        }
    };
    evaluate_with(py, &pred, truth, options, threads)
}

/// `fimdup.sweep` / `fimdup.report`: `{"rows": [...], "curves": {...}}` (JSON: the rows of
/// `results.csv` and the precision-recall and S-curves), and the report in `out_dir`.
#[pyfunction]
#[pyo3(signature = (corpus, truth, sketch, sweep, truth_format, truth_rule=None, out_dir=None, caller=None, threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn sweep(
    py: Python<'_>,
    corpus: &Corpus,
    truth: PathBuf,
    sketch: &str,
    sweep: &str,
    truth_format: &str,
    truth_rule: Option<String>,
    out_dir: Option<PathBuf>,
    caller: Option<String>,
    threads: Option<usize>,
) -> PyResult<String> {
    let so: PipelineOptions = options::parse(sketch, "sketch").py_err()?;
    let sw: SweepOptions = options::parse(sweep, "sweep").py_err()?;
    let format: TruthFormat = truth_format.parse().py_err()?;
    let (cfg, label) = so
        .config(corpus.config(), Scheme::BottomK)
        .and_then(|p| sw.config(p, Vec::new()))
        .and_then(|c| Ok((c, sw.thresholds()?.1)))
        .py_err()?;
    let caller = vec![(
        "caller".to_string(),
        caller.unwrap_or_else(|| "Python: fimdup.sweep".into()),
    )];
    let path = corpus.path().to_path_buf();
    let res = pool::run(py, threads, move || {
        let truth = SweepTruth {
            path: &truth,
            format,
            rule: truth_rule.as_deref(),
        };
        run_sweep(
            &path,
            truth,
            cfg,
            &label,
            &caller,
            out_dir.as_deref(),
            &|_| {},
        )
    })?;
    let res = corpus.res(res)?;
    // What `fimdup sweep --json` prints: the rows, the best of every series, and with a
    // bootstrap or a cross-validation their figures.
    let mut v = serde_json::json!({
        "rows": res.rows,
        "methods": best_per_method(&series_rows(&res.rows)),
        "bootstrap": res.bootstrap,
        "paired": res.paired,
        "cv": res.cv,
        "curves": res.curves,
    });
    if res.bootstrap.is_none() {
        v["paired"] = serde_json::Value::Null;
    }
    serde_json::to_string(&v)
        .map_err(|e| Error::config(format!("sweep: {e}")))
        .py_err()
}
