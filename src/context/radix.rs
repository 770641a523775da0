//! The radix builds of a context: [`Context::from_doc_keys`] partitions the in-memory keys of
//! every document into buckets of consecutive keys (no comparison sort of all incidences),
//! sorts and groups the buckets in parallel; [`Context::from_key_source`] does the same from
//! keys read again from disk (a [`KeySource`]), one scan per pass. Both hold at most the
//! budget of incidences (12 bytes each) at once, in up to [`MAX_PASSES`] passes over
//! consecutive bucket ranges, and fall back on the spilled [`ContextBuilder`] beyond.
//!
//! Invariants: the result equals [`ContextBuilder`]'s on the same incidences, for any budget,
//! any number of threads and (for a key source) any order of the documents; a key source that
//! changes between scans is an error, never a wrong context.

use rayon::prelude::*;

use super::builder::{doc_count, rec, RowGrouper};
use super::spilled::{RowsWriter, SpilledContext};
use super::{Context, ContextBuilder, ContextConfig, ContextStats};
use crate::spill::SpillConfig;
use crate::{DocId, Error, Result};

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

    /// The keys of the buckets `r`, as `lo..=hi`.
    fn keys_of(&self, r: &std::ops::Range<usize>) -> (u64, u64) {
        let at = |b: usize| u64::try_from(u128::from(self.lo) + ((b as u128) << self.shift)).ok();
        let lo = at(r.start).unwrap_or(u64::MAX);
        let hi = at(r.end).map_or(u64::MAX, |k| k - 1);
        (lo, hi)
    }
}

/// Consecutive bucket ranges of at most `cap` incidences each (one bucket at least), or
/// `None` when that takes more than `max` passes.
fn plan_passes(
    bucket_total: &[usize],
    cap: usize,
    max: usize,
) -> Option<Vec<std::ops::Range<usize>>> {
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
    (passes.len() <= max).then_some(passes)
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
            let mut g = RowGrouper::new(sort_docs);
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
/// consecutive bucket ranges (`None` when that takes more than `max` passes).
/// The result equals [`ContextBuilder`]'s (the test `spilled_context_and_pair_counts_equal_in_memory`
/// compares them).
fn context_in_memory<K: AsRef<[u64]> + Sync>(
    doc_keys: &[K],
    total: usize,
    cfg: &ContextConfig,
    n_docs: u32,
    cap: usize,
    max: usize,
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
    let passes = plan_passes(&bucket_total, cap, max)?;
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

    /// Whether a scan costs little more than reading the keys (raw keys, not images to
    /// decode): without a budget, such a source is built in passes of bounded size as keys
    /// in memory are ([`Context::from_doc_keys`]), any other in one pass.
    fn rescans_cheaply(&self) -> bool {
        false
    }

    /// Whether [`KeySource::scan_range`] reads only the keys of its range (a source
    /// partitioned by key range): then a pass costs what it reads, and passes are many
    /// and small rather than few and large.
    fn partitioned(&self) -> bool {
        false
    }

    /// Calls `f(doc, keys)` with at least every key in `lo..=hi` of every document, each
    /// incidence once (a document may come in several calls, with some of its keys each,
    /// and keys outside the range may come too); the documents of one key in the order
    /// [`KeySource::scan`] gives them. By default, a whole scan.
    fn scan_range(
        &mut self,
        lo: u64,
        hi: u64,
        f: &mut dyn FnMut(DocId, &[u64]) -> Result<()>,
    ) -> Result<()> {
        let _ = (lo, hi);
        self.scan(f)
    }
}

/// How a [`KeySource`] that reads from disk overlaps reading with the build: `produce`
/// runs on a second thread, filling batches (from `fresh`: the consumer's used ones, or
/// new) and handing each over with `send` (false once the consumer stopped: `produce`
/// should then return); the calling thread gives the batches to `consume` in order. A
/// bounded channel (two batches) keeps the reader at most that far ahead. The first
/// error, of `produce` or of `consume`, ends the scan.
pub(crate) fn read_ahead<B: Send + Default>(
    produce: impl FnOnce(&mut dyn FnMut() -> B, &mut dyn FnMut(B) -> bool) -> Result<()> + Send,
    mut consume: impl FnMut(&B) -> Result<()>,
) -> Result<()> {
    let (tx, rx) = std::sync::mpsc::sync_channel::<Result<B>>(2);
    let (back_tx, back_rx) = std::sync::mpsc::channel::<B>();
    std::thread::scope(|s| {
        s.spawn(move || {
            let mut fresh = || back_rx.try_recv().unwrap_or_default();
            let mut send = |b| tx.send(Ok(b)).is_ok();
            if let Err(e) = produce(&mut fresh, &mut send) {
                // Refused when the consumer stopped: its own error is the one reported.
                let _ = tx.send(Err(e));
            }
        });
        let mut out = Ok(());
        for b in rx.iter() {
            if let Err(e) = b
                .and_then(|b| consume(&b).map(|()| b))
                .map(|b| back_tx.send(b))
            {
                out = Err(e);
                break;
            }
        }
        // Dropping the receiver stops the producer at its next batch.
        drop(rx);
        out
    })
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

use crate::plan::{
    bounded_pass_cap, in_memory_pass_cap, incidence_cap, max_passes, partitioned_pass_cap,
    rows_spill_at, MAX_PARTITIONED_PASSES, PASS_BYTES_PER_INCIDENCE,
};

/// Incidences per bucket aimed at by [`context_in_memory`].
const BUCKET_TARGET: usize = 16384;
/// At most `2^MAX_BUCKET_BITS` buckets.
const MAX_BUCKET_BITS: u32 = 20;
/// Buckets grouped per parallel task by [`context_in_memory`].
const GROUP_BUCKETS: usize = 16;

impl Context {
    /// Builds the context from the element keys of each document (`doc_keys[d]` belongs to
    /// `DocId(d)`; duplicates within one document are ignored), holding at most half of
    /// `spill`'s budget of incidences at once, and at most `UNBUDGETED_PASS_INCIDENCES`
    /// unless there are many (`in_memory_pass_cap`; spilling sorted runs when that takes more than
    /// 16 passes). Deterministic.
    pub fn from_doc_keys<K: AsRef<[u64]> + Sync>(
        doc_keys: &[K],
        cfg: &ContextConfig,
        spill: &SpillConfig,
    ) -> Result<Self> {
        let n_docs = doc_count(doc_keys.len() as u64)?;
        let mut b = ContextBuilder::new(cfg, spill)?;
        b.ensure_docs(u64::from(n_docs));
        let total: u64 = doc_keys.iter().map(|k| k.as_ref().len() as u64).sum();
        // The keys are in memory already: the pass cap bounds the incidences held at once
        // (12 bytes each), in as many passes over key ranges as it takes; only a budget
        // needing more than MAX_PASSES passes spills sorted runs.
        let cap = in_memory_pass_cap(spill, total as usize);
        spill.hand("context pass", cap as u64 * PASS_BYTES_PER_INCIDENCE);
        if let Some(c) = context_in_memory(
            doc_keys,
            total as usize,
            cfg,
            n_docs,
            cap,
            max_passes(spill),
        ) {
            return Ok(c);
        }
        for (d, ks) in doc_keys.iter().enumerate() {
            b.push_doc(DocId(d as u32), ks.as_ref())?;
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
        match build_from_source(src, stats, cfg, spill, keep, None)? {
            BuiltContext::Memory(c) => Ok(c),
            BuiltContext::Spilled(_) => unreachable!("rows are spilled only when allowed"),
        }
    }

    /// [`Context::from_key_source`] under a budget that bounds everything the process holds:
    /// `held` bytes are held by the caller already, the kept rows count as they grow and
    /// each pass holds what is left (20 bytes per incidence: the record and its share of
    /// the pass's rows). When the kept rows outgrow a third of what the caller leaves, they
    /// move to a temporary file and the build continues there ([`BuiltContext::Spilled`]:
    /// the same rows, without the keys). Without a budget this is
    /// [`Context::from_key_source`].
    pub fn from_key_source_bounded(
        src: &mut dyn KeySource,
        stats: &KeyStats,
        cfg: &ContextConfig,
        spill: &SpillConfig,
        keep: &dyn Fn(DocId) -> bool,
        held: u64,
    ) -> Result<BuiltContext> {
        build_from_source(src, stats, cfg, spill, keep, Some(held))
    }
}

/// A context built under a budget: in memory, or its rows in a temporary file.
#[derive(Debug)]
pub enum BuiltContext {
    /// Every row (and key) in memory.
    Memory(Context),
    /// The rows in a temporary file (see [`SpilledContext`]).
    Spilled(SpilledContext),
}

impl BuiltContext {
    /// Number of documents (columns).
    pub fn n_docs(&self) -> u32 {
        match self {
            BuiltContext::Memory(c) => c.n_docs(),
            BuiltContext::Spilled(c) => c.n_docs(),
        }
    }

    /// What the build kept and dropped.
    pub fn stats(&self) -> &ContextStats {
        match self {
            BuiltContext::Memory(c) => c.stats(),
            BuiltContext::Spilled(c) => c.stats(),
        }
    }

    /// Writes the context as a FIMI file (atomically), as [`Context::write_fimi`] does; the
    /// document rows of a spilled context are made by sorted runs under `spill`.
    pub fn write_fimi(
        &self,
        path: &std::path::Path,
        orientation: super::Orientation,
        spill: &SpillConfig,
    ) -> Result<()> {
        match self {
            BuiltContext::Memory(c) => c.write_fimi(path, orientation),
            BuiltContext::Spilled(c) => c.write_fimi(path, orientation, spill),
        }
    }
}

/// Where the bounded build puts the rows it keeps.
enum Kept {
    Memory(RowGrouper),
    File(RowsWriter, ContextStats),
}

/// The body of [`Context::from_key_source`] (`held: None`: passes of the whole budget,
/// rows in memory) and [`Context::from_key_source_bounded`] (`held: Some(_)`).
fn build_from_source(
    src: &mut dyn KeySource,
    stats: &KeyStats,
    cfg: &ContextConfig,
    spill: &SpillConfig,
    keep: &dyn Fn(DocId) -> bool,
    held: Option<u64>,
) -> Result<BuiltContext> {
    cfg.validate()?;
    let n_docs = doc_count(stats.n_docs)?;
    if stats.total == 0 {
        return Ok(BuiltContext::Memory(
            RowGrouper::default().into_context(n_docs),
        ));
    }
    let total = usize::try_from(stats.total)
        .map_err(|_| Error::config("more keys than this machine can address"))?;
    let bk = Buckets::new(stats.lo, stats.hi, total);
    let mut counts = vec![0usize; bk.n];
    let out_of_range = || {
        Error::config("a key source changed between scans (a key outside the first scan's range)")
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
    // What a pass may hold, given what is kept so far (bounded build), in incidences.
    let bounded = held.filter(|_| spill.budget.is_some());
    let cheap = src.rescans_cheaply();
    let partitioned = src.partitioned();
    let buckets = (bk.n * std::mem::size_of::<usize>() * 2) as u64;
    let avail = bounded.map(|h| {
        spill
            .budget_bytes()
            .saturating_sub(h)
            .saturating_sub(buckets)
    });
    let pass_cap = |kept: u64| -> usize {
        let cap = match avail {
            // What is left beside the kept rows, and no more than what the process's
            // budget leaves beside what is resident now (`SpillConfig::room`).
            Some(a) => {
                bounded_pass_cap(spill, total, a, kept, spill.room().saturating_sub(buckets))
            }
            None if partitioned => partitioned_pass_cap(spill, total),
            None if cheap => in_memory_pass_cap(spill, total),
            None => incidence_cap(spill, total),
        };
        spill.hand("context pass", cap as u64 * PASS_BYTES_PER_INCIDENCE);
        cap
    };
    let most = if partitioned {
        MAX_PARTITIONED_PASSES
    } else {
        max_passes(spill)
    };
    if bounded.is_none() && plan_passes(&counts, pass_cap(0), most).is_none() {
        let mut b = ContextBuilder::new(cfg, spill)?;
        b.ensure_docs(u64::from(n_docs));
        src.scan(&mut |d, ks| if keep(d) { b.push_doc(d, ks) } else { Ok(()) })?;
        return Ok(BuiltContext::Memory(b.finish()?));
    }
    let mut kept = Kept::Memory(RowGrouper::default());
    let mut off = vec![0usize; bk.n];
    let mut b0 = 0usize;
    while b0 < bk.n {
        // The kept rows move to a file once they outgrow a third of what is left.
        if let (Some(a), Kept::Memory(g)) = (avail, &mut kept) {
            if g.heap_bytes() > rows_spill_at(a) {
                let g = std::mem::take(g);
                let mut w = RowsWriter::new(spill)?;
                let mut st = ContextStats::default();
                g.write_to(&mut w, &mut st)?;
                kept = Kept::File(w, st);
            }
        }
        let kept_bytes = match &kept {
            Kept::Memory(g) => g.heap_bytes(),
            Kept::File(..) => 0,
        };
        let cap = pass_cap(kept_bytes);
        let (mut b1, mut acc) = (b0, 0usize);
        while b1 < bk.n && (b1 == b0 || acc + counts[b1] <= cap) {
            acc += counts[b1];
            b1 += 1;
        }
        let pass = b0..b1;
        b0 = b1;
        let mut start = Vec::with_capacity(pass.len() + 1);
        let mut pos = 0usize;
        for b in pass.clone() {
            start.push(pos);
            off[b] = pos;
            pos += counts[b];
        }
        start.push(pos);
        let n_pass = pos;
        if n_pass == 0 {
            continue;
        }
        let mut recs: Vec<[u32; 3]> = vec![[0; 3]; n_pass];
        let (klo, khi) = bk.keys_of(&pass);
        src.scan_range(klo, khi, &mut |d, ks| {
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
        let groups = group_pass(&mut recs, &start, &bk, cfg, !stats.ascending);
        drop(recs);
        for g in groups {
            match &mut kept {
                Kept::Memory(out) => out.append(g),
                Kept::File(w, st) => g.write_to(w, st)?,
            }
        }
    }
    Ok(match kept {
        Kept::Memory(out) => BuiltContext::Memory(out.into_context(n_docs)),
        Kept::File(w, mut st) => {
            st.documents = u64::from(n_docs);
            BuiltContext::Spilled(w.finish(n_docs, st)?)
        }
    })
}
