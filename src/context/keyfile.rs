//! Element keys kept in temporary files while a corpus is sketched, for a context built
//! in passes without holding the images. The keys are partitioned by key range as they are
//! written: [`KeyFileWriter`] appends each `(key, document)` incidence to the partition of
//! the key's top [`crate::plan::KEY_PARTITION_BITS`] bits, as a little-endian `u64` key and
//! `u32` document (12 bytes), and counts each partition's incidences, the documents' key
//! counts (4 bytes a document, in memory) and the [`KeyStats`]. The [`KeyFile`] it gives is
//! a [`KeySource`]: a scan of a key range reads only the partitions that overlap it, each
//! once, on a second thread (reading overlaps the build). A context built in passes over
//! key ranges thus reads the keys about once in all, instead of once a pass. Unlike an
//! images file it holds no ids, no image and no checksum: it lives in a spill directory of
//! its own, removed with the [`KeyFile`] (or the writer, when it is not finished).
//!
//! Invariants: documents are pushed in dense ascending DocId order from `DocId(0)`; a
//! document's repeated keys are written once; a scan gives, partition after partition in
//! key order, each document's keys of that partition in DocId order (so the documents of
//! one key come in ascending order), and every incidence of the scanned range exactly
//! once; a partition shorter or longer than the incidences written to it is an error
//! naming it, never a wrong context.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use super::radix::read_ahead;
use super::{KeySource, KeyStats};
use crate::plan::{KEY_PARTITION_BITS, KEY_PARTITION_BUFFER_BYTES};
use crate::spill::SpillDir;
use crate::{DocId, Error, Result};

/// Incidences read per block of a scan (12 MiB).
const BLOCK_RECORDS: usize = 1 << 20;

/// Bytes of one incidence on disk: the key and the document.
const RECORD: usize = 12;

/// The partition of `key`: its top [`KEY_PARTITION_BITS`] bits.
fn partition_of(key: u64) -> usize {
    (key >> (64 - KEY_PARTITION_BITS)) as usize
}

/// One partition being written.
struct Part {
    path: PathBuf,
    out: BufWriter<File>,
}

/// Writes documents' keys to a [`KeyFile`] (see the module docs).
pub struct KeyFileWriter {
    dir: SpillDir,
    parts: Vec<Option<Part>>,
    counts: Vec<u64>,
    lens: Vec<u32>,
    stats: KeyStats,
    distinct: Vec<u64>,
    record: [u8; RECORD],
}

impl KeyFileWriter {
    /// Creates the partitions in a new spill directory under `parent` (each file when its
    /// first key comes).
    pub fn create_in(parent: &Path) -> Result<Self> {
        let n = 1usize << KEY_PARTITION_BITS;
        Ok(KeyFileWriter {
            dir: SpillDir::new_in(parent)?,
            parts: (0..n).map(|_| None).collect(),
            counts: vec![0; n],
            lens: Vec::new(),
            stats: KeyStats::default(),
            distinct: Vec::new(),
            record: [0; RECORD],
        })
    }

    /// Appends the keys of `doc`, which must be the next DocId.
    pub fn push(&mut self, doc: DocId, keys: &[u64]) -> Result<()> {
        if doc.0 as usize != self.lens.len() {
            return Err(Error::config(format!(
                "{}: document {} pushed where document {} was expected",
                self.dir.path().display(),
                doc.0,
                self.lens.len()
            )));
        }
        let n = u32::try_from(keys.len())
            .map_err(|_| Error::config(format!("document {}: more than 2^32 keys", doc.0)))?;
        self.lens.push(n);
        self.distinct.clear();
        self.distinct.extend_from_slice(keys);
        self.distinct.sort_unstable();
        self.distinct.dedup();
        self.stats.add(doc, &self.distinct);
        self.record[8..].copy_from_slice(&doc.0.to_le_bytes());
        for &k in &self.distinct {
            let p = partition_of(k);
            self.record[..8].copy_from_slice(&k.to_le_bytes());
            let part = match &mut self.parts[p] {
                Some(part) => part,
                slot => {
                    let (path, f) = self.dir.create_file(&format!("keys-{p:03}"))?;
                    let out = BufWriter::with_capacity(KEY_PARTITION_BUFFER_BYTES, f);
                    slot.insert(Part { path, out })
                }
            };
            part.out
                .write_all(&self.record)
                .map_err(|e| Error::io(&part.path, e))?;
            self.counts[p] += 1;
        }
        Ok(())
    }

    /// Documents pushed so far.
    pub fn len(&self) -> usize {
        self.lens.len()
    }

    /// Whether no document was pushed.
    pub fn is_empty(&self) -> bool {
        self.lens.is_empty()
    }

    /// Flushes the partitions and gives them as a key source.
    pub fn finish(self) -> Result<KeyFile> {
        let KeyFileWriter {
            dir,
            parts,
            counts,
            lens,
            stats,
            ..
        } = self;
        let mut paths = Vec::with_capacity(parts.len());
        for part in parts {
            paths.push(match part {
                Some(Part { path, out }) => {
                    out.into_inner()
                        .map_err(|e| Error::io(&path, e.into_error()))?;
                    Some(path)
                }
                None => None,
            });
        }
        Ok(KeyFile {
            _dir: dir,
            paths,
            counts,
            lens,
            stats,
        })
    }
}

/// The keys of every document in temporary partitions by key range, read again on every
/// scan (see the module docs).
#[derive(Debug)]
pub struct KeyFile {
    /// Removed, with the partitions, when the key file is dropped.
    _dir: SpillDir,
    /// Each partition's file (`None`: no key there).
    paths: Vec<Option<PathBuf>>,
    /// Each partition's incidences.
    counts: Vec<u64>,
    lens: Vec<u32>,
    stats: KeyStats,
}

impl KeyFile {
    /// The statistics of the keys (a first scan's, counted while they were written; a
    /// document's repeated keys count once).
    pub fn stats(&self) -> &KeyStats {
        &self.stats
    }

    /// The number of keys of each document, in DocId order, as pushed.
    pub fn lens(&self) -> &[u32] {
        &self.lens
    }

    /// The partitions' files, in key order.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.paths.iter().flatten().map(|p| p.as_path())
    }
}

impl KeySource for KeyFile {
    fn rescans_cheaply(&self) -> bool {
        true
    }

    fn partitioned(&self) -> bool {
        true
    }

    fn scan(&mut self, f: &mut dyn FnMut(DocId, &[u64]) -> Result<()>) -> Result<()> {
        self.scan_range(0, u64::MAX, f)
    }

    /// Reads the partitions that overlap `lo..=hi` on a second thread (`read_ahead`), in
    /// blocks of at most `BLOCK_RECORDS` incidences, and gives `f` each run of one
    /// document's keys of a block.
    fn scan_range(
        &mut self,
        lo: u64,
        hi: u64,
        f: &mut dyn FnMut(DocId, &[u64]) -> Result<()>,
    ) -> Result<()> {
        let parts: Vec<(&Path, u64)> = (partition_of(lo)..=partition_of(hi))
            .filter_map(|p| self.paths[p].as_deref().map(|path| (path, self.counts[p])))
            .collect();
        type Block = (Vec<u64>, Vec<u32>);
        read_ahead(
            |fresh: &mut dyn FnMut() -> Block, send: &mut dyn FnMut(Block) -> bool| {
                for &(path, count) in &parts {
                    if !read_blocks(path, count, &mut *fresh, &mut *send)? {
                        break;
                    }
                }
                Ok(())
            },
            |(keys, docs): &Block| {
                let mut at = 0usize;
                while at < docs.len() {
                    let d = docs[at];
                    let mut e = at + 1;
                    while e < docs.len() && docs[e] == d {
                        e += 1;
                    }
                    f(DocId(d), &keys[at..e])?;
                    at = e;
                }
                Ok(())
            },
        )
    }
}

/// Reads the partition `path` of `count` incidences in blocks of at most
/// `BLOCK_RECORDS`, each into vectors from `fresh`, and hands each to `emit`; false when
/// `emit` asked to stop. A file shorter or longer than `count` incidences is an error.
fn read_blocks(
    path: &Path,
    count: u64,
    fresh: &mut dyn FnMut() -> (Vec<u64>, Vec<u32>),
    emit: &mut dyn FnMut((Vec<u64>, Vec<u32>)) -> bool,
) -> Result<bool> {
    let changed = |what: &str| changed(path, what);
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut bytes: Vec<u8> = Vec::new();
    let mut left = count;
    while left > 0 {
        let n = left.min(BLOCK_RECORDS as u64) as usize;
        bytes.resize(RECORD * n, 0);
        if read_full(&mut file, &mut bytes, path)? < bytes.len() {
            return Err(changed("shorter"));
        }
        let (mut keys, mut docs) = fresh();
        keys.clear();
        docs.clear();
        for r in bytes.chunks_exact(RECORD) {
            let (k, d) = r.split_at(8);
            keys.push(u64::from_le_bytes(k.try_into().unwrap_or([0; 8])));
            docs.push(u32::from_le_bytes(d.try_into().unwrap_or([0; 4])));
        }
        if !emit((keys, docs)) {
            return Ok(false);
        }
        left -= n as u64;
    }
    ended(&mut file, path)?;
    Ok(true)
}

/// The error of a file of keys found `what` ("shorter", "longer") than what was written.
pub(super) fn changed(path: &Path, what: &str) -> Error {
    Error::format(
        path,
        format!("{what} than the keys written to it (changed while it was read)"),
    )
}

/// An error unless `file` is at its end (nothing was added after what was written).
pub(super) fn ended(file: &mut File, path: &Path) -> Result<()> {
    let mut extra = [0u8; 1];
    if read_full(file, &mut extra, path)? != 0 {
        return Err(changed(path, "longer"));
    }
    Ok(())
}

/// Reads until `buf` is full or the file ends; the bytes read.
pub(super) fn read_full(file: &mut File, buf: &mut [u8], path: &Path) -> Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(path, e)),
        }
    }
    Ok(got)
}

/// Documents of every size around a block of `block` keys, empty ones, and extreme keys
/// (for the tests of the key and document files).
#[cfg(test)]
pub(super) fn sample_docs(block: usize) -> Vec<Vec<u64>> {
    let mut v: Vec<Vec<u64>> = Vec::new();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for (i, n) in [0usize, 3, 128, 0, block - 1, 2, block + 5, 1, 0, 77]
        .into_iter()
        .enumerate()
    {
        let mut d = Vec::with_capacity(n);
        for _ in 0..n {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            d.push(x);
        }
        if i == 1 {
            d = vec![0, u64::MAX, 1];
        }
        v.push(d);
    }
    v
}

/// Checks that a scan of `src`, whose file `path` holds records of `record` bytes (named
/// `prefix`...), reports the file cut short or grown, and ends with the error of a
/// consumer that stops early; and that `out_of_order` (a writer given document 2 after
/// document 0) fails naming both. Gives the file back at its length, open for writing.
#[cfg(test)]
pub(super) fn check_changed_file(
    src: &mut dyn KeySource,
    path: &Path,
    record: u64,
    prefix: &str,
    out_of_order: impl FnOnce() -> Result<()>,
) -> File {
    let len = std::fs::metadata(path).unwrap().len();
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.set_len(len - record).unwrap();
    let e = src.scan(&mut |_, _| Ok(())).unwrap_err().to_string();
    assert!(
        e.contains(prefix) && e.contains("shorter than the keys"),
        "{e}"
    );
    f.set_len(len + record).unwrap();
    let e = src.scan(&mut |_, _| Ok(())).unwrap_err().to_string();
    assert!(e.contains("longer than the keys"), "{e}");
    // A consumer that stops early ends the scan with its error (the reader, blocked on a
    // full channel, is released).
    f.set_len(len).unwrap();
    let mut seen = 0;
    let e = src
        .scan(&mut |_, _| {
            seen += 1;
            if seen == 2 {
                return Err(Error::config("stop here"));
            }
            Ok(())
        })
        .unwrap_err();
    assert!(e.to_string().ends_with("stop here"), "{e}");
    let e = out_of_order().unwrap_err().to_string();
    assert!(
        e.contains("document 2 pushed where document 1 was expected"),
        "{e}"
    );
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs() -> Vec<Vec<u64>> {
        sample_docs(BLOCK_RECORDS)
    }

    fn written(parent: &Path, docs: &[Vec<u64>]) -> KeyFile {
        let mut w = KeyFileWriter::create_in(parent).unwrap();
        for (d, ks) in docs.iter().enumerate() {
            w.push(DocId(d as u32), ks).unwrap();
        }
        assert_eq!(w.len(), docs.len());
        w.finish().unwrap()
    }

    /// The incidences `(doc, key)` of `docs`, a document's repeated keys once, in the
    /// order a partitioned scan gives them: by partition, then document, then key.
    fn incidences(docs: &[Vec<u64>], lo: u64, hi: u64) -> Vec<(u32, u64)> {
        let mut v: Vec<(usize, u32, u64)> = Vec::new();
        for (d, ks) in docs.iter().enumerate() {
            let mut ks = ks.clone();
            ks.sort_unstable();
            ks.dedup();
            for k in ks {
                if (partition_of(lo)..=partition_of(hi)).contains(&partition_of(k)) {
                    v.push((partition_of(k), d as u32, k));
                }
            }
        }
        v.sort_unstable();
        v.into_iter().map(|(_, d, k)| (d, k)).collect()
    }

    fn scanned(kf: &mut KeyFile, lo: u64, hi: u64) -> Vec<(u32, u64)> {
        let mut got = Vec::new();
        kf.scan_range(lo, hi, &mut |d, ks| {
            got.extend(ks.iter().map(|&k| (d.0, k)));
            Ok(())
        })
        .unwrap();
        got
    }

    /// Every scan gives back the keys pushed, a range's scan those of its partitions,
    /// with the statistics a scan counts.
    #[test]
    fn scans_give_back_the_keys_pushed() {
        let tmp = tempfile::tempdir().unwrap();
        let mut docs = docs();
        let first = docs[2][0];
        docs[2].extend([5, 5, first]);
        let mut kf = written(tmp.path(), &docs);
        let mut want = KeyStats::default();
        for (d, ks) in docs.iter().enumerate() {
            let mut ks = ks.clone();
            ks.sort_unstable();
            ks.dedup();
            want.add(DocId(d as u32), &ks);
        }
        assert_eq!(kf.stats(), &want);
        let lens: Vec<u32> = docs.iter().map(|d| d.len() as u32).collect();
        assert_eq!(kf.lens(), &lens[..]);
        for (lo, hi) in [
            (0, u64::MAX),
            (0, 0),
            (1 << 60, 3 << 60),
            (u64::MAX, u64::MAX),
        ] {
            for _ in 0..2 {
                let got = scanned(&mut kf, lo, hi);
                assert!(
                    got == incidences(&docs, lo, hi),
                    "the scan of {lo}..={hi} differs"
                );
            }
        }
    }

    /// A partition cut short or grown is an error naming it; so is a document out of order.
    #[test]
    fn a_changed_file_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let docs = docs();
        let mut kf = written(tmp.path(), &docs);
        let path = kf.paths().next().unwrap().to_path_buf();
        let mut w = KeyFileWriter::create_in(tmp.path()).unwrap();
        let f = check_changed_file(&mut kf, &path, 12, "keys-", || {
            w.push(DocId(0), &[1])?;
            w.push(DocId(2), &[1])
        });
        // The files and their directory go with the key file, finished or not.
        drop((w, f, kf));
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }
}
