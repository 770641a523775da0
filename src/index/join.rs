//! The candidate pairs of a sweep's new documents, found by a join of postings in key
//! order instead of one query a document.
//!
//! A sweep's new documents are the last segment, whose postings are in memory. The
//! documents of a pass take their keys in key order: each key's documents meet the
//! documents the older segments list under that key (one lookup a distinct key, in
//! ascending key order, so a mapped segment's pages are read front to back, once a pass,
//! and released behind the walk) and the new documents before them under that key;
//! every such pair is one shared key. Each new document's partners are gathered in a slot
//! of its own, sorted and counted, and the pairs sharing at least `need` keys are the
//! candidates, exactly those that [`Index::scan`] of each new document (keeping `j < i`)
//! counts; the candidates go on to the estimate as the scan's do.
//!
//! Memory: a first walk of the new postings counts each new document's incidences with
//! the others (an upper bound of its partners, the size of its slot); the new documents
//! are then taken in passes of at most the incidences the memory plan gives
//! ([`index_join_pairs`]: [`INDEX_JOIN_PAIRS`] without a budget, a document alone above it
//! is a pass of its own), each holding its documents' keys (16 bytes a key) and its slots
//! (4 bytes an incidence) and nothing else of size. The pairs found do not depend on the
//! passes.

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use super::Index;
#[cfg(doc)]
use crate::plan::{index_join_pairs, INDEX_JOIN_PAIRS};
use crate::Result;

/// Pieces of a walk a thread takes (each a key range; the older segments' pages of a
/// walked piece are released).
const WALK_PARTS: usize = 32;

impl Index {
    /// The pairs `(j, i)`: `i` a document of the last segment (the new documents of a
    /// sweep), `j < i` not removed, sharing at least `need(i)` keys of the context;
    /// handed to `each` a pass of new documents (of at most `pass_pairs` incidences, or
    /// one document) at a time, each pass's ascending by `(i, j)`.
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
            if held > 0 && held + w > pass_pairs {
                each(self.pass((from, i as u32), &weights, any_deleted, need)?)?;
                (from, held) = (i as u32, 0);
            }
            held += w;
        }
        if (from as usize) < n {
            each(self.pass((from, n as u32), &weights, any_deleted, need)?)?;
        }
        Ok(())
    }

    /// One pass of [`Index::new_pairs`]: the new documents of local ids `lo .. hi`, whose
    /// incidences with the others are at most `weights` each. Each document's partners are
    /// scattered into its own slot of one array (sized by the weights), then each slot is
    /// sorted and its runs counted.
    fn pass(
        &self,
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
        // The pass's documents' keys, in key order, cut into pieces at key boundaries.
        let scheme = self.params.sketch.scheme;
        let mut keys: Vec<(u64, u32)> = (lo..hi)
            .into_par_iter()
            .map_init(Vec::new, |ks, i| -> Result<Vec<(u64, u32)>> {
                ks.clear();
                self.images.get(base + i)?.keys(scheme, ks);
                Ok(ks.iter().map(|&k| (k, i)).collect())
            })
            .collect::<Result<Vec<_>>>()?
            .concat();
        keys.par_sort_unstable();
        let parts = WALK_PARTS * rayon::current_num_threads();
        let mut pieces = vec![0];
        for p in 1..parts {
            let at = keys.len() * p / parts;
            let at = at + keys[at..].partition_point(|x| at > 0 && x.0 == keys[at - 1].0);
            if at > *pieces.last().expect("a piece") && at < keys.len() {
                pieces.push(at);
            }
        }
        pieces.push(keys.len());
        pieces.par_windows(2).try_for_each(|c| -> Result<()> {
            let piece = &keys[c[0]..c[1]];
            let mut g = 0;
            while g < piece.len() {
                let k = piece[g].0;
                let mut e = g + 1;
                while e < piece.len() && piece[e].0 == k {
                    e += 1;
                }
                let is = &piece[g..e];
                for s in olds {
                    let od = s.context.get(k)?;
                    for &(_, i) in is {
                        for &o in od {
                            let j = s.base + o;
                            if !(any_deleted && self.deleted.contains(j)) {
                                put(i, j);
                            }
                        }
                    }
                }
                let nd = new.get(k)?;
                for &(_, i) in is {
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
