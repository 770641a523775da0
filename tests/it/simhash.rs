//! The simhash method against a brute-force Hamming scan: on 20,000 generated documents the
//! clusters are exactly the connected components of the pairs within h that a scan of every
//! pair of fingerprints finds (none missed, none extra), through permuted tables and through the all-pairs
//! comparison, for 1 and 2 threads, and the same
//! bytes either way; options it cannot take are refused before any input is read.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use fimdup::sketch::ImageSet;

fn fimdup(args: &[&str], threads: usize) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fimdup"))
        .args(args)
        .env("RAYON_NUM_THREADS", threads.to_string())
        .output()
        .unwrap()
}

fn ok(o: &std::process::Output) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The clusters of `clusters.jsonl` as sorted sets of external ids.
fn clusters(dir: &Path) -> BTreeSet<Vec<String>> {
    std::fs::read_to_string(dir.join("clusters.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let mut ids: Vec<String> = v["docs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap().to_string())
                .collect();
            ids.sort();
            ids
        })
        .collect()
}

/// Connected components (two or more members) of `pairs` over `n` documents, by the ids.
fn components(n: usize, pairs: &[(usize, usize)], ids: &[String]) -> BTreeSet<Vec<String>> {
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while p[r] != r {
            r = p[r];
        }
        p[x] = r;
        r
    }
    for &(a, b) in pairs {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        parent[ra.max(rb)] = ra.min(rb);
    }
    let mut by: std::collections::BTreeMap<usize, Vec<String>> = Default::default();
    for (d, id) in ids.iter().enumerate().take(n) {
        let r = find(&mut parent, d);
        by.entry(r).or_default().push(id.clone());
    }
    by.into_values()
        .filter(|c| c.len() > 1)
        .map(|mut c| {
            c.sort();
            c
        })
        .collect()
}

#[test]
fn simhash_misses_no_pair_within_h_on_20k_documents() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let conf = Path::new(env!("CARGO_MANIFEST_DIR")).join("eval/peers/corpus.json");
    let corpus = d.join("gen");
    ok(&fimdup(
        &[
            "gen",
            "--config",
            conf.to_str().unwrap(),
            "--docs",
            "20000",
            "--out",
            corpus.to_str().unwrap(),
        ],
        2,
    ));
    let docs = corpus.join("docs.jsonl");
    let img = d.join("f.img");
    ok(&fimdup(
        &[
            "sketch",
            docs.to_str().unwrap(),
            "--scheme",
            "simhash",
            "--size",
            "64",
            "--out",
            img.to_str().unwrap(),
        ],
        2,
    ));
    let set = ImageSet::read(&img).unwrap();
    let fps: Vec<u64> = set
        .images
        .iter()
        .map(|i| i.values().first().copied().unwrap_or(0))
        .collect();
    let live: Vec<bool> = set.images.iter().map(|i| !i.is_empty()).collect();
    // h = 5: permuted tables (56 of 8 blocks); h = 10: every pair compared.
    for h in [5u32, 10] {
        // The scan: every pair of non-empty fingerprints.
        let n = fps.len();
        let mut within = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                if live[a] && live[b] && (fps[a] ^ fps[b]).count_ones() <= h {
                    within.push((a, b));
                }
            }
        }
        assert!(within.len() > 200, "h = {h}: only {} pairs", within.len());
        let want = components(n, &within, &set.ext_ids);
        let mut bytes = Vec::new();
        for t in [1, 2] {
            let out = d.join(format!("h{h}-t{t}"));
            let hs = h.to_string();
            ok(&fimdup(
                &[
                    "cluster",
                    docs.to_str().unwrap(),
                    "--method",
                    "simhash",
                    "--hamming",
                    &hs,
                    "--out",
                    out.to_str().unwrap(),
                ],
                t,
            ));
            assert_eq!(clusters(&out), want, "h = {h}, {t} threads");
            bytes.push((
                std::fs::read(out.join("clusters.jsonl")).unwrap(),
                std::fs::read(out.join("pairs.csv")).unwrap(),
            ));
            let s: serde_json::Value =
                serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
            assert_eq!(s["k"], h);
            assert_eq!(s["options"]["hamming"], h);
        }
        assert_eq!(bytes[0], bytes[1], "h = {h}: 1 and 2 threads differ");
    }
}

#[test]
fn options_simhash_cannot_take_are_refused_before_reading() {
    let missing = "/nonexistent/docs.jsonl";
    for (args, says) in [
        (vec!["--bits", "96"], "option bits takes a multiple of 64"),
        (
            vec!["--blocks", "3"],
            "option blocks takes a divisor of the width 64",
        ),
        (
            vec!["--hamming", "64"],
            "option hamming takes a distance below",
        ),
        (
            vec!["--hamming", "3", "--blocks", "2"],
            "more blocks than the Hamming threshold",
        ),
        (
            vec!["--scheme", "k-mins"],
            "simhash reads simhash fingerprints, not k-mins",
        ),
        (
            vec!["--bands", "4"],
            "option bands belongs to lsh, not to simhash",
        ),
    ] {
        let mut a = vec![
            "cluster",
            missing,
            "--method",
            "simhash",
            "--out",
            "/tmp/never",
        ];
        a.extend(args.iter().copied());
        let o = fimdup(&a, 1);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(
            !err.contains("nonexistent"),
            "{args:?} read the input: {err}"
        );
    }
    let o = fimdup(
        &[
            "cluster",
            missing,
            "--method",
            "concept",
            "--scheme",
            "simhash",
            "--out",
            "/tmp/never",
        ],
        1,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not simhash fingerprints"));
}
