//! The report writer: every file is written, results.csv parses back to the same rows, the
//! plots hold a line and a legend entry per method, the HTML is self-contained.

use fimdup::eval::Counts;
use fimdup::report::timing::Spread;
use fimdup::report::{best_rows, read_results_csv, write_report, MachineInfo, Report, SweepRow};

/// Fake but consistent rows: three methods, thresholds 0.95..0.5; counts from a made-up curve.
fn fixture_rows() -> Vec<SweepRow> {
    let mut rows = Vec::new();
    let truth = 1309u64;
    for (mi, m) in ["concept", "union-find", "lsh"].iter().enumerate() {
        for i in 0..10u64 {
            let t = 0.95 - 0.05 * i as f64;
            let t = (t * 1e12).round() / 1e12;
            let found = 300 + i * (120 + 40 * mi as u64);
            let common = (found * (95 - i * (3 + 2 * mi as u64)) / 100).min(truth);
            let c = Counts::new(truth, found, common);
            let fc = if *m == "lsh" {
                None
            } else {
                Some(i * mi as u64)
            };
            let mut row = SweepRow::new(*m, t, Some(32), &c, fc, f64::NAN, None);
            // Three repetitions: the seconds spread by a fifth, the memory by 1 MiB.
            let secs = 0.05 + 0.01 * i as f64 * (mi + 1) as f64;
            row.set_cost(
                Spread {
                    runs: 3,
                    least: secs,
                    most: secs * 1.2,
                },
                Some(Spread {
                    runs: 3,
                    least: (40 + i) << 20,
                    most: (41 + i) << 20,
                }),
            );
            rows.push(row);
        }
    }
    rows
}

fn params() -> Vec<(String, String)> {
    vec![
        ("input".into(), "datasets/default/docs.jsonl".into()),
        ("truth-rule".into(), "edit_similarity>0.85".into()),
        ("thresholds".into(), "0.95:0.5:0.05".into()),
        ("shingle".into(), "w=5 words".into()),
    ]
}

#[test]
fn report_files_are_written_and_parse_back() {
    let dir = tempfile::tempdir().unwrap();
    let rows = fixture_rows();
    let machine = MachineInfo::detect();
    write_report(
        dir.path(),
        &Report {
            rows: &rows,
            params: &params(),
            machine: &machine,
            errors: None,
            paired: None,
            cv: None,
            curves: None,
        },
    )
    .unwrap();
    for f in [
        "results.csv",
        "f1.svg",
        "pr.svg",
        "time.svg",
        "pareto.svg",
        "report.md",
        "report.html",
    ] {
        let p = dir.path().join(f);
        assert!(p.metadata().unwrap().len() > 100, "{f} is empty");
    }
    let back = read_results_csv(&dir.path().join("results.csv")).unwrap();
    assert_eq!(back, rows);
    // row 0 of concept: found 300, common 300*95/100 = 285: P = 0.95, R = 285/1309
    assert_eq!((back[0].found, back[0].common), (300, 285));
    assert!((back[0].precision - 0.95).abs() < 1e-12);
    assert!((back[0].recall - 285.0 / 1309.0).abs() < 1e-12);

    let f1 = std::fs::read_to_string(dir.path().join("f1.svg")).unwrap();
    assert!(f1.starts_with("<svg"), "{}", &f1[..80]);
    assert!(f1.contains("F1 vs threshold"));
    let pr = std::fs::read_to_string(dir.path().join("pr.svg")).unwrap();
    assert!(pr.contains("Precision vs threshold") && pr.contains("Recall vs threshold"));
    for m in ["concept", "union-find", "lsh"] {
        assert!(f1.contains(m), "legend {m}");
    }
    // one 2px line per method per panel (axes and ticks are 1px)
    let lines = |s: &str| s.matches("stroke-width=\"2\" points=").count();
    assert_eq!(lines(&f1), 3);
    assert_eq!(lines(&pr), 6);

    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(
        !html.contains("src=\"") && !html.contains("href=\""),
        "self-contained"
    );
    // f1, pr, time and pareto (F1 against seconds and memory, with the front)
    assert_eq!(html.matches("<svg").count(), 4);
    let pareto = std::fs::read_to_string(dir.path().join("pareto.svg")).unwrap();
    assert!(pareto.contains("F1 vs seconds") && pareto.contains("Pareto front"));
    assert!(pareto.contains("bars: least to most of 3 repetitions"));
    let time = std::fs::read_to_string(dir.path().join("time.svg")).unwrap();
    assert!(time.contains("band: least to most"));
    // The page says how the costs were measured and what the fronts hold.
    assert!(html.contains("Costs: each run was repeated 3 times."));
    // The three methods at 0.95 take the same time for the same F1: tied.
    assert!(html.contains(
        "By seconds, the front runs from concept at 0.95; union-find at 0.95; lsh at 0.95 (tied: F1"
    ));
    assert!(html.contains("below the measurement&#39;s spread"));
    for m in [
        "concept",
        "union-find",
        "lsh",
        "edit_similarity&gt;0.85",
        &machine.fimdup_version,
    ] {
        assert!(html.contains(m), "html lacks {m}");
    }
    // every row is in the all-runs table: 30 rows + 3 best rows
    assert_eq!(
        html.matches("<tr><td>").count(),
        30 + 3 + params().len() + 5
    );
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(md.contains("![F1 vs threshold](f1.svg)"));
    assert!(md.contains("| thresholds | 0.95:0.5:0.05 |"));
}

#[test]
fn best_rows_pick_max_f1_per_method() {
    let rows = fixture_rows();
    let best = best_rows(&rows);
    assert_eq!(best.len(), 3);
    for b in best {
        let max = rows
            .iter()
            .filter(|r| r.method == b.method)
            .map(|r| r.f1)
            .fold(0.0, f64::max);
        assert_eq!(b.f1, max);
    }
}

#[test]
fn empty_report_still_writes() {
    let dir = tempfile::tempdir().unwrap();
    write_report(
        dir.path(),
        &Report {
            rows: &[],
            params: &[],
            machine: &MachineInfo::detect(),
            errors: None,
            paired: None,
            cv: None,
            curves: None,
        },
    )
    .unwrap();
    assert!(read_results_csv(&dir.path().join("results.csv"))
        .unwrap()
        .is_empty());
}

#[test]
fn machine_and_memory() {
    use fimdup::spill::{peak_rss_bytes, resident_bytes};
    let m = MachineInfo::detect();
    assert!(m.cores >= 1);
    assert_eq!(m.fimdup_version, env!("CARGO_PKG_VERSION"));
    if cfg!(target_os = "linux") {
        // Other tests run in this process at the same time (and a sweep resets the peak), so
        // only what holds whatever they do is checked: 64 MiB touched here are resident, and
        // the peak, read while they still are, is at least as high.
        let v: Vec<u8> = vec![1; 64 << 20];
        assert!(v.iter().map(|&x| x as u64).sum::<u64>() == 64 << 20);
        let resident = resident_bytes().unwrap();
        let peak = peak_rss_bytes().unwrap();
        assert!(resident >= 64 << 20, "resident {resident}");
        assert!(peak >= 64 << 20, "peak {peak}, resident {resident}");
        drop(v);
        assert!(m.memory_bytes.unwrap() > 0);
    } else {
        assert!(peak_rss_bytes().is_none());
    }
}

/// Writes the fixture report to $FIMDUP_REPORT_OUT (for eval/report_screenshot.sh).
#[test]
#[ignore]
fn fixture_report_for_screenshot() {
    let out = std::env::var("FIMDUP_REPORT_OUT").expect("set FIMDUP_REPORT_OUT");
    write_report(
        std::path::Path::new(&out),
        &Report {
            rows: &fixture_rows(),
            params: &params(),
            machine: &MachineInfo::detect(),
            errors: None,
            paired: None,
            cv: None,
            curves: None,
        },
    )
    .unwrap();
}

/// The committed Clough & Stevenson sweep (eval/clough/run.sh): most methods do best at the
/// grid's lowest threshold, 0.1, and are flagged; super-shingle's best, 0.2, is inside.
#[test]
fn grid_edge_on_the_committed_clough_sweep() {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("eval/results/clough/resemblance/results.csv");
    let rows = read_results_csv(&p).unwrap();
    let best = fimdup::report::best_per_method(&rows);
    let by: std::collections::BTreeMap<&str, &fimdup::report::MethodBest> =
        best.iter().map(|b| (b.method.as_str(), b)).collect();
    for m in ["concept", "union-find", "lsh", "exact"] {
        assert_eq!(by[m].threshold, 0.1, "{m}");
        assert!(by[m].best_at_grid_edge, "{m}");
        assert_eq!(by[m].suggest.as_deref(), Some("0.1:0.02:0.02"), "{m}");
    }
    assert_eq!(by["super-shingle"].threshold, 0.2);
    assert!(!by["super-shingle"].best_at_grid_edge);
    assert_eq!(by["super-shingle"].suggest, None);
}
