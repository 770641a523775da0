//! Dense mode, top level: a prefix tree (FP-tree) of the root rows, from which the rows of
//! each top-level branch are read as prefix paths instead of being projected row by row.
//!
//! Built by [`prepare`](super::prep::prepare) in place of merged root rows. Transactions are
//! inserted with their codes in descending order (most frequent first), so the
//! rows holding code `e` pass through the nodes of `e`, and the part of such a row above `e`
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
    /// (parent << 32 | code) -> child, while inserting.
    children: hashbrown::HashMap<u64, u32>,
}

impl Trie {
    /// An empty tree over `n_codes` codes with masks of `mw` words.
    pub fn new(n_codes: usize, mw: usize) -> Self {
        Trie {
            code: vec![u32::MAX],
            parent: vec![u32::MAX],
            weight: vec![0],
            mask: vec![!0; mw],
            mw,
            start: vec![0; n_codes + 1],
            by_code: Vec::new(),
            children: hashbrown::HashMap::new(),
        }
    }

    /// Adds a transaction: its codes strictly descending, and its mask (its codes' bits).
    /// Weights and masks are summed / intersected up the tree by [`Trie::finish`].
    pub fn insert(&mut self, desc: &[u32], mask: &[u64]) {
        let mw = self.mw;
        let mut node = 0u32;
        for &c in desc {
            let key = (u64::from(node) << 32) | u64::from(c);
            let next = self.code.len() as u32;
            node = *self.children.entry(key).or_insert(next);
            if node == next {
                self.code.push(c);
                self.parent.push((key >> 32) as u32);
                self.weight.push(0);
                self.mask.extend(std::iter::repeat(!0u64).take(mw));
            }
        }
        let n = node as usize;
        self.weight[n] += 1;
        for (a, b) in self.mask[n * mw..(n + 1) * mw].iter_mut().zip(mask) {
            *a &= b;
        }
    }

    /// Ends the insertions: propagates weights (sums) and masks (intersections) from the
    /// nodes where transactions end up to the root, and indexes the nodes by code.
    pub fn finish(&mut self) {
        self.children = hashbrown::HashMap::new();
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
