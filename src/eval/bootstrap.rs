//! Bootstrap confidence intervals of precision, recall and F1, and paired comparisons of
//! methods on the same resamples.
//!
//! The resampled unit is a document, or a group of documents ([`Units::groups`]: a task, a
//! source, a generator family) because pairs that share a document are not independent. A
//! resample draws as many units as there are, uniformly with replacement; unit `u` drawn
//! `m_u` times makes every pair count with a weight instead of being re-run:
//!
//! - a pair of two documents of different units `u != v` counts `m_u * m_v` times (every
//!   copy of the one against every copy of the other);
//! - a pair inside one group `u` counts `m_u` times (once inside each copy of the group:
//!   the group's pairs are its observations, and two copies of one group are not labeled
//!   against each other);
//! - two copies of one document never make a pair (the truth says nothing of a document
//!   against itself).
//!
//! So a resample is a weighted recount over the pair lists already made: the truth's
//! positives give the weighted |T|, a row's counted predicted pairs the weighted |F|, those
//! of them that are positive the weighted |T ∩ F|, and precision, recall and F1 follow with
//! the zero cases of [`super::metrics`]. Every unit drawn once gives the unweighted
//! [`super::evaluate_labeled`] exactly.
//!
//! Units: the documents (or groups) given first, in their order; a document named by the
//! truth or a prediction and not given becomes a unit of its own, registered in the order
//! pairs are added (each row's pairs sorted by id), so the unit numbering never depends on
//! hash-map order.
//!
//! Invariants: resample `i` draws from ChaCha8 seeded with the seed on stream `i`, so its
//! draws do not depend on the other resamples or on the thread that runs it; results are
//! collected in resample order, so the same seed gives the same intervals for any number
//! of threads. Intervals are percentile intervals (2.5 % and 97.5 %, linear interpolation
//! between order statistics).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

use super::{Labeled, Labels, Prediction};
use crate::{Error, Result};

/// Most resamples a bootstrap may ask for.
pub const MAX_RESAMPLES: usize = 1_000_000;

/// The lower and upper percentiles of every interval.
pub const PERCENTILES: (f64, f64) = (0.025, 0.975);

/// How to resample: how many resamples, their seed, and the record field naming each
/// document's group (`None`: documents are the units).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BootstrapConfig {
    /// Resamples (at least 2).
    pub resamples: usize,
    /// Seed of the resamples' draws.
    pub seed: u64,
    /// The field of the corpus records that names a document's group.
    pub group_by: Option<String>,
}

impl BootstrapConfig {
    /// A bootstrap from named options: `None` when `resamples` is 0 (no bootstrap), else
    /// the checked configuration.
    pub fn from_options(
        resamples: usize,
        seed: u64,
        group_by: Option<&str>,
    ) -> Result<Option<Self>> {
        if resamples == 0 {
            if group_by.is_some() {
                return Err(Error::config(
                    "group-by chooses the bootstrap's resampled unit: give a number of resamples too",
                ));
            }
            return Ok(None);
        }
        let cfg = BootstrapConfig {
            resamples,
            seed,
            group_by: group_by.map(str::to_string),
        };
        cfg.validate()?;
        Ok(Some(cfg))
    }

    /// Checks the number of resamples (2 to [`MAX_RESAMPLES`]) and that a group field has a
    /// name.
    pub fn validate(&self) -> Result<()> {
        if !(2..=MAX_RESAMPLES).contains(&self.resamples) {
            return Err(Error::config(format!(
                "bootstrap: {} resamples; expected 2 to {MAX_RESAMPLES}",
                self.resamples
            )));
        }
        if self
            .group_by
            .as_deref()
            .is_some_and(|g| g.trim().is_empty())
        {
            return Err(Error::config("bootstrap: the group-by field name is empty"));
        }
        Ok(())
    }

    /// The resampled unit, in words (for reports).
    pub fn unit(&self) -> String {
        match &self.group_by {
            None => "documents".to_string(),
            Some(f) => {
                format!("groups by the record field '{f}' (a document without it is its own group)")
            }
        }
    }
}

/// The resampled units: a unit index per document id.
#[derive(Clone, Debug, Default)]
pub struct Units {
    index: hashbrown::HashMap<Box<str>, u32>,
    units: u32,
    grouped: bool,
    /// Every unit's name, by unit index: `d:` and the document id for a document of its
    /// own, `g:` and the field's value for a group (so a group never shares a document's
    /// name).
    keys: Vec<Box<str>>,
}

impl Units {
    /// Every document its own unit, numbered in the order given (repeated ids count once).
    pub fn documents<I, S>(ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut u = Units::default();
        for id in ids {
            u.unit_of(id.as_ref());
        }
        u
    }

    /// Documents with their group: documents of one group share a unit, groups numbered
    /// in order of first appearance; a document without a group is a unit of its own.
    pub fn groups<I, S, G>(docs: I) -> Self
    where
        I: IntoIterator<Item = (S, Option<G>)>,
        S: AsRef<str>,
        G: AsRef<str>,
    {
        let mut u = Units {
            grouped: true,
            ..Units::default()
        };
        let mut groups: hashbrown::HashMap<String, u32> = hashbrown::HashMap::new();
        for (id, g) in docs {
            let id = id.as_ref();
            if u.index.contains_key(id) {
                continue;
            }
            let unit = match g {
                Some(g) => *groups.entry(g.as_ref().to_string()).or_insert_with(|| {
                    u.keys.push(format!("g:{}", g.as_ref()).into());
                    u.units += 1;
                    u.units - 1
                }),
                None => {
                    u.keys.push(format!("d:{id}").into());
                    u.units += 1;
                    u.units - 1
                }
            };
            u.index.insert(id.into(), unit);
        }
        u
    }

    /// The unit of `id`, a new unit of its own when it was not given.
    fn unit_of(&mut self, id: &str) -> u32 {
        if let Some(&u) = self.index.get(id) {
            return u;
        }
        let u = self.units;
        self.units += 1;
        self.index.insert(id.into(), u);
        self.keys.push(format!("d:{id}").into());
        u
    }

    /// The name of every unit, by unit index (see the field's docs).
    pub fn keys(&self) -> &[Box<str>] {
        &self.keys
    }

    /// Number of units.
    pub fn len(&self) -> usize {
        self.units as usize
    }

    /// True when there is no unit.
    pub fn is_empty(&self) -> bool {
        self.units == 0
    }

    /// True when units are groups of documents.
    pub fn is_grouped(&self) -> bool {
        self.grouped
    }
}

/// An interval `[lo, hi]`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Interval {
    /// The lower end (2.5th percentile).
    pub lo: f64,
    /// The upper end (97.5th percentile).
    pub hi: f64,
}

impl Interval {
    /// True when `v` lies in the interval (ends included).
    pub fn contains(&self, v: f64) -> bool {
        self.lo <= v && v <= self.hi
    }
}

/// The intervals of one row.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RowIntervals {
    /// Precision.
    pub precision: Interval,
    /// Recall.
    pub recall: Interval,
    /// F1.
    pub f1: Interval,
}

/// A unit pair of one labeled or predicted pair.
type UnitPair = (u32, u32);

#[derive(Clone, Debug, Default)]
struct RowPairs {
    /// Predicted pairs that count (all, or with `--labeled-only` the labeled ones).
    found: Vec<UnitPair>,
    /// Those of them that are positive.
    common: Vec<UnitPair>,
}

/// The pair lists of a truth and of every row, in units, ready to be recounted under
/// resamples.
#[derive(Clone, Debug)]
pub struct Resampler {
    units: Units,
    truth: Vec<UnitPair>,
    rows: Vec<RowPairs>,
}

/// What [`Resampler::run`] gives: every row's intervals, and every row's F1 in every
/// resample (for paired comparisons).
#[derive(Clone, Debug)]
pub struct BootstrapResult {
    /// Resamples drawn.
    pub resamples: usize,
    /// Units resampled.
    pub units: usize,
    /// Per row, in the order rows were added.
    pub rows: Vec<RowIntervals>,
    /// `f1[row][resample]`.
    pub f1: Vec<Vec<f64>>,
}

/// Precision, recall and F1 of weighted counts, with the zero cases of
/// [`super::Counts`] (precision 1 when nothing is found, recall 1 when the truth is empty,
/// F1 0 when both are 0).
pub fn rates(truth: f64, found: f64, common: f64) -> [f64; 3] {
    let p = if found == 0.0 { 1.0 } else { common / found };
    let r = if truth == 0.0 { 1.0 } else { common / truth };
    let f = if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    };
    [p, r, f]
}

/// The `q` quantile of ascending `v` (linear interpolation between order statistics; `v`
/// not empty).
pub fn quantile(v: &[f64], q: f64) -> f64 {
    let h = (v.len() - 1) as f64 * q;
    let (i, frac) = (h.floor() as usize, h - h.floor());
    if i + 1 < v.len() {
        v[i] + (v[i + 1] - v[i]) * frac
    } else {
        v[i]
    }
}

/// The percentile interval of the values (sorted in place).
pub fn interval(v: &mut [f64]) -> Interval {
    v.sort_by(f64::total_cmp);
    Interval {
        lo: quantile(v, PERCENTILES.0),
        hi: quantile(v, PERCENTILES.1),
    }
}

impl Resampler {
    /// The truth's positives in `units` (documents it names that `units` lacks become
    /// units of their own, in the order of its sorted pairs).
    pub fn new(mut units: Units, labels: &Labels) -> Self {
        let truth = labels
            .sorted_pairs()
            .iter()
            .map(|(a, b)| (units.unit_of(a), units.unit_of(b)))
            .collect();
        Resampler {
            units,
            truth,
            rows: Vec::new(),
        }
    }

    /// Adds a row: the predicted pairs of `pred` that [`super::evaluate_labeled`] counts
    /// against `labels` (with `listed`: those it labels). Returns the row's index.
    pub fn add_row(
        &mut self,
        labels: &Labels,
        pred: &Prediction,
        listed: Option<&Labeled>,
    ) -> usize {
        let mut row = RowPairs::default();
        for (a, b) in pred.sorted_pairs() {
            let positive = labels.contains(&a, &b);
            if !positive && listed.is_some_and(|l| !l.contains(&a, &b)) {
                continue;
            }
            let p = (self.units.unit_of(&a), self.units.unit_of(&b));
            row.found.push(p);
            if positive {
                row.common.push(p);
            }
        }
        self.rows.push(row);
        self.rows.len() - 1
    }

    /// Number of units (after every row was added).
    pub fn units(&self) -> usize {
        self.units.len()
    }

    /// The units (after every row was added: documents named only by a row are units too).
    pub fn unit_table(&self) -> &Units {
        &self.units
    }

    /// Number of rows added.
    pub fn rows(&self) -> usize {
        self.rows.len()
    }

    /// Weighted `(|T|, |F|, |T ∩ F|)` of every row under the multiplicities `m` (a unit's
    /// number of draws; see the module docs for the weights).
    pub fn counts(&self, m: &[u32]) -> Vec<[u64; 3]> {
        let w = |&(a, b): &UnitPair| -> u64 {
            if a == b {
                u64::from(m[a as usize])
            } else {
                u64::from(m[a as usize]) * u64::from(m[b as usize])
            }
        };
        let truth: u64 = self.truth.iter().map(w).sum();
        self.rows
            .iter()
            .map(|r| {
                [
                    truth,
                    r.found.iter().map(w).sum(),
                    r.common.iter().map(w).sum(),
                ]
            })
            .collect()
    }

    /// The multiplicities of resample `i` of `seed`: as many draws as units, uniform with
    /// replacement, from ChaCha8 seeded with `seed` on stream `i`.
    pub fn draw(&self, seed: u64, i: u64) -> Vec<u32> {
        let n = self.units.len();
        let mut m = vec![0u32; n];
        if n == 0 {
            return m;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(i);
        for _ in 0..n {
            m[rng.gen_range(0..n)] += 1;
        }
        m
    }

    /// Runs the bootstrap of `cfg` (resamples in parallel, collected in order).
    pub fn run(&self, cfg: &BootstrapConfig) -> Result<BootstrapResult> {
        cfg.validate()?;
        let per: Vec<Vec<[f64; 3]>> = (0..cfg.resamples as u64)
            .into_par_iter()
            .map(|i| {
                let m = self.draw(cfg.seed, i);
                self.counts(&m)
                    .into_iter()
                    .map(|[t, f, c]| rates(t as f64, f as f64, c as f64))
                    .collect()
            })
            .collect();
        let mut rows = Vec::with_capacity(self.rows.len());
        let mut f1 = Vec::with_capacity(self.rows.len());
        for r in 0..self.rows.len() {
            let col = |k: usize| -> Vec<f64> { per.iter().map(|v| v[r][k]).collect() };
            let f = col(2);
            let ri = RowIntervals {
                precision: interval(&mut col(0)),
                recall: interval(&mut col(1)),
                f1: interval(&mut f.clone()),
            };
            rows.push(ri);
            f1.push(f);
        }
        Ok(BootstrapResult {
            resamples: cfg.resamples,
            units: self.units.len(),
            rows,
            f1,
        })
    }
}

/// The paired comparison of two methods' best F1 on the same resamples.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Paired {
    /// The first method.
    pub a: String,
    /// The second method.
    pub b: String,
    /// `a`'s best F1 on the labeled data as given.
    pub best_f1_a: f64,
    /// `b`'s.
    pub best_f1_b: f64,
    /// `best_f1_a - best_f1_b`.
    pub diff: f64,
    /// The percentile interval of the difference over the resamples.
    pub diff_lo: f64,
    /// See `diff_lo`.
    pub diff_hi: f64,
    /// Share of resamples in which `a`'s best F1 is higher.
    pub a_wins: f64,
    /// Share in which `b`'s is higher (the rest are ties).
    pub b_wins: f64,
}

/// Every pair of methods (in the order given, `a` before `b`): `methods` gives each
/// method's name, its best F1 on the data as given and the indices of its rows in
/// `res`. A method's best F1 in a resample is the highest F1 of its rows there (the
/// threshold chosen again in every resample, as the best F1 is chosen on the data).
pub fn paired(res: &BootstrapResult, methods: &[(String, f64, Vec<usize>)]) -> Vec<Paired> {
    let best: Vec<Vec<f64>> = methods
        .iter()
        .map(|(_, _, rows)| {
            (0..res.resamples)
                .map(|i| {
                    rows.iter()
                        .map(|&r| res.f1[r][i])
                        .fold(f64::NEG_INFINITY, f64::max)
                })
                .collect()
        })
        .collect();
    let mut out = Vec::new();
    for i in 0..methods.len() {
        for j in i + 1..methods.len() {
            let mut d: Vec<f64> = best[i].iter().zip(&best[j]).map(|(x, y)| x - y).collect();
            let n = d.len() as f64;
            let a_wins = d.iter().filter(|&&x| x > 0.0).count() as f64 / n;
            let b_wins = d.iter().filter(|&&x| x < 0.0).count() as f64 / n;
            let iv = interval(&mut d);
            out.push(Paired {
                a: methods[i].0.clone(),
                b: methods[j].0.clone(),
                best_f1_a: methods[i].1,
                best_f1_b: methods[j].1,
                diff: methods[i].1 - methods[j].1,
                diff_lo: iv.lo,
                diff_hi: iv.hi,
                a_wins,
                b_wins,
            });
        }
    }
    out
}

/// Writes `paired.csv`: one row per pair of methods, the columns of [`Paired`].
pub fn write_paired_csv(path: &std::path::Path, rows: &[Paired]) -> Result<()> {
    let mut w = crate::corpus::dialect::writer(false).from_writer(Vec::new());
    let e = |e: csv::Error| Error::format(path, format!("writing CSV: {e}"));
    if rows.is_empty() {
        w.write_record([
            "a",
            "b",
            "best_f1_a",
            "best_f1_b",
            "diff",
            "diff_lo",
            "diff_hi",
            "a_wins",
            "b_wins",
        ])
        .map_err(e)?;
    }
    for r in rows {
        w.serialize(r).map_err(e)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|x| Error::format(path, format!("writing CSV: {x}")))?;
    crate::io::write_atomic(path, &bytes)
}

/// The units of a corpus: its documents in order, or with `group_by` the groups its
/// records name in that field: a JSONL field (a string or a number; absent or null: the
/// document is its own group), a CSV/TSV column by its header name (an empty cell: its own
/// group), a Parquet column (a string or a number; null: its own group) or a field of the
/// records of in-memory texts (`id`, `key`). Other formats have no fields and are refused.
/// Errors name the file and line.
pub fn corpus_units(
    path: &std::path::Path,
    corpus: &crate::corpus::CorpusConfig,
    group_by: Option<&str>,
) -> Result<Units> {
    use crate::corpus::Format;
    let mut rdr = crate::corpus::open(path, corpus)?;
    let Some(field) = group_by else {
        let ids = rdr
            .map(|d| d.map(|d| d.ext_id))
            .collect::<Result<Vec<String>>>()?;
        return Ok(Units::documents(ids));
    };
    let format = rdr.format();
    let from_json = |v: Option<serde_json::Value>, line: u64| -> Result<Option<String>> {
        match v {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(g) => crate::corpus::ext_id_from_json(g).map(Some).map_err(|_| {
                Error::parse(
                    path,
                    line,
                    format!("group field \"{field}\" must be a string or a number"),
                )
            }),
        }
    };
    let mut docs: Vec<(String, Option<String>)> = Vec::new();
    match format {
        // In-memory texts give their records as JSON objects too.
        Format::Jsonl | Format::Texts => {
            let mut rec = Vec::new();
            while let Some(d) = rdr.next() {
                let d = d?;
                rec.clear();
                rdr.record(&mut rec);
                let line = rdr.last_line();
                let mut v: serde_json::Value = serde_json::from_slice(&rec).map_err(|e| {
                    Error::parse(path, line, format!("expected a JSON object: {e}"))
                })?;
                let g = from_json(v.get_mut(field).map(serde_json::Value::take), line)?;
                docs.push((d.ext_id, g));
            }
        }
        Format::Csv | Format::Tsv => {
            let tab = format == Format::Tsv;
            let mut rec = Vec::new();
            let mut col: Option<usize> = None;
            while let Some(d) = rdr.next() {
                let d = d?;
                let c = match col {
                    Some(c) => c,
                    None => {
                        let mut pre = Vec::new();
                        rdr.preamble(&mut pre);
                        let names = crate::corpus::dialect::parse_row(&pre, tab)?;
                        let c = names.iter().position(|h| h == field).ok_or_else(|| {
                            Error::parse(
                                path,
                                1,
                                format!(
                                    "no column \"{field}\" in the header (columns: {}); expected the group-by column",
                                    names.join(", ")
                                ),
                            )
                        })?;
                        *col.insert(c)
                    }
                };
                rec.clear();
                rdr.record(&mut rec);
                let row = crate::corpus::dialect::parse_row(&rec, tab)?;
                let g = row.get(c).filter(|g| !g.is_empty()).cloned();
                docs.push((d.ext_id, g));
            }
        }
        Format::Parquet => {
            let ids = rdr
                .map(|d| d.map(|d| d.ext_id))
                .collect::<Result<Vec<String>>>()?;
            let mut groups = Vec::with_capacity(ids.len());
            crate::corpus::parquet::for_each_document_json(path, corpus, Some(field), |row| {
                let mut v: serde_json::Value = serde_json::from_slice(row)
                    .map_err(|e| Error::format(path, format!("a row as JSON: {e}")))?;
                let row_no = groups.len() as u64 + 1;
                groups.push(from_json(
                    v.get_mut(field).map(serde_json::Value::take),
                    row_no,
                )?);
                Ok(())
            })?;
            if groups.len() != ids.len() {
                return Err(Error::format(
                    path,
                    format!(
                        "the input changed while it was read: {} documents now, {} before",
                        groups.len(),
                        ids.len()
                    ),
                ));
            }
            docs.extend(ids.into_iter().zip(groups));
        }
        f => {
            return Err(Error::config(format!(
                "group-by '{field}' reads a field or column of the records: {} is a {} corpus, not JSONL, CSV/TSV or Parquet",
                path.display(),
                f.name()
            )))
        }
    }
    Ok(Units::groups(docs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{evaluate_labeled, Counts};

    fn resampler() -> (Resampler, Labels, Prediction) {
        // Documents a..f; positives ab, ac, de; predicted ab (TP), de (TP), af (FP).
        let labels = Labels::from_pairs([("a", "b"), ("a", "c"), ("d", "e")]).unwrap();
        let pred = Prediction::from_pairs([("a", "b"), ("e", "d"), ("a", "f")]).unwrap();
        let mut r = Resampler::new(Units::documents(["a", "b", "c", "d", "e", "f"]), &labels);
        r.add_row(&labels, &pred, None);
        (r, labels, pred)
    }

    #[test]
    fn every_unit_once_gives_the_plain_counts() {
        let (r, labels, pred) = resampler();
        let c = evaluate_labeled(&labels, &pred, None);
        assert_eq!(c, Counts::new(3, 3, 2));
        assert_eq!(r.counts(&[1; 6]), vec![[3, 3, 2]]);
        let [p, rc, f] = rates(3.0, 3.0, 2.0);
        assert_eq!((p, rc, f), (c.precision(), c.recall(), c.f1()));
        // the zero cases of Counts
        assert_eq!(rates(0.0, 0.0, 0.0), [1.0, 1.0, 1.0]);
        assert_eq!(rates(2.0, 0.0, 0.0), [1.0, 0.0, 0.0]);
        assert_eq!(rates(0.0, 2.0, 0.0), [0.0, 1.0, 0.0]);
    }

    #[test]
    fn weights_are_products_of_multiplicities() {
        let (r, _, _) = resampler();
        // a twice, b three times, c none, d once, e once, f twice:
        // truth ab 6 + ac 0 + de 1 = 7; found ab 6 + de 1 + af 4 = 11; common 7.
        assert_eq!(r.counts(&[2, 3, 0, 1, 1, 2]), vec![[7, 11, 7]]);
    }

    #[test]
    fn a_pair_inside_a_group_counts_once_per_copy() {
        // groups: {a, b, c} and {d, e}, f alone.
        let units = Units::groups([
            ("a", Some("g1")),
            ("b", Some("g1")),
            ("c", Some("g1")),
            ("d", Some("g2")),
            ("e", Some("g2")),
            ("f", None),
        ]);
        assert_eq!(units.len(), 3);
        let labels = Labels::from_pairs([("a", "b"), ("a", "c"), ("d", "e")]).unwrap();
        let pred = Prediction::from_pairs([("a", "b"), ("e", "d"), ("a", "f")]).unwrap();
        let mut r = Resampler::new(units, &labels);
        r.add_row(&labels, &pred, None);
        assert_eq!(r.counts(&[1, 1, 1]), vec![[3, 3, 2]]);
        // g1 three times, g2 none, f twice: truth ab 3 + ac 3 = 6; found ab 3 + af 3*2 = 9.
        assert_eq!(r.counts(&[3, 0, 2]), vec![[6, 9, 3]]);
    }

    #[test]
    fn labeled_only_counts_what_evaluate_labeled_counts() {
        let labels = Labels::from_pairs([("s", "a1"), ("a2", "s")]).unwrap();
        let listed =
            Labeled::from(Labels::from_pairs([("a1", "s"), ("a2", "s"), ("a3", "s")]).unwrap());
        let pred =
            Prediction::from_pairs([("a1", "s"), ("s", "a3"), ("a1", "a2"), ("a3", "a2")]).unwrap();
        let mut r = Resampler::new(Units::documents(["s", "a1", "a2", "a3"]), &labels);
        r.add_row(&labels, &pred, Some(&listed));
        let c = evaluate_labeled(&labels, &pred, Some(&listed));
        assert_eq!(r.counts(&[1; 4]), vec![[c.truth_pairs, c.found, c.common]]);
    }

    #[test]
    fn unknown_documents_become_units_in_sorted_order() {
        let labels = Labels::from_pairs([("z", "y"), ("b", "a")]).unwrap();
        let r = Resampler::new(Units::documents(["q"]), &labels);
        // q, then a, b (pair a,b), then y, z.
        assert_eq!(r.units(), 5);
        assert_eq!(r.truth, vec![(1, 2), (3, 4)]);
    }

    #[test]
    fn draws_depend_on_seed_and_index_only() {
        let (r, _, _) = resampler();
        let m = r.draw(7, 3);
        assert_eq!(m.iter().sum::<u32>(), 6);
        assert_eq!(m, r.draw(7, 3));
        assert_ne!(
            (0..20).map(|i| r.draw(7, i)).collect::<Vec<_>>(),
            (0..20).map(|i| r.draw(8, i)).collect::<Vec<_>>()
        );
        let cfg = BootstrapConfig {
            resamples: 200,
            seed: 7,
            group_by: None,
        };
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| r.run(&cfg).unwrap());
        let two = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap()
            .install(|| r.run(&cfg).unwrap());
        assert_eq!(one.rows, two.rows);
        assert_eq!(one.f1, two.f1);
        // resample 3's F1 is the F1 of its multiplicities, recounted by hand
        let [t, f, c] = r.counts(&r.draw(7, 3))[0];
        assert_eq!(one.f1[0][3], 2.0 * c as f64 / (t + f) as f64);
    }

    #[test]
    fn quantiles_interpolate_order_statistics() {
        let v: Vec<f64> = (0..=100).map(f64::from).collect();
        assert_eq!(quantile(&v, 0.025), 2.5);
        assert_eq!(quantile(&v, 0.975), 97.5);
        assert_eq!(quantile(&[4.0], 0.5), 4.0);
        let mut w = vec![3.0, 1.0, 2.0];
        assert_eq!(interval(&mut w), Interval { lo: 1.05, hi: 2.95 });
    }

    #[test]
    fn paired_differences_and_wins() {
        let res = BootstrapResult {
            resamples: 4,
            units: 0,
            rows: Vec::new(),
            // method x: rows 0, 1; method y: row 2
            f1: vec![
                vec![0.5, 0.9, 0.1, 0.4],
                vec![0.6, 0.2, 0.3, 0.4],
                vec![0.5, 0.5, 0.5, 0.4],
            ],
        };
        let p = paired(
            &res,
            &[("x".into(), 0.7, vec![0, 1]), ("y".into(), 0.5, vec![2])],
        );
        assert_eq!(p.len(), 1);
        // best of x per resample: 0.6, 0.9, 0.3, 0.4; differences 0.1, 0.4, -0.2, 0
        assert_eq!((p[0].a_wins, p[0].b_wins), (0.5, 0.25));
        assert!((p[0].diff - 0.2).abs() < 1e-12);
        let mut d = [0.6 - 0.5, 0.9 - 0.5, 0.3 - 0.5, 0.0];
        let iv = interval(&mut d);
        assert_eq!((p[0].diff_lo, p[0].diff_hi), (iv.lo, iv.hi));
    }

    #[test]
    fn corpus_units_by_document_and_by_group() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.jsonl");
        std::fs::write(
            &p,
            "{\"id\":\"a\",\"text\":\"x\",\"task\":\"t1\"}\n\
             {\"id\":\"b\",\"text\":\"y\",\"task\":7}\n\
             {\"id\":\"c\",\"text\":\"z\",\"task\":\"t1\"}\n\
             {\"id\":\"d\",\"text\":\"w\",\"task\":null}\n",
        )
        .unwrap();
        let cfg = crate::corpus::CorpusConfig::default();
        let docs = corpus_units(&p, &cfg, None).unwrap();
        assert_eq!((docs.len(), docs.is_grouped()), (4, false));
        let g = corpus_units(&p, &cfg, Some("task")).unwrap();
        // t1 = {a, c}, 7 = {b}, d alone
        assert_eq!((g.len(), g.is_grouped()), (3, true));
        assert_eq!(g.index["a"], g.index["c"]);
        assert_ne!(g.index["a"], g.index["b"]);
        std::fs::write(&p, "{\"id\":\"a\",\"text\":\"x\",\"task\":[1]}\n").unwrap();
        let e = corpus_units(&p, &cfg, Some("task"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("c.jsonl:1") && e.contains("string or a number"),
            "{e}"
        );
    }

    #[test]
    fn configs_are_checked() {
        assert_eq!(BootstrapConfig::from_options(0, 1, None).unwrap(), None);
        assert!(BootstrapConfig::from_options(0, 1, Some("task")).is_err());
        assert!(BootstrapConfig::from_options(1, 1, None).is_err());
        assert!(BootstrapConfig::from_options(100, 1, Some(" ")).is_err());
        let c = BootstrapConfig::from_options(100, 1, Some("task"))
            .unwrap()
            .unwrap();
        assert!(c.unit().contains("'task'"));
    }
}
