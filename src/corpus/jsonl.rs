//! JSONL: one JSON object per non-blank line; the text is a string field, the external id a
//! string or number field (or the line number).
//!
//! Two parsers give the same answers: [`parse_jsonl_line`] builds a [`serde_json::Value`]
//! of the line (the reference, and the one that words the messages), and
//! [`parse_jsonl_line_fast`] only looks at the two fields it needs and borrows the text.
//! Both the sequential and the parallel reader use the fast one, so both give the same
//! documents and messages.
//!
//! Invariant: a JSON value becomes an external id only through [`ext_id_from_json`]
//! (strings as they are, numbers as serde_json prints them: integers as written).

use std::borrow::Cow;
use std::path::Path;

use super::input::{decode_ref, is_blank, LineReader};
use super::reader::{Raw, Source};
use super::{CorpusConfig, CorpusStats};
use crate::{Error, Result};

/// The external id a JSON value names: a string as it is, a number as serde_json prints it
/// (integers as written, others in serde_json's shortest form); anything else is handed
/// back as `Err` (for the caller's message).
pub fn ext_id_from_json(v: serde_json::Value) -> std::result::Result<String, serde_json::Value> {
    match v {
        serde_json::Value::String(s) => Ok(s),
        serde_json::Value::Number(n) => Ok(n.to_string()),
        other => Err(other),
    }
}

pub(super) struct Jsonl {
    lines: LineReader,
    text_field: String,
    id_field: String,
    skip_bad: bool,
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

impl Jsonl {
    pub(super) fn open(path: &Path, cfg: &CorpusConfig) -> Result<Self> {
        Ok(Jsonl {
            lines: LineReader::open_max(path, cfg.max_doc_bytes)?,
            text_field: cfg.text_field.clone(),
            id_field: cfg.id_field.clone(),
            skip_bad: cfg.skip_bad_lines,
        })
    }

    /// Parses one line into (ext id, text), or says what is wrong.
    fn parse(&self, line: &str) -> std::result::Result<(Option<String>, String), String> {
        parse_jsonl_line_fast(line, &self.text_field, &self.id_field)
            .map(|(i, t)| (i, t.into_owned()))
    }
}

/// [`parse_jsonl_line`] without building a JSON value for the whole line: the text is
/// borrowed from `line` when it has no escapes, other fields are validated and dropped.
/// It accepts exactly the lines [`parse_jsonl_line`] accepts, with the same result: every
/// field value is still parsed as a [`serde_json::Value`] (same validation, same recursion
/// limit), duplicate keys keep their last value, and anything unusual (an error, a
/// non-string text, a missing or odd id) is handed to [`parse_jsonl_line`] for its answer
/// and message.
pub(super) fn parse_jsonl_line_fast<'a>(
    line: &'a str,
    text_field: &str,
    id_field: &str,
) -> std::result::Result<(Option<String>, Cow<'a, str>), String> {
    let fallback = || parse_jsonl_line(line, text_field, id_field).map(|(i, t)| (i, t.into()));
    let mut de = serde_json::Deserializer::from_str(line);
    let seed = fastjson::LineSeed {
        text_field,
        id_field,
    };
    let parsed = match serde::de::DeserializeSeed::deserialize(seed, &mut de) {
        Ok(p) if de.end().is_ok() => p,
        _ => return fallback(),
    };
    let Some(text) = parsed.text else {
        return fallback();
    };
    if id_field.is_empty() {
        return Ok((None, text));
    }
    match parsed.id.map(ext_id_from_json) {
        Some(Ok(id)) => Ok((Some(id), text)),
        _ => fallback(),
    }
}

/// The serde visitors of [`parse_jsonl_line_fast`].
mod fastjson {
    use std::borrow::Cow;
    use std::fmt;

    use serde::de::{DeserializeSeed, Deserializer, MapAccess, Visitor};

    pub(super) struct LineSeed<'f> {
        pub text_field: &'f str,
        pub id_field: &'f str,
    }

    pub(super) struct Parsed<'de> {
        pub text: Option<Cow<'de, str>>,
        pub id: Option<serde_json::Value>,
    }

    impl<'de> DeserializeSeed<'de> for LineSeed<'_> {
        type Value = Parsed<'de>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Parsed<'de>, D::Error> {
            d.deserialize_map(self)
        }
    }

    impl<'de> Visitor<'de> for LineSeed<'_> {
        type Value = Parsed<'de>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Parsed<'de>, A::Error> {
            let mut out = Parsed {
                text: None,
                id: None,
            };
            let key = KeySeed {
                text_field: self.text_field,
                id_field: self.id_field,
            };
            while let Some(k) = m.next_key_seed(key)? {
                match k {
                    Key::Text => out.text = Some(m.next_value_seed(StrSeed)?),
                    Key::Id => out.id = Some(m.next_value::<serde_json::Value>()?),
                    Key::Other => {
                        m.next_value::<serde_json::Value>()?;
                    }
                }
            }
            Ok(out)
        }
    }

    enum Key {
        Text,
        Id,
        Other,
    }

    #[derive(Clone, Copy)]
    struct KeySeed<'f> {
        text_field: &'f str,
        id_field: &'f str,
    }

    impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
        type Value = Key;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
            d.deserialize_str(self)
        }
    }

    impl<'de> Visitor<'de> for KeySeed<'_> {
        type Value = Key;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a string key")
        }
        fn visit_str<E: serde::de::Error>(self, k: &str) -> Result<Key, E> {
            Ok(if k == self.text_field {
                Key::Text
            } else if k == self.id_field {
                Key::Id
            } else {
                Key::Other
            })
        }
    }

    struct StrSeed;

    impl<'de> DeserializeSeed<'de> for StrSeed {
        type Value = Cow<'de, str>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
            d.deserialize_str(self)
        }
    }

    impl<'de> Visitor<'de> for StrSeed {
        type Value = Cow<'de, str>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_borrowed_str<E: serde::de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
            Ok(Cow::Borrowed(s))
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
            Ok(Cow::Owned(s.to_owned()))
        }
        fn visit_string<E: serde::de::Error>(self, s: String) -> Result<Self::Value, E> {
            Ok(Cow::Owned(s))
        }
    }
}

/// Parses one JSONL line into (ext id, text), or says what is wrong (shared by the
/// sequential and the parallel reader, so both give the same documents and messages).
fn parse_jsonl_line(
    line: &str,
    text_field: &str,
    id_field: &str,
) -> std::result::Result<(Option<String>, String), String> {
    let v: serde_json::Value = serde_json::from_str(line)
        .map_err(|e| format!("invalid JSON ({e}); expected one JSON object per line"))?;
    let serde_json::Value::Object(mut m) = v else {
        return Err(format!(
            "found {}; expected a JSON object with a string field {:?}",
            json_kind(&v),
            text_field
        ));
    };
    let text = match m.remove(text_field) {
        Some(serde_json::Value::String(s)) => s,
        Some(other) => {
            return Err(format!(
                "field {:?} is {}; expected a string",
                text_field,
                json_kind(&other)
            ))
        }
        None => {
            return Err(format!(
                "no field {:?}; expected a string field {:?} holding the text (the configured text field)",
                text_field, text_field
            ))
        }
    };
    if id_field.is_empty() {
        return Ok((None, text));
    }
    let id = match m.remove(id_field).map(ext_id_from_json) {
        Some(Ok(id)) => id,
        Some(Err(other)) => {
            return Err(format!(
                "field {:?} is {}; expected a string or a number",
                id_field,
                json_kind(&other)
            ))
        }
        None => {
            return Err(format!(
                "no field {:?}; expected a string or number id (the configured id field; an empty id field name numbers the lines)",
                id_field
            ))
        }
    };
    Ok((Some(id), text))
}

impl Source for Jsonl {
    fn next_raw(&mut self, stats: &mut CorpusStats) -> Result<Option<Raw>> {
        loop {
            if !self.lines.next_line()? {
                return Ok(None);
            }
            if self.lines.oversized {
                stats.skipped_oversized += 1;
                continue;
            }
            if is_blank(&self.lines.buf) {
                continue;
            }
            let (line, lossy) = decode_ref(&self.lines.buf);
            match self.parse(&line) {
                Ok((id, text)) => {
                    let ext_id = id.unwrap_or_else(|| self.lines.line.to_string());
                    return Ok(Some(Raw {
                        line: self.lines.line,
                        ext_id,
                        text,
                        lossy,
                    }));
                }
                Err(_) if self.skip_bad => stats.skipped_bad_lines += 1,
                Err(msg) => return Err(Error::parse(&self.lines.path, self.lines.line, msg)),
            }
        }
    }

    fn record(&self, out: &mut Vec<u8>) -> bool {
        self.lines.record(out);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_jsonl_line, parse_jsonl_line_fast};
    use proptest::prelude::*;

    fn same(line: &str) {
        for (t, i) in [("text", "id"), ("text", ""), ("body", "url")] {
            let want = parse_jsonl_line(line, t, i);
            let got = parse_jsonl_line_fast(line, t, i).map(|(i, t)| (i, t.into_owned()));
            assert_eq!(got, want, "{line:?} text {t:?} id {i:?}");
        }
    }

    #[test]
    fn fast_json_parse_equals_reference() {
        let deep = format!(
            "{{\"id\":1,\"text\":\"t\",\"x\":{}{}}}",
            "[".repeat(200),
            "]".repeat(200)
        );
        for line in [
            r#"{"id":1,"text":"plain"}"#,
            r#"{"id":"a","text":"esc\n\u00e9\"q"}"#,
            r#" {"text":"x","id":1.5e3} "#,
            r#"{"id":18446744073709551616,"text":"big"}"#,
            r#"{"id":-3,"text":"t","id":"second"}"#,
            r#"{"text":5,"text":"last wins","id":1}"#,
            r#"{"text":"first","text":5,"id":1}"#,
            r#"{"id":1,"text":"t","other":"\ud800"}"#,
            r#"{"id":1,"text":"t","other":1e999}"#,
            r#"{"id":1,"text":"t","":"empty key"}"#,
            r#"{"id":null,"text":"t"}"#,
            r#"{"id":[1],"text":"t"}"#,
            r#"{"id":1}"#,
            r#"{"id":1,"text":"t"} trailing"#,
            r#"{"id":1,"text":"t",}"#,
            r#"[1,2]"#,
            r#""str""#,
            r#"{"id":1,"text":"t","body":"b","url":"u"}"#,
            r#"{"id":1,"text":"tab	inside"}"#,
            "",
            &deep,
        ] {
            same(line);
        }
    }

    proptest! {
        #[test]
        fn fast_json_parse_equals_reference_on_noise(s in r#"[{}\[\]":,a-z0-9.\\ -]{0,40}"#) {
            same(&s);
            same(&format!("{{\"text\":\"x\",{s}"));
            same(&format!("{{\"id\":{s},\"text\":\"x\"}}"));
        }
    }
}
