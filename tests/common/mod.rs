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
