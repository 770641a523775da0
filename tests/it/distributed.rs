//! The multi-process mode through the binary (`--processes N --process P --hosts FILE
//! [--workers W]`): N processes on 127.0.0.1, on ports found free at run time, each started
//! in its own working directory with the same command line (a relative `--out`) but
//! `--process`, each bounded by a time limit.
//!
//! - `cluster` (every method, with and without `--verify exact`), `dedup` and `sketch` write
//!   exactly the bytes the single-process run writes, for 1 process x 2 workers, 2 x 1 and
//!   3 x 1; also from CSV, a directory of files, gzipped JSONL (block shares: the fallback
//!   reader) and plain lines (byte ranges like JSONL); under a `--memory-budget` (spilled);
//!   with fewer documents than workers; with malformed lines skipped and repeated ids
//!   renamed when they fall in other processes' shares.
//! - A divided run's processes each write their parts of the outputs (clusters, pairs,
//!   removals, kept records): the parts concatenated in process order are the
//!   single-process files (also on 2 and 3 processes of 2 workers); process 0 receives
//!   its part of the lines and counts (at most 1 byte a document on 20,000 documents).
//! - Process 0's summary.json holds `distributed` (one entry per process, the documents
//!   adding up to the corpus, bytes sent = received); the other processes exit 0 and write
//!   nothing but their parts (each runs in its own directory, so anything else it wrote
//!   would show).
//! - Errors read by another process (a malformed line, a repeated id) stop the run with
//!   exit 2 on process 0, the line named as one process names it, and no output.
//! - Fail-stop: SIGKILL of process 1 (then of process 0) mid-run makes the others exit 2
//!   within 30 s, naming a lost peer (process 0 naming process 1), and no output appears.
//! - A frozen process (SIGSTOP) makes the others exit 2 within 30 s naming it (heartbeats,
//!   `--peer-timeout`).
//! - Hostile shapes of the pair graph give the single-process bytes too: a path of 12,000
//!   documents whose every edge joins two processes (concept), a dense star of 1,500
//!   leaves beside 3,500 singletons (union-find), on 3 x 1 and 2 x 2.
//! - `--exchange prefix` (prefixes in element order instead of the rows): the
//!   single-process bytes for concept, union-find and exact on 1 x 2, 2 x 1 and 3 x 1, the
//!   rows stage at most a third of the bytes of `--exchange rows` at 0.8 and the rows and
//!   pairs stages together fewer; refused with `--max-df`.
//! - Bad hosts files: exit 2 naming the file and the line (the file alone for a wrong
//!   number of entries or a missing file).

use crate::common;

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
const LAYOUTS: [(usize, usize); 4] = [(1, 2), (2, 1), (3, 1), (4, 1)];
/// Documents of the generated corpus of the equality tests.
const DOCS: usize = 1500;
/// The summary fields a graph-shaped corpus's divided run must share with one process.
const GRAPH_FIELDS: [&str; 6] = [
    "documents",
    "pairs",
    "clusters",
    "edges",
    "components",
    "largest_component",
];
/// Documents of the fail-stop corpus: with `--stem`, each process of a 3-process run
/// sketches its share for about 3 s on 2 cores (process 0 then clusters for about 1 s more).
const FAIL_STOP_DOCS: usize = 100_000;

// ---------------------------------------------------------------------------------------
// Harness: ports, hosts files, processes with a time limit.

/// `n` distinct TCP ports that were free on 127.0.0.1 a moment ago (all listeners are held
/// together, so the ports differ, then dropped for the processes to bind).
pub(crate) fn free_ports(n: usize) -> Vec<u16> {
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
pub(crate) struct Done {
    pub(crate) status: ExitStatus,
    pub(crate) cwd: PathBuf,
    pub(crate) stderr: String,
}

/// Starts the binary with `args` in `cwd`; standard output and error go to `log.stdout` and
/// `log.stderr` (files, so that no pipe fills up while other processes are waited for).
fn spawn(args: &[String], cwd: &Path, log: &Path) -> Proc {
    spawn_env(args, cwd, log, &[])
}

/// [`spawn`] with environment variables.
fn spawn_env(args: &[String], cwd: &Path, log: &Path, env: &[(&str, &str)]) -> Proc {
    let stdout = log.with_extension("stdout");
    let stderr = log.with_extension("stderr");
    let child = Command::new(env!("CARGO_BIN_EXE_fimdup"))
        .args(args)
        .envs(env.iter().copied())
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
pub(crate) struct Run {
    pub(crate) name: String,
    pub(crate) ports: Vec<u16>,
    pub(crate) procs: Vec<Done>,
}

impl Run {
    /// Process 0's `--out`.
    pub(crate) fn out(&self) -> PathBuf {
        self.procs[0].cwd.join("out")
    }

    pub(crate) fn stderr(&self) -> String {
        self.procs
            .iter()
            .enumerate()
            .map(|(p, d)| format!("\n--- process {p} ({}):\n{}", d.status, d.stderr))
            .collect()
    }

    /// Every process exited 0, and the ones but process 0 left their working directories
    /// as they found them: no `--out` (nor its ids table, nor a temporary file), `tmp/`
    /// empty.
    pub(crate) fn assert_ok(&self) {
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
            } else if left.contains(&"out".to_string()) {
                // A divided run: the process's own parts of the outputs, nothing else.
                assert_eq!(left, ["out", "tmp"], "{}: process {p}", self.name);
                let want = format!(".part-{p:05}.");
                let parts = entries(&d.cwd.join("out"));
                assert!(
                    !parts.is_empty() && parts.iter().all(|f| f.contains(&want)),
                    "{}: process {p} wrote {parts:?}, not its parts only",
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
    pub(crate) fn summary(&self) -> Value {
        read_json(&self.out().join("summary.json"))
    }
}

/// The names in a directory, sorted.
pub(crate) fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

pub(crate) fn read_json(path: &Path) -> Value {
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
    start_env(root, args, n, w, None)
}

/// [`start`], with every process given the environment variables `env`.
fn start_all_env(
    root: &Path,
    args: &[&str],
    n: usize,
    w: usize,
    env: &[(&str, &str)],
) -> (Vec<Proc>, Vec<u16>) {
    start_with(root, args, n, w, |_| env.to_vec())
}

/// [`start`], with process `env.0` given the environment variable `env.1`.
fn start_env(
    root: &Path,
    args: &[&str],
    n: usize,
    w: usize,
    env: Option<(usize, (&str, &str))>,
) -> (Vec<Proc>, Vec<u16>) {
    start_with(root, args, n, w, |p| {
        env.iter().filter(|e| e.0 == p).map(|e| e.1).collect()
    })
}

/// [`start`], with process `p` given the environment variables `env(p)`; `--out out` is
/// added unless `args` name an output.
fn start_with<'a>(
    root: &Path,
    args: &[&str],
    n: usize,
    w: usize,
    env: impl Fn(usize) -> Vec<(&'a str, &'a str)>,
) -> (Vec<Proc>, Vec<u16>) {
    fs::create_dir_all(root).unwrap();
    let ports = free_ports(n);
    let hosts = root.join("hosts.txt");
    write_hosts(&hosts, &ports);
    let procs = (0..n)
        .map(|p| {
            let cwd = root.join(format!("p{p}"));
            fs::create_dir_all(cwd.join("tmp")).unwrap();
            let mut a: Vec<String> = args.iter().map(|x| x.to_string()).collect();
            if !args.contains(&"--out") {
                a.extend(["--out".to_string(), "out".to_string()]);
            }
            a.extend(layout_flags(n, w, p, &hosts));
            spawn_env(&a, &cwd, &root.join(format!("p{p}.log")), &env(p))
        })
        .collect();
    (procs, ports)
}

/// Runs `args` on `n` processes of `w` workers each, to the end (within [`LIMIT`]), in
/// `base/name`. A port taken between finding it and binding it gives one retry on new
/// ports.
pub(crate) fn run_dist(base: &Path, name: &str, args: &[&str], n: usize, w: usize) -> Run {
    run_dist_env(base, name, args, n, w, &[])
}

/// [`run_dist`] with every process given the environment variables `env`.
pub(crate) fn run_dist_env(
    base: &Path,
    name: &str,
    args: &[&str],
    n: usize,
    w: usize,
    env: &[(&str, &str)],
) -> Run {
    for attempt in 0..2 {
        let root = base.join(format!("{name}-try{attempt}"));
        let (procs, ports) = if env.is_empty() {
            start(&root, args, n, w)
        } else {
            start_all_env(&root, args, n, w, env)
        };
        let procs = wait_all(procs, Instant::now() + LIMIT, name);
        let raced = procs
            .iter()
            .any(|d| !d.status.success() && d.stderr.to_lowercase().contains("in use"));
        let run = Run {
            name: format!("{name} ({n} x {w})"),
            ports,
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
pub(crate) fn tree(dir: &Path, skip: &[&str]) -> BTreeMap<String, Vec<u8>> {
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

/// The output directories hold the same files (but summary.json) with the same bytes; when
/// the run wrote a file in parts (a divided run with more than one process:
/// `pairs.part-00000.csv` in process 0's directory, `pairs.part-00001.csv` in process 1's,
/// and so on; a divided deduplication's kept records, `kept.part-00000.jsonl`, with any
/// number), their concatenation in process order stands for it and equals the
/// single-process file.
pub(crate) fn assert_same_dir(single: &Path, run: &Run) {
    let want = tree(single, &["summary.json"]);
    let got = joined_parts(run);
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

/// Process 0's output directory (but summary.json) with every file written in parts
/// replaced by the parts of every process concatenated in process order, under the
/// single-process file's name (`kept.part-*.jsonl` by the kept file's: `kept.jsonl`).
pub(crate) fn joined_parts(run: &Run) -> BTreeMap<String, Vec<u8>> {
    let mut got = tree(&run.out(), &["summary.json"]);
    let firsts: Vec<String> = (got.keys())
        .filter(|k| k.contains(".part-00000."))
        .cloned()
        .collect();
    for first in firsts {
        let (stem, ext) = first.split_once(".part-00000.").unwrap();
        let mut joined = Vec::new();
        for (p, d) in run.procs.iter().enumerate() {
            let part = d.cwd.join("out").join(format!("{stem}.part-{p:05}.{ext}"));
            joined.extend(fs::read(&part).unwrap_or_else(|e| panic!("{}: {e}", part.display())));
        }
        got.remove(&first);
        got.insert(format!("{stem}.{ext}"), joined);
    }
    let stray: Vec<&String> = got.keys().filter(|k| k.contains(".part-")).collect();
    assert!(
        stray.is_empty(),
        "{}: parts of other processes in process 0's directory: {stray:?}",
        run.name
    );
    got
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
pub(crate) fn check_summary(
    run: &Run,
    n: usize,
    w: usize,
    docs: usize,
    single: &Value,
    keys: &[&str],
) {
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
        let docs = e["documents"]
            .as_u64()
            .unwrap_or_else(|| panic!("{name}: documents of process {p}: {d}"));
        total += docs;
        let bytes = |k: &str| {
            e[k].as_u64()
                .unwrap_or_else(|| panic!("{name}: {k} of process {p}: {d}"))
        };
        sent += bytes("bytes_sent");
        received += bytes("bytes_received");
        // What another process read went to process 0: at least 8 bytes a document.
        if p > 0 {
            assert!(
                bytes("bytes_sent") >= 8 * docs,
                "{name}: process {p} sent: {d}"
            );
        }
        assert!(e["seconds"].is_object(), "{name}: seconds of {p}: {d}");
        assert!(
            e["peak_rss_bytes"].as_u64().is_some_and(|b| b > 1 << 20),
            "{name}: peak_rss_bytes of {p}: {d}"
        );
    }
    assert_eq!(total, docs as u64, "{name}: documents per process: {d}");
    // All of it arrived.
    assert_eq!(sent, received, "{name}: bytes sent and received: {d}");
    for k in keys {
        assert_eq!(sum[k], single[k], "{name}: summary key {k}");
    }
}

/// `fimdup gen` of [`DOCS`] documents: the corpus path in `dir`.
fn corpus(dir: &Path) -> PathBuf {
    common::gen(dir, "docs", DOCS, 5, "", &[])
}

/// `args` plus `--out out`, run once in one process in `dir/name`; returns the output.
pub(crate) fn single(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
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
    cluster_matches_single_process_as(method, true)
}

/// As [`cluster_matches_single_process`], the run divided or (`divided` false) gathered.
fn cluster_matches_single_process_as(method: &str, divided: bool) {
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
            check_divided(&run, &one_sum, divided);
        }
    }
}

/// The divided run takes the options that change its stages as one process does: dropped
/// common elements (`--max-df`, so that rows are dropped by their owners and left out of the
/// groups' contexts), k-mins images (positional keys), an absolute k, another image size,
/// lsh verified, super shingles of sorted images (sliding windows).
#[test]
fn divided_options_match_single_process() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = corpus(d);
    let variants: [&[&str]; 8] = [
        &["--method", "concept", "--max-df", "3", "--threshold", "0.5"],
        &[
            "--method",
            "concept",
            "--scheme",
            "k-mins",
            "--threshold",
            "0.7",
        ],
        &["--method", "union-find", "--min-common", "90"],
        &[
            "--method",
            "union-find",
            "--size",
            "32",
            "--threshold",
            "0.5",
        ],
        &["--method", "lsh", "--threshold", "0.6", "--verify", "exact"],
        &["--method", "super-shingle", "--scheme", "bottom-k"],
        &["--method", "exact", "--threshold", "0.5"],
        &[
            "--method",
            "exact",
            "--threshold",
            "0.9",
            "--shingle-len",
            "2",
        ],
    ];
    for (i, extra) in variants.iter().enumerate() {
        let mut args = vec!["cluster", s(&input)];
        args.extend_from_slice(extra);
        let tag = format!("variant{i}");
        let one = single(d, &tag, &args);
        let one_sum = read_json(&one.join("summary.json"));
        assert!(
            lines(&one.join("pairs.csv")) > 20,
            "{tag}: too few pairs to tell"
        );
        let run = run_dist(d, &format!("{tag}-2x1"), &args, 2, 1);
        run.assert_ok();
        assert_same_dir(&one, &run);
        check_divided(&run, &one_sum, true);
    }
}

/// Bytes sent in a divided run's stage, summed over the processes.
fn stage_sent(run: &Run, stage: &str) -> u64 {
    let d = &run.summary()["distributed"];
    (d["per_process"].as_array().unwrap().iter())
        .map(|e| {
            e["stages"][stage]["bytes_sent"]
                .as_u64()
                .unwrap_or_else(|| panic!("{}: no stage {stage}: {d}", run.name))
        })
        .sum()
}

/// `--exchange prefix` (each representative's prefix in element order, no rows stage) gives
/// the single-process bytes for concept, union-find and exact at two thresholds, on 1 x 2,
/// 2 x 1 and 3 x 1; its summary equals the single-process one but for the rows it did not
/// count (`context_rows`, `dropped_rare`, `dropped_common` null) and names the exchange;
/// on 2 and 3 processes its rows stage sends at most a third of the bytes of
/// `--exchange rows` at 0.8 (less at 0.5), and its rows and pairs stages together less.
#[test]
fn prefix_exchange_matches_single_process_and_sends_less() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = corpus(d);
    let uncounted = ["context_rows", "dropped_rare", "dropped_common"];
    for (method, t) in [
        ("concept", "0.8"),
        ("concept", "0.5"),
        ("union-find", "0.8"),
        ("union-find", "0.5"),
        ("exact", "0.8"),
    ] {
        let tag = format!("{method}-{t}");
        let args = ["cluster", s(&input), "--method", method, "--threshold", t];
        let one = single(d, &tag, &args);
        let one_sum = read_json(&one.join("summary.json"));
        assert!(lines(&one.join("pairs.csv")) > 100, "{tag}: too few pairs");
        for (n, w) in [(1, 2), (2, 1), (3, 1)] {
            let mut prefix_args = args.to_vec();
            prefix_args.extend(["--exchange", "prefix"]);
            let run = run_dist(d, &format!("{tag}-prefix-{n}x{w}"), &prefix_args, n, w);
            run.assert_ok();
            assert_same_dir(&one, &run);
            let sum = run.summary();
            let name = &run.name;
            assert_eq!(sum["distributed"]["mode"], "divided", "{name}");
            assert_eq!(sum["distributed"]["exchange"], "prefix", "{name}");
            let (Value::Object(a), Value::Object(b)) = (&one_sum, &sum) else {
                panic!("{name}: summaries are objects");
            };
            for k in a.keys() {
                if uncounted.contains(&k.as_str()) {
                    assert!(b[k].is_null(), "{name}: {k} is {}", b[k]);
                } else if !["seconds", "peak_rss_bytes", "phases"].contains(&k.as_str()) {
                    assert_eq!(a.get(k), b.get(k), "{name}: summary field {k}");
                }
            }
            if n == 1 {
                continue;
            }
            let rows = run_dist(d, &format!("{tag}-rows-{n}x{w}"), &args, n, w);
            rows.assert_ok();
            assert_same_dir(&one, &rows);
            assert_eq!(rows.summary()["distributed"]["exchange"], "rows");
            let (pr, pp) = (stage_sent(&run, "rows"), stage_sent(&run, "pairs"));
            let (rr, rp) = (stage_sent(&rows, "rows"), stage_sent(&rows, "pairs"));
            assert!(
                pr > 0 && rr > 0,
                "{name}: {pr} and {rr} bytes in the rows stages"
            );
            let bound = if t == "0.8" { rr / 3 } else { rr };
            assert!(
                pr <= bound,
                "{name}: the prefix rows sent {pr} bytes, the rows {rr}"
            );
            assert!(
                pr + pp < rr + rp,
                "{name}: rows and pairs sent {pr} + {pp} bytes with prefix, {rr} + {rp} with rows"
            );
        }
    }
}

/// `--exchange prefix` ranks the elements without document frequencies: with `--max-df`
/// a context method is refused (exit 2, the flags named, no output) before any process
/// reads.
#[test]
fn prefix_exchange_refuses_document_frequency_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = corpus(d);
    let args = [
        "cluster",
        s(&input),
        "--method",
        "concept",
        "--threshold",
        "0.8",
        "--max-df",
        "50",
        "--exchange",
        "prefix",
        "--processes",
        "1",
        "--workers",
        "2",
    ];
    let e = single_error(d, "refused", &args);
    assert!(
        e.contains("--exchange prefix") && e.contains("--max-df 50") && e.contains("rows"),
        "{e}"
    );
}

/// Every method (verified or not) runs divided by resemblance: every summary field but the
/// timings, memory and layout equals the single-process run's, every process ran every
/// stage, and process 0 received far less than the records (the gathered runs send each
/// document's image and ids to it, over 500 bytes a document).
fn check_divided(run: &Run, single: &Value, divided: bool) {
    let sum = run.summary();
    let d = &sum["distributed"];
    let name = &run.name;
    assert_eq!(
        d["mode"],
        if divided { "divided" } else { "gathered" },
        "{name}: {d}"
    );
    if !divided {
        assert!(d["gathered_because"].is_string(), "{name}: {d}");
        return;
    }
    let skip = ["seconds", "peak_rss_bytes", "phases", "distributed"];
    let (Value::Object(a), Value::Object(b)) = (single, &sum) else {
        panic!("{name}: summaries are objects");
    };
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for k in keys {
        if !skip.contains(&k.as_str()) {
            assert_eq!(a.get(k), b.get(k), "{name}: summary field {k}");
        }
    }
    let per = d["per_process"].as_array().unwrap();
    for (p, e) in per.iter().enumerate() {
        for stage in [
            "read and sketch",
            "collapse",
            "rows",
            "pairs",
            "components",
            "per group",
        ] {
            assert!(
                e["stages"][stage]["count"].is_u64(),
                "{name}: process {p} has no stage {stage}: {e}"
            );
        }
        // Each stage's peak RSS is the process's high-water mark as the stage ended: it
        // does not fall from one stage to the next, and does not pass the process's peak,
        // within the slack of the kernel's resident-page counters (kept per thread and
        // summed lazily: a reading may be some pages off).
        if cfg!(target_os = "linux") {
            const SLACK: u64 = 4 << 20;
            let peak = e["peak_rss_bytes"].as_u64().unwrap();
            let mut last = 0;
            for stage in ["read and sketch", "collapse", "rows", "pairs", "components"] {
                let at = e["stages"][stage]["peak_rss_bytes"].as_u64().unwrap();
                assert!(
                    at + SLACK >= last && at <= peak + SLACK && at > 0,
                    "{name}: process {p}: {e}"
                );
                last = last.max(at);
            }
        }
    }
    check_output_traffic(run, single["documents"].as_u64().unwrap() as usize);
}

/// Process 0 received its part of the outputs and the counts, not the outputs: in the
/// output stage no more than another process (within 4 KiB: the all-gathered totals and
/// samples, and a part a little larger), and under 200 bytes a document in it.
fn check_output_traffic(run: &Run, docs: usize) {
    let name = &run.name;
    let d = &run.summary()["distributed"];
    let per = d["per_process"].as_array().unwrap();
    let got = |p: usize, stage: &str| {
        per[p]["stages"][stage]["bytes_received"]
            .as_u64()
            .unwrap_or_else(|| panic!("{name}: process {p} has no stage {stage}: {d}"))
    };
    let output = got(0, "output");
    assert!(output < 200 * docs as u64, "{name}: {output} bytes: {d}");
    let sent: u64 = (0..per.len())
        .map(|p| per[p]["stages"]["output"]["bytes_sent"].as_u64().unwrap())
        .sum();
    if per.len() > 1 {
        let most = (1..per.len()).map(|p| got(p, "output")).max().unwrap();
        assert!(
            output <= 2 * most + sent / per.len() as u64 + 4096,
            "{name}: process 0 received {output} bytes in the output stage, the others at most {most}: {d}"
        );
    }
    // The counts: the same for each worker.
    for p in 1..per.len() {
        assert_eq!(got(p, "summary"), 0, "{name}: {d}");
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

/// simhash has no rule by key: its fingerprints are gathered, with the same bytes.
#[test]
fn cluster_simhash_matches_single_process() {
    cluster_matches_single_process_as("simhash", false);
}

/// Under a memory budget small enough to spill (see scale_cli.rs) on 2 and 3 processes,
/// for `cluster` (also verified) and `dedup`: divided, with the rows stage in several
/// passes, the bytes of the unbounded single-process run, spilled files removed, and each
/// process's peak RSS within the budget plus the documented 256 MiB.
#[test]
fn runs_under_a_memory_budget_match_single_process() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = corpus(d);
    for (tag, command, extra) in [
        ("concept", "cluster", vec![]),
        (
            "union-find-verify",
            "cluster",
            vec!["--method", "union-find", "--verify", "exact"],
        ),
        ("lsh", "cluster", vec!["--method", "lsh"]),
        ("exact", "cluster", vec!["--method", "exact"]),
        ("dedup", "dedup", vec![]),
    ] {
        let mut args = vec![command, s(&input), "--threshold", "0.8"];
        args.extend(extra);
        let one = single(d, tag, &args);
        let one_sum = read_json(&one.join("summary.json"));
        let file = if command == "cluster" {
            "pairs.csv"
        } else {
            "removed.csv"
        };
        assert!(lines(&one.join(file)) > 150, "{tag}");
        let mut budget = args.clone();
        // Small enough for the ids to be checked in two passes or more, too.
        budget.extend(["--memory-budget", "256KiB", "--tmp-dir", "tmp"]);
        for (n, w) in [(2, 1), (3, 1)] {
            let run = run_dist(d, &format!("{tag}-budget-{n}x{w}"), &budget, n, w);
            run.assert_ok();
            assert_same_dir(&one, &run);
            check_summary(&run, n, w, DOCS, &one_sum, &["documents"]);
            // Divided: the keys wait on disk, and the rows stage runs in passes.
            assert_eq!(
                run.summary()["distributed"]["mode"],
                "divided",
                "{}",
                run.name
            );
            for e in run.summary()["distributed"]["per_process"]
                .as_array()
                .unwrap()
            {
                let rss = e["peak_rss_bytes"].as_u64().unwrap();
                assert!(rss < (256 << 10) + (256 << 20), "{}: {e}", run.name);
                assert!(e["row_passes"].as_u64().unwrap() > 1, "{}: {e}", run.name);
                assert!(e["id_passes"].as_u64().unwrap() > 1, "{}: {e}", run.name);
            }
        }
    }
}

/// A budget too small for a worker's per-document data: every process exits 2 before the
/// rows, nothing is written, and the error says what holds the memory.
#[test]
fn a_budget_below_the_per_document_data_stops_every_process() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = corpus(d);
    let args = [
        "cluster",
        s(&input),
        "--memory-budget",
        "16KiB",
        "--tmp-dir",
        "tmp",
    ];
    let said = "of per-document data (ids, offsets, fingerprints)";
    for (n, w) in [(2, 1), (1, 2)] {
        let run = run_dist(d, &format!("tiny-budget-{n}x{w}"), &args, n, w);
        for (p, done) in run.procs.iter().enumerate() {
            assert_eq!(done.status.code(), Some(2), "{}: process {p}", run.name);
            assert!(
                entries(&done.cwd.join("tmp")).is_empty(),
                "{}: process {p} left spilled files",
                run.name
            );
        }
        assert!(!run.out().exists(), "{}: output written", run.name);
        assert!(
            run.procs[0].stderr.contains("memory budget too small")
                && run.procs[0].stderr.contains(said),
            "{}{}",
            run.name,
            run.stderr()
        );
    }
}

// ---------------------------------------------------------------------------------------
// dedup and sketch

/// `dedup` with every method, verified or not, and one document per cluster: on every
/// layout the bytes of the single-process run (`removed.csv`, `clusters.jsonl`, and the
/// kept file as the concatenation of the processes' parts); the choice made per group
/// (divided), process 0 receiving results, not records.
#[test]
fn dedup_matches_single_process() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = corpus(d);
    let mut cases: Vec<(String, Vec<&str>)> = Vec::new();
    for method in ["concept", "union-find", "lsh", "super-shingle", "exact"] {
        cases.push((method.to_string(), vec!["--method", method]));
        if method != "exact" {
            let verified = vec!["--method", method, "--verify", "exact"];
            cases.push((format!("{method}-verify"), verified));
        }
    }
    cases.push(("concept-per-cluster".into(), vec!["--per-cluster"]));
    // Each case runs in two of the four layouts (1x2 and 3x1, or 2x1 and 4x1), chosen so
    // that the plain cases and the verified ones each meet all four over the methods (every
    // method meets every layout in the cluster tests): half the runs.
    for (i, (tag, extra)) in cases.iter().enumerate() {
        let tag = tag.as_str();
        let half = (i + i / 2) % 2;
        let layouts = [LAYOUTS[half], LAYOUTS[half + 2]];
        let mut args = vec!["dedup", s(&input), "--threshold", "0.8"];
        args.extend(extra.iter().copied());
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
        for (n, w) in layouts {
            let run = run_dist(d, &format!("dedup-{tag}-{n}x{w}"), &args, n, w);
            run.assert_ok();
            assert_same_dir(&one, &run);
            check_summary(&run, n, w, DOCS, &one_sum, &["documents", "kept"]);
            let sum = run.summary();
            let name = &run.name;
            assert_eq!(sum["distributed"]["mode"], "divided", "{name}");
            assert_eq!(sum["kept_file"], "kept.part-*.jsonl", "{name}");
            for k in ["removed", "removed_by", "verified", "per_cluster"] {
                assert_eq!(sum[k], one_sum[k], "{name}: summary field {k}");
            }
            let (mut a, mut b) = (one_sum["cluster"].clone(), sum["cluster"].clone());
            for c in [&mut a, &mut b] {
                c.as_object_mut().unwrap().remove("phases");
            }
            assert_eq!(a, b, "{name}: the cluster summary");
            let per = sum["distributed"]["per_process"].as_array().unwrap();
            let written: u64 = (per.iter())
                .map(|e| e["stages"]["write part"]["count"].as_u64().unwrap())
                .sum();
            assert_eq!(written, one_sum["kept"].as_u64().unwrap(), "{name}");
            check_output_traffic(&run, DOCS);
            let parts: Vec<String> = if n == 1 {
                vec!["clusters.jsonl".into(), "removed.csv".into()]
            } else {
                vec!["clusters.part-*.jsonl".into(), "removed.part-*.csv".into()]
            };
            assert_eq!(
                sum["distributed"]["parts"],
                serde_json::json!(parts),
                "{name}"
            );
        }
    }
    // A keep order by length is chosen on process 0 (gathered), with the same bytes.
    let args = [
        "dedup",
        s(&input),
        "--threshold",
        "0.8",
        "--keep",
        "longest",
    ];
    let one = single(d, "longest", &args);
    let run = run_dist(d, "dedup-longest-2x1", &args, 2, 1);
    run.assert_ok();
    assert_same_dir(&one, &run);
    assert_eq!(run.summary()["distributed"]["mode"], "gathered");
}

/// A divided run writes its outputs in parts, one per process (`clusters.part-00000.jsonl`
/// and `pairs.part-00000.csv` or `removed.part-00000.csv`, beside the kept part), whose
/// concatenation in process order is the single-process file: for `cluster` and `dedup`
/// with concept, union-find and lsh on 2 and 3 processes of 2 workers, every process
/// holding some of the clusters. On 20,000 documents (3 x 1), process 0 receives at most
/// 1 byte a document of counts (the `summary` stage) besides its part of the lines.
#[test]
fn outputs_in_parts_match_single_process() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = corpus(d);
    for command in ["cluster", "dedup"] {
        for method in ["concept", "union-find", "lsh"] {
            let args = [command, s(&input), "--method", method, "--threshold", "0.8"];
            let tag = format!("{command}-{method}");
            let one = single(d, &tag, &args);
            for (n, w) in [(2, 2), (3, 2)] {
                let run = run_dist(d, &format!("parts-{tag}-{n}x{w}"), &args, n, w);
                run.assert_ok();
                assert_same_dir(&one, &run);
                let second = if command == "cluster" {
                    "pairs"
                } else {
                    "removed"
                };
                let want = [
                    "clusters.part-*.jsonl".to_string(),
                    format!("{second}.part-*.csv"),
                ];
                let sum = run.summary();
                assert_eq!(
                    sum["distributed"]["parts"],
                    serde_json::json!(want),
                    "{}",
                    run.name
                );
                for (p, done) in run.procs.iter().enumerate() {
                    let part = (done.cwd.join("out")).join(format!("clusters.part-{p:05}.jsonl"));
                    assert!(
                        lines(&part) > 0,
                        "{}: process {p} wrote no clusters",
                        run.name
                    );
                }
                check_output_traffic(&run, DOCS);
            }
        }
    }
    const BIG: usize = 20_000;
    let big = common::gen(d, "big", BIG, 7, "", &[]);
    let args = ["cluster", s(&big), "--threshold", "0.8"];
    let one = single(d, "big", &args);
    let run = run_dist(d, "big-3x1", &args, 3, 1);
    run.assert_ok();
    assert_same_dir(&one, &run);
    check_output_traffic(&run, BIG);
    let sum = run.summary();
    let per = sum["distributed"]["per_process"].as_array().unwrap();
    let counts = per[0]["stages"]["summary"]["bytes_received"]
        .as_u64()
        .unwrap();
    let output = per[0]["stages"]["output"]["bytes_received"]
        .as_u64()
        .unwrap();
    eprintln!("process 0 received {counts} bytes of counts and {output} bytes of lines for {BIG} documents");
    assert!(
        counts > 0 && counts <= BIG as u64,
        "{}: {counts} bytes of counts",
        run.name
    );
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

/// The corpus as CSV (id,text), as a directory of one file per document, as gzipped JSONL
/// and as plain lines (one document per line, its line number the id).
fn other_formats(d: &Path, jsonl: &Path) -> (PathBuf, PathBuf, PathBuf, PathBuf) {
    use std::io::Write;
    let gz = d.join("docs.jsonl.gz");
    let mut z = flate2::write::GzEncoder::new(
        fs::File::create(&gz).unwrap(),
        flate2::Compression::default(),
    );
    z.write_all(&fs::read(jsonl).unwrap()).unwrap();
    z.finish().unwrap();
    let plain = d.join("docs.txt");
    let mut plain_text = String::new();
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
        plain_text += &text.replace('\n', " ");
        plain_text.push('\n');
    }
    w.flush().unwrap();
    fs::write(&plain, plain_text).unwrap();
    (csv_path, files, gz, plain)
}

/// CSV, a directory and gzipped JSONL are read in block shares (the fallback reader),
/// plain lines in byte ranges like JSONL: the same bytes as one process, for `cluster` and
/// `dedup` (whose kept file is in the input's format).
#[test]
fn other_input_formats_match_single_process() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = corpus(d);
    let (csv_path, files, gz, plain) = other_formats(d, &input);
    for (tag, path, kept) in [
        ("csv", &csv_path, "kept.csv"),
        ("dir", &files, "kept"),
        ("gz", &gz, "kept.jsonl.gz"),
        ("lines", &plain, "kept.txt"),
    ] {
        for command in ["cluster", "dedup"] {
            let tag = format!("{tag}-{command}");
            let args = [command, s(path), "--threshold", "0.8"];
            let one = single(d, &tag, &args);
            if command == "cluster" {
                assert!(lines(&one.join("pairs.csv")) > 200, "{tag}");
            } else {
                assert!(lines(&one.join("removed.csv")) > 150, "{tag}");
                assert!(one.join(kept).exists(), "{tag}: {:?}", entries(&one));
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
}

/// Corpora with fewer documents than workers (3 processes x 2 workers): empty shares, and
/// an empty corpus.
#[test]
fn corpora_smaller_than_the_workers_match_single_process() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let words = |seed: usize| -> Vec<String> {
        (0..200)
            .map(|i| format!("w{}", (i * 7919 + seed * 104_729) % 100_003))
            .collect()
    };
    let a = words(1);
    let mut a2 = a.clone();
    a2[100] = "changed".into();
    let docs = [
        ("a", a.join(" ")),
        ("b", words(2).join(" ")),
        ("a-edit", a2.join(" ")),
        ("c", words(3).join(" ")),
    ];
    for k in [0, 1, 4] {
        let path = d.join(format!("tiny{k}.jsonl"));
        let text: String = docs[..k]
            .iter()
            .map(|(id, t)| format!("{}\n", serde_json::json!({"id": id, "text": t})))
            .collect();
        fs::write(&path, text).unwrap();
        let args = ["cluster", s(&path), "--threshold", "0.8"];
        let one = single(d, &format!("tiny{k}"), &args);
        // With 4 documents, a and its edit (resemblance 191/201) make the one pair.
        let pairs = lines(&one.join("pairs.csv")) - 1;
        assert_eq!(pairs, usize::from(k == 4), "tiny{k}");
        let one_sum = read_json(&one.join("summary.json"));
        let run = run_dist(d, &format!("tiny{k}-3x2"), &args, 3, 2);
        run.assert_ok();
        assert_same_dir(&one, &run);
        check_summary(&run, 3, 2, k, &one_sum, &["documents", "pairs"]);
    }
}

/// A divided run that fails after the sketch, in the per-group stage or the merge (a
/// component's or the whole run's concept itemsets pass `--max-itemsets`), stops every
/// process: each exits 2, nothing is written, and the limit is what is reported (by the
/// process that met it; the others name it or a lost peer), as one process reports it.
#[test]
fn a_limit_in_the_per_group_stage_stops_every_process() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = corpus(d);
    for max in ["1", "40"] {
        let args = [
            "cluster",
            s(&input),
            "--threshold",
            "0.5",
            "--max-itemsets",
            max,
        ];
        let want = single_error(d, &format!("limit{max}-single"), &args);
        assert!(want.contains("itemsets"), "{want}");
        // With a cap of 1 a component's own mining meets it (the miner's message); with 40
        // only the whole run does (the count in the message may differ).
        let said = if max == "1" {
            want.as_str()
        } else {
            "more than max_itemsets = 40"
        };
        for (n, w) in [(3, 1), (1, 2)] {
            let run = run_dist(d, &format!("limit{max}-{n}x{w}"), &args, n, w);
            for (p, done) in run.procs.iter().enumerate() {
                assert_eq!(
                    done.status.code(),
                    Some(2),
                    "{}: process {p}{}",
                    run.name,
                    run.stderr()
                );
            }
            assert!(!run.out().exists(), "{}: output written", run.name);
            assert!(
                run.procs[0].stderr.contains(said)
                    || (1..n).any(|p| names_peer(&run.procs[0].stderr, p, &run.ports)),
                "{}: process 0 names neither the limit nor a peer{}",
                run.name,
                run.stderr()
            );
            assert!(
                run.procs.iter().any(|p| p.stderr.contains(said)),
                "{}: no process reports the limit{}",
                run.name,
                run.stderr()
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Input errors and repeated ids across shares

/// The corpus with `f` applied to its lines.
fn edited_corpus(d: &Path, name: &str, f: impl Fn(&mut Vec<String>)) -> PathBuf {
    let mut lines: Vec<String> = fs::read_to_string(d.join("docs.jsonl"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    f(&mut lines);
    let path = d.join(name);
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// The single-process error message of `args` (exit 2), without the "fimdup: " prefix.
fn single_error(d: &Path, name: &str, args: &[&str]) -> String {
    let mut a = args.to_vec();
    let out = d.join(name);
    a.extend(["--out", s(&out)]);
    let o = common::run(&a);
    assert_eq!(o.status.code(), Some(2), "{name}");
    assert!(!out.exists());
    let err = String::from_utf8(o.stderr).unwrap();
    err.trim().trim_start_matches("fimdup: ").to_string()
}

/// Malformed lines in several shares: skipped (`--skip-bad-lines`) as in one process;
/// otherwise the run stops with exit 2 on process 0, no output, the line named with its
/// number in the whole file by the process that read it, and process 0 naming that line
/// or the process it lost.
#[test]
fn malformed_lines_in_other_shares() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    corpus(d);
    let bad = r#"{"id": "bad", "text": unterminated"#;
    let spread = edited_corpus(d, "spread.jsonl", |l| {
        for i in [1200, 700, 100] {
            l.insert(i, bad.to_string());
        }
    });
    for command in ["cluster", "dedup"] {
        let args = [
            command,
            s(&spread),
            "--threshold",
            "0.8",
            "--skip-bad-lines",
        ];
        let one = single(d, &format!("skip-{command}"), &args);
        let one_sum = read_json(&one.join("summary.json"));
        let run = run_dist(d, &format!("skip-{command}-3x1"), &args, 3, 1);
        run.assert_ok();
        assert_same_dir(&one, &run);
        check_summary(&run, 3, 1, DOCS, &one_sum, &["documents"]);
    }
    // One bad line, in the last third: a later process reads it.
    let late = edited_corpus(d, "late.jsonl", |l| l.insert(1300, bad.to_string()));
    let args = ["cluster", s(&late), "--threshold", "0.8"];
    let want = single_error(d, "late-single", &args);
    assert!(want.contains(":1301: invalid JSON"), "{want}");
    let run = run_dist(d, "late-3x1", &args, 3, 1);
    assert_eq!(run.procs[0].status.code(), Some(2), "{}", run.stderr());
    assert!(
        run.procs.iter().any(|p| p.stderr.contains(&want)),
        "no process reports {want:?}:{}",
        run.stderr()
    );
    let err0 = &run.procs[0].stderr;
    let named = err0.contains(&want) || (1..3).any(|p| names_peer(err0, p, &run.ports));
    assert!(
        named,
        "process 0 names neither the line nor a lost process: {err0}"
    );
    for p in &run.procs {
        assert_eq!(entries(&p.cwd), ["tmp"], "{}", p.cwd.display());
    }
}

/// Repeated ids whose occurrences are read by different processes: renamed (`--duplicate-ids
/// suffix`) as in one process; by default an error naming both places, as in one process.
#[test]
fn repeated_ids_across_shares() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    corpus(d);
    // The first 5 documents again at the end, and document 700 in the middle.
    let dup = edited_corpus(d, "dup.jsonl", |l| {
        let first: Vec<String> = l[..5].to_vec();
        let mid = l[700].clone();
        l.extend(first);
        l.insert(1000, mid);
    });
    for command in ["cluster", "dedup"] {
        let args = [
            command,
            s(&dup),
            "--threshold",
            "0.8",
            "--duplicate-ids",
            "suffix",
        ];
        let one = single(d, &format!("suffix-{command}"), &args);
        let one_sum = read_json(&one.join("summary.json"));
        assert_eq!(one_sum["documents"], DOCS + 6);
        if command == "cluster" {
            assert_eq!(one_sum["renamed_ids"], 6);
        }
        for (n, w) in [(2, 1), (3, 1)] {
            let run = run_dist(d, &format!("suffix-{command}-{n}x{w}"), &args, n, w);
            run.assert_ok();
            assert_same_dir(&one, &run);
            let keys = ["documents", "renamed_ids"];
            check_summary(&run, n, w, DOCS + 6, &one_sum, &keys);
        }
    }
    let args = ["cluster", s(&dup), "--threshold", "0.8"];
    let want = single_error(d, "dup-single", &args);
    assert!(want.contains("duplicate id"), "{want}");
    // Under a budget the ids are checked in passes over slices of their hashes: the same
    // earliest repeat is reported.
    let budgeted = [&args[..], &["--memory-budget", "64KiB", "--tmp-dir", "tmp"]].concat();
    for (name, args) in [("dup-3x1", &args[..]), ("dup-3x1-budget", &budgeted[..])] {
        let run = run_dist(d, name, args, 3, 1);
        let err0 = &run.procs[0].stderr;
        assert_eq!(run.procs[0].status.code(), Some(2), "{}", run.stderr());
        assert!(
            err0.contains(&want),
            "{name}: process 0: {err0:?}, one process: {want:?}"
        );
        for p in &run.procs {
            assert_eq!(entries(&p.cwd), ["tmp"], "{}", p.cwd.display());
        }
    }
}

// ---------------------------------------------------------------------------------------
// Fail-stop

/// Whether `stderr` names process `p` of `run`: "process P" or its host:port.
pub(crate) fn names_peer(stderr: &str, p: usize, ports: &[u16]) -> bool {
    stderr.contains(&format!("process {p}")) || stderr.contains(&format!("127.0.0.1:{}", ports[p]))
}

/// The fail-stop corpus, [`FAIL_STOP_DOCS`] generated documents, in `d/gen`.
fn fail_stop_corpus(d: &Path) -> PathBuf {
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
    gen.join("docs.jsonl")
}

/// Starts 3 processes of `args` in `root` and lets them run about a second; all must still
/// be running then.
fn start_running(root: &Path, args: &[&str]) -> (Vec<Proc>, Vec<u16>) {
    let (mut procs, ports) = start(root, args, 3, 1);
    std::thread::sleep(Duration::from_secs(1));
    for (p, proc) in procs.iter_mut().enumerate() {
        if let Some(st) = proc.child.try_wait().unwrap() {
            let err = fs::read_to_string(&proc.stderr).unwrap_or_default();
            panic!("process {p} ended ({st}) within a second (FAIL_STOP_DOCS too small?): {err}");
        }
    }
    (procs, ports)
}

/// Starts 3 processes of `args` in `root`, SIGKILLs process `victim` after about a second
/// (all must still be running), and waits at most 30 s for the others, which must exit 2,
/// each naming a lost peer ("process K" or its address), and write nothing (process 0
/// included, when it survives: no output, no temporary file). Returns the survivors'
/// standard errors by process and the ports.
fn kill_one(root: &Path, args: &[&str], victim: usize) -> (BTreeMap<usize, String>, Vec<u16>) {
    let (mut procs, ports) = start_running(root, args);
    procs[victim].child.kill().unwrap();
    let killed_at = Instant::now();
    let mut killed = procs.remove(victim);
    let st = killed.child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(st.signal(), Some(libc::SIGKILL));
    let what = format!("after the kill of process {victim}");
    let done = wait_all(procs, killed_at + Duration::from_secs(30), &what);
    let secs = killed_at.elapsed().as_secs_f64();
    eprintln!("fail-stop: the others exited {secs:.1} s after the kill of process {victim}");
    let errs = check_survivors(&done, victim, &ports, &format!("{what} ({secs:.1} s)"));
    // A killed process 0 had not written its output either.
    assert!(!killed.cwd.join("out").exists());
    (errs, ports)
}

/// The processes of a run of 3 but `victim`, after its death: each exited 2 naming a lost
/// peer (it may notice another survivor's exit first: it names some other process) and
/// left its working directory as it found it. Returns their standard errors.
fn check_survivors(
    done: &[Done],
    victim: usize,
    ports: &[u16],
    what: &str,
) -> BTreeMap<usize, String> {
    let survivors: Vec<usize> = (0..3).filter(|&p| p != victim).collect();
    let mut errs = BTreeMap::new();
    for (e, &p) in done.iter().zip(&survivors) {
        assert_eq!(e.status.code(), Some(2), "process {p} {what}: {}", e.stderr);
        assert!(
            (0..3).any(|q| q != p && names_peer(&e.stderr, q, ports)),
            "process {p} names no lost peer {what}: {}",
            e.stderr
        );
        assert_eq!(entries(&e.cwd), ["tmp"], "{what}: {}", e.cwd.display());
        assert!(entries(&e.cwd.join("tmp")).is_empty(), "{what}");
        errs.insert(p, e.stderr.clone());
    }
    errs
}

/// Fail-stop: SIGKILL of process 1, then of process 0, in the middle of a run of several
/// seconds.
#[test]
fn killing_one_process_stops_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = fail_stop_corpus(d);
    // Stemming makes the sketch, which every process does, the long part of the run.
    let args = ["cluster", s(&input), "--threshold", "0.8", "--stem"];
    let (errs, ports) = kill_one(&d.join("kill-1"), &args, 1);
    assert!(
        names_peer(&errs[&0], 1, &ports),
        "process 0 does not name the lost process 1 (127.0.0.1:{}): {}",
        ports[1],
        errs[&0]
    );
    let (errs, ports) = kill_one(&d.join("kill-0"), &args, 0);
    assert!(
        errs.values().any(|e| names_peer(e, 0, &ports)),
        "no process names the lost process 0 (127.0.0.1:{}): {errs:?}",
        ports[0]
    );
}

/// A frozen process (SIGSTOP: its connections stay open) stops the others through the
/// heartbeats: with `--peer-timeout 2`, the other two exit 2 within 30 s, naming the frozen
/// process and its silence, and write nothing. The frozen one is killed afterwards.
#[test]
fn a_frozen_process_stops_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = fail_stop_corpus(d);
    let args = [
        "cluster",
        s(&input),
        "--threshold",
        "0.8",
        "--stem",
        "--peer-timeout",
        "2",
    ];
    let victim = 1;
    let (mut procs, ports) = start_running(&d.join("freeze"), &args);
    let pid = procs[victim].child.id() as libc::pid_t;
    // SAFETY: a plain signal to a child process of this test.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGSTOP) }, 0);
    let frozen_at = Instant::now();
    let mut frozen = procs.remove(victim);
    let what = format!("after the freeze of process {victim}");
    let done = wait_all(procs, frozen_at + Duration::from_secs(30), &what);
    let secs = frozen_at.elapsed().as_secs_f64();
    eprintln!("freeze: the others exited {secs:.1} s after process {victim} was stopped");
    let errs = check_survivors(&done, victim, &ports, &format!("{what} ({secs:.1} s)"));
    assert!(
        errs.values()
            .any(|e| names_peer(e, victim, &ports) && e.contains("sent no heartbeat")),
        "no process names the frozen process {victim} and its silence: {errs:?}"
    );
    frozen.child.kill().unwrap();
    frozen.child.wait().unwrap();
}

/// Fail-stop in the later stages of a divided run: one of 3 processes kills itself
/// (SIGKILL, from the fail point `dataflow-after-STAGE` of the `failpoints` feature) as it
/// leaves a stage, while the others go on to the next: the components stage (after the
/// pairs), the per-group stage (after the components), the kept parts of a deduplication
/// (after the per-group stage). The others exit 2 naming a lost peer within the time
/// limit, and nothing is written (no part of the kept records either).
#[test]
fn a_process_dying_in_the_later_stages_stops_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = corpus(d);
    for (command, victim, after) in [
        ("cluster", 1, "pairs"),
        ("cluster", 2, "components"),
        ("cluster", 0, "components"),
        ("dedup", 1, "per-group"),
        ("dedup", 0, "per-group"),
    ] {
        let what = format!("{command}: process {victim} killed after the stage {after}");
        let args = [
            command,
            s(&input),
            "--threshold",
            "0.8",
            "--verify",
            "exact",
        ];
        let root = d.join(format!("{command}-{victim}-{after}"));
        let point = format!("dataflow-after-{after}=return");
        let env = Some((victim, ("FAILPOINTS", point.as_str())));
        let (mut procs, ports) = start_env(&root, &args, 3, 1, env);
        let mut killed = procs.remove(victim);
        let st = killed.child.wait().unwrap();
        use std::os::unix::process::ExitStatusExt;
        let err = fs::read_to_string(&killed.stderr).unwrap_or_default();
        assert_eq!(st.signal(), Some(libc::SIGKILL), "{what}: {st}: {err}");
        let done = wait_all(procs, Instant::now() + Duration::from_secs(30), &what);
        check_survivors(&done, victim, &ports, &what);
        assert!(!killed.cwd.join("out").exists(), "{what}");
    }
}

// ---------------------------------------------------------------------------------------
// Resume

/// Runs `args` on `n` x `w` in `d/killed-{tag}`, process `victim` given the fail point
/// `point` (`NAME=return`: it SIGKILLs itself there): the victim was killed and every
/// other process exited 2; those others, ended.
fn killed_run(
    d: &Path,
    tag: &str,
    args: &[&str],
    (n, w): (usize, usize),
    victim: usize,
    point: &str,
) -> Vec<Done> {
    use std::os::unix::process::ExitStatusExt;
    let env = Some((victim, ("FAILPOINTS", point)));
    let (mut procs, _) = start_env(&d.join(format!("killed-{tag}")), args, n, w, env);
    let mut killed = procs.remove(victim);
    let st = killed.child.wait().unwrap();
    assert_eq!(st.signal(), Some(libc::SIGKILL), "{tag}: {st}");
    let done = wait_all(procs, Instant::now() + Duration::from_secs(30), tag);
    for e in &done {
        assert_eq!(e.status.code(), Some(2), "{tag}: {}", e.stderr);
    }
    done
}

/// A run kept in a run directory, killed as it leaves a stage after the per-group one
/// (process `victim` SIGKILLs itself at the fail point `dataflow-after-output`, or
/// `dataflow-after-write-part` for a deduplication's kept part; the others exit 2 and
/// remove the parts they wrote): every
/// worker kept both its checkpoints, and `--resume` restarts after the per-group stage
/// (the summary says so) and ends with the one-process bytes, leaving only the runs'
/// records.
#[test]
#[cfg_attr(not(feature = "failpoints"), ignore = "needs the `failpoints` feature")]
fn a_run_killed_after_the_per_group_stage_resumes_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = corpus(d);
    let args = [
        "cluster",
        s(&input),
        "--threshold",
        "0.8",
        "--verify",
        "exact",
    ];
    let dedup = [
        "dedup",
        s(&input),
        "--threshold",
        "0.8",
        "--verify",
        "exact",
    ];
    let cases = [
        (args, 2, 1, 1, "dataflow-after-output=return"),
        (dedup, 2, 1, 0, "dataflow-after-write-part=return"),
    ];
    for (args, n, w, victim, point) in cases {
        let one = single(d, &format!("single-{}", args[0]), &args);
        let tag = format!("{}-{n}x{w}", args[0]);
        let rd = d.join(format!("rd-{tag}"));
        let kept = [&args[..], &["--run-dir", s(&rd)]].concat();
        for e in killed_run(d, &tag, &kept, (n, w), victim, point) {
            // It had written its parts: the failed run removed them.
            let out = e.cwd.join("out");
            let left = if out.exists() {
                entries(&out)
            } else {
                Vec::new()
            };
            assert!(left.is_empty(), "{tag}: {left:?} left in {}", out.display());
        }
        for p in 0..n {
            let names = entries(&rd.join(format!("process-{p:05}")));
            for ext in [".after-pairs", ".after-groups"] {
                let count = names.iter().filter(|e| e.ends_with(ext)).count();
                assert_eq!(count, w, "{tag}: process {p}: {names:?}");
            }
        }
        let resumed = [&kept[..], &["--resume"]].concat();
        let run = run_dist(d, &format!("resumed-{tag}"), &resumed, n, w);
        run.assert_ok();
        assert_same_dir(&one, &run);
        let dist = &run.summary()["distributed"];
        assert_eq!(dist["resumed_after"], "per group", "{tag}: {dist}");
        for p in 0..n {
            let pd = rd.join(format!("process-{p:05}"));
            assert_eq!(entries(&pd), ["run.json"], "{tag}: {}", pd.display());
        }
    }
}

/// A run kept in a run directory, killed in its components stage (process `victim`
/// SIGKILLs itself at the fail point `dataflow-in-components` of the `failpoints`
/// feature; the others exit 2), then started again with `--resume`: it ends as an
/// uninterrupted run does, its parts concatenated are the one-process files byte for
/// byte, and its summary says it restarted after the pairs stage (every worker had its
/// checkpoint). A resume with another threshold, another process count, no run directory
/// or an input modified since is refused with exit 2, naming what differs, and writes no
/// output. A
/// deduplication resumes the same way, its kept records' parts the one-process file.
#[test]
#[cfg_attr(not(feature = "failpoints"), ignore = "needs the `failpoints` feature")]
fn a_run_killed_in_the_components_stage_resumes_after_the_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = corpus(d);
    let args = ["cluster", s(&input), "--threshold", "0.8"];
    let dedup = ["dedup", s(&input), "--threshold", "0.8"];
    for (args, n, w, victim) in [(args, 2, 1, 1), (args, 1, 2, 0), (dedup, 2, 1, 0)] {
        let one = single(d, &format!("single-{}", args[0]), &args);
        let tag = format!("{}-{n}x{w}", args[0]);
        let rd = d.join(format!("rd-{tag}"));
        let mut kept = args.to_vec();
        kept.extend(["--run-dir", s(&rd)]);
        let point = "dataflow-in-components=return";
        for e in killed_run(d, &tag, &kept, (n, w), victim, point) {
            assert!(!e.cwd.join("out").exists(), "{tag}");
        }
        // Every worker kept its checkpoint after the pairs.
        for p in 0..n {
            let pd = rd.join(format!("process-{p:05}"));
            let ckpts = (entries(&pd).iter())
                .filter(|e| e.ends_with(".after-pairs"))
                .count();
            assert_eq!(ckpts, w, "{tag}: {}", pd.display());
        }

        let mut resumed = kept.clone();
        resumed.push("--resume");
        let run = run_dist(d, &format!("resumed-{tag}"), &resumed, n, w);
        run.assert_ok();
        assert_same_dir(&one, &run);
        // The finished run left its records, not its checkpoints.
        for p in 0..n {
            let pd = rd.join(format!("process-{p:05}"));
            assert_eq!(entries(&pd), ["run.json"], "{tag}: {}", pd.display());
        }
        let dist = &run.summary()["distributed"];
        assert_eq!(dist["resumed_after"], "pairs", "{tag}: {dist}");
        assert_eq!(dist["processes"], n);
        // An uninterrupted run says nothing of a resume.
        let fresh = run_dist(d, &format!("fresh-{tag}"), &kept, n, w);
        fresh.assert_ok();
        assert_same_dir(&one, &fresh);
        assert!(fresh.summary()["distributed"]
            .get("resumed_after")
            .is_none());

        // Another threshold: refused by every process, naming it.
        let mut other = resumed.clone();
        other[3] = "0.7";
        let run = run_dist(d, &format!("threshold-{tag}"), &other, n, w);
        for e in &run.procs {
            assert_eq!(e.status.code(), Some(2), "{tag}: {}", e.stderr);
            assert!(
                e.stderr.contains("threshold") && e.stderr.contains("0.7"),
                "{tag}: {}",
                e.stderr
            );
            assert!(!e.cwd.join("out").exists(), "{tag}");
        }
    }

    // Another number of processes: the recorded ones name it, the new one has no record.
    let rd = d.join("rd-cluster-2x1");
    let resumed = [&args[..], &["--run-dir", s(&rd), "--resume"]].concat();
    let run = run_dist(d, "three", &resumed, 3, 1);
    for (p, e) in run.procs.iter().enumerate() {
        assert_eq!(e.status.code(), Some(2), "process {p}: {}", e.stderr);
        let want = if p < 2 {
            "the number of processes: 3 now, 2 recorded"
        } else {
            "no run of process 2 to resume"
        };
        assert!(e.stderr.contains(want), "process {p}: {}", e.stderr);
        assert!(!e.cwd.join("out").exists(), "process {p}");
    }

    // --resume without --run-dir.
    let out = d.join("no-run-dir");
    let o = common::run(&[&args[..], &["--workers", "2", "--resume", "--out", s(&out)]].concat());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--run-dir"), "{err}");
    assert!(!out.exists());

    // The input modified since (same bytes, a later modification time): refused, naming it.
    let later = std::time::SystemTime::now() + Duration::from_secs(3600);
    let f = fs::File::options().write(true).open(&input).unwrap();
    f.set_modified(later).unwrap();
    drop(f);
    let run = run_dist(d, "modified", &resumed, 2, 1);
    for (p, e) in run.procs.iter().enumerate() {
        assert_eq!(e.status.code(), Some(2), "process {p}: {}", e.stderr);
        assert!(
            e.stderr.contains("the input") && e.stderr.contains("modified at"),
            "process {p}: {}",
            e.stderr
        );
        assert!(!e.cwd.join("out").exists(), "process {p}");
    }
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

// ---------------------------------------------------------------------------------------
// Hostile shapes: a long path whose every edge joins two processes, a dense star beside
// many singletons. The divided run must give the single-process bytes whatever the shape
// of the pair graph.

/// Word `j` of the hostile corpora: a distinct token for each `j`.
fn word(j: u64) -> String {
    format!("w{j:x}")
}

/// Writes `docs` (id, words) as JSONL at `path`.
fn write_docs(path: &Path, docs: &[(String, Vec<u64>)]) {
    let mut text = String::new();
    for (id, words) in docs {
        let t: Vec<String> = words.iter().map(|&j| word(j)).collect();
        text += &serde_json::json!({"id": id, "text": t.join(" ")}).to_string();
        text.push('\n');
    }
    fs::write(path, text).unwrap();
}

/// The documents of a path: document `i` holds words `20 i .. 20 i + 300`, so neighbours
/// resemble at about 0.87 and documents two apart at about 0.76 (word 4-shingles). They
/// are written in the order `(i % 3, i / 3)`: with three processes reading a third of the
/// file each, every edge of the path joins documents of two processes.
fn path_docs(n: u64) -> Vec<(String, Vec<u64>)> {
    let mut order: Vec<u64> = (0..n).collect();
    order.sort_by_key(|&i| (i % 3, i / 3));
    (order.into_iter())
        .map(|i| (format!("p{i}"), (20 * i..20 * i + 300).collect()))
        .collect()
}

/// A star and singletons: a 300-word centre, `leaves` copies of it with five words
/// replaced (one in each 60-word stretch, at a position drawn per leaf), and `singles`
/// documents of words of their own, interleaved by a fixed permutation.
fn star_docs(leaves: u64, singles: u64) -> Vec<(String, Vec<u64>)> {
    let mix = |x: u64| {
        let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let centre: Vec<u64> = (1_000_000..1_000_300).collect();
    let mut docs = vec![("c".to_string(), centre.clone())];
    for j in 0..leaves {
        let mut t = centre.clone();
        for m in 0..5 {
            let at = 60 * m + mix(j * 5 + m) % 60;
            t[at as usize] = 2_000_000 + 5 * j + m;
        }
        docs.push((format!("l{j}"), t));
    }
    for s in 0..singles {
        let base = 3_000_000 + 300 * s;
        docs.push((format!("s{s}"), (base..base + 300).collect()));
    }
    docs.sort_by_key(|(id, _)| mix(id.bytes().fold(7, |h, b| h * 131 + u64::from(b))));
    docs
}

/// `cluster` on `input` in one process and on each layout (with `divided_flags`): the same
/// bytes; returns the single-process summary and each layout's.
fn hostile_matches_single_process(
    d: &Path,
    input: &Path,
    method: &str,
    layouts: &[(usize, usize)],
    divided_flags: &[&str],
) -> (Value, Vec<Value>) {
    let args = [
        "cluster",
        s(input),
        "--method",
        method,
        "--threshold",
        "0.8",
    ];
    let tag = format!("{}-{method}", input.file_stem().unwrap().to_string_lossy());
    let one = single(d, &tag, &args);
    let one_sum = read_json(&one.join("summary.json"));
    let mut sums = Vec::new();
    for &(n, w) in layouts {
        let flagged: Vec<&str> = args.iter().chain(divided_flags).copied().collect();
        let run = run_dist(d, &format!("{tag}-{n}x{w}"), &flagged, n, w);
        run.assert_ok();
        assert_same_dir(&one, &run);
        let docs = one_sum["documents"].as_u64().unwrap() as usize;
        check_summary(&run, n, w, docs, &one_sum, &GRAPH_FIELDS);
        check_divided(&run, &one_sum, true);
        sums.push(run.summary());
    }
    (one_sum, sums)
}

#[test]
fn a_path_across_processes_matches_single_process() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let n = 12_000;
    let input = d.join("path.jsonl");
    write_docs(&input, &path_docs(n));
    let flags = ["--giant-groups", "divided"];
    let layouts = [(3, 1), (2, 2)];
    let (sum, runs) = hostile_matches_single_process(d, &input, "concept", &layouts, &flags);
    // The largest chain's mining is divided: every process mines a part of its sets.
    for run in &runs {
        assert_eq!(run["distributed"]["giant_groups"], "divided", "{run}");
        let per = run["distributed"]["per_process"].as_array().unwrap();
        for p in per {
            let mined = p["mined_in_parts"].as_u64().unwrap_or(0);
            assert!(mined > 0, "process {} mined no part: {run}", p["process"]);
        }
    }
    // The shape holds: most documents sit in a few long chains, about one edge a document.
    let largest = sum["largest_component"].as_u64().unwrap();
    let edges = sum["edges"].as_u64().unwrap();
    assert!(largest >= n / 4, "largest component {largest}: {sum}");
    assert!(
        edges >= n - n / 10 && edges <= 2 * n,
        "edges {edges}: {sum}"
    );
    assert!(sum["largest_cluster"].as_u64().unwrap() <= 8, "{sum}");
    // Over the itemset limit in the giant group's mining, the divided mining stops every
    // process with the miner's error.
    let limit = "100";
    let args = [
        "cluster",
        s(&input),
        "--method",
        "concept",
        "--threshold",
        "0.8",
        "--max-itemsets",
        limit,
        "--giant-groups",
        "divided",
    ];
    let said = format!("more than {limit} itemsets");
    let run = run_dist(d, "path-limit", &args, 3, 1);
    for (p, done) in run.procs.iter().enumerate() {
        assert_eq!(done.status.code(), Some(2), "process {p}: {}", run.stderr());
        assert!(entries(&done.cwd.join("tmp")).is_empty(), "process {p}");
    }
    assert!(run.procs[0].stderr.contains(&said), "{}", run.stderr());
    assert!(!run.out().join("clusters.part-00000.jsonl").exists());
}

#[test]
fn a_star_beside_singletons_matches_single_process() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (leaves, singles) = (1_500, 3_500);
    let input = d.join("star.jsonl");
    write_docs(&input, &star_docs(leaves, singles));
    let (sum, runs) =
        hostile_matches_single_process(d, &input, "union-find", &[(3, 1), (2, 2)], &[]);
    // Their owners mine the giant groups by default (and union-find mines nothing).
    for run in &runs {
        assert!(run["distributed"].get("giant_groups").is_none(), "{run}");
        for p in run["distributed"]["per_process"].as_array().unwrap() {
            assert!(p.get("mined_in_parts").is_none(), "{run}");
        }
    }
    // One component of the centre and its leaves (30 % of the documents), the rest alone.
    assert_eq!(sum["components"], 1, "{sum}");
    let largest = sum["largest_component"].as_u64().unwrap();
    assert!(
        largest >= leaves * 95 / 100 && largest <= leaves + 1,
        "{sum}"
    );
    assert_eq!(sum["documents"], leaves + 1 + singles, "{sum}");
}

/// Stars of `sizes` leaves each (as [`star_docs`]'s, each around a centre of its own) and
/// `singles` documents alone, interleaved by a fixed permutation.
fn stars_docs(sizes: &[u64], singles: u64) -> Vec<(String, Vec<u64>)> {
    let mix = |x: u64| {
        let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let mut docs = Vec::new();
    for (k, &leaves) in sizes.iter().enumerate() {
        let k = k as u64;
        let centre: Vec<u64> = (1_000_000 + 1_000 * k..1_000_300 + 1_000 * k).collect();
        docs.push((format!("c{k}"), centre.clone()));
        for j in 0..leaves {
            let mut t = centre.clone();
            for m in 0..5 {
                let at = 60 * m + mix((k << 32) + j * 5 + m) % 60;
                t[at as usize] = 2_000_000 + 100_000 * k + 5 * j + m;
            }
            docs.push((format!("l{k}-{j}"), t));
        }
    }
    for s in 0..singles {
        let base = 5_000_000 + 300 * s;
        docs.push((format!("s{s}"), (base..base + 300).collect()));
    }
    docs.sort_by_key(|(id, _)| mix(id.bytes().fold(7, |h, b| h * 131 + u64::from(b))));
    docs
}

#[test]
fn a_few_components_among_singletons_match_single_process_and_spread_the_links() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sizes = [700, 350, 200, 120, 80, 50];
    let singles = 4_000;
    let input = d.join("stars.jsonl");
    write_docs(&input, &stars_docs(&sizes, singles));
    let args = [
        "cluster",
        s(&input),
        "--method",
        "union-find",
        "--threshold",
        "0.8",
    ];
    let one = single(d, "stars-one", &args);
    let one_sum = read_json(&one.join("summary.json"));
    let docs = sizes.iter().sum::<u64>() + sizes.len() as u64 + singles;
    assert_eq!(one_sum["documents"], docs, "{one_sum}");
    assert_eq!(one_sum["components"], sizes.len(), "{one_sum}");
    let largest = one_sum["largest_component"].as_u64().unwrap();
    assert!((650..=701).contains(&largest), "{one_sum}");
    for (n, w) in [(3, 1), (2, 2)] {
        let run = run_dist(d, &format!("stars-{n}x{w}"), &args, n, w);
        run.assert_ok();
        assert_same_dir(&one, &run);
        check_summary(&run, n, w, docs as usize, &one_sum, &GRAPH_FIELDS);
        check_divided(&run, &one_sum, true);
        let sum = run.summary();
        let per = sum["distributed"]["per_process"]
            .as_array()
            .unwrap()
            .clone();
        let stage = |p: usize, k: &str| per[p]["stages"]["components"][k].as_u64().unwrap();
        let rounds = per[0]["component_rounds"].as_u64().unwrap();
        for e in &per {
            assert_eq!(e["component_rounds"].as_u64(), Some(rounds), "{sum}");
        }
        assert!(rounds >= 1, "{}: {sum}", run.name);
        // Before, worker 0 received every other process's links (8 bytes each) in one round.
        // Now each round brings process 0 its share of the arcs: over the stage's rounds
        // of arcs and labels (two an iteration, the last check and the labels' round), on
        // average less than half of those links.
        let links_elsewhere: u64 = (1..n).map(|p| stage(p, "count")).sum();
        let got = stage(0, "bytes_received");
        let exchanges = 2 * rounds + 2;
        assert!(
            got / exchanges < 8 * links_elsewhere / 2,
            "{}: process 0 received {got} bytes in {exchanges} rounds, the other processes \
             started from {links_elsewhere} links: {sum}",
            run.name
        );
    }
}
