//! The cluster stage divided among the workers of every process, for `concept`,
//! `union-find`, `lsh`, `super-shingle` (with or without exact verification) and `exact`
//! by resemblance, on a corpus split by byte ranges
//! (uncompressed JSONL or plain lines): no process holds the corpus's images, and process
//! 0 receives the results (clusters, member pairs, the ids that name them, counters), not
//! the records.
//!
//! Stages, each a round of exchange by key ([`super::rounds`]) around the one-process
//! library code:
//! 1. **Sketch**: each worker reads and sketches its byte range (the ranges' counts are
//!    gathered first, so each knows its first line and DocId) and keeps its documents'
//!    ids, element keys and fingerprints (the keys in a spill file under a memory budget,
//!    `Held`).
//! 2. **Ids**: ids are exchanged by their hash; the owner of a hash finds a repeated id with
//!    the same check one process runs, and every worker stops with the error of the
//!    earliest one (under a memory budget in passes over slices of the hashes, each
//!    id's occurrences all in one pass, so that a pass's ids take at most a quarter of a
//!    worker's share).
//! 3. **Collapse**: documents are exchanged by their image fingerprint (by their canonical
//!    fingerprint when the image is empty or the equivalence is lexical): equal raw text
//!    implies equal canonical text implies equal images, so each collapse class is one such
//!    group, and its owner runs [`collapse()`] on it: the same classes and counts.
//! 4. **Rows**: `(key, document)` incidences of the representatives are exchanged by key
//!    (under a memory budget in passes, each over a slice of the keys, sized so that a
//!    pass's incidences take at most half of a worker's part of the budget; every key is
//!    in one pass, so the rows are the same):
//!    the method's candidate rule ([`CandidateRule`], from the method's file) says which
//!    keys (the full shingle sets for exact, read again by each worker at its documents'
//!    offsets; image elements for concept and union-find, band keys for lsh, super
//!    shingles for super-shingle); the owner of a key
//!    holds its posting list and, for the context methods, applies `min-df` / `max-df` as
//!    the context builder does; the dropped elements that two documents share are
//!    broadcast.
//! 5. **Pairs**, counted exactly. Concept and union-find, by prefix filtering: each kept
//!    element held by two documents or more goes back to its documents' owners with its
//!    document frequency as its pass of the rows ends (one sorted run a pass, merged back
//!    by document: `DfRuns`, on disk under a budget); a document's first `|x| - k + 1` such elements in the order
//!    (frequency, element) are its prefix, and two documents sharing `k` elements share one
//!    of their prefixes' (any fixed order will do; this one puts the common elements last,
//!    out of the prefixes). Prefix incidences go to the elements' owners, which send each
//!    prefix row on to the pair owners (by hash) of its documents but the last: the owner
//!    of `a` pairs it with the row's later documents `b` (a row held by many documents is
//!    paired by many workers), holds `a`'s element list, fetches `b`'s once, and counts
//!    (under a budget the lists travel in rounds of a quarter of a worker's share and are
//!    held on disk).
//!    Lsh and super-shingle: each row goes once to the pair owners of its documents but the last,
//!    which count, over the rows holding `a`, the documents after it, and link those
//!    sharing a key (a superset of their candidates; each group finds its own).
//! 6. **Components**: each worker reduces its edges to a spanning forest, and the forests,
//!    with the collapse classes, go to worker 0, which joins them into groups (a connected
//!    component of the edges with its collapsed members) and places the groups on workers,
//!    largest first, each on the least loaded. Worker 0 thus holds a forest over the
//!    documents that have an edge or a class, never the corpus.
//! 7. **Per group**: the members' keys and fingerprints go to the group's owner, which runs
//!    the library's method on the group alone ([`run_method`] on the group's context, with
//!    the globally dropped elements left out), and with `--verify exact` verifies the
//!    group's pairs, reading its members again at their offsets ([`verify_with_corpus`]): a group is a union of components of the
//!    pair graph, so its clusters and pairs are those of the whole run restricted to it
//!    (see [`crate::cluster::concept`]'s component split).
//!    For a deduplication, the group's owner also makes the choice on the group
//!    ([`Dedup::choose_group`]: documents outside every group are kept).
//! 8. **Kept parts** (deduplication): the removed DocIds go to the first worker of the
//!    process that read them, which writes the kept records of the process's ranges as
//!    the process's part ([`write_kept_part`]).
//! 9. **Merge**: the groups' clusters, pairs and the ids of their members go to worker 0,
//!    which orders the clusters and pairs as one process does and fills the summary from
//!    the stages' counters.
//!
//! Invariants: the outputs (clusters, pairs and every summary field but timings, memory
//! and the `distributed` block) equal the one-process run's for any number of processes
//! and workers (a deduplication's removals too, and its parts in process order are the
//! one-process kept file); a stage's error (a repeated id, a malformed line) stops every
//! process; the other processes return `None` and write nothing but their kept part.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::dfruns::{DfMsg, DfRuns};
use super::held::Held;
use super::rounds::{Rounds, Target, Traffic, Wire};
use super::workers::add_stats;
use crate::cluster::threshold::image_kind;
use crate::cluster::uf::UnionFind;
use crate::cluster::{
    candidate_rule, check_max_pairs, collapse, finish_clusters, fp_miner, run_method,
    verify_with_corpus, CandidateRule, ClusterConfig, ClusterInputs, ClusterOutput, ClusterSummary,
    CollapseSummary, CorpusSource, Equivalence, Grouping, Job, Measure, Phase, Reads, Regroup,
    ScoredPair, Threshold,
};
use crate::context::{Context, ContextConfig};
use crate::corpus::par::Share;
use crate::corpus::split::{byte_range, count_range, place_ranges, RangeCount, Split};
use crate::corpus::{DuplicateIds, Format, IdCheck};
use crate::dedup::{write_kept_part, Dedup, Reason, Removal, Representative, ScoreKind};
use crate::sketch::pipeline::{sketch_share, Fingerprints, SketchBatch, SketchStats};
use crate::sketch::{image_fingerprint, Scheme, SketchParams, Sketcher};
use crate::{DocId, Error, Result};

/// Why `job` on `path` does not run divided (then process 0 gathers the records and
/// clusters them as one process does); `None` when it does.
pub fn gathered_because(job: &Job, path: &Path) -> Result<Option<&'static str>> {
    let cfg = job.cluster_config();
    let pipeline = job.pipeline();
    Ok(
        if cfg.method.reads() == Reads::Positional && !pipeline.sketch.scheme.is_positional() {
            Some("the method bands positional images only")
        } else if cfg.measure != Measure::Resemblance {
            Some("the measure is containment")
        } else if let Some(why) = cfg.undivided_because() {
            Some(why)
        } else if pipeline.sketch.scheme == Scheme::ModM || pipeline.sketch.weighting.is_some() {
            Some("the images are mod-m or weighted")
        } else if !crate::corpus::split::splits_by_range(path, &pipeline.corpus)? {
            Some("the corpus is not split by byte ranges (compressed, or not JSONL or lines)")
        } else if pipeline.corpus.duplicate_ids == DuplicateIds::Suffix {
            Some("repeated ids are renamed in input order")
        } else {
            None
        },
    )
}

/// A document of a worker's share.
/// Its keys and positional values (the image for k-mins and one-permutation) are in the
/// worker's [`Held`] store, at its index in the worker's documents.
struct Doc {
    id: u32,
    ext: String,
    line: u64,
    /// Where its line starts in the file (exact verification reads it there).
    offset: u64,
    raw: u64,
    canonical: u64,
    image: Option<u64>,
}

/// An id, to the owner of its hash.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct IdMsg {
    hash: u64,
    doc: u32,
    line: u64,
    id: String,
}

impl Wire for IdMsg {
    fn wire_bytes(&self) -> u64 {
        20 + self.id.wire_bytes()
    }
}

/// Bytes an id's message takes besides the id's text while the ids are checked: the
/// message sent, its encoding and the message received, and its entry in the owner's map.
const ID_MSG_BYTES: u64 = 160;

/// A document's fingerprints, to the owner of its collapse key.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct PrintMsg {
    /// (image fingerprint present, the image fingerprint or else the canonical one).
    key: (bool, u64),
    doc: u32,
    raw: u64,
    canonical: u64,
}

impl Wire for PrintMsg {
    fn wire_bytes(&self) -> u64 {
        29
    }
}

/// A document folded into its class's representative.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Folded {
    doc: u32,
    rep: u32,
}

impl Wire for Folded {
    fn wire_bytes(&self) -> u64 {
        8
    }
}

/// A group member's record, to the group's owner.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Member {
    group: u32,
    owner: u32,
    doc: u32,
    ext: String,
    offset: u64,
    keys: Vec<u64>,
    values: Vec<u64>,
    raw: u64,
    canonical: u64,
    image: Option<u64>,
}

impl Wire for Member {
    fn wire_bytes(&self) -> u64 {
        36 + self.ext.wire_bytes()
            + self.keys.wire_bytes()
            + self.values.wire_bytes()
            + self.image.wire_bytes()
    }
}

/// A member pair: `(a, b, shared, estimate, exact)`.
type PairRow = (u32, u32, Option<u32>, Option<f64>, Option<f64>);

/// What a group's owner found, to worker 0.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct GroupResult {
    clusters: Vec<(Vec<u32>, u32)>,
    pairs: Vec<PairRow>,
    edges: u64,
    /// Pairs exact verification removed.
    verify_removed: u64,
    /// LSH candidate pairs before the filtering pass.
    candidates: u64,
    components: u64,
    largest_component: u64,
    /// The members' external ids.
    ids: Vec<(u32, String)>,
    /// A deduplication's removals among the members.
    removals: Vec<RemovalRow>,
}

/// A removed document: `(document, the kept one it resembles, score, kind, reason)`.
type RemovalRow = (u32, u32, Option<f64>, ScoreKind, Reason);

impl Wire for GroupResult {
    fn wire_bytes(&self) -> u64 {
        let c: u64 = self
            .clusters
            .iter()
            .map(|c| 12 + 4 * c.0.len() as u64)
            .sum();
        let ids: u64 = self.ids.iter().map(|i| 12 + i.1.len() as u64).sum();
        48 + c + 35 * self.pairs.len() as u64 + ids + 19 * self.removals.len() as u64
    }
}

/// What a worker counted and moved in each stage, sent to worker 0 at the end.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct WorkerCounts {
    worker: usize,
    stats: SketchStats,
    documents: u64,
    incidences: u64,
    collapse: CollapseSummary,
    /// Elements whose posting lists it held, and what it kept and dropped.
    context_rows: u64,
    dropped_rare: u64,
    dropped_common: u64,
    /// Per stage, in order.
    stages: Vec<Lap>,
    peak_rss_bytes: Option<u64>,
    /// A deduplication's kept records written in this worker's part.
    kept_written: u64,
    /// The passes of the rows stage (more than one under a tight memory budget).
    row_passes: u64,
    /// The passes of the ids check (more than one under a tight memory budget).
    id_passes: u64,
}

impl Wire for WorkerCounts {
    fn wire_bytes(&self) -> u64 {
        256 + self
            .stages
            .iter()
            .map(|s| 40 + s.name.len() as u64 + 8 * s.bytes_to.len() as u64)
            .sum::<u64>()
    }
}

/// What each worker reports at the end.
type Counts = WorkerCounts;

/// An error every worker meets at the same point (decided from what all of them sent, or
/// from the job alone): worker 0 returns it at once, and every other worker first waits in
/// a round worker 0 never joins, so no process ends (closing its connections, which stops
/// the others with a lost peer) before process 0 has the error to report. They stop when
/// process 0 does.
fn together(rounds: &mut Rounds<'_>, e: Error) -> Error {
    if rounds.index() != 0 {
        rounds.all_gather(0u64);
    }
    e
}

/// Spreads a key over the workers.
fn spread(x: u64) -> Target {
    (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as Target
}

/// Bytes a worker holds per incidence of a pass of the rows stage: the incidences it
/// sends, their encoding in flight, and the ones it receives and sorts.
const ROW_BYTES: u64 = 64;

/// The pass of the rows stage that takes key `k` (of `passes`): a hash independent of
/// [`spread`]'s, so each pass spreads over every worker.
fn slice(k: u64, passes: u64) -> u64 {
    ((k ^ 0x5851_F42D_4C95_7F2D).wrapping_mul(0xD6E8_FEB8_6659_FD93) >> 40) % passes
}

/// The passes (or rounds) every worker makes so that none holds more than `share` bytes of
/// its `bytes` in one: the most any worker needs (one round of gathering), 1 without a
/// share.
fn passes_for(rounds: &mut Rounds<'_>, bytes: u64, share: Option<u64>) -> u64 {
    let Some(share) = share else {
        return 1;
    };
    let most = (rounds.all_gather(bytes).into_iter())
        .map(|(_, n)| n)
        .max()
        .unwrap_or(0);
    most.div_ceil(share.max(1)).max(1)
}

/// The worker counting the pairs whose smaller DocId is `d` (a hash, so that the low
/// DocIds, which have the most pairs after them, spread over every worker).
fn pair_owner(d: u32, peers: usize) -> Target {
    spread(u64::from(d)) % peers
}

/// The worker holding DocId `d`: the last of the ranges starting at or before it.
fn owner_of(starts: &[u64], d: u32) -> Target {
    starts.partition_point(|&s| s <= u64::from(d)) - 1
}

/// The shared inputs of every worker.
pub(super) struct Plan {
    pub path: PathBuf,
    pub job: Job,
    pub params: SketchParams,
    /// The corpus's sketcher, made once for every worker of the process.
    pub sketcher: Sketcher,
    pub per_process: usize,
    /// A deduplication: its choice is made per group, and the first worker of each process
    /// writes the kept records of the process's ranges into this directory.
    pub dedup: Option<(Dedup, PathBuf)>,
}

/// What worker 0 of process 0 assembles.
pub(super) struct Assembled {
    pub output: ClusterOutput,
    pub ext_ids: Vec<String>,
    pub stats: SketchStats,
    pub per_process: Vec<super::ProcessReport>,
    /// A deduplication's removal of every removed document, by DocId.
    pub removed: Option<Vec<Option<Removal>>>,
}

/// What a worker measured in one stage.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Lap {
    name: String,
    seconds: f64,
    /// Bytes sent to each process.
    bytes_to: Vec<u64>,
    /// The stage's own count.
    count: u64,
    /// The process's peak resident memory when the stage ended (a high-water mark: the
    /// stage that raised it is the first whose figure is the process's peak).
    peak_rss_bytes: Option<u64>,
}

/// One stage's clock and traffic.
struct Stages {
    t: Instant,
    list: Vec<Lap>,
}

impl Stages {
    fn lap(&mut self, name: &str, rounds: &mut Rounds<'_>, count: u64) {
        let now = Instant::now();
        let Traffic { bytes_to } = rounds.take_traffic();
        self.list.push(Lap {
            name: name.to_string(),
            seconds: (now - self.t).as_secs_f64(),
            bytes_to,
            count,
            peak_rss_bytes: crate::spill::peak_rss_bytes(),
        });
        self.t = now;
        // A fail point for the fail-stop tests: this process dies (SIGKILL) as it leaves
        // the stage, in the middle of the run for the others.
        #[cfg(feature = "failpoints")]
        fail::fail_point!(
            &format!("dataflow-after-{}", name.replace(' ', "-")),
            |_| {
                // SAFETY: raise only sends a signal to this process.
                unsafe { libc::raise(libc::SIGKILL) };
                unreachable!("SIGKILL ends the process")
            }
        );
    }
}

/// The stages of one worker; `Some` on worker 0 (of process 0).
pub(super) fn run_worker(rounds: &mut Rounds<'_>, plan: &Plan) -> Result<Option<Assembled>> {
    let me = rounds.index();
    let peers = rounds.peers();
    let job = &plan.job;
    let pipeline = job.pipeline();
    let path = &plan.path;
    let mut stages = Stages {
        t: Instant::now(),
        list: Vec::new(),
    };

    // 1. Sketch: the ranges' counts place each range; each worker keeps its documents.
    let share = Share {
        index: me as u32,
        count: peers as u32,
    };
    let (start, end) = byte_range(path, share)?;
    let count = count_range(path, &pipeline.corpus, start, end)?;
    let all = rounds.all_gather(RangeMsg { start, end, count });
    let ranges: Vec<(u64, u64)> = all.iter().map(|(_, r)| (r.start, r.end)).collect();
    let counts: Vec<RangeCount> = all.iter().map(|(_, r)| r.count).collect();
    let placed = place_ranges(&ranges, &counts);
    let starts: Vec<u64> = placed.iter().map(|r| r.first_doc).collect();
    let n_docs: u64 = counts.iter().map(|c| c.docs).sum();
    if n_docs > u64::from(u32::MAX) {
        let e = Error::Limit(format!(
            "{}: more than {} documents",
            path.display(),
            u32::MAX
        ));
        return Err(together(rounds, e));
    }
    let sketcher = &plan.sketcher;
    let scheme = plan.params.sketch.scheme;
    let lexical = job.equivalence() == Equivalence::Lexical;
    let spill = job.spill_config();
    // Under a budget the keys wait on disk; each worker of a process gets its share.
    let worker_budget = spill.budget.map(|b| b.0 / plan.per_process.max(1) as u64);
    let spill_dir = worker_budget.map(|_| spill.dir());
    let mut docs: Vec<Doc> = Vec::new();
    let mut held = Held::new(spill_dir.as_deref())?;
    let stats = sketch_share(
        path,
        pipeline,
        sketcher,
        Split::Range(placed[me]),
        &mut |b: SketchBatch| {
            let SketchBatch {
                first,
                ext_ids,
                images,
                raw_fingerprints,
                canonical_fingerprints,
                lines,
                offsets,
                ..
            } = b;
            for (i, (ext, img)) in ext_ids.into_iter().zip(images).enumerate() {
                let image = if lexical {
                    None
                } else {
                    image_fingerprint(&img)
                };
                let mut keys = Vec::new();
                let mut values = Vec::new();
                if scheme.is_positional() {
                    img.keys(scheme, &mut keys);
                    values = img.into_values();
                } else {
                    keys = img.into_values();
                }
                keys.sort_unstable();
                keys.dedup();
                held.push(keys, values)?;
                docs.push(Doc {
                    id: first + i as u32,
                    ext,
                    line: lines.get(i).copied().unwrap_or(0),
                    offset: offsets.get(i).copied().unwrap_or(0),
                    raw: raw_fingerprints[i],
                    canonical: canonical_fingerprints[i],
                    image,
                });
            }
            Ok(())
        },
    )?;
    let n_here = docs.len() as u64;
    // The exact join's keys are the documents' full shingle sets, read again at their
    // offsets in this worker's range (under a budget a block of documents at a time).
    if job.cluster_config().method.reads() == Reads::Sets {
        let offsets: Vec<u64> = docs.iter().map(|d| d.offset).collect();
        let ids: Vec<String> = docs.iter().map(|d| d.ext.clone()).collect();
        let block = if held.on_disk() {
            4096
        } else {
            docs.len().max(1)
        };
        let mut sets_held = Held::new(spill_dir.as_deref())?;
        for from in (0..docs.len()).step_by(block) {
            let to = (from + block).min(docs.len());
            let wanted: Vec<DocId> = (from as u32..to as u32).map(DocId).collect();
            let mut sets = crate::sketch::pipeline::shingle_sets_at(
                path,
                &pipeline.corpus,
                &pipeline.text,
                &plan.params.shingle,
                &wanted,
                &offsets,
                Some(&ids),
            )?
            .ok_or_else(|| {
                Error::Distributed(format!(
                    "{}: the documents cannot be read again at their offsets",
                    path.display()
                ))
            })?;
            sets.sort_unstable_by_key(|s| s.0);
            if sets.len() != to - from {
                return Err(Error::Distributed(format!(
                    "{}: {} of {} documents read again at their offsets",
                    path.display(),
                    sets.len(),
                    to - from
                )));
            }
            for (_, set) in sets {
                sets_held.push(set, Vec::new())?;
            }
        }
        held = sets_held;
    }
    let incidences: u64 = (0..held.len()).map(|i| held.keys_len(i) as u64).sum();
    stages.lap("read and sketch", rounds, n_here);

    // 2. Ids: the owner of an id's hash checks its ids in DocId order; under a budget in
    // passes, each over a slice of the hashes (every occurrence of an id is in the same
    // pass), so that a pass's ids take at most a quarter of a worker's share.
    let check_ids = pipeline.corpus.format_of(path)? == Format::Jsonl
        && pipeline.corpus.duplicate_ids == DuplicateIds::Error;
    let mut id_passes = 0;
    if check_ids {
        let id_bytes: u64 = docs.iter().map(|d| ID_MSG_BYTES + d.ext.len() as u64).sum();
        id_passes = passes_for(rounds, id_bytes, worker_budget.map(|b| b / 4));
        let mut dup: Option<(u64, String, u64)> = None;
        let mut checked = 0u64;
        for pass in 0..id_passes {
            let msgs: Vec<IdMsg> = (docs.iter())
                .filter_map(|d| {
                    let hash = xxhash_rust::xxh3::xxh3_64(d.ext.as_bytes());
                    (id_passes == 1 || slice(hash, id_passes) == pass).then(|| IdMsg {
                        hash,
                        doc: d.id,
                        line: d.line,
                        id: d.ext.clone(),
                    })
                })
                .collect();
            let mut mine = rounds.exchange(msgs, |m: &IdMsg| spread(m.hash));
            mine.sort_unstable_by_key(|m| m.doc);
            checked += mine.len() as u64;
            let mut check = IdCheck::new(DuplicateIds::Error);
            let mut first_line: hashbrown::HashMap<&str, u64> = hashbrown::HashMap::new();
            for m in &mine {
                let mut id = m.id.clone();
                if check.check(&mut id).is_err() {
                    let first = first_line.get(m.id.as_str()).copied().unwrap_or(0);
                    // The earliest repeat over the passes, as one pass finds it.
                    let found = (m.line, m.id.clone(), first);
                    if dup.as_ref().is_none_or(|d| found < *d) {
                        dup = Some(found);
                    }
                    break;
                }
                first_line.insert(m.id.as_str(), m.line);
            }
        }
        let found = rounds.all_gather(DupMsg(dup));
        if let Some((line, id, first)) = found.into_iter().filter_map(|(_, d)| d.0).min() {
            let e = crate::corpus::duplicate_id_error(path, line, &id, first);
            return Err(together(rounds, e));
        }
        stages.lap("ids", rounds, checked);
    }

    // 3. Collapse: by image fingerprint (else canonical), one class per group.
    let prints: Vec<PrintMsg> = docs
        .iter()
        .map(|d| PrintMsg {
            key: match d.image {
                Some(f) => (true, f),
                None => (false, d.canonical),
            },
            doc: d.id,
            raw: d.raw,
            canonical: d.canonical,
        })
        .collect();
    let mut got = rounds.exchange(prints, |m: &PrintMsg| spread(m.key.1 ^ u64::from(m.key.0)));
    got.sort_unstable_by_key(|m| (m.key, m.doc));
    let mut collapse_sum = CollapseSummary::default();
    let mut folded: Vec<Folded> = Vec::new();
    let mut classes: Vec<(u32, u32)> = Vec::new();
    for g in got.chunk_by(|a, b| a.key == b.key) {
        if g.len() < 2 {
            continue;
        }
        let raws: Vec<u64> = g.iter().map(|m| m.raw).collect();
        let canons: Vec<u64> = g.iter().map(|m| m.canonical).collect();
        let imgs: Vec<Option<u64>> = g.iter().map(|m| m.key.0.then_some(m.key.1)).collect();
        let c = collapse(&raws, &canons, &imgs)?;
        add_collapse(&mut collapse_sum, c.summary());
        for (i, m) in g.iter().enumerate() {
            let rep = g[c.rep(DocId(i as u32)).index()].doc;
            if rep != m.doc {
                folded.push(Folded { doc: m.doc, rep });
                classes.push((rep, m.doc));
            }
        }
    }
    let n_folded = folded.len() as u64;
    let starts_r = starts.clone();
    let mut mine_folded = rounds.exchange(folded, move |f: &Folded| owner_of(&starts_r, f.doc));
    mine_folded.sort_unstable_by_key(|f| f.doc);
    let is_rep = |d: &Doc| mine_folded.binary_search_by_key(&d.id, |f| f.doc).is_err();
    stages.lap("collapse", rounds, n_folded);

    // The method's translation of the threshold, from a run of the method on one document
    // with an image of the run's size (empty when every image is: then the methods that
    // infer the size from the images see none).
    let nonempty: u64 = (0..held.len()).filter(|&i| held.keys_len(i) > 0).count() as u64;
    let any = rounds.all_gather(nonempty).iter().any(|(_, c)| *c > 0);
    let n = plan.params.sketch.size;
    let kind = image_kind(scheme).expect("not mod-m: checked by gathered_because");
    let threshold = job.threshold_at(n);
    let mut cfg = *job.cluster_config();
    cfg.threshold = threshold;
    cfg.image_kind = kind;
    cfg.max_pairs = None;
    let rule = header(&cfg, scheme, n, any, job).and_then(|head| {
        let rule = candidate_rule(&cfg, &head, scheme, n)?.ok_or_else(|| {
            Error::config(format!("{} has no candidate rule to divide by", cfg.method))
        })?;
        Ok((head, rule))
    });
    let (head, rule) = rule.map_err(|e| together(rounds, e))?;

    // 4. Rows: the candidate rule's keys of the representatives (image elements; band keys
    // for lsh; super shingles), by key; under a budget in passes, each over a slice of the
    // keys, so that a pass's incidences fit in half of a worker's budget.
    let meta = (docs.iter())
        .map(|d| (std::mem::size_of::<Doc>() + 16 + d.ext.len()) as u64)
        .sum::<u64>();
    let needs = rounds.all_gather((incidences, meta));
    let passes = match worker_budget {
        None => 1,
        Some(b) => {
            let most_meta = needs.iter().map(|(_, n)| n.1).max().unwrap_or(0);
            if most_meta > b / 2 {
                let e = Error::Budget(format!(
                    "{}: a worker holds {} KiB of per-document data (ids, offsets, \
                     fingerprints) for its share of the documents, more than half of its \
                     {} KiB of the memory budget ({} a process): run more processes or give \
                     a larger budget",
                    path.display(),
                    most_meta.div_ceil(1 << 10),
                    b >> 10,
                    spill.budget.expect("a worker budget comes from the budget"),
                ));
                return Err(together(rounds, e));
            }
            let most = needs.iter().map(|(_, n)| n.0).max().unwrap_or(0);
            (most * ROW_BYTES)
                .div_ceil((b / 2 - most_meta).max(1))
                .max(1)
        }
    };
    let mut n_inc = 0u64;
    // Only the context methods filter rows by document frequency.
    let ccfg = match rule {
        CandidateRule::Elements { .. } => job.cluster_config().context,
        _ => ContextConfig {
            min_df: 1,
            max_df: None,
        },
    };
    let max_df = ccfg.max_df.unwrap_or(u32::MAX) as usize;
    let (mut kept, mut rare, mut common) = (0u64, 0u64, 0u64);
    let mut dropped_shared: Vec<u64> = Vec::new();
    let elements = rule.is_prefix_filtered();
    // The context methods: each kept element shared by two documents or more goes back to
    // its documents' owners with its document frequency (for the prefix filter below).
    // The others: a row shared by two documents or more goes, once, to the owner of each
    // of its documents but the last (the owners of the pairs' smaller DocIds).
    // Each pass's elements with their frequencies reach their documents' owners as the
    // pass ends: one sorted run a pass, on disk under a budget.
    let mut df_runs = DfRuns::new(spill_dir.as_deref())?;
    let mut to_owners: Vec<RowMsg> = Vec::new();
    for pass in 0..passes {
        let mut dfs: Vec<DfMsg> = Vec::new();
        let mut inc: Vec<(u64, u32)> = Vec::new();
        held.for_each(|i, keys, values| {
            let d = &docs[i];
            if is_rep(d) {
                inc.extend(
                    (rule.keys(keys, values).into_iter())
                        .filter(|&k| passes == 1 || slice(k, passes) == pass)
                        .map(|k| (k, d.id)),
                );
            }
            Ok(())
        })?;
        n_inc += inc.len() as u64;
        let mut rows = rounds.exchange(inc, |x: &(u64, u32)| spread(x.0));
        rows.sort_unstable();
        for r in rows.chunk_by(|a, b| a.0 == b.0) {
            let df = r.len();
            if df < ccfg.min_df as usize {
                rare += 1;
            } else if df > max_df {
                common += 1;
            } else {
                kept += 1;
                if df < 2 {
                    continue;
                }
                if elements {
                    dfs.extend(r.iter().map(|x| DfMsg {
                        doc: x.1,
                        key: x.0,
                        df: df as u32,
                    }));
                    continue;
                }
                to_pair_owners(r.iter().map(|x| x.1).collect(), peers, &mut to_owners);
                continue;
            }
            if df >= 2 {
                dropped_shared.push(r[0].0);
            }
        }
        drop(rows);
        if elements {
            let starts_d = starts.clone();
            let got = rounds.exchange(dfs, move |m: &DfMsg| owner_of(&starts_d, m.doc));
            df_runs.add_run(got)?;
        }
    }
    stages.lap("rows", rounds, n_inc);
    let dropped_all = rounds.all_gather(dropped_shared);
    let mut dropped: Vec<u64> = dropped_all.into_iter().flat_map(|(_, v)| v).collect();
    dropped.sort_unstable();

    // 5. Pairs, counted exactly, kept at k shared keys or more.
    let k = rule.min_shared();
    let (edges, n_candidates) = if elements {
        let size = |doc: u32| {
            docs.binary_search_by_key(&doc, |d| d.id)
                .map_or(0, |i| held.keys_len(i))
        };
        let link = match rule {
            CandidateRule::Resemblance { t } => Link::Resemblance { t },
            _ => Link::Shared { k },
        };
        // Under a budget the keys' lists go to their pair owners in rounds of at most a
        // quarter of a worker's share, and wait there on disk.
        let lists = Lists {
            spill_dir: spill_dir.as_deref(),
            round_bytes: worker_budget.map(|b| b / 4),
        };
        prefix_pairs(rounds, df_runs, link, &size, peers, me, lists)?
    } else {
        let held = rounds.exchange(to_owners, |r: &RowMsg| r.to as Target);
        count_pairs(&held, peers, me, k)
    };
    stages.lap("pairs", rounds, n_candidates);

    // 6. Components: each worker's spanning forest and the collapse classes, to worker 0.
    let mut forest = spanning_forest(&edges);
    forest.extend(classes);
    let n_forest = forest.len() as u64;
    let at_zero = rounds.exchange(forest, |_: &(u32, u32)| 0);
    let placements: Vec<(u32, (u32, u32))> = if me == 0 {
        place_groups(at_zero, peers)
    } else {
        Vec::new()
    };
    let starts_p = starts.clone();
    let mut placed_here = rounds.exchange(placements, move |p: &(u32, (u32, u32))| {
        owner_of(&starts_p, p.0)
    });
    placed_here.sort_unstable();
    stages.lap("components", rounds, n_forest);

    // 7. Per group: the members' records to the group's owner, the method run there.
    let mut members: Vec<Member> = Vec::with_capacity(placed_here.len());
    // A document is in one group at most: its record moves into the message.
    for &(doc, (group, owner)) in &placed_here {
        let i = docs.binary_search_by_key(&doc, |d| d.id).map_err(|_| {
            Error::Distributed(format!("document {doc} placed on the wrong worker"))
        })?;
        let (keys, values) = held.take(i)?;
        let d = &mut docs[i];
        members.push(Member {
            group,
            owner,
            doc,
            ext: std::mem::take(&mut d.ext),
            offset: d.offset,
            keys,
            values,
            raw: d.raw,
            canonical: d.canonical,
            image: d.image,
        });
    }
    drop(docs);
    drop(held);
    let n_members = members.len() as u64;
    let mut mine_members = rounds.exchange(members, |m: &Member| m.owner as Target);
    mine_members.sort_unstable_by_key(|m| (m.group, m.doc));
    cfg.context = ContextConfig {
        min_df: 1,
        max_df: None,
    };
    let mut results: Vec<GroupResult> = Vec::new();
    let mut members = mine_members.into_iter().peekable();
    while let Some(first) = members.next() {
        let mut g = vec![first];
        while let Some(m) = members.next_if(|m| m.group == g[0].group) {
            g.push(m);
        }
        results.push(run_group(g, &cfg, &dropped, n, job, plan, &rule)?);
    }
    stages.lap("per group", rounds, n_members);

    // 7b. A deduplication's kept records: the removed DocIds go to the first worker of the
    // process holding them, which writes the kept records of the process's ranges.
    let mut kept_written = 0u64;
    if let Some((_, out)) = &plan.dedup {
        let per = plan.per_process.max(1);
        let gone: Vec<u32> = (results.iter())
            .flat_map(|r| r.removals.iter().map(|x| x.0))
            .collect();
        let starts_k = starts.clone();
        let mut gone = rounds.exchange(gone, move |d: &u32| owner_of(&starts_k, *d) / per * per);
        gone.sort_unstable();
        if me.is_multiple_of(per) {
            let p = me / per;
            let ranges = &placed[me..(me + per).min(placed.len())];
            kept_written =
                write_kept_part(path, &pipeline.corpus, ranges, &gone, out, p)?.documents;
        }
        stages.lap("write part", rounds, kept_written);
    }

    // 8. Results and counts to worker 0.
    let n_results: u64 = results.iter().map(|r| r.clusters.len() as u64).sum();
    let results = rounds.exchange(results, |_: &GroupResult| 0);
    stages.lap("results", rounds, n_results);
    let counts = Counts {
        worker: me,
        stats,
        documents: n_here,
        incidences,
        collapse: collapse_sum,
        context_rows: kept,
        dropped_rare: rare,
        dropped_common: common,
        stages: std::mem::take(&mut stages.list),
        peak_rss_bytes: crate::spill::peak_rss_bytes(),
        kept_written,
        row_passes: passes,
        id_passes,
    };
    let all_counts = rounds.exchange(vec![counts], |_: &Counts| 0);
    if me != 0 {
        return Ok(None);
    }
    let mut all_counts = all_counts;
    all_counts.sort_by_key(|c| c.worker);
    let assembled = assemble(
        n_docs as usize,
        results,
        &all_counts,
        job,
        head,
        rule.is_context(),
        plan.per_process,
        plan.dedup.is_some(),
    )?;
    Ok(Some(assembled))
}

/// A row, to the owner of some of its documents.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct RowMsg {
    to: u32,
    docs: Vec<u32>,
}

impl Wire for RowMsg {
    fn wire_bytes(&self) -> u64 {
        12 + 4 * self.docs.len() as u64
    }
}

/// `docs` (a row's documents, ascending) once to each pair owner of its documents but the
/// last: the workers that pair those documents with the ones after them.
fn to_pair_owners(docs: Vec<u32>, peers: usize, out: &mut Vec<RowMsg>) {
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

/// The edges `(a, b)`, `a < b`, with `a`'s pairs counted by worker `me`, whose documents share at
/// least `k` of `rows` (each row ascending), and the candidate pairs counted.
fn count_pairs(rows: &[RowMsg], peers: usize, me: usize, k: u32) -> (Vec<(u32, u32)>, u64) {
    // (document, row, its position in the row), for the documents held here.
    let mut at: Vec<(u32, u32, u32)> = Vec::new();
    for (ri, r) in rows.iter().enumerate() {
        for (i, &d) in r.docs[..r.docs.len() - 1].iter().enumerate() {
            if pair_owner(d, peers) == me {
                at.push((d, ri as u32, i as u32));
            }
        }
    }
    at.sort_unstable();
    let mut edges = Vec::new();
    let mut candidates = 0u64;
    let mut count: hashbrown::HashMap<u32, u32> = hashbrown::HashMap::new();
    let mut found: Vec<u32> = Vec::new();
    for runs in at.chunk_by(|x, y| x.0 == y.0) {
        count.clear();
        for &(_, ri, i) in runs {
            for &b in &rows[ri as usize].docs[i as usize + 1..] {
                *count.entry(b).or_insert(0) += 1;
            }
        }
        candidates += count.len() as u64;
        found.clear();
        found.extend(count.iter().filter(|e| *e.1 >= k).map(|e| *e.0));
        found.sort_unstable();
        edges.extend(found.iter().map(|&b| (runs[0].0, b)));
    }
    (edges, candidates)
}

/// A document's shared kept elements (ascending), to the worker counting its pairs, or to
/// one that asked for them.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct KeysMsg {
    to: u32,
    doc: u32,
    /// Its full set's size (the keys held by it alone included).
    size: u32,
    keys: Vec<u64>,
}

impl Wire for KeysMsg {
    fn wire_bytes(&self) -> u64 {
        12 + self.keys.wire_bytes()
    }
}

/// When two documents of the prefix filter are linked.
#[derive(Clone, Copy, Debug)]
enum Link {
    /// Sharing at least `k` keys (image elements).
    Shared { k: u32 },
    /// Full shingle sets of resemblance at least `t` (the exact join).
    Resemblance { t: f64 },
}

impl Link {
    /// The prefix length of a document of `size` keys in the global order.
    fn prefix(self, size: usize) -> usize {
        match self {
            Link::Shared { k } => (size + 1).saturating_sub(k.max(1) as usize),
            Link::Resemblance { t } if size > 0 => crate::cluster::exact::prefix_len(size, t),
            Link::Resemblance { .. } => 0,
        }
    }

    /// Whether documents of `sa` and `sb` keys sharing `shared` are linked.
    fn holds(self, shared: usize, sa: usize, sb: usize) -> bool {
        match self {
            Link::Shared { k } => shared >= k.max(1) as usize,
            Link::Resemblance { t } => crate::cluster::exact::passes(shared, sa + sb - shared, t),
        }
    }
}

/// Where [`prefix_pairs`] keeps the documents' lists at their pair owners: in memory, or
/// under a budget in a spill file under `spill_dir`, sent in rounds of about `round_bytes`.
struct Lists<'a> {
    spill_dir: Option<&'a Path>,
    round_bytes: Option<u64>,
}

/// Bytes a key of a list takes while it is exchanged: the message sent, its encoding and
/// the message received.
const LIST_KEY_BYTES: u64 = 24;

/// The edges of the context methods by prefix filtering, exactly. `dfs` are this worker's
/// documents' shared kept elements `x(d)` (kept, held by two documents or more) with their
/// document frequencies. Two documents sharing `k` of them share one among the first
/// `|x(d)| - k + 1` of each in any fixed order of the elements; in the order (document
/// frequency, element) those prefixes hold the rare elements, so few pairs are candidates.
/// The prefix incidences go to the elements' owners, which send each prefix row on to the
/// pair owners of its documents (all but the last); the owner of `a` pairs it with the
/// row's later documents `b` (so a hot row is paired by many workers); that worker also holds
/// `x(a)` (sent to it here), asks `b`'s pair owner for `x(b)` once, and counts the shared
/// elements by merging the two lists. For the exact join (`Link::Resemblance`) the keys are
/// the full shingle sets, the prefix is [`crate::cluster::exact::prefix_len`] of the full
/// set (whose keys held by the document alone come first in the order, and pair nothing),
/// and a candidate is linked when the resemblance of the full sets passes. `size` gives
/// the full key count of this worker's documents. The lists are sent and held as `lists`
/// says; every worker makes the same number of rounds. Returns its edges and the
/// candidates it counted.
#[allow(clippy::too_many_arguments)]
fn prefix_pairs(
    rounds: &mut Rounds<'_>,
    dfs: DfRuns,
    link: Link,
    size: &dyn Fn(u32) -> usize,
    peers: usize,
    me: usize,
    lists: Lists<'_>,
) -> Result<(Vec<(u32, u32)>, u64)> {
    let n_rounds = passes_for(rounds, dfs.len() * LIST_KEY_BYTES, lists.round_bytes);
    let per_round = dfs.len().div_ceil(n_rounds).max(1);
    // The lists this worker pairs, by document: (document, its entry in `stored`, size).
    let mut stored = Held::new(lists.spill_dir)?;
    let mut index: Vec<(u32, u32, u32)> = Vec::new();
    let mut send = |rounds: &mut Rounds<'_>, out: Vec<KeysMsg>| -> Result<()> {
        let mut got = rounds.exchange(out, |m: &KeysMsg| m.to as Target);
        got.sort_unstable_by_key(|m| m.doc);
        for m in got {
            index.push((m.doc, stored.len() as u32, m.size));
            stored.push(m.keys, Vec::new())?;
        }
        Ok(())
    };
    let mut prefix: Vec<(u64, u32)> = Vec::new();
    let mut out: Vec<KeysMsg> = Vec::new();
    let (mut pending, mut sent_rounds) = (0u64, 0u64);
    dfs.for_each_doc(|doc, x| {
        // The keys held by this document alone come first in the order: the prefix
        // takes what is left of its length.
        let full = size(doc);
        let take = link
            .prefix(full)
            .saturating_sub(full - x.len())
            .min(x.len());
        if take == 0 {
            return Ok(());
        }
        prefix.extend(x[..take].iter().map(|m| (m.key, doc)));
        let mut keys: Vec<u64> = x.iter().map(|m| m.key).collect();
        keys.sort_unstable();
        pending += keys.len() as u64;
        out.push(KeysMsg {
            to: pair_owner(doc, peers) as u32,
            doc,
            size: full as u32,
            keys,
        });
        if pending >= per_round && sent_rounds + 1 < n_rounds {
            send(rounds, std::mem::take(&mut out))?;
            sent_rounds += 1;
            pending = 0;
        }
        Ok(())
    })?;
    while sent_rounds < n_rounds {
        send(rounds, std::mem::take(&mut out))?;
        sent_rounds += 1;
    }
    index.sort_unstable();
    let mut prefix = rounds.exchange(prefix, |x: &(u64, u32)| spread(x.0));
    prefix.sort_unstable();
    // Each prefix row goes on to the pair owners of its documents but the last, which pair
    // their own documents with the later ones: a row held by many documents is paired by
    // many workers, not by its key's owner alone.
    let mut rows: Vec<RowMsg> = Vec::new();
    for r in prefix.chunk_by(|a, b| a.0 == b.0) {
        if r.len() >= 2 {
            to_pair_owners(r.iter().map(|x| x.1).collect(), peers, &mut rows);
        }
    }
    drop(prefix);
    let rows = rounds.exchange(rows, |r: &RowMsg| r.to as Target);
    // The candidates `(a, b)` of this worker's `a`s, sorted and distinct.
    let (cands, _) = count_pairs(&rows, peers, me, 1);
    drop(rows);
    // The other documents' lists, asked for once from their pair owners.
    let mut wanted: Vec<u32> = cands
        .iter()
        .map(|p| p.1)
        .filter(|&b| pair_owner(b, peers) != me)
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let asks: Vec<(u32, u32)> = wanted.into_iter().map(|b| (b, me as u32)).collect();
    let asks = rounds.exchange(asks, move |a: &(u32, u32)| pair_owner(a.0, peers));
    let find = |d: u32| -> Option<(u32, u32)> {
        let i = index.binary_search_by_key(&d, |e| e.0).ok()?;
        Some((index[i].1, index[i].2))
    };
    let mut answers: Vec<KeysMsg> = Vec::new();
    for (b, to) in asks {
        if let Some((at, size)) = find(b) {
            answers.push(KeysMsg {
                to,
                doc: b,
                size,
                keys: stored.get(at as usize)?.0,
            });
        }
    }
    let mut fetched = rounds.exchange(answers, |m: &KeysMsg| m.to as Target);
    fetched.sort_unstable_by_key(|m| m.doc);
    let mut list = |d: u32| -> Result<(Vec<u64>, usize)> {
        if pair_owner(d, peers) == me {
            match find(d) {
                Some((at, size)) => Ok((stored.get(at as usize)?.0, size as usize)),
                None => Ok((Vec::new(), 0)),
            }
        } else {
            Ok(fetched
                .binary_search_by_key(&d, |m| m.doc)
                .map_or((Vec::new(), 0), |i| {
                    (fetched[i].keys.clone(), fetched[i].size as usize)
                }))
        }
    };
    let mut edges = Vec::new();
    // The candidates come by `a`: its list is read once for all its `b`s.
    for run in cands.chunk_by(|x, y| x.0 == y.0) {
        let (ka, sa) = list(run[0].0)?;
        for &(a, b) in run {
            let (kb, sb) = list(b)?;
            if link.holds(crate::sorted::intersection_size(&ka, &kb), sa, sb) {
                edges.push((a, b));
            }
        }
    }
    Ok((edges, cands.len() as u64))
}

/// A byte range and its counts, gathered by every worker.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct RangeMsg {
    start: u64,
    end: u64,
    count: RangeCount,
}

impl Wire for RangeMsg {
    fn wire_bytes(&self) -> u64 {
        32
    }
}

/// A worker's first repeated id: `(line, id, line of its first occurrence)`.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct DupMsg(Option<(u64, String, u64)>);

impl Wire for DupMsg {
    fn wire_bytes(&self) -> u64 {
        1 + self.0.as_ref().map_or(0, |d| 24 + d.1.len() as u64)
    }
}

/// The summary fields that translate the threshold (k, its rule, the image size, LSH's
/// bands and rows), from the method run on one document whose image has the run's size
/// (none when `any` is false: every image of the corpus is empty).
fn header(
    cfg: &ClusterConfig,
    scheme: Scheme,
    n: usize,
    any: bool,
    job: &Job,
) -> Result<ClusterSummary> {
    let image: Vec<u64> = if any {
        (0..n as u64).collect()
    } else {
        Vec::new()
    };
    let keys = vec![image.clone()];
    let values = [image];
    let inputs = ClusterInputs {
        n_docs: 1,
        keys: Some(&keys),
        sets: Some(&keys),
        positional: scheme.is_positional().then_some(&values[..]),
        image_size: Some(n),
        miner: Some(&fp_miner),
        spill: Some(job.spill_config()),
        ..ClusterInputs::default()
    };
    Ok(run_method(&inputs, cfg)?.summary)
}

fn add_collapse(a: &mut CollapseSummary, b: &CollapseSummary) {
    a.classes += b.classes;
    a.removed += b.removed;
    a.identical += b.identical;
    a.lexical += b.lexical;
    a.shingle += b.shingle;
}

/// A spanning forest of `edges`: `(smallest member, member)` for every other member of
/// each connected component.
fn spanning_forest(edges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut ids: Vec<u32> = edges.iter().flat_map(|&(a, b)| [a, b]).collect();
    ids.sort_unstable();
    ids.dedup();
    let at = |d: u32| ids.binary_search(&d).expect("an endpoint") as u32;
    let mut uf = UnionFind::new(ids.len());
    for &(a, b) in edges {
        uf.union(at(a), at(b));
    }
    let mut smallest: hashbrown::HashMap<u32, u32> = hashbrown::HashMap::new();
    for (i, &d) in ids.iter().enumerate() {
        smallest.entry(uf.find(i as u32)).or_insert(d);
    }
    ids.iter()
        .enumerate()
        .filter_map(|(i, &d)| {
            let s = smallest[&uf.find(i as u32)];
            (s != d).then_some((s, d))
        })
        .collect()
}

/// Joins the forests' and classes' links into groups and places them: every member as
/// `(doc, (group, owner))`. Groups are numbered by size descending, then smallest member;
/// each goes to the least loaded worker (by members), the lowest index on ties.
fn place_groups(links: Vec<(u32, u32)>, peers: usize) -> Vec<(u32, (u32, u32))> {
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

/// The method on one group (members sorted by DocId), mapped back to DocIds.
fn run_group(
    g: Vec<Member>,
    cfg: &ClusterConfig,
    dropped: &[u64],
    n: usize,
    job: &Job,
    plan: &Plan,
    rule: &CandidateRule,
) -> Result<GroupResult> {
    // The members' records as the columns the library's inputs take.
    let len = g.len();
    let (mut docs, mut ext_ids, mut offsets) = (
        Vec::with_capacity(len),
        Vec::with_capacity(len),
        Vec::with_capacity(len),
    );
    let (mut keys, mut values) = (Vec::with_capacity(len), Vec::with_capacity(len));
    let (mut raws, mut canons, mut imgs) = (
        Vec::with_capacity(len),
        Vec::with_capacity(len),
        Vec::with_capacity(len),
    );
    for m in g {
        docs.push(m.doc);
        ext_ids.push(m.ext);
        offsets.push(m.offset);
        keys.push(m.keys);
        values.push(m.values);
        raws.push(m.raw);
        canons.push(m.canonical);
        imgs.push(m.image);
    }
    let col = collapse(&raws, &canons, &imgs)?;
    let fps = Fingerprints {
        raw: raws,
        canonical: canons,
    };
    let spill = job.spill_config();
    // The context of the representatives' kept elements (the globally dropped ones left
    // out), for the context methods.
    let ctx = match rule {
        CandidateRule::Elements { .. } => {
            let kept: Vec<Vec<u64>> = keys
                .iter()
                .enumerate()
                .map(|(i, k)| {
                    if !col.is_rep(DocId(i as u32)) {
                        return Vec::new();
                    }
                    k.iter()
                        .copied()
                        .filter(|k| dropped.binary_search(k).is_err())
                        .collect()
                })
                .collect();
            Some(Context::from_doc_keys(&kept, &cfg.context, spill)?)
        }
        _ => None,
    };
    let inputs = ClusterInputs {
        n_docs: len,
        keys: Some(&keys),
        sets: rule.needs_sets().then_some(&keys[..]),
        positional: plan
            .params
            .sketch
            .scheme
            .is_positional()
            .then_some(&values[..]),
        context: ctx.as_ref(),
        image_size: Some(n),
        collapse: Some(&col),
        miner: Some(&fp_miner),
        spill: Some(spill),
        ..ClusterInputs::default()
    };
    let mut out = run_method(&inputs, cfg)?;
    if let Some(t) = job.verified_threshold() {
        let pipeline = job.pipeline();
        let src = CorpusSource {
            path: &plan.path,
            corpus: &pipeline.corpus,
            text: &pipeline.text,
            shingle: &plan.params.shingle,
            offsets: Some(&offsets),
            ext_ids: Some(&ext_ids),
        };
        let regroup = Regroup::for_method(cfg.method, cfg.lsh.grouping == Grouping::UnionFind);
        let budget = spill.budget.map(|b| b.0 / 2);
        verify_with_corpus(&mut out, &src, t, regroup, budget, Some(&col))?;
    }
    let doc = |d: DocId| docs[d.index()];
    let removals = match &plan.dedup {
        None => Vec::new(),
        Some((dedup, _)) => (dedup.choose_group(&col, &out, &fps).into_iter().enumerate())
            .filter_map(|(i, r)| {
                let r = r?;
                let Representative::Doc(m) = r.representative else {
                    unreachable!("no index is looked up in a divided deduplication")
                };
                Some((docs[i], doc(m), r.score, r.kind, r.reason))
            })
            .collect(),
    };
    Ok(GroupResult {
        clusters: out
            .clusters
            .iter()
            .map(|c| (c.docs.iter().map(|&d| doc(d)).collect(), c.support))
            .collect(),
        pairs: out
            .pairs
            .iter()
            .map(|p| (doc(p.a), doc(p.b), p.shared, p.estimate, p.exact))
            .collect(),
        edges: out.summary.edges,
        verify_removed: out.summary.verify_removed.unwrap_or(0),
        candidates: out.summary.candidates.unwrap_or(0),
        components: out.summary.components,
        largest_component: out.summary.largest_component,
        ids: docs.iter().copied().zip(ext_ids).collect(),
        removals,
    })
}

/// Worker 0's merge of the groups' results and the workers' counts into what one process
/// returns.
#[allow(clippy::too_many_arguments)]
fn assemble(
    n_docs: usize,
    results: Vec<GroupResult>,
    counts: &[Counts],
    job: &Job,
    head: ClusterSummary,
    context: bool,
    per_process: usize,
    job_dedup: bool,
) -> Result<Assembled> {
    let cfg = job.cluster_config();
    let n = head.image_size as usize;
    let mut ext_ids = vec![String::new(); n_docs];
    let mut sets: Vec<(Vec<DocId>, u32)> = Vec::new();
    let mut pairs: Vec<ScoredPair> = Vec::new();
    let (mut edges, mut components, mut largest_component) = (0u64, 0u64, 0u64);
    let mut verify_removed = 0u64;
    let mut candidates = head.candidates.map(|_| 0u64);
    // Concept itemsets of components of more than two representatives (mined, not paired).
    let mut mined = 0u64;
    let mut removed: Option<Vec<Option<Removal>>> = job_dedup.then(|| vec![None; n_docs]);
    for r in results {
        if let Some(removed) = &mut removed {
            for (d, m, score, kind, reason) in r.removals {
                removed[d as usize] = Some(Removal {
                    representative: Representative::Doc(DocId(m)),
                    score,
                    kind,
                    reason,
                });
            }
        }
        if r.largest_component > 2 {
            mined += r.clusters.len() as u64;
        }
        for (d, id) in r.ids {
            ext_ids[d as usize] = id;
        }
        sets.extend(
            r.clusters
                .into_iter()
                .map(|(docs, s)| (docs.into_iter().map(DocId).collect(), s)),
        );
        pairs.extend(
            r.pairs
                .into_iter()
                .map(|(a, b, shared, estimate, exact)| ScoredPair {
                    a: DocId(a),
                    b: DocId(b),
                    shared,
                    estimate,
                    exact,
                }),
        );
        edges += r.edges;
        verify_removed += r.verify_removed;
        if let Some(c) = &mut candidates {
            *c += r.candidates;
        }
        components += r.components;
        largest_component = largest_component.max(r.largest_component);
    }
    // The whole run's limits (each group checked its own), as one process checks them.
    cfg.method.check_merged(cfg, mined, sets.len() as u64)?;
    let clusters = finish_clusters(sets);
    pairs.sort_unstable_by_key(|p| (p.a, p.b));
    check_max_pairs(&clusters, cfg.max_pairs)?;
    let mut collapsed = CollapseSummary::default();
    let mut stats = SketchStats::default();
    let (mut rows, mut rare, mut common) = (0, 0, 0);
    if let Some(removed) = &removed {
        let kept = removed.iter().filter(|r| r.is_none()).count() as u64;
        let written: u64 = counts.iter().map(|c| c.kept_written).sum();
        if kept != written {
            return Err(Error::Distributed(format!(
                "the kept parts hold {written} records, not the {kept} documents kept (did the input change?)"
            )));
        }
    }
    for c in counts {
        add_collapse(&mut collapsed, &c.collapse);
        add_stats(&mut stats, &c.stats);
        rows += c.context_rows;
        rare += c.dropped_rare;
        common += c.dropped_common;
    }
    let mut clustered: Vec<DocId> = clusters
        .iter()
        .flat_map(|c| c.docs.iter().copied())
        .collect();
    clustered.sort_unstable();
    clustered.dedup();
    let summary = ClusterSummary {
        method: cfg.method.name().to_string(),
        documents: n_docs as u64,
        representatives: n_docs as u64 - collapsed.removed,
        collapsed,
        threshold: match (job.verified_threshold(), cfg.threshold) {
            (Some(t), _) | (None, Threshold::Resemblance(t)) => Some(t),
            (None, Threshold::MinCommon(_)) => None,
        },
        candidate_threshold: match (job.verified_threshold(), job.threshold_at(n)) {
            (Some(_), Threshold::Resemblance(tc)) => Some(tc),
            _ => None,
        },
        k: head.k,
        k_rule: head.k_rule,
        image_size: head.image_size,
        bands: head.bands,
        rows: head.rows,
        candidates,
        context_rows: context.then_some(rows),
        dropped_common: common,
        dropped_rare: rare,
        edges,
        pairs: pairs.len() as u64,
        verify_removed: job.verifies().then_some(verify_removed),
        clusters: clusters.len() as u64,
        clustered_documents: clustered.len() as u64,
        largest_cluster: clusters
            .iter()
            .map(|c| c.docs.len() as u64)
            .max()
            .unwrap_or(0),
        components,
        largest_component,
        phases: stage_phases(counts),
    };
    Ok(Assembled {
        output: ClusterOutput {
            clusters,
            pairs,
            edges: Vec::new(),
            summary,
        },
        ext_ids,
        stats,
        per_process: process_reports(counts, per_process),
        removed,
    })
}

/// The run's phases: each stage's longest seconds over the workers.
fn stage_phases(counts: &[Counts]) -> Vec<Phase> {
    let mut out: Vec<Phase> = Vec::new();
    for c in counts {
        for lap in &c.stages {
            match out.iter_mut().find(|p| p.name == lap.name) {
                Some(p) => p.seconds = p.seconds.max(lap.seconds),
                None => out.push(Phase {
                    name: lap.name.clone(),
                    seconds: lap.seconds,
                    peak_rss_bytes: None,
                }),
            }
        }
    }
    out
}

/// Per process: documents, incidences, bytes, seconds and counts per stage, peak memory.
fn process_reports(counts: &[Counts], per_process: usize) -> Vec<super::ProcessReport> {
    let processes = counts.len().div_ceil(per_process.max(1));
    let mut out: Vec<super::ProcessReport> = (0..processes)
        .map(|p| super::ProcessReport {
            process: p,
            ..Default::default()
        })
        .collect();
    for c in counts {
        let p = c.worker / per_process.max(1);
        let r = &mut out[p];
        r.documents += c.documents;
        r.incidences += c.incidences;
        r.peak_rss_bytes = r.peak_rss_bytes.max(c.peak_rss_bytes);
        r.row_passes = Some(c.row_passes);
        r.id_passes = (c.id_passes > 0).then_some(c.id_passes);
        for lap in &c.stages {
            let s = r.seconds.entry(lap.name.clone()).or_insert(0.0);
            *s = s.max(lap.seconds);
            let sent: u64 = lap.bytes_to.iter().sum();
            r.bytes_sent += sent;
            let st = r.stages.entry(lap.name.clone()).or_default();
            st.seconds = st.seconds.max(lap.seconds);
            st.bytes_sent += sent;
            st.count += lap.count;
            st.peak_rss_bytes = st.peak_rss_bytes.max(lap.peak_rss_bytes);
        }
    }
    for c in counts {
        let from = c.worker / per_process.max(1);
        for lap in &c.stages {
            for (to, &b) in lap.bytes_to.iter().enumerate() {
                if to != from && to < out.len() {
                    out[to].bytes_received += b;
                    out[to]
                        .stages
                        .entry(lap.name.clone())
                        .or_default()
                        .bytes_received += b;
                }
            }
        }
    }
    out
}
