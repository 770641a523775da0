//! The truth table: a truth in any [`TruthFormat`] -- pair rows with value columns
//! (`truth.csv` of `fimdup gen`, any CSV or TSV with columns `a` and `b`, a headerless `a,b`
//! list), a cluster assignment, or a PAN directory -- giving the positive pairs a
//! [`TruthRule`] selects ([`TruthTable::labels`]) and the labeled pairs
//! ([`TruthTable::listed`]).
//!
//! Invariants: pairs are unordered (`(a, b)` and `(b, a)` are one pair, listed with `a < b` in
//! external-id string order); a pair of a document with itself is an error; a pair listed twice
//! is kept once (the first row wins for lookups); only pair rows have value columns, so a
//! rule on a cluster or PAN truth is an error.

use std::path::{Path, PathBuf};

use super::clusters::DocClusters;
use super::format::TruthFormat;
use super::labels::{Labeled, Labels};
use super::pan::PanCases;
use crate::eval::ids::{key, Ids};
use crate::eval::pairs::{Layout, PairReader};
use crate::eval::rule::TruthRule;
use crate::{Error, Result};

/// A truth: rows of pairs with named value columns (pairs format), or the documents and
/// positive pairs of a cluster or PAN truth.
#[derive(Clone, Debug, Default)]
pub struct TruthTable {
    path: PathBuf,
    format: Resolved,
    columns: Vec<String>,
    ids: Ids,
    rows: Vec<Row>,
    index: hashbrown::HashMap<(u32, u32), usize>,
}

/// The truth's format and, beyond pair rows, what it holds.
#[derive(Clone, Debug, Default)]
enum Resolved {
    /// Pair rows (in `rows`).
    #[default]
    Pairs,
    /// A cluster per document.
    Clusters(DocClusters),
    /// PAN documents and cases.
    Pan(PanCases),
}

#[derive(Clone, Debug)]
struct Row {
    a: u32,
    b: u32,
    line: u64,
    values: Vec<String>,
}

impl TruthTable {
    /// Reads a truth in pairs format (CSV or TSV). With a header whose first two columns are
    /// `a` and `b`, the other columns are kept by name; without one (first line not `a,b`),
    /// every line is a pair. Errors name the file and line.
    pub fn read(path: &Path) -> Result<Self> {
        let mut rdr = PairReader::open(path, Layout::Table)?;
        let mut t = TruthTable {
            path: path.to_path_buf(),
            columns: rdr.columns().to_vec(),
            ..Default::default()
        };
        while let Some(row) = rdr.next_row()? {
            let (x, y) = (t.ids.intern(row.a()), t.ids.intern(row.b()));
            let k = key(x, y);
            if t.index.contains_key(&k) {
                continue;
            }
            t.index.insert(k, t.rows.len());
            t.rows.push(Row {
                a: x,
                b: y,
                line: row.line,
                values: row.values().map(str::to_string).collect(),
            });
        }
        Ok(t)
    }

    /// Reads a truth in `format` (`Auto`: decided by [`TruthFormat::resolve`]). Errors name
    /// the file and line.
    pub fn read_as(path: &Path, format: TruthFormat) -> Result<Self> {
        let format = match format.resolve(path)? {
            TruthFormat::Auto | TruthFormat::Pairs => return Self::read(path),
            TruthFormat::Clusters => Resolved::Clusters(DocClusters::read(path)?),
            TruthFormat::Pan => Resolved::Pan(PanCases::read(path)?),
        };
        Ok(TruthTable {
            path: path.to_path_buf(),
            format,
            ..Default::default()
        })
    }

    /// The format the truth was read in (never `Auto`).
    pub fn format(&self) -> TruthFormat {
        match self.format {
            Resolved::Pairs => TruthFormat::Pairs,
            Resolved::Clusters(_) => TruthFormat::Clusters,
            Resolved::Pan(_) => TruthFormat::Pan,
        }
    }

    /// The file (or PAN directory) the truth was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Names of the value columns (after `a` and `b`); empty for a headerless list and for
    /// cluster and PAN truths.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// True when the table has a column `name`.
    pub fn has_column(&self, name: &str) -> bool {
        self.columns.iter().any(|c| c == name)
    }

    /// True when this looks like a `fimdup gen` truth table (has `resemblance` and
    /// `edit_similarity` columns), i.e. it lists negatives too and needs a rule.
    pub fn is_scored(&self) -> bool {
        self.has_column("resemblance") && self.has_column("edit_similarity")
    }

    /// Number of (distinct) labeled pairs: the rows of a pair list, every pair of the
    /// documents of a cluster truth, every (suspicious, source) pair of a PAN truth.
    pub fn len(&self) -> u64 {
        match &self.format {
            Resolved::Pairs => self.rows.len() as u64,
            _ => self.listed().len(),
        }
    }

    /// True when the truth labels no pair.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn value(&self, row: &Row, col: usize, name: &str) -> Result<f64> {
        let s = &row.values[col];
        s.parse::<f64>()
            .ok()
            .filter(|v| !v.is_nan())
            .ok_or_else(|| {
                Error::parse(
                    &self.path,
                    row.line,
                    format!("column {name}: '{s}' is not a number"),
                )
            })
    }

    fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
    }

    /// The positive pairs: every row when `rule` is `None`, else the rows whose `rule.column`
    /// satisfies the rule; for a cluster truth the pairs within each cluster, for a PAN
    /// truth the (suspicious, source) pairs of the plagiarism cases. Errors when the column
    /// is missing (naming the rule and the columns there are; a cluster or PAN truth has
    /// none) or a value is not a number (naming file and line).
    pub fn labels(&self, rule: Option<&TruthRule>) -> Result<Labels> {
        let mut l = Labels::default();
        if let (Some(r), Resolved::Clusters(_) | Resolved::Pan(_)) = (rule, &self.format) {
            return Err(Error::config(format!(
                "truth rule '{r}': {} is a {} truth, which has no value columns to apply a rule to (rules apply to pair lists with columns, --truth-format pairs)",
                self.path.display(),
                self.format()
            )));
        }
        match &self.format {
            Resolved::Pairs => {}
            Resolved::Clusters(c) => {
                for m in &c.members {
                    for (i, &x) in m.iter().enumerate() {
                        for &y in &m[i + 1..] {
                            l.insert(c.docs.name(x), c.docs.name(y));
                        }
                    }
                }
                return Ok(l);
            }
            Resolved::Pan(p) => {
                for (s, r) in &p.cases {
                    l.insert(s, r);
                }
                return Ok(l);
            }
        }
        let col = match rule {
            None => None,
            Some(r) => Some(self.column_index(&r.column).ok_or_else(|| {
                Error::config(format!(
                    "truth rule '{r}': {} has no column '{}' (columns: a, b{})",
                    self.path.display(),
                    r.column,
                    self.columns
                        .iter()
                        .map(|c| format!(", {c}"))
                        .collect::<String>()
                ))
            })?),
        };
        for row in &self.rows {
            let keep = match (rule, col) {
                (Some(r), Some(c)) => r.accepts(self.value(row, c, &r.column)?),
                _ => true,
            };
            if keep {
                l.insert(self.ids.name(row.a), self.ids.name(row.b));
            }
        }
        Ok(l)
    }

    /// Every pair the truth labels, positive or negative (for `--labeled-only`:
    /// [`evaluate_labeled`](crate::eval::evaluate_labeled)): the rows of a pair list, every
    /// pair of two documents of a cluster truth, every (suspicious, source) pair of a PAN
    /// truth (the last two without listing the pairs).
    pub fn listed(&self) -> Labeled {
        match &self.format {
            Resolved::Pairs => {
                let mut l = Labels::default();
                for row in &self.rows {
                    l.insert(self.ids.name(row.a), self.ids.name(row.b));
                }
                Labeled::pairs(l)
            }
            Resolved::Clusters(c) => {
                Labeled::documents((0..c.len() as u32).map(|d| c.docs.name(d)))
            }
            Resolved::Pan(p) => Labeled::bipartite(&p.suspicious, &p.sources),
        }
    }

    /// The value of column `name` for the pair `{a, b}`: `Ok(None)` when the pair or the
    /// column is absent, an error naming file and line when the value is not a number.
    pub fn get(&self, a: &str, b: &str, name: &str) -> Result<Option<f64>> {
        let Some(c) = self.column_index(name) else {
            return Ok(None);
        };
        let (Some(x), Some(y)) = (self.ids.get(a), self.ids.get(b)) else {
            return Ok(None);
        };
        match self.index.get(&key(x, y)) {
            None => Ok(None),
            Some(&i) => self.value(&self.rows[i], c, name).map(Some),
        }
    }

    /// The `resemblance` column for `{a, b}` (see [`TruthTable::get`]).
    pub fn resemblance(&self, a: &str, b: &str) -> Result<Option<f64>> {
        self.get(a, b, "resemblance")
    }
}
