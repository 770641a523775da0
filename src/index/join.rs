//! The candidate pairs of a sweep's new documents, found by a join of postings in key
//! order instead of one query a document.
//!
//! A sweep's new documents are the last segment, whose postings are in memory and sorted
//! by key. Walking them key by key, each key's new documents meet the documents the older
//! segments list under that key (a lookup a distinct key, in ascending key order, so a
//! mapped segment's pages are read front to back, each once) and the new documents before
//! them under that key; every such pair is one shared key. Each new document's partners
//! are gathered in a slot of its own, sorted and counted, and the pairs sharing at least
//! `need` keys are the candidates, exactly those that [`Index::scan`] of each new document
//! (keeping `j < i`) counts; the candidates go on to the estimate as the scan's do.
//!
//! Memory: a first walk counts each new document's incidences with the others (an upper
//! bound of its partners, the size of its slot); the new documents are then taken in
//! passes of at most [`INDEX_JOIN_PAIRS`] incidences (a document alone above it is a pass
//! of its own), each pass a walk of the new postings that holds its slots (4 bytes an
//! incidence) and nothing else of size.

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use super::Index;
use crate::plan::INDEX_JOIN_PAIRS;
use crate::Result;

/// Pieces of the new postings a thread walks (each a key range; the older segments'
/// pages of a walked piece are released).
const WALK_PARTS: usize = 32;

impl Index {
    /// The pairs `(j, i)`: `i` a document of the last segment (the new documents of a
    /// sweep), `j < i` not removed, sharing at least `need(i)` keys of the context;
    /// handed to `each` a pass of new documents at a time, each pass's ascending by
    /// `(i, j)`.
    pub(super) fn new_pairs(
        &self,
        need: &(dyn Fn(u32) -> u32 + Sync),
        mut each: impl FnMut(Vec<(u32, u32)>) -> Result<()>,
    ) -> Result<()> {
        let Some(last) = self.segments.last() else {
            return Ok(());
        };
        let new = &last.context;
        let n = last.len as usize;
        let olds = &self.segments[..self.segments.len() - 1];
        let cuts = new.key_cuts(WALK_PARTS * rayon::current_num_threads());
        let any_deleted = !self.deleted.is_empty();
        // Each new document's incidences with the others, summed over its keys.
        let weights = cuts
            .par_windows(2)
            .try_fold(
                || vec![0u64; n],
                |mut w, c| -> Result<Vec<u64>> {
                    for (k, ds) in new.groups_in(c[0], c[1]) {
                        let mut old = 0u64;
                        for s in olds {
                            old += s.context.get(k)?.len() as u64;
                        }
                        for (x, &i) in ds.iter().enumerate() {
                            w[i as usize] += old + x as u64;
                        }
                    }
                    self.release_passed(c);
                    Ok(w)
                },
            )
            .try_reduce(
                || vec![0u64; n],
                |mut a, b| {
                    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                    Ok(a)
                },
            )?;
        let mut from = 0u32;
        let mut held = 0u64;
        for (i, &w) in weights.iter().enumerate() {
            if held > 0 && held + w > INDEX_JOIN_PAIRS {
                each(self.pass(&cuts, (from, i as u32), &weights, any_deleted, need)?)?;
                (from, held) = (i as u32, 0);
            }
            held += w;
        }
        if (from as usize) < n {
            each(self.pass(&cuts, (from, n as u32), &weights, any_deleted, need)?)?;
        }
        Ok(())
    }

    /// One pass of [`Index::new_pairs`]: the new documents of local ids `lo .. hi`, whose
    /// incidences with the others are at most `weights` each. Each document's partners are
    /// scattered into its own slot of one array (sized by the weights), then each slot is
    /// sorted and its runs counted.
    fn pass(
        &self,
        cuts: &[usize],
        (lo, hi): (u32, u32),
        weights: &[u64],
        any_deleted: bool,
        need: &(dyn Fn(u32) -> u32 + Sync),
    ) -> Result<Vec<(u32, u32)>> {
        let last = self.segments.last().expect("a segment");
        let (new, base) = (&last.context, last.base);
        let olds = &self.segments[..self.segments.len() - 1];
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
        cuts.par_windows(2).try_for_each(|c| -> Result<()> {
            for (k, ds) in new.groups_in(c[0], c[1]) {
                let (a, z) = (
                    ds.partition_point(|&d| d < lo),
                    ds.partition_point(|&d| d < hi),
                );
                if a == z {
                    continue;
                }
                for s in olds {
                    let od = s.context.get(k)?;
                    for &i in &ds[a..z] {
                        for &o in od {
                            let j = s.base + o;
                            if !(any_deleted && self.deleted.contains(j)) {
                                put(i, j);
                            }
                        }
                    }
                }
                for x in a..z {
                    for &e in &ds[..x] {
                        put(ds[x], base + e);
                    }
                }
            }
            self.release_passed(c);
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
                let (gi, want) = (base + i, need(base + i) as usize);
                let mut out = Vec::new();
                let mut y = 0;
                while y < js.len() {
                    let mut e = y + 1;
                    while e < js.len() && js[e] == js[y] {
                        e += 1;
                    }
                    if e - y >= want {
                        out.push((js[y], gi));
                    }
                    y = e;
                }
                out
            })
            .collect();
        Ok(found.into_iter().flatten().collect())
    }

    /// Drops from memory the pages of the older segments' postings that a walk of the new
    /// postings' incidences `c[0] .. c[1]` has passed (their keys' range).
    fn release_passed(&self, c: &[usize]) {
        let last = self.segments.last().expect("a segment");
        let mut g = last.context.groups_in(c[0], c[1]);
        let Some((lo, _)) = g.next() else {
            return;
        };
        let hi = g.last().map_or(lo, |(k, _)| k);
        for s in &self.segments[..self.segments.len() - 1] {
            s.context.release(lo, hi);
        }
    }
}
