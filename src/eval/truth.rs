//! Labeled pairs: the truth table (`truth.csv` of `fimdup gen`, or any CSV with columns `a`
//! and `b`, or a headerless `a,b` list) and the positive pair set a [`TruthRule`] selects.
//!
//! Invariants: pairs are unordered (`(a, b)` and `(b, a)` are one pair, listed with `a < b` in
//! external-id string order); a pair of a document with itself is an error; a pair listed twice
//! is kept once (the first row wins for lookups).

use std::path::{Path, PathBuf};

use super::ids::{insert_pairs, key, Ids};
use super::pairs::{Layout, PairReader};
use super::rule::TruthRule;
use crate::{Error, Result};

/// A set of positive (duplicate) pairs of external ids.
#[derive(Clone, Debug, Default)]
pub struct Labels {
    pub(crate) ids: Ids,
    pub(crate) pairs: hashbrown::HashSet<(u32, u32)>,
}

impl Labels {
    /// Builds the set from pairs of external ids. A self-pair is an error.
    pub fn from_pairs<I, A, B>(pairs: I) -> Result<Self>
    where
        I: IntoIterator<Item = (A, B)>,
        A: AsRef<str>,
        B: AsRef<str>,
    {
        let mut l = Labels::default();
        insert_pairs(&mut l.ids, &mut l.pairs, pairs, "labeled")?;
        Ok(l)
    }

    pub(crate) fn insert(&mut self, a: &str, b: &str) {
        let (x, y) = (self.ids.intern(a), self.ids.intern(b));
        self.pairs.insert(key(x, y));
    }

    /// Number of positive pairs.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// True when there is no positive pair.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// True when `{a, b}` is a positive pair.
    pub fn contains(&self, a: &str, b: &str) -> bool {
        match (self.ids.get(a), self.ids.get(b)) {
            (Some(x), Some(y)) => self.pairs.contains(&key(x, y)),
            _ => false,
        }
    }

    /// The pairs as `(a, b)` with `a < b`, sorted.
    pub fn sorted_pairs(&self) -> Vec<(String, String)> {
        sorted_names(&self.ids, self.pairs.iter().copied())
    }
}

pub(crate) fn sorted_names(
    ids: &Ids,
    pairs: impl Iterator<Item = (u32, u32)>,
) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = pairs
        .map(|(x, y)| {
            let (a, b) = (ids.name(x), ids.name(y));
            if a < b {
                (a.to_string(), b.to_string())
            } else {
                (b.to_string(), a.to_string())
            }
        })
        .collect();
    v.sort_unstable();
    v
}

/// A truth table: rows of pairs with named value columns, as read from a CSV file.
#[derive(Clone, Debug, Default)]
pub struct TruthTable {
    path: PathBuf,
    columns: Vec<String>,
    ids: Ids,
    rows: Vec<Row>,
    index: hashbrown::HashMap<(u32, u32), usize>,
}

#[derive(Clone, Debug)]
struct Row {
    a: u32,
    b: u32,
    line: u64,
    values: Vec<String>,
}

impl TruthTable {
    /// Reads a truth CSV. With a header whose first two columns are `a` and `b`, the other
    /// columns are kept by name; without one (first line not `a,b`), every line is a pair.
    /// Errors name the file and line.
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

    /// The file the table was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Names of the value columns (after `a` and `b`); empty for a headerless list.
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

    /// Number of (distinct) pairs in the table.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when the table has no pair.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
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
    /// satisfies the rule. Errors when the column is missing (naming the rule and the columns
    /// there are) or a value is not a number (naming file and line).
    pub fn labels(&self, rule: Option<&TruthRule>) -> Result<Labels> {
        let mut l = Labels::default();
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

    /// Every pair the table lists, positive or negative (for `--labeled-only`:
    /// [`evaluate_labeled`](super::evaluate_labeled)).
    pub fn listed(&self) -> Labels {
        let mut l = Labels::default();
        for row in &self.rows {
            l.insert(self.ids.name(row.a), self.ids.name(row.b));
        }
        l
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
