//! Runs the divided cluster stage ([`super::cluster`]) on the workers of every process
//! (each process writes its parts of the outputs) and hands process 0's counts to the
//! library's output ([`JobOutput`], [`Dedup::conclude`]), which writes `summary.json`.
//! With a run directory each process first records the run there, or checks a resumed
//! run against the record (`checkpoint.rs`).
//!
//! Invariants: the calling thread of each process waits for its workers; it fails as soon
//! as one of them fails or panics, or a connection is lost for longer than a grace period,
//! naming the lost process; only worker 0 of process 0 returns a result (counts and
//! reports, never the outputs); the workers of a run meet in a last round after that
//! result is made, so no process closes its connections while process 0 is still
//! assembling.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Instant;

use super::checkpoint::{RunDir, RunRecord};
use super::cluster::{run_worker, Assembled, InputFile, Plan};
use super::net::connect;
use super::rounds::Rounds;
use super::workers::{report_outcome, wait_workers, Event, Watch};
use super::{Distributed, Topology};
use crate::cluster::{ClusterOutput, Input, Job, JobOutput, Phase};
use crate::dedup::{
    kept_compression, part_name, Chosen, Dedup, DedupOutput, RemovedBy, WrittenParts,
};
use crate::sketch::pipeline::pipeline_sketcher;
use crate::{Error, Result};

/// [`crate::cluster::Job::run`] divided among the workers of every process of `topo` (see
/// [`super::cluster`]; the caller checked [`super::cluster::gathered_because`]): every
/// process writes its parts of `clusters.jsonl` and `pairs.csv` into `out` (with one
/// process, the files themselves; see [`crate::cluster::stages::part_file`]); `Some`
/// output on process 0 (the summary, [`JobOutput::in_parts`]), `None` elsewhere.
pub fn run_divided(
    job: &Job,
    path: &Path,
    input: &Input,
    topo: &Topology,
    out: &Path,
) -> Result<Option<JobOutput>> {
    let t0 = Instant::now();
    let Some((a, scheme)) = run_stages(job, None, path, input, topo, out)? else {
        return Ok(None);
    };
    let Assembled {
        summary,
        stats,
        per_process,
        resumed_after,
        ..
    } = a;
    let files = ["clusters.jsonl", "pairs.csv"];
    Ok(Some(JobOutput {
        output: ClusterOutput {
            summary,
            ..ClusterOutput::default()
        },
        ext_ids: Vec::new(),
        scheme,
        seconds: t0.elapsed().as_secs_f64(),
        peak_rss_bytes: crate::spill::peak_rss_bytes(),
        input_stats: stats.corpus,
        distributed: Some(divided_block(topo, per_process, &files, resumed_after).to_json()?),
        memory_plan: None,
        options: job.method_options().clone(),
        in_parts: true,
    }))
}

/// [`Dedup::run`] divided among the workers of every process of `topo` (the caller checked
/// [`super::cluster::gathered_because`] and [`Dedup::divided_because`]): the choice is made
/// per group, each process writes the kept records of its pieces as one part in `out`
/// ([`crate::dedup::write_kept_part`]) and its parts of `removed.csv` and
/// `clusters.jsonl` (with one process, the files themselves), and process 0 writes
/// `summary.json` (`Some`, without the removals and clusters: [`Chosen::parts`]); the
/// others return `None`.
pub fn run_divided_dedup(
    dedup: &Dedup,
    path: &Path,
    out: &Path,
    topo: &Topology,
) -> Result<Option<DedupOutput>> {
    let t0 = Instant::now();
    let input = Input::Corpus(path.to_path_buf());
    let Some((a, _)) = run_stages(dedup.job(), Some(dedup), path, &input, topo, out)? else {
        return Ok(None);
    };
    let Assembled {
        summary,
        totals,
        stats,
        per_process,
        resumed_after,
    } = a;
    let format = dedup.job().pipeline().corpus.format_of(path)?;
    let [identical, lexically_equivalent, near_duplicate, against_index] = totals.removed;
    let documents = summary.documents;
    let chosen = Chosen {
        t0,
        input: path,
        out: Some(out),
        kept_file: Some(
            part_name(format, dedup.out_format(), kept_compression(path), 0).replace("00000", "*"),
        ),
        write_started: Instant::now(),
        cluster: ClusterOutput {
            summary,
            ..ClusterOutput::default()
        },
        removed: Vec::new(),
        ext_ids: Vec::new(),
        input_stats: stats.corpus,
        parts: Some(WrittenParts {
            documents,
            removed_by: RemovedBy {
                identical,
                lexically_equivalent,
                near_duplicate,
                against_index,
            },
        }),
    };
    let files = ["clusters.jsonl", "removed.csv"];
    let distributed = divided_block(topo, per_process, &files, resumed_after).to_json()?;
    dedup.conclude(chosen, Some(distributed)).map(Some)
}

/// The `distributed` block of a divided run that wrote `files` in parts (resumed after a
/// stage, or not).
fn divided_block(
    topo: &Topology,
    per_process: Vec<super::ProcessReport>,
    files: &[&str],
    resumed_after: Option<String>,
) -> Distributed {
    let parts = topo.processes();
    Distributed {
        processes: parts,
        workers: topo.workers(),
        mode: "divided".into(),
        exchange: Some(topo.exchange().to_string()),
        giant_groups: (topo.giant_groups() == super::GiantGroups::Divided)
            .then(|| topo.giant_groups().to_string()),
        gathered_because: None,
        per_process,
        parts: (files.iter())
            .map(|f| crate::cluster::stages::part_pattern(f, parts))
            .collect(),
        resumed_after,
    }
}

/// Connects the processes, runs the stages on every worker and waits for them: process 0's
/// merged result (`Some`, with the images' scheme), `None` elsewhere.
fn run_stages(
    job: &Job,
    dedup: Option<&Dedup>,
    path: &Path,
    input: &Input,
    topo: &Topology,
    out: &Path,
) -> Result<Option<(Assembled, crate::sketch::Scheme)>> {
    let pipeline = job.pipeline();
    pipeline.validate()?;
    if path == Path::new("-") {
        return Err(Error::config(
            "a distributed run reads its input from a file every process can read, not standard input",
        ));
    }
    // A corpus in object storage: this process's pieces, staged.
    let first = topo.process() * topo.workers();
    let staged = crate::corpus::remote::stage_pieces(
        path,
        &pipeline.corpus,
        job.spill_config().tmp_dir.as_deref(),
        topo.processes() * topo.workers(),
        first..first + topo.workers(),
    )?;
    let path = staged.as_ref().map_or(path, |s| s.path());
    let sketcher = pipeline_sketcher(path, pipeline)?;
    let params = sketcher.params(pipeline.text_params());
    let scheme = params.sketch.scheme;
    let files = InputFile::list(path, &pipeline.corpus)?;
    // A resume that differs from the recorded run is refused before anything is written.
    // A staged corpus is recorded by its objects' URLs, as a resumed run stages it again.
    let named: Vec<InputFile> = (files.iter())
        .map(|f| InputFile {
            path: staged
                .as_ref()
                .map_or(f.path.clone(), |s| s.url_of(&f.path)),
            ids: f.ids.clone(),
            len: f.len,
            cut: f.cut,
        })
        .collect();
    let run_dir = RunDir::open(topo, &RunRecord::new(job, dedup, &named, topo))?;
    let comms = connect(topo, super::digest(job, input, topo))?;
    let losses = comms.losses.clone();
    let plan = Arc::new(Plan {
        path: path.to_path_buf(),
        files,
        positional_ids: crate::corpus::shards::positional_ids(
            pipeline.corpus.format_of(path)?,
            &pipeline.corpus,
        ),
        job: job.clone(),
        params,
        sketcher,
        per_process: topo.workers(),
        out: out.to_path_buf(),
        dedup: dedup.cloned(),
        exchange: topo.exchange(),
        giant_groups: topo.giant_groups(),
        parts_written: std::sync::atomic::AtomicBool::new(false),
    });
    let written = plan.clone();
    let (tx, rx) = mpsc::channel::<Event<Box<Assembled>>>();
    let tx = Mutex::new(tx);
    let first_error = super::workers::FirstError::default();
    let noted = first_error.clone();
    let worker_fn = move |worker: &mut timely::worker::Worker| {
        let Ok(tx) = tx.lock().map(|t| t.clone()) else {
            return;
        };
        let index = worker.index();
        let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<()> {
            let mut rounds = Rounds::new(worker, plan.per_process, noted.clone());
            if let Some(a) = run_worker(&mut rounds, &plan, run_dir.as_ref())? {
                let _ = tx.send(Event::Msg(Box::new(a)));
            }
            // The last meeting: nobody leaves before process 0 has its result. Every worker
            // got this far, so no resume needs a checkpoint any more.
            rounds.all_gather(0u64);
            match run_dir.as_ref() {
                Some(r) => r.finish(index),
                None => Ok(()),
            }
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
        first_error: &first_error,
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
            if written
                .parts_written
                .load(std::sync::atomic::Ordering::Relaxed)
            {
                super::output::remove_parts(out, topo.process());
            }
            return Err(match &staged {
                Some(s) => s.name_urls(e),
                None => e,
            });
        }
    }
    if !topo.is_leader() {
        return Ok(None);
    }
    let Some(mut a) = result else {
        return Err(Error::Distributed(
            "process 0 finished without the merged result".into(),
        ));
    };
    if let Some(p) = a.per_process.first_mut() {
        p.peak_rss_bytes = p.peak_rss_bytes.max(crate::spill::peak_rss_bytes());
    }
    // The read and sketch stage is the run's "sketch" phase, first.
    let phases = &mut a.summary.phases;
    let sketch = phases
        .iter()
        .find(|p| p.name == "read and sketch")
        .map_or(0.0, |p| p.seconds);
    phases.retain(|p| p.name != "read and sketch");
    phases.insert(
        0,
        Phase {
            name: "sketch".into(),
            seconds: sketch,
            peak_rss_bytes: None,
        },
    );
    Ok(Some((a, scheme)))
}
