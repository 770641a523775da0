//! The components stage over a partition of the edges: [`spanning_forest`] reduces a part's
//! edges to one link per non-smallest member of each connected component, and
//! [`place_groups`] joins such links (forests and collapse classes) into groups and places
//! them on workers.
//!
//! Invariants: a forest has the connected components of its edges (a forest of forests
//! is a forest of the union of their edges); groups are numbered by size descending, then
//! smallest member, and each goes to the least loaded worker (by members), the lowest
//! index on ties, so the placement depends only on the links, not on their order.

use std::collections::BTreeMap;

use crate::cluster::uf::UnionFind;

/// A spanning forest of `edges`: `(smallest member, member)` for every other member of
/// each connected component, by component (ordered by smallest member), members
/// ascending.
pub fn spanning_forest(edges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut ids: Vec<u32> = edges.iter().flat_map(|&(a, b)| [a, b]).collect();
    ids.sort_unstable();
    ids.dedup();
    let at = |d: u32| ids.binary_search(&d).expect("an endpoint") as u32;
    let mut uf = UnionFind::new(ids.len());
    for &(a, b) in edges {
        uf.union(at(a), at(b));
    }
    (uf.sets(2).into_iter())
        .flat_map(|s| {
            let smallest = ids[s[0] as usize];
            s[1..]
                .iter()
                .map(|&i| (smallest, ids[i as usize]))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Joins the links (forests' and collapse classes') into groups and places them on `peers`
/// workers: every member as `(doc, (group, owner))`.
pub fn place_groups(links: Vec<(u32, u32)>, peers: usize) -> Vec<(u32, (u32, u32))> {
    let forest = spanning_forest(&links);
    let mut groups: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (s, d) in forest {
        groups.entry(s).or_insert_with(|| vec![s]).push(d);
    }
    let mut groups: Vec<Vec<u32>> = groups.into_values().collect();
    groups.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
    let mut load = vec![0u64; peers];
    let mut out = Vec::new();
    for (gi, g) in groups.into_iter().enumerate() {
        let w = (0..peers).min_by_key(|&w| (load[w], w)).unwrap_or(0);
        load[w] += g.len() as u64;
        out.extend(g.into_iter().map(|d| (d, (gi as u32, w as u32))));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forest_links_each_member_to_the_smallest() {
        let edges = [(9, 4), (4, 7), (1, 2), (20, 21), (2, 3)];
        assert_eq!(
            spanning_forest(&edges),
            vec![(1, 2), (1, 3), (4, 7), (4, 9), (20, 21)]
        );
        assert!(spanning_forest(&[]).is_empty());
    }

    #[test]
    fn groups_largest_first_on_the_least_loaded() {
        let placed = place_groups(vec![(5, 6), (1, 2), (2, 3), (8, 9)], 2);
        assert_eq!(
            placed,
            vec![
                (1, (0, 0)),
                (2, (0, 0)),
                (3, (0, 0)),
                (5, (1, 1)),
                (6, (1, 1)),
                (8, (2, 1)),
                (9, (2, 1)),
            ]
        );
    }
}
