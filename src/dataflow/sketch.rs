//! The distributed sketch: every worker of every process reads and sketches its share of
//! the corpus, and the sketched batches are exchanged to worker 0 of process 0, which
//! hands them to a [`SketchSink`] in input order.
//!
//! Two dataflows (timely). For an uncompressed JSONL or plain-lines file each worker takes
//! one byte range of it ([`crate::corpus::split`]): it counts the lines and documents of
//! its range, the counts are broadcast to every worker, and the counts of the ranges
//! before its own say which line and DocId its range starts at. Other inputs are read by
//! every worker, each mapping its blocks (round robin). Then each worker's input is the
//! stream of its share's batches ([`sketch_share`]), followed by its [`WorkerReport`]; an
//! exchange routes everything to worker 0; a gather operator there passes it to the
//! calling thread of process 0, which puts the batches back in input order, checks the
//! ids of line formats in that order ([`ShareIds`]) and feeds the sink, exactly as
//! [`crate::sketch::pipeline::sketch_stream`] feeds it in one process.
//!
//! Invariants: the sink of process 0 receives the same parameters and the same batches in
//! the same order as in one process (hence the same images, ids, fingerprints and offsets,
//! whatever the number of processes and workers); it receives nothing unless every
//! worker's share arrived (a lost process or a failed worker ends the run with an error
//! and leaves the sink unfinished); the other processes' sinks are never called.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::vec::Broadcast;
use timely::dataflow::operators::{Exchange, Input, Inspect, Operator, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};

use super::net::connect;
use super::reorder::Reorder;
use super::workers::{add_stats, report_outcome, wait_workers, Event, Watch};
use super::Topology;
use crate::corpus::par::{Share, ShareIds};
use crate::corpus::split::{
    byte_range, count_range, place_ranges, splits_by_range, RangeCount, Split,
};
use crate::sketch::pipeline::PipelineConfig;
use crate::sketch::pipeline::{
    pipeline_sketcher, sketch_share, SketchBatch, SketchSink, SketchStats,
};
use crate::spill::SpillConfig;
use crate::{Error, Result};

/// A worker's byte range and its counts, as broadcast to every worker.
type RangeOf = (usize, (u64, u64), RangeCount);

/// What one worker did, sent to process 0 after its share.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct WorkerReport {
    /// The worker's process.
    pub process: usize,
    /// The worker's index among all workers.
    pub worker: usize,
    /// The counts of its share.
    pub stats: SketchStats,
    /// Batches (blocks) it sketched.
    pub batches: u64,
    /// Documents it sketched.
    pub documents: u64,
    /// Image elements of its documents.
    pub incidences: u64,
    /// Bytes of the batches it sent to another process (bincode payload, as exchanged).
    pub bytes_sent: u64,
    /// Seconds reading and sketching its share.
    pub sketch_seconds: f64,
    /// Peak resident memory of its process when it finished, if known.
    pub peak_rss_bytes: Option<u64>,
}

/// What a process did in the distributed stage (summed over its workers).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ProcessReport {
    /// The process.
    pub process: usize,
    /// Documents it read and sketched.
    pub documents: u64,
    /// Shingle-hash incidences (image elements) it made.
    pub incidences: u64,
    /// Bytes it sent to other processes.
    pub bytes_sent: u64,
    /// Bytes it received from other processes.
    pub bytes_received: u64,
    /// Seconds per stage (the longest of its workers).
    pub seconds: BTreeMap<String, f64>,
    /// Its peak resident memory, if known.
    pub peak_rss_bytes: Option<u64>,
    /// Per stage of a divided cluster run ([`super::cluster`]): its seconds, bytes and
    /// count.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stages: BTreeMap<String, StageReport>,
    /// The passes of a divided run's rows stage over slices of the keys (more than one
    /// when a memory budget holds a pass's incidences to half of a worker's share).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row_passes: Option<u64>,
    /// The passes of a divided run's check of repeated ids over slices of their hashes
    /// (absent when ids are not checked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_passes: Option<u64>,
    /// The passes of a divided run's exchange of group members' shingle sets for exact
    /// verification over shards or Parquet (absent when none are sent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_passes: Option<u64>,
    /// The iterations of large-star and small-star a divided run's components stage took
    /// (the same on every process).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub component_rounds: Option<u64>,
    /// The itemsets its workers mined in parts of the components of giant groups, whose
    /// mining every worker shares (absent when none was divided).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mined_in_parts: Option<u64>,
    /// The longest row (incidences of one key) one of its workers held as the key's owner
    /// in a divided run's rows stage (prefix incidences only with `--exchange prefix`): the
    /// rows' skew.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hottest_row: Option<u64>,
    /// The bytes of the corpus's files its workers read in a divided run (the compressed
    /// sizes of compressed files, each read whole by one worker).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_read: Option<u64>,
}

/// What one stage of the divided run did on one process: the longest of its workers'
/// seconds, the bytes its workers sent to and received from other processes, and the
/// stage's count (documents, incidences, candidate pairs, edges, edges the components
/// stage started from, members, clusters), and the process's peak resident memory when the stage ended (a high-water
/// mark: the first stage showing the process's peak is the one that reached it).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct StageReport {
    pub seconds: f64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    pub count: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_bytes: Option<u64>,
}

/// What [`sketch_distributed`] returns.
#[derive(Clone, Debug)]
pub struct DistSketch {
    /// The counts of the whole corpus (on process 0; this process's share elsewhere).
    pub stats: SketchStats,
    /// One report per process, in process order (on process 0; empty elsewhere).
    pub processes: Vec<ProcessReport>,
}

/// The messages of the dataflow.
#[derive(Clone, Debug, Serialize, Deserialize)]
enum Msg {
    /// A batch, from the worker (by index among all) that sketched it.
    Batch(usize, SketchBatch),
    Report(WorkerReport),
}

/// The bytes bincode (timely's encoding) takes for a batch.
fn wire_bytes(b: &SketchBatch) -> u64 {
    let vec = |n: usize, each: u64| 8 + n as u64 * each;
    let ids: u64 = 8 + b.ext_ids.iter().map(|s| 8 + s.len() as u64).sum::<u64>();
    let images: u64 = 8 + b
        .images
        .iter()
        .map(|i| vec(i.values().len(), 8))
        .sum::<u64>();
    4 + ids
        + images
        + vec(b.raw_fingerprints.len(), 8)
        + vec(b.canonical_fingerprints.len(), 8)
        + vec(b.offsets.len(), 8)
        + 8
        + vec(b.lines.len(), 8)
}

/// Sketches the corpus at `path` with the workers of every process of `topo`, feeding
/// `sink` on process 0 (see the module docs), the batches that wait for earlier ones
/// within a quarter of `spill`'s budget (the others spilled); `digest` identifies the job, so that
/// processes running different jobs refuse each other. Every process must call this with
/// the same arguments but its own `topo.process()`. A corpus in object storage is staged
/// whole by every process (under `spill`'s temporary directory), as every worker reads a
/// sharded corpus whole, mapping only its blocks.
pub fn sketch_distributed(
    path: &Path,
    cfg: &PipelineConfig,
    topo: &Topology,
    digest: u64,
    spill: &SpillConfig,
    sink: &mut dyn SketchSink,
) -> Result<DistSketch> {
    let tmp = spill.tmp_dir.as_deref();
    crate::corpus::remote::with_staged(path, &cfg.corpus, tmp, |path| {
        sketch_on_disk(path, cfg, topo, digest, spill, sink)
    })
}

/// [`sketch_distributed`] over a corpus on disk.
fn sketch_on_disk(
    path: &Path,
    cfg: &PipelineConfig,
    topo: &Topology,
    digest: u64,
    spill: &SpillConfig,
    sink: &mut dyn SketchSink,
) -> Result<DistSketch> {
    cfg.validate()?;
    if cfg.sketch.weighting.is_some() {
        return Err(Error::config(
            "a weighted sketch (tf-idf) is not distributed: its document frequencies need a pass over the whole corpus first; run it in one process",
        ));
    }
    if path == Path::new("-") {
        return Err(Error::config(
            "a distributed run reads its input from a file every process can read, not standard input",
        ));
    }
    let sketcher = pipeline_sketcher(path, cfg)?;
    let params = sketcher.params(cfg.text_params());
    let comms = connect(topo, digest)?;
    let losses = comms.losses.clone();
    let peers = topo.peers();
    let process = topo.process();
    let (tx, rx) = mpsc::channel::<Event<Msg>>();
    let tx = std::sync::Mutex::new(tx);
    let path_w: PathBuf = path.to_path_buf();
    let cfg_w = cfg.clone();
    let by_range = splits_by_range(path, &cfg.corpus)?;
    let worker_fn = move |worker: &mut timely::worker::Worker| {
        let tx = tx.lock().map(|t| t.clone());
        let Ok(tx) = tx else { return };
        let index = worker.index();
        // Two dataflows, made in the same order by every worker: the counts of the byte
        // ranges, broadcast to every worker, then the batches, exchanged to worker 0.
        let mut counts_in = InputHandle::<u64, CapacityContainerBuilder<Vec<RangeOf>>>::new();
        let counts_probe = ProbeHandle::new();
        let counts: Rc<RefCell<Vec<RangeOf>>> = Rc::default();
        let counts_seen = Rc::clone(&counts);
        worker.dataflow::<u64, _, _>(|scope| {
            scope
                .input_from(&mut counts_in)
                .broadcast()
                .inspect(move |c| counts_seen.borrow_mut().push(*c))
                .probe_with(&counts_probe);
        });
        let mut input = InputHandle::<u64, CapacityContainerBuilder<Vec<Msg>>>::new();
        let probe = ProbeHandle::new();
        let gather_tx = tx.clone();
        worker.dataflow::<u64, _, _>(|scope| {
            scope
                .input_from(&mut input)
                .exchange(|_m: &Msg| 0u64)
                .unary::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                    Pipeline,
                    "Gather",
                    |_cap, _info| {
                        move |input, _output| {
                            input.for_each(|_cap, data| {
                                for m in data.drain(..) {
                                    let _ = gather_tx.send(Event::Msg(m));
                                }
                            });
                        }
                    },
                )
                .probe_with(&probe);
        });
        // The inputs live outside the guarded body: when a lost connection makes timely
        // panic inside it, they are neither dropped nor closed while unwinding (closing
        // would panic again and abort the process); the thread then stays parked and the
        // calling thread reports the failure.
        let mut counts_in = Some(counts_in);
        let mut input = Some(input);
        let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<()> {
            let t0 = Instant::now();
            let share = Share {
                index: index as u32,
                count: peers as u32,
            };
            // Where this worker's share is: a byte range placed by the counts of the
            // ranges before it, or its blocks of the whole input.
            let split = if by_range {
                let (start, end) = byte_range(&path_w, share)?;
                let c = count_range(&path_w, &cfg_w.corpus, start, end)?;
                if let Some(mut h) = counts_in.take() {
                    h.send((index, (start, end), c));
                }
                while !counts_probe.done() {
                    worker.step_or_park(Some(Duration::from_millis(20)));
                }
                // Every worker's range and counts, in worker order, place this one.
                let mut all = counts.borrow().clone();
                all.sort_by_key(|r| r.0);
                let ranges: Vec<(u64, u64)> = all.iter().map(|r| r.1).collect();
                let cs: Vec<RangeCount> = all.iter().map(|r| r.2).collect();
                Split::Range(place_ranges(&ranges, &cs)[index])
            } else {
                drop(counts_in.take());
                Split::Blocks(share)
            };
            let (mut batches, mut documents, mut incidences, mut bytes_sent) = (0, 0, 0, 0);
            let sends_remote = process != 0;
            let stats = {
                let input = input.as_mut().expect("open until the share is sent");
                let worker_ref = &mut *worker;
                let mut emit = |b: SketchBatch| -> Result<()> {
                    batches += 1;
                    documents += b.images.len() as u64;
                    incidences += b
                        .images
                        .iter()
                        .map(|i| i.values().len() as u64)
                        .sum::<u64>();
                    if sends_remote {
                        bytes_sent += wire_bytes(&b);
                    }
                    input.send(Msg::Batch(index, b));
                    worker_ref.step();
                    Ok(())
                };
                sketch_share(&path_w, &cfg_w, &sketcher, split, &mut emit)?
            };
            let report = WorkerReport {
                process,
                worker: index,
                stats,
                batches,
                documents,
                incidences,
                bytes_sent,
                sketch_seconds: t0.elapsed().as_secs_f64(),
                peak_rss_bytes: crate::spill::peak_rss_bytes(),
            };
            if let Some(mut h) = input.take() {
                h.send(Msg::Report(report));
            }
            while !probe.done() {
                worker.step_or_park(Some(Duration::from_millis(50)));
            }
            Ok(())
        }));
        report_outcome(&tx, index, outcome, || {
            // The inputs are never closed: the run cannot complete without this share,
            // and the other processes stop when this one ends.
            std::mem::forget(counts_in.take());
            std::mem::forget(input.take());
        });
    };
    let guards = timely::execute::execute_from(
        comms.builders,
        comms.guard,
        timely::WorkerConfig::default(),
        worker_fn,
    )
    .map_err(Error::Distributed)?;
    let stopped = || -> Vec<usize> {
        let first = topo.process() * topo.workers();
        (guards.guards().iter().enumerate())
            .filter(|(_, g)| g.is_finished())
            .map(|(i, _)| first + i)
            .collect()
    };
    let watch = Watch {
        losses: &losses,
        stopped: &stopped,
        first_error: &Default::default(),
    };
    let out = gather(path, cfg, topo, by_range, spill, &params, rx, &watch, sink);
    match out {
        Ok(out) => {
            // Every worker is done: their threads end by themselves.
            drop(guards);
            Ok(out)
        }
        Err(e) => {
            // Workers may be blocked on a lost peer: leave their threads behind.
            std::mem::forget(guards);
            Err(e)
        }
    }
}

/// The calling thread's side: on process 0, reorders the batches into `sink` and gathers
/// the reports; everywhere, waits for the local workers, failing on a lost process.
#[allow(clippy::too_many_arguments)]
fn gather(
    path: &Path,
    cfg: &PipelineConfig,
    topo: &Topology,
    by_range: bool,
    spill: &SpillConfig,
    params: &crate::sketch::SketchParams,
    rx: mpsc::Receiver<Event<Msg>>,
    watch: &Watch<'_>,
    sink: &mut dyn SketchSink,
) -> Result<DistSketch> {
    let leader = topo.is_leader();
    let mut ids = ShareIds::new(path, &cfg.corpus)?;
    if leader {
        sink.begin(params)?;
    }
    // Batches that wait for the ones before them take at most a quarter of the budget.
    let limit = spill.budget.map(|b| crate::plan::round_share(b.0));
    let mut order = Reorder::new(by_range, topo.peers(), limit, Some(spill.dir()))?;
    let mut reports: Vec<WorkerReport> = Vec::new();
    let t_start = Instant::now();
    wait_workers(topo, &rx, watch, |m: Msg| {
        match m {
            Msg::Batch(w, b) => order.add(w, b)?,
            Msg::Report(r) => {
                order.made(r.worker, r.batches);
                reports.push(r);
            }
        }
        while let Some(mut b) = order.next_ready()? {
            if !b.lines.is_empty() {
                let lines = std::mem::take(&mut b.lines);
                ids.check(&mut b.ext_ids, &lines)?;
            }
            if !b.images.is_empty() {
                sink.batch(b)?;
            }
        }
        Ok(())
    })?;
    if !leader {
        return Ok(DistSketch {
            stats: SketchStats::default(),
            processes: Vec::new(),
        });
    }
    // Everything has arrived: every block in order, one report per worker.
    if !order.complete() || reports.len() != topo.peers() {
        return Err(Error::Distributed(format!(
            "incomplete gather: {} blocks out of order, {} of {} worker reports",
            order.waiting(),
            reports.len(),
            topo.peers()
        )));
    }
    reports.sort_by_key(|r| r.worker);
    let mut stats = SketchStats::default();
    let mut processes: Vec<ProcessReport> = (0..topo.processes())
        .map(|p| ProcessReport {
            process: p,
            ..ProcessReport::default()
        })
        .collect();
    for r in &reports {
        add_stats(&mut stats, &r.stats);
        let p = &mut processes[r.process];
        p.documents += r.documents;
        p.incidences += r.incidences;
        p.bytes_sent += r.bytes_sent;
        let s = p.seconds.entry("read and sketch".into()).or_insert(0.0);
        *s = s.max(r.sketch_seconds);
        p.peak_rss_bytes = p.peak_rss_bytes.max(r.peak_rss_bytes);
    }
    let received: u64 = processes.iter().map(|p| p.bytes_sent).sum();
    processes[0].bytes_received = received;
    processes[0]
        .seconds
        .insert("gather".into(), t_start.elapsed().as_secs_f64());
    processes[0].peak_rss_bytes = processes[0]
        .peak_rss_bytes
        .max(crate::spill::peak_rss_bytes());
    stats.corpus.renamed_ids += ids.renamed();
    Ok(DistSketch { stats, processes })
}

/// What [`sketch_to_file_on`] returns on process 0.
#[derive(Clone, Debug)]
pub struct DistSketchFile {
    /// The counts of the whole corpus.
    pub stats: SketchStats,
    /// Documents written (those of the shard).
    pub written: u64,
    /// One report per process.
    pub processes: Vec<ProcessReport>,
}

/// [`crate::sketch::sketch_to_file`] with the workers of every process of `topo`: process 0
/// writes the images file `out` (and its id table), byte for byte what one process writes,
/// and gets `Some`; the others write nothing and get `None`.
pub fn sketch_to_file_on(
    input: &Path,
    cfg: &PipelineConfig,
    out: &Path,
    shard: crate::sketch::Shard,
    topo: &Topology,
    spill: &SpillConfig,
) -> Result<Option<DistSketchFile>> {
    let digest = xxhash_rust::xxh3::xxh3_64(
        format!(
            "sketch|{cfg:?}|{input:?}|{out:?}|{shard:?}|{}|{}|{:?}|{}",
            topo.processes(),
            topo.workers(),
            topo.hosts(),
            env!("CARGO_PKG_VERSION")
        )
        .as_bytes(),
    );
    if !topo.is_leader() {
        sketch_distributed(input, cfg, topo, digest, spill, &mut NullSink)?;
        return Ok(None);
    }
    let mut processes = Vec::new();
    let (stats, written) = crate::sketch::sketch_to_file_by(out, shard, &mut |sink| {
        let d = sketch_distributed(input, cfg, topo, digest, spill, sink)?;
        processes = d.processes;
        Ok(d.stats)
    })?;
    Ok(Some(DistSketchFile {
        stats,
        written,
        processes,
    }))
}

/// The sink of the processes that do not gather: never called.
pub struct NullSink;

impl SketchSink for NullSink {
    fn begin(&mut self, _: &crate::sketch::SketchParams) -> Result<()> {
        Ok(())
    }

    fn batch(&mut self, _: SketchBatch) -> Result<()> {
        Ok(())
    }
}
