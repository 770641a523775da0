//! Many processes (and many workers per process) on timely dataflow: the same output as
//! one process, from a corpus read and sketched by every worker of every process.
//!
//! Layout: [`Topology`] (`topology.rs`) says which processes take part and which one this
//! is, and reads hosts files; `net.rs` connects the processes (with a timeout and a
//! handshake) and builds timely's communication on the sockets, watching each for a lost
//! peer; [`sketch_distributed`] (`sketch.rs`) is the dataflow: each worker sketches its
//! share of the corpus, and the batches are exchanged to process 0, which feeds them in
//! input order to the same sink a one-process run feeds (the gathered path). The divided
//! path (`cluster.rs`, driven by `divided.rs` over the rounds of `rounds.rs`) runs the
//! cluster stage itself on every worker, exchanging by key, and process 0 receives
//! results only; `job.rs` picks the path for a [`crate::cluster::Job`] or a
//! [`crate::dedup::Dedup`] ([`run_job`], [`run_dedup`]).
//!
//! Invariants: every output is byte-identical to one process's, for any number of
//! processes and workers (gathered: process 0 gets the images, ids, fingerprints and
//! offsets a one-process run gets; divided: see `cluster.rs`); the other processes write
//! nothing but a divided deduplication's kept part of their own ranges; a lost process or
//! a failed worker ends every process with an error ([`crate::Error::Distributed`] names
//! the lost process) before process 0 writes anything.

pub mod cluster;
mod dfruns;
pub mod divided;
mod ingest;
pub mod job;
mod messages;
pub mod net;
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
pub use topology::{read_hosts, read_hosts_for, Topology, DEFAULT_CONNECT_TIMEOUT};
