//! The components stage over a partition of the nodes, by rounds of large-star and
//! small-star (Kiveris, Lattanzi, Mirrokni, Rastogi, Vassilvitskii, "Connected Components
//! in MapReduce and Beyond", SoCC 2014), and the groups it gives placed on workers.
//!
//! A graph is a set of edges `(larger, smaller)`; a worker holds the arcs `(node,
//! neighbour)` of the nodes it owns (any partition of the nodes, as long as every arc of
//! a node is at its owner). One iteration:
//! - the arcs both ways ([`both_ways`]) at their nodes' owners; [`star_violations`] counts
//!   the nodes with a smaller and a larger neighbour, or with two smaller ones: none
//!   anywhere means that every component is a star around its smallest node, whose arcs
//!   give every node its label ([`star_labels`]: the smallest node of its component);
//! - otherwise [`large_star`]: each node `u` links each larger neighbour to the smallest of
//!   `u` and its neighbours;
//! - the new edges at their larger ends' owners; [`small_star`]: each node links itself and
//!   its smaller neighbours to the smallest of them.
//!
//! Both steps keep the components and never add edges, and the alternation reaches the
//! stars in `O(log² n)` iterations (the paper's bound; in practice a few, and about
//! `log n` on a path).
//!
//! A component with its collapsed members is a group, named by its label. Placement
//! ([`Placement`]) is a function of the groups' `(label, size)` only: a group holding at
//! least [`big_group`] members (at most `8` a worker, by the rule) is big; the others go
//! to the worker their label hashes to ([`hashed_owner`]), and the big ones, largest first,
//! each to the least loaded worker counting those ([`place_big`]), so that no worker holds
//! much more than its share beside the largest group.
//!
//! Invariants: the labels are those of union-find on the whole graph, whatever the
//! partition of the nodes (the tests check it against [`crate::cluster::uf::UnionFind`]);
//! a group's owner depends on the groups' labels and sizes and the number of workers, not
//! on where they were counted.

/// An arc `(node, neighbour)`: an edge as the owner of `node` holds it.
pub type Arc = (u32, u32);

/// Edge `(a, b)` as `(larger, smaller)`; `None` for a loop.
pub fn oriented(a: u32, b: u32) -> Option<(u32, u32)> {
    match a.cmp(&b) {
        std::cmp::Ordering::Greater => Some((a, b)),
        std::cmp::Ordering::Less => Some((b, a)),
        std::cmp::Ordering::Equal => None,
    }
}

/// The two arcs of edge `e`, one for each end's owner.
pub fn both_ways(e: (u32, u32)) -> [Arc; 2] {
    [(e.0, e.1), (e.1, e.0)]
}

/// The arcs sorted and without repeats, grouped by node: `(node, neighbours ascending)`.
fn by_node(arcs: &mut Vec<Arc>) -> impl Iterator<Item = (u32, &[Arc])> {
    arcs.sort_unstable();
    arcs.dedup();
    arcs.chunk_by(|a, b| a.0 == b.0).map(|g| (g[0].0, g))
}

/// The nodes of `arcs` (every arc of a node, both ways) that are not a star's centre or
/// leaf: those with a smaller and a larger neighbour, or with two smaller ones. Sorts and
/// deduplicates `arcs`.
pub fn star_violations(arcs: &mut Vec<Arc>) -> u64 {
    by_node(arcs)
        .filter(|(u, g)| {
            let smaller = g.partition_point(|a| a.1 < *u);
            smaller >= 2 || (smaller == 1 && g.len() > 1)
        })
        .count() as u64
}

/// The nodes of `arcs`, sorted and deduplicated by [`star_violations`].
pub fn node_count(arcs: &[Arc]) -> u64 {
    arcs.chunk_by(|a, b| a.0 == b.0).count() as u64
}

/// Each node of `arcs` (every arc of a node, both ways; sorted, as [`star_violations`]
/// leaves them) with the smallest of itself and its neighbours: its label once no node
/// violates the stars.
pub fn star_labels(arcs: &[Arc]) -> Vec<(u32, u32)> {
    (arcs.chunk_by(|a, b| a.0 == b.0))
        .map(|g| (g[0].0, g[0].0.min(g[0].1)))
        .collect()
}

/// The groups centred on the nodes of `arcs` once no node violates the stars (every arc
/// of a node, both ways; sorted): `(label, size)` for each node smaller than its neighbours,
/// sorted by label.
pub fn star_sizes(arcs: &[Arc]) -> Vec<(u32, u64)> {
    (arcs.chunk_by(|a, b| a.0 == b.0))
        .filter(|g| g[0].0 < g[0].1)
        .map(|g| (g[0].0, g.len() as u64 + 1))
        .collect()
}

/// Large-star on the nodes of `arcs` (every arc of a node, both ways; sorted, as
/// [`star_violations`] leaves them): for each node `u`, every neighbour `v > u` linked to
/// `m(u)`, the smallest of `u` and its neighbours. Edges as `(larger, smaller)`.
pub fn large_star(arcs: &[Arc]) -> Vec<(u32, u32)> {
    let mut out = Vec::with_capacity(arcs.len() / 2);
    for g in arcs.chunk_by(|a, b| a.0 == b.0) {
        let u = g[0].0;
        let m = u.min(g[0].1);
        let larger = g.partition_point(|a| a.1 <= u);
        out.extend(g[larger..].iter().map(|a| (a.1, m)));
    }
    out
}

/// Small-star on the nodes of `arcs` (the arcs `(u, v)` with `v < u`, each at `u`'s
/// owner): for each node `u`, `u` and its smaller neighbours each linked to the smallest of
/// them. Edges as `(larger, smaller)`. Sorts and deduplicates `arcs`.
pub fn small_star(arcs: &mut Vec<Arc>) -> Vec<(u32, u32)> {
    let mut out = Vec::with_capacity(arcs.len());
    for (u, g) in by_node(arcs) {
        let m = g[0].1.min(u);
        out.extend(
            g.iter()
                .map(|a| a.1)
                .chain([u])
                .filter(|&v| v != m)
                .map(|v| (v, m)),
        );
    }
    out
}

/// The members of a run's groups a group must hold at least to be placed as a big one:
/// `1/8` of a worker's share, and at least 2 (so at most `8 * peers` groups are big).
pub fn big_group(members: u64, peers: usize) -> u64 {
    (members / (8 * peers.max(1) as u64)).max(2)
}

/// The worker of a group that is not big: a hash of its label.
pub fn hashed_owner(label: u32, peers: usize) -> u32 {
    let h = u64::from(label).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
    (h % peers.max(1) as u64) as u32
}

/// The big groups `(label, size)`, largest first (then smallest label), each on the least
/// loaded worker (the lowest index on ties), starting from `load` (the members each worker
/// holds of the other groups): `(label, owner)` sorted by label.
pub fn place_big(mut big: Vec<(u32, u64)>, mut load: Vec<u64>) -> Vec<(u32, u32)> {
    big.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut out = Vec::with_capacity(big.len());
    for (label, size) in big {
        let w = (0..load.len()).min_by_key(|&w| (load[w], w)).unwrap_or(0);
        if let Some(l) = load.get_mut(w) {
            *l += size;
        }
        out.push((label, w as u32));
    }
    out.sort_unstable();
    out
}

/// Where the groups go: the big ones as [`place_big`] put them, the others by
/// [`hashed_owner`].
pub struct Placement {
    big: Vec<(u32, u32)>,
    peers: usize,
}

impl Placement {
    /// From every worker's sums: the members of its groups that are not big on each worker
    /// (`loads`, one vector a worker, `peers` long) and its big groups `(label, size)`.
    pub fn new(loads: &[Vec<u64>], big: Vec<(u32, u64)>, peers: usize) -> Self {
        let mut load = vec![0u64; peers];
        for l in loads {
            for (t, x) in load.iter_mut().zip(l) {
                *t += x;
            }
        }
        Placement {
            big: place_big(big, load),
            peers,
        }
    }

    /// A group's worker.
    pub fn owner(&self, label: u32) -> u32 {
        match self.big.binary_search_by_key(&label, |b| b.0) {
            Ok(i) => self.big[i].1,
            Err(_) => hashed_owner(label, self.peers),
        }
    }
}

/// The groups a worker counted `(label, size)` (each label on one worker) split for
/// [`Placement::new`]: the members of the groups that are not big on each of `peers`
/// workers, and the big groups.
pub fn split_groups(
    groups: &[(u32, u64)],
    members: u64,
    peers: usize,
) -> (Vec<u64>, Vec<(u32, u64)>) {
    let floor = big_group(members, peers);
    let mut load = vec![0u64; peers.max(1)];
    let mut big = Vec::new();
    for &(label, size) in groups {
        if size >= floor {
            big.push((label, size));
        } else {
            load[hashed_owner(label, peers) as usize] += size;
        }
    }
    (load, big)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::uf::UnionFind;
    use proptest::prelude::*;

    /// The iterations on `parts` workers, node `u` owned by `owner(u)`, as the divided run
    /// makes them: every node's label, sorted, and the iterations taken.
    fn stars(
        edges: &[(u32, u32)],
        parts: usize,
        owner: impl Fn(u32) -> usize,
    ) -> (Vec<(u32, u32)>, u32) {
        let mut held: Vec<Vec<(u32, u32)>> = vec![Vec::new(); parts];
        for (i, &(a, b)) in edges.iter().enumerate() {
            if let Some(e) = oriented(a, b) {
                held[i % parts].push(e);
            }
        }
        let mut iterations = 0;
        loop {
            let mut arcs: Vec<Vec<Arc>> = vec![Vec::new(); parts];
            for e in held.drain(..).flatten() {
                for a in both_ways(e) {
                    arcs[owner(a.0)].push(a);
                }
            }
            let bad: u64 = arcs.iter_mut().map(star_violations).sum();
            if bad == 0 {
                let mut l: Vec<(u32, u32)> = arcs.iter().flat_map(|a| star_labels(a)).collect();
                l.sort_unstable();
                // Each group's size, at its label's owner, is its members'.
                let mut sizes: Vec<(u32, u64)> = arcs.iter().flat_map(|a| star_sizes(a)).collect();
                sizes.sort_unstable();
                let mut labels: Vec<u32> = l.iter().map(|x| x.1).collect();
                labels.sort_unstable();
                let counted: Vec<(u32, u64)> = (labels.chunk_by(|a, b| a == b))
                    .map(|g| (g[0], g.len() as u64))
                    .collect();
                assert_eq!(sizes, counted);
                return (l, iterations);
            }
            let mut small: Vec<Vec<Arc>> = vec![Vec::new(); parts];
            for e in arcs.iter().flat_map(|a| large_star(a)) {
                small[owner(e.0)].push(e);
            }
            held = small.iter_mut().map(small_star).collect();
            iterations += 1;
            assert!(iterations < 200, "no fixed point");
        }
    }

    /// Every node of `edges` with the smallest node of its component, by union-find.
    fn by_union_find(edges: &[(u32, u32)]) -> Vec<(u32, u32)> {
        let n = edges.iter().map(|e| e.0.max(e.1) + 1).max().unwrap_or(0);
        let mut uf = UnionFind::new(n as usize);
        for &(a, b) in edges {
            uf.union(a, b);
        }
        let mut nodes: Vec<u32> = edges.iter().flat_map(|e| [e.0, e.1]).collect();
        nodes.sort_unstable();
        nodes.dedup();
        let mut smallest = vec![u32::MAX; n as usize];
        for &v in &nodes {
            let r = uf.find(v) as usize;
            smallest[r] = smallest[r].min(v);
        }
        // Loops alone make no node of the graph.
        let linked: std::collections::BTreeSet<u32> = (edges.iter())
            .filter(|e| e.0 != e.1)
            .flat_map(|e| [e.0, e.1])
            .collect();
        (linked.into_iter())
            .map(|v| (v, smallest[uf.find(v) as usize]))
            .collect()
    }

    fn check(edges: &[(u32, u32)], parts: usize) -> u32 {
        let want = by_union_find(edges);
        let (by_hash, i) = stars(edges, parts, |u| hashed_owner(u, parts) as usize);
        assert_eq!(by_hash, want);
        let (by_range, _) = stars(edges, parts, |u| {
            (u as usize * parts / 100_000).min(parts - 1)
        });
        assert_eq!(by_range, want);
        i
    }

    proptest! {
        #[test]
        fn fixed_point_is_union_find(
            edges in proptest::collection::vec((0u32..80, 0u32..80), 0..120),
            parts in 1usize..6,
        ) {
            let want = by_union_find(&edges);
            let (got, _) = stars(&edges, parts, |u| hashed_owner(u, parts) as usize);
            prop_assert_eq!(got, want);
        }
    }

    /// A permutation of `0..n` from a seed (a path or star over scattered ids).
    fn shuffled(n: u32, seed: u64) -> Vec<u32> {
        let mut v: Vec<u32> = (0..n).collect();
        let mut x = seed;
        for i in (1..v.len()).rev() {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            v.swap(i, (x >> 33) as usize % (i + 1));
        }
        v
    }

    #[test]
    fn a_path_in_order_and_shuffled() {
        let n = 20_000;
        let path: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        let i = check(&path, 4);
        assert!(i <= 40, "{i} iterations");
        let p = shuffled(n, 7);
        let path: Vec<(u32, u32)> = (0..n as usize - 1).map(|i| (p[i], p[i + 1])).collect();
        let i = check(&path, 3);
        assert!(i <= 60, "{i} iterations");
    }

    #[test]
    fn a_star_and_pieces() {
        let p = shuffled(50_000, 3);
        let mut edges: Vec<(u32, u32)> = p[1..].iter().map(|&v| (p[0], v)).collect();
        // Beside it two paths and a loop alone.
        edges.extend((60_000..60_100).map(|i| (i, i + 1)));
        edges.extend((70_000..70_010).map(|i| (i + 1, i)));
        edges.push((90_000, 90_000));
        check(&edges, 4);
        assert!(check(&[], 3) == 0);
    }

    #[test]
    fn steps_on_a_small_graph() {
        // 1 - 3 - 2: node 3 has two smaller neighbours.
        let mut arcs: Vec<Arc> = [(3, 1), (3, 2)].into_iter().flat_map(both_ways).collect();
        assert_eq!(star_violations(&mut arcs), 1);
        assert_eq!(large_star(&arcs), vec![(3, 1), (3, 2)]);
        let mut small = vec![(3, 1), (3, 2)];
        assert_eq!(small_star(&mut small), vec![(2, 1), (3, 1)]);
        let mut arcs: Vec<Arc> = [(2, 1), (3, 1)].into_iter().flat_map(both_ways).collect();
        assert_eq!(star_violations(&mut arcs), 0);
        assert_eq!(node_count(&arcs), 3);
        assert_eq!(star_labels(&arcs), vec![(1, 1), (2, 1), (3, 1)]);
        assert_eq!(star_sizes(&arcs), vec![(1, 3)]);
    }

    #[test]
    fn big_groups_largest_first_on_the_least_loaded() {
        // 3 workers, 80 members: groups of 2 or more are big.
        assert_eq!(big_group(80, 3), 3);
        let groups = [(1, 40), (5, 2), (9, 20), (12, 3), (30, 15)];
        let (load, big) = split_groups(&groups, 80, 3);
        assert_eq!(big, vec![(1, 40), (9, 20), (12, 3), (30, 15)]);
        let mut want = vec![0; 3];
        want[hashed_owner(5, 3) as usize] = 2;
        assert_eq!(load, want);
        let p = Placement::new(&[load], big, 3);
        // 40 on the least loaded of [x, y, z] with one 2, then 20, 15 and 3.
        let free: Vec<u32> = (0..3).filter(|&w| want[w as usize] == 0).collect();
        assert_eq!(p.owner(1), free[0]);
        assert_eq!(p.owner(9), free[1]);
        assert_eq!(p.owner(5), hashed_owner(5, 3));
        let w30 = p.owner(30);
        assert_eq!(want[w30 as usize], 2);
        assert_eq!(p.owner(12), w30);
    }
}
