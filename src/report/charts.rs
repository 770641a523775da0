//! The report's charts: F1, precision and recall, and time against the threshold, one line
//! per method (methods in order of first appearance), as SVG strings, with the pixel
//! position of every point (for the HTML report's hover and click targets). Rows with
//! bootstrap intervals draw F1's, precision's and recall's intervals as bands around their
//! lines; the time chart draws each run's least seconds, with the band from the least to the
//! most of its repetitions. The cost chart (`pareto.svg`) puts every row's F1 against its
//! seconds (and, when rows carry it, its peak memory) as a dot per run with a bar from the
//! least to the most of its repetitions, and the Pareto front ([`Front`]): the runs no other
//! run beats, where a cost lower than another's by less than their spreads (and the cost's
//! resolution, [`CostKind`]) does not count as lower. The front's line joins only runs whose
//! costs are apart; runs that would be on a front of the least values alone but are cheaper
//! than a better run only within the spread are ringed.
//!
//! Invariants: two runs of a front with different F1 have costs apart; a front, and so a
//! chart, depends only on the rows given.

use super::plot::{self, Hit, Legend, Panel, Series, Style};
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
                    ..Default::default()
                },
                _ => Series {
                    label: m.to_string(),
                    points: mine.iter().map(|r| (r.threshold, f(r))).collect(),
                    band: mine
                        .iter()
                        .filter_map(|r| band(r).map(|(l, h)| (r.threshold, l, h)))
                        .collect(),
                    ..Default::default()
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

/// A run's cost as its repetitions measured it: the value drawn (the least) and the range
/// from the least to the most.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cost {
    /// The value (the least of the repetitions).
    pub value: f64,
    /// The least.
    pub lo: f64,
    /// The most.
    pub hi: f64,
}

impl Cost {
    /// The cost of a range, the value its least.
    pub fn range((lo, hi): (f64, f64)) -> Cost {
        Cost { value: lo, lo, hi }
    }

    /// Whether two costs differ by more than their spreads and `resolution`: their ranges
    /// are more than `resolution` apart.
    pub fn apart(&self, other: &Cost, resolution: f64) -> bool {
        self.hi + resolution < other.lo || other.hi + resolution < self.lo
    }

    fn is_finite(&self) -> bool {
        self.value.is_finite() && self.lo.is_finite() && self.hi.is_finite()
    }
}

/// A cost the report weighs F1 against: how a row's is read, and the difference up to which
/// two costs are not told apart beyond their spreads.
#[derive(Clone, Copy, Debug)]
pub struct CostKind {
    /// Its name on the page (`seconds`, `peak memory`).
    pub name: &'static str,
    /// Its unit (`s`, `MiB`).
    pub unit: &'static str,
    /// A row's cost (`None`: not measured).
    pub of: fn(&SweepRow) -> Option<Cost>,
    /// Ranges at most this far apart are tied.
    pub resolution: f64,
}

/// Seconds: the timer counts nanoseconds, so only the repetitions' spread ties two runs.
pub const SECONDS: CostKind = CostKind {
    name: "seconds",
    unit: "s",
    of: seconds_cost,
    resolution: 0.0,
};

/// Peak memory in MiB: what the allocator keeps of a run (fragments it cannot hand back)
/// moves the resident baseline of the next, by about a MiB on the default corpus, more than
/// the repetitions of one run spread; so ranges within 1 MiB are tied.
pub const MEMORY: CostKind = CostKind {
    name: "peak memory",
    unit: "MiB",
    of: memory_cost,
    resolution: 1.0,
};

/// The Pareto front of (cost, F1) with the costs' spreads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Front {
    /// The rows on the front, in ascending cost (then descending F1, then row order): those
    /// with a finite cost that no other row beats, where a row is beaten by one with a higher
    /// F1 whose cost is not apart from its own and higher ([`Cost::apart`] with the kind's
    /// resolution), and by one with at least the F1 whose cost is apart and lower. So two
    /// rows of the front with different F1 are apart; two of one F1 whose costs are not
    /// apart are both on it (tied).
    pub rows: Vec<usize>,
    /// For every two consecutive rows of the front, whether their costs are apart (the
    /// front's line joins them; tied rows are not joined).
    pub joined: Vec<bool>,
    /// The rows on the front of the values alone (spreads ignored) that are not on this one:
    /// each is cheaper than a row with a higher F1 by less than the spread, in ascending cost.
    pub within_spread: Vec<usize>,
}

/// The Pareto front of the rows' cost of `kind` against their F1 (see [`Front`]).
pub fn pareto_front(rows: &[SweepRow], kind: &CostKind) -> Front {
    let res = kind.resolution;
    let costed: Vec<(usize, Cost, f64)> = rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| (kind.of)(r).filter(Cost::is_finite).map(|c| (i, c, r.f1)))
        .collect();
    let beaten = |&(i, c, f): &(usize, Cost, f64)| {
        costed.iter().any(|&(j, d, g)| {
            let lower_apart = d.hi + res < c.lo;
            let higher_apart = c.hi + res < d.lo;
            j != i && ((g > f && !higher_apart) || (g >= f && lower_apart))
        })
    };
    // ascending cost, then descending F1, then row order
    let order = |a: &(usize, Cost, f64), b: &(usize, Cost, f64)| {
        a.1.value
            .total_cmp(&b.1.value)
            .then(b.2.total_cmp(&a.2))
            .then(a.0.cmp(&b.0))
    };
    let mut on: Vec<(usize, Cost, f64)> = costed.iter().copied().filter(|r| !beaten(r)).collect();
    on.sort_by(order);
    // The front of the values alone: in ascending cost, each row with a higher F1 than all
    // before it.
    let mut by_value = costed.clone();
    by_value.sort_by(order);
    let mut best = f64::NEG_INFINITY;
    let mut within_spread = Vec::new();
    for &(i, _, f) in &by_value {
        if f > best {
            best = f;
            if !on.iter().any(|r| r.0 == i) {
                within_spread.push(i);
            }
        }
    }
    Front {
        joined: on.windows(2).map(|w| w[0].1.apart(&w[1].1, res)).collect(),
        rows: on.into_iter().map(|r| r.0).collect(),
        within_spread,
    }
}

/// The cost of a row in seconds: the least and the most of its repetitions.
pub fn seconds_cost(r: &SweepRow) -> Option<Cost> {
    r.seconds_range().map(Cost::range)
}

/// The cost of a row in peak memory (MiB): the least and the most of its repetitions.
pub fn memory_cost(r: &SweepRow) -> Option<Cost> {
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    r.peak_range()
        .map(|(lo, hi)| Cost::range((mib(lo), mib(hi))))
}

/// Per method, F1 against `cost` as dots with the cost's spread as bars (rows without a
/// cost left out), then the front (joined where the costs are apart) and the rows cheaper
/// than a better one only within the spread; with the row of every drawn point in `back`.
fn cost_series(rows: &[SweepRow], kind: &CostKind) -> (Vec<Series>, Vec<Vec<usize>>) {
    let cost = kind.of;
    let mut series = Vec::new();
    let mut back = Vec::new();
    let finite = |i: &usize| cost(&rows[*i]).is_some_and(|c| c.is_finite());
    for m in methods(rows) {
        let mut mine: Vec<usize> = (0..rows.len())
            .filter(|&i| rows[i].method == m)
            .filter(finite)
            .collect();
        if mine.is_empty() {
            continue;
        }
        let c = |i: usize| cost(&rows[i]).expect("kept: has a cost");
        mine.sort_by(|&a, &b| c(a).value.total_cmp(&c(b).value));
        series.push(Series {
            label: m.to_string(),
            points: mine.iter().map(|&i| (c(i).value, rows[i].f1)).collect(),
            x_bars: mine
                .iter()
                .filter(|&&i| c(i).hi > c(i).lo)
                .map(|&i| (rows[i].f1, c(i).lo, c(i).hi))
                .collect(),
            style: Style::Dots,
            ..Default::default()
        });
        back.push(mine);
    }
    let front = pareto_front(rows, kind);
    let at = |i: &usize| {
        (
            cost(&rows[*i]).expect("on a front: has a cost").value,
            rows[*i].f1,
        )
    };
    if !front.rows.is_empty() {
        series.push(Series {
            label: "Pareto front".into(),
            points: front.rows.iter().map(at).collect(),
            style: Style::Front {
                joined: front.joined.clone(),
            },
            ..Default::default()
        });
        back.push(front.rows.clone());
    }
    if !front.within_spread.is_empty() {
        series.push(Series {
            label: "cheaper only within the spread".into(),
            points: front.within_spread.iter().map(at).collect(),
            style: Style::Rings,
            ..Default::default()
        });
        back.push(front.within_spread);
    }
    (series, back)
}

/// How many repetitions the rows' spreads span: `3`, `1-3` (`None`: none recorded).
pub(crate) fn repetitions(rows: &[SweepRow]) -> Option<String> {
    let runs = rows.iter().filter_map(|r| r.repeats);
    let (lo, hi) = runs.fold(None, |a: Option<(u32, u32)>, n| {
        Some(a.map_or((n, n), |(lo, hi)| (lo.min(n), hi.max(n))))
    })?;
    Some(if lo == hi {
        lo.to_string()
    } else {
        format!("{lo}-{hi}")
    })
}

/// What a cost panel's bars and front line mean.
fn spread_note(rows: &[SweepRow], kind: &CostKind) -> String {
    let apart = if kind.resolution > 0.0 {
        format!("more than {} {} apart", kind.resolution, kind.unit)
    } else {
        "apart".to_string()
    };
    match repetitions(rows).as_deref() {
        None | Some("1") => format!("no spread measured; the front joins runs {apart}"),
        Some(n) => format!("bars: least to most of {n} repetitions; the front joins bars {apart}"),
    }
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
            note: None,
            legend: Legend::LowerLeft,
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
                note: None,
                legend: Legend::LowerLeft,
            },
            Panel {
                title: "Recall vs threshold",
                x_label: "threshold",
                y_label: "recall",
                y_range: Some((0.0, 1.02)),
                series: &r,
                note: None,
                legend: Legend::LowerLeft,
            },
        ],
        1200,
        480,
    )
    .map_err(e("pr.svg"))?;
    let t = series(
        rows,
        |r| r.seconds,
        |r| r.seconds_range().filter(|(lo, hi)| hi > lo),
    );
    let time_note = match repetitions(rows).as_deref() {
        None | Some("1") => "each run measured once: no spread".to_string(),
        Some(n) => format!("line: the least of each run's {n} repetitions; band: least to most"),
    };
    // Room above the slowest band for the legend.
    let top = t
        .iter()
        .flat_map(|s| {
            s.points
                .iter()
                .map(|p| p.1)
                .chain(s.band.iter().map(|b| b.2))
        })
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    let time_svg = plot::svg(
        &[Panel {
            title: "Time vs threshold",
            x_label: "threshold",
            y_label: "seconds",
            y_range: (top > 0.0).then_some((0.0, top * 1.5)),
            series: &t,
            note: Some(&time_note),
            legend: Legend::UpperRight,
        }],
        800,
        500,
    )
    .map_err(e("time.svg"))?;
    let (by_secs, back_secs) = cost_series(rows, &SECONDS);
    let (by_mem, back_mem) = cost_series(rows, &MEMORY);
    let (secs_note, mem_note) = (spread_note(rows, &SECONDS), spread_note(rows, &MEMORY));
    let mut panels = vec![Panel {
        title: "F1 vs seconds (Pareto front)",
        x_label: "seconds",
        y_label: "F1",
        y_range: Some((0.0, 1.02)),
        series: &by_secs,
        note: Some(&secs_note),
        legend: Legend::Below,
    }];
    let mut backs = vec![back_secs];
    if !by_mem.is_empty() {
        panels.push(Panel {
            title: "F1 vs peak memory (Pareto front)",
            x_label: "peak memory (MiB)",
            y_label: "F1",
            y_range: Some((0.0, 1.02)),
            series: &by_mem,
            note: Some(&mem_note),
            legend: Legend::Below,
        });
        backs.push(back_mem);
    }
    // One legend under both panels: the methods (a method without a cost in the first
    // panel has none in the second), the front, and the rings when either panel has them.
    let mut legend: Vec<Series> = by_secs
        .iter()
        .filter(|s| s.style == Style::Dots)
        .cloned()
        .collect();
    for style in [Style::Front { joined: Vec::new() }, Style::Rings] {
        let like = |s: &&Series| std::mem::discriminant(&s.style) == std::mem::discriminant(&style);
        if let Some(s) = by_secs.iter().chain(&by_mem).find(like) {
            legend.push(Series {
                label: s.label.clone(),
                style,
                ..Default::default()
            });
        }
    }
    let (pareto_svg, hits) =
        plot::svg_legend_below(&panels, &legend, 600 * panels.len() as u32, 530)
            .map_err(e("pareto.svg"))?;
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

    /// The row with its seconds measured from `lo` to `hi`.
    fn spread(mut r: SweepRow, lo: f64, hi: f64) -> SweepRow {
        r.set_cost(
            crate::report::timing::Spread {
                runs: 5,
                least: lo,
                most: hi,
            },
            None,
        );
        r
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
        // Measured once: no spread, the front of the values.
        let front = pareto_front(&rows, &SECONDS);
        // brute force: no other row with cost <= and F1 >=, one strictly
        let want: Vec<usize> = (0..rows.len())
            .filter(|&i| {
                !(0..rows.len()).any(|j| {
                    let (a, b) = (&rows[j], &rows[i]);
                    a.seconds <= b.seconds && a.f1 >= b.f1 && (a.seconds < b.seconds || a.f1 > b.f1)
                })
            })
            .collect();
        let mut got = front.rows.clone();
        got.sort();
        assert_eq!(got, want);
        assert_eq!(front.rows, vec![2, 1, 4]);
        assert_eq!(front.joined, vec![true, true]);
        assert!(front.within_spread.is_empty());
        let c = plots(&rows).unwrap();
        assert!(c.pareto.svg.contains("Pareto front"));
        // two panels: every row in each, plus the fronts (seconds: 3 rows; memory, the
        // same for every row: the best F1 alone)
        assert_eq!(c.pareto.points.len(), rows.len() + 3 + rows.len() + 1);
        assert!(c.pareto.points.iter().all(|p| rows
            .iter()
            .any(|r| r.method == p.method && r.threshold == p.threshold)));
    }

    #[test]
    fn the_front_joins_only_costs_apart_beyond_their_spread() {
        let rows = vec![
            // cheapest by its least, but within b's spread, and b's F1 is higher
            spread(row("a", 0.9, 5, 0.0), 1.0, 1.1),
            spread(row("b", 0.9, 6, 0.0), 1.05, 1.3),
            // apart from b, but within c's spread, and c's F1 is higher
            spread(row("a", 0.8, 7, 0.0), 2.0, 2.1),
            spread(row("c", 0.9, 9, 0.0), 2.05, 2.5),
            // c's F1 again, within c's spread: tied with it
            spread(row("c", 0.8, 9, 0.0), 2.2, 2.6),
            // b's F1, dearer than b beyond the spread
            spread(row("d", 0.9, 6, 0.0), 3.0, 3.1),
        ];
        let front = pareto_front(&rows, &SECONDS);
        assert_eq!(front.rows, vec![1, 3, 4]);
        // b to c: apart (1.3 < 2.05); c to c: tied, not joined
        assert_eq!(front.joined, vec![true, false]);
        // the front of the least times alone would hold a 0.9 and a 0.8 too
        assert_eq!(front.within_spread, vec![0, 2]);
        let by_value = pareto_front(
            &rows,
            &CostKind {
                of: |r| Some(Cost::range((r.seconds, r.seconds))),
                ..SECONDS
            },
        );
        assert_eq!(by_value.rows, vec![0, 1, 2, 3]);
        assert!(by_value.within_spread.is_empty());
        // Every two rows of the front of different F1 are apart; every joined pair is.
        let c = |i: usize| seconds_cost(&rows[i]).unwrap();
        for (x, &i) in front.rows.iter().enumerate() {
            for &j in &front.rows[x + 1..] {
                assert!(
                    rows[i].f1 == rows[j].f1 || c(i).apart(&c(j), 0.0),
                    "{i} {j}"
                );
            }
        }
        for (w, &j) in front.rows.windows(2).zip(&front.joined) {
            assert_eq!(j, c(w[0]).apart(&c(w[1]), 0.0));
        }
        // Drawn: dots per method, bars for every spread, one front segment (b to c), the
        // rows within the spread as rings.
        let charts = plots(&rows).unwrap();
        let svg = &charts.pareto.svg;
        assert!(svg.contains("cheaper only within the spread"), "legend");
        assert!(svg.contains("bars: least to most of 5 repetitions; the front joins bars apart"));
        // the front's segment, and its legend's line
        assert_eq!(
            svg.matches("stroke=\"#141414\" stroke-width=\"2\" points=")
                .count(),
            2
        );
        // every point is a row: 6 dots, 3 on the front, 2 within the spread
        assert_eq!(charts.pareto.points.len(), 6 + 3 + 2);
        let time = &charts.time.svg;
        assert!(time.contains("band: least to most"));
    }
}
