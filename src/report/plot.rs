//! SVG charts (plotters' SVG backend; text is written as SVG `<text>` elements sized by
//! plotters' built-in estimate, so no font files or system fonts are needed): per series a
//! line, dots, a front (rings joined where told) or rings ([`Style`]), with an optional band
//! and horizontal bars; a note under a panel; the legend in a corner of each panel or once
//! under all of them ([`svg_legend_below`]).
//!
//! Invariant: every finite point drawn is reported as a [`Hit`], in its series' drawn order
//! (ascending x, or as given for a front).

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One line: a label and its points (x ascending after sorting, but for [`Style::Front`]),
/// with an optional band and optional horizontal bars.
#[derive(Clone, Debug, Default)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// Points.
    pub points: Vec<(f64, f64)>,
    /// A band around the line, `(x, low, high)` (empty: none), drawn as a translucent area
    /// of the line's colour under every line.
    pub band: Vec<(f64, f64, f64)>,
    /// Horizontal bars, `(y, x low, x high)` (empty: none): a spread along x, drawn as a
    /// thin line with end ticks in the series' colour, under every point.
    pub x_bars: Vec<(f64, f64, f64)>,
    /// How the points are drawn.
    pub style: Style,
}

/// How a [`Series`] draws its points.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Style {
    /// A line through the points in x order, a dot on each, in the series' palette colour.
    #[default]
    Line,
    /// A dot on each point, no line, in the series' palette colour.
    Dots,
    /// A black ring on each point, in the order given; point `i` joined to point `i + 1` by
    /// a black line when `joined[i]` holds.
    Front {
        /// Whether each two consecutive points are joined.
        joined: Vec<bool>,
    },
    /// A grey ring on each point, no line.
    Rings,
}

/// The colour of [`Style::Front`].
const FRONT: RGBColor = RGBColor(20, 20, 20);
/// The colour of [`Style::Rings`].
const RING: RGBColor = RGBColor(140, 140, 140);

/// Ten distinguishable colours (Tableau 10), assigned to methods in order of first appearance.
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// A panel: title, axis labels, y range (None = 0 .. max * 1.1), series.
pub struct Panel<'a> {
    /// Title over the panel.
    pub title: &'a str,
    /// X axis label.
    pub x_label: &'a str,
    /// Y axis label.
    pub y_label: &'a str,
    /// Fixed y range, or `None` for 0 .. 1.1 * max.
    pub y_range: Option<(f64, f64)>,
    /// The lines.
    pub series: &'a [Series],
    /// A line of text under the panel (what its marks mean), if any.
    pub note: Option<&'a str>,
    /// Where the panel's legend goes.
    pub legend: Legend,
}

/// Where a panel's legend goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Legend {
    /// The lower left corner of the plotting area (where lines rising from the left leave
    /// room).
    #[default]
    LowerLeft,
    /// The upper right corner.
    UpperRight,
    /// Not in the panel: the document's legend under the panels ([`svg_legend_below`]).
    Below,
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Where one drawn point landed: panel and series index, its value and its pixel position
/// in the SVG document.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// Index of the panel.
    pub panel: usize,
    /// Index of the series in its panel.
    pub series: usize,
    /// The point's x.
    pub x: f64,
    /// The point's y.
    pub y: f64,
    /// Pixel x in the document.
    pub px: i32,
    /// Pixel y in the document.
    pub py: i32,
}

/// Draws panels side by side into one SVG document of `width x height` pixels; returns the
/// document and where every finite point was drawn.
pub fn svg(panels: &[Panel<'_>], width: u32, height: u32) -> Result<(String, Vec<Hit>), String> {
    svg_grid(panels, panels.len().max(1), width, height)
}

/// Draws panels in rows of `cols` (left to right, then down) into one SVG document of
/// `width x height` pixels; returns the document and where every finite point was drawn.
pub fn svg_grid(
    panels: &[Panel<'_>],
    cols: usize,
    width: u32,
    height: u32,
) -> Result<(String, Vec<Hit>), String> {
    svg_document(width, height, |root, hits| {
        let cols = cols.max(1);
        let rows = panels.len().div_ceil(cols).max(1);
        let areas = root.split_evenly((rows, cols));
        for (i, (p, area)) in panels.iter().zip(areas.iter()).enumerate() {
            draw_panel(i, p, area, hits)?;
        }
        Ok(())
    })
}

/// One SVG document of `width x height` pixels on a white ground, drawn by `draw` (which
/// records where it drew every finite point); the document and those places.
fn svg_document(
    width: u32,
    height: u32,
    draw: impl FnOnce(&Area<'_>, &mut Vec<Hit>) -> Result<(), String>,
) -> Result<(String, Vec<Hit>), String> {
    let mut out = String::new();
    let mut hits = Vec::new();
    {
        let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        draw(&root, &mut hits)?;
        root.present().map_err(err)?;
    }
    Ok((out, hits))
}

/// A drawing area of an SVG document.
type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// Draws panels side by side over one legend, the entries of `legend` in rows under them
/// (entry `i` in palette colour `i`, marked as its style draws it), into one SVG document of
/// `width x height` pixels; returns the document and where every finite point was drawn.
pub fn svg_legend_below(
    panels: &[Panel<'_>],
    legend: &[Series],
    width: u32,
    height: u32,
) -> Result<(String, Vec<Hit>), String> {
    svg_document(width, height, |root, hits| {
        let style =
            TextStyle::from(("sans-serif", 16).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
        // Each entry's place: its mark (28 px), its label and a gap, rows as wide as fit.
        let mut places = Vec::new();
        let (mut x, mut row) = (0i32, 0i32);
        let mut rows_w = vec![0i32];
        for s in legend {
            let text = root.estimate_text_size(&s.label, &style).map_err(err)?.0 as i32;
            let w = 28 + text + 18;
            if x > 0 && x + w > width as i32 - 16 {
                (x, row) = (0, row + 1);
                rows_w.push(0);
            }
            places.push((x, row));
            x += w;
            rows_w[row as usize] = x;
        }
        let strip = 12 + 24 * rows_w.len() as u32;
        let (top, below) = root.split_vertically(height.saturating_sub(strip));
        let areas = top.split_evenly((1, panels.len().max(1)));
        for (i, (p, area)) in panels.iter().zip(areas.iter()).enumerate() {
            draw_panel(i, p, area, hits)?;
        }
        for (i, (s, &(x, row))) in legend.iter().zip(&places).enumerate() {
            let left = (width as i32 - rows_w[row as usize]) / 2;
            let (x, y) = (left + x, 12 + 24 * row);
            draw_mark(&below, &s.style, PALETTE[i % PALETTE.len()], (x, y))?;
            below
                .draw(&Text::new(s.label.clone(), (x + 28, y), style.clone()))
                .map_err(err)?;
        }
        Ok(())
    })
}

/// Draws a legend mark of `style` with its left end at `(x, y)`.
fn draw_mark(
    area: &Area<'_>,
    style: &Style,
    color: RGBColor,
    (x, y): (i32, i32),
) -> Result<(), String> {
    match style {
        Style::Line => area
            .draw(&PathElement::new(
                vec![(x, y), (x + 20, y)],
                color.stroke_width(3),
            ))
            .map_err(err),
        Style::Dots => area
            .draw(&Circle::new((x + 10, y), 4, color.filled()))
            .map_err(err),
        Style::Front { .. } => {
            let s = FRONT.stroke_width(2);
            area.draw(&PathElement::new(vec![(x, y), (x + 20, y)], s))
                .map_err(err)?;
            area.draw(&Circle::new((x + 10, y), 6, s)).map_err(err)
        }
        Style::Rings => area
            .draw(&Circle::new((x + 10, y), 6, RING.stroke_width(2)))
            .map_err(err),
    }
}

fn draw_panel(
    index: usize,
    p: &Panel<'_>,
    area: &Area<'_>,
    hits: &mut Vec<Hit>,
) -> Result<(), String> {
    let area = match p.note {
        Some(note) => {
            let h = area.dim_in_pixel().1;
            let (upper, lower) = area.split_vertically(h.saturating_sub(24));
            lower
                .draw(&Text::new(
                    note.to_string(),
                    (14, 2),
                    ("sans-serif", 14).into_font().color(&RGBColor(80, 80, 80)),
                ))
                .map_err(err)?;
            upper
        }
        None => area.clone(),
    };
    let area = &area;
    let xs = p.series.iter().flat_map(|s| {
        let bars = s.x_bars.iter().flat_map(|b| [b.1, b.2]);
        s.points.iter().map(|q| q.0).chain(bars)
    });
    let xs = xs.filter(|x| x.is_finite());
    let (mut x0, mut x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    if !x0.is_finite() {
        (x0, x1) = (0.0, 1.0);
    }
    let pad = if x1 > x0 {
        (x1 - x0) * 0.04
    } else {
        0.05 * x0.abs().max(1.0)
    };
    let (x0, x1) = (x0 - pad, x1 + pad);
    let (y0, y1) = match p.y_range {
        Some(r) => r,
        None => {
            let m = p
                .series
                .iter()
                .flat_map(|s| {
                    let band = s.band.iter().map(|b| b.2);
                    s.points.iter().map(|q| q.1).chain(band)
                })
                .filter(|v| v.is_finite())
                .fold(0.0f64, f64::max);
            (0.0, if m > 0.0 { m * 1.1 } else { 1.0 })
        }
    };
    let mut chart = ChartBuilder::on(area)
        .caption(p.title, ("sans-serif", 24))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(p.x_label)
        .y_desc(p.y_label)
        .label_style(("sans-serif", 16))
        .axis_desc_style(("sans-serif", 17))
        .bold_line_style(RGBColor(225, 225, 225))
        .light_line_style(TRANSPARENT)
        .draw()
        .map_err(err)?;
    for (i, s) in p.series.iter().enumerate() {
        let mut band: Vec<(f64, f64, f64)> = s
            .band
            .iter()
            .copied()
            .filter(|b| b.0.is_finite() && b.1.is_finite() && b.2.is_finite())
            .collect();
        if band.is_empty() {
            continue;
        }
        band.sort_by(|a, b| a.0.total_cmp(&b.0));
        let color = PALETTE[i % PALETTE.len()];
        let outline: Vec<(f64, f64)> = band
            .iter()
            .map(|b| (b.0, b.2))
            .chain(band.iter().rev().map(|b| (b.0, b.1)))
            .collect();
        chart
            .draw_series(std::iter::once(Polygon::new(
                outline,
                color.mix(0.18).filled(),
            )))
            .map_err(err)?;
    }
    for (i, s) in p.series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let bars = s
            .x_bars
            .iter()
            .filter(|b| b.0.is_finite() && b.1.is_finite() && b.2.is_finite());
        for &(y, lo, hi) in bars {
            let style = color.mix(0.75).stroke_width(1);
            chart
                .draw_series([PathElement::new(vec![(lo, y), (hi, y)], style)])
                .map_err(err)?;
            for x in [lo, hi] {
                chart
                    .draw_series([
                        EmptyElement::at((x, y)) + PathElement::new(vec![(0, -4), (0, 4)], style)
                    ])
                    .map_err(err)?;
            }
        }
    }
    for (i, s) in p.series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let mut pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .copied()
            .filter(|q| q.0.is_finite() && q.1.is_finite())
            .collect();
        if !matches!(s.style, Style::Front { .. }) {
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        for &(x, y) in &pts {
            let (px, py) = chart.backend_coord(&(x, y));
            hits.push(Hit {
                panel: index,
                series: i,
                x,
                y,
                px,
                py,
            });
        }
        match &s.style {
            Style::Line => {
                chart
                    .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)).point_size(3))
                    .map_err(err)?
                    .label(s.label.clone())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3))
                    });
            }
            Style::Dots => {
                chart
                    .draw_series(pts.iter().map(|&q| Circle::new(q, 4, color.filled())))
                    .map_err(err)?
                    .label(s.label.clone())
                    .legend(move |(x, y)| Circle::new((x + 10, y), 4, color.filled()));
            }
            Style::Front { joined } => {
                let style = FRONT.stroke_width(2);
                let segments: Vec<PathElement<(f64, f64)>> = pts
                    .windows(2)
                    .zip(joined)
                    .filter(|(_, &j)| j)
                    .map(|(w, _)| PathElement::new(vec![w[0], w[1]], style))
                    .collect();
                chart.draw_series(segments).map_err(err)?;
                chart
                    .draw_series(pts.iter().map(|&q| Circle::new(q, 7, style)))
                    .map_err(err)?
                    .label(s.label.clone())
                    .legend(move |(x, y)| {
                        EmptyElement::at((x, y))
                            + PathElement::new(vec![(0, 0), (20, 0)], style)
                            + Circle::new((10, 0), 6, style)
                    });
            }
            Style::Rings => {
                let style = RING.stroke_width(2);
                chart
                    .draw_series(pts.iter().map(|&q| Circle::new(q, 7, style)))
                    .map_err(err)?
                    .label(s.label.clone())
                    .legend(move |(x, y)| Circle::new((x + 10, y), 6, style));
            }
        }
    }
    if !p.series.is_empty() && p.legend != Legend::Below {
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(160, 160, 160))
            .label_font(("sans-serif", 16))
            .position(match p.legend {
                Legend::UpperRight => SeriesLabelPosition::UpperRight,
                _ => SeriesLabelPosition::LowerLeft,
            })
            .draw()
            .map_err(err)?;
    }
    Ok(())
}
