//! External predictions: the pairs another tool found, named on the command line as
//! `NAME=PAIRS.csv` ([`ExternalSpec`]) and read into an [`External`] to be evaluated beside
//! the methods, at each threshold when the pairs are scored.
//!
//! The file is a pair file (CSV or TSV, header `a,b[,columns...]` required). The score is the
//! column named `score`; without one, a header of exactly three columns makes the third the
//! score; otherwise the file is unscored (every pair predicted at every threshold). Scores
//! must be numbers (not NaN; infinities allowed), an error naming the file and line
//! otherwise. Invariants: a pair listed twice is one pair with its highest score; pairs are
//! kept in first-seen order, so listings do not depend on hash order.

use std::path::{Path, PathBuf};

use super::ids::{key, Ids};
use super::pairs::{Layout, PairReader};
use super::predict::Prediction;
use crate::{Error, Result};

/// `NAME=PATH`: a named external prediction file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalSpec {
    /// The name it is reported under.
    pub name: String,
    /// Its pair file.
    pub path: PathBuf,
}

impl ExternalSpec {
    /// Parses `NAME=PATH` (split at the first `=`; both parts trimmed, neither empty).
    pub fn parse(s: &str) -> Result<Self> {
        let bad = |why: &str| {
            Error::config(format!(
                "external prediction '{s}': {why}; expected NAME=PAIRS.csv"
            ))
        };
        let (name, path) = s.split_once('=').ok_or_else(|| bad("no '='"))?;
        let (name, path) = (name.trim(), path.trim());
        if name.is_empty() {
            return Err(bad("empty name"));
        }
        if path.is_empty() {
            return Err(bad("empty path"));
        }
        Ok(ExternalSpec {
            name: name.to_string(),
            path: PathBuf::from(path),
        })
    }

    /// Reads the file ([`External::read`]).
    pub fn read(&self) -> Result<External> {
        External::read(&self.name, &self.path)
    }
}

impl std::str::FromStr for ExternalSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        ExternalSpec::parse(s)
    }
}

/// The pairs of an external prediction file, with their scores when it has a score column.
#[derive(Clone, Debug)]
pub struct External {
    name: String,
    path: PathBuf,
    ids: Ids,
    /// Distinct pairs in first-seen order.
    pairs: Vec<(u32, u32)>,
    /// The score of each pair (the highest of its rows), when scored.
    scores: Option<Vec<f64>>,
}

impl External {
    /// Reads the pair file at `path` under `name` (see the module docs for the score
    /// column). Errors name the file and line.
    pub fn read(name: &str, path: &Path) -> Result<Self> {
        let mut rdr = PairReader::open(path, Layout::Scored)?;
        let cols = rdr.columns();
        let col = cols
            .iter()
            .position(|c| c == "score")
            .or((cols.len() == 1).then_some(0));
        let col_name = col.map(|c| cols[c].clone());
        let mut e = External {
            name: name.to_string(),
            path: path.to_path_buf(),
            ids: Ids::default(),
            pairs: Vec::new(),
            scores: col.map(|_| Vec::new()),
        };
        let mut index: hashbrown::HashMap<(u32, u32), usize> = hashbrown::HashMap::new();
        while let Some(row) = rdr.next_row()? {
            let score = match (col, &col_name) {
                (Some(c), Some(cn)) => {
                    let v = row.values().nth(c).unwrap_or("");
                    Some(
                        v.parse::<f64>()
                            .ok()
                            .filter(|x| !x.is_nan())
                            .ok_or_else(|| {
                                Error::parse(
                                    path,
                                    row.line,
                                    format!("column {cn}: '{v}' is not a number"),
                                )
                            })?,
                    )
                }
                _ => None,
            };
            let k = key(e.ids.intern(row.a()), e.ids.intern(row.b()));
            match index.get(&k) {
                Some(&i) => {
                    if let (Some(s), Some(v)) = (e.scores.as_mut(), score) {
                        s[i] = s[i].max(v);
                    }
                }
                None => {
                    index.insert(k, e.pairs.len());
                    e.pairs.push(k);
                    if let (Some(s), Some(v)) = (e.scores.as_mut(), score) {
                        s.push(v);
                    }
                }
            }
        }
        Ok(e)
    }

    /// The name it is reported under.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The file it was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// True when the file has a score column.
    pub fn is_scored(&self) -> bool {
        self.scores.is_some()
    }

    /// Number of distinct pairs in the file.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// True when the file holds no pair.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The pairs predicted at `threshold`: those scored `>= threshold`, or every pair of an
    /// unscored file.
    pub fn at(&self, threshold: f64) -> Prediction {
        let mut p = Prediction::default();
        for (a, b, score) in self.pairs_with_scores() {
            if score.is_none_or(|s| s >= threshold) {
                let (x, y) = (p.ids.intern(a), p.ids.intern(b));
                p.pairs.insert(key(x, y));
            }
        }
        p
    }

    /// Every pair `(a, b, score)` with `a < b`, in first-seen order; the score is `None` for
    /// an unscored file.
    pub fn pairs_with_scores(&self) -> impl Iterator<Item = (&str, &str, Option<f64>)> + '_ {
        self.pairs.iter().enumerate().map(|(i, &(x, y))| {
            let (a, b) = (self.ids.name(x), self.ids.name(y));
            let (a, b) = if a < b { (a, b) } else { (b, a) };
            (a, b, self.scores.as_ref().map(|s| s[i]))
        })
    }
}
