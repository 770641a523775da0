//! The entry points of the parallel reader ([`par_map_corpus`] and its variants, and
//! [`read_all_par`]) and the threads behind them: the reader thread started here, the
//! workers spawned on the current rayon pool, and the calling thread delivering in order.
//!
//! Invariants: the documents mapped get the DocIds, external ids and texts the sequential
//! reader gives them, whatever the thread count and options (what each entry point counts
//! is stated on it); at most [`ParOptions::in_flight`] blocks exist at once.

use std::io::BufRead;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::mpsc;
use std::sync::Mutex;

use super::block::{Consume, MapDoc, RawDoc};
use super::cut::{offsets_are_file_offsets, read_lines, read_seq, Job, LineLimits};
use super::options::ParOptions;
use super::order::{consume_in_order, IdsInOrder, Msg, Piece};
use super::parse::{line_kind, run_job};
use crate::corpus::input::open_read;
use crate::corpus::split::{open_piece, LineRange, Split};
use crate::corpus::unique::check_for;
use crate::corpus::{CorpusConfig, CorpusStats};
use crate::{DocId, Error, Result};

#[cfg(doc)]
use super::{Block, Share, ShareIds};

/// [`par_map_corpus_with`] without per-worker state.
pub fn par_map_corpus<T: Send>(
    path: &Path,
    cfg: &CorpusConfig,
    f: impl Fn(RawDoc<'_>) -> Result<T> + Sync,
    consume: impl Consume<T>,
) -> Result<CorpusStats> {
    par_map_corpus_with(path, cfg, || (), |_, d| f(d), consume)
}

/// Reads the corpus at `path` in parallel, maps every document with `f` (given a per-worker
/// state made by `init`; `f` must not let the state change its result) and hands the
/// results to `consume` block by block in input order, on the calling thread. Returns the
/// reader's counts. Stops at the first error in document order (of the reader, of `f` or of
/// `consume`).
pub fn par_map_corpus_with<S: Send, T: Send>(
    path: &Path,
    cfg: &CorpusConfig,
    init: impl Fn() -> S + Sync,
    f: impl MapDoc<S, T>,
    consume: impl Consume<T>,
) -> Result<CorpusStats> {
    par_map_corpus_opts(path, cfg, &ParOptions::default(), init, f, consume)
}

/// As [`par_map_corpus_opts`], but maps only the documents whose DocId is in `wanted`
/// (ascending): the others come out as `None`, and in JSONL and plain-line input (whose
/// DocIds follow from line positions) their lines are not even decoded or parsed. Those
/// lines are then neither checked nor counted, so this is for a corpus read whole before
/// (e.g. re-reading the candidates of an earlier pass); the counts returned cover the
/// documents parsed only.
pub fn par_map_corpus_wanted<S: Send, T: Send>(
    path: &Path,
    cfg: &CorpusConfig,
    opts: &ParOptions,
    wanted: &[DocId],
    init: impl Fn() -> S + Sync,
    f: impl MapDoc<S, T>,
    consume: impl Consume<Option<T>>,
) -> Result<CorpusStats> {
    if !wanted.windows(2).all(|w| w[0] < w[1]) {
        return Err(Error::config(
            "wanted DocIds must be strictly ascending".to_string(),
        ));
    }
    par_map_impl(
        path,
        cfg,
        opts,
        Some(wanted),
        || None,
        init,
        |st, d| f(st, d).map(Some),
        consume,
    )
}

/// As [`par_map_corpus_opts`], but maps only one worker's share of the corpus
/// ([`Split`], see [`crate::corpus::split`]): the blocks of its byte range (for a Parquet
/// file: of its row groups that start in the range), or its blocks of the whole input
/// ([`Share`]; the others are read past without being parsed for plain lines and JSONL, or
/// read by the sequential reader and not mapped for the other formats). The
/// consumer sees the worker's blocks (empty ones included) in input order, each with its
/// [`Block::seq`] (numbered from 0 within a byte range, over the whole input otherwise).
///
/// The ids of line formats are not checked for duplicates here (a worker does not see the
/// others' ids): each block carries its documents' lines ([`Block::lines`]) for a
/// [`ShareIds`] check of all blocks in input order. The counts returned are this worker's,
/// such that the counts of all workers sum to those of the whole corpus: the documents
/// parsed, and, for worker 0 only, the counts of the input as a whole (files, and, for
/// block shares, oversized lines and everything the sequential reader counts).
pub fn par_map_corpus_share<S: Send, T: Send>(
    path: &Path,
    cfg: &CorpusConfig,
    opts: &ParOptions,
    split: Split,
    init: impl Fn() -> S + Sync,
    f: impl MapDoc<S, T>,
    consume: impl Consume<T>,
) -> Result<CorpusStats> {
    let first = match split {
        Split::Blocks(share) => {
            if share.count == 0 || share.index >= share.count {
                return Err(Error::config(format!(
                    "share must be i/N with 0 <= i < N, not {}/{}",
                    share.index, share.count
                )));
            }
            share.index == 0
        }
        Split::Range(r) => {
            let parquet = cfg.format_of(path)? == crate::corpus::Format::Parquet;
            if (line_kind(path, cfg)?.is_none() && !parquet) || r.end < r.start || r.first_line == 0
            {
                return Err(Error::config(format!(
                    "{}: a byte range of a file that is not split into ranges",
                    path.display()
                )));
            }
            r.start == 0
        }
    };
    let mut stats = par_map_inner(
        path,
        cfg,
        opts,
        None,
        Some(split),
        || unreachable!("every document of a share is wanted"),
        init,
        f,
        consume,
    )?;
    if !first {
        stats.files = 0;
        if let Split::Blocks(_) = split {
            stats.skipped_oversized = 0;
            if line_kind(path, cfg)?.is_none() {
                stats = CorpusStats::default();
            }
        }
    }
    Ok(stats)
}

/// As [`par_map_corpus_with`] with explicit [`ParOptions`].
pub fn par_map_corpus_opts<S: Send, T: Send>(
    path: &Path,
    cfg: &CorpusConfig,
    opts: &ParOptions,
    init: impl Fn() -> S + Sync,
    f: impl MapDoc<S, T>,
    consume: impl Consume<T>,
) -> Result<CorpusStats> {
    par_map_impl(
        path,
        cfg,
        opts,
        None,
        || unreachable!("every document is wanted"),
        init,
        f,
        consume,
    )
}

/// The reader behind every entry point: with `wanted`, documents not in it give `skip()`.
#[allow(clippy::too_many_arguments)]
fn par_map_impl<S: Send, T: Send>(
    path: &Path,
    cfg: &CorpusConfig,
    opts: &ParOptions,
    wanted: Option<&[DocId]>,
    skip: fn() -> T,
    init: impl Fn() -> S + Sync,
    f: impl MapDoc<S, T>,
    consume: impl Consume<T>,
) -> Result<CorpusStats> {
    par_map_inner(path, cfg, opts, wanted, None, skip, init, f, consume)
}

/// [`par_map_impl`], with a [`Share`]: the blocks of other shares are not mapped, and the
/// lines of the owned ones come with them instead of their ids being checked.
#[allow(clippy::too_many_arguments)]
fn par_map_inner<S: Send, T: Send>(
    path: &Path,
    cfg: &CorpusConfig,
    opts: &ParOptions,
    wanted: Option<&[DocId]>,
    split: Option<Split>,
    skip: fn() -> T,
    init: impl Fn() -> S + Sync,
    f: impl MapDoc<S, T>,
    mut consume: impl Consume<T>,
) -> Result<CorpusStats> {
    let line_kind = line_kind(path, cfg)?;
    // The sequential reader checks the ids of the formats it reads; those of the line
    // formats are checked here, on the calling thread, in input order (or, for a share,
    // handed on with their lines).
    let check = match (line_kind, wanted, split) {
        (Some(_), None, None) => check_for(cfg.format_of(path)?, cfg),
        _ => None,
    };
    let check_ids = check.is_some() || (split.is_some() && line_kind.is_some());
    let share = match split {
        Some(Split::Blocks(s)) => Some(s),
        _ => None,
    };
    let range = match split {
        Some(Split::Range(r)) => Some(r),
        _ => None,
    };
    let max_doc_bytes = cfg.max_doc_bytes;
    // Open in the calling thread, so that a missing file fails before any thread starts.
    enum Src {
        Lines(Box<dyn BufRead + Send>),
        Seq(Box<crate::corpus::CorpusReader>),
    }
    let src = match (line_kind, range) {
        (Some(_), Some(r)) => Src::Lines(open_piece(path, r.start, r.end)?),
        (Some(_), None) => {
            if wanted.is_none() {
                crate::corpus::refuse_over_cap(path, cfg)?;
            }
            Src::Lines(open_read(path)?)
        }
        // A byte range of a Parquet file: its row groups that start there.
        (None, Some(r)) => Src::Seq(Box::new(crate::corpus::open_row_groups(
            path, cfg, r.start, r.end,
        )?)),
        (None, None) => Src::Seq(Box::new(crate::corpus::open(path, cfg)?)),
    };
    let seekable = line_kind.is_some() && offsets_are_file_offsets(path);
    let max = opts.max_in_flight().max(1);
    let block_bytes = opts.block_bytes.max(1);
    let states: Mutex<Vec<S>> = Mutex::new(Vec::new());
    let (res_tx, res_rx) = mpsc::channel::<Msg<T>>();
    let (permit_tx, permit_rx) = mpsc::sync_channel::<()>(max);
    for _ in 0..max {
        permit_tx
            .send(())
            .expect("the channel has room for every permit");
    }
    let (init, f) = (&init, &f);
    let states = &states;
    rayon::in_place_scope(|scope| {
        std::thread::scope(|ts| {
            let res_tx_reader = res_tx.clone();
            let path_r = path;
            ts.spawn(move || {
                let run = |seq: u64, job: Job| {
                    let tx = res_tx_reader.clone();
                    if share.is_some_and(|sh| !sh.owns(seq)) {
                        let _ = tx.send((seq, Ok(Ok(Piece::Skipped))));
                        return;
                    }
                    scope.spawn(move |_| {
                        let r = catch_unwind(AssertUnwindSafe(|| {
                            let mut st = states
                                .lock()
                                .map(|mut v| v.pop())
                                .unwrap_or(None)
                                .unwrap_or_else(init);
                            let r = run_job(
                                job, line_kind, path_r, wanted, skip, check_ids, &mut st, f,
                            );
                            if let Ok(mut v) = states.lock() {
                                v.push(st);
                            }
                            r
                        }));
                        let _ = tx.send((seq, r));
                    });
                };
                let r = catch_unwind(AssertUnwindSafe(|| match src {
                    Src::Lines(r) => read_lines(
                        r,
                        path_r,
                        line_kind,
                        LineLimits {
                            block_bytes,
                            max_doc_bytes,
                        },
                        seekable,
                        range.unwrap_or(LineRange {
                            first_line: 1,
                            ..LineRange::default()
                        }),
                        &permit_rx,
                        run,
                    ),
                    Src::Seq(r) => {
                        let (seq, r) = read_seq(*r, block_bytes, &permit_rx, run);
                        (seq, r.map(|s| (s, 0)))
                    }
                }));
                let (seq, r) = match r {
                    Ok((seq, r)) => (seq, Ok(r.map(|(s, n)| Piece::End(s, n)))),
                    Err(p) => (u64::MAX, Err(p)),
                };
                let _ = res_tx_reader.send((seq, r));
            });
            drop(res_tx);
            let ids = IdsInOrder { check, path, cfg };
            let share_mode = split.is_some();
            consume_in_order(res_rx, permit_tx, ids, share_mode, &mut consume)
        })
    })
}

/// Reads the whole corpus with the parallel reader into documents (for tests and small
/// inputs; holds the corpus).
pub fn read_all_par(
    path: &Path,
    cfg: &CorpusConfig,
) -> Result<(Vec<crate::corpus::Document>, CorpusStats)> {
    read_all_par_opts(path, cfg, &ParOptions::default())
}

/// As [`read_all_par`] with explicit options (small blocks exercise the block boundaries).
pub fn read_all_par_opts(
    path: &Path,
    cfg: &CorpusConfig,
    opts: &ParOptions,
) -> Result<(Vec<crate::corpus::Document>, CorpusStats)> {
    let mut out = Vec::new();
    let stats =
        par_map_corpus_opts(
            path,
            cfg,
            opts,
            || (),
            |_, d| Ok((d.id, d.text.into_owned(), d.lossy)),
            |b| {
                out.extend(b.items.into_iter().zip(b.ext_ids).map(
                    |((id, text, lossy), ext_id)| crate::corpus::Document {
                        id,
                        ext_id,
                        text,
                        lossy,
                    },
                ));
                Ok(())
            },
        )?;
    Ok((out, stats))
}
