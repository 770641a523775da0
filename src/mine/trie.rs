//! Dense mode, top level: a prefix tree (FP-tree) of the root rows, from which the rows of
//! each top-level branch are read as prefix paths instead of being projected row by row.
//!
//! Built by [`prepare`](super::prep::prepare) in place of merged root rows: the distinct
//! transactions (merged by their code masks, with counts), codes in descending order (most
//! frequent first), are inserted from the root one by one (sorted by mask, each along its
//! common prefix with the previous one), so the rows holding code `e` pass
//! through the nodes of `e`, and the part of such a row above `e`
//! (its codes `> e`) is the path from the node up to the root. A node carries the number of
//! transactions through it and the AND of their masks (items common to all their
//! transactions, excluded items included). [`Trie::branch_db`] turns the nodes of `e` into a
//! small database whose rows are `[e, path codes ascending]`: the same weighted rows, grouped,
//! as the root rows holding `e` restricted to the codes `>= e`, which is all the dense search
//! reads of them (its rows hold only tail items; closures come from the masks).
//!
//! Invariants: node 0 is the root (no code); a node's code is below its parent's; the rows of
//! one branch database are strictly ascending and pairwise distinct.

use super::db::Db;

/// The prefix tree of the transactions, over codes, with masks.
pub(crate) struct Trie {
    code: Vec<u32>,
    parent: Vec<u32>,
    weight: Vec<u32>,
    /// `mw` words per node.
    mask: Vec<u64>,
    mw: usize,
    /// Nodes of code `c`: `by_code[start[c]..start[c + 1]]`.
    start: Vec<u32>,
    by_code: Vec<u32>,
}

impl Trie {
    /// The tree of the distinct transactions given by their code masks
    /// (`masks[r * mw..(r + 1) * mw]`, non-zero, pairwise distinct, at most 4 words), row `r`
    /// standing for `weight[r]` identical transactions, over `n_codes` codes; a row's codes
    /// are inserted in descending order and its last node takes its mask. The rows are
    /// inserted in the order of their masks read as integers (highest code the most
    /// significant bit): rows sharing a prefix of codes are then consecutive, and a row
    /// shares with the previous one exactly its codes above the highest code where the two
    /// masks differ, so it follows the previous row's path that far and creates the rest
    /// (no search among siblings; the codes come from the sorted keys, so the rows are read
    /// in sequence). A node is created after its parent.
    pub fn from_masks(weight: &[u32], masks: &[u64], n_codes: usize, mw: usize) -> Self {
        assert!((1..=4).contains(&mw), "masks of 1 to 4 words");
        let n_rows = weight.len();
        let mut t = Trie {
            code: Vec::with_capacity(n_rows * 2 + 1),
            parent: Vec::with_capacity(n_rows * 2 + 1),
            weight: Vec::with_capacity(n_rows * 2 + 1),
            mask: Vec::with_capacity((n_rows * 2 + 1) * mw),
            mw,
            start: vec![0; n_codes + 1],
            by_code: Vec::new(),
        };
        t.code.push(u32::MAX);
        t.parent.push(u32::MAX);
        t.weight.push(0);
        t.mask.resize(mw, !0);
        // Sort keys: the mask words, most significant first (key word `k` is mask word
        // `mw - 1 - k`).
        let mut order: Vec<([u64; 4], u32)> = (0..n_rows)
            .map(|r| {
                let mut key = [0u64; 4];
                for (k, slot) in key.iter_mut().take(mw).enumerate() {
                    *slot = masks[r * mw + mw - 1 - k];
                }
                (key, r as u32)
            })
            .collect();
        order.sort_unstable();
        let mut path: Vec<u32> = Vec::new();
        let mut prev = [0u64; 4];
        for (i, &(key, r)) in order.iter().enumerate() {
            // (k, b): key word and bit of the highest code where this row and the previous
            // one differ (the first row shares nothing); `shared` codes lie above it.
            let (mut k, mut b, mut shared) = (0, 63u32, 0usize);
            if i > 0 {
                k = (0..mw)
                    .find(|&k| key[k] != prev[k])
                    .expect("distinct masks");
                b = 63 - (key[k] ^ prev[k]).leading_zeros();
                shared = key[..k]
                    .iter()
                    .map(|w| w.count_ones() as usize)
                    .sum::<usize>()
                    + key[k].checked_shr(b + 1).unwrap_or(0).count_ones() as usize;
            }
            path.truncate(shared);
            let mut n = path.last().copied().unwrap_or(0);
            for (kk, &word) in key.iter().enumerate().take(mw).skip(k) {
                let mut bits = if kk == k {
                    word & (u64::MAX >> (63 - b))
                } else {
                    word
                };
                let base = (mw - 1 - kk) as u32 * 64;
                while bits != 0 {
                    let hi = 63 - bits.leading_zeros();
                    bits &= !(1u64 << hi);
                    let id = t.code.len() as u32;
                    t.code.push(base + hi);
                    t.parent.push(n);
                    t.weight.push(0);
                    t.mask.resize(t.mask.len() + mw, !0u64);
                    path.push(id);
                    n = id;
                }
            }
            let (n, r) = (n as usize, r as usize);
            t.weight[n] += weight[r];
            t.mask[n * mw..(n + 1) * mw].copy_from_slice(&masks[r * mw..(r + 1) * mw]);
            prev = key;
        }
        t.finish();
        t
    }

    /// Ends the construction: propagates weights (sums) and masks (intersections) from the
    /// nodes where transactions end up to the root, and indexes the nodes by code.
    fn finish(&mut self) {
        let mw = self.mw;
        // Children are created after their parents: reverse id order is bottom-up.
        for id in (1..self.code.len()).rev() {
            let p = self.parent[id] as usize;
            self.weight[p] += self.weight[id];
            let (lo, hi) = self.mask.split_at_mut(id * mw);
            for (a, b) in lo[p * mw..(p + 1) * mw].iter_mut().zip(&hi[..mw]) {
                *a &= b;
            }
        }
        let m = self.start.len() - 1;
        let start = &mut self.start;
        start.fill(0);
        for &c in &self.code[1..] {
            start[c as usize + 1] += 1;
        }
        for i in 1..=m {
            start[i] += start[i - 1];
        }
        let mut by_code = vec![0u32; self.code.len() - 1];
        let mut fill = start.clone();
        for (id, &c) in self.code.iter().enumerate().skip(1) {
            let f = &mut fill[c as usize];
            by_code[*f as usize] = id as u32;
            *f += 1;
        }
        self.by_code = by_code;
    }

    /// Fills `out` (its buffers reused) with the branch database of code `e` of `root`
    /// (the prepared root, whose `gid`, `sup` and `mw` it copies):
    /// one row `[e, codes above the node ascending]` per node of `e`, with the node's weight
    /// and mask; `gid`, `sup` and `mw` as in `root`, `tail_start` 0.
    pub fn branch_db(&self, root: &Db, e: u32, out: &mut Db) {
        let mw = self.mw;
        out.gid.clear();
        out.gid.extend_from_slice(&root.gid);
        out.sup.clear();
        out.sup.extend_from_slice(&root.sup);
        out.tail_start = 0;
        out.mw = mw;
        out.tx.clear();
        out.off.clear();
        out.off.push(0);
        out.w.clear();
        out.mask.clear();
        let e = e as usize;
        for &node in &self.by_code[self.start[e] as usize..self.start[e + 1] as usize] {
            let node = node as usize;
            out.tx.push(e as u32);
            let mut p = self.parent[node] as usize;
            while p != 0 {
                out.tx.push(self.code[p]);
                p = self.parent[p] as usize;
            }
            out.off.push(out.tx.len() as u32);
            out.w.push(self.weight[node]);
            out.mask
                .extend_from_slice(&self.mask[node * mw..(node + 1) * mw]);
        }
    }
}
