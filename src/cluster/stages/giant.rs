//! A giant group's mining divided among the workers: the group's owner runs the concept
//! method on the group with a [`Relay`] miner, which sends each component of the group
//! large enough ([`divided_from`]) away and waits; every worker receives it and mines its
//! part ([`mine_share`], the miner's [`crate::mine::mine_part`]: the search's top-level
//! branches dealt out in turn), and the parts, joined ([`joined_parts`]), answer the
//! relay. The exchange between the workers is the caller's (`dataflow`).
//!
//! Which components are divided changes only who mines them: the union of the parts,
//! sorted, is what [`fp_miner`] returns on the component (the parts are disjoint and
//! cover the search), and [`joined_parts`] refuses a union over the itemset limit as the
//! miner does, so the group's clusters are the same.
//!
//! Invariant: a relayed component is answered once, with the sets of all its parts, or
//! the relay's call fails.

use std::sync::mpsc::{Sender, SyncSender};

use serde::{Deserialize, Serialize};

use crate::cluster::{fp_miner, MaximalMiner};
use crate::fimi::Transactions;
use crate::mine::{self, Itemset, MinSupport, MineConfig, Target};
use crate::{Error, Result};

/// The fewest documents a component must hold for its mining to be divided.
pub const DIVIDED_MINING_MIN_DOCS: u64 = 1_024;

/// The fewest documents of a component (and of a group) whose mining is divided among
/// `peers` workers in a run of `n_docs` documents: half a worker's share of the documents,
/// and at least [`DIVIDED_MINING_MIN_DOCS`]; `None` with one worker.
pub fn divided_from(n_docs: u64, peers: usize) -> Option<u64> {
    (peers > 1).then(|| (n_docs / (2 * peers as u64)).max(DIVIDED_MINING_MIN_DOCS))
}

/// A component to be mined by every worker: its rows (items are the component's
/// documents), the minimum support and the itemset limit.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Component {
    /// The rows, as the concept method mines them.
    pub rows: Transactions,
    /// The absolute minimum support.
    pub minsup: u64,
    /// The itemset limit.
    pub max_itemsets: Option<u64>,
}

impl Component {
    /// Its size in bytes (as it travels).
    pub fn bytes(&self) -> u64 {
        4 * self.rows.total_items() as u64 + 8 * (self.rows.len() as u64 + 1)
    }
}

/// A component sent to be mined in parts, and where its sets are answered.
pub struct Request {
    /// The component.
    pub component: Component,
    /// Where the union of its parts goes ([`joined_parts`]).
    pub answer: SyncSender<Result<Vec<Itemset>>>,
}

/// A miner that sends the components of at least `min_docs` documents away to be mined in
/// parts and waits for their sets, and mines the others as [`fp_miner`] does.
pub struct Relay {
    min_docs: u64,
    to: Sender<Request>,
}

impl Relay {
    /// Sends the components of at least `min_docs` documents to `to`.
    pub fn new(min_docs: u64, to: Sender<Request>) -> Self {
        Relay { min_docs, to }
    }
}

impl MaximalMiner for Relay {
    fn mine_maximal(
        &self,
        t: &Transactions,
        minsup: u64,
        max_itemsets: Option<u64>,
    ) -> Result<Vec<Itemset>> {
        if t.item_bound() < self.min_docs {
            return fp_miner(t, minsup, max_itemsets);
        }
        let stopped = || Error::Distributed("the divided mining of a giant group stopped".into());
        let (answer, answered) = std::sync::mpsc::sync_channel(1);
        let component = Component {
            rows: t.clone(),
            minsup,
            max_itemsets,
        };
        (self.to.send(Request { component, answer })).map_err(|_| stopped())?;
        answered.recv().map_err(|_| stopped())?
    }
}

/// Part `part` of `parts` of the maximal sets of `c` ([`mine::mine_part`]), sorted.
pub fn mine_share(c: &Component, part: usize, parts: usize) -> Result<Vec<Itemset>> {
    let cfg = MineConfig {
        minsup: MinSupport::Absolute(c.minsup),
        target: Target::Maximal,
        max_itemsets: c.max_itemsets,
    };
    mine::mine_part(&c.rows, &cfg, part, parts)
}

/// The maximal sets of `c` from its parts, as the miner answers them: sorted, and more
/// sets than its limit refused as the miner refuses them.
pub fn joined_parts(c: &Component, parts: Vec<Vec<Itemset>>) -> Result<Vec<Itemset>> {
    let mut sets: Vec<Itemset> = parts.into_iter().flatten().collect();
    mine::check_itemset_limit(sets.len() as u64, c.max_itemsets)?;
    sets.sort_unstable();
    Ok(sets)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A component as the concept method mines it: a chain of documents, each element
    /// held by a few neighbours.
    fn chain(n: u32) -> Transactions {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut rows = Vec::new();
        for d in 0..n {
            for _ in 0..5 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let span = 1 + (x % 4) as u32;
                rows.push((d..(d + span).min(n)).collect::<Vec<u32>>());
            }
        }
        Transactions::from_rows(rows)
    }

    /// Relayed, mined in parts and joined: the same sets as the miner's; the small
    /// components are mined directly.
    #[test]
    fn the_parts_answer_what_the_miner_answers() {
        let (big, small) = (chain(1_200), chain(40));
        let (to, requests) = std::sync::mpsc::channel::<Request>();
        let relay = Relay::new(1_000, to);
        let server = std::thread::spawn(move || {
            let mut served = 0;
            for r in requests {
                let parts: Vec<Vec<Itemset>> = (0..3)
                    .map(|p| mine_share(&r.component, p, 3).unwrap())
                    .collect();
                assert!(parts.iter().all(|p| !p.is_empty()), "each part finds sets");
                r.answer.send(joined_parts(&r.component, parts)).unwrap();
                served += 1;
            }
            served
        });
        assert_eq!(
            relay.mine_maximal(&big, 2, None).unwrap(),
            fp_miner(&big, 2, None).unwrap()
        );
        assert_eq!(
            relay.mine_maximal(&small, 2, None).unwrap(),
            fp_miner(&small, 2, None).unwrap()
        );
        drop(relay);
        assert_eq!(
            server.join().unwrap(),
            1,
            "only the large component is relayed"
        );
        // Over the limit, as the miner refuses it.
        let n = fp_miner(&big, 2, None).unwrap().len() as u64;
        let c = Component {
            rows: big.clone(),
            minsup: 2,
            max_itemsets: Some(n - 1),
        };
        let parts = (0..2).map(|p| mine_share(&c, p, 2).unwrap()).collect();
        let e = joined_parts(&c, parts).unwrap_err();
        let direct = fp_miner(&big, 2, Some(n - 1)).unwrap_err();
        assert_eq!(e.to_string(), direct.to_string());
    }

    #[test]
    fn one_worker_divides_nothing() {
        assert_eq!(divided_from(1_000_000, 1), None);
        assert_eq!(divided_from(1_000_000, 4), Some(125_000));
        assert_eq!(divided_from(3_000, 4), Some(DIVIDED_MINING_MIN_DOCS));
    }
}
