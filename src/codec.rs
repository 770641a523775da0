//! The byte codec of the crate's binary files (the images file, [`crate::sketch::file`], and
//! the index files, [`crate::index::store`]): unsigned LEB128 varints, little-endian fixed
//! integers, the magic + version header, and bounds-checked readers.
//!
//! Writers append to a `Vec<u8>` ([`put_varint`], [`put_header`]). Readers implement
//! [`ByteSource`]: [`SliceReader`] over bytes in memory here, and the images file's chunked,
//! hashing stream reader. Their decoding methods are shared (the trait's provided methods),
//! and so is the varint fast path [`varint_in`], which decodes from a buffer without a call
//! per byte whenever at least 10 bytes are buffered.
//!
//! Invariants:
//! * A varint takes at most 10 bytes; a 10th byte above 1 (a value over 64 bits) or a
//!   truncated varint is an error, never a wrapped value. [`varint_in`] and the byte-wise
//!   decoder accept exactly the same encodings.
//! * Every read is bounds-checked; every failure is an [`Error::Format`] naming the file and
//!   the byte offset at which it was noticed. Nothing panics on malformed input.

use std::path::Path;

use crate::{Error, Result};

/// Appends `v` as an unsigned LEB128 varint.
///
/// Every 7-bit group is computed with its continuation bit, the last one's cleared, and the
/// ten possible bytes stored at once: no branch per byte (the lengths of hash gaps vary from
/// value to value, so a loop ending on the last byte mispredicts about once a value).
#[inline]
pub fn put_varint(out: &mut Vec<u8>, v: u64) {
    // 1..=10 bytes: the significant bits in groups of 7 (zero takes one byte), built in
    // registers (groups 0-7 in `lo`, 8-9 in `hi`) and stored as 16 bytes at once, of which
    // the first `n` count: no byte array to reload (a store-forwarding stall).
    let n = ((64 - (v | 1).leading_zeros()) as usize).div_ceil(7);
    let mut lo = 0u64;
    for i in 0..8 {
        lo |= ((v >> (7 * i)) & 0x7f) << (8 * i);
    }
    let hi = ((v >> 56) & 0x7f) | ((v >> 63) << 8);
    let mut bytes = (u128::from(lo) | (u128::from(hi) << 64)) | 0x8080_8080_8080_8080_8080u128;
    bytes &= !(0x80u128 << (8 * (n - 1)));
    out.reserve(16);
    let len = out.len();
    // SAFETY: `reserve` made room for 16 bytes after `len`; the first `n <= 10` of them are
    // the varint, and only they are counted by `set_len`.
    unsafe {
        std::ptr::write_unaligned(
            out.as_mut_ptr().add(len) as *mut [u8; 16],
            bytes.to_le_bytes(),
        );
        out.set_len(len + n);
    }
}

/// Appends a file header: the 8 magic bytes and the `u32` version (little endian).
pub fn put_header(out: &mut Vec<u8>, magic: &[u8; 8], version: u32) {
    out.extend_from_slice(magic);
    out.extend_from_slice(&version.to_le_bytes());
}

/// Decodes a varint from the first bytes of `b`, which must hold at least 10 bytes: the value
/// and the bytes it took, or `None` when `b` is shorter or the varint overflows (the byte-wise
/// decoder, [`ByteSource::varint`], then reports it).
#[inline]
pub fn varint_in(b: &[u8]) -> Option<(u64, usize)> {
    let b: &[u8; 10] = b.get(..10)?.try_into().ok()?;
    let mut v = 0u64;
    for (i, &byte) in b.iter().enumerate() {
        if i == 9 && byte > 1 {
            return None;
        }
        v |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    None
}

/// Decodes a varint one byte at a time from `src` (the general form of
/// [`ByteSource::varint`], for the last bytes of a buffer and for overflow errors).
pub fn varint_bytewise<S: ByteSource + ?Sized>(src: &mut S, what: &str) -> Result<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = src.u8(what)?;
        if shift == 63 && byte > 1 {
            return Err(src.err(format!("{what} overflows 64 bits (varint)")));
        }
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(v);
        }
    }
    unreachable!("the 10th byte ends or fails every varint")
}

/// A bounds-checked byte source of a named file. Implementors provide [`take`](Self::take),
/// the position and the file; the decoders are shared.
pub trait ByteSource {
    /// The next `n` bytes; an error when fewer are left.
    fn take(&mut self, n: usize, what: &str) -> Result<&[u8]>;
    /// Bytes consumed so far (the offset in the file).
    fn at(&self) -> u64;
    /// The largest length a field can plausibly have (the bytes left, when known).
    fn left(&self) -> u64;
    /// The file, for error messages.
    fn path(&self) -> &Path;

    /// An [`Error::Format`] naming the file and the current offset.
    #[cold]
    fn err(&self, msg: impl std::fmt::Display) -> Error {
        Error::format(self.path(), format!("at byte {}: {msg}", self.at()))
    }

    /// Reads one byte.
    #[inline]
    fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.take(1, what)?[0])
    }

    /// Reads a little-endian `u32`.
    fn u32(&mut self, what: &str) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.take(4, what)?.try_into().expect("4 bytes"),
        ))
    }

    /// Reads a little-endian `u64`.
    fn u64(&mut self, what: &str) -> Result<u64> {
        Ok(u64::from_le_bytes(
            self.take(8, what)?.try_into().expect("8 bytes"),
        ))
    }

    /// Reads a varint (implementors with a buffer override this with [`varint_in`]).
    #[inline]
    fn varint(&mut self, what: &str) -> Result<u64> {
        varint_bytewise(self, what)
    }

    /// Reads a varint that must be `< bound`.
    fn varint_below(&mut self, bound: u64, what: &str) -> Result<u64> {
        let v = self.varint(what)?;
        if v >= bound {
            return Err(self.err(format!("{what} {v} out of range (must be < {bound})")));
        }
        Ok(v)
    }

    /// Reads a varint that must be `<= max`, as a `usize`.
    fn usize_max(&mut self, what: &str, max: u64) -> Result<usize> {
        let v = self.varint(what)?;
        if v > max {
            return Err(self.err(format!("{what} = {v} is out of range (at most {max})")));
        }
        Ok(v as usize)
    }

    /// Reads a varint length and that many bytes of UTF-8.
    fn string(&mut self, what: &str) -> Result<String> {
        let n = self.usize_max(what, self.left())?;
        let s = self.take(n, what)?;
        match std::str::from_utf8(s) {
            Ok(s) => Ok(s.to_owned()),
            Err(_) => Err(self.err(format!("{what} is not UTF-8"))),
        }
    }

    /// Checks the magic bytes and the version that start a file; `kind` names the kind of
    /// file in the message for a foreign file.
    fn header(&mut self, magic: &[u8; 8], version: u32, kind: &str) -> Result<()> {
        if self.take(8, "magic")? != magic {
            return Err(self.err(format!(
                "not a fimdup {kind} (bad magic; expected {})",
                String::from_utf8_lossy(magic)
            )));
        }
        let v = self.u32("version")?;
        if v != version {
            return Err(self.err(format!(
                "unsupported version {v} (this fimdup reads version {version})"
            )));
        }
        Ok(())
    }
}

/// A [`ByteSource`] over bytes in memory.
pub struct SliceReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    path: &'a Path,
}

impl<'a> SliceReader<'a> {
    /// Starts at offset 0 of `bytes`, the contents of `path`.
    pub fn new(bytes: &'a [u8], path: &'a Path) -> Self {
        Self::at_offset(bytes, 0, path)
    }

    /// Starts at offset `pos` (at most `bytes.len()`).
    pub fn at_offset(bytes: &'a [u8], pos: usize, path: &'a Path) -> Self {
        assert!(pos <= bytes.len(), "offset {pos} past the end");
        SliceReader { bytes, pos, path }
    }

    /// Reads `n` bytes (borrowed from the underlying slice, not from the reader).
    #[inline]
    pub fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        if n > self.bytes.len() - self.pos {
            return Err(self.err(format!(
                "truncated reading {what} ({n} bytes expected, {} left)",
                self.bytes.len() - self.pos
            )));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// Fails unless every byte was read.
    pub fn finish(&self) -> Result<()> {
        match self.remaining() {
            0 => Ok(()),
            n => Err(self.err(format!("{n} unexpected trailing bytes"))),
        }
    }
}

impl ByteSource for SliceReader<'_> {
    #[inline]
    fn take(&mut self, n: usize, what: &str) -> Result<&[u8]> {
        self.bytes(n, what)
    }

    fn at(&self) -> u64 {
        self.pos as u64
    }

    fn left(&self) -> u64 {
        self.remaining() as u64
    }

    fn path(&self) -> &Path {
        self.path
    }

    #[inline]
    fn varint(&mut self, what: &str) -> Result<u64> {
        if let Some((v, n)) = varint_in(&self.bytes[self.pos..]) {
            self.pos += n;
            return Ok(v);
        }
        varint_bytewise(self, what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u64> {
        let mut v = vec![0, 1, 127, 128, 16383, 16384, u64::MAX - 1, u64::MAX];
        v.extend((0..64).map(|s| 1u64 << s));
        v.extend((1..64).map(|s| (1u64 << s) - 1));
        v
    }

    /// Every value round-trips, through the fast path and byte-wise (near the end of the
    /// buffer), with the length LEB128 gives it.
    #[test]
    fn varints_round_trip() {
        let p = Path::new("x");
        for x in sample() {
            let mut b = Vec::new();
            put_varint(&mut b, x);
            let len = b.len();
            assert_eq!(len, (64 - x.leading_zeros() as usize).max(1).div_ceil(7));
            let mut r = SliceReader::new(&b, p);
            assert_eq!(r.varint("v").unwrap(), x);
            r.finish().unwrap();
            b.extend_from_slice(&[0; 10]);
            assert_eq!(varint_in(&b), Some((x, len)));
        }
    }

    /// Overlong and truncated varints fail the same way on both paths, naming file and
    /// offset.
    #[test]
    fn bad_varints_are_errors() {
        let p = Path::new("f.bin");
        let mut over = vec![0xff; 9];
        over.push(2);
        let mut padded = over.clone();
        padded.extend_from_slice(&[0; 10]);
        assert_eq!(varint_in(&padded), None);
        for b in [&over, &padded] {
            let e = SliceReader::new(b, p)
                .varint("key")
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("f.bin: at byte 10: key overflows"), "{e}");
        }
        let e = SliceReader::new(&[0x80, 0x80], p)
            .varint("key")
            .unwrap_err()
            .to_string();
        assert!(e.contains("at byte 2: truncated reading key"), "{e}");
        // A 10-byte varint with top byte 1 is u64::MAX-range and valid.
        let mut max = vec![0xff; 9];
        max.push(1);
        assert_eq!(SliceReader::new(&max, p).varint("v").unwrap(), u64::MAX);
    }

    /// The byte-at-a-time LEB128 writer [`put_varint`] replaced.
    fn put_varint_bytewise(out: &mut Vec<u8>, mut v: u64) {
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    proptest::proptest! {
        /// The same bytes as the byte-at-a-time writer, after any prefix, for values of
        /// every length.
        #[test]
        fn varint_bytes_equal_the_bytewise_writer(
            prefix in proptest::collection::vec(proptest::num::u8::ANY, 0..20),
            vals in proptest::collection::vec((proptest::num::u64::ANY, 0u32..64), 0..40),
        ) {
            let (mut a, mut b) = (prefix.clone(), prefix);
            for (x, s) in vals {
                let x = x >> s;
                put_varint(&mut a, x);
                put_varint_bytewise(&mut b, x);
            }
            proptest::prop_assert_eq!(a, b);
        }
    }

    #[test]
    fn header_bounds_and_strings() {
        let p = Path::new("h.bin");
        let mut b = Vec::new();
        put_header(&mut b, b"FIMDUPXX", 3);
        put_varint(&mut b, 2);
        b.extend_from_slice(b"hi");
        put_varint(&mut b, 9);
        let mut r = SliceReader::new(&b, p);
        r.header(b"FIMDUPXX", 3, "test file").unwrap();
        assert_eq!(r.string("s").unwrap(), "hi");
        assert!(r.varint_below(9, "n").is_err());
        r.finish().unwrap();
        let e = SliceReader::new(&b, p)
            .header(b"FIMDUPYY", 3, "test file")
            .unwrap_err();
        assert!(e.to_string().contains("not a fimdup test file"), "{e}");
        let e = SliceReader::new(&b, p)
            .header(b"FIMDUPXX", 1, "test file")
            .unwrap_err();
        assert!(e.to_string().contains("unsupported version 3"), "{e}");
        let e = SliceReader::new(&b[..5], p).u64("u").unwrap_err();
        assert!(e.to_string().contains("8 bytes expected, 5 left"), "{e}");
    }
}
