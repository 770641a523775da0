//! The depth-first search over weighted conditional databases (LCM-style occurrence delivery
//! with database reduction, closed sets by prefix-preserving closure extension).
//!
//! Items are visited in code order (ascending support). A node is a closed set `Q` whose
//! conditional database holds every item that is frequent in the transactions containing `Q`
//! and not in `Q`: the *tail* items (code above the last added item `e`, the extension
//! candidates) and the *excluded* items (code below `e`). For the child `Q ∪ {e'}`:
//!
//! - an excluded item present in all its transactions means the closure is generated elsewhere
//!   (prefix-preserving test, Uno et al.'s LCM): the child and its subtree are skipped;
//! - tail items present in all its transactions join the closure;
//! - for maximal sets, a closed set is maximal exactly when its conditional database holds no
//!   frequent item at all, a test that is local to the node (so the top-level branches run in
//!   parallel with no shared state and the result does not depend on the thread count).
//!
//! For `Target::All` the excluded items are dropped and every extension is reported.

use super::db::{Db, RowMerger};
use super::Target;

/// Receives the itemsets found, as global codes (unsorted) and support.
pub(crate) trait Sink {
    /// Returns false to stop the search.
    fn emit(&mut self, codes: &[u32], support: u32) -> bool;
}

/// Reusable scratch for one search thread.
pub(crate) struct Scratch {
    cnt: Vec<u32>,
    map: Vec<u32>,
    touched: Vec<u32>,
    row: Vec<u32>,
}

impl Scratch {
    pub fn new(n: usize) -> Self {
        Scratch {
            cnt: vec![0; n],
            map: vec![u32::MAX; n],
            touched: Vec::new(),
            row: Vec::new(),
        }
    }
}

/// Occurrence lists of the tail items of a database: `occ[start[i]..start[i + 1]]` are the
/// rows holding tail item `tail_start + i`.
pub(crate) struct Occ {
    pub start: Vec<u32>,
    pub occ: Vec<u32>,
}

pub(crate) fn occurrences(db: &Db) -> Occ {
    let m = db.gid.len();
    let ts = db.tail_start as usize;
    let mut start = vec![0u32; m - ts + 1];
    for &x in &db.tx {
        let x = x as usize;
        if x >= ts {
            start[x - ts + 1] += 1;
        }
    }
    for i in 1..start.len() {
        start[i] += start[i - 1];
    }
    let mut fill = start.clone();
    let mut occ = vec![0u32; *start.last().unwrap() as usize];
    for r in 0..db.n_rows() {
        for &x in db.row(r) {
            let x = x as usize;
            if x >= ts {
                let f = &mut fill[x - ts];
                occ[*f as usize] = r as u32;
                *f += 1;
            }
        }
    }
    Occ { start, occ }
}

/// The search state of one thread.
pub(crate) struct Miner<'a, S: Sink> {
    pub minsup: u32,
    pub target: Target,
    pub sink: &'a mut S,
    pub q: Vec<u32>,
    pub sc: Scratch,
    pub stopped: bool,
}

impl<S: Sink> Miner<'_, S> {
    /// Explores every tail item of `db` (the node's set is in `self.q`).
    pub fn expand(&mut self, db: &Db) {
        let occ = occurrences(db);
        let ts = db.tail_start as usize;
        for e in ts..db.gid.len() {
            if self.stopped {
                return;
            }
            let i = e - ts;
            let rows = &occ.occ[occ.start[i] as usize..occ.start[i + 1] as usize];
            self.child(db, e as u32, rows);
        }
    }

    /// Processes the extension of the current set by local item `e` of `db`, whose rows are
    /// `rows`.
    pub fn child(&mut self, db: &Db, e: u32, rows: &[u32]) {
        let s = db.sup[e as usize];
        let minsup = self.minsup;
        let sc = &mut self.sc;
        sc.touched.clear();
        for &r in rows {
            let r = r as usize;
            let w = db.w[r];
            for &x in db.row(r) {
                let c = &mut sc.cnt[x as usize];
                if *c == 0 {
                    sc.touched.push(x);
                }
                *c += w;
            }
        }
        let all = self.target == Target::All;
        let q0 = self.q.len();
        if !all {
            // Prefix-preserving test: an excluded item in every row rejects the child.
            if sc.touched.iter().any(|&x| x < e && sc.cnt[x as usize] == s) {
                for &x in &sc.touched {
                    sc.cnt[x as usize] = 0;
                }
                return;
            }
        }
        sc.touched.sort_unstable();
        self.q.push(db.gid[e as usize]);
        // Decide which items the child keeps.
        let mut n_excl = 0u32;
        let mut n_kept = 0u32;
        for &x in &sc.touched {
            let c = sc.cnt[x as usize];
            if x == e {
                continue;
            }
            if all {
                if x > e && c >= minsup {
                    sc.map[x as usize] = n_kept;
                    n_kept += 1;
                }
            } else if c == s {
                // x > e here (the test above rejected the others): closure item.
                self.q.push(db.gid[x as usize]);
            } else if c >= minsup {
                sc.map[x as usize] = n_kept;
                n_kept += 1;
                if x < e {
                    n_excl += 1;
                }
            }
        }
        let n_tail = n_kept - n_excl;
        let report = match self.target {
            Target::All | Target::Closed => true,
            Target::Maximal => n_kept == 0,
        };
        if report && !self.sink.emit(&self.q, s) {
            self.stopped = true;
        }
        let child = if n_tail > 0 && !self.stopped {
            Some(self.build(db, rows, n_kept, n_excl))
        } else {
            None
        };
        let sc = &mut self.sc;
        for &x in &sc.touched {
            sc.cnt[x as usize] = 0;
            sc.map[x as usize] = u32::MAX;
        }
        if let Some(child) = child {
            self.expand(&child);
        }
        self.q.truncate(q0);
    }

    /// Builds the conditional database of the child from `rows` of `db`, using the id map in
    /// the scratch.
    fn build(&mut self, db: &Db, rows: &[u32], n_kept: u32, n_excl: u32) -> Db {
        let sc = &mut self.sc;
        let mut gid = Vec::with_capacity(n_kept as usize);
        let mut sup = Vec::with_capacity(n_kept as usize);
        for &x in &sc.touched {
            if sc.map[x as usize] != u32::MAX {
                gid.push(db.gid[x as usize]);
                sup.push(sc.cnt[x as usize]);
            }
        }
        let mut merger = RowMerger::new();
        for &r in rows {
            let r = r as usize;
            sc.row.clear();
            for &x in db.row(r) {
                let y = sc.map[x as usize];
                if y != u32::MAX {
                    sc.row.push(y);
                }
            }
            if !sc.row.is_empty() {
                merger.add(&sc.row, db.w[r]);
            }
        }
        let mut child = merger.finish();
        child.gid = gid;
        child.sup = sup;
        child.tail_start = n_excl;
        child
    }
}
