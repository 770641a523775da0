//! Cross-validated F1: the threshold chosen on some folds of the labeled data and scored on
//! the fold held out, so the reported figure is not tuned on the pairs it is scored on.
//!
//! The units are those of the bootstrap ([`super::bootstrap::Units`]: documents, or groups
//! of documents by a record field). Folds: the units are ordered by a seeded xxh3 hash of
//! their name (ties by name) and dealt round-robin, unit at rank `i` to fold `i mod K`, so
//! the folds differ in size by at most one unit and the assignment depends on the seed and
//! the unit names only. With as many units as folds every fold is one unit (leave one
//! group out).
//!
//! A fold's pairs are the pairs whose two documents both lie in its units; the training
//! pairs of fold `f` are those whose two documents both lie outside fold `f` (a pair across
//! the held-out fold and another is in neither). So a fold is a recount of the pair lists
//! already made ([`Resampler::counts`] with weights 0 and 1), never a re-run of a method.
//!
//! Per method and fold: the threshold with the highest F1 on the training pairs (F1 values
//! within 1e-12 tie; ties go to the higher threshold, the stricter setting, as a sweep's
//! best threshold does), and P/R/F1 at that threshold on the fold's pairs. Per method: the
//! mean of the folds' test F1 (the cross-validated F1), the pooled test counts summed over
//! the folds with their P/R/F1, and whether the chosen threshold lies at the grid's edge
//! (its first or last value, grids of two or more) in any fold.
//!
//! Invariants: everything depends on the units, the rows' pairs, `K` and the seed; nothing
//! on hash-map order or thread count.

use serde::Serialize;
use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::bootstrap::{rates, Resampler};
use crate::{Error, Result};

/// Most folds a cross-validation may ask for.
pub const MAX_FOLDS: usize = 10_000;

/// How to cross-validate: the number of folds, the seed of their assignment, and the record
/// field naming each document's group (`None`: documents are the units).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CvConfig {
    /// Folds (at least 2).
    pub folds: usize,
    /// Seed of the fold assignment's hash.
    pub seed: u64,
    /// The field of the corpus records that names a document's group.
    pub group_by: Option<String>,
}

impl CvConfig {
    /// Checks the number of folds (2 to [`MAX_FOLDS`]) and that a group field has a name.
    pub fn validate(&self) -> Result<()> {
        if !(2..=MAX_FOLDS).contains(&self.folds) {
            return Err(Error::config(format!(
                "cv: {} folds; expected 2 to {MAX_FOLDS}",
                self.folds
            )));
        }
        if self
            .group_by
            .as_deref()
            .is_some_and(|g| g.trim().is_empty())
        {
            return Err(Error::config("cv: the group-by field name is empty"));
        }
        Ok(())
    }
}

/// The fold of every unit (by unit index): the units ordered by `xxh3(name, seed)`, ties by
/// name, dealt round-robin into `folds` folds.
pub fn assign_folds(keys: &[Box<str>], folds: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<(u64, &str, usize)> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (xxh3_64_with_seed(k.as_bytes(), seed), &**k, i))
        .collect();
    order.sort_unstable();
    let mut fold = vec![0; keys.len()];
    for (rank, &(_, _, i)) in order.iter().enumerate() {
        fold[i] = rank % folds;
    }
    fold
}

/// One method's rows: its name and `(threshold, row index in the resampler)` in grid order.
#[derive(Clone, Debug)]
pub struct CvMethod {
    /// The method's name.
    pub name: String,
    /// Its rows: threshold and the row's index, in the grid's order.
    pub rows: Vec<(f64, usize)>,
}

/// One method on one fold.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CvFold {
    /// The method.
    pub method: String,
    /// The fold (0-based).
    pub fold: usize,
    /// Units in the fold.
    pub units: usize,
    /// The threshold chosen on the other folds.
    pub threshold: f64,
    /// Its F1 on the other folds' pairs.
    pub train_f1: f64,
    /// Positive pairs of the fold.
    pub test_truth: u64,
    /// Counted predicted pairs of the fold at the chosen threshold.
    pub test_found: u64,
    /// Those of them that are positive.
    pub test_common: u64,
    /// Precision on the fold.
    pub test_precision: f64,
    /// Recall on the fold.
    pub test_recall: f64,
    /// F1 on the fold.
    pub test_f1: f64,
    /// The chosen threshold is the grid's first or last.
    pub at_edge: bool,
}

/// One method over every fold.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CvSummary {
    /// The method.
    pub method: String,
    /// Mean of the folds' test F1.
    pub cv_f1: f64,
    /// Smallest fold test F1.
    pub min_f1: f64,
    /// Largest.
    pub max_f1: f64,
    /// The test counts summed over the folds: positives, found, common.
    pub pooled_truth: u64,
    /// See `pooled_truth`.
    pub pooled_found: u64,
    /// See `pooled_truth`.
    pub pooled_common: u64,
    /// F1 of the pooled counts.
    pub pooled_f1: f64,
    /// The best F1 with the threshold tuned on all the labeled data.
    pub tuned_f1: f64,
    /// Its threshold.
    pub tuned_threshold: f64,
    /// Folds whose chosen threshold is at the grid's edge.
    pub folds_at_edge: usize,
}

/// A cross-validation's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CvResult {
    /// Folds.
    pub folds: usize,
    /// Seed of the assignment.
    pub seed: u64,
    /// Units dealt into the folds.
    pub units: usize,
    /// The unit, in words.
    pub unit: String,
    /// Per method, then fold.
    pub rows: Vec<CvFold>,
    /// Per method.
    pub methods: Vec<CvSummary>,
}

/// One fold's weighted counts of every row: on the training pairs, on the fold's own, and
/// the fold's number of units.
type FoldCounts = (Vec<[u64; 3]>, Vec<[u64; 3]>, usize);

/// The threshold of `m` with the best F1 in the weighted `counts` (ties within 1e-12: the
/// higher threshold), with its index in the grid, F1 and counts.
fn choose(m: &CvMethod, counts: &[[u64; 3]]) -> (usize, f64, [u64; 3]) {
    let mut best: Option<(usize, f64, [u64; 3])> = None;
    for (i, &(t, r)) in m.rows.iter().enumerate() {
        let c = counts[r];
        let f = rates(c[0] as f64, c[1] as f64, c[2] as f64)[2];
        let better = match best {
            None => true,
            Some((bi, bf, _)) => f > bf + 1e-12 || ((f - bf).abs() <= 1e-12 && t > m.rows[bi].0),
        };
        if better {
            best = Some((i, f, c));
        }
    }
    best.expect("a method has at least one row")
}

/// Cross-validates every method of `methods` over the resampler's rows.
pub fn cross_validate(
    resampler: &Resampler,
    methods: &[CvMethod],
    cfg: &CvConfig,
    unit: String,
) -> Result<CvResult> {
    cfg.validate()?;
    let units = resampler.unit_table();
    if units.len() < cfg.folds {
        return Err(Error::config(format!(
            "cv: {} folds need at least as many units, but there are {} ({unit})",
            cfg.folds,
            units.len()
        )));
    }
    if let Some(m) = methods.iter().find(|m| m.rows.is_empty()) {
        return Err(Error::config(format!("cv: method {} has no rows", m.name)));
    }
    let fold = assign_folds(units.keys(), cfg.folds, cfg.seed);
    let per_fold: Vec<FoldCounts> = (0..cfg.folds)
        .map(|f| {
            let test: Vec<u32> = fold.iter().map(|&x| u32::from(x == f)).collect();
            let train: Vec<u32> = test.iter().map(|&x| 1 - x).collect();
            let n = test.iter().filter(|&&x| x == 1).count();
            (resampler.counts(&train), resampler.counts(&test), n)
        })
        .collect();
    let all = resampler.counts(&vec![1; units.len()]);
    let mut rows = Vec::new();
    let mut summaries = Vec::new();
    for m in methods {
        let mut f1s = Vec::new();
        let mut pooled = [0u64; 3];
        let mut at_edge = 0;
        for (f, (train, test, n)) in per_fold.iter().enumerate() {
            let (i, train_f1, _) = choose(m, train);
            let (t, r) = m.rows[i];
            let c = test[r];
            let [p, rc, f1] = rates(c[0] as f64, c[1] as f64, c[2] as f64);
            let edge = m.rows.len() >= 2 && (i == 0 || i + 1 == m.rows.len());
            at_edge += usize::from(edge);
            pooled[0] += c[0];
            pooled[1] += c[1];
            pooled[2] += c[2];
            f1s.push(f1);
            rows.push(CvFold {
                method: m.name.clone(),
                fold: f,
                units: *n,
                threshold: t,
                train_f1,
                test_truth: c[0],
                test_found: c[1],
                test_common: c[2],
                test_precision: p,
                test_recall: rc,
                test_f1: f1,
                at_edge: edge,
            });
        }
        let (ti, tuned_f1, _) = choose(m, &all);
        summaries.push(CvSummary {
            method: m.name.clone(),
            cv_f1: f1s.iter().sum::<f64>() / f1s.len() as f64,
            min_f1: f1s.iter().copied().fold(f64::INFINITY, f64::min),
            max_f1: f1s.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            pooled_truth: pooled[0],
            pooled_found: pooled[1],
            pooled_common: pooled[2],
            pooled_f1: rates(pooled[0] as f64, pooled[1] as f64, pooled[2] as f64)[2],
            tuned_f1,
            tuned_threshold: m.rows[ti].0,
            folds_at_edge: at_edge,
        });
    }
    Ok(CvResult {
        folds: cfg.folds,
        seed: cfg.seed,
        units: units.len(),
        unit,
        rows,
        methods: summaries,
    })
}

/// Writes `cv.csv`: one row per method and fold (method, fold, units, threshold, train_f1,
/// test_truth, test_found, test_common, test_precision, test_recall, test_f1, at_edge).
pub fn write_cv_csv(path: &std::path::Path, res: &CvResult) -> Result<()> {
    let mut w = crate::corpus::dialect::writer(false).from_writer(Vec::new());
    let e = |e: csv::Error| Error::format(path, format!("writing CSV: {e}"));
    w.write_record([
        "method",
        "fold",
        "units",
        "threshold",
        "train_f1",
        "test_truth",
        "test_found",
        "test_common",
        "test_precision",
        "test_recall",
        "test_f1",
        "at_edge",
    ])
    .map_err(e)?;
    for r in &res.rows {
        w.write_record([
            r.method.clone(),
            r.fold.to_string(),
            r.units.to_string(),
            r.threshold.to_string(),
            format!("{:.6}", r.train_f1),
            r.test_truth.to_string(),
            r.test_found.to_string(),
            r.test_common.to_string(),
            format!("{:.6}", r.test_precision),
            format!("{:.6}", r.test_recall),
            format!("{:.6}", r.test_f1),
            r.at_edge.to_string(),
        ])
        .map_err(e)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|x| Error::format(path, format!("writing CSV: {x}")))?;
    crate::io::write_atomic(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::bootstrap::Units;
    use crate::eval::{Labels, Prediction};

    #[test]
    fn folds_are_balanced_and_seeded() {
        let keys: Vec<Box<str>> = (0..10).map(|i| format!("d:{i}").into()).collect();
        let f = assign_folds(&keys, 3, 7);
        let mut sizes = [0; 3];
        for &x in &f {
            sizes[x] += 1;
        }
        sizes.sort();
        assert_eq!(sizes, [3, 3, 4]);
        assert_eq!(f, assign_folds(&keys, 3, 7));
        // as many units as folds: one unit a fold
        let f = assign_folds(&keys, 10, 1);
        let mut s = f.clone();
        s.sort();
        assert_eq!(s, (0..10).collect::<Vec<_>>());
    }

    #[test]
    fn leave_one_group_out_by_hand() {
        // groups g1 = {a1, s1}, g2 = {a2, s2}, g3 = {a3, s3}; positives (a_i, s_i).
        let docs = [
            ("a1", "g1"),
            ("s1", "g1"),
            ("a2", "g2"),
            ("s2", "g2"),
            ("a3", "g3"),
            ("s3", "g3"),
        ];
        let units = Units::groups(docs.iter().map(|(d, g)| (*d, Some(*g))));
        let labels = Labels::from_pairs([("a1", "s1"), ("a2", "s2"), ("a3", "s3")]).unwrap();
        let mut r = Resampler::new(units, &labels);
        // threshold 0.9 finds (a1, s1); 0.5 finds all three and a false (a1, a2) across
        // groups, which no fold counts as a test pair.
        let hi = Prediction::from_pairs([("a1", "s1")]).unwrap();
        let lo = Prediction::from_pairs([("a1", "s1"), ("a2", "s2"), ("a3", "s3"), ("a1", "a2")])
            .unwrap();
        r.add_row(&labels, &hi, None);
        r.add_row(&labels, &lo, None);
        let m = CvMethod {
            name: "m".into(),
            rows: vec![(0.9, 0), (0.5, 1)],
        };
        let cfg = CvConfig {
            folds: 3,
            seed: 0,
            group_by: Some("task".into()),
        };
        let res = cross_validate(&r, &[m], &cfg, "groups".into()).unwrap();
        assert_eq!(res.rows.len(), 3);
        for f in &res.rows {
            // training on two groups: 0.5 finds both positives; with the cross pair only
            // when both its groups train (a1 and a2 in the training folds).
            assert_eq!(f.threshold, 0.5);
            assert!(f.at_edge);
            assert_eq!((f.test_truth, f.test_found, f.test_common), (1, 1, 1));
            assert_eq!(f.test_f1, 1.0);
        }
        let s = &res.methods[0];
        assert_eq!(s.cv_f1, 1.0);
        assert_eq!((s.pooled_truth, s.pooled_found, s.pooled_common), (3, 3, 3));
        // tuned on all: P 3/4, R 1 -> F1 6/7 at 0.5
        assert!((s.tuned_f1 - 6.0 / 7.0).abs() < 1e-12);
        assert_eq!(s.folds_at_edge, 3);
    }

    #[test]
    fn too_few_units_is_an_error() {
        let units = Units::documents(["a", "b"]);
        let labels = Labels::from_pairs([("a", "b")]).unwrap();
        let r = Resampler::new(units, &labels);
        let cfg = CvConfig {
            folds: 3,
            seed: 0,
            group_by: None,
        };
        let m = CvMethod {
            name: "m".into(),
            rows: vec![(0.5, 0)],
        };
        let e = cross_validate(&r, &[m], &cfg, "documents".into()).unwrap_err();
        assert!(e.to_string().contains("3 folds"), "{e}");
    }
}
