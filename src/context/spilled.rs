//! A context whose rows live in a temporary file instead of memory: what
//! [`Context::from_key_source`](super::Context::from_key_source) builds when the kept rows
//! would not fit in the memory budget beside what the caller holds. The rows are written
//! once, in key order, as LEB128 varints (row length, then the first document and the gaps
//! between the next ones, see [`crate::codec`]), and read back in that order as often as a
//! method needs ([`RowSource`]).
//!
//! Invariants: a [`SpilledContext`] holds exactly the rows (in order) and statistics that the
//! in-memory [`Context`](super::Context) of the same incidences holds, without the keys; its
//! file is removed when it is dropped (and by the interrupt handler, through the spill
//! directory's registration).

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use super::{ContextStats, Orientation};
use crate::codec::{put_varint, varint_bytewise, varint_in, ByteSource};
use crate::fimi::write_rows;
use crate::fimi::Transactions;
use crate::spill::{ExternalSorter, SpillConfig, SpillDir};
use crate::{Error, Result};

/// Rows that can be visited in order, each a strictly ascending list of DocIds.
pub trait RowSource: Sync {
    /// Calls `f` on every row, in order.
    fn for_each_row(&self, f: &mut dyn FnMut(&[u32]) -> Result<()>) -> Result<()>;
}

impl RowSource for Transactions {
    fn for_each_row(&self, f: &mut dyn FnMut(&[u32]) -> Result<()>) -> Result<()> {
        for r in self.iter() {
            f(r)?;
        }
        Ok(())
    }
}

/// The rows of a context in a temporary file (see the module docs).
#[derive(Debug)]
pub struct SpilledContext {
    n_docs: u32,
    stats: ContextStats,
    path: PathBuf,
    bytes: u64,
    /// Owns the file's directory: removed on drop.
    _dir: SpillDir,
}

impl SpilledContext {
    /// Number of documents (columns).
    pub fn n_docs(&self) -> u32 {
        self.n_docs
    }

    /// Number of rows kept.
    pub fn len(&self) -> usize {
        self.stats.rows as usize
    }

    /// True when no row was kept.
    pub fn is_empty(&self) -> bool {
        self.stats.rows == 0
    }

    /// What the build kept and dropped.
    pub fn stats(&self) -> &ContextStats {
        &self.stats
    }

    /// Size of the rows file in bytes.
    pub fn file_bytes(&self) -> u64 {
        self.bytes
    }
}

impl SpilledContext {
    /// The rows of `ctx` written to a file in `spill`'s directory (for tests of the methods
    /// that read a spilled context).
    #[cfg(test)]
    pub(crate) fn of(ctx: &super::Context, spill: &SpillConfig) -> Result<SpilledContext> {
        let mut w = RowsWriter::new(spill)?;
        for r in ctx.rows().iter() {
            w.push(r)?;
        }
        w.finish(ctx.n_docs(), *ctx.stats())
    }
}

impl SpilledContext {
    /// Writes the rows as a FIMI file (atomically) in `orientation`: shingle rows as they
    /// are read; document rows (for each document, the indices of its rows) through sorted
    /// `(document, row)` runs under `spill`, one line per document including empty ones.
    pub fn write_fimi(
        &self,
        path: &Path,
        orientation: Orientation,
        spill: &SpillConfig,
    ) -> Result<()> {
        let mut f = crate::io::AtomicFile::create(path)?;
        let io = |e| Error::io(path, e);
        match orientation {
            Orientation::ShingleRows => {
                self.for_each_row(&mut |r| write_rows(&mut f, std::iter::once(r)).map_err(io))?
            }
            Orientation::DocRows => {
                let mut s = ExternalSorter::<u64>::new(spill, "doc-rows");
                let mut i = 0u32;
                self.for_each_row(&mut |r| {
                    for &d in r {
                        s.push((u64::from(d) << 32) | u64::from(i))?;
                    }
                    i += 1;
                    Ok(())
                })?;
                let (mut doc, mut line) = (0u32, Vec::new());
                for x in s.finish()? {
                    let x = x?;
                    let d = (x >> 32) as u32;
                    while doc < d {
                        write_rows(&mut f, std::iter::once(&line)).map_err(io)?;
                        line.clear();
                        doc += 1;
                    }
                    line.push(x as u32);
                }
                while doc < self.n_docs {
                    write_rows(&mut f, std::iter::once(&line)).map_err(io)?;
                    line.clear();
                    doc += 1;
                }
            }
        }
        f.flush().map_err(io)?;
        f.commit()
    }
}

impl RowSource for SpilledContext {
    /// Reads the file in blocks of 4 MiB, decoding the varints from the
    /// block in place (the codec's fast path, byte-wise only at a block's end).
    fn for_each_row(&self, f: &mut dyn FnMut(&[u32]) -> Result<()>) -> Result<()> {
        let file = File::open(&self.path).map_err(|e| Error::io(&self.path, e))?;
        let mut r = RowReader {
            file,
            path: &self.path,
            buf: vec![0; READ_BLOCK],
            start: 0,
            end: 0,
            pos: 0,
        };
        let mut row: Vec<u32> = Vec::new();
        for _ in 0..self.stats.rows {
            let len = r.varint("a row's length")? as usize;
            row.clear();
            let mut prev = 0u64;
            for i in 0..len {
                let g = r.varint("a document of a row")?;
                prev = if i == 0 { g } else { prev + g };
                row.push(prev as u32);
            }
            f(&row)?;
        }
        Ok(())
    }
}

/// Bytes a scan of a rows file reads at a time.
const READ_BLOCK: usize = 4 << 20;

/// The rows file read a block at a time.
struct RowReader<'a> {
    file: File,
    path: &'a Path,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    pos: u64,
}

impl RowReader<'_> {
    /// Moves what is left to the front and fills the rest of the block (less at the end of
    /// the file).
    fn refill(&mut self) -> Result<()> {
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        while self.end < self.buf.len() {
            match self.file.read(&mut self.buf[self.end..]) {
                Ok(0) => break,
                Ok(k) => self.end += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(self.path, e)),
            }
        }
        Ok(())
    }
}

impl ByteSource for RowReader<'_> {
    fn take(&mut self, n: usize, what: &str) -> Result<&[u8]> {
        if self.end - self.start < n {
            self.refill()?;
            if self.end - self.start < n {
                return Err(self.err(format!("truncated reading {what}")));
            }
        }
        let at = self.start;
        self.start += n;
        self.pos += n as u64;
        Ok(&self.buf[at..at + n])
    }
    /// The codec's fast path on the block (refilled when fewer than 10 bytes are left),
    /// byte-wise at the file's end.
    #[inline]
    fn varint(&mut self, what: &str) -> Result<u64> {
        if self.end - self.start < 10 {
            self.refill()?;
        }
        match varint_in(&self.buf[self.start..self.end]) {
            None => varint_bytewise(self, what),
            Some((v, n)) => {
                self.take(n, what)?;
                Ok(v)
            }
        }
    }
    fn at(&self) -> u64 {
        self.pos
    }
    fn left(&self) -> u64 {
        u64::MAX
    }
    fn path(&self) -> &Path {
        self.path
    }
}

/// Writes rows into a new [`SpilledContext`].
pub(super) struct RowsWriter {
    dir: SpillDir,
    path: PathBuf,
    out: BufWriter<File>,
    buf: Vec<u8>,
    bytes: u64,
    rows: u64,
}

impl RowsWriter {
    /// A new rows file in `spill`'s directory.
    pub(super) fn new(spill: &SpillConfig) -> Result<Self> {
        let mut dir = SpillDir::new_in(&spill.dir())?;
        let (path, f) = dir.create_file("rows")?;
        Ok(RowsWriter {
            dir,
            path,
            out: BufWriter::with_capacity(1 << 20, f),
            buf: Vec::new(),
            bytes: 0,
            rows: 0,
        })
    }

    /// Appends one row (strictly ascending DocIds).
    pub(super) fn push(&mut self, row: &[u32]) -> Result<()> {
        self.buf.clear();
        put_varint(&mut self.buf, row.len() as u64);
        let mut prev = 0u32;
        for (i, &d) in row.iter().enumerate() {
            put_varint(&mut self.buf, u64::from(if i == 0 { d } else { d - prev }));
            prev = d;
        }
        self.out
            .write_all(&self.buf)
            .map_err(|e| Error::io(&self.path, e))?;
        self.bytes += self.buf.len() as u64;
        self.rows += 1;
        Ok(())
    }

    /// Completes the file; `stats` must count the rows pushed.
    pub(super) fn finish(mut self, n_docs: u32, stats: ContextStats) -> Result<SpilledContext> {
        self.out.flush().map_err(|e| Error::io(&self.path, e))?;
        debug_assert_eq!(stats.rows, self.rows);
        Ok(SpilledContext {
            n_docs,
            stats,
            path: self.path,
            bytes: self.bytes,
            _dir: self.dir,
        })
    }
}
