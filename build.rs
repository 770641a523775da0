//! Records the source's git commit for the reports' provenance: `FIMDUP_GIT_HASH` is the
//! 12-digit hash of the commit checked out when the crate was built, or `unknown` when the
//! source is not a git checkout (a packaged crate) or git is missing. Local edits on top of
//! the commit are not marked (watching them would rebuild the crate at every `git add`).

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
    let value = hash.unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=FIMDUP_GIT_HASH={value}");
    // Run again when the commit changes.
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for w in watched {
        // A file that does not exist would make cargo run this script at every build.
        if let Some(p) = git(&["rev-parse", "--git-path", &w]).filter(|p| Path::new(p).exists()) {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
