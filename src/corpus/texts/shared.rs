//! [`SharedTexts`]: the handle on in-memory texts that a [`CorpusConfig`] carries, and
//! [`rename_error`], which turns the places of errors in them into positions.
//!
//! Invariant: two handles are equal when they share the same texts (a configuration is
//! compared by identity of its texts, never by their contents).

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use super::{ArrowTexts, TEXTS_NAME};
use crate::corpus::{CorpusConfig, DuplicateIds, Format};
use crate::Error;

/// A shared handle on [`ArrowTexts`] (see the module docs).
#[derive(Clone)]
pub struct SharedTexts(Arc<ArrowTexts>);

impl SharedTexts {
    /// A handle on `texts`.
    pub fn new(texts: ArrowTexts) -> SharedTexts {
        SharedTexts(Arc::new(texts))
    }

    /// The texts.
    pub fn texts(&self) -> &ArrowTexts {
        &self.0
    }

    /// Number of documents.
    pub fn len(&self) -> u64 {
        self.0.len()
    }

    /// True when there is no document.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The path jobs are given for the texts: [`TEXTS_NAME`] (nothing on disk).
    pub fn path(&self) -> &'static Path {
        Path::new(TEXTS_NAME)
    }

    /// How the texts are read: [`Format::Texts`] over these texts, repeated ids an error,
    /// no size limit (the texts are in memory already, and a skipped one would shift the
    /// DocIds).
    pub fn config(&self) -> CorpusConfig {
        CorpusConfig {
            format: Some(Format::Texts),
            texts: Some(self.clone()),
            duplicate_ids: DuplicateIds::Error,
            max_doc_bytes: u64::MAX,
            ..CorpusConfig::default()
        }
    }
}

impl PartialEq for SharedTexts {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for SharedTexts {}

impl fmt::Debug for SharedTexts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SharedTexts({} texts)", self.0.len())
    }
}

/// `e` with the places in the in-memory texts named as positions: document `i` is at line
/// `i + 1` of [`TEXTS_NAME`], so a parse error there becomes an [`Error::Format`] naming
/// `texts[i]`, and `<texts>:LINE` anywhere in a message becomes `texts[LINE-1]`.
pub fn rename_error(e: Error) -> Error {
    match e {
        Error::Parse { path, line, msg } if path == Path::new(TEXTS_NAME) => Error::Format {
            path: format!("texts[{}]", line.saturating_sub(1)).into(),
            msg: positions(&msg),
        },
        Error::Format { path, msg } if path == Path::new(TEXTS_NAME) => Error::Format {
            path,
            msg: positions(&msg),
        },
        Error::Config(m) => Error::Config(positions(&m)),
        other => other,
    }
}

/// `msg` with every `<texts>:LINE` as `texts[LINE-1]`.
fn positions(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len());
    let mut rest = msg;
    while let Some(at) = rest.find(TEXTS_NAME) {
        out.push_str(&rest[..at]);
        rest = &rest[at + TEXTS_NAME.len()..];
        let digits = rest
            .strip_prefix(':')
            .map_or(0, |r| r.bytes().take_while(u8::is_ascii_digit).count());
        match rest[1.min(rest.len())..][..digits].parse::<u64>() {
            Ok(line) if digits > 0 => {
                out.push_str(&format!("texts[{}]", line.saturating_sub(1)));
                rest = &rest[1 + digits..];
            }
            _ => out.push_str(TEXTS_NAME),
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_in_the_texts_become_positions() {
        let e = Error::parse(
            TEXTS_NAME,
            2,
            "duplicate id \"a\" (first seen at <texts>:1)",
        );
        assert_eq!(
            rename_error(e).to_string(),
            "texts[1]: duplicate id \"a\" (first seen at texts[0])"
        );
        let e = Error::config("<texts>: keep by field; <texts>:12 and <texts>:x");
        assert_eq!(
            rename_error(e).to_string(),
            "invalid configuration: <texts>: keep by field; texts[11] and <texts>:x"
        );
        let e = Error::parse("other.jsonl", 3, "bad");
        assert_eq!(rename_error(e).to_string(), "other.jsonl:3: bad");
    }
}
