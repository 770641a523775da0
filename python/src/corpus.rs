//! [`Corpus`]: what a call reads. Either texts held by Python, handed over as an Arrow C
//! stream (columns `text`, optional `id`, optional `key`; read without copying into Python
//! objects) and written once to a temporary JSONL file ([`fimdup::corpus::texts`]), or a
//! corpus file read as the CLI reads it.

use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use arrow_array::{Array, RecordBatch, RecordBatchReader};
use arrow_schema::DataType;
use fimdup::corpus::texts::{TextId, TextKey, TextsFile, TextsWriter};
use fimdup::corpus::{CorpusConfig, Format};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

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
    Texts(TextsFile),
    File { path: PathBuf, config: CorpusConfig },
}

/// A corpus to read (see the module docs).
#[pyclass(module = "fimdup._fimdup", frozen)]
pub struct Corpus {
    pub source: Source,
    pub ids: IdKind,
}

impl Corpus {
    /// The file a job reads.
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

    /// A library error with the temporary file renamed `<texts>`.
    pub fn err(&self, e: fimdup::Error) -> fimdup::Error {
        match &self.source {
            Source::Texts(t) => t.rename_error(e),
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

/// The stream of record batches Python handed over; read on a thread without the GIL.
struct Stream(RecordBatchStreamReader);

// SAFETY: the C stream interface has no thread affinity: its producer (pyarrow's exported
// reader) may be called from any thread, one call at a time, which is how it is used here.
unsafe impl Send for Stream {}

#[pymethods]
impl Corpus {
    /// Texts from an Arrow C stream capsule (`table.__arrow_c_stream__()`): column `text`
    /// (string, large_string or string_view, no nulls), `id` (int64 or string; absent: the
    /// positions) and `key` (numbers or strings, for `keep="field:key"`).
    #[staticmethod]
    #[pyo3(signature = (stream, ids_are_ints, tmp_dir=None))]
    fn from_arrow(
        py: Python<'_>,
        stream: &Bound<'_, PyCapsule>,
        ids_are_ints: bool,
        tmp_dir: Option<PathBuf>,
    ) -> PyResult<Corpus> {
        if stream.name()?.map(|n| n.to_bytes()) != Some(b"arrow_array_stream") {
            return Err(PyTypeError::new_err(
                "expected an Arrow C stream capsule (arrow_array_stream)",
            ));
        }
        // SAFETY: the capsule holds an FFI_ArrowArrayStream (its name says so); `from_raw`
        // moves the stream out and leaves a released one for the capsule's destructor.
        let raw = unsafe { FFI_ArrowArrayStream::from_raw(stream.pointer() as *mut _) };
        let reader = RecordBatchStreamReader::try_new(raw)
            .map_err(|e| PyValueError::new_err(format!("texts: {e}")))?;
        let stream = Stream(reader);
        let file = py.allow_threads(move || write_texts(stream, tmp_dir.as_deref()))?;
        Ok(Corpus {
            source: Source::Texts(file),
            ids: if ids_are_ints {
                IdKind::Int
            } else {
                IdKind::Str
            },
        })
    }

    /// A corpus file, read as `fimdup cluster FILE` reads it.
    #[staticmethod]
    #[pyo3(signature = (path, format=None, text_field="text".to_string(), id_field="id".to_string(), skip_bad_lines=false))]
    fn from_path(
        path: PathBuf,
        format: Option<String>,
        text_field: String,
        id_field: String,
        skip_bad_lines: bool,
    ) -> PyResult<Corpus> {
        let format = format.map(|f| f.parse::<Format>()).transpose().py_err()?;
        let config = CorpusConfig {
            format,
            text_field: text_field.clone(),
            id_field: id_field.clone(),
            text_column: text_field,
            id_column: id_field,
            skip_bad_lines,
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

/// Writes every batch of `stream` into a [`TextsFile`].
fn write_texts(mut stream: Stream, tmp_dir: Option<&Path>) -> PyResult<TextsFile> {
    let schema = stream.0.schema();
    let col = |name: &str| schema.index_of(name).ok();
    let text_at = col("text").ok_or_else(|| PyValueError::new_err("texts: no column \"text\""))?;
    let id_at = col("id");
    let key_at = col("key");
    let mut w = TextsWriter::create(tmp_dir).py_err()?;
    for batch in &mut stream.0 {
        let batch: RecordBatch = batch.map_err(|e| PyValueError::new_err(format!("texts: {e}")))?;
        let n = batch.num_rows();
        let base = w.len();
        let texts = strings(batch.column(text_at).as_ref(), "text", base)?;
        let ids: Option<Ids> = match id_at {
            Some(i) => Some(ids_of(batch.column(i).as_ref(), base)?),
            None => None,
        };
        let keys: Option<Keys> = key_at
            .map(|i| keys_of(batch.column(i).as_ref()))
            .transpose()?;
        for r in 0..n {
            let pos = base + r as u64;
            let id = match &ids {
                None => TextId::Int(pos as i64),
                Some(Ids::Int(a)) => TextId::Int(a.value(r)),
                Some(Ids::Str(s)) => TextId::Str(s.get(r)),
            };
            let key = keys.as_ref().map(|k| k.get(r));
            w.push(id, texts.get(r), key).py_err()?;
        }
    }
    w.finish().py_err()
}

/// A string column of any of Arrow's three layouts.
enum Strings<'a> {
    Small(&'a arrow_array::StringArray),
    Large(&'a arrow_array::LargeStringArray),
    View(&'a arrow_array::StringViewArray),
}

impl Strings<'_> {
    fn get(&self, i: usize) -> &str {
        match self {
            Strings::Small(a) => a.value(i),
            Strings::Large(a) => a.value(i),
            Strings::View(a) => a.value(i),
        }
    }
}

fn strings<'a>(a: &'a dyn Array, what: &str, base: u64) -> PyResult<Strings<'a>> {
    if a.null_count() > 0 {
        let i = (0..a.len()).find(|&i| a.is_null(i)).unwrap_or(0);
        return Err(PyTypeError::new_err(format!(
            "{what}s[{}] is None: expected a str",
            base + i as u64
        )));
    }
    match a.data_type() {
        DataType::Utf8 => Ok(Strings::Small(a.as_string::<i32>())),
        DataType::LargeUtf8 => Ok(Strings::Large(a.as_string::<i64>())),
        DataType::Utf8View => Ok(Strings::View(a.as_string_view())),
        t => Err(PyTypeError::new_err(format!(
            "{what}s must be strings, not Arrow {t}"
        ))),
    }
}

enum Ids<'a> {
    Int(&'a arrow_array::Int64Array),
    Str(Strings<'a>),
}

fn ids_of(a: &dyn Array, base: u64) -> PyResult<Ids<'_>> {
    if let Some(ints) = a.as_primitive_opt::<arrow_array::types::Int64Type>() {
        if ints.null_count() > 0 {
            let i = (0..a.len()).find(|&i| a.is_null(i)).unwrap_or(0);
            return Err(PyTypeError::new_err(format!(
                "ids[{}] is None: expected an int or a str",
                base + i as u64
            )));
        }
        return Ok(Ids::Int(ints));
    }
    Ok(Ids::Str(strings(a, "id", base)?))
}

enum Keys<'a> {
    Num(&'a arrow_array::Float64Array),
    Str(Strings<'a>),
}

impl Keys<'_> {
    fn get(&self, i: usize) -> TextKey<'_> {
        match self {
            Keys::Num(a) if a.is_null(i) => TextKey::Missing,
            Keys::Num(a) => TextKey::Num(a.value(i)),
            Keys::Str(s) => TextKey::Str(s.get(i)),
        }
    }
}

fn keys_of(a: &dyn Array) -> PyResult<Keys<'_>> {
    if let Some(x) = a.as_primitive_opt::<arrow_array::types::Float64Type>() {
        return Ok(Keys::Num(x));
    }
    Ok(Keys::Str(strings(a, "key", 0)?))
}
