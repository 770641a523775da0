//! The exact truth of a generated corpus ([`TruthRow`]): every pair within a group, plus
//! every other pair whose resemblance or either containment reaches the floor.
//!
//! Invariants: values are computed on word 5-shingle sets (exact n-grams, no hashing) and
//! word edit similarity; the other pairs are found exactly through an inverted index of
//! shingles; rows are computed in parallel but collected in `(a, b)` order.

use rayon::prelude::*;
use serde::Serialize;

use super::GenDoc;
use crate::eval::similarity::{containment, edit_similarity, jaccard, shingle_set, SHINGLE_LEN};
use crate::sorted::intersection_size;

/// One row of `truth.csv`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TruthRow {
    /// First id (`a < b`).
    pub a: String,
    /// Second id.
    pub b: String,
    /// Jaccard resemblance of the word 5-shingle sets.
    pub resemblance: f64,
    /// Share of a's shingles in b.
    pub containment_ab: f64,
    /// Share of b's shingles in a.
    pub containment_ba: f64,
    /// `1 - word levenshtein / max(len_a, len_b)`.
    pub edit_similarity: f64,
    /// The group kind both belong to (`edit`, `chain`, `template`, `containment`, `copy`), or
    /// `other` for a pair across groups found by the exact join.
    pub kind: String,
}

/// The truth rows: every pair within a group, plus every other pair whose resemblance or
/// either containment reaches `floor` (found exactly through an inverted index of shingles).
pub(super) fn compute_truth(
    docs: &[GenDoc],
    seqs: &[Vec<u32>],
    groups: &[Option<(usize, &'static str)>],
    floor: f64,
) -> Vec<TruthRow> {
    let n = seqs.len();
    let mut table: hashbrown::HashMap<Vec<u32>, u32> = hashbrown::HashMap::new();
    let sets: Vec<Vec<u32>> = seqs
        .iter()
        .map(|s| shingle_set(s, SHINGLE_LEN, &mut table))
        .collect();
    let mut postings: Vec<Vec<u32>> = vec![Vec::new(); table.len()];
    for (d, set) in sets.iter().enumerate() {
        for &s in set {
            postings[s as usize].push(d as u32);
        }
    }
    let mut pairs: std::collections::BTreeSet<(u32, u32)> = std::collections::BTreeSet::new();
    // within groups
    let mut members: std::collections::BTreeMap<usize, Vec<u32>> =
        std::collections::BTreeMap::new();
    for (d, g) in groups.iter().enumerate() {
        if let Some((g, _)) = g {
            members.entry(*g).or_default().push(d as u32);
        }
    }
    for m in members.values() {
        for i in 0..m.len() {
            for j in i + 1..m.len() {
                pairs.insert((m[i].min(m[j]), m[i].max(m[j])));
            }
        }
    }
    // the exact join
    let mut count = vec![0u32; n];
    let mut touched: Vec<u32> = Vec::new();
    for (i, set) in sets.iter().enumerate() {
        for &s in set {
            for &j in &postings[s as usize] {
                if (j as usize) > i {
                    if count[j as usize] == 0 {
                        touched.push(j);
                    }
                    count[j as usize] += 1;
                }
            }
        }
        for &j in &touched {
            let inter = count[j as usize] as usize;
            count[j as usize] = 0;
            let (la, lb) = (set.len(), sets[j as usize].len());
            if jaccard(la, lb, inter) >= floor
                || containment(la, inter) >= floor
                || containment(lb, inter) >= floor
            {
                pairs.insert((i as u32, j));
            }
        }
        touched.clear();
    }
    let pairs: Vec<(u32, u32)> = pairs.into_iter().collect();
    pairs
        .par_iter()
        .map(|&(i, j)| {
            let (i, j) = (i as usize, j as usize);
            let (sa, sb) = (&sets[i], &sets[j]);
            let inter = intersection_size(sa, sb);
            let kind = match (groups[i], groups[j]) {
                (Some((x, k)), Some((y, _))) if x == y => k,
                _ => "other",
            };
            TruthRow {
                a: docs[i].id.clone(),
                b: docs[j].id.clone(),
                resemblance: jaccard(sa.len(), sb.len(), inter),
                containment_ab: containment(sa.len(), inter),
                containment_ba: containment(sb.len(), inter),
                edit_similarity: edit_similarity(&seqs[i], &seqs[j]),
                kind: kind.to_string(),
            }
        })
        .collect()
}
