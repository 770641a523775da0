//! Dense mode, top level: a prefix tree (FP-tree) of the root rows, from which the rows of
//! each top-level branch are read as prefix paths instead of being projected row by row.
//!
//! Built by [`prepare`](super::prep::prepare) in place of merged root rows: the distinct
//! transactions (merged by their code masks, with counts), codes in descending order (most
//! frequent first), are inserted from the root one by one, so the rows holding code `e` pass
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
    /// The tree of the rows `tx[off[r]..off[r + 1]]` (distinct, non-empty, codes strictly
    /// descending), row `r` standing for `weight[r]` identical transactions, over `n_codes`
    /// codes, masks of `mw` words: each row is inserted from the root, following or creating
    /// the child of each of its codes (children in sibling lists, as in an FP-tree), so a
    /// node is created after its parent. `masks[r * mw..(r + 1) * mw]` is row `r`'s set of
    /// codes (its transactions' mask), which the row's last node takes.
    pub fn from_desc_rows(
        tx: &[u32],
        off: &[usize],
        weight: &[u32],
        masks: &[u64],
        n_codes: usize,
        mw: usize,
    ) -> Self {
        let mut t = Trie {
            code: vec![u32::MAX],
            parent: vec![u32::MAX],
            weight: vec![0],
            mask: vec![!0; mw],
            mw,
            start: vec![0; n_codes + 1],
            by_code: Vec::new(),
        };
        const NONE: u32 = u32::MAX;
        let mut first_child: Vec<u32> = vec![NONE];
        let mut next_sib: Vec<u32> = vec![NONE];
        for (r, (w, &rw)) in off.windows(2).zip(weight).enumerate() {
            let row = &tx[w[0]..w[1]];
            let mut n = 0u32;
            for &c in row {
                let mut ch = first_child[n as usize];
                while ch != NONE && t.code[ch as usize] != c {
                    ch = next_sib[ch as usize];
                }
                if ch == NONE {
                    ch = t.code.len() as u32;
                    t.code.push(c);
                    t.parent.push(n);
                    t.weight.push(0);
                    t.mask.resize(t.mask.len() + mw, !0u64);
                    first_child.push(NONE);
                    next_sib.push(first_child[n as usize]);
                    first_child[n as usize] = ch;
                }
                n = ch;
            }
            let n = n as usize;
            t.weight[n] += rw;
            t.mask[n * mw..(n + 1) * mw].copy_from_slice(&masks[r * mw..(r + 1) * mw]);
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
