//! In-memory texts (`corpus::texts`, the Python package's corpus), read in place, against the
//! JSONL file of the same documents (`{"id":..,"text":..}`, with `"key":..`), read as a
//! JSONL corpus with the same settings: the same documents (DocIds, external ids, texts),
//! records, content hash, keep keys, errors, and the same clusters and pairs from a job.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{
    ArrayRef, Float64Array, Int64Array, LargeStringArray, RecordBatch, RecordBatchIterator,
    StringArray, StringViewArray,
};
use arrow_schema::{DataType, Field, Schema};
use fimdup::cluster::{Input, JobBuilder, Method, Threshold, Verify};
use fimdup::corpus::texts::{rename_error, ArrowTexts, SharedTexts};
use fimdup::corpus::{self, CorpusConfig, DuplicateIds, Format};
use fimdup::dedup::{DedupBuilder, Keep};
use fimdup::report::provenance;
use fimdup::sketch::pipeline::PipelineConfig;

/// The texts of the reference corpus (`datasets/default`, 1500 documents with near
/// duplicates) and their ids.
fn reference() -> Vec<(String, String)> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/default/docs.jsonl");
    corpus::open(&p, &CorpusConfig::default())
        .unwrap()
        .map(|d| d.map(|d| (d.ext_id, d.text)).unwrap())
        .collect()
}

/// The ids of the documents: a column of strings, of ints, or none (the positions).
enum Ids {
    Str(Vec<String>),
    Int(Vec<i64>),
    None,
}

/// The keys: numbers (`None`: missing), strings, or no column.
enum Keys {
    Num(Vec<Option<f64>>),
    Str(Vec<String>),
    None,
}

/// The documents as an Arrow C stream of batches of `batch` rows (texts as `text_type`).
fn stream(
    texts: &[String],
    ids: &Ids,
    keys: &Keys,
    text_type: &DataType,
    batch: usize,
) -> FFI_ArrowArrayStream {
    let mut fields = vec![Field::new("text", text_type.clone(), false)];
    match ids {
        Ids::Str(_) => fields.push(Field::new("id", DataType::Utf8, false)),
        Ids::Int(_) => fields.push(Field::new("id", DataType::Int64, false)),
        Ids::None => {}
    }
    match keys {
        Keys::Num(_) => fields.push(Field::new("key", DataType::Float64, true)),
        Keys::Str(_) => fields.push(Field::new("key", DataType::LargeUtf8, false)),
        Keys::None => {}
    }
    let schema = Arc::new(Schema::new(fields));
    let mut batches = Vec::new();
    for start in (0..texts.len()).step_by(batch) {
        let r = start..(start + batch).min(texts.len());
        let t: Vec<&str> = texts[r.clone()].iter().map(String::as_str).collect();
        let mut cols: Vec<ArrayRef> = vec![match text_type {
            DataType::Utf8 => Arc::new(StringArray::from(t)),
            DataType::LargeUtf8 => Arc::new(LargeStringArray::from(t)),
            _ => Arc::new(StringViewArray::from(t)),
        }];
        match ids {
            Ids::Str(v) => cols.push(Arc::new(StringArray::from(v[r.clone()].to_vec()))),
            Ids::Int(v) => cols.push(Arc::new(Int64Array::from(v[r.clone()].to_vec()))),
            Ids::None => {}
        }
        match keys {
            Keys::Num(v) => cols.push(Arc::new(Float64Array::from(v[r.clone()].to_vec()))),
            Keys::Str(v) => cols.push(Arc::new(LargeStringArray::from(v[r].to_vec()))),
            Keys::None => {}
        }
        batches.push(Ok(RecordBatch::try_new(schema.clone(), cols).unwrap()));
    }
    FFI_ArrowArrayStream::new(Box::new(RecordBatchIterator::new(batches, schema)))
}

/// The JSONL file of the same documents, as the package wrote it before the texts were read
/// in place, and the configuration it was read with.
fn jsonl(dir: &Path, texts: &[String], ids: &Ids, keys: &Keys) -> (PathBuf, CorpusConfig) {
    use serde_json::{json, Value};
    let mut out = String::new();
    for (i, t) in texts.iter().enumerate() {
        let id = match ids {
            Ids::Str(v) => json!(v[i]),
            Ids::Int(v) => json!(v[i]),
            Ids::None => json!(i),
        };
        let mut line = format!("{{\"id\":{id},\"text\":{}", Value::from(t.as_str()));
        match keys {
            Keys::Num(v) => line += &format!(",\"key\":{}", json!(v[i])),
            Keys::Str(v) => line += &format!(",\"key\":{}", json!(v[i])),
            Keys::None => {}
        }
        out += &line;
        out += "}\n";
    }
    let p = dir.join("texts.jsonl");
    std::fs::write(&p, out).unwrap();
    let cfg = CorpusConfig {
        format: Some(Format::Jsonl),
        duplicate_ids: DuplicateIds::Error,
        max_doc_bytes: u64::MAX,
        ..CorpusConfig::default()
    };
    (p, cfg)
}

fn in_memory(
    texts: &[String],
    ids: &Ids,
    keys: &Keys,
    text_type: &DataType,
    batch: usize,
) -> SharedTexts {
    SharedTexts::new(
        ArrowTexts::from_arrow_stream(stream(texts, ids, keys, text_type, batch)).unwrap(),
    )
}

/// A document as read: DocId, external id, text and record.
type Read = (u32, String, String, Vec<u8>);

/// Every document, with its record, and the reader's counts.
fn read(path: &Path, cfg: &CorpusConfig) -> (Vec<Read>, corpus::CorpusStats) {
    let mut r = corpus::open(path, cfg).unwrap();
    let mut docs = Vec::new();
    while let Some(d) = r.next() {
        let d = d.unwrap();
        let mut rec = Vec::new();
        assert!(r.record(&mut rec));
        docs.push((d.id.0, d.ext_id, d.text, rec));
    }
    (docs, r.stats())
}

#[test]
fn in_memory_texts_are_the_documents_of_their_jsonl_file() {
    let docs = reference();
    let texts: Vec<String> = docs.iter().map(|d| d.1.clone()).collect();
    let n = texts.len();
    let dir = tempfile::tempdir().unwrap();
    let variants = [
        (
            Ids::Str(docs.iter().map(|d| d.0.clone()).collect()),
            Keys::Num(
                (0..n)
                    .map(|i| (i % 7 != 3).then_some((i % 13) as f64 * 0.1 - 0.5))
                    .collect(),
            ),
            DataType::LargeUtf8,
        ),
        (
            Ids::Int((0..n as i64).map(|i| i * 1_000_003 - 700_000_000).collect()),
            Keys::Str((0..n).map(|i| format!("k\"{}", (i * 31) % 17)).collect()),
            DataType::Utf8,
        ),
        (Ids::None, Keys::None, DataType::Utf8View),
    ];
    for (ids, keys, text_type) in &variants {
        let (path, cfg) = jsonl(dir.path(), &texts, ids, keys);
        let file = read(&path, &cfg);
        for batch in [1000, 64, n] {
            let t = in_memory(&texts, ids, keys, text_type, batch);
            let what = format!("{text_type}, batches of {batch}");
            assert_eq!(t.len(), n as u64);
            let mem = read(t.path(), &t.config());
            assert_eq!(mem.1, file.1, "{what}: counts");
            assert_eq!(mem.0.len(), file.0.len(), "{what}");
            for (m, f) in mem.0.iter().zip(&file.0) {
                assert_eq!(m, f, "{what}: document, id, text and record");
            }
            assert_eq!(
                provenance::digest_texts(&t),
                provenance::digest(&path).unwrap(),
                "{what}: content hash"
            );
            // The keep keys of a deduplication, by every field the records hold.
            for keep in [
                "field:key:desc",
                "field:key",
                "field:id",
                "field:text",
                "longest",
            ] {
                let dedup = |path: &Path, cfg: &CorpusConfig| {
                    let p = PipelineConfig {
                        corpus: cfg.clone(),
                        ..PipelineConfig::default()
                    };
                    let mut job = JobBuilder::new(Method::Concept);
                    job.threshold(Threshold::Resemblance(0.5)).pipeline(p);
                    let mut b = DedupBuilder::new(job);
                    b.keep(keep.parse::<Keep>().unwrap());
                    b.build().unwrap().select(path, &|_| {}).unwrap()
                };
                let (a, b) = (dedup(t.path(), &t.config()), dedup(&path, &cfg));
                assert_eq!(a.ext_ids, b.ext_ids, "{what}, keep {keep}");
                assert_eq!(a.removed, b.removed, "{what}, keep {keep}");
                assert!(
                    a.removed.iter().any(Option::is_some),
                    "{what}: a test with removals"
                );
            }
        }
    }
}

#[test]
fn a_cluster_job_on_texts_in_memory_equals_the_job_on_their_file() {
    let docs = reference();
    let texts: Vec<String> = docs.iter().map(|d| d.1.clone()).collect();
    let ids = Ids::Str(docs.iter().map(|d| d.0.clone()).collect());
    let dir = tempfile::tempdir().unwrap();
    let (path, cfg) = jsonl(dir.path(), &texts, &ids, &Keys::None);
    let t = in_memory(&texts, &ids, &Keys::None, &DataType::LargeUtf8, 4096);
    let run = |input: &Path, corpus: CorpusConfig| {
        let p = PipelineConfig {
            corpus,
            ..PipelineConfig::default()
        };
        JobBuilder::new(Method::Concept)
            .threshold(Threshold::Resemblance(0.8))
            .verify(Some(Verify::Exact))
            .pipeline(p)
            .build()
            .unwrap()
            .run(&Input::Corpus(input.to_path_buf()), &|_| {})
            .unwrap()
    };
    let (mem, file) = (run(t.path(), t.config()), run(&path, cfg));
    assert!(!file.output.pairs.is_empty(), "a test with pairs");
    assert_eq!(mem.ext_ids, file.ext_ids);
    assert_eq!(mem.output.pairs, file.output.pairs);
    assert_eq!(mem.output.clusters, file.output.clusters);
    assert_eq!(mem.input_stats, file.input_stats);
}

#[test]
fn a_repeated_id_in_memory_names_both_positions() {
    let texts: Vec<String> = ["one two", "three four", "five six", "seven"]
        .map(String::from)
        .to_vec();
    let ids = Ids::Str(["p", "dup", "q", "dup"].map(String::from).to_vec());
    let t = in_memory(&texts, &ids, &Keys::None, &DataType::Utf8, 3);
    let e = corpus::open(t.path(), &t.config())
        .unwrap()
        .read_all()
        .unwrap_err();
    assert_eq!(
        rename_error(e).to_string(),
        "texts[3]: duplicate id \"dup\" (first seen at texts[1])"
    );
    // Without an id column the positions are the ids, which cannot repeat.
    let t = in_memory(&texts, &Ids::None, &Keys::None, &DataType::Utf8, 3);
    let got: Vec<String> = corpus::open(t.path(), &t.config())
        .unwrap()
        .map(|d| d.unwrap().ext_id)
        .collect();
    assert_eq!(got, ["0", "1", "2", "3"]);
}
