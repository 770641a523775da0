//! The registry of temporary files and directories to remove on an interrupt.
//!
//! Every temporary file or directory that must not outlive the process (an
//! [`AtomicFile`](crate::io::AtomicFile)'s temporary file, a
//! [`SpillDir`](crate::spill::SpillDir), a spill run) is created through [`create_gated`],
//! whose `create` registers it here ([`register`]); its owner [`forget`]s it once it is
//! renamed into place or removed. A Ctrl-C / SIGTERM handler (the binary's) calls
//! [`shut_down_and_clean`], which closes the gate before it removes anything.
//!
//! Invariant: no registered temporary can appear after [`shut_down_and_clean`] has begun,
//! nor between its creation and its registration, whatever the other threads are doing when
//! the signal arrives: creators hold the gate for reading while they create and register,
//! the cleanup holds it for writing and never opens it again. Destructors do not run on
//! `process::exit`, so the handler is what removes the temporaries of an interrupted run,
//! and the binary calls [`shut_down_and_clean`] as it exits too (the temporaries of
//! threads that never returned, such as a worker still waiting when another's error ends
//! the run).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, RwLock};

use crate::{Error, Result};

/// What a registered path is, which says how it is removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A file (removed with `remove_file`).
    File,
    /// A directory (removed with its contents).
    Dir,
}

/// The registered temporaries, in registration order.
static LIVE: Mutex<Vec<(Kind, PathBuf)>> = Mutex::new(Vec::new());

fn live() -> MutexGuard<'static, Vec<(Kind, PathBuf)>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Closed (`true`) by [`shut_down_and_clean`]; creators of temporary files hold it for
/// reading while they create and register, the cleanup holds it for writing.
static GATE: RwLock<bool> = RwLock::new(false);

/// Runs `create` (which makes a temporary file or directory and [`register`]s it) unless
/// the process is shutting down, in which case it fails with an I/O error of kind
/// `Interrupted` naming `path`. The cleanup waits for a `create` under way to finish.
pub fn create_gated<R>(path: &Path, create: impl FnOnce() -> Result<R>) -> Result<R> {
    let closed = GATE.read().unwrap_or_else(|e| e.into_inner());
    if *closed {
        return Err(Error::io(
            path,
            std::io::Error::new(std::io::ErrorKind::Interrupted, "interrupted"),
        ));
    }
    create()
}

/// Registers a temporary for removal by [`shut_down_and_clean`] (call it inside the
/// `create` of [`create_gated`]).
pub fn register(kind: Kind, path: PathBuf) {
    live().push((kind, path));
}

/// Forgets a registered temporary (it was renamed into place or removed by its owner).
pub fn forget(path: &Path) {
    live().retain(|(_, p)| p != path);
}

/// Whether `path` is registered.
pub fn is_registered(path: &Path) -> bool {
    live().iter().any(|(_, p)| p == path)
}

/// For a Ctrl-C handler: forbids every later temporary, waits for those being created, then
/// removes the registered directories (with their contents) and files. Returns how many
/// were removed.
pub fn shut_down_and_clean() -> usize {
    let mut closed = GATE.write().unwrap_or_else(|e| e.into_inner());
    *closed = true;
    let all = std::mem::take(&mut *live());
    let n = all.len();
    // Directories first: their files may still be written by worker threads.
    for (_, d) in all.iter().filter(|(k, _)| *k == Kind::Dir) {
        // A file removed by another thread during the walk can fail one attempt.
        for _ in 0..5 {
            if std::fs::remove_dir_all(d).is_ok() || !d.exists() {
                break;
            }
        }
    }
    for (_, f) in all.iter().filter(|(k, _)| *k == Kind::File) {
        let _ = std::fs::remove_file(f);
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_until_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.tmp");
        create_gated(&p, || {
            std::fs::write(&p, b"x").map_err(|e| Error::io(&p, e))?;
            register(Kind::File, p.clone());
            Ok(())
        })
        .unwrap();
        assert!(is_registered(&p));
        forget(&p);
        assert!(!is_registered(&p));
    }
}
