//! An in-memory corpus handed over by a program (the Python package): its documents are
//! written once, as JSON lines, to a file in a temporary directory, which every job then
//! reads as it reads any JSONL corpus ([`TextsFile::config`]). A program in any language
//! hands its texts over as an Arrow C stream (`TextsFile::from_arrow_stream`, with the
//! `parquet` feature, which brings Arrow: the Arrow C data interface, read without copying
//! the strings into other objects first) or one document at a time ([`TextsWriter`]).
//!
//! Invariants: line `i + 1` of the file is the `i`-th document given, so its DocId is `i`
//! (no document is skipped as oversized: [`TextsFile::config`] lifts the size limit); an id
//! given as an integer is written as a JSON number and comes back as its decimal string, a
//! string id as itself; the directory is removed when the [`TextsFile`] is dropped. Errors
//! that a job meets in the file name the position of the text, `texts[i]`
//! ([`TextsFile::rename_error`]), not the temporary path.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

#[cfg(feature = "parquet")]
mod arrow;
#[cfg(feature = "parquet")]
pub use arrow::FFI_ArrowArrayStream;

use super::{CorpusConfig, DuplicateIds, Format};
use crate::{Error, Result};

/// The name errors give the in-memory texts.
pub const TEXTS_NAME: &str = "<texts>";

/// The external id of one in-memory document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextId<'a> {
    /// An integer id (written as a JSON number).
    Int(i64),
    /// A string id.
    Str(&'a str),
}

/// A value of the `key` field, for the keep policy `field:key` of a deduplication.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TextKey<'a> {
    /// A number.
    Num(f64),
    /// A string.
    Str(&'a str),
    /// No value (taken last).
    Missing,
}

/// Writes the documents of a [`TextsFile`] one at a time.
pub struct TextsWriter {
    dir: tempfile::TempDir,
    path: PathBuf,
    w: BufWriter<std::fs::File>,
    n: u64,
    line: Vec<u8>,
}

/// The written in-memory corpus (see the module docs).
#[derive(Debug)]
pub struct TextsFile {
    _dir: tempfile::TempDir,
    path: PathBuf,
    n: u64,
}

impl TextsWriter {
    /// A writer into a new temporary directory under `tmp_dir` (default: the system's).
    pub fn create(tmp_dir: Option<&Path>) -> Result<TextsWriter> {
        let base = tmp_dir
            .map(Path::to_path_buf)
            .unwrap_or_else(std::env::temp_dir);
        let dir = tempfile::Builder::new()
            .prefix(".fimdup-texts-")
            .tempdir_in(&base)
            .map_err(|e| Error::io(&base, e))?;
        let path = dir.path().join("texts.jsonl");
        let f = std::fs::File::create(&path).map_err(|e| Error::io(&path, e))?;
        Ok(TextsWriter {
            dir,
            path,
            w: BufWriter::with_capacity(1 << 20, f),
            n: 0,
            line: Vec::with_capacity(1 << 12),
        })
    }

    /// Appends one document.
    pub fn push(&mut self, id: TextId<'_>, text: &str, key: Option<TextKey<'_>>) -> Result<()> {
        let json = |e: serde_json::Error| Error::config(format!("texts: {e}"));
        let l = &mut self.line;
        l.clear();
        l.extend_from_slice(b"{\"id\":");
        match id {
            TextId::Int(i) => l.extend_from_slice(itoa::Buffer::new().format(i).as_bytes()),
            TextId::Str(s) => serde_json::to_writer(&mut *l, s).map_err(json)?,
        }
        l.extend_from_slice(b",\"text\":");
        serde_json::to_writer(&mut *l, text).map_err(json)?;
        match key {
            None => {}
            Some(TextKey::Missing) => l.extend_from_slice(b",\"key\":null"),
            Some(TextKey::Num(x)) if x.is_finite() => {
                l.extend_from_slice(b",\"key\":");
                serde_json::to_writer(&mut *l, &x).map_err(json)?;
            }
            Some(TextKey::Num(x)) => {
                return Err(Error::config(format!(
                    "keep key of text {} is {x}: expected a finite number or a string",
                    self.n
                )))
            }
            Some(TextKey::Str(s)) => {
                l.extend_from_slice(b",\"key\":");
                serde_json::to_writer(&mut *l, s).map_err(json)?;
            }
        }
        l.extend_from_slice(b"}\n");
        self.w.write_all(l).map_err(|e| Error::io(&self.path, e))?;
        self.n += 1;
        Ok(())
    }

    /// Documents written so far.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// True before the first document.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Flushes the file.
    pub fn finish(self) -> Result<TextsFile> {
        let TextsWriter {
            dir,
            path,
            mut w,
            n,
            ..
        } = self;
        w.flush().map_err(|e| Error::io(&path, e))?;
        Ok(TextsFile { _dir: dir, path, n })
    }
}

impl TextsFile {
    /// The JSONL file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of documents.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// True when there is no document.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// How the file is read: JSONL, fields `id` and `text`, repeated ids an error, no size
    /// limit (the texts are in memory already, and a skipped one would shift the DocIds).
    pub fn config(&self) -> CorpusConfig {
        CorpusConfig {
            format: Some(Format::Jsonl),
            text_field: "text".into(),
            id_field: "id".into(),
            duplicate_ids: DuplicateIds::Error,
            max_doc_bytes: u64::MAX,
            ..CorpusConfig::default()
        }
    }

    /// `e` with the temporary file's places named as positions of the texts: line `L` of
    /// the file is `texts[L-1]`, so a parse error becomes a [`Error::Format`] naming
    /// `texts[i]`, and the file anywhere in a message becomes [`TEXTS_NAME`].
    pub fn rename_error(&self, e: Error) -> Error {
        match e {
            Error::Parse { path, line, msg } if path == self.path => Error::Format {
                path: format!("texts[{}]", line.saturating_sub(1)).into(),
                msg: self.positions(&msg),
            },
            Error::Format { path, msg } if path == self.path => Error::Format {
                path: TEXTS_NAME.into(),
                msg: self.positions(&msg),
            },
            Error::Config(m) => Error::Config(self.positions(&m)),
            other => other,
        }
    }

    /// `msg` with every `PATH:LINE` of the file as `texts[LINE-1]` and the path alone as
    /// [`TEXTS_NAME`].
    fn positions(&self, msg: &str) -> String {
        let tmp = self.path.display().to_string();
        let mut out = String::with_capacity(msg.len());
        let mut rest = msg;
        while let Some(at) = rest.find(&tmp) {
            out.push_str(&rest[..at]);
            rest = &rest[at + tmp.len()..];
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_read_back_in_order_with_their_ids() {
        let mut w = TextsWriter::create(None).unwrap();
        w.push(TextId::Int(7), "a \"quoted\"\nline", None).unwrap();
        w.push(TextId::Str("x\ty"), "é", None).unwrap();
        w.push(TextId::Int(-3), "", None).unwrap();
        let f = w.finish().unwrap();
        let docs = crate::corpus::open(f.path(), &f.config())
            .unwrap()
            .read_all()
            .unwrap();
        let got: Vec<(String, String)> = docs.into_iter().map(|d| (d.ext_id, d.text)).collect();
        assert_eq!(
            got,
            vec![
                ("7".to_string(), "a \"quoted\"\nline".to_string()),
                ("x\ty".to_string(), "é".to_string()),
                ("-3".to_string(), String::new()),
            ]
        );
    }

    #[test]
    fn a_repeated_id_names_the_texts_not_the_file() {
        let mut w = TextsWriter::create(None).unwrap();
        w.push(TextId::Str("a"), "one", None).unwrap();
        w.push(TextId::Str("a"), "two", None).unwrap();
        let f = w.finish().unwrap();
        let e = crate::corpus::open(f.path(), &f.config())
            .unwrap()
            .read_all()
            .unwrap_err();
        let e = f.rename_error(e).to_string();
        assert!(e.starts_with("texts[1]: "), "{e}");
        assert!(e.contains("(first seen at texts[0])"), "{e}");
        assert!(!e.contains(".fimdup-texts-"), "{e}");
    }

    #[test]
    fn the_directory_goes_with_the_file() {
        let w = TextsWriter::create(None).unwrap();
        let f = w.finish().unwrap();
        let dir = f.path().parent().unwrap().to_path_buf();
        assert!(dir.is_dir());
        drop(f);
        assert!(!dir.exists());
    }
}
