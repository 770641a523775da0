//! The writer lock of an index directory: an advisory exclusive lock (`flock` on unix, through
//! the `fs4` crate) on the file `INDEX/LOCK`.
//!
//! Invariants:
//! * Every save of a generation ([`Index::save`](super::Index::save),
//!   [`Index::save_locked`](super::Index::save_locked)) holds a [`WriteLock`] on the
//!   directory, and [`Index::open_for_write`](super::Index::open_for_write) takes it before it
//!   reads `CURRENT`, so two writers never build on the same generation: the second one waits
//!   (up to its `wait`) and then builds on the first one's generation, or fails with
//!   [`Error::Locked`] and leaves the index as it was.
//! * The lock belongs to the open file, not to the file's existence: it is released when the
//!   [`WriteLock`] is dropped (explicitly, so a child process forked meanwhile that still
//!   shares the open file does not keep it) or when its process dies (even by SIGKILL), so a
//!   crashed writer never leaves a stale lock. The `LOCK` file itself stays (removing it would let two
//!   writers lock two different files).
//! * After acquiring, the holder writes its pid (decimal, `\n`) into `LOCK`, and empties the
//!   file again before it releases the lock; a writer that gives up names that pid in its
//!   error, once the pid is written and (where `/proc` tells) the process is alive, so a pid
//!   left by a killed writer is never named.
//! * Readers ([`Index::open`](super::Index::open)) never take the lock: the generation switch
//!   is atomic (see [`super::store`]).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fs4::{FileExt, TryLockError};

use crate::{Error, Result};

/// The lock file inside an index directory.
pub const LOCK: &str = "LOCK";

/// How often a waiting writer tries the lock again.
const POLL: Duration = Duration::from_millis(20);

/// A held writer lock on an index directory (released on drop).
#[derive(Debug)]
pub struct WriteLock {
    dir: PathBuf,
    _file: File,
}

impl WriteLock {
    /// Takes the writer lock of the index directory `dir` (created if needed), trying again
    /// every few milliseconds for up to `wait`; then fails with [`Error::Locked`] naming the
    /// holder's pid.
    pub fn acquire(dir: &Path, wait: Duration) -> Result<WriteLock> {
        if !dir.is_dir() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
            crate::io::sync_parent(dir)?;
        }
        let path = dir.join(LOCK);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        let deadline = Instant::now() + wait;
        loop {
            match FileExt::try_lock(&file) {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return Err(Error::Locked {
                            path: dir.to_path_buf(),
                            pid: holder_pid(&path),
                        });
                    }
                    std::thread::sleep(POLL.min(deadline - now));
                }
                Err(TryLockError::Error(e)) => return Err(Error::io(&path, e)),
            }
        }
        let pid = format!("{}\n", std::process::id());
        file.set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(pid.as_bytes()))
            .map_err(|e| Error::io(&path, e))?;
        Ok(WriteLock {
            dir: dir.to_path_buf(),
            _file: file,
        })
    }

    /// The index directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for WriteLock {
    fn drop(&mut self) {
        // Still locked here: emptied, then unlocked explicitly. Closing alone would not
        // release it while a child process forked in the meantime (between its fork and its
        // exec, which closes the inherited descriptor) still shares the open file.
        let _ = self._file.set_len(0);
        let _ = FileExt::unlock(&self._file);
    }
}

/// Whether the process `pid` is alive, where `/proc` can tell (else assumed alive).
fn alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.is_dir() || proc.join(pid.to_string()).exists()
}

/// The pid written in the lock file `path` by its holder. A holder that has just taken the
/// lock may not have written it yet (the file is empty, or holds the pid of a writer that
/// was killed): a few short retries cover that.
fn holder_pid(path: &Path) -> Option<u32> {
    for _ in 0..100 {
        let mut text = String::new();
        if let Ok(mut f) = File::open(path) {
            let _ = f.read_to_string(&mut text);
        }
        if let Ok(pid) = text.trim().parse() {
            if alive(pid) {
                return Some(pid);
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_lock_fails_with_the_holders_pid_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let idx = dir.path().join("idx");
        let first = WriteLock::acquire(&idx, Duration::ZERO).unwrap();
        assert_eq!(first.dir(), idx);
        let t0 = Instant::now();
        let err = WriteLock::acquire(&idx, Duration::from_millis(150)).unwrap_err();
        assert!(t0.elapsed() >= Duration::from_millis(150));
        match &err {
            Error::Locked { path, pid } => {
                assert_eq!(path, &idx);
                assert_eq!(*pid, Some(std::process::id()));
            }
            e => panic!("expected Locked, got {e}"),
        }
        assert_eq!(
            err.to_string(),
            format!(
                "{}: index is being written by another process (pid {})",
                idx.display(),
                std::process::id()
            )
        );
        drop(first);
        let again = WriteLock::acquire(&idx, Duration::ZERO).unwrap();
        assert_eq!(
            std::fs::read_to_string(idx.join(LOCK)).unwrap(),
            format!("{}\n", std::process::id())
        );
        drop(again);
        // Released: nobody is named.
        assert_eq!(std::fs::read_to_string(idx.join(LOCK)).unwrap(), "");
    }

    #[test]
    fn a_dead_writers_pid_is_not_named() {
        let dir = tempfile::tempdir().unwrap();
        let first = WriteLock::acquire(dir.path(), Duration::ZERO).unwrap();
        // What a writer killed while holding the lock leaves: the pid of a dead process.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        std::fs::write(dir.path().join(LOCK), format!("{dead}\n")).unwrap();
        match WriteLock::acquire(dir.path(), Duration::ZERO).unwrap_err() {
            Error::Locked { pid, .. } => assert_eq!(pid, None),
            e => panic!("expected Locked, got {e}"),
        }
        drop(first);
    }

    #[test]
    fn a_waiting_writer_gets_the_lock_when_it_is_released() {
        let dir = tempfile::tempdir().unwrap();
        let first = WriteLock::acquire(dir.path(), Duration::ZERO).unwrap();
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            drop(first);
        });
        let t0 = Instant::now();
        let second = WriteLock::acquire(dir.path(), Duration::from_secs(10)).unwrap();
        assert!(t0.elapsed() >= Duration::from_millis(90));
        releaser.join().unwrap();
        drop(second);
    }
}
