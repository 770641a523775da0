//! Putting the batches of every worker back in input order on process 0, within a memory
//! limit.
//!
//! When workers share the blocks of the input round robin, batches come roughly in order
//! and few wait. When each worker reads a byte range, every later worker's batches arrive
//! while the first worker's are still coming: they wait until the ranges before them are
//! done. Under a memory limit, the batches that wait are written to one spill file per
//! worker (each in its block order, the order a worker sends them) and read back when
//! that worker's turn comes.
//!
//! Invariants: [`Reorder::next_ready`] yields every batch exactly once, in input order
//! (by block number with block shares; worker after worker, each in block order, with
//! byte ranges); the batches held in memory stay under the limit, except the next one and
//! batches that came out of their worker's order.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::PathBuf;

use crate::codec::{put_varint, ByteSource, SliceReader};
use crate::sketch::pipeline::SketchBatch;
use crate::sketch::Image;
use crate::spill::SpillDir;
use crate::{Error, Result};

/// A worker's batches written while they wait.
struct Spilled {
    path: PathBuf,
    writer: Option<BufWriter<File>>,
    /// The block number of the next batch to write (they are written in order).
    next_seq: u64,
    /// How many are in the file.
    count: u64,
    /// The block number of the first.
    start: u64,
}

/// See the module docs.
pub struct Reorder {
    by_range: bool,
    peers: usize,
    pending: BTreeMap<(usize, u64), SketchBatch>,
    /// Bytes of the batches in `pending` (as [`heap_bytes`] counts them).
    held: u64,
    /// Spill when `held` would pass this many bytes (`None`: never).
    limit: Option<u64>,
    dir: Option<SpillDir>,
    spilled: Vec<Option<Spilled>>,
    /// The next batch: (worker, its block number) with ranges, (0, block number) with
    /// block shares.
    next: (usize, u64),
    /// The blocks each worker made, once its report arrived.
    made: Vec<Option<u64>>,
    /// Batches spilled so far.
    spills: u64,
    /// Per worker, the blocks that arrived in order from its first (the next one expected).
    arrived: Vec<u64>,
    /// Batches read back from a spill file, waiting to go out in order.
    replay: std::collections::VecDeque<SketchBatch>,
}

/// The memory a batch holds (what its vectors and strings take).
pub fn heap_bytes(b: &SketchBatch) -> u64 {
    let ids: u64 = b.ext_ids.iter().map(|s| 24 + s.len() as u64).sum();
    let images: u64 = b
        .images
        .iter()
        .map(|i| 24 + 8 * i.values().len() as u64)
        .sum();
    128 + ids
        + images
        + 8 * (b.raw_fingerprints.len()
            + b.canonical_fingerprints.len()
            + b.offsets.len()
            + b.lines.len()) as u64
}

impl Reorder {
    /// For `peers` workers, by byte range or by block shares; batches that wait beyond
    /// `limit` bytes are spilled under `dir`.
    pub fn new(
        by_range: bool,
        peers: usize,
        limit: Option<u64>,
        dir: Option<PathBuf>,
    ) -> Result<Self> {
        let dir = match (limit, dir) {
            (Some(_), Some(d)) => Some(SpillDir::new_in(&d)?),
            _ => None,
        };
        Ok(Reorder {
            by_range,
            peers,
            pending: BTreeMap::new(),
            held: 0,
            limit: if dir.is_some() { limit } else { None },
            dir,
            spilled: (0..peers).map(|_| None).collect(),
            next: (0, 0),
            made: vec![None; peers],
            arrived: vec![0; peers],
            spills: 0,
            replay: Default::default(),
        })
    }

    /// A batch from `worker`.
    pub fn add(&mut self, worker: usize, b: SketchBatch) -> Result<()> {
        let key = if self.by_range {
            (worker, b.seq)
        } else {
            (0, b.seq)
        };
        // With ranges, a batch of a later worker waits; under the limit it goes to that
        // worker's spill file if it is the next one the file expects.
        let in_order = b.seq == self.arrived[worker];
        if in_order {
            self.arrived[worker] += 1;
        }
        if let Some(limit) = self.limit {
            let waits = self.by_range && worker > self.next.0;
            if waits && self.held + heap_bytes(&b) > limit {
                // The file holds one run of the worker's blocks: it starts after the
                // blocks in memory, which all came before (in order).
                let fits = match &self.spilled[worker] {
                    Some(sp) => b.seq == sp.next_seq,
                    None => in_order,
                };
                if fits {
                    return self.spill(worker, &b);
                }
            }
        }
        self.held += heap_bytes(&b);
        self.pending.insert(key, b);
        Ok(())
    }

    /// Records that `worker` made `blocks` blocks in all.
    pub fn made(&mut self, worker: usize, blocks: u64) {
        self.made[worker] = Some(blocks);
    }

    /// The next batch in input order, when it is there.
    pub fn next_ready(&mut self) -> Result<Option<SketchBatch>> {
        loop {
            if let Some(b) = self.replay.pop_front() {
                return Ok(Some(b));
            }
            if let Some(b) = self.pending.remove(&self.next) {
                self.held -= heap_bytes(&b);
                self.next.1 += 1;
                return Ok(Some(b));
            }
            let (w, s) = self.next;
            if !self.by_range || w >= self.peers {
                return Ok(None);
            }
            // The worker's batches that were spilled come next, in their order.
            if self.spilled[w].as_ref().is_some_and(|sp| sp.start == s) {
                let sp = self.spilled[w].take().expect("checked");
                let batches = read_spilled(sp)?;
                self.next.1 += batches.len() as u64;
                debug_assert!(batches.first().is_none_or(|b| b.seq == s));
                self.replay.extend(batches);
                continue;
            }
            if self.made[w] == Some(s) {
                self.next = (w + 1, 0);
                continue;
            }
            return Ok(None);
        }
    }

    /// True when every batch of every worker went out.
    pub fn complete(&self) -> bool {
        self.pending.is_empty()
            && self.replay.is_empty()
            && self.spilled.iter().all(Option::is_none)
            && self.made.iter().all(Option::is_some)
            && (!self.by_range || self.next.0 == self.peers)
    }

    /// Batches waiting (in memory).
    pub fn waiting(&self) -> usize {
        self.pending.len()
    }

    /// Batches written to spill files so far.
    pub fn spilled_batches(&self) -> u64 {
        self.spills
    }

    /// Appends `b`, the next batch of `worker`, to its spill file.
    fn spill(&mut self, worker: usize, b: &SketchBatch) -> Result<()> {
        let dir = self
            .dir
            .as_mut()
            .expect("a limit comes with a spill directory");
        if self.spilled[worker].is_none() {
            let (path, f) = dir.create_file(&format!("batches-{worker}"))?;
            self.spilled[worker] = Some(Spilled {
                path,
                writer: Some(BufWriter::with_capacity(1 << 20, f)),
                next_seq: b.seq,
                count: 0,
                start: b.seq,
            });
        }
        let sp = self.spilled[worker].as_mut().expect("made above");
        let mut buf = Vec::with_capacity(heap_bytes(b) as usize);
        encode(b, &mut buf);
        let w = sp.writer.as_mut().expect("open while spilling");
        w.write_all(&(buf.len() as u64).to_le_bytes())
            .and_then(|_| w.write_all(&buf))
            .map_err(|e| Error::io(&sp.path, e))?;
        sp.next_seq = b.seq + 1;
        sp.count += 1;
        self.spills += 1;
        Ok(())
    }
}

/// Reads back a worker's spilled batches (then removes the file).
fn read_spilled(mut sp: Spilled) -> Result<Vec<SketchBatch>> {
    if let Some(mut w) = sp.writer.take() {
        w.flush().map_err(|e| Error::io(&sp.path, e))?;
    }
    let f = File::open(&sp.path).map_err(|e| Error::io(&sp.path, e))?;
    let mut r = BufReader::with_capacity(1 << 20, f);
    let mut out = Vec::with_capacity(sp.count as usize);
    let mut len = [0u8; 8];
    let mut buf = Vec::new();
    for _ in 0..sp.count {
        r.read_exact(&mut len).map_err(|e| Error::io(&sp.path, e))?;
        buf.resize(u64::from_le_bytes(len) as usize, 0);
        r.read_exact(&mut buf).map_err(|e| Error::io(&sp.path, e))?;
        out.push(decode(&buf, &sp.path)?);
    }
    let _ = std::fs::remove_file(&sp.path);
    Ok(out)
}

fn put_u64s(out: &mut Vec<u8>, v: &[u64]) {
    put_varint(out, v.len() as u64);
    for &x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
}

fn get_u64s(r: &mut SliceReader<'_>, what: &str) -> Result<Vec<u64>> {
    let n = r.varint(what)? as usize;
    let b = r.bytes(n.saturating_mul(8), what)?;
    Ok(b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect())
}

/// A batch in the spill file's encoding.
fn encode(b: &SketchBatch, out: &mut Vec<u8>) {
    put_varint(out, b.seq);
    put_varint(out, u64::from(b.first));
    put_varint(out, b.ext_ids.len() as u64);
    for id in &b.ext_ids {
        put_varint(out, id.len() as u64);
        out.extend_from_slice(id.as_bytes());
    }
    put_varint(out, b.images.len() as u64);
    for i in &b.images {
        put_u64s(out, i.values());
    }
    put_u64s(out, &b.raw_fingerprints);
    put_u64s(out, &b.canonical_fingerprints);
    put_u64s(out, &b.offsets);
    put_u64s(out, &b.lines);
}

/// The batch encoded in `buf` (read from `path`).
fn decode(buf: &[u8], path: &std::path::Path) -> Result<SketchBatch> {
    let mut r = SliceReader::new(buf, path);
    let seq = r.varint("block number")?;
    let first = u32::try_from(r.varint("first DocId")?).map_err(|_| Error::Format {
        path: path.to_path_buf(),
        msg: "a DocId over u32".into(),
    })?;
    let n = r.varint("ids")? as usize;
    let mut ext_ids = Vec::with_capacity(n.min(1 << 16));
    for _ in 0..n {
        let len = r.varint("id length")? as usize;
        let s = r.bytes(len, "id")?;
        ext_ids.push(String::from_utf8(s.to_vec()).map_err(|_| Error::Format {
            path: path.to_path_buf(),
            msg: "an id that is not UTF-8".into(),
        })?);
    }
    let n = r.varint("images")? as usize;
    let mut images = Vec::with_capacity(n.min(1 << 16));
    for _ in 0..n {
        images.push(Image::from_values(get_u64s(&mut r, "image")?));
    }
    let b = SketchBatch {
        first,
        ext_ids,
        images,
        raw_fingerprints: get_u64s(&mut r, "fingerprints")?,
        canonical_fingerprints: get_u64s(&mut r, "fingerprints")?,
        offsets: get_u64s(&mut r, "offsets")?,
        seq,
        lines: get_u64s(&mut r, "lines")?,
    };
    r.finish()?;
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(worker: usize, seq: u64, docs: usize) -> SketchBatch {
        let first = (worker * 1000 + seq as usize * 10) as u32;
        SketchBatch {
            first,
            ext_ids: (0..docs).map(|i| format!("w{worker}s{seq}d{i}")).collect(),
            images: (0..docs)
                .map(|i| Image::from_values(vec![i as u64, 7, u64::MAX]))
                .collect(),
            raw_fingerprints: vec![seq; docs],
            canonical_fingerprints: vec![worker as u64; docs],
            offsets: (0..docs as u64).collect(),
            seq,
            lines: (1..=docs as u64).collect(),
        }
    }

    /// Batches arriving interleaved from three workers' ranges come out worker after
    /// worker, in block order, with and without spilling, and spilling happened.
    #[test]
    fn ranges_come_out_in_order_spilled_or_not() {
        let dir = tempfile::tempdir().unwrap();
        for limit in [None, Some(1), Some(2000)] {
            let mut r = Reorder::new(true, 3, limit, Some(dir.path().to_path_buf())).unwrap();
            let mut out = Vec::new();
            // Worker 2 runs ahead, worker 1 next, worker 0 last.
            let arrivals = [
                (2, 0),
                (2, 1),
                (1, 0),
                (2, 2),
                (1, 1),
                (0, 0),
                (2, 3),
                (0, 1),
            ];
            for &(w, s) in &arrivals {
                r.add(w, batch(w, s, 3)).unwrap();
                while let Some(b) = r.next_ready().unwrap() {
                    out.push(b);
                }
            }
            // Every batch of workers 1 and 2 waits for worker 0: spilled under a tiny limit.
            match limit {
                None => assert_eq!(r.spilled_batches(), 0),
                Some(1) => assert_eq!(r.spilled_batches(), 6),
                Some(_) => assert!(r.spilled_batches() > 0),
            }
            for (w, n) in [(0, 2), (1, 2), (2, 4)] {
                r.made(w, n);
                while let Some(b) = r.next_ready().unwrap() {
                    out.push(b);
                }
            }
            assert!(r.complete(), "limit {limit:?}");
            let order: Vec<(u32, u64)> = out.iter().map(|b| (b.first, b.seq)).collect();
            let want: Vec<(u32, u64)> = [
                (0, 0),
                (0, 1),
                (1, 0),
                (1, 1),
                (2, 0),
                (2, 1),
                (2, 2),
                (2, 3),
            ]
            .iter()
            .map(|&(w, s)| (batch(w, s, 1).first, s))
            .collect();
            assert_eq!(order, want, "limit {limit:?}");
            for b in &out {
                let w = (b.first / 1000) as usize;
                assert_eq!(b, &batch(w, b.seq, 3));
            }
        }
    }

    #[test]
    fn a_batch_round_trips_through_its_encoding() {
        let b = batch(1, 5, 4);
        let mut buf = Vec::new();
        encode(&b, &mut buf);
        assert_eq!(decode(&buf, std::path::Path::new("x")).unwrap(), b);
        assert!(decode(&buf[..buf.len() - 1], std::path::Path::new("x")).is_err());
    }
}
