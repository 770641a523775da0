//! A parallel corpus reader: reading, parsing and a per-document map overlap, and the
//! results come back in input order.
//!
//! [`par_map_corpus_with`] runs three kinds of work at once:
//! * a **reader thread** (one, sequential) reads the input. For JSONL and plain lines
//!   (gzip- or zstd-compressed or not, standard input included) it cuts the byte stream into blocks
//!   of about [`DEFAULT_BLOCK_BYTES`] and at most 8192 lines (a block's results take
//!   memory per document) at line boundaries, reading lines as the sequential reader does
//!   (so read errors name the same line), counting the documents of
//!   each block so that every block knows its first [`DocId`]. Formats that cannot be cut
//!   cheaply (CSV/TSV with quoting, directories, WARC, Parquet) and JSONL with
//!   [`CorpusConfig::skip_bad_lines`] (whose document count is only known after parsing)
//!   fall back to the sequential [`super::CorpusReader`], whose documents are handed over
//!   in batches;
//! * **workers** (rayon tasks on the current pool, so `--threads` applies) parse each
//!   block and call the map function on each of its documents, with a per-worker state;
//! * the **calling thread** reorders the finished blocks and hands them to the consumer in
//!   input order.
//!
//! The external ids travel beside the mapped results ([`Block::ext_ids`]): the calling
//! thread passes those of the line formats through the [`IdCheck`] in input order (the
//! sequential reader checks those of the other formats itself), so a duplicate is found,
//! or renamed, exactly as the sequential reader would. A line longer than
//! [`CorpusConfig::max_doc_bytes`] is read past by the reader thread (never held) and
//! counted, as the sequential reader does.
//!
//! Invariants: documents get exactly the DocIds, external ids, texts and counts that the
//! sequential reader gives them; blocks reach the consumer in input order, so the result
//! does not depend on the number of threads; the first error in document order wins (a
//! later block may fail first in time, it is reported only if nothing before it failed), and
//! it is the sequential reader's error (same file, line and message). At most
//! [`ParOptions::in_flight`] blocks exist at once (read, being mapped, or waiting to be
//! consumed), so memory is bounded by about `in_flight * block_bytes` of raw text plus
//! their results: the raw corpus is never held whole.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::Duration;

use super::input::{append_line, decode_ref, is_blank, open_read, read_err, Got};
use super::jsonl::parse_jsonl_line_fast;
use super::reader::too_many_documents;
use super::split::{LineRange, Split};
use super::unique::{check_for, duplicate_error, first_occurrence};
use super::{CorpusConfig, CorpusStats, Format, IdCheck};
use crate::{DocId, Error, Result};

/// Default size of a block of input bytes handed to one worker.
pub const DEFAULT_BLOCK_BYTES: usize = 1 << 20;

/// Documents per batch when the sequential reader feeds the workers (fallback formats).
const FALLBACK_DOCS: usize = 1024;

/// Lines per block at most, whatever their size: the results of a block take memory per
/// document, so a block of millions of empty lines must not be one block.
const MAX_BLOCK_LINES: u64 = 8192;

/// One document as the map function sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawDoc<'a> {
    /// Dense id in input order (as the sequential reader assigns it).
    pub id: DocId,
    /// The id the input gave it, before the duplicate check (the checked, possibly renamed
    /// id is in [`Block::ext_ids`]).
    pub ext_id: &'a str,
    /// The text (borrowed from the block when possible).
    pub text: Cow<'a, str>,
    /// True when invalid UTF-8 was replaced while decoding.
    pub lossy: bool,
    /// Byte offset of the document's line in the file, when the input is an uncompressed
    /// regular file in a line format (JSONL or plain lines): where
    /// [`LineDocReader::read_at`] finds it again. `None` for standard input, gzip, zstd
    /// and the formats read sequentially.
    pub offset: Option<u64>,
}

/// The mapped documents of one block, in input order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block<T> {
    /// DocId of the first item (the others follow densely).
    pub first: DocId,
    /// One result per document.
    pub items: Vec<T>,
    /// The external id of every document, checked for duplicates (and renamed with
    /// [`super::DuplicateIds::Suffix`]); empty strings for the documents a
    /// [`par_map_corpus_wanted`] does not want.
    pub ext_ids: Vec<String>,
    /// The block's sequence number: blocks are numbered densely in input order, the same
    /// way by every reader of the same input (the cut depends only on the input and
    /// [`ParOptions::block_bytes`]).
    pub seq: u64,
    /// With [`par_map_corpus_share`] on a line format, the 1-based line of every document,
    /// whose ids are then still to be checked ([`ShareIds`]); else `None`.
    pub lines: Option<Vec<u64>>,
}

/// One share of a corpus read by several workers ([`par_map_corpus_share`]): worker `index`
/// of `count` maps the blocks whose sequence number `s` has `s % count == index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Share {
    /// This worker, `0..count`.
    pub index: u32,
    /// Number of workers, at least 1.
    pub count: u32,
}

impl Share {
    /// True when block `seq` belongs to this share.
    pub fn owns(&self, seq: u64) -> bool {
        seq % u64::from(self.count.max(1)) == u64::from(self.index)
    }
}

/// Tuning of the parallel reader (the output never depends on it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParOptions {
    /// Bytes per block (at least one line per block whatever the size).
    pub block_bytes: usize,
    /// Blocks in flight at most; 0 = twice the number of rayon threads, plus 2.
    pub in_flight: usize,
}

impl Default for ParOptions {
    fn default() -> Self {
        ParOptions {
            block_bytes: DEFAULT_BLOCK_BYTES,
            in_flight: 0,
        }
    }
}

impl ParOptions {
    fn max_in_flight(&self) -> usize {
        if self.in_flight == 0 {
            2 * rayon::current_num_threads() + 2
        } else {
            self.in_flight
        }
    }
}

/// The per-document map of the parallel reader: the result for one document, given the
/// worker's state (a named form of the bound `Fn(&mut S, RawDoc<'_>) -> Result<T> + Sync`,
/// which every closure of that shape meets).
pub trait MapDoc<S, T>: Fn(&mut S, RawDoc<'_>) -> Result<T> + Sync {}

impl<S, T, F: Fn(&mut S, RawDoc<'_>) -> Result<T> + Sync> MapDoc<S, T> for F {}

/// The consumer of the mapped blocks, called on the calling thread in input order.
pub trait Consume<T>: FnMut(Block<T>) -> Result<()> {}

impl<T, C: FnMut(Block<T>) -> Result<()>> Consume<T> for C {}

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
/// ([`Split`], see [`super::split`]): the blocks of its byte range, or its blocks of the
/// whole input ([`Share`]; the others are read past without being parsed for plain lines
/// and JSONL, or read by the sequential reader and not mapped for the other formats). The
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
            if line_kind(path, cfg)?.is_none() || r.end < r.start || r.first_line == 0 {
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

/// The duplicate-id check of the line formats over the blocks of every share, in input
/// order: what the parallel reader checks of a whole corpus, with the same errors.
pub struct ShareIds<'a> {
    ids: IdsInOrder<'a>,
}

impl<'a> ShareIds<'a> {
    /// The check for `path` (none needed when the format or configuration cannot repeat
    /// ids, or when the sequential reader checks them itself).
    pub fn new(path: &'a Path, cfg: &'a CorpusConfig) -> Result<Self> {
        let check = match line_kind(path, cfg)? {
            Some(_) => check_for(cfg.format_of(path)?, cfg),
            None => None,
        };
        Ok(ShareIds {
            ids: IdsInOrder { check, path, cfg },
        })
    }

    /// Checks (and maybe renames) the ids of one block, documents at `lines`; blocks must
    /// come in input order.
    pub fn check(&mut self, ids: &mut [String], lines: &[u64]) -> Result<()> {
        self.ids.check(ids, lines)
    }

    /// Ids renamed so far.
    pub fn renamed(&self) -> u64 {
        self.ids.check.as_ref().map_or(0, |c| c.renamed())
    }
}

/// What the reader hands to a worker.
enum Job {
    /// Whole lines (each with its `\n`, except maybe the last line of the input) of a
    /// line-based format.
    Lines {
        bytes: Vec<u8>,
        /// 1-based line number of the first line.
        first_line: u64,
        /// DocId of the first document.
        first_doc: u64,
        /// Byte offset in the file of `bytes[0]`, when the input is a seekable file.
        first_byte: Option<u64>,
    },
    /// Documents already read by the sequential reader.
    Docs(Vec<super::Document>),
}

/// How the lines of a block become documents.
#[derive(Clone, Copy)]
enum LineKind<'a> {
    Jsonl {
        text_field: &'a str,
        id_field: &'a str,
    },
    Lines,
}

impl<'a> LineKind<'a> {
    /// JSONL with the fields of `cfg`, or plain lines.
    fn new(jsonl: bool, cfg: &'a CorpusConfig) -> Self {
        if jsonl {
            LineKind::Jsonl {
                text_field: &cfg.text_field,
                id_field: &cfg.id_field,
            }
        } else {
            LineKind::Lines
        }
    }
}

/// A finished piece of the output (with the line of each document when its ids are still to
/// be checked), or the end: the sequential reader's counts when it was used, and the lines
/// the reader thread skipped as too long.
enum Piece<T> {
    Block(Block<T>, CorpusStats, Option<Vec<u64>>),
    /// A block that failed: the ids (and lines) of its documents before the error, which
    /// are checked first, since an earlier duplicate is the first error in document order.
    Failed(Vec<String>, Vec<u64>, Error),
    End(Option<CorpusStats>, u64),
    /// A block of another share: not mapped.
    Skipped,
}

/// The result of a block of lines that failed with `e` after the documents `ext_ids`
/// (at `lines`, when their ids are to be checked).
fn failed<T>(e: Error, ext_ids: Vec<String>, lines: Option<Vec<u64>>) -> Result<Piece<T>> {
    match lines {
        Some(lines) => Ok(Piece::Failed(ext_ids, lines, e)),
        None => Err(e),
    }
}

type Msg<T> = (u64, std::thread::Result<Result<Piece<T>>>);

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
        Seq(Box<super::CorpusReader>),
    }
    let src = match (line_kind, range) {
        (Some(_), Some(r)) => Src::Lines(open_range(path, r.start, r.end)?),
        (Some(_), None) => Src::Lines(open_read(path)?),
        (None, _) => Src::Seq(Box::new(super::open(path, cfg)?)),
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

/// The duplicate check of the calling thread.
struct IdsInOrder<'a> {
    check: Option<IdCheck>,
    path: &'a Path,
    cfg: &'a CorpusConfig,
}

impl IdsInOrder<'_> {
    /// Checks (and maybe renames) the ids of a block, documents at `lines`.
    fn check(&mut self, ids: &mut [String], lines: &[u64]) -> Result<()> {
        let Some(c) = &mut self.check else {
            return Ok(());
        };
        for (id, &line) in ids.iter_mut().zip(lines) {
            if let Err(d) = c.check(id) {
                let first = first_occurrence(self.path, self.cfg, &d.id);
                return Err(duplicate_error(self.path, line, &d, first));
            }
        }
        Ok(())
    }
}

/// Reorders the pieces and feeds `consume`; returns the counts at the end.
fn consume_in_order<T>(
    res_rx: mpsc::Receiver<Msg<T>>,
    permit_tx: mpsc::SyncSender<()>,
    mut ids: IdsInOrder<'_>,
    share_mode: bool,
    consume: &mut impl Consume<T>,
) -> Result<CorpusStats> {
    let mut pending: BTreeMap<u64, Result<Piece<T>>> = BTreeMap::new();
    let mut next = 0u64;
    let mut stats = CorpusStats {
        files: 1,
        ..CorpusStats::default()
    };
    loop {
        while let Some(r) = pending.remove(&next) {
            let seq = next;
            next += 1;
            match r? {
                Piece::Block(mut b, s, lines) => {
                    stats.add(&s);
                    // The reader may already be gone (it ended): a lost permit is fine.
                    let _ = permit_tx.try_send(());
                    b.seq = seq;
                    if share_mode {
                        // A share hands every owned block on, with the lines of its
                        // documents when their ids are still to be checked.
                        b.lines = lines;
                        consume(b)?;
                    } else {
                        if let Some(lines) = lines {
                            ids.check(&mut b.ext_ids, &lines)?;
                        }
                        if !b.items.is_empty() {
                            consume(b)?;
                        }
                    }
                }
                Piece::Skipped => {
                    let _ = permit_tx.try_send(());
                }
                Piece::Failed(mut failed_ids, lines, e) => {
                    ids.check(&mut failed_ids, &lines)?;
                    return Err(e);
                }
                Piece::End(seq_stats, oversized) => {
                    let mut stats = seq_stats.unwrap_or(stats);
                    stats.skipped_oversized += oversized;
                    if let Some(c) = &ids.check {
                        stats.renamed_ids += c.renamed();
                    }
                    return Ok(stats);
                }
            }
        }
        let (seq, r) = match wait(&res_rx) {
            Some(m) => m,
            None => {
                return Err(Error::Limit(
                    "parallel reader: a worker stopped without a result".into(),
                ))
            }
        };
        match r {
            Ok(r) => {
                pending.insert(seq, r);
            }
            Err(payload) => std::panic::resume_unwind(payload),
        }
    }
}

/// The next message; inside a rayon pool, helps with pending work while waiting (so that a
/// one-thread pool whose only thread is the caller cannot deadlock).
fn wait<M>(rx: &mpsc::Receiver<M>) -> Option<M> {
    if rayon::current_thread_index().is_none() {
        return rx.recv().ok();
    }
    loop {
        match rx.try_recv() {
            Ok(m) => return Some(m),
            Err(mpsc::TryRecvError::Disconnected) => return None,
            Err(mpsc::TryRecvError::Empty) => {}
        }
        if let Some(rayon::Yield::Executed) = rayon::yield_now() {
            continue;
        }
        match rx.recv_timeout(Duration::from_micros(200)) {
            Ok(m) => return Some(m),
            Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    }
}

/// How the parallel reader reads `path` by lines (JSONL, unless malformed lines are to be
/// skipped, or plain lines); `None` for the formats read by the sequential reader.
fn line_kind<'c>(path: &Path, cfg: &'c CorpusConfig) -> Result<Option<LineKind<'c>>> {
    Ok(match cfg.format_of(path)? {
        Format::Jsonl if !cfg.skip_bad_lines => Some(LineKind::new(true, cfg)),
        Format::Lines => Some(LineKind::new(false, cfg)),
        _ => None,
    })
}

/// Whether positions in the bytes read from `path` are positions in the file: an
/// uncompressed regular file (not standard input, not gzip or zstd).
fn offsets_are_file_offsets(path: &Path) -> bool {
    path != Path::new("-")
        && !crate::io::Compression::of_path(path).is_compressed()
        && std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// The sizes the reader of line-based formats works with.
#[derive(Clone, Copy)]
struct LineLimits {
    /// Bytes per block (at least one line).
    block_bytes: usize,
    /// The longest line kept (longer ones are read past and counted).
    max_doc_bytes: u64,
}

/// The reader of line-based formats: cuts blocks and dispatches them with `run(seq, job)`.
/// With `seekable`, each block carries the file offset of its first byte. A line longer
/// than the largest document ends the block before it and is read past, not held.
/// Returns the sequence number of the end and how the reading ended (with the number of
/// lines skipped as too long).
#[allow(clippy::too_many_arguments)]
fn read_lines(
    mut r: Box<dyn BufRead + Send>,
    path: &Path,
    kind: Option<LineKind<'_>>,
    limits: LineLimits,
    seekable: bool,
    from: LineRange,
    permits: &mpsc::Receiver<()>,
    mut run: impl FnMut(u64, Job),
) -> (u64, Result<(Option<CorpusStats>, u64)>) {
    let LineLimits {
        block_bytes,
        max_doc_bytes,
    } = limits;
    let mut oversized = 0u64;
    let jsonl = matches!(kind, Some(LineKind::Jsonl { .. }));
    let mut seq = 0u64;
    // Lines and documents before the reader's first byte (`from`: the whole input, or one
    // byte range of it).
    let mut line = from.first_line - 1;
    let mut docs = from.first_doc;
    let mut buf: Vec<u8> = Vec::with_capacity(block_bytes + (block_bytes >> 2));
    let mut first_line = from.first_line;
    let mut first_doc = from.first_doc;
    let mut block_lines = 0u64;
    // Bytes read from the input so far, and the offset of `buf[0]` in it.
    let mut read = from.start;
    let mut first_byte = from.start;
    let mut ship = |buf: &mut Vec<u8>,
                    first_line: u64,
                    first_doc: u64,
                    first_byte: u64,
                    seq: &mut u64|
     -> bool {
        if permits.recv().is_err() {
            return false; // the consumer has stopped
        }
        let bytes = std::mem::replace(buf, Vec::with_capacity(block_bytes + (block_bytes >> 2)));
        run(
            *seq,
            Job::Lines {
                bytes,
                first_line,
                first_doc,
                first_byte: seekable.then_some(first_byte),
            },
        );
        *seq += 1;
        true
    };
    // How the reading ends; the lines before the end are shipped in any case.
    let end = loop {
        let start = buf.len();
        let n = match append_line(&mut *r, &mut buf, max_doc_bytes) {
            Ok(Got::Eof) => break Ok((None, oversized)),
            Ok(Got::Line(n)) => n,
            Ok(Got::Oversized(n)) => {
                // Not a document: the lines before it go as one block, the next block
                // starts after it.
                if !buf.is_empty() && !ship(&mut buf, first_line, first_doc, first_byte, &mut seq) {
                    return (seq, Ok((None, oversized)));
                }
                read += n;
                line += 1;
                oversized += 1;
                block_lines = 0;
                first_line = line + 1;
                first_doc = docs;
                first_byte = read;
                continue;
            }
            Err(e) => break Err(read_err(path, line + 1, e)),
        };
        read += n as u64;
        line += 1;
        if line == 1 && from.start == 0 && buf.starts_with(b"\xEF\xBB\xBF") {
            buf.drain(..3);
            first_byte = 3;
        }
        let is_doc = !jsonl || !is_blank(&buf[start..]);
        if is_doc {
            if docs > u64::from(u32::MAX) {
                buf.truncate(start);
                break Err(too_many_documents(path));
            }
            docs += 1;
        }
        block_lines += 1;
        if buf.len() >= block_bytes || block_lines >= MAX_BLOCK_LINES {
            if !ship(&mut buf, first_line, first_doc, first_byte, &mut seq) {
                return (seq, Ok((None, oversized)));
            }
            block_lines = 0;
            first_line = line + 1;
            first_doc = docs;
            first_byte = read;
        }
    };
    if !buf.is_empty() && !ship(&mut buf, first_line, first_doc, first_byte, &mut seq) {
        return (seq, Ok((None, oversized)));
    }
    (seq, end)
}

/// The bytes `[start, end)` of the file at `path`.
fn open_range(path: &Path, start: u64, end: u64) -> Result<Box<dyn BufRead + Send>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    f.seek(SeekFrom::Start(start))
        .map_err(|e| Error::io(path, e))?;
    Ok(Box::new(std::io::BufReader::with_capacity(
        1 << 20,
        f.take(end - start),
    )))
}

/// The reader of the other formats: the sequential reader in batches.
fn read_seq(
    mut r: super::CorpusReader,
    block_bytes: usize,
    permits: &mpsc::Receiver<()>,
    mut run: impl FnMut(u64, Job),
) -> (u64, Result<Option<CorpusStats>>) {
    let mut seq = 0u64;
    loop {
        let mut docs = Vec::new();
        let mut bytes = 0usize;
        let mut end = None;
        while docs.len() < FALLBACK_DOCS && bytes < block_bytes {
            match r.next() {
                Some(Ok(d)) => {
                    bytes += d.text.len() + d.ext_id.len();
                    docs.push(d);
                }
                Some(Err(e)) => {
                    end = Some(Err(e));
                    break;
                }
                None => {
                    end = Some(Ok(Some(r.stats())));
                    break;
                }
            }
        }
        if !docs.is_empty() {
            if permits.recv().is_err() {
                return (seq, Ok(None));
            }
            run(seq, Job::Docs(docs));
            seq += 1;
        }
        if let Some(e) = end {
            return (seq, e);
        }
    }
}

/// Parses and maps one block; with `check_ids`, a block of lines also gives the line of
/// every document (for the duplicate check of the calling thread).
#[allow(clippy::too_many_arguments)]
fn run_job<S, T>(
    job: Job,
    kind: Option<LineKind<'_>>,
    path: &Path,
    wanted: Option<&[DocId]>,
    skip: fn() -> T,
    check_ids: bool,
    st: &mut S,
    f: &impl MapDoc<S, T>,
) -> Result<Piece<T>> {
    let mut stats = CorpusStats::default();
    let unwanted = |d: DocId| wanted.is_some_and(|w| w.binary_search(&d).is_err());
    match job {
        Job::Docs(docs) => {
            let first = docs.first().map_or(DocId(0), |d| d.id);
            let mut items = Vec::with_capacity(docs.len());
            let mut ext_ids = Vec::with_capacity(docs.len());
            for d in docs {
                if unwanted(d.id) {
                    items.push(skip());
                    ext_ids.push(String::new());
                    continue;
                }
                items.push(f(
                    st,
                    RawDoc {
                        id: d.id,
                        ext_id: &d.ext_id,
                        text: Cow::Owned(d.text),
                        lossy: d.lossy,
                        offset: None,
                    },
                )?);
                ext_ids.push(d.ext_id);
            }
            Ok(Piece::Block(
                Block {
                    first,
                    items,
                    ext_ids,
                    seq: 0,
                    lines: None,
                },
                stats,
                None,
            ))
        }
        Job::Lines {
            bytes,
            first_line,
            first_doc,
            first_byte,
        } => {
            let kind = kind.unwrap_or(LineKind::Lines);
            let mut items = Vec::new();
            let mut ext_ids = Vec::new();
            let mut lines = Vec::new();
            let mut line_no = first_line - 1;
            let mut id = first_doc;
            let mut at = 0u64;
            for raw in bytes.split_inclusive(|&b| b == b'\n') {
                line_no += 1;
                let offset = first_byte.map(|b| b + at);
                at += raw.len() as u64;
                let mut l = raw;
                if let Some(x) = l.strip_suffix(b"\n") {
                    l = x.strip_suffix(b"\r").unwrap_or(x);
                }
                if unwanted(DocId(id as u32)) {
                    // Not decoded nor parsed; a blank JSONL line is still no document.
                    let blank = matches!(kind, LineKind::Jsonl { .. }) && is_blank(l);
                    if !blank {
                        items.push(skip());
                        ext_ids.push(String::new());
                        id += 1;
                    }
                    continue;
                }
                let (ext_id, text, lossy) = match parse_line(l, kind) {
                    Ok(Some((ext, text, lossy))) => {
                        (ext.unwrap_or_else(|| line_no.to_string()), text, lossy)
                    }
                    Ok(None) => continue,
                    Err(msg) => {
                        let e = Error::parse(path, line_no, msg);
                        return failed(e, ext_ids, check_ids.then_some(lines));
                    }
                };
                stats.count_document(&text, lossy);
                let item = f(
                    st,
                    RawDoc {
                        id: DocId(id as u32),
                        ext_id: &ext_id,
                        text,
                        lossy,
                        offset,
                    },
                );
                match item {
                    Ok(item) => items.push(item),
                    Err(e) => return failed(e, ext_ids, check_ids.then_some(lines)),
                }
                ext_ids.push(ext_id);
                if check_ids {
                    lines.push(line_no);
                }
                id += 1;
            }
            Ok(Piece::Block(
                Block {
                    first: DocId(first_doc as u32),
                    items,
                    ext_ids,
                    seq: 0,
                    lines: None,
                },
                stats,
                check_ids.then_some(lines),
            ))
        }
    }
}

/// One line of a line format (without its line end) as a document: its external id
/// (`None`: the line number is the id), text and whether UTF-8 was replaced; `Ok(None)` for
/// a blank JSONL line (no document).
fn parse_line<'a>(
    l: &'a [u8],
    kind: LineKind<'_>,
) -> std::result::Result<Option<ParsedLine<'a>>, String> {
    match kind {
        LineKind::Lines => {
            let (text, lossy) = decode_ref(l);
            Ok(Some((None, text, lossy)))
        }
        LineKind::Jsonl {
            text_field,
            id_field,
        } => {
            if is_blank(l) {
                return Ok(None);
            }
            match decode_ref(l) {
                (Cow::Borrowed(line), lossy) => parse_jsonl_line_fast(line, text_field, id_field)
                    .map(|(i, t)| Some((i, t, lossy))),
                (Cow::Owned(line), lossy) => parse_jsonl_line_fast(&line, text_field, id_field)
                    .map(|(i, t)| Some((i, Cow::Owned(t.into_owned()), lossy))),
            }
        }
    }
}

/// What [`parse_line`] makes of a line: external id (if the line names one), text, lossy.
type ParsedLine<'a> = (Option<String>, Cow<'a, str>, bool);

/// Reads single documents of a line-format corpus file (JSONL or plain lines, uncompressed)
/// at the byte offsets that the parallel reader reported ([`RawDoc::offset`]): for a second
/// look at a few documents (e.g. verifying candidate pairs) without reading the whole
/// file again. Shared by threads (positional reads).
pub struct LineDocReader {
    file: std::fs::File,
    path: std::path::PathBuf,
    cfg: CorpusConfig,
    jsonl: bool,
}

/// A document read again by [`LineDocReader::read_at`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineDoc {
    /// The external id the line names (`None` in plain lines, or a JSONL line without the
    /// id field, whose id is the line number).
    pub ext_id: Option<String>,
    /// The text, decoded as the parallel reader decodes it.
    pub text: String,
}

impl LineDocReader {
    /// Opens `path`; `None` when the corpus is not a seekable line-format file (standard
    /// input, gzip, zstd, CSV/TSV, directories, Parquet, WARC, JSONL read with
    /// `skip_bad_lines`), i.e.
    /// whenever the parallel reader reports no offsets.
    pub fn open(path: &Path, cfg: &CorpusConfig) -> Result<Option<Self>> {
        let jsonl = match line_kind(path, cfg)? {
            Some(kind) => matches!(kind, LineKind::Jsonl { .. }),
            None => return Ok(None),
        };
        if !offsets_are_file_offsets(path) {
            return Ok(None);
        }
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        Ok(Some(LineDocReader {
            file,
            path: path.to_path_buf(),
            cfg: cfg.clone(),
            jsonl,
        }))
    }

    /// The document whose line starts at byte `offset`, using `buf` as scratch. An offset
    /// that does not start a document line (the file changed since it was read) is an
    /// error naming the offset.
    pub fn read_at(&self, offset: u64, buf: &mut Vec<u8>) -> Result<LineDoc> {
        buf.clear();
        let mut pos = offset;
        let mut chunk = [0u8; 8192];
        loop {
            let n = read_at(&self.file, &mut chunk, pos).map_err(|e| Error::io(&self.path, e))?;
            if n == 0 {
                break;
            }
            let got = &chunk[..n];
            if let Some(i) = memchr::memchr(b'\n', got) {
                buf.extend_from_slice(&got[..i]);
                break;
            }
            buf.extend_from_slice(got);
            pos += n as u64;
        }
        let l = buf.strip_suffix(b"\r").unwrap_or(buf);
        let kind = LineKind::new(self.jsonl, &self.cfg);
        let changed = |what: String| {
            Error::format(
                &self.path,
                format!("byte offset {offset}: {what}; the file changed since it was read"),
            )
        };
        match parse_line(l, kind) {
            Ok(Some((ext_id, text, _))) => Ok(LineDoc {
                ext_id,
                text: text.into_owned(),
            }),
            Ok(None) => Err(changed("a blank line, not a document".into())),
            Err(msg) => Err(changed(msg)),
        }
    }
}

#[cfg(unix)]
fn read_at(f: &std::fs::File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(f, buf, pos)
}

#[cfg(windows)]
fn read_at(f: &std::fs::File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(f, buf, pos)
}

/// Reads the whole corpus with the parallel reader into documents (for tests and small
/// inputs; holds the corpus).
pub fn read_all_par(
    path: &Path,
    cfg: &CorpusConfig,
) -> Result<(Vec<super::Document>, CorpusStats)> {
    read_all_par_opts(path, cfg, &ParOptions::default())
}

/// As [`read_all_par`] with explicit options (small blocks exercise the block boundaries).
pub fn read_all_par_opts(
    path: &Path,
    cfg: &CorpusConfig,
    opts: &ParOptions,
) -> Result<(Vec<super::Document>, CorpusStats)> {
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
                    |((id, text, lossy), ext_id)| super::Document {
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
