//! Directories: one document per regular file, recursively, sorted by relative path.
//!
//! Invariant: names starting with `.` are skipped, symlinks to files followed and symlinked
//! directories skipped; the external id is the relative path with `/` separators; only the
//! list of paths and one file's content are held at a time (`*.gz` files decompressed); a
//! file whose content (decompressed) is larger than the largest document size is skipped
//! and counted, having been read no further than that size.

use std::path::{Path, PathBuf};

use super::input::{decode, open_read, read_err};
use super::reader::{Raw, Source};
use super::CorpusStats;
use crate::{Error, Result};

pub(super) struct Dir {
    files: std::vec::IntoIter<(String, PathBuf)>,
    max: u64,
}

impl Dir {
    pub(super) fn open(root: &Path, max_doc_bytes: u64) -> Result<Self> {
        let meta = std::fs::metadata(root).map_err(|e| Error::io(root, e))?;
        if !meta.is_dir() {
            return Err(Error::format(
                root,
                "not a directory; expected a directory of files (format dir)",
            ));
        }
        let mut files = Vec::new();
        walk(root, "", &mut files)?;
        if files.len() as u64 > super::MAX_DOCUMENTS {
            return Err(super::reader::too_many_documents(root));
        }
        files.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(Dir {
            files: files.into_iter(),
            max: max_doc_bytes,
        })
    }
}

/// Collects regular files under `dir` (symlinks to files followed, symlinked directories and
/// names starting with `.` skipped) as (relative path with `/`, full path).
pub(crate) fn walk(dir: &Path, rel: &str, out: &mut Vec<(String, PathBuf)>) -> Result<()> {
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
        loop {
            let Some((rel, path)) = self.files.next() else {
                return Ok(None);
            };
            stats.files += 1;
            let r = open_read(&path)?;
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(
                &mut std::io::Read::take(r, self.max.saturating_add(1)),
                &mut bytes,
            )
            .map_err(|e| read_err(&path, 1, e))?;
            if bytes.len() as u64 > self.max {
                stats.skipped_oversized += 1;
                continue;
            }
            let (text, lossy) = decode(bytes);
            return Ok(Some(Raw {
                line: 1,
                ext_id: rel,
                text,
                lossy,
            }));
        }
    }
}
