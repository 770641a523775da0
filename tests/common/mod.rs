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

/// The environment variable that lets the tests run without `../shared/datasets`: set to
/// `1`, a test whose reference data is missing prints what it skipped and passes. Unset (and
/// `.ci/run` never sets it), missing reference data is a failure naming the path.
pub const SKIP_SHARED: &str = "FIMDUP_SKIP_SHARED_DATA";

/// `../shared/datasets/<rel>` when it exists. When it is missing the calling test fails with a
/// message naming the path, unless `FIMDUP_SKIP_SHARED_DATA=1`: then `None`, after a note on
/// standard error naming `what` was skipped and the path.
pub fn shared_data(rel: &str, what: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/datasets")
        .join(rel);
    if p.exists() {
        return Some(p);
    }
    if skip_shared() {
        note(&format!(
            "skipped: {what}: {} is missing ({SKIP_SHARED}=1)",
            p.display()
        ));
        return None;
    }
    panic!(
        "{} is missing ({what}): the tests read the reference data in ../shared/datasets \
         (set {SKIP_SHARED}=1 to skip the tests that need it)",
        p.display()
    );
}

/// Writes `line` to the process's standard error directly: the test harness captures
/// `eprintln!` of a passing test, and a skip must be seen.
fn note(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Whether `FIMDUP_SKIP_SHARED_DATA=1` is set.
pub fn skip_shared() -> bool {
    std::env::var_os(SKIP_SHARED).is_some_and(|v| v == "1")
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
