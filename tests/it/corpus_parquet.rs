//! Parquet corpora: files written by pyarrow (several row groups, struct, dictionary and
//! integer columns, snappy) read like their JSONL twins, alone and as a directory of shards;
//! the kept-row writers read back in pyarrow with the input's schema; JSONL -> Parquet; the
//! malformed cases (null, oversized and binary texts, missing and mistyped columns, corrupt
//! files, duplicate ids across shards) on files written here; the CLI end to end.
//!
//! The pyarrow tests need `FIMDUP_PYTHON` (a Python with pyarrow): without it they are
//! skipped with a note, or fail under CI.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, BinaryArray, Int64Array, RecordBatch, StringArray};
use common::{ok, python_with_pyarrow, run_python, s};
use fimdup::corpus::par::{read_all_par_opts, ParOptions};
use fimdup::corpus::parquet::{jsonl_to_parquet, write_kept_jsonl, write_kept_parquet};
use fimdup::corpus::{open, CorpusConfig, CorpusStats, Document, Format};
use fimdup::DocId;

/// Writes a pyarrow corpus of `n` rows (`meta` struct holding the id `meta.url`, `text`,
/// an int64 `n`, a dictionary `source`; row groups of 7 rows, snappy) to `pq` (a file, or
/// with `shards` > 1 a directory of `data/train-0000K-of-0000S.parquet` files plus a
/// README.md) and its JSONL twin (`id`, `text`) to `jsonl`.
const MAKE: &str = r##"
import sys, json, os, pyarrow as pa, pyarrow.parquet as pq
out, twin, n, shards = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
texts = [f"document {i} " + ("word%d " % (i % 7)) * (i % 5) + ("caf\u00e9" if i % 11 == 0 else "") for i in range(n)]
urls = [f"https://ex.org/{i}" for i in range(n)]
meta = pa.array([{"url": u, "lang": "en"} for u in urls],
                type=pa.struct([("url", pa.string()), ("lang", pa.string())]))
t = pa.table({"meta": meta, "text": pa.array(texts, pa.string()),
              "n": pa.array([3 * i for i in range(n)], pa.int64()),
              "source": pa.array([["web", "books", "news"][i % 3] for i in range(n)]).dictionary_encode()})
if shards == 1:
    pq.write_table(t, out, row_group_size=7, compression="snappy")
else:
    os.makedirs(os.path.join(out, "data"))
    open(os.path.join(out, "README.md"), "w").write("# a dataset\n")
    k = (n + shards - 1) // shards
    for s in range(shards):
        pq.write_table(t.slice(s * k, k),
                       os.path.join(out, "data", f"train-{s:05d}-of-{shards:05d}.parquet"),
                       row_group_size=7, compression="snappy")
with open(twin, "w") as f:
    for u, x in zip(urls, texts):
        f.write(json.dumps({"id": u, "text": x}) + "\n")
"##;

fn pq_cfg() -> CorpusConfig {
    CorpusConfig {
        id_column: "meta.url".into(),
        ..CorpusConfig::default()
    }
}

fn read(path: &Path, cfg: &CorpusConfig) -> (Vec<Document>, CorpusStats) {
    let mut r = open(path, cfg).unwrap();
    let docs: Vec<Document> = r.by_ref().collect::<fimdup::Result<_>>().unwrap();
    (docs, r.stats())
}

fn read_err(path: &Path, cfg: &CorpusConfig) -> fimdup::Error {
    match open(path, cfg) {
        Err(e) => e,
        Ok(r) => r.read_all().unwrap_err(),
    }
}

/// The pyarrow corpus and its twin in `dir`; `None` without pyarrow.
fn make(dir: &Path, n: usize, shards: usize) -> Option<(PathBuf, PathBuf, PathBuf)> {
    let py = python_with_pyarrow()?;
    let pq = dir.join(if shards == 1 { "c.parquet" } else { "ds" });
    let twin = dir.join("c.jsonl");
    run_python(
        &py,
        MAKE,
        &[s(&pq), s(&twin), &n.to_string(), &shards.to_string()],
    );
    Some((py, pq, twin))
}

#[test]
fn pyarrow_file_reads_like_its_jsonl_twin() {
    let dir = tempfile::tempdir().unwrap();
    let Some((_, pq, twin)) = make(dir.path(), 100, 1) else {
        return;
    };
    assert_eq!(Format::guess(&pq).unwrap(), Format::Parquet);
    let (want, want_stats) = read(&twin, &CorpusConfig::default());
    let (got, got_stats) = read(&pq, &pq_cfg());
    assert_eq!(got.len(), 100);
    assert_eq!(got, want);
    assert_eq!(got_stats, want_stats);
    let opts = ParOptions {
        block_bytes: 100,
        in_flight: 3,
    };
    let (par, par_stats) = read_all_par_opts(&pq, &pq_cfg(), &opts).unwrap();
    assert_eq!(par, want);
    assert_eq!(par_stats, want_stats);
    // The dictionary column and the integer column as ids; the row number.
    let cfg = CorpusConfig {
        id_column: "n".into(),
        ..CorpusConfig::default()
    };
    let (docs, _) = read(&pq, &cfg);
    assert_eq!(docs[5].ext_id, "15");
    let cfg = CorpusConfig {
        text_column: "source".into(),
        id_column: String::new(),
        ..CorpusConfig::default()
    };
    let (docs, _) = read(&pq, &cfg);
    assert_eq!(
        docs[..4]
            .iter()
            .map(|d| (d.ext_id.as_str(), d.text.as_str()))
            .collect::<Vec<_>>(),
        [("1", "web"), ("2", "books"), ("3", "news"), ("4", "web")]
    );
}

#[test]
fn pyarrow_shards_read_as_one_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let Some((_, ds, twin)) = make(dir.path(), 100, 3) else {
        return;
    };
    assert_eq!(Format::guess(&ds).unwrap(), Format::Parquet);
    let (want, want_stats) = read(&twin, &CorpusConfig::default());
    let (got, got_stats) = read(&ds, &pq_cfg());
    assert_eq!(got, want);
    assert_eq!(
        got_stats,
        CorpusStats {
            files: 3,
            ..want_stats
        }
    );
    let (par, _) = read_all_par_opts(&ds, &pq_cfg(), &ParOptions::default()).unwrap();
    assert_eq!(par, want);
    // Row numbers across the shards as ids.
    let cfg = CorpusConfig {
        id_column: String::new(),
        ..CorpusConfig::default()
    };
    let (docs, _) = read(&ds, &cfg);
    assert_eq!(docs[99].ext_id, "100");
    // `dir` still reads every file as a document.
    let cfg = CorpusConfig {
        format: Some(Format::Dir),
        ..CorpusConfig::default()
    };
    let (docs, stats) = read(&ds, &cfg);
    assert_eq!(docs.len(), 4);
    assert_eq!(docs[0].ext_id, "README.md");
    assert_eq!(stats.files, 4);
}

#[test]
fn kept_rows_keep_the_schema_in_pyarrow() {
    let dir = tempfile::tempdir().unwrap();
    let Some((py, pq, twin)) = make(dir.path(), 100, 1) else {
        return;
    };
    let keep = |d: DocId| d.0 % 3 != 1;
    let out = dir.path().join("kept.parquet");
    let n = write_kept_parquet(&pq, &pq_cfg(), &keep, &out).unwrap();
    assert_eq!(n, 67);
    let again = dir.path().join("kept2.parquet");
    write_kept_parquet(&pq, &pq_cfg(), &keep, &again).unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
    run_python(
        &py,
        r#"
import sys, pyarrow.parquet as pq
inp, out = sys.argv[1], sys.argv[2]
assert pq.read_schema(out) == pq.read_schema(inp), (pq.read_schema(out), pq.read_schema(inp))
assert pq.read_schema(out).metadata == pq.read_schema(inp).metadata
rows = pq.read_table(inp).to_pylist()
assert pq.read_table(out).to_pylist() == [r for i, r in enumerate(rows) if i % 3 != 1]
md = pq.ParquetFile(out).metadata
assert md.row_group(0).column(0).compression == "SNAPPY", md.row_group(0).column(0).compression
assert all(md.row_group(g).num_rows <= 7 for g in range(md.num_row_groups))
"#,
        &[s(&pq), s(&out)],
    );
    // The kept rows as JSONL (zstd-compressed): every column, structs as objects.
    let jl = dir.path().join("kept.jsonl.zst");
    assert_eq!(write_kept_jsonl(&pq, &pq_cfg(), &keep, &jl).unwrap(), 67);
    let text = String::from_utf8(fimdup::io::read_all(&jl).unwrap()).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 67);
    assert_eq!(lines[1]["meta"]["url"], "https://ex.org/2");
    assert_eq!(lines[1]["n"], 6);
    assert_eq!(lines[1]["source"], "news");
    // JSONL -> Parquet reads back in pyarrow and in fimdup like the JSONL.
    let conv = dir.path().join("conv.parquet");
    assert_eq!(jsonl_to_parquet(&twin, &conv).unwrap(), 100);
    let out = run_python(
        &py,
        r#"
import sys, json, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
rows = [json.loads(l) for l in open(sys.argv[2])]
assert t.to_pylist() == rows
print(pq.ParquetFile(sys.argv[1]).metadata.row_group(0).column(0).compression)
"#,
        &[s(&conv), s(&twin)],
    );
    assert_eq!(out.trim(), "ZSTD");
    let (want, _) = read(&twin, &CorpusConfig::default());
    assert_eq!(read(&conv, &CorpusConfig::default()).0, want);
}

/// Writes one batch of `cols` to a Parquet file at `path` (zstd).
fn write_pq(path: &Path, cols: Vec<(&str, ArrayRef)>) {
    let batch = RecordBatch::try_from_iter(cols).unwrap();
    let f = std::fs::File::create(path).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(f, batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

fn strings(v: &[Option<&str>]) -> ArrayRef {
    Arc::new(StringArray::from(v.to_vec()))
}

#[test]
fn null_oversized_and_binary_rows() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("n.parquet");
    write_pq(
        &p,
        vec![
            (
                "id",
                strings(&[Some("a"), Some("b"), None, Some("d"), Some("e")]),
            ),
            (
                "text",
                strings(&[
                    Some("one"),
                    None,
                    Some("three"),
                    Some("a long text"),
                    Some(""),
                ]),
            ),
        ],
    );
    let e = read_err(&p, &CorpusConfig::default());
    assert_eq!(
        e.to_string(),
        format!(
            "{}:2: null text in column \"text\"; expected a string",
            p.display()
        )
    );
    let cfg = CorpusConfig {
        skip_bad_lines: true,
        max_doc_bytes: 5,
        ..CorpusConfig::default()
    };
    let (docs, st) = read(&p, &cfg);
    assert_eq!(
        docs.iter()
            .map(|d| (d.ext_id.as_str(), d.text.as_str()))
            .collect::<Vec<_>>(),
        [("a", "one"), ("e", "")]
    );
    assert_eq!(
        (st.skipped_bad_lines, st.skipped_oversized, st.empty),
        (2, 1, 1)
    );
    // The writer numbers the same rows as documents.
    let out = dir.path().join("k.jsonl");
    assert_eq!(write_kept_jsonl(&p, &cfg, &|d| d.0 == 1, &out).unwrap(), 1);
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .contains("\"id\":\"e\""));
    let e = write_kept_jsonl(&p, &CorpusConfig::default(), &|_| true, &out).unwrap_err();
    assert!(e.to_string().contains(":2: null text"), "{e}");
    // Binary texts are decoded lossily; integer ids printed in decimal.
    let b = dir.path().join("b.parquet");
    let bin: ArrayRef = Arc::new(BinaryArray::from(vec![&b"ok"[..], &b"bad \xff"[..]]));
    write_pq(
        &b,
        vec![
            ("id", Arc::new(Int64Array::from(vec![-7, 12])) as ArrayRef),
            ("text", bin),
        ],
    );
    let (docs, st) = read(&b, &CorpusConfig::default());
    assert_eq!(docs[0].ext_id, "-7");
    assert_eq!(docs[1].text, "bad \u{fffd}");
    assert_eq!(st.lossy_utf8, 1);
}

#[test]
fn missing_and_mistyped_columns_corrupt_files_and_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("c.parquet");
    write_pq(
        &p,
        vec![
            ("id", Arc::new(Int64Array::from(vec![1, 2])) as ArrayRef),
            ("body", strings(&[Some("x"), Some("y")])),
        ],
    );
    let e = read_err(&p, &CorpusConfig::default());
    assert!(matches!(e, fimdup::Error::Format { .. }), "{e}");
    assert!(
        e.to_string().starts_with(&format!(
            "{}: no column \"text\" (columns: \"id\", \"body\")",
            p.display()
        )),
        "{e}"
    );
    let cfg = CorpusConfig {
        text_column: "id".into(),
        id_column: "body".into(),
        ..CorpusConfig::default()
    };
    let e = read_err(&p, &cfg);
    assert!(
        e.to_string()
            .contains("column \"id\" is Int64; expected a string column"),
        "{e}"
    );
    // Truncated and damaged files are errors naming the file, never panics.
    let bytes = std::fs::read(&p).unwrap();
    let cfg = CorpusConfig {
        text_column: "body".into(),
        ..CorpusConfig::default()
    };
    assert_eq!(read(&p, &cfg).0.len(), 2);
    for cut in [0, 4, bytes.len() / 2, bytes.len() - 1] {
        let t = dir.path().join(format!("t{cut}.parquet"));
        std::fs::write(&t, &bytes[..cut]).unwrap();
        let e = read_err(&t, &cfg);
        assert!(e.to_string().starts_with(&t.display().to_string()), "{e}");
    }
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0x5a;
        let t = dir.path().join("flip.parquet");
        std::fs::write(&t, &b).unwrap();
        if let Ok(r) = open(&t, &cfg) {
            let _ = r.read_all();
        }
    }
    let e = read_err(
        Path::new("-"),
        &CorpusConfig {
            format: Some(Format::Parquet),
            ..cfg.clone()
        },
    );
    assert!(matches!(e, fimdup::Error::Config(_)), "{e}");
    let gz = dir.path().join("c.parquet.gz");
    std::fs::write(&gz, &bytes).unwrap();
    assert!(read_err(&gz, &cfg)
        .to_string()
        .contains("cannot be read through gzip"));
}

#[test]
fn duplicate_ids_across_shards_name_file_and_row() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("d")).unwrap();
    let a = dir.path().join("d/a.parquet");
    let b = dir.path().join("d/b.parquet");
    write_pq(
        &a,
        vec![
            ("id", strings(&[Some("x"), Some("y")])),
            ("text", strings(&[Some("1"), Some("2")])),
        ],
    );
    write_pq(
        &b,
        vec![
            ("id", strings(&[Some("z"), Some("y")])),
            ("text", strings(&[Some("3"), Some("4")])),
        ],
    );
    let e = read_err(&dir.path().join("d"), &CorpusConfig::default());
    assert_eq!(
        e.to_string(),
        format!(
            "{}:2: duplicate id \"y\" (first seen at {}:2)",
            b.display(),
            a.display()
        )
    );
}

#[test]
fn cli_clusters_a_parquet_corpus_like_its_jsonl_twin() {
    let dir = tempfile::tempdir().unwrap();
    let Some(py) = python_with_pyarrow() else {
        return;
    };
    let jsonl = common::gen(dir.path(), "g", 300, 7, "", &[]);
    let pq = dir.path().join("g.parquet");
    run_python(
        &py,
        r#"
import sys, pyarrow.json as pj, pyarrow.parquet as pq
pq.write_table(pj.read_json(sys.argv[1]), sys.argv[2], row_group_size=50)
"#,
        &[s(&jsonl), s(&pq)],
    );
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    ok(&["cluster", s(&jsonl), "--threshold", "0.8", "--out", s(&a)]);
    ok(&["cluster", s(&pq), "--threshold", "0.8", "--out", s(&b)]);
    let clusters = std::fs::read_to_string(a.join("clusters.jsonl")).unwrap();
    assert!(!clusters.is_empty());
    assert_eq!(
        clusters,
        std::fs::read_to_string(b.join("clusters.jsonl")).unwrap()
    );
    ok(&["sketch", s(&pq), "--out", s(&dir.path().join("s.img"))]);
    ok(&[
        "index",
        "build",
        s(&pq),
        "--out",
        s(&dir.path().join("idx")),
    ]);
}

/// `index query --jsonl` takes a Parquet file of queries like its JSONL twin.
#[test]
fn index_queries_from_parquet_like_jsonl() {
    let dir = tempfile::tempdir().unwrap();
    let Some((_, pq, twin)) = make(dir.path(), 60, 1) else {
        return;
    };
    let idx = dir.path().join("idx");
    ok(&["index", "build", s(&twin), "--out", s(&idx)]);
    let q = |file: &Path, id: &str| {
        let o = ok(&[
            "index",
            "query",
            s(&idx),
            "--jsonl",
            s(file),
            "--id-field",
            id,
            "--threshold",
            "0.3",
        ]);
        String::from_utf8(o.stdout).unwrap()
    };
    let want = q(&twin, "id");
    assert!(want.lines().count() > 10, "{want}");
    assert_eq!(q(&pq, "meta.url"), want);
}
