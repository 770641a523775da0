//! [`CorpusConfig`]: how to read a corpus (format, field and column names, skipping of
//! malformed lines, repeated ids, the largest document, the in-memory texts).
//!
//! Invariant: a validated configuration names a text field and column, each different from
//! the id field and column, allows documents of at least one byte, and carries in-memory
//! texts exactly when its format is [`Format::Texts`].

use std::path::Path;

use super::texts::SharedTexts;
use super::{DuplicateIds, Format};
use crate::{Error, Result};

/// How to read a corpus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CorpusConfig {
    /// The format; `None` guesses it from the path ([`Format::guess`]).
    pub format: Option<Format>,
    /// JSONL: the field holding the text (default `text`).
    pub text_field: String,
    /// JSONL: the field holding the external id (default `id`); empty = use the line number.
    pub id_field: String,
    /// CSV/TSV and Parquet: the name of the text column (default `text`); Parquet: a struct
    /// field as `a.b`.
    pub text_column: String,
    /// CSV/TSV and Parquet: the name of the id column (default `id`); empty = use the line
    /// number (Parquet: the 1-based row number across the corpus).
    pub id_column: String,
    /// Skip (and count) malformed JSONL/CSV/TSV lines and Parquet rows instead of failing.
    pub skip_bad_lines: bool,
    /// What a repeated external id gets (default: an error).
    pub duplicate_ids: DuplicateIds,
    /// The largest document in bytes (default [`DEFAULT_MAX_DOC_BYTES`]): a longer JSONL or
    /// plain-text line, directory file or WARC record block is skipped and counted
    /// ([`super::CorpusStats::skipped_oversized`]), read past in bounded memory; a longer
    /// CSV/TSV row or WARC header line is an error.
    pub max_doc_bytes: u64,
    /// The in-memory texts of [`Format::Texts`] (the corpus path is then only their name,
    /// [`super::texts::TEXTS_NAME`]).
    pub texts: Option<SharedTexts>,
}

/// The default of [`CorpusConfig::max_doc_bytes`]: 64 MiB.
pub const DEFAULT_MAX_DOC_BYTES: u64 = 64 << 20;

impl Default for CorpusConfig {
    fn default() -> Self {
        CorpusConfig {
            format: None,
            text_field: "text".into(),
            id_field: "id".into(),
            text_column: "text".into(),
            id_column: "id".into(),
            skip_bad_lines: false,
            duplicate_ids: DuplicateIds::Error,
            max_doc_bytes: DEFAULT_MAX_DOC_BYTES,
            texts: None,
        }
    }
}

impl CorpusConfig {
    /// Checks the configuration: the text field and column must be named, and differ from
    /// the id field and column; in-memory texts come with [`Format::Texts`], and only with
    /// it.
    pub fn validate(&self) -> Result<()> {
        if self.texts.is_some() != (self.format == Some(Format::Texts)) {
            return Err(Error::config(
                "the format texts is the format of texts handed over in memory, and only of them",
            ));
        }
        if self.max_doc_bytes == 0 {
            return Err(Error::config("the largest document size is 0 bytes"));
        }
        if self.text_field.is_empty() {
            return Err(Error::config("the JSONL text field name is empty"));
        }
        if self.text_column.is_empty() {
            return Err(Error::config(
                "the CSV/TSV/Parquet text column name is empty",
            ));
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

    /// Validates the configuration and gives the format of the corpus at `path`: the one
    /// configured, or the guess from the path ([`Format::guess`]), or for a pattern of
    /// shards that says none, from the shards' names ([`super::shards`]), or for a prefix
    /// in object storage, from its objects' names as for a directory
    /// ([`super::remote::prefix_format`]).
    pub(crate) fn format_of(&self, path: &Path) -> Result<Format> {
        self.validate()?;
        match self.format {
            Some(f) => Ok(f),
            None => Format::guess(path).or_else(|e| {
                // A pattern that says no format (`part-*`): its shards' names say it.
                // A prefix in object storage: its objects say it, as a directory's files do.
                if super::shards::is_sharded(path, self) {
                    super::shards::guess_format(path)
                } else if super::remote::is_remote(path) {
                    super::remote::prefix_format(path)?.ok_or(e)
                } else {
                    Err(e)
                }
            }),
        }
    }
}
