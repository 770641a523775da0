//! A brute-force reference miner for small inputs: enumerates every frequent itemset by
//! explicit transaction-id list intersection, then filters closed / maximal sets by trying
//! every one-item extension. Independent of the fast search (no recoding, no conditional
//! databases); exponential in the number of frequent items.

use super::{Itemset, Target};
use crate::fimi::Transactions;

/// Every non-empty frequent (`Target::All`), closed or maximal itemset of `t` with support
/// at least `minsup` (treated as 1 when 0), sorted like [`super::mine`]'s output. Items
/// repeated within a transaction count once. Meant for small inputs (tests).
pub fn brute_force(t: &Transactions, minsup: u64, target: Target) -> Vec<Itemset> {
    let minsup = minsup.max(1);
    let rows: Vec<Vec<u32>> = t
        .iter()
        .map(|r| {
            let mut r = r.to_vec();
            r.sort_unstable();
            r.dedup();
            r
        })
        .collect();
    let mut items: Vec<u32> = rows.iter().flatten().copied().collect();
    items.sort_unstable();
    items.dedup();
    // Transaction ids per item.
    let tids: Vec<Vec<u32>> = items
        .iter()
        .map(|&x| {
            (0..rows.len() as u32)
                .filter(|&i| rows[i as usize].binary_search(&x).is_ok())
                .collect()
        })
        .collect();
    let freq: Vec<usize> = (0..items.len())
        .filter(|&i| tids[i].len() as u64 >= minsup)
        .collect();
    let mut all: Vec<(Vec<usize>, Vec<u32>)> = Vec::new();
    let mut stack: Vec<(Vec<usize>, Vec<u32>, usize)> = freq
        .iter()
        .enumerate()
        .map(|(k, &i)| (vec![i], tids[i].clone(), k + 1))
        .collect();
    while let Some((set, tl, next)) = stack.pop() {
        for (k, &j) in freq.iter().enumerate().skip(next) {
            let inter: Vec<u32> = tl
                .iter()
                .copied()
                .filter(|x| tids[j].binary_search(x).is_ok())
                .collect();
            if inter.len() as u64 >= minsup {
                let mut s = set.clone();
                s.push(j);
                stack.push((s, inter, k + 1));
            }
        }
        all.push((set, tl));
    }
    let mut out = Vec::new();
    for (set, tl) in &all {
        let keep = match target {
            Target::All => true,
            Target::Closed | Target::Maximal => {
                // Does some item outside the set extend it with enough support?
                let need = if target == Target::Closed {
                    tl.len() as u64
                } else {
                    minsup
                };
                !(0..items.len()).any(|j| {
                    !set.contains(&j)
                        && tl
                            .iter()
                            .filter(|x| tids[j].binary_search(x).is_ok())
                            .count() as u64
                            >= need
                })
            }
        };
        if keep {
            let mut its: Vec<u32> = set.iter().map(|&i| items[i]).collect();
            its.sort_unstable();
            out.push(Itemset {
                items: its,
                support: tl.len() as u32,
            });
        }
    }
    out.sort_unstable();
    out
}
