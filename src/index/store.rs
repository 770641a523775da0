//! The index directory: immutable segments, generations, the manifest, checksums and the
//! atomic switch.
//!
//! ```text
//! INDEX/
//!   CURRENT                      "gen-000003 <xxh64 of its manifest.json, 16 hex>\n"
//!   LOCK                         the writer lock
//!   seg-000001/                  a segment: the documents of a DocId range (never modified)
//!     ids.bin                    count; the external ids
//!     values.bin                 the images: offsets and values, fixed-width arrays, mapped
//!                                (see `super::images`)
//!     containment-values.bin     mod-m images, the same way (only with --containment)
//!     context.bin                inverted context: key -> local ids (fixed-width arrays,
//!                                mapped; see `Postings::encode_with`)
//!     containment-context.bin    the same over the mod-m images (only with --containment)
//!     bands.bin                  LSH band table: band key -> local ids (positional schemes)
//!     docs.bin                   first DocId, count; per document: first sweep,
//!                                [source ordinal]
//!   seg-000002/                  the next sweep's documents
//!   gen-000002/                  the previous generation (kept for readers still on it)
//!   gen-000003/
//!     manifest.json              format, version, generation, every parameter (SketchParams),
//!                                stop-word list, threshold, LSH (bands, rows), doc count,
//!                                sweeps (tag, input, corpus options), the segments in DocId
//!                                order (name, first DocId, count, files: bytes + xxh64),
//!                                the generation's files (bytes + xxh64)
//!     state.bin                  per document: last sweep seen in, cluster label
//!     deleted.bin                the removed DocIds (only when there are some)
//! ```
//!
//! A sweep writes one new segment directory and a new generation; the segments already
//! there are listed again, not rewritten. `state.bin` is the only per-document file a sweep
//! rewrites: the sweep marks old documents seen and may join old clusters, so it holds two
//! small integers per document (about 4 bytes a document), against some hundreds of bytes a
//! document in a segment. A merge writes the merged segment and a generation listing it in
//! place of its parts.
//!
//! Every `*.bin` file starts with an 8-byte magic and a `u32` version. The postings files
//! (`context.bin`, `containment-context.bin`, `bands.bin`, version 2) and the values files
//! (`values.bin`, `containment-values.bin`) hold fixed-width little-endian arrays that
//! readers memory-map and use in place ([`super::Postings::map_file`],
//! `super::images`), checking a block against its checksum when they first read it; in
//! the other files all integers are LEB128 varints. Files are written one at a time and streamed (size and checksum computed on
//! the way), and read streamed or mapped, so no file's bytes are held whole.
//!
//! # Versions
//! The manifest's `version` is [`VERSION`] (3, segments whose images are values files).
//! Version 2 (segments whose ids and images are in `images.bin`, the images file of
//! `fimdup sketch`, decoded when read) and version 1 (every file in the generation
//! directory, `docs.bin` holding last sweeps and labels too, read as one segment) are still
//! read; the next save writes version 3, listing the older segments as they are, and a
//! merge (`index merge` rewrites even a single such segment) writes their documents in
//! values files. Any other version is refused with an error naming the versions read.
//!
//! The postings files have their own version (in their header): 2, the mapped arrays, is
//! written; 1 (varint keys and roaring bitmaps, what older fimdups wrote) is still read,
//! decoded into memory, and a merge (`index merge` rewrites even a single such segment)
//! writes it again in version 2; any other is refused naming both.
//!
//! # Atomicity and concurrency
//! A save holds the directory's writer lock ([`WriteLock`], the file `LOCK`), writes its new
//! segment directories completely (each file fsynced, then the directory, then the index
//! directory), then a complete new generation directory, then its manifest, and only then
//! replaces `CURRENT` by an atomic rename followed by an fsync of the index directory. A
//! reader takes no lock: it reads `CURRENT` once and opens the generation it names, whose
//! segments are immutable, so it sees either the old or the new index, never a mix (never a
//! half-merged one). A crash at any point (SIGKILL, power loss) leaves `CURRENT` naming
//! either the old, intact generation or the new, complete one; what an interrupted save
//! leaves behind (an unfinished generation or segment directory, a `.fimdup-*.tmp` file) is
//! ignored by readers and removed by the next save. After the switch, generations older than
//! the previous one are deleted, and so are the segment directories neither the new nor the
//! previous generation lists, so a reader that read `CURRENT` just before the switch still
//! finds its files.
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
//! (seed 0) and the xxh64 of each of its [`BLOCK`]-byte blocks, and every file is checked
//! before it is parsed, so damage is reported with the file and the offset of the first bad
//! block (or where the file was cut short); then every field is checked (bounds, ascending
//! keys, document ids, sweep numbers, labels). Truncated, bit-flipped or foreign files give
//! an [`Error::Format`] naming the file, never a panic.
//!
//! A mapped postings file's size is checked on open, its blocks when they are used:
//! [`Index::open`] (queries, overlap, exports) checks all of them at once;
//! [`Index::open_for_write`] (add, merge, remove) checks the header's block at once and
//! each other block the first time a lookup reads it, so an add reads only the blocks its
//! queries touch, and a damaged block stops it (before anything is written) with the file
//! and the block's byte range. The other files are checked whole on every open.

use std::path::{Path, PathBuf};
use std::time::Duration;

use std::io::{Read, Write};

use hashbrown::HashMap;
use roaring::RoaringBitmap;
use xxhash_rust::xxh64::{xxh64, Xxh64};

use super::build::{check_fits, HOLDS};
use super::ids::{Ids, Latest};
use super::images::Images;
use super::segment::Segment;
use super::{Index, IndexConfig, Postings, Sweep, WriteLock};
use crate::codec::{put_header, put_varint, ByteSource};
use crate::io::AtomicFile;
use crate::plan::{index_held, IndexHeld};
use crate::sketch::file::{read_images_streamed, scan_images_streamed, Stream};
use crate::sketch::{SketchConfig, SketchParams};
use crate::spill::SpillConfig;
use crate::{Error, Result};

/// `format` field of the manifest.
pub const FORMAT: &str = "fimdup-index";
/// Current index format version (the manifest's `version`): 3, segments whose images
/// are mapped values files.
pub const VERSION: u32 = 3;
/// Segments whose images are in `images.bin` (decoded when read); still read.
pub const VERSION_IMAGES_FILE: u32 = 2;
/// The one older version still read: every file in the generation directory.
pub const VERSION_UNSEGMENTED: u32 = 1;
/// The pointer file naming the current generation.
pub const CURRENT: &str = "CURRENT";
/// Bytes per checksummed block of a file (the manifest lists each block's xxh64).
pub const BLOCK: u64 = 1 << 20;

/// Version of the per-document files (`docs.bin`, `state.bin`, `deleted.bin`), and the
/// older version of the postings files (`context.bin`, `bands.bin`, ...), still read.
const FILE_VERSION: u32 = 1;
/// Version of the postings files written: fixed-width arrays, mapped.
const POSTINGS_VERSION: u32 = super::postings::VERSION;
const MAGIC_CONTEXT: &[u8; 8] = b"FIMDUPCX";
const MAGIC_BANDS: &[u8; 8] = b"FIMDUPBT";
/// `docs.bin` of a version-1 generation (first, last sweep, label, [source]).
const MAGIC_DOCS: &[u8; 8] = b"FIMDUPDC";
/// `docs.bin` of a segment (first DocId, count; first sweep, [source]).
const MAGIC_SEG_DOCS: &[u8; 8] = b"FIMDUPSD";
/// `state.bin` of a generation (count; last sweep, label).
const MAGIC_STATE: &[u8; 8] = b"FIMDUPST";
/// `deleted.bin` of a generation (count; ascending DocId gaps).
const MAGIC_DELETED: &[u8; 8] = b"FIMDUPDL";
/// `ids.bin` of a segment (count; external ids).
const MAGIC_IDS: &[u8; 8] = b"FIMDUPID";
/// `values.bin` and `containment-values.bin` of a segment (see [`super::images`]).
const MAGIC_VALUES: &[u8; 8] = b"FIMDUPIV";

/// One file of a generation or a segment, as listed in the manifest.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileEntry {
    /// File name inside its directory.
    pub name: String,
    /// Size in bytes.
    pub bytes: u64,
    /// xxh64 (seed 0) of the content, 16 hex digits.
    pub xxh64: String,
    /// xxh64 (seed 0) of each [`BLOCK`]-byte block, 16 hex digits each (empty in version 1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<String>,
}

/// A segment as listed in the manifest.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SegmentEntry {
    /// Its directory inside the index directory (`seg-NNNNNN`).
    pub name: String,
    /// Its first DocId.
    pub first_doc: u64,
    /// Its number of documents.
    pub docs: u64,
    /// Its files.
    pub files: Vec<FileEntry>,
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
    /// The segments in DocId order (none in version 1).
    #[serde(default)]
    pub segments: Vec<SegmentEntry>,
    /// The files of the generation directory itself.
    pub files: Vec<FileEntry>,
}

fn gen_name(g: u64) -> String {
    format!("gen-{g:06}")
}

fn seg_name(s: u64) -> String {
    format!("seg-{s:06}")
}

fn parse_numbered(name: &str, prefix: &str) -> Option<u64> {
    let n = name.strip_prefix(prefix)?;
    if n.len() < 6 || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

fn parse_gen(name: &str) -> Option<u64> {
    parse_numbered(name, "gen-")
}

fn parse_seg(name: &str) -> Option<u64> {
    parse_numbered(name, "seg-")
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

/// The manifest of generation `g` of `dir`, when it can be read (for the clean-up of
/// segment directories; a damaged one is `None`).
fn manifest_of(dir: &Path, g: u64) -> Option<Manifest> {
    let bytes = std::fs::read(dir.join(gen_name(g)).join("manifest.json")).ok()?;
    serde_json::from_slice(&bytes).ok()
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
        let idx = Index::open_checked(dir, true)?;
        Ok((idx, lock))
    }

    /// [`Index::open_for_write`] under the memory budget of `spill`: before the index is
    /// read, an [`Error::Budget`] when what the open index holds cannot fit in the budget
    /// ([`index_held`]: its segments of the current format are mapped, and only their
    /// documents' ids and state are held; the images of a segment of an older format are
    /// streamed through once to count their values, as it is decoded into memory).
    pub fn open_for_write_with(
        dir: &Path,
        wait: Duration,
        spill: &SpillConfig,
    ) -> Result<(Index, WriteLock)> {
        read_current(dir)?;
        let lock = WriteLock::acquire(dir, wait)?;
        if let Some(budget) = spill.budget {
            let (gdir, _, m) = read_manifest(dir)?;
            let in_segments: u64 = m.segments.iter().map(|s| s.docs).sum();
            let mut lists: Vec<(PathBuf, &[FileEntry], u64)> = vec![(
                gdir.clone(),
                &m.files[..],
                m.doc_count.saturating_sub(in_segments),
            )];
            for s in &m.segments {
                lists.push((dir.join(&s.name), &s.files[..], s.docs));
            }
            let mut held = IndexHeld {
                docs: m.doc_count,
                ..IndexHeld::default()
            };
            for (fdir, files, docs) in lists {
                if !files.iter().any(|f| f.name == "images.bin") {
                    continue;
                }
                held.owned_docs += docs;
                for f in files {
                    if f.name == "images.bin" || f.name == "containment.bin" {
                        scan_images_streamed(&fdir.join(&f.name), f.bytes / 2, |_, _, img| {
                            held.owned_values += img.len() as u64;
                        })?;
                    }
                }
            }
            check_fits(
                index_held(m.bands, held),
                m.doc_count,
                budget,
                "index add",
                &format!("{HOLDS} (the index {} as it is)", dir.display()),
            )?;
        }
        let idx = Index::open_checked(dir, true)?;
        Ok((idx, lock))
    }

    /// [`Index::save`] into the directory whose writer lock is `lock`. Segments read from
    /// this directory (by [`Index::open`]) and still there are listed again, not rewritten;
    /// every other segment (a new sweep's, a merged one, or all of them when the index came
    /// from elsewhere or from memory) is written to a new segment directory.
    pub fn save_locked(&self, lock: &WriteLock) -> Result<u64> {
        let dir = lock.dir();
        let previous = match read_current(dir) {
            Ok((g, _)) => Some(g),
            Err(_) if !dir.join(CURRENT).exists() => None,
            Err(e) => return Err(e),
        };
        let mut existing = Vec::new();
        let mut segs = Vec::new();
        let mut stale_tmp = Vec::new();
        for e in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
            let e = e.map_err(|e| Error::io(dir, e))?;
            let name = e.file_name();
            let Some(name) = name.to_str() else { continue };
            if let Some(g) = parse_gen(name) {
                existing.push(g);
            } else if let Some(s) = parse_seg(name) {
                segs.push((s, name.to_string()));
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
        let here = std::fs::canonicalize(dir).map_err(|e| Error::io(dir, e))?;
        let reuse = self.origin.as_deref() == Some(here.as_path());
        let mut next_seg = segs.iter().map(|s| s.0).max().unwrap_or(0) + 1;
        let mut seg_entries = Vec::with_capacity(self.segments.len());
        for s in &self.segments {
            match &s.stored {
                Some(e) if reuse && segment_in_place(dir, e) => seg_entries.push(e.clone()),
                _ => {
                    seg_entries.push(self.write_segment(dir, &seg_name(next_seg), s)?);
                    next_seg += 1;
                }
            }
        }

        let gdir = dir.join(gen_name(generation));
        std::fs::create_dir(&gdir).map_err(|e| Error::io(&gdir, e))?;
        crate::io::sync_dir(dir)?;
        let mut entries = Vec::new();
        entries.push(write_file(&gdir, "state.bin", |w, path| {
            let mut buf = Vec::with_capacity(1 << 16);
            put_header(&mut buf, MAGIC_STATE, FILE_VERSION);
            put_varint(&mut buf, self.len() as u64);
            for d in 0..self.len() {
                put_varint(&mut buf, self.last_seen[d] as u64);
                put_varint(&mut buf, self.labels[d] as u64);
                if buf.len() >= 1 << 16 {
                    w.write_all(&buf).map_err(|e| Error::io(path, e))?;
                    buf.clear();
                }
            }
            w.write_all(&buf).map_err(|e| Error::io(path, e))
        })?);
        if !self.deleted.is_empty() {
            entries.push(write_file(&gdir, "deleted.bin", |w, path| {
                let mut buf = Vec::new();
                put_header(&mut buf, MAGIC_DELETED, FILE_VERSION);
                put_varint(&mut buf, self.deleted.len());
                let mut prev = 0u64;
                for (i, d) in self.deleted.iter().enumerate() {
                    put_varint(&mut buf, if i == 0 { d as u64 } else { d as u64 - prev });
                    prev = d as u64;
                }
                w.write_all(&buf).map_err(|e| Error::io(path, e))
            })?);
        }
        crate::io::sync_dir(&gdir)?;

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
            segments: seg_entries,
            files: entries,
        };
        let mbytes = serde_json::to_vec_pretty(&manifest)
            .map_err(|e| Error::config(format!("cannot encode the manifest: {e}")))?;
        crate::io::write_atomic(gdir.join("manifest.json"), &mbytes)?;
        let current = format!("{} {:016x}\n", gen_name(generation), xxh64(&mbytes, 0));
        crate::io::write_atomic(dir.join(CURRENT), current.as_bytes())?;
        // Old generations: keep the previous one for readers that opened it, and the
        // segments it or the new one lists. When the previous manifest cannot be read no
        // segment is removed.
        for &g in &existing {
            if g != generation && Some(g) != previous {
                let _ = std::fs::remove_dir_all(dir.join(gen_name(g)));
            }
        }
        let prev_manifest = match previous {
            Some(g) => manifest_of(dir, g).map(Some),
            None => Some(None),
        };
        if let Some(prev) = prev_manifest {
            let mut keep: hashbrown::HashSet<&str> =
                manifest.segments.iter().map(|s| s.name.as_str()).collect();
            if let Some(p) = &prev {
                keep.extend(p.segments.iter().map(|s| s.name.as_str()));
            }
            for (_, name) in &segs {
                if !keep.contains(name.as_str()) {
                    let _ = std::fs::remove_dir_all(dir.join(name));
                }
            }
        }
        for p in stale_tmp {
            let _ = std::fs::remove_file(p);
        }
        Ok(generation)
    }

    /// Writes the segment `s` to the new directory `name` of `dir` (its files, then the
    /// directory and `dir` fsynced); returns its manifest entry.
    fn write_segment(&self, dir: &Path, name: &str, s: &Segment) -> Result<SegmentEntry> {
        let sdir = dir.join(name);
        std::fs::create_dir(&sdir).map_err(|e| Error::io(&sdir, e))?;
        let (from, to) = (s.base as usize, (s.base + s.len) as usize);
        let mut files = Vec::new();
        files.push(write_file(&sdir, "ids.bin", |w, path| {
            let mut buf = Vec::with_capacity(1 << 16);
            put_header(&mut buf, MAGIC_IDS, FILE_VERSION);
            put_varint(&mut buf, (to - from) as u64);
            for id in self.ext_ids.range(from, to) {
                put_varint(&mut buf, id.len() as u64);
                buf.extend_from_slice(id.as_bytes());
                if buf.len() >= 1 << 16 {
                    w.write_all(&buf).map_err(|e| Error::io(path, e))?;
                    buf.clear();
                }
            }
            w.write_all(&buf).map_err(|e| Error::io(path, e))
        })?);
        let values_file = |name: &str, images: &super::images::Images| {
            write_file(&sdir, name, |w, path| {
                images.write_values(MAGIC_VALUES, (s.base, s.base + s.len), &mut |b| {
                    w.write_all(b).map_err(|e| Error::io(path, e))
                })
            })
        };
        files.push(values_file("values.bin", &self.images)?);
        if self.cont_params.is_some() {
            files.push(values_file("containment-values.bin", &self.cont_images)?);
        }
        let postings_file = |name: &str, p: &Postings, magic: &[u8; 8]| {
            write_file(&sdir, name, |w, path| {
                p.encode_with(magic, s.len, &mut |b: &[u8]| {
                    w.write_all(b).map_err(|e| Error::io(path, e))
                })
            })
        };
        files.push(postings_file("context.bin", &s.context, MAGIC_CONTEXT)?);
        if self.cont_params.is_some() {
            files.push(postings_file(
                "containment-context.bin",
                &s.cont_context,
                MAGIC_CONTEXT,
            )?);
        }
        if self.bands.is_some() {
            files.push(postings_file("bands.bin", &s.band_table, MAGIC_BANDS)?);
        }
        files.push(write_file(&sdir, "docs.bin", |w, path| {
            let mut docs = Vec::with_capacity(1 << 16);
            put_header(&mut docs, MAGIC_SEG_DOCS, FILE_VERSION);
            put_varint(&mut docs, from as u64);
            put_varint(&mut docs, (to - from) as u64);
            for d in from..to {
                put_varint(&mut docs, self.first_sweep[d] as u64);
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
        crate::io::sync_dir(&sdir)?;
        crate::io::sync_dir(dir)?;
        Ok(SegmentEntry {
            name: name.to_string(),
            first_doc: from as u64,
            docs: (to - from) as u64,
            files,
        })
    }

    /// Opens the generation `CURRENT` names, checking every checksum and field.
    pub fn open(dir: &Path) -> Result<Index> {
        Index::open_checked(dir, false)
    }

    /// [`Index::open`]; with `lazy` the blocks of the (mapped) postings files past their
    /// headers are checked when a lookup first reads them instead (see the module docs).
    fn open_checked(dir: &Path, lazy: bool) -> Result<Index> {
        let (gdir, mpath, m) = read_manifest(dir)?;
        let n = u32::try_from(m.doc_count)
            .map_err(|_| fmt_err(&mpath, "document count exceeds 2^32 - 1"))?;
        let mut acc = Loaded::with_capacity(n as usize, m.keep_sources);
        let v1 = m.version == VERSION_UNSEGMENTED;
        let (mut gfiles, gdeferred) = check_files(&gdir, &mpath, &m.files)?;
        let mut segments = Vec::new();
        if v1 {
            if n > 0 {
                let files = (&mut gfiles, &gdeferred);
                segments.push(read_segment(
                    &m,
                    &mpath,
                    files,
                    (0, n),
                    true,
                    lazy,
                    &mut acc,
                )?);
            }
        } else {
            for e in &m.segments {
                if parse_seg(&e.name).is_none() || e.name.len() != 10 {
                    return Err(fmt_err(&mpath, format!("bad segment name {:?}", e.name)));
                }
                if e.first_doc != acc.ext_ids.len() as u64
                    || e.docs == 0
                    || e.first_doc + e.docs > n as u64
                {
                    return Err(fmt_err(
                        &mpath,
                        format!(
                            "segment {} covers DocIds {}..{}, not the next ones of {n}",
                            e.name,
                            e.first_doc,
                            e.first_doc + e.docs
                        ),
                    ));
                }
                let sdir = dir.join(&e.name);
                let (mut files, deferred) = check_files(&sdir, &mpath, &e.files)?;
                let range = (e.first_doc as u32, e.docs as u32);
                let files = (&mut files, &deferred);
                let mut seg = read_segment(&m, &mpath, files, range, false, lazy, &mut acc)?;
                seg.stored = Some(e.clone());
                segments.push(seg);
            }
            if acc.ext_ids.len() != n as usize {
                return Err(fmt_err(
                    &mpath,
                    format!(
                        "the segments hold {} documents, the manifest says {n}",
                        acc.ext_ids.len()
                    ),
                ));
            }
            let (p, _) = take(&mut gfiles, &mpath, "state.bin")?;
            read_state(&p, &m, &mut acc)?;
        }
        let deleted = match gfiles.remove("deleted.bin") {
            Some((p, _)) => read_deleted(&p, n, &acc.labels)?,
            None => RoaringBitmap::new(),
        };
        let mut latest = Latest::default();
        latest.reserve(n as usize);
        for d in 0..n {
            if !deleted.contains(d) {
                latest.insert(d, &acc.ext_ids);
            }
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
            ext_ids: acc.ext_ids,
            images: acc.images,
            cont_images: acc.cont_images,
            first_sweep: acc.first_sweep,
            last_seen: acc.last_seen,
            source: acc.source,
            labels: acc.labels,
            segments,
            deleted,
            sweeps: m.sweeps,
            latest,
            origin: (!v1).then(|| std::fs::canonicalize(dir).ok()).flatten(),
        })
    }
}

/// True when the segment `e` is in `dir` with its files of the listed sizes (a save lists
/// it again instead of writing it).
fn segment_in_place(dir: &Path, e: &SegmentEntry) -> bool {
    let sdir = dir.join(&e.name);
    e.files.iter().all(|f| {
        std::fs::metadata(sdir.join(&f.name)).is_ok_and(|md| md.is_file() && md.len() == f.bytes)
    })
}

/// The per-document vectors as the segments are read.
struct Loaded {
    ext_ids: Ids,
    images: Images,
    cont_images: Images,
    first_sweep: Vec<u32>,
    last_seen: Vec<u32>,
    labels: Vec<u32>,
    source: Vec<u64>,
}

impl Loaded {
    fn with_capacity(n: usize, sources: bool) -> Self {
        Loaded {
            ext_ids: Ids::default(),
            images: Images::default(),
            cont_images: Images::default(),
            first_sweep: Vec::with_capacity(n),
            last_seen: Vec::with_capacity(n),
            labels: Vec::with_capacity(n),
            source: Vec::with_capacity(if sources { n } else { 0 }),
        }
    }
}

/// The files read where they lie: the postings (mapped in version 2, see
/// [`Postings::map_file`]) and the image values ([`super::images`]).
const MAPPED_FILES: [&str; 5] = [
    "context.bin",
    "containment-context.bin",
    "bands.bin",
    "values.bin",
    "containment-values.bin",
];

/// The files of a directory as [`check_files`] returns them: by name, the checked ones'
/// paths and sizes; and the postings files whose blocks are still to be checked (only
/// their sizes were), with their manifest entries.
type Checked = (CheckedFiles, DeferredFiles);

/// Checked files by name: their paths and sizes.
type CheckedFiles = HashMap<String, (PathBuf, u64)>;

/// Postings files by name whose blocks are still to be checked: their manifest entries.
type DeferredFiles = HashMap<String, FileEntry>;

/// Checks the size and checksum (each block's) of every file of `files` in `fdir`
/// (streamed), except the checksums of the postings files listed with block checksums,
/// which are left to [`read_postings`] (a version-2 one is mapped and checked a block at a
/// time); returns them by name with their paths and sizes.
fn check_files(fdir: &Path, mpath: &Path, files: &[FileEntry]) -> Result<Checked> {
    let mut out = HashMap::new();
    let mut deferred = HashMap::new();
    for f in files {
        if f.name.contains('/') || f.name.contains('\\') || f.name.starts_with('.') {
            return Err(fmt_err(mpath, format!("bad file name {:?}", f.name)));
        }
        let p = fdir.join(&f.name);
        if MAPPED_FILES.contains(&f.name.as_str()) && !f.blocks.is_empty() {
            check_block_count(mpath, f)?;
            let len = std::fs::metadata(&p).map_err(|e| Error::io(&p, e))?.len();
            check_size(&p, f, len)?;
            deferred.insert(f.name.clone(), f.clone());
        } else {
            check_file(&p, mpath, f)?;
        }
        out.insert(f.name.clone(), (p, f.bytes));
    }
    Ok((out, deferred))
}

/// An error naming the manifest unless `f` lists one checksum per [`BLOCK`].
fn check_block_count(mpath: &Path, f: &FileEntry) -> Result<()> {
    let want_blocks = f.bytes.div_ceil(BLOCK) as usize;
    if f.blocks.len() != want_blocks {
        return Err(fmt_err(
            mpath,
            format!(
                "{} lists {} blocks for {} bytes",
                f.name,
                f.blocks.len(),
                f.bytes
            ),
        ));
    }
    Ok(())
}

/// An error naming `p` and where it ends unless its size `len` is the listed one.
fn check_size(p: &Path, f: &FileEntry, len: u64) -> Result<()> {
    if len != f.bytes {
        let what = if len < f.bytes {
            "cut short"
        } else {
            "longer than listed"
        };
        return Err(fmt_err(
            p,
            format!(
                "at byte {}: {what} ({len} bytes, the manifest says {}; truncated or \
                 modified)",
                len.min(f.bytes),
                f.bytes
            ),
        ));
    }
    Ok(())
}

/// Checks the size and the checksums (each block's, then the whole file's) of the file
/// `p` listed as `f`, reading it once.
fn check_file(p: &Path, mpath: &Path, f: &FileEntry) -> Result<()> {
    let (len, sum, blocks) = file_xxh64(p)?;
    if !f.blocks.is_empty() {
        check_block_count(mpath, f)?;
        for (i, (got, want)) in blocks.iter().zip(&f.blocks).enumerate() {
            let whole = (i as u64 + 1) * BLOCK <= len.min(f.bytes) || len == f.bytes;
            if whole && format!("{got:016x}") != *want {
                return Err(fmt_err(
                    p,
                    format!(
                        "checksum mismatch in bytes {}..{} (corrupted or modified file)",
                        i as u64 * BLOCK,
                        ((i as u64 + 1) * BLOCK).min(len)
                    ),
                ));
            }
        }
    }
    check_size(p, f, len)?;
    if format!("{sum:016x}") != f.xxh64 {
        return Err(fmt_err(p, "checksum mismatch (corrupted or modified file)"));
    }
    Ok(())
}

/// The file `name` of `files` (checked), an error naming the manifest when it lists none.
fn take(
    files: &mut HashMap<String, (PathBuf, u64)>,
    mpath: &Path,
    name: &str,
) -> Result<(PathBuf, u64)> {
    files
        .remove(name)
        .ok_or_else(|| fmt_err(mpath, format!("lists no {name}")))
}

/// Reads one segment's files (already checked), documents `base .. base + n`, appending
/// their per-document data to `acc`; in a version-1 generation (`v1`) `docs.bin` holds the
/// last sweeps and labels too.
fn read_segment(
    m: &Manifest,
    mpath: &Path,
    (files, deferred): (&mut CheckedFiles, &DeferredFiles),
    (base, n): (u32, u32),
    v1: bool,
    lazy: bool,
    acc: &mut Loaded,
) -> Result<Segment> {
    let postings = |files: &mut HashMap<String, (PathBuf, u64)>,
                    name: &str,
                    magic: &[u8; 8]|
     -> Result<(Postings, bool)> {
        let (p, _) = take(files, mpath, name)?;
        let d = deferred.get(name);
        read_postings(&p, mpath, d, magic, n, lazy)
    };
    let mut old_format = false;
    let mut postings = |files: &mut HashMap<String, (PathBuf, u64)>,
                        name: &str,
                        magic: &[u8; 8]|
     -> Result<Postings> {
        let (p, old) = postings(files, name, magic)?;
        old_format |= old;
        Ok(p)
    };
    let nsweeps = m.sweeps.len() as u64;
    // Images in `images.bin` (decoded now; a merge rewrites them as a values file).
    let mut old_images = false;
    let mut seg = Segment {
        base,
        len: n,
        ..Segment::default()
    };
    if files.contains_key("values.bin") {
        let (p, _) = take(files, mpath, "ids.bin")?;
        read_ids(&p, n, &mut acc.ext_ids)?;
        let mut values = |name: &str, cfg: SketchConfig, images: &mut Images| -> Result<()> {
            let (p, _) = take(files, mpath, name)?;
            let sums = block_sums(&p, mpath, deferred.get(name))?;
            images.append_file(&p, (MAGIC_VALUES, cfg), n, (sums, BLOCK as usize), lazy)
        };
        values("values.bin", m.params.sketch, &mut acc.images)?;
        if let Some(cp) = &m.containment_params {
            values("containment-values.bin", cp.sketch, &mut acc.cont_images)?;
            seg.cont_context = postings(files, "containment-context.bin", MAGIC_CONTEXT)?;
        }
    } else {
        old_images = true;
        // Each document takes at least two bytes.
        let (ip, ilen) = take(files, mpath, "images.bin")?;
        let set = read_images_streamed(&ip, ilen / 2)?;
        m.params.ensure_compatible(&set.params, &ip)?;
        if set.images.len() != n as usize {
            return Err(fmt_err(
                &ip,
                format!("{} images, the manifest says {n}", set.images.len()),
            ));
        }
        if let Some(cp) = &m.containment_params {
            let (p, len) = take(files, mpath, "containment.bin")?;
            let cs = read_images_streamed(&p, len / 2)?;
            cp.ensure_compatible(&cs.params, &p)?;
            if cs.ext_ids != set.ext_ids {
                return Err(fmt_err(&p, "documents differ from images.bin"));
            }
            seg.cont_context = postings(files, "containment-context.bin", MAGIC_CONTEXT)?;
            acc.cont_images.extend(cs.images);
        }
        for id in &set.ext_ids {
            acc.ext_ids.push(id);
        }
        acc.images.extend(set.images);
    }
    seg.context = postings(files, "context.bin", MAGIC_CONTEXT)?;
    if m.bands.is_some() {
        seg.band_table = postings(files, "bands.bin", MAGIC_BANDS)?;
    }
    let (p, _) = take(files, mpath, "docs.bin")?;
    let mut r = Stream::new(crate::io::open_read(&p)?, &p);
    if v1 {
        r.header(MAGIC_DOCS, FILE_VERSION, "index file")?;
    } else {
        r.header(MAGIC_SEG_DOCS, FILE_VERSION, "index segment file")?;
        if r.varint("first document")? != base as u64 {
            return Err(r.err("first document differs from the manifest"));
        }
    }
    if r.varint("document count")? != n as u64 {
        return Err(r.err("document count differs from the manifest"));
    }
    for d in base as u64..base as u64 + n as u64 {
        let f = r.varint_below(nsweeps, "first sweep")?;
        if v1 {
            read_last_and_label(&mut r, d, f, nsweeps, acc)?;
        }
        acc.first_sweep.push(f as u32);
        if m.keep_sources {
            acc.source.push(r.varint("source ordinal")?);
        }
    }
    finish(&mut r)?;
    seg.old_format = old_format || old_images;
    Ok(seg)
}

/// Reads `state.bin`: every document's last sweep and cluster label.
fn read_state(p: &Path, m: &Manifest, acc: &mut Loaded) -> Result<()> {
    let nsweeps = m.sweeps.len() as u64;
    let mut r = Stream::new(crate::io::open_read(p)?, p);
    r.header(MAGIC_STATE, FILE_VERSION, "index state file")?;
    if r.varint("document count")? != m.doc_count {
        return Err(r.err("document count differs from the manifest"));
    }
    for d in 0..m.doc_count {
        let first = u64::from(acc.first_sweep[d as usize]);
        read_last_and_label(&mut r, d, first, nsweeps, acc)?;
    }
    finish(&mut r)
}

/// Reads document `d`'s last sweep (not before its `first` one) and cluster label (the
/// smallest DocId of its cluster) into `acc`.
fn read_last_and_label<S: ByteSource>(
    r: &mut S,
    d: u64,
    first: u64,
    nsweeps: u64,
    acc: &mut Loaded,
) -> Result<()> {
    let l = r.varint_below(nsweeps, "last sweep")?;
    if l < first {
        return Err(r.err("last sweep before first sweep"));
    }
    let lab = r.varint_below(d + 1, "cluster label")?;
    if acc
        .labels
        .get(lab as usize)
        .is_some_and(|&x: &u32| x as u64 != lab)
    {
        return Err(r.err("cluster label is not its cluster's smallest document"));
    }
    acc.last_seen.push(l as u32);
    acc.labels.push(lab as u32);
    Ok(())
}

/// Reads `deleted.bin`: the removed DocIds (each below `n`, each its own cluster).
fn read_deleted(p: &Path, n: u32, labels: &[u32]) -> Result<RoaringBitmap> {
    let mut r = Stream::new(crate::io::open_read(p)?, p);
    r.header(MAGIC_DELETED, FILE_VERSION, "index file")?;
    let count = r.varint("removed count")?;
    if count > n as u64 {
        return Err(r.err(format!("{count} removed documents in an index of {n}")));
    }
    let mut out = RoaringBitmap::new();
    let mut prev = 0u64;
    for i in 0..count {
        let gap = r.varint("removed document")?;
        if i > 0 && gap == 0 {
            return Err(r.err("removed documents are not strictly ascending"));
        }
        let d = prev
            .checked_add(gap)
            .filter(|&d| d < n as u64)
            .ok_or_else(|| r.err("removed document out of range"))?;
        if labels[d as usize] as u64 != d {
            return Err(r.err("a removed document is in a cluster"));
        }
        out.insert(d as u32);
        prev = d;
    }
    finish(&mut r)?;
    Ok(out)
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
    // Format and version first, so that a manifest of another version is named as such
    // rather than misread or called malformed.
    #[derive(serde::Deserialize)]
    struct Head {
        format: String,
        version: u32,
    }
    let head: Head = serde_json::from_slice(&mbytes)
        .map_err(|e| fmt_err(&mpath, format!("malformed manifest: {e}")))?;
    if head.format != FORMAT {
        return Err(fmt_err(
            &mpath,
            format!("not a fimdup index (format {:?})", head.format),
        ));
    }
    if ![VERSION, VERSION_IMAGES_FILE, VERSION_UNSEGMENTED].contains(&head.version) {
        return Err(fmt_err(
            &mpath,
            format!(
                "index format version {}, this fimdup reads versions {VERSION_UNSEGMENTED}, \
                 {VERSION_IMAGES_FILE} and {VERSION}: use the fimdup that wrote it, or build the index again from \
                 its sweeps' inputs (listed in this manifest) with `fimdup index build` and \
                 `fimdup index add`",
                head.version
            ),
        ));
    }
    let m: Manifest = serde_json::from_slice(&mbytes)
        .map_err(|e| fmt_err(&mpath, format!("malformed manifest: {e}")))?;
    if m.generation != generation {
        return Err(fmt_err(&mpath, "manifest of another generation"));
    }
    if m.version == VERSION_UNSEGMENTED && !m.segments.is_empty() {
        return Err(fmt_err(&mpath, "a version-1 manifest lists segments"));
    }
    Ok((gdir, mpath, m))
}

/// The xxh64 of each [`BLOCK`] of the file `path` to be mapped: its manifest entry's
/// (`deferred`), or when it is listed without them (and was checked whole already) its
/// own.
fn block_sums(path: &Path, mpath: &Path, deferred: Option<&FileEntry>) -> Result<Vec<u64>> {
    Ok(match deferred {
        Some(f) => f
            .blocks
            .iter()
            .map(|h| u64::from_str_radix(h, 16))
            .collect::<std::result::Result<Vec<u64>, _>>()
            .map_err(|_| fmt_err(mpath, format!("bad block checksum of {}", f.name)))?,
        None => file_xxh64(path)?.2,
    })
}

/// Reads `ids.bin` of a segment of `n` documents (already checked), appending its
/// external ids to `ids`.
fn read_ids(p: &Path, n: u32, ids: &mut Ids) -> Result<()> {
    let mut r = Stream::new(crate::io::open_read(p)?, p);
    r.header(MAGIC_IDS, FILE_VERSION, "index segment file")?;
    if r.varint("document count")? != u64::from(n) {
        return Err(r.err("document count differs from the manifest"));
    }
    for _ in 0..n {
        ids.push(&r.string("external id")?);
    }
    finish(&mut r)
}

/// Reads the postings file `path` of a segment of `n` documents: a version-2 file is
/// mapped ([`Postings::map_file`]: its blocks checked now, or with `lazy` the header's now
/// and the others when first read), a version-1 file decoded, streamed; any other version
/// is refused naming both. `deferred` is its manifest entry when only its size has been
/// checked ([`check_files`]). True with the postings when the file is of version 1.
fn read_postings(
    path: &Path,
    mpath: &Path,
    deferred: Option<&FileEntry>,
    magic: &[u8; 8],
    n: u32,
    lazy: bool,
) -> Result<(Postings, bool)> {
    let mut head = [0u8; 12];
    let version = {
        let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        match f.read_exact(&mut head) {
            Ok(()) => Some(u32::from_le_bytes(head[8..].try_into().expect("4 bytes"))),
            Err(_) => None,
        }
    };
    if version == Some(POSTINGS_VERSION) {
        let sums = block_sums(path, mpath, deferred)?;
        return Ok((
            Postings::map_file(path, magic, n, sums, BLOCK as usize, lazy)?,
            false,
        ));
    }
    if let Some(f) = deferred {
        check_file(path, mpath, f)?;
    }
    let mut r = Stream::new(crate::io::open_read(path)?, path);
    if r.take(8, "magic")? != magic {
        return Err(r.err(format!(
            "not a fimdup index file (bad magic; expected {})",
            String::from_utf8_lossy(magic)
        )));
    }
    let v = r.u32("version")?;
    if v != FILE_VERSION {
        return Err(r.err(format!(
            "postings file version {v}, this fimdup reads versions {FILE_VERSION} and \
             {POSTINGS_VERSION}"
        )));
    }
    let p = Postings::decode_v1(&mut r, n)?;
    finish(&mut r)?;
    Ok((p, true))
}

/// An error unless `r` is at the end of its file.
fn finish(r: &mut Stream) -> Result<()> {
    if r.at_eof()? {
        Ok(())
    } else {
        Err(r.err("unexpected trailing bytes"))
    }
}

/// The size, the xxh64 (seed 0) and the xxh64 of each [`BLOCK`] of the file at `path`,
/// read a piece at a time.
fn file_xxh64(path: &Path) -> Result<(u64, u64, Vec<u64>)> {
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut h = BlockHasher::default();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(k) => h.update(&buf[..k]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(path, e)),
        }
    }
    Ok(h.finish())
}

/// The xxh64 (seed 0) of a byte stream and of each of its [`BLOCK`]-byte blocks.
struct BlockHasher {
    whole: Xxh64,
    block: Xxh64,
    in_block: u64,
    bytes: u64,
    blocks: Vec<u64>,
}

impl Default for BlockHasher {
    fn default() -> Self {
        BlockHasher {
            whole: Xxh64::new(0),
            block: Xxh64::new(0),
            in_block: 0,
            bytes: 0,
            blocks: Vec::new(),
        }
    }
}

impl BlockHasher {
    fn update(&mut self, mut b: &[u8]) {
        self.whole.update(b);
        self.bytes += b.len() as u64;
        while !b.is_empty() {
            let k = ((BLOCK - self.in_block) as usize).min(b.len());
            self.block.update(&b[..k]);
            self.in_block += k as u64;
            b = &b[k..];
            if self.in_block == BLOCK {
                self.blocks.push(self.block.digest());
                self.block = Xxh64::new(0);
                self.in_block = 0;
            }
        }
    }

    /// Size, whole checksum, block checksums (the last block may be short).
    fn finish(mut self) -> (u64, u64, Vec<u64>) {
        if self.in_block > 0 {
            self.blocks.push(self.block.digest());
        }
        (self.bytes, self.whole.digest(), self.blocks)
    }
}

/// A writer that counts and hashes (xxh64, seed 0, whole and per block) what goes through
/// it.
struct Hashing<'a> {
    inner: &'a mut AtomicFile,
    hasher: BlockHasher,
}

impl Write for Hashing<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let k = self.inner.write(buf)?;
        self.hasher.update(&buf[..k]);
        Ok(k)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes the file `name` of the directory `fdir` atomically with `body` (given the writer
/// and the file's path), and returns its manifest entry.
fn write_file(
    fdir: &Path,
    name: &str,
    body: impl FnOnce(&mut Hashing<'_>, &Path) -> Result<()>,
) -> Result<FileEntry> {
    let path = fdir.join(name);
    let mut f = AtomicFile::create(&path)?;
    let mut w = Hashing {
        inner: &mut f,
        hasher: BlockHasher::default(),
    };
    body(&mut w, &path)?;
    let (bytes, sum, blocks) = std::mem::take(&mut w.hasher).finish();
    let entry = FileEntry {
        name: name.to_string(),
        bytes,
        xxh64: format!("{sum:016x}"),
        blocks: blocks.iter().map(|b| format!("{b:016x}")).collect(),
    };
    f.commit()?;
    Ok(entry)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// A file of 2.5 blocks, written through [`write_file`] in pieces of random sizes.
    fn big_file(dir: &Path) -> (FileEntry, Vec<u8>) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
        let bytes: Vec<u8> = (0..(5 * BLOCK / 2) as usize).map(|_| rng.gen()).collect();
        let e = write_file(dir, "big.bin", |w, p| {
            let mut rest = &bytes[..];
            while !rest.is_empty() {
                let k = rng.gen_range(1..=rest.len().min(300_000));
                w.write_all(&rest[..k]).map_err(|e| Error::io(p, e))?;
                rest = &rest[k..];
            }
            Ok(())
        })
        .unwrap();
        (e, bytes)
    }

    #[test]
    fn block_checksums_are_those_of_the_slices() {
        let dir = tempfile::tempdir().unwrap();
        let (e, bytes) = big_file(dir.path());
        assert_eq!(e.bytes, bytes.len() as u64);
        assert_eq!(e.xxh64, format!("{:016x}", xxh64(&bytes, 0)));
        let want: Vec<String> = bytes
            .chunks(BLOCK as usize)
            .map(|b| format!("{:016x}", xxh64(b, 0)))
            .collect();
        assert_eq!(want.len(), 3);
        assert_eq!(e.blocks, want);
        let m = dir.path().join("manifest.json");
        assert!(check_files(dir.path(), &m, std::slice::from_ref(&e)).is_ok());
    }

    #[test]
    fn damage_is_named_by_its_block_or_where_the_file_ends() {
        let dir = tempfile::tempdir().unwrap();
        let (e, bytes) = big_file(dir.path());
        let p = dir.path().join("big.bin");
        let m = dir.path().join("manifest.json");
        let check = |b: &[u8]| {
            std::fs::write(&p, b).unwrap();
            check_files(dir.path(), &m, std::slice::from_ref(&e))
                .unwrap_err()
                .to_string()
        };
        let cases: Vec<(Vec<u8>, String)> = vec![
            {
                let mut b = bytes.clone();
                b[(3 * BLOCK / 2) as usize] ^= 1;
                (
                    b,
                    format!("checksum mismatch in bytes {}..{}", BLOCK, 2 * BLOCK),
                )
            },
            {
                let mut b = bytes.clone();
                *b.last_mut().unwrap() ^= 0x80;
                (
                    b,
                    format!("checksum mismatch in bytes {}..{}", 2 * BLOCK, bytes.len()),
                )
            },
            (
                bytes[..1_258_291].to_vec(),
                "at byte 1258291: cut short".into(),
            ),
            {
                // a flip before the cut is named first
                let mut b = bytes[..1_258_291].to_vec();
                b[10] ^= 2;
                (b, format!("checksum mismatch in bytes 0..{BLOCK}"))
            },
            {
                let mut b = bytes.clone();
                b.push(0);
                (b, format!("at byte {}: longer than listed", bytes.len()))
            },
        ];
        for (b, want) in cases {
            let got = check(&b);
            assert!(got.contains(&want), "{got} lacks {want}");
            assert!(got.contains("big.bin"), "{got}");
        }
    }

    fn two_sweeps(scheme: crate::sketch::Scheme, containment: bool) -> Index {
        use crate::index::{CorpusSpec, NewDoc};
        let p = crate::sketch::pipeline::PipelineConfig {
            shingle: crate::shingle::ShingleConfig::new(3, 1, 1).unwrap(),
            sketch: crate::sketch::SketchConfig {
                scheme,
                size: 16,
                ..crate::sketch::SketchConfig::default()
            },
            ..crate::sketch::pipeline::PipelineConfig::default()
        };
        let cfg = IndexConfig {
            containment,
            ..IndexConfig::default()
        };
        let mut idx = Index::new(&p, cfg).unwrap();
        let qs = idx.query_sketcher().unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let bases: Vec<Vec<String>> = (0..6)
            .map(|_| {
                (0..40)
                    .map(|_| format!("w{}", rng.gen_range(0..300)))
                    .collect()
            })
            .collect();
        for sweep in 0..2 {
            let docs: Vec<NewDoc> = (0..50)
                .map(|i| {
                    let mut w = bases[i % 6].clone();
                    for _ in 0..rng.gen_range(0..12) {
                        let k = rng.gen_range(0..w.len());
                        w[k] = format!("z{}", rng.gen_range(0..1000));
                    }
                    let (_, image, containment) = qs.sketch_text(&w.join(" "));
                    NewDoc {
                        ext_id: format!("s{sweep}d{i}"),
                        image,
                        containment,
                    }
                })
                .collect();
            let tag = format!("t{sweep}");
            idx.add_documents(docs, Some(&tag), "mem", CorpusSpec::default())
                .unwrap();
        }
        idx
    }

    /// Rewrites a postings file of the index at `dir` (segment `seg`) as `bytes`, with its
    /// manifest entry, the manifest and CURRENT to match.
    fn forge(dir: &Path, seg: usize, name: &str, bytes: &[u8]) {
        let (gdir, _, mut m) = read_manifest(dir).unwrap();
        let e = &mut m.segments[seg];
        std::fs::write(dir.join(&e.name).join(name), bytes).unwrap();
        let f = e.files.iter_mut().find(|f| f.name == name).unwrap();
        f.bytes = bytes.len() as u64;
        f.xxh64 = format!("{:016x}", xxh64(bytes, 0));
        f.blocks = bytes
            .chunks(BLOCK as usize)
            .map(|b| format!("{:016x}", xxh64(b, 0)))
            .collect();
        let mb = serde_json::to_vec_pretty(&m).unwrap();
        std::fs::write(gdir.join("manifest.json"), &mb).unwrap();
        let g = gdir.file_name().unwrap().to_str().unwrap().to_string();
        std::fs::write(dir.join(CURRENT), format!("{g} {:016x}\n", xxh64(&mb, 0))).unwrap();
    }

    /// Every document's image as a query, resemblance and (when kept) containment.
    fn answers(idx: &Index) -> Vec<Vec<crate::index::Hit>> {
        use crate::index::{Measure, QueryOptions};
        let mut out = Vec::new();
        for d in 0..idx.len() as u32 {
            let qc = idx
                .cont_params
                .is_some()
                .then(|| idx.cont_images.get(d).unwrap().into_owned());
            let q = idx.images.get(d).unwrap();
            let mut measures = vec![Measure::Resemblance];
            if idx.cont_params.is_some() {
                measures.push(Measure::Containment);
            }
            for measure in measures {
                let opts = QueryOptions {
                    threshold: 0.3,
                    measure,
                    ..QueryOptions::default()
                };
                out.push(idx.query_image(&q, qc.as_ref(), &opts).unwrap());
            }
        }
        out
    }

    #[test]
    fn version_1_postings_are_read_and_a_merge_rewrites_them() {
        use crate::sketch::Scheme;
        for (scheme, containment) in [(Scheme::BottomK, true), (Scheme::OnePermutation, false)] {
            let dir = tempfile::tempdir().unwrap();
            let idx = two_sweeps(scheme, containment);
            assert_eq!(idx.segment_count(), 2);
            idx.save(dir.path()).unwrap();
            let want = answers(&idx);
            assert!(want.iter().filter(|h| h.len() > 1).count() > 20);
            // The current files: mapped, the same answers.
            let fresh = Index::open(dir.path()).unwrap();
            assert!(fresh
                .segments
                .iter()
                .all(|s| s.context.is_mapped() && !s.old_format));
            assert_eq!(answers(&fresh), want);
            // Every postings file rewritten in version 1.
            for (i, s) in idx.segments.iter().enumerate() {
                let mut tables = vec![("context.bin", &s.context, MAGIC_CONTEXT)];
                if containment {
                    tables.push(("containment-context.bin", &s.cont_context, MAGIC_CONTEXT));
                }
                if idx.bands.is_some() {
                    tables.push(("bands.bin", &s.band_table, MAGIC_BANDS));
                }
                for (name, p, magic) in tables {
                    let mut b = Vec::new();
                    put_header(&mut b, magic, FILE_VERSION);
                    p.encode_v1(&mut b);
                    forge(dir.path(), i, name, &b);
                }
            }
            for lazy in [false, true] {
                let old = Index::open_checked(dir.path(), lazy).unwrap();
                assert!(old
                    .segments
                    .iter()
                    .all(|s| !s.context.is_mapped() && s.old_format));
                assert_eq!(answers(&old), want, "{scheme} lazy {lazy}");
            }
            // A merge writes them in the current version (one segment alone too).
            for round in 0..2 {
                let (mut w, lock) = Index::open_for_write(dir.path(), Duration::ZERO).unwrap();
                let rep = w.merge_all().unwrap();
                assert_eq!(rep.segments_after, 1);
                assert_eq!(rep.documents_rewritten > 0, round == 0);
                w.save_locked(&lock).unwrap();
                drop(lock);
                let back = Index::open(dir.path()).unwrap();
                assert!(back.segments.iter().all(|s| !s.old_format));
                assert!(back.segments[0].context.is_mapped() || cfg!(target_endian = "big"));
                let (_, _, m) = read_manifest(dir.path()).unwrap();
                let p = dir.path().join(&m.segments[0].name).join("context.bin");
                let head = std::fs::read(&p).unwrap();
                assert_eq!(head[8..12], POSTINGS_VERSION.to_le_bytes());
                assert_eq!(answers(&back), want);
            }
        }
    }

    #[test]
    fn an_unknown_postings_version_is_refused_naming_both() {
        let dir = tempfile::tempdir().unwrap();
        let idx = two_sweeps(crate::sketch::Scheme::BottomK, false);
        idx.save(dir.path()).unwrap();
        let (_, _, m) = read_manifest(dir.path()).unwrap();
        let p = dir.path().join(&m.segments[1].name).join("context.bin");
        let mut b = std::fs::read(&p).unwrap();
        b[8..12].copy_from_slice(&7u32.to_le_bytes());
        forge(dir.path(), 1, "context.bin", &b);
        for lazy in [false, true] {
            let e = Index::open_checked(dir.path(), lazy)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("version 7")
                    && e.contains("versions 1 and 2")
                    && e.contains("context.bin"),
                "{e}"
            );
        }
    }
}
