//! The rows of a sweep: one [`SweepRow`] per (method, threshold), and `results.csv`.
//!
//! Invariant: `results.csv` has the [`SweepRow`] field names as its header (also when there
//! is no row) and reads back into the same rows. The interval columns (`precision_lo` ..
//! `f1_hi`) are written only when the rows carry intervals (a sweep with a bootstrap), so
//! a sweep without one writes the same bytes as before they existed; so is `shingle_len`
//! (written only by a sweep over a grid of shingle lengths, where every row has one). The
//! spread of a run's repetitions (`repeats`, `seconds_max`, `peak_rss_max_bytes`) comes last,
//! always written (empty for a row not run, an external prediction's), so the columns before
//! it keep their places and a file written before they existed reads back with them empty.

use serde::{Deserialize, Serialize};
use std::path::Path;

use super::timing::Spread;
use crate::eval::{Counts, RowIntervals};
use crate::{Error, Result};

/// The columns of `results.csv` that measure the run (time, memory and their repetitions)
/// rather than the data: they differ from run to run; every other column is deterministic.
pub const TIMING_COLUMNS: [&str; 5] = [
    "seconds",
    "peak_rss_bytes",
    "repeats",
    "seconds_max",
    "peak_rss_max_bytes",
];

/// One run of one method at one threshold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepRow {
    /// Method name (`concept`, `union-find`, `lsh`, `exact`, ...).
    pub method: String,
    /// The shingle length of the row, in a sweep over a grid of lengths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shingle_len: Option<u64>,
    /// The swept threshold (resemblance, or the paper's minimum common units).
    pub threshold: f64,
    /// Sketch size or minimum support the method used, if it has one.
    pub k: Option<u64>,
    /// Pairs in the truth.
    pub truth_pairs: u64,
    /// Pairs found.
    pub found: u64,
    /// Unique to the truth (false negatives).
    pub unique_truth: u64,
    /// Unique to ours (false positives).
    pub unique_ours: u64,
    /// Common (true positives).
    pub common: u64,
    /// Precision (see [`crate::eval::metrics`] for the zero cases).
    pub precision: f64,
    /// Recall.
    pub recall: f64,
    /// F1.
    pub f1: f64,
    /// False-duplicate clusters (`None` for methods that output pairs only).
    pub false_clusters: Option<u64>,
    /// Wall-clock seconds of the method: the least of its repetitions (see
    /// [`super::timing`]).
    pub seconds: f64,
    /// Peak resident memory in bytes, if measured: the least of its repetitions.
    pub peak_rss_bytes: Option<u64>,
    /// Lower end of precision's bootstrap interval (with a bootstrap only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision_lo: Option<f64>,
    /// Upper end of precision's interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision_hi: Option<f64>,
    /// Lower end of recall's interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recall_lo: Option<f64>,
    /// Upper end of recall's interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recall_hi: Option<f64>,
    /// Lower end of F1's interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub f1_lo: Option<f64>,
    /// Upper end of F1's interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub f1_hi: Option<f64>,
    /// How many times the run was repeated (`None`: not run, or not recorded).
    #[serde(default)]
    pub repeats: Option<u32>,
    /// The most seconds of the repetitions (`seconds` is the least).
    #[serde(default)]
    pub seconds_max: Option<f64>,
    /// The most peak resident memory of the repetitions (`peak_rss_bytes` is the least).
    #[serde(default)]
    pub peak_rss_max_bytes: Option<u64>,
}

impl SweepRow {
    /// A row from the five values and the run's measurements.
    pub fn new(
        method: impl Into<String>,
        threshold: f64,
        k: Option<u64>,
        counts: &Counts,
        false_clusters: Option<u64>,
        seconds: f64,
        peak_rss_bytes: Option<u64>,
    ) -> Self {
        SweepRow {
            method: method.into(),
            shingle_len: None,
            threshold,
            k,
            truth_pairs: counts.truth_pairs,
            found: counts.found,
            unique_truth: counts.unique_truth,
            unique_ours: counts.unique_ours,
            common: counts.common,
            precision: counts.precision(),
            recall: counts.recall(),
            f1: counts.f1(),
            false_clusters,
            seconds,
            peak_rss_bytes,
            precision_lo: None,
            precision_hi: None,
            recall_lo: None,
            recall_hi: None,
            f1_lo: None,
            f1_hi: None,
            repeats: None,
            seconds_max: None,
            peak_rss_max_bytes: None,
        }
    }

    /// The row with what its repetitions measured: the least as the value, the most and
    /// the count beside it.
    pub fn set_cost(&mut self, seconds: Spread<f64>, peak: Option<Spread<u64>>) {
        self.seconds = seconds.least;
        self.seconds_max = Some(seconds.most);
        self.repeats = Some(seconds.runs);
        self.peak_rss_bytes = peak.map(|p| p.least);
        self.peak_rss_max_bytes = peak.map(|p| p.most);
    }

    /// Seconds, least and most of the repetitions (`None` without a finite time; the least
    /// twice when the most is not recorded).
    pub fn seconds_range(&self) -> Option<(f64, f64)> {
        self.seconds.is_finite().then(|| {
            let most = self.seconds_max.filter(|m| m.is_finite());
            (self.seconds, most.unwrap_or(self.seconds).max(self.seconds))
        })
    }

    /// Peak resident bytes, least and most of the repetitions (as [`Self::seconds_range`]).
    pub fn peak_range(&self) -> Option<(u64, u64)> {
        self.peak_rss_bytes.map(|p| {
            let most = self.peak_rss_max_bytes.unwrap_or(p);
            (p, most.max(p))
        })
    }

    /// The row with its bootstrap intervals.
    pub fn set_intervals(&mut self, iv: &RowIntervals) {
        self.precision_lo = Some(iv.precision.lo);
        self.precision_hi = Some(iv.precision.hi);
        self.recall_lo = Some(iv.recall.lo);
        self.recall_hi = Some(iv.recall.hi);
        self.f1_lo = Some(iv.f1.lo);
        self.f1_hi = Some(iv.f1.hi);
    }

    /// The name of the row's series in plots and tables: the method, and with a shingle
    /// length `w=N` after it (`concept w=3`).
    pub fn series(&self) -> String {
        match self.shingle_len {
            Some(w) => format!("{} w={w}", self.method),
            None => self.method.clone(),
        }
    }

    /// F1's interval, when the row has one.
    pub fn f1_interval(&self) -> Option<(f64, f64)> {
        self.f1_lo.zip(self.f1_hi)
    }
}

/// The rows as plots and tables show them: with shingle lengths, each row's method is its
/// [`SweepRow::series`] name (and the length left out), so every (method, length) is a
/// series of its own; otherwise the rows themselves.
pub fn series_rows(rows: &[SweepRow]) -> std::borrow::Cow<'_, [SweepRow]> {
    if rows.iter().all(|r| r.shingle_len.is_none()) {
        return std::borrow::Cow::Borrowed(rows);
    }
    std::borrow::Cow::Owned(
        rows.iter()
            .map(|r| SweepRow {
                method: r.series(),
                shingle_len: None,
                ..r.clone()
            })
            .collect(),
    )
}

/// Writes `results.csv` (header = the [`SweepRow`] field names).
pub fn write_results_csv(path: &Path, rows: &[SweepRow]) -> Result<()> {
    let mut w = crate::corpus::dialect::writer(false).from_writer(Vec::new());
    for r in rows {
        w.serialize(r)
            .map_err(|e| Error::format(path, format!("writing CSV: {e}")))?;
    }
    if rows.is_empty() {
        w.write_record([
            "method",
            "threshold",
            "k",
            "truth_pairs",
            "found",
            "unique_truth",
            "unique_ours",
            "common",
            "precision",
            "recall",
            "f1",
            "false_clusters",
            "seconds",
            "peak_rss_bytes",
            "repeats",
            "seconds_max",
            "peak_rss_max_bytes",
        ])
        .map_err(|e| Error::format(path, format!("writing CSV: {e}")))?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| Error::format(path, format!("writing CSV: {e}")))?;
    crate::io::write_atomic(path, &bytes)
}

/// Reads a `results.csv` back. Errors name file and line.
pub fn read_results_csv(path: &Path) -> Result<Vec<SweepRow>> {
    let r = crate::io::open_read(path)?;
    let mut rdr = crate::corpus::dialect::reader(false).from_reader(r);
    let mut rows = Vec::new();
    for rec in rdr.deserialize() {
        let row: SweepRow = rec.map_err(|e| {
            let line = e.position().map(|p| p.line()).unwrap_or(0);
            Error::parse(path, line, format!("expected a results row: {e}"))
        })?;
        rows.push(row);
    }
    Ok(rows)
}
