//! End-to-end checks of the foundation commands through the binary: the seed example of the
//! seminar report, thread-count independence, and clean failures on bad input.

use crate::common;

use std::process::{Command, Output};

fn fimdup(args: &[&str], threads: Option<usize>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_fimdup"));
    c.args(args);
    if let Some(t) = threads {
        c.env("RAYON_NUM_THREADS", t.to_string());
    }
    c.output().expect("run fimdup")
}

#[test]
fn rose_example_exact_values() {
    // S (001_...): A = "a rose is a rose is a rose", B = "a rose is a flower which is a rose":
    // resemblance 3/5, 3/6, 3/7 for w = 1, 2, 3.
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.txt");
    let b = dir.path().join("b.txt");
    std::fs::write(&a, "a rose is a rose is a rose").unwrap();
    std::fs::write(&b, "a rose is a flower which is a rose").unwrap();
    for (w, want) in [(1, 0.6), (2, 0.5), (3, 3.0 / 7.0)] {
        let out = fimdup(
            &[
                "compare",
                a.to_str().unwrap(),
                b.to_str().unwrap(),
                "--exact",
                "--json",
                "--shingle-len",
                &w.to_string(),
            ],
            None,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let r = v["resemblance"].as_f64().unwrap();
        assert!((r - want).abs() < 1e-12, "w={w}: {r} != {want}");
        // Every shingle of A is in B.
        assert_eq!(v["containment"].as_f64().unwrap(), 1.0);
    }
    // The text output prints six decimals: 0.428571 for w = 3.
    let out = fimdup(
        &[
            "compare",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--exact",
            "--shingle-len",
            "3",
        ],
        None,
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("resemblance     0.428571"));
}

#[test]
fn sketch_and_context_are_identical_for_one_and_two_threads() {
    let docs = common::dataset("clough_stevenson_2011/docs.jsonl");
    let dir = tempfile::tempdir().unwrap();
    for scheme in ["bottom-k", "k-mins", "one-permutation", "mod-m"] {
        let mut files = Vec::new();
        for t in [1, 2] {
            let img = dir.path().join(format!("{scheme}-{t}.img"));
            let dat = dir.path().join(format!("{scheme}-{t}.dat"));
            let out = fimdup(
                &[
                    "sketch",
                    docs.to_str().unwrap(),
                    "--scheme",
                    scheme,
                    "--size",
                    "64",
                    "--modulus",
                    "8",
                    "--out",
                    img.to_str().unwrap(),
                ],
                Some(t),
            );
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let out = fimdup(
                &[
                    "context",
                    img.to_str().unwrap(),
                    "--out",
                    dat.to_str().unwrap(),
                ],
                Some(t),
            );
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            files.push((std::fs::read(&img).unwrap(), std::fs::read(&dat).unwrap()));
        }
        assert_eq!(
            files[0], files[1],
            "{scheme}: output differs between 1 and 2 threads"
        );
        // The context is not trivial: the cut/light answers share elements with their source.
        assert!(
            files[0].1.iter().filter(|&&c| c == b'\n').count() > 10,
            "{scheme}"
        );
    }
}

#[test]
fn context_rows_match_shared_elements_of_images() {
    // A pair of documents appears together on exactly as many shingle-rows lines as their
    // images share elements (bottom-k: the intersection of the two sorted images).
    let docs = common::dataset("clough_stevenson_2011/docs.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("c.img");
    let dat = dir.path().join("c.dat");
    assert!(fimdup(
        &[
            "sketch",
            docs.to_str().unwrap(),
            "--out",
            img.to_str().unwrap()
        ],
        None
    )
    .status
    .success());
    assert!(fimdup(
        &[
            "context",
            img.to_str().unwrap(),
            "--out",
            dat.to_str().unwrap()
        ],
        None
    )
    .status
    .success());
    let set = fimdup::sketch::ImageSet::read(&img).unwrap();
    let rows = fimdup::fimi::read_transactions(
        &dat,
        fimdup::fimi::FimiOptions {
            strictly_ascending: true,
        },
    )
    .unwrap();
    let n = set.images.len();
    let mut together = vec![vec![0usize; n]; n];
    for r in rows.iter() {
        for (i, &a) in r.iter().enumerate() {
            for &b in &r[i + 1..] {
                together[a as usize][b as usize] += 1;
            }
        }
    }
    let mut nonzero = 0;
    for (a, row) in together.iter().enumerate() {
        for (b, &seen) in row.iter().enumerate().skip(a + 1) {
            let shared = fimdup::sketch::shared_elements(
                &set.images[a],
                &set.images[b],
                fimdup::sketch::Scheme::BottomK,
            );
            assert_eq!(seen, shared, "docs {a},{b}");
            nonzero += usize::from(shared > 0);
        }
    }
    assert!(nonzero > 20, "only {nonzero} pairs share elements");
}

#[test]
fn bad_inputs_exit_2_name_the_place_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let w = |name: &str, body: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, body).unwrap();
        p.to_str().unwrap().to_string()
    };
    let bad_json = w(
        "bad.jsonl",
        b"{\"id\":\"a\",\"text\":\"x y z\"}\n{\"id\":\"b\",\"text\":\n",
    );
    let bad_csv = w("bad.csv", b"id,text\n1,hello\n2\n");
    let bad_img = w("bad.img", b"FIMDUPIM\x01\x00");
    let bad_fimi = w("bad.dat", b"1 2\n3 x\n");
    let out_path = dir.path().join("out.img");
    let out = out_path.to_str().unwrap();
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["sketch", &bad_json, "--out", out],
            format!("{bad_json}:2:"),
        ),
        (
            vec!["sketch", &bad_csv, "--out", out],
            format!("{bad_csv}:3:"),
        ),
        (vec!["context", &bad_img, "--out", out], bad_img.to_string()),
        (
            vec!["sketch", "/nonexistent/x.jsonl", "--out", out],
            "/nonexistent/x.jsonl".into(),
        ),
        (
            vec!["sketch", &bad_json, "--size", "0", "--out", out],
            "image size".into(),
        ),
        (
            vec![
                "sketch", &bad_json, "--unit", "char", "--stem", "--out", out,
            ],
            "stemming".into(),
        ),
        (
            vec!["compare", &bad_fimi, "/nonexistent/b", "--exact"],
            "/nonexistent/b".into(),
        ),
    ];
    for (args, needle) in cases {
        let o = fimdup(&args, None);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!out_path.exists(), "{args:?} left a partial output");
    }
    // Nothing half-written was left behind either.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// A reader that closes the pipe early (`fimdup mine ... | head -1`) ends the process by
/// SIGPIPE, quietly: no error, no panic.
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_the_process_quietly() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let data = common::dataset("fimi/mushroom.dat.gz");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fimdup"))
        .args(["mine", data.to_str().unwrap(), "--minsup", "200"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.ends_with(")\n"), "{first:?}");
    // The reader is dropped here: the pipe is closed with most itemsets unwritten.
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.signal(), Some(13), "{:?}", out.status);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn version_names_the_build_commit() {
    let o = fimdup(&["--version"], None);
    assert!(o.status.success());
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output();
    let hash = match head {
        Ok(h) if h.status.success() => String::from_utf8(h.stdout).unwrap().trim().to_string(),
        _ => "unknown".to_string(),
    };
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        format!("fimdup {} (git {hash})\n", env!("CARGO_PKG_VERSION"))
    );
}
