//! Frequent itemset mining: maximal, closed and all frequent itemsets of a list of
//! [`Transactions`](crate::fimi::Transactions), plus a brute-force reference miner.
//!
//! Items are recoded by ascending support (infrequent ones dropped, items repeated within a
//! transaction counted once), items present in every transaction are set aside (the closure of
//! the empty set: reported as a closed set when non-empty), identical transactions merged;
//! then an LCM-style depth-first search with FPmax-style maximality repositories runs
//! (`search.rs` describes it; in dense mode the top-level branches read their rows from a
//! prefix tree, `trie.rs`, and maximal sets on several threads go through `par.rs`). Entry points: [`mine`] (materialized, sorted), [`count`] /
//! [`count_stats`] (nothing materialized), [`write_itemsets`] (streamed `i1 i2 ... (s)` lines).
//!
//! Invariants: results do not depend on the number of threads; itemsets have ascending items;
//! [`mine`] returns them sorted, [`write_itemsets`] in the search order (deterministic).
//! Non-empty itemsets only.

/// What to mine.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// Frequent itemsets with no frequent proper superset.
    #[default]
    Maximal,
    /// Frequent itemsets with no proper superset of equal support.
    Closed,
    /// Every frequent itemset.
    All,
}

/// A frequent itemset and its support.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Itemset {
    /// Items, ascending.
    pub items: Vec<u32>,
    /// Number of transactions that contain every item.
    pub support: u32,
}

mod brute;
mod db;
mod par;
mod prep;
mod search;
mod trie;

use std::io::Write;
use std::path::Path;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rayon::prelude::*;

pub use brute::brute_force;

use crate::fimi::Transactions;
use crate::{Error, Result};
use search::{Miner, Scratch, Sink};

impl Target {
    /// The lowercase name (`maximal`, `closed`, `all`).
    pub fn as_str(self) -> &'static str {
        match self {
            Target::Maximal => "maximal",
            Target::Closed => "closed",
            Target::All => "all",
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Target {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "maximal" | "m" => Ok(Target::Maximal),
            "closed" | "c" => Ok(Target::Closed),
            "all" | "frequent" | "s" => Ok(Target::All),
            _ => Err(Error::config(format!(
                "unknown target {s:?}: expected maximal, closed or all"
            ))),
        }
    }
}

/// Minimum support: an absolute number of transactions or a fraction of them.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum MinSupport {
    /// At least this many transactions (>= 1).
    Absolute(u64),
    /// At least `ceil(fraction * transactions)` transactions; the fraction is in (0, 1].
    Relative(f64),
}

impl Default for MinSupport {
    fn default() -> Self {
        MinSupport::Absolute(1)
    }
}

impl MinSupport {
    /// The absolute minimum support for `n_transactions`: the number itself, or
    /// `ceil(fraction * n)` (a product within 1e-9 relative of an integer counts as that
    /// integer, so that `70%` of 10 is 7 despite floating point), and never below 1.
    pub fn resolve(&self, n_transactions: usize) -> u64 {
        match *self {
            MinSupport::Absolute(a) => a.max(1),
            MinSupport::Relative(f) => {
                let x = f * n_transactions as f64;
                let r = x.round();
                let v = if (x - r).abs() <= 1e-9 * x.abs().max(1.0) {
                    r
                } else {
                    x.ceil()
                };
                (v as u64).max(1)
            }
        }
    }

    fn validate(&self) -> Result<()> {
        match *self {
            MinSupport::Absolute(0) => Err(Error::config("minimum support must be at least 1")),
            MinSupport::Relative(f) if !(f > 0.0 && f <= 1.0) => Err(Error::config(format!(
                "relative minimum support must be in (0%, 100%], got {}%",
                f * 100.0
            ))),
            _ => Ok(()),
        }
    }
}

impl std::fmt::Display for MinSupport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MinSupport::Absolute(a) => write!(f, "{a}"),
            MinSupport::Relative(r) => write!(f, "{}%", r * 100.0),
        }
    }
}

impl FromStr for MinSupport {
    type Err = Error;
    /// `"1918"` (absolute), `"60%"` (percent of the transactions) or `"0.6"` (a fraction,
    /// any number with a decimal point).
    fn from_str(s: &str) -> Result<Self> {
        let t = s.trim();
        let bad = || {
            Error::config(format!(
                "bad minimum support {s:?}: expected a count such as 1918, a percentage such as 60% or a fraction such as 0.6"
            ))
        };
        let m = if let Some(p) = t.strip_suffix('%') {
            let v: f64 = p.trim().parse().map_err(|_| bad())?;
            MinSupport::Relative(v / 100.0)
        } else if t.bytes().all(|b| b.is_ascii_digit()) && !t.is_empty() {
            MinSupport::Absolute(t.parse().map_err(|_| bad())?)
        } else if t.contains('.') {
            MinSupport::Relative(t.parse().map_err(|_| bad())?)
        } else {
            return Err(bad());
        };
        m.validate()?;
        Ok(m)
    }
}

/// What and how to mine.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MineConfig {
    /// Minimum support.
    pub minsup: MinSupport,
    /// Maximal, closed or all frequent itemsets.
    pub target: Target,
    /// Stop with [`Error::Limit`] when more itemsets than this would be produced.
    pub max_itemsets: Option<u64>,
}

impl MineConfig {
    /// Checks the values (minimum support >= 1, or a fraction in (0, 1]).
    pub fn validate(&self) -> Result<()> {
        self.minsup.validate()
    }
}

/// Figures about one run.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MineStats {
    /// Transactions (empty ones included).
    pub transactions: u64,
    /// Distinct items in the input.
    pub items: u64,
    /// Items with support >= the absolute minimum support.
    pub frequent_items: u64,
    /// The absolute minimum support used.
    pub minsup: u64,
    /// Itemsets found.
    pub itemsets: u64,
}

/// Mines `t` on the current rayon pool. The result is sorted (items ascending within a set,
/// sets in ascending lexicographic order of their items) and does not depend on the number
/// of threads.
pub fn mine(t: &Transactions, cfg: &MineConfig) -> Result<Vec<Itemset>> {
    mine_impl(t, cfg, true, prep::SPLIT_MIN_ITEMS)
}

/// [`mine`] restricted to the general (sparse) search mode, which otherwise only runs for
/// all frequent itemsets or with more than 256 frequent items: for tests.
#[doc(hidden)]
pub fn mine_sparse_mode(t: &Transactions, cfg: &MineConfig) -> Result<Vec<Itemset>> {
    mine_impl(t, cfg, false, prep::SPLIT_MIN_ITEMS)
}

/// [`mine`] with the preparation's passes over the transactions run on two halves whenever
/// there are several threads and at least two transactions (otherwise only from 2^18
/// item occurrences on): for tests.
#[doc(hidden)]
pub fn mine_split_halves(t: &Transactions, cfg: &MineConfig) -> Result<Vec<Itemset>> {
    mine_impl(t, cfg, true, 0)
}

fn mine_impl(
    t: &Transactions,
    cfg: &MineConfig,
    allow_dense: bool,
    split_min_items: u64,
) -> Result<Vec<Itemset>> {
    let limit = Limit::new(cfg.max_itemsets);
    let (prep, _, sinks) = run(t, cfg, allow_dense, split_min_items, &limit, BufSink::new)?;
    let mut out = Vec::with_capacity(limit.total() as usize);
    for b in &sinks {
        b.decode_into(&prep, |items, s| {
            out.push(Itemset {
                items: items.to_vec(),
                support: s,
            })
        });
    }
    out.par_sort_unstable();
    Ok(out)
}

/// Counts the itemsets `mine` would return without materializing them.
pub fn count(t: &Transactions, cfg: &MineConfig) -> Result<u64> {
    Ok(count_stats(t, cfg)?.itemsets)
}

/// Like [`count`], with the figures of the run.
pub fn count_stats(t: &Transactions, cfg: &MineConfig) -> Result<MineStats> {
    let limit = Limit::new(cfg.max_itemsets);
    let (prep, minsup, _) = run(t, cfg, true, prep::SPLIT_MIN_ITEMS, &limit, CountSink::new)?;
    Ok(stats(&prep, minsup, limit.total()))
}

/// Prepares `t` and runs the whole search into sinks made by `make`: the first sink gets the
/// closure of the empty set, the others the top-level branches in order (see
/// [`run_branches`]). Every sink's count is flushed to `limit` and the limit checked. Returns
/// the preparation (to decode the sinks' items), the absolute minimum support and the sinks.
fn run<'l, S: Sink + Tally + Send>(
    t: &Transactions,
    cfg: &MineConfig,
    allow_dense: bool,
    split_min_items: u64,
    limit: &'l Limit,
    make: impl Fn(&'l Limit) -> S + Sync,
) -> Result<(prep::Prepared, u64, Vec<S>)> {
    let (mut prep, minsup) = setup(t, cfg, allow_dense, split_min_items)?;
    let mut root = make(limit);
    root_emit(&prep, cfg.target, &mut root);
    let root_parts = Root::new(&mut prep);
    let branches = run_branches(
        &prep,
        &root_parts,
        cfg.target,
        minsup,
        0..prep.root.gid.len(),
        limit,
        make,
    );
    let mut sinks = Vec::with_capacity(branches.len() + 1);
    sinks.push(root);
    sinks.extend(branches);
    for s in &sinks {
        s.flush();
    }
    limit.check()?;
    Ok((prep, minsup, sinks))
}

/// Mines `t` and writes the itemsets to `out`, one per line as `i1 i2 ... (support)` with
/// items ascending; `label` names the output in errors. Lines come in the search order
/// (the set of items in every transaction first, then branch by branch in ascending order of
/// item frequency), which is deterministic and independent of the thread count; on one
/// thread they are streamed as found, on more they are buffered a few branches at a time.
pub fn write_itemsets<W: Write>(
    t: &Transactions,
    cfg: &MineConfig,
    out: &mut W,
    label: &Path,
) -> Result<MineStats> {
    let (mut prep, minsup) = setup(t, cfg, true, prep::SPLIT_MIN_ITEMS)?;
    let limit = Limit::new(cfg.max_itemsets);
    let mut line = LineWriter::new(out, label);
    let mut root = BufSink::new(&limit);
    root_emit(&prep, cfg.target, &mut root);
    root.decode_into(&prep, |items, s| line.write(items, s));
    let m = prep.root.gid.len();
    let threads = rayon::current_num_threads();
    if threads <= 1 {
        let top = search::Top::new(&mut prep);
        let mut sink = WriteSink {
            limit: CountSink::new(&limit),
            prep: &prep,
            line: &mut line,
            items: Vec::new(),
        };
        let mut miner = Miner {
            minsup: minsup.min(u64::from(u32::MAX)) as u32,
            target: cfg.target,
            sink: &mut sink,
            q: Vec::new(),
            sc: Scratch::new(m),
            stopped: false,
            repos: Vec::new(),
            qmask: Vec::new(),
            grepos: Vec::new(),
        };
        miner.run_top(&prep.root, &top, 0..m);
        sink.limit.flush();
    } else {
        // Maximal sets: one pass (the waves share one repository); others: a few
        // branches at a time.
        let window = if cfg.target == Target::Maximal {
            m
        } else {
            threads * 4
        };
        let root = Root::new(&mut prep);
        let mut lo = 0;
        while lo < m && !limit.hit() {
            let hi = (lo + window).min(m);
            let bufs = run_branches(
                &prep,
                &root,
                cfg.target,
                minsup,
                lo..hi,
                &limit,
                BufSink::new,
            );
            for b in &bufs {
                b.decode_into(&prep, |items, s| line.write(items, s));
            }
            lo = hi;
        }
    }
    limit.check()?;
    line.finish()?;
    Ok(stats(&prep, minsup, limit.total()))
}

fn stats(prep: &prep::Prepared, minsup: u64, itemsets: u64) -> MineStats {
    MineStats {
        transactions: prep.n_trans,
        items: prep.n_items as u64,
        frequent_items: (prep.decode.len() + prep.closure0.len()) as u64,
        minsup,
        itemsets,
    }
}

fn setup(
    t: &Transactions,
    cfg: &MineConfig,
    allow_dense: bool,
    split_min_items: u64,
) -> Result<(prep::Prepared, u64)> {
    cfg.validate()?;
    let minsup = cfg.minsup.resolve(t.len());
    let dense = allow_dense && cfg.target != Target::All;
    let prep = prep::prepare(t, minsup, cfg.target != Target::All, dense, split_min_items)?;
    Ok((prep, minsup))
}

/// Reports the closure of the empty set (closed; maximal when nothing else is frequent).
fn root_emit<S: Sink>(prep: &prep::Prepared, target: Target, sink: &mut S) {
    if prep.closure0.is_empty() {
        return;
    }
    let report = match target {
        Target::Closed => true,
        Target::Maximal => prep.root.gid.is_empty(),
        Target::All => false,
    };
    if report {
        sink.emit(&[], prep.n_trans as u32);
    }
}

/// What the top-level branches share: how they get their rows, and the suffix masks.
struct Root {
    top: search::Top,
    suf: Vec<u64>,
}

impl Root {
    fn new(prep: &mut prep::Prepared) -> Self {
        Root {
            top: search::Top::new(prep),
            suf: search::suffix_masks(&prep.root),
        }
    }
}

/// Runs the top-level branches `range` in parallel, one sink each, returned in order.
fn run_branches<'l, S: Sink + Send>(
    prep: &prep::Prepared,
    root: &Root,
    target: Target,
    minsup: u64,
    range: std::ops::Range<usize>,
    limit: &'l Limit,
    make: impl Fn(&'l Limit) -> S + Sync,
) -> Vec<S> {
    let db = &prep.root;
    let (top, suf) = (&root.top, &root.suf);
    let m = db.gid.len();
    let minsup = minsup.min(u64::from(u32::MAX)) as u32;
    if rayon::current_num_threads() > 1 && target == Target::Maximal && db.mw > 0 {
        // Dense maximal sets: branches in parallel, seeded with the sets of the branches
        // finished before, then filtered (par.rs).
        let mut sinks: Vec<S> = range.clone().map(|_| make(limit)).collect();
        par::dense_maximal(db, top, suf, minsup, range, |i, codes, s| {
            sinks[i].emit(codes, s)
        });
        return sinks;
    }
    if rayon::current_num_threads() <= 1 {
        // One search over all branches, sharing the maximal-set repository.
        let mut sink = make(limit);
        let mut miner = Miner {
            minsup,
            target,
            sink: &mut sink,
            q: Vec::new(),
            sc: Scratch::new(m),
            stopped: false,
            repos: Vec::new(),
            qmask: Vec::new(),
            grepos: Vec::new(),
        };
        miner.run_top(db, top, range);
        return vec![sink];
    }
    range
        .into_par_iter()
        .map_init(
            || Scratch::new(m),
            |sc, e| {
                let mut sink = make(limit);
                if limit.hit() {
                    return sink;
                }
                let mut miner = Miner {
                    minsup,
                    target,
                    sink: &mut sink,
                    q: Vec::new(),
                    sc: std::mem::replace(sc, Scratch::new(0)),
                    stopped: false,
                    repos: Vec::new(),
                    qmask: vec![0; db.mw],
                    grepos: Vec::new(),
                };
                miner.branch(db, top, e, &suf[e * db.mw..(e + 1) * db.mw]);
                *sc = miner.sc;
                sink
            },
        )
        .collect()
}

/// The `--max-itemsets` guard, shared by the threads.
struct Limit {
    max: Option<u64>,
    total: AtomicU64,
    hit: AtomicBool,
}

impl Limit {
    fn new(max: Option<u64>) -> Self {
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
    fn hit(&self) -> bool {
        self.hit.load(Ordering::Relaxed)
    }
    fn total(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }
    fn check(&self) -> Result<()> {
        match self.max {
            Some(m) if self.total() > m => Err(Error::Limit(format!(
                "more than {m} itemsets (the itemset limit); raise the limit or the minimum support"
            ))),
            _ => Ok(()),
        }
    }
}

/// A sink that counts its itemsets towards the shared [`Limit`].
trait Tally {
    /// Reports the itemsets not yet reported to the limit.
    fn flush(&self);
}

/// Counts, reporting to the shared limit every 4096 itemsets.
struct CountSink<'l> {
    pending: std::cell::Cell<u64>,
    limit: &'l Limit,
}

impl<'l> CountSink<'l> {
    fn new(limit: &'l Limit) -> Self {
        CountSink {
            pending: std::cell::Cell::new(0),
            limit,
        }
    }
    #[inline]
    fn tick(&mut self) -> bool {
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
struct BufSink<'l> {
    data: Vec<u32>,
    count: CountSink<'l>,
}

impl<'l> BufSink<'l> {
    fn new(limit: &'l Limit) -> Self {
        BufSink {
            data: Vec::new(),
            count: CountSink::new(limit),
        }
    }

    /// Calls `f(items, support)` for every record in order, items as sorted original ids
    /// (with the closure of the empty set), and flushes the count to the limit.
    fn decode_into(&self, prep: &prep::Prepared, mut f: impl FnMut(&[u32], u32)) {
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

fn decode(prep: &prep::Prepared, codes: &[u32], items: &mut Vec<u32>) {
    items.clear();
    items.extend_from_slice(&prep.closure0);
    items.extend(codes.iter().map(|&c| prep.decode[c as usize]));
    items.sort_unstable();
}

/// Formats `i1 i2 ... (support)` lines, remembering the first write error.
struct LineWriter<'w, W: Write> {
    out: &'w mut W,
    label: &'w Path,
    buf: Vec<u8>,
    err: Option<std::io::Error>,
}

impl<'w, W: Write> LineWriter<'w, W> {
    fn new(out: &'w mut W, label: &'w Path) -> Self {
        LineWriter {
            out,
            label,
            buf: Vec::with_capacity(1 << 16),
            err: None,
        }
    }

    fn write(&mut self, items: &[u32], support: u32) {
        let mut f = itoa::Buffer::new();
        for &x in items {
            self.buf.extend_from_slice(f.format(x).as_bytes());
            self.buf.push(b' ');
        }
        self.buf.push(b'(');
        self.buf.extend_from_slice(f.format(support).as_bytes());
        self.buf.extend_from_slice(b")\n");
        if self.buf.len() >= 1 << 16 {
            self.drain();
        }
    }

    fn drain(&mut self) {
        if self.err.is_none() {
            if let Err(e) = self.out.write_all(&self.buf) {
                self.err = Some(e);
            }
        }
        self.buf.clear();
    }

    fn finish(mut self) -> Result<()> {
        self.drain();
        if self.err.is_none() {
            if let Err(e) = self.out.flush() {
                self.err = Some(e);
            }
        }
        match self.err.take() {
            Some(e) => Err(Error::io(self.label, e)),
            None => Ok(()),
        }
    }
}

/// Streams itemsets straight to a [`LineWriter`] (single thread).
struct WriteSink<'a, 'l, 'w, W: Write> {
    limit: CountSink<'l>,
    prep: &'a prep::Prepared,
    line: &'a mut LineWriter<'w, W>,
    items: Vec<u32>,
}

impl<W: Write> Sink for WriteSink<'_, '_, '_, W> {
    fn emit(&mut self, codes: &[u32], support: u32) -> bool {
        decode(self.prep, codes, &mut self.items);
        self.line.write(&self.items, support);
        self.limit.tick() && self.line.err.is_none()
    }
}
