//! `fimdup cluster` through the binary on a hand-made corpus whose clusters are known:
//! a family of light edits of one document (true resemblance ~0.9), an exact copy and a
//! case-only copy of another document, and unrelated documents.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use rand::{Rng, SeedableRng};

fn words(rng: &mut rand_chacha::ChaCha8Rng, n: usize) -> Vec<String> {
    (0..n)
        .map(|_| format!("w{}", rng.gen_range(0..5000u32)))
        .collect()
}

/// Writes the corpus; returns the expected groups of ids.
fn corpus(path: &Path) -> Vec<BTreeSet<String>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut lines = Vec::new();
    let mut push = |id: String, text: String| {
        lines.push(serde_json::json!({"id": id, "text": text}).to_string());
    };
    // Family: base + 4 variants with 3 substituted words each (of 300).
    let base = words(&mut rng, 300);
    let mut family = BTreeSet::new();
    for v in 0..5 {
        let mut d = base.clone();
        if v > 0 {
            for _ in 0..3 {
                let i = rng.gen_range(0..d.len());
                d[i] = format!("edit{}", rng.gen_range(0..1_000_000u32));
            }
        }
        family.insert(format!("fam{v}"));
        push(format!("fam{v}"), d.join(" "));
    }
    // Copies: original, exact copy, upper-cased copy.
    let orig = words(&mut rng, 200).join(" ");
    push("copy0".into(), orig.clone());
    push("copy1".into(), orig.clone());
    push("copy2".into(), orig.to_uppercase());
    // Unrelated documents.
    for u in 0..12 {
        push(format!("other{u:02}"), words(&mut rng, 250).join(" "));
    }
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
    let copies: BTreeSet<String> = ["copy0", "copy1", "copy2"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    vec![family, copies]
}

fn run(args: &[&str], threads: usize) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fimdup"))
        .args(args)
        .env("RAYON_NUM_THREADS", threads.to_string())
        .output()
        .unwrap()
}

fn clusters(dir: &Path) -> Vec<BTreeSet<String>> {
    let mut v: Vec<BTreeSet<String>> = std::fs::read_to_string(dir.join("clusters.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let j: serde_json::Value = serde_json::from_str(l).unwrap();
            j["docs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_str().unwrap().to_string())
                .collect()
        })
        .collect();
    v.sort();
    v
}

#[test]
fn every_method_finds_the_known_clusters_identically_for_1_and_2_threads() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("docs.jsonl");
    let mut want = corpus(&input);
    want.sort();
    for method in ["concept", "union-find", "lsh", "super-shingle", "exact"] {
        let mut outs = Vec::new();
        for t in [1, 2] {
            let out = dir.path().join(format!("{method}-{t}"));
            let mut args = vec![
                "cluster",
                input.to_str().unwrap(),
                "--method",
                method,
                "--out",
                out.to_str().unwrap(),
                "--json",
            ];
            if method != "super-shingle" {
                args.extend(["--threshold", "0.7"]);
            } else {
                // 16 super shingles of 8 positions of a 128-position k-mins image: a pair at
                // resemblance 0.9 shares one with probability 1 - (1 - 0.9^8)^16 > 0.9999.
                args.extend(["--super-per", "8"]);
            }
            let o = run(&args, t);
            assert!(
                o.status.success(),
                "{method}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            // Two documents collapse into copy0: the exact copy and the case-only copy.
            assert_eq!(summary["collapsed"]["removed"], 2, "{method}: {summary}");
            assert_eq!(summary["documents"], 20);
            outs.push((
                std::fs::read(out.join("clusters.jsonl")).unwrap(),
                std::fs::read(out.join("pairs.csv")).unwrap(),
            ));
            assert_eq!(clusters(&out), want, "{method} with {t} threads");
            // pairs.csv: every member pair once, a < b by external id.
            let pairs = std::fs::read_to_string(out.join("pairs.csv")).unwrap();
            let rows: Vec<&str> = pairs.lines().skip(1).collect();
            assert_eq!(rows.len(), 10 + 3, "{method}: {pairs}");
            for r in &rows {
                let mut f = r.split(',');
                let (a, b) = (f.next().unwrap(), f.next().unwrap());
                assert!(a < b, "{method}: {r}");
            }
        }
        assert_eq!(
            outs[0], outs[1],
            "{method}: output differs between 1 and 2 threads"
        );
    }
}

#[test]
fn images_input_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("docs.jsonl");
    corpus(&input);
    let img = dir.path().join("c.img");
    assert!(run(
        &[
            "sketch",
            input.to_str().unwrap(),
            "--out",
            img.to_str().unwrap()
        ],
        2
    )
    .status
    .success());
    // From the images file: same concept clusters as from the corpus, except that without
    // the text fingerprints only shingle-equivalent documents collapse (here: all three
    // copies have equal images, so the result is the same).
    let a = dir.path().join("from-img");
    let b = dir.path().join("from-corpus");
    assert!(run(
        &[
            "cluster",
            img.to_str().unwrap(),
            "--out",
            a.to_str().unwrap()
        ],
        2
    )
    .status
    .success());
    assert!(run(
        &[
            "cluster",
            input.to_str().unwrap(),
            "--out",
            b.to_str().unwrap()
        ],
        2
    )
    .status
    .success());
    assert_eq!(clusters(&a), clusters(&b));
    // The exact method and --verify need the documents.
    for extra in [vec!["--method", "exact"], vec!["--verify", "exact"]] {
        let mut args = vec![
            "cluster",
            img.to_str().unwrap(),
            "--out",
            a.to_str().unwrap(),
        ];
        args.extend(extra);
        let o = run(&args, 1);
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("needs the documents"));
    }
    // lsh on bottom-k images is refused with a hint.
    let o = run(
        &[
            "cluster",
            input.to_str().unwrap(),
            "--method",
            "lsh",
            "--scheme",
            "bottom-k",
            "--out",
            a.to_str().unwrap(),
        ],
        1,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("k-mins"));
}

/// The exact join on the committed default corpus (HTML stripped) finds exactly the pairs
/// that the generator's truth, computed independently from its own token sequences, lists
/// at resemblance >= t.
#[test]
fn exact_join_reproduces_the_generators_truth() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/default");
    let truth = std::fs::read_to_string(root.join("truth.csv")).unwrap();
    let mut lines = truth.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = head.iter().position(|&c| c == "resemblance").unwrap();
    let rows: Vec<(String, String, f64)> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].to_string(), f[1].to_string(), f[col].parse().unwrap())
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    for t in [0.5, 0.8, 0.95] {
        let out = dir.path().join(format!("exact-{t}"));
        let o = run(
            &[
                "cluster",
                root.join("docs.jsonl").to_str().unwrap(),
                "--method",
                "exact",
                "--html",
                "--threshold",
                &t.to_string(),
                "--out",
                out.to_str().unwrap(),
            ],
            2,
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let ours: BTreeSet<(String, String)> = std::fs::read_to_string(out.join("pairs.csv"))
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                (f[0].to_string(), f[1].to_string())
            })
            .collect();
        let want: BTreeSet<(String, String)> = rows
            .iter()
            .filter(|r| r.2 >= t - 1e-6)
            .map(|r| (r.0.clone(), r.1.clone()))
            .collect();
        assert!(want.len() > 100, "t={t}: {}", want.len());
        assert_eq!(ours, want, "t={t}");
    }
}
