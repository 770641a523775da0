//! `--measure containment` and `--labeled-only` end to end: values, exit codes, messages.

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
fn eval_labeled_only_ignores_unlisted_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let truth = dir.path().join("truth.csv");
    let pairs = dir.path().join("pairs.csv");
    // Listed: (a1,s) positive, (a2,s) positive, (a3,s) negative. Predicted: (a1,s) TP,
    // (a3,s) FP, (a1,a2) and (a2,a3) unlisted.
    std::fs::write(&truth, "a,b,plagiarised\na1,s,1\na2,s,1\na3,s,0\n").unwrap();
    std::fs::write(&pairs, "a,b\na1,s\na3,s\na1,a2\na2,a3\n").unwrap();
    let base = [
        "eval",
        "--truth",
        truth.to_str().unwrap(),
        "--truth-rule",
        "plagiarised=1",
        "--pairs",
        pairs.to_str().unwrap(),
        "--json",
    ];
    let get = |out: &str| -> (u64, u64, u64) {
        let v: serde_json::Value = serde_json::from_str(out).unwrap();
        (
            v["found"].as_u64().unwrap(),
            v["unique_ours"].as_u64().unwrap(),
            v["common"].as_u64().unwrap(),
        )
    };
    let (code, out, err) = fimdup(&base);
    assert_eq!(code, 0, "{err}");
    assert_eq!(get(&out), (4, 3, 1));
    let mut args = base.to_vec();
    args.push("--labeled-only");
    let (code, out, err) = fimdup(&args);
    assert_eq!(code, 0, "{err}");
    assert_eq!(get(&out), (2, 1, 1));
}

#[test]
fn containment_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs.jsonl");
    // "short" is the first half of "long" (word 2-shingles: 4 of short's 4 are in long's 9,
    // resemblance 4/9), "other" shares nothing.
    std::fs::write(
        &docs,
        "{\"id\":\"long\",\"text\":\"one two three four five six seven eight nine ten\"}\n\
         {\"id\":\"short\",\"text\":\"one two three four five\"}\n\
         {\"id\":\"other\",\"text\":\"alpha beta gamma delta epsilon\"}\n",
    )
    .unwrap();
    let out = dir.path().join("c");
    let d = docs.to_str().unwrap();
    let o = out.to_str().unwrap();
    let common = ["--shingle-len", "2", "--threshold", "0.9", "--out", o];
    let run = |extra: &[&str]| {
        let mut a = vec!["cluster", d];
        a.extend_from_slice(extra);
        a.extend_from_slice(&common);
        fimdup(&a)
    };
    let (code, _, err) = run(&["--method", "exact", "--measure", "containment"]);
    assert_eq!(code, 0, "{err}");
    let pairs = std::fs::read_to_string(out.join("pairs.csv")).unwrap();
    assert_eq!(pairs, "a,b,shared,estimate,exact\nlong,short,4,,1\n");
    // Resemblance 4/9 < 0.9: nothing.
    let (code, _, err) = run(&["--method", "exact"]);
    assert_eq!(code, 0, "{err}");
    let pairs = std::fs::read_to_string(out.join("pairs.csv")).unwrap();
    assert_eq!(pairs, "a,b,shared,estimate,exact\n");
    // Methods without containment, and union-find without mod-m images: exit 2, clear text.
    let (code, _, err) = run(&["--method", "concept", "--measure", "containment"]);
    assert_eq!(code, 2);
    assert!(err.contains("union-find and exact"), "{err}");
    let (code, _, err) = run(&["--method", "union-find", "--measure", "containment"]);
    assert_eq!(code, 2);
    assert!(err.contains("mod-m"), "{err}");
    // union-find on mod-m images (m = 1 keeps every shingle): the estimate is exact here.
    let (code, _, err) = run(&[
        "--method",
        "union-find",
        "--measure",
        "containment",
        "--scheme",
        "mod-m",
        "--modulus",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    let pairs = std::fs::read_to_string(out.join("pairs.csv")).unwrap();
    assert_eq!(pairs, "a,b,shared,estimate,exact\nlong,short,4,1,\n");
}
