//! `fimdup dedup` against the exact truth of a generated corpus (`truth.csv`: the exact
//! resemblance of every pair above 0.1, computed by the generator from the token sequences
//! it generated): no two kept documents resemble each other at the threshold, every removed
//! document names a kept one it resembles at the threshold, kept + removed = all, for every
//! keep policy, under a memory budget and for any thread count; kept records are the input's
//! records byte for byte, in input order, in the input's compression.

use crate::common;

use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use common::{held_by_index, ok, run, s};

const T: f64 = 0.8;

fn default_corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/default")
}

/// Exact resemblance by pair of external ids.
fn truth() -> HashMap<(String, String), f64> {
    let mut r = csv::Reader::from_path(default_corpus().join("truth.csv")).unwrap();
    let mut m = HashMap::new();
    for row in r.records() {
        let row = row.unwrap();
        let (a, b) = (row[0].to_string(), row[1].to_string());
        let v: f64 = row[2].parse().unwrap();
        m.insert((a.clone(), b.clone()), v);
        m.insert((b, a), v);
    }
    m
}

fn ids_of_jsonl(bytes: &[u8]) -> Vec<String> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_slice(l).unwrap();
            v["id"].as_str().unwrap().to_string()
        })
        .collect()
}

struct Removed {
    id: String,
    rep: String,
    score: Option<f64>,
    kind: String,
}

fn removed(dir: &Path) -> Vec<Removed> {
    let mut r = csv::Reader::from_path(dir.join("removed.csv")).unwrap();
    assert_eq!(
        r.headers().unwrap(),
        vec!["id", "representative", "cluster", "score", "score_kind"]
    );
    r.records()
        .map(|row| {
            let row = row.unwrap();
            Removed {
                id: row[0].to_string(),
                rep: row[1].to_string(),
                score: row[3].parse().ok(),
                kind: row[4].to_string(),
            }
        })
        .collect()
}

fn dedup(out: &Path, extra: &[&str]) {
    let input = default_corpus().join("docs.jsonl");
    let mut args = vec!["dedup", s(&input), "--html", "--out", s(out)];
    args.extend(extra);
    ok(&args);
}

/// Checks the invariants of a verified run in `out` against the truth; returns the kept ids.
fn check_exact(out: &Path, truth: &HashMap<(String, String), f64>) -> Vec<String> {
    let input = std::fs::read(default_corpus().join("docs.jsonl")).unwrap();
    let all = ids_of_jsonl(&input);
    let kept_bytes = std::fs::read(out.join("kept.jsonl")).unwrap();
    let kept = ids_of_jsonl(&kept_bytes);
    let rem = removed(out);
    // kept + removed = all, disjoint.
    let kept_set: HashSet<&str> = kept.iter().map(String::as_str).collect();
    let rem_set: HashSet<&str> = rem.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(kept.len() + rem.len(), all.len());
    assert!(kept_set.is_disjoint(&rem_set));
    // Kept records: the input's lines, byte for byte, in input order.
    let lines: Vec<&[u8]> = input
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let want: Vec<u8> = lines
        .iter()
        .zip(&all)
        .filter(|(_, id)| kept_set.contains(id.as_str()))
        .flat_map(|(l, _)| l.iter().copied().chain([b'\n']))
        .collect();
    assert!(
        kept_bytes == want,
        "kept.jsonl is not the input's kept lines"
    );
    // No kept pair at or above the threshold (truth rounded to 6 decimals).
    let bad: Vec<_> = truth
        .iter()
        .filter(|((a, b), &v)| a < b && v >= T + 1e-6)
        .filter(|((a, b), _)| kept_set.contains(a.as_str()) && kept_set.contains(b.as_str()))
        .collect();
    assert!(bad.is_empty(), "kept pairs above {T}: {bad:?}");
    // Every removed document names a kept one it resembles at >= T, with the exact score.
    for r in &rem {
        assert!(
            kept_set.contains(r.rep.as_str()),
            "{} names {}",
            r.id,
            r.rep
        );
        let v = truth.get(&(r.id.clone(), r.rep.clone())).copied();
        assert!(
            v.is_some_and(|v| v >= T - 1e-6),
            "{} -> {}: exact {v:?}",
            r.id,
            r.rep
        );
        assert_eq!(r.kind, "exact");
        assert!((r.score.unwrap() - v.unwrap()).abs() < 1e-5);
    }
    // The summary adds up.
    let sum: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(sum["documents"], all.len());
    assert_eq!(sum["kept"], kept.len());
    let by = &sum["removed_by"];
    let total: u64 = [
        "identical",
        "lexically_equivalent",
        "near_duplicate",
        "against_index",
    ]
    .iter()
    .map(|k| by[k].as_u64().unwrap())
    .sum();
    assert_eq!(total as usize, rem.len());
    kept
}

/// The invariants hold for every method that loses no pair and every keep policy, and the
/// policy decides which document of a group stays.
#[test]
fn verified_dedup_keeps_no_pair_above_the_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let truth = truth();
    let mut kept_by = HashMap::new();
    for method in ["concept", "union-find", "exact"] {
        for keep in ["first", "longest", "shortest", "field:id:desc"] {
            let out = dir.path().join(format!("{method}-{keep}"));
            dedup(
                &out,
                &["--method", method, "--verify", "exact", "--keep", keep],
            );
            let kept = check_exact(&out, &truth);
            kept_by.insert((method, keep), kept);
        }
    }
    // Methods that find every pair keep the same documents.
    for keep in ["first", "longest", "shortest", "field:id:desc"] {
        assert_eq!(
            kept_by[&("concept", keep)],
            kept_by[&("exact", keep)],
            "{keep}"
        );
    }
    // Policies differ: the longest first keeps other documents than the first.
    assert_ne!(
        kept_by[&("concept", "first")],
        kept_by[&("concept", "longest")]
    );
    // Longest: every removed document is no longer than its representative (ties in input
    // order).
    let out = dir.path().join("concept-longest");
    let len: HashMap<String, usize> = std::fs::read_to_string(default_corpus().join("docs.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["id"].as_str().unwrap().to_string(),
                v["text"].as_str().unwrap().len(),
            )
        })
        .collect();
    for r in removed(&out) {
        assert!(len[&r.id] <= len[&r.rep], "{} longer than {}", r.id, r.rep);
    }
}

/// Under a memory budget (images spilled, context built in passes) and with one or two
/// threads: the same bytes.
#[test]
fn budget_and_threads_give_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let files = ["kept.jsonl", "removed.csv", "clusters.jsonl"];
    let mut outs = Vec::new();
    for (name, extra) in [
        ("t1", vec!["--threads", "1"]),
        ("t2", vec!["--threads", "2"]),
        (
            "budget",
            vec!["--memory-budget", "48MiB", "--tmp-dir", s(dir.path())],
        ),
    ] {
        let out = dir.path().join(name);
        let mut args = vec!["--verify", "exact"];
        args.extend(extra);
        dedup(&out, &args);
        outs.push(out);
    }
    check_exact(&outs[2], &truth());
    for f in files {
        let a = std::fs::read(outs[0].join(f)).unwrap();
        for o in &outs[1..] {
            assert!(
                a == std::fs::read(o.join(f)).unwrap(),
                "{f} differs in {o:?}"
            );
        }
    }
}

/// Per cluster (union-find): one document per cluster, so chains remove documents that
/// resemble nothing kept; the greedy choice keeps more, and every one of its removals is
/// backed by a pair.
#[test]
fn per_cluster_keeps_one_per_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let per = dir.path().join("per");
    let greedy = dir.path().join("greedy");
    dedup(&per, &["--method", "union-find", "--per-cluster"]);
    dedup(&greedy, &["--method", "union-find"]);
    let clusters: Vec<serde_json::Value> = std::fs::read_to_string(per.join("clusters.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kept: HashSet<String> = ids_of_jsonl(&std::fs::read(per.join("kept.jsonl")).unwrap())
        .into_iter()
        .collect();
    // Union-find clusters are disjoint: exactly one kept document in each.
    for c in &clusters {
        let n = c["docs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| kept.contains(d.as_str().unwrap()))
            .count();
        assert_eq!(n, 1, "cluster {}", c["id"]);
    }
    let sum = |d: &Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(d.join("summary.json")).unwrap()).unwrap()
    };
    assert!(sum(&greedy)["kept"].as_u64() >= sum(&per)["kept"].as_u64());
    // Identical and lexically-equivalent documents score exactly 1, the rest by estimate.
    for r in removed(&greedy) {
        assert!(r.score.is_some(), "{}", r.id);
        assert!(r.kind == "estimate" || (r.kind == "exact" && r.score == Some(1.0)));
    }
}

/// Against an index: documents indexed (or near-duplicated there) are removed, naming the
/// indexed document; the others are deduplicated among themselves.
#[test]
fn against_an_index_removes_what_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let docs = std::fs::read_to_string(default_corpus().join("docs.jsonl")).unwrap();
    let lines: Vec<&str> = docs.lines().collect();
    let first = dir.path().join("first.jsonl");
    std::fs::write(&first, lines[..500].join("\n") + "\n").unwrap();
    let index = dir.path().join("index");
    ok(&["index", "build", s(&first), "--html", "--out", s(&index)]);
    let out = dir.path().join("out");
    dedup(&out, &["--against", s(&index)]);
    let rem = removed(&out);
    let by_id: HashMap<&str, &Removed> = rem.iter().map(|r| (r.id.as_str(), r)).collect();
    let first_ids = ids_of_jsonl(&std::fs::read(&first).unwrap());
    for id in &first_ids {
        let r = by_id
            .get(id.as_str())
            .unwrap_or_else(|| panic!("{id} kept"));
        // Itself, or an indexed document at least as close.
        assert!(first_ids.contains(&r.rep), "{id} -> {}", r.rep);
        assert!(r.score.unwrap() >= T);
    }
    let sum: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    let against = sum["removed_by"]["against_index"].as_u64().unwrap();
    assert!(against >= 500, "{against}");
    // Some documents outside the first 500 resemble one inside it.
    assert!(rem
        .iter()
        .any(|r| !first_ids.contains(&r.id) && first_ids.contains(&r.rep)));
}

/// `--against INDEX --add`: the kept documents (and only they) are added to the index as a
/// batch in a new segment; the same batch again keeps nothing; a complete sweep afterwards
/// reports the batch's documents it lacks as lost, and nothing of the sweep before.
#[test]
fn against_an_index_and_add() {
    let dir = tempfile::tempdir().unwrap();
    let docs = std::fs::read_to_string(default_corpus().join("docs.jsonl")).unwrap();
    let lines: Vec<&str> = docs.lines().collect();
    let first = dir.path().join("first.jsonl");
    std::fs::write(&first, lines[..500].join("\n") + "\n").unwrap();
    let batch = dir.path().join("batch.jsonl");
    std::fs::write(&batch, lines[300..900].join("\n") + "\n").unwrap();
    let index = dir.path().join("index");
    ok(&["index", "build", s(&first), "--html", "--out", s(&index)]);
    let out = dir.path().join("out");
    let add = |out: &Path, tag: &str| -> serde_json::Value {
        let o = ok(&[
            "dedup",
            s(&batch),
            "--html",
            "--against",
            s(&index),
            "--add",
            "--tag",
            tag,
            "--out",
            s(out),
            "--json",
        ]);
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let sum = add(&out, "b1");
    let kept_ids = ids_of_jsonl(&std::fs::read(out.join("kept.jsonl")).unwrap());
    assert_eq!(sum["kept"].as_u64().unwrap() as usize, kept_ids.len());
    assert!(kept_ids.len() > 100, "{}", kept_ids.len());
    assert!(sum["removed_by"]["against_index"].as_u64().unwrap() >= 200);
    // the index holds the first 500 and the kept ones, nothing else of the batch
    let batch_ids = ids_of_jsonl(&std::fs::read(&batch).unwrap());
    let first_ids = ids_of_jsonl(&std::fs::read(&first).unwrap());
    let holds = held_by_index(&index, &batch);
    for id in &batch_ids {
        let want = kept_ids.contains(id) || first_ids.contains(id);
        assert_eq!(holds.contains(id), want, "{id}");
    }
    let cur = std::fs::read_to_string(index.join("CURRENT")).unwrap();
    let m: serde_json::Value = serde_json::from_slice(
        &std::fs::read(
            index
                .join(cur.split(' ').next().unwrap())
                .join("manifest.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        m["doc_count"].as_u64().unwrap() as usize,
        500 + kept_ids.len()
    );
    assert_eq!(m["segments"].as_array().unwrap().len(), 2);
    assert_eq!(m["sweeps"][1]["tag"], "b1");
    assert_eq!(m["sweeps"][1]["batch"], true);
    assert_eq!(
        m["sweeps"][1]["added"].as_u64().unwrap() as usize,
        kept_ids.len()
    );
    // the same batch again: what was kept is in the index now; only documents removed the
    // first time as near-duplicates of another batch document (by the method's score, which
    // the index's estimate need not reach) can be kept, and they are added
    let out2 = dir.path().join("out2");
    let again = add(&out2, "b2");
    let kept2 = ids_of_jsonl(&std::fs::read(out2.join("kept.jsonl")).unwrap());
    let first_removed: HashMap<String, String> =
        removed(&out).into_iter().map(|r| (r.id, r.rep)).collect();
    for id in &kept2 {
        let rep = &first_removed[id];
        assert!(kept_ids.contains(rep), "{id} kept again, removed for {rep}");
    }
    assert!(kept2.len() < 10, "{kept2:?}");
    assert_eq!(
        again["removed_by"]["against_index"].as_u64().unwrap() as usize,
        batch_ids.len() - kept2.len()
    );
    let kept_ids: Vec<String> = kept_ids.into_iter().chain(kept2).collect();
    // a complete sweep of the first 500: the batch's documents are lost, none of the first
    let o = ok(&["index", "add", s(&index), s(&first), "--json"]);
    let rep: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(rep["unchanged"], 500);
    let lost: HashSet<String> = rep["lost"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["ext_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(lost, kept_ids.iter().cloned().collect::<HashSet<_>>());
}

fn gunzip(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(b)
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// Line formats come back byte for byte (CRLF line ends, a last line without one, quoted
/// CSV fields, gzip), removing the same documents as the JSONL twin.
#[test]
fn records_come_back_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let a = "the quick brown fox jumps over the lazy dog and then runs far away into the woods";
    let b = "something entirely different that shares no shingle with anything else here at all";
    // JSONL with CRLF and no final line end; doc 3 is a copy of doc 1.
    let jsonl = format!(
        "{{\"id\":\"1\",\"text\":\"{a}\"}}\r\n{{\"id\":\"2\",\"text\":\"{b}\"}}\r\n\r\n{{\"id\":\"3\", \"text\":\"{a}\"}}"
    );
    let p = dir.path().join("c.jsonl");
    std::fs::write(&p, &jsonl).unwrap();
    let out = dir.path().join("jl");
    ok(&["dedup", s(&p), "--out", s(&out)]);
    let want =
        format!("{{\"id\":\"1\",\"text\":\"{a}\"}}\r\n{{\"id\":\"2\",\"text\":\"{b}\"}}\r\n");
    assert_eq!(
        std::fs::read_to_string(out.join("kept.jsonl")).unwrap(),
        want
    );
    let rem = removed(&out);
    assert_eq!(
        (rem.len(), rem[0].id.as_str(), rem[0].rep.as_str()),
        (1, "3", "1")
    );

    // CSV with quoted fields (a comma and a quote in the text), gzip-compressed.
    let csv_text = format!(
        "id,text,extra\n1,\"{a}, \"\"quoted\"\"\",x\n2,{b},y\n3,\"{a}, \"\"quoted\"\"\",z\n"
    );
    let p = dir.path().join("c.csv.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(csv_text.as_bytes()).unwrap();
    std::fs::write(&p, gz.finish().unwrap()).unwrap();
    let out = dir.path().join("csv");
    ok(&["dedup", s(&p), "--out", s(&out)]);
    let got = gunzip(&std::fs::read(out.join("kept.csv.gz")).unwrap());
    assert_eq!(
        String::from_utf8(got).unwrap(),
        format!("id,text,extra\n1,\"{a}, \"\"quoted\"\"\",x\n2,{b},y\n")
    );

    // Plain lines; --out-format jsonl gives id (line number) and text.
    let p = dir.path().join("c.txt");
    std::fs::write(&p, format!("{a}\n{b}\n{a}\n")).unwrap();
    let out = dir.path().join("txt");
    ok(&["dedup", s(&p), "--out", s(&out)]);
    assert_eq!(
        std::fs::read_to_string(out.join("kept.txt")).unwrap(),
        format!("{a}\n{b}\n")
    );
    let out = dir.path().join("txt-jsonl");
    ok(&["dedup", s(&p), "--out-format", "jsonl", "--out", s(&out)]);
    assert_eq!(
        ids_of_jsonl(&std::fs::read(out.join("kept.jsonl")).unwrap()),
        vec!["1", "2"]
    );
}

/// A directory corpus: the kept files, copied under kept/ with their relative paths.
#[test]
fn a_directory_gives_its_kept_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("docs");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    let a = "one two three four five six seven eight nine ten eleven twelve";
    std::fs::write(root.join("a.txt"), a).unwrap();
    std::fs::write(root.join("sub/b.txt"), a).unwrap();
    std::fs::write(
        root.join("c.txt"),
        "alpha beta gamma delta epsilon zeta eta theta",
    )
    .unwrap();
    let out = dir.path().join("out");
    ok(&["dedup", s(&root), "--out", s(&out)]);
    assert!(out.join("kept/a.txt").is_file() && out.join("kept/c.txt").is_file());
    assert!(!out.join("kept/sub/b.txt").exists());
    assert_eq!(std::fs::read_to_string(out.join("kept/a.txt")).unwrap(), a);
}

/// Bad requests exit 2 with a message, and write nothing.
#[test]
fn bad_requests_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let input = default_corpus().join("docs.jsonl");
    let img = dir.path().join("d.img");
    ok(&["sketch", s(&input), "--out", s(&img)]);
    for (args, msg) in [
        (vec!["dedup", s(&img)], "needs the corpus"),
        (vec!["dedup", s(&input), "--keep", "last"], "keep policy"),
        (
            vec![
                "dedup",
                s(&input),
                "--against",
                s(dir.path()),
                "--min-common",
                "100",
            ],
            "resemblance threshold",
        ),
    ] {
        let out = dir.path().join("out");
        let mut a = args.clone();
        a.extend(["--out", s(&out)]);
        let o = run(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{a:?}: {err}");
        assert!(err.contains(msg), "{a:?}: {err}");
        assert!(!out.join("kept.jsonl").exists(), "{a:?}");
    }
}

/// Writes the default corpus as Parquet with pyarrow (row groups of 200 rows, an extra int
/// column `n`, a dictionary column `source`, snappy) and as its JSONL twin with the same
/// fields; `None` without pyarrow.
fn parquet_twin(dir: &Path) -> Option<(PathBuf, PathBuf, PathBuf)> {
    let py = common::python_with_pyarrow()?;
    let pq = dir.join("docs.parquet");
    let twin = dir.join("twin.jsonl");
    common::run_python(
        &py,
        r#"
import sys, json, pyarrow as pa, pyarrow.parquet as pq
src, out, twin = sys.argv[1:4]
rows = [json.loads(l) for l in open(src)]
n = [(i * 7919) % 1000 for i in range(len(rows))]
source = [["web", "books", "news"][i % 3] for i in range(len(rows))]
t = pa.table({"id": [r["id"] for r in rows], "text": [r["text"] for r in rows],
              "n": pa.array(n, pa.int64()), "source": pa.array(source).dictionary_encode()})
pq.write_table(t, out, row_group_size=200, compression="snappy")
with open(twin, "w") as f:
    for r, k, s in zip(rows, n, source):
        f.write(json.dumps({"id": r["id"], "text": r["text"], "n": k, "source": s}) + "\n")
"#,
        &[s(&default_corpus().join("docs.jsonl")), s(&pq), s(&twin)],
    );
    Some((py, pq, twin))
}

/// A Parquet corpus written by pyarrow deduplicates like its JSONL twin (same removals and
/// clusters, also keeping by a Parquet column), and kept.parquet reads back in pyarrow with
/// the input schema and the kept rows; --out-format converts both ways.
#[test]
#[cfg_attr(not(feature = "parquet"), ignore = "needs the `parquet` feature")]
fn parquet_dedups_like_its_jsonl_twin() {
    let dir = tempfile::tempdir().unwrap();
    let Some((py, pq, twin)) = parquet_twin(dir.path()) else {
        return;
    };
    for keep in ["first", "field:n:desc"] {
        let a = dir.path().join(format!("pq-{keep}"));
        let b = dir.path().join(format!("jl-{keep}"));
        for (input, out) in [(&pq, &a), (&twin, &b)] {
            ok(&[
                "dedup",
                s(input),
                "--html",
                "--verify",
                "exact",
                "--keep",
                keep,
                "--out",
                s(out),
            ]);
        }
        for f in ["removed.csv", "clusters.jsonl"] {
            assert!(
                std::fs::read(a.join(f)).unwrap() == std::fs::read(b.join(f)).unwrap(),
                "{keep}: {f} differs"
            );
        }
        let kept_ids = ids_of_jsonl(&std::fs::read(b.join("kept.jsonl")).unwrap());
        let got = common::run_python(
            &py,
            r#"
import sys, pyarrow.parquet as pq
inp, out = sys.argv[1:3]
assert pq.read_schema(out).equals(pq.read_schema(inp), check_metadata=True), (pq.read_schema(out), pq.read_schema(inp))
t = pq.read_table(out)
assert str(t.schema.field("source").type).startswith("dictionary"), t.schema
print("\n".join(t.column("id").to_pylist()))
"#,
            &[s(&pq), s(&a.join("kept.parquet"))],
        );
        let got: Vec<String> = got.lines().map(str::to_string).collect();
        assert_eq!(got, kept_ids, "{keep}");
    }
    // The keep field decides: the largest n of each group stays.
    assert_ne!(
        std::fs::read(dir.path().join("jl-first/removed.csv")).unwrap(),
        std::fs::read(dir.path().join("jl-field:n:desc/removed.csv")).unwrap()
    );
    // Parquet -> JSONL keeps every column; JSONL -> Parquet infers them.
    let out = dir.path().join("pq-jsonl");
    ok(&[
        "dedup",
        s(&pq),
        "--html",
        "--out-format",
        "jsonl",
        "--out",
        s(&out),
    ]);
    let first: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(out.join("kept.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert!(
        first["n"].is_number() && first["source"].is_string(),
        "{first}"
    );
    let out = dir.path().join("jl-parquet");
    ok(&[
        "dedup",
        s(&twin),
        "--html",
        "--out-format",
        "parquet",
        "--out",
        s(&out),
    ]);
    let cols = common::run_python(
        &py,
        "import sys, pyarrow.parquet as pq; t = pq.read_table(sys.argv[1]); print(t.num_rows, sorted(t.column_names))",
        &[s(&out.join("kept.parquet"))],
    );
    let plain = dir.path().join("jl-plain");
    ok(&["dedup", s(&twin), "--html", "--out", s(&plain)]);
    let kept = ids_of_jsonl(&std::fs::read(plain.join("kept.jsonl")).unwrap());
    assert_eq!(
        cols.trim(),
        format!("{} ['id', 'n', 'source', 'text']", kept.len())
    );
}

/// A zstd-compressed corpus deduplicates like the plain one and comes back zstd-compressed.
#[test]
fn zstd_in_zstd_out() {
    let dir = tempfile::tempdir().unwrap();
    let plain = default_corpus().join("docs.jsonl");
    let zst = dir.path().join("docs.jsonl.zst");
    let bytes = std::fs::read(&plain).unwrap();
    std::fs::write(&zst, zstd::encode_all(bytes.as_slice(), 19).unwrap()).unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    ok(&["dedup", s(&plain), "--html", "--out", s(&a)]);
    ok(&["dedup", s(&zst), "--html", "--out", s(&b)]);
    assert_eq!(
        std::fs::read(a.join("removed.csv")).unwrap(),
        std::fs::read(b.join("removed.csv")).unwrap()
    );
    let unz =
        zstd::decode_all(std::fs::read(b.join("kept.jsonl.zst")).unwrap().as_slice()).unwrap();
    assert!(unz == std::fs::read(a.join("kept.jsonl")).unwrap());
}
