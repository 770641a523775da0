//! The calling thread: reorders the finished blocks by sequence number, checks the ids of
//! the line formats in input order ([`IdsInOrder`]) and hands the blocks to the consumer.
//!
//! Invariants: blocks reach the consumer in input order; the first error in document order
//! wins (a failed block's documents before the error are checked for duplicates first);
//! each block consumed or skipped returns one permit to the reader thread.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use super::block::{Block, Consume};
use crate::corpus::unique::{duplicate_error, first_occurrence};
use crate::corpus::{CorpusConfig, CorpusStats, IdCheck};
use crate::{Error, Result};

/// A finished piece of the output (with the line of each document when its ids are still to
/// be checked), or the end: the sequential reader's counts when it was used, and the lines
/// the reader thread skipped as too long.
pub(super) enum Piece<T> {
    Block(Block<T>, CorpusStats, Option<Vec<u64>>),
    /// A block that failed: the ids (and lines) of its documents before the error, which
    /// are checked first, since an earlier duplicate is the first error in document order.
    Failed(Vec<String>, Vec<u64>, Error),
    End(Option<CorpusStats>, u64),
    /// A block of another share: not mapped.
    Skipped,
}

pub(super) type Msg<T> = (u64, std::thread::Result<Result<Piece<T>>>);

/// The duplicate check of the calling thread.
pub(super) struct IdsInOrder<'a> {
    pub(super) check: Option<IdCheck>,
    pub(super) path: &'a Path,
    pub(super) cfg: &'a CorpusConfig,
}

impl IdsInOrder<'_> {
    /// Checks (and maybe renames) the ids of a block, documents at `lines`.
    pub(super) fn check(&mut self, ids: &mut [String], lines: &[u64]) -> Result<()> {
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
pub(super) fn consume_in_order<T>(
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
