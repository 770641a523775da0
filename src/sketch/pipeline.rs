//! The first half of the pipeline in one call: read a corpus, canonicalize, shingle and
//! sketch every document, streaming in parallel batches.
//!
//! Invariants: documents keep their input order (DocId `i` is the `i`-th document read);
//! results are identical for any number of threads (blocks are mapped in parallel by
//! [`crate::corpus::par`] and delivered in order); the raw corpus is never held whole (only
//! the blocks in flight), except that a tf-idf weighting reads the corpus twice (a first
//! pass for document frequencies). [`sketch_stream_reference`] keeps the earlier sequential
//! pipeline as the reference the fused one is tested against.

use std::path::Path;

use rayon::prelude::*;

use super::{
    DocFreq, Image, ImageSet, Scratch, SketchConfig, SketchParams, Sketcher, TextParams, Weighting,
};
use crate::corpus::par::{
    par_map_corpus_share, par_map_corpus_wanted, par_map_corpus_with, Block, LineDocReader,
    ParOptions, RawDoc,
};
use crate::corpus::split::Split;
use crate::corpus::{self, CorpusConfig, CorpusStats, Document};
use crate::shingle::{shingle_hashes_from_tokens, token_hash, ShingleConfig};
use crate::text::{self, Canonical, Canonicalizer, StopWords, TextConfig};
use crate::{DocId, Error, Result};

/// Everything that turns a corpus into images.
#[derive(Clone, Debug, Default)]
pub struct PipelineConfig {
    /// How the corpus is read.
    pub corpus: CorpusConfig,
    /// How text becomes canonical tokens.
    pub text: TextConfig,
    /// Shingle length, offset and hash seed.
    pub shingle: ShingleConfig,
    /// The image scheme.
    pub sketch: SketchConfig,
}

impl PipelineConfig {
    /// Validates every part.
    pub fn validate(&self) -> Result<()> {
        self.corpus.validate()?;
        self.text.validate()?;
        self.shingle.validate()?;
        self.sketch.validate()
    }

    /// The text options as they are recorded in an images file header.
    pub fn text_params(&self) -> TextParams {
        text_params(&self.text)
    }
}

/// The text options as recorded in an images file header: stop words are named by their
/// language (`english`, `german`) when they are the built-in list of English or of the
/// configuration's language, else by a stable hash of the sorted list.
pub fn text_params(cfg: &TextConfig) -> TextParams {
    let stopwords = cfg.stopwords.as_ref().map(|s| {
        let named = [crate::text::Lang::ENGLISH, cfg.lang]
            .into_iter()
            .find(|l| StopWords::builtin(*l).is_ok_and(|b| &b == s));
        if let Some(l) = named {
            l.name().to_string()
        } else {
            let joined = s.sorted().join("\n");
            format!(
                "xxh3:{:016x}",
                xxhash_rust::xxh3::xxh3_64(joined.as_bytes())
            )
        }
    });
    TextParams {
        unit: cfg.unit,
        html: cfg.html,
        lowercase: cfg.lowercase,
        tokenizer: cfg.tokenizer,
        normalization: cfg.normalization,
        stopwords,
        stem: cfg.stem,
        lang: cfg.lang,
    }
}

/// Counts gathered while sketching a corpus.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SketchStats {
    /// What the corpus reader counted (documents, lossy UTF-8, empty, bytes, skipped lines).
    pub corpus: CorpusStats,
    /// Tokens over all documents.
    pub tokens: u64,
    /// Documents with at least one token but fewer than the shingle length (empty image).
    pub short: u64,
    /// Documents whose image is empty (no shingle at all).
    pub empty_images: u64,
}

/// Per-document fingerprints for collapsing identical and lexically-equivalent documents
/// (B97 5.2); `raw[d]` and `canonical[d]` belong to DocId `d`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fingerprints {
    /// Of the raw text (identical documents).
    pub raw: Vec<u64>,
    /// Of the canonical token sequence (lexically-equivalent documents).
    pub canonical: Vec<u64>,
}

/// What [`sketch_corpus`] returns.
#[derive(Clone, Debug)]
pub struct SketchOutput {
    /// The images, with the external ids and every parameter.
    pub images: ImageSet,
    /// Raw and canonical fingerprints per document.
    pub fingerprints: Fingerprints,
    /// Counts.
    pub stats: SketchStats,
    /// The byte offset of every document's line in the corpus file (`offsets[d]` for DocId
    /// `d`), when the corpus is a seekable line-format file: a later pass can read single
    /// documents with [`crate::corpus::par::LineDocReader`] (see [`shingle_sets_at`]).
    pub offsets: Option<Vec<u64>>,
}

/// Full shingle sets F(D) (sorted distinct hashes) of some documents, in ascending DocId
/// order.
pub type DocSets = Vec<(DocId, Vec<u64>)>;

/// Documents read per parallel batch.
pub const BATCH: usize = 4096;

/// Streams the corpus at `path` through canonicalization in parallel batches, calling `f`
/// on each batch of (document, canonical form) in input order. `progress` is called with
/// the number of documents done so far after each batch. A corpus in object storage is
/// staged whole first, as for [`sketch_stream`].
pub fn for_each_canonical_batch(
    path: &Path,
    corpus_cfg: &CorpusConfig,
    canon: &Canonicalizer,
    progress: &(dyn Fn(u64) + Sync),
    mut f: impl FnMut(&[Document], Vec<Canonical>) -> Result<()>,
) -> Result<CorpusStats> {
    corpus::remote::with_staged(path, corpus_cfg, None, |path| {
        canonical_batches(path, corpus_cfg, canon, progress, &mut f)
    })
}

/// [`for_each_canonical_batch`] over a corpus on disk.
fn canonical_batches(
    path: &Path,
    corpus_cfg: &CorpusConfig,
    canon: &Canonicalizer,
    progress: &(dyn Fn(u64) + Sync),
    f: &mut impl FnMut(&[Document], Vec<Canonical>) -> Result<()>,
) -> Result<CorpusStats> {
    let mut reader = corpus::open(path, corpus_cfg)?;
    let mut batch = Vec::with_capacity(BATCH);
    let mut done = 0u64;
    while reader.fill_batch(&mut batch, BATCH)? > 0 {
        let canon_docs: Vec<Canonical> = batch
            .par_iter()
            .map_init(text::Scratch::default, |s, d| {
                let mut c = Canonical::default();
                canon.canonicalize_into(&d.text, s, &mut c);
                c
            })
            .collect();
        f(&batch, canon_docs)?;
        done += batch.len() as u64;
        progress(done);
    }
    Ok(reader.stats())
}

/// One batch of sketched documents, in input order, as [`sketch_stream`] delivers it.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SketchBatch {
    /// DocId of the first document of the batch (the others follow densely).
    pub first: u32,
    /// External ids.
    pub ext_ids: Vec<String>,
    /// Images.
    pub images: Vec<Image>,
    /// Fingerprints of the raw text.
    pub raw_fingerprints: Vec<u64>,
    /// Fingerprints of the canonical token sequence.
    pub canonical_fingerprints: Vec<u64>,
    /// Byte offsets of the documents' lines in the corpus file, one per document, or empty
    /// when the input has none ([`crate::corpus::par::RawDoc::offset`]).
    pub offsets: Vec<u64>,
    /// The reader's block this batch is ([`crate::corpus::par::Block::seq`]).
    pub seq: u64,
    /// With [`sketch_share`] on a line format: the 1-based line of every document, whose
    /// ids are still to be checked ([`crate::corpus::par::ShareIds`]); else empty.
    pub lines: Vec<u64>,
}

/// Where [`sketch_stream`] delivers its output: first the parameters (known before any
/// document is sketched, so a file header can be written), then the batches in input order.
pub trait SketchSink {
    /// Called once, before any batch.
    fn begin(&mut self, params: &SketchParams) -> Result<()>;
    /// Called once per batch, in input order.
    fn batch(&mut self, batch: SketchBatch) -> Result<()>;
}

/// Per-worker buffers of the fused pipeline.
#[derive(Default)]
struct Worker {
    text: text::Scratch,
    sketch: Scratch,
    tokens: Vec<u64>,
    fingerprint: Vec<u8>,
}

impl Worker {
    /// Canonicalizes `raw` token by token: the token hashes (shingle seed `seed`) into
    /// `self.tokens`, and, if `fp`, the fingerprint encoding into `self.fingerprint`.
    fn tokens(&mut self, canon: &Canonicalizer, seed: u64, raw: &str, fp: bool) {
        let Worker {
            text: ts,
            tokens,
            fingerprint,
            ..
        } = self;
        tokens.clear();
        fingerprint.clear();
        if fp {
            canon.for_each_token(raw, ts, |t| {
                tokens.push(token_hash(t, seed));
                text::push_fingerprint_token(fingerprint, t);
            });
        } else {
            canon.for_each_token(raw, ts, |t| tokens.push(token_hash(t, seed)));
        }
    }

    /// The full shingle set F(D) of `raw` (sorted distinct shingle hashes).
    fn shingle_set(
        &mut self,
        canon: &Canonicalizer,
        shingle: &ShingleConfig,
        raw: &str,
    ) -> Vec<u64> {
        self.tokens(canon, shingle.seed, raw, false);
        let mut v = Vec::with_capacity(shingle.count(self.tokens.len()));
        shingle_hashes_from_tokens(&self.tokens, shingle, &mut v);
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// What a worker makes of one document.
struct DocOut {
    image: Image,
    raw_fingerprint: u64,
    canonical_fingerprint: u64,
    tokens: u64,
    offset: Option<u64>,
}

/// Reads, canonicalizes and sketches the corpus at `path`, handing the images to `sink`
/// batch by batch without holding them all (the streaming form of [`sketch_corpus`]).
///
/// Reading, parsing, canonicalization, shingling and sketching overlap: the corpus is read
/// by the parallel reader ([`crate::corpus::par`]), each worker turns the documents of a
/// block into images (tokens hashed as they are found, no canonical text or shingle string
/// built on the ASCII fast path), and the batches reach `sink` in input order on the calling
/// thread, so the output is the same for any number of threads. A corpus in object storage
/// (`s3://`, `gs://`) is staged whole first, under the system's temporary directory
/// (`TMPDIR`), and read as files on disk ([`corpus::remote::with_staged`]).
pub fn sketch_stream(
    path: &Path,
    cfg: &PipelineConfig,
    progress: &(dyn Fn(u64) + Sync),
    sink: &mut dyn SketchSink,
) -> Result<SketchStats> {
    corpus::remote::with_staged(path, &cfg.corpus, None, |path| {
        let sketcher = pipeline_sketcher(path, cfg)?;
        sink.begin(&sketcher.params(cfg.text_params()))?;
        sketch_blocks(path, cfg, &sketcher, None, progress, &mut |b| sink.batch(b))
    })
}

/// The sketcher a pipeline uses on `path` (for a tf-idf weighting, after a first pass over
/// the corpus for the document frequencies).
pub fn pipeline_sketcher(path: &Path, cfg: &PipelineConfig) -> Result<Sketcher> {
    cfg.validate()?;
    if matches!(cfg.sketch.weighting, Some(Weighting::TfIdf { .. })) {
        let canon = Canonicalizer::new(cfg.text.clone())?;
        let mut df = DocFreq::new();
        par_map_corpus_with(
            path,
            &cfg.corpus,
            Worker::default,
            |w, d| Ok(w.shingle_set(&canon, &cfg.shingle, &d.text)),
            |b| {
                for set in &b.items {
                    df.add_set(set);
                }
                Ok(())
            },
        )?;
        Sketcher::with_doc_freq(cfg.shingle, cfg.sketch, df)
    } else {
        Sketcher::new(cfg.shingle, cfg.sketch)
    }
}

/// One worker's share of [`sketch_stream`] ([`crate::corpus::par::par_map_corpus_share`]):
/// only the blocks of its `split` are sketched, and each reaches `emit` (in input order,
/// empty blocks included) with its [`SketchBatch::seq`] and, for line formats, the
/// [`SketchBatch::lines`] of its documents. The batches of all workers, in input order and
/// with their ids checked in that order, are what [`sketch_stream`] delivers; the counts
/// of all workers sum to its counts.
pub fn sketch_share(
    path: &Path,
    cfg: &PipelineConfig,
    sketcher: &Sketcher,
    share: Split,
    emit: &mut dyn FnMut(SketchBatch) -> Result<()>,
) -> Result<SketchStats> {
    sketch_blocks(path, cfg, sketcher, Some(share), &|_| {}, emit)
}

/// The fused pipeline of [`sketch_stream`] and [`sketch_share`].
fn sketch_blocks(
    path: &Path,
    cfg: &PipelineConfig,
    sketcher: &Sketcher,
    share: Option<Split>,
    progress: &(dyn Fn(u64) + Sync),
    emit: &mut dyn FnMut(SketchBatch) -> Result<()>,
) -> Result<SketchStats> {
    let canon = Canonicalizer::new(cfg.text.clone())?;
    let seed = cfg.shingle.seed;
    let w = cfg.shingle.len as u64;
    let (mut tokens, mut short, mut empty_images, mut done) = (0u64, 0u64, 0u64, 0u64);
    let map = |wk: &mut Worker, d: RawDoc<'_>| {
        wk.tokens(&canon, seed, &d.text, true);
        let image = sketcher.sketch_token_hashes(&wk.tokens, &mut wk.sketch);
        Ok(DocOut {
            image,
            raw_fingerprint: text::fingerprint_raw(d.text.as_bytes()),
            canonical_fingerprint: text::fingerprint_canonical_encoded(&wk.fingerprint),
            tokens: wk.tokens.len() as u64,
            offset: d.offset,
        })
    };
    let consume = |b: Block<DocOut>| {
        let n = b.items.len();
        let mut batch = SketchBatch {
            first: b.first.0,
            ext_ids: b.ext_ids,
            images: Vec::with_capacity(n),
            raw_fingerprints: Vec::with_capacity(n),
            canonical_fingerprints: Vec::with_capacity(n),
            offsets: Vec::new(),
            seq: b.seq,
            lines: b.lines.unwrap_or_default(),
        };
        if b.items.iter().all(|o| o.offset.is_some()) {
            batch.offsets = b.items.iter().filter_map(|o| o.offset).collect();
        }
        for o in b.items {
            tokens += o.tokens;
            short += u64::from(o.tokens > 0 && o.tokens < w);
            empty_images += u64::from(o.image.is_empty());
            batch.images.push(o.image);
            batch.raw_fingerprints.push(o.raw_fingerprint);
            batch.canonical_fingerprints.push(o.canonical_fingerprint);
        }
        done += n as u64;
        emit(batch)?;
        progress(done);
        Ok(())
    };
    let corpus = match share {
        None => par_map_corpus_with(path, &cfg.corpus, Worker::default, map, consume)?,
        Some(share) => par_map_corpus_share(
            path,
            &cfg.corpus,
            &ParOptions::default(),
            share,
            Worker::default,
            map,
            consume,
        )?,
    };
    Ok(SketchStats {
        corpus,
        tokens,
        short,
        empty_images,
    })
}

/// The sequential form of [`sketch_stream`] as it was before the parallel reader: the
/// sequential reader in batches of [`BATCH`] documents, [`Canonicalizer::canonicalize_reference_into`]
/// and [`Sketcher::sketch_with`]. The reference the fused pipeline is tested against
/// (same images, fingerprints and counts); slower, not used by the binary.
pub fn sketch_stream_reference(
    path: &Path,
    cfg: &PipelineConfig,
    sink: &mut dyn SketchSink,
) -> Result<SketchStats> {
    cfg.validate()?;
    let canon = Canonicalizer::new(cfg.text.clone())?;
    let canon_batch =
        |reader: &mut corpus::CorpusReader, batch: &mut Vec<Document>| -> Result<Vec<Canonical>> {
            reader.fill_batch(batch, BATCH)?;
            Ok(batch
                .par_iter()
                .map_init(text::Scratch::default, |s, d| {
                    let mut c = Canonical::default();
                    canon.canonicalize_reference_into(&d.text, s, &mut c);
                    c
                })
                .collect())
        };
    let sketcher = if matches!(cfg.sketch.weighting, Some(Weighting::TfIdf { .. })) {
        let mut df = DocFreq::new();
        let mut reader = corpus::open(path, &cfg.corpus)?;
        let mut batch = Vec::new();
        loop {
            let docs = canon_batch(&mut reader, &mut batch)?;
            if docs.is_empty() {
                break;
            }
            df.merge(&DocFreq::from_docs(&docs, &cfg.shingle));
        }
        Sketcher::with_doc_freq(cfg.shingle, cfg.sketch, df)?
    } else {
        Sketcher::new(cfg.shingle, cfg.sketch)?
    };
    sink.begin(&sketcher.params(cfg.text_params()))?;
    let mut stats = SketchStats::default();
    let mut next = 0u32;
    let w = cfg.shingle.len;
    let mut reader = corpus::open(path, &cfg.corpus)?;
    let mut batch = Vec::new();
    loop {
        let canon_docs = canon_batch(&mut reader, &mut batch)?;
        if canon_docs.is_empty() {
            break;
        }
        let imgs: Vec<(Image, u64, u64)> = batch
            .par_iter()
            .zip(canon_docs.par_iter())
            .map_init(Scratch::default, |s, (d, c)| {
                (
                    sketcher.sketch_with(c, s),
                    text::fingerprint_raw(d.text.as_bytes()),
                    text::fingerprint_canonical_streaming(c),
                )
            })
            .collect();
        let mut b = SketchBatch {
            first: next,
            ..SketchBatch::default()
        };
        for ((d, c), (img, fr, fc)) in batch.iter().zip(&canon_docs).zip(imgs) {
            stats.tokens += c.len() as u64;
            if !c.is_empty() && c.len() < w {
                stats.short += 1;
            }
            if img.is_empty() {
                stats.empty_images += 1;
            }
            b.ext_ids.push(d.ext_id.clone());
            b.images.push(img);
            b.raw_fingerprints.push(fr);
            b.canonical_fingerprints.push(fc);
        }
        next += batch.len() as u32;
        sink.batch(b)?;
    }
    stats.corpus = reader.stats();
    Ok(stats)
}

/// The fingerprints and byte offsets of a stream's documents, in DocId order: what a run
/// keeps of the documents besides their images.
#[derive(Clone, Debug, Default)]
pub struct Prints {
    /// Raw and canonical fingerprints.
    pub fps: Fingerprints,
    /// Byte offsets; `None` once a batch came without them.
    pub offsets: Option<Vec<u64>>,
}

impl Prints {
    /// Keeping offsets until a batch comes without them.
    pub fn new() -> Self {
        Prints {
            fps: Fingerprints::default(),
            offsets: Some(Vec::new()),
        }
    }

    /// Takes the fingerprints and offsets of `b`.
    pub fn add(&mut self, b: &mut SketchBatch) {
        if b.offsets.len() == b.ext_ids.len() {
            if let Some(o) = &mut self.offsets {
                o.append(&mut b.offsets);
            }
        } else {
            self.offsets = None;
        }
        self.fps.raw.append(&mut b.raw_fingerprints);
        self.fps.canonical.append(&mut b.canonical_fingerprints);
    }
}

/// Collects a stream into one in-memory [`ImageSet`] plus fingerprints.
pub(crate) struct Collect {
    pub(crate) params: Option<SketchParams>,
    pub(crate) ext_ids: Vec<String>,
    pub(crate) images: Vec<Image>,
    pub(crate) prints: Prints,
}

impl Collect {
    /// Nothing collected yet.
    pub(crate) fn new() -> Self {
        Collect {
            params: None,
            ext_ids: Vec::new(),
            images: Vec::new(),
            prints: Prints::new(),
        }
    }

    /// The parameters the stream began with.
    pub(crate) fn begun(&self) -> Result<&SketchParams> {
        (self.params.as_ref()).ok_or_else(|| Error::config("SketchSink::batch called before begin"))
    }

    /// What was collected, with the stream's counts.
    pub(crate) fn into_output(self, stats: SketchStats) -> Result<SketchOutput> {
        Ok(SketchOutput {
            images: ImageSet {
                params: self.params.ok_or_else(|| {
                    Error::config("the sketch stream ended without its parameters")
                })?,
                ext_ids: self.ext_ids,
                images: self.images,
            },
            fingerprints: self.prints.fps,
            stats,
            offsets: self.prints.offsets,
        })
    }
}

impl SketchSink for Collect {
    fn begin(&mut self, params: &SketchParams) -> Result<()> {
        self.params = Some(params.clone());
        Ok(())
    }

    fn batch(&mut self, mut b: SketchBatch) -> Result<()> {
        self.prints.add(&mut b);
        self.ext_ids.extend(owned_here(b.ext_ids));
        self.images.extend(b.images);
        Ok(())
    }
}

/// The external ids `ids` copied into allocations of the calling thread. A batch's ids are
/// made on the pipeline's worker threads, between the images made there: held for the
/// whole run, they would keep every heap page they share with an image resident after
/// the images are freed (as when held images move to a file), so that the memory given
/// back is a fraction of the memory freed.
pub(crate) fn owned_here(ids: Vec<String>) -> impl Iterator<Item = String> {
    ids.into_iter().map(|s| s.as_str().to_owned())
}

/// Reads, canonicalizes and sketches the corpus at `path`, keeping every image in memory.
pub fn sketch_corpus(
    path: &Path,
    cfg: &PipelineConfig,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<SketchOutput> {
    sketch_corpus_by(&mut |sink| sketch_stream(path, cfg, progress, sink))
}

/// [`sketch_corpus`] from any stream of sketched batches (`stream` feeds a sink, as
/// [`sketch_stream`] does; a distributed run feeds it from every process).
pub fn sketch_corpus_by(
    stream: &mut dyn FnMut(&mut dyn SketchSink) -> Result<SketchStats>,
) -> Result<SketchOutput> {
    let mut c = Collect::new();
    let stats = stream(&mut c)?;
    c.into_output(stats)
}

/// The full shingle set F(D) of every document of a corpus (sorted distinct hashes),
/// for exact resemblance and the exact similarity join.
pub fn shingle_sets(
    path: &Path,
    corpus_cfg: &CorpusConfig,
    text_cfg: &TextConfig,
    shingle: &ShingleConfig,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Vec<u64>>> {
    Ok(
        shingle_sets_filtered(path, corpus_cfg, text_cfg, shingle, None, progress)?
            .into_iter()
            .map(|(_, s)| s)
            .collect(),
    )
}

/// Whether `id`, as the first pass handed it on, is the id `written` in the input, or a
/// rename of it (`written#N`, [`crate::corpus::DuplicateIds::Suffix`]).
fn same_or_renamed(id: &str, written: &str) -> bool {
    id == written
        || id
            .strip_prefix(written)
            .and_then(|r| r.strip_prefix('#'))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// `ids` ascending, each once.
fn sorted_distinct(ids: &[DocId]) -> Vec<DocId> {
    let mut v = ids.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

/// The full shingle sets F(D) (sorted distinct hashes) of the documents `wanted` (any
/// order, repeats allowed), read one by one at their byte offsets (`offsets[d]` for DocId
/// `d`, as [`SketchOutput::offsets`] recorded them) instead of re-reading the corpus: the
/// same sets as [`shingle_sets_filtered`], in ascending DocId order, in parallel.
/// `ext_ids[d]`, when given, is checked against the id each JSONL line names, so that a
/// file changed since the first pass is an error, not wrong sets. `None` when the corpus is
/// not a seekable line-format file (see [`LineDocReader::open`]).
pub fn shingle_sets_at(
    path: &Path,
    corpus_cfg: &CorpusConfig,
    text_cfg: &TextConfig,
    shingle: &ShingleConfig,
    wanted: &[DocId],
    offsets: &[u64],
    ext_ids: Option<&[String]>,
) -> Result<Option<DocSets>> {
    shingle.validate()?;
    let Some(reader) = LineDocReader::open(path, corpus_cfg)? else {
        return Ok(None);
    };
    let canon = Canonicalizer::new(text_cfg.clone())?;
    let sets: Result<DocSets> = sorted_distinct(wanted)
        .par_iter()
        .map_init(
            || (Worker::default(), Vec::new()),
            |(w, buf), &d| {
                let at = *offsets.get(d.0 as usize).ok_or_else(|| {
                    Error::config(format!(
                        "document {d}: no byte offset ({} recorded)",
                        offsets.len()
                    ))
                })?;
                let doc = reader.read_at(at, buf)?;
                if let (Some(ids), Some(got)) = (ext_ids, &doc.ext_id) {
                    let want = ids.get(d.0 as usize).map(String::as_str);
                    if !want.is_some_and(|w| same_or_renamed(w, got)) {
                        return Err(Error::format(
                            path,
                            format!(
                                "byte offset {at}: document {got:?} where {:?} was read before; the file changed since it was read",
                                want.unwrap_or("")
                            ),
                        ));
                    }
                }
                Ok((d, w.shingle_set(&canon, shingle, &doc.text)))
            },
        )
        .collect();
    sets.map(Some)
}

/// The full shingle sets F(D) (sorted distinct hashes) of the documents of one worker's
/// share of the corpus at `path` ([`Split`], as [`sketch_share`] reads it), in input
/// order, handed to `emit` block by block: the same sets as [`shingle_sets_filtered`]
/// gives the same documents.
pub fn shingle_sets_share(
    path: &Path,
    corpus_cfg: &CorpusConfig,
    text_cfg: &TextConfig,
    shingle: &ShingleConfig,
    split: Split,
    emit: &mut dyn FnMut(Vec<Vec<u64>>) -> Result<()>,
) -> Result<()> {
    shingle.validate()?;
    let canon = Canonicalizer::new(text_cfg.clone())?;
    par_map_corpus_share(
        path,
        corpus_cfg,
        &ParOptions::default(),
        split,
        Worker::default,
        |w: &mut Worker, d: RawDoc<'_>| Ok(w.shingle_set(&canon, shingle, &d.text)),
        |b: Block<Vec<u64>>| emit(b.items),
    )?;
    Ok(())
}

/// The full shingle sets F(D) (sorted distinct hashes) of the documents whose DocIds are
/// in `wanted` (`None` = all), in DocId order, read with the parallel reader: only the
/// wanted documents are canonicalized and shingled, and only their sets are kept. In JSONL
/// and plain-line input the lines of the other documents are not even parsed (so not
/// checked either): callers re-read a corpus that they have read whole before (verifying
/// the candidates of a sketch pass).
/// `progress` gets the number of documents read so far.
pub fn shingle_sets_filtered(
    path: &Path,
    corpus_cfg: &CorpusConfig,
    text_cfg: &TextConfig,
    shingle: &ShingleConfig,
    wanted: Option<&[DocId]>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<DocSets> {
    shingle.validate()?;
    let canon = Canonicalizer::new(text_cfg.clone())?;
    let mut out = Vec::new();
    let mut done = 0u64;
    let set = |w: &mut Worker, d: RawDoc<'_>| Ok((d.id, w.shingle_set(&canon, shingle, &d.text)));
    let mut take = |items: Vec<Option<(DocId, Vec<u64>)>>| {
        done += items.len() as u64;
        out.extend(items.into_iter().flatten());
        progress(done);
        Ok(())
    };
    match wanted {
        // Lines of other documents are not even parsed.
        Some(ws) => {
            par_map_corpus_wanted(
                path,
                corpus_cfg,
                &ParOptions::default(),
                &sorted_distinct(ws),
                Worker::default,
                set,
                |b| take(b.items),
            )?;
        }
        None => {
            par_map_corpus_with(
                path,
                corpus_cfg,
                Worker::default,
                |w, d| set(w, d).map(Some),
                |b| take(b.items),
            )?;
        }
    }
    Ok(out)
}
