//! [`DocKeys`]: a part's documents' keys (and positional values), held in memory or, under
//! a memory budget, in a [`DocFile`](super::DocFile) (each document's record its keys then its values):
//! read again in order ([`DocKeys::for_each`]) and by index ([`DocKeys::get`],
//! [`DocKeys::take`]). The divided run's workers hold their documents' keys, the exact
//! join's full sets and the prefix filter's lists in one.
//!
//! Invariants: documents are numbered by the order they were pushed; what is read back is
//! exactly what was pushed, in memory or on disk; pushing ends when reading starts; the
//! file lives in a spill directory removed with the store (after an error too).

use std::path::Path;

use super::{DocFile, DocFileWriter, KeySource};
use crate::{DocId, Error, Result};

/// The keys and values of one document.
pub type Entry = (Vec<u64>, Vec<u64>);

/// Documents' keys and values, in memory or in a key file (see the module docs).
pub enum DocKeys {
    /// Every document's keys and values.
    Memory(Vec<Entry>),
    /// The records in a key file.
    File(Box<OnDisk>),
}

/// The records in a key file, with each document's number of keys.
pub struct OnDisk {
    /// The file being written (until the first read).
    writer: Option<DocFileWriter>,
    /// The file being read (from the first read).
    file: Option<DocFile>,
    /// Keys per document (its values are the rest of its record).
    keys: Vec<u32>,
}

impl DocKeys {
    /// A store in memory, or in a key file under `spill_dir`.
    pub fn new(spill_dir: Option<&Path>) -> Result<DocKeys> {
        Ok(match spill_dir {
            None => DocKeys::Memory(Vec::new()),
            Some(parent) => DocKeys::File(Box::new(OnDisk {
                writer: Some(DocFileWriter::create_in(parent)?),
                file: None,
                keys: Vec::new(),
            })),
        })
    }

    /// Whether the keys are on disk.
    pub fn on_disk(&self) -> bool {
        matches!(self, DocKeys::File(_))
    }

    /// Adds the next document.
    pub fn push(&mut self, keys: Vec<u64>, values: Vec<u64>) -> Result<()> {
        match self {
            DocKeys::Memory(v) => v.push((keys, values)),
            DocKeys::File(d) => {
                let OnDisk {
                    writer, keys: nk, ..
                } = &mut **d;
                let w = writer
                    .as_mut()
                    .ok_or_else(|| Error::config("the documents' keys are already being read"))?;
                w.push_parts(DocId(nk.len() as u32), &[&keys, &values])?;
                nk.push(keys.len() as u32);
            }
        }
        Ok(())
    }

    /// The number of documents.
    pub fn len(&self) -> usize {
        match self {
            DocKeys::Memory(v) => v.len(),
            DocKeys::File(d) => d.keys.len(),
        }
    }

    /// Whether no document was pushed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of keys of document `i`.
    pub fn keys_len(&self, i: usize) -> usize {
        match self {
            DocKeys::Memory(v) => v[i].0.len(),
            DocKeys::File(d) => d.keys[i] as usize,
        }
    }

    /// The key file, its writing ended at the first read.
    fn readable<'a>(
        writer: &mut Option<DocFileWriter>,
        file: &'a mut Option<DocFile>,
    ) -> Result<&'a mut DocFile> {
        if let Some(w) = writer.take() {
            *file = Some(w.finish()?);
        }
        file.as_mut()
            .ok_or_else(|| Error::config("the documents' keys were not written"))
    }

    /// Calls `f(i, keys, values)` for every document in order.
    pub fn for_each(
        &mut self,
        mut f: impl FnMut(usize, &[u64], &[u64]) -> Result<()>,
    ) -> Result<()> {
        match self {
            DocKeys::Memory(v) => {
                for (i, (k, x)) in v.iter().enumerate() {
                    f(i, k, x)?;
                }
                Ok(())
            }
            DocKeys::File(d) => {
                let OnDisk { writer, file, keys } = &mut **d;
                let file = DocKeys::readable(writer, file)?;
                file.scan(&mut |d, all| {
                    let (k, x) = all.split_at(keys[d.index()] as usize);
                    f(d.index(), k, x)
                })
            }
        }
    }

    /// Document `i`'s keys and values, taken out of memory or read from the file.
    pub fn take(&mut self, i: usize) -> Result<Entry> {
        match self {
            DocKeys::Memory(v) => Ok(std::mem::take(&mut v[i])),
            DocKeys::File(_) => self.get(i),
        }
    }

    /// Document `i`'s keys and values, copied from memory or read from the file.
    pub fn get(&mut self, i: usize) -> Result<Entry> {
        match self {
            DocKeys::Memory(v) => Ok(v[i].clone()),
            DocKeys::File(d) => {
                let OnDisk { writer, file, keys } = &mut **d;
                let mut all = DocKeys::readable(writer, file)?.get(DocId(i as u32))?;
                let values = all.split_off(keys[i] as usize);
                Ok((all, values))
            }
        }
    }
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
            let mut h = DocKeys::new(disk.then_some(tmp.path())).unwrap();
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
            // A second pass reads the same; no document is pushed after the reading began.
            let mut n = 0;
            h.for_each(|_, _, _| {
                n += 1;
                Ok(())
            })
            .unwrap();
            assert_eq!(n, 50);
            if disk {
                assert!(h.push(vec![1], Vec::new()).is_err());
            }
        }
        // The spill directory is gone with the stores.
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }
}
