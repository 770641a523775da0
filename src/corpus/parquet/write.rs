//! Writers for deduplicated outputs: the rows of a Parquet corpus whose documents are kept,
//! as Parquet ([`write_kept_parquet`]) or JSONL ([`write_kept_jsonl`]), whole or as a
//! divided run's part of its pieces ([`write_kept_part`]),
//! and a JSONL file as Parquet ([`jsonl_to_parquet`]).
//!
//! Invariants: outputs are written through [`AtomicFile`] (complete or absent) and are the
//! same bytes for the same input; rows are streamed one batch at a time (a Parquet output
//! holds at most one row group in progress, cut where the input's row groups end); a row is
//! a document, with the DocId the corpus reader gives it, exactly when the reader would
//! yield it (the same classification: null texts and ids are malformed, longer texts than
//! the largest document skipped). The duplicate-id check is not repeated here: the ids do
//! not change which rows are documents. A part numbers its pieces' documents from their
//! first DocIds, so the parts of a division hold the whole writer's rows, in order.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{BooleanArray, RecordBatch};
use arrow_schema::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression as Codec, ZstdLevel};
use parquet::file::properties::WriterProperties;

use super::columns::{list_files, BatchCols, ParquetFile, RowKind};
use crate::corpus::reader::too_many_documents;
use crate::corpus::split::LineRange;
use crate::corpus::CorpusConfig;
use crate::io::{AtomicFile, CompressedWriter, Compression};
use crate::{DocId, Error, Result};

/// Rows per batch when converting JSONL.
const JSONL_BATCH_ROWS: usize = 1024;

/// What receives the kept rows of a corpus.
trait Sink {
    /// A file of the corpus starts.
    fn file(&mut self, file: &ParquetFile) -> Result<()>;
    /// Kept rows (never empty).
    fn rows(&mut self, batch: &RecordBatch) -> Result<()>;
    /// A row group of the input ends.
    fn row_group_end(&mut self) -> Result<()>;
}

/// A stretch of a Parquet corpus that a writer reads: a file, its row groups whose bytes
/// start in `window` (every one without), and the DocId of its first document (`None`:
/// the one after the previous stretch's last, or 0).
struct Stretch {
    path: PathBuf,
    window: Option<(u64, u64)>,
    first_doc: Option<u64>,
}

/// The stretches of the whole corpus at `input` (a file, a directory of `*.parquet` files
/// or a pattern of Parquet shards): every file, numbered on.
fn whole(input: &Path, cfg: &CorpusConfig) -> Result<Vec<Stretch>> {
    let files = match crate::corpus::shards::list(input, cfg)? {
        Some(shards) => shards.into_iter().map(|s| s.path).collect(),
        None => list_files(input)?,
    };
    Ok((files.into_iter())
        .map(|path| Stretch {
            path,
            window: None,
            first_doc: None,
        })
        .collect())
}

/// The stretches of a divided run's pieces: each a file's row groups starting in its byte
/// range, numbered from the range's first DocId.
fn pieces(pieces: &[(&Path, LineRange)]) -> Vec<Stretch> {
    (pieces.iter())
        .map(|&(path, r)| Stretch {
            path: path.to_path_buf(),
            window: Some((r.start, r.end)),
            first_doc: Some(r.first_doc),
        })
        .collect()
}

/// Reads the `stretches` of the Parquet corpus at `input` with every column, numbers their
/// documents as the corpus reader does and hands the rows of the documents that `keep`
/// accepts to `sink`; returns how many.
fn for_each_kept(
    input: &Path,
    stretches: Vec<Stretch>,
    cfg: &CorpusConfig,
    keep: &dyn Fn(DocId) -> bool,
    sink: &mut dyn Sink,
) -> Result<u64> {
    cfg.validate()?;
    let mut next_doc = 0u64;
    let mut written = 0u64;
    for stretch in stretches {
        let path = stretch.path;
        let file = ParquetFile::open(&path)?;
        let res = file.resolve(cfg)?;
        sink.file(&file)?;
        let (groups, mut row) = match stretch.window {
            Some((start, end)) => file.window(start, end),
            None => (0..file.row_groups(), 0),
        };
        if let Some(d) = stretch.first_doc {
            next_doc = d;
        }
        for rg in groups {
            let mut batches = file.batches(rg, file.mask(None), row)?;
            while let Some(batch) = batches.next(&path, row)? {
                let cols = BatchCols::new(&batch, &res, &path, row)?;
                let mut mask = Vec::with_capacity(cols.len());
                for i in 0..cols.len() {
                    row += 1;
                    let kept = match cols.classify(i, cfg.max_doc_bytes) {
                        RowKind::Doc { .. } => {
                            if next_doc > u64::from(u32::MAX) {
                                return Err(too_many_documents(input));
                            }
                            let k = keep(DocId(next_doc as u32));
                            next_doc += 1;
                            k
                        }
                        RowKind::Oversized => false,
                        RowKind::Bad(_) if cfg.skip_bad_lines => false,
                        RowKind::Bad(msg) => return Err(Error::parse(&path, row, msg)),
                    };
                    mask.push(kept);
                }
                let n = mask.iter().filter(|&&k| k).count();
                if n == 0 {
                    continue;
                }
                let kept = if n == mask.len() {
                    batch
                } else {
                    arrow_select::filter::filter_record_batch(&batch, &BooleanArray::from(mask))
                        .map_err(|e| Error::format(&path, e.to_string()))?
                };
                sink.rows(&kept)?;
                written += n as u64;
            }
            sink.row_group_end()?;
        }
    }
    Ok(written)
}

/// An error of a writer to `out`.
fn write_err(out: &Path, e: impl std::fmt::Display) -> Error {
    Error::io(out, std::io::Error::other(e.to_string()))
}

/// The Parquet sink: the schema and codec of the first file.
struct ParquetSink<'a> {
    out: &'a Path,
    first: Option<(std::path::PathBuf, SchemaRef)>,
    writer: Option<ArrowWriter<AtomicFile>>,
}

impl Sink for ParquetSink<'_> {
    fn file(&mut self, file: &ParquetFile) -> Result<()> {
        let schema = file.schema().clone();
        match &self.first {
            Some((first, s)) => {
                if s.fields() != schema.fields() {
                    return Err(Error::format(
                        &file.path,
                        format!(
                            "its columns differ from those of {}; expected every file of the corpus to have the same schema",
                            first.display()
                        ),
                    ));
                }
            }
            None => {
                let codec = file.codec().unwrap_or(Codec::ZSTD(ZstdLevel::default()));
                let props = WriterProperties::builder().set_compression(codec).build();
                let w = ArrowWriter::try_new(
                    AtomicFile::create(self.out)?,
                    schema.clone(),
                    Some(props),
                )
                .map_err(|e| write_err(self.out, e))?;
                self.writer = Some(w);
                self.first = Some((file.path.clone(), schema));
            }
        }
        Ok(())
    }

    fn rows(&mut self, batch: &RecordBatch) -> Result<()> {
        let w = self.writer.as_mut().expect("a file starts before its rows");
        w.write(batch).map_err(|e| write_err(self.out, e))
    }

    fn row_group_end(&mut self) -> Result<()> {
        let w = self
            .writer
            .as_mut()
            .expect("a file starts before its row groups");
        w.flush().map_err(|e| write_err(self.out, e))
    }
}

/// Writes the rows of the Parquet corpus at `input` whose documents `keep` accepts (by the
/// DocIds the corpus reader gives them with `cfg`) to the Parquet file `out`, with every
/// column, the Arrow schema of the input (field names, types, dictionaries, nullability and
/// metadata) and the compression codec of its first column chunk (zstd when it has none);
/// a row group of the output never spans two of the input. Every file of a directory must
/// have the same columns. Returns the number of rows written.
pub fn write_kept_parquet(
    input: &Path,
    cfg: &CorpusConfig,
    keep: &dyn Fn(DocId) -> bool,
    out: &Path,
) -> Result<u64> {
    kept_parquet(input, whole(input, cfg)?, None, cfg, keep, out)
}

/// A divided run's part of [`write_kept_parquet`] or, with `jsonl`, of
/// [`write_kept_jsonl`]: the kept rows of `parts` (files of the Parquet corpus at `input`,
/// each with the byte range its row groups start in and its first DocId, in corpus order).
/// A Parquet part has the columns and codec of `first` (the corpus's first file, as the
/// one-process file has them), so that a part without a row is a file of no rows; the
/// Parquet parts of pieces that cover the corpus hold, in order, the rows of the
/// one-process file, in the same row groups, and the JSONL parts concatenated in order are
/// the one-process file.
pub fn write_kept_part(
    input: &Path,
    first: &Path,
    parts: &[(&Path, LineRange)],
    jsonl: bool,
    cfg: &CorpusConfig,
    keep: &dyn Fn(DocId) -> bool,
    out: &Path,
) -> Result<u64> {
    if jsonl {
        kept_jsonl(input, pieces(parts), cfg, keep, out)
    } else {
        kept_parquet(input, pieces(parts), Some(first), cfg, keep, out)
    }
}

/// [`write_kept_parquet`] over `stretches`, the columns and codec from `first` when given,
/// else from the first stretch's file.
fn kept_parquet(
    input: &Path,
    stretches: Vec<Stretch>,
    first: Option<&Path>,
    cfg: &CorpusConfig,
    keep: &dyn Fn(DocId) -> bool,
    out: &Path,
) -> Result<u64> {
    let mut sink = ParquetSink {
        out,
        first: None,
        writer: None,
    };
    if let Some(f) = first {
        sink.file(&ParquetFile::open(f)?)?;
    }
    let n = for_each_kept(input, stretches, cfg, keep, &mut sink)?;
    let Some(w) = sink.writer else {
        return Err(Error::format(
            input,
            "no Parquet file; expected at least one",
        ));
    };
    let f = w.into_inner().map_err(|e| write_err(out, e))?;
    f.commit()?;
    Ok(n)
}

/// The JSONL sink.
struct JsonlSink<'a> {
    out: &'a Path,
    writer: arrow_json::LineDelimitedWriter<CompressedWriter<AtomicFile>>,
}

impl Sink for JsonlSink<'_> {
    fn file(&mut self, _: &ParquetFile) -> Result<()> {
        Ok(())
    }

    fn rows(&mut self, batch: &RecordBatch) -> Result<()> {
        self.writer.write(batch).map_err(|e| write_err(self.out, e))
    }

    fn row_group_end(&mut self) -> Result<()> {
        Ok(())
    }
}

/// Writes the rows of the Parquet corpus at `input` whose documents `keep` accepts (as
/// [`write_kept_parquet`] chooses them) to `out` as JSONL: one JSON object per row with
/// every non-null column (structs as objects, lists as arrays; arrow-json's encoding),
/// compressed as the name of `out` says (`.gz`, `.zst`). Returns the number of rows
/// written.
pub fn write_kept_jsonl(
    input: &Path,
    cfg: &CorpusConfig,
    keep: &dyn Fn(DocId) -> bool,
    out: &Path,
) -> Result<u64> {
    kept_jsonl(input, whole(input, cfg)?, cfg, keep, out)
}

/// [`write_kept_jsonl`] over `stretches`.
fn kept_jsonl(
    input: &Path,
    stretches: Vec<Stretch>,
    cfg: &CorpusConfig,
    keep: &dyn Fn(DocId) -> bool,
    out: &Path,
) -> Result<u64> {
    let w = Compression::of_path(out)
        .writer(AtomicFile::create(out)?)
        .map_err(|e| Error::io(out, e))?;
    let mut sink = JsonlSink {
        out,
        writer: arrow_json::LineDelimitedWriter::new(w),
    };
    let n = for_each_kept(input, stretches, cfg, keep, &mut sink)?;
    sink.writer.finish().map_err(|e| write_err(out, e))?;
    let mut f = sink
        .writer
        .into_inner()
        .finish()
        .map_err(|e| Error::io(out, e))?;
    f.flush().map_err(|e| Error::io(out, e))?;
    f.commit()?;
    Ok(n)
}

/// Whether the JSONL file `jsonl` has a non-blank line.
fn has_row(jsonl: &Path) -> Result<bool> {
    for line in std::io::BufRead::split(crate::io::open_read(jsonl)?, b'\n') {
        let line = line.map_err(|e| Error::io(jsonl, e))?;
        if !line.iter().all(u8::is_ascii_whitespace) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Converts the JSONL file `jsonl` (`.gz`/`.zst` decompressed; blank lines ignored) to the
/// Parquet file `out`, zstd-compressed (level 3). The schema is inferred from every line of
/// the file (a first pass; fields missing from a line are null, numbers and strings mixed in
/// one field become strings); the rows are then converted in a second pass, streamed.
/// Returns the number of rows written. An input without any line gives an empty file with
/// the columns `id` and `text`; lines without any field are an error (Parquet needs a
/// column).
pub fn jsonl_to_parquet(jsonl: &Path, out: &Path) -> Result<u64> {
    let bad = |e: arrow_schema::ArrowError| {
        Error::format(jsonl, format!("{e}; expected one JSON object per line"))
    };
    let (schema, _) =
        arrow_json::reader::infer_json_schema(crate::io::open_read(jsonl)?, None).map_err(bad)?;
    let schema = if !schema.fields().is_empty() {
        schema
    } else if !has_row(jsonl)? {
        // No row at all (every document removed): the columns of a plain corpus.
        arrow_schema::Schema::new(vec![
            arrow_schema::Field::new("id", arrow_schema::DataType::Utf8, true),
            arrow_schema::Field::new("text", arrow_schema::DataType::Utf8, true),
        ])
    } else {
        return Err(Error::format(
            jsonl,
            "no field in any line; expected JSON objects with at least one field",
        ));
    };
    let schema = Arc::new(schema);
    let reader = arrow_json::ReaderBuilder::new(schema.clone())
        .with_batch_size(JSONL_BATCH_ROWS)
        .with_coerce_primitive(true)
        .build(crate::io::open_read(jsonl)?)
        .map_err(bad)?;
    let props = WriterProperties::builder()
        .set_compression(Codec::ZSTD(
            ZstdLevel::try_new(3).map_err(|e| write_err(out, e))?,
        ))
        .build();
    let mut w = ArrowWriter::try_new(AtomicFile::create(out)?, schema, Some(props))
        .map_err(|e| write_err(out, e))?;
    let mut rows = 0u64;
    for batch in reader {
        let batch = batch.map_err(bad)?;
        rows += batch.num_rows() as u64;
        w.write(&batch).map_err(|e| write_err(out, e))?;
    }
    w.into_inner().map_err(|e| write_err(out, e))?.commit()?;
    Ok(rows)
}

/// The JSON sink of [`for_each_document_json`]: each batch (projected to the top-level
/// column holding `column`, when given) as JSON lines handed to `f`.
struct JsonRowsSink<'a, F: FnMut(&[u8]) -> Result<()>> {
    column: Option<&'a str>,
    path: &'a Path,
    f: F,
    buf: Vec<u8>,
}

impl<F: FnMut(&[u8]) -> Result<()>> Sink for JsonRowsSink<'_, F> {
    fn file(&mut self, _: &ParquetFile) -> Result<()> {
        Ok(())
    }

    fn rows(&mut self, batch: &RecordBatch) -> Result<()> {
        let projected;
        let batch = match self.column {
            None => batch,
            Some(c) => {
                // A column named `a.b` itself is found before the field `b` of a struct `a`.
                let schema = batch.schema();
                let root = schema
                    .index_of(c)
                    .or_else(|_| schema.index_of(c.split('.').next().unwrap_or(c)));
                let Ok(i) = root else {
                    // No such column: every row is an empty object.
                    for _ in 0..batch.num_rows() {
                        (self.f)(b"{}")?;
                    }
                    return Ok(());
                };
                projected = batch
                    .project(&[i])
                    .map_err(|e| Error::format(self.path, e.to_string()))?;
                &projected
            }
        };
        self.buf.clear();
        let mut w = arrow_json::LineDelimitedWriter::new(&mut self.buf);
        w.write(batch)
            .map_err(|e| Error::format(self.path, e.to_string()))?;
        w.finish()
            .map_err(|e| Error::format(self.path, e.to_string()))?;
        drop(w);
        let buf = std::mem::take(&mut self.buf);
        for line in buf.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            (self.f)(line)?;
        }
        self.buf = buf;
        Ok(())
    }

    fn row_group_end(&mut self) -> Result<()> {
        Ok(())
    }
}

/// Hands every document row of the Parquet corpus at `input`, in DocId order, to `f` as
/// one JSON object (arrow-json's encoding; null columns left out): with `column`, only the
/// top-level column holding it (the column of that name, else the first part of a nested
/// `a.b`) is encoded. Returns the number of documents.
pub fn for_each_document_json(
    input: &Path,
    cfg: &CorpusConfig,
    column: Option<&str>,
    f: impl FnMut(&[u8]) -> Result<()>,
) -> Result<u64> {
    let mut sink = JsonRowsSink {
        column,
        path: input,
        f,
        buf: Vec::new(),
    };
    for_each_kept(input, whole(input, cfg)?, cfg, &|_| true, &mut sink)
}
