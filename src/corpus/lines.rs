//! Plain lines: one document per line.
//!
//! Invariant: every line is a document (blank lines are empty documents) except a line
//! longer than the largest document size, which is skipped and counted; the external id is
//! the 1-based line number, the text the line without its line end.

use std::path::Path;

use super::input::{decode, LineReader};
use super::reader::{Raw, Source};
use super::CorpusStats;
use crate::Result;

pub(super) struct Lines {
    lines: LineReader,
}

impl Lines {
    pub(super) fn open(path: &Path, max_doc_bytes: u64) -> Result<Self> {
        Ok(Lines {
            lines: LineReader::open_max(path, max_doc_bytes)?,
        })
    }
}

impl Source for Lines {
    fn next_raw(&mut self, stats: &mut CorpusStats) -> Result<Option<Raw>> {
        loop {
            if !self.lines.next_line()? {
                return Ok(None);
            }
            if !self.lines.oversized {
                break;
            }
            stats.skipped_oversized += 1;
        }
        // The line stays in the buffer: it is the record ([`Source::record`]).
        let (text, lossy) = decode(self.lines.buf.clone());
        Ok(Some(Raw {
            line: self.lines.line,
            ext_id: self.lines.line.to_string(),
            text,
            lossy,
        }))
    }

    fn record(&self, out: &mut Vec<u8>) -> bool {
        self.lines.record(out);
        true
    }
}
