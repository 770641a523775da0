//! Corpora in object storage (`fimdup::corpus::remote`), against moto's S3 server
//! (`python -m moto.server`, from `pip install "moto[server]"`, with the Python named by
//! `FIMDUP_PYTHON`; without it the tests say so and pass, except under CI):
//! - the shards of `shards.rs` uploaded to a bucket, read through a pattern
//!   (`s3://corpus/shards/part-*`) and a prefix with `--format jsonl`, give in one process
//!   the bytes of the same runs over the files on disk;
//! - divided over 2 processes, the pattern gives the bytes of the one-process run over the
//!   files, in divided mode, and each process reports the bytes read that the divided run
//!   over the files on disk reports;
//! - one Parquet object with many row groups (pyarrow), and a prefix of Parquet objects
//!   without `--format` (one Parquet corpus, as the directory on disk is), run divided by
//!   row groups, each process fetching the footers and its row groups, with the bytes of
//!   the files on disk;
//! - `sketch` (one process and two), `index build`, `index add` and `index query --jsonl`
//!   read a URL as they read the files on disk (the same images file, the same answers);
//! - a divided run over the pattern kept in a run directory and killed in its components
//!   stage resumes (`--resume`) after the pairs: the
//!   staged shards are recorded by their URLs, so staging them again is the same run;
//! - `--out s3://...`: the one-process cluster and dedup runs (with a kept-records file
//!   large enough to go up in parts) and a divided run (each process its parts) leave
//!   under the prefix the bytes of the same runs' local outputs;
//! - a missing bucket and an endpoint where nothing listens stop the run with exit 2,
//!   naming the URL, with no output (for a corpus and for an output URL);
//! - credentials the server refuses stop a run reading a corpus there or writing its
//!   output there with exit 2, naming the URL and the refusal, with no output.

use std::fs;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{self, s};
use crate::distributed::{
    assert_same_dir, free_ports, read_json, run_dist, run_dist_env, single, tree,
};
use crate::shards::sharded;

/// moto's server on a free port, stopped when dropped.
struct Moto {
    child: Child,
    port: u16,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Moto {
    /// Starts the server with `python` and waits (at most 60 s) until it accepts
    /// connections.
    fn start(python: &Path, log: &Path) -> Moto {
        Moto::start_env(python, log, &[])
    }

    /// [`Moto::start`], the server given the environment variables `env`.
    fn start_env(python: &Path, log: &Path, env: &[(&str, &str)]) -> Moto {
        let port = free_ports(1)[0];
        let child = Command::new(python)
            .envs(env.iter().copied())
            .args([
                "-m",
                "moto.server",
                "-H",
                "127.0.0.1",
                "-p",
                &port.to_string(),
            ])
            .stdin(Stdio::null())
            .stdout(fs::File::create(log.with_extension("stdout")).unwrap())
            .stderr(fs::File::create(log.with_extension("stderr")).unwrap())
            .spawn()
            .unwrap();
        let moto = Moto { child, port };
        let end = Instant::now() + Duration::from_secs(60);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < end,
                "moto's server did not start on {port}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        moto
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// The environment that points the crate at `endpoint`.
fn env(endpoint: &str) -> Vec<(&'static str, String)> {
    vec![
        ("AWS_ACCESS_KEY_ID", "testing".into()),
        ("AWS_SECRET_ACCESS_KEY", "testing".into()),
        ("AWS_REGION", "us-east-1".into()),
        ("AWS_ENDPOINT_URL", endpoint.into()),
        ("AWS_ALLOW_HTTP", "true".into()),
    ]
}

/// `env` as the pairs of string slices a command takes.
fn refs<'a>(env: &'a [(&'static str, String)]) -> Vec<(&'a str, &'a str)> {
    env.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

/// A test's temporary directory with the shards of `shards.rs` in it and uploaded to
/// moto's server under `s3://corpus/shards/` ([`moto_with_shards`]).
struct WithShards {
    /// The server, stopped when dropped (before the directory holding its log).
    _moto: Moto,
    dir: tempfile::TempDir,
    /// The shards' directory on disk.
    shards: PathBuf,
    /// The environment that points the crate at the server.
    env: Vec<(&'static str, String)>,
}

/// moto's server started in a new temporary directory with the shards of `shards.rs`
/// uploaded under `s3://corpus/shards/`; `None` without a Python with moto (the test then
/// passes, as [`common::python_with_moto`] says).
fn moto_with_shards() -> Option<WithShards> {
    let python = common::python_with_moto()?;
    let dir = tempfile::tempdir().unwrap();
    let moto = Moto::start(&python, &dir.path().join("moto"));
    let (_, shards) = sharded(dir.path());
    upload(&python, &moto.endpoint(), "corpus", &shards, "shards");
    let env = env(&moto.endpoint());
    Some(WithShards {
        _moto: moto,
        dir,
        shards,
        env,
    })
}

/// Creates `bucket` and uploads every file of `dir` under `prefix/` (with boto3).
fn upload(python: &Path, endpoint: &str, bucket: &str, dir: &Path, prefix: &str) {
    let script = r#"
import os, sys, boto3
endpoint, bucket, d, prefix = sys.argv[1:5]
c = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="testing",
                 aws_secret_access_key="testing", region_name="us-east-1")
c.create_bucket(Bucket=bucket)
for name in sorted(os.listdir(d)):
    c.upload_file(os.path.join(d, name), bucket, prefix + "/" + name)
print(len(c.list_objects_v2(Bucket=bucket, Prefix=prefix + "/")["Contents"]))
"#;
    let out = common::run_python(python, script, &[endpoint, bucket, s(dir), prefix]);
    let n = fs::read_dir(dir).unwrap().count();
    assert_eq!(out.trim(), n.to_string(), "objects uploaded");
}

/// Creates the empty `bucket`.
fn make_bucket(python: &Path, endpoint: &str, bucket: &str) {
    let script = r#"
import sys, boto3
endpoint, bucket = sys.argv[1:3]
c = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="testing",
                 aws_secret_access_key="testing", region_name="us-east-1")
c.create_bucket(Bucket=bucket)
"#;
    common::run_python(python, script, &[endpoint, bucket]);
}

/// Downloads every object under `bucket/prefix/` into `dir` (by its key below the prefix,
/// with boto3); returns `dir`.
fn download(python: &Path, endpoint: &str, bucket: &str, prefix: &str, dir: &Path) -> PathBuf {
    let script = r#"
import os, sys, boto3
endpoint, bucket, prefix, d = sys.argv[1:5]
c = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="testing",
                 aws_secret_access_key="testing", region_name="us-east-1")
n = 0
for page in c.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix + "/"):
    for o in page.get("Contents", []):
        path = os.path.join(d, o["Key"][len(prefix) + 1:])
        os.makedirs(os.path.dirname(path), exist_ok=True)
        c.download_file(bucket, o["Key"], path)
        n += 1
print(n)
"#;
    fs::create_dir_all(dir).unwrap();
    common::run_python(python, script, &[endpoint, bucket, prefix, s(dir)]);
    dir.to_path_buf()
}

/// `fimdup args` with `env`: its standard output; the run must succeed.
fn fimdup_env(args: &[&str], env: &[(&str, String)]) -> Vec<u8> {
    let o = common::fimdup(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "fimdup {args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

/// `fimdup args --out dir/name` with `env`: the output directory; the run must succeed.
fn single_env(dir: &Path, name: &str, args: &[&str], env: &[(&str, String)]) -> PathBuf {
    let out = dir.join(name);
    let mut a = args.to_vec();
    a.extend(["--out", s(&out)]);
    fimdup_env(&a, env);
    out
}

/// `fimdup args` pointed at the server at `endpoint`: it must exit 2, naming `url`, with
/// nothing at `out`; its standard error.
fn refused(what: &str, args: &[&str], endpoint: &str, url: &str, out: &Path) -> String {
    let o = common::fimdup(args).envs(env(endpoint)).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{what}: {err}");
    assert!(
        err.contains(url),
        "{what}: the error must name {url}: {err}"
    );
    assert!(!out.exists(), "{what}: output written");
    err
}

/// The bytes read by each process of a divided run's summary.
fn bytes_read(sum: &serde_json::Value) -> Vec<u64> {
    assert_eq!(sum["distributed"]["mode"], "divided", "{sum}");
    (sum["distributed"]["per_process"].as_array().unwrap().iter())
        .map(|p| p["bytes_read"].as_u64().expect("bytes_read"))
        .collect()
}

#[test]
fn objects_read_as_the_same_files_on_disk() {
    let Some(t) = moto_with_shards() else {
        return;
    };
    let (d, shards, env) = (t.dir.path(), &t.shards, &t.env);
    let local_pattern = format!("{}/part-*", shards.display());
    let cases = [
        (
            "pattern",
            vec!["cluster", &local_pattern, "--threshold", "0.8"],
            vec!["cluster", "s3://corpus/shards/part-*", "--threshold", "0.8"],
        ),
        (
            "prefix",
            vec![
                "cluster",
                s(shards),
                "--format",
                "jsonl",
                "--threshold",
                "0.8",
            ],
            vec![
                "cluster",
                "s3://corpus/shards/",
                "--format",
                "jsonl",
                "--threshold",
                "0.8",
            ],
        ),
    ];
    for (name, local, remote) in &cases {
        let want = single(d, &format!("{name}-local"), local);
        let want_files = tree(&want, &["summary.json"]);
        assert!(want_files.len() >= 2, "{name}: {want_files:?}");
        let sum = read_json(&want.join("summary.json"));
        assert_eq!(sum["documents"], crate::shards::DOCS, "{name}");
        assert!(sum["clusters"].as_u64().is_some_and(|c| c > 10), "{sum}");
        let got = single_env(d, &format!("{name}-s3"), remote, env);
        assert!(
            tree(&got, &["summary.json"]) == want_files,
            "{name}: the outputs differ"
        );
        let got_sum = read_json(&got.join("summary.json"));
        assert_eq!(got_sum["documents"], sum["documents"], "{name}");
        assert_eq!(got_sum["clusters"], sum["clusters"], "{name}");
    }

    // Divided over 2 processes: the one-process run's bytes, each process reading what it
    // reads from the files on disk.
    let one = d.join("pattern-local");
    let env_ref = refs(env);
    let local = run_dist(d, "local-2x1", &cases[0].1, 2, 1);
    local.assert_ok();
    let remote = run_dist_env(d, "s3-2x1", &cases[0].2, 2, 1, &env_ref);
    remote.assert_ok();
    assert_same_dir(&one, &remote);
    let (want, got) = (bytes_read(&local.summary()), bytes_read(&remote.summary()));
    assert_eq!(got, want, "bytes read per process");
    let total: u64 = (fs::read_dir(shards).unwrap())
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert_eq!(got.iter().sum::<u64>(), total);
    assert!(got.iter().all(|&b| b < total), "{got:?} of {total}");
}

/// Parquet in object storage, written by pyarrow, run divided by row groups: one object (16
/// row groups) over 2 processes, and a prefix of three Parquet objects given without
/// `--format` (`s3://corpus/pqs/`, one Parquet corpus as a local directory of Parquet files
/// is) over 2 and 3. Each process fetches the footers, then the row groups that start in its
/// bytes: in one process and divided, the run gives the bytes, and each process the bytes
/// read, of the same run over the files on disk, and no process of several fetches them all.
#[cfg(feature = "parquet")]
#[test]
fn parquet_objects_are_divided_by_row_groups() {
    let Some(python) = common::python_with_moto() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let moto = Moto::start(&python, &d.join("moto"));
    let (_, pq) = crate::shards::row_groups(d, &python);
    upload(&python, &moto.endpoint(), "corpus", &pq.join("one"), "pq");
    upload(
        &python,
        &moto.endpoint(),
        "corpus",
        &pq.join("shards"),
        "pqs",
    );
    let env = env(&moto.endpoint());
    let env_ref = refs(&env);
    let file = pq.join("one/one.parquet");
    let files = pq.join("shards");
    let cases = [
        ("object", s(&file), "s3://corpus/pq/one.parquet", &[2][..]),
        ("prefix", s(&files), "s3://corpus/pqs/", &[2, 3][..]),
    ];
    for (name, local, remote, layouts) in cases {
        let local = ["cluster", local, "--threshold", "0.8"];
        let remote = ["cluster", remote, "--threshold", "0.8"];
        let one = single(d, &format!("{name}-one"), &local);
        let want_files = tree(&one, &["summary.json"]);
        assert!(want_files.len() >= 2, "{name}: {want_files:?}");
        let got = single_env(d, &format!("{name}-s3-one"), &remote, &env);
        let got_files = tree(&got, &["summary.json"]);
        assert!(
            got_files == want_files,
            "{name}: one process: the outputs differ"
        );
        let len: u64 = match fs::read_dir(local[1]) {
            Ok(dir) => dir.map(|e| e.unwrap().metadata().unwrap().len()).sum(),
            Err(_) => fs::metadata(local[1]).unwrap().len(),
        };
        for &n in layouts {
            let want = run_dist(d, &format!("{name}-local-{n}x1"), &local, n, 1);
            want.assert_ok();
            let got = run_dist_env(d, &format!("{name}-s3-{n}x1"), &remote, n, 1, &env_ref);
            got.assert_ok();
            assert_same_dir(&one, &got);
            let (want, got) = (bytes_read(&want.summary()), bytes_read(&got.summary()));
            assert_eq!(got, want, "{name}: bytes read per process, {n} processes");
            assert_eq!(got.iter().sum::<u64>(), len, "{name}");
            assert!(got.iter().all(|&b| b < len), "{name}: {got:?} of {len}");
        }
    }
}

/// `sketch` (in one process and over two), `index build`, `index add` and `index query
/// --jsonl` take a corpus URL as they take a path: the images file of
/// `s3://corpus/shards/part-*` holds the bytes of the one over the files on disk, and an
/// index built from the first shard and added the second from objects answers queries as
/// the index built from the files.
#[test]
fn sketch_and_index_read_objects() {
    let Some(t) = moto_with_shards() else {
        return;
    };
    let (d, shards, env) = (t.dir.path(), &t.shards, &t.env);
    let run = |args: &[&str]| fimdup_env(args, env);
    let local = format!("{}/part-*", shards.display());
    let local_first = format!("{}/part-0*", shards.display());
    let last = "part-1.jsonl";
    let local_last = shards.join(last);
    let remote_last = format!("s3://corpus/shards/{last}");
    let mut outputs = Vec::new();
    for (name, all, first, last) in [
        (
            "local",
            local.as_str(),
            local_first.as_str(),
            s(&local_last),
        ),
        (
            "s3",
            "s3://corpus/shards/part-*",
            "s3://corpus/shards/part-0*",
            remote_last.as_str(),
        ),
    ] {
        let img = d.join(format!("{name}.img"));
        run(&["sketch", all, "--out", s(&img)]);
        let idx = d.join(format!("{name}-idx"));
        run(&[
            "index",
            "build",
            first,
            "--out",
            s(&idx),
            "--threshold",
            "0.8",
        ]);
        run(&["index", "add", s(&idx), last, "--batch"]);
        let queries = run(&[
            "index",
            "query",
            s(&idx),
            "--jsonl",
            s(&local_last),
            "--threshold",
            "0.8",
            "--json",
        ]);
        outputs.push((fs::read(&img).unwrap(), queries));
    }
    assert!(outputs[0].0 == outputs[1].0, "the images files differ");
    // Over 2 processes, each stages the objects and process 0 writes the same file.
    let env_ref = refs(env);
    let sketch = ["sketch", "s3://corpus/shards/part-*"];
    let run = run_dist_env(d, "sketch-2x1", &sketch, 2, 1, &env_ref);
    run.assert_ok();
    let got = fs::read(run.procs[0].cwd.join("out")).unwrap();
    assert!(
        got == outputs[0].0,
        "the divided sketch's images file differs"
    );
    // The answers, without the index's own path.
    let answers = |out: &[u8]| {
        let mut v: serde_json::Value = serde_json::from_slice(out).unwrap();
        v.as_object_mut().unwrap().remove("index");
        v
    };
    let (a, b) = (answers(&outputs[0].1), answers(&outputs[1].1));
    let queries = a["queries"].as_array().unwrap();
    assert_eq!(queries.len(), 700);
    // Each query finds itself, and some find documents of the first sweep too.
    let hits: usize = (queries.iter())
        .map(|q| q["hits"].as_array().unwrap().len())
        .sum();
    assert!(hits > 700, "{hits} hits");
    assert!(a == b, "the queries' answers differ");
}

#[test]
fn an_unreadable_url_is_named() {
    let Some(python) = common::python_with_moto() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let moto = Moto::start(&python, &d.join("moto"));
    // Nothing listens on a port that was free a moment ago.
    let nowhere = format!("http://127.0.0.1:{}", free_ports(1)[0]);
    let cases = [
        (
            "no bucket",
            moto.endpoint(),
            "s3://no-such-bucket/shards/part-*.jsonl",
        ),
        ("no server", nowhere, "s3://corpus/shards/part-*.jsonl"),
    ];
    for (what, endpoint, url) in cases {
        let out = d.join(format!("out-{}", what.replace(' ', "-")));
        refused(
            what,
            &["cluster", url, "--out", s(&out)],
            &endpoint,
            url,
            &out,
        );
    }
}

/// Credentials the store refuses (moto's server checking them: `INITIAL_NO_AUTH_ACTION_COUNT=0`
/// makes it require access keys it issued, which "testing" is not) stop a run that reads a
/// corpus there, and one that writes its output there, with exit 2 before any work: the
/// message names the URL and carries the store's refusal; nothing is written.
#[test]
fn refused_credentials_are_named() {
    let Some(python) = common::python_with_moto() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let moto = Moto::start_env(
        &python,
        &d.join("moto"),
        &[("INITIAL_NO_AUTH_ACTION_COUNT", "0")],
    );
    let (_, shards) = sharded(d);
    let local = format!("{}/part-*", shards.display());
    let out = d.join("out");
    let cases = [
        (
            "corpus",
            vec!["cluster", "s3://corpus/shards/part-*", "--out", s(&out)],
            "s3://corpus/shards/part-*",
        ),
        (
            "output",
            vec!["cluster", &local, "--out", "s3://out/run"],
            "s3://out/run",
        ),
        (
            "sketch",
            vec![
                "sketch",
                "s3://corpus/shards/",
                "--format",
                "jsonl",
                "--out",
                s(&out),
            ],
            "s3://corpus/shards/",
        ),
    ];
    for (what, args, url) in &cases {
        let err = refused(what, args, &moto.endpoint(), url, &out);
        assert!(
            err.contains("403") && err.contains("InvalidAccessKeyId"),
            "{what}: the store's refusal: {err}"
        );
    }
}

/// A divided run over objects, kept in a run directory and killed in its components stage
/// (every process SIGKILLs itself at the fail point `dataflow-in-components`), then
/// resumed: the resume stages the objects again into another temporary directory and is
/// the same run (the record names the objects' URLs), restarting after the pairs and ending
/// with the one-process bytes.
#[test]
#[cfg_attr(not(feature = "failpoints"), ignore = "needs the `failpoints` feature")]
fn a_run_over_objects_resumes() {
    let Some(t) = moto_with_shards() else {
        return;
    };
    let (d, shards, env) = (t.dir.path(), &t.shards, &t.env);
    let env_ref = refs(env);
    let local_pattern = format!("{}/part-*", shards.display());
    let one = single(d, "one", &["cluster", &local_pattern, "--threshold", "0.8"]);
    let rd = d.join("rd");
    let args = [
        "cluster",
        "s3://corpus/shards/part-*",
        "--threshold",
        "0.8",
        "--run-dir",
        s(&rd),
    ];
    let mut killing = env_ref.clone();
    killing.push(("FAILPOINTS", "dataflow-in-components=return"));
    let first = run_dist_env(d, "killed", &args, 2, 1, &killing);
    for e in &first.procs {
        assert!(!e.status.success(), "{}", e.stderr);
        assert!(!e.cwd.join("out").exists());
    }
    let resumed = [&args[..], &["--resume"]].concat();
    let run = run_dist_env(d, "resumed", &resumed, 2, 1, &env_ref);
    run.assert_ok();
    assert_same_dir(&one, &run);
    let dist = &run.summary()["distributed"];
    assert_eq!(dist["resumed_after"], "pairs", "{dist}");
    // Other objects are another run.
    let other = [
        "cluster",
        "s3://corpus/shards/part-0*",
        "--threshold",
        "0.8",
        "--run-dir",
        s(&rd),
        "--resume",
    ];
    let run = run_dist_env(d, "other", &other, 2, 1, &env_ref);
    for e in &run.procs {
        assert_eq!(e.status.code(), Some(2), "{}", e.stderr);
        assert!(!e.cwd.join("out").exists());
    }
}

/// `--out s3://bucket/prefix`: the objects under the prefix are the files of the same run
/// with a local `--out`, for cluster and dedup in one process and for a divided run (each
/// process uploading its parts); an output bucket that does not exist stops the run
/// before any work, naming the URL.
#[test]
fn outputs_go_to_object_storage() {
    let Some(python) = common::python_with_moto() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let moto = Moto::start(&python, &d.join("moto"));
    let endpoint = moto.endpoint();
    make_bucket(&python, &endpoint, "out");
    let env = env(&endpoint);
    let env_ref = refs(&env);
    let (_, shards) = sharded(d);
    let pattern = format!("{}/part-*", shards.display());
    // Kept records of more than 8 MiB (one request's bytes) go up in parts.
    let big = common::gen(d, "big", 7000, 3, "", &[]);
    let cases: [(&str, Vec<&str>); 3] = [
        ("cluster", vec!["cluster", &pattern, "--threshold", "0.8"]),
        ("dedup", vec!["dedup", &pattern, "--threshold", "0.8"]),
        ("dedup-big", vec!["dedup", s(&big), "--threshold", "0.8"]),
    ];
    for (name, args) in &cases {
        let want = single(d, &format!("{name}-local"), args);
        let url = format!("s3://out/{name}");
        let a = [&args[..], &["--out", &url]].concat();
        let o = common::fimdup(&a)
            .envs(env_ref.iter().copied())
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let got = download(
            &python,
            &endpoint,
            "out",
            name,
            &d.join(format!("{name}-dl")),
        );
        let (want, got) = (tree(&want, &["summary.json"]), tree(&got, &[]));
        assert!(got.contains_key("summary.json"), "{name}: {:?}", got.keys());
        let mut got = got;
        got.remove("summary.json");
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>(),
            "{name}"
        );
        assert!(
            got == want,
            "{name}: the objects differ from the local files"
        );
        if *name == "dedup-big" {
            let largest = want.values().map(Vec::len).max().unwrap();
            assert!(
                largest > 8 << 20,
                "{name}: the largest file has {largest} bytes"
            );
        }
    }

    // Divided: every process uploads its parts under the one prefix.
    let one = single(d, "one", &cases[0].1);
    let a = [&cases[0].1[..], &["--out", "s3://out/divided"]].concat();
    let run = run_dist_env(d, "divided", &a, 2, 1, &env_ref);
    // Every process succeeded and left only its empty `tmp/` behind: its outputs are in
    // the bucket, the staging directory gone.
    for (p, e) in run.procs.iter().enumerate() {
        assert!(e.status.success(), "process {p}: {}", e.stderr);
        assert_eq!(crate::distributed::entries(&e.cwd), ["tmp"], "process {p}");
        assert!(crate::distributed::entries(&e.cwd.join("tmp")).is_empty());
    }
    let got = download(&python, &endpoint, "out", "divided", &d.join("divided-dl"));
    let got = tree(&got, &[]);
    let sum: serde_json::Value = serde_json::from_slice(&got["summary.json"]).unwrap();
    assert_eq!(sum["distributed"]["mode"], "divided", "{sum}");
    for (file, stem, ext) in [
        ("pairs.csv", "pairs", "csv"),
        ("clusters.jsonl", "clusters", "jsonl"),
    ] {
        let parts: Vec<u8> = (0..2)
            .flat_map(|p| got[&format!("{stem}.part-{p:05}.{ext}")].clone())
            .collect();
        assert!(
            parts == fs::read(one.join(file)).unwrap(),
            "{file}: the parts differ"
        );
    }

    // No such bucket: refused before the run, naming the URL.
    let url = "s3://no-such-bucket/x";
    let o = common::fimdup(&["cluster", &pattern, "--out", url])
        .envs(env_ref.iter().copied())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(url), "the error must name {url}: {err}");
}
