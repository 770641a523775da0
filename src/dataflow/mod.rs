//! Many processes (and many workers per process) on timely dataflow: the same output as
//! one process, from a corpus read and sketched by every worker of every process.
//!
//! Layout: [`Topology`] (`topology.rs`) says which processes take part and which one this
//! is, and reads hosts files; `net.rs` connects the processes (with a timeout and a
//! handshake) and builds timely's communication on the sockets, watching each for a lost
//! peer; [`sketch_distributed`] (`sketch.rs`) is the dataflow: each worker sketches its
//! share of the corpus, and the batches are exchanged to process 0, which feeds them in
//! input order to the same sink a one-process run feeds. [`crate::cluster::Job`] and
//! [`crate::dedup::Dedup`] prepare their input this way when given a topology, then run
//! the method on process 0 exactly as one process does.
//!
//! Invariants: process 0 gets the images, ids, fingerprints and offsets a one-process run
//! gets, so every output is byte-identical to one process's, for any number of processes
//! and workers; the other processes write nothing; a lost process or a failed worker ends
//! every process with an error ([`crate::Error::Distributed`] names the lost process)
//! before anything is written.

pub mod cluster;
pub mod divided;
pub mod job;
pub mod net;
pub mod reorder;
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
