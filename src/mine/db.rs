//! Weighted conditional databases: rows of local item ids with a weight (the number of
//! identical input transactions merged into the row).
//!
//! Invariants of [`Db`]: local ids `0..gid.len()` are the node's item order (excluded items,
//! then the tail by ascending support); every row is non-empty, without repeats and distinct
//! (as a set) from the other rows, and all rows list their items in one common order (the
//! root's rows ascending, a child's rows in its parent's order mapped to the child's ids), so
//! equal sets are equal sequences; `sup[i]` is the summed weight of the rows holding `i` and is at least the
//! minimum support; ids `>= tail_start` are the *tail* (items after the last added item, the
//! only candidates for extension); ids below are *excluded* items kept for the closedness and
//! maximality checks.

use hashbrown::HashTable;

/// A weighted conditional database.
#[derive(Default, Debug)]
pub(crate) struct Db {
    /// Local id -> global code.
    pub gid: Vec<u32>,
    /// Local id -> support within this database.
    pub sup: Vec<u32>,
    /// First tail local id.
    pub tail_start: u32,
    /// Flattened rows.
    pub tx: Vec<u32>,
    /// Row `r` is `tx[off[r]..off[r + 1]]`.
    pub off: Vec<u32>,
    /// Row weights.
    pub w: Vec<u32>,
    /// Dense mode only (`mw > 0`): per row, `mw` words of a bitset over global codes holding
    /// the items common to every transaction merged into the row (excluded items included).
    pub mask: Vec<u64>,
    /// Words per mask (0 = no masks).
    pub mw: usize,
}

impl Db {
    /// Empties the database for reuse (buffers kept): no rows, no items, masks of `mw`
    /// words.
    pub fn reset(&mut self, mw: usize) {
        self.gid.clear();
        self.sup.clear();
        self.tail_start = 0;
        self.tx.clear();
        self.off.clear();
        self.off.push(0);
        self.w.clear();
        self.mask.clear();
        self.mw = mw;
    }

    /// Number of rows.
    #[inline]
    pub fn n_rows(&self) -> usize {
        self.w.len()
    }

    /// Row `r`.
    #[inline]
    pub fn row(&self, r: usize) -> &[u32] {
        &self.tx[self.off[r] as usize..self.off[r + 1] as usize]
    }
}

#[inline]
pub(crate) fn hash_row(row: &[u32]) -> u64 {
    // FxHash-style multiplicative mixing; internal lookups only.
    let mut h: u64 = row.len() as u64;
    for &x in row {
        h = (h.rotate_left(5) ^ u64::from(x)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    h ^ (h >> 29)
}

/// Hash of an item mask (1-4 words), for merging rows or transactions by their masks.
#[inline]
pub(crate) fn hash_mask(mask: &[u64]) -> u64 {
    let mut h = 0u64;
    for &w in mask {
        h = (h.rotate_left(23) ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    h ^ (h >> 31)
}

/// One item's term of the order-independent row hash (see [`hash_set_finish`]).
#[inline]
pub(crate) fn hash_item(x: u32) -> u64 {
    let g = u64::from(x)
        .wrapping_add(1)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15);
    g ^ (g >> 29)
}

/// An order-independent hash of a row from the sum of its items' [`hash_item`] terms (the
/// terms are independent, so the sum pipelines where [`hash_row`]'s chain does not).
#[inline]
pub(crate) fn hash_set_finish(sum: u64) -> u64 {
    let mut h = sum;
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// Builds a [`Db`]'s rows, merging identical rows (summing their weights). Rows keep the
/// order of their first occurrence.
pub(crate) struct RowMerger {
    table: HashTable<u32>,
    hashes: Vec<u64>,
    db: Db,
}

impl RowMerger {
    /// Starts filling `db` (cleared; its buffers are reused) with a reused hash table.
    pub fn from_parts(
        mut db: Db,
        mut table: HashTable<u32>,
        mut hashes: Vec<u64>,
        mw: usize,
    ) -> Self {
        db.reset(mw);
        table.clear();
        hashes.clear();
        RowMerger { table, hashes, db }
    }

    /// The rows and the reusable parts.
    pub fn into_parts(self) -> (Db, HashTable<u32>, Vec<u64>) {
        (self.db, self.table, self.hashes)
    }

    pub fn new(mw: usize) -> Self {
        RowMerger {
            table: HashTable::new(),
            hashes: Vec::new(),
            db: Db {
                off: vec![0],
                mw,
                ..Db::default()
            },
        }
    }

    /// Adds a row (non-empty, in the database's common order) with weight `w` and its mask
    /// (`mask.len()` words, the same for every row, empty without masks; intersected when
    /// rows merge).
    #[inline]
    pub fn add_masked(&mut self, row: &[u32], w: u32, mask: &[u64]) {
        self.add_hashed(row, hash_row(row), w, mask);
    }

    /// [`add_masked`](Self::add_masked) with the row's hash `h` given by the caller; every
    /// row added to one merger must be hashed by the same function of its items.
    #[inline]
    pub fn add_hashed(&mut self, row: &[u32], h: u64, w: u32, mask: &[u64]) {
        let db = &mut self.db;
        let found = self.table.find(h, |&r| {
            let r = r as usize;
            db.tx[db.off[r] as usize..db.off[r + 1] as usize] == *row
        });
        if let Some(&r) = found {
            db.w[r as usize] += w;
            let k = mask.len();
            for (a, b) in db.mask[r as usize * k..][..k].iter_mut().zip(mask) {
                *a &= b;
            }
            return;
        }
        db.mask.extend_from_slice(mask);
        let r = db.w.len() as u32;
        db.tx.extend_from_slice(row);
        db.off.push(db.tx.len() as u32);
        db.w.push(w);
        self.hashes.push(h);
        let hashes = &self.hashes;
        self.table.insert_unique(h, r, |&r| hashes[r as usize]);
    }

    /// The rows (gid/sup/tail_start left for the caller).
    pub fn finish(self) -> Db {
        self.db
    }
}
