//! SVG line charts (plotters' SVG backend; text is written as SVG `<text>` elements sized by
//! plotters' built-in estimate, so no font files or system fonts are needed).

use plotters::prelude::*;

/// One line: a label and its points (x ascending after sorting), with an optional band.
pub struct Series {
    /// Legend label.
    pub label: String,
    /// Points.
    pub points: Vec<(f64, f64)>,
    /// A band around the line, `(x, low, high)` (empty: none), drawn as a translucent area
    /// of the line's colour under every line.
    pub band: Vec<(f64, f64, f64)>,
}

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
    let mut out = String::new();
    let mut hits = Vec::new();
    {
        let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let cols = cols.max(1);
        let rows = panels.len().div_ceil(cols).max(1);
        let areas = root.split_evenly((rows, cols));
        for (i, (p, area)) in panels.iter().zip(areas.iter()).enumerate() {
            draw_panel(i, p, area, &mut hits)?;
        }
        root.present().map_err(err)?;
    }
    Ok((out, hits))
}

fn draw_panel(
    index: usize,
    p: &Panel<'_>,
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    hits: &mut Vec<Hit>,
) -> Result<(), String> {
    let xs = p.series.iter().flat_map(|s| s.points.iter().map(|q| q.0));
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
                .flat_map(|s| s.points.iter().map(|q| q.1))
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
        let mut pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .copied()
            .filter(|q| q.1.is_finite())
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
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
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)).point_size(3))
            .map_err(err)?
            .label(s.label.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3))
            });
    }
    if !p.series.is_empty() {
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(160, 160, 160))
            .label_font(("sans-serif", 16))
            .position(SeriesLabelPosition::LowerLeft)
            .draw()
            .map_err(err)?;
    }
    Ok(())
}
