//! The pieces the Parquet reader and writers share: finding the files of a corpus, opening
//! a file and decoding its row groups with every decoder call guarded, finding the text and
//! id columns (struct fields as `a.b`), and deciding what a row is ([`RowKind`]).
//!
//! Invariant: the reader and the writers classify a row by the same [`BatchCols::classify`],
//! so they agree on which rows are documents; nothing here panics on a hostile file: errors
//! of the decoder, and its panics, become [`Error`]s naming the file (and the row, while
//! rows are decoded).

use std::cell::Cell;
use std::fs::File;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{
    Array, ArrayRef, BinaryArray, BinaryViewArray, LargeBinaryArray, LargeStringArray, RecordBatch,
    StringArray, StringViewArray,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder,
};
use parquet::arrow::ProjectionMask;

use super::is_parquet_name;
use crate::corpus::CorpusConfig;
use crate::io::Compression;
use crate::{Error, Result};

/// Rows per decoded batch.
pub(super) const BATCH_ROWS: usize = 1024;

/// The files of the Parquet corpus at `path`: the file itself, or the `*.parquet` files of a
/// directory sorted by relative path.
pub(super) fn list_files(path: &Path) -> Result<Vec<PathBuf>> {
    if path == Path::new("-") {
        return Err(Error::config(
            "Parquet cannot be read from standard input (its footer is read first); give a Parquet file or a directory of them",
        ));
    }
    let c = Compression::of_path(path);
    if c.is_compressed() {
        return Err(Error::format(
            path,
            format!(
                "a Parquet file cannot be read through {} compression; expected an uncompressed Parquet file (Parquet compresses its own pages)",
                c.name()
            ),
        ));
    }
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    crate::corpus::dir::walk(path, "", &mut files)?;
    files.retain(|(_, p)| is_parquet_name(p));
    files.sort_by(|a, b| a.0.cmp(&b.0));
    if files.is_empty() {
        return Err(Error::format(
            path,
            "no *.parquet file in this directory; expected a Parquet file or a directory holding some",
        ));
    }
    Ok(files.into_iter().map(|(_, p)| p).collect())
}

thread_local! {
    /// How many guarded decoder calls the thread is inside.
    static GUARDED: Cell<u32> = const { Cell::new(0) };
}

/// Whether the calling thread is inside a guarded decoder call (see [`guard`]).
pub(super) fn inside_guard() -> bool {
    GUARDED.with(|g| g.get() > 0)
}

/// Runs a decoder call, turning its error, or its panic, into a message. While it runs,
/// [`inside_guard`] is true on this thread, so a panic hook can tell a decoder panic that
/// is about to become an error from one that is not.
fn guard<T, E: std::fmt::Display>(
    f: impl FnOnce() -> std::result::Result<T, E>,
) -> std::result::Result<T, String> {
    struct Depth;
    impl Drop for Depth {
        fn drop(&mut self) {
            GUARDED.with(|g| g.set(g.get() - 1));
        }
    }
    GUARDED.with(|g| g.set(g.get() + 1));
    let depth = Depth;
    let outcome = catch_unwind(AssertUnwindSafe(f));
    drop(depth);
    match outcome {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(e.to_string()),
        Err(p) => {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".into());
            Err(format!("the Parquet decoder failed ({what})"))
        }
    }
}

/// An open Parquet file with its metadata.
pub(super) struct ParquetFile {
    pub(super) path: PathBuf,
    file: File,
    meta: ArrowReaderMetadata,
}

impl ParquetFile {
    /// Opens `path` and reads its footer.
    pub(super) fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let meta = guard(|| ArrowReaderMetadata::load(&file, ArrowReaderOptions::new()))
            .map_err(|m| Error::format(path, format!("{m}; expected a Parquet file")))?;
        check_chunks(path, &meta, &file)?;
        Ok(ParquetFile {
            path: path.to_path_buf(),
            file,
            meta,
        })
    }

    /// The Arrow schema of the file (with its metadata).
    pub(super) fn schema(&self) -> &SchemaRef {
        self.meta.schema()
    }

    /// The number of row groups.
    pub(super) fn row_groups(&self) -> usize {
        self.meta.metadata().num_row_groups()
    }

    /// Where each row group's bytes start in the file (its first column chunk's first
    /// page, dictionary page included) and its rows.
    pub(super) fn row_group_spans(&self) -> Vec<(u64, u64)> {
        (self.meta.metadata().row_groups().iter())
            .map(|rg| {
                let start = (rg.columns().iter())
                    .map(|c| c.byte_range().0)
                    .min()
                    .unwrap_or(0);
                (start, rg.num_rows().max(0) as u64)
            })
            .collect()
    }

    /// The row groups whose bytes start in `[start, end)` (see
    /// [`crate::corpus::split::assign_pieces`]) and the rows of the file before them.
    pub(super) fn window(&self, start: u64, end: u64) -> (std::ops::Range<usize>, u64) {
        let spans = self.row_group_spans();
        let first = spans.iter().take_while(|s| s.0 < start).count();
        let last = first + spans[first..].iter().take_while(|s| s.0 < end).count();
        (first..last, spans[..first].iter().map(|s| s.1).sum())
    }

    /// The compression of the file's first column chunk, if it has one.
    pub(super) fn codec(&self) -> Option<parquet::basic::Compression> {
        let rg = self.meta.metadata().row_groups().first()?;
        rg.columns().first().map(|c| c.compression())
    }

    /// A projection of the leaf columns `leaves` (all columns: `None`).
    pub(super) fn mask(&self, leaves: Option<&[usize]>) -> ProjectionMask {
        match leaves {
            Some(l) => ProjectionMask::leaves(self.meta.parquet_schema(), l.iter().copied()),
            None => ProjectionMask::all(),
        }
    }

    /// The batches of row group `rg` with the columns of `mask`; `row` is the number of rows
    /// of the file before it (for messages).
    pub(super) fn batches(&self, rg: usize, mask: ProjectionMask, row: u64) -> Result<Batches> {
        let file = self
            .file
            .try_clone()
            .map_err(|e| Error::io(&self.path, e))?;
        let meta = self.meta.clone();
        let reader = guard(|| {
            ParquetRecordBatchReaderBuilder::new_with_metadata(file, meta)
                .with_row_groups(vec![rg])
                .with_projection(mask)
                .with_batch_size(BATCH_ROWS)
                .build()
        })
        .map_err(|m| bad_data(&self.path, row + 1, &m))?;
        Ok(Batches { reader })
    }

    /// Finds the text and id columns `cfg` names.
    pub(super) fn resolve(&self, cfg: &CorpusConfig) -> Result<Resolved> {
        let text = self.find(&cfg.text_column, false)?;
        let id = if cfg.id_column.is_empty() {
            None
        } else {
            Some(self.find(&cfg.id_column, true)?)
        };
        let mut leaves = vec![text.leaf];
        if let Some(i) = &id {
            if i.leaf != text.leaf {
                leaves.push(i.leaf);
            }
        }
        Ok(Resolved { text, id, leaves })
    }

    /// Finds the column `name` (a top-level column of that name, or a struct field path
    /// `a.b`) and checks its type.
    fn find(&self, name: &str, id: bool) -> Result<ColumnRef> {
        let (what, expected) = if id {
            (
                "id",
                "a string or integer column (Utf8, LargeUtf8, Utf8View, Binary, LargeBinary, a dictionary of them, or an integer type)",
            )
        } else {
            (
                "text",
                "a string column (Utf8, LargeUtf8, Utf8View, Binary, LargeBinary or a dictionary of them)",
            )
        };
        let schema = self.schema();
        let Some((path, dt)) = find_field(schema, name) else {
            return Err(Error::format(
                &self.path,
                format!(
                    "no column {name:?} (columns: {}); expected a column holding the {what} (the configured {what} column; a struct field as a.b)",
                    column_list(schema)
                ),
            ));
        };
        let ok = if id {
            id_type_ok(&dt)
        } else {
            text_type_ok(&dt)
        };
        if !ok {
            return Err(Error::format(
                &self.path,
                format!("column {name:?} is {dt}; expected {expected} holding the {what}"),
            ));
        }
        let leaf = self
            .meta
            .parquet_schema()
            .columns()
            .iter()
            .position(|c| c.path().parts() == path.as_slice())
            .ok_or_else(|| {
                Error::format(
                    &self.path,
                    format!("column {name:?} has no Parquet leaf column {path:?}; expected a primitive column"),
                )
            })?;
        Ok(ColumnRef {
            name: name.to_string(),
            path,
            leaf,
        })
    }
}

/// Checks that every column chunk the footer declares lies within the file (the decoder
/// asserts that offsets and sizes are not negative instead of reporting them).
fn check_chunks(path: &Path, meta: &ArrowReaderMetadata, file: &File) -> Result<()> {
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    for (g, rg) in meta.metadata().row_groups().iter().enumerate() {
        for (c, col) in rg.columns().iter().enumerate() {
            let start = col
                .dictionary_page_offset()
                .unwrap_or_else(|| col.data_page_offset());
            let size = col.compressed_size();
            let inside = u64::try_from(start)
                .ok()
                .zip(u64::try_from(size).ok())
                .and_then(|(s, n)| s.checked_add(n))
                .is_some_and(|end| end <= len);
            if !inside {
                return Err(Error::format(
                    path,
                    format!(
                        "row group {g}, column {c}: chunk at offset {start} of {size} bytes; expected a column chunk within the file ({len} bytes)"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The message of undecodable data at `row` (1-based) of `path`.
fn bad_data(path: &Path, row: u64, m: &str) -> Error {
    Error::parse(path, row, format!("{m}; expected valid Parquet data"))
}

/// The field `name` of `schema`: a top-level field of that name, else a path of struct
/// fields `a.b.c`; its path of names and type.
fn find_field(schema: &Schema, name: &str) -> Option<(Vec<String>, DataType)> {
    if let Ok(f) = schema.field_with_name(name) {
        return Some((vec![name.to_string()], f.data_type().clone()));
    }
    let mut parts = name.split('.');
    let first = parts.next()?;
    let mut f: &Field = schema.field_with_name(first).ok()?;
    let mut path = vec![first.to_string()];
    for p in parts {
        let DataType::Struct(children) = f.data_type() else {
            return None;
        };
        f = children.iter().find(|c| c.name() == p)?;
        path.push(p.to_string());
    }
    Some((path, f.data_type().clone()))
}

/// The columns of `schema` for messages: struct fields as `a.b`, at most 40 of them.
fn column_list(schema: &Schema) -> String {
    fn add(prefix: &str, f: &Field, out: &mut Vec<String>) {
        let name = if prefix.is_empty() {
            f.name().clone()
        } else {
            format!("{prefix}.{}", f.name())
        };
        match f.data_type() {
            DataType::Struct(children) => {
                for c in children {
                    add(&name, c, out);
                }
            }
            _ => out.push(format!("{name:?}")),
        }
    }
    let mut out = Vec::new();
    for f in schema.fields() {
        add("", f, &mut out);
    }
    let n = out.len();
    if n > 40 {
        out.truncate(40);
        out.push(format!("... {} more", n - 40));
    }
    if out.is_empty() {
        "none".into()
    } else {
        out.join(", ")
    }
}

fn is_bytes_type(dt: &DataType) -> bool {
    use DataType::*;
    matches!(
        dt,
        Utf8 | LargeUtf8 | Utf8View | Binary | LargeBinary | BinaryView
    )
}

fn text_type_ok(dt: &DataType) -> bool {
    match dt {
        DataType::Dictionary(_, v) => is_bytes_type(v),
        _ => is_bytes_type(dt),
    }
}

fn id_type_ok(dt: &DataType) -> bool {
    text_type_ok(dt) || dt.is_integer()
}

/// The batches of one row group.
pub(super) struct Batches {
    reader: ParquetRecordBatchReader,
}

impl Batches {
    /// The next batch; `row` is the number of rows of the file before it (for messages).
    pub(super) fn next(&mut self, path: &Path, row: u64) -> Result<Option<RecordBatch>> {
        guard(|| self.reader.next().transpose()).map_err(|m| bad_data(path, row + 1, &m))
    }
}

/// A column found in a file: the configured name, its path of field names, its leaf index.
pub(super) struct ColumnRef {
    name: String,
    path: Vec<String>,
    leaf: usize,
}

/// The text and id columns of a file.
pub(super) struct Resolved {
    text: ColumnRef,
    id: Option<ColumnRef>,
    /// The leaf columns to decode.
    pub(super) leaves: Vec<usize>,
}

/// What a row is.
pub(super) enum RowKind<'a> {
    /// A document: its text bytes and its id (`None`: numbered by row).
    Doc { text: &'a [u8], id: Option<String> },
    /// A malformed row: what is wrong.
    Bad(String),
    /// A text longer than the largest document.
    Oversized,
}

/// A column of bytes of one batch.
enum Bytes {
    Utf8(StringArray),
    LargeUtf8(LargeStringArray),
    Utf8View(StringViewArray),
    Binary(BinaryArray),
    LargeBinary(LargeBinaryArray),
    BinaryView(BinaryViewArray),
}

impl Bytes {
    fn of(a: &dyn Array) -> Option<Bytes> {
        Some(match a.data_type() {
            DataType::Utf8 => Bytes::Utf8(a.as_string_opt::<i32>()?.clone()),
            DataType::LargeUtf8 => Bytes::LargeUtf8(a.as_string_opt::<i64>()?.clone()),
            DataType::Utf8View => Bytes::Utf8View(a.as_string_view_opt()?.clone()),
            DataType::Binary => Bytes::Binary(a.as_binary_opt::<i32>()?.clone()),
            DataType::LargeBinary => Bytes::LargeBinary(a.as_binary_opt::<i64>()?.clone()),
            DataType::BinaryView => Bytes::BinaryView(a.as_binary_view_opt()?.clone()),
            _ => return None,
        })
    }

    fn len(&self) -> usize {
        match self {
            Bytes::Utf8(a) => a.len(),
            Bytes::LargeUtf8(a) => a.len(),
            Bytes::Utf8View(a) => a.len(),
            Bytes::Binary(a) => a.len(),
            Bytes::LargeBinary(a) => a.len(),
            Bytes::BinaryView(a) => a.len(),
        }
    }

    /// The value at `i` (`i < len`), `None` when null.
    fn get(&self, i: usize) -> Option<&[u8]> {
        macro_rules! at {
            ($a:expr, $v:expr) => {
                if $a.is_null(i) {
                    None
                } else {
                    Some($v)
                }
            };
        }
        match self {
            Bytes::Utf8(a) => at!(a, a.value(i).as_bytes()),
            Bytes::LargeUtf8(a) => at!(a, a.value(i).as_bytes()),
            Bytes::Utf8View(a) => at!(a, a.value(i).as_bytes()),
            Bytes::Binary(a) => at!(a, a.value(i)),
            Bytes::LargeBinary(a) => at!(a, a.value(i)),
            Bytes::BinaryView(a) => at!(a, a.value(i)),
        }
    }
}

/// The values of a column of one batch.
enum Leaf {
    Bytes(Bytes),
    /// A dictionary: the value index of every row (`None`: null).
    Dict(Vec<Option<usize>>, Bytes),
    Int(ArrayRef),
}

/// A column of one batch: the struct arrays above it (whose nulls make its rows null) and
/// its values.
struct Col {
    parents: Vec<ArrayRef>,
    leaf: Leaf,
    len: usize,
}

/// What a row's value is.
enum Value<'a> {
    Null,
    Bytes(&'a [u8]),
    Int(String),
}

impl Col {
    /// The column at `path` of `batch`; `None` when the batch does not hold it as the
    /// schema said.
    fn new(batch: &RecordBatch, path: &[String]) -> Option<Col> {
        let mut cur: ArrayRef = batch.column_by_name(path.first()?)?.clone();
        let mut parents = Vec::new();
        for p in &path[1..] {
            let next = cur.as_struct_opt()?.column_by_name(p)?.clone();
            parents.push(std::mem::replace(&mut cur, next));
        }
        let len = cur.len();
        if len != batch.num_rows() {
            return None;
        }
        let leaf = match cur.data_type() {
            DataType::Dictionary(..) => {
                let d = cur.as_any_dictionary_opt()?;
                let values = Bytes::of(d.values().as_ref())?;
                let keys = if values.len() == 0 {
                    vec![None; len]
                } else {
                    d.normalized_keys()
                        .into_iter()
                        .enumerate()
                        .map(|(i, k)| (!d.is_null(i)).then_some(k))
                        .collect()
                };
                Leaf::Dict(keys, values)
            }
            dt if dt.is_integer() => Leaf::Int(cur),
            _ => Leaf::Bytes(Bytes::of(cur.as_ref())?),
        };
        Some(Col { parents, leaf, len })
    }

    fn get(&self, i: usize) -> Value<'_> {
        if i >= self.len || self.parents.iter().any(|p| p.is_null(i)) {
            return Value::Null;
        }
        match &self.leaf {
            Leaf::Bytes(b) => b.get(i).map_or(Value::Null, Value::Bytes),
            Leaf::Dict(keys, b) => match keys[i].and_then(|k| b.get(k)) {
                Some(v) => Value::Bytes(v),
                None => Value::Null,
            },
            Leaf::Int(a) => int_at(a.as_ref(), i).map_or(Value::Null, Value::Int),
        }
    }
}

/// The integer at `i` of an integer array, in decimal; `None` when null.
fn int_at(a: &dyn Array, i: usize) -> Option<String> {
    if a.is_null(i) {
        return None;
    }
    let mut buf = itoa::Buffer::new();
    macro_rules! ints {
        ($($dt:ident => $t:ty),*) => {
            match a.data_type() {
                $(DataType::$dt => buf.format(a.as_primitive_opt::<$t>()?.value(i)).to_string(),)*
                _ => return None,
            }
        };
    }
    Some(ints!(
        Int8 => Int8Type, Int16 => Int16Type, Int32 => Int32Type, Int64 => Int64Type,
        UInt8 => UInt8Type, UInt16 => UInt16Type, UInt32 => UInt32Type, UInt64 => UInt64Type
    ))
}

/// The text and id columns of one batch.
pub(super) struct BatchCols {
    text_name: String,
    text: Col,
    /// The id column's name and values.
    id: Option<(String, Col)>,
}

impl BatchCols {
    /// The columns of `res` in `batch` (decoded from `path`; `row`: rows of the file before
    /// the batch, for messages).
    pub(super) fn new(batch: &RecordBatch, res: &Resolved, path: &Path, row: u64) -> Result<Self> {
        let col = |c: &ColumnRef| {
            Col::new(batch, &c.path).ok_or_else(|| {
                bad_data(
                    path,
                    row + 1,
                    &format!("column {:?} did not decode to its declared type", c.name),
                )
            })
        };
        Ok(BatchCols {
            text_name: res.text.name.clone(),
            text: col(&res.text)?,
            id: match &res.id {
                Some(c) => Some((c.name.clone(), col(c)?)),
                None => None,
            },
        })
    }

    /// The number of rows.
    pub(super) fn len(&self) -> usize {
        self.text.len
    }

    /// What row `i` of the batch is, with documents of at most `max` bytes.
    pub(super) fn classify(&self, i: usize, max: u64) -> RowKind<'_> {
        let text = match self.text.get(i) {
            Value::Bytes(t) => t,
            _ => {
                return RowKind::Bad(format!(
                    "null text in column {:?}; expected a string",
                    self.text_name
                ))
            }
        };
        let id = match &self.id {
            Some((name, c)) => match c.get(i) {
                Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
                Value::Int(s) => Some(s),
                Value::Null => {
                    return RowKind::Bad(format!(
                        "null id in column {name:?}; expected a string or an integer"
                    ))
                }
            },
            None => None,
        };
        if text.len() as u64 > max {
            return RowKind::Oversized;
        }
        RowKind::Doc { text, id }
    }
}
