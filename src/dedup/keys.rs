//! The passes a deduplication adds when asked: the keep keys (text lengths or a field's
//! values) and the best match of every document in an index.
//!
//! Invariant: both give one entry per document, in DocId order, numbered by the same
//! corpus reader (and configuration) as the sketch pass, so entry `d` is DocId `d`.

use std::path::Path;

use rayon::prelude::*;

use super::{Keep, KeyValue};
use crate::corpus::texts::{SharedTexts, TextId, TextKey};
use crate::corpus::{self, CorpusConfig, Format};
use crate::index::{Index, NewDoc, QueryOptions};
use crate::sketch::pipeline::for_each_canonical_batch;
use crate::{DocId, Error, Result};

/// The keep order: every DocId once, as `keep` orders them (ties in input order). `keys`
/// holds the policy's key of every document (none for [`Keep::First`]).
pub fn keep_order(n: usize, keep: &Keep, keys: Option<Vec<KeyValue>>) -> Vec<DocId> {
    let mut order: Vec<DocId> = (0..n as u32).map(DocId).collect();
    let Some(keys) = keys else {
        return order;
    };
    let desc = match keep {
        Keep::First => return order,
        Keep::Longest => true,
        Keep::Shortest => false,
        Keep::Field { descending, .. } => *descending,
    };
    // Missing last whatever the direction; numbers before strings.
    let class = |k: &KeyValue| match k {
        KeyValue::Num(_) => 0u8,
        KeyValue::Str(_) => 1,
        KeyValue::Missing => 2,
    };
    order.sort_by(|&a, &b| {
        let (x, y) = (&keys[a.index()], &keys[b.index()]);
        let by_value = match (x, y) {
            (KeyValue::Num(p), KeyValue::Num(q)) => p.total_cmp(q),
            (KeyValue::Str(p), KeyValue::Str(q)) => p.cmp(q),
            _ => std::cmp::Ordering::Equal,
        };
        let by_value = if desc { by_value.reverse() } else { by_value };
        class(x).cmp(&class(y)).then(by_value).then(a.cmp(&b))
    });
    order
}

/// The key of every document for `keep` (`None` for [`Keep::First`]), in one pass over the
/// corpus: text lengths in bytes, or a field's values (JSONL fields, CSV/TSV and Parquet
/// columns, the key column of in-memory texts; nested JSON fields as `a.b`).
pub fn read_keys(
    path: &Path,
    cfg: &CorpusConfig,
    keep: &Keep,
    n: usize,
) -> Result<Option<Vec<KeyValue>>> {
    let field = match keep {
        Keep::First => return Ok(None),
        Keep::Longest | Keep::Shortest => None,
        Keep::Field { name, .. } => Some(name.as_str()),
    };
    let format = cfg.format_of(path)?;
    if let Some(name) = field {
        match format {
            Format::Jsonl | Format::Csv | Format::Tsv => {}
            Format::Texts => {
                let t = cfg.texts.as_ref().ok_or_else(|| {
                    Error::config(format!("{}: no in-memory texts", path.display()))
                })?;
                let keys: Vec<KeyValue> = (0..t.len()).map(|i| text_key(t, i, name)).collect();
                check_count(path, keys.len(), n)?;
                return Ok(Some(keys));
            }
            Format::Parquet => {
                let mut keys = Vec::with_capacity(n);
                corpus::parquet::for_each_document_json(path, cfg, Some(name), |row| {
                    let v: serde_json::Value = serde_json::from_slice(row)
                        .map_err(|e| Error::format(path, format!("a row as JSON: {e}")))?;
                    keys.push(json_key(&v, name));
                    Ok(())
                })?;
                check_count(path, keys.len(), n)?;
                return Ok(Some(keys));
            }
            f => {
                return Err(Error::config(format!(
                    "{}: keep by field {name:?} needs a JSONL, CSV/TSV or Parquet input, not {f}",
                    path.display()
                )))
            }
        }
    }
    let mut reader = corpus::open(path, cfg)?;
    let mut keys = Vec::with_capacity(n);
    let mut header: Option<Vec<String>> = None;
    let mut rec = Vec::new();
    while let Some(doc) = reader.next() {
        let doc = doc?;
        let Some(name) = field else {
            keys.push(KeyValue::Num(doc.text.len() as f64));
            continue;
        };
        rec.clear();
        reader.record(&mut rec);
        let line = reader.last_line();
        let key = match format {
            Format::Jsonl => {
                let v: serde_json::Value = serde_json::from_slice(&rec).map_err(|e| {
                    Error::parse(path, line, format!("{e}; expected a JSON object"))
                })?;
                json_key(&v, name)
            }
            _ => {
                if header.is_none() {
                    let mut pre = Vec::new();
                    reader.preamble(&mut pre);
                    let names = csv_row(&pre, format)?;
                    if !names.iter().any(|h| h == name) {
                        return Err(Error::parse(
                            path,
                            1,
                            format!(
                                "no column {name:?} in the header (columns: {}); expected the keep field",
                                names.join(", ")
                            ),
                        ));
                    }
                    header = Some(names);
                }
                let names = header.as_ref().expect("set above");
                let row = csv_row(&rec, format)?;
                let i = names.iter().position(|h| h == name).expect("checked");
                match row.get(i).map(String::as_str) {
                    None | Some("") => KeyValue::Missing,
                    Some(s) => match s.trim().parse::<f64>() {
                        Ok(x) if x.is_finite() => KeyValue::Num(x),
                        _ => KeyValue::Str(s.to_string()),
                    },
                }
            }
        };
        keys.push(key);
    }
    check_count(path, keys.len(), n)?;
    Ok(Some(keys))
}

/// The value of field `name` of in-memory document `i`, as [`json_key`] finds it in the
/// document's record ([`SharedTexts::record`]): `key` is the key column (missing without
/// one), `id` the id (an int id a number), `text` the text; any other name is missing.
fn text_key(t: &SharedTexts, i: u64, name: &str) -> KeyValue {
    let t = t.texts();
    match name {
        "key" => match t.key(i) {
            Some(TextKey::Num(x)) => KeyValue::Num(x),
            Some(TextKey::Str(s)) => KeyValue::Str(s.to_string()),
            Some(TextKey::Missing) | None => KeyValue::Missing,
        },
        "id" => match t.id(i) {
            TextId::Int(x) => KeyValue::Num(x as f64),
            TextId::Str(s) => KeyValue::Str(s.to_string()),
        },
        "text" => KeyValue::Str(t.text(i).to_string()),
        _ => KeyValue::Missing,
    }
}

/// The value of the (possibly nested, `a.b`) field `name` of a JSON object.
fn json_key(v: &serde_json::Value, name: &str) -> KeyValue {
    use serde_json::Value;
    let mut cur = v;
    // A field whose name holds a dot is found before the nested path.
    if let Some(x) = v.get(name) {
        cur = x;
    } else {
        for part in name.split('.') {
            match cur.get(part) {
                Some(x) => cur = x,
                None => return KeyValue::Missing,
            }
        }
    }
    match cur {
        Value::Null => KeyValue::Missing,
        Value::Number(x) => x.as_f64().map_or(KeyValue::Missing, KeyValue::Num),
        Value::Bool(b) => KeyValue::Num(f64::from(u8::from(*b))),
        Value::String(s) => KeyValue::Str(s.clone()),
        other => KeyValue::Str(other.to_string()),
    }
}

/// The fields of one CSV/TSV row as the reader writes it back.
fn csv_row(bytes: &[u8], format: Format) -> Result<Vec<String>> {
    crate::corpus::dialect::parse_row(bytes, format == Format::Tsv)
}

/// The error of a pass that numbered another count of documents than the sketch pass.
fn check_count(path: &Path, got: usize, want: usize) -> Result<()> {
    if got != want {
        return Err(Error::format(
            path,
            format!("the input changed while it was read: {got} documents now, {want} before"),
        ));
    }
    Ok(())
}

/// The best match of every document in the index at `dir` (its external id and estimated
/// resemblance), when one reaches `threshold`: the documents are canonicalized and sketched
/// with the index's own parameters and queried as `fimdup index query` does.
pub fn against_index(
    dir: &Path,
    path: &Path,
    cfg: &CorpusConfig,
    threshold: f64,
    n: usize,
) -> Result<IndexMatches> {
    let index = Index::open(dir)?;
    Ok(against_opened(&index, path, cfg, threshold, n, false)?.0)
}

/// Each document's best match in an index (external id, estimate), when one reaches the
/// threshold.
pub type IndexMatches = Vec<Option<(String, f64)>>;

/// [`against_index`] of an opened index; with `keep_images`, also every document sketched
/// with the index's parameters, ready to be added to it.
pub(super) fn against_opened(
    index: &Index,
    path: &Path,
    cfg: &CorpusConfig,
    threshold: f64,
    n: usize,
    keep_images: bool,
) -> Result<(IndexMatches, Vec<NewDoc>)> {
    let qs = index.query_sketcher()?;
    let opts = QueryOptions {
        threshold,
        top: Some(1),
        ..QueryOptions::default()
    };
    let mut out = Vec::with_capacity(n);
    let mut docs = Vec::with_capacity(if keep_images { n } else { 0 });
    for_each_canonical_batch(path, cfg, &qs.canon, &|_| {}, |batch, canon| {
        debug_assert_eq!(batch.len(), canon.len());
        let imgs = qs.sketch_batch(&canon);
        let hits: Result<IndexMatches> = imgs
            .par_iter()
            .map(|(img, cont)| {
                let h = index.query_image(img, cont.as_ref(), &opts)?;
                Ok(h.into_iter().next().map(|h| (h.ext_id, h.estimate)))
            })
            .collect();
        out.extend(hits?);
        if keep_images {
            for (d, (image, containment)) in batch.iter().zip(imgs) {
                docs.push(NewDoc {
                    ext_id: d.ext_id.clone(),
                    image,
                    containment,
                });
            }
        }
        Ok(())
    })?;
    check_count(path, out.len(), n)?;
    Ok((out, docs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_orders() {
        let keys = vec![
            KeyValue::Num(3.0),
            KeyValue::Missing,
            KeyValue::Num(5.0),
            KeyValue::Str("b".into()),
            KeyValue::Num(3.0),
        ];
        let ids = |v: Vec<DocId>| v.into_iter().map(|d| d.0).collect::<Vec<_>>();
        let asc = Keep::Field {
            name: "x".into(),
            descending: false,
        };
        let desc = Keep::Field {
            name: "x".into(),
            descending: true,
        };
        assert_eq!(
            ids(keep_order(5, &asc, Some(keys.clone()))),
            [0, 4, 2, 3, 1]
        );
        assert_eq!(
            ids(keep_order(5, &desc, Some(keys.clone()))),
            [2, 0, 4, 3, 1]
        );
        assert_eq!(ids(keep_order(5, &Keep::First, None)), [0, 1, 2, 3, 4]);
    }

    #[test]
    fn nested_json_keys() {
        let v: serde_json::Value =
            serde_json::from_str(r#"{"a":{"b":2},"a.c":"x","n":null,"t":true}"#).unwrap();
        assert_eq!(json_key(&v, "a.b"), KeyValue::Num(2.0));
        assert_eq!(json_key(&v, "a.c"), KeyValue::Str("x".into()));
        assert_eq!(json_key(&v, "n"), KeyValue::Missing);
        assert_eq!(json_key(&v, "zz"), KeyValue::Missing);
        assert_eq!(json_key(&v, "t"), KeyValue::Num(1.0));
    }
}
