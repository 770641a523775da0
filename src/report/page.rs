//! The report pages: `report.md` (plots referenced as files beside it) and the
//! self-contained `report.html` (plots inline, with hover and click targets; the error
//! analysis side by side; all data inline, no network access; readable with scripting off).
//!
//! Sections, in order: the best F1 per method (with the grid-edge flag), the paired
//! comparisons (with a bootstrap), the cross-validation (with one), the plots with how the
//! costs were measured and what their Pareto fronts hold ([`super::charts::Front`]), the
//! ranking by score and the S-curves (with curves), the error analysis (each method at its best threshold; any other point of the plots when
//! scripting is on), every run, how the report was made (every parameter), the machine.
//!
//! Invariant: a page depends only on the [`Report`] given.

use std::fmt::Write as _;

use crate::explain::render::esc;

use super::best::{best_per_method, best_rows, MethodBest};
use super::charts::{
    methods, pareto_front, repetitions, Charts, Cost, CostKind, Front, MEMORY, SECONDS,
};
use super::curves::{self, Curves};
use super::errors::{ErrorAnalysis, ErrorKind, PairError};
use super::{interactive, MachineInfo, Report, SweepRow};
use crate::eval::{CvResult, Paired};

fn opt<T: std::fmt::Display>(v: &Option<T>) -> String {
    v.as_ref()
        .map(|x| x.to_string())
        .unwrap_or_else(|| "-".into())
}

fn mib(v: Option<u64>) -> String {
    v.map(|b| format!("{:.1}", b as f64 / (1024.0 * 1024.0)))
        .unwrap_or_else(|| "-".into())
}

/// Seconds to three significant digits (`0.0158`, `1.23`, `12.3`).
fn secs(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let digits = if v > 0.0 {
        (2 - v.log10().floor() as i32).clamp(0, 6) as usize
    } else {
        3
    };
    format!("{v:.digits$}")
}

/// A measured value with the most of its repetitions when that is higher: `0.0158 (to 0.0172)`.
fn with_most(least: String, most: Option<String>) -> String {
    match most {
        Some(m) if m != least => format!("{least} (to {m})"),
        _ => least,
    }
}

const HEAD: [&str; 15] = [
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
    "seconds (least, to most)",
    "peak MiB (least, to most)",
    "runs",
];

fn cells(r: &SweepRow) -> [String; 15] {
    [
        r.method.clone(),
        threshold(r.threshold),
        opt(&r.k),
        r.truth_pairs.to_string(),
        r.found.to_string(),
        r.unique_truth.to_string(),
        r.unique_ours.to_string(),
        r.common.to_string(),
        with_interval(r.precision, r.precision_lo.zip(r.precision_hi)),
        with_interval(r.recall, r.recall_lo.zip(r.recall_hi)),
        with_interval(r.f1, r.f1_interval()),
        opt(&r.false_clusters),
        with_most(secs(r.seconds), r.seconds_max.map(secs)),
        with_most(
            mib(r.peak_rss_bytes),
            r.peak_rss_max_bytes.map(|b| mib(Some(b))),
        ),
        opt(&r.repeats),
    ]
}

/// A cost as the page gives it: seconds to three significant digits, MiB to one decimal.
fn cost_value(kind: &CostKind, v: f64) -> String {
    if kind.unit == "s" {
        secs(v)
    } else {
        format!("{v:.1}")
    }
}

/// A range of a cost: `0.0158-0.0172 s`, or one value when both ends read the same.
fn cost_range(kind: &CostKind, lo: f64, hi: f64) -> String {
    let (a, b) = (cost_value(kind, lo), cost_value(kind, hi));
    if a == b {
        format!("{a} {}", kind.unit)
    } else {
        format!("{a}-{b} {}", kind.unit)
    }
}

/// Runs as the cost note names them, those of one method together:
/// `super-shingle at 0.75, 0.7 and 0.65; exact at 0.8`.
fn runs_named(rows: &[SweepRow], of: &[usize]) -> String {
    let mut groups: Vec<(&str, Vec<String>)> = Vec::new();
    for &i in of {
        let r = &rows[i];
        let t = threshold(r.threshold);
        match groups.last_mut() {
            Some((m, ts)) if *m == r.method => ts.push(t),
            _ => groups.push((&r.method, vec![t])),
        }
    }
    groups
        .into_iter()
        .map(|(m, ts)| match ts.split_last() {
            Some((last, rest)) if !rest.is_empty() => {
                format!("{m} at {} and {last}", rest.join(", "))
            }
            _ => format!("{m} at {}", ts.join("")),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The rows of a front as the cost note gives them, ties together: each group's runs, F1
/// and cost range.
fn front_named(rows: &[SweepRow], front: &Front, kind: &CostKind) -> Vec<String> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (k, &i) in front.rows.iter().enumerate() {
        match groups.last_mut() {
            Some(g) if k > 0 && !front.joined[k - 1] => g.push(i),
            _ => groups.push(vec![i]),
        }
    }
    groups
        .into_iter()
        .map(|mut g| {
            g.sort_unstable();
            let costs: Vec<Cost> = g.iter().filter_map(|&i| (kind.of)(&rows[i])).collect();
            let lo = costs.iter().map(|c| c.lo).fold(f64::INFINITY, f64::min);
            let hi = costs.iter().map(|c| c.hi).fold(f64::NEG_INFINITY, f64::max);
            format!(
                "{} ({}F1 {:.4}, {})",
                runs_named(rows, &g),
                if g.len() > 1 { "tied: " } else { "" },
                rows[g[0]].f1,
                cost_range(kind, lo, hi)
            )
        })
        .collect()
}

/// At most `n` items, then how many more.
fn some_of(items: Vec<String>, n: usize) -> String {
    let more = items.len().saturating_sub(n);
    let mut s = items
        .into_iter()
        .take(n)
        .collect::<Vec<_>>()
        .join("; then ");
    if more > 0 {
        let _ = write!(s, "; and {more} more");
    }
    s
}

/// How the costs were measured, and what their Pareto fronts hold: the page's two
/// paragraphs under the cost plots.
fn cost_note(rows: &[SweepRow]) -> (String, String) {
    let reps = match repetitions(rows).as_deref() {
        None => "the runs' repetitions are not recorded, so no spread is known".to_string(),
        Some("1") => "every run was measured once, so no spread was measured".to_string(),
        Some(n) if n.contains('-') => format!(
            "each run was repeated {n} times (fewer when its repetitions reached the time given; a run measured once has no spread)"
        ),
        Some(n) => format!("each run was repeated {n} times"),
    };
    let mut s = format!(
        "Costs: {reps}. A run's seconds are the least of its repetitions (the sketch of its \
scheme, for exact the loading of the full shingle sets, and the clustering, each repeated; \
the timer counts nanoseconds); the time plot's band and the bars span the least to the most. \
Peak memory is the process's resident high-water mark during the run (VmHWM, reset before \
each repetition after the allocator's free memory is handed back): the whole process, the \
corpus and every prepared scheme included, counted by the kernel in whole pages and given in \
kB; what the allocator keeps of one run moves the baseline of the next by about a MiB, more \
than the repetitions spread, so memory within {} MiB is tied. A run is on the Pareto front \
when no run with a higher F1 costs less, or the same within the spread, and none as good \
costs less beyond it; the front's line joins only runs whose costs are apart, and a run \
cheaper than a better one by less than the spread is not on the front: the difference is \
below the measurement's spread.",
        MEMORY.resolution
    );
    let how = std::mem::take(&mut s);
    for kind in [SECONDS, MEMORY] {
        let front = pareto_front(rows, &kind);
        if front.rows.is_empty() {
            continue;
        }
        let _ = write!(
            s,
            "{}By {}, the front runs from {}.",
            if s.is_empty() { "" } else { " " },
            kind.name,
            some_of(front_named(rows, &front, &kind), 6)
        );
        if !front.within_spread.is_empty() {
            let n = front.within_spread.len();
            let _ = write!(
                s,
                " {n} run{} cheaper than a run with a higher F1 by less than the spread (ringed in grey): {}.",
                if n == 1 { " is" } else { "s are" },
                runs_named(rows, &front.within_spread)
            );
        }
    }
    (how, s)
}

/// A value, with its bootstrap interval when it has one: `0.7860 [0.751, 0.812]`.
fn with_interval(v: f64, iv: Option<(f64, f64)>) -> String {
    match iv {
        None => format!("{v:.4}"),
        Some((lo, hi)) => format!("{v:.4} [{lo:.3}, {hi:.3}]"),
    }
}

const PAIRED_HEAD: [&str; 5] = [
    "comparison",
    "difference of best F1",
    "95 % interval",
    "first wins",
    "second wins",
];

const PAIRED_NOTE: &str = "The difference of two methods' best F1 (each at its own best \
threshold), with its 95 % percentile interval over the same bootstrap resamples (the best \
threshold chosen again in each), and the share of resamples in which each method's best F1 \
is the higher (the rest are ties). Every comparison is in paired.csv.";

fn paired_cells(p: &Paired) -> Vec<String> {
    vec![
        format!("{} - {}", p.a, p.b),
        format!("{:+.4}", p.diff),
        format!("[{:+.4}, {:+.4}]", p.diff_lo, p.diff_hi),
        format!("{} {:.0} %", p.a, 100.0 * p.a_wins),
        format!("{} {:.0} %", p.b, 100.0 * p.b_wins),
    ]
}

/// The cross-validation table's header: a column per choose-set size when there are
/// several.
fn cv_head(c: &CvResult) -> Vec<String> {
    let over = if c.leave_one_out { "folds" } else { "splits" };
    let mut h = vec![
        "method".to_string(),
        format!("cross-validated F1: mean [min-max] over {over}"),
    ];
    if c.choose.len() > 1 {
        for m in &c.choose {
            h.push(format!("choose {m} / report {}", c.folds - m));
        }
    }
    h.extend([
        "tuned on the report-set (mean)".to_string(),
        "pooled F1 (found / common / truth)".to_string(),
        "tuned on all: F1 (setting)".to_string(),
        format!("settings chosen ({over})"),
        "at the grid's edge".to_string(),
    ]);
    h
}

fn cv_note(c: &CvResult) -> String {
    let what = if c.shingle_lens.is_empty() {
        "threshold".to_string()
    } else {
        let l: Vec<String> = c.shingle_lens.iter().map(|w| w.to_string()).collect();
        format!("shingle length (w from {}) and threshold", l.join(", "))
    };
    let splits = if c.leave_one_out {
        format!(
            "For each fold, each method's {what} is the one with the best F1 on the pairs of \
the other folds, and is scored on the fold's own pairs"
        )
    } else {
        let sizes: Vec<String> = c.choose.iter().map(|m| m.to_string()).collect();
        format!(
            "Every set of {} folds is chosen on and the other folds reported ({} splits): each \
method's {what} is the one with the best F1 on the chosen folds' pairs, and is scored on the \
reported folds' pairs",
            sizes.join(" or "),
            c.splits
        )
    };
    let groups = match &c.fold_groups {
        Some(g) if c.units <= 50 => format!(
            " Folds: {}.",
            g.iter()
                .enumerate()
                .map(|(i, g)| format!("{i}: {}", g.join(" ")))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        _ => String::new(),
    };
    format!(
        "The {} {} are dealt into {} folds by a seeded hash (seed {}).{groups} {splits} (pairs \
across the two sets count in neither; ties go to the higher threshold, then the shorter \
shingle). The cross-validated F1 is the mean over the splits; tuned on the report-set is the \
best F1 of the grid on each split's reported pairs, averaged the same way (what the \
cross-validated F1 is to be compared with); the pooled F1 is that of the splits' counts \
summed; the tuned F1 chooses the setting on every pair it is scored on. Every split is in \
cv.csv.",
        c.units, c.unit, c.folds, c.seed
    )
}

fn cv_cells(c: &CvResult) -> Vec<Vec<String>> {
    let over = if c.leave_one_out { "folds" } else { "splits" };
    c.methods
        .iter()
        .map(|m| {
            let tuned = match m.tuned_shingle_len {
                Some(w) => format!("{:.4} (w={w} t={})", m.tuned_f1, m.tuned_threshold),
                None => format!("{:.4} ({})", m.tuned_f1, m.tuned_threshold),
            };
            let chosen: Vec<String> = m
                .chosen
                .iter()
                .map(|x| format!("{} ({})", x.setting, x.splits))
                .collect();
            let mut edge = Vec::new();
            if m.splits_at_edge > 0 {
                edge.push(format!(
                    "threshold in {} of {} {over}",
                    m.splits_at_edge, c.splits
                ));
            }
            if let Some(n) = m.splits_shingle_len_at_edge.filter(|&n| n > 0) {
                edge.push(format!("length in {n} of {} {over}", c.splits));
            }
            let mut row = vec![
                m.method.clone(),
                format!("{:.4} [{:.4}-{:.4}]", m.cv_f1, m.min_f1, m.max_f1),
            ];
            if c.choose.len() > 1 {
                row.extend(m.by_choose.iter().map(|b| format!("{:.4}", b.cv_f1)));
            }
            row.extend([
                format!("{:.4}", m.report_tuned_f1),
                format!(
                    "{:.4} ({} / {} / {})",
                    m.pooled_f1, m.pooled_found, m.pooled_common, m.pooled_truth
                ),
                tuned,
                chosen.join(", "),
                if edge.is_empty() {
                    "no".into()
                } else {
                    edge.join("; ")
                },
            ]);
            row
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

/// A threshold as shown: `unscored` for the one row of a prediction without scores.
fn threshold(t: f64) -> String {
    if t.is_finite() {
        format!("{t}")
    } else {
        "unscored".into()
    }
}

/// What the page says of a method whose best threshold is at the grid's edge (`None`
/// when it is inside).
fn grid_note(b: &MethodBest) -> Option<String> {
    b.best_at_grid_edge.then(|| match &b.suggest {
        Some(s) => format!("best at the grid's edge: add {s}"),
        None => "best at the grid's edge (the end of the scale)".to_string(),
    })
}

const NOTE: &str =
    "Pairs are unordered document pairs. Precision = common / found (1 when nothing is found), \
recall = common / truth pairs (1 when the truth is empty), F1 = 2PR/(P+R) (0 when P+R = 0). \
A false-duplicate cluster holds a pair whose exact word 5-shingle resemblance is below the floor.";

const ERRORS_NOTE: &str = "False positives are pairs the method found that the truth does not \
hold (\"unique to ours\"); misses are pairs of the truth it did not find (\"unique to the \
truth\"). They are listed nearest the threshold first (by the estimate from the method's own \
images, or by shared image elements against an absolute k). Exact is the resemblance (or \
max-containment) of the full shingle sets; estimate is from the images; score is the \
method's own. Texts are canonical (what the shingles are cut from) and the shared passages \
are highlighted. Every listed error is in errors.csv.";

fn num(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.4}")
    } else {
        "-".into()
    }
}

/// The error rows of one (method, threshold), as table cells.
fn error_cells(e: &PairError) -> Vec<String> {
    vec![
        e.kind.name().into(),
        e.a.clone(),
        e.b.clone(),
        num(e.exact),
        num(e.estimate),
        e.score.map_or("-".into(), num),
        e.shared.map_or("-".into(), |s| s.to_string()),
    ]
}

const ERROR_HEAD: [&str; 7] = ["kind", "a", "b", "exact", "estimate", "score", "shared"];

/// Each method's best threshold (the runs the S-curve plot and table show).
pub(crate) fn best_thresholds(rows: &[SweepRow]) -> Vec<(String, f64)> {
    best_rows(rows)
        .into_iter()
        .map(|r| (r.method.clone(), r.threshold))
        .collect()
}

/// The ranking and S-curve sections in Markdown (nothing without curves).
fn curves_markdown(s: &mut String, c: &Curves, rows: &[SweepRow]) {
    if !c.pr.is_empty() {
        s.push_str(
            "## Ranking by score

",
        );
        let _ = writeln!(
            s,
            "{}
",
            curves::PR_NOTE
        );
        md_table(s, &curves::PR_HEAD, curves::pr_cells(c).into_iter());
        s.push_str(
            "
![Precision vs recall, pairs ranked by score](prcurve.svg)

",
        );
    }
    if !c.s.is_empty() {
        let runs = curves::drawn_runs(c, &best_thresholds(rows));
        s.push_str(
            "## S-curves

",
        );
        let _ = writeln!(
            s,
            "{}
",
            curves::s_note(c, &runs)
        );
        let (head, cells) = curves::s_table(&runs);
        let head: Vec<&str> = head.iter().map(String::as_str).collect();
        md_table(s, &head, cells.into_iter());
        for r in curves::s_remarks(&runs) {
            let _ = write!(s, "\n{r}\n");
        }
        s.push_str(
            "
![Fraction of the truth's pairs found per resemblance bin, with the theory](scurve.svg)

",
        );
    }
}

/// The ranking and S-curve sections in HTML, the plots inline (nothing without curves).
fn curves_html(s: &mut String, c: &Curves, rows: &[SweepRow]) {
    if !c.pr.is_empty() {
        s.push_str("<h2 id=\"ranking\">Ranking by score</h2>\n");
        let _ = writeln!(s, "<p class=\"note\">{}</p>", esc(curves::PR_NOTE));
        html_table(s, &curves::PR_HEAD, curves::pr_cells(c).into_iter(), 3);
        if let Ok(svg) = curves::pr_svg(c) {
            let _ = writeln!(s, "<div class=\"plot\">{svg}</div>");
        }
    }
    if !c.s.is_empty() {
        let runs = curves::drawn_runs(c, &best_thresholds(rows));
        s.push_str("<h2 id=\"s-curves\">S-curves</h2>\n");
        let _ = writeln!(
            s,
            "<p class=\"note\">{}</p>",
            esc(&curves::s_note(c, &runs))
        );
        let (head, cells) = curves::s_table(&runs);
        let head: Vec<&str> = head.iter().map(String::as_str).collect();
        html_table(s, &head, cells.into_iter(), 1);
        for r in curves::s_remarks(&runs) {
            let _ = writeln!(s, "<p class=\"note\">{}</p>", esc(&r));
        }
        if let Ok(svg) = curves::s_svg(&runs) {
            let _ = writeln!(s, "<div class=\"plot\">{svg}</div>");
        }
    }
}

/// The Markdown report (plots referenced as files beside it).
pub fn render_markdown(r: &Report<'_>) -> String {
    let rows = r.rows;
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
    s.push('\n');
    for b in best_per_method(rows) {
        if let Some(note) = grid_note(&b) {
            let _ = writeln!(s, "- {}: {note}.", b.method);
        }
    }
    if let Some(paired) = r.paired {
        s.push_str("\n## Paired comparison\n\n");
        let _ = writeln!(s, "{PAIRED_NOTE}\n");
        md_table(&mut s, &PAIRED_HEAD, paired.iter().map(paired_cells));
    }
    if let Some(c) = r.cv {
        s.push_str("\n## Cross-validation\n\n");
        let _ = writeln!(s, "{}\n", cv_note(c));
        let head = cv_head(c);
        let head: Vec<&str> = head.iter().map(String::as_str).collect();
        md_table(&mut s, &head, cv_cells(c).into_iter());
    }
    s.push_str("\n## Plots\n\n![F1 vs threshold](f1.svg)\n\n![Precision and recall vs threshold](pr.svg)\n\n![Time vs threshold](time.svg)\n\n![F1 against cost, with the Pareto front](pareto.svg)\n\n");
    let (how, fronts) = cost_note(rows);
    let _ = writeln!(s, "{how}\n");
    if !fronts.is_empty() {
        let _ = writeln!(s, "{fronts}\n");
    }
    if let Some(c) = r.curves {
        curves_markdown(&mut s, c, rows);
    }
    if let Some(errors) = r.errors.filter(|e| e.cap > 0) {
        s.push_str("## Error analysis\n\n");
        let _ = writeln!(s, "{ERRORS_NOTE} report.html shows them side by side.\n");
        for b in best_rows(rows) {
            let list: Vec<&PairError> = errors.of(&b.method, b.threshold).collect();
            let _ = writeln!(
                s,
                "### {} at {}\n\n{} false positives and {} misses; listed: {} and {}.\n",
                b.method,
                threshold(b.threshold),
                b.unique_ours,
                b.unique_truth,
                list.iter()
                    .filter(|e| e.kind == ErrorKind::FalsePositive)
                    .count(),
                list.iter().filter(|e| e.kind == ErrorKind::Miss).count()
            );
            if !list.is_empty() {
                md_table(&mut s, &ERROR_HEAD, list.iter().map(|e| error_cells(e)));
                s.push('\n');
            }
        }
    }
    s.push_str("## All runs\n\n");
    md_table(&mut s, &HEAD, rows.iter().map(|r| cells(r).to_vec()));
    s.push_str("\n## How this report was made\n\n");
    md_table(
        &mut s,
        &["parameter", "value"],
        r.params.iter().map(|(k, v)| vec![k.clone(), v.clone()]),
    );
    s.push_str("\n## Machine\n\n");
    md_table(
        &mut s,
        &["machine", "value"],
        machine_rows(r.machine).into_iter().map(|(k, v)| vec![k, v]),
    );
    let _ = writeln!(s, "\n{NOTE}");
    s
}

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;margin:2em auto;max-width:1240px;padding:0 1em;color:#222}\n\
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ddd;padding-bottom:.2em}\n\
h3{font-size:1.08em;margin-top:1.2em}\n\
table{border-collapse:collapse;margin:.6em 0;font-size:.88em}\n\
th,td{border:1px solid #ccc;padding:.25em .55em;text-align:left;vertical-align:top}\n\
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}\n\
tbody tr:nth-child(even){background:#fafafa}\n\
.plot{margin:.8em 0;overflow-x:auto;position:relative}.plot svg{max-width:100%;height:auto}\n\
.note{color:#555;font-size:.9em}\n\
.edge{color:#a33;font-weight:600}\n\
details.fd-err{border:1px solid #ddd;border-radius:4px;margin:.35em 0;padding:.2em .6em}\n\
details.fd-err>summary{cursor:pointer;font-size:.9em}\n\
.fd-kind{display:inline-block;min-width:7.5em;font-weight:600}\n\
.fd-kind.false-positive{color:#b4361e}.fd-kind.miss{color:#1f5fa8}\n\
.fd-cols{display:grid;grid-template-columns:1fr 1fr;gap:1em;margin:.5em 0}\n\
.fd-col h4{margin:.2em 0;font-size:.9em;font-family:monospace}\n\
.fd-col p{margin:0;font-size:.85em;line-height:1.45;white-space:pre-wrap;word-break:break-word;max-height:22em;overflow-y:auto}\n\
mark.fd-shared{background:#ffe08a;padding:0}\n\
.fd-hits circle{fill:transparent;stroke:none;cursor:pointer}\n\
.fd-hits circle:hover,.fd-hits circle.fd-on{fill:rgba(0,0,0,.18);stroke:#222;stroke-width:1.5}\n\
#fd-tip{position:absolute;pointer-events:none;background:#fff;border:1px solid #888;border-radius:4px;padding:.35em .6em;font-size:.82em;box-shadow:0 2px 6px rgba(0,0,0,.2);white-space:nowrap;z-index:2}\n\
#fd-picked{border-left:4px solid #ffbf00;padding:.2em .8em;margin:.8em 0;background:#fffbea}\n";

/// Appends `<details>` with the side-by-side view of one error.
fn error_html(out: &mut String, e: &PairError, errors: &ErrorAnalysis) {
    let _ = write!(
        out,
        "<details class=\"fd-err\"><summary><span class=\"fd-kind {}\">{}</span> <code>{}</code> &times; <code>{}</code> &mdash; exact {}, estimate {}, score {}, shared {}</summary>",
        e.kind.name(),
        e.kind.name().replace('-', " "),
        esc(&e.a),
        esc(&e.b),
        num(e.exact),
        num(e.estimate),
        e.score.map_or("-".into(), num),
        e.shared.map_or("-".into(), |s| s.to_string())
    );
    match errors.views.get(e.view) {
        Some(v) => {
            out.push_str("<div class=\"fd-cols\">");
            for (d, passages) in [(v.a, &v.passages_a), (v.b, &v.passages_b)] {
                let doc = &errors.docs[d];
                let ranges: Vec<std::ops::Range<usize>> =
                    passages.iter().map(|&(s, e)| s..e).collect();
                let _ = write!(
                    out,
                    "<div class=\"fd-col\"><h4>{}</h4><p>{}</p></div>",
                    esc(&doc.id),
                    crate::explain::render::highlight_html(&doc.text, &ranges)
                );
            }
            out.push_str("</div>");
        }
        None => out.push_str("<p class=\"note\">A document of this pair is not in the corpus.</p>"),
    }
    out.push_str("</details>\n");
}

/// The self-contained HTML report (the SVG plots inline with their hover and click
/// targets; the error analysis; the data of every threshold's errors for the script).
pub fn render_html(r: &Report<'_>, charts: &Charts) -> String {
    let rows = r.rows;
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>fimdup sweep report</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<h1>fimdup sweep report</h1>\n"
    );
    let _ = writeln!(
        s,
        "<p>{} runs of {} methods: {}.</p>",
        rows.len(),
        methods(rows).len(),
        esc(&methods(rows).join(", "))
    );
    if let Some((_, cmd)) = r.params.iter().find(|(k, _)| k == "command line") {
        let _ = writeln!(
            s,
            "<p class=\"note\">Made by <code>{}</code>.</p>",
            esc(cmd)
        );
    }
    s.push_str("<h2>Best F1 per method</h2>\n");
    html_table(
        &mut s,
        &HEAD,
        best_rows(rows).into_iter().map(|r| cells(r).to_vec()),
        1,
    );
    for b in best_per_method(rows) {
        if let Some(note) = grid_note(&b) {
            let _ = writeln!(
                s,
                "<p class=\"edge\">{}: {}.</p>",
                esc(&b.method),
                esc(&note)
            );
        }
    }
    if let Some(paired) = r.paired {
        s.push_str("<h2 id=\"paired\">Paired comparison</h2>\n");
        let _ = writeln!(s, "<p class=\"note\">{}</p>", esc(PAIRED_NOTE));
        html_table(&mut s, &PAIRED_HEAD, paired.iter().map(paired_cells), 1);
    }
    if let Some(c) = r.cv {
        s.push_str("<h2 id=\"cv\">Cross-validation</h2>\n");
        let _ = writeln!(s, "<p class=\"note\">{}</p>", esc(&cv_note(c)));
        let head = cv_head(c);
        let head: Vec<&str> = head.iter().map(String::as_str).collect();
        html_table(&mut s, &head, cv_cells(c).into_iter(), 1);
    }
    s.push_str("<h2 id=\"plots\">Plots</h2>\n<p class=\"note\">Hover a point for its values; click one to show that run's errors below.</p>\n");
    for c in [&charts.f1, &charts.pr, &charts.time, &charts.pareto] {
        let _ = writeln!(
            s,
            "<div class=\"plot\">{}</div>",
            interactive::with_targets(c, rows)
        );
    }
    let (how, fronts) = cost_note(rows);
    for p in [how, fronts].iter().filter(|p| !p.is_empty()) {
        let _ = writeln!(s, "<p class=\"note\">{}</p>", esc(p));
    }
    if let Some(c) = r.curves {
        curves_html(&mut s, c, rows);
    }
    if let Some(errors) = r.errors.filter(|e| e.cap > 0) {
        s.push_str("<h2 id=\"errors\">Error analysis</h2>\n");
        let _ = writeln!(s, "<p class=\"note\">{}</p>", esc(ERRORS_NOTE));
        s.push_str("<div id=\"fd-picked\" hidden></div>\n");
        for b in best_rows(rows) {
            let list: Vec<&PairError> = errors.of(&b.method, b.threshold).collect();
            let (fp, miss): (Vec<&PairError>, Vec<&PairError>) = list
                .iter()
                .partition(|e| e.kind == ErrorKind::FalsePositive);
            let _ = writeln!(
                s,
                "<h3>{} at its best threshold {}</h3>\n<p class=\"note\">{} false positives (listed {}), {} misses (listed {}).</p>",
                esc(&b.method),
                threshold(b.threshold),
                b.unique_ours,
                fp.len(),
                b.unique_truth,
                miss.len()
            );
            for e in fp.into_iter().chain(miss) {
                error_html(&mut s, e, errors);
            }
        }
        s.push_str(&interactive::data_script(rows, errors));
    }
    s.push_str("<h2>All runs</h2>\n");
    html_table(&mut s, &HEAD, rows.iter().map(|r| cells(r).to_vec()), 1);
    s.push_str("<h2>How this report was made</h2>\n");
    html_table(
        &mut s,
        &["parameter", "value"],
        r.params.iter().map(|(k, v)| vec![k.clone(), v.clone()]),
        2,
    );
    s.push_str("<h2>Machine</h2>\n");
    html_table(
        &mut s,
        &["machine", "value"],
        machine_rows(r.machine).into_iter().map(|(k, v)| vec![k, v]),
        2,
    );
    let _ = writeln!(s, "<p class=\"note\">{}</p>", esc(NOTE));
    s.push_str(interactive::SCRIPT);
    s.push_str("</body>\n</html>\n");
    s
}
