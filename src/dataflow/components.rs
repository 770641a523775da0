//! The divided run's components stage (stage 6 of [`super::cluster`]): the connected
//! components of the pair graph with the collapse classes, by rounds of large-star and
//! small-star over the workers ([`crate::cluster::stages::star_violations`] and its
//! siblings), and the groups they make placed on workers.
//!
//! A node (a document with an edge or a class) is owned by the worker its DocId hashes to
//! ([`hashed_owner`], the hash that places the groups too). Each worker starts from its
//! edges' spanning forest and its collapse classes; an iteration sends the edges' arcs
//! both ways to their nodes' owners, all-gathers the count of nodes that are not yet in a
//! star (with the nodes held), and unless none is, runs large-star, sends the new edges
//! to their larger ends' owners and runs small-star there. Then each group (a label) is
//! sized at its label's owner (the centre of its star holds an arc to every member), one
//! all-gather of the big groups and of each worker's load from the others gives every
//! worker the same placement ([`crate::cluster::stages::Placement`]), and each member's
//! label and owner go to the worker holding its DocId ([`owner_of`]); no worker gathers
//! every link or every group.
//!
//! Invariants: every worker runs the same rounds (the all-gathered counts decide the
//! iterations); a worker receives about its share of each round's arcs, plus the arcs of
//! the groups whose smallest members hash to it; the labels, and so the groups, are the connected
//! components one process finds, whatever the partition.

use super::messages::owner_of;
use super::rounds::{Rounds, Target};
use crate::cluster::stages::{
    both_ways, hashed_owner, large_star, node_count, oriented, small_star, spanning_forest,
    split_groups, star_labels, star_sizes, star_violations, Placement,
};

/// What the components stage leaves a worker with.
pub(super) struct Components {
    /// Each of its documents in a group: `(doc, (group, owner))`, by doc; the group is
    /// named by its smallest member.
    pub placed_here: Vec<(u32, (u32, u32))>,
    /// The iterations of large-star and small-star the run took.
    pub iterations: u64,
    /// The edges it started from (its spanning forest's and its collapse classes').
    pub edges: u64,
}

/// The route of an item keyed by a DocId: the worker holding it.
fn to_holder<T>(starts: &[u64]) -> impl Fn(&(u32, T)) -> Target + Clone + 'static {
    let s = starts.to_vec();
    move |a: &(u32, T)| owner_of(&s, a.0)
}

/// The route of an arc: its node's owner, by a hash (the labels, the smallest DocIds, would
/// crowd the first workers' ranges).
fn to_owner(peers: usize) -> impl Fn(&(u32, u32)) -> Target + Clone + 'static {
    move |a: &(u32, u32)| hashed_owner(a.0, peers) as Target
}

/// Stage 6: the groups of `edges` (this worker's) and `classes` (`(representative,
/// document)`, this worker's), placed; `starts` are the workers' first DocIds.
pub(super) fn components_stage(
    rounds: &mut Rounds<'_>,
    edges: &[(u32, u32)],
    classes: &[(u32, u32)],
    starts: &[u64],
) -> Components {
    let peers = rounds.peers();
    let mut held: Vec<(u32, u32)> = spanning_forest(edges);
    held.extend(classes.iter().copied());
    held = held
        .into_iter()
        .filter_map(|e| oriented(e.0, e.1))
        .collect();
    let n_edges = held.len() as u64;

    let route = to_owner(peers);
    let mut iterations = 0u64;
    let (arcs, members) = loop {
        let arcs: Vec<(u32, u32)> = held.drain(..).flat_map(both_ways).collect();
        let mut arcs = rounds.exchange(arcs, route.clone());
        if iterations == 0 {
            // Every worker has entered the stage (so has kept its checkpoint, with a run
            // directory): the resume tests' kill falls here.
            super::report::fail_point("dataflow-in-components");
        }
        let bad = star_violations(&mut arcs);
        let gathered = rounds.all_gather((bad, node_count(&arcs)));
        if gathered.iter().all(|(_, (b, _))| *b == 0) {
            let members: u64 = gathered.iter().map(|(_, (_, n))| n).sum();
            break (arcs, members);
        }
        let larger = large_star(&arcs);
        drop(arcs);
        let mut arcs = rounds.exchange(larger, route.clone());
        held = small_star(&mut arcs);
        iterations += 1;
    };

    // The groups' sizes are at their labels' owners: one all-gather of the big groups and of
    // the loads of the others places them; the labels go to their documents' holders.
    let (load, big) = split_groups(&star_sizes(&arcs), members, peers);
    let labels = star_labels(&arcs);
    drop(arcs);
    let all = rounds.all_gather((load, big));
    let loads: Vec<Vec<u64>> = all.iter().map(|(_, (l, _))| l.clone()).collect();
    let big: Vec<(u32, u64)> = all.into_iter().flat_map(|(_, (_, b))| b).collect();
    let placement = Placement::new(&loads, big, peers);
    let mut placed_here: Vec<(u32, (u32, u32))> = (labels.into_iter())
        .map(|(doc, label)| (doc, (label, placement.owner(label))))
        .collect();
    placed_here = rounds.exchange(placed_here, to_holder::<(u32, u32)>(starts));
    placed_here.sort_unstable();
    Components {
        placed_here,
        iterations,
        edges: n_edges,
    }
}
