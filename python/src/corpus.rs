//! [`Corpus`]: what a call reads. Either texts held by Python, handed over as an Arrow C
//! stream (columns `text`, optional `id`, optional `key`; read without copying into Python
//! objects) and kept in memory as the stream's record batches, which every job reads in
//! place ([`fimdup::corpus::texts::ArrowTexts::from_arrow_stream`]); or a list of `str`
//! read in place too, the objects themselves ([`PyStrs`], with the id and key columns as a
//! stream); errors name the texts' positions, `texts[i]`. Or a corpus file read as the CLI
//! reads it.

use std::path::{Path, PathBuf};

use fimdup::corpus::texts::{
    rename_error, ArrowTexts, FFI_ArrowArrayStream, OuterTexts, SharedTexts,
};
use fimdup::corpus::{CorpusConfig, Format};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyList, PyString};

use crate::errors::IntoPy;

/// How the external ids come back to Python.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdKind {
    /// Integers (the ids were ints, or positions).
    Int,
    /// Strings.
    Str,
}

pub enum Source {
    Texts(SharedTexts),
    File { path: PathBuf, config: CorpusConfig },
}

/// A corpus to read (see the module docs).
#[pyclass(module = "fimdup._fimdup", frozen)]
pub struct Corpus {
    pub source: Source,
    pub ids: IdKind,
}

impl Corpus {
    /// The file a job reads (in-memory texts: their name).
    pub fn path(&self) -> &Path {
        match &self.source {
            Source::Texts(t) => t.path(),
            Source::File { path, .. } => path,
        }
    }

    /// How it is read.
    pub fn config(&self) -> CorpusConfig {
        match &self.source {
            Source::Texts(t) => t.config(),
            Source::File { config, .. } => config.clone(),
        }
    }

    /// A library error with places in in-memory texts named as their positions.
    pub fn err(&self, e: fimdup::Error) -> fimdup::Error {
        match &self.source {
            Source::Texts(_) => rename_error(e),
            Source::File { .. } => e,
        }
    }

    /// `r` with errors renamed ([`Corpus::err`]).
    pub fn res<T>(&self, r: fimdup::Result<T>) -> PyResult<T> {
        r.map_err(|e| self.err(e)).py_err()
    }
}

/// External ids as Python objects: ints for [`IdKind::Int`], else strings.
pub fn ids_to_py(py: Python<'_>, kind: IdKind, ext_ids: &[String]) -> PyResult<PyObject> {
    match kind {
        IdKind::Str => Ok(ext_ids.into_pyobject(py)?.into_any().unbind()),
        IdKind::Int => {
            let v = ext_ids
                .iter()
                .map(|s| {
                    s.parse::<i64>()
                        .map_err(|_| PyValueError::new_err(format!("id {s:?} is not an integer")))
                })
                .collect::<PyResult<Vec<i64>>>()?;
            Ok(v.into_pyobject(py)?.into_any().unbind())
        }
    }
}

impl Corpus {
    /// In-memory texts, whose ids come back as ints when `ids_are_ints`.
    fn in_memory(texts: ArrowTexts, ids_are_ints: bool) -> Corpus {
        Corpus {
            source: Source::Texts(SharedTexts::new(texts)),
            ids: if ids_are_ints {
                IdKind::Int
            } else {
                IdKind::Str
            },
        }
    }
}

/// The Arrow C stream a capsule holds (`table.__arrow_c_stream__()`), moved out of it.
fn stream_of(capsule: &Bound<'_, PyCapsule>) -> PyResult<FFI_ArrowArrayStream> {
    if capsule.name()?.map(|n| n.to_bytes()) != Some(b"arrow_array_stream") {
        return Err(PyTypeError::new_err(
            "expected an Arrow C stream capsule (arrow_array_stream)",
        ));
    }
    // SAFETY: the capsule holds an FFI_ArrowArrayStream (its name says so); `from_raw`
    // moves the stream out and leaves a released one for the capsule's destructor.
    Ok(unsafe { FFI_ArrowArrayStream::from_raw(capsule.pointer() as *mut _) })
}

/// Python `str` objects read in place: each one's UTF-8 bytes, which a compact ASCII `str`
/// holds and any other caches inside the object the first time they are asked for (as
/// pyarrow's conversion asks). The objects are held, so the bytes live as long as this.
struct PyStrs {
    owners: Vec<Py<PyString>>,
    views: Vec<(*const u8, usize)>,
}

// SAFETY: the views point into the `str` objects `owners` keeps alive; a `str` is
// immutable, and its UTF-8 bytes (inline or cached) neither move nor change while it lives,
// so they may be read from any thread. `Py` itself is Send and Sync.
unsafe impl Send for PyStrs {}
unsafe impl Sync for PyStrs {}

impl PyStrs {
    /// The texts of `list` (the GIL held while their bytes are found).
    fn of(list: &Bound<'_, PyList>) -> PyResult<PyStrs> {
        let n = list.len();
        let (mut owners, mut views) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for (i, item) in list.iter().enumerate() {
            let s = item.downcast_into::<PyString>().map_err(|e| {
                let o = e.into_inner();
                let what = if o.is_none() {
                    "None".to_string()
                } else {
                    o.get_type().name().map_or("?".into(), |n| n.to_string())
                };
                PyTypeError::new_err(format!("texts[{i}] is {what}: expected a str"))
            })?;
            let v = s.to_str()?;
            views.push((v.as_ptr(), v.len()));
            owners.push(s.unbind());
        }
        Ok(PyStrs { owners, views })
    }
}

impl std::fmt::Debug for PyStrs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PyStrs({} texts)", self.owners.len())
    }
}

impl OuterTexts for PyStrs {
    fn len(&self) -> usize {
        self.views.len()
    }

    fn text(&self, i: usize) -> &str {
        let (p, n) = self.views[i];
        // SAFETY: `p..p + n` is the UTF-8 form `to_str` gave for a `str` still held (see
        // the `Send` impl): valid UTF-8, alive and unchanged as long as `self`.
        unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(p, n)) }
    }
}

#[pymethods]
impl Corpus {
    /// Texts from an Arrow C stream capsule (`table.__arrow_c_stream__()`): column `text`
    /// (string, large_string or string_view, no nulls), `id` (int64 or string; absent: the
    /// positions) and `key` (numbers or strings, for `keep="field:key"`).
    #[staticmethod]
    #[pyo3(signature = (stream, ids_are_ints))]
    fn from_arrow(
        py: Python<'_>,
        stream: &Bound<'_, PyCapsule>,
        ids_are_ints: bool,
    ) -> PyResult<Corpus> {
        let raw = stream_of(stream)?;
        let texts = py
            .allow_threads(move || ArrowTexts::from_arrow_stream(raw))
            .py_err()?;
        Ok(Corpus::in_memory(texts, ids_are_ints))
    }

    /// Texts that are Python `str` objects, read where they are (see [`PyStrs`]), with the
    /// id and key columns of an Arrow C stream capsule when given (`id`, `key` as in
    /// [`Corpus::from_arrow`], as many rows as texts). An element that is not a `str` is a
    /// `TypeError` naming `texts[i]`; a `str` with no UTF-8 form (a lone surrogate) raises
    /// Python's own `UnicodeEncodeError`.
    #[staticmethod]
    #[pyo3(signature = (texts, columns, ids_are_ints))]
    fn from_strs(
        py: Python<'_>,
        texts: &Bound<'_, PyList>,
        columns: Option<&Bound<'_, PyCapsule>>,
        ids_are_ints: bool,
    ) -> PyResult<Corpus> {
        let strs = PyStrs::of(texts)?;
        let raw = columns.map(stream_of).transpose()?;
        let texts = py
            .allow_threads(move || ArrowTexts::from_outer_texts(Box::new(strs), raw))
            .py_err()?;
        Ok(Corpus::in_memory(texts, ids_are_ints))
    }

    /// A corpus file, read as `fimdup cluster FILE` reads it (the fields name the CSV/TSV
    /// and Parquet columns too; every other option is the library's default).
    #[staticmethod]
    #[pyo3(signature = (path, format, text_field, id_field))]
    fn from_path(
        path: PathBuf,
        format: Option<String>,
        text_field: String,
        id_field: String,
    ) -> PyResult<Corpus> {
        let format = format.map(|f| f.parse::<Format>()).transpose().py_err()?;
        let config = CorpusConfig {
            format,
            text_field: text_field.clone(),
            id_field: id_field.clone(),
            text_column: text_field,
            id_column: id_field,
            ..CorpusConfig::default()
        };
        config.validate().py_err()?;
        Ok(Corpus {
            source: Source::File { path, config },
            ids: IdKind::Str,
        })
    }

    /// Number of texts (None for a corpus file).
    fn __len__(&self) -> PyResult<usize> {
        match &self.source {
            Source::Texts(t) => Ok(t.len() as usize),
            Source::File { .. } => Err(PyTypeError::new_err(
                "a corpus file has no length before it is read",
            )),
        }
    }
}
