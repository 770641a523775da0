//! The entry points that materialize or count the itemsets ([`mine`], [`count`],
//! [`count_stats`]) and the search they share: preparation, the closure of the empty set,
//! and the top-level branches run in parallel, one sink each.
//!
//! Invariant: the branches' sinks come back in branch order, so the results do not depend on
//! the number of threads; [`mine`] sorts them.

use rayon::prelude::*;

use super::search::{self, Miner, Scratch, Sink};
use super::sink::{BufSink, CountSink, Limit, Tally};
use super::{par, prep};
use super::{Itemset, MineConfig, MineStats, Target};
use crate::fimi::Transactions;
use crate::Result;

/// Mines `t` on the current rayon pool. The result is sorted (items ascending within a set,
/// sets in ascending lexicographic order of their items) and does not depend on the number
/// of threads.
pub fn mine(t: &Transactions, cfg: &MineConfig) -> Result<Vec<Itemset>> {
    mine_impl(t, cfg, true, prep::SPLIT_MIN_ITEMS, None)
}

/// Part `part` of `parts` of what [`mine`] returns on `t`, sorted: the parts are disjoint,
/// and their union, sorted, is [`mine`]'s result, so `parts` workers holding the same
/// transactions can each mine one part. The search's top-level branches are dealt out in
/// turn (branch `e` to part `e % parts`), the closure of the empty set to part 0: a
/// branch's sets do not depend on the other branches (see `search.rs`), except for
/// maximal sets in dense mode (at most 256 frequent items), whose repositories span the
/// branches: part 0 then mines them all. Each part stops at `cfg.max_itemsets` of its own.
pub fn mine_part(
    t: &Transactions,
    cfg: &MineConfig,
    part: usize,
    parts: usize,
) -> Result<Vec<Itemset>> {
    mine_part_impl(t, cfg, part, parts, true)
}

/// [`mine_part`] restricted to the general (sparse) search mode, as
/// [`mine_sparse_mode`]: for tests.
#[doc(hidden)]
pub fn mine_part_sparse_mode(
    t: &Transactions,
    cfg: &MineConfig,
    part: usize,
    parts: usize,
) -> Result<Vec<Itemset>> {
    mine_part_impl(t, cfg, part, parts, false)
}

fn mine_part_impl(
    t: &Transactions,
    cfg: &MineConfig,
    part: usize,
    parts: usize,
    allow_dense: bool,
) -> Result<Vec<Itemset>> {
    if part >= parts {
        return Err(crate::Error::config(format!(
            "part {part} of {parts}: parts are numbered 0 to {}",
            parts.saturating_sub(1)
        )));
    }
    let split = prep::SPLIT_MIN_ITEMS;
    mine_impl(t, cfg, allow_dense, split, Some((part, parts)))
}

/// [`mine`] restricted to the general (sparse) search mode, which otherwise only runs for
/// all frequent itemsets or with more than 256 frequent items: for tests.
#[doc(hidden)]
pub fn mine_sparse_mode(t: &Transactions, cfg: &MineConfig) -> Result<Vec<Itemset>> {
    mine_impl(t, cfg, false, prep::SPLIT_MIN_ITEMS, None)
}

/// [`mine`] with the preparation's passes over the transactions run on two halves whenever
/// there are several threads and at least two transactions (otherwise only from 2^18
/// item occurrences on): for tests.
#[doc(hidden)]
pub fn mine_split_halves(t: &Transactions, cfg: &MineConfig) -> Result<Vec<Itemset>> {
    mine_impl(t, cfg, true, 0, None)
}

fn mine_impl(
    t: &Transactions,
    cfg: &MineConfig,
    allow_dense: bool,
    split_min_items: u64,
    part: Option<(usize, usize)>,
) -> Result<Vec<Itemset>> {
    let limit = Limit::new(cfg.max_itemsets);
    let (prep, _, sinks) = run(
        t,
        cfg,
        allow_dense,
        split_min_items,
        &limit,
        part,
        BufSink::new,
    )?;
    Ok(sorted_sets(&prep, &sinks, &limit))
}

/// The itemsets of `sinks`, decoded and sorted.
fn sorted_sets(prep: &prep::Prepared, sinks: &[BufSink<'_>], limit: &Limit) -> Vec<Itemset> {
    let mut out = Vec::with_capacity(limit.total() as usize);
    for b in sinks {
        b.decode_into(prep, |items, s| {
            out.push(Itemset {
                items: items.to_vec(),
                support: s,
            })
        });
    }
    out.par_sort_unstable();
    out
}

/// Counts the itemsets `mine` would return without materializing them.
pub fn count(t: &Transactions, cfg: &MineConfig) -> Result<u64> {
    Ok(count_stats(t, cfg)?.itemsets)
}

/// Like [`count`], with the figures of the run.
pub fn count_stats(t: &Transactions, cfg: &MineConfig) -> Result<MineStats> {
    let limit = Limit::new(cfg.max_itemsets);
    let split = prep::SPLIT_MIN_ITEMS;
    let (prep, minsup, _) = run(t, cfg, true, split, &limit, None, CountSink::new)?;
    Ok(stats(&prep, minsup, limit.total()))
}

/// Prepares `t` and runs the whole search (or with `part = Some((p, n))` part `p` of `n`,
/// see [`mine_part`]) into sinks made by `make`: the first sink gets the closure of the
/// empty set (in part 0 only), the others the top-level branches in order (see
/// [`run_branches`]). Every sink's count is flushed to `limit` and the limit checked.
/// Returns the preparation (to decode the sinks' items), the absolute minimum support and
/// the sinks.
fn run<'l, S: Sink + Tally + Send>(
    t: &Transactions,
    cfg: &MineConfig,
    allow_dense: bool,
    split_min_items: u64,
    limit: &'l Limit,
    part: Option<(usize, usize)>,
    make: impl Fn(&'l Limit) -> S + Sync,
) -> Result<(prep::Prepared, u64, Vec<S>)> {
    let (mut prep, minsup) = setup(t, cfg, allow_dense, split_min_items)?;
    let mut root = make(limit);
    let (part, parts) = part.unwrap_or((0, 1));
    if part == 0 {
        root_emit(&prep, cfg.target, &mut root);
    }
    let root_parts = Root::new(&mut prep);
    let m = prep.root.gid.len();
    // Maximal sets in dense mode share their repositories across the branches: one part
    // runs them all.
    let whole = parts == 1 || (cfg.target == Target::Maximal && prep.root.mw > 0);
    let branches = if whole && part > 0 {
        Vec::new()
    } else if whole {
        run_branches(&prep, &root_parts, cfg.target, minsup, 0..m, limit, make)
    } else {
        let mine: Vec<usize> = (part..m).step_by(parts).collect();
        let minsup = minsup.min(u64::from(u32::MAX)) as u32;
        each_branch(&prep, &root_parts, cfg.target, minsup, &mine, limit, make)
    };
    let mut sinks = Vec::with_capacity(branches.len() + 1);
    sinks.push(root);
    sinks.extend(branches);
    for s in &sinks {
        s.flush();
    }
    limit.check()?;
    Ok((prep, minsup, sinks))
}

pub(super) fn stats(prep: &prep::Prepared, minsup: u64, itemsets: u64) -> MineStats {
    MineStats {
        transactions: prep.n_trans,
        items: prep.n_items as u64,
        frequent_items: (prep.decode.len() + prep.closure0.len()) as u64,
        minsup,
        itemsets,
    }
}

pub(super) fn setup(
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
pub(super) fn root_emit<S: Sink>(prep: &prep::Prepared, target: Target, sink: &mut S) {
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
pub(super) struct Root {
    top: search::Top,
    suf: Vec<u64>,
}

impl Root {
    pub(super) fn new(prep: &mut prep::Prepared) -> Self {
        Root {
            top: search::Top::new(prep),
            suf: search::suffix_masks(&prep.root),
        }
    }
}

/// Runs the top-level branches `range` in parallel, one sink each, returned in order.
pub(super) fn run_branches<'l, S: Sink + Send>(
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
        let mut miner = Miner::new(minsup, target, &mut sink, Scratch::new(m));
        miner.run_top(db, top, range);
        return vec![sink];
    }
    let branches: Vec<usize> = range.collect();
    each_branch(prep, root, target, minsup, &branches, limit, make)
}

/// Runs each top-level branch of `branches` alone (no repository shared between branches),
/// in parallel, one sink each, returned in the order of `branches`: what the search gives
/// whenever the branches do not depend on one another (see [`mine_part`]).
fn each_branch<'l, S: Sink + Send>(
    prep: &prep::Prepared,
    root: &Root,
    target: Target,
    minsup: u32,
    branches: &[usize],
    limit: &'l Limit,
    make: impl Fn(&'l Limit) -> S + Sync,
) -> Vec<S> {
    let db = &prep.root;
    let (top, suf) = (&root.top, &root.suf);
    let m = db.gid.len();
    branches
        .par_iter()
        .copied()
        .map_init(
            || Scratch::new(m),
            |sc, e| {
                let mut sink = make(limit);
                if limit.hit() {
                    return sink;
                }
                let scratch = std::mem::replace(sc, Scratch::new(0));
                let mut miner = Miner::new(minsup, target, &mut sink, scratch);
                miner.qmask = vec![0; db.mw];
                miner.branch(db, top, e, &suf[e * db.mw..(e + 1) * db.mw]);
                *sc = miner.sc;
                sink
            },
        )
        .collect()
}
