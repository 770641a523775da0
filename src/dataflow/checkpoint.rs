//! A divided run kept in a run directory (`--run-dir DIR`, [`super::Topology::with_run_dir`])
//! so that a failed run can be resumed (`--resume`) after the last stage every worker
//! completed, with the same outputs.
//!
//! Each process keeps `DIR/process-PPPPP/`:
//! - `run.json`: what identifies the run ([`RunRecord`]: the inputs with their sizes and,
//!   for files on disk, their modification times, the
//!   processes, the workers per process and the job's options as text), written when a run
//!   starts (a fresh run first empties the process's directory);
//! - `worker-WWWWW.after-pairs`: a worker's checkpoint after the pairs stage, the stage
//!   whose result costs most ([`AfterPairs`], then its documents' keys and values), in
//!   bincode (timely's own encoding);
//! - `worker-WWWWW.after-groups`: its checkpoint after the per-group stage (the method and
//!   the verification on its groups: [`AfterGroups`]), which with the first (its keys left
//!   unread) is all the later stages read.
//!
//! Each is written to a `.tmp` file and renamed: a checkpoint under its name is complete
//! (the rename is its completion marker). The checkpoints are removed once every worker
//! has finished the run; `run.json` stays.
//!
//! A resumed run reads `run.json` and refuses, naming what differs, another corpus (a file
//! of another size), another job, process count or worker count ([`RunDir::open`]); its
//! workers then agree (an all-gather) on the latest stage after which every worker has a
//! checkpoint, load those and go on after it, or start over when some worker has none.
//!
//! Invariants: a resumed run's outputs are byte-identical to an uninterrupted run's (a
//! checkpoint holds everything the later stages read); a refused resume writes nothing;
//! a checkpoint is never read half-written.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::cluster::{Doc, InputFile};
use super::report::Lap;
use super::Topology;
use crate::cluster::stages::GroupFound;
use crate::cluster::{CollapseSummary, Job};
use crate::context::DocKeys;
use crate::corpus::split::{LineRange, Piece};
use crate::dedup::Dedup;
use crate::sketch::pipeline::SketchStats;
use crate::{Error, Result};

/// The stage after which the workers keep their first checkpoint.
pub(super) const CHECKPOINT_STAGE: &str = "pairs";

/// The stage after which the workers keep their second checkpoint.
pub(super) const GROUPS_STAGE: &str = "per group";

/// What identifies a run in its run directory (`run.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct RunRecord {
    /// The corpus's files, each with its size in bytes and, for a file on disk, its
    /// modification time in nanoseconds since the epoch (an object in object storage is
    /// staged again by a resume, so it is named by its URL and size alone).
    pub inputs: Vec<(String, u64, Option<u64>)>,
    pub processes: usize,
    pub workers: usize,
    /// The job's options (and a deduplication's), as text.
    pub job: String,
    /// The version of fimdup that ran it.
    pub version: String,
}

impl RunRecord {
    pub(super) fn new(
        job: &Job,
        dedup: Option<&Dedup>,
        files: &[InputFile],
        topo: &Topology,
    ) -> Self {
        RunRecord {
            inputs: (files.iter())
                .map(|f| (f.path.display().to_string(), f.len, modified(&f.path)))
                .collect(),
            processes: topo.processes(),
            workers: topo.workers(),
            job: match dedup {
                Some(d) => format!("{d:?}"),
                None => format!("{job:?}"),
            },
            version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }

    /// What differs from the recorded run `was`, one phrase each.
    fn differences(&self, was: &RunRecord) -> Vec<String> {
        let mut d = Vec::new();
        if self.inputs != was.inputs {
            let show = |v: &[(String, u64, Option<u64>)]| {
                (v.iter().map(|(p, n, m)| match m {
                    Some(m) => format!("{p} ({n} bytes, modified at {m} ns)"),
                    None => format!("{p} ({n} bytes)"),
                }))
                .collect::<Vec<_>>()
                .join(", ")
            };
            d.push(format!(
                "the input: {} now, {} recorded",
                show(&self.inputs),
                show(&was.inputs)
            ));
        }
        if self.processes != was.processes {
            d.push(format!(
                "the number of processes: {} now, {} recorded",
                self.processes, was.processes
            ));
        }
        if self.workers != was.workers {
            d.push(format!(
                "the workers per process: {} now, {} recorded",
                self.workers, was.workers
            ));
        }
        if self.job != was.job {
            d.push(format!(
                "the options: {}",
                first_difference(&self.job, &was.job)
            ));
        }
        if self.version != was.version {
            d.push(format!(
                "the version of fimdup: {} now, {} recorded",
                self.version, was.version
            ));
        }
        d
    }
}

/// The modification time of the file at `path` in nanoseconds since the epoch; `None` for
/// a URL, or when the file system does not say.
fn modified(path: &Path) -> Option<u64> {
    let t = std::fs::metadata(path).ok()?.modified().ok()?;
    let ns = t.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos();
    u64::try_from(ns).ok()
}

/// The first field of two options texts (`Debug` output) that differs, as `now` and
/// `recorded` fragments, each named by the field it is in.
fn first_difference(now: &str, was: &str) -> String {
    let split = |s: &str| -> Vec<String> {
        s.split([',', '{', '}', '(', ')', '[', ']'])
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect()
    };
    let (a, b) = (split(now), split(was));
    let i = (a.iter().zip(&b))
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    // A value without its name (`Threshold(0.7)` split): named by the field before it.
    let named = |v: &[String]| match v.get(i) {
        None => "nothing".to_string(),
        Some(t) if t.contains(':') => t.clone(),
        Some(t) => match v[..i].iter().rev().find(|t| t.contains(':')) {
            Some(f) => format!("{} .. {t}", f.split(':').next().unwrap_or_default()),
            None => t.clone(),
        },
    };
    format!("`{}` now, `{}` recorded", named(&a), named(&b))
}

/// A process's directory of a run directory.
pub(super) struct RunDir {
    dir: PathBuf,
    resume: bool,
}

impl RunDir {
    /// This process's directory of the run directory of `topo` (`None` without one): for a
    /// resumed run, checked against its `run.json` (a difference is a configuration error
    /// naming it); for a fresh run, emptied and given a `run.json` for `record`.
    pub(super) fn open(topo: &Topology, record: &RunRecord) -> Result<Option<RunDir>> {
        let Some(root) = topo.run_dir() else {
            return Ok(None);
        };
        let dir = root.join(format!("process-{:05}", topo.process()));
        let file = dir.join("run.json");
        if topo.resumes() {
            let text = std::fs::read_to_string(&file).map_err(|e| {
                Error::config(format!(
                    "{}: no run of process {} to resume ({e}); was the run started with \
                     --run-dir {} and {} processes?",
                    file.display(),
                    topo.process(),
                    root.display(),
                    topo.processes()
                ))
            })?;
            let was: RunRecord = serde_json::from_str(&text).map_err(|e| Error::Format {
                path: file.clone(),
                msg: format!("not a run record: {e}"),
            })?;
            let diff = record.differences(&was);
            if !diff.is_empty() {
                return Err(Error::config(format!(
                    "--resume: {} records another run; it differs in {}",
                    file.display(),
                    diff.join("; ")
                )));
            }
        } else {
            if dir.exists() {
                std::fs::remove_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
            }
            std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
            let text = serde_json::to_string_pretty(record)
                .map_err(|e| Error::config(format!("run record: {e}")))?;
            write_renamed(&file, |w| {
                w.write_all(text.as_bytes())
                    .map_err(|e| Error::io(&file, e))
            })?;
        }
        Ok(Some(RunDir {
            dir,
            resume: topo.resumes(),
        }))
    }

    /// Whether the run resumes.
    pub(super) fn resumes(&self) -> bool {
        self.resume
    }

    /// The checkpoint of `worker` (its index among all workers) after the pairs stage.
    fn after_pairs(&self, worker: usize) -> PathBuf {
        self.dir
            .join(format!("worker-{worker:05}.after-{CHECKPOINT_STAGE}"))
    }

    /// Writes `worker`'s checkpoint after the pairs stage: `state`, then the documents'
    /// keys and values in order.
    pub(super) fn save_after_pairs(
        &self,
        worker: usize,
        state: &AfterPairs,
        held: &mut DocKeys,
    ) -> Result<()> {
        let path = self.after_pairs(worker);
        write_renamed(&path, |w| {
            let enc = codec_error(&path, true);
            bincode::serialize_into(&mut *w, state).map_err(enc)?;
            held.for_each(|_, keys, values| {
                bincode::serialize_into(&mut *w, &(keys, values)).map_err(enc)
            })
        })
    }

    /// The checkpoint of `worker` after the per-group stage.
    fn after_groups(&self, worker: usize) -> PathBuf {
        self.dir.join(format!("worker-{worker:05}.after-groups"))
    }

    /// The checkpoints `worker` has, in order: 0 (none), 1 (after the pairs stage) or 2
    /// (after the per-group stage too).
    pub(super) fn checkpoints(&self, worker: usize) -> u64 {
        match (
            self.after_pairs(worker).is_file(),
            self.after_groups(worker).is_file(),
        ) {
            (false, _) => 0,
            (true, false) => 1,
            (true, true) => 2,
        }
    }

    /// Writes `worker`'s checkpoint after the per-group stage.
    pub(super) fn save_after_groups(&self, worker: usize, state: &AfterGroups) -> Result<()> {
        let path = self.after_groups(worker);
        write_renamed(&path, |w| {
            bincode::serialize_into(&mut *w, state).map_err(codec_error(&path, true))
        })
    }

    /// Reads `worker`'s checkpoint after the per-group stage, with the state of its
    /// checkpoint after the pairs stage (its documents' keys, which the later stages do not
    /// read, left unread).
    pub(super) fn load_after_groups(&self, worker: usize) -> Result<(AfterPairs, AfterGroups)> {
        let pairs = self.after_pairs(worker);
        let state: AfterPairs = bincode::deserialize_from(open_checkpoint(&pairs)?)
            .map_err(codec_error(&pairs, false))?;
        let groups = self.after_groups(worker);
        let after: AfterGroups = bincode::deserialize_from(open_checkpoint(&groups)?)
            .map_err(codec_error(&groups, false))?;
        Ok((state, after))
    }

    /// Removes `worker`'s checkpoints once every worker has finished the run (its
    /// `run.json` stays; a resume of a finished run starts over, with the same outputs).
    pub(super) fn finish(&self, worker: usize) -> Result<()> {
        for path in [self.after_pairs(worker), self.after_groups(worker)] {
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(Error::io(&path, e))
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Reads `worker`'s checkpoint after the pairs stage; the keys go to a store under
    /// `spill_dir` (in memory without one).
    pub(super) fn load_after_pairs(
        &self,
        worker: usize,
        spill_dir: Option<&Path>,
    ) -> Result<(AfterPairs, DocKeys)> {
        let path = self.after_pairs(worker);
        let dec = codec_error(&path, false);
        let mut r = open_checkpoint(&path)?;
        let state: AfterPairs = bincode::deserialize_from(&mut r).map_err(dec)?;
        let mut held = DocKeys::new(spill_dir)?;
        for _ in 0..state.docs.len() {
            let (keys, values): (Vec<u64>, Vec<u64>) =
                bincode::deserialize_from(&mut r).map_err(dec)?;
            held.push(keys, values)?;
        }
        Ok((state, held))
    }
}

/// Opens the checkpoint at `path` for reading.
fn open_checkpoint(path: &Path) -> Result<BufReader<File>> {
    let f = File::open(path).map_err(|e| Error::io(path, e))?;
    Ok(BufReader::with_capacity(1 << 20, f))
}

/// The error of bincode writing (`writing`) or reading the checkpoint at `path`.
fn codec_error(path: &Path, writing: bool) -> impl Fn(bincode::Error) -> Error + Copy + '_ {
    move |e| Error::Format {
        path: path.to_path_buf(),
        msg: if writing {
            format!("writing a checkpoint: {e}")
        } else {
            format!("not a complete checkpoint: {e}")
        },
    }
}

/// Writes `path` through `write` into `path.tmp`, then renames it to `path`.
fn write_renamed(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<()>,
) -> Result<()> {
    let tmp = path.with_extension("tmp");
    let f = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
    let mut w = BufWriter::with_capacity(1 << 20, f);
    write(&mut w)?;
    let f = w
        .into_inner()
        .map_err(|e| Error::io(&tmp, e.into_error()))?;
    f.sync_all().map_err(|e| Error::io(&tmp, e))?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
}

/// What a worker's later stages (components, per group, output) read of the stages up to
/// the pairs: its documents and their pieces, its spanning forest of the pairs with the
/// collapse links, the dropped elements and the counts and laps so far. Its documents'
/// keys follow it in the checkpoint.
#[derive(Serialize, Deserialize)]
pub(super) struct AfterPairs {
    pub docs: Vec<Doc>,
    pub placed: Vec<Vec<(Piece, LineRange)>>,
    pub starts: Vec<u64>,
    pub n_docs: u64,
    pub stats: SketchStats,
    pub incidences: u64,
    pub bytes_read: u64,
    pub collapse: CollapseSummary,
    /// The spanning forest of its pairs, then its collapse links.
    pub forest: Vec<(u32, u32)>,
    pub dropped: Vec<u64>,
    pub kept: u64,
    pub rare: u64,
    pub common: u64,
    /// The longest row it held as a key's owner.
    pub hottest_row: u64,
    /// Whether any worker's document has a nonempty image.
    pub any: bool,
    pub row_passes: u64,
    pub id_passes: u64,
    pub laps: Vec<Lap>,
}

/// What a worker's later stages (a deduplication's kept part, the output) read of its
/// per-group stage: its groups' results, with the counts and laps so far.
#[derive(Serialize, Deserialize)]
pub(super) struct AfterGroups {
    pub results: Vec<GroupFound>,
    pub component_rounds: u64,
    pub set_passes: u64,
    /// The itemsets the worker mined in parts of the giant groups' components.
    pub mined_in_parts: u64,
    pub laps: Vec<Lap>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_different_option_is_named() {
        let now = "Job { cluster: ClusterConfig { threshold: 0.7, method: Concept }, n: 3 }";
        let was = "Job { cluster: ClusterConfig { threshold: 0.8, method: Concept }, n: 3 }";
        assert_eq!(
            first_difference(now, was),
            "`threshold: 0.7` now, `threshold: 0.8` recorded"
        );
        assert_eq!(first_difference("a, b", "a"), "`b` now, `nothing` recorded");
        let now = "Job { cluster: C { threshold: Threshold(0.7), n: 3 } }";
        let was = "Job { cluster: C { threshold: Threshold(0.8), n: 3 } }";
        assert_eq!(
            first_difference(now, was),
            "`threshold .. 0.7` now, `threshold .. 0.8` recorded"
        );
    }
}
