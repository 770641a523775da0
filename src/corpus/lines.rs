//! Plain lines: one document per line.
//!
//! Invariant: every line is a document (blank lines are empty documents); the external id
//! is the 1-based line number, the text the line without its line end.

use std::path::Path;

use super::input::{decode, LineReader};
use super::reader::{Raw, Source};
use super::CorpusStats;
use crate::Result;

pub(super) struct Lines {
    lines: LineReader,
}

impl Lines {
    pub(super) fn open(path: &Path) -> Result<Self> {
        Ok(Lines {
            lines: LineReader::open(path)?,
        })
    }
}

impl Source for Lines {
    fn next_raw(&mut self, _: &mut CorpusStats) -> Result<Option<Raw>> {
        if !self.lines.next_line()? {
            return Ok(None);
        }
        let (text, lossy) = decode(std::mem::take(&mut self.lines.buf));
        Ok(Some(Raw {
            ext_id: self.lines.line.to_string(),
            text,
            lossy,
        }))
    }
}
