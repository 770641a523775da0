//! Runs the divided cluster stage ([`super::cluster`]) on the workers of every process and
//! hands process 0's result to the library's output ([`JobOutput`]).
//!
//! Invariants: the calling thread of each process waits for its workers; it fails as soon
//! as one of them fails or panics, or a connection is lost for longer than a grace period,
//! naming the lost process; only worker 0 of process 0 returns a result; the workers of a
//! run meet in a last round after that result is made, so no process closes its
//! connections while process 0 is still assembling.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Instant;

use super::cluster::{run_worker, Assembled, Plan};
use super::net::connect;
use super::rounds::Rounds;
use super::workers::{report_outcome, wait_workers, Event, Watch};
use super::{Distributed, Topology};
use crate::cluster::{Input, Job, JobOutput, Phase};
use crate::sketch::pipeline::pipeline_sketcher;
use crate::{Error, Result};

/// [`crate::cluster::Job::run`] divided among the workers of every process of `topo` (see
/// [`super::cluster`]; the caller checked [`super::cluster::gathered_because`]): `Some`
/// output on process 0, `None` elsewhere.
pub fn run_divided(
    job: &Job,
    path: &Path,
    input: &Input,
    topo: &Topology,
) -> Result<Option<JobOutput>> {
    let t0 = Instant::now();
    let pipeline = job.pipeline();
    pipeline.validate()?;
    if path == Path::new("-") {
        return Err(Error::config(
            "a distributed run reads its input from a file every process can read, not standard input",
        ));
    }
    let sketcher = pipeline_sketcher(path, pipeline)?;
    let params = sketcher.params(pipeline.text_params());
    let scheme = params.sketch.scheme;
    let comms = connect(topo, super::digest(job, input, topo))?;
    let losses = comms.losses.clone();
    let plan = Arc::new(Plan {
        path: path.to_path_buf(),
        job: job.clone(),
        params,
        sketcher,
        per_process: topo.workers(),
    });
    let (tx, rx) = mpsc::channel::<Event<Box<Assembled>>>();
    let tx = Mutex::new(tx);
    let worker_fn = move |worker: &mut timely::worker::Worker| {
        let Ok(tx) = tx.lock().map(|t| t.clone()) else {
            return;
        };
        let index = worker.index();
        let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<()> {
            let mut rounds = Rounds::new(worker, plan.per_process);
            if let Some(a) = run_worker(&mut rounds, &plan)? {
                let _ = tx.send(Event::Msg(Box::new(a)));
            }
            // The last meeting: nobody leaves before process 0 has its result.
            rounds.all_gather(0u64);
            Ok(())
        }));
        report_outcome(&tx, index, outcome, || {});
    };
    let guards = timely::execute::execute_from(
        comms.builders,
        comms.guard,
        timely::WorkerConfig::default(),
        worker_fn,
    )
    .map_err(Error::Distributed)?;
    let first = topo.process() * topo.workers();
    let stopped = || -> Vec<usize> {
        (guards.guards().iter().enumerate())
            .filter(|(_, g)| g.is_finished())
            .map(|(i, _)| first + i)
            .collect()
    };
    let watch = Watch {
        losses: &losses,
        stopped: &stopped,
    };
    let mut result: Option<Assembled> = None;
    let outcome = wait_workers(topo, &rx, &watch, |a: Box<Assembled>| {
        result = Some(*a);
        Ok(())
    });
    match outcome {
        Ok(()) => drop(guards),
        Err(e) => {
            // Workers may be blocked on a lost peer: leave their threads behind.
            std::mem::forget(guards);
            return Err(e);
        }
    }
    if !topo.is_leader() {
        return Ok(None);
    }
    let Some(a) = result else {
        return Err(Error::Distributed(
            "process 0 finished without the merged result".into(),
        ));
    };
    let Assembled {
        mut output,
        ext_ids,
        stats,
        mut per_process,
    } = a;
    if let Some(p) = per_process.first_mut() {
        p.peak_rss_bytes = p.peak_rss_bytes.max(crate::spill::peak_rss_bytes());
    }
    output.summary.phases.insert(
        0,
        Phase {
            name: "sketch".into(),
            seconds: output
                .summary
                .phases
                .iter()
                .find(|p| p.name == "read and sketch")
                .map_or(0.0, |p| p.seconds),
        },
    );
    output
        .summary
        .phases
        .retain(|p| p.name != "read and sketch");
    let distributed = Distributed {
        processes: topo.processes(),
        workers: topo.workers(),
        mode: "divided".into(),
        gathered_because: None,
        per_process,
    };
    Ok(Some(JobOutput {
        output,
        ext_ids,
        scheme,
        seconds: t0.elapsed().as_secs_f64(),
        peak_rss_bytes: crate::spill::peak_rss_bytes(),
        input_stats: stats.corpus,
        distributed: Some(distributed.to_json()?),
    }))
}
