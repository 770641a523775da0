//! The calling thread's side of a run: what its workers tell it ([`Event`]) and the wait
//! for them ([`wait_workers`]), failing as soon as one fails, panics or stops early, or a
//! connection stays lost past a grace period, with an error naming the lost process.
//!
//! Invariant: [`wait_workers`] returns `Ok` only when every worker of this process said it
//! was done; a worker that fails sends its error and parks, never closing its inputs, so
//! the run cannot complete without it.

use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use super::net::Losses;
use super::Topology;
use crate::sketch::pipeline::SketchStats;
use crate::{Error, Result};

/// How long a lost connection may stay unexplained before the run stops: a process that
/// finished closes its connections, and the others may see that a moment before they see
/// the end of the dataflow.
pub(super) const GRACE: Duration = Duration::from_secs(3);

/// What the workers tell the calling thread of their process.
pub(super) enum Event<M> {
    Msg(M),
    /// The worker (by index among all) is done.
    Done(usize),
    Failed(Error),
    /// The worker (by index among all) panicked, with this message.
    Panicked(usize, String),
}

/// The first error a worker of this process met and told the other workers of: the
/// cause this process reports when a lost connection or a worker's panic follows it (a
/// peer that learnt of the error may end, closing its connections, before the telling
/// round is over here).
#[derive(Clone, Default)]
pub(crate) struct FirstError(Arc<Mutex<Option<String>>>);

impl FirstError {
    /// Keeps `message` unless an earlier one is kept.
    pub(super) fn note(&self, message: &str) {
        if let Ok(mut m) = self.0.lock() {
            m.get_or_insert_with(|| message.to_string());
        }
    }

    /// The kept message, as the error this process reports.
    fn error(&self) -> Option<Error> {
        let m = self.0.lock().ok()?.clone()?;
        Some(Error::Distributed(m))
    }
}

/// What the calling thread watches besides the events: lost connections, worker threads
/// that ended, and the first error a worker noted.
pub(super) struct Watch<'a> {
    pub losses: &'a Losses,
    pub stopped: &'a dyn Fn() -> Vec<usize>,
    pub first_error: &'a FirstError,
}

impl Watch<'_> {
    /// When a process was lost at least `grace` ago: the error a worker of this process
    /// noted when there is one (the loss followed from it), else the loss.
    fn lost(&self, topo: &Topology, grace: Duration) -> Option<Error> {
        let (p, what) = self.losses.lost_for(grace)?;
        Some(
            self.first_error
                .error()
                .unwrap_or_else(|| lost(topo, p, &what)),
        )
    }

    /// The cause of a worker that panicked or stopped: the error a worker of this process
    /// noted, else a lost process, when there is one.
    fn cause(&self, topo: &Topology) -> Option<Error> {
        (self.first_error.error()).or_else(|| self.lost(topo, Duration::ZERO))
    }
}

/// Waits until every local worker is done, handing each message to `on_msg`.
pub(super) fn wait_workers<M>(
    topo: &Topology,
    rx: &mpsc::Receiver<Event<M>>,
    watch: &Watch<'_>,
    mut on_msg: impl FnMut(M) -> Result<()>,
) -> Result<()> {
    let first = topo.process() * topo.workers();
    let mut done = vec![false; topo.workers()];
    let mut handle = |e: Event<M>, done: &mut Vec<bool>| -> Result<()> {
        match e {
            Event::Msg(m) => on_msg(m),
            Event::Done(w) => {
                done[w - first] = true;
                Ok(())
            }
            Event::Failed(e) => Err(e),
            Event::Panicked(w, msg) => {
                // A lost connection makes timely panic: name the lost process then.
                if let Some(e) = watch.cause(topo) {
                    return Err(e);
                }
                Err(Error::Distributed(format!(
                    "worker {w} of {} failed: {msg}",
                    topo.name_of(topo.process())
                )))
            }
        }
    };
    while !done.iter().all(|&d| d) {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(e) => handle(e, &mut done)?,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                // Every worker thread ended: a lost process is the cause when there is one.
                if let Some(e) = watch.cause(topo) {
                    return Err(e);
                }
                return Err(Error::Distributed(
                    "the workers of this process stopped without finishing".into(),
                ));
            }
        }
        if let Some(e) = watch.lost(topo, GRACE) {
            return Err(e);
        }
        // A worker thread that ended without saying it was done panicked (its message is
        // printed) or lost a peer; its last words may still be in the channel.
        let gone = (watch.stopped)();
        if gone.iter().any(|&w| !done[w - first]) {
            while let Ok(e) = rx.try_recv() {
                handle(e, &mut done)?;
            }
            if let Some(&w) = gone.iter().find(|&&w| !done[w - first]) {
                if let Some(e) = watch.cause(topo) {
                    return Err(e);
                }
                return Err(Error::Distributed(format!(
                    "worker {w} of {} stopped before its part was done",
                    topo.name_of(topo.process())
                )));
            }
        }
    }
    Ok(())
}

/// Tells the calling thread how worker `index`'s guarded body ended: done, or its error or
/// panic, after `on_failure` (which leaves what must not be closed while the run is
/// broken); a failed worker then parks for good, since the run cannot go on without it
/// and the process ends with the error, which ends the others.
pub(super) fn report_outcome<M>(
    tx: &mpsc::Sender<Event<M>>,
    index: usize,
    outcome: std::thread::Result<Result<()>>,
    on_failure: impl FnOnce(),
) {
    let failed = match outcome {
        Ok(Ok(())) => {
            let _ = tx.send(Event::Done(index));
            return;
        }
        Ok(Err(e)) => Event::Failed(e),
        Err(p) => Event::Panicked(index, panic_message(&*p)),
    };
    on_failure();
    let _ = tx.send(failed);
    loop {
        std::thread::park();
    }
}

/// The text of a panic's payload.
fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic".into())
}

/// The error of a lost process.
fn lost(topo: &Topology, p: usize, what: &str) -> Error {
    Error::Distributed(format!(
        "lost {}: {what}; the run stops (this process writes no output, and removes the \
         parts of the outputs it wrote)",
        topo.name_of(p)
    ))
}

/// Adds the counts of `b` (another worker's share) to `a`.
pub(super) fn add_stats(a: &mut SketchStats, b: &SketchStats) {
    a.corpus.add(&b.corpus);
    a.tokens += b.tokens;
    a.short += b.short;
    a.empty_images += b.empty_images;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error of process 1 of 2 whose worker panics (as timely's threads do on a lost
    /// connection), with process 0 lost or not, and `noted` as the first error its workers
    /// noted.
    fn error_when_panicked(noted: &FirstError, lost: bool) -> String {
        let topo = Topology::new(2, 1, 1, vec!["a:1".into(), "b:2".into()]).unwrap();
        let losses = Losses::default();
        if lost {
            losses.record(0, "connection reset by peer".into());
        }
        let stopped = || vec![1];
        let watch = Watch {
            losses: &losses,
            stopped: &stopped,
            first_error: noted,
        };
        let (tx, rx) = mpsc::channel::<Event<()>>();
        tx.send(Event::Panicked(1, "timely communication error".into()))
            .unwrap();
        let e = wait_workers(&topo, &rx, &watch, |_| Ok(())).unwrap_err();
        e.to_string()
    }

    #[test]
    fn a_noted_error_is_reported_before_the_loss_that_followed_it() {
        let noted = FirstError::default();
        let e = error_when_panicked(&noted, true);
        assert!(e.contains("lost process 0 (a:1): connection reset"), "{e}");
        let e = error_when_panicked(&noted, false);
        assert!(e.contains("worker 1 of process 1 (b:2) failed"), "{e}");
        noted.note("s-2.csv.gz:7: expected a gzip member");
        noted.note("a later error");
        for lost in [true, false] {
            let e = error_when_panicked(&noted, lost);
            assert_eq!(e, "distributed run: s-2.csv.gz:7: expected a gzip member");
        }
    }
}
