//! Inverted lists: element key -> the documents whose image has that element.
//!
//! In memory a [`Postings`] is two parallel arrays sorted by `(key, doc)` without duplicate
//! pairs (12 bytes per incidence, no per-key allocation, so a 1M-document index with 128
//! elements per image fits in about 1.5 GB). A key's documents are found by binary search.
//! Appending a sweep merges a sorted batch in one linear pass ([`Postings::merge`]).
//!
//! On disk (see [`Postings::encode`]) each key's document set is a `RoaringBitmap` written
//! with roaring's own `serialize_into`, except singletons (by far the most common key in a
//! web-scale context), which are stored as a bare varint document id.

use roaring::RoaringBitmap;

use crate::codec::{put_varint, ByteSource, SliceReader};
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

    /// Merges another sorted set of incidences into this one (linear).
    pub fn merge(&mut self, other: Postings) {
        if other.is_empty() {
            return;
        }
        if self.is_empty()
            || (self.keys[self.len() - 1], self.docs[self.len() - 1])
                < (other.keys[0], other.docs[0])
        {
            self.keys.extend_from_slice(&other.keys);
            self.docs.extend_from_slice(&other.docs);
            self.reindex();
            return;
        }
        let n = self.len() + other.len();
        let (mut keys, mut docs) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut i, mut j) = (0, 0);
        while i < self.len() || j < other.len() {
            let take_self = j >= other.len()
                || (i < self.len()
                    && (self.keys[i], self.docs[i]) <= (other.keys[j], other.docs[j]));
            let (k, d) = if take_self {
                i += 1;
                (self.keys[i - 1], self.docs[i - 1])
            } else {
                j += 1;
                (other.keys[j - 1], other.docs[j - 1])
            };
            if keys.last() == Some(&k) && docs.last() == Some(&d) {
                continue;
            }
            keys.push(k);
            docs.push(d);
        }
        self.keys = keys;
        self.docs = docs;
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
        put_varint(out, self.distinct_keys() as u64);
        let mut prev = 0u64;
        let mut first = true;
        let mut buf = Vec::new();
        for (k, docs) in self.groups() {
            put_varint(out, if first { k } else { k - prev });
            first = false;
            prev = k;
            put_varint(out, docs.len() as u64);
            if docs.len() == 1 {
                put_varint(out, docs[0] as u64);
            } else {
                let bm = RoaringBitmap::from_sorted_iter(docs.iter().copied())
                    .expect("postings docs are sorted");
                buf.clear();
                bm.serialize_into(&mut buf).expect("writing to a Vec");
                put_varint(out, buf.len() as u64);
                out.extend_from_slice(&buf);
            }
        }
    }

    /// Reads what [`Postings::encode`] wrote; every document id must be below `n_docs`.
    pub fn decode(r: &mut SliceReader<'_>, n_docs: u32) -> Result<Self> {
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
                let bytes = r.bytes(len, "bitmap")?;
                let bm = RoaringBitmap::deserialize_from(bytes)
                    .map_err(|e| r.err(format!("bad roaring bitmap: {e}")))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_equals_building_from_all_pairs() {
        let a = vec![(5u64, 1u32), (1, 0), (5, 0), (9, 2)];
        let b = vec![(5u64, 3u32), (2, 3), (9, 2), (10, 4)];
        let mut m = Postings::from_pairs(a.clone());
        m.merge(Postings::from_pairs(b.clone()));
        let all = Postings::from_pairs(a.into_iter().chain(b).collect());
        assert_eq!(m, all);
        assert_eq!(m.get(5), &[0, 1, 3]);
        assert_eq!(m.get(7), &[] as &[u32]);
        assert_eq!(m.distinct_keys(), 5);
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
