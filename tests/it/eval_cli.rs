//! `fimdup eval` and `fimdup gen` end to end: output values, exit codes, error messages.

use std::process::Command;

fn fimdup(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_fimdup"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn gen_then_eval_clusters() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c");
    let (code, _, err) = fimdup(&[
        "gen",
        "--out",
        out.to_str().unwrap(),
        "--docs",
        "120",
        "--seed",
        "5",
    ]);
    assert_eq!(code, 0, "{err}");
    let truth = out.join("truth.csv");
    // predict every truth row at resemblance >= 0.5 as a two-document cluster, evaluate with
    // the same rule: P = R = F1 = 1, and no cluster is false (floor 0.5).
    let t = fimdup::eval::TruthTable::read(&truth).unwrap();
    let rule = fimdup::eval::TruthRule::parse("resemblance>=0.5").unwrap();
    let pos = t.labels(Some(&rule)).unwrap().sorted_pairs();
    assert!(!pos.is_empty());
    let clusters: String = pos
        .iter()
        .enumerate()
        .map(|(i, (a, b))| format!("{{\"id\":{i},\"docs\":[\"{a}\",\"{b}\"]}}\n"))
        .collect();
    let cpath = dir.path().join("clusters.jsonl");
    std::fs::write(&cpath, clusters).unwrap();
    let docs = out.join("docs.jsonl");
    let (code, json, err) = fimdup(&[
        "eval",
        "--truth",
        truth.to_str().unwrap(),
        "--truth-rule",
        "resemblance>=0.5",
        "--clusters",
        cpath.to_str().unwrap(),
        "--corpus",
        docs.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["truth_pairs"].as_u64().unwrap(), pos.len() as u64);
    assert_eq!(v["common"].as_u64().unwrap(), pos.len() as u64);
    assert_eq!(v["f1"].as_f64().unwrap(), 1.0);
    assert_eq!(v["false_clusters"]["false_clusters"].as_u64().unwrap(), 0);
    assert_eq!(
        v["false_clusters"]["clusters"].as_u64().unwrap(),
        pos.len() as u64
    );
}

#[test]
fn bad_input_exits_2_naming_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let truth = dir.path().join("t.csv");
    std::fs::write(
        &truth,
        "a,b,resemblance,edit_similarity,kind\nx,y,0.9,0.9,edit\n",
    )
    .unwrap();
    let pairs = dir.path().join("p.csv");
    std::fs::write(&pairs, "a,b\nx,y\nz\n").unwrap();
    let (code, _, err) = fimdup(&[
        "eval",
        "--truth",
        truth.to_str().unwrap(),
        "--pairs",
        pairs.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("p.csv:3"), "{err}");
    let (code, _, err) = fimdup(&[
        "eval",
        "--truth",
        truth.to_str().unwrap(),
        "--truth-rule",
        "edit_similarity>>1",
        "--pairs",
        pairs.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("edit_similarity>>1"), "{err}");
    // a JSONL file is not a pair list
    let j = dir.path().join("docs.jsonl");
    std::fs::write(&j, "{\"id\":\"x\",\"text\":\"a, b, c\"}\n").unwrap();
    let (code, _, err) = fimdup(&[
        "eval",
        "--truth",
        j.to_str().unwrap(),
        "--pairs",
        pairs.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("docs.jsonl:1"), "{err}");
    let (code, _, err) = fimdup(&[
        "gen",
        "--out",
        dir.path().join("g").to_str().unwrap(),
        "--docs",
        "0",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("docs"), "{err}");
}
