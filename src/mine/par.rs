//! Dense maximal mining on several threads: top-level branches run in parallel, started in
//! order from a shared counter, each seeded with the sets found by the branches that had
//! finished when it started; a final filter drops the candidates inside a set of an earlier
//! branch that was still running.
//!
//! Why the result is the sequential one, in the same order: a set of branch `e` holds `e` and
//! only items after it, so it can only lie inside a set of branch `e' < e` (which holds `e'`)
//! or of branch `e` itself. Within a branch the FPmax order reports supersets first, and the
//! branch's own repository holds all its earlier sets, so its candidates are exactly its
//! sets not inside an earlier set of the branch; a seed (frequent sets of earlier branches)
//! only prunes subtrees and candidates that hold no maximal set, so every maximal set of the
//! branch is still reported, at the same point of the branch's search. The filter then
//! removes the candidates inside a set of an earlier branch absent from the seed. Candidates
//! of other branches that are themselves not maximal may seed and filter: they are frequent
//! sets, and a set strictly inside a frequent set is not maximal.
//!
//! Invariants: the output (sets, supports, order) is the same for any number of threads and
//! any timing; `--max-itemsets` counts only the sets that pass the filter.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::db::Db;
use super::search::{Miner, Scratch, Sink, Top};
use super::Target;

/// The candidates of one branch: `[len, support, codes...]` records and one mask each.
struct Cands {
    recs: Vec<u32>,
    masks: Vec<u64>,
    w: usize,
}

impl Sink for Cands {
    fn emit(&mut self, codes: &[u32], support: u32) -> bool {
        self.recs.push(codes.len() as u32);
        self.recs.push(support);
        self.recs.extend_from_slice(codes);
        let base = self.masks.len();
        self.masks.resize(base + self.w, 0);
        for &c in codes {
            self.masks[base + c as usize / 64] |= 1 << (c % 64);
        }
        true
    }
}

/// What a finished branch leaves: its candidates, and which earlier branches it was seeded
/// with.
struct Done {
    recs: Vec<u32>,
    masks: Arc<Vec<u64>>,
    seeded: Vec<bool>,
}

#[inline]
fn inside(x: &[u64], m: &[u64]) -> bool {
    x.iter().zip(m).all(|(a, b)| a & b == *a)
}

/// Mines the maximal sets of the top-level branches `range` of `root` (dense mode, masks of
/// `root.mw` words) on the current rayon pool, calling `out(i, codes, support)` for branch
/// `range.start + i` in order, its sets in the search order. `out` returns false to stop.
pub(crate) fn dense_maximal(
    root: &Db,
    top: &Top,
    suf: &[u64],
    minsup: u32,
    range: std::ops::Range<usize>,
    mut out: impl FnMut(usize, &[u32], u32) -> bool,
) {
    let w = root.mw;
    let m = root.gid.len();
    let n = range.len();
    let lo = range.start;
    let next = AtomicUsize::new(0);
    let masks: Mutex<Vec<Option<Arc<Vec<u64>>>>> = Mutex::new(vec![None; n]);
    let done: Mutex<Vec<Option<Done>>> = Mutex::new((0..n).map(|_| None).collect());
    let workers = rayon::current_num_threads().min(n).max(1);
    rayon::scope(|s| {
        for _ in 0..workers {
            s.spawn(|_| {
                let mut sc = Scratch::new(m);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    let e = lo + i;
                    let finished: Vec<(usize, Arc<Vec<u64>>)> = masks.lock().unwrap()[..i]
                        .iter()
                        .enumerate()
                        .filter_map(|(j, a)| a.as_ref().map(|a| (j, Arc::clone(a))))
                        .collect();
                    let mut seeded = vec![false; i];
                    let mut seed = Vec::new();
                    for (j, a) in &finished {
                        seeded[*j] = true;
                        for x in a.chunks_exact(w) {
                            if x[e / 64] >> (e % 64) & 1 == 1 {
                                seed.extend_from_slice(x);
                            }
                        }
                    }
                    let mut cands = Cands {
                        recs: Vec::new(),
                        masks: Vec::new(),
                        w,
                    };
                    let mut miner = Miner {
                        minsup,
                        target: Target::Maximal,
                        sink: &mut cands,
                        q: Vec::new(),
                        sc: std::mem::replace(&mut sc, Scratch::new(0)),
                        stopped: false,
                        repos: Vec::new(),
                        qmask: vec![0; w],
                        grepos: vec![seed],
                    };
                    miner.branch(root, top, e, &suf[e * w..(e + 1) * w]);
                    sc = miner.sc;
                    let a = Arc::new(cands.masks);
                    masks.lock().unwrap()[i] = Some(Arc::clone(&a));
                    done.lock().unwrap()[i] = Some(Done {
                        recs: cands.recs,
                        masks: a,
                        seeded,
                    });
                }
            });
        }
    });
    let done: Vec<Done> = done
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|d| d.expect("every branch ran"))
        .collect();
    // The filter, branch by branch in parallel: keep[i][k] for candidate k of branch i.
    use rayon::prelude::*;
    let keep: Vec<Vec<bool>> = (0..n)
        .into_par_iter()
        .map(|i| {
            let e = lo + i;
            let d = &done[i];
            let mut others = Vec::new();
            for (j, dj) in done[..i].iter().enumerate() {
                if d.seeded[j] {
                    continue;
                }
                for x in dj.masks.chunks_exact(w) {
                    if x[e / 64] >> (e % 64) & 1 == 1 {
                        others.extend_from_slice(x);
                    }
                }
            }
            d.masks
                .chunks_exact(w)
                .map(|x| !others.chunks_exact(w).any(|o| inside(x, o)))
                .collect()
        })
        .collect();
    for (i, (d, keep)) in done.iter().zip(&keep).enumerate() {
        let mut p = 0;
        for &k in keep {
            let len = d.recs[p] as usize;
            let s = d.recs[p + 1];
            if k && !out(i, &d.recs[p + 2..p + 2 + len], s) {
                return;
            }
            p += 2 + len;
        }
    }
}
