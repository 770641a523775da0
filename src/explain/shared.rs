//! The shingles two canonical documents share, where they occur, and the passages they
//! cover.
//!
//! Invariants: shingle `j` of a document starts at token `j * offset` and covers `len`
//! tokens, the shingles [`crate::shingle::shingle_hashes`] hashes in document order; a
//! shingle is shared when its hash occurs in both documents; its positions are ascending
//! token indices and its byte range runs from the start of its first token to the end of its
//! last one. [`merge_ranges`] returns sorted, disjoint, non-empty ranges.

use std::collections::HashMap;
use std::ops::Range;

use super::SharedShingle;
use crate::shingle::{shingle_hashes, ShingleConfig};
use crate::text::Canonical;

/// Byte range in `doc.text` of the shingle starting at token `start` (`start + len` tokens
/// exist: the caller takes starts from the shingle hashes).
fn span(doc: &Canonical, start: usize, len: usize) -> Range<usize> {
    doc.tokens[start].start as usize..doc.tokens[start + len - 1].end as usize
}

/// The shingle hashes of `doc` with the token index each starts at, in document order.
fn starts(doc: &Canonical, cfg: &ShingleConfig) -> Vec<(u64, usize)> {
    let mut h = Vec::new();
    shingle_hashes(doc, cfg, &mut h);
    h.into_iter()
        .enumerate()
        .map(|(j, h)| (h, j * cfg.offset))
        .collect()
}

/// The shingles of `a` and `b` with equal hashes, ordered by their first position in `a`,
/// with every occurrence in both.
pub(super) fn shared_shingles(
    a: &Canonical,
    b: &Canonical,
    cfg: &ShingleConfig,
) -> Vec<SharedShingle> {
    let mut in_b: HashMap<u64, Vec<usize>> = HashMap::new();
    for (h, s) in starts(b, cfg) {
        in_b.entry(h).or_default().push(s);
    }
    let mut index: HashMap<u64, usize> = HashMap::new();
    let mut out: Vec<SharedShingle> = Vec::new();
    for (h, s) in starts(a, cfg) {
        let Some(pb) = in_b.get(&h) else { continue };
        match index.get(&h) {
            Some(&i) => out[i].positions_a.push(s),
            None => {
                index.insert(h, out.len());
                let r = span(a, s, cfg.len);
                out.push(SharedShingle {
                    text: a.text[r].to_string(),
                    hash: format!("{h:016x}"),
                    positions_a: vec![s],
                    positions_b: pb.clone(),
                    ranges_a: Vec::new(),
                    ranges_b: Vec::new(),
                });
            }
        }
    }
    for sh in &mut out {
        sh.ranges_a = sh
            .positions_a
            .iter()
            .map(|&s| span(a, s, cfg.len))
            .collect();
        sh.ranges_b = sh
            .positions_b
            .iter()
            .map(|&s| span(b, s, cfg.len))
            .collect();
    }
    out
}

/// `ranges` sorted and merged: overlapping or touching ranges become one, empty ones are
/// dropped. The result is sorted, disjoint and non-empty.
pub fn merge_ranges(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.retain(|r| r.start < r.end);
    ranges.sort_by_key(|r| (r.start, r.end));
    let mut out: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// The passages of one side: the merged ranges of every occurrence of a shared shingle.
pub(super) fn passages<'a>(
    ranges: impl Iterator<Item = &'a Vec<Range<usize>>>,
) -> Vec<Range<usize>> {
    merge_ranges(ranges.flatten().cloned().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{Canonicalizer, TextConfig};

    fn canon(s: &str) -> Canonical {
        Canonicalizer::new(TextConfig::default())
            .unwrap()
            .canonicalize(s)
    }

    #[test]
    fn overlapping_shingle_ranges_merge_into_one_passage() {
        assert_eq!(merge_ranges(vec![2..9, 0..6, 7..16]), vec![0..16]);
        assert_eq!(merge_ranges(vec![4..7, 0..3, 3..3]), vec![0..3, 4..7]);
        // Touching ranges merge; empty and contained ones vanish.
        assert_eq!(merge_ranges(vec![0..3, 3..5, 1..2, 9..9]), vec![0..5]);
        assert!(merge_ranges(Vec::new()).is_empty());
    }

    #[test]
    fn rose_shared_shingles_and_passages() {
        let a = canon("a rose is a rose is a rose");
        let b = canon("a rose is a flower which is a rose");
        let cfg = ShingleConfig::new(2, 1, 0).unwrap();
        let sh = shared_shingles(&a, &b, &cfg);
        let texts: Vec<&str> = sh.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(texts, ["a rose", "rose is", "is a"]);
        assert_eq!(sh[0].positions_a, [0, 3, 6]);
        assert_eq!(sh[0].positions_b, [0, 7]);
        assert_eq!(sh[1].positions_a, [1, 4]);
        assert_eq!(sh[2].positions_b, [2, 6]);
        assert_eq!(sh[0].ranges_b, [0..6, 28..34]);
        // Overlapping shingle occurrences make one passage in A, two in B.
        assert_eq!(
            passages(sh.iter().map(|s| &s.ranges_a)),
            [Range { start: 0, end: 26 }]
        );
        assert_eq!(passages(sh.iter().map(|s| &s.ranges_b)), [0..11, 25..34]);
    }

    #[test]
    fn offset_and_short_documents() {
        // With offset 2 the shingles of "a b c d e" start at tokens 0 and 2 only.
        let a = canon("a b c d e");
        let b = canon("x b c d e");
        let cfg = ShingleConfig::new(2, 2, 0).unwrap();
        let sh = shared_shingles(&a, &b, &cfg);
        assert_eq!(sh.len(), 1);
        assert_eq!(sh[0].text, "c d");
        assert_eq!(sh[0].positions_a, [2]);
        let cfg = ShingleConfig::new(6, 1, 0).unwrap();
        assert!(shared_shingles(&a, &a, &cfg).is_empty());
        assert!(shared_shingles(&canon(""), &a, &cfg).is_empty());
    }
}
