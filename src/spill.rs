//! Larger-than-memory building blocks (B97's divide, compute, merge): a [`MemoryBudget`],
//! temporary spill directories that are removed on drop (and by a Ctrl-C handler through
//! [`crate::cleanup::shut_down_and_clean`]), and an [`ExternalSorter`] for fixed-size
//! records.
//!
//! An [`ExternalSorter`] keeps records in memory until their size reaches the budget, then
//! sorts them and writes them as a sorted run to its [`SpillDir`]; [`ExternalSorter::finish`]
//! merges the runs (k-way, at most [`FAN_IN`] runs at a time, in several passes if there are
//! more) and returns the records in ascending order. Without a budget, or when everything
//! fits, nothing touches the disk. The sorted output is the same whether or not it spilled:
//! records are totally ordered, and equal records are indistinguishable.
//!
//! Functions that may spill take their [`SpillConfig`] explicitly (budgets travel in configs:
//! there is no process-wide setting).
//!
//! The shares themselves ([`SpillConfig::less`], [`SpillConfig::room`] ...) are the memory
//! plan's rules, in [`crate::plan`].
//!
//! What a budget bounds: a job under a budget ([`crate::cluster::Job`]) counts against it
//! everything it holds (external ids, per-document data, kept context rows, the miner's
//! and verifier's working sets); a stage handed a budget by its caller gets what is left
//! after the caller's share ([`SpillConfig::less`]). Peak RSS stays within the budget plus
//! a fixed allowance for code, thread stacks and I/O buffers (256 MiB in
//! `eval/results/scale.md`); a run that cannot fit says so before its work starts
//! ([`crate::Error::Budget`]).
//!
//! Invariants: every spill file lives in a [`SpillDir`]; a `SpillDir` is registered with
//! [`crate::cleanup`] while alive (created through its gate) and deletes itself
//! (recursively) when dropped, so temporary files are gone after success, after an error
//! (the sorter is dropped while the error unwinds the stack) and, through
//! [`crate::cleanup::shut_down_and_clean`], after Ctrl-C.

use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::cleanup;
use crate::{Error, Result};

/// A memory budget in bytes, parsed from `4GiB`, `512MiB`, `100k`, `1G`, `65536` ...
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MemoryBudget(pub u64);

impl MemoryBudget {
    /// The budget in bytes.
    pub fn bytes(self) -> u64 {
        self.0
    }
}

impl std::fmt::Display for MemoryBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const UNITS: [(&str, u64); 4] = [
            ("TiB", 1 << 40),
            ("GiB", 1 << 30),
            ("MiB", 1 << 20),
            ("KiB", 1 << 10),
        ];
        for (name, size) in UNITS {
            if self.0 >= size && self.0.is_multiple_of(size) {
                return write!(f, "{}{name}", self.0 / size);
            }
        }
        write!(f, "{}B", self.0)
    }
}

impl std::str::FromStr for MemoryBudget {
    type Err = Error;
    /// A number (decimals allowed) followed by an optional unit: `B`, `K`/`KB`/`KiB`,
    /// `M`/`MB`/`MiB`, `G`/`GB`/`GiB`, `T`/`TB`/`TiB` (case-insensitive; every unit is a
    /// power of 1024). At least 1 byte.
    fn from_str(s: &str) -> Result<Self> {
        let bad = || {
            Error::config(format!(
                "memory budget must be a size such as 4GiB, 512MiB or 65536, not {s:?}"
            ))
        };
        let t = s.trim();
        let split = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(t.len());
        let (num, unit) = t.split_at(split);
        let value: f64 = num.parse().map_err(|_| bad())?;
        let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
            "" | "b" => 1,
            "k" | "kb" | "kib" => 1 << 10,
            "m" | "mb" | "mib" => 1 << 20,
            "g" | "gb" | "gib" => 1 << 30,
            "t" | "tb" | "tib" => 1 << 40,
            _ => return Err(bad()),
        };
        let bytes = value * mult as f64;
        if !bytes.is_finite() || bytes < 1.0 || bytes > u64::MAX as f64 {
            return Err(bad());
        }
        Ok(MemoryBudget(bytes as u64))
    }
}

/// Where and when to spill.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpillConfig {
    /// Memory for in-memory buffers before they are spilled; `None`: never spill.
    pub budget: Option<MemoryBudget>,
    /// Directory for spill files; `None`: the system temporary directory.
    pub tmp_dir: Option<PathBuf>,
    /// The budget of the whole process that `budget` is a share of (set by
    /// [`SpillConfig::new`], kept by [`SpillConfig::less`]): what [`SpillConfig::room`]
    /// holds the memory resident now against. `None`: only `budget` counts.
    pub process: Option<MemoryBudget>,
    /// A fixed number of key-range partitions for the context build in place of the
    /// plan's passes (the same output for any count).
    pub partitions: Option<crate::plan::Partitions>,
    /// Where the shares handed out under this configuration are recorded.
    pub ledger: crate::plan::Ledger,
}

impl SpillConfig {
    /// A configuration with a budget and an optional directory.
    pub fn new(budget: Option<MemoryBudget>, tmp_dir: Option<PathBuf>) -> Result<Self> {
        let c = SpillConfig {
            budget,
            tmp_dir,
            process: budget,
            ..SpillConfig::default()
        };
        c.validate()?;
        Ok(c)
    }

    /// Checks that the temporary directory, when given, is an existing directory.
    pub fn validate(&self) -> Result<()> {
        if let Some(d) = &self.tmp_dir {
            if !d.is_dir() {
                return Err(Error::config(format!(
                    "temporary directory {} does not exist or is not a directory",
                    d.display()
                )));
            }
        }
        Ok(())
    }

    /// The budget in bytes (`u64::MAX` without one).
    pub fn budget_bytes(&self) -> u64 {
        self.budget.map_or(u64::MAX, |b| b.0)
    }

    /// The directory spill directories are made in.
    pub fn dir(&self) -> PathBuf {
        self.tmp_dir.clone().unwrap_or_else(std::env::temp_dir)
    }
}

/// The resident set size of this process in bytes (`VmRSS` of `/proc/self/status`; `None`
/// where there is no such file). After a stage frees its memory the allocator may keep it
/// resident, so a later stage sizes its work from this rather than from what it knows is
/// held.
pub fn resident_bytes() -> Option<u64> {
    status_bytes("VmRSS:")
}

/// What a stage planning its share of a budget counts as taken: `held` (what the caller
/// knows it holds) or, when more, what the process has resident once the allocator has
/// given back what it holds free ([`release_free_memory`]). Freed memory can stay resident
/// (a heap page that still holds one live block is not given back), and the budget bounds
/// the process, so the estimate alone can undercount by hundreds of megabytes.
pub fn in_use(held: u64) -> u64 {
    release_free_memory();
    held.max(resident_bytes().unwrap_or(0))
}

/// Gives the memory the allocator holds free back to the system (glibc's `malloc_trim`; a
/// no-op with other C libraries). Many small blocks freed at once (images held, then
/// written out) otherwise stay resident behind a block allocated after them, and count
/// against the budget of every later stage.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only returns free pages of the heap to the kernel.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Peak resident set size of this process in bytes (`VmHWM` of `/proc/self/status`; Linux
/// only, `None` elsewhere). It is a high-water mark over the process's life: reset it with
/// [`reset_peak_rss`] before each measured run.
pub fn peak_rss_bytes() -> Option<u64> {
    status_bytes("VmHWM:")
}

/// Resets the peak resident set size to the current one (writes `5` to
/// `/proc/self/clear_refs`, Linux 4.0+). Returns false when that is not possible.
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The field `name` (a size in kB) of `/proc/self/status`, in bytes.
fn status_bytes(name: &str) -> Option<u64> {
    kb_field(&std::fs::read_to_string("/proc/self/status").ok()?, name)
}

/// The value of the line starting with `name` in a `/proc` text such as `/proc/self/status` or
/// `/proc/meminfo` (`Name:   1234 kB`), in bytes.
pub(crate) fn kb_field(text: &str, name: &str) -> Option<u64> {
    let kb = text
        .lines()
        .find_map(|l| l.strip_prefix(name))?
        .split_whitespace()
        .next()?
        .parse::<u64>()
        .ok()?;
    Some(kb * 1024)
}

/// A temporary directory (`fimdup-spill-*`) removed with its contents when dropped.
#[derive(Debug)]
pub struct SpillDir {
    path: PathBuf,
    next: u64,
}

impl SpillDir {
    /// Creates a new directory under `parent`.
    pub fn new_in(parent: &Path) -> Result<Self> {
        Self::with_prefix_in(parent, "fimdup-spill-")
    }

    /// Creates a new directory under `parent` whose name starts with `prefix`.
    pub fn with_prefix_in(parent: &Path, prefix: &str) -> Result<Self> {
        let path = cleanup::create_gated(parent, || {
            let dir = tempfile::Builder::new()
                .prefix(prefix)
                .tempdir_in(parent)
                .map_err(|e| Error::io(parent, e))?;
            // Keep the directory ourselves (tempfile's guard would remove it on drop too,
            // but the cleanup registry must hold the path for the Ctrl-C handler).
            let path = dir.keep();
            cleanup::register(cleanup::Kind::Dir, path.clone());
            Ok(path)
        })?;
        Ok(SpillDir { path, next: 0 })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A fresh file path inside the directory.
    fn next_file(&mut self, what: &str) -> PathBuf {
        self.next += 1;
        self.path.join(format!("{what}-{:06}.run", self.next))
    }

    /// Creates (truncating) a fresh file inside the directory, unless the process is
    /// shutting down (see [`cleanup::create_gated`]).
    pub fn create_file(&mut self, what: &str) -> Result<(PathBuf, File)> {
        let path = self.next_file(what);
        let f = cleanup::create_gated(&path, || {
            File::create(&path).map_err(|e| Error::io(&path, e))
        })?;
        Ok((path, f))
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
        cleanup::forget(&self.path);
    }
}

/// A fixed-size record that an [`ExternalSorter`] can write to and read from disk.
pub trait Record: Copy + Ord + Send + Sync + 'static {
    /// Bytes per record on disk.
    const SIZE: usize;
    /// Writes the record into `out` (exactly `SIZE` bytes).
    fn encode(&self, out: &mut [u8]);
    /// Reads a record from `b` (exactly `SIZE` bytes).
    fn decode(b: &[u8]) -> Self;
}

impl Record for u64 {
    const SIZE: usize = 8;
    fn encode(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes());
    }
    fn decode(b: &[u8]) -> Self {
        u64::from_le_bytes(b.try_into().expect("8 bytes"))
    }
}

impl Record for [u32; 3] {
    const SIZE: usize = 12;
    fn encode(&self, out: &mut [u8]) {
        for (i, x) in self.iter().enumerate() {
            out[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
        }
    }
    fn decode(b: &[u8]) -> Self {
        let w = |i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().expect("4 bytes"));
        [w(0), w(1), w(2)]
    }
}

/// Runs merged at once (more runs are merged in several passes).
pub const FAN_IN: usize = 64;

/// Smallest in-memory buffer (records), whatever the budget: a run holds at least this many.
const MIN_RUN: usize = 1024;

/// Sorts fixed-size records under a memory budget (see the module docs).
pub struct ExternalSorter<T: Record> {
    cfg: SpillConfig,
    what: &'static str,
    buf: Vec<T>,
    cap: usize,
    dir: Option<SpillDir>,
    runs: Vec<PathBuf>,
    spilled: u64,
}

impl<T: Record> ExternalSorter<T> {
    /// A sorter spilling under `cfg`; `what` names its run files.
    pub fn new(cfg: &SpillConfig, what: &'static str) -> Self {
        let per = std::mem::size_of::<T>().max(1) as u64;
        let cap = (cfg.room() / per).clamp(MIN_RUN as u64, usize::MAX as u64 / 2) as usize;
        ExternalSorter {
            cfg: cfg.clone(),
            what,
            buf: Vec::new(),
            cap,
            dir: None,
            runs: Vec::new(),
            spilled: 0,
        }
    }

    /// Adds a record (spilling a sorted run when the buffer reaches the budget).
    pub fn push(&mut self, x: T) -> Result<()> {
        if self.buf.len() >= self.cap {
            self.spill()?;
        }
        self.buf.push(x);
        Ok(())
    }

    /// Adds many records.
    pub fn extend(&mut self, xs: impl IntoIterator<Item = T>) -> Result<()> {
        for x in xs {
            self.push(x)?;
        }
        Ok(())
    }

    /// Adds a batch of records at once (kept as is when it fits in the budget).
    pub fn append(&mut self, mut v: Vec<T>) -> Result<()> {
        if self.buf.len() + v.len() <= self.cap {
            if self.buf.is_empty() {
                self.buf = v;
            } else {
                self.buf.append(&mut v);
            }
            return Ok(());
        }
        self.extend(v)
    }

    /// Runs written so far.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Records written to disk so far.
    pub fn spilled_records(&self) -> u64 {
        self.spilled
    }

    fn dir(&mut self) -> Result<&mut SpillDir> {
        if self.dir.is_none() {
            self.dir = Some(SpillDir::new_in(&self.cfg.dir())?);
        }
        Ok(self.dir.as_mut().expect("just set"))
    }

    fn spill(&mut self) -> Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        self.buf.par_sort_unstable();
        let what = self.what;
        let (path, f) = self.dir()?.create_file(what)?;
        let mut w = BufWriter::with_capacity(crate::io::BUF_SIZE, f);
        let mut rec = vec![0u8; T::SIZE];
        for x in &self.buf {
            x.encode(&mut rec);
            w.write_all(&rec).map_err(|e| Error::io(&path, e))?;
        }
        w.flush().map_err(|e| Error::io(&path, e))?;
        self.spilled += self.buf.len() as u64;
        self.buf.clear();
        self.runs.push(path);
        Ok(())
    }

    /// Sorts everything and returns the records in ascending order. The iterator owns the
    /// spill directory: it is removed when the iterator is dropped.
    pub fn finish(mut self) -> Result<Sorted<T>> {
        if self.runs.is_empty() {
            let mut buf = std::mem::take(&mut self.buf);
            buf.par_sort_unstable();
            return Ok(Sorted {
                inner: SortedInner::Memory(buf.into_iter()),
                _dir: None,
            });
        }
        self.spill()?;
        self.buf = Vec::new();
        // Multi-pass: merge groups of FAN_IN runs until at most FAN_IN remain.
        while self.runs.len() > FAN_IN {
            let runs = std::mem::take(&mut self.runs);
            for group in runs.chunks(FAN_IN) {
                let what = self.what;
                let mut m = Merge::<T>::open(group)?;
                let (out, f) = self.dir()?.create_file(what)?;
                let mut w = BufWriter::with_capacity(crate::io::BUF_SIZE, f);
                let mut rec = vec![0u8; T::SIZE];
                while let Some(x) = m.next_rec()? {
                    x.encode(&mut rec);
                    w.write_all(&rec).map_err(|e| Error::io(&out, e))?;
                }
                w.flush().map_err(|e| Error::io(&out, e))?;
                drop(m);
                for p in group {
                    let _ = std::fs::remove_file(p);
                }
                self.runs.push(out);
            }
        }
        let m = Merge::open(&self.runs)?;
        Ok(Sorted {
            inner: SortedInner::Merge(m),
            _dir: self.dir.take(),
        })
    }
}

struct RunReader<T> {
    r: BufReader<File>,
    path: PathBuf,
    buf: Vec<u8>,
    _t: std::marker::PhantomData<T>,
}

impl<T: Record> RunReader<T> {
    fn open(path: &Path) -> Result<Self> {
        let f = File::open(path).map_err(|e| Error::io(path, e))?;
        Ok(RunReader {
            r: BufReader::with_capacity(1 << 16, f),
            path: path.to_path_buf(),
            buf: vec![0u8; T::SIZE],
            _t: std::marker::PhantomData,
        })
    }

    fn next_rec(&mut self) -> Result<Option<T>> {
        let mut got = 0;
        while got < T::SIZE {
            let n = self
                .r
                .read(&mut self.buf[got..])
                .map_err(|e| Error::io(&self.path, e))?;
            if n == 0 {
                if got == 0 {
                    return Ok(None);
                }
                return Err(Error::format(
                    &self.path,
                    "spill run truncated (partial record)",
                ));
            }
            got += n;
        }
        Ok(Some(T::decode(&self.buf)))
    }
}

/// K-way merge of sorted runs.
struct Merge<T: Record> {
    readers: Vec<RunReader<T>>,
    heap: BinaryHeap<std::cmp::Reverse<(T, usize)>>,
}

impl<T: Record> Merge<T> {
    fn open(paths: &[PathBuf]) -> Result<Self> {
        let mut readers = Vec::with_capacity(paths.len());
        let mut heap = BinaryHeap::with_capacity(paths.len());
        for (i, p) in paths.iter().enumerate() {
            let mut r = RunReader::open(p)?;
            if let Some(x) = r.next_rec()? {
                heap.push(std::cmp::Reverse((x, i)));
            }
            readers.push(r);
        }
        Ok(Merge { readers, heap })
    }

    fn next_rec(&mut self) -> Result<Option<T>> {
        let Some(std::cmp::Reverse((x, i))) = self.heap.pop() else {
            return Ok(None);
        };
        if let Some(y) = self.readers[i].next_rec()? {
            self.heap.push(std::cmp::Reverse((y, i)));
        }
        Ok(Some(x))
    }
}

enum SortedInner<T: Record> {
    Memory(std::vec::IntoIter<T>),
    Merge(Merge<T>),
}

/// The records of an [`ExternalSorter`] in ascending order (errors reading the runs are
/// returned as items).
pub struct Sorted<T: Record> {
    inner: SortedInner<T>,
    _dir: Option<SpillDir>,
}

impl<T: Record> Sorted<T> {
    /// True when the records come from spilled runs.
    pub fn spilled(&self) -> bool {
        matches!(self.inner, SortedInner::Merge(_))
    }
}

impl<T: Record> Iterator for Sorted<T> {
    type Item = Result<T>;
    fn next(&mut self) -> Option<Result<T>> {
        match &mut self.inner {
            SortedInner::Memory(it) => it.next().map(Ok),
            SortedInner::Merge(m) => m.next_rec().transpose(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_budgets() {
        for (s, v) in [
            ("4GiB", 4u64 << 30),
            ("512MiB", 512 << 20),
            ("512mb", 512 << 20),
            ("1.5G", 3 << 29),
            ("100k", 100 << 10),
            ("65536", 65536),
            ("12 B", 12),
        ] {
            assert_eq!(s.parse::<MemoryBudget>().unwrap().bytes(), v, "{s}");
        }
        for s in ["", "abc", "4XB", "0", "-1G", "0.1B"] {
            assert!(s.parse::<MemoryBudget>().is_err(), "{s}");
        }
        assert_eq!(MemoryBudget(4 << 30).to_string(), "4GiB");
        assert_eq!(MemoryBudget(1000).to_string(), "1000B");
    }

    fn tiny(dir: &Path) -> SpillConfig {
        SpillConfig {
            budget: Some(MemoryBudget(1)),
            tmp_dir: Some(dir.to_path_buf()),
            process: None,
            ..SpillConfig::default()
        }
    }

    #[test]
    fn multi_pass_merge_sorts_and_cleans_up() {
        let tmp = tempfile::tempdir().unwrap();
        let mut s = ExternalSorter::<u64>::new(&tiny(tmp.path()), "t");
        // MIN_RUN records per run: 70 runs > FAN_IN forces a second pass.
        let n = MIN_RUN as u64 * 70 + 17;
        let xs: Vec<u64> = (0..n)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % 100_003)
            .collect();
        s.extend(xs.iter().copied()).unwrap();
        assert!(s.runs() >= 70);
        let got: Vec<u64> = s.finish().unwrap().map(|r| r.unwrap()).collect();
        let mut want = xs;
        want.sort_unstable();
        assert_eq!(got, want);
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }

    #[test]
    fn dropped_sorter_removes_its_files() {
        let tmp = tempfile::tempdir().unwrap();
        {
            let mut s = ExternalSorter::<[u32; 3]>::new(&tiny(tmp.path()), "t");
            s.extend((0..5000u32).map(|i| [i % 7, i, 5000 - i]))
                .unwrap();
            assert!(s.runs() > 0);
            assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);
        }
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
        let d = SpillDir::new_in(tmp.path()).unwrap();
        let p = d.path().to_path_buf();
        assert!(p.is_dir() && cleanup::is_registered(&p));
        drop(d);
        assert!(!p.exists() && !cleanup::is_registered(&p));
    }

    proptest! {
        #[test]
        fn spilled_equals_in_memory(xs in proptest::collection::vec((0u32..50, 0u32..50, 0u32..5), 0..3000)) {
            let tmp = tempfile::tempdir().unwrap();
            let recs: Vec<[u32; 3]> = xs.iter().map(|&(a, b, c)| [a, b, c]).collect();
            let mut mem = ExternalSorter::new(&SpillConfig::default(), "m");
            mem.extend(recs.iter().copied()).unwrap();
            let mut sp = ExternalSorter::new(&tiny(tmp.path()), "s");
            sp.extend(recs.iter().copied()).unwrap();
            let a: Vec<[u32; 3]> = mem.finish().unwrap().map(|r| r.unwrap()).collect();
            let b: Vec<[u32; 3]> = sp.finish().unwrap().map(|r| r.unwrap()).collect();
            prop_assert_eq!(a, b);
        }
    }
}
