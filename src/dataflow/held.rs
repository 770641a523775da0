//! A worker's documents' keys and positional values, held in memory or, under a memory
//! budget, in a spill file: the divided cluster run's largest holding (about 1 KiB a
//! document at 128 image elements), read again in order by each pass of the rows stage and
//! by DocId for the members of a group.
//!
//! Invariants: documents are numbered by the order they were pushed (the worker's DocId
//! order); what is read back is exactly what was pushed, in memory or on disk; the spill
//! file lives in a [`SpillDir`], removed when the store is dropped (after an error too).

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use crate::spill::SpillDir;
use crate::{Error, Result};

/// The keys and values of one document.
pub(super) type Entry = (Vec<u64>, Vec<u64>);

/// Where the documents' keys are held.
pub(super) enum Held {
    Memory(Vec<Entry>),
    File(OnDisk),
}

/// Keys and values written one document after another as little-endian `u64`s.
pub(super) struct OnDisk {
    _dir: SpillDir,
    path: PathBuf,
    writer: Option<BufWriter<File>>,
    file: Option<File>,
    /// Per document: where its keys start, and how many keys and values it has.
    at: Vec<(u64, u32, u32)>,
    end: u64,
}

impl Held {
    /// A store in memory, or in a spill file under `spill_dir`.
    pub(super) fn new(spill_dir: Option<&std::path::Path>) -> Result<Held> {
        Ok(match spill_dir {
            None => Held::Memory(Vec::new()),
            Some(parent) => {
                let mut dir = SpillDir::new_in(parent)?;
                let (path, f) = dir.create_file("keys")?;
                Held::File(OnDisk {
                    _dir: dir,
                    path,
                    writer: Some(BufWriter::with_capacity(1 << 20, f)),
                    file: None,
                    at: Vec::new(),
                    end: 0,
                })
            }
        })
    }

    /// Whether the keys are on disk.
    pub(super) fn on_disk(&self) -> bool {
        matches!(self, Held::File(_))
    }

    /// Adds the next document.
    pub(super) fn push(&mut self, keys: Vec<u64>, values: Vec<u64>) -> Result<()> {
        match self {
            Held::Memory(v) => v.push((keys, values)),
            Held::File(d) => {
                let w = d.writer.as_mut().ok_or_else(|| {
                    Error::Distributed("the documents' keys are already being read".into())
                })?;
                for x in keys.iter().chain(&values) {
                    w.write_all(&x.to_le_bytes())
                        .map_err(|e| Error::io(&d.path, e))?;
                }
                d.at.push((d.end, keys.len() as u32, values.len() as u32));
                d.end += 8 * (keys.len() + values.len()) as u64;
            }
        }
        Ok(())
    }

    /// The number of documents.
    pub(super) fn len(&self) -> usize {
        match self {
            Held::Memory(v) => v.len(),
            Held::File(d) => d.at.len(),
        }
    }

    /// The number of keys of document `i`.
    pub(super) fn keys_len(&self, i: usize) -> usize {
        match self {
            Held::Memory(v) => v[i].0.len(),
            Held::File(d) => d.at[i].1 as usize,
        }
    }

    /// Ends the writing: the file is flushed and opened for reading.
    fn readable(d: &mut OnDisk) -> Result<&File> {
        if let Some(w) = d.writer.take() {
            let f = w
                .into_inner()
                .map_err(|e| Error::io(&d.path, e.into_error()))?;
            f.sync_data().ok();
            drop(f);
            d.file = Some(File::open(&d.path).map_err(|e| Error::io(&d.path, e))?);
        }
        d.file
            .as_ref()
            .ok_or_else(|| Error::Distributed("the documents' keys were not written".into()))
    }

    /// Calls `f(i, keys, values)` for every document in order.
    pub(super) fn for_each(
        &mut self,
        mut f: impl FnMut(usize, &[u64], &[u64]) -> Result<()>,
    ) -> Result<()> {
        match self {
            Held::Memory(v) => {
                for (i, (k, x)) in v.iter().enumerate() {
                    f(i, k, x)?;
                }
            }
            Held::File(d) => {
                Held::readable(d)?;
                // A handle of its own: a clone would share (and move) the file's cursor.
                let file = File::open(&d.path).map_err(|e| Error::io(&d.path, e))?;
                let mut r = BufReader::with_capacity(1 << 20, file);
                let (mut keys, mut values) = (Vec::new(), Vec::new());
                for (i, &(_, nk, nv)) in d.at.iter().enumerate() {
                    read_u64s(&mut r, nk as usize, &mut keys).map_err(|e| Error::io(&d.path, e))?;
                    read_u64s(&mut r, nv as usize, &mut values)
                        .map_err(|e| Error::io(&d.path, e))?;
                    f(i, &keys, &values)?;
                }
            }
        }
        Ok(())
    }

    /// Document `i`'s keys and values, taken out of memory or read from the file.
    pub(super) fn take(&mut self, i: usize) -> Result<Entry> {
        match self {
            Held::Memory(v) => Ok(std::mem::take(&mut v[i])),
            Held::File(_) => self.get(i),
        }
    }

    /// Document `i`'s keys and values, copied from memory or read from the file.
    pub(super) fn get(&mut self, i: usize) -> Result<Entry> {
        match self {
            Held::Memory(v) => Ok(v[i].clone()),
            Held::File(d) => {
                let (at, nk, nv) = d.at[i];
                let path = d.path.clone();
                let file = Held::readable(d)?;
                let mut buf = vec![0u8; 8 * (nk + nv) as usize];
                file.read_exact_at(&mut buf, at)
                    .map_err(|e| Error::io(&path, e))?;
                let mut all: Vec<u64> = buf
                    .chunks_exact(8)
                    .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
                    .collect();
                let values = all.split_off(nk as usize);
                Ok((all, values))
            }
        }
    }
}

/// Reads `n` little-endian `u64`s into `out` (cleared first).
fn read_u64s(r: &mut impl Read, n: usize, out: &mut Vec<u64>) -> std::io::Result<()> {
    out.clear();
    let mut b = [0u8; 8];
    for _ in 0..n {
        r.read_exact(&mut b)?;
        out.push(u64::from_le_bytes(b));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries() -> Vec<Entry> {
        (0..50u64)
            .map(|i| {
                let keys: Vec<u64> = (0..i % 7).map(|j| i * 1000 + j).collect();
                let values: Vec<u64> = (0..i % 3).map(|j| u64::MAX - i - j).collect();
                (keys, values)
            })
            .collect()
    }

    /// In memory and on disk, in order and by index, the store gives back what it was given.
    #[test]
    fn gives_back_what_it_was_given() {
        let tmp = tempfile::tempdir().unwrap();
        for disk in [false, true] {
            let mut h = Held::new(disk.then_some(tmp.path())).unwrap();
            assert_eq!(h.on_disk(), disk);
            for (k, v) in entries() {
                h.push(k, v).unwrap();
            }
            assert_eq!(h.len(), 50);
            let mut seen = Vec::new();
            h.for_each(|i, k, v| {
                seen.push((i, k.to_vec(), v.to_vec()));
                Ok(())
            })
            .unwrap();
            let want = entries();
            for (i, k, v) in &seen {
                assert_eq!((k, v), (&want[*i].0, &want[*i].1));
                assert_eq!(h.keys_len(*i), want[*i].0.len());
            }
            assert_eq!(seen.len(), 50);
            for i in [49, 3, 0, 17] {
                assert_eq!(h.get(i).unwrap(), want[i]);
                assert_eq!(h.take(i).unwrap(), want[i]);
            }
            // A second pass reads the same.
            let mut n = 0;
            h.for_each(|_, _, _| {
                n += 1;
                Ok(())
            })
            .unwrap();
            assert_eq!(n, 50);
        }
        // The spill directory is gone with the stores.
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }
}
