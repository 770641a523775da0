//! Brute-force references shared by the unit tests of the joins.

/// All pairs `(a, b, overlap)` with `a < b` whose overlap passes `pass(overlap, |a|, |b|)`.
pub fn brute_pairs(
    sets: &[Vec<u64>],
    pass: impl Fn(usize, usize, usize) -> bool,
) -> Vec<(u32, u32, u32)> {
    let mut out = Vec::new();
    for a in 0..sets.len() {
        for b in a + 1..sets.len() {
            let sa: std::collections::BTreeSet<_> = sets[a].iter().collect();
            let ov = sets[b].iter().filter(|x| sa.contains(x)).count();
            if pass(ov, sets[a].len(), sets[b].len()) {
                out.push((a as u32, b as u32, ov as u32));
            }
        }
    }
    out
}

/// Sorts and de-duplicates every set.
pub fn norm(v: Vec<Vec<u64>>) -> Vec<Vec<u64>> {
    v.into_iter()
        .map(|mut s| {
            s.sort_unstable();
            s.dedup();
            s
        })
        .collect()
}
