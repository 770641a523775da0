//! The Python package's own suite (`python/tests`, pytest) as part of `cargo test`: it runs
//! with the Python named by `FIMDUP_PYTHON`, where the package is installed (`.ci/python.sh`
//! builds its wheel and installs it in a fresh virtual environment with no Rust on PATH;
//! `pip install ./python pytest pandas` also does); without it the test is skipped with a
//! note, or fails under CI. The suite compares the package with this build's
//! `fimdup` binary (`FIMDUP_BIN`) and the reference data in `datasets/`.

use crate::common;

use std::process::Command;

#[test]
fn the_python_package_suite_passes() {
    let Some(py) = common::python_with_fimdup() else {
        return;
    };
    let root = env!("CARGO_MANIFEST_DIR");
    let o = Command::new(&py)
        .args([
            "-m",
            "pytest",
            "python/tests",
            "-q",
            "-p",
            "no:cacheprovider",
        ])
        .current_dir(root)
        .env("FIMDUP_BIN", env!("CARGO_BIN_EXE_fimdup"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "pytest failed:\n{out}\n{err}");
    // A suite that collected nothing would pass too: it must have run its tests.
    assert!(out.contains(" passed"), "pytest ran no test:\n{out}\n{err}");
    eprintln!("{}", out.lines().last().unwrap_or_default());
}
