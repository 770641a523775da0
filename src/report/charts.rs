//! The report's charts: F1, precision and recall, and time against the threshold, one line
//! per method (methods in order of first appearance), as SVG strings, with the pixel
//! position of every point (for the HTML report's hover and click targets). Rows with
//! bootstrap intervals draw F1's interval as a band around each F1 line.

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
    let p = series(rows, |r| r.precision, |_| None);
    let r = series(rows, |r| r.recall, |_| None);
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
    Ok(Charts {
        f1: chart(f1_svg, &[&f1]),
        pr: chart(pr_svg, &[&p, &r]),
        time: chart(time_svg, &[&t]),
    })
}
