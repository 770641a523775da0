//! A part's edges reduced before the components stage: [`spanning_forest`] keeps one link
//! per non-smallest member of each connected component of the part.
//!
//! Invariant: a forest has the connected components of its edges (a forest of forests
//! is a forest of the union of their edges).

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
}
