//! The pairs stage over a partition of the documents: [`count_pairs`] counts, over rows
//! (each a posting list, ascending), the pairs `(a, b)` whose smaller document `a` is in
//! the partition, and keeps those sharing `k` rows or more; [`link_candidates`] tests
//! candidate pairs on their documents' full lists with a [`PrefixFilter`] (the pair test
//! of the prefix filter, after the prefixes found the candidates).
//!
//! Invariants: each pair is counted where its smaller document is (the partitions of the
//! documents partition the pairs, so the parts' edges are the whole run's, each once);
//! edges come out sorted by `(a, b)`.

use crate::context::PrefixFilter;
use crate::sorted::intersection_size;
use crate::Result;

/// The edges `(a, b)`, `a < b`, with `a` in the partition (`mine(a)`), whose documents
/// share at least `k` of `rows` (each row ascending), and the candidate pairs counted.
pub fn count_pairs<R: AsRef<[u32]>>(
    rows: &[R],
    mine: impl Fn(u32) -> bool,
    k: u32,
) -> (Vec<(u32, u32)>, u64) {
    // (document, row, its position in the row), for the partition's documents.
    let mut at: Vec<(u32, u32, u32)> = Vec::new();
    for (ri, r) in rows.iter().enumerate() {
        let r = r.as_ref();
        for (i, &d) in r[..r.len().saturating_sub(1)].iter().enumerate() {
            if mine(d) {
                at.push((d, ri as u32, i as u32));
            }
        }
    }
    at.sort_unstable();
    let mut edges = Vec::new();
    let mut candidates = 0u64;
    let mut count: hashbrown::HashMap<u32, u32> = hashbrown::HashMap::new();
    let mut found: Vec<u32> = Vec::new();
    for runs in at.chunk_by(|x, y| x.0 == y.0) {
        count.clear();
        for &(_, ri, i) in runs {
            for &b in &rows[ri as usize].as_ref()[i as usize + 1..] {
                *count.entry(b).or_insert(0) += 1;
            }
        }
        candidates += count.len() as u64;
        found.clear();
        found.extend(count.iter().filter(|e| *e.1 >= k).map(|e| *e.0));
        found.sort_unstable();
        edges.extend(found.iter().map(|&b| (runs[0].0, b)));
    }
    (edges, candidates)
}

/// The candidates `cands` (sorted by `a`) that `filter` links: `list(d)` gives a
/// document's shared elements (ascending) and its full size; each `a`'s list is read once
/// for all its `b`s.
pub fn link_candidates(
    cands: &[(u32, u32)],
    filter: PrefixFilter,
    mut list: impl FnMut(u32) -> Result<(Vec<u64>, usize)>,
) -> Result<Vec<(u32, u32)>> {
    let mut edges = Vec::new();
    for run in cands.chunk_by(|x, y| x.0 == y.0) {
        let (ka, sa) = list(run[0].0)?;
        for &(a, b) in run {
            let (kb, sb) = list(b)?;
            if filter.holds(intersection_size(&ka, &kb), sa, sb) {
                edges.push((a, b));
            }
        }
    }
    Ok(edges)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_of_the_partition_at_k() {
        let rows = [vec![1u32, 2, 3], vec![1, 2], vec![2, 3], vec![4]];
        assert_eq!(count_pairs(&rows, |_| true, 2), (vec![(1, 2), (2, 3)], 3));
        assert_eq!(count_pairs(&rows, |d| d == 2, 1), (vec![(2, 3)], 1));
    }

    #[test]
    fn candidates_linked_on_full_lists() {
        let lists = [vec![], vec![1u64, 2, 3], vec![1, 2, 3], vec![1, 9]];
        let got = link_candidates(&[(1, 2), (1, 3)], PrefixFilter::Shared { k: 2 }, |d| {
            Ok((lists[d as usize].clone(), lists[d as usize].len()))
        });
        assert_eq!(got.unwrap(), vec![(1, 2)]);
    }
}
