//! The inverted shingle-by-document context (IK09 section 2.2) and the FIMI transaction format.
//!
//! A [`Context`] maps each image element (a `u64` key, see `sketch`) to the set of documents
//! whose image holds it, as an ascending list of DocIds; all rows are held in one compact
//! [`Transactions`] (CSR: 4 bytes per incidence plus one offset per row). A
//! [`ContextBuilder`] builds it from `(key, DocId)` incidences streamed in, by sorted runs
//! spilled to disk under a memory budget ([`crate::spill`]); when the incidences fit in the
//! budget, [`Context::from_doc_keys`] builds it in memory by a parallel radix partition of
//! the key range instead (same result), and [`Context::from_key_source`] does the same
//! radix build from keys read again from disk (a [`KeySource`], e.g. images files) in
//! passes, without holding them; the `<id,id,count>` pair
//! counts have an in-memory ([`pair_counts_of_rows`]) and a spilled
//! ([`pair_counts_spilled`]) form with the same result. [`Transactions`] is a compact (CSR)
//! list of `u32` transactions, the in-memory form of a FIMI file; [`fimi`] reads and writes
//! that format. A context is written as FIMI in one of two [`Orientation`]s:
//! `shingle-rows` (IK09: one line per image element listing the DocIds that hold it; mining
//! it yields sets of documents) or `doc-rows` (one line per document listing the indices of
//! the elements it holds).
//!
//! Invariants:
//! - rows are ordered by ascending key, so a context built from the same images is the same
//!   whatever the number of threads;
//! - every row holds at least `min_df` (default 2) documents: an element held by one document
//!   cannot join a cluster, so it is dropped and counted; with `max_df`, rows holding more
//!   documents are dropped too (B97 5.1) and counted;
//! - transactions keep their input order; the items of one transaction keep the order in
//!   which they were pushed (readers may require them strictly ascending).

pub mod fimi;

use std::io::Write;
use std::path::Path;

use rayon::prelude::*;

use crate::spill::{ExternalSorter, SpillConfig};
use crate::{DocId, Error, Result};

/// A list of transactions stored contiguously: transaction `i` is
/// `items[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transactions {
    items: Vec<u32>,
    offsets: Vec<usize>,
}

impl Default for Transactions {
    fn default() -> Self {
        Self::new()
    }
}

impl Transactions {
    /// An empty list.
    pub fn new() -> Self {
        Transactions {
            items: Vec::new(),
            offsets: vec![0],
        }
    }

    /// Builds from any rows.
    pub fn from_rows<R: AsRef<[u32]>>(rows: impl IntoIterator<Item = R>) -> Self {
        let mut t = Self::new();
        for r in rows {
            t.push(r.as_ref());
        }
        t
    }

    /// Appends one transaction.
    pub fn push(&mut self, row: &[u32]) {
        self.items.extend_from_slice(row);
        self.offsets.push(self.items.len());
    }

    /// Number of transactions.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// True when there is no transaction.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Transaction `i`.
    pub fn get(&self, i: usize) -> &[u32] {
        &self.items[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Total number of item occurrences.
    pub fn total_items(&self) -> usize {
        self.items.len()
    }

    /// Iterates over the transactions in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u32]> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// One more than the largest item (0 when there is none).
    pub fn item_bound(&self) -> u64 {
        self.items
            .iter()
            .map(|&x| u64::from(x) + 1)
            .max()
            .unwrap_or(0)
    }
}

/// How a context is laid out as FIMI transactions.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Orientation {
    /// One line per image element listing the DocIds that hold it (IK09).
    #[default]
    ShingleRows,
    /// One line per document listing the indices (row numbers) of its elements.
    DocRows,
}

impl std::str::FromStr for Orientation {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "shingle-rows" => Ok(Orientation::ShingleRows),
            "doc-rows" => Ok(Orientation::DocRows),
            _ => Err(Error::config(format!(
                "orientation must be shingle-rows or doc-rows, not {s:?}"
            ))),
        }
    }
}

/// Which rows a context keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ContextConfig {
    /// Drop elements held by fewer documents (at least 1; default 2: an element held by one
    /// document cannot join a cluster).
    pub min_df: u32,
    /// Drop elements held by more documents (B97 5.1: very common shingles); `None` keeps all.
    pub max_df: Option<u32>,
}

impl Default for ContextConfig {
    fn default() -> Self {
        ContextConfig {
            min_df: 2,
            max_df: None,
        }
    }
}

impl ContextConfig {
    /// Checks the values: `min_df >= 1` and `max_df >= min_df`.
    pub fn validate(&self) -> Result<()> {
        if self.min_df == 0 {
            return Err(Error::config("min_df must be at least 1"));
        }
        if let Some(m) = self.max_df {
            if m < self.min_df {
                return Err(Error::config(format!(
                    "max_df ({m}) must be at least min_df ({})",
                    self.min_df
                )));
            }
        }
        Ok(())
    }
}

/// What building a context kept and dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ContextStats {
    /// Documents (columns), including those left with no element.
    pub documents: u64,
    /// Distinct elements over all images.
    pub elements: u64,
    /// Elements dropped because fewer than `min_df` documents hold them.
    pub dropped_rare: u64,
    /// Elements dropped because more than `max_df` documents hold them.
    pub dropped_common: u64,
    /// Elements kept (rows).
    pub rows: u64,
    /// Sum of row sizes (incidences kept).
    pub incidences: u64,
    /// Size of the largest row.
    pub max_row: u64,
}

/// The inverted context: image element -> documents holding it. Rows are stored as one
/// compact [`Transactions`] list (CSR: one `Vec<u32>` of DocIds plus offsets), row `i`
/// ascending.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Context {
    n_docs: u32,
    keys: Vec<u64>,
    rows: Transactions,
    stats: ContextStats,
}

/// Builds a [`Context`] from `(key, DocId)` incidences streamed in, in any order: they are
/// sorted under a memory budget (spilled as sorted runs when over it, see [`crate::spill`])
/// and grouped by key. The result does not depend on the order of the incidences nor on
/// whether they spilled.
pub struct ContextBuilder {
    cfg: ContextConfig,
    sorter: ExternalSorter<[u32; 3]>,
    n_docs: u64,
}

fn rec(key: u64, doc: u32) -> [u32; 3] {
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
        let n_docs = u32::try_from(self.n_docs)
            .map_err(|_| Error::config("more than u32::MAX documents"))?;
        let mut g = RowGrouper::default();
        g.group(&self.cfg, self.sorter.finish()?, keep)?;
        Ok(g.into_context(n_docs))
    }
}

/// Rows being collected from incidences sorted by `(key, doc)`: the kept keys and rows, and
/// what was kept and dropped (the `documents` and `rows` counts are set at the end).
#[derive(Default)]
struct RowGrouper {
    keys: Vec<u64>,
    rows: Transactions,
    stats: ContextStats,
    /// The incidences of one key may come in any document order: sort each row.
    sort_docs: bool,
}

impl RowGrouper {
    /// Groups `sorted` into rows, dropping documents for which `keep` is false, repeated
    /// incidences and the rows that `cfg` rejects. A key must not continue from one call
    /// to the next.
    fn group(
        &mut self,
        cfg: &ContextConfig,
        sorted: impl Iterator<Item = Result<[u32; 3]>>,
        keep: &dyn Fn(DocId) -> bool,
    ) -> Result<()> {
        let min_df = cfg.min_df as usize;
        let max_df = cfg.max_df.unwrap_or(u32::MAX) as usize;
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
            if run.len() < min_df {
                st.dropped_rare += 1;
            } else if run.len() > max_df {
                st.dropped_common += 1;
            } else {
                self.keys.push(key);
                self.rows.push(run);
                st.max_row = st.max_row.max(run.len() as u64);
                st.incidences += run.len() as u64;
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
    fn append(&mut self, other: RowGrouper) {
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

    fn into_context(self, n_docs: u32) -> Context {
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

/// The key range `lo..=hi` cut into buckets of consecutive keys, about
/// [`BUCKET_TARGET`] incidences each when keys are spread evenly (at most
/// `2^MAX_BUCKET_BITS` buckets).
#[derive(Clone, Copy, Debug)]
struct Buckets {
    lo: u64,
    shift: u32,
    n: usize,
}

impl Buckets {
    fn new(lo: u64, hi: u64, total: usize) -> Self {
        let span = hi - lo;
        let want_bits = (total / BUCKET_TARGET)
            .max(1)
            .next_power_of_two()
            .trailing_zeros()
            .min(MAX_BUCKET_BITS);
        let shift = (64 - span.leading_zeros()).saturating_sub(want_bits);
        // `shift` may be 64 (a few keys spanning the whole range): one bucket.
        let n = span.checked_shr(shift).unwrap_or(0) as usize + 1;
        Buckets { lo, shift, n }
    }

    #[inline]
    fn of(&self, k: u64) -> usize {
        (k - self.lo).checked_shr(self.shift).unwrap_or(0) as usize
    }
}

/// Consecutive bucket ranges of at most `cap` incidences each (one bucket at least), or
/// `None` when that takes more than [`MAX_PASSES`].
fn plan_passes(bucket_total: &[usize], cap: usize) -> Option<Vec<std::ops::Range<usize>>> {
    let mut passes: Vec<std::ops::Range<usize>> = Vec::new();
    let (mut b0, mut acc) = (0usize, 0usize);
    for (b, &t) in bucket_total.iter().enumerate() {
        if acc > 0 && acc + t > cap {
            passes.push(b0..b);
            b0 = b;
            acc = 0;
        }
        acc += t;
    }
    passes.push(b0..bucket_total.len());
    (passes.len() <= MAX_PASSES).then_some(passes)
}

/// Sorts and groups, in parallel, the incidences of one pass: `recs[start[i]..start[i + 1]]`
/// holds the `i`-th bucket of the pass, its incidences of one key in ascending document
/// order unless `sort_docs`. The groupers come back in bucket (so key) order.
fn group_pass(
    recs: &mut [[u32; 3]],
    start: &[usize],
    b: &Buckets,
    cfg: &ContextConfig,
    sort_docs: bool,
) -> Vec<RowGrouper> {
    let mut slices: Vec<&mut [[u32; 3]]> = Vec::with_capacity(start.len().saturating_sub(1));
    let mut rest: &mut [[u32; 3]] = recs;
    for w in start.windows(2) {
        let (head, tail) = rest.split_at_mut(w[1] - w[0]);
        slices.push(head);
        rest = tail;
    }
    // One grouper per run of buckets (a key never spans two buckets), appended in order.
    slices
        .par_chunks_mut(GROUP_BUCKETS)
        .map(|group| {
            let mut g = RowGrouper {
                sort_docs,
                ..RowGrouper::default()
            };
            let (mut tmp, mut cnt) = (Vec::new(), Vec::new());
            for s in group.iter_mut() {
                let sorted = sort_bucket(s, b.lo, b.shift, &mut tmp, &mut cnt);
                g.group(cfg, sorted.iter().map(|&r| Ok(r)), &|_| true)
                    .expect("records in memory do not fail");
            }
            g
        })
        .collect()
}

/// Builds the context of `doc_keys` (holding `total` keys) in memory, in parallel, without
/// comparison-sorting the incidences as one array (B97's sort of `<shingle, id>` pairs, done
/// as a radix partition):
/// 1. the key range is cut into about `total / BUCKET_TARGET` buckets of consecutive keys;
/// 2. documents are cut into contiguous chunks; each chunk counts its keys per bucket, and
///    the counts give every (chunk, bucket) a disjoint place in one array, which the chunks
///    fill in parallel, in document order (so within a bucket, the incidences of one key are
///    in ascending document order);
/// 3. each bucket is stably sorted by key and grouped into rows, in parallel; rows are
///    concatenated in bucket order, i.e. ascending key.
///
/// At most `cap` incidences are held at once: a larger total is done in passes over
/// consecutive bucket ranges (`None` when that takes more than [`MAX_PASSES`]).
/// The result equals [`ContextBuilder`]'s (the test `spilled_context_and_pair_counts_equal_in_memory`
/// compares them).
fn context_in_memory<K: AsRef<[u64]> + Sync>(
    doc_keys: &[K],
    total: usize,
    cfg: &ContextConfig,
    n_docs: u32,
    cap: usize,
) -> Option<Context> {
    let mut out = RowGrouper::default();
    if total == 0 {
        return Some(out.into_context(n_docs));
    }
    let (lo, hi) = doc_keys
        .par_iter()
        .map(|ks| {
            ks.as_ref()
                .iter()
                .fold((u64::MAX, 0u64), |(a, b), &k| (a.min(k), b.max(k)))
        })
        .reduce(|| (u64::MAX, 0), |(a, b), (c, d)| (a.min(c), b.max(d)));
    let bk = Buckets::new(lo, hi, total);
    let n_buckets = bk.n;

    // Contiguous document chunks of about equal incidence counts.
    let n_chunks = (rayon::current_num_threads() * 4).clamp(1, doc_keys.len().max(1));
    let per_chunk = total.div_ceil(n_chunks);
    let mut chunks: Vec<std::ops::Range<usize>> = Vec::with_capacity(n_chunks + 1);
    let (mut from, mut acc) = (0usize, 0usize);
    for (d, ks) in doc_keys.iter().enumerate() {
        acc += ks.as_ref().len();
        if acc >= per_chunk {
            chunks.push(from..d + 1);
            from = d + 1;
            acc = 0;
        }
    }
    if from < doc_keys.len() {
        chunks.push(from..doc_keys.len());
    }
    let counts: Vec<Vec<usize>> = chunks
        .par_iter()
        .map(|r| {
            let mut c = vec![0usize; n_buckets];
            for ks in &doc_keys[r.clone()] {
                for &k in ks.as_ref() {
                    c[bk.of(k)] += 1;
                }
            }
            c
        })
        .collect();
    // Passes over consecutive bucket ranges, each of at most `cap` incidences (one bucket
    // at least): rows come out in key order pass after pass.
    let bucket_total: Vec<usize> = (0..n_buckets)
        .map(|b| counts.iter().map(|c| c[b]).sum())
        .collect();
    let passes = plan_passes(&bucket_total, cap)?;
    let mut offsets: Vec<Vec<usize>> = vec![vec![0; n_buckets]; chunks.len()];
    for pass in passes {
        // Bucket starts within the pass, and each chunk's write position in each bucket.
        let mut start = Vec::with_capacity(pass.len() + 1);
        let mut pos = 0usize;
        for b in pass.clone() {
            start.push(pos);
            for (c, cnt) in counts.iter().enumerate() {
                offsets[c][b] = pos;
                pos += cnt[b];
            }
        }
        start.push(pos);
        let n_pass = pos;
        let mut recs: Vec<[u32; 3]> = Vec::with_capacity(n_pass);
        let base = SendPtr(recs.as_mut_ptr());
        let in_pass = pass.clone();
        chunks
            .par_iter()
            .zip(offsets.par_iter_mut())
            .for_each(|(r, off)| {
                let base = &base;
                for d in r.clone() {
                    for &k in doc_keys[d].as_ref() {
                        let b = bk.of(k);
                        if !in_pass.contains(&b) {
                            continue;
                        }
                        // SAFETY: the offsets of (chunk, bucket) pairs of this pass are
                        // disjoint ranges of exactly the counted length inside `0..n_pass`
                        // (the capacity), and this chunk writes exactly its counted keys of
                        // the pass, each once.
                        unsafe { base.0.add(off[b]).write(rec(k, d as u32)) };
                        off[b] += 1;
                    }
                }
            });
        // SAFETY: every index of `0..n_pass` was written exactly once above.
        unsafe { recs.set_len(n_pass) };
        for g in group_pass(&mut recs, &start, &bk, cfg, false) {
            out.append(g);
        }
    }
    Some(out.into_context(n_docs))
}

/// What a first scan of a [`KeySource`] learns: the key range, the number of keys and
/// documents, and whether documents come in ascending DocId order. Fill it with
/// [`KeyStats::add`] on every document of one scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyStats {
    lo: u64,
    hi: u64,
    total: u64,
    n_docs: u64,
    last: Option<u32>,
    ascending: bool,
}

impl Default for KeyStats {
    fn default() -> Self {
        KeyStats {
            lo: u64::MAX,
            hi: 0,
            total: 0,
            n_docs: 0,
            last: None,
            ascending: true,
        }
    }
}

impl KeyStats {
    /// Counts one document and its keys.
    pub fn add(&mut self, doc: DocId, keys: &[u64]) {
        for &k in keys {
            self.lo = self.lo.min(k);
            self.hi = self.hi.max(k);
        }
        self.total += keys.len() as u64;
        self.n_docs = self.n_docs.max(u64::from(doc.0) + 1);
        if self.last.is_some_and(|l| l >= doc.0) {
            self.ascending = false;
        }
        self.last = Some(doc.0);
    }

    /// Keys counted.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// One more than the largest DocId seen.
    pub fn n_docs(&self) -> u64 {
        self.n_docs
    }
}

/// The documents' keys, readable more than once (e.g. an images file on disk): the
/// source of [`Context::from_key_source`], which reads it several times instead of holding
/// the keys.
pub trait KeySource {
    /// Calls `f(doc, keys)` on every document, in the same order on every call.
    fn scan(&mut self, f: &mut dyn FnMut(DocId, &[u64]) -> Result<()>) -> Result<()>;
}

/// Stably sorts by key the incidences of one bucket of [`context_in_memory`], whose keys
/// `k` all have the same `(k - lo) >> shift`: a counting sort on the next bits below
/// `shift` (about one incidence per slot), then an insertion sort of each slot (a
/// comparison sort for the rare crowded slot). Stable, so the documents of a key stay in
/// ascending order. Returns the sorted incidences: `s` itself when it was already sorted,
/// else `tmp` (not copied back).
fn sort_bucket<'a>(
    s: &'a mut [[u32; 3]],
    lo: u64,
    shift: u32,
    tmp: &'a mut Vec<[u32; 3]>,
    cnt: &mut Vec<u32>,
) -> &'a [[u32; 3]] {
    let key = |r: &[u32; 3]| (u64::from(r[0]) << 32) | u64::from(r[1]);
    if s.len() < 2 || shift == 0 {
        // One key only when `shift == 0`: already in document order.
        return s;
    }
    let bits = (usize::BITS - (s.len() - 1).leading_zeros()).min(shift);
    let mask = u64::MAX >> (64 - shift);
    let sub = |r: &[u32; 3]| (((key(r) - lo) & mask) >> (shift - bits)) as usize;
    cnt.clear();
    cnt.resize((1usize << bits) + 1, 0);
    for r in s.iter() {
        cnt[sub(r) + 1] += 1;
    }
    for i in 1..cnt.len() {
        cnt[i] += cnt[i - 1];
    }
    tmp.clear();
    tmp.resize(s.len(), [0; 3]);
    for r in s.iter() {
        let j = sub(r);
        tmp[cnt[j] as usize] = *r;
        cnt[j] += 1;
    }
    // `cnt[j]` is now the end of slot `j`.
    let mut from = 0usize;
    for &end in &cnt[..cnt.len() - 1] {
        let end = end as usize;
        let slot = &mut tmp[from..end];
        if slot.len() > 16 {
            slot.sort_by_key(key);
        } else {
            for i in 1..slot.len() {
                let mut m = i;
                while m > 0 && key(&slot[m - 1]) > key(&slot[m]) {
                    slot.swap(m - 1, m);
                    m -= 1;
                }
            }
        }
        from = end;
    }
    tmp
}

/// A raw pointer that may cross threads (the writers use disjoint ranges).
struct SendPtr<T>(*mut T);
// SAFETY: used only for writes to disjoint indices, see `context_in_memory`.
unsafe impl<T: Send> Sync for SendPtr<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Send for SendPtr<T> {}

/// Incidences per bucket aimed at by [`context_in_memory`].
const BUCKET_TARGET: usize = 16384;
/// At most `2^MAX_BUCKET_BITS` buckets.
const MAX_BUCKET_BITS: u32 = 20;
/// At most this many passes over the keys in [`context_in_memory`]; a smaller budget spills.
const MAX_PASSES: usize = 16;
/// Buckets grouped per parallel task by [`context_in_memory`].
const GROUP_BUCKETS: usize = 16;

impl Context {
    /// Builds the context from the element keys of each document (`doc_keys[d]` belongs to
    /// `DocId(d)`; duplicates within one document are ignored), spilling under the
    /// process-global [`crate::spill::global`] configuration. Deterministic.
    pub fn from_doc_keys<K: AsRef<[u64]> + Sync>(
        doc_keys: &[K],
        cfg: &ContextConfig,
    ) -> Result<Self> {
        Self::from_doc_keys_with(doc_keys, cfg, &crate::spill::global())
    }

    /// [`Context::from_doc_keys`] under an explicit spill configuration.
    pub fn from_doc_keys_with<K: AsRef<[u64]> + Sync>(
        doc_keys: &[K],
        cfg: &ContextConfig,
        spill: &SpillConfig,
    ) -> Result<Self> {
        let n_docs = u32::try_from(doc_keys.len())
            .map_err(|_| Error::config("more than u32::MAX documents"))?;
        let mut b = ContextBuilder::new(cfg, spill)?;
        b.ensure_docs(u64::from(n_docs));
        let total: u64 = doc_keys.iter().map(|k| k.as_ref().len() as u64).sum();
        // The keys are in memory already: the budget bounds the incidences held at once
        // (12 bytes each), in as many passes over key ranges as it takes; only a budget
        // needing more than MAX_PASSES passes spills sorted runs.
        let cap = usize::try_from(spill.budget_bytes() / 12)
            .unwrap_or(usize::MAX)
            .max(1);
        if let Some(c) = context_in_memory(doc_keys, total as usize, cfg, n_docs, cap) {
            return Ok(c);
        }
        {
            for (d, ks) in doc_keys.iter().enumerate() {
                b.push_doc(DocId(d as u32), ks.as_ref())?;
            }
        }
        b.finish()
    }

    /// Builds the context of the documents of `src` for which `keep` is true (the others
    /// count as documents without elements), reading `src` again instead of holding the
    /// keys: `stats` comes from one scan already made (see [`KeyStats`]); one more scan
    /// counts the keys per bucket of the key range, then each pass over a range of buckets
    /// holding at most `spill`'s budget of incidences (12 bytes each) is one scan, its
    /// buckets sorted and grouped in parallel as [`Context::from_doc_keys`] does. A budget
    /// that would need more than 16 passes spills sorted runs instead (one scan). Equal to
    /// [`Context::from_doc_keys`] on the same keys, for any order of the documents.
    pub fn from_key_source(
        src: &mut dyn KeySource,
        stats: &KeyStats,
        cfg: &ContextConfig,
        spill: &SpillConfig,
        keep: &dyn Fn(DocId) -> bool,
    ) -> Result<Self> {
        cfg.validate()?;
        let n_docs = u32::try_from(stats.n_docs)
            .map_err(|_| Error::config("more than u32::MAX documents"))?;
        let mut out = RowGrouper::default();
        if stats.total == 0 {
            return Ok(out.into_context(n_docs));
        }
        let total = usize::try_from(stats.total)
            .map_err(|_| Error::config("more keys than this machine can address"))?;
        let bk = Buckets::new(stats.lo, stats.hi, total);
        let mut counts = vec![0usize; bk.n];
        let out_of_range = || {
            Error::config(
                "a key source changed between scans (a key outside the first scan's range)",
            )
        };
        src.scan(&mut |d, ks| {
            if keep(d) {
                for &k in ks {
                    if k < bk.lo || k > stats.hi {
                        return Err(out_of_range());
                    }
                    counts[bk.of(k)] += 1;
                }
            }
            Ok(())
        })?;
        let cap = usize::try_from(spill.budget_bytes() / 12)
            .unwrap_or(usize::MAX)
            .max(1);
        let Some(passes) = plan_passes(&counts, cap) else {
            let mut b = ContextBuilder::new(cfg, spill)?;
            b.ensure_docs(u64::from(n_docs));
            src.scan(&mut |d, ks| if keep(d) { b.push_doc(d, ks) } else { Ok(()) })?;
            return b.finish();
        };
        let mut off = vec![0usize; bk.n];
        for pass in passes {
            let mut start = Vec::with_capacity(pass.len() + 1);
            let mut pos = 0usize;
            for b in pass.clone() {
                start.push(pos);
                off[b] = pos;
                pos += counts[b];
            }
            start.push(pos);
            let n_pass = pos;
            let mut recs: Vec<[u32; 3]> = vec![[0; 3]; n_pass];
            src.scan(&mut |d, ks| {
                if keep(d) {
                    for &k in ks {
                        if k < bk.lo || k > stats.hi {
                            return Err(out_of_range());
                        }
                        let b = bk.of(k);
                        if pass.contains(&b) {
                            let slot = recs.get_mut(off[b]).ok_or_else(out_of_range)?;
                            *slot = rec(k, d.0);
                            off[b] += 1;
                        }
                    }
                }
                Ok(())
            })?;
            // Every bucket must have been filled exactly as counted.
            for (i, b) in pass.clone().enumerate() {
                if off[b] != start[i + 1] {
                    return Err(out_of_range());
                }
            }
            for g in group_pass(&mut recs, &start, &bk, cfg, !stats.ascending) {
                out.append(g);
            }
        }
        Ok(out.into_context(n_docs))
    }

    /// Number of documents (columns).
    pub fn n_docs(&self) -> u32 {
        self.n_docs
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

    /// The row numbers of the elements each document holds (`result[d]` ascending).
    pub fn doc_rows(&self) -> Vec<Vec<u32>> {
        let mut out = vec![Vec::new(); self.n_docs as usize];
        for (i, row) in self.rows.iter().enumerate() {
            for &d in row {
                out[d as usize].push(i as u32);
            }
        }
        out
    }

    /// The documents holding element `key`, if kept.
    pub fn docs_of(&self, key: u64) -> Option<&[u32]> {
        self.keys.binary_search(&key).ok().map(|i| self.rows.get(i))
    }

    /// The context as transactions in the given orientation.
    pub fn to_transactions(&self, orientation: Orientation) -> Transactions {
        match orientation {
            Orientation::ShingleRows => self.rows.clone(),
            Orientation::DocRows => Transactions::from_rows(self.doc_rows()),
        }
    }

    /// Writes the context as a FIMI file (atomically).
    pub fn write_fimi(&self, path: &Path, orientation: Orientation) -> Result<()> {
        let mut f = crate::io::AtomicFile::create(path)?;
        let res = match orientation {
            Orientation::ShingleRows => fimi::write_rows(&mut f, self.rows.iter()),
            Orientation::DocRows => fimi::write_rows(&mut f, self.doc_rows()),
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
            Orientation::DocRows => {
                let n_rows = t.item_bound() as usize;
                let mut rows = vec![Vec::new(); n_rows];
                for (d, r) in t.iter().enumerate() {
                    for &e in r {
                        rows[e as usize].push(d as u32);
                    }
                }
                (Transactions::from_rows(rows), t.len() as u64)
            }
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

/// Number of `(a, b)` pair incidences over the rows (`sum C(|row|, 2)`): what the spilled
/// pair counting writes, at 8 bytes each.
pub fn pair_incidences(rows: &Transactions) -> u64 {
    rows.iter()
        .map(|r| {
            let l = r.len() as u64;
            l * l.saturating_sub(1) / 2
        })
        .sum()
}

/// An upper bound of the working set of [`pair_counts_of_rows`] besides `rows` and its
/// result: the document -> rows index (8 bytes per document, 4 per incidence in rows of two
/// or more documents) and one dense `u32` counter per document and worker thread (k = 1;
/// the prefix-filtered path for k >= 2 holds less). It does not hold the pair incidences
/// themselves. The result is left out on purpose: [`pair_counts_spilled`] returns the same
/// pairs in memory, so it cannot decide between the two (it did once, and sent a 4M-document
/// run with a large estimated result to the spilled path, whose pair-incidence runs filled the
/// disk where the prefix filter needs a few hundred MiB).
pub fn pair_counts_in_memory_bytes(rows: &Transactions, n_docs: u32) -> u64 {
    let n = u64::from(n_docs);
    let inc: u64 = rows
        .iter()
        .filter(|r| r.len() >= 2)
        .map(|r| r.len() as u64)
        .sum();
    let threads = rayon::current_num_threads() as u64;
    8 * (n + 1) + 4 * inc + threads * 4 * n
}

/// The `<id,id,count>` phase under a spill configuration: in memory
/// ([`pair_counts_of_rows`]) when there is no budget or its working set
/// ([`pair_counts_in_memory_bytes`]) fits in it, else by sorted runs on disk
/// ([`pair_counts_spilled`]). Both give the same result.
pub fn pair_counts(
    rows: &Transactions,
    n_docs: u32,
    k: u32,
    spill: &SpillConfig,
) -> Result<Vec<(DocId, DocId, u32)>> {
    if spill.budget.is_none() || pair_counts_in_memory_bytes(rows, n_docs) <= spill.budget_bytes() {
        Ok(pair_counts_of_rows(rows, n_docs, k))
    } else {
        pair_counts_spilled(rows, k, spill)
    }
}

/// The `<id,id,count>` phase by divide, compute, merge (B97 4.1): every pair `(a, b)`, `a < b`,
/// of every row is written to an [`ExternalSorter`] (sorted runs spilled under `spill`), and
/// the merged stream is counted; pairs seen in at least `max(k, 1)` rows are returned,
/// sorted. Equal to [`pair_counts_of_rows`].
pub fn pair_counts_spilled(
    rows: &Transactions,
    k: u32,
    spill: &SpillConfig,
) -> Result<Vec<(DocId, DocId, u32)>> {
    let k = k.max(1);
    let mut s = ExternalSorter::<u64>::new(spill, "pairs");
    for r in rows.iter() {
        for (i, &a) in r.iter().enumerate() {
            for &b in &r[i + 1..] {
                s.push((u64::from(a) << 32) | u64::from(b))?;
            }
        }
    }
    let mut out = Vec::new();
    let mut cur: Option<(u64, u32)> = None;
    let emit = |out: &mut Vec<(DocId, DocId, u32)>, p: u64, c: u32| {
        if c >= k {
            out.push((DocId((p >> 32) as u32), DocId(p as u32), c));
        }
    };
    for p in s.finish()? {
        let p = p?;
        match &mut cur {
            Some((q, c)) if *q == p => *c += 1,
            _ => {
                if let Some((q, c)) = cur {
                    emit(&mut out, q, c);
                }
                cur = Some((p, 1));
            }
        }
    }
    if let Some((q, c)) = cur {
        emit(&mut out, q, c);
    }
    Ok(out)
}

/// The `<id,id,count>` phase over any rows (each a strictly ascending set of DocIds below
/// `n_docs`), in memory: every pair `(a, b, shared)` with `a < b` whose documents appear
/// together in at least `max(k, 1)` rows, sorted. Parallel over documents with one dense
/// counter array per worker (no hashing), and deterministic: each document's pairs are
/// produced in ascending `b` and concatenated in `a` order.
pub fn pair_counts_of_rows(rows: &Transactions, n_docs: u32, k: u32) -> Vec<(DocId, DocId, u32)> {
    let k = k.max(1);
    let n = n_docs as usize;
    // Rows of each document (CSR), rows of one document only left out.
    let (start, doc_rows) = transpose_csr(n, rows.len(), |i| {
        let r = rows.get(i);
        if r.len() >= 2 {
            r
        } else {
            &[]
        }
    });
    if k >= 2 {
        return pair_counts_prefix(rows, &start, &doc_rows, k);
    }
    let per_doc: Vec<Vec<(DocId, DocId, u32)>> = (0..n)
        .into_par_iter()
        .map_init(
            || (vec![0u32; n], Vec::<u32>::new()),
            |(counts, touched), a| {
                for &r in &doc_rows[start[a]..start[a + 1]] {
                    let row = rows.get(r as usize);
                    let from = row.partition_point(|&b| b as usize <= a);
                    for &b in &row[from..] {
                        let c = &mut counts[b as usize];
                        if *c == 0 {
                            touched.push(b);
                        }
                        *c += 1;
                    }
                }
                touched.sort_unstable();
                let mut v = Vec::new();
                for &b in touched.iter() {
                    let c = std::mem::take(&mut counts[b as usize]);
                    if c >= k {
                        v.push((DocId(a as u32), DocId(b), c));
                    }
                }
                touched.clear();
                v
            },
        )
        .collect();
    per_doc.into_iter().flatten().collect()
}

/// [`pair_counts_of_rows`] for `k >= 2` by prefix filtering (an exact candidate filter, as
/// in the exact join): rows are ordered rarest first (`(length, index)`); a document holding
/// `m` rows can share `k` of them with another only if the first `m - k + 1` of its rows in
/// that order (its prefix) meet the other's prefix. So pairs are generated from the prefix
/// rows only (the common rows, whose pairs grow with the square of the corpus, are never
/// expanded) and each candidate's shared rows are counted exactly by merging the two
/// documents' row lists. `start` / `doc_rows` are the document -> rows index (rows of two or
/// more documents, ascending). The result is the counting form's, pair for pair.
fn pair_counts_prefix(
    rows: &Transactions,
    start: &[usize],
    doc_rows: &[u32],
    k: u32,
) -> Vec<(DocId, DocId, u32)> {
    let n = start.len() - 1;
    let k = k as usize;
    let rank = |r: u32| (rows.get(r as usize).len(), r);
    // Each document's prefix rows.
    let prefixes: Vec<Vec<u32>> = (0..n)
        .into_par_iter()
        .map(|a| {
            let mine = &doc_rows[start[a]..start[a + 1]];
            if mine.len() < k {
                return Vec::new();
            }
            let p = mine.len() - k + 1;
            let mut v = mine.to_vec();
            if p < v.len() {
                v.select_nth_unstable_by_key(p - 1, |&r| rank(r));
                v.truncate(p);
            }
            v.sort_unstable();
            v
        })
        .collect();
    // Row -> documents holding it in their prefix (ascending DocIds).
    let (pstart, pdocs) = transpose_csr(rows.len(), n, |a| &prefixes[a][..]);
    let per_doc: Vec<Vec<(DocId, DocId, u32)>> = (0..n)
        .into_par_iter()
        .map_init(
            || (vec![u32::MAX; n], Vec::<u32>::new()),
            |(seen, cand), a| {
                for &r in &prefixes[a] {
                    let docs = &pdocs[pstart[r as usize]..pstart[r as usize + 1]];
                    let from = docs.partition_point(|&b| b as usize <= a);
                    for &b in &docs[from..] {
                        if seen[b as usize] != a as u32 {
                            seen[b as usize] = a as u32;
                            cand.push(b);
                        }
                    }
                }
                cand.sort_unstable();
                let ra = &doc_rows[start[a]..start[a + 1]];
                let mut v = Vec::new();
                for &b in cand.iter() {
                    let rb = &doc_rows[start[b as usize]..start[b as usize + 1]];
                    let c = crate::shingle::intersection_size(ra, rb);
                    if c >= k {
                        v.push((DocId(a as u32), DocId(b), c as u32));
                    }
                }
                cand.clear();
                v
            },
        )
        .collect();
    per_doc.into_iter().flatten().collect()
}

/// Transposes lists of targets below `n_targets` (list `i` holds targets `t`) into CSR form:
/// `(start, items)` with the lists holding target `t` at `items[start[t]..start[t + 1]]`,
/// ascending.
fn transpose_csr<'a>(
    n_targets: usize,
    n_lists: usize,
    list: impl Fn(usize) -> &'a [u32],
) -> (Vec<usize>, Vec<u32>) {
    let lists = || (0..n_lists).map(&list);
    let mut start = vec![0usize; n_targets + 1];
    for l in lists() {
        for &t in l {
            start[t as usize + 1] += 1;
        }
    }
    for i in 0..n_targets {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut items = vec![0u32; start[n_targets]];
    for (i, l) in lists().enumerate() {
        for &t in l {
            items[fill[t as usize]] = i as u32;
            fill[t as usize] += 1;
        }
    }
    (start, items)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The prefix-filtered pair counts equal a brute-force count over all pairs, for every
    /// k, on random contexts with common rows.
    #[test]
    fn prefix_pair_counts_equal_brute_force() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for round in 0..30 {
            let n_docs = 20 + rnd(60) as u32;
            let n_keys = 10 + rnd(80);
            // Documents draw keys with a skew, so some rows are common.
            let docs: Vec<Vec<u64>> = (0..n_docs)
                .map(|_| {
                    let len = 1 + rnd(30);
                    let mut v: Vec<u64> = (0..len)
                        .map(|_| {
                            let m = 1 + rnd(n_keys);
                            rnd(m)
                        })
                        .collect();
                    v.sort_unstable();
                    v.dedup();
                    v
                })
                .collect();
            let c = Context::from_doc_keys(&docs, &ContextConfig::default()).unwrap();
            for k in 1..=12u32 {
                let got = c.pair_counts(k);
                let mut want = Vec::new();
                for a in 0..docs.len() {
                    for b in a + 1..docs.len() {
                        let shared = docs[a].iter().filter(|x| docs[b].contains(x)).count() as u32;
                        if shared >= k {
                            want.push((DocId(a as u32), DocId(b as u32), shared));
                        }
                    }
                }
                assert_eq!(got, want, "round {round}, k {k}");
            }
        }
    }

    fn ctx(docs: &[&[u64]], cfg: ContextConfig) -> Context {
        Context::from_doc_keys(docs, &cfg).unwrap()
    }

    #[test]
    fn transposes_and_drops_rare_and_common() {
        let docs: &[&[u64]] = &[&[1, 2, 3, 9], &[2, 3, 9], &[3, 9, 7], &[9]];
        let c = ctx(
            docs,
            ContextConfig {
                min_df: 2,
                max_df: Some(3),
            },
        );
        // 1 and 7 are held by one doc; 9 by four (> 3).
        assert_eq!(c.keys(), &[2, 3]);
        assert_eq!(c.row(0), &[0, 1]);
        assert_eq!(c.row(1), &[0, 1, 2]);
        let s = c.stats();
        assert_eq!(
            (s.elements, s.dropped_rare, s.dropped_common, s.rows),
            (5, 2, 1, 2)
        );
        assert_eq!(c.doc_rows(), vec![vec![0, 1], vec![0, 1], vec![1], vec![]]);
        assert_eq!(
            c.pair_counts(1),
            vec![
                (DocId(0), DocId(1), 2),
                (DocId(0), DocId(2), 1),
                (DocId(1), DocId(2), 1)
            ]
        );
        assert_eq!(c.pair_counts(2), vec![(DocId(0), DocId(1), 2)]);
    }

    #[test]
    fn fimi_round_trip_both_orientations() {
        let docs: &[&[u64]] = &[&[10, 20, 30], &[20, 30], &[30, 40], &[40, 10]];
        let c = ctx(docs, ContextConfig::default());
        let dir = tempfile::tempdir().unwrap();
        for o in [Orientation::ShingleRows, Orientation::DocRows] {
            let p = dir.path().join("c.dat");
            c.write_fimi(&p, o).unwrap();
            let back = Context::read_fimi(&p, o, Some(c.n_docs())).unwrap();
            assert_eq!(back.rows(), c.rows(), "{o:?}");
            assert_eq!(back.n_docs(), c.n_docs());
            assert_eq!(back.to_transactions(o), c.to_transactions(o));
        }
        let p = dir.path().join("s.dat");
        c.write_fimi(&p, Orientation::ShingleRows).unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "0 3\n0 1\n0 1 2\n2 3\n"
        );
    }

    #[test]
    fn same_context_for_one_and_two_threads() {
        let docs: Vec<Vec<u64>> = (0..500u64)
            .map(|d| (0..40).map(|j| (d * 7 + j * 13) % 997).collect())
            .collect();
        let build = |t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
                .install(|| ctx_owned(&docs))
        };
        assert_eq!(build(1), build(2));
    }

    fn ctx_owned(docs: &[Vec<u64>]) -> Context {
        Context::from_doc_keys(docs, &ContextConfig::default()).unwrap()
    }

    fn tiny(dir: &Path) -> SpillConfig {
        spill_in(dir, Some(1))
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn spilled_context_and_pair_counts_equal_in_memory(
            docs in proptest::collection::vec(proptest::collection::vec(0u64..60, 0..40), 0..120),
            k in 1u32..4,
            max_df in proptest::option::of(2u32..30),
        ) {
            let tmp = tempfile::tempdir().unwrap();
            let cfg = ContextConfig { min_df: 2, max_df };
            let mem = Context::from_doc_keys_with(&docs, &cfg, &SpillConfig::default()).unwrap();
            let sp = Context::from_doc_keys_with(&docs, &cfg, &tiny(tmp.path())).unwrap();
            prop_assert_eq!(&mem, &sp);
            // Streamed in reverse order through the builder: the same context.
            let mut b = ContextBuilder::new(&cfg, &tiny(tmp.path())).unwrap();
            b.ensure_docs(docs.len() as u64);
            for (d, ks) in docs.iter().enumerate().rev() {
                for &key in ks.iter().rev() {
                    b.push(key, DocId(d as u32)).unwrap();
                }
            }
            prop_assert_eq!(&b.finish().unwrap(), &mem);
            let want = mem.pair_counts(k);
            prop_assert_eq!(&mem.pair_counts_spilled(k, &tiny(tmp.path())).unwrap(), &want);
            prop_assert_eq!(
                &pair_counts(mem.rows(), mem.n_docs(), k, &tiny(tmp.path())).unwrap(),
                &want
            );
            prop_assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
        }
    }

    /// The context through the external sorter (in memory: no budget) and the grouping loop
    /// of [`ContextBuilder::finish`], the reference for [`context_in_memory`].
    fn through_builder(docs: &[Vec<u64>], cfg: &ContextConfig) -> Context {
        let mut b = ContextBuilder::new(cfg, &SpillConfig::default()).unwrap();
        b.ensure_docs(docs.len() as u64);
        for (d, ks) in docs.iter().enumerate() {
            b.push_doc(DocId(d as u32), ks).unwrap();
        }
        b.finish().unwrap()
    }

    /// Up to 150 documents of up to 40 keys each, drawn from a pool of up to 80 keys that
    /// mixes the full u64 range, small keys and keys next to u64::MAX (so keys are shared,
    /// crowded and at both ends of the range).
    fn key_docs() -> impl Strategy<Value = Vec<Vec<u64>>> {
        (
            proptest::collection::vec(
                prop_oneof![any::<u64>(), 0u64..64, (u64::MAX - 64)..=u64::MAX],
                1..80,
            ),
            proptest::collection::vec(proptest::collection::vec(any::<usize>(), 0..40), 0..150),
        )
            .prop_map(|(pool, picks)| {
                picks
                    .iter()
                    .map(|p| p.iter().map(|&i| pool[i % pool.len()]).collect())
                    .collect()
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn bucketed_context_equals_sorted_on_any_keys(
            docs in key_docs(),
            max_df in proptest::option::of(2u32..30),
        ) {
            let cfg = ContextConfig { min_df: 2, max_df };
            let mem = Context::from_doc_keys_with(&docs, &cfg, &SpillConfig::default()).unwrap();
            prop_assert_eq!(&mem, &through_builder(&docs, &cfg));
        }
    }

    /// Enough incidences for several buckets and chunks (about 600k: 64 buckets, so a tiny
    /// budget needs more than `MAX_PASSES` passes and spills); keys skewed like bottom-k
    /// images (most small, a few anywhere, one at u64::MAX), some held by many documents
    /// (crowded slots), and repeated keys inside a document.
    fn many_bucket_docs() -> Vec<Vec<u64>> {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let mut pool: Vec<u64> = (0..120_000)
            .map(|i| match i % 10 {
                0 => next(),
                1 => next() % 64,
                _ => next() >> 24,
            })
            .collect();
        pool.push(u64::MAX);
        (0..10_000)
            .map(|d| {
                let mut ks: Vec<u64> = (0..60)
                    .map(|_| pool[(next() % pool.len() as u64) as usize])
                    .collect();
                ks.push(ks[0]);
                if d % 7 == 0 {
                    ks.push(u64::MAX);
                }
                ks
            })
            .collect()
    }

    /// Budgets for `total` incidences: none (one pass), about 3 and 10 passes over key
    /// ranges, and one needing more than MAX_PASSES passes (sorted runs spilled instead).
    fn test_budgets(total: u64) -> [Option<u64>; 4] {
        [
            None,
            Some(total * 12 / 3),
            Some(total * 12 / 10),
            Some(1024),
        ]
    }

    fn spill_in(dir: &Path, budget: Option<u64>) -> SpillConfig {
        SpillConfig {
            budget: budget.map(crate::spill::MemoryBudget),
            tmp_dir: Some(dir.to_path_buf()),
        }
    }

    #[test]
    fn bucketed_context_equals_sorted_with_many_buckets() {
        let docs = many_bucket_docs();
        let total: u64 = docs.iter().map(|d| d.len() as u64).sum();
        let tmp = tempfile::tempdir().unwrap();
        for max_df in [None, Some(5)] {
            let cfg = ContextConfig { min_df: 2, max_df };
            let want = through_builder(&docs, &cfg);
            assert!(
                want.len() > 1000,
                "a test that shares keys: {} rows",
                want.len()
            );
            for budget in test_budgets(total) {
                let spill = spill_in(tmp.path(), budget);
                let got = Context::from_doc_keys_with(&docs, &cfg, &spill).unwrap();
                assert_eq!(got, want, "budget {budget:?}");
            }
        }
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }

    /// Keys replayed from memory in a given document order, counting the scans.
    struct Replay<'a> {
        docs: &'a [Vec<u64>],
        order: Vec<u32>,
        scans: usize,
    }

    impl KeySource for Replay<'_> {
        fn scan(&mut self, f: &mut dyn FnMut(DocId, &[u64]) -> Result<()>) -> Result<()> {
            self.scans += 1;
            for &d in &self.order {
                f(DocId(d), &self.docs[d as usize])?;
            }
            Ok(())
        }
    }

    fn streamed(
        docs: &[Vec<u64>],
        order: Vec<u32>,
        cfg: &ContextConfig,
        spill: &SpillConfig,
        keep: &dyn Fn(DocId) -> bool,
    ) -> (Result<Context>, usize) {
        let mut src = Replay {
            docs,
            order,
            scans: 0,
        };
        let mut stats = KeyStats::default();
        src.scan(&mut |d, ks| {
            stats.add(d, ks);
            Ok(())
        })
        .unwrap();
        let c = Context::from_key_source(&mut src, &stats, cfg, spill, keep);
        (c, src.scans)
    }

    fn masked(docs: &[Vec<u64>], keep: &dyn Fn(DocId) -> bool) -> Vec<Vec<u64>> {
        docs.iter()
            .enumerate()
            .map(|(d, k)| {
                if keep(DocId(d as u32)) {
                    k.clone()
                } else {
                    Vec::new()
                }
            })
            .collect()
    }

    #[test]
    fn streamed_context_equals_in_memory_in_passes_and_any_order() {
        let docs = many_bucket_docs();
        let total: u64 = docs.iter().map(|d| d.len() as u64).sum();
        let tmp = tempfile::tempdir().unwrap();
        let n = docs.len() as u32;
        // Ascending, reversed, and interleaved like shards (0, 3, 6, ..., 1, 4, ...).
        let orders: Vec<Vec<u32>> = vec![
            (0..n).collect(),
            (0..n).rev().collect(),
            (0..3).flat_map(|s| (s..n).step_by(3)).collect(),
        ];
        let keep_all = |_: DocId| true;
        let keep_some = |d: DocId| d.0 % 5 != 2;
        for max_df in [None, Some(5)] {
            let cfg = ContextConfig { min_df: 2, max_df };
            for keep in [&keep_all as &dyn Fn(DocId) -> bool, &keep_some] {
                let want = through_builder(&masked(&docs, keep), &cfg);
                assert!(want.len() > 1000, "{} rows", want.len());
                for budget in test_budgets(total) {
                    let spill = spill_in(tmp.path(), budget);
                    // The spilled fallback is slow with so tiny a budget: one order.
                    let n_orders = if budget == Some(1024) {
                        1
                    } else {
                        orders.len()
                    };
                    for order in &orders[..n_orders] {
                        let (got, scans) = streamed(&docs, order.clone(), &cfg, &spill, keep);
                        assert_eq!(got.unwrap(), want, "budget {budget:?}");
                        if budget != Some(1024) {
                            // A pass holds whole buckets (one at least, however large),
                            // so the count of passes depends on the key skew: one without
                            // a budget, several with one.
                            let passes = scans - 2;
                            assert!(
                                if budget.is_none() {
                                    passes == 1
                                } else {
                                    passes >= 2
                                },
                                "budget {budget:?}: {passes} passes"
                            );
                        } else {
                            assert_eq!(scans, 3, "one scan to count, one to spill");
                        }
                    }
                }
            }
        }
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }

    /// A source whose key counts or range change between scans (a file rewritten while
    /// it is read) is an error, not a wrong context or a panic.
    #[test]
    fn streamed_context_rejects_a_changing_source() {
        struct Drift(u64, u64);
        impl KeySource for Drift {
            fn scan(&mut self, f: &mut dyn FnMut(DocId, &[u64]) -> Result<()>) -> Result<()> {
                self.0 += 1;
                for d in 0..100u32 {
                    let k = u64::from(d % 10);
                    if self.0 > 2 && d == 50 {
                        f(DocId(d), &[k, 1000 + u64::from(d), self.1])?;
                    } else {
                        f(DocId(d), &[k, 1000 + u64::from(d)])?;
                    }
                }
                Ok(())
            }
        }
        // An extra key in range (bucket counts differ), and one past the range.
        for extra in [500, 5000] {
            let mut src = Drift(0, extra);
            let mut stats = KeyStats::default();
            src.scan(&mut |d, ks| {
                stats.add(d, ks);
                Ok(())
            })
            .unwrap();
            let e = Context::from_key_source(
                &mut src,
                &stats,
                &ContextConfig::default(),
                &SpillConfig::default(),
                &|_| true,
            )
            .unwrap_err();
            assert!(e.to_string().contains("changed between scans"), "{e}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn streamed_context_equals_sorted_on_any_keys(
            docs in key_docs(),
            max_df in proptest::option::of(2u32..30),
            rotate in any::<usize>(),
            passes in 1u64..6,
            drop_mod in 2u32..7,
        ) {
            let n = docs.len() as u32;
            let mut order: Vec<u32> = (0..n).collect();
            if n > 0 {
                order.rotate_left(rotate % n as usize);
            }
            let total: u64 = docs.iter().map(|d| d.len() as u64).sum();
            let spill = SpillConfig {
                budget: Some(crate::spill::MemoryBudget((total * 12 / passes).max(12))),
                tmp_dir: None,
            };
            let cfg = ContextConfig { min_df: 2, max_df };
            let keep = |d: DocId| d.0 % drop_mod != 1;
            let (got, _) = streamed(&docs, order, &cfg, &spill, &keep);
            prop_assert_eq!(got.unwrap(), through_builder(&masked(&docs, &keep), &cfg));
        }
    }

    #[test]
    fn builder_filter_equals_masked_keys() {
        let docs: Vec<Vec<u64>> = (0..300u64)
            .map(|d| (0..30).map(|j| (d * 7 + j * 13) % 211).collect())
            .collect();
        let keep = |d: DocId| d.0 % 3 != 0;
        let masked: Vec<Vec<u64>> = docs
            .iter()
            .enumerate()
            .map(|(d, k)| {
                if keep(DocId(d as u32)) {
                    k.clone()
                } else {
                    Vec::new()
                }
            })
            .collect();
        let cfg = ContextConfig {
            min_df: 2,
            max_df: Some(40),
        };
        let want = Context::from_doc_keys_with(&masked, &cfg, &SpillConfig::default()).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let mut b = ContextBuilder::new(&cfg, &tiny(tmp.path())).unwrap();
        for (d, k) in docs.iter().enumerate() {
            b.push_doc(DocId(d as u32), k).unwrap();
        }
        assert!(b.runs() > 0);
        assert_eq!(b.finish_filtered(&keep).unwrap(), want);
    }
}
