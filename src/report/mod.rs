//! Sweep results and the comparative report: `results.csv`, `f1.svg` (F1 vs threshold, one
//! line per method), `pr.svg` (precision and recall vs threshold), `time.svg`, `report.md`
//! and a self-contained `report.html` (inline SVG, tables of every row, every parameter and
//! the machine).
//!
//! Invariants: the output depends only on the rows, parameters and machine given (methods
//! appear in order of first appearance, rows in the order given); every file is written
//! atomically. Plots are SVG only: plotters' SVG backend writes `<text>` elements and sizes
//! them with its built-in estimate, so no font is needed anywhere. No PNG is written (a PNG
//! needs a rasterizer and a font file; the screenshot script renders the HTML with Chromium).

mod machine;
pub mod plot;
pub mod sweep;

use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

pub use machine::{peak_rss_bytes, reset_peak_rss, MachineInfo};
use plot::{Panel, Series};

use crate::eval::Counts;
use crate::{Error, Result};

/// One run of one method at one threshold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepRow {
    /// Method name (`concept`, `union-find`, `lsh`, `exact`, ...).
    pub method: String,
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
    /// Wall-clock seconds of the method.
    pub seconds: f64,
    /// Peak resident memory in bytes, if measured.
    pub peak_rss_bytes: Option<u64>,
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
        }
    }
}

/// Writes `results.csv` (header = the [`SweepRow`] field names).
pub fn write_results_csv(path: &Path, rows: &[SweepRow]) -> Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
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
    let mut rdr = csv::Reader::from_reader(r);
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

fn methods(rows: &[SweepRow]) -> Vec<&str> {
    let mut m: Vec<&str> = Vec::new();
    for r in rows {
        if !m.contains(&r.method.as_str()) {
            m.push(&r.method);
        }
    }
    m
}

fn series(rows: &[SweepRow], f: impl Fn(&SweepRow) -> f64) -> Vec<Series> {
    methods(rows)
        .into_iter()
        .map(|m| Series {
            label: m.to_string(),
            points: rows
                .iter()
                .filter(|r| r.method == m)
                .map(|r| (r.threshold, f(r)))
                .collect(),
        })
        .collect()
}

/// The three plots as SVG strings: (f1, pr, time).
pub fn plots(rows: &[SweepRow]) -> Result<(String, String, String)> {
    let e = |name: &'static str| move |m: String| Error::format(name, format!("plotting: {m}"));
    let f1 = series(rows, |r| r.f1);
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
    let p = series(rows, |r| r.precision);
    let r = series(rows, |r| r.recall);
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
    let t = series(rows, |r| r.seconds);
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
    Ok((f1_svg, pr_svg, time_svg))
}

fn opt<T: std::fmt::Display>(v: &Option<T>) -> String {
    v.as_ref()
        .map(|x| x.to_string())
        .unwrap_or_else(|| "-".into())
}

fn mib(v: Option<u64>) -> String {
    v.map(|b| format!("{:.1}", b as f64 / (1024.0 * 1024.0)))
        .unwrap_or_else(|| "-".into())
}

const HEAD: [&str; 14] = [
    "method",
    "threshold",
    "k",
    "truth pairs",
    "found",
    "unique truth",
    "unique ours",
    "common",
    "precision",
    "recall",
    "F1",
    "false clusters",
    "seconds",
    "peak MiB",
];

fn cells(r: &SweepRow) -> [String; 14] {
    [
        r.method.clone(),
        format!("{}", r.threshold),
        opt(&r.k),
        r.truth_pairs.to_string(),
        r.found.to_string(),
        r.unique_truth.to_string(),
        r.unique_ours.to_string(),
        r.common.to_string(),
        format!("{:.4}", r.precision),
        format!("{:.4}", r.recall),
        format!("{:.4}", r.f1),
        opt(&r.false_clusters),
        format!("{:.3}", r.seconds),
        mib(r.peak_rss_bytes),
    ]
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

fn machine_rows(m: &MachineInfo) -> Vec<(String, String)> {
    vec![
        ("CPU".into(), m.cpu_model.clone()),
        ("cores".into(), m.cores.to_string()),
        (
            "memory".into(),
            m.memory_bytes
                .map(|b| format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64))
                .unwrap_or_else(|| "unknown".into()),
        ),
        ("OS".into(), m.os.clone()),
        ("fimdup".into(), m.fimdup_version.clone()),
    ]
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn md_table(out: &mut String, head: &[&str], rows: impl Iterator<Item = Vec<String>>) {
    let _ = writeln!(out, "| {} |", head.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(head.len()));
    for r in rows {
        let r: Vec<String> = r.iter().map(|c| md_escape(c)).collect();
        let _ = writeln!(out, "| {} |", r.join(" | "));
    }
}

/// The Markdown report (plots referenced as files beside it).
pub fn render_markdown(
    rows: &[SweepRow],
    params: &[(String, String)],
    machine: &MachineInfo,
) -> String {
    let mut s = String::new();
    s.push_str("# fimdup sweep report\n\n");
    let _ = writeln!(
        s,
        "{} runs of {} methods: {}.\n",
        rows.len(),
        methods(rows).len(),
        methods(rows).join(", ")
    );
    s.push_str("## Best F1 per method\n\n");
    md_table(
        &mut s,
        &HEAD,
        best_rows(rows).into_iter().map(|r| cells(r).to_vec()),
    );
    s.push_str("\n## Plots\n\n![F1 vs threshold](f1.svg)\n\n![Precision and recall vs threshold](pr.svg)\n\n![Time vs threshold](time.svg)\n\n");
    s.push_str("## All runs\n\n");
    md_table(&mut s, &HEAD, rows.iter().map(|r| cells(r).to_vec()));
    s.push_str("\n## Parameters\n\n");
    md_table(
        &mut s,
        &["parameter", "value"],
        params.iter().map(|(k, v)| vec![k.clone(), v.clone()]),
    );
    s.push_str("\n## Machine\n\n");
    md_table(
        &mut s,
        &["machine", "value"],
        machine_rows(machine).into_iter().map(|(k, v)| vec![k, v]),
    );
    s.push_str(
        "\nPairs are unordered document pairs. Precision = common / found (1 when nothing is found), \
         recall = common / truth pairs (1 when the truth is empty), F1 = 2PR/(P+R) (0 when P+R = 0). \
         A false-duplicate cluster holds a pair whose exact word 5-shingle resemblance is below the floor.\n",
    );
    s
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn html_table(
    out: &mut String,
    head: &[&str],
    rows: impl Iterator<Item = Vec<String>>,
    numeric_from: usize,
) {
    out.push_str("<table>\n<thead><tr>");
    for h in head {
        let _ = write!(out, "<th>{}</th>", esc(h));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for r in rows {
        out.push_str("<tr>");
        for (i, c) in r.iter().enumerate() {
            if i >= numeric_from {
                let _ = write!(out, "<td class=\"n\">{}</td>", esc(c));
            } else {
                let _ = write!(out, "<td>{}</td>", esc(c));
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
}

/// The self-contained HTML report (the SVG plots inline).
pub fn render_html(
    rows: &[SweepRow],
    params: &[(String, String)],
    machine: &MachineInfo,
    svgs: (&str, &str, &str),
) -> String {
    let mut s = String::new();
    s.push_str(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>fimdup sweep report</title>\n<style>\n\
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;margin:2em auto;max-width:1240px;padding:0 1em;color:#222}\n\
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ddd;padding-bottom:.2em}\n\
table{border-collapse:collapse;margin:.6em 0;font-size:.88em}\n\
th,td{border:1px solid #ccc;padding:.25em .55em;text-align:left;vertical-align:top}\n\
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}\n\
tbody tr:nth-child(even){background:#fafafa}\n\
.plot{margin:.8em 0;overflow-x:auto}.plot svg{max-width:100%;height:auto}\n\
.note{color:#555;font-size:.9em}\n</style>\n</head>\n<body>\n<h1>fimdup sweep report</h1>\n",
    );
    let _ = writeln!(
        s,
        "<p>{} runs of {} methods: {}.</p>",
        rows.len(),
        methods(rows).len(),
        esc(&methods(rows).join(", "))
    );
    s.push_str("<h2>Best F1 per method</h2>\n");
    html_table(
        &mut s,
        &HEAD,
        best_rows(rows).into_iter().map(|r| cells(r).to_vec()),
        1,
    );
    s.push_str("<h2>Plots</h2>\n");
    for svg in [svgs.0, svgs.1, svgs.2] {
        let _ = writeln!(s, "<div class=\"plot\">{}</div>", svg.trim());
    }
    s.push_str("<h2>All runs</h2>\n");
    html_table(&mut s, &HEAD, rows.iter().map(|r| cells(r).to_vec()), 1);
    s.push_str("<h2>Parameters</h2>\n");
    html_table(
        &mut s,
        &["parameter", "value"],
        params.iter().map(|(k, v)| vec![k.clone(), v.clone()]),
        2,
    );
    s.push_str("<h2>Machine</h2>\n");
    html_table(
        &mut s,
        &["machine", "value"],
        machine_rows(machine).into_iter().map(|(k, v)| vec![k, v]),
        2,
    );
    s.push_str(
        "<p class=\"note\">Pairs are unordered document pairs. Precision = common / found (1 when nothing is found), \
         recall = common / truth pairs (1 when the truth is empty), F1 = 2PR/(P+R) (0 when P+R = 0). \
         A false-duplicate cluster holds a pair whose exact word 5-shingle resemblance is below the floor.</p>\n</body>\n</html>\n",
    );
    s
}

/// Writes `results.csv`, `f1.svg`, `pr.svg`, `time.svg`, `report.md` and `report.html` into
/// `dir` (created if missing). `params` are listed as given (every parameter of the sweep).
pub fn write_report(
    dir: &Path,
    rows: &[SweepRow],
    params: &[(String, String)],
    machine: &MachineInfo,
) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    write_results_csv(&dir.join("results.csv"), rows)?;
    let (f1, pr, time) = plots(rows)?;
    crate::io::write_atomic(dir.join("f1.svg"), f1.as_bytes())?;
    crate::io::write_atomic(dir.join("pr.svg"), pr.as_bytes())?;
    crate::io::write_atomic(dir.join("time.svg"), time.as_bytes())?;
    crate::io::write_atomic(
        dir.join("report.md"),
        render_markdown(rows, params, machine).as_bytes(),
    )?;
    crate::io::write_atomic(
        dir.join("report.html"),
        render_html(rows, params, machine, (&f1, &pr, &time)).as_bytes(),
    )?;
    Ok(())
}
