//! The library's one error type.
//!
//! Invariant: every error that comes from reading input names the file (and, for line
//! oriented formats, the 1-based line) and says what was expected, so that the binary can
//! print it as is and exit with code 2.

use std::path::PathBuf;

/// Result alias used across the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A line of a line-oriented input (FIMI, JSONL, CSV, ...) is malformed.
    #[error("{}:{line}: {msg}", path.display())]
    Parse {
        /// File being read (`-` for standard input).
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// What was found and what was expected.
        msg: String,
    },
    /// A binary or structured file (images, index, header) is malformed, truncated,
    /// foreign, or was made with incompatible parameters.
    #[error("{}: {msg}", path.display())]
    Format {
        /// File being read.
        path: PathBuf,
        /// What is wrong with it.
        msg: String,
    },
    /// An I/O error on a named file.
    #[error("{}: {source}", path.display())]
    Io {
        /// File being read or written.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// An invalid configuration value (rejected by a validating constructor).
    #[error("invalid configuration: {0}")]
    Config(String),
    /// Another process holds the writer lock of an index directory.
    #[error(
        "{}: index is being written by another process ({})",
        path.display(),
        pid.map_or_else(|| "pid unknown".to_string(), |p| format!("pid {p}"))
    )]
    Locked {
        /// The index directory.
        path: PathBuf,
        /// The pid the holder wrote into the lock file, if it could be read.
        pid: Option<u32>,
    },
    /// A distributed run failed: a process could not be reached, was lost, or runs
    /// another job.
    #[error("distributed run: {0}")]
    Distributed(String),
    /// The memory budget is below what the run needs; said before the work starts.
    #[error("memory budget too small: {0}")]
    Budget(String),
    /// A guard such as `--max-itemsets` was hit; the work stopped instead of going on.
    #[error("limit exceeded: {0}")]
    Limit(String),
}

impl Error {
    /// Builds a [`Error::Parse`].
    pub fn parse(path: impl Into<PathBuf>, line: u64, msg: impl Into<String>) -> Self {
        Error::Parse {
            path: path.into(),
            line,
            msg: msg.into(),
        }
    }

    /// Builds a [`Error::Format`].
    pub fn format(path: impl Into<PathBuf>, msg: impl Into<String>) -> Self {
        Error::Format {
            path: path.into(),
            msg: msg.into(),
        }
    }

    /// Builds a [`Error::Io`].
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// Builds a [`Error::Config`].
    pub fn config(msg: impl Into<String>) -> Self {
        Error::Config(msg.into())
    }

    /// True for errors caused by bad input or bad arguments (exit code 2 in the binary),
    /// false for environment failures such as a full disk.
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, Error::Io { .. })
    }
}
