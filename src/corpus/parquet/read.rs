//! The Parquet [`Source`]: the documents of the files of a corpus, row group by row group,
//! batch by batch.
//!
//! Invariant: one batch of the text and id columns of one row group is held at a time; rows
//! are numbered from 1 within each file (the position in messages) and across the corpus
//! (the id when no id column is named, [`row_id`]: the rows of the files before plus the
//! row in the file), skipped rows included. A window of row groups
//! ([`ParquetDocs::open_window`]) numbers its rows as the whole file does.

use std::path::{Path, PathBuf};

use super::columns::{list_files, BatchCols, Batches, ParquetFile, Resolved, RowKind};
use super::row_id;
use crate::corpus::input::decode_ref;
use crate::corpus::reader::{Raw, Source};
use crate::corpus::{CorpusConfig, CorpusStats};
use crate::{Error, Result};

/// The documents of a Parquet file or directory of Parquet files.
pub(in crate::corpus) struct ParquetDocs {
    files: std::vec::IntoIter<PathBuf>,
    cfg: CorpusConfig,
    /// The file being read (the last one after the end).
    path: PathBuf,
    cur: Option<FileCursor>,
    /// Rows of the files before the one being read.
    rows_before: u64,
    /// Only the row groups whose bytes start in this range (of the one file).
    window: Option<(u64, u64)>,
}

/// Where the reading of one file is.
struct FileCursor {
    file: ParquetFile,
    res: Resolved,
    next_rg: usize,
    /// One past the last row group read.
    end_rg: usize,
    batches: Option<Batches>,
    /// The current batch's columns and the index of its next row.
    batch: Option<(BatchCols, usize)>,
    /// Rows of the file passed so far.
    row: u64,
}

impl ParquetDocs {
    /// Lists the files of `path` (a file, or a directory of `*.parquet` files).
    pub(in crate::corpus) fn open(path: &Path, cfg: &CorpusConfig) -> Result<Self> {
        let files = list_files(path)?;
        Ok(ParquetDocs {
            files: files.into_iter(),
            cfg: cfg.clone(),
            path: path.to_path_buf(),
            cur: None,
            rows_before: 0,
            window: None,
        })
    }

    /// The documents of the row groups of the Parquet file `path` whose bytes start in
    /// `[start, end)` (see [`crate::corpus::split::assign_pieces`]).
    pub(in crate::corpus) fn open_window(
        path: &Path,
        cfg: &CorpusConfig,
        start: u64,
        end: u64,
    ) -> Result<Self> {
        Ok(ParquetDocs {
            files: vec![path.to_path_buf()].into_iter(),
            cfg: cfg.clone(),
            path: path.to_path_buf(),
            cur: None,
            rows_before: 0,
            window: Some((start, end)),
        })
    }

    /// Opens the next file; false at the end.
    fn next_file(&mut self, stats: &mut CorpusStats) -> Result<bool> {
        let Some(p) = self.files.next() else {
            return Ok(false);
        };
        stats.files += 1;
        self.path = p;
        let file = ParquetFile::open(&self.path)?;
        let res = file.resolve(&self.cfg)?;
        let (mut next_rg, mut end_rg, mut row) = (0, file.row_groups(), 0);
        if let Some((start, end)) = self.window {
            let (groups, before) = file.window(start, end);
            (next_rg, end_rg, row) = (groups.start, groups.end, before);
        }
        self.cur = Some(FileCursor {
            file,
            res,
            next_rg,
            end_rg,
            batches: None,
            batch: None,
            row,
        });
        Ok(true)
    }
}

impl Source for ParquetDocs {
    fn next_raw(&mut self, stats: &mut CorpusStats) -> Result<Option<Raw>> {
        loop {
            let Some(c) = &mut self.cur else {
                if !self.next_file(stats)? {
                    return Ok(None);
                }
                continue;
            };
            if let Some((cols, pos)) = &mut c.batch {
                if *pos < cols.len() {
                    let i = *pos;
                    *pos += 1;
                    c.row += 1;
                    match cols.classify(i, self.cfg.max_doc_bytes) {
                        RowKind::Doc { text, id } => {
                            let (text, lossy) = decode_ref(text);
                            return Ok(Some(Raw {
                                line: c.row,
                                ext_id: id.unwrap_or_else(|| row_id(self.rows_before, c.row)),
                                text: text.into_owned(),
                                lossy,
                            }));
                        }
                        RowKind::Oversized => stats.skipped_oversized += 1,
                        RowKind::Bad(_) if self.cfg.skip_bad_lines => stats.skipped_bad_lines += 1,
                        RowKind::Bad(msg) => return Err(Error::parse(&c.file.path, c.row, msg)),
                    }
                    continue;
                }
                c.batch = None;
            }
            if let Some(b) = &mut c.batches {
                match b.next(&c.file.path, c.row)? {
                    Some(batch) => {
                        let cols = BatchCols::new(&batch, &c.res, &c.file.path, c.row)?;
                        c.batch = Some((cols, 0));
                    }
                    None => c.batches = None,
                }
                continue;
            }
            if c.next_rg < c.end_rg {
                let mask = c.file.mask(Some(&c.res.leaves));
                c.batches = Some(c.file.batches(c.next_rg, mask, c.row)?);
                c.next_rg += 1;
                continue;
            }
            self.rows_before += c.row;
            self.cur = None;
        }
    }

    fn file(&self) -> Option<&Path> {
        Some(&self.path)
    }
}
