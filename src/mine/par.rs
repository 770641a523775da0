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

use bitvec::vec::BitVec;

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
    seeded: BitVec,
}

/// For each set of `cands` (bitsets of `w` words), a bit set when it lies inside no set of
/// `others`. Vertical: one bitset over `others` per item; a candidate's items' bitsets are
/// intersected rarest first, over the words still nonzero, stopping when nothing is left.
fn outside_all(cands: &[u64], others: &[u64], w: usize) -> BitVec {
    let k = others.len() / w;
    if k == 0 {
        return BitVec::repeat(true, cands.len() / w);
    }
    let kw = k.div_ceil(64);
    let nbits = w * 64;
    let mut cols = vec![0u64; nbits * kw];
    let mut pop = vec![0u32; nbits];
    for (j, o) in others.chunks_exact(w).enumerate() {
        for (q, &word) in o.iter().enumerate() {
            let mut b = word;
            while b != 0 {
                let c = q * 64 + b.trailing_zeros() as usize;
                b &= b - 1;
                cols[c * kw + j / 64] |= 1 << (j % 64);
                pop[c] += 1;
            }
        }
    }
    let mut items: Vec<usize> = Vec::new();
    let mut acc: Vec<(u32, u64)> = Vec::new();
    cands
        .chunks_exact(w)
        .map(|x| {
            items.clear();
            for (q, &word) in x.iter().enumerate() {
                let mut b = word;
                while b != 0 {
                    items.push(q * 64 + b.trailing_zeros() as usize);
                    b &= b - 1;
                }
            }
            if items.is_empty() {
                return false;
            }
            items.sort_unstable_by_key(|&c| (pop[c], c));
            let first = items[0];
            if pop[first] == 0 {
                return true;
            }
            acc.clear();
            acc.extend(
                cols[first * kw..(first + 1) * kw]
                    .iter()
                    .enumerate()
                    .filter(|(_, &v)| v != 0)
                    .map(|(i, &v)| (i as u32, v)),
            );
            for &c in &items[1..] {
                let col = &cols[c * kw..(c + 1) * kw];
                acc.retain_mut(|(i, v)| {
                    *v &= col[*i as usize];
                    *v != 0
                });
                if acc.is_empty() {
                    return true;
                }
            }
            false
        })
        .collect()
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
                    let mut seeded = BitVec::repeat(false, i);
                    let mut seed = Vec::new();
                    for (j, a) in &finished {
                        seeded.set(*j, true);
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
                    let scratch = std::mem::replace(&mut sc, Scratch::new(0));
                    let mut miner = Miner::new(minsup, Target::Maximal, &mut cands, scratch);
                    miner.qmask = vec![0; w];
                    miner.grepos = vec![seed];
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
    let keep: Vec<BitVec> = (0..n)
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
            outside_all(&d.masks, &others, w)
        })
        .collect();
    for (i, (d, keep)) in done.iter().zip(&keep).enumerate() {
        let mut p = 0;
        for k in keep.iter().by_vals() {
            let len = d.recs[p] as usize;
            let s = d.recs[p + 1];
            if k && !out(i, &d.recs[p + 2..p + 2 + len], s) {
                return;
            }
            p += 2 + len;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::outside_all;

    /// The vertical filter agrees with the pairwise subset test.
    #[test]
    fn outside_all_equals_pairwise() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let (mut seen_in, mut seen_out) = (false, false);
        for w in 1..=3usize {
            for round in 0..40 {
                // Few distinct items so that containment happens often.
                let span = 3 + round % 9;
                let mut set = |n: usize| -> Vec<u64> {
                    let mut v = vec![0u64; n * w];
                    for x in v.chunks_exact_mut(w) {
                        for _ in 0..1 + next() % 4 {
                            let c = (next() % span as u64) as usize * (w * 64 / span.max(1)).max(1);
                            let c = c.min(w * 64 - 1);
                            x[c / 64] |= 1 << (c % 64);
                        }
                    }
                    v
                };
                let cands = set(30);
                let others = set((round % 5) * 40);
                let want: bitvec::vec::BitVec = cands
                    .chunks_exact(w)
                    .map(|x| {
                        !others
                            .chunks_exact(w)
                            .any(|o| x.iter().zip(o).all(|(a, b)| a & b == *a))
                    })
                    .collect();
                assert_eq!(outside_all(&cands, &others, w), want, "w {w} round {round}");
                seen_in |= want.not_all();
                seen_out |= want.any();
            }
        }
        assert!(seen_in && seen_out, "the cases cover both outcomes");
    }
}
