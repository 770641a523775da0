//! Sharded corpora: one corpus stored as many files of one format, read one after the other.
//!
//! A corpus path names shards when it is
//! * a **pattern**: its file name holds a `*` (any run of characters) or a `?` (one
//!   character), e.g. `data/part-*.jsonl.zst` (quote it, so that the shell leaves it alone):
//!   the regular files of its directory (not recursive) whose names match, names starting
//!   with `.` skipped unless the pattern starts with one;
//! * a **directory given with a record format** (`jsonl`, `csv`, `tsv`, `lines` or
//!   `warc`, e.g. `--format jsonl`): every regular file under it, recursively, names
//!   starting with `.` skipped. (A directory without a format, or with `dir`, is one
//!   document per file; a directory of `*.parquet` files is already one Parquet corpus,
//!   [`is_parquet_dir`], whose ids that are row numbers count across its files.)
//!
//! Shards are ordered by their name (the file name of a pattern's match, the relative path
//! with `/` separators in a directory); each is read by its format's own reader, any of
//! them gzip- or zstd-compressed (by its own extension), and the documents of each follow
//! those of the one before: DocIds run on over the shards, so reading the shards is reading
//! their concatenation. Positions (lines, rows) and the messages naming them are the
//! shard's own; an external id that is a position (plain lines, JSONL without an id field,
//! CSV/TSV or Parquet without an id column) is the shard's name and the position,
//! `name:line`, so that ids stay distinct over the shards.
//!
//! A divided run reads the files of a sharded corpus, and those of a directory of Parquet
//! files (in its reader's order), each on its own, cut by bytes
//! ([`super::split::assign_pieces`]); [`Positions`] turns the ids that are positions in
//! a file into the corpus's: `name:position` for a shard, the row number across the
//! directory for a Parquet file, as one process names them.
//!
//! A pattern or a prefix may be an object-store URL (`s3://`, `gs://`): such a corpus is
//! staged into a local directory that reads as the same shards ([`super::remote`]).
//!
//! Invariants: the list of shards is sorted by name and holds every matching file once;
//! an empty list is an error naming the pattern or directory; every shard has the corpus's
//! one format (the configured one, or the one guessed from the pattern, or else from the
//! shards' names, which must agree).

use std::path::{Path, PathBuf};

use super::reader::{source_for, Raw, Source};
use super::{CorpusConfig, CorpusStats, Format};
use crate::{Error, Result};

/// One shard of a sharded corpus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shard {
    /// The file.
    pub path: PathBuf,
    /// Its name: the file name of a pattern's match, or its relative path in a directory.
    pub name: String,
    /// Its size in bytes (as stored: compressed for a compressed shard).
    pub len: u64,
}

/// True when `path` names a pattern of shards: a `*` or `?` in its file name.
fn is_pattern(path: &Path) -> bool {
    path.file_name()
        .map(|n| n.to_string_lossy())
        .is_some_and(|n| n.contains(['*', '?']))
}

/// True when `format` is read record by record from one file (so a directory given with it
/// holds shards).
fn record_format(format: Option<Format>) -> bool {
    matches!(
        format,
        Some(Format::Jsonl | Format::Csv | Format::Tsv | Format::Lines | Format::Warc)
    )
}

/// True when the corpus at `path`, read with `cfg`, is sharded (see the module docs); it
/// does not list the shards.
pub fn is_sharded(path: &Path, cfg: &CorpusConfig) -> bool {
    cfg.texts.is_none()
        && path != Path::new("-")
        && ((is_pattern(path) && !path.exists())
            || (record_format(cfg.format) && (path.is_dir() || super::remote::is_remote(path))))
}

/// True when the corpus at `path`, read with `cfg`, is a directory of Parquet files (given
/// with `--format parquet`, or holding a `*.parquet` file): one Parquet corpus, not
/// sharded, whose rows are numbered across its files (see the module docs).
pub fn is_parquet_dir(path: &Path, cfg: &CorpusConfig) -> bool {
    cfg.texts.is_none()
        && path.is_dir()
        && !is_sharded(path, cfg)
        && cfg.format_of(path).is_ok_and(|f| f == Format::Parquet)
}

/// The shards of the corpus at `path`, sorted by name; `None` when it is not sharded. An
/// empty list is an error, and so is a shard of another format than the corpus's.
pub fn list(path: &Path, cfg: &CorpusConfig) -> Result<Option<Vec<Shard>>> {
    if !is_sharded(path, cfg) {
        return Ok(None);
    }
    let found = files(path)?;
    let format = cfg.format_of(path)?;
    let mut shards = Vec::with_capacity(found.len());
    for (name, p) in found {
        let own = match cfg.format {
            Some(f) => f,
            None => Format::guess(&p)?,
        };
        if own != format {
            return Err(mixed(&p, own, path, format));
        }
        let len = std::fs::metadata(&p).map_err(|e| Error::io(&p, e))?.len();
        shards.push(Shard { path: p, name, len });
    }
    Ok(Some(shards))
}

/// The error of a shard of another format than its corpus's.
fn mixed(shard: &Path, own: Format, path: &Path, format: Format) -> Error {
    Error::config(format!(
        "{}: a {own} shard in a {format} corpus {}; give the format of every shard with --format",
        shard.display(),
        path.display()
    ))
}

/// The format of the sharded corpus at `path` whose name says none (a pattern such as
/// `part-*`): the one guessed from the name of every shard, which must agree.
pub(crate) fn guess_format(path: &Path) -> Result<Format> {
    let found = if super::remote::is_remote(path) {
        let names = super::remote::names(path)?;
        names
            .into_iter()
            .map(|n| (n.clone(), PathBuf::from(n)))
            .collect()
    } else {
        files(path)?
    };
    let format = Format::guess(&found[0].1)?;
    for (_, p) in &found[1..] {
        let own = Format::guess(p)?;
        if own != format {
            return Err(mixed(p, own, path, format));
        }
    }
    Ok(format)
}

/// The files of the sharded corpus at `path` (a pattern or a directory) as (name, path),
/// sorted by name; none is an error.
fn files(path: &Path) -> Result<Vec<(String, PathBuf)>> {
    let mut found: Vec<(String, PathBuf)> = Vec::new();
    let what = if path.is_dir() {
        super::walk(path, "", &mut found)?;
        "the directory holds no file"
    } else {
        let pattern = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if is_pattern(&dir) {
            return Err(Error::config(format!(
                "{}: only the file name of a pattern of shards may hold `*` or `?`",
                path.display()
            )));
        }
        let rd = std::fs::read_dir(&dir).map_err(|e| Error::io(&dir, e))?;
        for entry in rd {
            let entry = entry.map_err(|e| Error::io(&dir, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') && !pattern.starts_with('.') {
                continue;
            }
            let p = entry.path();
            if matches(pattern.as_bytes(), name.as_bytes()) && p.is_file() {
                found.push((name, p));
            }
        }
        "no file matches the pattern"
    };
    if found.is_empty() {
        return Err(Error::config(format!(
            "{}: {what}; expected the shards of a corpus",
            path.display()
        )));
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(found)
}

/// Whether `name` matches `pattern` (`*`: any run of bytes, `?`: one character).
pub(crate) fn matches(pattern: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, n));
            p += 1;
        } else if p < pattern.len() && (pattern[p] == name[n] || pattern[p] == b'?') {
            p += 1;
            n += 1;
            if pattern[p - 1] == b'?' {
                // `?` takes a whole UTF-8 character.
                while n < name.len() && (name[n] & 0xC0) == 0x80 {
                    n += 1;
                }
            }
        } else if let Some((sp, sn)) = star {
            p = sp + 1;
            n = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// True when the external ids of `format` read with `cfg` are positions in a file.
pub(crate) fn positional_ids(format: Format, cfg: &CorpusConfig) -> bool {
    match format {
        Format::Lines => true,
        Format::Jsonl => cfg.id_field.is_empty(),
        Format::Csv | Format::Tsv | Format::Parquet => cfg.id_column.is_empty(),
        Format::Dir | Format::Warc | Format::Texts => false,
    }
}

/// The external id of a document of shard `name` whose own id is `ext`: `name:ext` when
/// ids are positions ([`positional_ids`]), `ext` otherwise.
pub(crate) fn shard_ext_id(positional: bool, name: &str, ext: String) -> String {
    if positional {
        format!("{name}:{ext}")
    } else {
        ext
    }
}

/// How the external ids that are positions (`positional_ids`) of one file of a corpus,
/// read on its own, become the corpus's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Positions {
    /// As the file numbers them: the corpus is the file.
    Own,
    /// `name:position`, with the shard's name (`shard_ext_id`).
    Shard(String),
    /// The row number across the corpus: a file of a directory of Parquet files, after
    /// this many rows of the files before it ([`super::parquet::row_id`]).
    RowsAfter(u64),
}

impl Positions {
    /// The corpus's external id of a document that the file's own reader gave the id
    /// `ext`, at `row` (its 1-based row or line in the file); `positional`: the ids are
    /// positions.
    pub fn ext_id(&self, positional: bool, ext: String, row: u64) -> String {
        match self {
            Positions::Shard(name) => shard_ext_id(positional, name, ext),
            Positions::RowsAfter(n) if positional => super::parquet::row_id(*n, row),
            Positions::RowsAfter(_) | Positions::Own => ext,
        }
    }
}

/// The documents of every shard in order, each shard read by its format's reader.
pub(super) struct ShardDocs {
    shards: std::vec::IntoIter<Shard>,
    /// The shard being read, its name and reader.
    current: Option<(Shard, Box<dyn Source>)>,
    format: Format,
    positional: bool,
    cfg: CorpusConfig,
}

impl ShardDocs {
    /// Opens the first shard (so that its preamble is known and a missing file fails now).
    pub(super) fn open(shards: Vec<Shard>, format: Format, cfg: &CorpusConfig) -> Result<Self> {
        let mut s = ShardDocs {
            shards: shards.into_iter(),
            current: None,
            format,
            positional: positional_ids(format, cfg),
            cfg: cfg.clone(),
        };
        s.advance()?;
        Ok(s)
    }

    /// Opens the next shard (`current` is `None` after the last).
    fn advance(&mut self) -> Result<()> {
        self.current = match self.shards.next() {
            Some(shard) => {
                let src = source_for(&shard.path, self.format, &self.cfg)?;
                Some((shard, src))
            }
            None => None,
        };
        Ok(())
    }
}

impl Source for ShardDocs {
    fn next_raw(&mut self, stats: &mut CorpusStats) -> Result<Option<Raw>> {
        while let Some((shard, src)) = &mut self.current {
            if let Some(mut raw) = src.next_raw(stats)? {
                raw.ext_id = shard_ext_id(self.positional, &shard.name, raw.ext_id);
                return Ok(Some(raw));
            }
            self.advance()?;
            // Parquet counts the files it opens; the others are one file each.
            if self.current.is_some() && self.format != Format::Parquet {
                stats.files += 1;
            }
        }
        Ok(None)
    }

    fn record(&self, out: &mut Vec<u8>) -> bool {
        self.current.as_ref().is_some_and(|(_, s)| s.record(out))
    }

    fn preamble(&self, out: &mut Vec<u8>) {
        if let Some((_, s)) = &self.current {
            s.preamble(out);
        }
    }

    fn file(&self) -> Option<&Path> {
        self.current
            .as_ref()
            .map(|(shard, s)| s.file().unwrap_or(&shard.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_as_the_shell_does() {
        let yes = [
            ("*.jsonl", "a.jsonl"),
            ("*", ""),
            ("part-*.jsonl.zst", "part-00.jsonl.zst"),
            ("p?rt", "pärt"),
            ("*a*b", "xxaxxb"),
            ("a**", "a"),
        ];
        for (p, n) in yes {
            assert!(matches(p.as_bytes(), n.as_bytes()), "{p} {n}");
        }
        let no = [
            ("*.jsonl", "a.jsonl.zst"),
            ("p?rt", "prt"),
            ("*a*b", "xxaxxbc"),
            ("a", "b"),
        ];
        for (p, n) in no {
            assert!(!matches(p.as_bytes(), n.as_bytes()), "{p} {n}");
        }
    }
}
