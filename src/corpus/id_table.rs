//! The id table: `(doc_id, external_id)` rows in a TSV file written next to every output
//! that uses DocIds (`OUTPUT.ids.tsv`).
//!
//! Invariant: the file starts with [`ID_TABLE_HEADER`]; external ids are escaped (`\\`,
//! `\t`, `\n`, `\r`) so that each row is one line, and [`read_id_table`] gives back exactly
//! the ids written; files are written atomically (complete or absent).

use std::io::Write;
use std::path::{Path, PathBuf};

use super::input::LineReader;
use crate::io::AtomicFile;
use crate::{DocId, Error, Result};

/// Conventional path of the id table written next to `output`: `OUTPUT.ids.tsv`.
pub fn id_table_path(output: &Path) -> PathBuf {
    let mut s = output.as_os_str().to_owned();
    s.push(".ids.tsv");
    PathBuf::from(s)
}

/// Header line of an id table.
pub const ID_TABLE_HEADER: &str = "doc_id\text_id";

/// Escapes an external id for the id table: `\` -> `\\`, tab -> `\t`, LF -> `\n`,
/// CR -> `\r`.
fn escape_id(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

fn unescape_id(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next()? {
                '\\' => out.push('\\'),
                't' => out.push('\t'),
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// Streams a `(doc_id, external_id)` table to a file, atomically: a TSV with the header
/// [`ID_TABLE_HEADER`] and one line `DOCID<TAB>EXTID` per document, external ids escaped
/// (`\\`, `\t`, `\n`, `\r`). The file appears only on [`IdTableWriter::commit`].
pub struct IdTableWriter {
    f: AtomicFile,
    line: String,
}

impl IdTableWriter {
    /// Starts writing `path`.
    pub fn create(path: &Path) -> Result<Self> {
        let mut f = AtomicFile::create(path)?;
        writeln!(f, "{ID_TABLE_HEADER}").map_err(|e| Error::io(path, e))?;
        Ok(IdTableWriter {
            f,
            line: String::new(),
        })
    }

    /// Appends one row.
    pub fn push(&mut self, id: DocId, ext_id: &str) -> Result<()> {
        self.line.clear();
        self.line.push_str(itoa::Buffer::new().format(id.0));
        self.line.push('\t');
        escape_id(ext_id, &mut self.line);
        self.line.push('\n');
        let p = self.f.path().to_path_buf();
        self.f
            .write_all(self.line.as_bytes())
            .map_err(|e| Error::io(p, e))
    }

    /// Finishes the file (renames it into place).
    pub fn commit(self) -> Result<()> {
        self.f.commit()
    }
}

/// Writes a whole id table atomically (see [`IdTableWriter`] for the format).
pub fn write_id_table(path: &Path, ids: &[(DocId, String)]) -> Result<()> {
    let mut w = IdTableWriter::create(path)?;
    for (id, ext) in ids {
        w.push(*id, ext)?;
    }
    w.commit()
}

/// Reads an id table written by [`write_id_table`] / [`IdTableWriter`].
pub fn read_id_table(path: &Path) -> Result<Vec<(DocId, String)>> {
    let mut lines = LineReader::open(path)?;
    if !lines.next_line()? || lines.buf != ID_TABLE_HEADER.as_bytes() {
        return Err(Error::parse(
            path,
            1,
            format!("expected the id table header {ID_TABLE_HEADER:?}"),
        ));
    }
    let mut out = Vec::new();
    while lines.next_line()? {
        let bad = |msg: &str| Error::parse(path, lines.line, msg.to_string());
        let s = std::str::from_utf8(&lines.buf).map_err(|_| bad("invalid UTF-8"))?;
        let (a, b) = s
            .split_once('\t')
            .ok_or_else(|| bad("expected DOCID<TAB>EXTID"))?;
        let id: u32 = a
            .parse()
            .map_err(|_| bad("expected a DocId (an unsigned 32-bit integer)"))?;
        let ext =
            unescape_id(b).ok_or_else(|| bad("bad escape; expected \\\\, \\t, \\n or \\r"))?;
        out.push((DocId(id), ext));
    }
    Ok(out)
}
