//! The `fimdup mine` command: output format, --count, --out, --json, and errors (exit 2,
//! file and line named).

use std::process::Command;

fn fimdup() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fimdup"))
}

#[test]
fn mines_counts_writes_and_reports_errors() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("t.dat");
    // Unsorted items, a repeat, a trailing space and an empty transaction.
    std::fs::write(&input, "3 2 1 \n1 2\n2 3 4 3\n3 2\n\n").unwrap();
    let run = |args: &[&str]| {
        fimdup()
            .arg("mine")
            .arg(&input)
            .args(args)
            .output()
            .unwrap()
    };

    let out = run(&["--minsup", "2"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "1 2 (2)\n2 3 (3)\n");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("5 transactions") && err.contains("2 maximal itemsets"),
        "{err}"
    );

    let out = run(&["--minsup", "40%", "--target", "closed", "--count"]);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "3\n");

    let dest = dir.path().join("sub/out.txt");
    let out = run(&[
        "--minsup",
        "2",
        "--target",
        "all",
        "--out",
        dest.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success());
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["itemsets"], 5);
    assert_eq!(j["minsup"], 2);
    let mut lines: Vec<String> = std::fs::read_to_string(&dest)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    lines.sort();
    assert_eq!(lines, ["1 (2)", "1 2 (2)", "2 (4)", "2 3 (3)", "3 (3)"]);

    // The guard stops with an error and leaves no output file.
    let dest2 = dir.path().join("guarded.txt");
    let out = run(&[
        "--minsup",
        "1",
        "--target",
        "all",
        "--max-itemsets",
        "3",
        "--out",
        dest2.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("the itemset limit"));
    assert!(!dest2.exists());

    // Bad input: exit 2, file and line named.
    let bad = dir.path().join("bad.dat");
    std::fs::write(&bad, "1 2\n3 x\n").unwrap();
    let out = fimdup()
        .args(["mine", bad.to_str().unwrap(), "--minsup", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("bad.dat:2:"), "{err}");

    let out = run(&["--minsup", "0"]);
    assert_eq!(out.status.code(), Some(2));
}
