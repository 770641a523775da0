//! Byte-level helpers for the index files: LEB128 varints and a bounds-checked reader whose
//! every failure is an [`Error::Format`] naming the file and the byte offset.

use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// Appends `v` as an unsigned LEB128 varint.
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A cursor over a file's bytes.
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    path: PathBuf,
}

impl<'a> Reader<'a> {
    /// Starts at offset 0.
    pub fn new(bytes: &'a [u8], path: &Path) -> Self {
        Reader {
            bytes,
            pos: 0,
            path: path.to_path_buf(),
        }
    }

    /// A format error at the current offset.
    pub fn err(&self, msg: impl std::fmt::Display) -> Error {
        Error::format(&self.path, format!("at byte {}: {msg}", self.pos))
    }

    /// Reads `n` bytes.
    pub fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        if self.bytes.len() - self.pos < n {
            return Err(self.err(format!("truncated {what}")));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Reads a varint.
    pub fn varint(&mut self, what: &str) -> Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self
                .bytes
                .get(self.pos)
                .ok_or_else(|| self.err(format!("truncated {what}")))?;
            self.pos += 1;
            let part = (b & 0x7f) as u64;
            if shift == 63 && part > 1 {
                return Err(self.err(format!("{what} overflows 64 bits")));
            }
            v |= part << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.err(format!("{what} overflows 64 bits")))
    }

    /// Reads a varint that must be `< bound`.
    pub fn varint_below(&mut self, bound: u64, what: &str) -> Result<u64> {
        let v = self.varint(what)?;
        if v >= bound {
            return Err(self.err(format!("{what} {v} out of range (must be < {bound})")));
        }
        Ok(v)
    }

    /// Checks the magic bytes and the version that start every index file.
    pub fn header(&mut self, magic: &[u8; 8], version: u32) -> Result<()> {
        let m = self.bytes(8, "magic")?;
        if m != magic {
            return Err(self.err(format!(
                "not a fimdup index file of this kind (expected magic {:?})",
                String::from_utf8_lossy(magic)
            )));
        }
        let v = u32::from_le_bytes(self.bytes(4, "version")?.try_into().expect("4 bytes"));
        if v != version {
            return Err(self.err(format!("version {v}, this fimdup reads {version}")));
        }
        Ok(())
    }

    /// Fails unless every byte was read.
    pub fn finish(&self) -> Result<()> {
        if self.pos != self.bytes.len() {
            return Err(self.err("trailing bytes"));
        }
        Ok(())
    }
}

/// Starts a file with its magic and version.
pub fn put_header(out: &mut Vec<u8>, magic: &[u8; 8], version: u32) {
    out.extend_from_slice(magic);
    out.extend_from_slice(&version.to_le_bytes());
}
