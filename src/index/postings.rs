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
//! On disk (version 2, [`Postings::encode_with`]) the same arrays are written as
//! they are, fixed-width and little-endian (keys, directory, documents; about 14 bytes an
//! incidence), so a reader maps the file ([`Postings::map_file`]) and looks keys up where
//! they lie, without decoding it: opening a segment costs its header, and a lookup touches
//! only the pages it reads. A mapped file's blocks are checked against the manifest's
//! checksums (and their directory entries and document ids against their bounds) before
//! a lookup first uses them, so a damaged block is an error naming the file and its byte
//! range, never a wrong answer or a panic. Version 1 (varint keys, one `RoaringBitmap` a
//! key) is still read, decoded into memory ([`Postings::decode_v1`]).

use rayon::prelude::*;
use roaring::RoaringBitmap;

use std::path::Path;
use std::sync::Arc;

use super::mapped::MappedFile;

#[cfg(test)]
use crate::codec::put_varint;
use crate::codec::ByteSource;
use crate::{Error, Result};

/// Sorted `(key, doc)` incidences, in memory or in a mapped file ([`Postings::map_file`]).
#[derive(Clone, Debug, Default)]
pub struct Postings {
    keys: Vec<u64>,
    docs: Vec<u32>,
    /// Directory: `dir[b]` is the first incidence whose key has bucket `>= b`, bucket =
    /// `(key - keys[0]) >> shift`; turns most lookups into one short scan instead of a
    /// binary search over all keys (rebuilt after every change).
    dir: Vec<u32>,
    shift: u32,
    /// The arrays of a mapped file (the vectors above are then empty).
    map: Option<Arc<Mapped>>,
}

impl PartialEq for Postings {
    fn eq(&self, other: &Self) -> bool {
        self.all_keys() == other.all_keys() && self.all_docs() == other.all_docs()
    }
}

impl Eq for Postings {}

impl Postings {
    /// Builds from unsorted pairs (sorted and deduplicated here).
    pub fn from_pairs(mut pairs: Vec<(u64, u32)>) -> Self {
        pairs.sort_unstable();
        pairs.dedup();
        let (keys, docs) = pairs.into_iter().unzip();
        let mut p = Postings {
            keys,
            docs,
            ..Postings::default()
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

    /// The keys, one per incidence, ascending (of a mapped file: unchecked).
    fn all_keys(&self) -> &[u64] {
        match &self.map {
            Some(m) => m.keys(),
            None => &self.keys,
        }
    }

    /// The documents, one per incidence (of a mapped file: unchecked).
    pub(super) fn all_docs(&self) -> &[u32] {
        match &self.map {
            Some(m) => m.docs(),
            None => &self.docs,
        }
    }

    /// Number of incidences.
    pub fn len(&self) -> usize {
        match &self.map {
            Some(m) => m.n,
            None => self.keys.len(),
        }
    }

    /// True when there is no incidence.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Of a mapped file, drops from this process's memory the pages of the incidences whose
    /// keys are in `lo ..= hi` (`madvise(MADV_DONTNEED)`; the keys are read unchecked, only
    /// to find them); in memory, nothing.
    pub fn release(&self, lo: u64, hi: u64) {
        if let Some(m) = &self.map {
            let ks = m.keys();
            let (a, z) = (
                ks.partition_point(|&k| k < lo),
                ks.partition_point(|&k| k <= hi),
            );
            m.file.release(HEADER + 8 * a, HEADER + 8 * z);
            m.file.release(m.docs_at + 4 * a, m.docs_at + 4 * z);
        }
    }

    /// True when the arrays are those of a mapped file.
    pub fn is_mapped(&self) -> bool {
        self.map.is_some()
    }

    /// Number of distinct keys.
    pub fn distinct_keys(&self) -> usize {
        let keys = self.all_keys();
        let mut n = 0;
        for (i, k) in keys.iter().enumerate() {
            if i == 0 || keys[i - 1] != *k {
                n += 1;
            }
        }
        n
    }

    /// The documents (ascending) having `key`. In memory this never fails; in a mapped
    /// file every block the lookup reads is checked (its xxh64, and its directory entries
    /// and document ids in range) the first time it is read, and a damaged one is an
    /// [`Error::Format`] naming the file and the block's byte range.
    pub fn get(&self, key: u64) -> Result<&[u32]> {
        if let Some(m) = &self.map {
            return m.get(key);
        }
        let (from, to) = if self.dir.is_empty() {
            (0, self.keys.len())
        } else {
            let base = self.keys[0];
            if key < base || key > self.keys[self.keys.len() - 1] {
                return Ok(&[]);
            }
            let b = ((key - base) >> self.shift) as usize;
            (self.dir[b] as usize, self.dir[b + 1] as usize)
        };
        let ks = &self.keys[from..to];
        let lo = ks.partition_point(|&k| k < key);
        let hi = lo + ks[lo..].partition_point(|&k| k == key);
        Ok(&self.docs[from + lo..from + hi])
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
        if let Some(m) = self.map.take() {
            // Only a new segment's in-memory postings are extended; a mapped file is
            // copied (as it is) first.
            self.keys = m.keys().to_vec();
            self.docs = m.docs().to_vec();
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
        self.groups_in(0, self.len())
    }

    /// About `parts` ranges of incidences covering them all, each starting where a key
    /// does: the incidence indexes `0 = c[0] < c[1] < ... = len` (for
    /// [`Postings::groups_in`]; only `[0]` when empty).
    pub fn key_cuts(&self, parts: usize) -> Vec<usize> {
        let keys = self.all_keys();
        let n = keys.len();
        let mut cuts = vec![0];
        for p in 1..parts.max(1) {
            let at = n * p / parts;
            let at = if at == 0 {
                0
            } else {
                at + keys[at..].partition_point(|&k| k == keys[at - 1])
            };
            if at > *cuts.last().expect("a cut") && at < n {
                cuts.push(at);
            }
        }
        if n > 0 {
            cuts.push(n);
        }
        cuts
    }

    /// The first and the last key of the incidences `from .. to` (`None` when empty).
    pub fn key_span(&self, from: usize, to: usize) -> Option<(u64, u64)> {
        let keys = &self.all_keys()[from..to];
        Some((*keys.first()?, *keys.last()?))
    }

    /// The key groups `(key, docs)` of the incidences `from .. to` (both where a key
    /// starts, or the end), in key order.
    pub fn groups_in(&self, from: usize, to: usize) -> impl Iterator<Item = (u64, &[u32])> + '_ {
        let (keys, docs) = (&self.all_keys()[..to], &self.all_docs()[..to]);
        let mut i = from;
        std::iter::from_fn(move || {
            if i >= keys.len() {
                return None;
            }
            let k = keys[i];
            // Most groups are short: a linear scan visits each incidence once.
            let mut end = i + 1;
            while end < keys.len() && keys[end] == k {
                end += 1;
            }
            let g = (k, &docs[i..end]);
            i = end;
            Some(g)
        })
    }

    /// The on-disk encoding (version 2), handed to `emit` in pieces of about
    /// 64 KiB, in order (to write a file without holding its bytes): the 8-byte `magic`,
    /// the version (`u32`), then, all little-endian: `shift` (`u32`), the number of
    /// incidences `n` (`u64`), the first and the last key (`u64` each), the number of
    /// directory entries `e` (`u32`), the number of documents of the segment (`u32`);
    /// then the arrays `keys[n]` (`u64`, from byte 48, so 8-aligned),
    /// `dir[e]` (`u32`) and `docs[n]` (`u32`). A lookup reads them where they lie
    /// ([`Postings::map_file`]).
    pub fn encode_with(
        &self,
        magic: &[u8; 8],
        n_docs: u32,
        emit: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        const PIECE: usize = 1 << 16;
        let (keys, docs) = (self.all_keys(), self.all_docs());
        let dir: &[u32] = match &self.map {
            Some(m) => m.dir(),
            None => &self.dir,
        };
        let shift = match &self.map {
            Some(m) => m.shift,
            None => self.shift,
        };
        let mut out = Vec::with_capacity(PIECE + 64);
        out.extend_from_slice(magic);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&shift.to_le_bytes());
        out.extend_from_slice(&(keys.len() as u64).to_le_bytes());
        out.extend_from_slice(&keys.first().copied().unwrap_or(0).to_le_bytes());
        out.extend_from_slice(&keys.last().copied().unwrap_or(0).to_le_bytes());
        out.extend_from_slice(&(dir.len() as u32).to_le_bytes());
        out.extend_from_slice(&n_docs.to_le_bytes());
        debug_assert_eq!(out.len(), HEADER);
        for &k in keys {
            out.extend_from_slice(&k.to_le_bytes());
            if out.len() >= PIECE {
                emit(&out)?;
                out.clear();
            }
        }
        for &x in dir.iter().chain(docs) {
            out.extend_from_slice(&x.to_le_bytes());
            if out.len() >= PIECE {
                emit(&out)?;
                out.clear();
            }
        }
        emit(&out)
    }

    /// Appends the version-1 encoding (still read by [`Postings::decode_v1`]): varint
    /// number of keys, then per key (ascending): varint key (first absolute, then the gap
    /// to the previous key), varint document count `c`, and for `c == 1` a varint document
    /// id, else a varint byte length and the `RoaringBitmap::serialize_into` bytes.
    #[cfg(test)]
    pub(crate) fn encode_v1(&self, out: &mut Vec<u8>) {
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

    /// Reads the version-1 encoding (after the file's header, see
    /// `encode_v1`, test builds only); every document id must be below `n_docs`.
    pub fn decode_v1<S: ByteSource>(r: &mut S, n_docs: u32) -> Result<Self> {
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

/// Version of the postings files written ([`Postings::encode_with`]); version 1 (varint
/// keys and roaring bitmaps) is still read ([`Postings::decode_v1`]).
pub const VERSION: u32 = 2;

/// Bytes of a version-2 postings file before its arrays.
pub const HEADER: usize = 48;

impl Postings {
    /// The version-2 postings file at `path` (its size already checked against the
    /// manifest), read where it lies: memory-mapped, its arrays used in place (on a
    /// big-endian machine they are copied and converted instead). `sums` are the xxh64
    /// (seed 0) of its `block`-byte blocks, as the manifest lists them. The first block
    /// (the header) is checked now; with `lazy` every other block is checked the first
    /// time a lookup reads it ([`Postings::get`]), else all of them now. `magic` names the
    /// table, `n_docs` the documents of its segment (every document id is below it).
    pub fn map_file(
        path: &Path,
        magic: &[u8; 8],
        n_docs: u32,
        sums: Vec<u64>,
        block: usize,
        lazy: bool,
    ) -> Result<Postings> {
        let file = MappedFile::open(path, sums, block)?;
        file.check_header(HEADER, magic, (VERSION, "postings file"))?;
        let len = file.len();
        let err = |msg: String| Error::format(path, msg);
        let (shift, n, first, last) = (
            file.u32_at(12),
            file.u64_at(16),
            file.u64_at(24),
            file.u64_at(32),
        );
        let (entries, docs_in) = (file.u32_at(40) as usize, file.u32_at(44));
        if docs_in != n_docs {
            return Err(err(format!(
                "at byte 44: {docs_in} documents, the manifest says {n_docs}"
            )));
        }
        let size = usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_mul(12))
            .and_then(|x| x.checked_add(HEADER + 4 * entries));
        if shift >= 64
            || size != Some(len)
            || (n == 0 && entries != 0)
            || entries == 1
            || (n > 0 && first > last)
        {
            return Err(err(format!(
                "at byte 12: header (shift {shift}, {n} incidences, {entries} directory \
                 entries) does not match the file's {len} bytes"
            )));
        }
        let n = n as usize;
        let m = Mapped {
            file,
            n,
            n_docs,
            shift,
            first,
            last,
            entries,
            dir_at: HEADER + 8 * n,
            docs_at: HEADER + 8 * n + 4 * entries,
        };
        m.ensure(0, HEADER)?;
        if !lazy || cfg!(target_endian = "big") {
            m.file.check_all(|lo, hi| m.check_block(lo, hi))?;
        }
        if cfg!(target_endian = "big") {
            let le32 = |from: usize, k: usize| -> Vec<u32> {
                (0..k).map(|i| m.file.u32_at(from + 4 * i)).collect()
            };
            return Ok(Postings {
                keys: (0..m.n).map(|i| m.file.u64_at(HEADER + 8 * i)).collect(),
                dir: le32(m.dir_at, m.entries),
                docs: le32(m.docs_at, m.n),
                shift: m.shift,
                map: None,
            });
        }
        Ok(Postings {
            map: Some(Arc::new(m)),
            shift,
            ..Postings::default()
        })
    }
}

/// A mapped version-2 postings file (little-endian machines): the arrays in place.
#[derive(Debug)]
pub(crate) struct Mapped {
    file: MappedFile,
    n: usize,
    n_docs: u32,
    shift: u32,
    first: u64,
    last: u64,
    entries: usize,
    dir_at: usize,
    docs_at: usize,
}

impl Mapped {
    fn keys(&self) -> &[u64] {
        self.file.u64s(HEADER, self.n)
    }

    fn dir(&self) -> &[u32] {
        self.file.u32s(self.dir_at, self.entries)
    }

    fn docs(&self) -> &[u32] {
        self.file.u32s(self.docs_at, self.n)
    }

    /// Checks (once) every block holding a byte of `from .. to`.
    fn ensure(&self, from: usize, to: usize) -> Result<()> {
        self.file
            .ensure(from, to, |lo, hi| self.check_block(lo, hi))
    }

    /// The block of bytes `lo .. hi` (its checksum already checked): its directory
    /// entries (at most the incidences) and its document ids (below the segment's
    /// documents).
    fn check_block(&self, lo: usize, hi: usize) -> Result<()> {
        let bytes = self.file.bytes();
        let words = |from: usize, to: usize| {
            let (a, z) = (lo.max(from), hi.min(to));
            let s: &[u8] = if a < z { &bytes[a..z] } else { &[] };
            s.chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        };
        let dir_end = self.dir_at + 4 * self.entries;
        if words(self.dir_at, dir_end).any(|x| x as usize > self.n) {
            return Err(Error::format(
                self.file.path(),
                format!("directory entry beyond the incidences in bytes {lo}..{hi}"),
            ));
        }
        if words(self.docs_at, self.docs_at + 4 * self.n).any(|d| d >= self.n_docs) {
            return Err(Error::format(
                self.file.path(),
                format!(
                    "document id >= {} (the segment's documents) in bytes {lo}..{hi}",
                    self.n_docs
                ),
            ));
        }
        Ok(())
    }

    /// [`Postings::get`] of the mapped arrays.
    fn get(&self, key: u64) -> Result<&[u32]> {
        if self.n == 0 || key < self.first || key > self.last {
            return Ok(&[]);
        }
        let (from, to) = if self.entries == 0 {
            (0, self.n)
        } else {
            let b = ((key - self.first) >> self.shift) as usize;
            if b + 1 >= self.entries {
                return Err(Error::format(
                    self.file.path(),
                    format!(
                        "at byte {}: a directory of {} entries for keys {}..={} (shift {})",
                        self.dir_at, self.entries, self.first, self.last, self.shift
                    ),
                ));
            }
            self.ensure(self.dir_at + 4 * b, self.dir_at + 4 * b + 8)?;
            let d = self.dir();
            (d[b] as usize, d[b + 1] as usize)
        };
        if from > to {
            return Err(Error::format(
                self.file.path(),
                format!("at byte {}: directory entries descend", self.dir_at),
            ));
        }
        self.ensure(HEADER + 8 * from, HEADER + 8 * to)?;
        let ks = &self.keys()[from..to];
        let lo = ks.partition_point(|&k| k < key);
        let hi = lo + ks[lo..].partition_point(|&k| k == key);
        let (a, z) = (from + lo, from + hi);
        self.ensure(self.docs_at + 4 * a, self.docs_at + 4 * z)?;
        Ok(&self.docs()[a..z])
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
    use std::path::PathBuf;

    #[test]
    fn from_pairs_sorts_and_dedups() {
        let a = vec![(5u64, 1u32), (1, 0), (5, 0), (9, 2)];
        let b = vec![(5u64, 3u32), (2, 3), (9, 2), (10, 4)];
        let m = Postings::from_pairs(a.into_iter().chain(b).collect());
        assert_eq!(m.len(), 7);
        assert_eq!(m.get(5).unwrap(), &[0, 1, 3]);
        assert_eq!(m.get(7).unwrap(), &[] as &[u32]);
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
                assert_eq!(p.get(k).unwrap(), &want[..], "n={n} key={k}");
            }
        }
    }

    #[test]
    fn version_1_round_trip() {
        let p = Postings::from_pairs(vec![(3, 0), (3, 7), (8, 2), (u64::MAX, 1), (3, 5)]);
        let mut out = Vec::new();
        p.encode_v1(&mut out);
        let mut r = SliceReader::new(&out, std::path::Path::new("x"));
        assert_eq!(Postings::decode_v1(&mut r, 8).unwrap(), p);
        let mut r = SliceReader::new(&out, std::path::Path::new("x"));
        assert!(Postings::decode_v1(&mut r, 7).is_err());
    }

    /// Random postings of `docs` documents written as a version-2 file in `dir`; the file's
    /// path, bytes and block sums for blocks of `block` bytes.
    fn mapped_file(
        dir: &Path,
        docs: u32,
        block: usize,
        seed: u64,
    ) -> (Postings, PathBuf, Vec<u8>, Vec<u64>) {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let pairs: Vec<(u64, u32)> = (0..docs * 8)
            .map(|_| (rng.gen_range(0..5000u64) << 40, rng.gen_range(0..docs)))
            .collect();
        let p = Postings::from_pairs(pairs);
        let mut bytes = Vec::new();
        p.encode_with(b"FIMDUPCX", docs, &mut |b: &[u8]| {
            bytes.extend_from_slice(b);
            Ok(())
        })
        .unwrap();
        let path = dir.join("context.bin");
        std::fs::write(&path, &bytes).unwrap();
        let sums = bytes
            .chunks(block)
            .map(|c| xxhash_rust::xxh64::xxh64(c, 0))
            .collect();
        (p, path, bytes, sums)
    }

    #[test]
    fn mapped_lookups_equal_the_in_memory_ones() {
        let dir = tempfile::tempdir().unwrap();
        for (docs, block) in [(1u32, 64usize), (300, 64), (2000, 4096), (2000, 1 << 20)] {
            let (p, path, bytes, sums) = mapped_file(dir.path(), docs, block, docs as u64);
            for lazy in [false, true] {
                let m = Postings::map_file(&path, b"FIMDUPCX", docs, sums.clone(), block, lazy)
                    .unwrap();
                assert!(m.is_mapped() || cfg!(target_endian = "big"));
                assert_eq!(m, p);
                assert_eq!(m.len(), p.len());
                for k in (0..5001u64).map(|k| k << 40).chain([1, u64::MAX]) {
                    assert_eq!(m.get(k).unwrap(), p.get(k).unwrap(), "key {k}");
                }
                // written again from the map: the same bytes
                let mut again = Vec::new();
                m.encode_with(b"FIMDUPCX", docs, &mut |b: &[u8]| {
                    again.extend_from_slice(b);
                    Ok(())
                })
                .unwrap();
                assert_eq!(again, bytes);
            }
            assert!(
                Postings::map_file(&path, b"FIMDUPBT", docs, sums.clone(), block, true).is_err()
            );
            assert!(Postings::map_file(&path, b"FIMDUPCX", docs + 1, sums, block, true).is_err());
        }
    }

    #[test]
    fn a_damaged_block_is_named_when_a_lookup_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let block = 256;
        let (p, path, bytes, sums) = mapped_file(dir.path(), 500, block, 7);
        let nblocks = bytes.len().div_ceil(block);
        for b in [1, nblocks / 2, nblocks - 1] {
            let mut bad = bytes.clone();
            let at = b * block + 5;
            bad[at] ^= 0x10;
            std::fs::write(&path, &bad).unwrap();
            // checked at once: the open fails
            let e = Postings::map_file(&path, b"FIMDUPCX", 500, sums.clone(), block, false)
                .unwrap_err()
                .to_string();
            let range = format!(
                "bytes {}..{}",
                b * block,
                ((b + 1) * block).min(bytes.len())
            );
            assert!(e.contains(&range) && e.contains("context.bin"), "{e}");
            // lazily: the open succeeds, lookups of other blocks answer, the first lookup
            // reading the block fails naming it
            let m = Postings::map_file(&path, b"FIMDUPCX", 500, sums.clone(), block, true).unwrap();
            let mut failed = 0;
            for k in (0..5000u64).map(|k| k << 40) {
                match m.get(k) {
                    Ok(d) => assert_eq!(d, p.get(k).unwrap()),
                    Err(e) => {
                        let e = e.to_string();
                        assert!(e.contains(&range) && e.contains("context.bin"), "{e}");
                        failed += 1;
                    }
                }
            }
            assert!(failed > 0, "block {b}");
        }
        // the header block is checked by the lazy open too
        let mut bad = bytes.clone();
        bad[20] ^= 1;
        std::fs::write(&path, &bad).unwrap();
        let e = Postings::map_file(&path, b"FIMDUPCX", 500, sums, block, true).unwrap_err();
        assert!(e.to_string().contains("bytes 0..256"), "{e}");
    }
}
