//! The report's charts: F1, precision and recall, and time against the threshold, one line
//! per method (methods in order of first appearance), as SVG strings, with the pixel
//! position of every point (for the HTML report's hover and click targets). Rows with
//! bootstrap intervals draw F1's, precision's and recall's intervals as bands around their
//! lines. The cost chart
//! (`pareto.svg`) puts every row's F1 against its seconds (and, when rows carry it, its peak
//! memory), one line per method in order of cost, with the Pareto front: the rows no other
//! row beats on both (at most the cost and at least the F1, one of them strictly).

use super::plot::{self, Hit, Panel, Series};
use super::SweepRow;
use crate::{Error, Result};

pub(crate) fn methods(rows: &[SweepRow]) -> Vec<&str> {
    let mut m: Vec<&str> = Vec::new();
    for r in rows {
        if !m.contains(&r.method.as_str()) {
            m.push(&r.method);
        }
    }
    m
}

fn series(
    rows: &[SweepRow],
    f: impl Fn(&SweepRow) -> f64,
    band: impl Fn(&SweepRow) -> Option<(f64, f64)>,
) -> Vec<Series> {
    let finite = rows.iter().map(|r| r.threshold).filter(|t| t.is_finite());
    let (lo, hi) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), t| {
        (a.min(t), b.max(t))
    });
    methods(rows)
        .into_iter()
        .map(|m| {
            let mine: Vec<&SweepRow> = rows.iter().filter(|r| r.method == m).collect();
            match mine.as_slice() {
                // A prediction without scores (one row, no threshold): a level line.
                [r] if !r.threshold.is_finite() && lo <= hi => Series {
                    label: format!("{m} (unscored)"),
                    points: vec![(lo, f(r)), (hi, f(r))],
                    band: band(r)
                        .map(|(l, h)| vec![(lo, l, h), (hi, l, h)])
                        .unwrap_or_default(),
                },
                _ => Series {
                    label: m.to_string(),
                    points: mine.iter().map(|r| (r.threshold, f(r))).collect(),
                    band: mine
                        .iter()
                        .filter_map(|r| band(r).map(|(l, h)| (r.threshold, l, h)))
                        .collect(),
                },
            }
        })
        .collect()
}

/// One chart: its SVG document and where each point was drawn, by method and threshold.
#[derive(Clone, Debug, Default)]
pub struct Chart {
    /// The SVG document.
    pub svg: String,
    /// `(method, threshold, panel, pixel x, pixel y)` of every drawn point.
    pub points: Vec<ChartPoint>,
}

/// A drawn point of a [`Chart`].
#[derive(Clone, Debug, PartialEq)]
pub struct ChartPoint {
    /// The method (the series).
    pub method: String,
    /// The threshold (the x value).
    pub threshold: f64,
    /// The panel it is drawn in.
    pub panel: usize,
    /// Pixel x.
    pub px: i32,
    /// Pixel y.
    pub py: i32,
}

/// The report's three charts.
#[derive(Clone, Debug, Default)]
pub struct Charts {
    /// F1 vs threshold (`f1.svg`).
    pub f1: Chart,
    /// Precision and recall vs threshold (`pr.svg`).
    pub pr: Chart,
    /// Time vs threshold (`time.svg`).
    pub time: Chart,
    /// F1 against seconds and peak memory, with the Pareto fronts (`pareto.svg`).
    pub pareto: Chart,
}

/// The indices of the rows on the Pareto front of (cost, F1): finite cost, and no other
/// row with at most the cost and at least the F1, one of them strictly. In ascending cost.
pub fn pareto_front(rows: &[SweepRow], cost: impl Fn(&SweepRow) -> Option<f64>) -> Vec<usize> {
    let mut idx: Vec<(f64, f64, usize)> = rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| cost(r).filter(|c| c.is_finite()).map(|c| (c, r.f1, i)))
        .collect();
    // ascending cost, then descending F1, then row order
    idx.sort_by(|a, b| {
        a.0.total_cmp(&b.0)
            .then(b.1.total_cmp(&a.1))
            .then(a.2.cmp(&b.2))
    });
    let mut out = Vec::new();
    let mut best = f64::NEG_INFINITY;
    for (_, f, i) in idx {
        if f > best {
            best = f;
            out.push(i);
        }
    }
    out
}

/// Per method, F1 against `cost` (rows without one left out), and the front as a last
/// series; with the row of every drawn point in `back`.
fn cost_series(
    rows: &[SweepRow],
    cost: impl Fn(&SweepRow) -> Option<f64> + Copy,
) -> (Vec<Series>, Vec<Vec<usize>>) {
    let mut series = Vec::new();
    let mut back = Vec::new();
    for m in methods(rows) {
        let mut mine: Vec<usize> = (0..rows.len())
            .filter(|&i| rows[i].method == m && cost(&rows[i]).is_some_and(f64::is_finite))
            .collect();
        if mine.is_empty() {
            continue;
        }
        mine.sort_by(|&a, &b| cost(&rows[a]).unwrap().total_cmp(&cost(&rows[b]).unwrap()));
        series.push(Series {
            label: m.to_string(),
            points: mine
                .iter()
                .map(|&i| (cost(&rows[i]).unwrap(), rows[i].f1))
                .collect(),
            band: Vec::new(),
        });
        back.push(mine);
    }
    let front = pareto_front(rows, cost);
    if !front.is_empty() {
        series.push(Series {
            label: "Pareto front".into(),
            points: front
                .iter()
                .map(|&i| (cost(&rows[i]).unwrap(), rows[i].f1))
                .collect(),
            band: Vec::new(),
        });
        back.push(front);
    }
    (series, back)
}

fn chart(doc: (String, Vec<Hit>), panels: &[&[Series]]) -> Chart {
    let (svg, hits) = doc;
    let points = hits
        .into_iter()
        .map(|h| ChartPoint {
            method: panels[h.panel][h.series].label.clone(),
            threshold: h.x,
            panel: h.panel,
            px: h.px,
            py: h.py,
        })
        .collect();
    Chart { svg, points }
}

/// The three charts of the rows.
pub fn plots(rows: &[SweepRow]) -> Result<Charts> {
    let e = |name: &'static str| move |m: String| Error::format(name, format!("plotting: {m}"));
    let f1 = series(rows, |r| r.f1, SweepRow::f1_interval);
    let f1_svg = plot::svg(
        &[Panel {
            title: "F1 vs threshold",
            x_label: "threshold",
            y_label: "F1",
            y_range: Some((0.0, 1.02)),
            series: &f1,
        }],
        800,
        500,
    )
    .map_err(e("f1.svg"))?;
    let p = series(
        rows,
        |r| r.precision,
        |r| r.precision_lo.zip(r.precision_hi),
    );
    let r = series(rows, |r| r.recall, |r| r.recall_lo.zip(r.recall_hi));
    let pr_svg = plot::svg(
        &[
            Panel {
                title: "Precision vs threshold",
                x_label: "threshold",
                y_label: "precision",
                y_range: Some((0.0, 1.02)),
                series: &p,
            },
            Panel {
                title: "Recall vs threshold",
                x_label: "threshold",
                y_label: "recall",
                y_range: Some((0.0, 1.02)),
                series: &r,
            },
        ],
        1200,
        480,
    )
    .map_err(e("pr.svg"))?;
    let t = series(rows, |r| r.seconds, |_| None);
    let time_svg = plot::svg(
        &[Panel {
            title: "Time vs threshold",
            x_label: "threshold",
            y_label: "seconds",
            y_range: None,
            series: &t,
        }],
        800,
        500,
    )
    .map_err(e("time.svg"))?;
    let secs = |r: &SweepRow| Some(r.seconds);
    let mem = |r: &SweepRow| r.peak_rss_bytes.map(|b| b as f64 / (1024.0 * 1024.0));
    let (by_secs, back_secs) = cost_series(rows, secs);
    let (by_mem, back_mem) = cost_series(rows, mem);
    let mut panels = vec![Panel {
        title: "F1 vs seconds (Pareto front)",
        x_label: "seconds",
        y_label: "F1",
        y_range: Some((0.0, 1.02)),
        series: &by_secs,
    }];
    let mut backs = vec![back_secs];
    if !by_mem.is_empty() {
        panels.push(Panel {
            title: "F1 vs peak memory (Pareto front)",
            x_label: "peak memory (MiB)",
            y_label: "F1",
            y_range: Some((0.0, 1.02)),
            series: &by_mem,
        });
        backs.push(back_mem);
    }
    let (pareto_svg, hits) =
        plot::svg(&panels, 600 * panels.len() as u32, 500).map_err(e("pareto.svg"))?;
    // Each drawn point back to its row: the hover names the row's method and threshold.
    let mut drawn: Vec<Vec<usize>> = backs.iter().map(|b| vec![0; b.len()]).collect();
    let pareto = Chart {
        svg: pareto_svg,
        points: hits
            .into_iter()
            .filter_map(|h| {
                // a series' hits come in its points' order (ascending cost, as given)
                let n = &mut drawn[h.panel][h.series];
                *n += 1;
                let row = &rows[*backs[h.panel][h.series].get(*n - 1)?];
                Some(ChartPoint {
                    method: row.method.clone(),
                    threshold: row.threshold,
                    panel: h.panel,
                    px: h.px,
                    py: h.py,
                })
            })
            .collect(),
    };
    Ok(Charts {
        f1: chart(f1_svg, &[&f1]),
        pr: chart(pr_svg, &[&p, &r]),
        time: chart(time_svg, &[&t]),
        pareto,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Counts;

    fn row(m: &str, t: f64, f1_num: u64, secs: f64) -> SweepRow {
        // truth 10, found 10, common f1_num: F1 = f1_num / 10
        let c = Counts {
            truth_pairs: 10,
            found: 10,
            unique_truth: 10 - f1_num,
            unique_ours: 10 - f1_num,
            common: f1_num,
        };
        SweepRow::new(m, t, None, &c, None, secs, Some(1 << 20))
    }

    #[test]
    fn pareto_front_is_the_undominated_rows() {
        let rows = vec![
            row("a", 0.9, 5, 1.0),
            row("a", 0.8, 7, 2.0),
            row("b", 0.9, 6, 1.0),
            row("b", 0.8, 6, 3.0),
            row("c", 0.9, 9, 4.0),
            row("c", 0.8, 8, 5.0),
        ];
        let front = pareto_front(&rows, |r| Some(r.seconds));
        // brute force: no other row with cost <= and F1 >=, one strictly
        let want: Vec<usize> = (0..rows.len())
            .filter(|&i| {
                !(0..rows.len()).any(|j| {
                    let (a, b) = (&rows[j], &rows[i]);
                    a.seconds <= b.seconds && a.f1 >= b.f1 && (a.seconds < b.seconds || a.f1 > b.f1)
                })
            })
            .collect();
        let mut got = front.clone();
        got.sort();
        assert_eq!(got, want);
        assert_eq!(front, vec![2, 1, 4]);
        let c = plots(&rows).unwrap();
        assert!(c.pareto.svg.contains("Pareto front"));
        // two panels: every row in each, plus the fronts (seconds: 3 rows; memory, the
        // same for every row: the best F1 alone)
        assert_eq!(c.pareto.points.len(), rows.len() + 3 + rows.len() + 1);
        assert!(c.pareto.points.iter().all(|p| rows
            .iter()
            .any(|r| r.method == p.method && r.threshold == p.threshold)));
    }
}
