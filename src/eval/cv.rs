//! Cross-validated F1: the setting (threshold, and with a grid of shingle lengths the
//! length) chosen on some folds of the labeled data and scored on the others, so the
//! reported figure is not tuned on the pairs it is scored on.
//!
//! The units are those of the bootstrap ([`super::bootstrap::Units`]: documents, or groups
//! of documents by a record field). Folds: the units are ordered by a seeded xxh3 hash of
//! their name (ties by name) and dealt round-robin, unit at rank `i` to fold `i mod K`, so
//! the folds differ in size by at most one unit and the assignment depends on the seed and
//! the unit names only. With as many units as folds every fold is one unit (leave one
//! group out).
//!
//! Splits: by default each fold in turn is reported and the other `K - 1` are chosen on
//! (split `f` reports fold `f`). With choose-set sizes ([`CvConfig::choose`]) every set of
//! that many folds is chosen on and the rest reported: for each size in ascending order,
//! the choose-sets in lexicographic order of their fold numbers (`--cv 5 --cv-choose 2,3`
//! gives the 10 splits of two folds against three, then the 10 of three against two).
//!
//! A set of folds' pairs are the pairs whose two documents both lie in its units; a pair
//! across the choose-set and the report-set is in neither. So a split is a recount of the
//! pair lists already made ([`Resampler::counts`] with weights 0 and 1), never a re-run of
//! a method.
//!
//! Per method and split: the setting with the highest F1 on the choose-set's pairs (F1
//! values within 1e-12 tie; ties go to the higher threshold, the stricter setting, as a
//! sweep's best threshold does, then to the shorter shingle), its P/R/F1 on the
//! report-set's pairs, and the best F1 of the grid on the report-set's own pairs (tuned on
//! the report-set: what the cross-validated figure is to be compared with). Per method: the
//! mean of the splits' report F1 (the cross-validated F1) and that mean per choose-set
//! size, the report counts summed over the splits with their P/R/F1, the mean of the
//! report-set-tuned F1, the best setting on all pairs, and in how many splits the chosen
//! threshold (or shingle length) lies at its grid's edge (first or last of two or more).
//!
//! Invariants: everything depends on the units, the rows' pairs and settings, `K`, the
//! choose-set sizes and the seed; nothing on hash-map order or thread count.

use serde::Serialize;
use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::bootstrap::{rates, Resampler};
use crate::{Error, Result};

/// Most folds a cross-validation may ask for.
pub const MAX_FOLDS: usize = 10_000;

/// Most splits (choose-set, report-set) a cross-validation may make.
pub const MAX_SPLITS: usize = 100_000;

/// How to cross-validate: the number of folds, the seed of their assignment, the record
/// field naming each document's group (`None`: documents are the units), and the sizes of
/// the choose-sets (empty: each fold reported once, the others chosen on).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CvConfig {
    /// Folds (at least 2).
    pub folds: usize,
    /// Seed of the fold assignment's hash.
    pub seed: u64,
    /// The field of the corpus records that names a document's group.
    pub group_by: Option<String>,
    /// Sizes of the choose-sets, each 1 to `folds - 1`: every set of that many folds is
    /// chosen on and the others reported. Empty: leave one fold out.
    pub choose: Vec<usize>,
}

/// `n` choose `k`, saturating.
fn binomial(n: usize, k: usize) -> usize {
    let k = k.min(n - k);
    let mut c: u128 = 1;
    for i in 0..k {
        c = c * (n - i) as u128 / (i + 1) as u128;
        if c > usize::MAX as u128 {
            return usize::MAX;
        }
    }
    c as usize
}

impl CvConfig {
    /// Checks the number of folds (2 to [`MAX_FOLDS`]), that a group field has a name, and
    /// the choose-set sizes (distinct, 1 to `folds - 1`, at most [`MAX_SPLITS`] splits).
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
        let mut seen = Vec::new();
        let mut splits = 0usize;
        for &c in &self.choose {
            if !(1..self.folds).contains(&c) {
                return Err(Error::config(format!(
                    "cv-choose: {c} folds to choose on out of {}; expected 1 to {}",
                    self.folds,
                    self.folds - 1
                )));
            }
            if seen.contains(&c) {
                return Err(Error::config(format!("cv-choose: {c} is given twice")));
            }
            seen.push(c);
            splits = splits.saturating_add(binomial(self.folds, c));
        }
        if splits > MAX_SPLITS {
            return Err(Error::config(format!(
                "cv-choose: {splits} splits of {} folds; at most {MAX_SPLITS}",
                self.folds
            )));
        }
        Ok(())
    }

    /// The choose-set sizes in the order the splits are made (ascending; leave one fold
    /// out: `[folds - 1]`).
    pub fn choose_sizes(&self) -> Vec<usize> {
        if self.choose.is_empty() {
            return vec![self.folds - 1];
        }
        let mut c = self.choose.clone();
        c.sort_unstable();
        c
    }

    /// Every split's choose-set (fold numbers, ascending), in split order (module docs).
    pub fn splits(&self) -> Vec<Vec<usize>> {
        let k = self.folds;
        if self.choose.is_empty() {
            return (0..k)
                .map(|f| (0..k).filter(|&g| g != f).collect())
                .collect();
        }
        let mut out = Vec::new();
        for c in self.choose_sizes() {
            let mut idx: Vec<usize> = (0..c).collect();
            loop {
                out.push(idx.clone());
                // the next combination in lexicographic order
                let Some(i) = (0..c).rev().find(|&i| idx[i] < k - c + i) else {
                    break;
                };
                idx[i] += 1;
                for j in i + 1..c {
                    idx[j] = idx[j - 1] + 1;
                }
            }
        }
        out
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

/// A setting a method was run at: the shingle length (`None` in a sweep of one length) and
/// the threshold.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Setting {
    /// Shingle length, when the sweep has a grid of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shingle_len: Option<usize>,
    /// Threshold.
    pub threshold: f64,
}

impl Setting {
    /// A setting of a sweep of one shingle length.
    pub fn threshold(threshold: f64) -> Self {
        Setting {
            shingle_len: None,
            threshold,
        }
    }
}

impl std::fmt::Display for Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.shingle_len {
            Some(w) => write!(f, "w={w} t={}", self.threshold),
            None => write!(f, "{}", self.threshold),
        }
    }
}

/// One method's rows: its name and `(setting, row index in the resampler)`.
#[derive(Clone, Debug)]
pub struct CvMethod {
    /// The method's name.
    pub name: String,
    /// Its rows: setting and the row's index, in the sweep's order.
    pub rows: Vec<(Setting, usize)>,
}

/// One method on one split.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CvSplit {
    /// The method.
    pub method: String,
    /// The split (0-based, in split order).
    pub split: usize,
    /// The folds chosen on.
    pub choose: Vec<usize>,
    /// The folds reported.
    pub report: Vec<usize>,
    /// Units in the reported folds.
    pub units: usize,
    /// The shingle length chosen (with a grid of lengths).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shingle_len: Option<usize>,
    /// The threshold chosen on the choose-set.
    pub threshold: f64,
    /// Its F1 on the choose-set's pairs.
    pub train_f1: f64,
    /// Positive pairs of the report-set.
    pub test_truth: u64,
    /// Counted predicted pairs of the report-set at the chosen setting.
    pub test_found: u64,
    /// Those of them that are positive.
    pub test_common: u64,
    /// Precision on the report-set.
    pub test_precision: f64,
    /// Recall on the report-set.
    pub test_recall: f64,
    /// F1 on the report-set.
    pub test_f1: f64,
    /// The chosen threshold is the grid's first or last.
    pub at_edge: bool,
    /// The chosen shingle length is the grid's shortest or longest (with a grid of lengths).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shingle_len_at_edge: Option<bool>,
    /// The shingle length with the best F1 on the report-set's own pairs (with a grid).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report_best_shingle_len: Option<usize>,
    /// The threshold with the best F1 on the report-set's own pairs.
    pub report_best_threshold: f64,
    /// That best F1 (tuned on the report-set).
    pub report_best_f1: f64,
}

/// The cross-validated F1 of one choose-set size.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CvChooseMean {
    /// Folds chosen on.
    pub choose: usize,
    /// Splits of that size.
    pub splits: usize,
    /// Mean of their report F1.
    pub cv_f1: f64,
}

/// How many splits chose a setting.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CvChosen {
    /// The setting.
    #[serde(flatten)]
    pub setting: Setting,
    /// Splits that chose it.
    pub splits: usize,
}

/// One method over every split.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CvSummary {
    /// The method.
    pub method: String,
    /// Mean of the splits' report F1.
    pub cv_f1: f64,
    /// Smallest split report F1.
    pub min_f1: f64,
    /// Largest.
    pub max_f1: f64,
    /// The mean per choose-set size, in split order.
    pub by_choose: Vec<CvChooseMean>,
    /// The report counts summed over the splits: positives, found, common.
    pub pooled_truth: u64,
    /// See `pooled_truth`.
    pub pooled_found: u64,
    /// See `pooled_truth`.
    pub pooled_common: u64,
    /// F1 of the pooled counts.
    pub pooled_f1: f64,
    /// Mean over the splits of the best F1 tuned on the report-set itself.
    pub report_tuned_f1: f64,
    /// The best F1 with the setting tuned on all the labeled data.
    pub tuned_f1: f64,
    /// Its shingle length (with a grid of lengths).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tuned_shingle_len: Option<usize>,
    /// Its threshold.
    pub tuned_threshold: f64,
    /// Splits whose chosen threshold is at the grid's edge.
    pub splits_at_edge: usize,
    /// Splits whose chosen shingle length is at the grid's edge (with a grid of lengths).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub splits_shingle_len_at_edge: Option<usize>,
    /// The settings chosen, most splits first (ties: in the sweep's order).
    pub chosen: Vec<CvChosen>,
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
    /// The choose-set sizes, in split order (leave one fold out: `[folds - 1]`).
    pub choose: Vec<usize>,
    /// True when every fold was reported once against the others (no choose-set sizes).
    pub leave_one_out: bool,
    /// Splits per method.
    pub splits: usize,
    /// The grid of shingle lengths (empty: a sweep of one length).
    pub shingle_lens: Vec<usize>,
    /// With groups as units: the names of every fold's groups (sorted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fold_groups: Option<Vec<Vec<String>>>,
    /// Per method, then split.
    pub rows: Vec<CvSplit>,
    /// Per method.
    pub methods: Vec<CvSummary>,
}

/// The setting of `m` with the best F1 in the weighted `counts` (ties within 1e-12: the
/// higher threshold, then the shorter shingle), with its index in `m.rows`, F1 and counts.
fn choose(m: &CvMethod, counts: &[[u64; 3]]) -> (usize, f64, [u64; 3]) {
    let mut best: Option<(usize, f64, [u64; 3])> = None;
    for (i, &(s, r)) in m.rows.iter().enumerate() {
        let c = counts[r];
        let f = rates(c[0] as f64, c[1] as f64, c[2] as f64)[2];
        let better = match best {
            None => true,
            Some((bi, bf, _)) => {
                let b = m.rows[bi].0;
                f > bf + 1e-12
                    || ((f - bf).abs() <= 1e-12
                        && (s.threshold > b.threshold
                            || (s.threshold == b.threshold && s.shingle_len < b.shingle_len)))
            }
        };
        if better {
            best = Some((i, f, c));
        }
    }
    best.expect("a method has at least one row")
}

/// The distinct values in order of first appearance.
fn distinct<T: PartialEq + Copy>(it: impl Iterator<Item = T>) -> Vec<T> {
    let mut v = Vec::new();
    for x in it {
        if !v.contains(&x) {
            v.push(x);
        }
    }
    v
}

/// Cross-validates every method of `methods` over the resampler's rows; `shingle_lens` is
/// the sweep's grid of lengths (empty: one length).
pub fn cross_validate(
    resampler: &Resampler,
    methods: &[CvMethod],
    cfg: &CvConfig,
    unit: String,
    shingle_lens: &[usize],
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
    let fold_groups = units.is_grouped().then(|| {
        let mut g: Vec<Vec<String>> = vec![Vec::new(); cfg.folds];
        for (u, k) in units.keys().iter().enumerate() {
            let name = k.strip_prefix("g:").or_else(|| k.strip_prefix("d:"));
            g[fold[u]].push(name.unwrap_or(k).to_string());
        }
        for v in &mut g {
            v.sort();
        }
        g
    });
    // Per split: its choose-set, report-set, report units, and the weighted counts of every
    // row on both sets.
    type SplitCounts = (Vec<usize>, Vec<usize>, usize, Vec<[u64; 3]>, Vec<[u64; 3]>);
    let per_split: Vec<SplitCounts> = cfg
        .splits()
        .into_iter()
        .map(|choose_set| {
            let report: Vec<usize> = (0..cfg.folds).filter(|f| !choose_set.contains(f)).collect();
            let train: Vec<u32> = fold
                .iter()
                .map(|x| u32::from(choose_set.contains(x)))
                .collect();
            let test: Vec<u32> = train.iter().map(|&x| 1 - x).collect();
            let n = test.iter().filter(|&&x| x == 1).count();
            let (tr, te) = (resampler.counts(&train), resampler.counts(&test));
            (choose_set, report, n, tr, te)
        })
        .collect();
    let all = resampler.counts(&vec![1; units.len()]);
    let grid = shingle_lens.len() >= 2;
    let (len_lo, len_hi) = (
        shingle_lens.iter().copied().min(),
        shingle_lens.iter().copied().max(),
    );
    let sizes = cfg.choose_sizes();
    let mut rows = Vec::new();
    let mut summaries = Vec::new();
    for m in methods {
        let thresholds = distinct(m.rows.iter().map(|r| r.0.threshold));
        let t_edge = |t: f64| {
            thresholds.len() >= 2 && (t == thresholds[0] || t == thresholds[thresholds.len() - 1])
        };
        let mut f1s = Vec::new();
        let mut oracle = Vec::new();
        let mut pooled = [0u64; 3];
        let (mut at_edge, mut len_at_edge) = (0, 0);
        let mut chosen: Vec<CvChosen> = Vec::new();
        for (split, (choose_set, report, n, train, test)) in per_split.iter().enumerate() {
            let (i, train_f1, _) = choose(m, train);
            let (s, r) = m.rows[i];
            let c = test[r];
            let [p, rc, f1] = rates(c[0] as f64, c[1] as f64, c[2] as f64);
            let (oi, of1, _) = choose(m, test);
            let edge = t_edge(s.threshold);
            let len_edge = grid.then(|| s.shingle_len == len_lo || s.shingle_len == len_hi);
            at_edge += usize::from(edge);
            len_at_edge += usize::from(len_edge == Some(true));
            for (x, y) in pooled.iter_mut().zip(c) {
                *x += y;
            }
            f1s.push(f1);
            oracle.push(of1);
            match chosen.iter_mut().find(|x| x.setting == s) {
                Some(x) => x.splits += 1,
                None => chosen.push(CvChosen {
                    setting: s,
                    splits: 1,
                }),
            }
            rows.push(CvSplit {
                method: m.name.clone(),
                split,
                choose: choose_set.clone(),
                report: report.clone(),
                units: *n,
                shingle_len: s.shingle_len,
                threshold: s.threshold,
                train_f1,
                test_truth: c[0],
                test_found: c[1],
                test_common: c[2],
                test_precision: p,
                test_recall: rc,
                test_f1: f1,
                at_edge: edge,
                shingle_len_at_edge: len_edge,
                report_best_shingle_len: m.rows[oi].0.shingle_len,
                report_best_threshold: m.rows[oi].0.threshold,
                report_best_f1: of1,
            });
        }
        // most splits first; the sort is stable, so ties keep the order of first choice
        chosen.sort_by_key(|x| std::cmp::Reverse(x.splits));
        let by_choose = sizes
            .iter()
            .map(|&size| {
                let v: Vec<f64> = per_split
                    .iter()
                    .zip(&f1s)
                    .filter(|(s, _)| s.0.len() == size)
                    .map(|(_, &f)| f)
                    .collect();
                CvChooseMean {
                    choose: size,
                    splits: v.len(),
                    cv_f1: v.iter().sum::<f64>() / v.len() as f64,
                }
            })
            .collect();
        let (ti, tuned_f1, _) = choose(m, &all);
        summaries.push(CvSummary {
            method: m.name.clone(),
            cv_f1: f1s.iter().sum::<f64>() / f1s.len() as f64,
            min_f1: f1s.iter().copied().fold(f64::INFINITY, f64::min),
            max_f1: f1s.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            by_choose,
            pooled_truth: pooled[0],
            pooled_found: pooled[1],
            pooled_common: pooled[2],
            pooled_f1: rates(pooled[0] as f64, pooled[1] as f64, pooled[2] as f64)[2],
            report_tuned_f1: oracle.iter().sum::<f64>() / oracle.len() as f64,
            tuned_f1,
            tuned_shingle_len: m.rows[ti].0.shingle_len,
            tuned_threshold: m.rows[ti].0.threshold,
            splits_at_edge: at_edge,
            splits_shingle_len_at_edge: grid.then_some(len_at_edge),
            chosen,
        });
    }
    Ok(CvResult {
        folds: cfg.folds,
        seed: cfg.seed,
        units: units.len(),
        unit,
        choose: sizes,
        leave_one_out: cfg.choose.is_empty(),
        splits: per_split.len(),
        shingle_lens: if grid {
            shingle_lens.to_vec()
        } else {
            Vec::new()
        },
        fold_groups,
        rows,
        methods: summaries,
    })
}

/// Fold numbers as one CSV cell: space-separated.
fn folds_cell(f: &[usize]) -> String {
    f.iter().map(usize::to_string).collect::<Vec<_>>().join(" ")
}

/// Writes `cv.csv`: one row per method and split (method, split, choose, report (fold
/// numbers, space-separated), units, \[shingle_len,\] threshold, train_f1, test_truth,
/// test_found, test_common, test_precision, test_recall, test_f1, at_edge,
/// \[shingle_len_at_edge, report_best_shingle_len,\] report_best_threshold, report_best_f1;
/// the bracketed columns with a grid of shingle lengths only).
pub fn write_cv_csv(path: &std::path::Path, res: &CvResult) -> Result<()> {
    let grid = !res.shingle_lens.is_empty();
    let mut w = crate::corpus::dialect::writer(false).from_writer(Vec::new());
    let e = |e: csv::Error| Error::format(path, format!("writing CSV: {e}"));
    let mut head = vec!["method", "split", "choose", "report", "units"];
    if grid {
        head.push("shingle_len");
    }
    head.extend([
        "threshold",
        "train_f1",
        "test_truth",
        "test_found",
        "test_common",
        "test_precision",
        "test_recall",
        "test_f1",
        "at_edge",
    ]);
    if grid {
        head.extend(["shingle_len_at_edge", "report_best_shingle_len"]);
    }
    head.extend(["report_best_threshold", "report_best_f1"]);
    w.write_record(&head).map_err(e)?;
    let opt = |x: Option<usize>| x.map_or(String::new(), |x| x.to_string());
    for r in &res.rows {
        let mut rec = vec![
            r.method.clone(),
            r.split.to_string(),
            folds_cell(&r.choose),
            folds_cell(&r.report),
            r.units.to_string(),
        ];
        if grid {
            rec.push(opt(r.shingle_len));
        }
        rec.extend([
            r.threshold.to_string(),
            format!("{:.6}", r.train_f1),
            r.test_truth.to_string(),
            r.test_found.to_string(),
            r.test_common.to_string(),
            format!("{:.6}", r.test_precision),
            format!("{:.6}", r.test_recall),
            format!("{:.6}", r.test_f1),
            r.at_edge.to_string(),
        ]);
        if grid {
            rec.push(r.shingle_len_at_edge.unwrap_or(false).to_string());
            rec.push(opt(r.report_best_shingle_len));
        }
        rec.push(r.report_best_threshold.to_string());
        rec.push(format!("{:.6}", r.report_best_f1));
        w.write_record(&rec).map_err(e)?;
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
            rows: vec![(Setting::threshold(0.9), 0), (Setting::threshold(0.5), 1)],
        };
        let cfg = CvConfig {
            folds: 3,
            seed: 0,
            group_by: Some("task".into()),
            choose: Vec::new(),
        };
        let res = cross_validate(&r, &[m], &cfg, "groups".into(), &[]).unwrap();
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
        assert_eq!(s.splits_at_edge, 3);
        // tuned on each held-out group: F1 1 at 0.5, and for g1 at 0.9 too (the higher wins)
        assert!(res.rows.iter().all(|f| f.report_best_f1 == 1.0));
        let at_09 = res
            .rows
            .iter()
            .filter(|f| f.report_best_threshold == 0.9)
            .count();
        assert_eq!(at_09, 1);
        assert_eq!(s.report_tuned_f1, 1.0);
        let mut g = res.fold_groups.clone().unwrap().concat();
        g.sort();
        assert_eq!(g, ["g1", "g2", "g3"]);
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
            choose: Vec::new(),
        };
        let m = CvMethod {
            name: "m".into(),
            rows: vec![(Setting::threshold(0.5), 0)],
        };
        let e = cross_validate(&r, &[m], &cfg, "documents".into(), &[]).unwrap_err();
        assert!(e.to_string().contains("3 folds"), "{e}");
    }

    #[test]
    fn splits_in_order() {
        let cfg = CvConfig {
            folds: 4,
            seed: 0,
            group_by: None,
            choose: vec![3, 1],
        };
        cfg.validate().unwrap();
        assert_eq!(cfg.choose_sizes(), [1, 3]);
        let s = cfg.splits();
        assert_eq!(
            s,
            [
                vec![0],
                vec![1],
                vec![2],
                vec![3],
                vec![0, 1, 2],
                vec![0, 1, 3],
                vec![0, 2, 3],
                vec![1, 2, 3]
            ]
        );
        let loo = CvConfig {
            choose: Vec::new(),
            ..cfg.clone()
        };
        assert_eq!(loo.splits()[0], [1, 2, 3]);
        assert_eq!(binomial(5, 2), 10);
        for (choose, want) in [
            (vec![4], "expected 1 to 3"),
            (vec![0], "expected 1 to 3"),
            (vec![2, 2], "given twice"),
        ] {
            let e = CvConfig {
                choose,
                ..cfg.clone()
            }
            .validate()
            .unwrap_err();
            assert!(e.to_string().contains(want), "{e}");
        }
        let big = CvConfig {
            folds: 40,
            choose: vec![20],
            ..cfg
        };
        assert!(big.validate().unwrap_err().to_string().contains("splits"));
    }

    #[test]
    fn grid_ties_go_to_the_higher_threshold_then_the_shorter_shingle() {
        let units = Units::documents(["a", "b", "c", "d"]);
        let labels = Labels::from_pairs([("a", "b"), ("c", "d")]).unwrap();
        let mut r = Resampler::new(units, &labels);
        let both = Prediction::from_pairs([("a", "b"), ("c", "d")]).unwrap();
        let one = Prediction::from_pairs([("a", "b")]).unwrap();
        // rows: (w, t) = (3, 0.5) one, (3, 0.3) both, (2, 0.3) both, (2, 0.5) one
        for p in [&one, &both, &both, &one] {
            r.add_row(&labels, p, None);
        }
        let s = |w, t| Setting {
            shingle_len: Some(w),
            threshold: t,
        };
        let m = CvMethod {
            name: "m".into(),
            rows: vec![
                (s(3, 0.5), 0),
                (s(3, 0.3), 1),
                (s(2, 0.3), 2),
                (s(2, 0.5), 3),
            ],
        };
        let all = r.counts(&[1, 1, 1, 1]);
        let (i, f, _) = choose(&m, &all);
        assert_eq!((m.rows[i].0, f), (s(2, 0.3), 1.0));
        let cfg = CvConfig {
            folds: 2,
            seed: 3,
            group_by: None,
            choose: Vec::new(),
        };
        let res = cross_validate(&r, &[m], &cfg, "documents".into(), &[2, 3]).unwrap();
        let sm = &res.methods[0];
        assert_eq!((sm.tuned_shingle_len, sm.tuned_threshold), (Some(2), 0.3));
        assert_eq!(sm.splits_shingle_len_at_edge, Some(2));
        assert_eq!(res.shingle_lens, [2, 3]);
        assert!(res.rows.iter().all(|x| x.shingle_len.is_some()));
    }
}
