//! Streaming the itemsets as `i1 i2 ... (support)` lines ([`write_itemsets`]).
//!
//! Invariant: lines come in the search order (deterministic, independent of the thread
//! count); the first write error is kept and reported with the output's name.

use std::io::Write;
use std::path::Path;

use super::prep;
use super::run::{root_emit, run_branches, setup, stats, Root};
use super::search::{self, Miner, Scratch, Sink};
use super::sink::{decode, BufSink, CountSink, Limit, Tally};
use super::{MineConfig, MineStats, Target};
use crate::fimi::Transactions;
use crate::{Error, Result};

/// Mines `t` and writes the itemsets to `out`, one per line as `i1 i2 ... (support)` with
/// items ascending; `label` names the output in errors. Lines come in the search order
/// (the set of items in every transaction first, then branch by branch in ascending order of
/// item frequency), which is deterministic and independent of the thread count; on one
/// thread they are streamed as found, on more they are buffered a few branches at a time.
pub fn write_itemsets<W: Write>(
    t: &Transactions,
    cfg: &MineConfig,
    out: &mut W,
    label: &Path,
) -> Result<MineStats> {
    let (mut prep, minsup) = setup(t, cfg, true, prep::SPLIT_MIN_ITEMS)?;
    let limit = Limit::new(cfg.max_itemsets);
    let mut line = LineWriter::new(out, label);
    let mut root = BufSink::new(&limit);
    root_emit(&prep, cfg.target, &mut root);
    root.decode_into(&prep, |items, s| line.write(items, s));
    let m = prep.root.gid.len();
    let threads = rayon::current_num_threads();
    if threads <= 1 {
        let top = search::Top::new(&mut prep);
        let mut sink = WriteSink {
            limit: CountSink::new(&limit),
            prep: &prep,
            line: &mut line,
            items: Vec::new(),
        };
        let minsup = minsup.min(u64::from(u32::MAX)) as u32;
        let mut miner = Miner::new(minsup, cfg.target, &mut sink, Scratch::new(m));
        miner.run_top(&prep.root, &top, 0..m);
        sink.limit.flush();
    } else {
        // Maximal sets: one pass (the waves share one repository); others: a few
        // branches at a time.
        let window = if cfg.target == Target::Maximal {
            m
        } else {
            threads * 4
        };
        let root = Root::new(&mut prep);
        let mut lo = 0;
        while lo < m && !limit.hit() {
            let hi = (lo + window).min(m);
            let bufs = run_branches(
                &prep,
                &root,
                cfg.target,
                minsup,
                lo..hi,
                &limit,
                BufSink::new,
            );
            for b in &bufs {
                b.decode_into(&prep, |items, s| line.write(items, s));
            }
            lo = hi;
        }
    }
    limit.check()?;
    line.finish()?;
    Ok(stats(&prep, minsup, limit.total()))
}

/// Formats `i1 i2 ... (support)` lines, remembering the first write error.
struct LineWriter<'w, W: Write> {
    out: &'w mut W,
    label: &'w Path,
    buf: Vec<u8>,
    err: Option<std::io::Error>,
}

impl<'w, W: Write> LineWriter<'w, W> {
    fn new(out: &'w mut W, label: &'w Path) -> Self {
        LineWriter {
            out,
            label,
            buf: Vec::with_capacity(1 << 16),
            err: None,
        }
    }

    fn write(&mut self, items: &[u32], support: u32) {
        let mut f = itoa::Buffer::new();
        for &x in items {
            self.buf.extend_from_slice(f.format(x).as_bytes());
            self.buf.push(b' ');
        }
        self.buf.push(b'(');
        self.buf.extend_from_slice(f.format(support).as_bytes());
        self.buf.extend_from_slice(b")\n");
        if self.buf.len() >= 1 << 16 {
            self.drain();
        }
    }

    fn drain(&mut self) {
        if self.err.is_none() {
            if let Err(e) = self.out.write_all(&self.buf) {
                self.err = Some(e);
            }
        }
        self.buf.clear();
    }

    fn finish(mut self) -> Result<()> {
        self.drain();
        if self.err.is_none() {
            if let Err(e) = self.out.flush() {
                self.err = Some(e);
            }
        }
        match self.err.take() {
            Some(e) => Err(Error::io(self.label, e)),
            None => Ok(()),
        }
    }
}

/// Streams itemsets straight to a [`LineWriter`] (single thread).
struct WriteSink<'a, 'l, 'w, W: Write> {
    limit: CountSink<'l>,
    prep: &'a prep::Prepared,
    line: &'a mut LineWriter<'w, W>,
    items: Vec<u32>,
}

impl<W: Write> Sink for WriteSink<'_, '_, '_, W> {
    fn emit(&mut self, codes: &[u32], support: u32) -> bool {
        decode(self.prep, codes, &mut self.items);
        self.line.write(&self.items, support);
        self.limit.tick() && self.line.err.is_none()
    }
}
