//! Sweep results and the comparative report: `results.csv`, `f1.svg` (F1 vs threshold, one
//! line per method), `pr.svg` (precision and recall vs threshold), `time.svg` (with the
//! spread of each run's repetitions, [`timing`]), `pareto.svg` (F1 against seconds and peak
//! memory, with the Pareto front of the costs apart beyond their spreads), `errors.csv`
//! (the listed false positives and misses of every run), `paired.csv` (with a bootstrap: the
//! paired comparison of every two methods' best F1), `cv.csv` (with a cross-validation: the
//! setting chosen and the F1 of every method on every split), `prcurve.csv` and
//! `prcurve.svg` (precision against recall of each method's pairs ranked by score, with the
//! average precision), `scurve.csv` and `scurve.svg` (the fraction of the truth's pairs
//! found per similarity bin against each method's theoretical curve; see [`curves`]),
//! `report.md` and a self-contained
//! `report.html` (inline SVG with hover and click targets, the error analysis side by side,
//! tables of every row, every parameter and the machine).
//!
//! Invariants: the output depends only on the [`Report`] given (methods appear in order of
//! first appearance, rows in the order given); every file is written atomically. Plots are
//! SVG only: plotters' SVG backend writes `<text>` elements and sizes them with its built-in
//! estimate, so no font is needed anywhere. No PNG is written (a PNG needs a rasterizer and
//! a font file; the screenshot script renders the HTML with Chromium).

mod best;
mod charts;
pub mod curves;
pub mod errors;
mod interactive;
mod machine;
mod page;
pub mod plot;
pub mod provenance;
mod rows;
mod run;
pub mod sweep;
pub mod timing;

use std::path::Path;

pub use best::{best_per_method, best_rows, MethodBest};
pub use charts::{
    pareto_front, plots, Chart, ChartPoint, Charts, Cost, CostKind, Front, MEMORY, SECONDS,
};
pub use curves::Curves;
pub use errors::{ErrorAnalysis, ErrorKind, PairError, DEFAULT_ERRORS};
pub use machine::MachineInfo;
pub use page::{render_html, render_markdown};
pub use rows::{read_results_csv, series_rows, write_results_csv, SweepRow, TIMING_COLUMNS};
pub use run::{run_sweep, SweepOptions, SweepTruth};

use crate::eval::{CvResult, Paired};
use crate::{Error, Result};

/// Everything a report shows.
#[derive(Clone, Copy, Debug)]
pub struct Report<'a> {
    /// One row per (method, threshold).
    pub rows: &'a [SweepRow],
    /// How the report was made: every parameter, as given.
    pub params: &'a [(String, String)],
    /// The machine.
    pub machine: &'a MachineInfo,
    /// The listed errors, when the sweep collected them.
    pub errors: Option<&'a ErrorAnalysis>,
    /// The paired comparisons of the methods' best F1, when the sweep ran a bootstrap.
    pub paired: Option<&'a [Paired]>,
    /// The cross-validation, when the sweep ran one.
    pub cv: Option<&'a CvResult>,
    /// The precision-recall curves and S-curves, when the sweep made them.
    pub curves: Option<&'a Curves>,
}

/// Writes `results.csv`, `f1.svg`, `pr.svg`, `time.svg`, `pareto.svg`, `errors.csv` (when the report has
/// errors), `paired.csv` (when it has paired comparisons), `cv.csv` (when it has a
/// cross-validation), `prcurve.*` and `scurve.*` (when it has curves), `report.md` and `report.html`
/// into `dir` (created if missing).
pub fn write_report(dir: &Path, report: &Report<'_>) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    write_results_csv(&dir.join("results.csv"), report.rows)?;
    // Plots and tables: one series per method, or per (method, shingle length).
    let shown = series_rows(report.rows);
    let report = &Report {
        rows: &shown,
        ..*report
    };
    let charts = plots(report.rows)?;
    crate::io::write_atomic(dir.join("f1.svg"), charts.f1.svg.as_bytes())?;
    crate::io::write_atomic(dir.join("pr.svg"), charts.pr.svg.as_bytes())?;
    crate::io::write_atomic(dir.join("time.svg"), charts.time.svg.as_bytes())?;
    crate::io::write_atomic(dir.join("pareto.svg"), charts.pareto.svg.as_bytes())?;
    if let Some(errors) = report.errors {
        errors.write_csv(&dir.join("errors.csv"))?;
    }
    if let Some(paired) = report.paired {
        crate::eval::bootstrap::write_paired_csv(&dir.join("paired.csv"), paired)?;
    }
    if let Some(cv) = report.cv {
        crate::eval::cv::write_cv_csv(&dir.join("cv.csv"), cv)?;
    }
    if let Some(c) = report.curves {
        if !c.pr.is_empty() {
            curves::write_pr_csv(&dir.join("prcurve.csv"), c)?;
            crate::io::write_atomic(dir.join("prcurve.svg"), curves::pr_svg(c)?.as_bytes())?;
        }
        if !c.s.is_empty() {
            curves::write_s_csv(&dir.join("scurve.csv"), c)?;
            let runs = curves::drawn_runs(c, &page::best_thresholds(report.rows));
            crate::io::write_atomic(dir.join("scurve.svg"), curves::s_svg(&runs)?.as_bytes())?;
        }
    }
    crate::io::write_atomic(dir.join("report.md"), render_markdown(report).as_bytes())?;
    crate::io::write_atomic(
        dir.join("report.html"),
        render_html(report, &charts).as_bytes(),
    )?;
    Ok(())
}
