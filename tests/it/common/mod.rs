//! Helpers shared by integration tests (`mod common;`): running the built binary, paths as
//! arguments, generated corpora with prefixed ids.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The built binary with `args`.
pub fn fimdup(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_fimdup"));
    c.args(args);
    c
}

/// Runs the binary to the end.
pub fn run(args: &[&str]) -> Output {
    fimdup(args).output().unwrap()
}

/// Runs the binary, which must succeed.
pub fn ok(args: &[&str]) -> Output {
    let o = run(args);
    assert!(
        o.status.success(),
        "fimdup {args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// A path as a command-line argument.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `fimdup gen` of `n` documents with `seed` (and the further arguments `extra`) in
/// `dir/gen-NAME`; returns `dir/NAME.jsonl`, its documents with their ids prefixed by
/// `prefix`.
pub fn gen(dir: &Path, name: &str, n: usize, seed: u64, prefix: &str, extra: &[&str]) -> PathBuf {
    let g = dir.join(format!("gen-{name}"));
    let (n, seed) = (n.to_string(), seed.to_string());
    let mut args = vec!["gen", "--out", s(&g), "--docs", &n, "--seed", &seed];
    args.extend(extra);
    ok(&args);
    let text = std::fs::read_to_string(g.join("docs.jsonl")).unwrap();
    let out = dir.join(format!("{name}.jsonl"));
    std::fs::write(
        &out,
        text.replace("{\"id\":\"", &format!("{{\"id\":\"{prefix}")),
    )
    .unwrap();
    out
}

/// `datasets/<rel>` in the repository: the reference data the tests read ships with the
/// clone (see `datasets/README.md`); a missing file is a broken checkout and fails the test.
pub fn dataset(rel: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("datasets")
        .join(rel);
    assert!(
        p.exists(),
        "{} is missing: the reference data ships in the repository's datasets/",
        p.display()
    );
    p
}

/// The decompressed text of `datasets/<rel>`: gzip by the `flate2` crate when the name ends
/// in `.gz`, the file as it is otherwise (not through the library's readers).
pub fn dataset_text(rel: &str) -> String {
    use std::io::Read;
    let p = dataset(rel);
    let raw = std::fs::read(&p).unwrap();
    if rel.ends_with(".gz") {
        let mut s = String::new();
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_string(&mut s)
            .unwrap();
        s
    } else {
        String::from_utf8(raw).unwrap()
    }
}

/// Writes `line` to the process's standard error directly: the test harness captures
/// `eprintln!` of a passing test, and a skip must be seen.
fn note(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Says on standard error that a build without `feature` leaves out `what`, the part of a
/// test that needs it (a whole test that needs a feature is ignored instead).
pub fn left_out(what: &str, feature: &str) {
    note(&format!("left out: {what} (needs the `{feature}` feature)"));
}

/// Whether a required external tool is usable: `ok` says it is; otherwise the test fails
/// under CI (`CI` set) and is skipped with a note naming `what` elsewhere.
fn tool_or_skip(ok: bool, what: &str) -> bool {
    if ok {
        return true;
    }
    if std::env::var_os("CI").is_some() {
        panic!("{what} is required under CI");
    }
    note(&format!("skipped: {what} is not available"));
    false
}

/// Whether the `zstd` command-line tool is on `PATH` (see `tool_or_skip` for CI).
pub fn zstd_cli() -> bool {
    let ok = Command::new("zstd")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    tool_or_skip(ok, "the zstd command-line tool (apt-get install zstd)")
}

/// A Python interpreter with pyarrow: the one named by `FIMDUP_PYTHON`. `None` (after a skip
/// note; a failure under CI) when it is unset or cannot import pyarrow.
pub fn python_with_pyarrow() -> Option<PathBuf> {
    let py = std::env::var_os("FIMDUP_PYTHON").map(PathBuf::from);
    let ok = py.as_ref().is_some_and(|p| {
        Command::new(p)
            .args(["-c", "import pyarrow.parquet"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    tool_or_skip(ok, "a Python with pyarrow named by FIMDUP_PYTHON").then(|| py.unwrap())
}

/// A Python interpreter with moto's S3 server and boto3 (`pip install "moto[server]"`): the
/// one named by `FIMDUP_PYTHON`. `None` (after a skip note; a failure under CI) otherwise.
pub fn python_with_moto() -> Option<PathBuf> {
    let py = std::env::var_os("FIMDUP_PYTHON").map(PathBuf::from);
    let ok = py.as_ref().is_some_and(|p| {
        Command::new(p)
            .args(["-c", "import moto.server, boto3"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    tool_or_skip(
        ok,
        "a Python with moto's server named by FIMDUP_PYTHON (pip install \"moto[server]\")",
    )
    .then(|| py.unwrap())
}

/// A Python interpreter with the fimdup package (`pip install ./python`) and pytest: the one
/// named by `FIMDUP_PYTHON`. `None` (after a skip note; a failure under CI) otherwise.
pub fn python_with_fimdup() -> Option<PathBuf> {
    let py = std::env::var_os("FIMDUP_PYTHON").map(PathBuf::from);
    let ok = py.as_ref().is_some_and(|p| {
        Command::new(p)
            .args(["-c", "import fimdup, pytest"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    tool_or_skip(
        ok,
        "a Python with the fimdup package and pytest named by FIMDUP_PYTHON (pip install ./python pytest pandas)",
    )
    .then(|| py.unwrap())
}

/// Runs `script` with `python` and the arguments `args`; it must succeed. Returns its
/// standard output.
pub fn run_python(python: &Path, script: &str, args: &[&str]) -> String {
    let o = Command::new(python)
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "python failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// The external ids (field `id`) of the JSONL corpus at `path`, in input order.
pub fn corpus_ids(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["id"].as_str().unwrap().to_string()
        })
        .collect()
}

/// The ids of `queries` (JSONL) that the index at `idx` holds as an exact copy of
/// themselves (`index query --threshold 1`).
pub fn held_by_index(idx: &Path, queries: &Path) -> std::collections::BTreeSet<String> {
    let o = ok(&[
        "index",
        "query",
        s(idx),
        "--jsonl",
        s(queries),
        "--threshold",
        "1",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["queries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| {
            q["hits"]
                .as_array()
                .unwrap()
                .iter()
                .any(|h| h["ext_id"] == q["query"])
        })
        .map(|q| q["query"].as_str().unwrap().to_string())
        .collect()
}
