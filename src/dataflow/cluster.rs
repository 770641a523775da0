//! The cluster stage divided among the workers of every process, for `concept`,
//! `union-find`, `lsh`, `super-shingle` (with or without exact verification) and `exact`
//! by resemblance, on one uncompressed JSONL or plain-lines file cut into byte ranges, one
//! Parquet file cut by row groups, or on a corpus of many files (the shards of a sharded
//! corpus in any format, or a directory of Parquet files), divided by bytes
//! ([`crate::corpus::split::assign_pieces`]: JSONL and plain-lines shards cut or read
//! whole, Parquet shards and a Parquet directory's files cut by row groups, CSV/TSV and
//! WARC shards each read whole by its format's reader; the ids that are positions named
//! as one process names them, [`crate::corpus::shards::Positions`]); verification and
//! deduplication need one line file: no process holds the corpus's images, every process
//! writes its part of each output file, and process 0 receives counters, not the records
//! nor the results.
//!
//! Stages, each a round of exchange by key ([`super::rounds`]) around the library's stage
//! functions over a partition ([`crate::cluster::stages`]; this module and its siblings
//! only route each stage's inputs to their owners and call them):
//! 1. **Sketch**: each worker reads and sketches its pieces of the corpus's files, about
//!    `1/N` of the bytes (for a corpus read by lines the pieces' counts are gathered
//!    first, so each knows its first lines and DocIds; the pieces of other formats, whole
//!    files or a Parquet file's row groups, are read first and their documents renumbered
//!    once the counts are gathered) and
//!    keeps its documents' ids, element keys and fingerprints (the keys in a spill file
//!    under a memory budget, [`crate::context::DocKeys`]). A read error (a corrupt shard)
//!    reaches every worker in one round, and each stops with it.
//! 2. **Ids**: ids are exchanged by their hash; the owner of a hash finds a repeated id with
//!    the same check one process runs, and every worker stops with the error of the
//!    earliest one (under a memory budget in passes over slices of the hashes, each
//!    id's occurrences all in one pass, so that a pass's ids take at most a quarter of a
//!    worker's share).
//! 3. **Collapse**: documents are exchanged by their image fingerprint (by their canonical
//!    fingerprint when the image is empty or the equivalence is lexical): equal raw text
//!    implies equal canonical text implies equal images, so each collapse class is one such
//!    group, and its owner runs [`collapse()`](crate::cluster::collapse()) on it: the same classes and counts.
//! 4. **Rows**: `(key, document)` incidences of the representatives are exchanged by key
//!    (under a memory budget in passes, each over a slice of the keys, sized so that a
//!    pass's incidences take at most half of a worker's part of the budget; every key is
//!    in one pass, so the rows are the same):
//!    the method's candidate rule ([`CandidateRule`], from the method's file) says which
//!    keys (the full shingle sets for exact, read again by each worker at its documents'
//!    offsets in one line file, or otherwise by reading its pieces again as it read them first; image elements for concept and union-find, band keys for lsh, super
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
//!    Stages 4 and 5 are in `pairing.rs`; the prefix and its pair test are the library's
//!    [`crate::context::PrefixFilter`], the df rule [`crate::context::ContextConfig::row_fate`].
//!
//!    With [`Exchange::Prefix`] (`--exchange prefix`) the prefix-filtered rules (concept,
//!    union-find, exact) have no full rows stage: stage 4 sends only each
//!    representative's prefix, its first `|x| - k + 1` elements in element order, the
//!    elements held by 8 or more of some worker's representatives last (each worker
//!    counts its own, all-gathered: a global order that needs no exchange of rows;
//!    [`crate::context::PrefixFilter::element_prefix`]), to the elements' owners, which send each prefix row of two
//!    documents or more on to the pair owners as above; in stage 5 each pair owner asks
//!    the holders of its candidates' documents for their full lists once and tests the
//!    candidates on them as above. No document frequency is counted, so the context's
//!    rows and drops are not ([`check_exchange`] refuses `max-df` and a `min-df` above
//!    2 for concept and union-find: then no shared element is dropped, and the lists and
//!    pairs are the same). The other rules exchange their rows either way.
//! 6. **Components** (`components.rs`): each worker reduces its edges to a spanning forest;
//!    with the collapse classes, they are the edges of rounds of large-star and small-star
//!    ([`crate::cluster::stages::large_star`], [`crate::cluster::stages::small_star`]),
//!    each node at the worker its DocId hashes to, until every component is a star around
//!    its smallest member (its label). A group (a connected component of the edges with
//!    its collapsed members, named by its label) is sized at its label's owner; the big
//!    groups go largest first to the least loaded workers, the others by a hash of their
//!    label ([`crate::cluster::stages::Placement`]). No worker gathers every link.
//! 7. **Per group**: the members' keys and fingerprints go to the group's owner, which runs
//!    the library's method on the group alone ([`crate::cluster::run_method`] on the group's context, with
//!    the globally dropped elements left out), and with `--verify exact` verifies the
//!    group's pairs, reading its members again at their offsets ([`crate::cluster::verify_with_corpus`]), or, over a corpus
//!    not read again at offsets (shards, Parquet), on the full shingle sets the members'
//!    holders read again from their pieces and send after them, in passes that fit the
//!    plan's round share, kept on disk at the owner ([`crate::cluster::stages::CarriedSets`],
//!    [`crate::cluster::verify_output`]): a group is a union of components of the
//!    pair graph, so its clusters and pairs are those of the whole run restricted to it
//!    (see [`crate::cluster::concept`]'s component split; [`crate::cluster::stages::run_group`]).
//!    For a deduplication, the group's owner also makes the choice on the group
//!    ([`crate::dedup::Dedup::choose_group`]: documents outside every group are kept).
//!    With [`super::GiantGroups::Divided`] (`--giant-groups divided`), a concept group
//!    of at least half a worker's share of the documents
//!    ([`crate::cluster::stages::divided_from`]) runs on a thread of its own whose miner
//!    relays its large components ([`crate::cluster::stages::Relay`]): in rounds, every
//!    worker receives them all, mines its part of each one's search
//!    ([`crate::cluster::stages::mine_share`]) and sends it to the component's worker,
//!    which joins the parts ([`crate::cluster::stages::joined_parts`]): the same sets.
//! 8. **Kept parts** (deduplication): the removed DocIds go to the first worker of the
//!    process that read them, which writes the kept records of the process's pieces (byte
//!    ranges of the file or of its shards, or the row groups of Parquet files, in input
//!    order) as the process's part ([`crate::dedup::write_kept_part`]).
//! 9. **Output** (`output.rs`): each group's clusters, pairs and removals become lines
//!    with the external ids they name ([`crate::cluster::stages::group_rows`]), counted;
//!    the counts are all-gathered, so every worker checks the whole run's limits, with a
//!    sample of each worker's keys in each file's order, from which the splitters give
//!    each process a contiguous range of each file; the lines go to their process's first
//!    worker, which orders them as one process does, numbers its clusters after the
//!    earlier parts' (an all-gather of counts) and writes its parts: `clusters.jsonl`,
//!    `pairs.csv` (a clustering) and `removed.csv` (a deduplication) as
//!    `clusters.part-00000.jsonl`, ... (with one process, the files themselves). The
//!    workers' counters and reports then go to worker 0, which fills the summary
//!    ([`crate::cluster::stages::merged_summary`]; the reports in `report.rs`).
//!
//! The messages, their routes and the budget's passes are in `messages.rs`.
//!
//! Invariants: the outputs' parts concatenated in process order (and every summary field
//! but timings, memory and the `distributed` block, and with [`Exchange::Prefix`] the
//! uncounted `context_rows`, `dropped_rare` and `dropped_common`, null) equal the
//! one-process run's files for any number of processes and workers and either exchange (`clusters.jsonl`, `pairs.csv`, a deduplication's
//! `removed.csv` and kept file); a stage's error (a repeated id, a malformed line, a
//! limit) stops every process before any part of the clusters, pairs or removals is
//! written; the other processes return `None`.

use std::path::{Path, PathBuf};

use super::checkpoint::{AfterGroups, AfterPairs, RunDir, CHECKPOINT_STAGE, GROUPS_STAGE};
use super::components::components_stage;
use super::ingest::{check_ids, collapse_stage, read_and_sketch, Local};
use super::messages::{owner_of, together, ComponentMsg, MinedPart, Placed, SetMsg};
use super::output::{write_parts, OutputPlan};
use super::pairing::{pairs_stage, prefix_pairs_stage, prefix_rows_stage, rows_stage};
use super::report::{
    part_counts, process_reports, stage_phases, summary_lap, Stages, WorkerCounts,
};
use super::rounds::{Rounds, Target};
use super::Exchange;
use crate::cluster::stages::{
    divided_from, divided_method, joined_parts, merged_summary, mine_share, run_group,
    spanning_forest, CarriedSets, GroupFound, GroupJob, Member, Relay, Request, Totals,
};
use crate::cluster::{fp_miner, CandidateRule, ClusterConfig, ClusterSummary, Job, Measure, Reads};
use crate::context::DocKeys;
use crate::corpus::shards::Positions;
use crate::corpus::split::{LineRange, Piece};
use crate::corpus::DuplicateIds;
use crate::dedup::{kept_compression, write_kept_part, Dedup, KeptPart, OutFormat};
use crate::sketch::pipeline::SketchStats;
use crate::sketch::{Scheme, SketchParams, Sketcher};
use crate::{Error, Result};

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
        } else if pipeline.sketch.bits.is_some() && cfg.method.reads() == Reads::Elements {
            Some("on b-bit images the pairs come from blocks of positions, not the context")
        } else if let Some(why) = cfg.undivided_because() {
            Some(why)
        } else if pipeline.sketch.scheme == Scheme::ModM || pipeline.sketch.weighting.is_some() {
            Some("the images are mod-m or weighted")
        } else if let Some(why) = corpus_because(job, path)? {
            Some(why)
        } else if pipeline.corpus.duplicate_ids == DuplicateIds::Suffix {
            Some("repeated ids are renamed in input order")
        } else {
            None
        },
    )
}

/// Whether `job` can run with `exchange`: [`Exchange::Prefix`] ranks the elements without
/// their document frequencies, so a context method (concept, union-find) must drop no
/// shared element by them (`min_df` at most 2, no `max_df`).
pub fn check_exchange(job: &Job, exchange: Exchange) -> Result<()> {
    let cfg = job.cluster_config();
    let c = cfg.context;
    if exchange == Exchange::Prefix
        && cfg.method.reads() == Reads::Elements
        && (c.min_df > 2 || c.max_df.is_some())
    {
        return Err(Error::config(format!(
            "--exchange prefix finds the pairs without document frequencies, so {} takes no \
             --max-df and no --min-df above 2 (given: --max-df {}, --min-df {}); drop them or \
             use --exchange rows",
            cfg.method.name(),
            c.max_df.map_or("-".to_string(), |m| m.to_string()),
            c.min_df
        )));
    }
    Ok(())
}

/// Sends the full shingle sets of this worker's placed documents (`placed_here`, each at
/// index `at[k]` of `sets`) to their groups' owners, in passes whose sets fit in a round's
/// share of the worker's `share` at the owner receiving the most
/// ([`crate::plan::carried_set_passes`]); each owner keeps what it received on disk under
/// `spill_dir`, looked up by DocId; with the passes it took.
fn carry_sets(
    rounds: &mut Rounds<'_>,
    placed_here: &[(u32, (u32, u32))],
    at: &[usize],
    sets: &mut DocKeys,
    share: Option<u64>,
    spill_dir: Option<&Path>,
) -> Result<(CarriedSets, u64)> {
    let peers = rounds.peers();
    let mut to = vec![0u64; peers];
    for (&(_, (_, owner)), &i) in placed_here.iter().zip(at) {
        to[owner as usize] += crate::plan::carried_set_bytes(sets.keys_len(i));
    }
    let all = rounds.all_gather(to);
    let most = (0..peers)
        .map(|o| {
            all.iter()
                .map(|(_, t)| t.get(o).copied().unwrap_or(0))
                .sum::<u64>()
        })
        .max()
        .unwrap_or(0);
    let passes = share.map_or(1, |s| crate::plan::carried_set_passes(most, s));
    let mut got = CarriedSets::new(spill_dir)?;
    for pass in 0..passes {
        let mine = (placed_here.iter().zip(at))
            .filter(|(&(doc, _), _)| u64::from(doc) % passes == pass)
            .map(|(&(doc, (_, owner)), &i)| {
                Ok(SetMsg {
                    owner,
                    doc,
                    set: sets.take(i)?.0,
                })
            })
            .collect::<Result<Vec<SetMsg>>>();
        let mine = super::ingest::agree(rounds, mine)?;
        let mut received = rounds.exchange(mine, |m: &SetMsg| m.owner as Target);
        received.sort_unstable_by_key(|m| m.doc);
        for m in received {
            got.push(m.doc, m.set)?;
        }
    }
    Ok((got, passes))
}

/// The giant groups of this worker (those of `from` members or more, taken out of
/// `groups` with their index) run on a thread of their own with a [`Relay`] miner, which
/// hands each of their components of `from` documents or more to this worker; every
/// worker, in rounds until none has a component left and every giant group is done,
/// receives every worker's components, mines its part of each ([`mine_share`]) and sends
/// it to the component's worker, which answers the relay with the parts joined
/// ([`joined_parts`]). With the itemsets this worker mined in parts.
fn mine_giant_groups(
    rounds: &mut Rounds<'_>,
    groups: &mut [Vec<Member>],
    gj: &GroupJob<'_>,
    from: u64,
) -> Result<(Vec<(usize, GroupFound)>, u64)> {
    let (me, peers) = (rounds.index(), rounds.peers());
    let giant: Vec<(usize, Vec<Member>)> = (groups.iter_mut().enumerate())
        .filter(|(_, g)| g.len() as u64 >= from)
        .map(|(i, g)| (i, std::mem::take(g)))
        .collect();
    // The giant groups' own pool: its threads wait for the relay's answers, so they
    // must not be the threads that mine the parts.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(rayon::current_num_threads())
        .build()
        .map_err(|e| Error::Distributed(format!("a thread pool for the giant groups: {e}")));
    let pool = super::ingest::agree(rounds, pool)?;
    let mut mined = 0u64;
    let found = std::thread::scope(|s| {
        // Owned here, so that a round that fails (a panic) drops the waiting requests,
        // and with them the answers the giant groups' thread waits for.
        let (to, requests) = std::sync::mpsc::channel::<Request>();
        let relay = Relay::new(from, to);
        let runs = s.spawn(move || {
            let relay = relay;
            pool.install(|| {
                (giant.into_iter())
                    .map(|(i, g)| Ok((i, run_group(g, gj, &relay)?)))
                    .collect::<Result<Vec<_>>>()
            })
        });
        loop {
            // A round once this worker has a component to send, or its groups are done.
            let mut asked: Vec<Request> = requests.recv().into_iter().collect();
            asked.extend(requests.try_iter());
            let done = u64::from(asked.is_empty());
            let (comps, answers): (Vec<ComponentMsg>, Vec<_>) = (asked.into_iter())
                .map(|r| (ComponentMsg(r.component), r.answer))
                .unzip();
            let all = rounds.all_gather((done, comps));
            if all.iter().all(|(_, (d, c))| *d == 1 && c.is_empty()) {
                break;
            }
            let parts: Vec<MinedPart> = (all.iter())
                .flat_map(|(owner, (_, c))| c.iter().enumerate().map(move |(i, c)| (*owner, i, c)))
                .map(|(owner, index, c)| MinedPart {
                    owner: owner as u32,
                    index: index as u32,
                    from: me as u32,
                    sets: mine_share(&c.0, me, peers)
                        .map_err(|e| (matches!(e, Error::Limit(_)), e.to_string())),
                })
                .collect();
            mined += (parts.iter())
                .map(|p| p.sets.as_ref().map_or(0, |s| s.len() as u64))
                .sum::<u64>();
            let mut got = rounds.exchange(parts, |p: &MinedPart| p.owner as Target);
            got.sort_unstable_by_key(|p| (p.index, p.from));
            let mut got = got.into_iter().peekable();
            let comps = all
                .into_iter()
                .nth(me)
                .map(|(_, (_, c))| c)
                .unwrap_or_default();
            for (i, (c, answer)) in comps.iter().zip(answers).enumerate() {
                let mut sets = Vec::with_capacity(peers);
                let mut failed = None;
                while let Some(p) = got.next_if(|p| p.index as usize == i) {
                    match p.sets {
                        Ok(s) => sets.push(s),
                        Err((true, m)) => failed = failed.or(Some(Error::Limit(m))),
                        Err((false, m)) => {
                            let e = Error::Distributed(format!("worker {}: {m}", p.from));
                            failed = failed.or(Some(e));
                        }
                    }
                }
                let joined = match failed {
                    Some(e) => Err(e),
                    None if sets.len() != peers => Err(Error::Distributed(format!(
                        "{} of {peers} parts of a divided mining arrived",
                        sets.len()
                    ))),
                    None => joined_parts(&c.0, sets),
                };
                // The relay's call waits for this answer; it ended only if its run did.
                let _ = answer.send(joined);
            }
        }
        runs.join().unwrap_or_else(|_| {
            Err(Error::Distributed(
                "the run of a giant group panicked".into(),
            ))
        })
    });
    Ok((super::ingest::agree(rounds, found)?, mined))
}

/// Why `job` on the corpus at `path` does not run divided for what the corpus is: one file
/// that is not cut (by byte ranges at lines, or by row groups for a Parquet file); `None`
/// otherwise.
fn corpus_because(job: &Job, path: &Path) -> Result<Option<&'static str>> {
    use crate::corpus::split::{cut_of, Cut};
    let corpus = &job.pipeline().corpus;
    let whole = !is_many_files(path, corpus) && cut_of(path, corpus)? == Cut::Whole;
    Ok(whole.then_some(
        "the corpus is not split by byte ranges or row groups (compressed, or not JSONL, \
         lines or a Parquet file)",
    ))
}

/// Whether the corpus at `path` is read as many files: sharded, or a directory of Parquet
/// files.
fn is_many_files(path: &Path, corpus: &crate::corpus::CorpusConfig) -> bool {
    crate::corpus::shards::is_sharded(path, corpus)
        || crate::corpus::shards::is_parquet_dir(path, corpus)
}

/// One file of the corpus of a divided run: the corpus file itself, one of its shards, or
/// one of the files of a directory of Parquet files.
pub(super) struct InputFile {
    pub path: PathBuf,
    /// How its external ids that are positions become the corpus's: a shard's are prefixed
    /// with its name, a Parquet directory's rows numbered across its files (see
    /// [`crate::corpus::shards`]).
    pub ids: Positions,
    /// Its size in bytes.
    pub len: u64,
    /// How it is divided between workers ([`crate::corpus::split::cut_of`]).
    pub cut: crate::corpus::split::Cut,
}

impl InputFile {
    /// The files of the corpus at `path`: its shards in order, the Parquet files of a
    /// directory in the order its reader reads them, or itself.
    pub(super) fn list(path: &Path, corpus: &crate::corpus::CorpusConfig) -> Result<Vec<Self>> {
        let mut files = Vec::new();
        if let Some(shards) = crate::corpus::shards::list(path, corpus)? {
            for s in shards {
                files.push((s.path, Positions::Shard(s.name)));
            }
        } else if crate::corpus::shards::is_parquet_dir(path, corpus) {
            let mut before = 0u64;
            for (p, rows) in crate::corpus::parquet::files_with_rows(path)? {
                files.push((p, Positions::RowsAfter(before)));
                before += rows;
            }
        } else {
            files.push((path.to_path_buf(), Positions::Own));
        }
        let mut v = Vec::with_capacity(files.len());
        for (p, ids) in files {
            v.push(InputFile {
                cut: crate::corpus::split::cut_of(&p, corpus)?,
                len: std::fs::metadata(&p).map_err(|e| Error::io(&p, e))?.len(),
                path: p,
                ids,
            });
        }
        Ok(v)
    }
}

/// A document of a worker's share.
/// Its keys and positional values (the image for k-mins and one-permutation) are in the
/// worker's [`crate::context::DocKeys`] store, at its index in the worker's documents.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Doc {
    pub id: u32,
    pub ext: String,
    pub line: u64,
    /// Where its line starts in the file (exact verification reads it there).
    pub offset: u64,
    pub raw: u64,
    pub canonical: u64,
    pub image: Option<u64>,
}

/// The shared inputs of every worker.
pub(super) struct Plan {
    pub path: PathBuf,
    /// The corpus's files (its shards, or itself), divided by bytes among the workers.
    pub files: Vec<InputFile>,
    /// Whether the external ids are positions in a file (then a shard's are prefixed with
    /// its name, [`crate::corpus::shards::shard_ext_id`]).
    pub positional_ids: bool,
    pub job: Job,
    pub params: SketchParams,
    /// The corpus's sketcher, made once for every worker of the process.
    pub sketcher: Sketcher,
    pub per_process: usize,
    /// The output directory: the first worker of each process writes the process's parts
    /// of the output files there.
    pub out: PathBuf,
    /// A deduplication: its choice is made per group, and the first worker of each process
    /// writes the kept records of the process's ranges into `out`.
    pub dedup: Option<Dedup>,
    /// How the keys of the prefix-filtered rules are exchanged.
    pub exchange: Exchange,
    /// Who mines the giant groups.
    pub giant_groups: super::GiantGroups,
    /// Set once a worker of this process starts writing its parts of the outputs: a run
    /// that then fails removes them ([`super::output::remove_parts`]).
    pub parts_written: std::sync::atomic::AtomicBool,
}

/// What worker 0 of process 0 assembles: the counts, not the outputs (every process
/// wrote its parts).
pub(super) struct Assembled {
    pub summary: ClusterSummary,
    /// The stage after which a resumed run restarted.
    pub resumed_after: Option<String>,
    pub totals: Totals,
    pub stats: SketchStats,
    pub per_process: Vec<super::ProcessReport>,
}

/// The passes of the rows stage, each over a slice of the keys, so that a pass's incidences
/// fit in half of a worker's share (`worker_budget`) beside its per-document data; a budget
/// that the data alone outgrow is refused, the default share grows to hold them
/// ([`crate::plan::divided_row_passes`]).
fn row_passes(
    rounds: &mut Rounds<'_>,
    plan: &Plan,
    local: &Local,
    worker_budget: Option<u64>,
) -> Result<u64> {
    let budget = plan.job.spill_config().budget;
    let meta = (local.docs.iter())
        .map(|d| crate::plan::divided_doc_bytes(std::mem::size_of::<Doc>(), d.ext.len()))
        .sum::<u64>();
    let needs = rounds.all_gather((local.incidences, meta));
    let Some(b) = worker_budget else {
        return Ok(1);
    };
    let most_meta = needs.iter().map(|(_, n)| n.1).max().unwrap_or(0);
    let most = needs.iter().map(|(_, n)| n.0).max().unwrap_or(0);
    let b = match budget {
        Some(_) => b,
        None => crate::plan::divided_default_share(b, most_meta),
    };
    let Some(passes) = crate::plan::divided_row_passes(most, most_meta, b) else {
        let e = Error::Budget(format!(
            "{}: a worker holds {} KiB of per-document data (ids, offsets, \
             fingerprints) for its share of the documents, more than half of its \
             {} KiB of the memory budget ({} a process): run more processes or give \
             a larger budget",
            plan.path.display(),
            most_meta.div_ceil(1 << 10),
            b >> 10,
            budget.map_or("-".into(), |b| b.to_string()),
        ));
        return Err(together(rounds, e));
    };
    Ok(passes)
}

/// What stages 6 and 7 take of the run's first stages ([`AfterPairs`]) and the method.
struct ToGroups<'a> {
    /// This worker's spanning forest of its pairs, with the collapse links.
    forest: Vec<(u32, u32)>,
    /// This worker's documents (their records move into the members sent on).
    docs: Vec<Doc>,
    /// Their keys.
    held: DocKeys,
    /// The first DocId of each worker's documents.
    starts: &'a [u64],
    /// The run's documents.
    n_docs: u64,
    /// Each worker's pieces of the corpus.
    placed: &'a [Vec<(Piece, LineRange)>],
    /// The elements the rows stage dropped that two documents share.
    dropped: &'a [u64],
    /// The method's configuration and candidate rule ([`divided_method`]).
    cfg: &'a ClusterConfig,
    rule: &'a CandidateRule,
    /// The worker's share of the budget, and the spill directory under it.
    worker_budget: Option<u64>,
    spill_dir: Option<&'a Path>,
}

/// Stages 6 and 7 of one worker (components; per group): the groups' results, saved as
/// the second checkpoint when the run has a run directory.
fn through_groups(
    rounds: &mut Rounds<'_>,
    plan: &Plan,
    stages: &mut Stages,
    run_dir: Option<&RunDir>,
    to: ToGroups<'_>,
) -> Result<AfterGroups> {
    let me = rounds.index();
    let job = &plan.job;
    let ToGroups {
        forest,
        mut docs,
        mut held,
        starts,
        n_docs,
        placed,
        dropped,
        cfg,
        rule,
        worker_budget,
        spill_dir,
    } = to;
    // 6. Components (`components.rs`): the groups of the spanning forests and collapse
    // links, each member at its holder with its group's owner.
    let comps = components_stage(rounds, &forest, &[], starts);
    drop(forest);
    let (placed_here, component_rounds) = (comps.placed_here, comps.iterations);
    stages.lap("components", rounds, comps.edges);

    // 7. Per group: the members' records to the group's owner, the method run there. For
    // exact verification over a corpus that is not read again at offsets (shards, Parquet),
    // the members' full shingle sets follow them, their pieces read again here.
    let carried = job.verified_threshold().is_some() && !super::ingest::at_offsets(plan);
    // Each placed document's index among this worker's documents.
    let at = (placed_here.iter())
        .map(|&(doc, _)| {
            docs.binary_search_by_key(&doc, |d| d.id).map_err(|_| {
                Error::Distributed(format!("document {doc} placed on the wrong worker"))
            })
        })
        .collect::<Result<Vec<usize>>>()?;
    let mut sets = if carried {
        let mut wanted = at.clone();
        wanted.sort_unstable();
        let n = docs.len();
        let read = super::ingest::verify_sets(plan, &placed[me], n, &wanted, spill_dir);
        Some(super::ingest::agree(rounds, read)?)
    } else {
        None
    };
    let mut members: Vec<Placed> = Vec::with_capacity(placed_here.len());
    // A document is in one group at most: its record moves into the message.
    for (&(doc, (group, owner)), &i) in placed_here.iter().zip(&at) {
        let (keys, values) = held.take(i)?;
        let d = &mut docs[i];
        let member = Member {
            doc,
            ext: std::mem::take(&mut d.ext),
            offset: d.offset,
            keys,
            values,
            raw: d.raw,
            canonical: d.canonical,
            image: d.image,
        };
        members.push(Placed {
            group,
            owner,
            member,
        });
    }
    drop(docs);
    drop(held);
    let n_members = members.len() as u64;
    let mut mine = rounds.exchange(members, |m: &Placed| m.owner as Target);
    mine.sort_unstable_by_key(|m| (m.group, m.member.doc));
    let (carried_sets, set_passes) = match sets.as_mut() {
        Some(s) => {
            let (c, passes) = carry_sets(rounds, &placed_here, &at, s, worker_budget, spill_dir)?;
            (Some(c), passes)
        }
        None => (None, 0),
    };
    drop(sets);
    let gj = GroupJob {
        job,
        cfg,
        path: &plan.path,
        params: &plan.params,
        rule,
        dropped,
        dedup: plan.dedup.as_ref(),
        sets: carried_sets.as_ref(),
    };
    let mut groups: Vec<Vec<Member>> = Vec::new();
    let mut mine = mine.into_iter().peekable();
    while let Some(first) = mine.next() {
        let group = first.group;
        let mut g: Vec<Member> = vec![first.member];
        while let Some(m) = mine.next_if(|m| m.group == group) {
            g.push(m.member);
        }
        groups.push(g);
    }
    // With `--giant-groups divided`, the giant groups' mining divided among every worker;
    // the other groups here.
    let divided = plan.giant_groups == super::GiantGroups::Divided && cfg.method.mines();
    let (mut giants, mined_in_parts) = match divided_from(n_docs, rounds.peers()) {
        Some(from) if divided => mine_giant_groups(rounds, &mut groups, &gj, from)?,
        _ => (Vec::new(), 0),
    };
    let mut results: Vec<GroupFound> = Vec::with_capacity(groups.len());
    for (i, g) in groups.into_iter().enumerate() {
        match giants.iter().position(|(at, _)| *at == i) {
            Some(k) => results.push(giants.swap_remove(k).1),
            None => results.push(run_group(g, &gj, &fp_miner)?),
        }
    }
    stages.lap("per group", rounds, n_members);
    let groups = AfterGroups {
        results,
        component_rounds,
        set_passes,
        mined_in_parts,
        laps: stages.list.clone(),
    };
    if let Some(r) = run_dir {
        let saved = r.save_after_groups(me, &groups);
        super::ingest::agree(rounds, saved)?;
    }
    Ok(groups)
}

/// Stages 1 to 5 of one worker (read and sketch, ids, collapse, rows, pairs): what the
/// later stages read of them, with its documents' keys.
fn through_pairs(
    rounds: &mut Rounds<'_>,
    plan: &Plan,
    stages: &mut Stages,
    worker_budget: Option<u64>,
) -> Result<(AfterPairs, DocKeys)> {
    let job = &plan.job;
    let spill = job.spill_config();
    let spill_dir = worker_budget.map(|_| spill.dir());
    let spill_dir = spill_dir.as_deref();

    // 1. Sketch; 2. ids; 3. collapse (`ingest.rs`).
    let mut local = read_and_sketch(rounds, plan, spill_dir)?;
    let n_here = local.docs.len() as u64;
    stages.lap("read and sketch", rounds, n_here);
    let id_check = check_ids(rounds, plan, &local.docs, &local.spans, worker_budget)?;
    if let Some((_, checked)) = id_check {
        stages.lap("ids", rounds, checked);
    }
    let collapsed = collapse_stage(rounds, &local.docs, &local.starts)?;
    stages.lap("collapse", rounds, collapsed.classes.len() as u64);

    // The method's translation of the threshold (empty images when every image is: then
    // the methods that infer the size from the images see none).
    let held = &local.held;
    let nonempty: u64 = (0..held.len()).filter(|&i| held.keys_len(i) > 0).count() as u64;
    let any = rounds.all_gather(nonempty).iter().any(|(_, c)| *c > 0);
    let n = plan.params.sketch.size;
    let (_, _, rule) =
        divided_method(job, &plan.params.sketch, n, any).map_err(|e| together(rounds, e))?;

    // 4. Rows; 5. pairs (`pairing.rs`).
    let passes = row_passes(rounds, plan, &local, worker_budget)?;
    let folded = &collapsed.folded_here;
    let is_rep = |d: &Doc| folded.binary_search(&d.id).is_err();
    let context = job.cluster_config().context;
    let round_bytes = worker_budget.map(crate::plan::round_share);
    let prefix_only = plan.exchange == Exchange::Prefix && rule.is_prefix_filtered();
    let (docs, starts, held) = (&local.docs, &local.starts, &mut local.held);
    let (edges, (kept, rare, common, hottest_row), dropped) = if prefix_only {
        let (to_owners, sent, hottest) =
            prefix_rows_stage(rounds, docs, held, &is_rep, &rule, passes, spill_dir)?;
        stages.lap("rows", rounds, sent);
        let (edges, n_candidates) = prefix_pairs_stage(
            rounds,
            to_owners,
            docs,
            held,
            starts,
            &rule,
            spill_dir,
            round_bytes,
        )?;
        stages.lap("pairs", rounds, n_candidates);
        (edges, (0, 0, 0, hottest), Vec::new())
    } else {
        let mut rows = rows_stage(
            rounds, docs, held, &is_rep, &rule, context, starts, passes, spill_dir,
        )?;
        stages.lap("rows", rounds, rows.incidences);
        let counted = (rows.kept, rows.rare, rows.common, rows.hottest);
        let dropped = std::mem::take(&mut rows.dropped);
        let held = &*held;
        let size = |doc: u32| {
            docs.binary_search_by_key(&doc, |d| d.id)
                .map_or(0, |i| held.keys_len(i))
        };
        let (edges, n_candidates) =
            pairs_stage(rounds, rows, &rule, &size, spill_dir, round_bytes)?;
        stages.lap("pairs", rounds, n_candidates);
        (edges, counted, dropped)
    };

    let mut forest = spanning_forest(&edges);
    drop(edges);
    forest.extend(collapsed.classes.iter().copied());
    let Local {
        docs,
        held,
        placed,
        starts,
        n_docs,
        stats,
        incidences,
        bytes_read,
        ..
    } = local;
    let after = AfterPairs {
        docs,
        placed,
        starts,
        n_docs,
        stats,
        incidences,
        bytes_read,
        collapse: collapsed.summary,
        forest,
        dropped,
        kept,
        rare,
        common,
        hottest_row,
        any,
        row_passes: passes,
        id_passes: id_check.map_or(0, |c| c.0),
        laps: Vec::new(),
    };
    Ok((after, held))
}

/// The stages of one worker; `Some` on worker 0 (of process 0). With a run directory the
/// worker keeps a checkpoint after the pairs stage and one after the per-group stage, and
/// a resumed run loads the latest one every worker has in place of stages 1 to 5, or 1
/// to 7 ([`super::checkpoint`]).
pub(super) fn run_worker(
    rounds: &mut Rounds<'_>,
    plan: &Plan,
    run_dir: Option<&RunDir>,
) -> Result<Option<Assembled>> {
    let me = rounds.index();
    let job = &plan.job;
    let mut stages = Stages::default();
    let spill = job.spill_config();
    // The keys wait on disk; each worker of a process gets its share of the budget, or of
    // the default plan's (`plan::DIVIDED_DEFAULT_PROCESS_BYTES`).
    let worker_budget = Some(crate::plan::worker_share(
        crate::plan::divided_process_bytes(spill.budget),
        plan.per_process,
    ));
    let spill_dir = worker_budget.map(|_| spill.dir());
    let spill_dir = spill_dir.as_deref();

    // A resumed run: the latest checkpoint every worker has, or none.
    let level = match run_dir {
        Some(r) if r.resumes() => (rounds.all_gather(r.checkpoints(me)).iter())
            .map(|(_, h)| *h)
            .min()
            .unwrap_or(0),
        _ => 0,
    };
    let (after, held, groups) = match (level, run_dir) {
        (1.., Some(r)) => {
            let loaded = if level >= 2 {
                (r.load_after_groups(me))
                    .and_then(|(after, groups)| Ok((after, DocKeys::new(None)?, Some(groups))))
            } else {
                (r.load_after_pairs(me, spill_dir)).map(|(after, held)| (after, held, None))
            };
            let failed = (rounds.all_gather(u64::from(loaded.is_ok())).iter())
                .find(|(_, ok)| *ok == 0)
                .map(|(w, _)| *w);
            match (loaded, failed) {
                (Ok((after, held, groups)), None) => {
                    // The next stage's lap counts the loading.
                    let laps = groups.as_ref().map_or(&after.laps, |g| &g.laps);
                    stages.list.clone_from(laps);
                    (after, held, groups)
                }
                (Err(e), _) => return Err(e),
                (Ok(_), Some(w)) => {
                    return Err(Error::Distributed(format!(
                        "worker {w} could not read its checkpoint"
                    )))
                }
            }
        }
        _ => {
            let (mut after, mut held) = through_pairs(rounds, plan, &mut stages, worker_budget)?;
            after.laps.clone_from(&stages.list);
            if let Some(r) = run_dir {
                r.save_after_pairs(me, &after, &mut held)?;
            }
            (after, held, None)
        }
    };
    let resumed_after = match level {
        0 => None,
        1 => Some(CHECKPOINT_STAGE.to_string()),
        _ => Some(GROUPS_STAGE.to_string()),
    };
    let n = plan.params.sketch.size;
    let (cfg, head, rule) =
        divided_method(job, &plan.params.sketch, n, after.any).map_err(|e| together(rounds, e))?;
    let n_here = after.docs.len() as u64;

    // 6-7. Components and per group ([`through_groups`]), unless the run resumes after them.
    let AfterPairs {
        docs,
        placed,
        starts,
        n_docs,
        stats,
        incidences,
        bytes_read,
        collapse,
        forest,
        dropped,
        kept,
        rare,
        common,
        hottest_row,
        row_passes: passes,
        id_passes,
        ..
    } = after;
    let AfterGroups {
        results,
        component_rounds,
        set_passes,
        mined_in_parts,
        ..
    } = match groups {
        Some(groups) => groups,
        None => through_groups(
            rounds,
            plan,
            &mut stages,
            run_dir,
            ToGroups {
                forest,
                docs,
                held,
                starts: &starts,
                n_docs,
                placed: &placed,
                dropped: &dropped,
                cfg: &cfg,
                rule: &rule,
                worker_budget,
                spill_dir,
            },
        )?,
    };

    // 8. A deduplication's kept records: the removed DocIds go to the first worker of the
    // process holding them, which writes the kept records of the process's pieces.
    let mut kept_written = 0u64;
    let writes = std::sync::atomic::Ordering::Relaxed;
    if plan.dedup.is_some() {
        let out = &plan.out;
        let per = plan.per_process.max(1);
        let gone: Vec<u32> = (results.iter())
            .flat_map(|r| r.removals.iter().map(|x| x.0))
            .collect();
        let starts_k = starts.clone();
        let mut gone = rounds.exchange(gone, move |d: &u32| owner_of(&starts_k, *d) / per * per);
        gone.sort_unstable();
        if me.is_multiple_of(per) {
            let p = me / per;
            let pieces: Vec<_> = (placed[me..(me + per).min(placed.len())].iter())
                .flatten()
                .map(|&(piece, r)| (plan.files[piece.file].path.as_path(), r))
                .collect();
            let corpus = &job.pipeline().corpus;
            let format = corpus.format_of(&plan.path)?;
            plan.parts_written.store(true, writes);
            let comp = kept_compression(&plan.path);
            let of = KeptPart {
                input: &plan.path,
                first_file: &plan.files[0].path,
                pieces: &pieces,
                part: p,
            };
            let as_ = plan
                .dedup
                .as_ref()
                .map_or(OutFormat::Same, |d| d.out_format());
            kept_written = write_kept_part(&of, corpus, format, as_, comp, &gone, out)?.documents;
        }
        stages.lap("write part", rounds, kept_written);
    }

    // 9. Output: each process writes its parts; worker 0 gets the counts.
    let oplan = OutputPlan {
        job,
        dir: &plan.out,
        per_process: plan.per_process,
        starts: &starts,
        n_docs,
        dedup: plan.dedup.is_some(),
        kept_written,
    };
    plan.parts_written.store(true, writes);
    let written = write_parts(rounds, &oplan, results)?;
    stages.lap("output", rounds, written.lines);
    let counts = WorkerCounts {
        worker: me,
        stats,
        documents: n_here,
        incidences,
        collapse,
        context_rows: kept,
        dropped_rare: rare,
        dropped_common: common,
        stages: std::mem::take(&mut stages.list),
        peak_rss_bytes: crate::spill::peak_rss_bytes(),
        kept_written,
        row_passes: passes,
        id_passes,
        set_passes,
        component_rounds,
        mined_in_parts,
        hottest_row,
        bytes_read,
    };
    let mut all_counts = rounds.exchange(vec![counts], |_: &WorkerCounts| 0);
    if me != 0 {
        return Ok(None);
    }
    all_counts.sort_by_key(|c| c.worker);
    let phases = stage_phases(&all_counts);
    summary_lap(&mut all_counts, plan.per_process);
    let (mut part, stats) = part_counts(&all_counts);
    part.prefix_only = plan.exchange == Exchange::Prefix && rule.is_prefix_filtered();
    let summary = merged_summary(
        &written.totals,
        &part,
        n_docs,
        job,
        head,
        rule.is_context(),
        phases,
    );
    Ok(Some(Assembled {
        summary,
        resumed_after,
        totals: written.totals,
        stats,
        per_process: process_reports(&all_counts, plan.per_process),
    }))
}
