//! The inverted shingle-by-document context (IK09 section 2.2) and the FIMI transaction format.
//!
//! A [`Context`] maps each image element (a `u64` key, see `sketch`) to the set of documents
//! whose image holds it, as a [`RoaringBitmap`] of DocIds. [`Transactions`] is a compact (CSR)
//! list of `u32` transactions, the in-memory form of a FIMI file; [`fimi`] reads and writes
//! that format. A context is written as FIMI in one of two [`Orientation`]s:
//! `shingle-rows` (IK09: one line per image element listing the DocIds that hold it; mining
//! it yields sets of documents) or `doc-rows` (one line per document listing the indices of
//! the elements it holds).
//!
//! Invariants:
//! - rows are ordered by ascending key, so a context built from the same images is the same
//!   whatever the number of threads;
//! - every row holds at least `min_df` (default 2) documents: an element held by one document
//!   cannot join a cluster, so it is dropped and counted; with `max_df`, rows holding more
//!   documents are dropped too (B97 5.1) and counted;
//! - transactions keep their input order; the items of one transaction keep the order in
//!   which they were pushed (readers may require them strictly ascending).

pub mod fimi;

use std::io::Write;
use std::path::Path;

use rayon::prelude::*;
use roaring::RoaringBitmap;

use crate::{DocId, Error, Result};

/// A list of transactions stored contiguously: transaction `i` is
/// `items[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transactions {
    items: Vec<u32>,
    offsets: Vec<usize>,
}

impl Default for Transactions {
    fn default() -> Self {
        Self::new()
    }
}

impl Transactions {
    /// An empty list.
    pub fn new() -> Self {
        Transactions {
            items: Vec::new(),
            offsets: vec![0],
        }
    }

    /// Builds from any rows.
    pub fn from_rows<R: AsRef<[u32]>>(rows: impl IntoIterator<Item = R>) -> Self {
        let mut t = Self::new();
        for r in rows {
            t.push(r.as_ref());
        }
        t
    }

    /// Appends one transaction.
    pub fn push(&mut self, row: &[u32]) {
        self.items.extend_from_slice(row);
        self.offsets.push(self.items.len());
    }

    /// Number of transactions.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// True when there is no transaction.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Transaction `i`.
    pub fn get(&self, i: usize) -> &[u32] {
        &self.items[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Total number of item occurrences.
    pub fn total_items(&self) -> usize {
        self.items.len()
    }

    /// Iterates over the transactions in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u32]> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// One more than the largest item (0 when there is none).
    pub fn item_bound(&self) -> u64 {
        self.items
            .iter()
            .map(|&x| u64::from(x) + 1)
            .max()
            .unwrap_or(0)
    }
}

/// How a context is laid out as FIMI transactions.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Orientation {
    /// One line per image element listing the DocIds that hold it (IK09).
    #[default]
    ShingleRows,
    /// One line per document listing the indices (row numbers) of its elements.
    DocRows,
}

impl std::str::FromStr for Orientation {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "shingle-rows" => Ok(Orientation::ShingleRows),
            "doc-rows" => Ok(Orientation::DocRows),
            _ => Err(Error::config(format!(
                "orientation must be shingle-rows or doc-rows, not {s:?}"
            ))),
        }
    }
}

/// Which rows a context keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ContextConfig {
    /// Drop elements held by fewer documents (at least 1; default 2: an element held by one
    /// document cannot join a cluster).
    pub min_df: u32,
    /// Drop elements held by more documents (B97 5.1: very common shingles); `None` keeps all.
    pub max_df: Option<u32>,
}

impl Default for ContextConfig {
    fn default() -> Self {
        ContextConfig {
            min_df: 2,
            max_df: None,
        }
    }
}

impl ContextConfig {
    /// Checks the values: `min_df >= 1` and `max_df >= min_df`.
    pub fn validate(&self) -> Result<()> {
        if self.min_df == 0 {
            return Err(Error::config("min_df must be at least 1"));
        }
        if let Some(m) = self.max_df {
            if m < self.min_df {
                return Err(Error::config(format!(
                    "max_df ({m}) must be at least min_df ({})",
                    self.min_df
                )));
            }
        }
        Ok(())
    }
}

/// What building a context kept and dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ContextStats {
    /// Documents (columns), including those left with no element.
    pub documents: u64,
    /// Distinct elements over all images.
    pub elements: u64,
    /// Elements dropped because fewer than `min_df` documents hold them.
    pub dropped_rare: u64,
    /// Elements dropped because more than `max_df` documents hold them.
    pub dropped_common: u64,
    /// Elements kept (rows).
    pub rows: u64,
    /// Sum of row sizes (incidences kept).
    pub incidences: u64,
    /// Size of the largest row.
    pub max_row: u64,
}

/// The inverted context: image element -> documents holding it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Context {
    n_docs: u32,
    keys: Vec<u64>,
    rows: Vec<RoaringBitmap>,
    stats: ContextStats,
}

impl Context {
    /// Builds the context from the element keys of each document (`doc_keys[d]` belongs to
    /// `DocId(d)`; duplicates within one document are ignored). Parallel and deterministic.
    pub fn from_doc_keys<K: AsRef<[u64]> + Sync>(
        doc_keys: &[K],
        cfg: &ContextConfig,
    ) -> Result<Self> {
        cfg.validate()?;
        let n_docs = u32::try_from(doc_keys.len())
            .map_err(|_| Error::config("more than u32::MAX documents"))?;
        let mut pairs: Vec<(u64, u32)> = doc_keys
            .par_iter()
            .enumerate()
            .flat_map_iter(|(d, ks)| ks.as_ref().iter().map(move |&k| (k, d as u32)))
            .collect();
        pairs.par_sort_unstable();
        pairs.dedup();
        // Group runs of equal keys.
        let mut starts = Vec::new();
        for i in 0..pairs.len() {
            if i == 0 || pairs[i].0 != pairs[i - 1].0 {
                starts.push(i);
            }
        }
        starts.push(pairs.len());
        let elements = (starts.len() - 1) as u64;
        let max_df = cfg.max_df.unwrap_or(u32::MAX) as usize;
        let min_df = cfg.min_df as usize;
        let kept: Vec<(u64, RoaringBitmap)> = starts
            .par_windows(2)
            .filter_map(|w| {
                let run = &pairs[w[0]..w[1]];
                (run.len() >= min_df && run.len() <= max_df).then(|| {
                    let bm = RoaringBitmap::from_sorted_iter(run.iter().map(|p| p.1))
                        .expect("doc ids within a key run are ascending");
                    (run[0].0, bm)
                })
            })
            .collect();
        let dropped_rare = starts.windows(2).filter(|w| w[1] - w[0] < min_df).count() as u64;
        let dropped_common = starts.windows(2).filter(|w| w[1] - w[0] > max_df).count() as u64;
        let (keys, rows): (Vec<u64>, Vec<RoaringBitmap>) = kept.into_iter().unzip();
        let stats = ContextStats {
            documents: u64::from(n_docs),
            elements,
            dropped_rare,
            dropped_common,
            rows: rows.len() as u64,
            incidences: rows.iter().map(|r| r.len()).sum(),
            max_row: rows.iter().map(|r| r.len()).max().unwrap_or(0),
        };
        Ok(Context {
            n_docs,
            keys,
            rows,
            stats,
        })
    }

    /// Number of documents (columns).
    pub fn n_docs(&self) -> u32 {
        self.n_docs
    }

    /// Number of rows (elements kept).
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when no element was kept.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The element key of row `i`.
    pub fn key(&self, i: usize) -> u64 {
        self.keys[i]
    }

    /// The element keys, ascending.
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// The documents holding the element of row `i`.
    pub fn row(&self, i: usize) -> &RoaringBitmap {
        &self.rows[i]
    }

    /// All rows, in key order.
    pub fn rows(&self) -> &[RoaringBitmap] {
        &self.rows
    }

    /// What building kept and dropped.
    pub fn stats(&self) -> &ContextStats {
        &self.stats
    }

    /// The row numbers of the elements each document holds (`result[d]` ascending).
    pub fn doc_rows(&self) -> Vec<Vec<u32>> {
        let mut out = vec![Vec::new(); self.n_docs as usize];
        for (i, row) in self.rows.iter().enumerate() {
            for d in row {
                out[d as usize].push(i as u32);
            }
        }
        out
    }

    /// The documents holding element `key`, if kept.
    pub fn docs_of(&self, key: u64) -> Option<&RoaringBitmap> {
        self.keys.binary_search(&key).ok().map(|i| &self.rows[i])
    }

    /// The context as transactions in the given orientation.
    pub fn to_transactions(&self, orientation: Orientation) -> Transactions {
        match orientation {
            Orientation::ShingleRows => {
                let mut t = Transactions::new();
                let mut buf = Vec::new();
                for r in &self.rows {
                    buf.clear();
                    buf.extend(r.iter());
                    t.push(&buf);
                }
                t
            }
            Orientation::DocRows => Transactions::from_rows(self.doc_rows()),
        }
    }

    /// Writes the context as a FIMI file (atomically).
    pub fn write_fimi(&self, path: &Path, orientation: Orientation) -> Result<()> {
        let mut f = crate::io::AtomicFile::create(path)?;
        let res = match orientation {
            Orientation::ShingleRows => {
                let mut buf = Vec::new();
                self.rows.iter().try_for_each(|r| {
                    buf.clear();
                    buf.extend(r.iter());
                    fimi::write_rows(&mut f, std::iter::once(&buf))
                })
            }
            Orientation::DocRows => fimi::write_rows(&mut f, self.doc_rows()),
        };
        res.and_then(|()| f.flush())
            .map_err(|e| Error::io(path, e))?;
        f.commit()
    }

    /// Reads a context from a FIMI file in the given orientation. FIMI keeps no element keys:
    /// row `i` (in shingle-rows files, line `i`; in doc-rows files, item `i`) gets key `i`.
    /// `n_docs` is the number of documents if known, else one more than the largest DocId.
    /// Rows are kept as they are (no min/max df filtering); lines must be strictly ascending.
    pub fn read_fimi(path: &Path, orientation: Orientation, n_docs: Option<u32>) -> Result<Self> {
        let t = fimi::read_transactions(
            path,
            fimi::FimiOptions {
                strictly_ascending: true,
            },
        )?;
        let (keys, rows, seen_docs) = match orientation {
            Orientation::ShingleRows => {
                let rows: Vec<RoaringBitmap> = t
                    .iter()
                    .map(|r| RoaringBitmap::from_sorted_iter(r.iter().copied()).expect("ascending"))
                    .collect();
                let seen = t.item_bound();
                ((0..rows.len() as u64).collect::<Vec<_>>(), rows, seen)
            }
            Orientation::DocRows => {
                let n_rows = t.item_bound() as usize;
                let mut rows = vec![RoaringBitmap::new(); n_rows];
                for (d, r) in t.iter().enumerate() {
                    for &e in r {
                        rows[e as usize].insert(d as u32);
                    }
                }
                ((0..n_rows as u64).collect(), rows, t.len() as u64)
            }
        };
        let n = match n_docs {
            Some(n) if u64::from(n) < seen_docs => {
                return Err(Error::format(
                    path,
                    format!(
                        "holds DocId {} but the corpus has {n} documents",
                        seen_docs - 1
                    ),
                ))
            }
            Some(n) => n,
            None => u32::try_from(seen_docs)
                .map_err(|_| Error::format(path, "more than u32::MAX documents"))?,
        };
        let stats = ContextStats {
            documents: u64::from(n),
            elements: rows.len() as u64,
            dropped_rare: 0,
            dropped_common: 0,
            rows: rows.len() as u64,
            incidences: rows.iter().map(|r| r.len()).sum(),
            max_row: rows.iter().map(|r| r.len()).max().unwrap_or(0),
        };
        Ok(Context {
            n_docs: n,
            keys,
            rows,
            stats,
        })
    }

    /// Documents that share at least `k` elements, as `(a, b, shared)` with `a < b`, sorted:
    /// the `<id,id,count>` phase of B97 4.1, computed from the rows (see [`pair_counts_of_rows`]).
    pub fn pair_counts(&self, k: u32) -> Vec<(DocId, DocId, u32)> {
        pair_counts_of_rows(&self.rows, self.n_docs, k)
    }
}

/// The `<id,id,count>` phase over any rows (each a set of DocIds below `n_docs`): every pair
/// `(a, b, shared)` with `a < b` whose documents appear together in at least `max(k, 1)` rows,
/// sorted. Parallel over documents with one dense counter array per worker (no hashing), and
/// deterministic: each document's pairs are produced in ascending `b` and concatenated in `a`
/// order.
pub fn pair_counts_of_rows(
    rows: &[RoaringBitmap],
    n_docs: u32,
    k: u32,
) -> Vec<(DocId, DocId, u32)> {
    let k = k.max(1);
    let n = n_docs as usize;
    // Rows as plain sorted vectors (slicing by partition_point beats bitmap iteration here).
    let flat: Vec<Vec<u32>> = rows.par_iter().map(|r| r.iter().collect()).collect();
    let mut doc_rows = vec![Vec::new(); n];
    for (i, r) in flat.iter().enumerate() {
        if r.len() >= 2 {
            for &d in r {
                doc_rows[d as usize].push(i as u32);
            }
        }
    }
    let per_doc: Vec<Vec<(DocId, DocId, u32)>> = (0..n)
        .into_par_iter()
        .map_init(
            || (vec![0u32; n], Vec::<u32>::new()),
            |(counts, touched), a| {
                for &r in &doc_rows[a] {
                    let row = &flat[r as usize];
                    let from = row.partition_point(|&b| b as usize <= a);
                    for &b in &row[from..] {
                        let c = &mut counts[b as usize];
                        if *c == 0 {
                            touched.push(b);
                        }
                        *c += 1;
                    }
                }
                touched.sort_unstable();
                let mut v = Vec::new();
                for &b in touched.iter() {
                    let c = std::mem::take(&mut counts[b as usize]);
                    if c >= k {
                        v.push((DocId(a as u32), DocId(b), c));
                    }
                }
                touched.clear();
                v
            },
        )
        .collect();
    per_doc.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(docs: &[&[u64]], cfg: ContextConfig) -> Context {
        Context::from_doc_keys(docs, &cfg).unwrap()
    }

    #[test]
    fn transposes_and_drops_rare_and_common() {
        let docs: &[&[u64]] = &[&[1, 2, 3, 9], &[2, 3, 9], &[3, 9, 7], &[9]];
        let c = ctx(
            docs,
            ContextConfig {
                min_df: 2,
                max_df: Some(3),
            },
        );
        // 1 and 7 are held by one doc; 9 by four (> 3).
        assert_eq!(c.keys(), &[2, 3]);
        assert_eq!(c.row(0).iter().collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(c.row(1).iter().collect::<Vec<_>>(), vec![0, 1, 2]);
        let s = c.stats();
        assert_eq!(
            (s.elements, s.dropped_rare, s.dropped_common, s.rows),
            (5, 2, 1, 2)
        );
        assert_eq!(c.doc_rows(), vec![vec![0, 1], vec![0, 1], vec![1], vec![]]);
        assert_eq!(
            c.pair_counts(1),
            vec![
                (DocId(0), DocId(1), 2),
                (DocId(0), DocId(2), 1),
                (DocId(1), DocId(2), 1)
            ]
        );
        assert_eq!(c.pair_counts(2), vec![(DocId(0), DocId(1), 2)]);
    }

    #[test]
    fn fimi_round_trip_both_orientations() {
        let docs: &[&[u64]] = &[&[10, 20, 30], &[20, 30], &[30, 40], &[40, 10]];
        let c = ctx(docs, ContextConfig::default());
        let dir = tempfile::tempdir().unwrap();
        for o in [Orientation::ShingleRows, Orientation::DocRows] {
            let p = dir.path().join("c.dat");
            c.write_fimi(&p, o).unwrap();
            let back = Context::read_fimi(&p, o, Some(c.n_docs())).unwrap();
            assert_eq!(back.rows(), c.rows(), "{o:?}");
            assert_eq!(back.n_docs(), c.n_docs());
            assert_eq!(back.to_transactions(o), c.to_transactions(o));
        }
        let p = dir.path().join("s.dat");
        c.write_fimi(&p, Orientation::ShingleRows).unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "0 3\n0 1\n0 1 2\n2 3\n"
        );
    }

    #[test]
    fn same_context_for_one_and_two_threads() {
        let docs: Vec<Vec<u64>> = (0..500u64)
            .map(|d| (0..40).map(|j| (d * 7 + j * 13) % 997).collect())
            .collect();
        let build = |t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
                .install(|| ctx_owned(&docs))
        };
        assert_eq!(build(1), build(2));
    }

    fn ctx_owned(docs: &[Vec<u64>]) -> Context {
        Context::from_doc_keys(docs, &ContextConfig::default()).unwrap()
    }
}
