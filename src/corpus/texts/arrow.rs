//! [`ArrowTexts`]: the record batches of an Arrow C stream, the way the Python package hands
//! over a pyarrow table, a pandas column or a list, kept as they came with their columns
//! resolved and checked ([`ArrowTexts::from_arrow_stream`]).
//!
//! The texts themselves may instead stay with their owner ([`OuterTexts`], the Python
//! package's own `str` objects): then the stream brings only the id and key columns, or
//! there is no stream ([`ArrowTexts::from_outer_texts`]).
//!
//! Invariant: a batch's columns hold the buffers the stream handed over (an Arrow array's
//! clone shares them); `starts[b]` is the position of the first row of `parts[b]`, and no
//! part is empty; with outer texts, the parts' rows (if any part) are as many as the texts.

use arrow_array::cast::AsArray;
pub use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::ffi_stream::RecordBatchStreamReader;
use arrow_array::types::{Float64Type, Int64Type};
use arrow_array::{Array, Float64Array, Int64Array, RecordBatchReader};
use arrow_schema::DataType;

use super::{TextId, TextKey};
use crate::{Error, Result};

/// The documents of an Arrow C stream (see the module docs).
#[derive(Debug)]
pub struct ArrowTexts {
    parts: Vec<Part>,
    starts: Vec<u64>,
    len: u64,
    has_ids: bool,
    outer: Option<Box<dyn OuterTexts>>,
}

/// Texts that their owner holds and the library reads where they are, text `i` being
/// document `i` (a program's own strings, not copied into Arrow first).
pub trait OuterTexts: Send + Sync + std::fmt::Debug {
    /// Number of texts.
    fn len(&self) -> usize;
    /// True when there is no text.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Text `i` (`i < len`).
    fn text(&self, i: usize) -> &str;
}

/// The columns of one record batch (`texts` absent with outer texts).
#[derive(Debug)]
struct Part {
    texts: Option<Strings>,
    ids: Option<Ids>,
    keys: Option<Keys>,
}

impl ArrowTexts {
    /// The documents of an Arrow C stream of record batches: column `text` (string,
    /// large_string or string_view; no nulls), optional `id` (int64, or strings; absent:
    /// the positions 0, 1, ...), optional `key` (float64, finite, with nulls for missing
    /// values, or strings), read to its end and kept.
    pub fn from_arrow_stream(stream: FFI_ArrowArrayStream) -> Result<ArrowTexts> {
        Self::read(stream, None)
    }

    /// The texts `outer` holds, with the id and key columns (`id`, `key`, as in
    /// [`ArrowTexts::from_arrow_stream`]) of `columns` when given, which must then have as
    /// many rows as there are texts and no column `text`.
    pub fn from_outer_texts(
        outer: Box<dyn OuterTexts>,
        columns: Option<FFI_ArrowArrayStream>,
    ) -> Result<ArrowTexts> {
        let n = outer.len() as u64;
        let t = match columns {
            Some(stream) => Self::read(stream, Some(outer))?,
            None => ArrowTexts {
                parts: Vec::new(),
                starts: Vec::new(),
                len: n,
                has_ids: false,
                outer: Some(outer),
            },
        };
        if t.len != n {
            return Err(Error::config(format!(
                "texts: {n} texts but {} rows of ids or keys",
                t.len
            )));
        }
        Ok(t)
    }

    /// The batches of `stream`, whose column `text` holds the texts unless `outer` does.
    fn read(stream: FFI_ArrowArrayStream, outer: Option<Box<dyn OuterTexts>>) -> Result<Self> {
        let arrow = |e: arrow_schema::ArrowError| Error::config(format!("texts: {e}"));
        let mut reader = RecordBatchStreamReader::try_new(stream).map_err(arrow)?;
        let schema = reader.schema();
        let col = |name: &str| schema.index_of(name).ok();
        let text_at = col("text");
        match (&outer, text_at) {
            (None, None) => return Err(Error::config("texts: no column \"text\"")),
            (Some(_), Some(_)) => {
                return Err(Error::config(
                    "texts: a column \"text\" beside texts held outside Arrow",
                ))
            }
            _ => {}
        }
        let (id_at, key_at) = (col("id"), col("key"));
        let mut t = ArrowTexts {
            parts: Vec::new(),
            starts: Vec::new(),
            len: 0,
            has_ids: id_at.is_some(),
            outer,
        };
        for batch in &mut reader {
            let batch = batch.map_err(arrow)?;
            let base = t.len;
            let texts = text_at
                .map(|i| Strings::of(batch.column(i).as_ref(), "texts", base))
                .transpose()?;
            let ids = id_at
                .map(|i| Ids::of(batch.column(i).as_ref(), base))
                .transpose()?;
            let keys = key_at
                .map(|i| Keys::of(batch.column(i).as_ref(), base))
                .transpose()?;
            if batch.num_rows() == 0 {
                continue;
            }
            t.parts.push(Part { texts, ids, keys });
            t.starts.push(base);
            t.len += batch.num_rows() as u64;
        }
        Ok(t)
    }

    /// Number of documents.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when there is no document.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the ids are a column (else they are the positions, which cannot repeat).
    pub fn has_ids(&self) -> bool {
        self.has_ids
    }

    /// The part holding document `i` (`i < len`) and its row in it; `None` when there is
    /// no part (outer texts without columns).
    fn at(&self, i: u64) -> Option<(&Part, usize)> {
        let b = self.starts.partition_point(|&s| s <= i).checked_sub(1)?;
        Some((&self.parts[b], (i - self.starts[b]) as usize))
    }

    /// The text of document `i` (`i < len`).
    pub fn text(&self, i: u64) -> &str {
        if let Some(o) = &self.outer {
            return o.text(i as usize);
        }
        let (p, r) = self.at(i).expect("a part holds every document");
        p.texts.as_ref().expect("texts in the batches").get(r)
    }

    /// The external id of document `i` (`i < len`).
    pub fn id(&self, i: u64) -> TextId<'_> {
        match self.at(i) {
            Some((p, r)) => match &p.ids {
                None => TextId::Int(i as i64),
                Some(Ids::Int(a)) => TextId::Int(a.value(r)),
                Some(Ids::Str(s)) => TextId::Str(s.get(r)),
            },
            None => TextId::Int(i as i64),
        }
    }

    /// The key of document `i` (`i < len`); `None` without a key column.
    pub fn key(&self, i: u64) -> Option<TextKey<'_>> {
        let (p, r) = self.at(i)?;
        p.keys.as_ref().map(|k| match k {
            Keys::Num(a) if a.is_null(r) => TextKey::Missing,
            Keys::Num(a) => TextKey::Num(a.value(r)),
            Keys::Str(s) => TextKey::Str(s.get(r)),
        })
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
#[derive(Debug)]
enum Strings {
    Small(arrow_array::StringArray),
    Large(arrow_array::LargeStringArray),
    View(arrow_array::StringViewArray),
}

impl Strings {
    fn of(a: &dyn Array, what: &str, base: u64) -> Result<Strings> {
        no_nulls(a, what, base)?;
        match a.data_type() {
            DataType::Utf8 => Ok(Strings::Small(a.as_string::<i32>().clone())),
            DataType::LargeUtf8 => Ok(Strings::Large(a.as_string::<i64>().clone())),
            DataType::Utf8View => Ok(Strings::View(a.as_string_view().clone())),
            t => Err(Error::config(format!(
                "{what} must be strings, not Arrow {t}"
            ))),
        }
    }

    fn get(&self, i: usize) -> &str {
        match self {
            Strings::Small(a) => a.value(i),
            Strings::Large(a) => a.value(i),
            Strings::View(a) => a.value(i),
        }
    }
}

#[derive(Debug)]
enum Ids {
    Int(Int64Array),
    Str(Strings),
}

impl Ids {
    fn of(a: &dyn Array, base: u64) -> Result<Ids> {
        match a.as_primitive_opt::<Int64Type>() {
            Some(ints) => no_nulls(a, "ids", base).map(|_| Ids::Int(ints.clone())),
            None => Strings::of(a, "ids", base).map(Ids::Str),
        }
    }
}

#[derive(Debug)]
enum Keys {
    Num(Float64Array),
    Str(Strings),
}

impl Keys {
    fn of(a: &dyn Array, base: u64) -> Result<Keys> {
        match a.as_primitive_opt::<Float64Type>() {
            Some(x) => {
                let bad = (0..x.len()).find(|&i| !x.is_null(i) && !x.value(i).is_finite());
                match bad {
                    Some(i) => Err(Error::config(format!(
                        "keep key of text {} is {}: expected a finite number or a string",
                        base + i as u64,
                        x.value(i)
                    ))),
                    None => Ok(Keys::Num(x.clone())),
                }
            }
            None => Strings::of(a, "keys", base).map(Keys::Str),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{Float64Array, Int64Array, LargeStringArray, RecordBatch, StringArray};
    use arrow_array::{RecordBatchIterator, StringViewArray};
    use arrow_schema::{Field, Schema};

    use super::*;
    use crate::corpus::texts::SharedTexts;

    fn stream(schema: &Arc<Schema>, batches: Vec<RecordBatch>) -> FFI_ArrowArrayStream {
        let it = RecordBatchIterator::new(batches.into_iter().map(Ok), schema.clone());
        FFI_ArrowArrayStream::new(Box::new(it))
    }

    #[test]
    fn an_arrow_stream_of_batches_reads_back_in_order() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("text", DataType::LargeUtf8, false),
            Field::new("id", DataType::Int64, false),
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
            batch(&["a b", "c\"d"], &[10, 3]),
            batch(&[], &[]),
            batch(&["é"], &[-1]),
        ];
        let t = ArrowTexts::from_arrow_stream(stream(&schema, batches)).unwrap();
        assert_eq!((t.len(), t.has_ids()), (3, true));
        let t = SharedTexts::new(t);
        let docs = crate::corpus::open(t.path(), &t.config())
            .unwrap()
            .read_all()
            .unwrap();
        let got: Vec<(String, String)> = docs.into_iter().map(|d| (d.ext_id, d.text)).collect();
        let want = [("10", "a b"), ("3", "c\"d"), ("-1", "é")];
        assert_eq!(
            got,
            want.map(|(a, b)| (a.to_string(), b.to_string())).to_vec()
        );
    }

    /// Texts kept by their owner: a list of strings.
    #[derive(Debug)]
    struct Owned(Vec<String>);

    impl OuterTexts for Owned {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn text(&self, i: usize) -> &str {
            &self.0[i]
        }
    }

    /// Outer texts with the id and key columns of a stream, or with none, give the
    /// documents, ids and keys of the same texts in the stream's own text column.
    #[test]
    fn outer_texts_read_as_a_text_column() {
        let texts = ["a b", "c\"d", "é", ""];
        let schema = Arc::new(Schema::new(vec![
            Field::new("text", DataType::Utf8, false),
            Field::new("id", DataType::Utf8, false),
            Field::new("key", DataType::Float64, true),
        ]));
        let cols = Arc::new(Schema::new(schema.fields()[1..].to_vec()));
        let batch = |s: &Arc<Schema>, r: std::ops::Range<usize>, with_text: bool| {
            let ids: Vec<String> = r.clone().map(|i| format!("d{i}")).collect();
            let keys: Vec<Option<f64>> = r.clone().map(|i| (i != 1).then_some(i as f64)).collect();
            let mut c: Vec<arrow_array::ArrayRef> = vec![
                Arc::new(StringArray::from(ids)),
                Arc::new(Float64Array::from(keys)),
            ];
            if with_text {
                c.insert(0, Arc::new(StringArray::from(texts[r].to_vec())));
            }
            RecordBatch::try_new(s.clone(), c).unwrap()
        };
        let owned = || Box::new(Owned(texts.iter().map(|t| t.to_string()).collect()));
        let inner = ArrowTexts::from_arrow_stream(stream(
            &schema,
            vec![batch(&schema, 0..3, true), batch(&schema, 3..4, true)],
        ))
        .unwrap();
        let outer = ArrowTexts::from_outer_texts(
            owned(),
            Some(stream(
                &cols,
                vec![batch(&cols, 0..1, false), batch(&cols, 1..4, false)],
            )),
        )
        .unwrap();
        let bare = ArrowTexts::from_outer_texts(owned(), None).unwrap();
        assert_eq!(
            (outer.len(), outer.has_ids(), bare.has_ids()),
            (4, true, false)
        );
        for i in 0..4u64 {
            assert_eq!(outer.text(i), inner.text(i));
            assert_eq!(outer.id(i), inner.id(i));
            assert_eq!(outer.key(i), inner.key(i));
            assert_eq!(bare.text(i), texts[i as usize]);
            assert_eq!((bare.id(i), bare.key(i)), (TextId::Int(i as i64), None));
        }
        let refused = |s: &Arc<Schema>, rows, with_text| {
            let columns = stream(s, vec![batch(s, rows, with_text)]);
            (ArrowTexts::from_outer_texts(owned(), Some(columns)))
                .unwrap_err()
                .to_string()
        };
        let e = refused(&cols, 0..3, false);
        assert!(e.contains("4 texts but 3 rows"), "{e}");
        let e = refused(&schema, 0..4, true);
        assert!(e.contains("beside texts held outside Arrow"), "{e}");
    }

    #[test]
    fn nulls_and_infinite_keys_are_refused_naming_the_position() {
        let s = Arc::new(Schema::new(vec![Field::new("text", DataType::Utf8, true)]));
        let b = |v: Vec<Option<&str>>| {
            RecordBatch::try_new(s.clone(), vec![Arc::new(StringArray::from(v))]).unwrap()
        };
        let batches = vec![b(vec![Some("x")]), b(vec![Some("y"), None])];
        let e = ArrowTexts::from_arrow_stream(stream(&s, batches))
            .unwrap_err()
            .to_string();
        assert!(e.contains("texts[2] is null"), "{e}");
        let s = Arc::new(Schema::new(vec![
            Field::new("text", DataType::Utf8View, false),
            Field::new("key", DataType::Float64, true),
        ]));
        let b = RecordBatch::try_new(
            s.clone(),
            vec![
                Arc::new(StringViewArray::from(vec!["a", "b"])),
                Arc::new(Float64Array::from(vec![None, Some(f64::INFINITY)])),
            ],
        )
        .unwrap();
        let e = ArrowTexts::from_arrow_stream(stream(&s, vec![b]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("keep key of text 1 is inf"), "{e}");
    }
}
