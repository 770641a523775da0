//! The JSON-lines files eval reads (predicted clusters, corpora for exact similarity): one
//! JSON value per non-blank line.
//!
//! Invariant: lines are numbered from 1, blank lines included; a line that is not JSON is an
//! error naming the file and line.

use std::io::BufRead;
use std::path::Path;

use crate::{Error, Result};

/// Calls `f` with the 1-based line number and the value of every non-blank line of `path`,
/// in order; stops at the first error (of the reading, of the JSON or of `f`).
pub(crate) fn for_each_json_line(
    path: &Path,
    mut f: impl FnMut(u64, serde_json::Value) -> Result<()>,
) -> Result<()> {
    let r = crate::io::open_read(path)?;
    for (i, line) in r.lines().enumerate() {
        let lineno = i as u64 + 1;
        let line = line.map_err(|e| Error::io(path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(&line)
            .map_err(|e| Error::parse(path, lineno, format!("invalid JSON: {e}")))?;
        f(lineno, v)?;
    }
    Ok(())
}
