//! Union-find (disjoint sets) with path compression (path halving) and union by rank, and
//! the connected components of a pair graph.
//!
//! Invariant: [`components`] lists each component's members ascending and the components
//! ordered by their smallest member, so the result depends only on the edge set.

use crate::DocId;

/// Disjoint sets over `0..n`.
#[derive(Clone, Debug)]
pub struct UnionFind {
    parent: Vec<u32>,
    rank: Vec<u8>,
}

impl UnionFind {
    /// `n` singleton sets.
    pub fn new(n: usize) -> Self {
        UnionFind {
            parent: (0..n as u32).collect(),
            rank: vec![0; n],
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// True when there is no element.
    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// The representative of `x`'s set (path halving on the way).
    pub fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let p = self.parent[x as usize];
            self.parent[x as usize] = self.parent[p as usize];
            x = self.parent[x as usize];
        }
        x
    }

    /// Merges the sets of `a` and `b`; returns false when they were already one set.
    pub fn union(&mut self, a: u32, b: u32) -> bool {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return false;
        }
        let (hi, lo) = if self.rank[ra as usize] >= self.rank[rb as usize] {
            (ra, rb)
        } else {
            (rb, ra)
        };
        self.parent[lo as usize] = hi;
        if self.rank[hi as usize] == self.rank[lo as usize] {
            self.rank[hi as usize] += 1;
        }
        true
    }

    /// The sets with at least `min_size` members, each ascending, ordered by smallest member.
    pub fn sets(&mut self, min_size: usize) -> Vec<Vec<u32>> {
        let n = self.len();
        let mut slot = vec![u32::MAX; n];
        let mut out: Vec<Vec<u32>> = Vec::new();
        for x in 0..n as u32 {
            let r = self.find(x) as usize;
            if slot[r] == u32::MAX {
                slot[r] = out.len() as u32;
                out.push(Vec::new());
            }
            out[slot[r] as usize].push(x);
        }
        out.retain(|s| s.len() >= min_size);
        out
    }
}

/// Connected components with at least two members of the graph on `0..n_docs` whose edges
/// are `edges`; members ascending, components ordered by smallest member.
pub fn components(
    n_docs: usize,
    edges: impl IntoIterator<Item = (DocId, DocId)>,
) -> Vec<Vec<DocId>> {
    let mut uf = UnionFind::new(n_docs);
    for (a, b) in edges {
        uf.union(a.0, b.0);
    }
    uf.sets(2)
        .into_iter()
        .map(|s| s.into_iter().map(DocId).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Components by breadth-first search over an adjacency matrix (independent of union-find).
    fn bfs_components(n: usize, edges: &[(u32, u32)]) -> Vec<Vec<DocId>> {
        let mut adj = vec![vec![false; n]; n];
        for &(a, b) in edges {
            adj[a as usize][b as usize] = true;
            adj[b as usize][a as usize] = true;
        }
        let mut seen = vec![false; n];
        let mut out = Vec::new();
        for s in 0..n {
            if seen[s] {
                continue;
            }
            seen[s] = true;
            let mut comp = vec![s];
            let mut i = 0;
            while i < comp.len() {
                let u = comp[i];
                for v in 0..n {
                    if adj[u][v] && !seen[v] {
                        seen[v] = true;
                        comp.push(v);
                    }
                }
                i += 1;
            }
            if comp.len() >= 2 {
                comp.sort();
                out.push(comp.into_iter().map(|x| DocId(x as u32)).collect());
            }
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn components_match_bfs(n in 1usize..30, raw in proptest::collection::vec((0u32..30, 0u32..30), 0..40)) {
            let edges: Vec<(u32, u32)> = raw.into_iter().filter(|&(a, b)| (a as usize) < n && (b as usize) < n && a != b).collect();
            let got = components(n, edges.iter().map(|&(a, b)| (DocId(a), DocId(b))));
            proptest::prop_assert_eq!(got, bfs_components(n, &edges));
        }
    }

    #[test]
    fn hand_example() {
        let got = components(
            7,
            [
                (DocId(5), DocId(1)),
                (DocId(1), DocId(3)),
                (DocId(4), DocId(6)),
            ],
        );
        assert_eq!(
            got,
            vec![vec![DocId(1), DocId(3), DocId(5)], vec![DocId(4), DocId(6)]]
        );
    }
}
