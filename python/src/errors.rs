//! Library errors as Python exceptions: bad input files -> `FormatError` (a `ValueError`
//! with `.path` and `.line`), bad parameters -> `ValueError`, a guard hit -> `LimitError`
//! (a `RuntimeError`), I/O -> `OSError` (`FileNotFoundError` for a missing file).

use pyo3::create_exception;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

create_exception!(
    fimdup,
    FormatError,
    PyValueError,
    "Bad input: the message names the file (or `<texts>`) and the line; `.path` and `.line` hold them."
);
create_exception!(
    fimdup,
    LimitError,
    PyRuntimeError,
    "A guard such as `max_pairs` or `max_itemsets` was hit; the work stopped."
);

/// The Python exception of a library error.
pub fn to_py(e: fimdup::Error) -> PyErr {
    use fimdup::Error as E;
    let msg = e.to_string();
    match e {
        E::Parse { path, line, .. } => {
            format_error(msg, Some(path.display().to_string()), Some(line))
        }
        E::Format { path, .. } => format_error(msg, Some(path.display().to_string()), None),
        E::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(msg)
        }
        E::Io { .. } | E::Locked { .. } => PyOSError::new_err(msg),
        E::Config(_) | E::Budget(_) => PyValueError::new_err(msg),
        E::Limit(_) => LimitError::new_err(msg),
        E::Distributed(_) => PyRuntimeError::new_err(msg),
    }
}

fn format_error(msg: String, path: Option<String>, line: Option<u64>) -> PyErr {
    Python::with_gil(|py| {
        let err = FormatError::new_err(msg);
        let v = err.value(py);
        // Setting attributes on a fresh exception instance cannot fail in practice; if it
        // did, the message still names both.
        let _ = v.setattr("path", path);
        let _ = v.setattr("line", line);
        err
    })
}

/// `Result<T, fimdup::Error>` -> `PyResult<T>`.
pub trait IntoPy<T> {
    fn py_err(self) -> PyResult<T>;
}

impl<T> IntoPy<T> for fimdup::Result<T> {
    fn py_err(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}
