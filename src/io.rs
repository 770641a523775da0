//! File helpers shared by every stage: opening inputs (transparently gunzipping `*.gz`,
//! `-` for standard input) and writing outputs atomically.
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
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"))
}

/// Opens `path` for buffered reading; `-` is standard input, `*.gz` is decompressed
/// (multi-member gzip supported).
pub fn open_read(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    let raw: Box<dyn Read + Send> = if path == Path::new("-") {
        Box::new(std::io::stdin())
    } else {
        Box::new(File::open(path).map_err(|e| Error::io(path, e))?)
    };
    if is_gzip(path) {
        Ok(Box::new(BufReader::with_capacity(
            BUF_SIZE,
            flate2::read::MultiGzDecoder::new(BufReader::with_capacity(BUF_SIZE, raw)),
        )))
    } else {
        Ok(Box::new(BufReader::with_capacity(BUF_SIZE, raw)))
    }
}

/// Reads a whole file (decompressing `*.gz`) into memory.
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
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let tmp = create_gated(&dest, || {
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
}

/// The compression of a file, by its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Compression {
    /// None.
    None,
    /// gzip (`.gz`).
    Gzip,
    /// Zstandard (`.zst`).
    Zstd,
}

impl Compression {
    /// The compression a path's extension names (`.gz`, `.zst`; case-insensitive).
    pub fn of_path(path: &Path) -> Compression {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("gz") => Compression::Gzip,
            Some("zst") => Compression::Zstd,
            _ => Compression::None,
        }
    }

    /// The extension it adds to a file name: `""`, `".gz"` or `".zst"`.
    pub fn extension(self) -> &'static str {
        match self {
            Compression::None => "",
            Compression::Gzip => ".gz",
            Compression::Zstd => ".zst",
        }
    }

    /// A writer compressing into `w` (gzip without a time stamp or name, zstd level 3):
    /// the same bytes in give the same bytes out. Call [`CompressedWriter::finish`].
    pub fn writer<W: Write>(self, w: W) -> std::io::Result<CompressedWriter<W>> {
        Ok(match self {
            Compression::None => CompressedWriter::None(w),
            Compression::Gzip => CompressedWriter::Gzip(
                flate2::GzBuilder::new()
                    .mtime(0)
                    .write(w, flate2::Compression::default()),
            ),
            Compression::Zstd => CompressedWriter::Zstd(zstd::stream::write::Encoder::new(w, 3)?),
        })
    }
}

/// A writer that compresses as its [`Compression`] says.
pub enum CompressedWriter<W: Write> {
    /// Uncompressed.
    None(W),
    /// gzip.
    Gzip(flate2::write::GzEncoder<W>),
    /// Zstandard.
    Zstd(zstd::stream::write::Encoder<'static, W>),
}

impl<W: Write> CompressedWriter<W> {
    /// Writes the compressed stream's end and returns the inner writer.
    pub fn finish(self) -> std::io::Result<W> {
        match self {
            CompressedWriter::None(w) => Ok(w),
            CompressedWriter::Gzip(g) => g.finish(),
            CompressedWriter::Zstd(z) => z.finish(),
        }
    }
}

impl<W: Write> Write for CompressedWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            CompressedWriter::None(w) => w.write(buf),
            CompressedWriter::Gzip(g) => g.write(buf),
            CompressedWriter::Zstd(z) => z.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            CompressedWriter::None(w) => w.flush(),
            CompressedWriter::Gzip(g) => g.flush(),
            CompressedWriter::Zstd(z) => z.flush(),
        }
    }
}
