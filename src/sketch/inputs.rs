//! Images files as stage inputs and outputs at scale: [`ImageFileSink`] writes the images of
//! [`super::pipeline::sketch_stream`] to a version-3 file as they come
//! (optionally only one [`Shard`] of the corpus), [`sketch_to_file`] runs the two together,
//! and [`ImageInputs`] reads several images files (shards of one corpus, or whole files
//! concatenated) as one DocId space.
//!
//! Invariants of [`ImageInputs`]: every file was made with the same parameters
//! ([`SketchParams::ensure_compatible`]); DocIds never collide: unsharded files (`0/1`,
//! including version-1 files) are concatenated in the order given (the documents of the
//! second file follow those of the first), and sharded files must be exactly the shards
//! `0/N .. N-1/N` of one run, each holding as many documents as its part of the corpus, so
//! that together they give every document the DocId it has in one unsharded file; external
//! ids are unique over all the files (a repeated one is an error naming both places).

use std::path::{Path, PathBuf};

use super::file::{ImageReader, ImageWriter, Shard};
use super::pipeline::{
    sketch_stream, Collect, PipelineConfig, Prints, SketchBatch, SketchOutput, SketchSink,
    SketchStats,
};
use super::{Image, ImageSet, SketchParams};
use crate::corpus::{DuplicateIds, IdCheck, IdTableWriter};
use crate::{DocId, Error, Result};

/// A [`SketchSink`] that writes the documents of one shard (default: all) to a version-3
/// images file and, optionally, the `(DocId, external id)` table beside it. Both appear
/// on [`ImageFileSink::finish`] or not at all.
pub struct ImageFileSink {
    path: PathBuf,
    shard: Shard,
    ids_path: Option<PathBuf>,
    writer: Option<ImageWriter>,
    ids: Option<IdTableWriter>,
}

impl ImageFileSink {
    /// Writes `shard` of the corpus to `path`.
    pub fn new(path: impl AsRef<Path>, shard: Shard) -> Self {
        ImageFileSink {
            path: path.as_ref().to_path_buf(),
            shard,
            ids_path: None,
            writer: None,
            ids: None,
        }
    }

    /// Also writes the id table to `path`.
    pub fn with_id_table(mut self, path: impl AsRef<Path>) -> Self {
        self.ids_path = Some(path.as_ref().to_path_buf());
        self
    }

    /// Completes the files; returns the number of documents written.
    pub fn finish(self) -> Result<u64> {
        let w = self.writer.ok_or_else(|| {
            Error::config(format!(
                "{}: no images were produced (the sketch did not start)",
                self.path.display()
            ))
        })?;
        let n = w.finish()?;
        if let Some(ids) = self.ids {
            ids.commit()?;
        }
        Ok(n)
    }
}

impl SketchSink for ImageFileSink {
    fn begin(&mut self, params: &SketchParams) -> Result<()> {
        self.writer = Some(ImageWriter::create(&self.path, params, self.shard)?);
        if let Some(p) = &self.ids_path {
            self.ids = Some(IdTableWriter::create(p)?);
        }
        Ok(())
    }

    fn batch(&mut self, b: SketchBatch) -> Result<()> {
        let w = self
            .writer
            .as_mut()
            .ok_or_else(|| Error::config("SketchSink::batch called before begin"))?;
        for (i, (id, img)) in b.ext_ids.iter().zip(&b.images).enumerate() {
            let g = u64::from(b.first) + i as u64;
            if self.shard.holds(g) {
                w.push(id, img)?;
                if let Some(ids) = &mut self.ids {
                    ids.push(DocId(g as u32), id)?;
                }
            }
        }
        Ok(())
    }
}

/// Sketches the corpus at `input` into the images file `out` (version 3, streamed: the
/// images are never all in memory) with its id table `out.ids.tsv`, keeping only `shard`
/// of the corpus. Returns the pipeline's counts (over the whole corpus) and the number of
/// documents written.
pub fn sketch_to_file(
    input: &Path,
    cfg: &PipelineConfig,
    out: &Path,
    shard: Shard,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(SketchStats, u64)> {
    sketch_to_file_by(out, shard, &mut |sink| {
        sketch_stream(input, cfg, progress, sink)
    })
}

/// [`sketch_to_file`] from any stream of sketched batches (`stream` feeds a sink, as
/// [`sketch_stream`] does; a distributed run feeds it from every process).
pub fn sketch_to_file_by(
    out: &Path,
    shard: Shard,
    stream: &mut dyn FnMut(&mut dyn SketchSink) -> Result<SketchStats>,
) -> Result<(SketchStats, u64)> {
    let mut sink = ImageFileSink::new(out, shard).with_id_table(crate::corpus::id_table_path(out));
    let stats = stream(&mut sink)?;
    let n = sink.finish()?;
    Ok((stats, n))
}

/// An [`ImageFileSink`] that also keeps the documents' fingerprints and offsets.
struct FileAndPrints {
    file: ImageFileSink,
    prints: Prints,
}

impl SketchSink for FileAndPrints {
    fn begin(&mut self, params: &SketchParams) -> Result<()> {
        self.file.begin(params)
    }

    fn batch(&mut self, mut b: SketchBatch) -> Result<()> {
        self.prints.add(&mut b);
        self.file.batch(b)
    }
}

/// Sketches the corpus at `input` into the images file `out` (no id table, every
/// document), keeping in memory only the documents' fingerprints and byte offsets
/// ([`Prints`]): how a run under a memory budget holds a corpus it reads again from the
/// file. Returns the pipeline's counts, the prints and the number of documents.
pub fn sketch_to_file_keeping_prints(
    input: &Path,
    cfg: &PipelineConfig,
    out: &Path,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(SketchStats, Prints, u64)> {
    sketch_to_file_keeping_prints_by(out, &mut |sink| sketch_stream(input, cfg, progress, sink))
}

/// [`sketch_to_file_keeping_prints`] from any stream of sketched batches.
pub fn sketch_to_file_keeping_prints_by(
    out: &Path,
    stream: &mut dyn FnMut(&mut dyn SketchSink) -> Result<SketchStats>,
) -> Result<(SketchStats, Prints, u64)> {
    let mut sink = FileAndPrints {
        file: ImageFileSink::new(out, Shard::default()),
        prints: Prints::new(),
    };
    let stats = stream(&mut sink)?;
    let n = sink.file.finish()?;
    Ok((stats, sink.prints, n))
}

/// What [`sketch_held_or_to_file_by`] made of a stream.
pub enum HeldOrFile {
    /// Every image in memory, as [`super::pipeline::sketch_corpus_by`] gives them.
    Held(SketchOutput),
    /// The images in the file, as [`sketch_to_file_keeping_prints_by`] gives them: the
    /// pipeline's counts, the prints and the number of documents.
    File(SketchStats, Prints, u64),
}

pub use crate::plan::held_image_bytes;

/// Keeps the images of the stream in memory while `fits(documents, bytes)` holds for the
/// documents so far and their images' bytes ([`held_image_bytes`] each), as
/// [`super::pipeline::sketch_corpus_by`] does; past that,
/// writes what it holds to the images file `out` and streams the rest there, keeping only
/// the prints, as [`sketch_to_file_keeping_prints_by`] does. The images, ids, fingerprints
/// and offsets are the same either way: a run under a budget the corpus fits in skips the
/// file.
pub fn sketch_held_or_to_file_by(
    out: &Path,
    fits: &dyn Fn(u64, u64) -> bool,
    stream: &mut dyn FnMut(&mut dyn SketchSink) -> Result<SketchStats>,
) -> Result<HeldOrFile> {
    let mut sink = HoldThenFile {
        out,
        holding: Holding::new(fits),
        file: None,
    };
    let stats = stream(&mut sink)?;
    match sink.file {
        Some(f) => {
            let n = f.file.finish()?;
            Ok(HeldOrFile::File(stats, f.prints, n))
        }
        None => Ok(HeldOrFile::Held(sink.holding.memory.into_output(stats)?)),
    }
}

/// The images of a stream held in memory while `fits(documents, bytes)` holds for the
/// documents so far and their images' bytes ([`held_image_bytes`] each): the first part of
/// the sink of [`sketch_held_or_to_file_by`] and of the context-only methods' sink
/// (`cluster::held_keys`), which move what is held elsewhere once it is past the limit.
pub(crate) struct Holding<'a> {
    fits: &'a dyn Fn(u64, u64) -> bool,
    held: u64,
    /// What is held.
    pub(crate) memory: Collect,
}

impl<'a> Holding<'a> {
    /// Nothing held yet.
    pub(crate) fn new(fits: &'a dyn Fn(u64, u64) -> bool) -> Self {
        Holding {
            fits,
            held: 0,
            memory: Collect::new(),
        }
    }

    /// Holds `b`; false once what is held is past the limit.
    pub(crate) fn hold(&mut self, b: SketchBatch) -> Result<bool> {
        let positional = self.memory.begun()?.sketch.scheme.is_positional();
        self.held += (b.images.iter())
            .map(|i| held_image_bytes(i.len(), positional))
            .sum::<u64>();
        self.memory.batch(b)?;
        Ok((self.fits)(self.memory.images.len() as u64, self.held))
    }
}

/// The sink of [`sketch_held_or_to_file_by`]: what it holds until it is past the limit,
/// then the file.
struct HoldThenFile<'a> {
    out: &'a Path,
    holding: Holding<'a>,
    file: Option<FileAndPrints>,
}

impl SketchSink for HoldThenFile<'_> {
    fn begin(&mut self, params: &SketchParams) -> Result<()> {
        self.holding.memory.begin(params)
    }

    fn batch(&mut self, b: SketchBatch) -> Result<()> {
        if let Some(f) = &mut self.file {
            return f.batch(b);
        }
        if !self.holding.hold(b)? {
            let m = &mut self.holding.memory;
            // Past the limit: what is held goes to the file, and so does the rest.
            let mut file = ImageFileSink::new(self.out, Shard::default());
            file.begin(m.begun()?)?;
            file.batch(SketchBatch {
                first: 0,
                ext_ids: std::mem::take(&mut m.ext_ids),
                images: std::mem::take(&mut m.images),
                ..SketchBatch::default()
            })?;
            self.file = Some(FileAndPrints {
                file,
                prints: std::mem::replace(&mut m.prints, Prints::new()),
            });
        }
        Ok(())
    }
}

/// Several images files read as one DocId space (see the module invariants).
pub struct ImageInputs {
    readers: Vec<ImageReader>,
    params: SketchParams,
    sharded: Option<u32>,
}

impl ImageInputs {
    /// Opens every file and checks parameters and shard layout.
    pub fn open<P: AsRef<Path>>(paths: &[P]) -> Result<Self> {
        let Some(first) = paths.first() else {
            return Err(Error::config("no images file given"));
        };
        let first = ImageReader::open(first)?;
        let params = first.params().clone();
        let mut readers = vec![first];
        for p in &paths[1..] {
            let r = ImageReader::open(p)?;
            params.ensure_compatible(r.params(), r.path())?;
            readers.push(r);
        }
        let counts: Vec<u32> = readers.iter().map(|r| r.shard().count).collect();
        let sharded = if counts.iter().all(|&c| c == 1) {
            None
        } else {
            let n = counts.iter().copied().max().unwrap_or(1);
            if let Some(r) = readers.iter().find(|r| r.shard().count != n) {
                return Err(Error::format(
                    r.path(),
                    format!(
                        "is shard {} but another input is a shard of {n}: give the {n} shards of one run",
                        r.shard()
                    ),
                ));
            }
            let mut seen: Vec<Option<&Path>> = vec![None; n as usize];
            for r in &readers {
                let i = r.shard().index as usize;
                if let Some(other) = seen[i] {
                    return Err(Error::format(
                        r.path(),
                        format!(
                            "is shard {} like {}: their DocIds would collide",
                            r.shard(),
                            other.display()
                        ),
                    ));
                }
                seen[i] = Some(r.path());
            }
            if let Some(i) = seen.iter().position(Option::is_none) {
                return Err(Error::format(
                    readers[0].path(),
                    format!("shard {i}/{n} is missing: give every shard of the run"),
                ));
            }
            Some(n)
        };
        Ok(ImageInputs {
            readers,
            params,
            sharded,
        })
    }

    /// The parameters of every image.
    pub fn params(&self) -> &SketchParams {
        &self.params
    }

    /// Hands every document to `f` as (DocId, external id, image), file by file; returns
    /// the number of documents. Fails (naming the file) on a damaged file, on shards whose
    /// sizes do not fit one corpus, or on an external id seen before (naming the file and
    /// 1-based document number of both); `f` may then have seen part of the documents.
    pub fn for_each(self, f: impl FnMut(DocId, String, Image) -> Result<()>) -> Result<u64> {
        self.scan(true, f)
    }

    /// [`Self::for_each`] without the duplicate-id check (and its table of id hashes): for
    /// a later scan of files that one [`Self::for_each`] has read already.
    pub fn for_each_again(self, f: impl FnMut(DocId, String, Image) -> Result<()>) -> Result<u64> {
        self.scan(false, f)
    }

    fn scan(
        self,
        check_ids: bool,
        mut f: impl FnMut(DocId, String, Image) -> Result<()>,
    ) -> Result<u64> {
        let mut offset = 0u64;
        let mut counts = Vec::with_capacity(self.readers.len());
        let mut readers = self.readers;
        let paths: Vec<PathBuf> = readers.iter().map(|r| r.path().to_path_buf()).collect();
        let mut check = IdCheck::new(if check_ids {
            DuplicateIds::Error
        } else {
            DuplicateIds::Keep
        });
        for r in &mut readers {
            let mut nth = 0u64;
            while let Some((d, mut id, img)) = r.next_doc()? {
                nth += 1;
                if let Err(dup) = check.check(&mut id) {
                    let first = first_in_images(&paths, &dup.id).map_or_else(
                        || "first seen earlier".to_string(),
                        |(p, n)| format!("first seen at {} document {n}", p.display()),
                    );
                    return Err(Error::format(
                        r.path(),
                        format!("document {nth}: duplicate id {:?} ({first})", dup.id),
                    ));
                }
                let d = if self.sharded.is_some() {
                    d
                } else {
                    let g = offset + u64::from(d.0);
                    DocId(u32::try_from(g).map_err(|_| {
                        Error::format(r.path(), "more than u32::MAX documents in all inputs")
                    })?)
                };
                f(d, id, img)?;
            }
            offset += r.count();
            counts.push(r.count());
        }
        if self.sharded.is_some() {
            for (r, &c) in readers.iter().zip(&counts) {
                let want = r.shard().len_of(offset);
                if c != want {
                    return Err(Error::format(
                        r.path(),
                        format!(
                            "shard {} holds {c} documents, but shard {} of a corpus of {offset} holds {want}: the shards are not from one run",
                            r.shard(),
                            r.shard()
                        ),
                    ));
                }
            }
        }
        Ok(offset)
    }

    /// The files.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.readers
            .iter()
            .map(|r| r.path().to_path_buf())
            .collect()
    }

    /// Number of documents the files declare (see [`ImageReader::declared_count`]), when
    /// every file declares it.
    pub fn declared_count(&self) -> Option<u64> {
        self.readers.iter().map(|r| r.declared_count()).sum()
    }

    /// Reads every document into one [`ImageSet`] in DocId order (see [`Self::for_each`]).
    pub fn read_all(self) -> Result<ImageSet> {
        let params = self.params.clone();
        let mut docs: Vec<(DocId, String, Image)> = Vec::new();
        self.for_each(|d, id, img| {
            docs.push((d, id, img));
            Ok(())
        })?;
        docs.sort_unstable_by_key(|x| x.0);
        let (ext_ids, images) = docs.into_iter().map(|(_, id, img)| (id, img)).unzip();
        Ok(ImageSet {
            params,
            ext_ids,
            images,
        })
    }
}

/// The file and 1-based document number where `id` first occurs in the images files
/// `paths` (read again: for the message of a duplicate).
fn first_in_images(paths: &[PathBuf], id: &str) -> Option<(PathBuf, u64)> {
    for p in paths {
        let mut r = ImageReader::open(p).ok()?;
        let mut nth = 0u64;
        while let Ok(Some((_, got, _))) = r.next_doc() {
            nth += 1;
            if got == id {
                return Some((p.clone(), nth));
            }
        }
    }
    None
}
