//! A memory budget bounds the process, phase by phase: on 200k generated documents (about
//! 330 MB of text, so that every image cannot be held under the budget and the keys go to
//! disk) `cluster --method concept --verify exact --memory-budget 256MiB` ends every phase
//! (sketch, context, mine, pairs, verify: `summary.json`'s `peak_rss_bytes`, the process's
//! VmHWM at the phase's end) at most 64 MiB above the budget, and gives the pairs and
//! clusters of the run without a budget. Before the stages sized their work from the
//! memory resident at their start (`SpillConfig::room`), the context build counted only
//! what it knew it held and this run peaked at about 400 MiB.

use crate::common::{ok, s};

const BUDGET_MIB: u64 = 256;
const SLACK_MIB: u64 = 64;

#[cfg(target_os = "linux")]
#[test]
fn every_phase_stays_within_the_budget_and_the_output_is_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let g = tmp.path().join("g");
    ok(&[
        "gen",
        "--out",
        s(&g),
        "--docs",
        "200000",
        "--stream",
        "--seed",
        "7",
    ]);
    let docs = g.join("docs.jsonl");
    let (free, budgeted) = (tmp.path().join("free"), tmp.path().join("budgeted"));
    let budget = format!("{BUDGET_MIB}MiB");
    for (out, extra) in [
        (&free, vec![]),
        (&budgeted, vec!["--memory-budget", &budget]),
    ] {
        let mut args = vec![
            "cluster",
            s(&docs),
            "--method",
            "concept",
            "--threshold",
            "0.8",
            "--verify",
            "exact",
            "--out",
            s(out),
            "--tmp-dir",
            s(tmp.path()),
        ];
        args.extend(extra);
        ok(&args);
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(budgeted.join("summary.json")).unwrap())
            .unwrap();
    let phases = summary["phases"].as_array().unwrap();
    let names: Vec<&str> = phases.iter().map(|p| p["name"].as_str().unwrap()).collect();
    // The keys went to disk and the context was built in passes: the case the budget is for.
    assert!(names.contains(&"context"), "phases {names:?}");
    let limit = (BUDGET_MIB + SLACK_MIB) << 20;
    for p in phases {
        let peak = p["peak_rss_bytes"].as_u64().unwrap();
        assert!(
            peak <= limit,
            "phase {} peaked at {} MiB, more than the budget + {SLACK_MIB} MiB ({} MiB)",
            p["name"],
            peak >> 20,
            limit >> 20
        );
    }
    assert!(summary["peak_rss_bytes"].as_u64().unwrap() <= limit);
    for f in ["pairs.csv", "clusters.jsonl"] {
        assert_eq!(
            std::fs::read(free.join(f)).unwrap(),
            std::fs::read(budgeted.join(f)).unwrap(),
            "{f} differs under the budget"
        );
    }
}
