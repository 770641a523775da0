//! Repeated external ids through the binary: every entry point (sketch, cluster from a
//! corpus or from several images files, index build and add) stops with
//! `file:line: duplicate id "X" (first seen at file:line)` and exit code 2 leaving nothing
//! behind, or, with `--duplicate-ids suffix`, renames the repeats `X#2`, `X#3`, ... and
//! reports how many. Also through the library readers, sequential and parallel.

use std::path::Path;
use std::process::{Command, Output};

use fimdup::corpus::par::{read_all_par_opts, ParOptions};
use fimdup::corpus::{CorpusConfig, DuplicateIds};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fimdup"))
}

fn run(args: &[&str], dir: &Path) -> Output {
    bin().args(args).current_dir(dir).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Files in `dir` (names), sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

const TEXT_A: &str = "the quick brown fox jumps over the lazy dog again and again";
const TEXT_B: &str = "a completely different document about rivers lakes and the sea";

/// Ids 1, 2, (blank line), 1: the repeat is on line 4, the first on line 1.
fn dup_jsonl() -> String {
    format!(
        "{{\"id\":1,\"text\":\"{TEXT_A}\"}}\n{{\"id\":2,\"text\":\"{TEXT_A}\"}}\n\n{{\"id\":1,\"text\":\"{TEXT_B}\"}}\n"
    )
}

#[test]
fn every_entry_point_stops_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("d.jsonl"), dup_jsonl()).unwrap();
    let want = "d.jsonl:4: duplicate id \"1\" (first seen at d.jsonl:1)";
    for args in [
        &["sketch", "d.jsonl", "--out", "x.img"][..],
        &["cluster", "d.jsonl", "--out", "out"],
        &["cluster", "d.jsonl", "--out", "out", "--method", "concept"],
        &["cluster", "d.jsonl", "--out", "out", "--verify", "exact"],
        &["index", "build", "d.jsonl", "--out", "idx"],
        &["sketch", "d.jsonl", "--out", "x.img", "--threads", "1"],
    ] {
        let o = run(args, d);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{args:?}: {}", stderr(&o));
        assert_eq!(listing(d), ["d.jsonl"], "{args:?} left files behind");
    }
    // index add: a repeat within the new sweep is an error; the index stays as it was.
    std::fs::write(
        d.join("a.jsonl"),
        format!("{{\"id\":1,\"text\":\"{TEXT_A}\"}}\n"),
    )
    .unwrap();
    assert!(run(&["index", "build", "a.jsonl", "--out", "idx"], d)
        .status
        .success());
    let before = listing(&d.join("idx"));
    let o = run(&["index", "add", "idx", "d.jsonl"], d);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(want), "{}", stderr(&o));
    assert_eq!(listing(&d.join("idx")), before);
    // ... but an id of an earlier sweep is a new version of it, not a repeat.
    let o = run(&["index", "add", "idx", "a.jsonl", "--json"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["unchanged"], 1);
    assert_eq!(j["renamed_ids"], 0);
}

#[test]
fn csv_and_warc_name_both_places() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("d.csv"),
        "id,text\nx,\"one\ntwo\"\ny,three\nx,four\n",
    )
    .unwrap();
    let o = run(&["sketch", "d.csv", "--out", "x.img"], d);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("d.csv:5: duplicate id \"x\" (first seen at d.csv:2)"),
        "{}",
        stderr(&o)
    );
    let rec = |uri: &str, body: &str| {
        let block = format!("HTTP/1.1 200 OK\r\n\r\n{body}");
        format!(
            "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\nContent-Length: {}\r\n\r\n{block}\r\n\r\n",
            block.len()
        )
    };
    let warc = [
        rec("http://a/", TEXT_A),
        rec("http://b/", TEXT_B),
        rec("http://a/", TEXT_B),
    ]
    .concat();
    std::fs::write(d.join("d.warc"), &warc).unwrap();
    let o = run(&["sketch", "d.warc", "--out", "x.img"], d);
    assert_eq!(o.status.code(), Some(2));
    // Records start on lines 1, 10 and 19 (8 lines each plus the separator).
    assert!(
        stderr(&o).contains("d.warc:19: duplicate id \"http://a/\" (first seen at d.warc:1)"),
        "{}",
        stderr(&o)
    );
    assert_eq!(listing(d), ["d.csv", "d.warc"]);
    // With suffix, the third record is http://a/#2.
    let o = run(
        &[
            "sketch",
            "d.warc",
            "--out",
            "x.img",
            "--duplicate-ids",
            "suffix",
        ],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let ids = std::fs::read_to_string(d.join("x.img.ids.tsv")).unwrap();
    assert_eq!(
        ids,
        "doc_id\text_id\n0\thttp://a/\n1\thttp://b/\n2\thttp://a/#2\n"
    );
}

#[test]
fn suffix_renames_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The corpus holds "1#2" itself: the second "1" becomes "1#3".
    let corpus = format!(
        "{{\"id\":1,\"text\":\"{TEXT_A}\"}}\n{{\"id\":\"1#2\",\"text\":\"{TEXT_B}\"}}\n{{\"id\":1,\"text\":\"{TEXT_A}\"}}\n{{\"id\":1,\"text\":\"{TEXT_B}\"}}\n"
    );
    std::fs::write(d.join("d.jsonl"), corpus).unwrap();
    let o = run(
        &[
            "cluster",
            "d.jsonl",
            "--out",
            "out",
            "--method",
            "concept",
            "--threshold",
            "0.9",
            "--duplicate-ids",
            "suffix",
            "--json",
        ],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["renamed_ids"], 2);
    assert_eq!(j["documents"], 4, "no document vanished");
    assert!(
        stderr(&o).contains("2 repeated ids renamed"),
        "{}",
        stderr(&o)
    );
    let clusters = std::fs::read_to_string(d.join("out/clusters.jsonl")).unwrap();
    let docs: Vec<Vec<String>> = clusters
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
        .collect();
    let mut docs = docs;
    docs.sort();
    assert_eq!(docs, [vec!["1", "1#3"], vec!["1#2", "1#4"]]);
    let pairs = std::fs::read_to_string(d.join("out/pairs.csv")).unwrap();
    assert!(!pairs.lines().any(|l| l.starts_with("1,1,")), "{pairs}");
    assert!(pairs.contains("1,1#3,"), "{pairs}");
    // sketch and index build report the count too.
    let o = run(
        &[
            "sketch",
            "d.jsonl",
            "--out",
            "x.img",
            "--duplicate-ids",
            "suffix",
            "--json",
        ],
        d,
    );
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["renamed_ids"], 2);
    let o = run(
        &[
            "index",
            "build",
            "d.jsonl",
            "--out",
            "idx",
            "--duplicate-ids",
            "suffix",
            "--json",
        ],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (j["renamed_ids"].as_u64(), j["stored"].as_u64()),
        (Some(2), Some(4))
    );
}

#[test]
fn repeats_across_images_files_are_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("a.jsonl"),
        format!("{{\"id\":\"p\",\"text\":\"{TEXT_A}\"}}\n{{\"id\":\"q\",\"text\":\"{TEXT_B}\"}}\n"),
    )
    .unwrap();
    std::fs::write(
        d.join("b.jsonl"),
        format!("{{\"id\":\"r\",\"text\":\"{TEXT_A}\"}}\n{{\"id\":\"q\",\"text\":\"{TEXT_B}\"}}\n"),
    )
    .unwrap();
    for f in ["a", "b"] {
        let o = run(
            &[
                "sketch",
                &format!("{f}.jsonl"),
                "--out",
                &format!("{f}.img"),
            ],
            d,
        );
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = run(&["cluster", "a.img", "b.img", "--out", "out"], d);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o)
            .contains("b.img: document 2: duplicate id \"q\" (first seen at a.img document 2)"),
        "{}",
        stderr(&o)
    );
    assert!(!d.join("out").exists());
}

#[test]
fn library_readers_agree_for_any_block_size() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("d.jsonl");
    let mut s = String::new();
    for i in 0..500 {
        s.push_str(&format!("{{\"id\":{},\"text\":\"t{i}\"}}\n", i % 7));
    }
    std::fs::write(&p, s).unwrap();
    let cfg = CorpusConfig {
        duplicate_ids: DuplicateIds::Suffix,
        ..CorpusConfig::default()
    };
    let seq: Vec<_> = fimdup::corpus::open(&p, &cfg)
        .unwrap()
        .map(|d| d.unwrap())
        .collect();
    assert_eq!(seq[7].ext_id, "0#2");
    assert_eq!(seq[499].ext_id, format!("{}#{}", 499 % 7, 499 / 7 + 1));
    for block_bytes in [1, 100, 1 << 20] {
        let opts = ParOptions {
            block_bytes,
            in_flight: 3,
        };
        let (par, stats) = read_all_par_opts(&p, &cfg, &opts).unwrap();
        assert_eq!(par, seq, "block {block_bytes}");
        assert_eq!(stats.renamed_ids, 493);
        let err = read_all_par_opts(&p, &CorpusConfig::default(), &opts).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}:8: duplicate id \"0\" (first seen at {}:1)",
                p.display(),
                p.display()
            )
        );
    }
}
