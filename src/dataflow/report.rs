//! What each worker of a divided run measures and counts per stage ([`Stages`], [`Lap`],
//! [`WorkerCounts`]), and worker 0's reports from them: the run's phases and each
//! process's report (documents, incidences, bytes sent and received, seconds and counts
//! per stage, peak memory), and the parts' counts the summary needs ([`part_counts`]).
//! The counts themselves travel to worker 0 in a last round, reported as the stage
//! `summary` ([`summary_lap`]).
//!
//! Invariants: a stage's seconds are the longest over the workers; bytes a worker sends to
//! its own process are not counted as received; a fail point at each stage's end
//! (`dataflow-after-<stage>`, and `dataflow-in-components` in the middle of that stage,
//! [`fail_point`]) kills the process there, for the fail-stop and resume tests, and is
//! inert unless named.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::rounds::{Rounds, Traffic, Wire};
use super::workers::add_stats;
use crate::cluster::stages::PartCounts;
use crate::cluster::{CollapseSummary, Phase};
use crate::sketch::pipeline::SketchStats;

/// What a worker counted and moved in each stage, sent to worker 0 at the end.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(super) struct WorkerCounts {
    pub worker: usize,
    pub stats: SketchStats,
    pub documents: u64,
    pub incidences: u64,
    pub collapse: CollapseSummary,
    /// Elements whose posting lists it held, and what it kept and dropped.
    pub context_rows: u64,
    pub dropped_rare: u64,
    pub dropped_common: u64,
    /// Per stage, in order.
    pub stages: Vec<Lap>,
    pub peak_rss_bytes: Option<u64>,
    /// A deduplication's kept records written in this worker's part.
    pub kept_written: u64,
    /// The passes of the rows stage (more than one under a tight memory budget).
    pub row_passes: u64,
    /// The passes of the ids check (more than one under a tight memory budget).
    pub id_passes: u64,
    /// The passes that sent group members' shingle sets to their owners (0 when none
    /// were sent; more than one under a tight memory budget).
    pub set_passes: u64,
    /// The iterations of large-star and small-star of the components stage.
    pub component_rounds: u64,
    /// The itemsets it mined in parts of the giant groups' components.
    pub mined_in_parts: u64,
    /// The longest row it held as a key's owner in the rows stage (incidences).
    pub hottest_row: u64,
    /// The bytes of the corpus's files it read.
    pub bytes_read: u64,
}

impl Wire for WorkerCounts {
    fn wire_bytes(&self) -> u64 {
        256 + self
            .stages
            .iter()
            .map(|s| 40 + s.name.len() as u64 + 8 * s.bytes_to.len() as u64)
            .sum::<u64>()
    }
}

/// What a worker measured in one stage.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(super) struct Lap {
    pub name: String,
    pub seconds: f64,
    /// Bytes sent to each process.
    pub bytes_to: Vec<u64>,
    /// The stage's own count.
    pub count: u64,
    /// The process's peak resident memory when the stage ended (a high-water mark: the
    /// stage that raised it is the first whose figure is the process's peak).
    pub peak_rss_bytes: Option<u64>,
}

/// One stage's clock and traffic.
pub(super) struct Stages {
    pub t: Instant,
    pub list: Vec<Lap>,
}

impl Default for Stages {
    fn default() -> Self {
        Stages {
            t: Instant::now(),
            list: Vec::new(),
        }
    }
}

impl Stages {
    pub(super) fn lap(&mut self, name: &str, rounds: &mut Rounds<'_>, count: u64) {
        let now = Instant::now();
        let Traffic { bytes_to } = rounds.take_traffic();
        self.list.push(Lap {
            name: name.to_string(),
            seconds: (now - self.t).as_secs_f64(),
            bytes_to,
            count,
            peak_rss_bytes: crate::spill::peak_rss_bytes(),
        });
        self.t = now;
        fail_point(&format!("dataflow-after-{}", name.replace(' ', "-")));
    }
}

/// A fail point for the fail-stop and resume tests: with the `failpoints` feature and
/// `FAILPOINTS=NAME=return`, this process dies (SIGKILL) there, in the middle of the run
/// for the others; inert otherwise.
pub(super) fn fail_point(name: &str) {
    #[cfg(feature = "failpoints")]
    fail::fail_point!(name, |_| {
        // SAFETY: raise only sends a signal to this process.
        unsafe { libc::raise(libc::SIGKILL) };
        unreachable!("SIGKILL ends the process")
    });
    #[cfg(not(feature = "failpoints"))]
    let _ = name;
}

/// The last round's traffic, known only once it has arrived: each worker's counts sent to
/// worker 0, as a stage `summary` of every worker (what the workers of other processes
/// sent to process 0).
pub(super) fn summary_lap(counts: &mut [WorkerCounts], per_process: usize) {
    let per = per_process.max(1);
    let processes = counts.len().div_ceil(per);
    for c in counts.iter_mut() {
        let mut bytes_to = vec![0u64; processes];
        if c.worker / per != 0 {
            bytes_to[0] = c.wire_bytes();
        }
        c.stages.push(Lap {
            name: "summary".into(),
            seconds: 0.0,
            bytes_to,
            count: 1,
            peak_rss_bytes: c.peak_rss_bytes,
        });
    }
}

/// The workers' counts summed, as the merge takes them, and their sketch counts.
pub(super) fn part_counts(counts: &[WorkerCounts]) -> (PartCounts, SketchStats) {
    let mut part = PartCounts::default();
    let mut stats = SketchStats::default();
    for c in counts {
        part.collapsed.add(&c.collapse);
        add_stats(&mut stats, &c.stats);
        part.context_rows += c.context_rows;
        part.dropped_rare += c.dropped_rare;
        part.dropped_common += c.dropped_common;
    }
    (part, stats)
}

/// The run's phases: each stage's longest seconds over the workers.
pub(super) fn stage_phases(counts: &[WorkerCounts]) -> Vec<Phase> {
    let mut out: Vec<Phase> = Vec::new();
    for c in counts {
        for lap in &c.stages {
            match out.iter_mut().find(|p| p.name == lap.name) {
                Some(p) => p.seconds = p.seconds.max(lap.seconds),
                None => out.push(Phase {
                    name: lap.name.clone(),
                    seconds: lap.seconds,
                    peak_rss_bytes: None,
                }),
            }
        }
    }
    out
}

/// Per process: documents, incidences, bytes, seconds and counts per stage, peak memory.
pub(super) fn process_reports(
    counts: &[WorkerCounts],
    per_process: usize,
) -> Vec<super::ProcessReport> {
    let processes = counts.len().div_ceil(per_process.max(1));
    let mut out: Vec<super::ProcessReport> = (0..processes)
        .map(|p| super::ProcessReport {
            process: p,
            ..Default::default()
        })
        .collect();
    for c in counts {
        let p = c.worker / per_process.max(1);
        let r = &mut out[p];
        r.documents += c.documents;
        r.incidences += c.incidences;
        r.peak_rss_bytes = r.peak_rss_bytes.max(c.peak_rss_bytes);
        r.row_passes = Some(c.row_passes);
        r.id_passes = (c.id_passes > 0).then_some(c.id_passes);
        r.set_passes = (c.set_passes > 0).then_some(c.set_passes);
        r.component_rounds = Some(c.component_rounds);
        if c.mined_in_parts > 0 {
            *r.mined_in_parts.get_or_insert(0) += c.mined_in_parts;
        }
        r.hottest_row = Some(r.hottest_row.unwrap_or(0).max(c.hottest_row));
        *r.bytes_read.get_or_insert(0) += c.bytes_read;
        for lap in &c.stages {
            let s = r.seconds.entry(lap.name.clone()).or_insert(0.0);
            *s = s.max(lap.seconds);
            let sent: u64 = lap.bytes_to.iter().sum();
            r.bytes_sent += sent;
            let st = r.stages.entry(lap.name.clone()).or_default();
            st.seconds = st.seconds.max(lap.seconds);
            st.bytes_sent += sent;
            st.count += lap.count;
            st.peak_rss_bytes = st.peak_rss_bytes.max(lap.peak_rss_bytes);
        }
    }
    for c in counts {
        let from = c.worker / per_process.max(1);
        for lap in &c.stages {
            for (to, &b) in lap.bytes_to.iter().enumerate() {
                if to != from && to < out.len() {
                    out[to].bytes_received += b;
                    out[to]
                        .stages
                        .entry(lap.name.clone())
                        .or_default()
                        .bytes_received += b;
                }
            }
        }
    }
    out
}
