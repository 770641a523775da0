//! The first half of the pipeline in one call: read a corpus, canonicalize, shingle and
//! sketch every document, streaming in parallel batches.
//!
//! Invariants: documents keep their input order (DocId `i` is the `i`-th document read);
//! results are identical for any number of threads (each batch is processed with rayon and
//! collected in order); the raw corpus is never held whole (only one batch of raw text at a
//! time), except that a tf-idf weighting reads the corpus twice (a first pass for document
//! frequencies).

use std::path::Path;

use rayon::prelude::*;

use super::{
    DocFreq, Image, ImageSet, Scratch, SketchConfig, SketchParams, Sketcher, TextParams, Weighting,
};
use crate::corpus::{self, CorpusConfig, CorpusStats, Document};
use crate::shingle::ShingleConfig;
use crate::text::{self, Canonical, Canonicalizer, StopWords, TextConfig};
use crate::Result;

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

/// The text options as recorded in an images file header: stop words are named `english`
/// when they are the built-in list, else by a stable hash of the sorted list.
pub fn text_params(cfg: &TextConfig) -> TextParams {
    let stopwords = cfg.stopwords.as_ref().map(|s| {
        if s == &StopWords::english() {
            "english".to_string()
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
        stopwords,
        stem: cfg.stem,
    }
}

/// Counts gathered while sketching a corpus.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
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
}

/// Documents read per parallel batch.
pub const BATCH: usize = 4096;

/// Streams the corpus at `path` through canonicalization in parallel batches, calling `f`
/// on each batch of (document, canonical form) in input order. `progress` is called with
/// the number of documents done so far after each batch.
pub fn for_each_canonical_batch(
    path: &Path,
    corpus_cfg: &CorpusConfig,
    canon: &Canonicalizer,
    progress: &(dyn Fn(u64) + Sync),
    mut f: impl FnMut(&[Document], Vec<Canonical>) -> Result<()>,
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
#[derive(Clone, Debug, Default)]
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
}

/// Where [`sketch_stream`] delivers its output: first the parameters (known before any
/// document is sketched, so a file header can be written), then the batches in input order.
pub trait SketchSink {
    /// Called once, before any batch.
    fn begin(&mut self, params: &SketchParams) -> Result<()>;
    /// Called once per batch, in input order.
    fn batch(&mut self, batch: SketchBatch) -> Result<()>;
}

/// Reads, canonicalizes and sketches the corpus at `path`, handing the images to `sink`
/// batch by batch without holding them all (the streaming form of [`sketch_corpus`]).
pub fn sketch_stream(
    path: &Path,
    cfg: &PipelineConfig,
    progress: &(dyn Fn(u64) + Sync),
    sink: &mut dyn SketchSink,
) -> Result<SketchStats> {
    cfg.validate()?;
    let canon = Canonicalizer::new(cfg.text.clone())?;
    let sketcher = if matches!(cfg.sketch.weighting, Some(Weighting::TfIdf { .. })) {
        let mut df = DocFreq::new();
        for_each_canonical_batch(path, &cfg.corpus, &canon, &|_| {}, |_, docs| {
            df.merge(&DocFreq::from_docs(&docs, &cfg.shingle));
            Ok(())
        })?;
        Sketcher::with_doc_freq(cfg.shingle, cfg.sketch, df)?
    } else {
        Sketcher::new(cfg.shingle, cfg.sketch)?
    };
    sink.begin(&sketcher.params(cfg.text_params()))?;
    let mut stats = SketchStats::default();
    let mut next = 0u32;
    let w = cfg.shingle.len;
    stats.corpus =
        for_each_canonical_batch(path, &cfg.corpus, &canon, progress, |docs, canon_docs| {
            let imgs: Vec<(Image, u64, u64)> = docs
                .par_iter()
                .zip(canon_docs.par_iter())
                .map_init(Scratch::default, |s, (d, c)| {
                    (
                        sketcher.sketch_with(c, s),
                        text::fingerprint_raw(d.text.as_bytes()),
                        text::fingerprint_canonical(c),
                    )
                })
                .collect();
            let mut b = SketchBatch {
                first: next,
                ..SketchBatch::default()
            };
            for ((d, c), (img, fr, fc)) in docs.iter().zip(&canon_docs).zip(imgs) {
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
            next += docs.len() as u32;
            sink.batch(b)
        })?;
    Ok(stats)
}

/// Collects a stream into one in-memory [`ImageSet`] plus fingerprints.
#[derive(Default)]
struct Collect {
    params: Option<SketchParams>,
    ext_ids: Vec<String>,
    images: Vec<Image>,
    fps: Fingerprints,
}

impl SketchSink for Collect {
    fn begin(&mut self, params: &SketchParams) -> Result<()> {
        self.params = Some(params.clone());
        Ok(())
    }

    fn batch(&mut self, b: SketchBatch) -> Result<()> {
        self.ext_ids.extend(b.ext_ids);
        self.images.extend(b.images);
        self.fps.raw.extend(b.raw_fingerprints);
        self.fps.canonical.extend(b.canonical_fingerprints);
        Ok(())
    }
}

/// Reads, canonicalizes and sketches the corpus at `path`, keeping every image in memory.
pub fn sketch_corpus(
    path: &Path,
    cfg: &PipelineConfig,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<SketchOutput> {
    let mut c = Collect::default();
    let stats = sketch_stream(path, cfg, progress, &mut c)?;
    Ok(SketchOutput {
        images: ImageSet {
            params: c
                .params
                .expect("sketch_stream calls begin before returning Ok"),
            ext_ids: c.ext_ids,
            images: c.images,
        },
        fingerprints: c.fps,
        stats,
    })
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
    shingle.validate()?;
    let canon = Canonicalizer::new(text_cfg.clone())?;
    let mut sets = Vec::new();
    for_each_canonical_batch(path, corpus_cfg, &canon, progress, |_, docs| {
        sets.par_extend(
            docs.par_iter()
                .map(|c| crate::shingle::shingle_set(c, shingle)),
        );
        Ok(())
    })?;
    Ok(sets)
}
