//! Many processes (and many workers per process) on timely dataflow: the same output as
//! one process, from a corpus read and sketched by every worker of every process. This
//! module launches the workers, exchanges data between them and detects a lost peer; the
//! stages it runs are the library's ([`crate::cluster::stages`], [`crate::context`]).
//!
//! Files:
//! - `topology.rs`: which processes take part and which one this is ([`Topology`]); hosts
//!   files; how a divided run exchanges its candidate keys ([`Exchange`]).
//! - `net.rs`: connects the processes (timeout, handshake) and builds timely's
//!   communication on the sockets, watching each for a lost peer.
//! - `heartbeat.rs`: heartbeats between the processes over UDP, so that a frozen peer
//!   (stopped, hung, cut off) is found within the peer timeout and the run stops.
//! - `workers.rs`: the calling thread's wait for its workers, failing as soon as one fails
//!   or panics, or a connection stays lost (loss detection).
//! - `rounds.rs`: rounds of exchange by key and all-gathers over timely channels
//!   ([`rounds::Rounds`]), with the bytes each sends ([`rounds::Wire`]).
//! - `sketch.rs`: the gathered path ([`sketch_distributed`]): each worker sketches its
//!   share, and the batches go to process 0 in input order, to the sink one process feeds;
//!   `reorder.rs` puts them back in that order.
//! - `cluster.rs`: the divided path, one worker's run of the cluster stages in order
//!   ([`cluster::gathered_because`] says when a job takes it); `divided.rs` runs it on every
//!   worker and hands process 0's result to the library's output.
//! - `ingest.rs`: the divided path's read-and-sketch, ids and collapse exchanges.
//! - `components.rs`: the divided path's components, by rounds of large-star and
//!   small-star over the nodes' holders, and the groups' placement.
//! - `pairing.rs`: the divided path's rows and pairs exchanges (prefix rows, lists; with
//!   [`Exchange::Prefix`], the prefixes in element order without the rows).
//! - `output.rs`: the divided path's outputs, written in parts by every process (the
//!   lines to the owners of their key ranges, the clusters numbered by prefix sums).
//! - `packed.rs`: those lines on the wire, each one byte string in the crate's codec.
//! - `dfruns.rs`: the shared elements with their document frequencies as they arrive at
//!   their documents' holders, one sorted run a pass, merged back by document.
//! - `messages.rs`: the divided path's message types and wire sizes, routes (owners by
//!   hash, holders by DocId, pair owners) and the passes a budget needs.
//! - `checkpoint.rs`: a divided run's run directory (`--run-dir`): what identifies the
//!   run, and each worker's checkpoint after the pairs stage, from which `--resume`
//!   restarts a failed run.
//! - `report.rs`: each worker's per-stage clock, traffic and counts, and process 0's
//!   phases and per-process reports from them.
//! - `job.rs`: picks the path for a [`crate::cluster::Job`] or a [`crate::dedup::Dedup`]
//!   ([`run_job`], [`run_dedup`]).
//!
//! Invariants: every output is byte-identical to one process's, for any number of
//! processes and workers (gathered: process 0 gets the images, ids, fingerprints and
//! offsets a one-process run gets and writes every file; divided: every process writes
//! its part of each output file into its `--out`, named `clusters.part-00000.jsonl`,
//! `pairs.part-00000.csv`, `removed.part-00000.csv`, `kept.part-00000.jsonl` (with one
//! process the files themselves, but the kept part), and the parts concatenated in
//! process order are the one-process files, see `cluster.rs`; process 0 receives counts,
//! not the outputs, and writes `summary.json`); a lost process or a frozen one or a
//! failed worker ends every process with an error ([`crate::Error::Distributed`] names
//! the lost process) before process 0 writes anything (a divided run's parts, each
//! complete, may be written by then).

mod checkpoint;
pub mod cluster;
mod components;
mod dfruns;
pub mod divided;
pub mod heartbeat;
mod ingest;
pub mod job;
mod messages;
pub mod net;
mod output;
mod packed;
mod pairing;
pub mod reorder;
mod report;
pub mod rounds;
pub mod sketch;
pub mod topology;
mod workers;

pub use job::{digest, prepare_on, run_dedup, run_job, Distributed};
pub use sketch::{
    sketch_distributed, sketch_to_file_on, DistSketch, DistSketchFile, ProcessReport, StageReport,
    WorkerReport,
};
pub use topology::{
    read_hosts, read_hosts_for, Exchange, GiantGroups, Topology, DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_PEER_TIMEOUT,
};
