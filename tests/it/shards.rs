//! Sharded corpora (a pattern or a directory of shards, `fimdup::corpus::shards`) through
//! the binary, in one process and in many (the harness of `distributed.rs`):
//! - one process over shards of mixed sizes and compressions (plain, gzip, zstd, an empty
//!   one) writes the clusters and pairs of the run over their concatenation, for a pattern
//!   and for a directory given with `--format jsonl`;
//! - divided runs over the shards (1 x 2, 2 x 1, 2 x 2, 3 x 1) write the same bytes, and
//!   each process reports the bytes it read: all of them over the processes, and none
//!   more than its share plus the largest shard read whole;
//! - a corrupt shard (truncated zstd, broken gzip) stops one process and many with exit 2,
//!   naming the shard, the line and the byte of the compressed file, with no output; a
//!   pattern that matches nothing is refused naming it;
//! - CSV shards (each with its header) read as the one CSV file of their rows; text shards
//!   (ids `name:line`) give the same bytes in one process and divided; Parquet shards
//!   (written by the crate's converter) read as the concatenated JSONL, in one process and
//!   divided on 2 x 1 and 1 x 2, and a Parquet shard cut short is an exit 2 naming it, in
//!   every process;
//! - Parquet written by pyarrow with many row groups, one file, shards or a directory of
//!   files, runs divided by row groups with the one-process bytes (ids from a column or row
//!   numbers, across the files of a directory);
//! - CSV, TSV and WARC shards, each read whole by its format's reader, run divided with
//!   the one-process run's outputs and summary, each process reading about half of the
//!   bytes; a cut-short gzip CSV shard or WARC record stops every process with exit 2,
//!   each naming the shard.

use crate::common;
use crate::distributed::{
    assert_same_dir, check_summary, entries, joined_parts, names_peer, read_json, run_dist, single,
    tree,
};

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use common::s;

/// Documents of the generated corpus.
pub(crate) const DOCS: usize = 1500;

/// How the corpus is cut into shards: (file name, lines). The plain shard in the middle is
/// the largest, so that divided runs cut it into byte ranges; the compressed ones are read
/// whole.
const SHARDS: [(&str, usize); 6] = [
    ("part-0.jsonl.zst", 200),
    ("part-1.jsonl", 700),
    ("part-2.jsonl.gz", 300),
    ("part-3.jsonl", 0),
    ("part-4.jsonl.zst", 299),
    ("part-5.jsonl.zst", 1),
];

/// Writes `bytes` to `path`, compressed as its extension says (with the crates the reader
/// uses, gzip by flate2 and zstd by zstd).
fn write_compressed(path: &Path, bytes: &[u8]) {
    let name = path.file_name().unwrap().to_string_lossy();
    let data = if name.ends_with(".zst") {
        zstd::encode_all(bytes, 3).unwrap()
    } else if name.ends_with(".gz") {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    } else {
        bytes.to_vec()
    };
    fs::write(path, data).unwrap();
}

/// The generated corpus (its path) and its shards in `d/shards` ([`SHARDS`]).
pub(crate) fn sharded(d: &Path) -> (PathBuf, PathBuf) {
    let whole = common::gen(d, "docs", DOCS, 11, "", &[]);
    let text = fs::read_to_string(&whole).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), DOCS);
    let dir = d.join("shards");
    fs::create_dir_all(&dir).unwrap();
    let mut at = 0;
    for (name, n) in SHARDS {
        let mut part = String::new();
        for l in &lines[at..at + n] {
            part.push_str(l);
            part.push('\n');
        }
        write_compressed(&dir.join(name), part.as_bytes());
        at += n;
    }
    assert_eq!(at, DOCS, "the shards hold the corpus");
    (whole, dir)
}

/// The pattern of every shard of `dir`, as a path.
fn pattern(dir: &Path) -> String {
    format!("{}/part-*", dir.display())
}

/// The bytes of the shards in `dir`, and the largest compressed one.
fn shard_bytes(dir: &Path) -> (u64, u64) {
    let mut total = 0;
    let mut largest_whole = 0;
    for (name, _) in SHARDS {
        let len = fs::metadata(dir.join(name)).unwrap().len();
        total += len;
        if name.ends_with(".zst") || name.ends_with(".gz") {
            largest_whole = largest_whole.max(len);
        }
    }
    (total, largest_whole)
}

#[test]
fn one_process_over_shards_is_the_run_over_their_concatenation() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (whole, shards) = sharded(d);
    let args = ["cluster", s(&whole), "--threshold", "0.8"];
    let want = single(d, "whole", &args);
    let want_sum = read_json(&want.join("summary.json"));
    assert!(
        want_sum["clusters"].as_u64().is_some_and(|c| c > 10),
        "the corpus must have clusters: {want_sum}"
    );
    let pat = pattern(&shards);
    let cases: [(&str, Vec<&str>); 2] = [
        ("pattern", vec!["cluster", &pat, "--threshold", "0.8"]),
        (
            "directory",
            vec![
                "cluster",
                s(&shards),
                "--format",
                "jsonl",
                "--threshold",
                "0.8",
            ],
        ),
    ];
    for (name, args) in cases {
        let got = single(d, name, &args);
        assert_same_files(&want, &got, name);
        let sum = read_json(&got.join("summary.json"));
        assert_eq!(sum["documents"], want_sum["documents"], "{name}");
        assert_eq!(sum["clusters"], want_sum["clusters"], "{name}");
    }
}

/// The files of two output directories (but summary.json) hold the same bytes.
fn assert_same_files(want: &Path, got: &Path, what: &str) {
    let names = |p: &Path| -> Vec<String> {
        entries(p)
            .into_iter()
            .filter(|n| n != "summary.json")
            .collect()
    };
    assert_eq!(names(want), names(got), "{what}");
    for n in names(want) {
        let (a, b) = (
            fs::read(want.join(&n)).unwrap(),
            fs::read(got.join(&n)).unwrap(),
        );
        assert!(
            a == b,
            "{what}: {n} differs from the run over the concatenation"
        );
    }
}

#[test]
fn divided_runs_over_shards_match_one_process_and_read_their_share() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (whole, shards) = sharded(d);
    let one = single(d, "whole", &["cluster", s(&whole), "--threshold", "0.8"]);
    let one_sum = read_json(&one.join("summary.json"));
    let pat = pattern(&shards);
    let args = ["cluster", &pat, "--threshold", "0.8"];
    let (total, largest_whole) = shard_bytes(&shards);
    for (n, w) in [(1, 2), (2, 1), (2, 2), (3, 1)] {
        let run = run_dist(d, &format!("shards-{n}x{w}"), &args, n, w);
        run.assert_ok();
        assert_same_dir(&one, &run);
        check_summary(&run, n, w, DOCS, &one_sum, &["documents", "clusters"]);
        let sum = run.summary();
        let dist = &sum["distributed"];
        assert_eq!(dist["mode"], "divided", "{}: {dist}", run.name);
        let per = dist["per_process"].as_array().unwrap();
        let read: Vec<u64> = (per.iter())
            .map(|p| p["bytes_read"].as_u64().expect("bytes_read"))
            .collect();
        assert_eq!(read.iter().sum::<u64>(), total, "{}: {read:?}", run.name);
        // Each process reads its share, give or take one shard read whole (and a line
        // where a plain shard is cut).
        let share = total / n as u64;
        for (p, &r) in read.iter().enumerate() {
            assert!(
                r <= share + largest_whole + 1024,
                "{}: process {p} read {r} of {total} bytes: {read:?}",
                run.name
            );
        }
    }
}

/// The shards with `name` replaced by `bytes` (written as they are), in `d/bad-{tag}`.
fn with_bad_shard(d: &Path, shards: &Path, tag: &str, name: &str, bytes: Vec<u8>) -> PathBuf {
    let bad = d.join(format!("bad-{tag}"));
    fs::create_dir_all(&bad).unwrap();
    for (n, _) in SHARDS {
        fs::copy(shards.join(n), bad.join(n)).unwrap();
    }
    fs::write(bad.join(name), bytes).unwrap();
    bad
}

#[test]
fn a_corrupt_shard_stops_every_process() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (_, shards) = sharded(d);
    // A zstd frame and a gzip member cut short.
    let zst = fs::read(shards.join("part-4.jsonl.zst")).unwrap();
    let gz = fs::read(shards.join("part-2.jsonl.gz")).unwrap();
    let cases = [
        (
            "zst",
            "part-4.jsonl.zst",
            zst[..zst.len() / 2].to_vec(),
            "zstd",
        ),
        (
            "gz",
            "part-2.jsonl.gz",
            gz[..gz.len() * 2 / 3].to_vec(),
            "gzip",
        ),
    ];
    for (tag, name, bytes, codec) in cases {
        let len = bytes.len();
        let bad = with_bad_shard(d, &shards, tag, name, bytes);
        let pat = pattern(&bad);
        let args = ["cluster", pat.as_str(), "--threshold", "0.8"];
        // One process.
        let out = d.join(format!("single-{tag}"));
        let mut a = args.to_vec();
        a.extend(["--out", s(&out)]);
        let o = common::run(&a);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(2), "{tag}: {err}");
        let shard = bad.join(name);
        let named = format!("{}:", shard.display());
        assert!(
            err.contains(&named) && err.contains(codec),
            "{tag}: the message names neither the shard and line nor the codec: {err}"
        );
        // And the byte of the compressed file the decoder had reached: within the file.
        let at: u64 = (err.split("at byte ").nth(1))
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{tag}: no compressed byte offset: {err}"));
        assert!(
            at > 0 && at <= len as u64 && err.contains("of the compressed file"),
            "{tag}: offset {at} of {len} bytes: {err}"
        );
        assert!(!out.exists(), "{tag}: output written");
        // Two processes: the one reading the shard names it, every process exits 2 and
        // nothing is written.
        let run = run_dist(d, &format!("bad-{tag}-2x1"), &args, 2, 1);
        for (p, proc_) in run.procs.iter().enumerate() {
            assert_eq!(
                proc_.status.code(),
                Some(2),
                "{tag}: process {p}{}",
                run.stderr()
            );
            assert_eq!(entries(&proc_.cwd), ["tmp"], "{tag}: process {p} wrote");
        }
        assert!(
            run.procs.iter().any(|p| p.stderr.contains(&named)),
            "{tag}: no process names the shard:{}",
            run.stderr()
        );
        let err0 = &run.procs[0].stderr;
        assert!(
            err0.contains(&named) || names_peer(err0, 1, &run.ports),
            "{tag}: process 0 names neither the shard nor process 1: {err0}"
        );
    }
}

#[test]
fn a_pattern_matching_nothing_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pat = format!("{}/none-*.jsonl.zst", d.display());
    let out = d.join("out");
    let o = common::run(&["cluster", &pat, "--out", s(&out)]);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&pat) && err.contains("no file matches"),
        "{err}"
    );
    assert!(!out.exists());
}

/// A CSV field, quoted (RFC 4180).
fn csv_field(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// Other formats: CSV shards (each with its header row) give the clusters and pairs of the
/// one CSV file holding their rows; plain-text shards, whose ids are `name:line`, give the
/// same bytes in one process and divided among 2 x 1 and 1 x 2 workers.
#[test]
fn csv_and_text_shards() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let whole = common::gen(d, "docs", DOCS, 12, "", &[]);
    let docs: Vec<serde_json::Value> = (fs::read_to_string(&whole).unwrap().lines())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let row = |v: &serde_json::Value| {
        format!(
            "{},{}\n",
            csv_field(v["id"].as_str().unwrap()),
            csv_field(v["text"].as_str().unwrap())
        )
    };
    let csv_dir = d.join("csv");
    let txt_dir = d.join("txt");
    fs::create_dir_all(&csv_dir).unwrap();
    fs::create_dir_all(&txt_dir).unwrap();
    let mut one = String::from("id,text\n");
    let mut at = 0;
    for (i, (_, n)) in SHARDS.iter().enumerate() {
        let mut csv = String::from("id,text\n");
        let mut txt = String::new();
        for v in &docs[at..at + n] {
            one.push_str(&row(v));
            csv.push_str(&row(v));
            txt.push_str(&v["text"].as_str().unwrap().replace(['\n', '\r'], " "));
            txt.push('\n');
        }
        let ext = [".csv.zst", ".csv", ".csv.gz"][i % 3];
        write_compressed(&csv_dir.join(format!("s-{i}{ext}")), csv.as_bytes());
        write_compressed(&txt_dir.join(format!("t-{i}.txt")), txt.as_bytes());
        at += n;
    }
    let one_csv = d.join("one.csv");
    fs::write(&one_csv, one).unwrap();
    let want = single(
        d,
        "one-csv",
        &["cluster", s(&one_csv), "--threshold", "0.8"],
    );
    let got = single(
        d,
        "csv-shards",
        &[
            "cluster",
            s(&csv_dir),
            "--format",
            "csv",
            "--threshold",
            "0.8",
        ],
    );
    assert_same_files(&want, &got, "csv shards");

    let pat = format!("{}/t-*.txt", txt_dir.display());
    let args = ["cluster", pat.as_str(), "--threshold", "0.8"];
    let want = single(d, "txt-shards", &args);
    let clusters = fs::read_to_string(want.join("clusters.jsonl")).unwrap();
    assert!(
        clusters.contains("\"t-1.txt:"),
        "the ids of text shards are name:line: {}",
        &clusters[..clusters.len().min(300)]
    );
    let want_sum = read_json(&want.join("summary.json"));
    for (n, w) in [(2, 1), (1, 2)] {
        let run = run_dist(d, &format!("txt-{n}x{w}"), &args, n, w);
        run.assert_ok();
        assert_same_dir(&want, &run);
        check_summary(&run, n, w, DOCS, &want_sum, &["documents", "clusters"]);
        assert_eq!(run.summary()["distributed"]["mode"], "divided");
    }
}

/// Parquet shards (written by the crate's converter from the JSONL shards): one process
/// gives the clusters and pairs of the concatenated JSONL, and divided runs (2 x 1, 1 x 2,
/// each shard read whole) the same bytes; a Parquet shard cut short stops the run with
/// exit 2 naming it, in one process and in every process of 2 x 1.
#[cfg(feature = "parquet")]
#[test]
fn parquet_shards() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (whole, shards) = sharded(d);
    let pq = d.join("pq");
    fs::create_dir_all(&pq).unwrap();
    for (i, (name, n)) in SHARDS.iter().enumerate() {
        let rows = fimdup::corpus::parquet::jsonl_to_parquet(
            &shards.join(name),
            &pq.join(format!("p-{i}.parquet")),
        )
        .unwrap();
        assert_eq!(rows, *n as u64);
    }
    let want = single(d, "whole", &["cluster", s(&whole), "--threshold", "0.8"]);
    let pat = format!("{}/p-*.parquet", pq.display());
    let args = ["cluster", pat.as_str(), "--threshold", "0.8"];
    let got = single(d, "pq-one", &args);
    assert_same_files(&want, &got, "parquet shards");
    for (n, w) in [(2, 1), (1, 2)] {
        let run = run_dist(d, &format!("pq-{n}x{w}"), &args, n, w);
        check_divided(&got, &run, dir_bytes(&pq), n, w);
    }

    let bytes = fs::read(pq.join("p-2.parquet")).unwrap();
    fs::write(pq.join("p-2.parquet"), &bytes[..bytes.len() / 2]).unwrap();
    let out = d.join("pq-bad");
    let o = common::run(&["cluster", &pat, "--threshold", "0.8", "--out", s(&out)]);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&pq.join("p-2.parquet").display().to_string()),
        "the message does not name the shard: {err}"
    );
    assert!(!out.exists());
    let run = run_dist(d, "pq-bad-2x1", &args, 2, 1);
    let named = pq.join("p-2.parquet").display().to_string();
    for (p, proc_) in run.procs.iter().enumerate() {
        assert_eq!(proc_.status.code(), Some(2), "process {p}{}", run.stderr());
        assert!(proc_.stderr.contains(&named), "process {p}{}", run.stderr());
        assert_eq!(entries(&proc_.cwd), ["tmp"], "process {p} wrote");
    }
}

/// Writes the corpus `jsonl` with pyarrow as one Parquet file `dir/one/one.parquet` (row
/// groups of 97 rows) and as three shards `dir/shards/part-K.parquet` (row groups of 61).
const WRITE_ROW_GROUPS: &str = r#"
import sys, os, json, pyarrow as pa, pyarrow.parquet as pq
src, out = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(src)]
t = pa.table({"id": [r["id"] for r in rows], "text": [r["text"] for r in rows]})
os.makedirs(out + "/one")
os.makedirs(out + "/shards")
pq.write_table(t, out + "/one/one.parquet", row_group_size=97)
for k in range(3):
    pq.write_table(t.slice(k * 500, 500), f"{out}/shards/part-{k}.parquet", row_group_size=61)
print(pq.ParquetFile(out + "/one/one.parquet").num_row_groups)
"#;

/// The corpus of [`sharded`] under `d`, and written by pyarrow with `py` as
/// [`WRITE_ROW_GROUPS`] says under `d/pq` (one file of 16 row groups, three shards):
/// `(the JSONL corpus, d/pq)`.
pub(crate) fn row_groups(d: &Path, py: &Path) -> (PathBuf, PathBuf) {
    let (whole, _) = sharded(d);
    let pq = d.join("pq");
    let groups = common::run_python(py, WRITE_ROW_GROUPS, &[s(&whole), s(&pq)]);
    assert_eq!(groups.trim(), "16");
    (whole, pq)
}

/// Parquet divided by row groups: one Parquet file written by pyarrow (16 row groups) and
/// three Parquet shards of it run divided (2 x 1, 3 x 1, 1 x 2) with the one-process run's
/// bytes, ids given by the id column or by the row numbers (`--id-column ""`, which the row
/// groups of a piece keep); each worker reads the row groups that start in its bytes, so
/// no process of several reads the whole file. Verified pairs over one Parquet file and
/// over the Parquet shards run divided too (each worker reading its row groups again for
/// its documents' shingle sets), with the one-process run's bytes.
#[cfg(feature = "parquet")]
#[test]
fn parquet_divided_by_row_groups() {
    let Some(py) = common::python_with_pyarrow() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (whole, pq) = row_groups(d, &py);
    let file = pq.join("one/one.parquet");
    let shards = format!("{}/part-*.parquet", pq.join("shards").display());
    let cases: [(&str, Vec<&str>, PathBuf); 3] = [
        (
            "file",
            vec!["cluster", s(&file), "--threshold", "0.8"],
            pq.join("one"),
        ),
        (
            "file-rows",
            vec!["cluster", s(&file), "--threshold", "0.8", "--id-column", ""],
            pq.join("one"),
        ),
        (
            "shards",
            vec!["cluster", &shards, "--threshold", "0.8"],
            pq.join("shards"),
        ),
    ];
    let want = single(d, "jsonl", &["cluster", s(&whole), "--threshold", "0.8"]);
    for (name, args, files) in &cases {
        let one = single(d, &format!("{name}-one"), args);
        if *name != "file-rows" {
            assert_same_files(&want, &one, name);
        } else {
            let clusters = fs::read_to_string(one.join("clusters.jsonl")).unwrap();
            assert!(!clusters.contains("\"d0"), "{name}: ids are row numbers");
        }
        for (n, w) in [(2, 1), (3, 1), (1, 2)] {
            let run = run_dist(d, &format!("{name}-{n}x{w}"), args, n, w);
            check_divided(&one, &run, dir_bytes(files), n, w);
            let total = dir_bytes(files).0;
            for p in run.summary()["distributed"]["per_process"]
                .as_array()
                .unwrap()
            {
                let read = p["bytes_read"].as_u64().unwrap();
                assert!(
                    n == 1 || read < total,
                    "{name} {n}x{w}: {read} of {total} bytes"
                );
            }
        }
    }

    let args = [
        "cluster",
        s(&file),
        "--threshold",
        "0.8",
        "--verify",
        "exact",
    ];
    let len = fs::metadata(&file).unwrap().len();
    let bytes = (len, len);
    let _ = check_verified(d, "file-verify", &args, bytes, &[(2, 1), (1, 2)]);
    let args = [
        "cluster",
        &shards,
        "--threshold",
        "0.8",
        "--verify",
        "exact",
    ];
    let bytes = dir_bytes(&pq.join("shards"));
    let _ = check_verified(d, "shards-verify", &args, bytes, &[(3, 1)]);
}

/// Reads the one-process kept Parquet file (the first argument) and a divided run's parts
/// (the others, in process order) with pyarrow: their rows, whether the parts' rows in
/// order equal the file's (schema and metadata included), and their row groups.
const COMPARE_KEPT_PARTS: &str = r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
one = pq.read_table(sys.argv[1])
parts = [pq.read_table(p) for p in sys.argv[2:]]
joined = pa.concat_tables(parts)
same = one.equals(joined) and all(one.schema.equals(p.schema, check_metadata=True) for p in parts)
groups = [pq.ParquetFile(p).num_row_groups for p in sys.argv[1:]]
print(one.num_rows, joined.num_rows, same, groups[0], sum(groups[1:]))
"#;

/// `dedup` over Parquet runs divided, each process writing the kept rows of its row groups
/// as its part: over one Parquet file written by pyarrow (16 row groups) on 3 x 1 and
/// 1 x 2, `kept.part-0000P.parquet`, whose rows in process order are the one-process
/// `kept.parquet`'s (read by pyarrow: the same table, schema and metadata, in as many row
/// groups); one process over the Parquet shards (slices of the file) keeps the same rows;
/// over the shards with `--out-format jsonl` on 2 x 1, JSONL parts that concatenated are
/// the one-process `kept.jsonl`. `removed.csv` and `clusters.jsonl` are
/// the one-process files joined, and the summaries agree; no process reads every byte.
#[cfg(feature = "parquet")]
#[test]
fn dedup_over_parquet_runs_divided() {
    let Some(py) = common::python_with_pyarrow() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (_, pq) = row_groups(d, &py);
    let file = pq.join("one/one.parquet");
    let args = ["dedup", s(&file), "--threshold", "0.8"];
    let one = single(d, "pq-dedup-one", &args);
    let removed = fs::read_to_string(one.join("removed.csv")).unwrap();
    assert!(removed.lines().count() > 10, "too few removals: {removed}");
    let one_sum = read_json(&one.join("summary.json"));
    let len = fs::metadata(&file).unwrap().len();
    for (n, w) in [(3, 1), (1, 2)] {
        let run = run_dist(d, &format!("pq-dedup-{n}x{w}"), &args, n, w);
        run.assert_ok();
        let mut want = tree(&one, &["summary.json"]);
        want.remove("kept.parquet").expect("a kept file");
        let mut got = joined_parts(&run);
        got.remove("kept.parquet").expect("kept parts");
        assert_eq!(want, got, "{}: removed.csv and clusters.jsonl", run.name);
        check_summary(&run, n, w, DOCS, &one_sum, &["documents", "clusters"]);
        let sum = run.summary();
        assert_eq!(comparable(&sum), comparable(&one_sum), "{}", run.name);
        assert_eq!(sum["distributed"]["mode"], "divided", "{}", run.name);
        assert_eq!(sum["kept_file"], "kept.part-*.parquet", "{}", run.name);
        let parts: Vec<String> = (0..n)
            .map(|p| {
                let f = run.procs[p]
                    .cwd
                    .join(format!("out/kept.part-{p:05}.parquet"));
                assert!(f.is_file(), "{}: no {}", run.name, f.display());
                f.display().to_string()
            })
            .collect();
        let kept = one.join("kept.parquet");
        let mut py_args = vec![s(&kept)];
        py_args.extend(parts.iter().map(String::as_str));
        let seen = common::run_python(&py, COMPARE_KEPT_PARTS, &py_args);
        let f: Vec<&str> = seen.split_whitespace().collect();
        let kept_rows = one_sum["kept"].as_u64().expect("kept");
        assert_eq!(f[0], kept_rows.to_string(), "{}: {seen}", run.name);
        assert_eq!(f[0], f[1], "{}: rows {seen}", run.name);
        assert_eq!(f[2], "True", "{}: the parts' rows differ: {seen}", run.name);
        assert_eq!(f[3], f[4], "{}: row groups {seen}", run.name);
        for p in sum["distributed"]["per_process"].as_array().unwrap() {
            let read = p["bytes_read"].as_u64().unwrap();
            assert!(n == 1 || read < len, "{}: {read} of {len} bytes", run.name);
        }
    }

    // One process over the shards (slices of the same table): the same removals and kept
    // rows as over the file.
    let shards = format!("{}/part-*.parquet", pq.join("shards").display());
    let by_shards = single(
        d,
        "pq-dedup-shards-one",
        &["dedup", &shards, "--threshold", "0.8"],
    );
    for f in ["removed.csv", "clusters.jsonl"] {
        assert_eq!(
            fs::read_to_string(by_shards.join(f)).unwrap(),
            fs::read_to_string(one.join(f)).unwrap(),
            "{f}"
        );
    }
    let (a, b) = (one.join("kept.parquet"), by_shards.join("kept.parquet"));
    let seen = common::run_python(&py, COMPARE_KEPT_PARTS, &[s(&a), s(&b)]);
    let f: Vec<&str> = seen.split_whitespace().collect();
    assert_eq!(
        f[..3],
        [f[0], f[0], "True"],
        "the shards' kept rows: {seen}"
    );

    let args = [
        "dedup",
        shards.as_str(),
        "--threshold",
        "0.8",
        "--out-format",
        "jsonl",
    ];
    let one = single(d, "pq-dedup-jsonl-one", &args);
    let kept = fs::read_to_string(one.join("kept.jsonl")).unwrap();
    assert_eq!(
        kept.lines().count() as u64,
        read_json(&one.join("summary.json"))["kept"]
            .as_u64()
            .unwrap()
    );
    let run = run_dist(d, "pq-dedup-jsonl-2x1", &args, 2, 1);
    check_divided(&one, &run, dir_bytes(&pq.join("shards")), 2, 1);
}

/// Writes the corpus `jsonl` with pyarrow as two directories of Parquet files, `dir/ids`
/// (columns `id` and `text`) and `dir/rows` (`text` alone), each holding
/// `a/part-0.parquet` (200 rows, row groups of 50), `part-1.parquet` (1000 rows, row groups
/// of 61), `part-2.parquet` (300 rows, row groups of 97) and `part-3.parquet` (no rows),
/// in that order by relative path, beside `notes.txt` and `.hidden.parquet` (not Parquet),
/// which the reader leaves out; `dir/one.parquet`, the corpus with ids in one file (row
/// groups of 97); and `dir/rows.jsonl`, the corpus with ids its row numbers from 1.
const WRITE_PARQUET_DIRS: &str = r#"
import sys, os, json, pyarrow as pa, pyarrow.parquet as pq
src, out = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(src)]
with open(out + "/rows.jsonl", "w") as f:
    for i, r in enumerate(rows):
        f.write(json.dumps({"id": str(i + 1), "text": r["text"]}) + "\n")
for kind in ["ids", "rows"]:
    cols = {"text": [r["text"] for r in rows]}
    if kind == "ids":
        cols = {"id": [r["id"] for r in rows], **cols}
    t = pa.table(cols)
    if kind == "ids":
        pq.write_table(t, out + "/one.parquet", row_group_size=97)
    d = f"{out}/{kind}"
    os.makedirs(d + "/a")
    at = 0
    for name, n, group in [("a/part-0", 200, 50), ("part-1", 1000, 61), ("part-2", 300, 97), ("part-3", 0, 10)]:
        pq.write_table(t.slice(at, n), f"{d}/{name}.parquet", row_group_size=group)
        at += n
    assert at == len(rows)
    open(d + "/notes.txt", "w").write("not a document\n")
    open(d + "/.hidden.parquet", "w").write("not Parquet\n")
print(pq.ParquetFile(f"{out}/ids/part-1.parquet").num_row_groups)
"#;

/// The bytes of the Parquet files a directory corpus reads (`*.parquet`, recursively,
/// names starting with `.` left out), and the largest.
fn parquet_bytes(dir: &Path) -> (u64, u64) {
    let (mut total, mut largest) = (0, 0);
    for e in fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        if e.file_type().unwrap().is_dir() {
            let (t, l) = parquet_bytes(&e.path());
            total += t;
            largest = largest.max(l);
        } else if name.ends_with(".parquet") {
            let len = e.metadata().unwrap().len();
            total += len;
            largest = largest.max(len);
        }
    }
    (total, largest)
}

/// A directory of Parquet files (written by pyarrow: a nested file, several row groups
/// each, an empty file, a text file and a hidden file beside them) runs divided like a
/// pattern of Parquet shards, each file cut where its row groups start: on 3 x 1 the same
/// bytes as one process, whose ids are the id column, or the row numbers across the
/// files when the files have no id column (`--id-column ""`: the bytes of the run over the
/// corpus with those ids); each process reads less than half of the bytes, though one file holds two
/// thirds of them. The exact method runs divided too (over one Parquet file as well);
/// verified pairs run gathered, saying why.
#[cfg(feature = "parquet")]
#[test]
fn parquet_directory_divided_by_row_groups() {
    let Some(py) = common::python_with_pyarrow() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (whole, _) = sharded(d);
    let pq = d.join("pqdir");
    fs::create_dir_all(&pq).unwrap();
    let groups = common::run_python(&py, WRITE_PARQUET_DIRS, &[s(&whole), s(&pq)]);
    assert_eq!(groups.trim(), "17");
    let (ids, rows) = (pq.join("ids"), pq.join("rows"));
    let by_rows = pq.join("rows.jsonl");
    let cases: [(&str, Vec<&str>, Vec<&str>); 3] = [
        (
            "ids",
            vec!["cluster", s(&ids), "--threshold", "0.8"],
            vec!["cluster", s(&whole), "--threshold", "0.8"],
        ),
        (
            "rows",
            vec!["cluster", s(&rows), "--threshold", "0.8", "--id-column", ""],
            vec!["cluster", s(&by_rows), "--threshold", "0.8"],
        ),
        (
            "exact",
            vec![
                "cluster",
                s(&ids),
                "--method",
                "exact",
                "--threshold",
                "0.8",
            ],
            vec![
                "cluster",
                s(&whole),
                "--method",
                "exact",
                "--threshold",
                "0.8",
            ],
        ),
    ];
    for (name, args, jsonl_args) in &cases {
        let want = single(d, &format!("dir-{name}-jsonl"), jsonl_args);
        let one = single(d, &format!("dir-{name}-one"), args);
        assert_same_files(&want, &one, name);
        let pairs = fs::read_to_string(one.join("pairs.csv")).unwrap();
        assert!(pairs.lines().count() > 10, "{name}: too few pairs: {pairs}");
        let bytes = parquet_bytes(if *name == "rows" { &rows } else { &ids });
        let (n, w) = (3, 1);
        let run = run_dist(d, &format!("dir-{name}-{n}x{w}"), args, n, w);
        check_divided(&one, &run, bytes, n, w);
        for p in run.summary()["distributed"]["per_process"]
            .as_array()
            .unwrap()
        {
            let read = p["bytes_read"].as_u64().unwrap();
            assert!(read < bytes.0 / 2, "{name}: {read} of {} bytes", bytes.0);
        }
    }
    // The exact method over one Parquet file reads its row groups again too.
    let file = pq.join("one.parquet");
    let args = [
        "cluster",
        s(&file),
        "--method",
        "exact",
        "--threshold",
        "0.8",
    ];
    let one = single(d, "file-exact-one", &args);
    assert_same_files(&d.join("dir-exact-jsonl"), &one, "file");
    let len = fs::metadata(&file).unwrap().len();
    let run = run_dist(d, "file-exact-3x1", &args, 3, 1);
    check_divided(&one, &run, (len, len), 3, 1);

    let args = [
        "cluster",
        s(&ids),
        "--threshold",
        "0.8",
        "--verify",
        "exact",
    ];
    let _ = check_verified(d, "dir-verify", &args, parquet_bytes(&ids), &[(2, 1)]);
}

/// The summary without what differs between runs or layouts: timings, memory, phases and
/// the `distributed` block, and a divided deduplication's name for its kept file's parts.
fn comparable(sum: &serde_json::Value) -> serde_json::Value {
    let mut v = sum.clone();
    let o = v.as_object_mut().expect("a summary is an object");
    let keys = [
        "seconds",
        "peak_rss_bytes",
        "phases",
        "distributed",
        "memory_plan",
    ];
    for k in keys {
        o.remove(k);
    }
    // A divided deduplication names its kept file's parts (`kept.part-*.jsonl`).
    if let Some(serde_json::Value::String(k)) = o.get_mut("kept_file") {
        *k = k.replace(".part-*.", ".");
    }
    // A deduplication's summary holds its clustering's, with its own timings.
    if let Some(c) = o.get_mut("cluster").and_then(|c| c.as_object_mut()) {
        for k in keys {
            c.remove(k);
        }
    }
    v
}

/// A WARC `response` record of `uri` whose HTTP body is `body` (by hand, as the WARC
/// 1.0 specification lays it out).
fn warc_response(uri: &str, body: &str) -> Vec<u8> {
    let block = format!("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n{body}");
    let mut v = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    v.extend_from_slice(block.as_bytes());
    v.extend_from_slice(b"\r\n\r\n");
    v
}

/// A WARC `request` record (read past by the reader).
fn warc_request(uri: &str) -> Vec<u8> {
    let block = "GET / HTTP/1.1\r\nHost: example\r\n\r\n";
    format!(
        "WARC/1.0\r\nWARC-Type: request\r\nWARC-Target-URI: {uri}\r\n\
         Content-Length: {}\r\n\r\n{block}\r\n\r\n",
        block.len()
    )
    .into_bytes()
}

/// Shards of the generated corpus in CSV (id column; plain, gzip, zstd), TSV (no id
/// column: ids `name:row`) and WARC (ids the URIs; plain and gzip, a request record
/// between the responses), in `d/{csv,tsv,warc}`: (directory, pattern) of each.
fn format_shards(d: &Path) -> Vec<(&'static str, PathBuf, String)> {
    let whole = common::gen(d, "docs", DOCS, 13, "", &[]);
    let docs: Vec<serde_json::Value> = (fs::read_to_string(&whole).unwrap().lines())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut out = Vec::new();
    for kind in ["csv", "tsv", "warc"] {
        let dir = d.join(kind);
        fs::create_dir_all(&dir).unwrap();
        let mut at = 0;
        for (i, (_, n)) in SHARDS.iter().enumerate() {
            let mut bytes = Vec::new();
            match kind {
                "csv" => bytes.extend_from_slice(b"id,text\n"),
                "tsv" => bytes.extend_from_slice(b"text\n"),
                _ => {}
            }
            for (j, v) in docs[at..at + n].iter().enumerate() {
                let (id, text) = (v["id"].as_str().unwrap(), v["text"].as_str().unwrap());
                match kind {
                    "csv" => {
                        bytes.extend(format!("{},{}\n", csv_field(id), csv_field(text)).bytes())
                    }
                    "tsv" => bytes.extend(format!("{}\n", csv_field(text)).bytes()),
                    _ => {
                        let uri = format!("http://example.org/{id}");
                        if j % 7 == 3 {
                            bytes.extend(warc_request(&uri));
                        }
                        bytes.extend(warc_response(&uri, text));
                    }
                }
            }
            let ext = match kind {
                "warc" => [".warc", ".warc.gz", ".warc"][i % 3],
                _ => [".zst", "", ".gz"][i % 3],
            };
            let name = match kind {
                "warc" => format!("s-{i}{ext}"),
                _ => format!("s-{i}.{kind}{ext}"),
            };
            write_compressed(&dir.join(name), &bytes);
            at += n;
        }
        let pat = format!("{}/s-*", dir.display());
        out.push((kind, dir, pat));
    }
    out
}

/// The bytes of every file in `dir`, and the largest one.
fn dir_bytes(dir: &Path) -> (u64, u64) {
    let sizes: Vec<u64> = (fs::read_dir(dir).unwrap())
        .map(|e| e.unwrap().metadata().unwrap().len())
        .collect();
    (sizes.iter().sum(), sizes.iter().copied().max().unwrap_or(0))
}

/// A divided run `run` over files of `bytes` (in all, and the largest, [`dir_bytes`]) wrote
/// the bytes of the one-process run `one` (outputs and summary but timings, memory and the
/// `distributed` block), ran divided, and each process read its share of the bytes give or
/// take the largest file.
fn check_divided(one: &Path, run: &crate::distributed::Run, bytes: (u64, u64), n: usize, w: usize) {
    run.assert_ok();
    assert_same_dir(one, run);
    let one_sum = read_json(&one.join("summary.json"));
    check_summary(
        run,
        n,
        w,
        DOCS,
        &one_sum,
        &["documents", "clusters", "pairs"],
    );
    let sum = run.summary();
    assert_eq!(comparable(&sum), comparable(&one_sum), "{}", run.name);
    let dist = &sum["distributed"];
    assert_eq!(dist["mode"], "divided", "{}: {dist}", run.name);
    assert!(
        dist.get("gathered_because").is_none_or(|g| g.is_null()),
        "{}: {dist}",
        run.name
    );
    let read: Vec<u64> = (dist["per_process"].as_array().unwrap().iter())
        .map(|p| p["bytes_read"].as_u64().expect("bytes_read"))
        .collect();
    let (total, largest) = bytes;
    assert_eq!(read.iter().sum::<u64>(), total, "{}: {read:?}", run.name);
    for (p, &r) in read.iter().enumerate() {
        assert!(
            r <= total / n as u64 + largest,
            "{}: process {p} read {r} of {total} bytes: {read:?}",
            run.name
        );
    }
}

/// CSV, TSV and WARC shards run divided (2 x 1 and 1 x 2), each shard read whole by its
/// format's reader on the worker its bytes fall to: the same outputs and summary as one
/// process over the same shards, each process reading about half of the bytes.
#[test]
fn csv_tsv_and_warc_shards_run_divided() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (kind, shards, pat) in format_shards(d) {
        let mut args = vec!["cluster", pat.as_str(), "--threshold", "0.8"];
        if kind == "tsv" {
            // No id column: the ids are the shard's name and the row.
            args.extend(["--id-column", ""]);
        }
        let one = single(d, &format!("{kind}-one"), &args);
        let one_sum = read_json(&one.join("summary.json"));
        assert_eq!(one_sum["documents"], DOCS, "{kind}");
        assert!(
            one_sum["clusters"].as_u64().is_some_and(|c| c > 10),
            "{kind}: the corpus must have clusters: {one_sum}"
        );
        if kind == "tsv" {
            let clusters = fs::read_to_string(one.join("clusters.jsonl")).unwrap();
            assert!(clusters.contains("\"s-1.tsv:"), "{kind}: ids name:row");
        }
        for (n, w) in [(2, 1), (1, 2)] {
            let run = run_dist(d, &format!("{kind}-{n}x{w}"), &args, n, w);
            check_divided(&one, &run, dir_bytes(&shards), n, w);
        }
    }
}

/// A corrupt shard read whole by its format's reader (a gzip CSV shard cut short, a WARC
/// record cut short) stops one process and both of 2 x 1 with exit 2, every process
/// naming the shard, nothing written.
#[test]
fn a_corrupt_shard_of_another_format_stops_every_process() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let shards = format_shards(d);
    let cases = [
        ("csv", "s-2.csv.gz"),
        ("warc", "s-4.warc.gz"),
        ("warc", "s-0.warc"),
    ];
    for (kind, name) in cases {
        let (_, src, _) = shards.iter().find(|s| s.0 == kind).unwrap();
        let bad = d.join(format!("bad-{name}"));
        fs::create_dir_all(&bad).unwrap();
        for e in fs::read_dir(src).unwrap() {
            let p = e.unwrap().path();
            fs::copy(&p, bad.join(p.file_name().unwrap())).unwrap();
        }
        let bytes = fs::read(bad.join(name)).unwrap();
        fs::write(bad.join(name), &bytes[..bytes.len() * 2 / 3]).unwrap();
        let pat = format!("{}/s-*", bad.display());
        let args = ["cluster", pat.as_str(), "--threshold", "0.8"];
        let named = format!("{}:", bad.join(name).display());
        let out = d.join(format!("single-{name}"));
        let mut a = args.to_vec();
        a.extend(["--out", s(&out)]);
        let o = common::run(&a);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(&named), "{name}: {err}");
        assert!(!out.exists(), "{name}: output written");
        let run = run_dist(d, &format!("bad-{name}-2x1"), &args, 2, 1);
        for (p, proc_) in run.procs.iter().enumerate() {
            assert_eq!(
                proc_.status.code(),
                Some(2),
                "{name}: process {p}{}",
                run.stderr()
            );
            assert!(
                proc_.stderr.contains(&named),
                "{name}: process {p} does not name the shard:{}",
                run.stderr()
            );
            assert_eq!(entries(&proc_.cwd), ["tmp"], "{name}: process {p} wrote");
        }
    }
}

/// `exact` over shards (its rows are the full shingle sets, each worker reading its pieces
/// again): JSONL shards (cut and compressed) and CSV shards run divided on 2 x 1 and 1 x 2
/// with the one-process run's bytes; so does `--verify exact` over the JSONL shards (each
/// worker reading its pieces again for its group members' shingle sets), under a memory
/// budget too.
#[test]
fn exact_over_shards_runs_divided() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (_, jsonl) = sharded(d);
    let csv = format_shards(d).into_iter().find(|s| s.0 == "csv").unwrap();
    for (kind, shards, pat) in [
        ("jsonl", jsonl.clone(), pattern(&jsonl)),
        (csv.0, csv.1, csv.2),
    ] {
        let args = [
            "cluster",
            pat.as_str(),
            "--method",
            "exact",
            "--threshold",
            "0.8",
        ];
        let one = single(d, &format!("exact-{kind}-one"), &args);
        let pairs = fs::read_to_string(one.join("pairs.csv")).unwrap();
        assert!(pairs.lines().count() > 10, "{kind}: too few pairs: {pairs}");
        for (n, w) in [(2, 1), (1, 2)] {
            let run = run_dist(d, &format!("exact-{kind}-{n}x{w}"), &args, n, w);
            check_divided(&one, &run, dir_bytes(&shards), n, w);
        }
    }
    let pat = pattern(&jsonl);
    let args = [
        "cluster",
        pat.as_str(),
        "--threshold",
        "0.8",
        "--verify",
        "exact",
    ];
    let _ = check_verified(d, "verify", &args, dir_bytes(&jsonl), &[(2, 1), (1, 2)]);
    // Under a budget too, the members' sets sent in passes that fit its round share: one
    // under a loose budget, several under a tight one.
    for (budget, several) in [("256MiB", false), ("2MiB", true)] {
        let args = [&args[..], &["--memory-budget", budget]].concat();
        let name = format!("verify-{budget}");
        for run in check_verified(d, &name, &args, dir_bytes(&jsonl), &[(2, 1)]) {
            let sum = run.summary();
            for p in sum["distributed"]["per_process"].as_array().unwrap() {
                let passes = p["set_passes"].as_u64().unwrap_or(0);
                assert!(
                    if several { passes > 1 } else { passes == 1 },
                    "{}: {passes} passes of sets: {p}",
                    run.name
                );
            }
        }
    }
}

/// `args` (a run with `--verify exact`) in one process and divided over `layouts`: every
/// divided run writes the one-process bytes, runs divided and reads its share of `bytes`
/// ([`check_divided`]); the verification removed candidates, so it ran. The divided runs.
fn check_verified(
    d: &Path,
    name: &str,
    args: &[&str],
    bytes: (u64, u64),
    layouts: &[(usize, usize)],
) -> Vec<crate::distributed::Run> {
    let one = single(d, &format!("{name}-one"), args);
    let sum = read_json(&one.join("summary.json"));
    assert!(
        sum["verify_removed"].as_u64().is_some_and(|r| r > 0),
        "{name}: nothing verified away: {sum}"
    );
    (layouts.iter())
        .map(|&(n, w)| {
            let run = run_dist(d, &format!("{name}-{n}x{w}"), args, n, w);
            check_divided(&one, &run, bytes, n, w);
            run
        })
        .collect()
}

/// A named command line and the layouts it runs divided on.
type Case<'a> = (&'a str, Vec<&'a str>, &'a [(usize, usize)]);

/// `dedup` over JSONL shards (cut and compressed) runs divided when its kept records are
/// written uncompressed: over the pattern `part-*` and over the directory, each process
/// writes its part of the kept records, of `removed.csv` and of `clusters.jsonl`, and the
/// parts joined are the one-process files, which are those of the deduplication of the
/// shards' concatenation. A pattern naming compressed shards keeps them as one compressed
/// stream: gathered, saying why, with the one-process bytes.
#[test]
fn dedup_over_shards_runs_divided() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (whole, shards) = sharded(d);
    let want = single(
        d,
        "dedup-whole",
        &["dedup", s(&whole), "--threshold", "0.8"],
    );
    let removed = fs::read_to_string(want.join("removed.csv")).unwrap();
    assert!(removed.lines().count() > 10, "too few removals: {removed}");
    let pat = pattern(&shards);
    let cases: [Case; 2] = [
        (
            "pattern",
            vec!["dedup", &pat, "--threshold", "0.8"],
            &[(2, 1), (1, 2), (3, 1)],
        ),
        (
            "directory",
            vec![
                "dedup",
                s(&shards),
                "--format",
                "jsonl",
                "--threshold",
                "0.8",
            ],
            &[(2, 1)],
        ),
    ];
    for (name, args, layouts) in cases {
        let one = single(d, &format!("dedup-{name}-one"), &args);
        assert_same_files(&want, &one, name);
        for &(n, w) in layouts {
            let run = run_dist(d, &format!("dedup-{name}-{n}x{w}"), &args, n, w);
            check_divided(&one, &run, dir_bytes(&shards), n, w);
            for (p, q) in run.procs.iter().enumerate() {
                let part = q.cwd.join("out").join(format!("kept.part-{p:05}.jsonl"));
                assert!(part.is_file(), "{}: no {}", run.name, part.display());
            }
        }
    }
    // A pattern of compressed shards: the kept file holds a zstd frame per shard, in one
    // process as in the parts.
    let zst = format!("{}/part-*.jsonl.zst", shards.display());
    let names = ["part-0.jsonl.zst", "part-4.jsonl.zst", "part-5.jsonl.zst"];
    let args = ["dedup", zst.as_str(), "--threshold", "0.8"];
    let one = single(d, "dedup-zst-one", &args);
    let kept =
        fs::read(one.join("kept.jsonl.zst")).unwrap_or_else(|e| panic!("{e}: {:?}", entries(&one)));
    let mut frames = 0;
    let mut rest = &kept[..];
    while !rest.is_empty() {
        let len = zstd::zstd_safe::find_frame_compressed_size(rest).expect("a zstd frame");
        rest = &rest[len..];
        frames += 1;
    }
    assert_eq!(frames, names.len(), "a frame per shard");
    // Decoded, the kept records of the shards' concatenation (decoded by the zstd tool
    // when it is there, else by the crate).
    let mut text = Vec::new();
    for name in names {
        text.extend(zstd::decode_all(&fs::read(shards.join(name)).unwrap()[..]).unwrap());
    }
    let concat = d.join("zst-concat.jsonl");
    fs::write(&concat, &text).unwrap();
    let plain = single(
        d,
        "dedup-zst-concat",
        &["dedup", s(&concat), "--threshold", "0.8"],
    );
    let decoded = if common::zstd_cli() {
        let o = std::process::Command::new("zstd")
            .args(["-d", "-c", "-q"])
            .arg(one.join("kept.jsonl.zst"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        o.stdout
    } else {
        zstd::decode_all(&kept[..]).unwrap()
    };
    let want = fs::read(plain.join("kept.jsonl")).unwrap();
    assert!(
        decoded == want,
        "the kept frames decoded differ from the kept records"
    );
    assert!(
        want.len() < text.len(),
        "the concatenation lost nothing: no test"
    );
    for f in ["removed.csv", "clusters.jsonl"] {
        assert_eq!(
            fs::read_to_string(one.join(f)).unwrap(),
            fs::read_to_string(plain.join(f)).unwrap(),
            "{f}"
        );
    }
    // Divided: each process writes the frames of its shards; the parts concatenated are
    // the one-process file.
    let sizes: Vec<u64> = (names.iter())
        .map(|n| fs::metadata(shards.join(n)).unwrap().len())
        .collect();
    let total: u64 = sizes.iter().sum();
    for (n, w) in [(2, 1), (3, 1)] {
        let run = run_dist(d, &format!("dedup-zst-{n}x{w}"), &args, n, w);
        run.assert_ok();
        assert_same_dir(&one, &run);
        let dist = &run.summary()["distributed"];
        assert_eq!(dist["mode"], "divided", "{}: {dist}", run.name);
        let read: Vec<u64> = (dist["per_process"].as_array().unwrap().iter())
            .map(|p| p["bytes_read"].as_u64().expect("bytes_read"))
            .collect();
        assert_eq!(read.iter().sum::<u64>(), total, "{}: {read:?}", run.name);
        // Each shard read whole by one process: each process's bytes are the sum of some
        // of the shards'.
        let sums: Vec<u64> = (0..1u32 << sizes.len())
            .map(|m| {
                (0..sizes.len())
                    .filter(|i| m >> i & 1 == 1)
                    .map(|i| sizes[i])
                    .sum()
            })
            .collect();
        assert!(
            read.iter().all(|r| sums.contains(r)),
            "{}: {read:?} of shards {sizes:?}",
            run.name
        );
        for (p, q) in run.procs.iter().enumerate() {
            let part = q
                .cwd
                .join("out")
                .join(format!("kept.part-{p:05}.jsonl.zst"));
            assert!(part.is_file(), "{}: no {}", run.name, part.display());
        }
    }
}
