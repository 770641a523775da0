//! The best threshold of each method, and whether it lies at an edge of the swept grid.
//!
//! A method's best row is its highest F1 (the first in row order on ties). When the grid of
//! that method has more than one threshold and the best one is its smallest or largest, a
//! better one may lie outside the grid: [`MethodBest::best_at_grid_edge`] says so and
//! [`MethodBest::suggest`] gives a range to add (`FROM:TO:STEP` as `--thresholds` and
//! `--min-common` take it), unless the edge is the end of the scale (resemblance 1, or an
//! absolute k of 1).
//!
//! Grids whose thresholds are all whole numbers of at least 1 are taken as absolute k
//! (`--min-common`), others as resemblance or containment in `[0, 1]`.

use serde::Serialize;

use super::charts::methods;
use super::SweepRow;

/// The best row of one method and where it lies in the grid.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MethodBest {
    /// The method.
    pub method: String,
    /// The best threshold.
    pub threshold: f64,
    /// F1 there.
    pub f1: f64,
    /// Precision there.
    pub precision: f64,
    /// Recall there.
    pub recall: f64,
    /// The best threshold is the smallest or largest of a grid of more than one.
    pub best_at_grid_edge: bool,
    /// A range of thresholds to add, when the edge is not the end of the scale.
    pub suggest: Option<String>,
    /// F1's bootstrap interval at the best threshold (with a bootstrap only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub f1_lo: Option<f64>,
    /// See `f1_lo`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub f1_hi: Option<f64>,
}

/// The best-F1 row of each method (first on ties), in method order.
pub fn best_rows(rows: &[SweepRow]) -> Vec<&SweepRow> {
    methods(rows)
        .into_iter()
        .filter_map(|m| {
            rows.iter()
                .filter(|r| r.method == m)
                .fold(None::<&SweepRow>, |b, r| match b {
                    Some(b) if b.f1 >= r.f1 => Some(b),
                    _ => Some(r),
                })
        })
        .collect()
}

fn fmt(v: f64) -> String {
    let s = format!("{:.4}", v);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// The best row of each method with its grid-edge flag and suggestion, in method order.
pub fn best_per_method(rows: &[SweepRow]) -> Vec<MethodBest> {
    best_rows(rows)
        .into_iter()
        .map(|b| {
            let mut grid: Vec<f64> = rows
                .iter()
                .filter(|r| r.method == b.method)
                .map(|r| r.threshold)
                .filter(|t| t.is_finite())
                .collect();
            grid.sort_by(f64::total_cmp);
            grid.dedup();
            let (lo, hi) = (grid.first().copied(), grid.last().copied());
            let edge = grid.len() > 1 && (Some(b.threshold) == lo || Some(b.threshold) == hi);
            let suggest = if edge {
                suggest(&grid, b.threshold == grid[0])
            } else {
                None
            };
            MethodBest {
                method: b.method.clone(),
                threshold: b.threshold,
                f1: b.f1,
                precision: b.precision,
                recall: b.recall,
                best_at_grid_edge: edge,
                suggest,
                f1_lo: b.f1_lo,
                f1_hi: b.f1_hi,
            }
        })
        .collect()
}

/// Four more steps past the edge (`low`: below the smallest threshold), finer when the
/// scale ends sooner; `None` at the end of the scale.
fn suggest(grid: &[f64], low: bool) -> Option<String> {
    let step = grid
        .windows(2)
        .map(|w| w[1] - w[0])
        .fold(f64::INFINITY, f64::min);
    let absolute = grid.iter().all(|&t| t >= 1.0 && t.fract() == 0.0);
    if absolute {
        let step = step.max(1.0).round();
        if low {
            let lo = grid[0];
            if lo <= 1.0 {
                return None;
            }
            let to = (lo - 4.0 * step).max(1.0);
            let step = step.min(lo - to);
            Some(format!("{}:{}:{}", fmt(lo), fmt(to), fmt(step)))
        } else {
            let hi = grid[grid.len() - 1];
            Some(format!(
                "{}:{}:{}",
                fmt(hi + 4.0 * step),
                fmt(hi),
                fmt(step)
            ))
        }
    } else if low {
        let lo = grid[0];
        if lo <= 0.0 {
            return None;
        }
        if lo - 4.0 * step > 0.0 {
            Some(format!(
                "{}:{}:{}",
                fmt(lo),
                fmt(lo - 4.0 * step),
                fmt(step)
            ))
        } else {
            let fine = lo / 5.0;
            Some(format!("{}:{}:{}", fmt(lo), fmt(fine), fmt(fine)))
        }
    } else {
        let hi = grid[grid.len() - 1];
        if hi >= 1.0 {
            return None;
        }
        if hi + 4.0 * step <= 1.0 {
            Some(format!(
                "{}:{}:{}",
                fmt(hi + 4.0 * step),
                fmt(hi),
                fmt(step)
            ))
        } else {
            let fine = (1.0 - hi) / 5.0;
            Some(format!("1:{}:{}", fmt(hi), fmt(fine)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(m: &str, t: f64, f1: f64) -> SweepRow {
        SweepRow {
            method: m.into(),
            shingle_len: None,
            threshold: t,
            k: None,
            truth_pairs: 0,
            found: 0,
            unique_truth: 0,
            unique_ours: 0,
            common: 0,
            precision: 0.0,
            recall: 0.0,
            f1,
            false_clusters: None,
            seconds: 0.0,
            peak_rss_bytes: None,
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

    #[test]
    fn edges_and_suggestions() {
        let rows = vec![
            row("a", 0.9, 0.1),
            row("a", 0.5, 0.3),
            row("a", 0.1, 0.7),
            row("b", 0.9, 0.1),
            row("b", 0.5, 0.8),
            row("b", 0.1, 0.7),
            row("c", 0.95, 0.9),
            row("c", 0.75, 0.2),
            row("d", 1.0, 0.9),
            row("d", 0.9, 0.2),
            row("e", 0.5, 0.9),
        ];
        let b = best_per_method(&rows);
        assert_eq!(b[0].method, "a");
        assert!(b[0].best_at_grid_edge);
        assert_eq!(b[0].suggest.as_deref(), Some("0.1:0.02:0.02"));
        assert!(!b[1].best_at_grid_edge);
        assert_eq!(b[1].suggest, None);
        assert!(b[2].best_at_grid_edge);
        assert_eq!(b[2].suggest.as_deref(), Some("1:0.95:0.01"));
        assert!(b[3].best_at_grid_edge);
        assert_eq!(b[3].suggest, None, "resemblance 1 is the end of the scale");
        assert!(!b[4].best_at_grid_edge, "a single threshold has no edge");
    }

    #[test]
    fn absolute_k() {
        let rows = vec![
            row("a", 150.0, 0.1),
            row("a", 100.0, 0.9),
            row("a", 125.0, 0.5),
        ];
        let b = best_per_method(&rows);
        assert!(b[0].best_at_grid_edge);
        assert_eq!(b[0].suggest.as_deref(), Some("100:1:25"));
        let rows = vec![row("a", 150.0, 0.9), row("a", 100.0, 0.1)];
        assert_eq!(
            best_per_method(&rows)[0].suggest.as_deref(),
            Some("350:150:50")
        );
    }
}
