//! [`Context`]: the inverted context as CSR rows (element key -> ascending DocIds), its
//! accessors, its FIMI form in either [`Orientation`], and restriction to a set of documents.
//!
//! Invariants: rows are in ascending key order, each row's documents ascending; `stats`
//! describes the rows held.

use std::io::Write;
use std::path::Path;

use super::{pair_counts_of_rows, pair_counts_spilled, ContextStats, Orientation};
use crate::fimi::{self, Transactions};
use crate::spill::SpillConfig;
use crate::{DocId, Error, Result};

/// The inverted context: image element -> documents holding it. Rows are stored as one
/// compact [`Transactions`] list (CSR: one `Vec<u32>` of DocIds plus offsets), row `i`
/// ascending.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Context {
    pub(super) n_docs: u32,
    pub(super) keys: Vec<u64>,
    pub(super) rows: Transactions,
    pub(super) stats: ContextStats,
}

impl Context {
    /// Number of documents (columns).
    pub fn n_docs(&self) -> u32 {
        self.n_docs
    }

    /// Bytes the keys and rows have allocated.
    pub fn heap_bytes(&self) -> u64 {
        8 * self.keys.capacity() as u64 + self.rows.heap_bytes()
    }

    /// Number of rows (elements kept).
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when no element was kept.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The element key of row `i`.
    pub fn key(&self, i: usize) -> u64 {
        self.keys[i]
    }

    /// The element keys, ascending.
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// The documents holding the element of row `i`, ascending.
    pub fn row(&self, i: usize) -> &[u32] {
        self.rows.get(i)
    }

    /// All rows, in key order.
    pub fn rows(&self) -> &Transactions {
        &self.rows
    }

    /// What building kept and dropped.
    pub fn stats(&self) -> &ContextStats {
        &self.stats
    }

    /// The row numbers of the elements each document holds (transaction `d` ascending).
    pub fn doc_rows(&self) -> Transactions {
        Transactions::transpose(self.n_docs as usize, self.rows.len(), |i| self.rows.get(i))
    }

    /// The documents holding element `key`, if kept.
    pub fn docs_of(&self, key: u64) -> Option<&[u32]> {
        self.keys.binary_search(&key).ok().map(|i| self.rows.get(i))
    }

    /// The context as transactions in the given orientation.
    pub fn to_transactions(&self, orientation: Orientation) -> Transactions {
        match orientation {
            Orientation::ShingleRows => self.rows.clone(),
            Orientation::DocRows => self.doc_rows(),
        }
    }

    /// Writes the context as a FIMI file (atomically).
    pub fn write_fimi(&self, path: &Path, orientation: Orientation) -> Result<()> {
        let mut f = crate::io::AtomicFile::create(path)?;
        let res = match orientation {
            Orientation::ShingleRows => fimi::write_rows(&mut f, self.rows.iter()),
            Orientation::DocRows => fimi::write_rows(&mut f, self.doc_rows().iter()),
        };
        res.and_then(|()| f.flush())
            .map_err(|e| Error::io(path, e))?;
        f.commit()
    }

    /// Reads a context from a FIMI file in the given orientation. FIMI keeps no element keys:
    /// row `i` (in shingle-rows files, line `i`; in doc-rows files, item `i`) gets key `i`.
    /// `n_docs` is the number of documents if known, else one more than the largest DocId.
    /// Rows are kept as they are (no min/max df filtering); lines must be strictly ascending.
    pub fn read_fimi(path: &Path, orientation: Orientation, n_docs: Option<u32>) -> Result<Self> {
        let t = fimi::read_transactions(
            path,
            fimi::FimiOptions {
                strictly_ascending: true,
            },
        )?;
        let (rows, seen_docs) = match orientation {
            Orientation::ShingleRows => {
                let seen = t.item_bound();
                (t, seen)
            }
            Orientation::DocRows => (
                Transactions::transpose(t.item_bound() as usize, t.len(), |d| t.get(d)),
                t.len() as u64,
            ),
        };
        let n = match n_docs {
            Some(n) if u64::from(n) < seen_docs => {
                return Err(Error::format(
                    path,
                    format!(
                        "holds DocId {} but the corpus has {n} documents",
                        seen_docs - 1
                    ),
                ))
            }
            Some(n) => n,
            None => u32::try_from(seen_docs)
                .map_err(|_| Error::format(path, "more than u32::MAX documents"))?,
        };
        let stats = ContextStats {
            documents: u64::from(n),
            elements: rows.len() as u64,
            dropped_rare: 0,
            dropped_common: 0,
            rows: rows.len() as u64,
            incidences: rows.total_items() as u64,
            max_row: rows.iter().map(|r| r.len() as u64).max().unwrap_or(0),
        };
        Ok(Context {
            n_docs: n,
            keys: (0..rows.len() as u64).collect(),
            rows,
            stats,
        })
    }

    /// Documents that share at least `k` elements, as `(a, b, shared)` with `a < b`, sorted:
    /// the `<id,id,count>` phase of B97 4.1, computed in memory from the rows (see
    /// [`pair_counts_of_rows`]).
    pub fn pair_counts(&self, k: u32) -> Vec<(DocId, DocId, u32)> {
        pair_counts_of_rows(&self.rows, self.n_docs, k)
    }

    /// [`Context::pair_counts`] by sorted `<id,id>` runs spilled under `spill` and merged
    /// ([`pair_counts_spilled`]); the same result.
    pub fn pair_counts_spilled(
        &self,
        k: u32,
        spill: &SpillConfig,
    ) -> Result<Vec<(DocId, DocId, u32)>> {
        pair_counts_spilled(&self.rows, k, spill)
    }

    /// Keeps only the documents for which `keep` is true in every row, dropping rows left
    /// with fewer than two documents (keys and stats other than `rows`, `incidences` and
    /// `max_row` are kept).
    pub fn restrict(&self, keep: &dyn Fn(DocId) -> bool) -> Context {
        let mut keys = Vec::new();
        let mut rows = Transactions::new();
        let mut buf = Vec::new();
        for (i, r) in self.rows.iter().enumerate() {
            buf.clear();
            buf.extend(r.iter().copied().filter(|&d| keep(DocId(d))));
            if buf.len() >= 2 {
                keys.push(self.keys[i]);
                rows.push(&buf);
            }
        }
        let stats = ContextStats {
            rows: rows.len() as u64,
            incidences: rows.total_items() as u64,
            max_row: rows.iter().map(|r| r.len() as u64).max().unwrap_or(0),
            ..self.stats
        };
        Context {
            n_docs: self.n_docs,
            keys,
            rows,
            stats,
        }
    }
}
