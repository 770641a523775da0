//! The multi-process mode through the binary (`--processes N --process P --hosts FILE
//! [--workers W]`): N processes on 127.0.0.1, on ports found free at run time, each started
//! in its own working directory with the same command line (a relative `--out`) but
//! `--process`, each bounded by a time limit.
//!
//! - `cluster` (every method, with and without `--verify exact`), `dedup` and `sketch` write
//!   exactly the bytes the single-process run writes, for 1 process x 2 workers, 2 x 1 and
//!   3 x 1; also from a CSV file and a directory of files (the fallback reader) and under a
//!   `--memory-budget`.
//! - Process 0's summary.json holds `distributed` (one entry per process, the documents
//!   adding up to the corpus); the other processes exit 0 and write nothing.
//! - Fail-stop: SIGKILL of process 1 mid-run makes the others exit 2 within 30 s, process 0
//!   naming the lost peer, and no output appears.
//! - Bad hosts files: exit 2 naming the file and the line.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::{ok, s};
use serde_json::Value;

/// Every spawned process must end within this; it is killed and the test fails otherwise.
const LIMIT: Duration = Duration::from_secs(120);
/// (processes, workers per process).
const LAYOUTS: [(usize, usize); 3] = [(1, 2), (2, 1), (3, 1)];
/// Documents of the generated corpus of the equality tests.
const DOCS: usize = 1500;
/// Documents of the fail-stop corpus: with `--stem`, each process of a 3-process run
/// sketches its share for about 3 s on 2 cores (process 0 then clusters for about 1 s more).
const FAIL_STOP_DOCS: usize = 100_000;

// ---------------------------------------------------------------------------------------
// Harness: ports, hosts files, processes with a time limit.

/// `n` distinct TCP ports that were free on 127.0.0.1 a moment ago (all listeners are held
/// together, so the ports differ, then dropped for the processes to bind).
fn free_ports(n: usize) -> Vec<u16> {
    let listeners: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    listeners
        .iter()
        .map(|l| l.local_addr().unwrap().port())
        .collect()
}

/// A hosts file for `ports` on 127.0.0.1, process 0 first, with a comment and blank lines
/// (which the parser must skip).
fn write_hosts(path: &Path, ports: &[u16]) {
    let mut text = String::from("# fimdup test cluster, process 0 first\n\n");
    for (p, port) in ports.iter().enumerate() {
        text += &format!("127.0.0.1:{port}\n");
        if p == 0 {
            text += "\n# the other processes\n";
        }
    }
    fs::write(path, text).unwrap();
}

/// A process started by [`spawn`]: its working directory and log files.
struct Proc {
    child: Child,
    cwd: PathBuf,
    stderr: PathBuf,
}

/// A process that ended.
struct Done {
    status: ExitStatus,
    cwd: PathBuf,
    stderr: String,
}

/// Starts the binary with `args` in `cwd`; standard output and error go to `log.stdout` and
/// `log.stderr` (files, so that no pipe fills up while other processes are waited for).
fn spawn(args: &[String], cwd: &Path, log: &Path) -> Proc {
    let stdout = log.with_extension("stdout");
    let stderr = log.with_extension("stderr");
    let child = Command::new(env!("CARGO_BIN_EXE_fimdup"))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(fs::File::create(&stdout).unwrap())
        .stderr(fs::File::create(&stderr).unwrap())
        .spawn()
        .unwrap();
    Proc {
        child,
        cwd: cwd.to_path_buf(),
        stderr,
    }
}

/// A process still running when its handle goes (a failed assertion) is killed.
impl Drop for Proc {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn finish(p: &Proc, status: ExitStatus) -> Done {
    Done {
        status,
        cwd: p.cwd.clone(),
        stderr: fs::read_to_string(&p.stderr).unwrap_or_default(),
    }
}

/// Waits for every process until `deadline`; past it, kills the ones still running and
/// fails, showing what each wrote on standard error.
fn wait_all(mut procs: Vec<Proc>, deadline: Instant, what: &str) -> Vec<Done> {
    let mut status: Vec<Option<ExitStatus>> = vec![None; procs.len()];
    loop {
        for (p, st) in procs.iter_mut().zip(status.iter_mut()) {
            if st.is_none() {
                *st = p.child.try_wait().unwrap();
            }
        }
        if status.iter().all(Option::is_some) {
            break;
        }
        if Instant::now() >= deadline {
            let mut report = String::new();
            for (i, (p, st)) in procs.iter_mut().zip(&status).enumerate() {
                if st.is_none() {
                    let _ = p.child.kill();
                    let _ = p.child.wait();
                }
                let err = fs::read_to_string(&p.stderr).unwrap_or_default();
                report += &format!("\n--- process {i} ({st:?}) stderr:\n{err}");
            }
            panic!("{what}: not finished within the time limit; killed{report}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    procs
        .into_iter()
        .zip(status)
        .map(|(p, st)| finish(&p, st.unwrap()))
        .collect()
}

/// A distributed run: process `p` ran in `root/p{p}` (which held only an empty `tmp/`).
struct Run {
    name: String,
    procs: Vec<Done>,
}

impl Run {
    /// Process 0's `--out`.
    fn out(&self) -> PathBuf {
        self.procs[0].cwd.join("out")
    }

    fn stderr(&self) -> String {
        self.procs
            .iter()
            .enumerate()
            .map(|(p, d)| format!("\n--- process {p} ({}):\n{}", d.status, d.stderr))
            .collect()
    }

    /// Every process exited 0, and the ones but process 0 left their working directories
    /// as they found them: no `--out` (nor its ids table, nor a temporary file), `tmp/`
    /// empty.
    fn assert_ok(&self) {
        for (p, d) in self.procs.iter().enumerate() {
            assert!(
                d.status.success(),
                "{}: process {p} failed{}",
                self.name,
                self.stderr()
            );
            let left = entries(&d.cwd);
            if p == 0 {
                assert!(
                    d.cwd.join("out").exists(),
                    "{}: no --out on process 0",
                    self.name
                );
            } else {
                assert_eq!(
                    left,
                    vec!["tmp".to_string()],
                    "{}: process {p} wrote into its directory",
                    self.name
                );
            }
            assert!(
                entries(&d.cwd.join("tmp")).is_empty(),
                "{}: process {p} left spilled files",
                self.name
            );
        }
    }

    /// Process 0's summary.json.
    fn summary(&self) -> Value {
        read_json(&self.out().join("summary.json"))
    }
}

/// The names in a directory, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn read_json(path: &Path) -> Value {
    let bytes = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The flags that make process `p` of an `n` x `w` layout: `--processes 1 --workers W`
/// needs no hosts file.
fn layout_flags(n: usize, w: usize, p: usize, hosts: &Path) -> Vec<String> {
    let mut f = vec![
        "--processes".to_string(),
        n.to_string(),
        "--workers".to_string(),
        w.to_string(),
    ];
    if n > 1 {
        f.extend([
            "--process".to_string(),
            p.to_string(),
            "--hosts".to_string(),
            s(hosts).to_string(),
            "--connect-timeout".to_string(),
            "30".to_string(),
        ]);
    }
    f
}

/// Starts the `n` processes of `args` (plus `--out out` and the layout flags) in
/// `root/p{p}`, on fresh ports; returns them with the ports.
fn start(root: &Path, args: &[&str], n: usize, w: usize) -> (Vec<Proc>, Vec<u16>) {
    fs::create_dir_all(root).unwrap();
    let ports = free_ports(n);
    let hosts = root.join("hosts.txt");
    write_hosts(&hosts, &ports);
    let procs = (0..n)
        .map(|p| {
            let cwd = root.join(format!("p{p}"));
            fs::create_dir_all(cwd.join("tmp")).unwrap();
            let mut a: Vec<String> = args.iter().map(|x| x.to_string()).collect();
            a.extend(["--out".to_string(), "out".to_string()]);
            a.extend(layout_flags(n, w, p, &hosts));
            spawn(&a, &cwd, &root.join(format!("p{p}.log")))
        })
        .collect();
    (procs, ports)
}

/// Runs `args` on `n` processes of `w` workers each, to the end (within [`LIMIT`]), in
/// `base/name`. A port taken between finding it and binding it gives one retry on new
/// ports.
fn run_dist(base: &Path, name: &str, args: &[&str], n: usize, w: usize) -> Run {
    for attempt in 0..2 {
        let root = base.join(format!("{name}-try{attempt}"));
        let (procs, _) = start(&root, args, n, w);
        let procs = wait_all(procs, Instant::now() + LIMIT, name);
        let raced = procs
            .iter()
            .any(|d| !d.status.success() && d.stderr.to_lowercase().contains("in use"));
        let run = Run {
            name: format!("{name} ({n} x {w})"),
            procs,
        };
        if !raced || attempt == 1 {
            return run;
        }
        eprintln!("{name}: a port was taken; retrying{}", run.stderr());
    }
    unreachable!()
}

// ---------------------------------------------------------------------------------------
// Checks.

/// Every file under `dir` (recursively) by relative path, but `skip` at the top.
fn tree(dir: &Path, skip: &[&str]) -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &Path, rel: &str, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let name = format!("{rel}{}", e.file_name().to_string_lossy());
            if e.file_type().unwrap().is_dir() {
                walk(&e.path(), &format!("{name}/"), out);
            } else {
                out.insert(name, fs::read(e.path()).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, "", &mut out);
    for s in skip {
        out.remove(*s);
    }
    out
}

/// Equal bytes, or a failure naming `what` and the first differing line.
fn assert_same_bytes(want: &[u8], got: &[u8], what: &str) {
    if want == got {
        return;
    }
    let (w, g) = (String::from_utf8_lossy(want), String::from_utf8_lossy(got));
    let (wl, gl): (Vec<&str>, Vec<&str>) = (w.lines().collect(), g.lines().collect());
    let i = wl.iter().zip(&gl).take_while(|(a, b)| a == b).count();
    panic!(
        "{what} differs from the single-process run ({} vs {} bytes, {} vs {} lines); first \
         difference at line {}:\n  single:      {:?}\n  distributed: {:?}",
        want.len(),
        got.len(),
        wl.len(),
        gl.len(),
        i + 1,
        wl.get(i),
        gl.get(i)
    );
}

/// The output directories hold the same files (but summary.json) with the same bytes.
fn assert_same_dir(single: &Path, run: &Run) {
    let want = tree(single, &["summary.json"]);
    let got = tree(&run.out(), &["summary.json"]);
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>(),
        "{}: other files than the single-process run",
        run.name
    );
    for (f, bytes) in &want {
        assert_same_bytes(bytes, &got[f], &format!("{}: {f}", run.name));
    }
}

/// Lines of a text file.
fn lines(path: &Path) -> usize {
    fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .count()
}

/// Process 0's summary.json describes the layout: `distributed` with one entry per process
/// in process order, whose documents add up to `docs`; the result counts are those of the
/// single-process summary `single`.
fn check_summary(run: &Run, n: usize, w: usize, docs: usize, single: &Value, keys: &[&str]) {
    let sum = run.summary();
    let d = &sum["distributed"];
    let name = &run.name;
    assert_eq!(d["processes"], n, "{name}: {d}");
    assert_eq!(d["workers"], w, "{name}: {d}");
    let per = d["per_process"]
        .as_array()
        .unwrap_or_else(|| panic!("{name}: no per_process: {d}"));
    assert_eq!(per.len(), n, "{name}: {d}");
    let (mut total, mut sent, mut received) = (0, 0, 0);
    for (p, e) in per.iter().enumerate() {
        assert_eq!(e["process"], p, "{name}: {d}");
        total += e["documents"]
            .as_u64()
            .unwrap_or_else(|| panic!("{name}: documents of process {p}: {d}"));
        let bytes = |k: &str| {
            e[k].as_u64()
                .unwrap_or_else(|| panic!("{name}: {k} of process {p}: {d}"))
        };
        sent += bytes("bytes_sent");
        received += bytes("bytes_received");
        assert!(e["seconds"].is_object(), "{name}: seconds of {p}: {d}");
        assert!(
            e["peak_rss_bytes"].as_u64().is_some_and(|b| b > 1 << 20),
            "{name}: peak_rss_bytes of {p}: {d}"
        );
    }
    assert_eq!(total, docs as u64, "{name}: documents per process: {d}");
    if n > 1 {
        // The processes exchanged data, and all of it arrived.
        assert!(sent > 0, "{name}: nothing sent: {d}");
        assert_eq!(sent, received, "{name}: bytes sent and received: {d}");
    }
    for k in keys {
        assert_eq!(sum[k], single[k], "{name}: summary key {k}");
    }
}

/// `fimdup gen` of [`DOCS`] documents: the corpus path in `dir`.
fn corpus(dir: &Path) -> PathBuf {
    common::gen(dir, "docs", DOCS, 5, "", &[])
}

/// `args` plus `--out out`, run once in one process in `dir/name`; returns the output.
fn single(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let mut a = args.to_vec();
    a.extend(["--out", s(&out)]);
    ok(&a);
    out
}

// ---------------------------------------------------------------------------------------
// cluster

/// `cluster --method METHOD` with and without `--verify exact`: for every layout, the
/// clusters and pairs of the single-process run, and a summary of the layout.
fn cluster_matches_single_process(method: &str) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = corpus(d);
    for verify in [false, true] {
        let tag = format!("{method}{}", if verify { "-verify" } else { "" });
        let mut args = vec![
            "cluster",
            s(&input),
            "--method",
            method,
            "--threshold",
            "0.8",
        ];
        if verify {
            args.extend(["--verify", "exact"]);
        }
        let one = single(d, &tag, &args);
        // Enough found that a lost or extra pair shows.
        let pairs = lines(&one.join("pairs.csv")) - 1;
        let clusters = lines(&one.join("clusters.jsonl"));
        assert!(pairs >= 200, "{tag}: {pairs} pairs");
        assert!(clusters >= 80, "{tag}: {clusters} clusters");
        let one_sum = read_json(&one.join("summary.json"));
        assert_eq!(one_sum["documents"], DOCS);
        for (n, w) in LAYOUTS {
            let run = run_dist(d, &format!("{tag}-{n}x{w}"), &args, n, w);
            run.assert_ok();
            assert_same_dir(&one, &run);
            let keys = ["documents", "pairs", "clusters", "collapsed", "k"];
            check_summary(&run, n, w, DOCS, &one_sum, &keys);
        }
    }
}

#[test]
fn cluster_concept_matches_single_process() {
    cluster_matches_single_process("concept");
}

#[test]
fn cluster_union_find_matches_single_process() {
    cluster_matches_single_process("union-find");
}

#[test]
fn cluster_lsh_matches_single_process() {
    cluster_matches_single_process("lsh");
}

#[test]
fn cluster_super_shingle_matches_single_process() {
    cluster_matches_single_process("super-shingle");
}

#[test]
fn cluster_exact_matches_single_process() {
    cluster_matches_single_process("exact");
}

/// Under a memory budget small enough to spill (see scale_cli.rs) on 2 processes: the
/// bytes of the unbounded single-process run, spilled files removed, and each process's
/// peak RSS within the budget plus the documented 256 MiB.
#[test]
fn cluster_under_a_memory_budget_on_two_processes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = corpus(d);
    for method in ["concept", "union-find"] {
        let args = [
            "cluster",
            s(&input),
            "--method",
            method,
            "--threshold",
            "0.8",
        ];
        let one = single(d, method, &args);
        assert!(lines(&one.join("pairs.csv")) > 200);
        let one_sum = read_json(&one.join("summary.json"));
        let mut budget = args.to_vec();
        budget.extend(["--memory-budget", "512KiB", "--tmp-dir", "tmp"]);
        let run = run_dist(d, &format!("{method}-budget"), &budget, 2, 1);
        run.assert_ok();
        assert_same_dir(&one, &run);
        check_summary(&run, 2, 1, DOCS, &one_sum, &["pairs", "clusters"]);
        for e in run.summary()["distributed"]["per_process"]
            .as_array()
            .unwrap()
        {
            let rss = e["peak_rss_bytes"].as_u64().unwrap();
            assert!(rss < (512 << 10) + (256 << 20), "{method}: {e}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// dedup and sketch

#[test]
fn dedup_matches_single_process() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = corpus(d);
    for (tag, extra) in [
        ("concept", vec![]),
        (
            "union-find-verify",
            vec!["--method", "union-find", "--verify", "exact"],
        ),
    ] {
        let mut args = vec!["dedup", s(&input), "--threshold", "0.8"];
        args.extend(extra);
        let one = single(d, tag, &args);
        assert_eq!(
            entries(&one),
            [
                "clusters.jsonl",
                "kept.jsonl",
                "removed.csv",
                "summary.json"
            ]
        );
        let removed = lines(&one.join("removed.csv")) - 1;
        assert!(removed >= 150, "{tag}: {removed} removed");
        assert_eq!(lines(&one.join("kept.jsonl")) + removed, DOCS);
        let one_sum = read_json(&one.join("summary.json"));
        for (n, w) in LAYOUTS {
            let run = run_dist(d, &format!("dedup-{tag}-{n}x{w}"), &args, n, w);
            run.assert_ok();
            assert_same_dir(&one, &run);
            check_summary(&run, n, w, DOCS, &one_sum, &["documents", "kept"]);
        }
    }
}

#[test]
fn sketch_matches_single_process() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = corpus(d);
    for (tag, extra) in [
        ("bottom-k", vec![]),
        ("k-mins", vec!["--scheme", "k-mins", "--size", "64"]),
    ] {
        let mut args = vec!["sketch", s(&input)];
        args.extend(extra);
        let img = d.join(format!("{tag}.img"));
        let mut a = args.clone();
        a.extend(["--out", s(&img)]);
        ok(&a);
        let ids = d.join(format!("{tag}.img.ids.tsv"));
        let img_bytes = fs::read(&img).unwrap();
        let ids_bytes = fs::read(&ids).unwrap();
        assert!(img_bytes.len() > DOCS * 64 * 4, "{tag}: small images file");
        assert_eq!(lines(&ids), DOCS + 1);
        for (n, w) in LAYOUTS {
            let run = run_dist(d, &format!("sketch-{tag}-{n}x{w}"), &args, n, w);
            run.assert_ok();
            let p0 = &run.procs[0].cwd;
            assert_eq!(entries(p0), ["out", "out.ids.tsv", "tmp"], "{}", run.name);
            assert_same_bytes(&img_bytes, &fs::read(p0.join("out")).unwrap(), &run.name);
            let got = fs::read(p0.join("out.ids.tsv")).unwrap();
            assert_same_bytes(&ids_bytes, &got, &format!("{}: ids table", run.name));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Other input formats (the reader that cannot split the input by byte ranges).

/// The corpus as CSV (id,text) and as a directory of one file per document.
fn other_formats(d: &Path, jsonl: &Path) -> (PathBuf, PathBuf) {
    let csv_path = d.join("docs.csv");
    let files = d.join("files");
    fs::create_dir(&files).unwrap();
    let mut w = csv::Writer::from_path(&csv_path).unwrap();
    w.write_record(["id", "text"]).unwrap();
    for l in fs::read_to_string(jsonl).unwrap().lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        let (id, text) = (v["id"].as_str().unwrap(), v["text"].as_str().unwrap());
        w.write_record([id, text]).unwrap();
        fs::write(files.join(format!("{id}.txt")), text).unwrap();
    }
    w.flush().unwrap();
    (csv_path, files)
}

#[test]
fn csv_and_directory_inputs_match_single_process() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = corpus(d);
    let (csv_path, files) = other_formats(d, &input);
    for (tag, command, path) in [
        ("csv-cluster", "cluster", &csv_path),
        ("csv-dedup", "dedup", &csv_path),
        ("dir-cluster", "cluster", &files),
        ("dir-dedup", "dedup", &files),
    ] {
        let args = [command, s(path), "--threshold", "0.8"];
        let one = single(d, tag, &args);
        if command == "cluster" {
            assert!(lines(&one.join("pairs.csv")) > 200, "{tag}");
        } else {
            assert!(lines(&one.join("removed.csv")) > 150, "{tag}");
        }
        let one_sum = read_json(&one.join("summary.json"));
        assert_eq!(one_sum["documents"], DOCS, "{tag}");
        for (n, w) in [(2, 1), (3, 1)] {
            let run = run_dist(d, &format!("{tag}-{n}x{w}"), &args, n, w);
            run.assert_ok();
            assert_same_dir(&one, &run);
            check_summary(&run, n, w, DOCS, &one_sum, &["documents"]);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Fail-stop

/// Whether `stderr` names process `p` of `run`: "process P" or its host:port.
fn names_peer(stderr: &str, p: usize, ports: &[u16]) -> bool {
    stderr.contains(&format!("process {p}")) || stderr.contains(&format!("127.0.0.1:{}", ports[p]))
}

/// SIGKILL of process 1 after about a second of a run of several seconds: processes 0 and
/// 2 exit 2 within 30 s, process 0 naming process 1, and process 0 writes no output.
#[test]
fn killing_one_process_stops_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let gen = d.join("gen");
    let n = FAIL_STOP_DOCS.to_string();
    ok(&[
        "gen",
        "--out",
        s(&gen),
        "--docs",
        &n,
        "--seed",
        "9",
        "--stream",
    ]);
    let input = gen.join("docs.jsonl");
    // Stemming makes the sketch, which every process does, the long part of the run.
    let args = ["cluster", s(&input), "--threshold", "0.8", "--stem"];
    let root = d.join("run");
    let (mut procs, ports) = start(&root, &args, 3, 1);
    std::thread::sleep(Duration::from_secs(1));
    for (p, proc) in procs.iter_mut().enumerate() {
        if let Some(st) = proc.child.try_wait().unwrap() {
            let err = fs::read_to_string(&proc.stderr).unwrap_or_default();
            panic!("process {p} ended ({st}) before the kill (FAIL_STOP_DOCS too small?): {err}");
        }
    }
    procs[1].child.kill().unwrap();
    let killed_at = Instant::now();
    let mut victim = procs.remove(1);
    let st = victim.child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(st.signal(), Some(libc::SIGKILL));
    let done = wait_all(procs, killed_at + Duration::from_secs(30), "after the kill");
    let secs = killed_at.elapsed().as_secs_f64();
    for (e, p) in done.iter().zip([0, 2]) {
        assert_eq!(
            e.status.code(),
            Some(2),
            "process {p} after the kill of process 1 ({secs:.1} s): {}",
            e.stderr
        );
    }
    let err0 = &done[0].stderr;
    assert!(
        names_peer(err0, 1, &ports),
        "process 0 does not name the lost process 1 (127.0.0.1:{}): {err0}",
        ports[1]
    );
    // Process 2 may notice process 0's exit before process 1's loss: it names one of them.
    let err2 = &done[1].stderr;
    assert!(
        names_peer(err2, 1, &ports) || names_peer(err2, 0, &ports),
        "process 2 names no lost peer: {err2}"
    );
    // No output, not even a temporary file, on process 0.
    for e in &done {
        assert_eq!(entries(&e.cwd), ["tmp"], "{}", e.cwd.display());
        assert!(entries(&e.cwd.join("tmp")).is_empty());
    }
    eprintln!("fail-stop: the others exited {secs:.1} s after the kill");
}

// ---------------------------------------------------------------------------------------
// Bad hosts files

/// Runs process 0 of 2 with the hosts file `path` (absent or not); it must exit 2 without
/// output, naming the file (and `line`, when given) on standard error.
fn refused_file(d: &Path, name: &str, path: &Path, line: Option<usize>) {
    let input = d.join("docs.jsonl");
    let cwd = d.join(name);
    fs::create_dir(&cwd).unwrap();
    let args: Vec<String> = [
        "cluster",
        s(&input),
        "--out",
        "out",
        "--processes",
        "2",
        "--process",
        "0",
        "--hosts",
        s(path),
        "--connect-timeout",
        "5",
    ]
    .iter()
    .map(|x| x.to_string())
    .collect();
    let p = spawn(&args, &cwd, &d.join(format!("{name}.log")));
    let done = wait_all(vec![p], Instant::now() + Duration::from_secs(60), name);
    let d0 = &done[0];
    assert_eq!(d0.status.code(), Some(2), "{name}: {}", d0.stderr);
    let file = s(path);
    assert!(
        d0.stderr.contains(file),
        "{name}: file not named: {}",
        d0.stderr
    );
    if let Some(l) = line {
        assert!(
            d0.stderr.contains(&format!("{file}:{l}")) || d0.stderr.contains(&format!("line {l}")),
            "{name}: line {l} not named: {}",
            d0.stderr
        );
    }
    assert!(
        entries(&cwd).is_empty(),
        "{name}: wrote {:?}",
        entries(&cwd)
    );
}

/// [`refused_file`] of a hosts file holding `text`.
fn refused(d: &Path, name: &str, text: &str, line: Option<usize>) {
    let path = d.join(format!("{name}.hosts"));
    fs::write(&path, text).unwrap();
    refused_file(d, name, &path, line);
}

#[test]
fn bad_hosts_files_are_refused_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    common::gen(d, "docs", 50, 1, "", &[]);
    let [a, b]: [u16; 2] = free_ports(2).try_into().unwrap();
    // A line without a port.
    refused(
        d,
        "no-port",
        &format!("127.0.0.1:{a}\n127.0.0.1\n"),
        Some(2),
    );
    // A port that is not a number, after a comment and a blank line.
    let text = format!("# hosts\n\n127.0.0.1:{a}\n127.0.0.1:http\n");
    refused(d, "bad-port", &text, Some(4));
    // A port out of range.
    let text = format!("127.0.0.1:{a}\n127.0.0.1:70000\n");
    refused(d, "port-range", &text, Some(2));
    // An empty host.
    refused(d, "no-host", &format!("127.0.0.1:{a}\n:{b}\n"), Some(2));
    // No hosts file at all.
    refused_file(d, "missing", &d.join("missing.hosts"), None);
}

#[test]
fn hosts_files_with_another_number_of_entries_are_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    common::gen(d, "docs", 50, 1, "", &[]);
    let [a, b, c]: [u16; 3] = free_ports(3).try_into().unwrap();
    refused(d, "too-few", &format!("127.0.0.1:{a}\n\n# one\n"), None);
    let text = format!("127.0.0.1:{a}\n127.0.0.1:{b}\n127.0.0.1:{c}\n");
    refused(d, "too-many", &text, None);
}
