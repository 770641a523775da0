//! The library's jobs on many processes: [`run_job`] and [`run_dedup`] prepare a
//! [`Job`] (or a [`Dedup`]'s job) with the distributed sketch ([`super::sketch`]) and then
//! finish it on process 0 with the library's own code ([`Job::finish`], [`Dedup::finish`]).
//! The library's jobs know nothing of this layer: it calls them.
//!
//! Invariants: process 0 returns what the one-process job returns, plus the `distributed`
//! block ([`Distributed`]), but for a divided run, whose outputs every process writes in
//! parts (process 0 returns the summary); a gathered run's other processes return `None`
//! and write nothing; every process of a run calls the same function with the same job
//! and input.

use std::path::Path;
use std::time::Instant;

use super::{sketch_distributed, ProcessReport, Topology};
use crate::cluster::{Input, Job, JobOutput, Sketched};
use crate::dedup::{Dedup, DedupOutput};
use crate::{Error, Result};

/// What a distributed run adds to a summary (its `distributed` block): the layout and each
/// process's part.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct Distributed {
    /// Number of processes.
    pub processes: usize,
    /// Workers per process.
    pub workers: usize,
    /// `divided`: the cluster stage ran on every worker ([`super::cluster`]); `gathered`:
    /// process 0 received every record and ran the method alone.
    pub mode: String,
    /// A divided run: how the keys of the prefix-filtered rules were exchanged, `rows` or
    /// `prefix` ([`super::Exchange`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exchange: Option<String>,
    /// A divided run whose giant groups' mining every worker shares: `divided`
    /// ([`super::GiantGroups`]; absent when their owners mine them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub giant_groups: Option<String>,
    /// Why the run was gathered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gathered_because: Option<String>,
    /// One entry per process, in process order.
    pub per_process: Vec<ProcessReport>,
    /// A divided run: the output files each process wrote its part of, as the patterns
    /// naming the parts (`pairs.part-*.csv`; with one process, the file itself). The parts
    /// concatenated in process order are the one-process file (`cat pairs.part-*.csv >
    /// pairs.csv`: the header is in part 0 only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<String>,
    /// A resumed divided run (`--resume`): the stage after which it restarted from its
    /// workers' checkpoints; absent when it ran every stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed_after: Option<String>,
}

impl Distributed {
    /// The block as JSON, for [`JobOutput::distributed`].
    pub fn to_json(&self) -> Result<serde_json::Value> {
        serde_json::to_value(self).map_err(|e| Error::config(format!("summary: {e}")))
    }
}

/// A digest of the job and the layout of `topo` (not which process this is): the processes
/// of one run must agree on it, or they refuse each other.
pub fn digest(job: &Job, input: &Input, topo: &Topology) -> u64 {
    let text = format!(
        "{:?}|{:?}|{}|{}|{:?}|{:?}|{:?}|{}|{}|{}",
        job,
        input,
        topo.processes(),
        topo.workers(),
        topo.hosts(),
        topo.run_dir(),
        topo.resumes(),
        topo.exchange(),
        topo.giant_groups(),
        env!("CARGO_PKG_VERSION")
    );
    xxhash_rust::xxh3::xxh3_64(text.as_bytes())
}

/// A run directory is for divided runs, whose workers keep checkpoints: a gathered run
/// (`because`) with one is refused.
fn refuse_run_dir(topo: &Topology, because: Option<&str>) -> Result<()> {
    match topo.run_dir() {
        Some(dir) => Err(Error::config(format!(
            "--run-dir {}: only a divided run keeps checkpoints, and this one is gathered ({})",
            dir.display(),
            because.unwrap_or("the input is an images file")
        ))),
        None => Ok(()),
    }
}

/// [`Job::prepare`] with the workers of every process of `topo`: every process reads and
/// sketches its share of the corpus, and process 0 gets what [`Job::prepare`] gets in one
/// process (`Some`, with what each process did); the others get `None`.
pub fn prepare_on(
    job: &Job,
    input: &Input,
    topo: &Topology,
) -> Result<Option<(Sketched, Distributed)>> {
    prepare_with(job, input, topo, digest(job, input, topo))
}

/// [`prepare_on`] with the digest the processes agree on (that of the input as given, when
/// `input` is a staged copy of it).
fn prepare_with(
    job: &Job,
    input: &Input,
    topo: &Topology,
    digest: u64,
) -> Result<Option<(Sketched, Distributed)>> {
    let Input::Corpus(path) = input else {
        return Err(Error::config(format!(
            "{}: a distributed run reads a corpus; images files are clustered in one process",
            input.path().display()
        )));
    };
    let mut dist = Distributed {
        processes: topo.processes(),
        workers: topo.workers(),
        mode: "gathered".into(),
        exchange: None,
        giant_groups: None,
        gathered_because: None,
        per_process: Vec::new(),
        parts: Vec::new(),
        resumed_after: None,
    };
    let pipeline = job.pipeline();
    let spill = job.spill_config();
    if !topo.is_leader() {
        sketch_distributed(
            path,
            pipeline,
            topo,
            digest,
            spill,
            &mut super::sketch::NullSink,
        )?;
        return Ok(None);
    }
    let mut reports = Vec::new();
    let s = job.prepare_by(input, &mut |path, sink| {
        let d = sketch_distributed(path, pipeline, topo, digest, spill, sink)?;
        reports = d.processes;
        Ok(d.stats)
    })?;
    dist.per_process = reports;
    Ok(Some((s, dist)))
}

/// [`Job::run`] with the workers of every process of `topo`: `Some` output on process 0
/// (the same as [`Job::run`] gives, plus what each process did), `None` elsewhere.
/// Jobs by resemblance on one file split by byte ranges, or on shards of any format
/// divided by bytes, run divided ([`super::cluster`]): then every process writes its parts
/// of `clusters.jsonl` and `pairs.csv` into `out` (the output holds the summary only:
/// [`JobOutput::in_parts`]); other jobs are prepared by [`prepare_on`] and run on process
/// 0, whose output holds everything (the caller writes it).
pub fn run_job(job: &Job, input: &Input, topo: &Topology, out: &Path) -> Result<Option<JobOutput>> {
    let t0 = Instant::now();
    super::cluster::check_exchange(job, topo.exchange())?;
    let because = match input {
        Input::Corpus(path) => match super::cluster::gathered_because(job, path)? {
            None => return super::divided::run_divided(job, path, input, topo, out),
            Some(b) => Some(b),
        },
        Input::Images(_) => None,
    };
    refuse_run_dir(topo, because)?;
    // A corpus in object storage is staged whole in every process.
    let run = |staged_input: &Input| {
        let Some((s, mut dist)) = prepare_with(job, staged_input, topo, digest(job, input, topo))?
        else {
            return Ok(None);
        };
        dist.gathered_because = because.map(str::to_string);
        job.finish(t0, s, Some(dist.to_json()?)).map(Some)
    };
    match input {
        Input::Corpus(p) => {
            let tmp = job.spill_config().tmp_dir.as_deref();
            crate::corpus::remote::with_staged(p, &job.pipeline().corpus, tmp, |local| {
                run(&Input::Corpus(local.to_path_buf()))
            })
        }
        Input::Images(_) => run(input),
    }
}

/// [`Dedup::run`] with the workers of every process of `topo` (`Some` output on process 0,
/// `None` elsewhere). When the job runs divided and the choice can be made per group
/// ([`Dedup::divided_because`]), each process writes the kept records of its pieces (byte
/// ranges of the file or of the shards) as a part (`kept.part-00000.jsonl`, ...; their concatenation in process order is the
/// one-process kept file) and its parts of `removed.csv` and `clusters.jsonl`, and
/// process 0 the summary ([`super::divided::run_divided_dedup`]).
/// Otherwise the corpus is read and sketched by all of them, and process 0 chooses and
/// writes what [`Dedup::run`] writes; the others write nothing.
pub fn run_dedup(
    dedup: &Dedup,
    input: &Path,
    out: &Path,
    topo: &Topology,
) -> Result<Option<DedupOutput>> {
    let t0 = Instant::now();
    dedup.check_input(input)?;
    super::cluster::check_exchange(dedup.job(), topo.exchange())?;
    let because = match super::cluster::gathered_because(dedup.job(), input)? {
        Some(b) => b,
        None => match dedup.divided_because(input)? {
            None => return super::divided::run_divided_dedup(dedup, input, out, topo),
            Some(b) => b,
        },
    };
    refuse_run_dir(topo, Some(because))?;
    // A corpus in object storage is staged whole in every process.
    let job = dedup.job();
    let digest = digest(job, &Input::Corpus(input.to_path_buf()), topo);
    let tmp = job.spill_config().tmp_dir.as_deref();
    crate::corpus::remote::with_staged(input, &job.pipeline().corpus, tmp, |local| {
        match prepare_with(job, &Input::Corpus(local.to_path_buf()), topo, digest)? {
            Some((s, mut dist)) => {
                dist.gathered_because = Some(because.to_string());
                dedup
                    .finish(t0, local, Some(out), s, Some(dist.to_json()?))
                    .map(Some)
            }
            None => Ok(None),
        }
    })
}
