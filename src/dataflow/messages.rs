//! What the workers of a divided run send each other, and where it goes: the message
//! types with their wire sizes ([`Wire`]), the routes (a key's owner by hash, a DocId's
//! holder by the ranges' first DocIds, a pair's owner by its smaller DocId's hash), and
//! the memory arithmetic that sizes a stage's passes and rounds under a budget.
//!
//! Invariants: every route is a function of the key and the number of workers only, so
//! every worker sends a key's items to the same owner; a wire size counts what the
//! message's encoding carries (it is reported, never relied on for correctness);
//! [`passes_for`] gives every worker the same number of passes (the most any needs).

use serde::{Deserialize, Serialize};

use super::rounds::{Rounds, Target, Wire};
use crate::cluster::stages::Member;
use crate::corpus::split::RangeCount;
use crate::Error;

/// An id, to the owner of its hash.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct IdMsg {
    pub hash: u64,
    pub doc: u32,
    pub line: u64,
    pub id: String,
}

impl Wire for IdMsg {
    fn wire_bytes(&self) -> u64 {
        20 + self.id.wire_bytes()
    }
}

/// A worker's first repeated id: `(DocId, id, DocId of its first occurrence, line,
/// line of its first occurrence)`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct DupMsg(pub Option<(u64, String, u64, u64, u64)>);

impl Wire for DupMsg {
    fn wire_bytes(&self) -> u64 {
        1 + self.0.as_ref().map_or(0, |d| 40 + d.1.len() as u64)
    }
}

/// A worker's error in a stage every worker ends together (its message), or none.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct ErrMsg(pub Option<String>);

impl Wire for ErrMsg {
    fn wire_bytes(&self) -> u64 {
        self.0.wire_bytes()
    }
}

/// The counts of a worker's pieces of the corpus, in order, gathered by every worker.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct PieceCounts(pub Vec<RangeCount>);

impl Wire for PieceCounts {
    fn wire_bytes(&self) -> u64 {
        8 + 16 * self.0.len() as u64
    }
}

/// A document's fingerprints, to the owner of its collapse key.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct PrintMsg {
    /// (image fingerprint present, the image fingerprint or else the canonical one).
    pub key: (bool, u64),
    pub doc: u32,
    pub raw: u64,
    pub canonical: u64,
}

impl Wire for PrintMsg {
    fn wire_bytes(&self) -> u64 {
        29
    }
}

/// A document folded into its class's representative.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct Folded {
    pub doc: u32,
    pub rep: u32,
}

impl Wire for Folded {
    fn wire_bytes(&self) -> u64 {
        8
    }
}

/// A row, to the owner of some of its documents.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct RowMsg {
    pub to: u32,
    pub docs: Vec<u32>,
}

impl Wire for RowMsg {
    fn wire_bytes(&self) -> u64 {
        12 + 4 * self.docs.len() as u64
    }
}

impl AsRef<[u32]> for RowMsg {
    fn as_ref(&self) -> &[u32] {
        &self.docs
    }
}

/// A document's shared kept elements (ascending), to the worker counting its pairs, or to
/// one that asked for them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct KeysMsg {
    pub to: u32,
    pub doc: u32,
    /// Its full set's size (the keys held by it alone included).
    pub size: u32,
    pub keys: Vec<u64>,
}

impl Wire for KeysMsg {
    fn wire_bytes(&self) -> u64 {
        12 + self.keys.wire_bytes()
    }
}

/// A group member's record, to the group's owner.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct Placed {
    pub group: u32,
    pub owner: u32,
    pub member: Member,
}

impl Wire for Placed {
    fn wire_bytes(&self) -> u64 {
        let m = &self.member;
        36 + m.ext.wire_bytes() + m.keys.wire_bytes() + m.values.wire_bytes() + m.image.wire_bytes()
    }
}

/// A group member's full shingle set, to the group's owner (exact verification over a
/// corpus not read again at offsets).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct SetMsg {
    pub owner: u32,
    pub doc: u32,
    pub set: Vec<u64>,
}

impl Wire for SetMsg {
    fn wire_bytes(&self) -> u64 {
        8 + self.set.wire_bytes()
    }
}

/// A component of a giant group to be mined by every worker (see
/// [`crate::cluster::stages::Relay`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct ComponentMsg(pub crate::cluster::stages::Component);

impl Wire for ComponentMsg {
    fn wire_bytes(&self) -> u64 {
        24 + self.0.bytes()
    }
}

/// One worker's part of the maximal sets of a component of a giant group, to the group's
/// owner: the component's index among the owner's, and the sets (or the error, and
/// whether it is the itemset limit).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct MinedPart {
    pub owner: u32,
    pub index: u32,
    pub from: u32,
    pub sets: std::result::Result<Vec<crate::mine::Itemset>, (bool, String)>,
}

impl Wire for MinedPart {
    fn wire_bytes(&self) -> u64 {
        12 + match &self.sets {
            Ok(sets) => sets
                .iter()
                .map(|s| 12 + 4 * s.items.len() as u64)
                .sum::<u64>(),
            Err((_, m)) => 1 + m.len() as u64,
        }
    }
}

/// An error every worker meets at the same point (decided from what all of them sent, or
/// from the job alone): worker 0 returns it at once, and every other worker first waits in
/// a round worker 0 never joins, so no process ends (closing its connections, which stops
/// the others with a lost peer) before process 0 has the error to report. They stop when
/// process 0 does.
pub(super) fn together(rounds: &mut Rounds<'_>, e: Error) -> Error {
    if rounds.index() != 0 {
        rounds.all_gather(0u64);
    }
    e
}

/// Spreads a key over the workers.
pub(super) fn spread(x: u64) -> Target {
    (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as Target
}

/// The pass of the rows stage that takes key `k` (of `passes`): a hash independent of
/// [`spread`]'s, so each pass spreads over every worker.
pub(super) fn slice(k: u64, passes: u64) -> u64 {
    ((k ^ 0x5851_F42D_4C95_7F2D).wrapping_mul(0xD6E8_FEB8_6659_FD93) >> 40) % passes
}

/// True when key `k` is taken in pass `pass` of `passes` (every key in a single pass).
pub(super) fn in_pass(k: u64, pass: u64, passes: u64) -> bool {
    passes == 1 || slice(k, passes) == pass
}

/// The passes (or rounds) every worker makes so that none holds more than `share` bytes of
/// its `bytes` in one ([`crate::plan::exchange_passes`] of the most any worker needs, one
/// round of gathering), 1 without a share.
pub(super) fn passes_for(rounds: &mut Rounds<'_>, bytes: u64, share: Option<u64>) -> u64 {
    if share.is_none() {
        return 1;
    }
    let most = (rounds.all_gather(bytes).into_iter())
        .map(|(_, n)| n)
        .max()
        .unwrap_or(0);
    crate::plan::exchange_passes(most, share)
}

/// The worker counting the pairs whose smaller DocId is `d` (a hash, so that the low
/// DocIds, which have the most pairs after them, spread over every worker).
pub(super) fn pair_owner(d: u32, peers: usize) -> Target {
    spread(u64::from(d)) % peers
}

/// The worker holding DocId `d`: the last of the ranges starting at or before it.
pub(super) fn owner_of(starts: &[u64], d: u32) -> Target {
    starts.partition_point(|&s| s <= u64::from(d)) - 1
}

/// `docs` (a row's documents, ascending) once to each pair owner of its documents but the
/// last: the workers that pair those documents with the ones after them.
pub(super) fn to_pair_owners(docs: Vec<u32>, peers: usize, out: &mut Vec<RowMsg>) {
    let mut to: Vec<usize> = docs[..docs.len().saturating_sub(1)]
        .iter()
        .map(|&d| pair_owner(d, peers))
        .collect();
    to.sort_unstable();
    to.dedup();
    for o in to {
        out.push(RowMsg {
            to: o as u32,
            docs: docs.clone(),
        });
    }
}
