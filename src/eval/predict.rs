//! Predicted duplicates: pairs (`pairs.csv`: header `a,b` plus optional score columns) or
//! clusters (`clusters.jsonl`: `{"id": .., "docs": [..], "support": k}` per line), turned into
//! one set of unordered pairs (every member pair of every cluster; clusters may overlap; each
//! pair counted once).
//!
//! A pair file's score (what a precision-recall curve ranks by): the column `score`; else
//! the only column after `a,b`; else, in the layout `fimdup cluster` writes
//! (`shared,estimate,exact`), the first non-empty of `exact`, `estimate`, `shared`. An empty
//! or non-numeric cell leaves the pair unscored; a pair listed twice keeps its highest
//! score.

use std::path::Path;

use super::ids::{insert_pairs, key, Ids};
use super::json_lines::for_each_json_line;
use super::pairs::{Layout, PairReader};
use crate::corpus::ext_id_from_json;
use crate::{Error, Result};

/// One predicted cluster (members interned; see [`Prediction::cluster_members`]).
#[derive(Clone, Debug)]
pub struct PredCluster {
    /// The cluster's id (from the file, or its position for in-memory clusters).
    pub id: String,
    /// Interned member ids, deduplicated, in first-seen order.
    pub(crate) docs: Vec<u32>,
    /// The cluster's support (number of shared description units) if given.
    pub support: Option<u64>,
}

impl PredCluster {
    /// Number of distinct members.
    pub fn size(&self) -> usize {
        self.docs.len()
    }
}

/// The output of a method as a pair set, with its clusters when it made clusters.
#[derive(Clone, Debug, Default)]
pub struct Prediction {
    pub(crate) ids: Ids,
    pub(crate) pairs: hashbrown::HashSet<(u32, u32)>,
    clusters: Option<Vec<PredCluster>>,
    /// The pairs' scores, when the pair file has a score (see the module docs).
    scores: Option<hashbrown::HashMap<(u32, u32), f64>>,
}

impl Prediction {
    /// A prediction made of pairs (no clusters). A self-pair is an error.
    pub fn from_pairs<I, A, B>(pairs: I) -> Result<Self>
    where
        I: IntoIterator<Item = (A, B)>,
        A: AsRef<str>,
        B: AsRef<str>,
    {
        let mut p = Prediction::default();
        insert_pairs(&mut p.ids, &mut p.pairs, pairs, "predicted")?;
        Ok(p)
    }

    /// A prediction made of scored pairs `(a, b, score)` (`None` or NaN: unscored; a pair
    /// listed twice keeps its highest score). A self-pair is an error.
    pub fn from_scored_pairs<I, A, B>(pairs: I) -> Result<Self>
    where
        I: IntoIterator<Item = (A, B, Option<f64>)>,
        A: AsRef<str>,
        B: AsRef<str>,
    {
        let v: Vec<(A, B, Option<f64>)> = pairs.into_iter().collect();
        let mut p = Prediction::from_pairs(v.iter().map(|(a, b, _)| (a.as_ref(), b.as_ref())))?;
        let mut scores = hashbrown::HashMap::new();
        for (a, b, s) in &v {
            let (Some(x), Some(y), Some(s)) = (
                p.ids.get(a.as_ref()),
                p.ids.get(b.as_ref()),
                s.filter(|s| !s.is_nan()),
            ) else {
                continue;
            };
            let e = scores.entry(key(x, y)).or_insert(s);
            *e = e.max(s);
        }
        p.scores = Some(scores);
        Ok(p)
    }

    /// A prediction made of clusters of external ids; cluster `i` gets id `i`. Repeated
    /// members of a cluster count once; clusters of fewer than two documents add no pair.
    pub fn from_clusters<I, C, S>(clusters: I) -> Self
    where
        I: IntoIterator<Item = C>,
        C: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut p = Prediction {
            clusters: Some(Vec::new()),
            ..Default::default()
        };
        for (i, c) in clusters.into_iter().enumerate() {
            p.push_cluster(i.to_string(), c, None);
        }
        p
    }

    /// A prediction made of clusters with their own ids and supports (as a method's output
    /// gives them, and `clusters.jsonl` lists them).
    pub fn from_labeled_clusters<I, C, S>(clusters: I) -> Self
    where
        I: IntoIterator<Item = (String, C, Option<u64>)>,
        C: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut p = Prediction {
            clusters: Some(Vec::new()),
            ..Default::default()
        };
        for (id, c, support) in clusters {
            p.push_cluster(id, c, support);
        }
        p
    }

    fn push_cluster<C, S>(&mut self, id: String, docs: C, support: Option<u64>)
    where
        C: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut members: Vec<u32> = Vec::new();
        for d in docs {
            let x = self.ids.intern(d.as_ref());
            if !members.contains(&x) {
                members.push(x);
            }
        }
        for i in 0..members.len() {
            for j in i + 1..members.len() {
                self.pairs.insert(key(members[i], members[j]));
            }
        }
        self.clusters
            .get_or_insert_with(Vec::new)
            .push(PredCluster {
                id,
                docs: members,
                support,
            });
    }

    /// Reads `pairs.csv`: a header whose first two columns are `a` and `b` (further score
    /// columns are ignored), then one pair per line. Errors name file and line.
    pub fn read_pairs_csv(path: &Path) -> Result<Self> {
        let mut rdr = PairReader::open(path, Layout::Scored)?;
        let cols = rdr.columns();
        let at = |n: &str| cols.iter().position(|c| c == n);
        let score_cols: Vec<usize> = match (at("score"), cols.len()) {
            (Some(c), _) => vec![c],
            (None, 1) => vec![0],
            _ => ["exact", "estimate", "shared"]
                .iter()
                .filter_map(|n| at(n))
                .collect(),
        };
        let mut p = Prediction::default();
        if !score_cols.is_empty() {
            p.scores = Some(hashbrown::HashMap::new());
        }
        while let Some(row) = rdr.next_row()? {
            let (x, y) = (p.ids.intern(row.a()), p.ids.intern(row.b()));
            let k = key(x, y);
            p.pairs.insert(k);
            let values: Vec<&str> = row.values().collect();
            let score = score_cols.iter().find_map(|&c| {
                values
                    .get(c)
                    .and_then(|v| v.parse::<f64>().ok())
                    .filter(|v| !v.is_nan())
            });
            if let (Some(s), Some(v)) = (p.scores.as_mut(), score) {
                let e = s.entry(k).or_insert(v);
                *e = e.max(v);
            }
        }
        Ok(p)
    }

    /// Reads `clusters.jsonl`: one `{"id": .., "docs": [ids..], "support": k}` per line (`id`
    /// and `support` optional; ids may be strings or numbers). Errors name file and line.
    pub fn read_clusters_jsonl(path: &Path) -> Result<Self> {
        let mut p = Prediction {
            clusters: Some(Vec::new()),
            ..Default::default()
        };
        for_each_json_line(path, |lineno, mut v| {
            let id = match v.get_mut("id").map(serde_json::Value::take) {
                None | Some(serde_json::Value::Null) => lineno.to_string(),
                Some(id) => ext_id_from_json(id).map_err(|_| {
                    Error::parse(path, lineno, "\"id\" must be a string or a number")
                })?,
            };
            let Some(serde_json::Value::Array(docs)) =
                v.get_mut("docs").map(serde_json::Value::take)
            else {
                return Err(Error::parse(
                    path,
                    lineno,
                    "expected a \"docs\" array of document ids",
                ));
            };
            let names = docs
                .into_iter()
                .map(ext_id_from_json)
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(|_| Error::parse(path, lineno, "\"docs\" must hold strings or numbers"))?;
            let support = match v.get("support") {
                None | Some(serde_json::Value::Null) => None,
                Some(s) => Some(s.as_u64().ok_or_else(|| {
                    Error::parse(path, lineno, "\"support\" must be a non-negative integer")
                })?),
            };
            p.push_cluster(id, names, support);
            Ok(())
        })?;
        Ok(p)
    }

    /// Number of distinct predicted pairs.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// True when no pair is predicted.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// True when `{a, b}` is predicted.
    pub fn contains(&self, a: &str, b: &str) -> bool {
        match (self.ids.get(a), self.ids.get(b)) {
            (Some(x), Some(y)) => x != y && self.pairs.contains(&key(x, y)),
            _ => false,
        }
    }

    /// True when the prediction came with scores (a scored pair file).
    pub fn is_scored(&self) -> bool {
        self.scores.is_some()
    }

    /// Every pair `(a, b, score)` with `a < b`, sorted; the score is `None` for a pair
    /// without one (every pair of an unscored prediction).
    pub fn scored_pairs(&self) -> Vec<(String, String, Option<f64>)> {
        let mut v: Vec<(String, String, Option<f64>)> = self
            .pairs
            .iter()
            .map(|&(x, y)| {
                let (a, b) = (self.ids.name(x), self.ids.name(y));
                let (a, b) = if a < b { (a, b) } else { (b, a) };
                let s = self.scores.as_ref().and_then(|m| m.get(&(x, y)).copied());
                (a.to_string(), b.to_string(), s)
            })
            .collect();
        v.sort_by(|p, q| (&p.0, &p.1).cmp(&(&q.0, &q.1)));
        v
    }

    /// The clusters, when the prediction was made of clusters.
    pub fn clusters(&self) -> Option<&[PredCluster]> {
        self.clusters.as_deref()
    }

    /// External ids of a cluster's members.
    pub fn cluster_members<'a>(&'a self, c: &'a PredCluster) -> impl Iterator<Item = &'a str> {
        c.docs.iter().map(move |&x| self.ids.name(x))
    }

    /// The pairs as `(a, b)` with `a < b`, sorted.
    pub fn sorted_pairs(&self) -> Vec<(String, String)> {
        super::truth::sorted_names(&self.ids, self.pairs.iter().copied())
    }
}
