//! Corpus readers: streams of documents from JSONL, CSV/TSV, plain lines, directories and
//! WARC files, any of them gzip-compressed.
//!
//! [`open`] picks a reader by [`CorpusConfig::format`] or by guessing from the path
//! ([`Format::guess`]) and returns a [`CorpusReader`], an iterator of
//! `Result<`[`Document`]`>`; [`CorpusReader::next_batch`] hands out batches for parallel
//! canonicalization. What each format yields:
//!
//! | format | one document per | external id | text |
//! |---|---|---|---|
//! | `jsonl` | non-blank line (a JSON object) | field `id_field`: a string, or a number (integers as written, others as serde_json prints them); empty `id_field`: the line number | field `text_field` (a string) |
//! | `csv`, `tsv` | data row (a header row names the columns) | column `id_column`; empty `id_column`: the line number where the row starts | column `text_column` |
//! | `lines` | line (blank lines included: they are empty documents) | 1-based line number | the line without its line end |
//! | `dir` | regular file, recursive, sorted by relative path; names starting with `.` skipped | relative path with `/` separators | file content (`*.gz` decompressed) |
//! | `warc` | `response` record (others skipped and counted) | `WARC-Target-URI` | HTTP body after the HTTP headers |
//!
//! A UTF-8 byte order mark at the start of a file is dropped; a zero-byte `*.gz` file is
//! an empty input.
//! TSV is read without quoting (a `"` is an ordinary character); CSV uses RFC 4180 quoting.
//! Invalid UTF-8 is decoded lossily (U+FFFD) and counted in [`CorpusStats::lossy_utf8`].
//! Malformed lines (bad JSON, not an object, missing or non-string text, missing id, ragged
//! CSV rows) are an [`Error::Parse`] naming the file and line, or, with
//! [`CorpusConfig::skip_bad_lines`], skipped and counted. Structural damage (truncated or
//! malformed WARC records, corrupt gzip, I/O errors) is always an error. After the first
//! error the reader is finished (it yields `None`).
//!
//! Invariant: documents come out in input order with dense [`DocId`]s 0, 1, 2, ... and their
//! external id strings; readers stream and never hold the whole corpus unless asked (a
//! directory reader holds the list of file paths, one file's content at a time).

use std::fmt;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::io::AtomicFile;
use crate::{DocId, Error, Result};

pub mod par;
pub mod warc;

/// One input document.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Document {
    /// Dense id in input order.
    pub id: DocId,
    /// The id the input gave it (JSON field, CSV column, line number, relative path, URI).
    pub ext_id: String,
    /// The document text (decoded lossily if it was not valid UTF-8).
    pub text: String,
    /// True when invalid UTF-8 was replaced while decoding.
    pub lossy: bool,
}

/// Input format of a corpus.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// One JSON object per line.
    Jsonl,
    /// Comma-separated values with a header row.
    Csv,
    /// Tab-separated values with a header row (no quoting).
    Tsv,
    /// Plain text, one document per line.
    Lines,
    /// A directory of files, one document per file.
    Dir,
    /// A WARC file (web crawl), one document per response record.
    Warc,
}

impl Format {
    /// Canonical names, as accepted by [`FromStr`] and printed by [`fmt::Display`].
    pub const NAMES: [&'static str; 6] = ["jsonl", "csv", "tsv", "lines", "dir", "warc"];

    /// The canonical name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Jsonl => "jsonl",
            Format::Csv => "csv",
            Format::Tsv => "tsv",
            Format::Lines => "lines",
            Format::Dir => "dir",
            Format::Warc => "warc",
        }
    }

    /// Guesses the format: a directory is [`Format::Dir`]; otherwise the extension after
    /// removing a final `.gz`: `.jsonl`/`.ndjson`/`.json` -> Jsonl, `.csv`, `.tsv`,
    /// `.txt` -> Lines, `.warc` -> Warc (case-insensitive). Anything else (and `-`) is an
    /// [`Error::Config`] asking for an explicit format.
    pub fn guess(path: &Path) -> Result<Format> {
        if path.is_dir() {
            return Ok(Format::Dir);
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let stem = name.strip_suffix(".gz").unwrap_or(&name);
        let ext = stem.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
        match ext {
            "jsonl" | "ndjson" | "json" => Ok(Format::Jsonl),
            "csv" => Ok(Format::Csv),
            "tsv" => Ok(Format::Tsv),
            "txt" => Ok(Format::Lines),
            "warc" => Ok(Format::Warc),
            _ => Err(Error::config(format!(
                "cannot guess the format of {} from its name; give the format explicitly, one of {}",
                path.display(),
                Format::NAMES.join(", ")
            ))),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = Error;

    /// Accepts the canonical names and the aliases `ndjson`, `json` (Jsonl), `txt`, `text`
    /// (Lines), `directory` (Dir), case-insensitive.
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "jsonl" | "ndjson" | "json" => Ok(Format::Jsonl),
            "csv" => Ok(Format::Csv),
            "tsv" => Ok(Format::Tsv),
            "lines" | "txt" | "text" => Ok(Format::Lines),
            "dir" | "directory" => Ok(Format::Dir),
            "warc" => Ok(Format::Warc),
            _ => Err(Error::config(format!(
                "unknown corpus format {s:?}; expected one of {}",
                Format::NAMES.join(", ")
            ))),
        }
    }
}

/// How to read a corpus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CorpusConfig {
    /// The format; `None` guesses it from the path ([`Format::guess`]).
    pub format: Option<Format>,
    /// JSONL: the field holding the text (default `text`).
    pub text_field: String,
    /// JSONL: the field holding the external id (default `id`); empty = use the line number.
    pub id_field: String,
    /// CSV/TSV: the header name of the text column (default `text`).
    pub text_column: String,
    /// CSV/TSV: the header name of the id column (default `id`); empty = use the line number.
    pub id_column: String,
    /// Skip (and count) malformed JSONL/CSV/TSV lines instead of failing.
    pub skip_bad_lines: bool,
}

impl Default for CorpusConfig {
    fn default() -> Self {
        CorpusConfig {
            format: None,
            text_field: "text".into(),
            id_field: "id".into(),
            text_column: "text".into(),
            id_column: "id".into(),
            skip_bad_lines: false,
        }
    }
}

impl CorpusConfig {
    /// Checks the configuration: the text field and column must be named, and differ from
    /// the id field and column.
    pub fn validate(&self) -> Result<()> {
        if self.text_field.is_empty() {
            return Err(Error::config("the JSONL text field name is empty"));
        }
        if self.text_column.is_empty() {
            return Err(Error::config("the CSV/TSV text column name is empty"));
        }
        if self.text_field == self.id_field {
            return Err(Error::config(format!(
                "the text field and the id field are both {:?}",
                self.text_field
            )));
        }
        if self.text_column == self.id_column {
            return Err(Error::config(format!(
                "the text column and the id column are both {:?}",
                self.text_column
            )));
        }
        Ok(())
    }
}

/// Counts gathered while reading (read them after the iteration, or at any time).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct CorpusStats {
    /// Documents yielded.
    pub documents: u64,
    /// Documents whose text had invalid UTF-8 (decoded lossily).
    pub lossy_utf8: u64,
    /// Documents whose text is empty or only whitespace (kept).
    pub empty: u64,
    /// Total bytes of document text (after decoding).
    pub text_bytes: u64,
    /// Malformed lines skipped with `skip_bad_lines`.
    pub skipped_bad_lines: u64,
    /// WARC records that are not `response` records (skipped).
    pub skipped_records: u64,
    /// Files read (1, or the number of files of a directory).
    pub files: u64,
}

/// A document before it gets its DocId.
struct Raw {
    ext_id: String,
    text: String,
    lossy: bool,
}

trait Source: Send {
    fn next_raw(&mut self, stats: &mut CorpusStats) -> Result<Option<Raw>>;
}

/// A streaming corpus reader: yields documents in input order with dense DocIds.
pub struct CorpusReader {
    src: Box<dyn Source>,
    path: PathBuf,
    format: Format,
    next_id: u64,
    stats: CorpusStats,
    done: bool,
}

impl fmt::Debug for CorpusReader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CorpusReader")
            .field("path", &self.path)
            .field("format", &self.format)
            .field("stats", &self.stats)
            .finish()
    }
}

/// Opens a corpus for streaming (validates `cfg`, guesses the format if not given).
/// `-` reads standard input (the format must then be given; `dir` cannot be).
pub fn open(path: &Path, cfg: &CorpusConfig) -> Result<CorpusReader> {
    cfg.validate()?;
    let format = match cfg.format {
        Some(f) => f,
        None => Format::guess(path)?,
    };
    let src: Box<dyn Source> = match format {
        Format::Jsonl => Box::new(Jsonl {
            lines: LineReader::open(path)?,
            text_field: cfg.text_field.clone(),
            id_field: cfg.id_field.clone(),
            skip_bad: cfg.skip_bad_lines,
        }),
        Format::Csv | Format::Tsv => Box::new(Delimited::open(path, format, cfg)?),
        Format::Lines => Box::new(Lines {
            lines: LineReader::open(path)?,
        }),
        Format::Dir => Box::new(Dir::open(path)?),
        Format::Warc => Box::new(Warc {
            r: warc::WarcReader::new(open_read(path)?, path),
        }),
    };
    let files = u64::from(format != Format::Dir);
    Ok(CorpusReader {
        src,
        path: path.to_path_buf(),
        format,
        next_id: 0,
        stats: CorpusStats {
            files,
            ..CorpusStats::default()
        },
        done: false,
    })
}

impl CorpusReader {
    /// The counts so far.
    pub fn stats(&self) -> CorpusStats {
        self.stats
    }

    /// The format being read.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The corpus path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Up to `n` next documents (fewer only at the end; empty when the corpus is exhausted).
    /// On an error the documents read before it in this batch are lost with it (the error
    /// ends the reading anyway).
    pub fn next_batch(&mut self, n: usize) -> Result<Vec<Document>> {
        let mut v = Vec::with_capacity(n.min(1 << 16));
        self.fill_batch(&mut v, n)?;
        Ok(v)
    }

    /// Clears `batch` and fills it with up to `n` next documents; returns how many.
    pub fn fill_batch(&mut self, batch: &mut Vec<Document>, n: usize) -> Result<usize> {
        batch.clear();
        while batch.len() < n {
            match self.next() {
                Some(Ok(d)) => batch.push(d),
                Some(Err(e)) => return Err(e),
                None => break,
            }
        }
        Ok(batch.len())
    }

    /// Reads everything, returning the documents (holds the whole corpus: for small inputs
    /// and tests).
    pub fn read_all(self) -> Result<Vec<Document>> {
        self.collect()
    }
}

impl Iterator for CorpusReader {
    type Item = Result<Document>;

    fn next(&mut self) -> Option<Result<Document>> {
        if self.done {
            return None;
        }
        match self.src.next_raw(&mut self.stats) {
            Ok(Some(raw)) => {
                if self.next_id > u64::from(u32::MAX) {
                    self.done = true;
                    return Some(Err(Error::Limit(format!(
                        "{}: more than {} documents; DocIds are 32-bit",
                        self.path.display(),
                        u64::from(u32::MAX) + 1
                    ))));
                }
                let id = DocId(self.next_id as u32);
                self.next_id += 1;
                let s = &mut self.stats;
                s.documents += 1;
                s.lossy_utf8 += u64::from(raw.lossy);
                s.empty += u64::from(raw.text.trim().is_empty());
                s.text_bytes += raw.text.len() as u64;
                Some(Ok(Document {
                    id,
                    ext_id: raw.ext_id,
                    text: raw.text,
                    lossy: raw.lossy,
                }))
            }
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// Maps a read error: corrupt compressed data and the like are bad input (a parse error
/// naming the file and line), anything else is an I/O error.
pub(crate) fn read_err(path: &Path, line: u64, e: std::io::Error) -> Error {
    use std::io::ErrorKind::*;
    match e.kind() {
        InvalidData | InvalidInput | UnexpectedEof => {
            let what = if crate::io::is_gzip(path) {
                "corrupt or truncated gzip data"
            } else {
                "unreadable data"
            };
            Error::parse(
                path,
                line,
                format!("{what} ({e}); expected a readable {}", kind_of(path)),
            )
        }
        _ => Error::io(path, e),
    }
}

fn kind_of(path: &Path) -> &'static str {
    if crate::io::is_gzip(path) {
        "gzip stream"
    } else {
        "file"
    }
}

/// Opens an input like [`crate::io::open_read`], except that a zero-byte `*.gz` file reads
/// as empty (it holds no gzip member, but is what an empty compressed output often is).
fn open_read(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    if crate::io::is_gzip(path) && path != Path::new("-") {
        let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        if meta.is_file() && meta.len() == 0 {
            return Ok(Box::new(std::io::empty()));
        }
    }
    crate::io::open_read(path)
}

/// Decodes bytes as UTF-8, lossily; the flag says whether anything was replaced.
fn decode(bytes: Vec<u8>) -> (String, bool) {
    match String::from_utf8(bytes) {
        Ok(s) => (s, false),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), true),
    }
}

fn decode_ref(bytes: &[u8]) -> (std::borrow::Cow<'_, str>, bool) {
    match std::str::from_utf8(bytes) {
        Ok(s) => (std::borrow::Cow::Borrowed(s), false),
        Err(_) => (String::from_utf8_lossy(bytes), true),
    }
}

/// Line reader that tracks the 1-based line number and strips `\n` / `\r\n`.
struct LineReader {
    r: Box<dyn BufRead + Send>,
    path: PathBuf,
    line: u64,
    buf: Vec<u8>,
}

impl LineReader {
    fn open(path: &Path) -> Result<Self> {
        Ok(LineReader {
            r: open_read(path)?,
            path: path.to_path_buf(),
            line: 0,
            buf: Vec::new(),
        })
    }

    /// Reads the next line into `self.buf`; false at the end.
    fn next_line(&mut self) -> Result<bool> {
        self.buf.clear();
        let n = self
            .r
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| read_err(&self.path, self.line + 1, e))?;
        if n == 0 {
            return Ok(false);
        }
        self.line += 1;
        if self.line == 1 && self.buf.starts_with(b"\xEF\xBB\xBF") {
            self.buf.drain(..3); // UTF-8 byte order mark
        }
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
        }
        Ok(true)
    }
}

struct Lines {
    lines: LineReader,
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

struct Jsonl {
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
fn parse_jsonl_line_fast<'a>(
    line: &'a str,
    text_field: &str,
    id_field: &str,
) -> std::result::Result<(Option<String>, std::borrow::Cow<'a, str>), String> {
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
    match parsed.id {
        Some(serde_json::Value::String(s)) => Ok((Some(s), text)),
        Some(serde_json::Value::Number(n)) => Ok((Some(n.to_string()), text)),
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
    let id = match m.get(id_field) {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(serde_json::Value::Number(n)) => n.to_string(),
        Some(other) => {
            return Err(format!(
                "field {:?} is {}; expected a string or a number",
                id_field,
                json_kind(other)
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
            if self.lines.buf.iter().all(|c| c.is_ascii_whitespace()) {
                continue;
            }
            let (line, lossy) = decode_ref(&self.lines.buf);
            match self.parse(&line) {
                Ok((id, text)) => {
                    let ext_id = id.unwrap_or_else(|| self.lines.line.to_string());
                    return Ok(Some(Raw {
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
}

struct Delimited {
    rdr: csv::Reader<Box<dyn BufRead + Send>>,
    path: PathBuf,
    text_col: usize,
    id_col: Option<usize>,
    skip_bad: bool,
    rec: csv::ByteRecord,
    /// Header-less empty input.
    empty: bool,
}

impl Delimited {
    fn open(path: &Path, format: Format, cfg: &CorpusConfig) -> Result<Self> {
        let r = open_read(path)?;
        let tsv = format == Format::Tsv;
        let mut rdr = csv::ReaderBuilder::new()
            .delimiter(if tsv { b'\t' } else { b',' })
            .quoting(!tsv)
            .has_headers(true)
            .flexible(false)
            .from_reader(r);
        let headers = rdr.byte_headers().map_err(|e| csv_err(path, 1, e))?.clone();
        let names: Vec<String> = headers
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let h = if i == 0 {
                    h.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(h)
                } else {
                    h
                };
                String::from_utf8_lossy(h).trim().to_string()
            })
            .collect();
        // csv reports an empty header record for an empty file: no documents.
        let empty = headers.is_empty();
        let what = if tsv { "TSV" } else { "CSV" };
        let hline = headers.position().map_or(1, |p| p.line());
        let find = |want: &str, opt: &str| -> Result<usize> {
            names.iter().position(|n| n == want).ok_or_else(|| {
                Error::parse(
                    path,
                    hline,
                    format!(
                        "no column {want:?} in the {what} header (columns: {}); expected a header naming it ({opt})",
                        names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
                    ),
                )
            })
        };
        let (text_col, id_col) = if empty {
            (0, None)
        } else {
            let t = find(&cfg.text_column, "the configured text column")?;
            let i = if cfg.id_column.is_empty() {
                None
            } else {
                Some(find(
                    &cfg.id_column,
                    "the configured id column; an empty id column name numbers the lines",
                )?)
            };
            (t, i)
        };
        Ok(Delimited {
            rdr,
            path: path.to_path_buf(),
            text_col,
            id_col,
            skip_bad: cfg.skip_bad_lines,
            rec: csv::ByteRecord::new(),
            empty,
        })
    }
}

fn csv_err(path: &Path, fallback_line: u64, e: csv::Error) -> Error {
    let line = e.position().map_or(fallback_line, |p| p.line());
    match e.into_kind() {
        csv::ErrorKind::Io(io) => read_err(path, line, io),
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => Error::parse(
            path,
            line,
            format!("found {len} fields; expected {expected_len} (as many as the header)"),
        ),
        other => Error::parse(path, line, format!("{other:?}")),
    }
}

impl Source for Delimited {
    fn next_raw(&mut self, stats: &mut CorpusStats) -> Result<Option<Raw>> {
        if self.empty {
            return Ok(None);
        }
        loop {
            match self.rdr.read_byte_record(&mut self.rec) {
                Ok(false) => return Ok(None),
                Ok(true) => {}
                Err(e) => {
                    if self.skip_bad && matches!(e.kind(), csv::ErrorKind::UnequalLengths { .. }) {
                        stats.skipped_bad_lines += 1;
                        continue;
                    }
                    return Err(csv_err(&self.path, 0, e));
                }
            }
            let line = self.rec.position().map_or(0, |p| p.line());
            let Some(t) = self.rec.get(self.text_col) else {
                // Unreachable with flexible(false), but never index out of bounds.
                if self.skip_bad {
                    stats.skipped_bad_lines += 1;
                    continue;
                }
                return Err(Error::parse(&self.path, line, "missing the text column"));
            };
            let (text, lossy_t) = decode(t.to_vec());
            let (ext_id, lossy_i) = match self.id_col {
                Some(c) => {
                    let (s, l) = decode_ref(self.rec.get(c).unwrap_or(b""));
                    (s.into_owned(), l)
                }
                None => (line.to_string(), false),
            };
            return Ok(Some(Raw {
                ext_id,
                text,
                lossy: lossy_t || lossy_i,
            }));
        }
    }
}

struct Dir {
    files: std::vec::IntoIter<(String, PathBuf)>,
}

impl Dir {
    fn open(root: &Path) -> Result<Self> {
        let meta = std::fs::metadata(root).map_err(|e| Error::io(root, e))?;
        if !meta.is_dir() {
            return Err(Error::format(
                root,
                "not a directory; expected a directory of files (format dir)",
            ));
        }
        let mut files = Vec::new();
        walk(root, "", &mut files)?;
        files.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(Dir {
            files: files.into_iter(),
        })
    }
}

/// Collects regular files under `dir` (symlinks to files followed, symlinked directories and
/// names starting with `.` skipped) as (relative path with `/`, full path).
fn walk(dir: &Path, rel: &str, out: &mut Vec<(String, PathBuf)>) -> Result<()> {
    let rd = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    for entry in rd {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let ft = entry.file_type().map_err(|e| Error::io(&path, e))?;
        let r = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        if ft.is_dir() {
            walk(&path, &r, out)?;
        } else if ft.is_file() || (ft.is_symlink() && path.is_file()) {
            out.push((r, path));
        }
    }
    Ok(())
}

impl Source for Dir {
    fn next_raw(&mut self, stats: &mut CorpusStats) -> Result<Option<Raw>> {
        let Some((rel, path)) = self.files.next() else {
            return Ok(None);
        };
        stats.files += 1;
        let mut r = open_read(&path)?;
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut r, &mut bytes).map_err(|e| read_err(&path, 1, e))?;
        let (text, lossy) = decode(bytes);
        Ok(Some(Raw {
            ext_id: rel,
            text,
            lossy,
        }))
    }
}

struct Warc {
    r: warc::WarcReader,
}

impl Source for Warc {
    fn next_raw(&mut self, stats: &mut CorpusStats) -> Result<Option<Raw>> {
        loop {
            let Some(rec) = self.r.next_record()? else {
                return Ok(None);
            };
            let is_response = rec
                .header("WARC-Type")
                .is_some_and(|t| t.eq_ignore_ascii_case("response"));
            if !is_response {
                stats.skipped_records += 1;
                continue;
            }
            let Some(uri) = rec.header("WARC-Target-URI") else {
                return Err(self.r.record_error(
                    &rec,
                    "response record without WARC-Target-URI; expected the URI as the document id",
                ));
            };
            // WARC/1.0 examples write the URI in angle brackets.
            let uri = uri
                .strip_prefix('<')
                .and_then(|u| u.strip_suffix('>'))
                .unwrap_or(uri)
                .to_string();
            let (text, lossy) = decode(warc::http_body(&rec.block));
            return Ok(Some(Raw {
                ext_id: uri,
                text,
                lossy,
            }));
        }
    }
}

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
