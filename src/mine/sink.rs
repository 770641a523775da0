//! Where the search reports itemsets: the shared itemset limit ([`Limit`]), a sink that
//! only counts ([`CountSink`]) and one that buffers coded itemsets ([`BufSink`]), decoded
//! back to the original items ([`decode`]).
//!
//! Invariants: every itemset a sink takes is counted towards the limit once flushed; a
//! buffer decodes its itemsets in the order they were emitted, items ascending with the
//! closure of the empty set included.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::prep;
use super::search::Sink;
use crate::{Error, Result};

/// The `--max-itemsets` guard, shared by the threads.
pub(super) struct Limit {
    max: Option<u64>,
    total: AtomicU64,
    hit: AtomicBool,
}

impl Limit {
    pub(super) fn new(max: Option<u64>) -> Self {
        Limit {
            max,
            total: AtomicU64::new(0),
            hit: AtomicBool::new(false),
        }
    }
    fn add(&self, n: u64) -> bool {
        let t = self.total.fetch_add(n, Ordering::Relaxed) + n;
        if self.max.is_some_and(|m| t > m) {
            self.hit.store(true, Ordering::Relaxed);
            return false;
        }
        true
    }
    pub(super) fn hit(&self) -> bool {
        self.hit.load(Ordering::Relaxed)
    }
    pub(super) fn total(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }
    pub(super) fn check(&self) -> Result<()> {
        check_itemset_limit(self.total(), self.max)
    }
}

/// The itemset limit's refusal: an error when `n` itemsets are more than `max`.
pub fn check_itemset_limit(n: u64, max: Option<u64>) -> Result<()> {
    match max {
        Some(m) if n > m => Err(Error::Limit(format!(
            "more than {m} itemsets (the itemset limit); raise the limit or the minimum support"
        ))),
        _ => Ok(()),
    }
}

/// A sink that counts its itemsets towards the shared [`Limit`].
pub(super) trait Tally {
    /// Reports the itemsets not yet reported to the limit.
    fn flush(&self);
}

/// Counts, reporting to the shared limit every 4096 itemsets.
pub(super) struct CountSink<'l> {
    pending: std::cell::Cell<u64>,
    limit: &'l Limit,
}

impl<'l> CountSink<'l> {
    pub(super) fn new(limit: &'l Limit) -> Self {
        CountSink {
            pending: std::cell::Cell::new(0),
            limit,
        }
    }
    #[inline]
    pub(super) fn tick(&mut self) -> bool {
        let p = self.pending.get() + 1;
        if p >= 4096 {
            self.pending.set(0);
            return self.limit.add(p) && !self.limit.hit();
        }
        self.pending.set(p);
        true
    }
}

impl Tally for CountSink<'_> {
    fn flush(&self) {
        let p = self.pending.replace(0);
        if p > 0 {
            self.limit.add(p);
        }
    }
}

impl Sink for CountSink<'_> {
    #[inline]
    fn emit(&mut self, _codes: &[u32], _support: u32) -> bool {
        self.tick()
    }
}

/// Buffers itemsets as `[len, support, codes...]` records.
pub(super) struct BufSink<'l> {
    data: Vec<u32>,
    count: CountSink<'l>,
}

impl<'l> BufSink<'l> {
    pub(super) fn new(limit: &'l Limit) -> Self {
        BufSink {
            data: Vec::new(),
            count: CountSink::new(limit),
        }
    }

    /// Calls `f(items, support)` for every record in order, items as sorted original ids
    /// (with the closure of the empty set), and flushes the count to the limit.
    pub(super) fn decode_into(&self, prep: &prep::Prepared, mut f: impl FnMut(&[u32], u32)) {
        self.count.flush();
        let mut items = Vec::new();
        let mut i = 0;
        while i < self.data.len() {
            let len = self.data[i] as usize;
            let s = self.data[i + 1];
            decode(prep, &self.data[i + 2..i + 2 + len], &mut items);
            f(&items, s);
            i += 2 + len;
        }
    }
}

impl Tally for BufSink<'_> {
    fn flush(&self) {
        self.count.flush()
    }
}

impl Sink for BufSink<'_> {
    #[inline]
    fn emit(&mut self, codes: &[u32], support: u32) -> bool {
        self.data.push(codes.len() as u32);
        self.data.push(support);
        self.data.extend_from_slice(codes);
        self.count.tick()
    }
}

pub(super) fn decode(prep: &prep::Prepared, codes: &[u32], items: &mut Vec<u32>) {
    items.clear();
    items.extend_from_slice(&prep.closure0);
    items.extend(codes.iter().map(|&c| prep.decode[c as usize]));
    items.sort_unstable();
}
