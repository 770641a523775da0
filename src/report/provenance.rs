//! How a report was made: the size and a content hash of its input files, so that a reader
//! can tell whether a corpus or truth at hand is the one the report ran on.
//!
//! The hash is XXH3-128 (seed 0) of the bytes as stored: for a file its bytes; for a
//! directory, every regular file under it in byte order of its relative path (`/`
//! separators; names starting with `.` skipped, as the corpus reader skips them), each
//! hashed as the path, a NUL, its length as 8 little-endian bytes, and its bytes.
//! In-memory texts are hashed as the JSONL file of their records
//! ([`SharedTexts::record`]) would be. Invariant: the digest depends only on those bytes
//! and paths, not on the machine.

use std::io::Read;
use std::path::Path;

use xxhash_rust::xxh3::Xxh3;

use crate::corpus::texts::SharedTexts;

use crate::{Error, Result};

/// Size and content hash of a file or directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Digest {
    /// Bytes of every file hashed.
    pub bytes: u64,
    /// Files hashed.
    pub files: u64,
    /// XXH3-128 as 32 hex digits.
    pub xxh3_128: String,
}

fn hash_file(path: &Path, h: &mut Xxh3) -> Result<u64> {
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut buf = vec![0u8; 1 << 16];
    let mut n = 0u64;
    loop {
        let k = f.read(&mut buf).map_err(|e| Error::io(path, e))?;
        if k == 0 {
            return Ok(n);
        }
        h.update(&buf[..k]);
        n += k as u64;
    }
}

/// The digest of the file or directory at `path`.
pub fn digest(path: &Path) -> Result<Digest> {
    let mut h = Xxh3::new();
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    let (bytes, files) = if meta.is_dir() {
        let mut list = Vec::new();
        crate::corpus::walk(path, "", &mut list)?;
        list.sort();
        let mut total = 0u64;
        for (rel, p) in &list {
            let len = std::fs::metadata(p).map_err(|e| Error::io(p, e))?.len();
            h.update(rel.as_bytes());
            h.update(&[0]);
            h.update(&len.to_le_bytes());
            total += hash_file(p, &mut h)?;
        }
        (total, list.len() as u64)
    } else {
        (hash_file(path, &mut h)?, 1)
    };
    Ok(Digest {
        bytes,
        files,
        xxh3_128: format!("{:032x}", h.digest128()),
    })
}

/// The digest of in-memory texts: that of the JSONL file of their records.
pub fn digest_texts(texts: &SharedTexts) -> Digest {
    let mut h = Xxh3::new();
    let mut bytes = 0u64;
    let mut rec = Vec::new();
    for i in 0..texts.len() {
        rec.clear();
        texts.record(i, &mut rec);
        h.update(&rec);
        bytes += rec.len() as u64;
    }
    Digest {
        bytes,
        files: 1,
        xxh3_128: format!("{:032x}", h.digest128()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_and_directory_digests() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.txt");
        std::fs::write(&f, b"hello").unwrap();
        let d = digest(&f).unwrap();
        assert_eq!(d.bytes, 5);
        assert_eq!(
            d.xxh3_128,
            format!("{:032x}", xxhash_rust::xxh3::xxh3_128(b"hello"))
        );
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/b.txt"), b"xy").unwrap();
        std::fs::write(dir.path().join(".hidden"), b"zz").unwrap();
        let a = digest(dir.path()).unwrap();
        assert_eq!((a.bytes, a.files), (7, 2));
        std::fs::write(dir.path().join("sub/b.txt"), b"xz").unwrap();
        assert_ne!(digest(dir.path()).unwrap().xxh3_128, a.xxh3_128);
    }
}
