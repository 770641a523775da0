//! The depth-first search over weighted conditional databases (LCM-style occurrence delivery
//! with database reduction; closed sets by prefix-preserving closure extension; maximal sets
//! with FPmax-style repositories).
//!
//! A node is a closed set `Q` with a conditional database over the items frequent in the
//! transactions containing `Q` (rows = merged identical transactions with a weight). Its *tail*
//! items (local ids `>= tail_start`, ordered by ascending support in the node: dynamic
//! reordering) are the extension candidates; items before an extension `e` in that order, or
//! dropped at an ancestor, are *excluded* for the child `Q ∪ {e}`:
//!
//! - a closure that would add an excluded item means the closed set is generated in another
//!   branch (Uno et al.'s prefix-preserving test): the child and its subtree are skipped;
//! - tail items present in every row of the child join the closure (perfect extensions).
//!
//! Two modes:
//! - *dense* (at most 256 frequent items, closed and maximal): rows hold only tail items, and
//!   each row carries a bitset (global codes) of the items common to all the transactions
//!   merged into it, so the closure of a child is the AND of its rows' masks. A row holds
//!   exactly the database's items that are in its mask: the child tests `Q ∪ tail` on the
//!   masks and merges its rows by their masks restricted to its items. Maximal sets are
//!   found in one sequential search (FPmax order; on several threads `par.rs` runs the
//!   top-level branches in parallel with the same result): a candidate is maximal exactly when no
//!   maximal set found before contains it, checked against per-node repositories (global-code
//!   bitsets of the found maximal sets containing the node's set), with head-union-tail
//!   pruning before each subtree;
//! - *sparse* (many items, e.g. DocIds): rows also keep the excluded items that are frequent,
//!   so the prefix-preserving test and the maximality test ("no frequent item left in the
//!   child's database") are local to a node; top-level branches run in parallel, each with
//!   its own projected repository used only for pruning.
//!
//! For `Target::All` the excluded items are dropped and every extension is reported.

use super::db::{hash_item, hash_mask, hash_set_finish, Db, RowMerger};
use super::trie::Trie;
use super::Target;

/// Receives the itemsets found, as global codes (unsorted) and support.
pub(crate) trait Sink {
    /// Returns false to stop the search.
    fn emit(&mut self, codes: &[u32], support: u32) -> bool;
}

/// Most words of an item mask (dense mode).
const MAX_MW: usize = super::prep::MASK_MAX_ITEMS.div_ceil(64);

/// Reusable scratch for one search thread.
pub(crate) struct Scratch {
    cnt: Vec<u32>,
    map: Vec<u32>,
    touched: Vec<u32>,
    /// Sparse mode: `n + 1` slots where the counting pass records the items it meets, then
    /// where `build` projects a row.
    tbuf: Vec<u32>,
    kept: Vec<u32>,
    clo: Vec<u64>,
    table: hashbrown::HashTable<u32>,
    hashes: Vec<u64>,
    dbs: Vec<Db>,
    occs: Vec<Occ>,
    sufs: Vec<Vec<u64>>,
    /// Sparse maximal mode: repositories no longer in use, whose buffers are reused.
    repo_pool: Vec<Repo>,
    /// Dense mode: the branch database read from the trie, and its row list.
    top: Db,
    top_rows: Vec<u32>,
}

impl Scratch {
    pub fn new(n: usize) -> Self {
        Scratch {
            cnt: vec![0; n],
            map: vec![u32::MAX; n],
            touched: Vec::new(),
            tbuf: vec![0; n + 1],
            kept: Vec::new(),
            clo: Vec::new(),
            table: hashbrown::HashTable::new(),
            hashes: Vec::new(),
            dbs: Vec::new(),
            occs: Vec::new(),
            sufs: Vec::new(),
            repo_pool: Vec::new(),
            top: Db::default(),
            top_rows: Vec::new(),
        }
    }
}

/// How the top-level branches get their rows: occurrence lists of the root rows (sparse
/// mode), or prefix paths of a [`Trie`] (dense mode: far fewer, shorter rows).
pub(crate) enum Top {
    Occ(Occ),
    Trie(Trie),
}

impl Top {
    /// Takes the trie of `prep` (dense mode) or builds the occurrence lists of its rows.
    pub fn new(prep: &mut super::prep::Prepared) -> Self {
        match prep.trie.take() {
            Some(t) => Top::Trie(t),
            None => Top::Occ(occurrences(&prep.root)),
        }
    }
}

/// Occurrence lists of the tail items of a database: `occ[start[i]..start[i + 1]]` are the
/// rows holding tail item `tail_start + i`.
#[derive(Default)]
pub(crate) struct Occ {
    pub start: Vec<u32>,
    pub occ: Vec<u32>,
}

pub(crate) fn occurrences(db: &Db) -> Occ {
    let mut o = Occ::default();
    occurrences_into(db, &mut o);
    o
}

/// [`occurrences`] into reused buffers.
pub(crate) fn occurrences_into(db: &Db, o: &mut Occ) {
    let m = db.gid.len();
    let ts = db.tail_start as usize;
    let start = &mut o.start;
    start.clear();
    start.resize(m - ts + 1, 0);
    for &x in &db.tx {
        let x = x as usize;
        if x >= ts {
            start[x - ts + 1] += 1;
        }
    }
    for i in 1..start.len() {
        start[i] += start[i - 1];
    }
    let total = *start.last().unwrap() as usize;
    o.occ.clear();
    o.occ.resize(total, 0);
    // Fill using start[i] as the cursor of item i, then shift back.
    for r in 0..db.n_rows() {
        for &x in db.row(r) {
            let x = x as usize;
            if x >= ts {
                let f = &mut start[x - ts];
                o.occ[*f as usize] = r as u32;
                *f += 1;
            }
        }
    }
    for i in (1..start.len()).rev() {
        start[i] = start[i - 1];
    }
    start[0] = 0;
}

/// Dense mode: `suf[i * mw..(i + 1) * mw]` is the bitset (global codes) of the items after
/// local item `i` (empty when the database has no masks).
pub(crate) fn suffix_masks(db: &Db) -> Vec<u64> {
    let mut suf = Vec::new();
    suffix_masks_into(db, &mut suf);
    suf
}

/// [`suffix_masks`] into a reused buffer.
pub(crate) fn suffix_masks_into(db: &Db, suf: &mut Vec<u64>) {
    let mw = db.mw;
    let m = db.gid.len();
    suf.clear();
    suf.resize(m * mw, 0);
    if mw == 0 {
        return;
    }
    for i in (0..m.saturating_sub(1)).rev() {
        let (lo, hi) = suf.split_at_mut((i + 1) * mw);
        lo[i * mw..].copy_from_slice(&hi[..mw]);
        let g = db.gid[i + 1] as usize;
        lo[i * mw + g / 64] |= 1 << (g % 64);
    }
}

/// The search state of one thread.
pub(crate) struct Miner<'a, S: Sink> {
    pub minsup: u32,
    pub target: Target,
    pub sink: &'a mut S,
    pub q: Vec<u32>,
    pub sc: Scratch,
    pub stopped: bool,
    /// Maximal sets found so far, projected on the items of each node on the current path.
    pub repos: Vec<Repo>,
    /// Dense mode: bitset (global codes) of the current set.
    pub qmask: Vec<u64>,
    /// Dense maximal mode: per node on the path, the found maximal sets containing its set,
    /// as global-code bitsets of `qmask.len()` words.
    pub grepos: Vec<Vec<u64>>,
}

impl<'a, S: Sink> Miner<'a, S> {
    /// A miner at `minsup` for `target` into `sink`, with scratch space `sc` and nothing
    /// found yet (no dense bitsets: a dense search sets `qmask` and `grepos`).
    pub fn new(minsup: u32, target: Target, sink: &'a mut S, sc: Scratch) -> Self {
        Miner {
            minsup,
            target,
            sink,
            q: Vec::new(),
            sc,
            stopped: false,
            repos: Vec::new(),
            qmask: Vec::new(),
            grepos: Vec::new(),
        }
    }
}

/// Found maximal sets containing a node's set, as bitsets over the node's local items.
pub(crate) struct Repo {
    /// (global code, local id), sorted by code.
    lookup: Vec<(u32, u32)>,
    words: usize,
    sets: Vec<u64>,
}

#[inline]
fn set_bit(b: &mut [u64], i: usize) {
    b[i / 64] |= 1 << (i % 64);
}

impl Repo {
    /// An empty repository over the items `gid`, reusing the buffers of `old`.
    fn new_in(old: Option<Repo>, gid: &[u32]) -> Self {
        let words = gid.len().div_ceil(64).max(1);
        let (mut lookup, mut sets) = match old {
            Some(r) => (r.lookup, r.sets),
            None => (Vec::new(), Vec::new()),
        };
        lookup.clear();
        sets.clear();
        lookup.extend(gid.iter().enumerate().map(|(j, &c)| (c, j as u32)));
        lookup.sort_unstable();
        Repo {
            lookup,
            words,
            sets,
        }
    }

    /// Records a maximal set given by global codes (those of the node's items are kept).
    fn insert(&mut self, q: &[u32]) {
        let base = self.sets.len();
        self.sets.resize(base + self.words, 0);
        for c in q {
            if let Ok(k) = self.lookup.binary_search_by_key(c, |p| p.0) {
                set_bit(&mut self.sets[base..], self.lookup[k].1 as usize);
            }
        }
    }

    /// True when some recorded set holds every item with local id in `lo..hi`.
    fn covers_tail(&self, lo: usize, hi: usize) -> bool {
        let mut need = vec![0u64; self.words];
        for i in lo..hi {
            set_bit(&mut need, i);
        }
        self.sets
            .chunks_exact(self.words)
            .rev()
            .any(|m| m.iter().zip(&need).all(|(a, b)| a & b == *b))
    }
}

impl<S: Sink> Miner<'_, S> {
    /// Runs the top-level branches `range` of the root database in order on this thread,
    /// sharing one repository of maximal sets between them.
    pub fn run_top(&mut self, root: &Db, top: &Top, range: std::ops::Range<usize>) {
        // Sparse mode checks maximality exactly at each node; a repository shared by all
        // branches would only cost (long linear scans on large sparse data).
        if self.target == Target::Maximal && root.mw > 0 {
            self.grepos.push(Vec::new());
        }
        self.qmask = vec![0; root.mw];
        let suf = suffix_masks(root);
        for e in range {
            if self.stopped {
                break;
            }
            self.branch(root, top, e, &suf[e * root.mw..(e + 1) * root.mw]);
        }
        self.repos.clear();
        self.grepos.clear();
    }

    /// Runs the top-level branch of root item `e` (`after`: its suffix mask).
    pub fn branch(&mut self, root: &Db, top: &Top, e: usize, after: &[u64]) {
        match top {
            Top::Occ(occ) => {
                let rows = &occ.occ[occ.start[e] as usize..occ.start[e + 1] as usize];
                self.child(root, e as u32, rows, after);
            }
            Top::Trie(trie) => {
                let mut db = std::mem::take(&mut self.sc.top);
                let mut rows = std::mem::take(&mut self.sc.top_rows);
                trie.branch_db(root, e as u32, &mut db);
                rows.clear();
                rows.extend(0..db.n_rows() as u32);
                self.child(&db, e as u32, &rows, after);
                self.sc.top = db;
                self.sc.top_rows = rows;
            }
        }
    }

    /// Explores every tail item of `db` (the node's set is in `self.q`).
    pub fn expand(&mut self, db: &Db) {
        let mut occ = self.sc.occs.pop().unwrap_or_default();
        occurrences_into(db, &mut occ);
        let mut suf = self.sc.sufs.pop().unwrap_or_default();
        suffix_masks_into(db, &mut suf);
        let ts = db.tail_start as usize;
        let mw = db.mw;
        for e in ts..db.gid.len() {
            if self.stopped {
                break;
            }
            let i = e - ts;
            let rows = &occ.occ[occ.start[i] as usize..occ.start[i + 1] as usize];
            self.child(db, e as u32, rows, &suf[e * mw..(e + 1) * mw]);
        }
        self.sc.occs.push(occ);
        self.sc.sufs.push(suf);
    }

    /// Processes the extension of the current set by local item `e` of `db`, whose rows are
    /// `rows`.
    pub fn child(&mut self, db: &Db, e: u32, rows: &[u32], after: &[u64]) {
        let s = db.sup[e as usize];
        let minsup = self.minsup;
        let sc = &mut self.sc;
        let mw = db.mw;
        let dense = mw > 0;
        sc.touched.clear();
        sc.clo.clear();
        sc.clo.resize(mw, !0);
        if dense {
            // Few items: count without tracking, then collect the counted items.
            let m = db.gid.len();
            let cnt = &mut sc.cnt[..m];
            let clo = &mut sc.clo[..];
            for &r in rows {
                let r = r as usize;
                let w = db.w[r];
                for &x in db.row(r) {
                    cnt[x as usize] += w;
                }
                for (a, b) in clo.iter_mut().zip(&db.mask[r * mw..(r + 1) * mw]) {
                    *a &= b;
                }
            }
            sc.touched
                .extend((0..m as u32).filter(|&x| cnt[x as usize] != 0));
        } else {
            // Many items: each item is recorded in `tbuf` at its first count, without a
            // branch (the slot is overwritten until an item lands with a zero count); at most
            // `m` items are recorded, so `tbuf` has room for one more write.
            let m = db.gid.len();
            let cnt = &mut sc.cnt[..m];
            let tbuf = &mut sc.tbuf[..m + 1];
            let mut nt = 0usize;
            for &r in rows {
                let r = r as usize;
                let w = db.w[r];
                for &x in db.row(r) {
                    let c = &mut cnt[x as usize];
                    tbuf[nt] = x;
                    nt += usize::from(*c == 0);
                    *c += w;
                }
            }
            sc.touched.extend_from_slice(&tbuf[..nt]);
        }
        let all = self.target == Target::All;
        let q0 = self.q.len();
        if !all {
            // Prefix-preserving test: an excluded item in every row rejects the child. In
            // dense mode the excluded items are not in the rows: the closure is the
            // intersection of the masks, and it may only add items after `e`.
            let reject = if dense {
                let eg = db.gid[e as usize] as usize;
                sc.clo.iter().enumerate().any(|(k, &c)| {
                    let mut allowed = self.qmask[k] | after[k];
                    if eg / 64 == k {
                        allowed |= 1 << (eg % 64);
                    }
                    c & !allowed != 0
                })
            } else {
                sc.touched.iter().any(|&x| x < e && sc.cnt[x as usize] == s)
            };
            if reject {
                for &x in &sc.touched {
                    sc.cnt[x as usize] = 0;
                }
                return;
            }
        }
        self.q.push(db.gid[e as usize]);
        // Decide which items the child keeps: excluded ones first, then the tail ordered by
        // ascending support in the child (dynamic reordering; ties by parent order).
        sc.kept.clear();
        let mut n_excl = 0u32;
        for &x in &sc.touched {
            let c = sc.cnt[x as usize];
            if x == e {
                continue;
            }
            if all {
                if x > e && c >= minsup {
                    sc.kept.push(x);
                }
            } else if c == s {
                // x > e here (the test above rejected the others): closure item.
                self.q.push(db.gid[x as usize]);
            } else if dense && x < e {
                // Dense mode keeps no excluded items.
            } else if c >= minsup {
                sc.kept.push(x);
                if x < e {
                    n_excl += 1;
                }
            }
        }
        let n_kept = sc.kept.len() as u32;
        {
            let cnt = &sc.cnt;
            // One u64 key: (support in the child, 0 for excluded items; local id).
            sc.kept.sort_unstable_by_key(|&x| {
                let c = if x < e { 0 } else { cnt[x as usize] };
                (u64::from(c) << 32) | u64::from(x)
            });
        }
        for (j, &x) in sc.kept.iter().enumerate() {
            sc.map[x as usize] = j as u32;
        }
        // Dense mode: the kept items as a bitset (global codes), for the `Q ∪ tail` test
        // and the child's build.
        let kmask = if dense {
            kept_mask(db, &sc.kept)
        } else {
            [0; MAX_MW]
        };
        let n_tail = n_kept - n_excl;
        let qmask_saved = if dense {
            let mut saved = [0u64; MAX_MW];
            saved[..mw].copy_from_slice(&self.qmask);
            for &c in &self.q[q0..] {
                set_bit(&mut self.qmask, c as usize);
            }
            Some(saved)
        } else {
            None
        };
        let report = match self.target {
            Target::All | Target::Closed => true,
            // Dense mode: the repository holds every maximal superset found so far.
            Target::Maximal => n_kept == 0 && !(dense && self.gcovered(&self.qmask)),
        };
        if report {
            self.emit(s);
        }
        if dense && self.target == Target::Maximal {
            if n_tail > 0 && !self.stopped {
                // The weight of the rows holding every tail item: when it reaches the
                // minimum support, Q ∪ tail is the only candidate of the subtree, found
                // without building the child's database.
                // A row holds exactly the database's items in its mask, so it holds every
                // tail item when its mask covers theirs.
                let sfull = {
                    let k = &kmask[..mw];
                    let mut sfull = 0u32;
                    for &r in rows {
                        let r = r as usize;
                        let m = &db.mask[r * mw..(r + 1) * mw];
                        if m.iter().zip(k).all(|(a, b)| a & b == *b) {
                            sfull += db.w[r];
                        }
                    }
                    sfull
                };
                if sfull >= minsup {
                    let mut full = [0u64; MAX_MW];
                    for (f, (q, k)) in full.iter_mut().zip(self.qmask.iter().zip(&kmask)) {
                        *f = q | k;
                    }
                    if !self.gcovered(&full[..mw]) {
                        let q1 = self.q.len();
                        for &x in &self.sc.kept {
                            self.q.push(db.gid[x as usize]);
                        }
                        self.emit(sfull);
                        self.q.truncate(q1);
                    }
                    let sc = &mut self.sc;
                    for &x in &sc.touched {
                        sc.cnt[x as usize] = 0;
                        sc.map[x as usize] = u32::MAX;
                    }
                } else {
                    let child = self.build(db, rows, n_kept, n_excl, &kmask);
                    let sc = &mut self.sc;
                    for &x in &sc.touched {
                        sc.cnt[x as usize] = 0;
                        sc.map[x as usize] = u32::MAX;
                    }
                    self.dense_max_node(&child);
                    self.sc.dbs.push(child);
                }
            } else {
                let sc = &mut self.sc;
                for &x in &sc.touched {
                    sc.cnt[x as usize] = 0;
                    sc.map[x as usize] = u32::MAX;
                }
            }
            if let Some(saved) = qmask_saved {
                self.qmask.copy_from_slice(&saved[..mw]);
            }
            self.q.truncate(q0);
            return;
        }
        let maximal = self.target == Target::Maximal;
        let child = if n_tail > 0 && !self.stopped {
            let child = self.build(db, rows, n_kept, n_excl, &kmask);
            let repo = if maximal {
                Some(self.project_repo(e, s, &child))
            } else {
                None
            };
            Some((child, repo))
        } else {
            None
        };
        let sc = &mut self.sc;
        for &x in &sc.touched {
            sc.cnt[x as usize] = 0;
            sc.map[x as usize] = u32::MAX;
        }
        if let Some((child, repo)) = child {
            match repo {
                None => self.expand(&child),
                Some(repo) => {
                    // Head-union-tail pruning: the whole subtree lies inside Q ∪ tail.
                    if !repo.covers_tail(child.tail_start as usize, child.gid.len())
                        && !self.hut_frequent(&child)
                    {
                        self.repos.push(repo);
                        self.expand(&child);
                        let repo = self.repos.pop().expect("pushed above");
                        self.sc.repo_pool.push(repo);
                    } else {
                        self.sc.repo_pool.push(repo);
                    }
                }
            }
            self.sc.dbs.push(child);
        }
        if let Some(saved) = qmask_saved {
            self.qmask.copy_from_slice(&saved[..mw]);
        }
        self.q.truncate(q0);
    }

    /// Dense maximal mode: is the set `mask` (global codes) inside a recorded maximal set?
    fn gcovered(&self, mask: &[u64]) -> bool {
        let Some(rep) = self.grepos.last() else {
            return false;
        };
        let w = mask.len();
        rep.chunks_exact(w)
            .rev()
            .any(|m| m.iter().zip(mask).all(|(a, b)| a & b == *b))
    }

    /// Dense maximal mode, a node with tail items whose `Q ∪ tail` is not frequent (the
    /// caller checked; its set is in `q`/`qmask`): head-union-tail pruning against the found
    /// maximal sets, then the search with the repository filtered to the sets containing the
    /// node's set (global-code bitsets, no projection).
    fn dense_max_node(&mut self, db: &Db) {
        let w = self.qmask.len();
        let mut full_buf = [0u64; MAX_MW];
        let full = &mut full_buf[..w];
        full.copy_from_slice(&self.qmask);
        for &g in &db.gid {
            set_bit(full, g as usize);
        }
        let full = &full_buf[..w];
        let mut rep = Vec::new();
        if let Some(parent) = self.grepos.last() {
            for m in parent.chunks_exact(w) {
                if m.iter().zip(&self.qmask).all(|(a, b)| a & b == *b) {
                    if m.iter().zip(full).all(|(a, b)| a & b == *b) {
                        // Q ∪ tail inside a found maximal set: nothing new below.
                        return;
                    }
                    rep.extend_from_slice(m);
                }
            }
        }
        self.grepos.push(rep);
        self.expand(db);
        self.grepos.pop();
    }

    /// Reports the current set; for maximal sets also records it in the repositories.
    fn emit(&mut self, s: u32) {
        if !self.sink.emit(&self.q, s) {
            self.stopped = true;
        }
        if !self.grepos.is_empty() {
            let mut buf = [0u64; MAX_MW];
            let mask = &mut buf[..self.qmask.len()];
            for &c in &self.q {
                set_bit(mask, c as usize);
            }
            for r in &mut self.grepos {
                r.extend_from_slice(mask);
            }
        }
        if self.target == Target::Maximal {
            for r in &mut self.repos {
                r.insert(&self.q);
            }
        }
    }

    /// If the current set plus every tail item of `db` is frequent, it is the only candidate
    /// maximal set of the subtree: reports it when no excluded item extends it, and returns
    /// true (the subtree needs no search).
    fn hut_frequent(&mut self, db: &Db) -> bool {
        let ts = db.tail_start;
        let n_tail = db.gid.len() - ts as usize;
        let mut sfull = 0u32;
        for r in 0..db.n_rows() {
            let row = db.row(r);
            let n_excl = row.iter().filter(|&&x| x < ts).count();
            if row.len() - n_excl == n_tail {
                sfull += db.w[r];
            }
        }
        if sfull < self.minsup {
            return false;
        }
        // Is some excluded item frequent together with the full set?
        let sc = &mut self.sc;
        let mut extended = false;
        for r in 0..db.n_rows() {
            let row = db.row(r);
            let n_excl = row.iter().filter(|&&x| x < ts).count();
            if row.len() - n_excl == n_tail {
                for &x in row.iter().filter(|&&x| x < ts) {
                    let c = &mut sc.cnt[x as usize];
                    *c += db.w[r];
                    if *c >= self.minsup {
                        extended = true;
                    }
                }
            }
        }
        sc.cnt[..ts as usize].fill(0);
        if !extended {
            let q0 = self.q.len();
            self.q.extend_from_slice(&db.gid[ts as usize..]);
            self.emit(sfull);
            self.q.truncate(q0);
        }
        true
    }

    /// The repository of the child `Q ∪ {e} ∪ closure` (built with the scratch map still
    /// set): the found maximal sets of the current node that contain `e` and the closure,
    /// projected on the child's items.
    fn project_repo(&mut self, e: u32, s: u32, child: &Db) -> Repo {
        let mut repo = Repo::new_in(self.sc.repo_pool.pop(), &child.gid);
        let Some(parent) = self.repos.last() else {
            return repo;
        };
        let sc = &self.sc;
        // Parent-local ids of the child's items, and the bits the child set must hold.
        let mut need = vec![0u64; parent.words];
        set_bit(&mut need, e as usize);
        for &x in &sc.touched {
            if sc.map[x as usize] == u32::MAX && x > e && sc.cnt[x as usize] == s {
                set_bit(&mut need, x as usize);
            }
        }
        let kept = &sc.kept;
        for m in parent.sets.chunks_exact(parent.words) {
            if m.iter().zip(&need).all(|(a, b)| a & b == *b) {
                let base = repo.sets.len();
                repo.sets.resize(base + repo.words, 0);
                for (j, &x) in kept.iter().enumerate() {
                    let x = x as usize;
                    if m[x / 64] >> (x % 64) & 1 == 1 {
                        repo.sets[base + j / 64] |= 1 << (j % 64);
                    }
                }
            }
        }
        repo
    }

    /// Builds the conditional database of the child from `rows` of `db`, using the id map in
    /// the scratch; `kmask` is the kept items' bitset in dense mode.
    fn build(
        &mut self,
        db: &Db,
        rows: &[u32],
        n_kept: u32,
        n_excl: u32,
        kmask: &[u64; MAX_MW],
    ) -> Db {
        if db.mw > 0 {
            return self.build_dense(db, rows, n_kept, kmask);
        }
        let sc = &mut self.sc;
        let mw = db.mw;
        let mut merger = RowMerger::from_parts(
            sc.dbs.pop().unwrap_or_default(),
            std::mem::take(&mut sc.table),
            std::mem::take(&mut sc.hashes),
            mw,
        );
        debug_assert_eq!(sc.kept.len(), n_kept as usize);
        // The projected row is written without a branch into `tbuf` (free here: the
        // counting pass is over), one slot past the kept items at most.
        let map = &sc.map[..db.gid.len()];
        let buf = &mut sc.tbuf[..];
        for &r in rows {
            let r = r as usize;
            let mut k = 0usize;
            let mut h = 0u64;
            for &x in db.row(r) {
                let y = map[x as usize];
                buf[k] = y;
                let kept = y != u32::MAX;
                k += usize::from(kept);
                h = h.wrapping_add(hash_item(y) & u64::from(kept).wrapping_neg());
            }
            if k > 0 {
                // No sort: the rows of one database all follow one order (the parent's,
                // mapped), which is all merging needs.
                merger.add_hashed(
                    &buf[..k],
                    hash_set_finish(h),
                    db.w[r],
                    &db.mask[r * mw..(r + 1) * mw],
                );
            }
        }
        let (mut child, table, hashes) = merger.into_parts();
        sc.table = table;
        sc.hashes = hashes;
        for &x in &sc.kept {
            child.gid.push(db.gid[x as usize]);
            child.sup.push(sc.cnt[x as usize]);
        }
        child.tail_start = n_excl;
        child
    }

    /// [`build`](Self::build) in dense mode (no excluded items). A row's items are the
    /// database's items in its mask, so two rows project to the same child row exactly when
    /// their masks agree on the kept items: rows are merged by that key (at most
    /// [`MAX_MW`] words), and only a row with a new key is projected item by item. Same rows,
    /// weights, masks and order as the generic merge.
    fn build_dense(&mut self, db: &Db, rows: &[u32], n_kept: u32, kmask: &[u64; MAX_MW]) -> Db {
        let sc = &mut self.sc;
        let mw = db.mw;
        let k = &kmask[..mw];
        debug_assert_eq!(sc.kept.len(), n_kept as usize);
        let mut child = sc.dbs.pop().unwrap_or_default();
        child.reset(mw);
        let table = &mut sc.table;
        let hashes = &mut sc.hashes;
        table.clear();
        hashes.clear();
        for &r in rows {
            let r = r as usize;
            let m = &db.mask[r * mw..(r + 1) * mw];
            let mut key = [0u64; MAX_MW];
            let mut any = 0u64;
            for j in 0..mw {
                key[j] = m[j] & k[j];
                any |= key[j];
            }
            if any == 0 {
                continue;
            }
            let key = &key[..mw];
            let h = hash_mask(key);
            let found = table.find(h, |&c| {
                let cm = &child.mask[c as usize * mw..(c as usize + 1) * mw];
                cm.iter().zip(k).zip(key).all(|((a, b), c)| a & b == *c)
            });
            if let Some(&c) = found {
                let c = c as usize;
                child.w[c] += db.w[r];
                for (a, b) in child.mask[c * mw..(c + 1) * mw].iter_mut().zip(m) {
                    *a &= b;
                }
                continue;
            }
            // No sort: the rows of one database all follow one order (the parent's,
            // mapped), which is all merging needs.
            for &x in db.row(r) {
                let y = sc.map[x as usize];
                if y != u32::MAX {
                    child.tx.push(y);
                }
            }
            child.off.push(child.tx.len() as u32);
            child.w.push(db.w[r]);
            child.mask.extend_from_slice(m);
            let c = hashes.len() as u32;
            hashes.push(h);
            table.insert_unique(h, c, |&c| hashes[c as usize]);
        }
        for &x in &sc.kept {
            child.gid.push(db.gid[x as usize]);
            child.sup.push(sc.cnt[x as usize]);
        }
        child
    }
}

/// Dense mode: the bitset (global codes) of the items `kept` (local ids of `db`).
#[inline]
fn kept_mask(db: &Db, kept: &[u32]) -> [u64; MAX_MW] {
    let mut k = [0u64; MAX_MW];
    for &x in kept {
        set_bit(&mut k, db.gid[x as usize] as usize);
    }
    k
}
