//! The index directory: generations, the manifest, checksums and the atomic switch.
//!
//! ```text
//! INDEX/
//!   CURRENT                      "gen-000002 <xxh64 of its manifest.json, 16 hex>\n"
//!   gen-000001/                  the previous generation (kept for readers still on it)
//!   gen-000002/
//!     manifest.json              format, version, generation, every parameter (SketchParams),
//!                                stop-word list, threshold, LSH (bands, rows), doc count,
//!                                sweeps (tag, input, corpus options), files (bytes + xxh64)
//!     images.bin                 the images file of `fimdup sketch` (external ids + images)
//!     containment.bin            mod-m images (only with --containment)
//!     context.bin                inverted context: key -> documents (roaring bitmaps)
//!     containment-context.bin    the same over the mod-m images (only with --containment)
//!     bands.bin                  LSH band table: band key -> documents (positional schemes)
//!     docs.bin                   per document: first sweep, last sweep, cluster label,
//!                                [source ordinal]
//! ```
//!
//! Every `*.bin` file other than `images.bin` starts with an 8-byte magic and a `u32`
//! version; all integers are LEB128 varints (see [`super::Postings::encode`]). Files are
//! written and read one at a time and streamed (size and checksum computed on the way), so
//! no file's bytes are held whole.
//!
//! # Atomicity and concurrency
//! A save holds the directory's writer lock ([`WriteLock`], the file `LOCK`), writes a
//! complete new generation directory (each file fsynced, then the directory), then its
//! manifest, and only then replaces `CURRENT` by an atomic rename followed by an fsync of the
//! index directory. A reader takes no lock: it reads `CURRENT` once and opens the generation
//! it names, so it sees either the old or the new index, never a mix. A crash at any point
//! (SIGKILL, power loss) leaves `CURRENT` naming either the old, intact generation or the
//! new, complete one; what an interrupted save leaves behind (an unfinished generation
//! directory, a `.fimdup-*.tmp` file beside `CURRENT`) is ignored by readers and removed by
//! the next save. After the switch, generations older than the previous one are deleted, so a
//! reader that read `CURRENT` just before the switch still finds its files.
//!
//! One writer at a time: a read-modify-write (a new sweep) takes the lock BEFORE it reads
//! `CURRENT` ([`Index::open_for_write`]) and keeps it until its save
//! ([`Index::save_locked`]), so a second writer waits for the first and builds on its
//! generation, or gives up after its `wait` with [`Error::Locked`], leaving the index as it
//! was. [`Index::save`] takes the lock only for the save itself (without waiting): an index
//! [`Index::open`]ed without the lock and saved back can still overwrite a sweep another
//! writer added in between.
//!
//! # Integrity
//! `CURRENT` holds the manifest's checksum, the manifest holds each file's size and xxh64
//! (seed 0), and every file is checked before it is parsed; then every field is checked
//! (bounds, ascending keys, document ids, sweep numbers, labels). Truncated, bit-flipped or
//! foreign files give an [`Error::Format`] naming the file, never a panic.

use std::path::{Path, PathBuf};
use std::time::Duration;

use std::io::{Read, Write};

use hashbrown::HashMap;
use xxhash_rust::xxh64::{xxh64, Xxh64};

use super::build::check_fits;
use super::{Index, IndexConfig, Postings, Sweep, WriteLock};
use crate::codec::{put_header, put_varint, ByteSource};
use crate::io::AtomicFile;
use crate::sketch::file::{read_images_streamed, scan_images_streamed, write_images, Stream};
use crate::sketch::SketchParams;
use crate::spill::SpillConfig;
use crate::{Error, Result};

/// `format` field of the manifest.
pub const FORMAT: &str = "fimdup-index";
/// Current index format version.
pub const VERSION: u32 = 1;
/// The pointer file naming the current generation.
pub const CURRENT: &str = "CURRENT";

const MAGIC_CONTEXT: &[u8; 8] = b"FIMDUPCX";
const MAGIC_BANDS: &[u8; 8] = b"FIMDUPBT";
const MAGIC_DOCS: &[u8; 8] = b"FIMDUPDC";

/// One file of a generation, as listed in the manifest.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileEntry {
    /// File name inside the generation directory.
    pub name: String,
    /// Size in bytes.
    pub bytes: u64,
    /// xxh64 (seed 0) of the content, 16 hex digits.
    pub xxh64: String,
}

/// The manifest of a generation.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Manifest {
    /// Always [`FORMAT`].
    pub format: String,
    /// Format version ([`VERSION`]).
    pub version: u32,
    /// Generation number.
    pub generation: u64,
    /// Every parameter of the images.
    pub params: SketchParams,
    /// The stop-word list itself (so queries canonicalize exactly like the index).
    pub stopword_list: Option<Vec<String>>,
    /// Cluster threshold.
    pub threshold: f64,
    /// Parameters of the mod-m containment images, if kept.
    pub containment_params: Option<SketchParams>,
    /// Whether sources are referenced (exact queries).
    pub keep_sources: bool,
    /// LSH `(bands, rows)` for positional schemes.
    pub bands: Option<(u32, u32)>,
    /// Number of documents.
    pub doc_count: u64,
    /// The sweeps, oldest first.
    pub sweeps: Vec<Sweep>,
    /// The files of this generation.
    pub files: Vec<FileEntry>,
}

fn gen_name(g: u64) -> String {
    format!("gen-{g:06}")
}

fn parse_gen(name: &str) -> Option<u64> {
    let n = name.strip_prefix("gen-")?;
    if n.len() < 6 || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

fn fmt_err(path: impl AsRef<Path>, msg: impl Into<String>) -> Error {
    let path = path.as_ref();
    Error::format(path, msg)
}

/// Reads `CURRENT`: the generation number and the manifest checksum.
pub fn read_current(dir: &Path) -> Result<(u64, u64)> {
    let p = dir.join(CURRENT);
    let text = match std::fs::read(&p) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(fmt_err(
                &p,
                "not a fimdup index (no CURRENT file); build one with `fimdup index build`",
            ))
        }
        Err(e) => return Err(Error::io(&p, e)),
    };
    let bad = || {
        fmt_err(
            &p,
            "malformed CURRENT file: expected \"gen-NNNNNN <16 hex digits>\"",
        )
    };
    let text = std::str::from_utf8(&text).map_err(|_| bad())?;
    let text = text.strip_suffix('\n').ok_or_else(bad)?;
    let mut parts = text.split(' ');
    let (Some(g), Some(h), None) = (parts.next(), parts.next(), parts.next()) else {
        return Err(bad());
    };
    let g = parse_gen(g).ok_or_else(bad)?;
    if h.len() != 16
        || !h
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return Err(bad());
    }
    let h = u64::from_str_radix(h, 16).map_err(|_| bad())?;
    Ok((g, h))
}

impl Index {
    /// Writes the index as a new generation of the directory `dir` (created if needed) and
    /// switches `CURRENT` to it atomically; returns the generation number. Takes the writer
    /// lock for the save, failing with [`Error::Locked`] if another process holds it.
    pub fn save(&self, dir: &Path) -> Result<u64> {
        self.save_locked(&WriteLock::acquire(dir, Duration::ZERO)?)
    }

    /// Takes the writer lock of the index directory `dir` (waiting up to `wait` for another
    /// writer to finish), then opens the generation `CURRENT` names, as [`Index::open`]. Keep
    /// the lock until the new generation is saved with [`Index::save_locked`].
    pub fn open_for_write(dir: &Path, wait: Duration) -> Result<(Index, WriteLock)> {
        // Not an index (yet): say so without leaving a lock file there.
        read_current(dir)?;
        let lock = WriteLock::acquire(dir, wait)?;
        let idx = Index::open(dir)?;
        Ok((idx, lock))
    }

    /// [`Index::open_for_write`] under the memory budget of `spill`: before the index is
    /// read, an [`Error::Budget`] when the index alone cannot fit in the budget (counted by
    /// [`memory_needed`](super::memory_needed) from its document count and its images,
    /// which are streamed through once to count their values).
    pub fn open_for_write_with(
        dir: &Path,
        wait: Duration,
        spill: &SpillConfig,
    ) -> Result<(Index, WriteLock)> {
        read_current(dir)?;
        let lock = WriteLock::acquire(dir, wait)?;
        if let Some(budget) = spill.budget {
            let (gdir, _, m) = read_manifest(dir)?;
            let mut values = 0u64;
            for f in &m.files {
                if f.name == "images.bin" || f.name == "containment.bin" {
                    let p = gdir.join(&f.name);
                    scan_images_streamed(&p, f.bytes / 2, |_, _, img| {
                        values += img.len() as u64;
                    })?;
                }
            }
            check_fits(
                m.bands,
                m.doc_count,
                values,
                budget,
                "index add",
                &format!("the index {} as it is", dir.display()),
            )?;
        }
        let idx = Index::open(dir)?;
        Ok((idx, lock))
    }

    /// [`Index::save`] into the directory whose writer lock is `lock`.
    pub fn save_locked(&self, lock: &WriteLock) -> Result<u64> {
        let dir = lock.dir();
        let previous = match read_current(dir) {
            Ok((g, _)) => Some(g),
            Err(_) if !dir.join(CURRENT).exists() => None,
            Err(e) => return Err(e),
        };
        let mut existing = Vec::new();
        let mut stale_tmp = Vec::new();
        for e in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
            let e = e.map_err(|e| Error::io(dir, e))?;
            let name = e.file_name();
            let Some(name) = name.to_str() else { continue };
            if let Some(g) = parse_gen(name) {
                existing.push(g);
            } else if crate::io::is_atomic_temp(name) {
                // The temporary file of a `CURRENT` switch that was killed; only a writer
                // (and this one holds the lock) makes them.
                stale_tmp.push(e.path());
            }
        }
        let generation = existing
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
            .max(previous.unwrap_or(0))
            + 1;
        let gdir = dir.join(gen_name(generation));
        std::fs::create_dir(&gdir).map_err(|e| Error::io(&gdir, e))?;
        crate::io::sync_dir(dir)?;

        // Each file is encoded and written a piece at a time, its size and checksum
        // computed on the way: no file's bytes are ever held whole.
        let mut entries = Vec::new();
        entries.push(write_file(&gdir, "images.bin", |w, p| {
            write_images(w, p, &self.params, &self.ext_ids, &self.images)
        })?);
        if let Some(cp) = &self.cont_params {
            entries.push(write_file(&gdir, "containment.bin", |w, p| {
                write_images(w, p, cp, &self.ext_ids, &self.cont_images)
            })?);
        }
        let postings_file = |name: &str, p: &Postings, magic: &[u8; 8]| {
            write_file(&gdir, name, |w, path| {
                let mut head = Vec::new();
                put_header(&mut head, magic, VERSION);
                w.write_all(&head).map_err(|e| Error::io(path, e))?;
                p.encode_with(&mut |b: &[u8]| w.write_all(b).map_err(|e| Error::io(path, e)))
            })
        };
        entries.push(postings_file("context.bin", &self.context, MAGIC_CONTEXT)?);
        if self.cont_params.is_some() {
            entries.push(postings_file(
                "containment-context.bin",
                &self.cont_context,
                MAGIC_CONTEXT,
            )?);
        }
        if self.bands.is_some() {
            entries.push(postings_file("bands.bin", &self.band_table, MAGIC_BANDS)?);
        }
        entries.push(write_file(&gdir, "docs.bin", |w, path| {
            let mut docs = Vec::with_capacity(1 << 16);
            put_header(&mut docs, MAGIC_DOCS, VERSION);
            put_varint(&mut docs, self.len() as u64);
            for d in 0..self.len() {
                put_varint(&mut docs, self.first_sweep[d] as u64);
                put_varint(&mut docs, self.last_seen[d] as u64);
                put_varint(&mut docs, self.labels[d] as u64);
                if self.cfg.keep_sources {
                    put_varint(&mut docs, self.source[d]);
                }
                if docs.len() >= 1 << 16 {
                    w.write_all(&docs).map_err(|e| Error::io(path, e))?;
                    docs.clear();
                }
            }
            w.write_all(&docs).map_err(|e| Error::io(path, e))
        })?);

        let manifest = Manifest {
            format: FORMAT.into(),
            version: VERSION,
            generation,
            params: self.params.clone(),
            stopword_list: self.stopword_list.clone(),
            threshold: self.cfg.threshold,
            containment_params: self.cont_params.clone(),
            keep_sources: self.cfg.keep_sources,
            bands: self.bands,
            doc_count: self.len() as u64,
            sweeps: self.sweeps.clone(),
            files: entries,
        };
        let mbytes = serde_json::to_vec_pretty(&manifest)
            .map_err(|e| Error::config(format!("cannot encode the manifest: {e}")))?;
        crate::io::write_atomic(gdir.join("manifest.json"), &mbytes)?;
        let current = format!("{} {:016x}\n", gen_name(generation), xxh64(&mbytes, 0));
        crate::io::write_atomic(dir.join(CURRENT), current.as_bytes())?;
        // Old generations: keep the previous one for readers that opened it.
        for g in existing {
            if g != generation && Some(g) != previous {
                let _ = std::fs::remove_dir_all(dir.join(gen_name(g)));
            }
        }
        for p in stale_tmp {
            let _ = std::fs::remove_file(p);
        }
        Ok(generation)
    }

    /// Opens the generation `CURRENT` names, checking every checksum and field.
    pub fn open(dir: &Path) -> Result<Index> {
        let (gdir, mpath, m) = read_manifest(dir)?;
        // Every file's size and checksum first (streamed), then each file is decoded on its
        // own, streamed too: no file's bytes are ever held whole.
        let mut files: HashMap<String, (PathBuf, u64)> = HashMap::new();
        for f in &m.files {
            if f.name.contains('/') || f.name.contains('\\') || f.name.starts_with('.') {
                return Err(fmt_err(&mpath, format!("bad file name {:?}", f.name)));
            }
            let p = gdir.join(&f.name);
            let (len, sum) = file_xxh64(&p)?;
            if len != f.bytes {
                return Err(fmt_err(
                    &p,
                    format!(
                        "{} bytes, the manifest says {} (truncated or modified)",
                        len, f.bytes
                    ),
                ));
            }
            if format!("{sum:016x}") != f.xxh64 {
                return Err(fmt_err(
                    &p,
                    "checksum mismatch (corrupted or modified file)",
                ));
            }
            files.insert(f.name.clone(), (p, len));
        }
        let mut take = |name: &str, needed: bool| -> Result<Option<(PathBuf, u64)>> {
            match files.remove(name) {
                Some(x) => Ok(Some(x)),
                None if needed => Err(fmt_err(&mpath, format!("lists no {name}"))),
                None => Ok(None),
            }
        };
        let n = u32::try_from(m.doc_count)
            .map_err(|_| fmt_err(&mpath, "document count exceeds 2^32 - 1"))?;
        let nsweeps = m.sweeps.len() as u64;

        // Each document takes at least two bytes.
        let (ip, ilen) = take("images.bin", true)?.expect("needed");
        let set = read_images_streamed(&ip, ilen / 2)?;
        m.params.ensure_compatible(&set.params, &ip)?;
        if set.images.len() != n as usize {
            return Err(fmt_err(
                &ip,
                format!("{} images, the manifest says {n}", set.images.len()),
            ));
        }
        let (cont_images, cont_context) = match &m.containment_params {
            Some(cp) => {
                let (p, len) = take("containment.bin", true)?.expect("needed");
                let cs = read_images_streamed(&p, len / 2)?;
                cp.ensure_compatible(&cs.params, &p)?;
                if cs.ext_ids != set.ext_ids {
                    return Err(fmt_err(&p, "documents differ from images.bin"));
                }
                let (p, _) = take("containment-context.bin", true)?.expect("needed");
                (cs.images, read_postings(&p, MAGIC_CONTEXT, n)?)
            }
            None => (Vec::new(), Postings::default()),
        };
        let (p, _) = take("context.bin", true)?.expect("needed");
        let context = read_postings(&p, MAGIC_CONTEXT, n)?;
        let band_table = match m.bands {
            Some(_) => {
                let (p, _) = take("bands.bin", true)?.expect("needed");
                read_postings(&p, MAGIC_BANDS, n)?
            }
            None => Postings::default(),
        };
        let (p, _) = take("docs.bin", true)?.expect("needed");
        let mut r = Stream::new(crate::io::open_read(&p)?, &p);
        r.header(MAGIC_DOCS, VERSION, "index file")?;
        if r.varint("document count")? != n as u64 {
            return Err(r.err("document count differs from the manifest"));
        }
        let (mut first_sweep, mut last_seen, mut labels, mut source) = (
            Vec::with_capacity(n as usize),
            Vec::with_capacity(n as usize),
            Vec::with_capacity(n as usize),
            Vec::new(),
        );
        for d in 0..n as u64 {
            let f = r.varint_below(nsweeps, "first sweep")?;
            let l = r.varint_below(nsweeps, "last sweep")?;
            if l < f {
                return Err(r.err("last sweep before first sweep"));
            }
            let lab = r.varint_below(d + 1, "cluster label")?;
            if labels
                .get(lab as usize)
                .is_some_and(|&x: &u32| x as u64 != lab)
            {
                return Err(r.err("cluster label is not its cluster's smallest document"));
            }
            first_sweep.push(f as u32);
            last_seen.push(l as u32);
            labels.push(lab as u32);
            if m.keep_sources {
                source.push(r.varint("source ordinal")?);
            }
        }
        finish(&mut r)?;
        drop(r);
        let mut latest = HashMap::with_capacity(n as usize);
        for (d, e) in set.ext_ids.iter().enumerate() {
            latest.insert(e.clone(), d as u32);
        }
        let cfg = IndexConfig {
            threshold: m.threshold,
            containment: m.containment_params.is_some(),
            containment_modulus: m
                .containment_params
                .as_ref()
                .map_or(IndexConfig::default().containment_modulus, |p| {
                    p.sketch.modulus
                }),
            keep_sources: m.keep_sources,
        };
        cfg.validate().map_err(|e| fmt_err(&mpath, e.to_string()))?;
        if m.params.sketch.scheme.is_positional() != m.bands.is_some() {
            return Err(fmt_err(
                &mpath,
                "LSH bands present iff the scheme is positional",
            ));
        }
        Ok(Index {
            params: m.params,
            stopword_list: m.stopword_list,
            cfg,
            bands: m.bands,
            cont_params: m.containment_params,
            ext_ids: set.ext_ids,
            images: set.images,
            cont_images,
            first_sweep,
            last_seen,
            source,
            labels,
            context,
            cont_context,
            band_table,
            sweeps: m.sweeps,
            latest,
        })
    }
}

/// Reads and checks (checksum, format, version, generation) the manifest of the generation
/// `CURRENT` names: its directory, the manifest's path, the manifest.
fn read_manifest(dir: &Path) -> Result<(PathBuf, PathBuf, Manifest)> {
    let (generation, mhash) = read_current(dir)?;
    let gdir = dir.join(gen_name(generation));
    let mpath = gdir.join("manifest.json");
    let mbytes = match std::fs::read(&mpath) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(fmt_err(
                dir.join(CURRENT),
                format!(
                    "names generation {}, which has no manifest (corrupted CURRENT or a \
                         generation deleted by hand)",
                    gen_name(generation)
                ),
            ))
        }
        Err(e) => return Err(Error::io(&mpath, e)),
    };
    if xxh64(&mbytes, 0) != mhash {
        return Err(fmt_err(
            &mpath,
            "checksum does not match the one in CURRENT (corrupted or modified manifest)",
        ));
    }
    let m: Manifest = serde_json::from_slice(&mbytes)
        .map_err(|e| fmt_err(&mpath, format!("malformed manifest: {e}")))?;
    if m.format != FORMAT {
        return Err(fmt_err(
            &mpath,
            format!("not a fimdup index (format {:?})", m.format),
        ));
    }
    if m.version != VERSION {
        return Err(fmt_err(
            &mpath,
            format!(
                "index format version {}, this fimdup reads {VERSION}",
                m.version
            ),
        ));
    }
    if m.generation != generation {
        return Err(fmt_err(&mpath, "manifest of another generation"));
    }
    Ok((gdir, mpath, m))
}

/// Reads a postings file, streamed.
fn read_postings(path: &Path, magic: &[u8; 8], n: u32) -> Result<Postings> {
    let mut r = Stream::new(crate::io::open_read(path)?, path);
    r.header(magic, VERSION, "index file")?;
    let p = Postings::decode(&mut r, n)?;
    finish(&mut r)?;
    Ok(p)
}

/// An error unless `r` is at the end of its file.
fn finish(r: &mut Stream) -> Result<()> {
    if r.at_eof()? {
        Ok(())
    } else {
        Err(r.err("unexpected trailing bytes"))
    }
}

/// The size and xxh64 (seed 0) of the file at `path`, read a piece at a time.
fn file_xxh64(path: &Path) -> Result<(u64, u64)> {
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut h = Xxh64::new(0);
    let mut buf = vec![0u8; 1 << 20];
    let mut len = 0u64;
    loop {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(k) => {
                h.update(&buf[..k]);
                len += k as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(path, e)),
        }
    }
    Ok((len, h.digest()))
}

/// A writer that counts and hashes (xxh64, seed 0) what goes through it.
struct Hashing<'a> {
    inner: &'a mut AtomicFile,
    hasher: Xxh64,
    bytes: u64,
}

impl Write for Hashing<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let k = self.inner.write(buf)?;
        self.hasher.update(&buf[..k]);
        self.bytes += k as u64;
        Ok(k)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes the file `name` of the generation directory `gdir` atomically with `body` (given
/// the writer and the file's path), and returns its manifest entry.
fn write_file(
    gdir: &Path,
    name: &str,
    body: impl FnOnce(&mut Hashing<'_>, &Path) -> Result<()>,
) -> Result<FileEntry> {
    let path = gdir.join(name);
    let mut f = AtomicFile::create(&path)?;
    let mut w = Hashing {
        inner: &mut f,
        hasher: Xxh64::new(0),
        bytes: 0,
    };
    body(&mut w, &path)?;
    let entry = FileEntry {
        name: name.to_string(),
        bytes: w.bytes,
        xxh64: format!("{:016x}", w.hasher.digest()),
    };
    f.commit()?;
    Ok(entry)
}
