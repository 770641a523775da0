//! Texts from an Arrow C stream of record batches ([`TextsFile::from_arrow_stream`]), the
//! way the Python package hands over a pyarrow table, a pandas column or a list: the strings
//! are read from the Arrow buffers and written to the JSONL file as they come.
//!
//! Invariant: row `i` of the stream (across batches) is line `i + 1`, as for
//! [`TextsWriter`](super::TextsWriter); a null text, id or the wrong Arrow type is an error
//! naming `texts[i]`, `ids[i]` or `keys[i]`.

use std::path::Path;

use arrow_array::cast::AsArray;
pub use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::ffi_stream::RecordBatchStreamReader;
use arrow_array::types::{Float64Type, Int64Type};
use arrow_array::{Array, RecordBatchReader};
use arrow_schema::DataType;

use super::{TextId, TextKey, TextsFile, TextsWriter};
use crate::{Error, Result};

impl TextsFile {
    /// The documents of an Arrow C stream of record batches: column `text` (string,
    /// large_string or string_view; no nulls), optional `id` (int64, or strings; absent:
    /// the positions 0, 1, ...), optional `key` (float64 with nulls for missing values, or
    /// strings), written under `tmp_dir`.
    pub fn from_arrow_stream(
        stream: FFI_ArrowArrayStream,
        tmp_dir: Option<&Path>,
    ) -> Result<TextsFile> {
        let arrow = |e: arrow_schema::ArrowError| Error::config(format!("texts: {e}"));
        let mut reader = RecordBatchStreamReader::try_new(stream).map_err(arrow)?;
        let schema = reader.schema();
        let col = |name: &str| schema.index_of(name).ok();
        let text_at = col("text").ok_or_else(|| Error::config("texts: no column \"text\""))?;
        let (id_at, key_at) = (col("id"), col("key"));
        let mut w = TextsWriter::create(tmp_dir)?;
        for batch in &mut reader {
            let batch = batch.map_err(arrow)?;
            let base = w.len();
            let texts = Strings::of(batch.column(text_at).as_ref(), "texts", base)?;
            let ids = id_at
                .map(|i| Ids::of(batch.column(i).as_ref(), base))
                .transpose()?;
            let keys = key_at
                .map(|i| Keys::of(batch.column(i).as_ref(), base))
                .transpose()?;
            for r in 0..batch.num_rows() {
                let id = match &ids {
                    None => TextId::Int((base + r as u64) as i64),
                    Some(Ids::Int(a)) => TextId::Int(a.value(r)),
                    Some(Ids::Str(s)) => TextId::Str(s.get(r)),
                };
                w.push(id, texts.get(r), keys.as_ref().map(|k| k.get(r)))?;
            }
        }
        w.finish()
    }
}

/// The position of the first null of `a`, as an error.
fn no_nulls(a: &dyn Array, what: &str, base: u64) -> Result<()> {
    match (0..a.len()).find(|&i| a.is_null(i)) {
        Some(i) => Err(Error::config(format!(
            "{what}[{}] is null: expected a value",
            base + i as u64
        ))),
        None => Ok(()),
    }
}

/// A string column in any of Arrow's three layouts.
enum Strings<'a> {
    Small(&'a arrow_array::StringArray),
    Large(&'a arrow_array::LargeStringArray),
    View(&'a arrow_array::StringViewArray),
}

impl<'a> Strings<'a> {
    fn of(a: &'a dyn Array, what: &str, base: u64) -> Result<Strings<'a>> {
        no_nulls(a, what, base)?;
        match a.data_type() {
            DataType::Utf8 => Ok(Strings::Small(a.as_string::<i32>())),
            DataType::LargeUtf8 => Ok(Strings::Large(a.as_string::<i64>())),
            DataType::Utf8View => Ok(Strings::View(a.as_string_view())),
            t => Err(Error::config(format!(
                "{what} must be strings, not Arrow {t}"
            ))),
        }
    }

    fn get(&self, i: usize) -> &'a str {
        match self {
            Strings::Small(a) => a.value(i),
            Strings::Large(a) => a.value(i),
            Strings::View(a) => a.value(i),
        }
    }
}

enum Ids<'a> {
    Int(&'a arrow_array::Int64Array),
    Str(Strings<'a>),
}

impl<'a> Ids<'a> {
    fn of(a: &'a dyn Array, base: u64) -> Result<Ids<'a>> {
        match a.as_primitive_opt::<Int64Type>() {
            Some(ints) => no_nulls(a, "ids", base).map(|_| Ids::Int(ints)),
            None => Strings::of(a, "ids", base).map(Ids::Str),
        }
    }
}

enum Keys<'a> {
    Num(&'a arrow_array::Float64Array),
    Str(Strings<'a>),
}

impl<'a> Keys<'a> {
    fn of(a: &'a dyn Array, base: u64) -> Result<Keys<'a>> {
        match a.as_primitive_opt::<Float64Type>() {
            Some(x) => Ok(Keys::Num(x)),
            None => Strings::of(a, "keys", base).map(Keys::Str),
        }
    }

    fn get(&self, i: usize) -> TextKey<'a> {
        match self {
            Keys::Num(a) if a.is_null(i) => TextKey::Missing,
            Keys::Num(a) => TextKey::Num(a.value(i)),
            Keys::Str(s) => TextKey::Str(s.get(i)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_arrow_stream_of_batches_reads_back_in_order() {
        use arrow_array::{
            Int64Array, LargeStringArray, RecordBatch, RecordBatchIterator, StringArray,
        };
        use std::sync::Arc;
        let schema = Arc::new(arrow_schema::Schema::new(vec![
            arrow_schema::Field::new("text", DataType::LargeUtf8, false),
            arrow_schema::Field::new("id", DataType::Int64, false),
        ]));
        let batch = |t: &[&str], i: &[i64]| {
            RecordBatch::try_new(
                schema.clone(),
                vec![
                    Arc::new(LargeStringArray::from(t.to_vec())),
                    Arc::new(Int64Array::from(i.to_vec())),
                ],
            )
            .unwrap()
        };
        let batches = vec![
            Ok(batch(&["a b", "c\"d"], &[10, 3])),
            Ok(batch(&["é"], &[-1])),
        ];
        let reader = RecordBatchIterator::new(batches, schema.clone());
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        let f = TextsFile::from_arrow_stream(stream, None).unwrap();
        let docs = crate::corpus::open(f.path(), &f.config())
            .unwrap()
            .read_all()
            .unwrap();
        let got: Vec<(String, String)> = docs.into_iter().map(|d| (d.ext_id, d.text)).collect();
        let want = [("10", "a b"), ("3", "c\"d"), ("-1", "é")];
        assert_eq!(
            got,
            want.map(|(a, b)| (a.to_string(), b.to_string())).to_vec()
        );
        // A null text is refused, naming its position across batches.
        let s2 = Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
            "text",
            DataType::Utf8,
            true,
        )]));
        let b = |v: Vec<Option<&str>>| {
            RecordBatch::try_new(s2.clone(), vec![Arc::new(StringArray::from(v))]).unwrap()
        };
        let batches = vec![Ok(b(vec![Some("x")])), Ok(b(vec![Some("y"), None]))];
        let stream =
            FFI_ArrowArrayStream::new(Box::new(RecordBatchIterator::new(batches, s2.clone())));
        let e = TextsFile::from_arrow_stream(stream, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("texts[2] is null"), "{e}");
    }
}
