//! Inverted lists: element key -> the documents whose image has that element.
//!
//! In memory a [`Postings`] is two parallel arrays sorted by `(key, doc)` without duplicate
//! pairs (12 bytes per incidence, no per-key allocation, so a 1M-document index with 128
//! elements per image fits in about 1.5 GB), plus a directory of about 2 bytes per
//! incidence. A key's documents are found by a directory lookup and a short binary search.
//!
//! A sweep's documents are added in place ([`Postings::extend`]): the arrays grow to their
//! final length once, the old incidences move to their final key ranges, the new ones are
//! scattered into the gaps and each key range is sorted on its own, so no copy of the
//! arrays and no `(key, doc)` pair list of the whole sweep is ever held.
//!
//! On disk (see [`Postings::encode`]) each key's document set is a `RoaringBitmap` written
//! with roaring's own `serialize_into`, except singletons (by far the most common key in a
//! web-scale context), which are stored as a bare varint document id.

use rayon::prelude::*;
use roaring::RoaringBitmap;

use crate::codec::{put_varint, ByteSource};
use crate::Result;

/// Sorted `(key, doc)` incidences.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Postings {
    keys: Vec<u64>,
    docs: Vec<u32>,
    /// Directory: `dir[b]` is the first incidence whose key has bucket `>= b`, bucket =
    /// `(key - keys[0]) >> shift`; turns most lookups into one short scan instead of a
    /// binary search over all keys (rebuilt after every change).
    dir: Vec<u32>,
    shift: u32,
}

impl Postings {
    /// Builds from unsorted pairs (sorted and deduplicated here).
    pub fn from_pairs(mut pairs: Vec<(u64, u32)>) -> Self {
        pairs.sort_unstable();
        pairs.dedup();
        let (keys, docs) = pairs.into_iter().unzip();
        let mut p = Postings {
            keys,
            docs,
            dir: Vec::new(),
            shift: 0,
        };
        p.reindex();
        p
    }

    /// Rebuilds the directory (about one bucket per 2 incidences, at most 2^26 buckets).
    fn reindex(&mut self) {
        self.dir.clear();
        let n = self.keys.len();
        if n == 0 || n > u32::MAX as usize {
            return;
        }
        let span = self.keys[n - 1] - self.keys[0];
        let buckets = (n / 2).next_power_of_two().clamp(2, 1 << 26) as u64;
        let mut shift = 0;
        while shift < 64 && (span >> shift) >= buckets {
            shift += 1;
        }
        self.shift = shift;
        let nb = (span >> shift) as usize + 1;
        self.dir.reserve(nb + 1);
        let base = self.keys[0];
        let mut i = 0usize;
        for b in 0..nb {
            while i < n && (((self.keys[i] - base) >> shift) as usize) < b {
                i += 1;
            }
            self.dir.push(i as u32);
        }
        self.dir.push(n as u32);
    }

    /// Number of incidences.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when there is no incidence.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Number of distinct keys.
    pub fn distinct_keys(&self) -> usize {
        let mut n = 0;
        for (i, k) in self.keys.iter().enumerate() {
            if i == 0 || self.keys[i - 1] != *k {
                n += 1;
            }
        }
        n
    }

    /// The documents (ascending) having `key`.
    pub fn get(&self, key: u64) -> &[u32] {
        let (from, to) = if self.dir.is_empty() {
            (0, self.keys.len())
        } else {
            let base = self.keys[0];
            if key < base || key > self.keys[self.keys.len() - 1] {
                return &[];
            }
            let b = ((key - base) >> self.shift) as usize;
            (self.dir[b] as usize, self.dir[b + 1] as usize)
        };
        let ks = &self.keys[from..to];
        let lo = ks.partition_point(|&k| k < key);
        let hi = lo + ks[lo..].partition_point(|&k| k == key);
        &self.docs[from + lo..from + hi]
    }

    /// Adds the incidences of `n` new documents, DocIds `first .. first + n`, all above
    /// every document already present; `keys(i, out)` appends the keys of new document `i`
    /// (in any order, repeats allowed). The result equals [`Postings::from_pairs`] of all
    /// the incidences, old and new.
    ///
    /// Works in place, in three passes over the new documents' keys (their range and
    /// count, a histogram over key buckets, the scatter): the arrays are resized once to
    /// their final length, the old incidences move (from the last bucket down) to the start
    /// of their bucket's final range, the new ones go after them in DocId order, and then
    /// each bucket is sorted by `(key, doc)`. Besides the arrays themselves it holds the
    /// bucket counters (at most `MAX_BUCKETS` of each), one batch of keys and, per thread,
    /// a copy of one bucket to sort (a bucket above `SORT_COPY_MAX` incidences is heap
    /// sorted in place instead).
    pub fn extend(
        &mut self,
        first: u32,
        n: usize,
        keys: impl Fn(usize, &mut Vec<u64>) + Sync + Send,
    ) {
        if n == 0 {
            return;
        }
        let of = |i: usize, out: &mut Vec<u64>| {
            out.clear();
            keys(i, out);
            out.sort_unstable();
            out.dedup();
        };
        // 1. Range and count of the new keys.
        let (lo_new, hi_new, added) = (0..n)
            .into_par_iter()
            .map_init(Vec::new, |buf, i| {
                of(i, buf);
                match (buf.first(), buf.last()) {
                    (Some(&a), Some(&b)) => (a, b, buf.len()),
                    _ => (u64::MAX, 0, 0),
                }
            })
            .reduce(
                || (u64::MAX, 0, 0),
                |a, b| (a.0.min(b.0), a.1.max(b.1), a.2 + b.2),
            );
        if added == 0 {
            return;
        }
        let old = self.len();
        let (lo, hi) = if old == 0 {
            (lo_new, hi_new)
        } else {
            (lo_new.min(self.keys[0]), hi_new.max(self.keys[old - 1]))
        };
        let total = old + added;
        // At least 2 buckets: then `shift` stays below 64 whatever the span.
        let nb = (total / 16).next_power_of_two().clamp(2, MAX_BUCKETS) as u64;
        let mut shift = 0u32;
        while shift < 64 && ((hi - lo) >> shift) >= nb {
            shift += 1;
        }
        let nb = ((hi - lo) >> shift) as usize + 1;
        let bucket = |k: u64| ((k - lo) >> shift) as usize;
        // 2. Bucket counts, old and new.
        let mut old_count = vec![0usize; nb];
        for &k in &self.keys {
            old_count[bucket(k)] += 1;
        }
        let mut new_count = vec![0usize; nb];
        for_each_batch(n, &of, |_, ks| {
            for &k in ks {
                new_count[bucket(k)] += 1;
            }
        });
        // 3. Grow once; move the old incidences to the start of their final ranges.
        let mut start = Vec::with_capacity(nb + 1);
        let mut acc = 0usize;
        for b in 0..nb {
            start.push(acc);
            acc += old_count[b] + new_count[b];
        }
        start.push(acc);
        drop(new_count);
        self.keys.reserve_exact(added);
        self.docs.reserve_exact(added);
        self.keys.resize(total, 0);
        self.docs.resize(total, 0);
        let mut old_end = old;
        for b in (0..nb).rev() {
            let c = old_count[b];
            let from = old_end - c;
            if from != start[b] {
                self.keys.copy_within(from..old_end, start[b]);
                self.docs.copy_within(from..old_end, start[b]);
            }
            old_end = from;
        }
        // 4. Scatter the new incidences after the old ones of their bucket, in DocId order.
        let mut cursor: Vec<usize> = (0..nb).map(|b| start[b] + old_count[b]).collect();
        drop(old_count);
        for_each_batch(n, &of, |i, ks| {
            let d = first + i as u32;
            for &k in ks {
                let c = &mut cursor[bucket(k)];
                self.keys[*c] = k;
                self.docs[*c] = d;
                *c += 1;
            }
        });
        drop(cursor);
        // 5. Sort every bucket.
        let mut parts: Vec<(&mut [u64], &mut [u32])> = Vec::with_capacity(nb);
        let (mut ks, mut ds) = (&mut self.keys[..], &mut self.docs[..]);
        for b in 0..nb {
            let len = start[b + 1] - start[b];
            let (k, krest) = ks.split_at_mut(len);
            let (d, drest) = ds.split_at_mut(len);
            parts.push((k, d));
            ks = krest;
            ds = drest;
        }
        parts
            .into_par_iter()
            .for_each_init(Vec::new, |tmp, (k, d)| sort_pairs(k, d, tmp, SORT_COPY_MAX));
        self.reindex();
    }

    /// The key groups `(key, docs)` in key order.
    pub fn groups(&self) -> impl Iterator<Item = (u64, &[u32])> + '_ {
        let mut i = 0;
        std::iter::from_fn(move || {
            if i >= self.keys.len() {
                return None;
            }
            let k = self.keys[i];
            let end = i + self.keys[i..].partition_point(|&x| x == k);
            let g = (k, &self.docs[i..end]);
            i = end;
            Some(g)
        })
    }

    /// Appends the on-disk encoding: varint number of keys, then per key (ascending): varint
    /// key (first absolute, then the gap to the previous key), varint document count `c`,
    /// and for `c == 1` a varint document id, else a varint byte length and the
    /// `RoaringBitmap::serialize_into` bytes.
    pub fn encode(&self, out: &mut Vec<u8>) {
        self.encode_with(&mut |b: &[u8]| {
            out.extend_from_slice(b);
            Ok(())
        })
        .expect("writing to a Vec");
    }

    /// [`Postings::encode`] handed to `emit` in pieces of about 64 KiB, in order (to write
    /// a file without holding its bytes).
    pub fn encode_with(&self, emit: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
        const PIECE: usize = 1 << 16;
        let mut out = Vec::with_capacity(PIECE + 64);
        put_varint(&mut out, self.distinct_keys() as u64);
        let mut prev = 0u64;
        let mut first = true;
        let mut buf = Vec::new();
        for (k, docs) in self.groups() {
            put_varint(&mut out, if first { k } else { k - prev });
            first = false;
            prev = k;
            put_varint(&mut out, docs.len() as u64);
            if docs.len() == 1 {
                put_varint(&mut out, docs[0] as u64);
            } else {
                let bm = RoaringBitmap::from_sorted_iter(docs.iter().copied())
                    .expect("postings docs are sorted");
                buf.clear();
                bm.serialize_into(&mut buf).expect("writing to a Vec");
                put_varint(&mut out, buf.len() as u64);
                out.extend_from_slice(&buf);
            }
            if out.len() >= PIECE {
                emit(&out)?;
                out.clear();
            }
        }
        emit(&out)
    }

    /// Reads what [`Postings::encode`] wrote; every document id must be below `n_docs`.
    pub fn decode<S: ByteSource>(r: &mut S, n_docs: u32) -> Result<Self> {
        let nkeys = r.varint("key count")?;
        let mut p = Postings::default();
        let mut prev = 0u64;
        for i in 0..nkeys {
            let gap = r.varint("key")?;
            let key = if i == 0 {
                gap
            } else {
                if gap == 0 {
                    return Err(r.err("keys are not strictly ascending"));
                }
                prev.checked_add(gap)
                    .ok_or_else(|| r.err("key overflows 64 bits"))?
            };
            prev = key;
            let c = r.varint("document count")?;
            if c == 0 || c > n_docs as u64 {
                return Err(r.err(format!("key with {c} documents in an index of {n_docs}")));
            }
            if c == 1 {
                let d = r.varint("document id")?;
                if d >= n_docs as u64 {
                    return Err(r.err(format!("document id {d} >= {n_docs}")));
                }
                p.keys.push(key);
                p.docs.push(d as u32);
            } else {
                let len = r.varint("bitmap length")? as usize;
                let bm = match RoaringBitmap::deserialize_from(r.take(len, "bitmap")?) {
                    Ok(bm) => bm,
                    Err(e) => return Err(r.err(format!("bad roaring bitmap: {e}"))),
                };
                if bm.len() != c || bm.max().is_some_and(|m| m >= n_docs) {
                    return Err(r.err("roaring bitmap does not match its document count"));
                }
                for d in bm {
                    p.keys.push(key);
                    p.docs.push(d);
                }
            }
        }
        p.reindex();
        Ok(p)
    }
}

/// At most this many key buckets in [`Postings::extend`] (each costs three counters).
pub const MAX_BUCKETS: usize = 1 << 18;

/// [`Postings::extend`] sorts a bucket through a copy up to this many incidences (16 bytes
/// each), in place beyond.
pub const SORT_COPY_MAX: usize = 1 << 21;

/// Documents whose keys are computed at once (in parallel) in [`Postings::extend`].
const KEY_BATCH: usize = 1 << 14;

/// Calls `f(i, keys of i)` for `i` in `0..n` in order, the keys computed in parallel
/// batches of [`KEY_BATCH`] documents.
fn for_each_batch(
    n: usize,
    of: &(impl Fn(usize, &mut Vec<u64>) + Sync),
    mut f: impl FnMut(usize, &[u64]),
) {
    let mut bufs: Vec<Vec<u64>> = Vec::new();
    for from in (0..n).step_by(KEY_BATCH) {
        let to = (from + KEY_BATCH).min(n);
        bufs.resize_with(to - from, Vec::new);
        bufs[..to - from]
            .par_iter_mut()
            .enumerate()
            .for_each(|(j, b)| of(from + j, b));
        for (j, b) in bufs[..to - from].iter().enumerate() {
            f(from + j, b);
        }
    }
}

/// Sorts the parallel slices `k`, `d` by `(key, doc)`: nothing to do when sorted already,
/// through `tmp` up to `copy_max` pairs, else a heap sort in place.
fn sort_pairs(k: &mut [u64], d: &mut [u32], tmp: &mut Vec<(u64, u32)>, copy_max: usize) {
    let n = k.len();
    if (1..n).all(|i| (k[i - 1], d[i - 1]) <= (k[i], d[i])) {
        return;
    }
    if n <= copy_max {
        tmp.clear();
        tmp.extend(k.iter().copied().zip(d.iter().copied()));
        tmp.sort_unstable();
        for (i, &(a, b)) in tmp.iter().enumerate() {
            k[i] = a;
            d[i] = b;
        }
        if tmp.capacity() > 1 << 16 {
            *tmp = Vec::new();
        }
        return;
    }
    let less = |k: &[u64], d: &[u32], a: usize, b: usize| (k[a], d[a]) < (k[b], d[b]);
    let sift = |k: &mut [u64], d: &mut [u32], mut root: usize, end: usize| loop {
        let mut child = 2 * root + 1;
        if child >= end {
            break;
        }
        if child + 1 < end && less(k, d, child, child + 1) {
            child += 1;
        }
        if !less(k, d, root, child) {
            break;
        }
        k.swap(root, child);
        d.swap(root, child);
        root = child;
    };
    for i in (0..n / 2).rev() {
        sift(k, d, i, n);
    }
    for end in (1..n).rev() {
        k.swap(0, end);
        d.swap(0, end);
        sift(k, d, 0, end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::SliceReader;

    #[test]
    fn from_pairs_sorts_and_dedups() {
        let a = vec![(5u64, 1u32), (1, 0), (5, 0), (9, 2)];
        let b = vec![(5u64, 3u32), (2, 3), (9, 2), (10, 4)];
        let m = Postings::from_pairs(a.into_iter().chain(b).collect());
        assert_eq!(m.len(), 7);
        assert_eq!(m.get(5), &[0, 1, 3]);
        assert_eq!(m.get(7), &[] as &[u32]);
        assert_eq!(m.distinct_keys(), 5);
    }

    #[test]
    fn extend_equals_building_from_all_pairs() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        for (old_docs, new_docs, range, per) in [
            (0usize, 1usize, 10u64, 3usize),
            (0, 2, u64::MAX, 3),
            (1, 1, u64::MAX, 2),
            (0, 200, u64::MAX, 20),
            (50, 70, 1000, 30),
            (300, 300, 1 << 20, 50),
            (10, 5, 3, 4),
            (100, 0, 100, 5),
        ] {
            let docs: Vec<Vec<u64>> = (0..old_docs + new_docs)
                .map(|_| {
                    (0..rng.gen_range(0..per))
                        .map(|_| rng.gen_range(0..=range))
                        .collect()
                })
                .collect();
            let pairs = |r: std::ops::Range<usize>| -> Vec<(u64, u32)> {
                r.flat_map(|i| docs[i].iter().map(move |&k| (k, i as u32)))
                    .collect()
            };
            let mut p = Postings::from_pairs(pairs(0..old_docs));
            p.extend(old_docs as u32, new_docs, |i, out| {
                out.extend_from_slice(&docs[old_docs + i])
            });
            let want = Postings::from_pairs(pairs(0..old_docs + new_docs));
            assert_eq!(p, want, "{old_docs} {new_docs} {range}");
        }
    }

    #[test]
    fn sort_pairs_in_place_and_by_copy_agree() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let k: Vec<u64> = (0..5000).map(|_| rng.gen_range(0..100)).collect();
        let d: Vec<u32> = (0..5000).map(|_| rng.gen_range(0..100)).collect();
        let mut want: Vec<(u64, u32)> = k.iter().copied().zip(d.iter().copied()).collect();
        want.sort_unstable();
        for copy_max in [0, usize::MAX] {
            let (mut k1, mut d1) = (k.clone(), d.clone());
            sort_pairs(&mut k1, &mut d1, &mut Vec::new(), copy_max);
            let got: Vec<(u64, u32)> = k1.into_iter().zip(d1).collect();
            assert_eq!(got, want, "copy_max {copy_max}");
        }
    }

    #[test]
    fn lookups_equal_a_linear_scan() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for (n, range) in [
            (1usize, 10u64),
            (2, u64::MAX),
            (3, u64::MAX),
            (50, 20),
            (1000, u64::MAX),
            (3000, 1 << 40),
        ] {
            let pairs: Vec<(u64, u32)> = (0..n)
                .map(|_| {
                    (
                        rng.gen_range(0..=range.min(u64::MAX - 1)),
                        rng.gen_range(0..50),
                    )
                })
                .collect();
            let p = Postings::from_pairs(pairs.clone());
            let mut probes: Vec<u64> = pairs.iter().map(|x| x.0).collect();
            probes.extend([0, 1, u64::MAX, range / 2]);
            for _ in 0..200 {
                probes.push(rng.gen_range(0..=range.min(u64::MAX - 1)));
            }
            for k in probes {
                let mut want: Vec<u32> = pairs.iter().filter(|x| x.0 == k).map(|x| x.1).collect();
                want.sort_unstable();
                want.dedup();
                assert_eq!(p.get(k), &want[..], "n={n} key={k}");
            }
        }
    }

    #[test]
    fn encode_decode_round_trip() {
        let p = Postings::from_pairs(vec![(3, 0), (3, 7), (8, 2), (u64::MAX, 1), (3, 5)]);
        let mut out = Vec::new();
        p.encode(&mut out);
        let mut r = SliceReader::new(&out, std::path::Path::new("x"));
        assert_eq!(Postings::decode(&mut r, 8).unwrap(), p);
        let mut r = SliceReader::new(&out, std::path::Path::new("x"));
        assert!(Postings::decode(&mut r, 7).is_err());
    }
}
