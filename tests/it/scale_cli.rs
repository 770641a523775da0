//! Larger than memory and stage files through the binary, on the committed default corpus:
//! with a tiny `--memory-budget` (many passes) `context` and `cluster` write exactly
//! what they write in memory; `sketch --shard i/N` files given together to `context` and
//! `cluster` give exactly what one file gives; the temporary directory is empty after
//! success, after an error and after Ctrl-C (exit 130).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/default/docs.jsonl")
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fimdup"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(args: &[&str]) {
    let o = run(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn empty(dir: &Path) -> bool {
    std::fs::read_dir(dir).unwrap().count() == 0
}

/// The cluster outputs that must match (the summary holds timings).
fn cluster_files(out: &Path) -> (Vec<u8>, Vec<u8>) {
    (
        read(&out.join("clusters.jsonl")),
        read(&out.join("pairs.csv")),
    )
}

/// A scratch directory holding an empty `tmp/` and `c.img`, the default corpus sketched.
fn dir_with_images() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let img = dir.path().join("c.img");
    ok(&["sketch", s(&corpus()), "--out", s(&img)]);
    (dir, tmp, img)
}

#[test]
fn spilled_context_and_clusters_equal_in_memory() {
    let (dir, tmp, img) = dir_with_images();
    let d = dir.path();
    // Far below the context (1500 documents x 128 keys x 20 bytes): many passes over the
    // images; just above the ids and per-document data, below which the run is refused.
    let spill = ["--memory-budget", "512KiB", "--tmp-dir", s(&tmp)];
    for o in ["shingle-rows", "doc-rows"] {
        let mem = d.join(format!("mem-{o}.dat"));
        let sp = d.join(format!("sp-{o}.dat"));
        ok(&["context", s(&img), "--orientation", o, "--out", s(&mem)]);
        let mut a = vec!["context", s(&img), "--orientation", o, "--out", s(&sp)];
        a.extend(spill);
        ok(&a);
        assert_eq!(read(&mem), read(&sp), "{o}");
        assert!(read(&mem).len() > 1000);
        assert!(empty(&tmp));
    }
    // FIMI output of the miner on the spilled context equals the in-memory one too.
    let m1 = d.join("m1.txt");
    let m2 = d.join("m2.txt");
    ok(&[
        "mine",
        s(&d.join("mem-shingle-rows.dat")),
        "--minsup",
        "20",
        "--out",
        s(&m1),
    ]);
    ok(&[
        "mine",
        s(&d.join("sp-shingle-rows.dat")),
        "--minsup",
        "20",
        "--out",
        s(&m2),
    ]);
    assert_eq!(read(&m1), read(&m2));
    for method in ["concept", "union-find"] {
        for input in [img.clone(), corpus()] {
            let mem = d.join(format!("mem-{method}"));
            let sp = d.join(format!("sp-{method}"));
            let base = [
                "cluster",
                s(&input),
                "--method",
                method,
                "--threshold",
                "0.8",
            ];
            let mut a = base.to_vec();
            a.extend(["--out", s(&mem)]);
            ok(&a);
            let mut a = base.to_vec();
            a.extend(["--out", s(&sp)]);
            a.extend(spill);
            ok(&a);
            let (c1, p1) = cluster_files(&mem);
            assert_eq!((c1.clone(), p1), cluster_files(&sp), "{method} {input:?}");
            assert!(c1.len() > 100, "{method}: no clusters");
            assert!(empty(&tmp));
        }
    }
}

#[test]
fn shards_give_the_clusters_of_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let one = d.join("one.img");
    ok(&["sketch", s(&corpus()), "--out", s(&one)]);
    let shards: Vec<PathBuf> = (0..3).map(|i| d.join(format!("s{i}.img"))).collect();
    for (i, p) in shards.iter().enumerate() {
        ok(&[
            "sketch",
            s(&corpus()),
            "--shard",
            &format!("{i}/3"),
            "--out",
            s(p),
        ]);
    }
    // Context: same FIMI and id table.
    let c1 = d.join("one.dat");
    let c3 = d.join("three.dat");
    ok(&["context", s(&one), "--out", s(&c1)]);
    ok(&[
        "context",
        s(&shards[2]),
        s(&shards[0]),
        s(&shards[1]),
        "--out",
        s(&c3),
    ]);
    assert_eq!(read(&c1), read(&c3));
    assert_eq!(
        read(&d.join("one.dat.ids.tsv")),
        read(&d.join("three.dat.ids.tsv"))
    );
    // Cluster: same clusters and pairs, in memory and spilled.
    let tmp = d.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let o1 = d.join("o1");
    let o3 = d.join("o3");
    let o3s = d.join("o3s");
    ok(&["cluster", s(&one), "--threshold", "0.8", "--out", s(&o1)]);
    let mut a = vec!["cluster"];
    a.extend(shards.iter().map(|p| s(p)));
    a.extend(["--threshold", "0.8", "--out", s(&o3)]);
    ok(&a);
    a.pop();
    a.extend([s(&o3s), "--memory-budget", "512KiB", "--tmp-dir", s(&tmp)]);
    ok(&a);
    assert_eq!(cluster_files(&o1), cluster_files(&o3));
    assert_eq!(cluster_files(&o1), cluster_files(&o3s));
    assert!(empty(&tmp));
    // Two of three shards, or a shard twice: exit 2 naming the problem.
    let o = run(&["context", s(&shards[0]), s(&shards[1]), "--out", s(&c3)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("shard 2/3 is missing"));
    let o = run(&[
        "cluster",
        s(&shards[0]),
        s(&shards[1]),
        s(&shards[1]),
        "--out",
        s(&o3),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("collide"));
}

#[test]
fn temp_dir_is_empty_after_an_error() {
    let (dir, tmp, img) = dir_with_images();
    let d = dir.path();
    // Damage the checksum: every record reads (and spills) before the error is found.
    let mut b = read(&img);
    let n = b.len();
    b[n - 1] ^= 0xff;
    let bad = d.join("bad.img");
    std::fs::write(&bad, &b).unwrap();
    let out = d.join("ctx.dat");
    for cmd in ["context", "cluster"] {
        let o = run(&[
            cmd,
            s(&bad),
            "--memory-budget",
            "1KiB",
            "--tmp-dir",
            s(&tmp),
            "--out",
            s(&out),
        ]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("bad.img") && err.contains("checksum"), "{err}");
        assert!(empty(&tmp), "{cmd}");
        assert!(!out.exists());
    }
    // A truncated streamed file names the file.
    std::fs::write(&bad, &read(&img)[..n / 2]).unwrap();
    let o = run(&["context", s(&bad), "--out", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("truncated"));
    // A bad budget is refused.
    let o = run(&[
        "context",
        s(&img),
        "--memory-budget",
        "lots",
        "--out",
        s(&out),
    ]);
    assert_eq!(o.status.code(), Some(2));
}

#[cfg(unix)]
#[test]
fn ctrl_c_removes_temporary_files_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let tmp = d.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    // A larger corpus (the default one four times, fresh ids) so the run lasts.
    let text = std::fs::read_to_string(corpus()).unwrap();
    let mut big = String::new();
    for r in 0..4 {
        for line in text.lines() {
            big.push_str(&line.replacen("{\"id\":\"", &format!("{{\"id\":\"r{r}-"), 1));
            big.push('\n');
        }
    }
    let input = d.join("big.jsonl");
    std::fs::write(&input, big).unwrap();
    let out = d.join("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fimdup"))
        .args([
            "cluster",
            s(&input),
            "--method",
            "union-find",
            "--threshold",
            "0.5",
            "--memory-budget",
            "1B",
            "--tmp-dir",
            s(&tmp),
            "--out",
            s(&out),
        ])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the run has spilled something, then interrupt it.
    let mut spilled = false;
    for _ in 0..3000 {
        if !empty(&tmp) {
            spilled = true;
            break;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(spilled, "the run never spilled");
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(empty(&tmp));
    assert!(!out.join("clusters.jsonl").exists());
}
