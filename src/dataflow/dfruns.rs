//! A worker's documents' shared elements with their document frequencies ([`DfMsg`]), as
//! they arrive from the elements' owners one pass of the rows stage at a time: each pass's
//! messages are one run, sorted by (document, document frequency, element), held in memory
//! or, under a memory budget, written to a spill file; [`DfRuns::for_each_doc`] merges the
//! runs back into one stream and gives each document's list in the global (df, element)
//! order the prefix filter needs.
//!
//! Invariants: what [`DfRuns::for_each_doc`] gives is exactly what was added, grouped by
//! document (ascending) and sorted within a document, whatever the number of runs and
//! wherever they are held; a run on disk is read with a buffer of its own, so the memory
//! held while merging is one buffer per run and one document's list; the spill files live
//! in a [`SpillDir`], removed when the runs are dropped (after an error too).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::rounds::Wire;
use crate::spill::SpillDir;
use crate::{Error, Result};

/// A shared kept element of a document, with its document frequency, to the document's
/// owner.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub(super) struct DfMsg {
    pub(super) doc: u32,
    pub(super) key: u64,
    pub(super) df: u32,
}

impl DfMsg {
    /// The merge order: by document, then by the global (df, element) order.
    fn order(&self) -> Order {
        (self.doc, self.df, self.key)
    }
}

impl Wire for DfMsg {
    fn wire_bytes(&self) -> u64 {
        16
    }
}

/// A message's place in the merge: (document, df, element).
type Order = (u32, u32, u64);

/// Bytes of a message on disk: document, df (u32 each) and element (u64), little-endian.
const RECORD: usize = 16;

/// Read buffer per run on disk while merging.
const READ_BUFFER: usize = 64 << 10;

/// The runs, in memory or in spill files.
pub(super) enum DfRuns {
    Memory(Vec<Vec<DfMsg>>),
    File {
        dir: SpillDir,
        /// Each run's file and its number of messages.
        runs: Vec<(PathBuf, u64)>,
    },
}

impl DfRuns {
    /// Runs held in memory, or in spill files under `spill_dir`.
    pub(super) fn new(spill_dir: Option<&Path>) -> Result<DfRuns> {
        Ok(match spill_dir {
            None => DfRuns::Memory(Vec::new()),
            Some(parent) => DfRuns::File {
                dir: SpillDir::new_in(parent)?,
                runs: Vec::new(),
            },
        })
    }

    /// Adds one pass's messages as a run.
    pub(super) fn add_run(&mut self, mut run: Vec<DfMsg>) -> Result<()> {
        if run.is_empty() {
            return Ok(());
        }
        run.sort_unstable_by_key(DfMsg::order);
        match self {
            DfRuns::Memory(v) => v.push(run),
            DfRuns::File { dir, runs } => {
                let (path, f) = dir.create_file("dfs")?;
                let mut w = BufWriter::with_capacity(1 << 20, f);
                for m in &run {
                    let mut b = [0u8; RECORD];
                    b[..4].copy_from_slice(&m.doc.to_le_bytes());
                    b[4..8].copy_from_slice(&m.df.to_le_bytes());
                    b[8..].copy_from_slice(&m.key.to_le_bytes());
                    w.write_all(&b).map_err(|e| Error::io(&path, e))?;
                }
                w.flush().map_err(|e| Error::io(&path, e))?;
                runs.push((path, run.len() as u64));
            }
        }
        Ok(())
    }

    /// The number of messages held.
    pub(super) fn len(&self) -> u64 {
        match self {
            DfRuns::Memory(v) => v.iter().map(|r| r.len() as u64).sum(),
            DfRuns::File { runs, .. } => runs.iter().map(|r| r.1).sum(),
        }
    }

    /// Calls `f(doc, list)` for every document in ascending order, with its messages in
    /// the (df, element) order; consumes the runs (their files are removed).
    pub(super) fn for_each_doc(self, mut f: impl FnMut(u32, &[DfMsg]) -> Result<()>) -> Result<()> {
        let sources: Vec<Source> = match self {
            DfRuns::Memory(v) if v.len() == 1 => {
                let run = v.into_iter().next().expect("one run");
                for x in run.chunk_by(|a, b| a.doc == b.doc) {
                    f(x[0].doc, x)?;
                }
                return Ok(());
            }
            DfRuns::Memory(v) => v
                .into_iter()
                .map(|r| Source::Memory(r.into_iter()))
                .collect(),
            DfRuns::File { dir, runs } => {
                let mut open = Vec::with_capacity(runs.len());
                for (path, len) in runs {
                    let file = File::open(&path).map_err(|e| Error::io(&path, e))?;
                    open.push(Source::File {
                        reader: BufReader::with_capacity(READ_BUFFER, file),
                        path,
                        left: len,
                    });
                }
                // The directory and its files go when the merge is over.
                let merged = merge(open, &mut f);
                drop(dir);
                return merged;
            }
        };
        merge(sources, &mut f)
    }
}

/// One run being read.
enum Source {
    Memory(std::vec::IntoIter<DfMsg>),
    File {
        reader: BufReader<File>,
        path: PathBuf,
        left: u64,
    },
}

impl Source {
    fn next(&mut self) -> Result<Option<DfMsg>> {
        match self {
            Source::Memory(it) => Ok(it.next()),
            Source::File { reader, path, left } => {
                if *left == 0 {
                    return Ok(None);
                }
                let mut b = [0u8; RECORD];
                reader
                    .read_exact(&mut b)
                    .map_err(|e| Error::io(&*path, e))?;
                *left -= 1;
                let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4"));
                Ok(Some(DfMsg {
                    doc: u32_at(0),
                    df: u32_at(4),
                    key: u64::from_le_bytes(b[8..].try_into().expect("8")),
                }))
            }
        }
    }
}

/// Merges sorted runs, calling `f` once per document.
fn merge(mut sources: Vec<Source>, f: &mut impl FnMut(u32, &[DfMsg]) -> Result<()>) -> Result<()> {
    let mut heap: BinaryHeap<Reverse<(Order, usize)>> = BinaryHeap::new();
    let mut head: Vec<Option<DfMsg>> = Vec::with_capacity(sources.len());
    for (i, s) in sources.iter_mut().enumerate() {
        let m = s.next()?;
        if let Some(m) = m {
            heap.push(Reverse((m.order(), i)));
        }
        head.push(m);
    }
    let mut doc_list: Vec<DfMsg> = Vec::new();
    while let Some(Reverse((_, i))) = heap.pop() {
        let m = head[i].take().expect("a run in the heap has a head");
        if doc_list.first().is_some_and(|d| d.doc != m.doc) {
            f(doc_list[0].doc, &doc_list)?;
            doc_list.clear();
        }
        doc_list.push(m);
        if let Some(n) = sources[i].next()? {
            heap.push(Reverse((n.order(), i)));
            head[i] = Some(n);
        }
    }
    if let Some(d) = doc_list.first() {
        f(d.doc, &doc_list)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Messages of 40 documents spread over `passes` runs by element, as the rows stage
    /// makes them.
    fn passes(passes: u64) -> Vec<Vec<DfMsg>> {
        let mut out = vec![Vec::new(); passes as usize];
        for doc in (0..40u32).rev() {
            for j in 0..(doc % 9) as u64 {
                let key = (doc as u64 * 7919 + j * 104_729) % 1_000;
                let m = DfMsg {
                    doc,
                    key,
                    df: 2 + (key % 5) as u32,
                };
                out[(key % passes) as usize].push(m);
            }
        }
        out
    }

    /// In memory and on disk, with one run or many, every document's list comes back
    /// whole, in ascending document order, sorted by (df, element); the files are removed.
    #[test]
    fn merges_the_runs_into_each_documents_sorted_list() {
        let tmp = tempfile::tempdir().unwrap();
        let mut want: Vec<DfMsg> = passes(1).concat();
        want.sort_unstable_by_key(DfMsg::order);
        for disk in [false, true] {
            for n in [1, 2, 7] {
                let mut runs = DfRuns::new(disk.then_some(tmp.path())).unwrap();
                for r in passes(n) {
                    runs.add_run(r).unwrap();
                }
                assert_eq!(runs.len(), want.len() as u64);
                let mut got: Vec<DfMsg> = Vec::new();
                let mut docs = Vec::new();
                runs.for_each_doc(|doc, list| {
                    assert!(list.iter().all(|m| m.doc == doc));
                    docs.push(doc);
                    got.extend_from_slice(list);
                    Ok(())
                })
                .unwrap();
                assert_eq!(got, want, "disk {disk}, {n} runs");
                assert!(docs.windows(2).all(|w| w[0] < w[1]), "{docs:?}");
                assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
            }
        }
    }
}
