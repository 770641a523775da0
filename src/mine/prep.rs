//! Preparation of a transaction database for mining: item supports, recoding of the
//! frequent items by ascending support, removal of the items that occur in every transaction
//! (the closure of the empty set), de-duplication of items within a transaction and merging of
//! identical transactions into weighted rows.
//!
//! Invariants of [`Prepared`]: codes `0..n_codes` are the frequent items that are not in every
//! transaction, ordered by ascending support (ties: ascending original item); `decode[c]` is
//! the original item of code `c`; rows of `root` are strictly ascending code lists, non-empty,
//! pairwise distinct, with weights summing to at most `n_trans`; in dense mode the
//! transactions go into a prefix tree instead (`trie`) and `root` has no rows.

use super::db::{hash_mask, Db};
use super::trie::Trie;
use crate::fimi::Transactions;
use crate::{Error, Result};

/// A database ready for the search.
pub(crate) struct Prepared {
    /// Number of transactions (empty ones included).
    pub n_trans: u64,
    /// Original items present in every transaction (only when `n_trans >= minsup`), ascending.
    pub closure0: Vec<u32>,
    /// Code -> original item.
    pub decode: Vec<u32>,
    /// Number of distinct items in the input.
    pub n_items: usize,
    /// The weighted rows over codes; `root.gid[c] == c`. In dense mode (`root.mw > 0`) it
    /// has no rows: the transactions are in `trie`.
    pub root: Db,
    /// Dense mode: the prefix tree of the transactions (taken by the search).
    pub trie: Option<Trie>,
}

/// Recodes and merges `t` for minimum support `minsup` (>= 1).
/// Dense mode (rows hold only tail items, closures come from per-row masks) is used up to
/// this many frequent items.
pub(crate) const MASK_MAX_ITEMS: usize = 256;

/// Recodes and merges `t`; with `dense_masks` (and at most [`MASK_MAX_ITEMS`] codes) the rows
/// carry item masks for the dense search mode.
pub(crate) fn prepare(
    t: &Transactions,
    minsup: u64,
    keep_closure0: bool,
    dense_masks: bool,
    split_min_items: u64,
) -> Result<Prepared> {
    let n_trans = t.len() as u64;
    if n_trans > u64::from(u32::MAX) {
        return Err(Error::config(format!(
            "{n_trans} transactions: at most {} are supported",
            u32::MAX
        )));
    }
    // Item supports, counting an item once per transaction even when repeated.
    let bound = t.item_bound();
    let dense = bound <= (4 * t.total_items() as u64).max(1 << 16);
    let mut row: Vec<u32> = Vec::new();
    let mut support: Vec<(u32, u32)> = Vec::new(); // (item, support)
    let split = split_point(t, split_min_items);
    if dense {
        let count = |range: std::ops::Range<usize>| {
            let mut cnt = vec![0u32; bound as usize];
            let mut last = vec![u32::MAX; bound as usize];
            for i in range {
                for &x in t.get(i) {
                    if last[x as usize] != i as u32 {
                        last[x as usize] = i as u32;
                        cnt[x as usize] += 1;
                    }
                }
            }
            cnt
        };
        let cnt = match split {
            Some(h) => {
                let (mut a, b) = rayon::join(|| count(0..h), || count(h..t.len()));
                for (x, y) in a.iter_mut().zip(&b) {
                    *x += y;
                }
                a
            }
            None => count(0..t.len()),
        };
        for (x, &c) in cnt.iter().enumerate() {
            if c > 0 {
                support.push((x as u32, c));
            }
        }
    } else {
        let mut map: hashbrown::HashMap<u32, u32> = hashbrown::HashMap::new();
        for r in t.iter() {
            row.clear();
            row.extend_from_slice(r);
            row.sort_unstable();
            row.dedup();
            for &x in &row {
                *map.entry(x).or_insert(0) += 1;
            }
        }
        support.extend(map);
        support.sort_unstable();
    }
    let n_items = support.len();
    let frequent = n_trans >= minsup;
    let closure0: Vec<u32> = if frequent && keep_closure0 {
        support
            .iter()
            .filter(|&&(_, c)| u64::from(c) == n_trans)
            .map(|&(x, _)| x)
            .collect()
    } else {
        Vec::new()
    };
    let mut freq: Vec<(u32, u32)> = support
        .iter()
        .copied()
        .filter(|&(_, c)| u64::from(c) >= minsup && !(keep_closure0 && u64::from(c) == n_trans))
        .collect();
    freq.sort_unstable_by_key(|&(x, c)| (c, x));
    let decode: Vec<u32> = freq.iter().map(|&(x, _)| x).collect();
    // Encoder: original item -> code (u32::MAX = dropped).
    let encode = Encoder::new(&decode, bound, dense);
    let n_codes = decode.len();
    let mw = if dense_masks && n_codes <= MASK_MAX_ITEMS {
        n_codes.div_ceil(64).max(1)
    } else {
        0
    };
    let mut rows = super::db::RowMerger::new(mw);
    // Dense mode: the distinct transactions (as code masks, merged by a hash of the mask
    // words) with their counts, for the prefix tree.
    let mut distinct = DistinctMasks::new(mw);
    if mw > 0 {
        let masks = |range| match &encode {
            Encoder::Dense(v) => distinct_masks(t, range, |x| v[x as usize], mw),
            Encoder::Sparse(_) => distinct_masks(t, range, |x| encode.get(x), mw),
        };
        distinct = match split {
            // Both halves in parallel, then the second one's masks counted into the first's
            // (the prefix tree does not depend on the order of the distinct masks).
            Some(h) => {
                let (mut a, b) = rayon::join(|| masks(0..h), || masks(h..t.len()));
                for (i, &n) in b.count.iter().enumerate() {
                    a.add_n(&b.masks[i * mw..(i + 1) * mw], n);
                }
                a
            }
            None => masks(0..t.len()),
        };
    } else {
        for r in t.iter() {
            row.clear();
            for &x in r {
                let c = encode.get(x);
                if c != u32::MAX {
                    row.push(c);
                }
            }
            if row.is_empty() {
                continue;
            }
            row.sort_unstable();
            row.dedup();
            rows.add_masked(&row, 1, &[]);
        }
    }
    let trie = (mw > 0).then(|| Trie::from_masks(&distinct.count, &distinct.masks, n_codes, mw));
    let mut root = rows.finish();
    root.gid = (0..n_codes as u32).collect();
    root.sup = freq.iter().map(|&(_, c)| c).collect();
    root.tail_start = 0;
    Ok(Prepared {
        n_trans,
        closure0,
        decode,
        n_items,
        root,
        trie,
    })
}

/// With several threads, the passes over the transactions (supports, dense mode's masks)
/// run on two halves from this many item occurrences on. Below it, waking a second thread
/// and merging the halves cost about what they save (mushroom, 187k occurrences: the
/// preparation took longer on 2 threads than on 1); retail (0.9M) and connect (2.9M) gain.
pub(crate) const SPLIT_MIN_ITEMS: u64 = 1 << 18;

/// Where the transactions are cut in two halves for the passes of [`prepare`], if they are.
fn split_point(t: &Transactions, min_items: u64) -> Option<usize> {
    (rayon::current_num_threads() > 1 && t.len() >= 2 && t.total_items() as u64 >= min_items)
        .then(|| t.len() / 2)
}

/// The distinct non-empty code masks (`mw` words; codes from `encode`, `u32::MAX` =
/// dropped) of the transactions `range` of `t`, with their counts.
fn distinct_masks(
    t: &Transactions,
    range: std::ops::Range<usize>,
    encode: impl Fn(u32) -> u32,
    mw: usize,
) -> DistinctMasks {
    let mut distinct = DistinctMasks::new(mw);
    let mut mask = vec![0u64; mw];
    for i in range {
        mask.fill(0);
        for &x in t.get(i) {
            let c = encode(x);
            if c != u32::MAX {
                mask[c as usize / 64] |= 1 << (c % 64);
            }
        }
        if mask.iter().any(|&w| w != 0) {
            distinct.add_n(&mask, 1);
        }
    }
    distinct
}

/// Distinct code masks of `mw` words, in order of first occurrence, with their counts.
struct DistinctMasks {
    mw: usize,
    masks: Vec<u64>,
    hashes: Vec<u64>,
    count: Vec<u32>,
    table: hashbrown::HashTable<u32>,
}

impl DistinctMasks {
    fn new(mw: usize) -> Self {
        DistinctMasks {
            mw,
            masks: Vec::new(),
            hashes: Vec::new(),
            count: Vec::new(),
            table: hashbrown::HashTable::new(),
        }
    }

    /// Counts `n` transactions of mask `mask`.
    fn add_n(&mut self, mask: &[u64], n: u32) {
        let h = hash_mask(mask);
        let (mw, masks) = (self.mw, &self.masks);
        if let Some(&i) = self.table.find(h, |&i| {
            masks[i as usize * mw..(i as usize + 1) * mw] == *mask
        }) {
            self.count[i as usize] += n;
            return;
        }
        let i = self.count.len() as u32;
        self.masks.extend_from_slice(mask);
        self.hashes.push(h);
        self.count.push(n);
        let hashes = &self.hashes;
        self.table.insert_unique(h, i, |&i| hashes[i as usize]);
    }
}

enum Encoder {
    Dense(Vec<u32>),
    Sparse(hashbrown::HashMap<u32, u32>),
}

impl Encoder {
    fn new(decode: &[u32], bound: u64, dense: bool) -> Self {
        if dense {
            let mut v = vec![u32::MAX; bound as usize];
            for (c, &x) in decode.iter().enumerate() {
                v[x as usize] = c as u32;
            }
            Encoder::Dense(v)
        } else {
            Encoder::Sparse(
                decode
                    .iter()
                    .enumerate()
                    .map(|(c, &x)| (x, c as u32))
                    .collect(),
            )
        }
    }

    #[inline]
    fn get(&self, x: u32) -> u32 {
        match self {
            Encoder::Dense(v) => v[x as usize],
            Encoder::Sparse(m) => m.get(&x).copied().unwrap_or(u32::MAX),
        }
    }
}
