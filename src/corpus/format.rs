//! The corpus formats: [`Format`], its names and aliases, and the guess from a path.
//!
//! Invariant: every format has one canonical name; [`FromStr`] accepts the canonical names of
//! the formats of corpora on disk ([`Format::NAMES`]) and their aliases, never
//! [`Format::Texts`] (only a [`super::CorpusConfig`] that carries in-memory texts has it), and
//! [`fmt::Display`] prints the canonical name.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use crate::{Error, Result};

/// Input format of a corpus.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// One JSON object per line.
    Jsonl,
    /// Comma-separated values with a header row (RFC 4180 quoting).
    Csv,
    /// Tab-separated values with a header row, quoted as CSV is (a field that starts with
    /// `"` is quoted; a `"` inside an unquoted field is an ordinary character).
    Tsv,
    /// Plain text, one document per line.
    Lines,
    /// A directory of files, one document per file.
    Dir,
    /// A WARC file (web crawl), one document per response record.
    Warc,
    /// A Parquet file, or a directory of `*.parquet` files read as one corpus; one document
    /// per row.
    Parquet,
    /// Texts held in memory ([`super::texts`], carried by [`super::CorpusConfig::texts`]),
    /// one document per text; never guessed from a path nor parsed from a name.
    Texts,
}

impl Format {
    /// Canonical names of the formats of corpora on disk, as accepted by [`FromStr`] and
    /// printed by [`fmt::Display`].
    pub const NAMES: [&'static str; 7] = ["jsonl", "csv", "tsv", "lines", "dir", "warc", "parquet"];

    /// The canonical name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Jsonl => "jsonl",
            Format::Csv => "csv",
            Format::Tsv => "tsv",
            Format::Lines => "lines",
            Format::Dir => "dir",
            Format::Warc => "warc",
            Format::Parquet => "parquet",
            Format::Texts => "texts",
        }
    }

    /// Guesses the format: a directory holding a `*.parquet` file (recursively, hidden
    /// names skipped) is [`Format::Parquet`], any other directory [`Format::Dir`];
    /// otherwise `.parquet` -> Parquet, or the extension after removing a final `.gz` or
    /// `.zst`: `.jsonl`/`.ndjson`/`.json` -> Jsonl, `.csv`, `.tsv`, `.txt` -> Lines,
    /// `.warc` -> Warc (case-insensitive). Anything else (and `-`) is an
    /// [`Error::Config`] asking for an explicit format.
    pub fn guess(path: &Path) -> Result<Format> {
        if path.is_dir() {
            return Ok(if super::parquet::dir_has_parquet(path) {
                Format::Parquet
            } else {
                Format::Dir
            });
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let stem = name
            .strip_suffix(".gz")
            .or_else(|| name.strip_suffix(".zst"))
            .unwrap_or(&name);
        let ext = stem.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
        match ext {
            "jsonl" | "ndjson" | "json" => Ok(Format::Jsonl),
            "csv" => Ok(Format::Csv),
            "tsv" => Ok(Format::Tsv),
            "txt" => Ok(Format::Lines),
            "warc" => Ok(Format::Warc),
            "parquet" => Ok(Format::Parquet),
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
            "parquet" => Ok(Format::Parquet),
            _ => Err(Error::config(format!(
                "unknown corpus format {s:?}; expected one of {}",
                Format::NAMES.join(", ")
            ))),
        }
    }
}
