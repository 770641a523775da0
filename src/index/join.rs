//! The candidate pairs of a sweep's new documents, found by a join of postings in key order
//! instead of one query a document, over each new document's rarest keys only.
//!
//! A sweep's new documents are the last segment, whose postings are in memory. A new
//! document `i` at or above the threshold with a document `j` shares at least `need(i)`
//! ([`min_shared`]) of its `n` distinct keys, so it shares one of any `n - need + 1` of
//! them (pigeonhole). Its *prefix* is its keys counted in at most `bound(i)` documents of
//! all segments, `bound(i)` the `(n - need + 1)`-th smallest of its keys' counts: at least
//! `n - need + 1` keys, the rarest (the crate's one prefix rule, [`PrefixFilter`], in the
//! order of the keys' document counts; only `i`'s prefix is needed, the older documents'
//! keys are all walked). The common keys, whose lists hold most of the incidences, are
//! walked only by documents with fewer rare keys than that. The documents of a pass take
//! their prefix keys in key order: each key's documents meet the documents the older
//! segments list under that key (one lookup a distinct key, in ascending key order, so a
//! mapped segment's pages are read front to back, once a pass, and released behind the
//! walk) and the new documents before them under that key. Each new document's partners are
//! gathered in a slot of its own and made distinct: every `j < i` (not removed) that shares
//! a prefix key with `i`, a superset of the documents [`Index::scan`] of `i` keeps; the
//! candidates go on to the estimate, which decides.
//!
//! Memory: a first walk counts every new key's documents in the older segments (8 bytes a
//! distinct new key that an older segment holds, held to the end) and gathers each new
//! document's key counts above 1 (2 bytes a new incidence, saturated, freed once the bounds
//! are known: 4 bytes a document); a second walk counts each new document's prefix
//! incidences with the others (an upper bound of its partners, the size of its slot); the
//! new documents are then taken in passes of at most the incidences the memory plan gives
//! ([`index_join_pairs`]: [`INDEX_JOIN_PAIRS`] without a budget, a document alone above it
//! is a pass of its own), each holding its documents' prefix keys (16 bytes a key) and its
//! slots (4 bytes an incidence) and nothing else of size. The pairs found do not depend on
//! the passes.

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

#[cfg(doc)]
use super::min_shared;
use super::Index;
use crate::context::PrefixFilter;
#[cfg(doc)]
use crate::plan::{index_join_pairs, INDEX_JOIN_PAIRS};
use crate::Result;

/// Pieces of a walk a thread takes (each a key range; the older segments' pages of a
/// walked piece are released).
const WALK_PARTS: usize = 32;

impl Index {
    /// The pairs `(j, i)`: `i` a document of the last segment (the new documents of a
    /// sweep), `j < i` not removed, sharing at least one of `i`'s prefix keys (see the
    /// module docs; `need(i)` the shared keys a document at the threshold has); handed to
    /// `each` a pass of new documents (of at most `pass_pairs` incidences, or one
    /// document) at a time, each pass's ascending by `(i, j)`. Every pair sharing
    /// `need(i)` keys is among them.
    pub(super) fn new_pairs(
        &self,
        need: &(dyn Fn(u32) -> u32 + Sync),
        pass_pairs: u64,
        mut each: impl FnMut(Vec<(u32, u32)>) -> Result<()>,
    ) -> Result<()> {
        let Some(last) = self.segments.last() else {
            return Ok(());
        };
        let new = &last.context;
        let n = last.len as usize;
        let olds = &self.segments[..self.segments.len() - 1];
        let cuts = new.key_cuts(WALK_PARTS * rayon::current_num_threads());
        // Each new key's documents in the older segments, a piece of the walk at a time,
        // those above 0 only (most of a batch's keys are new): `(group, count)`, the
        // group's place in its piece. Nothing when there is no older segment.
        let older: Vec<Vec<(u32, u32)>> = cuts
            .par_windows(2)
            .filter(|_| !olds.is_empty())
            .map(|c| -> Result<Vec<(u32, u32)>> {
                let mut v = Vec::new();
                for (g, (k, _)) in new.groups_in(c[0], c[1]).enumerate() {
                    let mut o = 0u32;
                    for s in olds {
                        o = o.saturating_add(s.context.get(k)?.len() as u32);
                    }
                    if o > 0 {
                        v.push((g as u32, o));
                    }
                }
                self.release_passed(c);
                Ok(v)
            })
            .collect::<Result<_>>()?;
        let walk = Walk {
            index: self,
            cuts: &cuts,
            older: &older,
        };
        let bound = walk.bounds(n, need)?;
        // Each new document's prefix incidences with the others.
        let weights: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
        (0..walk.pieces()).into_par_iter().for_each(|p| {
            for (_, ds, o, count) in walk.groups(p) {
                for (x, &i) in ds.iter().enumerate() {
                    if count <= bound[i as usize] {
                        weights[i as usize].fetch_add(o as u64 + x as u64, Ordering::Relaxed);
                    }
                }
            }
        });
        let weights: Vec<u64> = weights.into_iter().map(AtomicU64::into_inner).collect();
        let any_deleted = !self.deleted.is_empty();
        let mut from = 0u32;
        let mut held = 0u64;
        for (i, &w) in weights.iter().enumerate() {
            if held > 0 && held + w > pass_pairs {
                each(walk.pass((from, i as u32), &weights, &bound, any_deleted)?)?;
                (from, held) = (i as u32, 0);
            }
            held += w;
        }
        if (from as usize) < n {
            each(walk.pass((from, n as u32), &weights, &bound, any_deleted)?)?;
        }
        Ok(())
    }

    /// Drops from memory the pages of the older segments' postings that a walk of the new
    /// postings' incidences `c[0] .. c[1]` has passed (their keys' range).
    fn release_passed(&self, c: &[usize]) {
        let last = self.segments.last().expect("a segment");
        let Some((lo, hi)) = last.context.key_span(c[0], c[1]) else {
            return;
        };
        for s in &self.segments[..self.segments.len() - 1] {
            s.context.release(lo, hi);
        }
    }
}

/// The walk of the new postings in pieces (`cuts`), with each piece's keys' documents in
/// the older segments (`older`, the counts above 0 with their group's place in the piece;
/// empty when there is no older segment).
struct Walk<'a> {
    index: &'a Index,
    cuts: &'a [usize],
    older: &'a [Vec<(u32, u32)>],
}

impl Walk<'_> {
    /// The number of pieces.
    fn pieces(&self) -> usize {
        self.cuts.len().saturating_sub(1)
    }

    /// The key groups of piece `p`: each key, its new documents, its count of documents
    /// in the older segments and its count in all segments.
    fn groups(&self, p: usize) -> impl Iterator<Item = (u64, &[u32], u32, u32)> + '_ {
        let new = &self.index.segments.last().expect("a segment").context;
        let mut older = self
            .older
            .get(p)
            .map_or(&[][..], |v| &v[..])
            .iter()
            .peekable();
        new.groups_in(self.cuts[p], self.cuts[p + 1])
            .enumerate()
            .map(move |(g, (k, ds))| {
                let o = match older.peek() {
                    Some(&&(at, o)) if at as usize == g => {
                        older.next();
                        o
                    }
                    _ => 0,
                };
                (k, ds, o, o.saturating_add(ds.len() as u32))
            })
    }

    /// Each new document's prefix bound: the `(n - need + 1)`-th smallest of its `n` keys'
    /// counts of documents in all segments ([`PrefixFilter::Shared`], the crate's one
    /// prefix rule; saturated at `u16::MAX`, which keeps the bound at or above the true
    /// one), 0 when no key of its prefix is held by another document. Only the counts
    /// above 1 are gathered (2 bytes each): a key of one document is the rarest there is.
    fn bounds(&self, n: usize, need: &(dyn Fn(u32) -> u32 + Sync)) -> Result<Vec<u32>> {
        let last = self.index.segments.last().expect("a segment");
        let new = &last.context;
        // Each document's keys, and among them those in more than one document.
        let mut keys = vec![0u32; n];
        for &d in new.all_docs() {
            keys[d as usize] += 1;
        }
        let shared: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
        let each_shared = |f: &(dyn Fn(u32, u16) + Sync)| {
            (0..self.pieces()).into_par_iter().for_each(|p| {
                for (_, ds, _, count) in self.groups(p) {
                    if count > 1 {
                        let count = count.min(u16::MAX as u32) as u16;
                        for &i in ds {
                            f(i, count);
                        }
                    }
                }
            })
        };
        each_shared(&|i, _| {
            shared[i as usize].fetch_add(1, Ordering::Relaxed);
        });
        let mut starts = Vec::with_capacity(n + 1);
        let mut at = 0usize;
        for s in &shared {
            starts.push(at);
            at += s.swap(0, Ordering::Relaxed) as usize;
        }
        starts.push(at);
        let counts: Vec<AtomicU16> = (0..at).map(|_| AtomicU16::new(0)).collect();
        each_shared(&|i, count| {
            let x = shared[i as usize].fetch_add(1, Ordering::Relaxed) as usize;
            counts[starts[i as usize] + x].store(count, Ordering::Relaxed);
        });
        Ok((0..n)
            .into_par_iter()
            .map_init(Vec::new, |v: &mut Vec<u16>, i| {
                v.clear();
                v.extend(
                    counts[starts[i]..starts[i + 1]]
                        .iter()
                        .map(|c| c.load(Ordering::Relaxed)),
                );
                // The keys of one document rank first and pair nothing: the prefix's
                // keys that other documents hold too, the rarest `p` of them.
                let k = need(last.base + i as u32);
                let p = PrefixFilter::Shared { k }.prefix_of_shared(keys[i] as usize, v.len());
                if p == 0 {
                    return 0;
                }
                let (_, b, _) = v.select_nth_unstable(p - 1);
                match *b {
                    u16::MAX => u32::MAX,
                    b => b as u32,
                }
            })
            .collect())
    }

    /// One pass of [`Index::new_pairs`]: the new documents of local ids `lo .. hi`, whose
    /// prefix incidences with the others are at most `weights` each. Each document's
    /// partners are scattered into its own slot of one array (sized by the weights), then
    /// each slot is sorted and made distinct.
    fn pass(
        &self,
        (lo, hi): (u32, u32),
        weights: &[u64],
        bound: &[u32],
        any_deleted: bool,
    ) -> Result<Vec<(u32, u32)>> {
        let index = self.index;
        let last = index.segments.last().expect("a segment");
        let (new, base) = (&last.context, last.base);
        let olds = &index.segments[..index.segments.len() - 1];
        let mut starts = Vec::with_capacity((hi - lo) as usize + 1);
        let mut at = 0usize;
        for &w in &weights[lo as usize..hi as usize] {
            starts.push(at);
            at += w as usize;
        }
        starts.push(at);
        let slots: Vec<AtomicU32> = (0..at).map(|_| AtomicU32::new(0)).collect();
        let fill: Vec<AtomicU32> = (lo..hi).map(|_| AtomicU32::new(0)).collect();
        let put = |i: u32, j: u32| {
            let x = (i - lo) as usize;
            let c = fill[x].fetch_add(1, Ordering::Relaxed) as usize;
            slots[starts[x] + c].store(j, Ordering::Relaxed);
        };
        // The pass's documents' prefix keys in key order, a piece of the walk each (a key
        // with no document in the older segments meets only the new ones).
        let pieces: Vec<Vec<(u64, u32, u32)>> = (0..self.pieces())
            .into_par_iter()
            .map(|p| {
                let mut v = Vec::new();
                for (k, ds, o, count) in self.groups(p) {
                    let from = ds.partition_point(|&i| i < lo);
                    // A document first under a key no older segment lists meets no one.
                    for (x, &i) in ds
                        .iter()
                        .enumerate()
                        .skip(from)
                        .take_while(|&(_, &i)| i < hi)
                    {
                        if count <= bound[i as usize] && (o > 0 || x > 0) {
                            v.push((k, i, o));
                        }
                    }
                }
                v
            })
            .collect();
        pieces.par_iter().try_for_each(|piece| -> Result<()> {
            let mut g = 0;
            while g < piece.len() {
                let (k, _, o) = piece[g];
                let mut e = g + 1;
                while e < piece.len() && piece[e].0 == k {
                    e += 1;
                }
                let is = &piece[g..e];
                if o > 0 {
                    for s in olds {
                        let od = s.context.get(k)?;
                        for &(_, i, _) in is {
                            for &o in od {
                                let j = s.base + o;
                                if !(any_deleted && index.deleted.contains(j)) {
                                    put(i, j);
                                }
                            }
                        }
                    }
                }
                let nd = new.get(k)?;
                for &(_, i, _) in is {
                    for &e in &nd[..nd.partition_point(|&e| e < i)] {
                        put(i, base + e);
                    }
                }
                g = e;
            }
            if let (Some(first), Some(last)) = (piece.first(), piece.last()) {
                for s in olds {
                    s.context.release(first.0, last.0);
                }
            }
            Ok(())
        })?;
        let found: Vec<Vec<(u32, u32)>> = (lo..hi)
            .into_par_iter()
            .map_init(Vec::new, |js, i| {
                let x = (i - lo) as usize;
                let n = fill[x].load(Ordering::Relaxed) as usize;
                js.clear();
                js.extend(
                    slots[starts[x]..starts[x] + n]
                        .iter()
                        .map(|v| v.load(Ordering::Relaxed)),
                );
                js.sort_unstable();
                js.dedup();
                js.iter().map(|&j| (j, base + i)).collect()
            })
            .collect();
        Ok(found.into_iter().flatten().collect())
    }
}
