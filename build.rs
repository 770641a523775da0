//! Records the source's git commit for the reports' provenance: `FIMDUP_GIT_HASH` is the
//! 12-digit commit hash, with `-dirty` when tracked files differ from it, or `unknown` when
//! the source is not a git checkout (a packaged crate) or git is missing.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let hash = git(&["rev-parse", "--short=12", "HEAD"]).filter(|h| !h.is_empty());
    let value = match hash {
        Some(h) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{h}-dirty")
            } else {
                h
            }
        }
        None => "unknown".to_string(),
    };
    println!("cargo:rustc-env=FIMDUP_GIT_HASH={value}");
    // Run again when the commit or the sources change.
    let mut watched = vec!["HEAD".to_string(), "index".to_string()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for w in watched {
        if let Some(p) = git(&["rev-parse", "--git-path", &w]) {
            println!("cargo:rerun-if-changed={}", Path::new(&p).display());
        }
    }
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
}
