//! The first stages of a divided run on each worker: **read and sketch** its pieces of the
//! corpus's files, divided by bytes ([`assign_pieces`]; the pieces' counts gathered first,
//! so each worker knows the first line and DocId of each), counting the bytes it read,
//! keeping its documents' ids, fingerprints and keys ([`DocKeys`], on disk under a budget);
//! **ids**, exchanged by hash to owners that find a repeated id as one process does
//! ([`first_repeat`]); **collapse**, documents exchanged by collapse key to owners that
//! fold each class ([`fold_class`]).
//!
//! Invariants: every worker leaves each stage at the same round, an error included
//! ([`together`]); the ids check finds the earliest repeat, as one in-order pass does,
//! whatever the number of passes (every occurrence of an id is in one pass); the collapse
//! classes are the one-process run's; a repeated id is the one-process run's error (the
//! earliest by DocId, named by its file and line in it).

use std::path::Path;

use super::cluster::{Doc, Plan};
use super::messages::{
    in_pass, owner_of, passes_for, spread, together, DupMsg, ErrMsg, Folded, IdMsg, PieceCounts,
    PrintMsg,
};
use super::rounds::Rounds;
use super::workers::add_stats;
use crate::cluster::stages::fold_class;
use crate::cluster::{CollapseSummary, Equivalence, Reads};
use crate::context::DocKeys;
use crate::corpus::duplicate_error;
use crate::corpus::par::Share;
use crate::corpus::shards::Positions;
use crate::corpus::split::{
    assign_pieces, count_range, place_pieces, read_by_lines, Cut, LineRange, Piece, RangeCount,
    Split,
};
use crate::corpus::{first_repeat, ids_can_repeat, Duplicate, DuplicateIds, Format};
use crate::plan::{self, ID_MSG_BYTES};
use crate::sketch::image_fingerprint;
use crate::sketch::pipeline::{
    shingle_sets_at, shingle_sets_share, sketch_share, SketchBatch, SketchStats,
};
use crate::{DocId, Error, Result};

/// A worker's share of the corpus after the sketch.
pub(super) struct Local {
    /// Its documents, in DocId order.
    pub docs: Vec<Doc>,
    /// Their keys and positional values (the full shingle sets for the exact join).
    pub held: DocKeys,
    /// Every worker's pieces, placed (first line in their file, first DocId), in worker
    /// order.
    pub placed: Vec<Vec<(Piece, LineRange)>>,
    /// Every piece of the corpus in DocId order: its file, first DocId and documents.
    pub spans: Vec<(usize, u64, u64)>,
    /// Every worker's first DocId.
    pub starts: Vec<u64>,
    /// The corpus's documents.
    pub n_docs: u64,
    /// What sketching its pieces counted.
    pub stats: SketchStats,
    /// Its documents' keys.
    pub incidences: u64,
    /// The bytes of the files it read (compressed sizes for compressed files).
    pub bytes_read: u64,
}

/// Every worker's pieces with their counts, and the same placed.
type Counted = (Vec<Vec<(Piece, RangeCount)>>, Vec<Vec<(Piece, LineRange)>>);

/// Every worker's pieces with their counts (this worker's `counts` of its own pieces, or
/// every worker's error, [`agree`], gathered), and placed ([`place_pieces`]).
fn place_counted(
    rounds: &mut Rounds<'_>,
    pieces: &[Vec<Piece>],
    counts: Result<Vec<RangeCount>>,
) -> Result<Counted> {
    let counts = agree(rounds, counts)?;
    let all = rounds.all_gather(PieceCounts(counts));
    let with_counts: Vec<Vec<(Piece, RangeCount)>> = (pieces.iter().zip(&all))
        .map(|(ps, (_, c))| ps.iter().copied().zip(c.0.iter().copied()).collect())
        .collect();
    let placed = place_pieces(&with_counts);
    Ok((with_counts, placed))
}

/// Reads and sketches this worker's pieces of the corpus's files (divided by bytes,
/// [`assign_pieces`]); keys wait on disk under `spill_dir`.
///
/// A corpus read by lines counts its pieces first (a cut file's pieces need the lines
/// before them), gathers the counts and reads each piece from its first line and DocId. A
/// corpus of another format (CSV/TSV or WARC shards, each a whole piece read by its
/// format's reader; Parquet files, a piece their row groups that start in its bytes) is
/// read first, its documents numbered from 0 in each piece, and renumbered once the
/// pieces' counts are gathered; ids that are positions are named as one process names
/// them ([`crate::corpus::shards::Positions`]). A worker's read error (a corrupt
/// shard) reaches every worker in one round, the earliest in corpus order winning.
pub(super) fn read_and_sketch(
    rounds: &mut Rounds<'_>,
    plan: &Plan,
    spill_dir: Option<&Path>,
) -> Result<Local> {
    let me = rounds.index();
    let pipeline = plan.job.pipeline();
    let files: Vec<(&Path, u64, Cut)> = (plan.files.iter())
        .map(|f| (f.path.as_path(), f.len, f.cut))
        .collect();
    let pieces = assign_pieces(&files, rounds.peers())?;
    let by_lines = read_by_lines(pipeline.corpus.format_of(&plan.path)?, &pipeline.corpus);
    let mut read = Read {
        docs: Vec::new(),
        held: DocKeys::new(spill_dir)?,
        stats: SketchStats::default(),
        bytes_read: 0,
    };
    let (with_counts, placed) = if by_lines {
        let counts = (pieces[me].iter())
            .map(|p| count_range(&plan.files[p.file].path, &pipeline.corpus, p.start, p.end))
            .collect::<Result<Vec<_>>>();
        let (with_counts, placed) = place_counted(rounds, &pieces, counts)?;
        let r = (placed[me].iter())
            .try_for_each(|&(piece, range)| read.piece(plan, piece, Split::Range(range)));
        agree(rounds, r)?;
        (with_counts, placed)
    } else {
        // Each whole file (or a Parquet file's row groups) through its format's own
        // reader, the shard's ids left to the ids stage (a repeat is found over every
        // shard, in DocId order).
        let mut own = plan.job.pipeline().clone();
        own.corpus.duplicate_ids = DuplicateIds::Keep;
        let counts = (pieces[me].iter())
            .map(|&piece| {
                let before = read.docs.len();
                read.piece_with(plan, &own, piece, unplaced(plan, piece))?;
                Ok(RangeCount {
                    lines: 0,
                    docs: (read.docs.len() - before) as u64,
                })
            })
            .collect::<Result<Vec<_>>>();
        let (with_counts, placed) = place_counted(rounds, &pieces, counts)?;
        (with_counts, placed)
    };
    let mut starts = Vec::with_capacity(placed.len());
    let mut spans = Vec::new();
    let mut n_docs = 0u64;
    for w in &with_counts {
        starts.push(n_docs);
        for (p, c) in w {
            spans.push((p.file, n_docs, c.docs));
            n_docs += c.docs;
        }
    }
    if n_docs > u64::from(u32::MAX) {
        let e = Error::Limit(format!(
            "{}: more than {} documents",
            plan.path.display(),
            u32::MAX
        ));
        return Err(together(rounds, e));
    }
    if !by_lines {
        // The documents of each piece, numbered from 0 in it, move to its first DocId.
        let mut at = 0usize;
        for (&(_, range), &(_, count)) in placed[me].iter().zip(&with_counts[me]) {
            let n = count.docs as usize;
            for d in &mut read.docs[at..at + n] {
                d.id += range.first_doc as u32;
            }
            at += n;
        }
    }
    let Read {
        docs,
        mut held,
        mut stats,
        bytes_read,
    } = read;
    if me == 0 {
        // A file without a piece (an empty one) is read by nobody, but counted.
        let read = |f: usize| pieces.iter().flatten().any(|p| p.file == f);
        stats.corpus.files += (0..plan.files.len()).filter(|&f| !read(f)).count() as u64;
    }
    if plan.job.cluster_config().method.reads() == Reads::Sets {
        held = if !at_offsets(plan) {
            let sets = piece_sets(plan, &placed[me], by_lines, docs.len(), spill_dir, &|_| {
                true
            });
            agree(rounds, sets)?
        } else {
            full_sets(plan, &docs, held.on_disk(), spill_dir)?
        };
    }
    let incidences: u64 = (0..held.len()).map(|i| held.keys_len(i) as u64).sum();
    Ok(Local {
        docs,
        held,
        placed,
        spans,
        starts,
        n_docs,
        stats,
        incidences,
        bytes_read,
    })
}

/// A worker's result of one round every worker joins: `Ok` when no worker failed, else
/// the error of the first worker that did (its own error on that worker, the message of it
/// on the others), so that every process stops with the same cause. A worker's own error
/// is noted before the round ([`Rounds::note_failure`]): the others may end as soon as
/// they know it, before this worker's round is over.
pub(super) fn agree<T>(rounds: &mut Rounds<'_>, r: Result<T>) -> Result<T> {
    let me = rounds.index();
    let mine = r.as_ref().err().map(|e| e.to_string());
    if let Some(m) = &mine {
        rounds.note_failure(m);
    }
    let failed = rounds.all_gather(ErrMsg(mine));
    match failed.into_iter().find_map(|(w, m)| m.0.map(|m| (w, m))) {
        None => r,
        Some((w, _)) if w == me => r,
        Some((w, msg)) => Err(Error::Distributed(format!("worker {w}: {msg}"))),
    }
}

/// What a worker read and sketched of its pieces, in corpus order.
struct Read {
    docs: Vec<Doc>,
    held: DocKeys,
    stats: SketchStats,
    bytes_read: u64,
}

impl Read {
    /// Reads and sketches one piece with the corpus's configuration; its documents get
    /// DocIds from `split` (a range's first DocId, or 0 for a whole file).
    fn piece(&mut self, plan: &Plan, piece: Piece, split: Split) -> Result<()> {
        self.piece_with(plan, plan.job.pipeline(), piece, split)
    }

    /// [`Read::piece`] with the configuration `pipeline`.
    fn piece_with(
        &mut self,
        plan: &Plan,
        pipeline: &crate::sketch::pipeline::PipelineConfig,
        piece: Piece,
        split: Split,
    ) -> Result<()> {
        let scheme = plan.params.sketch.scheme;
        let lexical = plan.job.equivalence() == Equivalence::Lexical;
        let file = &plan.files[piece.file];
        self.bytes_read += piece.end - piece.start;
        let (docs, held) = (&mut self.docs, &mut self.held);
        let s = sketch_share(
            &file.path,
            pipeline,
            &plan.sketcher,
            split,
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
                    let line = lines.get(i).copied().unwrap_or(0);
                    let ext = file.ids.ext_id(plan.positional_ids, ext, line);
                    docs.push(Doc {
                        id: first + i as u32,
                        ext,
                        line,
                        offset: offsets.get(i).copied().unwrap_or(0),
                        raw: raw_fingerprints[i],
                        canonical: canonical_fingerprints[i],
                        image,
                    });
                }
                Ok(())
            },
        )?;
        add_stats(&mut self.stats, &s);
        Ok(())
    }
}

/// How a piece of a corpus not read by lines is read before it is placed: a Parquet file's
/// row groups starting in the piece's bytes (its rows keep their numbers in the file, its
/// documents are numbered from 0), any other file whole.
fn unplaced(plan: &Plan, piece: Piece) -> Split {
    match plan.files[piece.file].cut {
        Cut::RowGroups => Split::Range(LineRange {
            start: piece.start,
            end: piece.end,
            first_line: 1,
            first_doc: 0,
        }),
        _ => Split::Blocks(Share { index: 0, count: 1 }),
    }
}

/// The exact join's keys over a corpus of many files or a Parquet file: the documents'
/// full shingle sets, each of this worker's pieces read again as it was read first (a
/// byte range by lines, a Parquet file's row groups, a whole shard by its format's
/// reader), in the same order (on disk under a budget). `n` is the documents read the
/// first time: another count means the files changed since.
/// Only the documents `keep` says (by their index in this worker's documents) get their set;
/// the others an empty one.
fn piece_sets(
    plan: &Plan,
    placed: &[(Piece, LineRange)],
    by_lines: bool,
    n: usize,
    spill_dir: Option<&Path>,
    keep: &dyn Fn(usize) -> bool,
) -> Result<DocKeys> {
    let mut sets = DocKeys::new(spill_dir)?;
    let mut own = plan.job.pipeline().clone();
    if !by_lines {
        own.corpus.duplicate_ids = DuplicateIds::Keep;
    }
    for &(piece, range) in placed {
        let path = &plan.files[piece.file].path;
        let split = if by_lines {
            Split::Range(range)
        } else {
            unplaced(plan, piece)
        };
        shingle_sets_share(
            path,
            &own.corpus,
            &own.text,
            &plan.params.shingle,
            split,
            &mut |b| {
                b.into_iter().try_for_each(|set| {
                    let set = if keep(sets.len()) { set } else { Vec::new() };
                    sets.push(set, Vec::new())
                })
            },
        )?;
    }
    if sets.len() != n {
        return Err(Error::Distributed(format!(
            "{}: {} documents read again of {n}; the files changed since they were read",
            plan.path.display(),
            sets.len()
        )));
    }
    Ok(sets)
}

/// Whether the documents of `plan`'s corpus are read again at their offsets: only those of
/// a corpus that is one file cut at lines are.
pub(super) fn at_offsets(plan: &Plan) -> bool {
    matches!(&plan.files[..], [f] if f.ids == Positions::Own && f.cut == Cut::Lines)
}

/// For exact verification over a corpus not read again at offsets ([`at_offsets`]): the
/// full shingle sets of this worker's documents `wanted` (indexes in its `n` documents,
/// ascending), its pieces `placed` read again as [`piece_sets`] reads them; the other
/// documents get empty sets (on disk under a budget).
pub(super) fn verify_sets(
    plan: &Plan,
    placed: &[(Piece, LineRange)],
    n: usize,
    wanted: &[usize],
    spill_dir: Option<&Path>,
) -> Result<DocKeys> {
    let pipeline = plan.job.pipeline();
    let by_lines = read_by_lines(pipeline.corpus.format_of(&plan.path)?, &pipeline.corpus);
    let keep = |i: usize| wanted.binary_search(&i).is_ok();
    piece_sets(plan, placed, by_lines, n, spill_dir, &keep)
}

/// The exact join's keys: the documents' full shingle sets, read again at their offsets
/// in this worker's range (on disk, a block of documents at a time).
fn full_sets(
    plan: &Plan,
    docs: &[Doc],
    on_disk: bool,
    spill_dir: Option<&Path>,
) -> Result<DocKeys> {
    let (path, pipeline) = (&plan.path, plan.job.pipeline());
    let offsets: Vec<u64> = docs.iter().map(|d| d.offset).collect();
    let ids: Vec<String> = docs.iter().map(|d| d.ext.clone()).collect();
    let block = if on_disk { 4096 } else { docs.len().max(1) };
    let mut sets_held = DocKeys::new(spill_dir)?;
    for from in (0..docs.len()).step_by(block) {
        let to = (from + block).min(docs.len());
        let wanted: Vec<DocId> = (from as u32..to as u32).map(DocId).collect();
        let mut sets = shingle_sets_at(
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
    Ok(sets_held)
}

/// The ids check, when the corpus's ids can repeat and a repeat is an error: the owner of
/// an id's hash checks its ids in DocId order; under a budget in passes, each over a slice
/// of the hashes, so that a pass's ids take at most a quarter of `worker_budget`. Returns
/// the passes and the ids this worker checked; `None` when there is no check.
pub(super) fn check_ids(
    rounds: &mut Rounds<'_>,
    plan: &Plan,
    docs: &[Doc],
    spans: &[(usize, u64, u64)],
    worker_budget: Option<u64>,
) -> Result<Option<(u64, u64)>> {
    let (path, pipeline) = (&plan.path, plan.job.pipeline());
    let format = pipeline.corpus.format_of(path)?;
    if !(format == Format::Jsonl || ids_can_repeat(format, &pipeline.corpus))
        || pipeline.corpus.duplicate_ids != DuplicateIds::Error
    {
        return Ok(None);
    }
    let id_bytes: u64 = docs.iter().map(|d| ID_MSG_BYTES + d.ext.len() as u64).sum();
    let id_passes = passes_for(rounds, id_bytes, worker_budget.map(plan::round_share));
    let mut dup: Option<(u64, String, u64, u64, u64)> = None;
    let mut checked = 0u64;
    for pass in 0..id_passes {
        let msgs: Vec<IdMsg> = (docs.iter())
            .filter_map(|d| {
                let hash = xxhash_rust::xxh3::xxh3_64(d.ext.as_bytes());
                in_pass(hash, pass, id_passes).then(|| IdMsg {
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
        // The earliest repeat over the passes (by DocId: lines are counted per file), as
        // one pass finds it.
        let by_doc = mine.iter().map(|m| (u64::from(m.doc), m.id.as_str()));
        if let Some((doc, id, first)) = first_repeat(by_doc) {
            let line = |d: u64| (mine.iter().find(|m| u64::from(m.doc) == d)).map_or(0, |m| m.line);
            let found = (doc, id, first, line(doc), line(first));
            if dup.as_ref().is_none_or(|d| found < *d) {
                dup = Some(found);
            }
        }
    }
    let found = rounds.all_gather(DupMsg(dup));
    if let Some((doc, id, first, line, first_line)) =
        found.into_iter().filter_map(|(_, d)| d.0).min()
    {
        let file = |d: u64| {
            let i = (spans.iter())
                .position(|&(_, from, n)| from <= d && d < from + n)
                .map_or(0, |i| spans[i].0);
            plan.files
                .get(i)
                .map_or(path.as_path(), |f| f.path.as_path())
        };
        let e = duplicate_error(
            file(doc),
            line,
            &Duplicate { id },
            Some((file(first).to_path_buf(), first_line)),
        );
        return Err(together(rounds, e));
    }
    Ok(Some((id_passes, checked)))
}

/// What the collapse stage leaves on a worker.
pub(super) struct Collapsed {
    /// The classes this worker folded, counted.
    pub summary: CollapseSummary,
    /// Its documents folded into another, ascending.
    pub folded_here: Vec<u32>,
    /// The classes' links `(representative, member)` this worker found.
    pub classes: Vec<(u32, u32)>,
}

/// The collapse: documents by image fingerprint (else canonical), one class per key.
pub(super) fn collapse_stage(
    rounds: &mut Rounds<'_>,
    docs: &[Doc],
    starts: &[u64],
) -> Result<Collapsed> {
    let prints: Vec<PrintMsg> = (docs.iter())
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
    let mut summary = CollapseSummary::default();
    let mut classes: Vec<(u32, u32)> = Vec::new();
    for g in got.chunk_by(|a, b| a.key == b.key) {
        if g.len() < 2 {
            continue;
        }
        let prints: Vec<_> = (g.iter())
            .map(|m| (m.doc, m.raw, m.canonical, m.key.0.then_some(m.key.1)))
            .collect();
        let (s, folded) = fold_class(&prints)?;
        summary.add(&s);
        classes.extend(folded);
    }
    let folded: Vec<Folded> = (classes.iter())
        .map(|&(rep, doc)| Folded { doc, rep })
        .collect();
    let starts_r = starts.to_vec();
    let mut mine = rounds.exchange(folded, move |f: &Folded| owner_of(&starts_r, f.doc));
    mine.sort_unstable_by_key(|f| f.doc);
    Ok(Collapsed {
        summary,
        folded_here: mine.into_iter().map(|f| f.doc).collect(),
        classes,
    })
}
