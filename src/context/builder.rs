//! [`ContextBuilder`]: the context from `(key, DocId)` incidences streamed in, sorted under a
//! memory budget by an [`ExternalSorter`] (sorted runs spilled to disk when over it), and
//! [`RowGrouper`], which turns incidences sorted by `(key, doc)` into rows (the radix builds
//! in `radix.rs` group their buckets with it too).
//!
//! Invariants: the result depends neither on the order of the incidences nor on whether
//! they spilled; rows come out in ascending key order, each holding its documents ascending
//! and once; rows outside `min_df..=max_df` are dropped and counted.

use super::spilled::RowsWriter;
use super::{Context, ContextConfig, ContextStats, RowFate};
use crate::fimi::Transactions;
use crate::spill::{ExternalSorter, SpillConfig};
use crate::{DocId, Error, Result};

/// Builds a [`Context`] from `(key, DocId)` incidences streamed in, in any order: they are
/// sorted under a memory budget (spilled as sorted runs when over it, see [`crate::spill`])
/// and grouped by key. The result does not depend on the order of the incidences nor on
/// whether they spilled.
pub struct ContextBuilder {
    cfg: ContextConfig,
    sorter: ExternalSorter<[u32; 3]>,
    n_docs: u64,
}

/// `n` documents as a `u32` count (DocIds are `u32`).
pub(super) fn doc_count(n: u64) -> Result<u32> {
    u32::try_from(n).map_err(|_| Error::config("more than u32::MAX documents"))
}

/// The sort record of one incidence: the key's high and low halves, then the document (so
/// records sort by `(key, doc)`).
pub(super) fn rec(key: u64, doc: u32) -> [u32; 3] {
    [(key >> 32) as u32, key as u32, doc]
}

impl ContextBuilder {
    /// A builder keeping rows as `cfg` says, spilling under `spill`.
    pub fn new(cfg: &ContextConfig, spill: &SpillConfig) -> Result<Self> {
        cfg.validate()?;
        spill.validate()?;
        Ok(ContextBuilder {
            cfg: *cfg,
            sorter: ExternalSorter::new(spill, "context"),
            n_docs: 0,
        })
    }

    /// Records that documents `0..n` exist (documents with no element still count).
    pub fn ensure_docs(&mut self, n: u64) {
        self.n_docs = self.n_docs.max(n);
    }

    /// Adds one incidence: document `doc` holds element `key`.
    pub fn push(&mut self, key: u64, doc: DocId) -> Result<()> {
        self.ensure_docs(u64::from(doc.0) + 1);
        self.sorter.push(rec(key, doc.0))
    }

    /// Adds every key of document `doc` (duplicates are ignored).
    pub fn push_doc(&mut self, doc: DocId, keys: &[u64]) -> Result<()> {
        self.ensure_docs(u64::from(doc.0) + 1);
        for &k in keys {
            self.sorter.push(rec(k, doc.0))?;
        }
        Ok(())
    }

    /// Sorted runs spilled so far.
    pub fn runs(&self) -> usize {
        self.sorter.runs()
    }

    /// Groups the incidences into rows.
    pub fn finish(self) -> Result<Context> {
        self.finish_filtered(&|_| true)
    }

    /// Groups the incidences into rows, keeping only the documents for which `keep` is true
    /// (as if the others had no element); `min_df` / `max_df` count kept documents only.
    pub fn finish_filtered(self, keep: &dyn Fn(DocId) -> bool) -> Result<Context> {
        let n_docs = doc_count(self.n_docs)?;
        let mut g = RowGrouper::default();
        g.group(&self.cfg, self.sorter.finish()?, keep)?;
        Ok(g.into_context(n_docs))
    }
}

/// Rows being collected from incidences sorted by `(key, doc)`: the kept keys and rows, and
/// what was kept and dropped (the `documents` and `rows` counts are set at the end).
#[derive(Default)]
pub(super) struct RowGrouper {
    keys: Vec<u64>,
    rows: Transactions,
    stats: ContextStats,
    /// The incidences of one key may come in any document order: sort each row.
    sort_docs: bool,
}

impl RowGrouper {
    /// An empty grouper; with `sort_docs`, the incidences of one key may come in any
    /// document order (each row is sorted and deduplicated when closed).
    pub(super) fn new(sort_docs: bool) -> Self {
        RowGrouper {
            sort_docs,
            ..RowGrouper::default()
        }
    }

    /// Groups `sorted` into rows, dropping documents for which `keep` is false, repeated
    /// incidences and the rows that `cfg` rejects. A key must not continue from one call
    /// to the next.
    pub(super) fn group(
        &mut self,
        cfg: &ContextConfig,
        sorted: impl Iterator<Item = Result<[u32; 3]>>,
        keep: &dyn Fn(DocId) -> bool,
    ) -> Result<()> {
        let mut cur_key: Option<u64> = None;
        let mut run: Vec<u32> = Vec::new();
        let sort_docs = self.sort_docs;
        let mut close = |key: u64, run: &mut Vec<u32>| {
            if run.is_empty() {
                return;
            }
            if sort_docs {
                run.sort_unstable();
                run.dedup();
            }
            let st = &mut self.stats;
            st.elements += 1;
            match cfg.row_fate(run.len()) {
                RowFate::Rare => st.dropped_rare += 1,
                RowFate::Common => st.dropped_common += 1,
                RowFate::Kept => {
                    self.keys.push(key);
                    self.rows.push(run);
                    st.max_row = st.max_row.max(run.len() as u64);
                    st.incidences += run.len() as u64;
                }
            }
            run.clear();
        };
        for r in sorted {
            let [hi, lo, doc] = r?;
            let key = (u64::from(hi) << 32) | u64::from(lo);
            if cur_key != Some(key) {
                if let Some(k) = cur_key {
                    close(k, &mut run);
                }
                cur_key = Some(key);
            }
            if run.last() != Some(&doc) && keep(DocId(doc)) {
                run.push(doc);
            }
        }
        if let Some(k) = cur_key {
            close(k, &mut run);
        }
        Ok(())
    }

    /// Appends the rows of `other`, whose keys all follow this one's.
    pub(super) fn append(&mut self, other: RowGrouper) {
        self.keys.extend_from_slice(&other.keys);
        for r in other.rows.iter() {
            self.rows.push(r);
        }
        let (st, o) = (&mut self.stats, other.stats);
        st.elements += o.elements;
        st.dropped_rare += o.dropped_rare;
        st.dropped_common += o.dropped_common;
        st.incidences += o.incidences;
        st.max_row = st.max_row.max(o.max_row);
    }

    /// Bytes the kept keys and rows have allocated.
    pub(super) fn heap_bytes(&self) -> u64 {
        self.keys.capacity() as u64 * 8 + self.rows.heap_bytes()
    }

    /// Writes the kept rows to `w` (the keys are not kept) and adds the counts to `stats`.
    pub(super) fn write_to(self, w: &mut RowsWriter, stats: &mut ContextStats) -> Result<()> {
        for r in self.rows.iter() {
            w.push(r)?;
        }
        let o = self.stats;
        stats.elements += o.elements;
        stats.dropped_rare += o.dropped_rare;
        stats.dropped_common += o.dropped_common;
        stats.incidences += o.incidences;
        stats.max_row = stats.max_row.max(o.max_row);
        stats.rows += self.keys.len() as u64;
        Ok(())
    }

    pub(super) fn into_context(self, n_docs: u32) -> Context {
        let mut stats = self.stats;
        stats.documents = u64::from(n_docs);
        stats.rows = self.keys.len() as u64;
        Context {
            n_docs,
            keys: self.keys,
            rows: self.rows,
            stats,
        }
    }
}
