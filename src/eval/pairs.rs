//! The reader of pair files: CSV or TSV rows `a,b[,...]` naming two documents by external
//! id, as truth tables, predicted pairs and external predictions are written.
//!
//! Rows come from [`Rows`] (comma or tab by the name or the first line; fields trimmed;
//! blank lines skipped); a header is a first row whose first two fields are `a` and `b`.
//! Invariants: every row handed out names two non-empty, different ids; errors name the
//! file and the line (quoted fields may span lines: the line where the row starts).

use std::path::Path;

use super::delimited::Rows;
use crate::{Error, Result};

/// What a pair file looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layout {
    /// Scored pairs (`pairs.csv`): the header `a,b[,score...]` is required, and a row holds at
    /// least the two ids (further fields are handed out unchecked).
    Scored,
    /// A table (truth): the header `a,b[,column...]` is optional (without one every row is a
    /// pair `a,b`), and every row holds as many fields as the header (two without one).
    Table,
}

/// Reads the rows of a pair file one by one.
pub(crate) struct PairReader<'p> {
    layout: Layout,
    rows: Rows<'p>,
    /// The header's fields after `a` and `b` (empty without a header).
    columns: Vec<String>,
    /// Fields per row (a [`Layout::Table`] checks it).
    fields: usize,
    /// The first row is in `rec` already (a table without a header).
    pending: bool,
}

/// One row of a pair file.
pub(crate) struct PairRow<'r> {
    /// The line where the row starts.
    pub line: u64,
    rec: &'r csv::StringRecord,
}

impl<'r> PairRow<'r> {
    /// The first id.
    pub fn a(&self) -> &'r str {
        &self.rec[0]
    }

    /// The second id.
    pub fn b(&self) -> &'r str {
        &self.rec[1]
    }

    /// The fields after the two ids.
    pub fn values(&self) -> impl Iterator<Item = &'r str> {
        self.rec.iter().skip(2)
    }
}

impl<'p> PairReader<'p> {
    /// Opens `path` and reads its header (an empty scored-pairs file is an error).
    pub fn open(path: &'p Path, layout: Layout) -> Result<Self> {
        let mut p = PairReader {
            layout,
            rows: Rows::open(path)?,
            columns: Vec::new(),
            fields: 2,
            pending: false,
        };
        if !p.rows.advance()? {
            if layout == Layout::Scored {
                return Err(Error::parse(
                    path,
                    1,
                    "empty file: expected a header starting with columns a,b",
                ));
            }
            return Ok(p);
        }
        let rec = p.rows.record();
        if rec.len() >= 2 && &rec[0] == "a" && &rec[1] == "b" {
            p.columns = rec.iter().skip(2).map(str::to_string).collect();
            p.fields = rec.len();
        } else if layout == Layout::Scored {
            return Err(Error::parse(
                path,
                p.rows.line(),
                "expected a header starting with columns a,b",
            ));
        } else {
            p.pending = true;
        }
        Ok(p)
    }

    /// The header's fields after `a` and `b` (empty without a header).
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// The next row, checked against the layout; `None` at the end.
    pub fn next_row(&mut self) -> Result<Option<PairRow<'_>>> {
        if !std::mem::take(&mut self.pending) && !self.rows.advance()? {
            return Ok(None);
        }
        let (path, rec, line) = (self.rows.path(), self.rows.record(), self.rows.line());
        match self.layout {
            Layout::Scored => {
                if rec.len() < 2 || rec[0].is_empty() || rec[1].is_empty() {
                    return Err(Error::parse(
                        path,
                        line,
                        "expected a pair of document ids: a,b[,score...]",
                    ));
                }
            }
            Layout::Table => {
                if rec.len() != self.fields {
                    return Err(Error::parse(
                        path,
                        line,
                        format!(
                            "expected {} {}-separated fields, found {}",
                            self.fields,
                            self.rows.separator(),
                            rec.len()
                        ),
                    ));
                }
                if rec[0].is_empty() || rec[1].is_empty() {
                    return Err(Error::parse(path, line, "empty document id"));
                }
            }
        }
        if rec[0] == rec[1] {
            return Err(Error::parse(
                path,
                line,
                format!(
                    "pair ({}, {}) pairs a document with itself",
                    &rec[0], &rec[1]
                ),
            ));
        }
        Ok(Some(PairRow { line, rec }))
    }
}
