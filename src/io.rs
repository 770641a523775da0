//! File helpers shared by every stage: opening inputs (transparently decompressing `*.gz`
//! and `*.zst`, `-` for standard input), compressing outputs ([`Compression`]) and writing
//! outputs atomically.
//!
//! Invariant: the compression of a file is told by its name alone ([`Compression::of_path`]);
//! a compressed output is deterministic (same bytes for the same data: no time stamp or file
//! name in a gzip header, a fixed zstd level, one thread).
//!
//! Invariant: an output written through [`AtomicFile`] is either absent or complete; it is
//! written to a temporary file in the destination directory (`.fimdup-XXXXXX.tmp`), fsynced,
//! renamed into place on [`AtomicFile::commit`], and the directory is fsynced after the rename
//! ([`sync_dir`]), so a committed output survives a crash of the machine too. Dropping an
//! uncommitted `AtomicFile` removes the temporary file; a process killed before the commit
//! (SIGKILL, power loss) leaves its temporary file behind, never a partial output.
//!
//! Interrupts: an `AtomicFile`'s temporary file is created through
//! [`cleanup::create_gated`] and registered there until it is committed or dropped, so a
//! Ctrl-C handler's [`cleanup::shut_down_and_clean`] removes it and none can appear after.

use crate::cleanup::{self, create_gated};
use crate::{Error, Result};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Buffer size used for file readers and writers.
pub const BUF_SIZE: usize = 1 << 16;

/// Prefix and suffix of an [`AtomicFile`]'s temporary file name (`.fimdup-XXXXXX.tmp`).
const TMP_PREFIX: &str = ".fimdup-";
const TMP_SUFFIX: &str = ".tmp";

/// Whether a file name is that of an [`AtomicFile`]'s temporary file (left behind only by a
/// process killed before its commit).
pub fn is_atomic_temp(name: &str) -> bool {
    name.starts_with(TMP_PREFIX) && name.ends_with(TMP_SUFFIX)
}

/// True when `path` ends in `.gz` (case-insensitive).
pub fn is_gzip(path: &Path) -> bool {
    Compression::of_path(path) == Compression::Gzip
}

/// How a file is compressed, told by its extension.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Compression {
    /// Not compressed.
    #[default]
    None,
    /// gzip (`.gz`), possibly several members.
    Gzip,
    /// Zstandard (`.zst`), possibly several frames.
    Zstd,
}

impl Compression {
    /// The compression of `path` by its final extension: `.gz` is gzip, `.zst` zstd
    /// (case-insensitive), anything else (and `-`) none.
    pub fn of_path(path: &Path) -> Compression {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("gz") => Compression::Gzip,
            Some(e) if e.eq_ignore_ascii_case("zst") => Compression::Zstd,
            _ => Compression::None,
        }
    }

    /// The file name extension, with its dot: `""`, `".gz"` or `".zst"`.
    pub fn extension(self) -> &'static str {
        match self {
            Compression::None => "",
            Compression::Gzip => ".gz",
            Compression::Zstd => ".zst",
        }
    }

    /// The name used in messages: `gzip`, `zstd`, or `uncompressed`.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "uncompressed",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
        }
    }

    /// True unless [`Compression::None`].
    pub fn is_compressed(self) -> bool {
        self != Compression::None
    }

    /// Wraps `w` in an encoder of this compression (gzip: the default level, a header
    /// without time stamp or file name; zstd: level 3): the same bytes in give the same
    /// bytes out. Call
    /// [`CompressedWriter::finish`] to write the trailer.
    pub fn writer<W: Write>(self, w: W) -> std::io::Result<CompressedWriter<W>> {
        Ok(match self {
            Compression::None => CompressedWriter::None(w),
            Compression::Gzip => CompressedWriter::Gzip(
                flate2::GzBuilder::new()
                    .mtime(0)
                    .write(w, flate2::Compression::default()),
            ),
            Compression::Zstd => {
                CompressedWriter::Zstd(zstd::stream::write::Encoder::new(w, ZSTD_LEVEL)?)
            }
        })
    }
}

/// The zstd level of [`Compression::writer`].
const ZSTD_LEVEL: i32 = 3;

/// A writer that compresses what it is given ([`Compression::writer`]).
pub enum CompressedWriter<W: Write> {
    /// No compression: the writer itself.
    None(W),
    /// gzip.
    Gzip(flate2::write::GzEncoder<W>),
    /// zstd.
    Zstd(zstd::stream::write::Encoder<'static, W>),
}

impl<W: Write> CompressedWriter<W> {
    /// Writes the trailer (if any) and hands back the inner writer (not flushed).
    pub fn finish(self) -> std::io::Result<W> {
        match self {
            CompressedWriter::None(w) => Ok(w),
            CompressedWriter::Gzip(e) => e.finish(),
            CompressedWriter::Zstd(e) => e.finish(),
        }
    }
}

impl<W: Write> Write for CompressedWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            CompressedWriter::None(w) => w.write(buf),
            CompressedWriter::Gzip(e) => e.write(buf),
            CompressedWriter::Zstd(e) => e.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            CompressedWriter::None(w) => w.flush(),
            CompressedWriter::Gzip(e) => e.flush(),
            CompressedWriter::Zstd(e) => e.flush(),
        }
    }
}

/// A zstd decoder whose errors about the data (which carry no OS error code) come out as
/// [`std::io::ErrorKind::InvalidData`], so that callers tell corrupt input from I/O
/// failures as they do for gzip.
struct ZstdRead<R: BufRead>(zstd::stream::read::Decoder<'static, R>);

impl<R: BufRead> Read for ZstdRead<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf).map_err(|e| {
            if e.raw_os_error().is_none() && e.kind() == std::io::ErrorKind::Other {
                std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string())
            } else {
                e
            }
        })
    }
}

/// A buffered reader that counts the bytes its reader consumed (a decoder's position in
/// the compressed file).
struct Consumed<R> {
    inner: R,
    at: Arc<AtomicU64>,
}

impl<R: BufRead> Read for Consumed<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.at.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Consumed<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.at.fetch_add(amt as u64, Ordering::Relaxed);
        self.inner.consume(amt);
    }
}

/// A decoder whose data errors say where in the compressed file it was: the compressed
/// bytes it had consumed when it found them.
struct Located<R> {
    inner: R,
    at: Arc<AtomicU64>,
}

impl<R: Read> Read for Located<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            if e.kind() == std::io::ErrorKind::InvalidData
                || e.kind() == std::io::ErrorKind::UnexpectedEof
            {
                let at = self.at.load(Ordering::Relaxed);
                std::io::Error::new(
                    e.kind(),
                    format!("{e} (at byte {at} of the compressed file)"),
                )
            } else {
                e
            }
        })
    }
}

/// Opens `path` for buffered reading; `-` is standard input, `*.gz` and `*.zst` are
/// decompressed (multi-member gzip and multi-frame zstd read whole), their data errors
/// naming the byte of the compressed file the decoder had reached.
pub fn open_read(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    let raw: Box<dyn Read + Send> = if path == Path::new("-") {
        Box::new(std::io::stdin())
    } else {
        Box::new(File::open(path).map_err(|e| Error::io(path, e))?)
    };
    let buffered = BufReader::with_capacity(BUF_SIZE, raw);
    let at = Arc::new(AtomicU64::new(0));
    let counted = Consumed {
        inner: buffered,
        at: at.clone(),
    };
    Ok(match Compression::of_path(path) {
        Compression::None => Box::new(counted.inner),
        Compression::Gzip => Box::new(BufReader::with_capacity(
            BUF_SIZE,
            Located {
                inner: flate2::bufread::MultiGzDecoder::new(counted),
                at,
            },
        )),
        Compression::Zstd => {
            let d = zstd::stream::read::Decoder::with_buffer(counted)
                .map_err(|e| Error::io(path, e))?;
            Box::new(BufReader::with_capacity(
                BUF_SIZE,
                Located {
                    inner: ZstdRead(d),
                    at,
                },
            ))
        }
    })
}

/// Reads a whole file (decompressing `*.gz` and `*.zst`) into memory.
pub fn read_all(path: &Path) -> Result<Vec<u8>> {
    let mut r = open_read(path)?;
    let mut buf = Vec::new();
    r.read_to_end(&mut buf).map_err(|e| Error::io(path, e))?;
    Ok(buf)
}

/// An output file that appears at its final path only when complete.
pub struct AtomicFile {
    dest: PathBuf,
    tmp: Option<tempfile::NamedTempFile>,
    writer: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Starts writing `dest`; the data goes to a temporary file beside it.
    /// Missing parent directories are created.
    pub fn create(dest: impl AsRef<Path>) -> Result<Self> {
        let dest = dest.as_ref().to_path_buf();
        let dir = parent_dir(&dest);
        // The parent is made inside the gate too: after an interrupt's cleanup has removed
        // a spill directory, a file being started in it must not bring the directory back.
        let tmp = create_gated(&dest, || {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
            let tmp = tempfile::Builder::new()
                .prefix(TMP_PREFIX)
                .suffix(TMP_SUFFIX)
                .tempfile_in(dir)
                .map_err(|e| Error::io(&dest, e))?;
            cleanup::register(cleanup::Kind::File, tmp.path().to_path_buf());
            Ok(tmp)
        })?;
        let file = tmp.reopen().map_err(|e| Error::io(&dest, e))?;
        Ok(AtomicFile {
            dest,
            tmp: Some(tmp),
            writer: Some(BufWriter::with_capacity(BUF_SIZE, file)),
        })
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        &self.dest
    }

    /// Flushes and renames the temporary file onto the final path.
    pub fn commit(mut self) -> Result<()> {
        let mut w = self.writer.take().expect("writer present until commit");
        w.flush().map_err(|e| Error::io(&self.dest, e))?;
        let f = w
            .into_inner()
            .map_err(|e| Error::io(&self.dest, e.into_error()))?;
        f.sync_all().map_err(|e| Error::io(&self.dest, e))?;
        drop(f);
        let tmp = self.tmp.take().expect("tmp present until commit");
        let tmp_path = tmp.path().to_path_buf();
        let forget = || cleanup::forget(&tmp_path);
        // Temporary files are created 0600; give the output the usual 0644 (less umask
        // is not available portably, and outputs are not secrets).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            if let Err(e) =
                std::fs::set_permissions(&tmp_path, std::fs::Permissions::from_mode(0o644))
            {
                forget();
                return Err(Error::io(&self.dest, e));
            }
        }
        // The rename is gated like a creation: after an interrupt's cleanup has begun, the
        // output does not appear (the temporary file is removed by the drop of `tmp`).
        let dest = &self.dest;
        let r = create_gated(dest, || {
            tmp.persist(dest).map_err(|e| Error::io(dest, e.error))?;
            forget();
            Ok(())
        });
        if r.is_err() {
            forget();
        }
        r?;
        sync_parent(dest)
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some(t) = &self.tmp {
            cleanup::forget(t.path());
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer.as_mut().expect("not committed").write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.writer.as_mut().expect("not committed").write_all(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.as_mut().expect("not committed").flush()
    }
}

/// A temporary file for an intermediate result (`<prefix>XXXXXX<suffix>` in `dir`), created
/// through [`cleanup::create_gated`] and registered there like an [`AtomicFile`]'s
/// temporary file, so an interrupt's cleanup removes it; removed when dropped.
pub struct ScratchFile {
    path: tempfile::TempPath,
}

impl ScratchFile {
    /// Creates an empty file in `dir`.
    pub fn new_in(dir: &Path, prefix: &str, suffix: &str) -> Result<Self> {
        let path = create_gated(dir, || {
            let tmp = tempfile::Builder::new()
                .prefix(prefix)
                .suffix(suffix)
                .tempfile_in(dir)
                .map_err(|e| Error::io(dir, e))?;
            cleanup::register(cleanup::Kind::File, tmp.path().to_path_buf());
            Ok(tmp.into_temp_path())
        })?;
        Ok(ScratchFile { path })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ScratchFile {
    fn drop(&mut self) {
        cleanup::forget(&self.path);
    }
}

/// Flushes a directory's entries to disk (`fsync` of the directory), so that a rename or a
/// creation inside it survives a crash of the machine. A no-op where directories cannot be
/// opened as files (not unix).
pub fn sync_dir(dir: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        let d = File::open(dir).map_err(|e| Error::io(dir, e))?;
        d.sync_all().map_err(|e| Error::io(dir, e))?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// The directory holding `path` (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// [`sync_dir`] of the directory holding `path`.
pub fn sync_parent(path: &Path) -> Result<()> {
    sync_dir(parent_dir(path))
}

/// Writes `bytes` to `dest` atomically.
pub fn write_atomic(dest: impl AsRef<Path>, bytes: &[u8]) -> Result<()> {
    let mut f = AtomicFile::create(dest)?;
    let p = f.path().to_path_buf();
    f.write_all(bytes).map_err(|e| Error::io(&p, e))?;
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After an interrupt's cleanup has begun, starting a file in a directory it removed
    /// fails and does not bring the directory back (a spill directory removed by the
    /// cleanup while a worker starts a file in it). The cleanup shuts the process's gate
    /// for good, so the check runs in a child: this test binary again, running only this
    /// test with `FIMDUP_GATE_CHILD` set.
    #[test]
    fn no_directory_reappears_after_the_cleanup() {
        const CHILD: &str = "FIMDUP_GATE_CHILD";
        if let Some(dir) = std::env::var_os(CHILD) {
            let spill = Path::new(&dir).join("spill");
            std::fs::create_dir(&spill).unwrap();
            cleanup::register(cleanup::Kind::Dir, spill.clone());
            cleanup::shut_down_and_clean();
            assert!(!spill.exists());
            let e = AtomicFile::create(spill.join("corpus.img")).err().unwrap();
            assert!(e.to_string().contains("interrupted"), "{e}");
            assert!(!spill.exists(), "the removed directory came back");
            let e = ScratchFile::new_in(Path::new(&dir), ".x-", ".tmp")
                .err()
                .unwrap();
            assert!(e.to_string().contains("interrupted"), "{e}");
            assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "io::tests::no_directory_reappears_after_the_cleanup",
            ])
            .args(["--nocapture", "--test-threads", "1"])
            .env(CHILD, dir.path())
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{said}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(said.contains("1 passed"), "{said}");
    }

    #[test]
    fn atomic_file_appears_only_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("sub/out.txt");
        let mut f = AtomicFile::create(&dest).unwrap();
        f.write_all(b"hello").unwrap();
        assert!(!dest.exists());
        f.commit().unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"hello");
    }

    #[test]
    fn dropped_atomic_file_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.txt");
        {
            let mut f = AtomicFile::create(&dest).unwrap();
            f.write_all(b"partial").unwrap();
        }
        assert!(!dest.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn gzip_is_read_transparently() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.txt.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(b"1 2 3\n").unwrap();
        std::fs::write(&p, enc.finish().unwrap()).unwrap();
        assert_eq!(read_all(&p).unwrap(), b"1 2 3\n");
    }

    #[test]
    fn compressed_writers_round_trip_deterministically() {
        let dir = tempfile::tempdir().unwrap();
        let data: Vec<u8> = (0..100_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        for c in [Compression::None, Compression::Gzip, Compression::Zstd] {
            let encode = || {
                let mut w = c.writer(Vec::new()).unwrap();
                w.write_all(&data).unwrap();
                w.finish().unwrap()
            };
            let bytes = encode();
            assert_eq!(bytes, encode(), "{c:?} output is deterministic");
            let p = dir.path().join(format!("x.bin{}", c.extension()));
            std::fs::write(&p, &bytes).unwrap();
            assert_eq!(Compression::of_path(&p), c);
            assert_eq!(read_all(&p).unwrap(), data, "{c:?} round trip");
        }
    }

    #[test]
    fn zstd_frames_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.TXT.ZST");
        let mut bytes = zstd::encode_all(&b"one\n"[..], 1).unwrap();
        bytes.extend(zstd::encode_all(&b"two\n"[..], 19).unwrap());
        std::fs::write(&p, bytes).unwrap();
        assert_eq!(read_all(&p).unwrap(), b"one\ntwo\n");
    }
}
