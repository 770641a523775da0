//! The in-memory [`Source`]: the documents of [`SharedTexts`] in order, and their records
//! as the JSONL corpus of the same documents writes them ([`SharedTexts::record`]).
//!
//! Invariant: document `i` is at line `i + 1` and has the external id the module docs of
//! [`super`] give it; nothing is skipped.

use std::path::Path;

use super::{SharedTexts, TextId, TextKey};
use crate::corpus::reader::{Raw, Source};
use crate::corpus::{CorpusConfig, CorpusStats};
use crate::{Error, Result};

/// The documents of in-memory texts.
pub(in crate::corpus) struct TextsDocs {
    texts: SharedTexts,
    /// The next document.
    next: u64,
}

impl TextsDocs {
    /// The texts `cfg` carries (an error naming `path` when it carries none).
    pub(in crate::corpus) fn open(path: &Path, cfg: &CorpusConfig) -> Result<Self> {
        let texts = cfg.texts.clone().ok_or_else(|| {
            Error::config(format!(
                "{}: the format texts reads texts handed over in memory, and none were",
                path.display()
            ))
        })?;
        Ok(TextsDocs { texts, next: 0 })
    }
}

impl Source for TextsDocs {
    fn next_raw(&mut self, _stats: &mut CorpusStats) -> Result<Option<Raw>> {
        let t = self.texts.texts();
        if self.next >= t.len() {
            return Ok(None);
        }
        let i = self.next;
        self.next += 1;
        let ext_id = match t.id(i) {
            TextId::Int(x) => itoa::Buffer::new().format(x).to_string(),
            TextId::Str(s) => s.to_string(),
        };
        Ok(Some(Raw {
            line: i + 1,
            ext_id,
            text: t.text(i).to_string(),
            lossy: false,
        }))
    }

    fn record(&self, out: &mut Vec<u8>) -> bool {
        match self.next.checked_sub(1) {
            Some(i) => {
                self.texts.record(i, out);
                true
            }
            None => false,
        }
    }
}

impl SharedTexts {
    /// Appends the record of document `i` (`i < len`), with its `\n`: the JSON object
    /// `{"id":..,"text":..}` (an int id as a JSON number), with `"key":..` (a number, a
    /// string or `null`) when there is a key column.
    pub fn record(&self, i: u64, out: &mut Vec<u8>) {
        let t = self.texts();
        let json = |out: &mut Vec<u8>, s: &str| {
            serde_json::to_writer(out, s).expect("a str is written to memory as JSON")
        };
        out.extend_from_slice(b"{\"id\":");
        match t.id(i) {
            TextId::Int(x) => out.extend_from_slice(itoa::Buffer::new().format(x).as_bytes()),
            TextId::Str(s) => json(out, s),
        }
        out.extend_from_slice(b",\"text\":");
        json(out, t.text(i));
        match t.key(i) {
            None => {}
            Some(TextKey::Missing) => out.extend_from_slice(b",\"key\":null"),
            Some(TextKey::Num(x)) => {
                out.extend_from_slice(b",\"key\":");
                serde_json::to_writer(&mut *out, &x).expect("a finite number is written as JSON");
            }
            Some(TextKey::Str(s)) => {
                out.extend_from_slice(b",\"key\":");
                json(out, s);
            }
        }
        out.extend_from_slice(b"}\n");
    }
}
