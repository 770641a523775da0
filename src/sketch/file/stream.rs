//! The chunked, hashing byte source the version-3 reader (and the index, for its files) reads
//! through.

use std::path::{Path, PathBuf};

use crate::codec::{varint_bytewise, varint_in, ByteSource};
use crate::Result;

/// A streamed byte source that hashes what it reads (xxh64, seed 0).
///
/// It reads the file in chunks of [`Stream::CHUNK`] bytes into its own buffer and hands out
/// slices of it, hashing consumed bytes a chunk at a time (per-byte reads through the
/// `BufRead` and per-field hash updates made reading a 1 GB file take minutes).
/// Invariant: `buf[..hashed]` has been fed to the hasher, `hashed <= start <= end`, and
/// `buf[start..end]` are the bytes read but not yet consumed.
pub(crate) struct Stream {
    path: PathBuf,
    chunk: usize,
    r: Box<dyn std::io::BufRead + Send>,
    hasher: xxhash_rust::xxh64::Xxh64,
    /// Bytes consumed so far (the position in the file).
    pos: u64,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    hashed: usize,
}

impl Stream {
    /// Bytes read from the underlying reader at a time.
    const CHUNK: usize = 1 << 20;

    /// A stream over `r`, the contents of `path` (named in errors).
    pub(crate) fn new(r: Box<dyn std::io::BufRead + Send>, path: &Path) -> Self {
        Self::with_chunk(r, Self::CHUNK, path)
    }

    /// A stream reading `chunk` bytes at a time (tests use tiny chunks to cross boundaries).
    pub(super) fn with_chunk(
        r: Box<dyn std::io::BufRead + Send>,
        chunk: usize,
        path: &Path,
    ) -> Self {
        Stream {
            path: path.to_path_buf(),
            chunk: chunk.max(1),
            r,
            hasher: xxhash_rust::xxh64::Xxh64::new(0),
            pos: 0,
            buf: Vec::new(),
            start: 0,
            end: 0,
            hashed: 0,
        }
    }

    /// Hashes the bytes consumed and not yet hashed.
    fn hash_consumed(&mut self) {
        if self.hashed < self.start {
            self.hasher.update(&self.buf[self.hashed..self.start]);
            self.hashed = self.start;
        }
    }

    /// The checksum of every byte consumed so far.
    pub(crate) fn digest(&mut self) -> u64 {
        self.hash_consumed();
        self.hasher.digest()
    }

    /// Makes at least `n` unconsumed bytes available, or as many as the reader has left.
    /// The buffer grows a chunk at a time as bytes arrive, so a length field claiming more
    /// bytes than the file holds costs no more memory than the file.
    fn refill(&mut self, n: usize) -> Result<()> {
        self.hash_consumed();
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        self.hashed = 0;
        if self.buf.len() < self.chunk {
            self.buf.resize(self.chunk, 0);
        }
        while self.end < n {
            if self.buf.len() < self.end + self.chunk {
                self.buf.resize(n.min(self.end + self.chunk), 0);
            }
            let upto = self.buf.len().min(self.end + self.chunk);
            match self.r.read(&mut self.buf[self.end..upto]) {
                Ok(0) => break,
                Ok(k) => self.end += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.err(format!("read error: {e}"))),
            }
        }
        Ok(())
    }

    /// Consumes `n` bytes, hashed or not as `hash` says (the trailer is not).
    fn consume(&mut self, n: usize, what: &str, hash: bool) -> Result<&[u8]> {
        if self.end - self.start < n {
            self.refill(n)?;
            if self.end - self.start < n {
                return Err(self.err(format!(
                    "truncated reading {what} ({n} bytes expected, {} left)",
                    self.end - self.start
                )));
            }
        }
        if !hash {
            self.hash_consumed();
        }
        let at = self.start;
        self.start += n;
        if !hash {
            self.hashed = self.start;
        }
        self.pos += n as u64;
        Ok(&self.buf[at..at + n])
    }

    /// Reads `n` bytes without hashing them (the trailer).
    pub(crate) fn raw(&mut self, n: usize, what: &str) -> Result<Vec<u8>> {
        self.consume(n, what, false).map(<[u8]>::to_vec)
    }

    /// True when no byte is left.
    pub(crate) fn at_eof(&mut self) -> Result<bool> {
        if self.start < self.end {
            return Ok(false);
        }
        self.refill(1)?;
        Ok(self.start == self.end)
    }
}

impl ByteSource for Stream {
    #[inline]
    fn take(&mut self, n: usize, what: &str) -> Result<&[u8]> {
        self.consume(n, what, true)
    }
    #[inline]
    fn u8(&mut self, what: &str) -> Result<u8> {
        if self.start < self.end {
            let b = self.buf[self.start];
            self.start += 1;
            self.pos += 1;
            return Ok(b);
        }
        Ok(self.consume(1, what, true)?[0])
    }
    #[inline]
    fn varint(&mut self, what: &str) -> Result<u64> {
        if let Some((v, n)) = varint_in(&self.buf[self.start..self.end]) {
            self.start += n;
            self.pos += n as u64;
            return Ok(v);
        }
        varint_bytewise(self, what)
    }
    fn at(&self) -> u64 {
        self.pos
    }
    fn left(&self) -> u64 {
        u64::from(u32::MAX)
    }
    fn path(&self) -> &Path {
        &self.path
    }
}
