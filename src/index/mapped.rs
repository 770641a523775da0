//! A segment file read where it lies: memory-mapped and checked a block at a time against
//! the manifest's checksums.
//!
//! The mapped files (the postings, [`super::Postings::map_file`], and the image values,
//! [`super::images`]) hold fixed-width little-endian arrays at 8-aligned offsets, used in
//! place on a little-endian machine (a big-endian one copies and converts them).
//!
//! Invariants: a byte is used only after [`MappedFile::ensure`] has checked the block
//! holding it (its xxh64, then the file's own `validate` of the block's contents), once a
//! block; a file checked whole ([`MappedFile::check_all`]) skips that bookkeeping. Segment
//! files are written once, atomically, and never modified in place, so a checked block
//! stays what was checked. A damaged block is an [`Error::Format`] naming the file and the
//! block's byte range, never a wrong answer or a panic.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::{Error, Result};

/// A mapped file and which of its blocks have been checked.
pub(crate) struct MappedFile {
    path: PathBuf,
    map: memmap2::Mmap,
    block: usize,
    sums: Vec<u64>,
    checked: Vec<AtomicBool>,
    /// Every block checked (`ensure` skips `checked`).
    all_checked: AtomicBool,
}

impl std::fmt::Debug for MappedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MappedFile")
            .field("path", &self.path)
            .field("bytes", &self.map.len())
            .finish()
    }
}

impl MappedFile {
    /// Maps the file at `path` (its size already checked against the manifest), whose
    /// `block`-byte blocks have the xxh64 (seed 0) `sums`; checks the first block's
    /// checksum (the header) and advises random access.
    pub(crate) fn open(path: &Path, sums: Vec<u64>, block: usize) -> Result<MappedFile> {
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        // SAFETY: segment files are written once (atomically, by rename) and never
        // modified in place; every byte used is checked against the manifest's checksums.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Random);
        let len = map.len();
        if sums.len() != len.div_ceil(block) {
            return Err(Error::format(
                path,
                format!("{} block checksums listed for {len} bytes", sums.len()),
            ));
        }
        if !(map.as_ptr() as usize).is_multiple_of(8) {
            return Err(Error::format(path, "mapped at an address not 8-aligned"));
        }
        let m = MappedFile {
            path: path.to_path_buf(),
            checked: (0..sums.len()).map(|_| AtomicBool::new(false)).collect(),
            all_checked: AtomicBool::new(false),
            map,
            block,
            sums,
        };
        if len > 0 {
            check_sum(&m.path, &m.map, block, &m.sums, 0)?;
        }
        Ok(m)
    }

    /// An error naming the file unless it holds at least `header` bytes, starts with
    /// `magic` and has the `u32` version `version` at byte 8 (`what` names the kind of
    /// file); the header's block was checked by [`MappedFile::open`].
    pub(crate) fn check_header(
        &self,
        header: usize,
        magic: &[u8; 8],
        (version, what): (u32, &str),
    ) -> Result<()> {
        let len = self.map.len();
        if len < header {
            return Err(Error::format(
                &self.path,
                format!("at byte {len}: shorter than its header"),
            ));
        }
        if &self.map[..8] != magic {
            return Err(Error::format(
                &self.path,
                format!(
                    "not a fimdup index file (bad magic; expected {})",
                    String::from_utf8_lossy(magic)
                ),
            ));
        }
        let v = self.u32_at(8);
        if v != version {
            return Err(Error::format(
                &self.path,
                format!("{what} version {v}, this fimdup reads version {version}"),
            ));
        }
        Ok(())
    }

    /// The file's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The file's bytes, checked or not (the caller checks what it reads).
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// Its size in bytes.
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    /// The little-endian `u32` at byte `o` (the caller checked it is in the file).
    pub(crate) fn u32_at(&self, o: usize) -> u32 {
        u32::from_le_bytes(self.map[o..o + 4].try_into().expect("4 bytes"))
    }

    /// The little-endian `u64` at byte `o` (the caller checked it is in the file).
    pub(crate) fn u64_at(&self, o: usize) -> u64 {
        u64::from_le_bytes(self.map[o..o + 8].try_into().expect("8 bytes"))
    }

    /// The `n` `u64`s at byte `at` (a multiple of 8), in place: little-endian machines
    /// only (a big-endian one converts with [`MappedFile::u64_at`]).
    pub(crate) fn u64s(&self, at: usize, n: usize) -> &[u64] {
        assert!(cfg!(target_endian = "little") && at.is_multiple_of(8));
        assert!(
            at + 8 * n <= self.map.len(),
            "u64 array beyond the mapped file"
        );
        // SAFETY: in bounds (asserted), 8-aligned (the map is page-aligned, `at` a multiple
        // of 8), little-endian as written, and any bit pattern is a valid u64.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().add(at) as *const u64, n) }
    }

    /// The `n` `u32`s at byte `at` (a multiple of 4), in place, as [`MappedFile::u64s`].
    pub(crate) fn u32s(&self, at: usize, n: usize) -> &[u32] {
        assert!(cfg!(target_endian = "little") && at.is_multiple_of(4));
        assert!(
            at + 4 * n <= self.map.len(),
            "u32 array beyond the mapped file"
        );
        // SAFETY: as `u64s`, 4-aligned.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().add(at) as *const u32, n) }
    }

    /// Checks (once) every block holding a byte of `from .. to`: its checksum, then
    /// `validate(lo, hi)` of its byte range.
    pub(crate) fn ensure(
        &self,
        from: usize,
        to: usize,
        validate: impl Fn(usize, usize) -> Result<()>,
    ) -> Result<()> {
        if from >= to || self.all_checked.load(Ordering::Relaxed) {
            return Ok(());
        }
        for b in from / self.block..=(to - 1) / self.block {
            if !self.checked[b].load(Ordering::Acquire) {
                check_sum(&self.path, &self.map, self.block, &self.sums, b)?;
                let (lo, hi) = self.block_range(b);
                validate(lo, hi)?;
                self.checked[b].store(true, Ordering::Release);
            }
        }
        Ok(())
    }

    /// Checks every block now, reading the file through once with read-ahead, and then
    /// releases its pages ([`MappedFile::release`]): what is used later is mapped again.
    pub(crate) fn check_all(&self, validate: impl Fn(usize, usize) -> Result<()>) -> Result<()> {
        #[cfg(unix)]
        let _ = self.map.advise(memmap2::Advice::Sequential);
        self.ensure(0, self.map.len(), validate)?;
        self.all_checked.store(true, Ordering::Release);
        self.release(0, self.map.len());
        #[cfg(unix)]
        let _ = self.map.advise(memmap2::Advice::Random);
        Ok(())
    }

    /// Drops the pages of bytes `from .. to` from this process's memory: they stay in the
    /// page cache and are mapped again, the same bytes, when next read (a walk through a
    /// file releases what it has passed, so that its resident memory stays small).
    pub(crate) fn release(&self, from: usize, to: usize) {
        #[cfg(unix)]
        if from < to && to <= self.map.len() {
            // SAFETY: a read-only shared mapping of a file never modified in place:
            // MADV_DONTNEED only drops this process's page-table entries, and a later read
            // maps the file's page again; no reference into the map is invalidated.
            let _ = unsafe {
                self.map
                    .unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, from, to - from)
            };
        }
        #[cfg(not(unix))]
        let _ = (from, to);
    }

    /// The byte range of block `b`.
    fn block_range(&self, b: usize) -> (usize, usize) {
        (b * self.block, ((b + 1) * self.block).min(self.map.len()))
    }
}

/// An error unless block `b` of `bytes` has the xxh64 `sums[b]`.
fn check_sum(path: &Path, bytes: &[u8], block: usize, sums: &[u64], b: usize) -> Result<()> {
    let (lo, hi) = (b * block, ((b + 1) * block).min(bytes.len()));
    if xxhash_rust::xxh64::xxh64(&bytes[lo..hi], 0) != sums[b] {
        return Err(Error::format(
            path,
            format!("checksum mismatch in bytes {lo}..{hi} (corrupted or modified file)"),
        ));
    }
    Ok(())
}
