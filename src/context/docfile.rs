//! Documents' records kept in a temporary file in DocId order, read again in order or one
//! document at its place: [`DocFileWriter`] appends each document's record (its keys, then
//! any other values of it, [`DocFileWriter::push_parts`]) as raw little-endian `u64`s (8
//! bytes a value; the per-document lengths stay in memory, 4 bytes a document) and counts
//! the [`KeyStats`] of the keys; the [`DocFile`] it gives is read again in blocks of whole
//! documents on a second thread ([`DocFile::scan`]) or by DocId ([`DocFile::get`]). It is the
//! on-disk form of [`DocKeys`](super::DocKeys). (The key file of a context build is
//! partitioned by key range instead: [`super::KeyFile`].)
//!
//! Invariants: documents are pushed in dense ascending DocId order from `DocId(0)`, and a
//! scan (or a read by DocId) gives every document's record as it was pushed; a file shorter
//! or longer than the records pushed is an error naming it. The file lives in a spill
//! directory of its own, removed with the [`DocFile`] (or the writer, when it is not
//! finished).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::keyfile::{changed, ended, read_full};
use super::radix::read_ahead;
use super::{KeySource, KeyStats};
use crate::spill::SpillDir;
use crate::{DocId, Error, Result};

/// Keys read per block of a scan (8 MiB).
const BLOCK_KEYS: usize = 1 << 20;

/// Writes documents' keys to a [`DocFile`] (see the module docs).
pub struct DocFileWriter {
    dir: SpillDir,
    path: PathBuf,
    out: BufWriter<File>,
    lens: Vec<u32>,
    stats: KeyStats,
    bytes: Vec<u8>,
}

impl DocFileWriter {
    /// Creates the file in a new spill directory under `parent`.
    pub fn create_in(parent: &Path) -> Result<Self> {
        let mut dir = SpillDir::new_in(parent)?;
        let (path, f) = dir.create_file("docs")?;
        Ok(DocFileWriter {
            dir,
            path,
            out: BufWriter::with_capacity(1 << 20, f),
            lens: Vec::new(),
            stats: KeyStats::default(),
            bytes: Vec::new(),
        })
    }

    /// Appends the keys of `doc`, which must be the next DocId.
    pub fn push(&mut self, doc: DocId, keys: &[u64]) -> Result<()> {
        self.push_parts(doc, &[keys])
    }

    /// Appends `doc`'s record, the concatenation of `parts` (e.g. its keys, then other
    /// values of it, as [`DocKeys`](super::DocKeys) does); the statistics count the first
    /// part only. `doc` must be the next DocId.
    pub fn push_parts(&mut self, doc: DocId, parts: &[&[u64]]) -> Result<()> {
        if doc.0 as usize != self.lens.len() {
            return Err(Error::config(format!(
                "{}: document {} pushed where document {} was expected",
                self.path.display(),
                doc.0,
                self.lens.len()
            )));
        }
        let len: usize = parts.iter().map(|p| p.len()).sum();
        let n = u32::try_from(len)
            .map_err(|_| Error::config(format!("document {}: more than 2^32 keys", doc.0)))?;
        self.stats
            .add(doc, parts.first().copied().unwrap_or_default());
        self.lens.push(n);
        self.bytes.clear();
        self.bytes.reserve(8 * len);
        for &k in parts.iter().copied().flatten() {
            self.bytes.extend_from_slice(&k.to_le_bytes());
        }
        self.out
            .write_all(&self.bytes)
            .map_err(|e| Error::io(&self.path, e))
    }

    /// Documents pushed so far.
    pub fn len(&self) -> usize {
        self.lens.len()
    }

    /// Whether no document was pushed.
    pub fn is_empty(&self) -> bool {
        self.lens.is_empty()
    }

    /// Flushes the file and gives it as a key source.
    pub fn finish(self) -> Result<DocFile> {
        let DocFileWriter {
            dir,
            path,
            out,
            lens,
            stats,
            ..
        } = self;
        out.into_inner()
            .map_err(|e| Error::io(&path, e.into_error()))?;
        Ok(DocFile {
            _dir: dir,
            path,
            lens,
            stats,
            random: None,
        })
    }
}

/// The keys of every document in a temporary file, read again on every scan (see the
/// module docs).
#[derive(Debug)]
pub struct DocFile {
    /// Removed, with the file, when the key file is dropped.
    _dir: SpillDir,
    path: PathBuf,
    lens: Vec<u32>,
    stats: KeyStats,
    /// For reads by DocId ([`DocFile::get`]), made at the first: the file and where each
    /// document's keys start.
    random: Option<(File, Vec<u64>)>,
}

impl DocFile {
    /// Document `d`'s keys, read at their place in the file.
    pub fn get(&mut self, d: DocId) -> Result<Vec<u64>> {
        let path = &self.path;
        if self.random.is_none() {
            let file = File::open(path).map_err(|e| Error::io(path, e))?;
            let mut starts = Vec::with_capacity(self.lens.len());
            let mut at = 0u64;
            for &n in &self.lens {
                starts.push(at);
                at += 8 * u64::from(n);
            }
            self.random = Some((file, starts));
        }
        let (file, starts) = self.random.as_ref().expect("made above");
        let i = d.index();
        let mut buf = vec![0u8; 8 * self.lens[i] as usize];
        file.read_exact_at(&mut buf, starts[i])
            .map_err(|e| Error::io(path, e))?;
        Ok(buf
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
            .collect())
    }

    /// The statistics of the keys (a first scan's, counted while they were written).
    pub fn stats(&self) -> &KeyStats {
        &self.stats
    }

    /// The number of keys of each document, in DocId order.
    pub fn lens(&self) -> &[u32] {
        &self.lens
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl KeySource for DocFile {
    fn rescans_cheaply(&self) -> bool {
        true
    }

    /// Reads the file on a second thread (`read_ahead`), in blocks of whole documents of
    /// at most `BLOCK_KEYS` keys (one document at least), so that reading overlaps what
    /// `f` does with the keys.
    fn scan(&mut self, f: &mut dyn FnMut(DocId, &[u64]) -> Result<()>) -> Result<()> {
        let (lens, path) = (&self.lens, &self.path);
        type Block = (std::ops::Range<usize>, Vec<u64>);
        read_ahead(
            |fresh: &mut dyn FnMut() -> Block, send: &mut dyn FnMut(Block) -> bool| {
                read_blocks(path, lens, || fresh().1, |docs, keys| send((docs, keys)))
            },
            |(docs, keys): &Block| {
                let mut at = 0usize;
                for (d, &n) in docs.clone().zip(&lens[docs.clone()]) {
                    f(DocId(d as u32), &keys[at..at + n as usize])?;
                    at += n as usize;
                }
                Ok(())
            },
        )
    }
}

/// One past the last document of the block that starts at document `d` (see
/// [`read_blocks`]).
fn block_end(lens: &[u32], d: usize) -> usize {
    let (mut e, mut n) = (d, 0usize);
    while e < lens.len() && (e == d || n + lens[e] as usize <= BLOCK_KEYS) {
        n += lens[e] as usize;
        e += 1;
    }
    e
}

/// Reads the key file `path` of documents with `lens` keys each in blocks of whole
/// documents ([`block_end`]), each into a vector from `fresh`, and hands `emit` the block's
/// documents and their keys; `emit` returns false to stop. A file shorter or longer than
/// the keys is an error.
fn read_blocks(
    path: &Path,
    lens: &[u32],
    mut fresh: impl FnMut() -> Vec<u64>,
    mut emit: impl FnMut(std::ops::Range<usize>, Vec<u64>) -> bool,
) -> Result<()> {
    let changed = |what: &str| changed(path, what);
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut bytes: Vec<u8> = Vec::new();
    let mut d = 0usize;
    while d < lens.len() {
        let e = block_end(lens, d);
        let n: usize = lens[d..e].iter().map(|&l| l as usize).sum();
        bytes.resize(8 * n, 0);
        if read_full(&mut file, &mut bytes, path)? < bytes.len() {
            return Err(changed("shorter"));
        }
        let mut keys = fresh();
        keys.clear();
        keys.extend(
            bytes
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8]))),
        );
        if !emit(d..e, keys) {
            return Ok(());
        }
        d = e;
    }
    ended(&mut file, path)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs() -> Vec<Vec<u64>> {
        crate::context::keyfile::sample_docs(BLOCK_KEYS)
    }

    fn written(parent: &Path, docs: &[Vec<u64>]) -> DocFile {
        let mut w = DocFileWriter::create_in(parent).unwrap();
        for (d, ks) in docs.iter().enumerate() {
            w.push(DocId(d as u32), ks).unwrap();
        }
        assert_eq!(w.len(), docs.len());
        w.finish().unwrap()
    }

    /// Every scan gives back the keys pushed, with the statistics a scan counts.
    #[test]
    fn scans_give_back_the_keys_pushed() {
        let tmp = tempfile::tempdir().unwrap();
        let docs = docs();
        let mut kf = written(tmp.path(), &docs);
        let mut want = KeyStats::default();
        for (d, ks) in docs.iter().enumerate() {
            want.add(DocId(d as u32), ks);
        }
        assert_eq!(kf.stats(), &want);
        assert_eq!(kf.lens().len(), docs.len());
        for _ in 0..2 {
            let mut got: Vec<(DocId, Vec<u64>)> = Vec::new();
            kf.scan(&mut |d, ks| {
                got.push((d, ks.to_vec()));
                Ok(())
            })
            .unwrap();
            let expect: Vec<(DocId, Vec<u64>)> = (docs.iter().enumerate())
                .map(|(d, ks)| (DocId(d as u32), ks.clone()))
                .collect();
            assert!(got == expect, "a scan differs from the keys pushed");
        }
    }

    /// A file cut short or grown is an error naming it; so is a document out of order.
    #[test]
    fn a_changed_file_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let docs = docs();
        let mut kf = written(tmp.path(), &docs);
        let path = kf.path().to_path_buf();
        let mut w = DocFileWriter::create_in(tmp.path()).unwrap();
        let f = super::super::keyfile::check_changed_file(&mut kf, &path, 8, "docs-", || {
            w.push(DocId(0), &[1])?;
            w.push(DocId(2), &[1])
        });
        // The file and its directory go with the document file, finished or not.
        drop((w, f, kf));
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }
}
