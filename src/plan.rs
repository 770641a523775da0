//! The memory plan: the one place that decides how much memory each stage of a job may
//! take. Every bytes-per-item rate and every share of a budget is here; a stage asks the
//! plan (through the [`SpillConfig`] it was handed) and does not compute a share itself.
//!
//! A [`MemoryPlan`] is built once per job ([`crate::cluster::JobBuilder::build`]) from the
//! budget or, without one, the defaults below, the worker and process counts and, once the
//! input is read, what is known of it ([`Facts`]); the index and the divided run take
//! their shares from the same rules. [`MemoryPlan::stages`] lays the stages out in order, each with
//! what the stages before it still hold (`carried`) and what it is given (`given`); the
//! job's summary reports that table beside each stage's measured peak
//! ([`MemoryPlan::explain`], `--explain-plan`).
//!
//! At run time a stage sizes its work from its share and from what is resident now
//! ([`SpillConfig::room`]): what the process has resident can exceed what was counted
//! (freed memory the allocator keeps), and the budget bounds the process.
//!
//! The stages and their shares under a budget `B`, for `n` documents:
//! - **sketch**: the per-document state ([`HELD_DOC_BYTES`] and the id, [`id_bytes`]), and
//!   the images while [`holding_needs`] of them fits in `B` (past that their keys go to a
//!   key file, partitioned into passes by key range);
//! - **context**: passes over key ranges of what `B` leaves beside the per-document state
//!   and the rows kept so far ([`PASS_BYTES_PER_INCIDENCE`] an incidence); the kept rows
//!   move to disk past a third of it ([`rows_spill_at`]); a budget leaving less than
//!   `1 / MAX_USEFUL_PASSES` of the incidences a pass is refused ([`context_needs`]);
//! - **pairs**: counted in memory when [`pair_counts_in_memory_bytes`] fits, else by sorted
//!   runs; prefix-filtered candidates are counted in batches of half the room
//!   ([`pair_batch_bytes`]);
//! - **method**: concept's component batches take a quarter of the room and their sorted
//!   runs the rest ([`component_shares`]);
//! - **verify**: the candidates' shingle sets, read in batches of half the room
//!   ([`verify_batch_docs`]; without a budget [`DEFAULT_VERIFY_BYTES`]);
//! - **index**: [`index_needs`] for an index built in memory; an index opened from disk
//!   maps its segments and holds [`index_held`], a sweep added to it
//!   [`index_sweep_needs`], and a merge of the merge policy runs when
//!   [`index_merge_adds`] fits beside it (otherwise it waits for `index merge`);
//! - **divided run** (per worker, [`worker_share`] of the process's budget): its rows stage
//!   in [`divided_row_passes`], each round of an exchange in [`round_share`]
//!   ([`exchange_passes`]), a group's verification in [`group_verify_share`], the group
//!   members' shingle sets sent to their owners in [`carried_set_passes`].
//!
//! Invariants: for any budget, input facts and worker count that the plan accepts, every
//! stage's `carried + given` is at most the budget ([`MemoryPlan::stages`], checked by a
//! property test); a share never changes what a stage computes, only how it cuts the work
//! (outputs are byte-identical under any budget); without a budget no stage measures the
//! resident memory or trims the heap.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::spill::{in_use, MemoryBudget, SpillConfig};

/// Bytes per token of the corpus that the exact join holds (full shingle sets and the
/// join's working set; 16.4 GB for 1M documents of 300 words).
pub const EXACT_BYTES_PER_TOKEN: u64 = 56;

/// Bytes a corpus document holds besides its image while it is clustered: its byte offset
/// and its raw and canonical fingerprints.
pub const HELD_DOC_BYTES: u64 = 24;

/// Bytes a document of the key-file path holds besides its id: fingerprints and key
/// counts.
pub const KEYED_DOC_BYTES: u64 = 20;

/// Without a memory budget, exact verification reads the shingle sets of the candidates'
/// documents in batches whose sets take about half of this (about 28k documents of 300
/// words), instead of all at once.
pub const DEFAULT_VERIFY_BYTES: u64 = 256 << 20;

/// Without a memory budget, the images the context-only methods (concept, union-find by
/// resemblance) hold in memory, as [`held_image_bytes`] counts them (about 450k images of
/// 128 values): past that their keys go to a temporary file in the spill directory (8
/// bytes a key) and the context is built in passes over it.
pub const DEFAULT_HELD_IMAGE_BYTES: u64 = 512 << 20;

/// A budgeted build of the context needs room for passes of at least `1 / MAX_USEFUL_PASSES`
/// of the incidences ([`PASS_BYTES_PER_INCIDENCE`] each) besides what the prepared corpus
/// holds: a smaller budget is refused rather than read the keys that many times.
pub const MAX_USEFUL_PASSES: u64 = 64;

/// Bytes a pass of the bounded context build holds per incidence: its 12-byte record plus
/// the rows it groups (4 bytes an incidence, and the row offsets and keys).
pub const PASS_BYTES_PER_INCIDENCE: u64 = 20;

/// Bytes of one `(key, document)` incidence record of a context build held in memory.
pub const INCIDENCE_BYTES: u64 = 12;

/// The incidences a pass of the in-memory context build holds at most (384 MiB) unless the
/// context is large enough to take more than half of [`MAX_PASSES`] of them.
pub const UNBUDGETED_PASS_INCIDENCES: usize = 1 << 25;

/// At most this many passes over keys held in memory; a smaller budget spills sorted runs.
pub const MAX_PASSES: usize = 16;

/// A `String` or `Vec` header, for the estimates of what a structure holds.
pub const VEC_HEADER_BYTES: u64 = 24;

/// What the allocator rounds a small block up to, for the same estimates.
pub const ALLOC_BYTES: u64 = 16;

/// Bytes per document of an index, for [`index_needs`]: its external id twice (the id
/// vector and the id -> latest DocId map, with the map's own slots), the image's vector
/// header and allocation, the per-document arrays (sweeps, label, source) and, while a sweep
/// is added, the union-find and the label arrays of the clustering, with room for ids of a
/// few dozen bytes.
pub const INDEX_BYTES_PER_DOC: u64 = 400;

/// Bytes per image value of an index, for [`index_needs`]: the value (8) and its
/// incidence in the postings (12 for the key and the document, 2 to 4 for the directory).
///
/// Measured: `fimdup index build` of 1M documents of `fimdup gen --config
/// eval/peers/corpus.json` (bottom-k 128, ids of 7 bytes) peaks at 2_839 MiB under a budget
/// that fits and 2_854 MiB without one (`/usr/bin/time -v`), about 2_980 bytes a document:
/// the index itself, everything transient being small beside it. [`index_needs`] gives
/// `1M * (400 + 128 * 24)` bytes, 3_311 MiB, for it: the margin covers longer ids and the
/// directory at its largest.
pub const INDEX_BYTES_PER_VALUE: u64 = 24;

/// Incidences a pass of a sweep's candidate join holds (`index::join`) without a budget:
/// [`INDEX_JOIN_BYTES_PER_PAIR`] each, 160 MiB, whatever the index's size (a sweep's new
/// documents are taken in as many passes as this needs; each pass walks the new postings
/// once, so fewer, larger passes are faster: a build of 1M documents finds 20M
/// incidences).
pub const INDEX_JOIN_PAIRS: u64 = 1 << 23;

/// The fewest incidences a pass of a sweep's join is given under a budget (1.25 MiB),
/// what [`index_sweep_needs`] counts for it.
pub const INDEX_JOIN_MIN_PAIRS: u64 = 1 << 16;

/// Bytes per incidence of a pass of a sweep's join (`index::join`: its slot entry, 4, and
/// at most one prefix key with its document and count, 16).
pub const INDEX_JOIN_BYTES_PER_PAIR: u64 = 20;

/// The incidences a pass of a sweep's join holds when `room` bytes are left beside the
/// index and the new documents' keys (`None`: no budget): [`INDEX_JOIN_BYTES_PER_PAIR`]
/// each, between [`INDEX_JOIN_MIN_PAIRS`] and [`INDEX_JOIN_PAIRS`].
pub fn index_join_pairs(room: Option<u64>) -> u64 {
    room.map_or(INDEX_JOIN_PAIRS, |r| {
        (r / INDEX_JOIN_BYTES_PER_PAIR).clamp(INDEX_JOIN_MIN_PAIRS, INDEX_JOIN_PAIRS)
    })
}

/// Bytes per document of an index whose segment is mapped (its images and postings read
/// in place, not held), for [`index_held`]: its external id in the ids buffer and in the
/// id -> latest-version map, the per-document arrays (sweeps, label, source) and, while a
/// sweep is added, the clustering's union-find and labels, with room for ids of a few
/// dozen bytes.
///
/// Measured: `index add --batch` of 100k documents to the mapped 1M index of
/// `eval/index/rss.sh` holds 466 MiB anonymous (`/usr/bin/time -v` and
/// `/proc/PID/status`), of which the new documents' images and postings take about 260
/// and the join (its counts, [`INDEX_JOIN_BYTES_PER_KEY`], and one pass of 2M
/// incidences) about 90: about 105 bytes for each of the 1.1M documents.
pub const INDEX_BYTES_PER_MAPPED_DOC: u64 = 160;

/// Bytes per image value of a sweep's new documents that the join holds besides
/// [`INDEX_BYTES_PER_VALUE`] (`index::join`: the count of documents in the older segments
/// of each new key they hold too, 8 with the key's place, and each document's key counts
/// while its prefix bound is found, 2; its per-document arrays, 24 bytes, are in
/// [`INDEX_BYTES_PER_DOC`]'s margin).
pub const INDEX_JOIN_BYTES_PER_KEY: u64 = 10;

/// What an open index holds in memory, for [`index_held`] and [`index_sweep_needs`]: all
/// its documents, and the documents and image values of its segments held in memory
/// (built or merged by this process, or read from the older format); every other
/// segment is mapped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexHeld {
    /// Every document (all versions, removed ones included).
    pub docs: u64,
    /// The documents of the segments held in memory.
    pub owned_docs: u64,
    /// Their image values (main and containment).
    pub owned_values: u64,
}

/// The bytes an open index holds: [`index_needs`] of its segments held in memory and
/// [`INDEX_BYTES_PER_MAPPED_DOC`] for each document of a mapped one (whose pages the
/// kernel reads and drops as it needs: they are not counted).
pub fn index_held(bands: Option<(u32, u32)>, held: IndexHeld) -> u64 {
    index_needs(bands, held.owned_docs, held.owned_values)
        + held.docs.saturating_sub(held.owned_docs) * INDEX_BYTES_PER_MAPPED_DOC
}

/// The bytes an index holds while a sweep of `new_docs` documents with `new_values` image
/// values is added to it: [`index_held`] with the new documents held in memory (they are
/// the sweep's segment) and the join that finds the new documents' candidates
/// ([`INDEX_JOIN_BYTES_PER_KEY`] a new value, and [`INDEX_JOIN_BYTES_PER_PAIR`] an
/// incidence of its smallest pass, [`INDEX_JOIN_MIN_PAIRS`]; its passes take what the
/// budget leaves, [`index_join_pairs`]).
pub fn index_sweep_needs(
    bands: Option<(u32, u32)>,
    held: IndexHeld,
    new_docs: u64,
    new_values: u64,
) -> u64 {
    let after = IndexHeld {
        docs: held.docs + new_docs,
        owned_docs: held.owned_docs + new_docs,
        owned_values: held.owned_values + new_values,
    };
    let incidences = new_values
        .saturating_mul(after.docs)
        .min(INDEX_JOIN_MIN_PAIRS);
    let join = incidences * INDEX_JOIN_BYTES_PER_PAIR + new_values * INDEX_JOIN_BYTES_PER_KEY;
    index_held(bands, after) + join
}

/// The bytes a merge of segments of `docs` documents with `values` image values adds to
/// what the index holds: their postings (and band keys) built anew in memory, at
/// [`INDEX_BYTES_PER_VALUE`] less the value itself (the images stay where they are).
pub fn index_merge_adds(bands: Option<(u32, u32)>, docs: u64, values: u64) -> u64 {
    let bands = bands.map_or(0, |(b, _)| b as u64);
    docs * bands * INDEX_BYTES_PER_VALUE + values * (INDEX_BYTES_PER_VALUE - 8)
}

/// Bytes a divided run's id message takes besides the id's text while the ids are checked:
/// the message sent, its encoding and the message received, and its entry in the owner's
/// map.
pub const ID_MSG_BYTES: u64 = 160;

/// Bytes a divided run's worker holds per incidence of a pass of the rows stage: the
/// incidences it sends, their encoding in flight, and the ones it receives and sorts.
pub const ROW_BYTES: u64 = 64;

/// Bytes a key of a divided run's element list takes while it is exchanged: the message
/// sent, its encoding and the message received.
pub const LIST_KEY_BYTES: u64 = 24;

/// The key file of the context-only methods is partitioned by the top this many bits of a
/// key as it is written: a pass over a key range reads only its partitions.
pub const KEY_PARTITION_BITS: u32 = 8;

/// The write buffer of each key partition (`2^KEY_PARTITION_BITS` of them: 16 MiB).
pub const KEY_PARTITION_BUFFER_BYTES: usize = 64 << 10;

/// The smallest batch a batched stage takes (pairs, components), so that it progresses.
pub const MIN_BATCH_BYTES: u64 = 1 << 20;

/// Bytes of text a token takes, for an estimate of a corpus's tokens from its size.
pub const TEXT_BYTES_PER_TOKEN: u64 = 6;

/// An estimate of the tokens of `text_bytes` of text.
pub fn tokens_of_text(text_bytes: u64) -> u64 {
    text_bytes / TEXT_BYTES_PER_TOKEN
}

/// Bytes an external id is counted for against a budget besides its text: its `String`
/// header and what the allocator adds.
pub const ID_BYTES: u64 = 40;

/// What the external ids `ids` are counted for against a budget: [`ID_BYTES`] and the text
/// each.
pub fn id_bytes(ids: &[String]) -> u64 {
    ids.iter().map(|i| ID_BYTES + i.len() as u64).sum()
}

/// Bytes one held image of `image_len` values takes (both value vectors of a positional
/// scheme, each a vector, and the document's entry).
pub fn held_image_bytes(image_len: usize, positional: bool) -> u64 {
    let copies = if positional { 2 } else { 1 };
    64 + copies * (40 + 8 * image_len as u64)
}

/// The memory a run holding `held` bytes of images (and `extra` bytes beside them) needs:
/// the images, and the method's own working set (bands, super shingles, candidates,
/// verification), measured at up to 40 % of them on 1M documents (eval/results/scale.md).
pub fn holding_needs(extra: u64, held: u64) -> u64 {
    extra + held + held * 2 / 5
}

/// What a budgeted build of the context of `total` keys needs besides `held` bytes: the
/// room for its passes ([`MAX_USEFUL_PASSES`]), and in all.
pub fn context_needs(held: u64, total: u64) -> (u64, u64) {
    let work = (total * PASS_BYTES_PER_INCIDENCE / MAX_USEFUL_PASSES).max(1 << 16);
    (work, held + work)
}

/// The incidences ([`INCIDENCE_BYTES`] each) that `spill`'s budget holds at once, at least
/// one (passes of the unbounded build over keys read again from their source).
pub fn incidence_cap(spill: &SpillConfig, total: usize) -> usize {
    if let Some(p) = spill.partitions {
        return p.cap(total);
    }
    usize::try_from(spill.budget_bytes() / INCIDENCE_BYTES)
        .unwrap_or(usize::MAX)
        .max(1)
}

/// The incidences a pass over keys held in memory holds, of `total`: at most
/// [`UNBUDGETED_PASS_INCIDENCES`], or `total` over half of [`MAX_PASSES`] when that is more
/// (a pass is a scan of the keys in memory, cheap, but past [`MAX_PASSES`] the build
/// spills); under a budget also at most half of it (the rows built take the rest).
pub fn in_memory_pass_cap(spill: &SpillConfig, total: usize) -> usize {
    if let Some(p) = spill.partitions {
        return p.cap(total);
    }
    let plain = UNBUDGETED_PASS_INCIDENCES.max(total.div_ceil(MAX_PASSES / 2));
    match spill.budget {
        None => plain,
        Some(b) => plain
            .min(usize::try_from(b.0 / (2 * INCIDENCE_BYTES)).unwrap_or(usize::MAX))
            .max(1),
    }
}

/// Without a budget, the incidences a pass over a source partitioned by key range holds
/// (16M, 320 MiB at [`PASS_BYTES_PER_INCIDENCE`]): a pass reads only its keys, so passes
/// stay this small however large the context.
pub const PARTITIONED_PASS_INCIDENCES: usize = 1 << 24;

/// At most this many passes over a partitioned source before the build spills sorted runs
/// instead.
pub const MAX_PARTITIONED_PASSES: usize = 4096;

/// The incidences a pass over a source partitioned by key range holds, of `total`:
/// [`PARTITIONED_PASS_INCIDENCES`] (or the partitions asked for).
pub fn partitioned_pass_cap(spill: &SpillConfig, total: usize) -> usize {
    match spill.partitions {
        Some(p) => p.cap(total),
        None => PARTITIONED_PASS_INCIDENCES.min(incidence_cap(spill, total)),
    }
}

/// The incidences a pass of the bounded context build holds: what `avail` (the budget
/// beside what the caller holds) leaves beside the `kept` rows, no more than `room` (what
/// the process's budget leaves beside what is resident), [`PASS_BYTES_PER_INCIDENCE`]
/// each, at least one.
pub fn bounded_pass_cap(
    spill: &SpillConfig,
    total: usize,
    avail: u64,
    kept: u64,
    room: u64,
) -> usize {
    if let Some(p) = spill.partitions {
        return p.cap(total);
    }
    usize::try_from(avail.saturating_sub(kept).min(room) / PASS_BYTES_PER_INCIDENCE)
        .unwrap_or(usize::MAX)
        .max(1)
}

/// The kept rows of a bounded context build move to disk once they take more than this of
/// `avail` (what the budget leaves beside the caller's holdings): a third.
pub fn rows_spill_at(avail: u64) -> u64 {
    avail / 3
}

/// The working set of counting the pairs of `rows` over `n_docs` documents in memory:
/// per-thread count arrays, the row index and the rows' incidences.
pub fn pair_counts_in_memory_bytes(n_docs: u64, incidences: u64, threads: u64) -> u64 {
    8 * (n_docs + 1) + 4 * incidences + threads * 4 * n_docs
}

/// Bytes of prefix-filtered candidates counted at once: half the room, at least
/// [`MIN_BATCH_BYTES`].
pub fn pair_batch_bytes(spill: &SpillConfig) -> u64 {
    (spill.room() / 2).clamp(MIN_BATCH_BYTES, 1 << 40)
}

/// What concept's component split holds while it mines from rows on disk: the component
/// index (8 bytes a document) and the edges (16 bytes each).
pub fn components_held(n_docs: u64, edges: u64) -> u64 {
    8 * n_docs + 16 * edges
}

/// Concept's shares of `room` for mining from rows on disk: a quarter for each batch of
/// transactions (at least [`MIN_BATCH_BYTES`]), the rest for the sorted runs that gather
/// them.
pub fn component_shares(spill: &SpillConfig, room: u64) -> (u64, SpillConfig) {
    (
        (room / 4).max(MIN_BATCH_BYTES),
        spill.fixed(room - room / 4),
    )
}

/// Exact verification's share: the room beside `held` under a budget, else
/// [`DEFAULT_VERIFY_BYTES`].
pub fn verify_bytes(spill: &SpillConfig, held: u64) -> u64 {
    match spill.budget {
        Some(_) => spill.less(held).room(),
        None => DEFAULT_VERIFY_BYTES,
    }
}

/// Documents whose shingle sets a verification batch reads at once: those whose sets fit
/// in half of `bytes`, sized from `per_doc` bytes a document (the batches so far; the first
/// batch takes 4,096), at least two. Without a share, all of them.
pub fn verify_batch_docs(bytes: Option<u64>, per_doc: Option<u64>) -> usize {
    match (bytes, per_doc) {
        (None, _) => usize::MAX,
        (Some(_), None) => 4096,
        (Some(b), Some(p)) => usize::try_from(b / 2 / p.max(1))
            .unwrap_or(usize::MAX)
            .max(2),
    }
}

/// Bytes one document's shingle set of `len` values takes while it is verified.
pub fn set_bytes(len: usize) -> u64 {
    48 + 8 * len as u64
}

/// An estimate of the bytes an index of `docs` documents, whose images (main and
/// containment) have `values` values in all and whose LSH band table (if any) has `bands`
/// bands, holds while a sweep is added to it: [`INDEX_BYTES_PER_DOC`] per document and
/// [`INDEX_BYTES_PER_VALUE`] per value and per band key.
pub fn index_needs(bands: Option<(u32, u32)>, docs: u64, values: u64) -> u64 {
    let bands = bands.map_or(0, |(b, _)| b as u64);
    docs * (INDEX_BYTES_PER_DOC + bands * INDEX_BYTES_PER_VALUE) + values * INDEX_BYTES_PER_VALUE
}

/// The passes (a divided run's rounds) that `bytes` of exchanged items take so that no
/// round holds more than `share` bytes, at least one round (one without a share).
pub fn exchange_passes(bytes: u64, share: Option<u64>) -> u64 {
    match share {
        None => 1,
        Some(s) => bytes.div_ceil(s.max(1)).max(1),
    }
}

/// Without a budget, what a divided run's process holds beside its per-document data, as
/// the one-process default plan holds at most [`DEFAULT_HELD_IMAGE_BYTES`] of images: its
/// workers keep their documents' keys on disk and exchange rows, ids and lists in passes
/// sized from it.
pub const DIVIDED_DEFAULT_PROCESS_BYTES: u64 = DEFAULT_HELD_IMAGE_BYTES;

/// The bytes a divided run's process plans with: its budget, or
/// [`DIVIDED_DEFAULT_PROCESS_BYTES`].
pub fn divided_process_bytes(budget: Option<MemoryBudget>) -> u64 {
    budget.map_or(DIVIDED_DEFAULT_PROCESS_BYTES, |b| b.0)
}

/// A worker's default share grown to hold its per-document data (`meta` bytes) beside
/// its passes: a default never refuses a run.
pub fn divided_default_share(share: u64, meta: u64) -> u64 {
    share.max(2 * meta + share / 2)
}

/// A worker's share of a process's budget of `budget` bytes shared by `per_process`
/// workers.
pub fn worker_share(budget: u64, per_process: usize) -> u64 {
    budget / per_process.max(1) as u64
}

/// What one round of an exchange (ids, lists) or the batches waiting to be put back in
/// order may hold: a quarter of the share.
pub fn round_share(share: u64) -> u64 {
    share / 4
}

/// Bytes a group member's full shingle set of `len` shingles takes in a round of the divided
/// run's exchange of sets (exact verification over shards or Parquet): its keys as the
/// holder sends them, encoded in flight and decoded at the group's owner, and the message's
/// own.
pub fn carried_set_bytes(len: usize) -> u64 {
    24 * len as u64 + 64
}

/// The passes that send the group members' sets to their groups' owners, so that what one
/// pass brings the owner receiving the most (`most` bytes in all, [`carried_set_bytes`])
/// fits in a round's share of the worker's `share` ([`round_share`]); the owner keeps what
/// it received on disk.
pub fn carried_set_passes(most: u64, share: u64) -> u64 {
    most.div_ceil(round_share(share).max(1)).max(1)
}

/// What verifying one group of a divided run may hold: half of the worker's share (the
/// group's context and members take the rest).
pub fn group_verify_share(share: u64) -> u64 {
    share / 2
}

/// Bytes a divided run's worker holds per document of its share besides the document's
/// record (`record` bytes): the id's text (`id_len`) and its fingerprints.
pub fn divided_doc_bytes(record: usize, id_len: usize) -> u64 {
    (record + 16 + id_len) as u64
}

/// The passes of a divided run's rows stage for a worker whose most incidences are
/// `incidences` and whose per-document data take `meta` bytes, under its `share`: a pass's
/// incidences ([`ROW_BYTES`] each) fit in half of the share beside the data; `None` when the
/// data alone take more than half.
pub fn divided_row_passes(incidences: u64, meta: u64, share: u64) -> Option<u64> {
    if meta > share / 2 {
        return None;
    }
    Some(
        (incidences * ROW_BYTES)
            .div_ceil((share / 2 - meta).max(1))
            .max(1),
    )
}

/// The most passes a context build over keys in memory makes before it spills sorted runs
/// instead: [`MAX_PASSES`], or the partitions asked for when more.
pub fn max_passes(spill: &SpillConfig) -> usize {
    spill
        .partitions
        .map_or(MAX_PASSES, |p| p.count().max(MAX_PASSES))
}

/// A fixed number of key-range partitions for the context build, in place of the passes a
/// budget gives. The output is the same for any count: it is a knob for tests and for a
/// user who knows better than the plan. A partition holds whole buckets of keys, so a
/// small context has fewer partitions than asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Partitions(usize);

impl Partitions {
    /// `count` partitions (at least one).
    pub fn new(count: usize) -> Partitions {
        Partitions(count.max(1))
    }

    /// The number of partitions asked for.
    pub fn count(self) -> usize {
        self.0
    }

    /// The incidences of each of the partitions of `total` incidences, at least one.
    pub fn cap(self, total: usize) -> usize {
        total.div_ceil(self.0).max(1)
    }
}

/// What is known of an input when its stages are planned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// Documents.
    pub docs: u64,
    /// Bytes of the external ids in all (their text).
    pub id_text_bytes: u64,
    /// Values per image.
    pub image_len: usize,
    /// Whether images carry positional values too.
    pub positional: bool,
    /// Image elements in all (the context's incidences before the df filter).
    pub incidences: u64,
    /// Tokens of the corpus (for the exact join).
    pub tokens: u64,
    /// Whether the method holds every image (lsh, super-shingle) rather than only the
    /// context.
    pub holds_images: bool,
    /// Whether the method holds every full shingle set (the exact join).
    pub holds_sets: bool,
    /// Whether exact verification follows the method.
    pub verify: bool,
}

/// One stage of a plan: what the stages before it still hold, what it is given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StageShare {
    /// The stage, named as the job's phases are.
    pub stage: &'static str,
    /// Bytes held by earlier stages while this one runs.
    pub carried_bytes: u64,
    /// Bytes this stage may take for its own work.
    pub given_bytes: u64,
    /// How the stage uses its share.
    pub how: String,
}

/// A plan that cannot be kept: what it would need, for which stage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The stage that does not fit.
    pub stage: &'static str,
    /// Bytes it would need in all.
    pub need: u64,
}

/// Shares handed out, by stage: the largest and how many times.
type Handed = BTreeMap<&'static str, (u64, u64)>;

/// The largest share each stage was handed while a job ran, and how many times
/// ([`Ledger::NONE`], the default, records nothing).
#[derive(Clone, Debug, Default)]
pub struct Ledger(Option<Arc<Mutex<Handed>>>);

impl Ledger {
    /// A ledger that records nothing.
    pub const NONE: Ledger = Ledger(None);

    /// A ledger that records.
    pub fn recording() -> Ledger {
        Ledger(Some(Arc::default()))
    }

    /// Records that `stage` was handed `bytes`.
    pub fn record(&self, stage: &'static str, bytes: u64) {
        if let Some(Ok(mut m)) = self.0.as_ref().map(|m| m.lock()) {
            let e = m.entry(stage).or_insert((0, 0));
            e.0 = e.0.max(bytes);
            e.1 += 1;
        }
    }

    /// Each stage's largest share and the number of times it was handed one, by stage.
    pub fn entries(&self) -> Vec<(&'static str, u64, u64)> {
        match self.0.as_ref().map(|m| m.lock()) {
            Some(Ok(m)) => m.iter().map(|(s, (b, n))| (*s, *b, *n)).collect(),
            _ => Vec::new(),
        }
    }
}

/// Two ledgers are the same configuration: a ledger records, it does not configure.
impl PartialEq for Ledger {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Ledger {}

/// The memory plan of a job: its budget (or the defaults), workers and processes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryPlan {
    budget: Option<MemoryBudget>,
    workers: usize,
    processes: usize,
}

impl MemoryPlan {
    /// The plan for `budget` (per process), `workers` threads per process and `processes`.
    pub fn new(budget: Option<MemoryBudget>, workers: usize, processes: usize) -> MemoryPlan {
        MemoryPlan {
            budget,
            workers: workers.max(1),
            processes: processes.max(1),
        }
    }

    /// The budget of one process, if any.
    pub fn budget(&self) -> Option<MemoryBudget> {
        self.budget
    }

    /// The per-document state of `facts`: ids, offsets and fingerprints.
    pub fn doc_state(&self, facts: &Facts) -> u64 {
        let docs = facts.docs.div_ceil(self.processes as u64);
        docs * (ID_BYTES + HELD_DOC_BYTES) + facts.id_text_bytes / self.processes as u64
    }

    /// The stages of a job on an input of `facts`, in order, with their shares; a
    /// [`Refusal`] when the budget cannot hold a stage's least share.
    pub fn stages(&self, facts: &Facts) -> Result<Vec<StageShare>, Refusal> {
        let b = self.budget.map_or(u64::MAX, |b| b.0);
        let state = self.doc_state(facts);
        let per = self.processes as u64;
        let mut out = Vec::new();
        let images = facts.docs.div_ceil(per) * held_image_bytes(facts.image_len, facts.positional);
        let sets = facts.tokens.div_ceil(per) * EXACT_BYTES_PER_TOKEN;
        let refuse = |stage, need| Err(Refusal { stage, need });
        if facts.holds_sets {
            let need = holding_needs(state, sets);
            if need > b {
                return refuse("method", need);
            }
        }
        if facts.holds_images {
            let need = holding_needs(state, images);
            if need > b {
                return refuse("sketch", need);
            }
        }
        // Sketch: the images held while they fit (the default without a budget), then keys
        // on disk.
        let held_images = match self.budget {
            Some(_) if facts.holds_images => images,
            Some(_) => images.min(b.saturating_sub(state)),
            None if facts.holds_images => images,
            None => images.min(DEFAULT_HELD_IMAGE_BYTES),
        };
        out.push(StageShare {
            stage: "sketch",
            carried_bytes: state,
            given_bytes: held_images,
            how: "images held while they fit, then keys on disk".into(),
        });
        let mut carried = state;
        if facts.holds_images {
            carried += images;
        }
        let incidences = facts.incidences.div_ceil(per);
        if !facts.holds_images && !facts.holds_sets {
            let (work, need) = context_needs(carried, incidences);
            if self.budget.is_some() && need > b {
                return refuse("context", need);
            }
            let avail = b.saturating_sub(carried);
            let pass = match self.budget {
                Some(_) => {
                    let cap = bounded_pass_cap(
                        &SpillConfig::default(),
                        0,
                        avail,
                        rows_spill_at(avail),
                        avail,
                    );
                    (cap as u64 * PASS_BYTES_PER_INCIDENCE).max(work.min(avail))
                }
                None => {
                    // Keys in memory while the images fit the default, else the
                    // partitioned key file.
                    let total = usize::try_from(incidences).unwrap_or(usize::MAX);
                    let cap = if images <= DEFAULT_HELD_IMAGE_BYTES {
                        UNBUDGETED_PASS_INCIDENCES.max(total.div_ceil(MAX_PASSES / 2))
                    } else {
                        PARTITIONED_PASS_INCIDENCES
                    };
                    cap.min(total) as u64 * PASS_BYTES_PER_INCIDENCE
                }
            };
            let rows = match self.budget {
                Some(_) => rows_spill_at(avail),
                None => incidences * 4,
            };
            out.push(StageShare {
                stage: "context",
                carried_bytes: carried,
                given_bytes: pass.min(avail.saturating_sub(rows)) + rows,
                how: format!(
                    "passes over key ranges of {} incidences; rows kept in memory up to {} bytes",
                    pass / PASS_BYTES_PER_INCIDENCE,
                    rows
                ),
            });
        }
        let method = match self.budget {
            Some(_) => b.saturating_sub(carried),
            None => pair_counts_in_memory_bytes(
                facts.docs.div_ceil(per),
                incidences,
                self.workers as u64,
            ),
        };
        out.push(StageShare {
            stage: "method",
            carried_bytes: carried,
            given_bytes: method,
            how:
                "pair counts in memory when they fit, else sorted runs; component batches a quarter"
                    .into(),
        });
        if facts.verify {
            let given = match self.budget {
                Some(_) => b.saturating_sub(carried),
                None => DEFAULT_VERIFY_BYTES,
            };
            out.push(StageShare {
                stage: "verify",
                carried_bytes: carried,
                given_bytes: given,
                how: "shingle sets of the candidates read in batches of half the share".into(),
            });
        }
        Ok(out)
    }

    /// The plan of `facts` beside what `ledger` recorded, for a summary or `--explain-plan`:
    /// the budget, the workers and processes, each planned stage and each stage's largest
    /// share handed out while the job ran.
    pub fn explain(&self, facts: &Facts, ledger: &Ledger) -> serde_json::Value {
        let stages = match self.stages(facts) {
            Ok(s) => serde_json::to_value(s).unwrap_or_default(),
            Err(r) => serde_json::json!({"refused": r.stage, "need_bytes": r.need}),
        };
        let handed: Vec<_> = ledger
            .entries()
            .into_iter()
            .map(|(s, b, n)| serde_json::json!({"stage": s, "largest_bytes": b, "times": n}))
            .collect();
        serde_json::json!({
            "budget_bytes": self.budget.map(|b| b.0),
            "workers": self.workers,
            "processes": self.processes,
            "stages": stages,
            "handed_out": handed,
        })
    }
}

impl SpillConfig {
    /// The same configuration with `held` bytes of the budget taken (by what the caller
    /// keeps in memory meanwhile); at least one byte is left. Without a budget: unchanged.
    pub fn less(&self, held: u64) -> SpillConfig {
        SpillConfig {
            budget: self
                .budget
                .map(|b| MemoryBudget(b.0.saturating_sub(held).max(1))),
            ..self.clone()
        }
    }

    /// A share of `bytes` fixed now: what is given it is taken without measuring the
    /// resident memory again (for a buffer sized beside another that is not allocated
    /// yet, which [`SpillConfig::room`] cannot see).
    pub fn fixed(&self, bytes: u64) -> SpillConfig {
        SpillConfig {
            budget: self.budget.map(|_| MemoryBudget(bytes.max(1))),
            process: None,
            ..self.clone()
        }
    }

    /// What a stage planning its share counts as taken: `held` without a budget (nothing
    /// is planned against one, so nothing is measured), [`in_use`] under one.
    pub fn in_use(&self, held: u64) -> u64 {
        match self.budget {
            Some(_) => in_use(held),
            None => held,
        }
    }

    /// The bytes a stage may take from now on: its budget, but no more than what the
    /// process's budget leaves beside the memory resident now ([`in_use`]), since what the
    /// caller counted in `budget` can fall short of what is resident. At least a sixteenth
    /// of the process's budget (or the whole budget, when smaller), so that a stage keeps
    /// making progress. Without a budget, `u64::MAX`. It reads `/proc` and trims the heap:
    /// call it where a stage sizes its buffers, not per item.
    pub fn room(&self) -> u64 {
        let b = self.budget_bytes();
        match self.process {
            Some(p) => b.min(p.0.saturating_sub(in_use(0)).max(p.0 / 16)),
            None => b,
        }
    }

    /// Records in the job's ledger that `stage` was handed `bytes`, and returns them.
    pub fn hand(&self, stage: &'static str, bytes: u64) -> u64 {
        self.ledger.record(stage, bytes);
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Every stage the plan accepts fits its budget with what it carries.
        #[test]
        fn shares_never_sum_above_the_budget(
            budget_mib in 16u64..8192,
            docs in 0u64..50_000_000,
            id_len in 1u64..64,
            image_len in 1usize..512,
            positional: bool,
            tokens_per_doc in 1u64..3000,
            method in 0u8..3,
            verify: bool,
            workers in 1usize..64,
            processes in 1usize..16,
        ) {
            let b = budget_mib << 20;
            let plan = MemoryPlan::new(Some(MemoryBudget(b)), workers, processes);
            let facts = Facts {
                docs,
                id_text_bytes: docs * id_len,
                image_len,
                positional,
                incidences: docs * image_len as u64,
                tokens: docs * tokens_per_doc,
                holds_images: method == 1,
                holds_sets: method == 2,
                verify,
            };
            match plan.stages(&facts) {
                Ok(stages) => {
                    prop_assert!(!stages.is_empty());
                    for s in &stages {
                        prop_assert!(
                            s.carried_bytes.saturating_add(s.given_bytes) <= b,
                            "{} carries {} and is given {} under {}", s.stage, s.carried_bytes, s.given_bytes, b
                        );
                    }
                }
                Err(r) => prop_assert!(r.need > b, "refused {} needing {} under {}", r.stage, r.need, b),
            }
        }

        /// A fixed partition count covers every incidence in that many partitions.
        #[test]
        fn partitions_cover_the_incidences(count in 1usize..200, total in 1usize..10_000_000) {
            let cap = Partitions::new(count).cap(total);
            prop_assert!(cap * count >= total);
            prop_assert!((cap - 1) * count < total);
        }
    }

    #[test]
    fn a_small_budget_is_refused_before_the_context() {
        let plan = MemoryPlan::new(Some(MemoryBudget(64 << 20)), 2, 1);
        let facts = Facts {
            docs: 10_000_000,
            id_text_bytes: 70_000_000,
            image_len: 128,
            incidences: 1_280_000_000,
            ..Facts::default()
        };
        let r = plan.stages(&facts).unwrap_err();
        assert_eq!(r.stage, "context");
        assert!(r.need > 64 << 20);
    }
}
