//! The `<id,id,count>` phase (B97 4.1): the document pairs that share at least `k` rows of a
//! context, with the number shared. In memory ([`pair_counts_of_rows`]: dense counters for
//! `k = 1`, prefix filtering for `k >= 2`) or by sorted `<id,id>` runs spilled to disk
//! ([`pair_counts_spilled`]); [`pair_counts`] picks one under a memory budget.
//!
//! Invariants: every form returns the same pairs, `(a, b, shared)` with `a < b`, sorted, for
//! any number of threads.

use rayon::prelude::*;

use super::prefix::{smallest_by, PrefixFilter};
use super::RowSource;
use crate::fimi::Transactions;
use crate::sorted::intersection_size;
use crate::spill::{ExternalSorter, SpillConfig};
use crate::{DocId, Result};

/// Number of `(a, b)` pair incidences over the rows (`sum C(|row|, 2)`): what the spilled
/// pair counting writes, at 8 bytes each.
pub fn pair_incidences(rows: &Transactions) -> u64 {
    rows.iter()
        .map(|r| {
            let l = r.len() as u64;
            l * l.saturating_sub(1) / 2
        })
        .sum()
}

/// An upper bound of the working set of [`pair_counts_of_rows`] besides `rows` and its
/// result: the document -> rows index (8 bytes per document, 4 per incidence in rows of two
/// or more documents) and one dense `u32` counter per document and worker thread (k = 1;
/// the prefix-filtered path for k >= 2 holds less). It does not hold the pair incidences
/// themselves. The result is left out on purpose: [`pair_counts_spilled`] returns the same
/// pairs in memory, so it cannot decide between the two (it did once, and sent a 4M-document
/// run with a large estimated result to the spilled path, whose pair-incidence runs filled the
/// disk where the prefix filter needs a few hundred MiB).
pub fn pair_counts_in_memory_bytes(rows: &Transactions, n_docs: u32) -> u64 {
    let n = u64::from(n_docs);
    let inc: u64 = rows
        .iter()
        .filter(|r| r.len() >= 2)
        .map(|r| r.len() as u64)
        .sum();
    crate::plan::pair_counts_in_memory_bytes(n, inc, rayon::current_num_threads() as u64)
}

/// The `<id,id,count>` phase under a spill configuration: in memory
/// ([`pair_counts_of_rows`]) when there is no budget or its working set
/// ([`pair_counts_in_memory_bytes`]) fits in it, else by sorted runs on disk
/// ([`pair_counts_spilled`]). Both give the same result.
pub fn pair_counts(
    rows: &Transactions,
    n_docs: u32,
    k: u32,
    spill: &SpillConfig,
) -> Result<Vec<(DocId, DocId, u32)>> {
    if spill.budget.is_none()
        || spill.hand("pair counts", pair_counts_in_memory_bytes(rows, n_docs)) <= spill.room()
    {
        Ok(pair_counts_of_rows(rows, n_docs, k))
    } else {
        pair_counts_spilled(rows, k, spill)
    }
}

/// The `<id,id,count>` phase by divide, compute, merge (B97 4.1): every pair `(a, b)`, `a < b`,
/// of every row is written to an [`ExternalSorter`] (sorted runs spilled under `spill`), and
/// the merged stream is counted; pairs seen in at least `max(k, 1)` rows are returned,
/// sorted. Equal to [`pair_counts_of_rows`].
pub fn pair_counts_spilled(
    rows: &dyn RowSource,
    k: u32,
    spill: &SpillConfig,
) -> Result<Vec<(DocId, DocId, u32)>> {
    let k = k.max(1);
    let mut s = ExternalSorter::<u64>::new(spill, "pairs");
    rows.for_each_row(&mut |r| {
        for (i, &a) in r.iter().enumerate() {
            for &b in &r[i + 1..] {
                s.push((u64::from(a) << 32) | u64::from(b))?;
            }
        }
        Ok(())
    })?;
    let mut out = Vec::new();
    let mut cur: Option<(u64, u32)> = None;
    let emit = |out: &mut Vec<(DocId, DocId, u32)>, p: u64, c: u32| {
        if c >= k {
            out.push((DocId((p >> 32) as u32), DocId(p as u32), c));
        }
    };
    for p in s.finish()? {
        let p = p?;
        match &mut cur {
            Some((q, c)) if *q == p => *c += 1,
            _ => {
                if let Some((q, c)) = cur {
                    emit(&mut out, q, c);
                }
                cur = Some((p, 1));
            }
        }
    }
    if let Some((q, c)) = cur {
        emit(&mut out, q, c);
    }
    Ok(out)
}

/// The `<id,id,count>` phase over any rows (each a strictly ascending set of DocIds below
/// `n_docs`), in memory: every pair `(a, b, shared)` with `a < b` whose documents appear
/// together in at least `max(k, 1)` rows, sorted. Parallel over documents with one dense
/// counter array per worker (no hashing), and deterministic: each document's pairs are
/// produced in ascending `b` and concatenated in `a` order.
pub fn pair_counts_of_rows(rows: &Transactions, n_docs: u32, k: u32) -> Vec<(DocId, DocId, u32)> {
    let k = k.max(1);
    let n = n_docs as usize;
    // Rows of each document (CSR), rows of one document only left out.
    let doc_rows = Transactions::transpose(n, rows.len(), |i| {
        let r = rows.get(i);
        if r.len() >= 2 {
            r
        } else {
            &[]
        }
    });
    if k >= 2 {
        return pair_counts_prefix(rows, &doc_rows, k);
    }
    let per_doc: Vec<Vec<(DocId, DocId, u32)>> = (0..n)
        .into_par_iter()
        .map_init(
            || (vec![0u32; n], Vec::<u32>::new()),
            |(counts, touched), a| {
                for &r in doc_rows.get(a) {
                    let row = rows.get(r as usize);
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

/// [`pair_counts_of_rows`] for `k >= 2` by prefix filtering ([`PrefixFilter::Shared`], the
/// exact join's filter): rows are ordered rarest first (`(length, index)`); a document holding
/// `m` rows can share `k` of them with another only if the first `m - k + 1` of its rows in
/// that order (its prefix) meet the other's prefix. So pairs are generated from the prefix
/// rows only (the common rows, whose pairs grow with the square of the corpus, are never
/// expanded) and each candidate's shared rows are counted exactly by merging the two
/// documents' row lists. `doc_rows` is the document -> rows index (rows of two or
/// more documents, ascending). The result is the counting form's, pair for pair.
fn pair_counts_prefix(
    rows: &Transactions,
    doc_rows: &Transactions,
    k: u32,
) -> Vec<(DocId, DocId, u32)> {
    let n = doc_rows.len();
    let filter = PrefixFilter::Shared { k };
    let rank = |r: u32| (rows.get(r as usize).len(), r);
    // Each document's prefix rows.
    let prefixes: Vec<Vec<u32>> = (0..n)
        .into_par_iter()
        .map(|a| {
            let mine = doc_rows.get(a);
            smallest_by(mine, filter.prefix_of_shared(mine.len(), mine.len()), rank)
        })
        .collect();
    // Row -> documents holding it in their prefix (ascending DocIds).
    let pdocs = Transactions::transpose(rows.len(), n, |a| &prefixes[a][..]);
    let per_doc: Vec<Vec<(DocId, DocId, u32)>> = (0..n)
        .into_par_iter()
        .map_init(
            || (vec![u32::MAX; n], Vec::<u32>::new()),
            |(seen, cand), a| {
                for &r in &prefixes[a] {
                    let docs = pdocs.get(r as usize);
                    let from = docs.partition_point(|&b| b as usize <= a);
                    for &b in &docs[from..] {
                        if seen[b as usize] != a as u32 {
                            seen[b as usize] = a as u32;
                            cand.push(b);
                        }
                    }
                }
                cand.sort_unstable();
                let ra = doc_rows.get(a);
                let mut v = Vec::new();
                for &b in cand.iter() {
                    let rb = doc_rows.get(b as usize);
                    let c = intersection_size(ra, rb);
                    if filter.holds(c, ra.len(), rb.len()) {
                        v.push((DocId(a as u32), DocId(b), c as u32));
                    }
                }
                cand.clear();
                v
            },
        )
        .collect();
    per_doc.into_iter().flatten().collect()
}

/// [`pair_counts_of_rows`] for `k >= 2` over rows read in order (e.g. a
/// [`SpilledContext`](super::SpilledContext)), holding per document only a few counters
/// and, for a batch of documents at a time, their row lists: the prefix filter of
/// `pair_counts_prefix` with rows ordered by `(length class, position)` (length class =
/// `floor(log2(length))`, one scan of the rows per class), candidates through sorted runs
/// under `spill`, then each batch of candidates counted exactly from the row lists of its
/// documents (one scan of the rows per batch). Rows of one document are ignored, as in the
/// other forms. The same result as [`pair_counts_of_rows`], pair for pair; `k <= 1` is
/// [`pair_counts_spilled`].
pub fn pair_counts_streamed(
    rows: &dyn RowSource,
    n_docs: u32,
    k: u32,
    spill: &SpillConfig,
) -> Result<Vec<(DocId, DocId, u32)>> {
    if k <= 1 {
        return pair_counts_spilled(rows, k, spill);
    }
    let n = n_docs as usize;
    let filter = PrefixFilter::Shared { k };
    // Rows (of two or more documents) per document, and the length classes present.
    let mut held = vec![0u32; n];
    let mut classes = 0u64;
    rows.for_each_row(&mut |r| {
        if r.len() >= 2 {
            for &d in r {
                held[d as usize] += 1;
            }
            classes |= 1 << r.len().ilog2();
        }
        Ok(())
    })?;
    // Candidates: pairs meeting in a row that lies in both documents' prefixes.
    let mut cands = ExternalSorter::<u64>::new(spill, "candidates");
    let mut seen = vec![0u32; n];
    let mut in_prefix: Vec<u32> = Vec::new();
    for class in 1..64u32 {
        if classes & (1 << class) == 0 {
            continue;
        }
        rows.for_each_row(&mut |r| {
            if r.len() < 2 || r.len().ilog2() != class {
                return Ok(());
            }
            in_prefix.clear();
            for &d in r {
                let m = held[d as usize] as usize;
                let s = &mut seen[d as usize];
                *s += 1;
                if (*s as usize) <= filter.prefix_of_shared(m, m) {
                    in_prefix.push(d);
                }
            }
            for (i, &a) in in_prefix.iter().enumerate() {
                for &b in &in_prefix[i + 1..] {
                    cands.push((u64::from(a) << 32) | u64::from(b))?;
                }
            }
            Ok(())
        })?;
    }
    drop(seen);
    // Exact counts, a batch of candidates at a time: the row lists of the batch's
    // documents are gathered in one scan, then each candidate's lists are intersected.
    let batch_bytes = spill.hand("pair batches", crate::plan::pair_batch_bytes(spill));
    let mut slot = vec![u32::MAX; n];
    let mut out = Vec::new();
    let mut batch: Vec<u64> = Vec::new();
    let mut docs: Vec<u32> = Vec::new();
    let mut bytes = 0u64;
    let mut verify =
        |batch: &mut Vec<u64>, docs: &mut Vec<u32>, slot: &mut Vec<u32>| -> Result<()> {
            let mut lists: Vec<Vec<u32>> = docs
                .iter()
                .map(|&d| Vec::with_capacity(held[d as usize] as usize))
                .collect();
            let mut row_no = 0u32;
            rows.for_each_row(&mut |r| {
                if r.len() >= 2 {
                    for &d in r {
                        let s = slot[d as usize];
                        if s != u32::MAX {
                            lists[s as usize].push(row_no);
                        }
                    }
                }
                row_no += 1;
                Ok(())
            })?;
            let found: Vec<Option<(DocId, DocId, u32)>> = batch
                .par_iter()
                .map(|&p| {
                    let (a, b) = ((p >> 32) as u32, p as u32);
                    let (la, lb) = (
                        &lists[slot[a as usize] as usize],
                        &lists[slot[b as usize] as usize],
                    );
                    let c = intersection_size(la, lb);
                    filter
                        .holds(c, la.len(), lb.len())
                        .then_some((DocId(a), DocId(b), c as u32))
                })
                .collect();
            out.extend(found.into_iter().flatten());
            for &d in docs.iter() {
                slot[d as usize] = u32::MAX;
            }
            docs.clear();
            batch.clear();
            Ok(())
        };
    let mut last = None;
    for p in cands.finish()? {
        let p = p?;
        if last == Some(p) {
            continue;
        }
        last = Some(p);
        for d in [(p >> 32) as u32, p as u32] {
            if slot[d as usize] == u32::MAX {
                slot[d as usize] = docs.len() as u32;
                docs.push(d);
                bytes += 32 + 4 * u64::from(held[d as usize]);
            }
        }
        batch.push(p);
        bytes += 8;
        if bytes >= batch_bytes {
            verify(&mut batch, &mut docs, &mut slot)?;
            bytes = 0;
        }
    }
    if !batch.is_empty() {
        verify(&mut batch, &mut docs, &mut slot)?;
    }
    Ok(out)
}
