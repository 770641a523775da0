//! A sketched corpus prepared once for any method ([`Prepared`]): the element keys, the
//! positional values (k-mins / one-permutation images), the collapse of identical /
//! lexically-equivalent / shingle-equivalent documents, and (only for `exact`) the full
//! shingle sets. [`Prepared::run`] runs any method at any threshold on it, so a sweep
//! sketches once and clusters many times. [`Prepared::from_images_streamed`] prepares
//! images files for the context-only methods (concept, union-find by resemblance) holding
//! the context instead of the images, with the same results.
//!
//! Invariant: results do not depend on the number of threads (every step below is
//! deterministic; see the methods).

use std::path::Path;

use rayon::prelude::*;

use super::method::Reads;
use super::threshold::image_kind_of;
use super::{
    collapse, fp_miner, run_method, ClusterConfig, ClusterInputs, ClusterOutput, Collapse,
    Equivalence, Method, Phase,
};
use crate::context::images::{doc_order, first_scan, permuted, ImageKeys};
use crate::context::{BuiltContext, Context, ContextConfig, KeyFile, KeySource, KeyStats};
use crate::sketch::pipeline::Fingerprints;
use crate::sketch::{image_fingerprint, Image, ImageInputs, ImageSet, Scheme, SketchParams};
use crate::spill::SpillConfig;
use crate::{DocId, Error, Result};

/// A sketched corpus, ready for any method. The images themselves are not kept: their
/// values become the keys (sorted schemes) or the positional values (k-mins,
/// one-permutation), so one copy of them is held.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The parameters the images were made with.
    params: SketchParams,
    /// The external ids, in DocId order.
    ext_ids: Vec<String>,
    /// Element keys per document (`Image::keys`).
    keys: Vec<Vec<u64>>,
    /// Positional values per document (k-mins / one-permutation images only).
    positional: Option<Vec<Vec<u64>>>,
    /// Full shingle sets (only when loaded for `exact`).
    sets: Option<Vec<Vec<u64>>>,
    /// Equivalent documents collapsed to representatives.
    collapse: Collapse,
    /// The context of the representatives and the configuration it was built with, when
    /// prepared by [`Prepared::from_images_streamed`] (then `keys` is empty).
    context: Option<(ContextConfig, std::sync::Arc<BuiltContext>)>,
    /// Image length per document, when `keys` is empty (with `context`).
    image_lens: Option<Vec<u32>>,
    /// When the context was built while preparing: the peak memory before the build, and
    /// the build as a phase ("context").
    context_build: Option<(Option<u64>, Phase)>,
}

pub(crate) use crate::plan::context_needs;
use crate::plan::{ALLOC_BYTES, VEC_HEADER_BYTES};

/// The refusal of a budget below [`context_needs`]: `so_far` when `docs` counts the
/// documents read so far (the input not read to its end).
pub(crate) fn context_refusal(
    what: &Path,
    docs: usize,
    so_far: bool,
    need: u64,
    work: u64,
    budget: crate::spill::MemoryBudget,
) -> Error {
    Error::Budget(format!(
        "{}: the context of {}{docs} documents{} needs at least {} MiB (their ids and per-document data, and {} MiB to build it in), more than the memory budget ({budget})",
        what.display(),
        if so_far { "the " } else { "" },
        if so_far { " read so far" } else { "" },
        need.div_ceil(1 << 20),
        work.div_ceil(1 << 20)
    ))
}

impl Prepared {
    /// Prepares images (consumed: their values are moved, not copied); `fingerprints` (raw
    /// and canonical, from the sketch pipeline) enable collapsing identical and
    /// lexically-equivalent documents; without them only shingle-equivalent documents
    /// (equal images) are collapsed.
    pub fn new(images: ImageSet, fingerprints: Option<&Fingerprints>) -> Result<Self> {
        Self::new_by(images, fingerprints, Equivalence::Shingle)
    }

    /// As [`Prepared::new`], collapsing the documents that `eq` calls equivalent.
    pub fn new_by(
        images: ImageSet,
        fingerprints: Option<&Fingerprints>,
        eq: Equivalence,
    ) -> Result<Self> {
        let ImageSet {
            params,
            ext_ids,
            images,
        } = images;
        let scheme = params.sketch.scheme;
        let img_fp: Vec<Option<u64>> = match eq {
            Equivalence::Shingle => images.par_iter().map(image_fingerprint).collect(),
            Equivalence::Lexical => vec![None; images.len()],
        };
        let n = images.len();
        let (keys, positional): (Vec<Vec<u64>>, Option<Vec<Vec<u64>>>) =
            if scheme.is_positional() || scheme.is_fingerprint() {
                let keys = images
                    .par_iter()
                    .map(|img| {
                        let mut k = Vec::new();
                        img.keys(scheme, &mut k);
                        k
                    })
                    .collect();
                let pos = images.into_iter().map(Image::into_values).collect();
                (keys, Some(pos))
            } else {
                // Sorted schemes: the keys are the values themselves.
                (images.into_iter().map(Image::into_values).collect(), None)
            };
        let collapse = match fingerprints {
            Some(f) => collapse(&f.raw, &f.canonical, &img_fp)?,
            None => {
                // No text fingerprints: give every document its own, so that only equal
                // images collapse.
                let own: Vec<u64> = (0..n as u64).collect();
                collapse(&own, &own, &img_fp)?
            }
        };
        Ok(Prepared {
            params,
            ext_ids,
            keys,
            positional,
            sets: None,
            collapse,
            context: None,
            image_lens: None,
            context_build: None,
        })
    }

    /// Prepares images files (one, or the shards of one run) for the methods that need
    /// only the inverted context (concept; union-find by resemblance) without holding the
    /// images: one scan of the files gathers the external ids, the image fingerprints
    /// (documents with equal images collapse, as [`Prepared::new`] without text
    /// fingerprints does) and the key range, then [`Context::from_key_source`] builds the
    /// context of the representatives (`cfg`) in passes over the files, each holding at
    /// most `spill`'s budget of incidences. Runs give the same output as with
    /// [`Prepared::new`] on the same images.
    pub fn from_images_streamed<P: AsRef<Path> + Sync>(
        paths: &[P],
        cfg: &ContextConfig,
        spill: &SpillConfig,
        fingerprints: Option<&Fingerprints>,
    ) -> Result<Self> {
        Self::from_images_streamed_by(paths, cfg, spill, fingerprints, Equivalence::Shingle)
    }

    /// As [`Prepared::from_images_streamed`], collapsing the documents that `eq` calls
    /// equivalent.
    pub fn from_images_streamed_by<P: AsRef<Path> + Sync>(
        paths: &[P],
        cfg: &ContextConfig,
        spill: &SpillConfig,
        fingerprints: Option<&Fingerprints>,
        eq: Equivalence,
    ) -> Result<Self> {
        let inputs = ImageInputs::open(paths)?;
        let params = inputs.params().clone();
        let scheme = params.sketch.scheme;
        let mut doc_ids: Vec<DocId> = Vec::new();
        let mut ext_ids: Vec<String> = Vec::new();
        let mut img_fp: Vec<Option<u64>> = Vec::new();
        let mut image_lens: Vec<u32> = Vec::new();
        let stats = first_scan(inputs, |d, id, img, keys| {
            doc_ids.push(d);
            ext_ids.push(id);
            img_fp.push(match eq {
                Equivalence::Shingle => image_fingerprint(img),
                Equivalence::Lexical => None,
            });
            image_lens.push(keys.len() as u32);
        })?;
        // Shards interleave their DocIds: put everything in DocId order.
        if let Some(order) = doc_order(&doc_ids) {
            ext_ids = permuted(ext_ids, &order);
            img_fp = permuted(img_fp, &order);
            image_lens = permuted(image_lens, &order);
        }
        drop(doc_ids);
        let mut src = ImageKeys::new(paths, scheme);
        Self::streamed(
            params,
            ext_ids,
            img_fp,
            image_lens,
            &stats,
            &mut src,
            paths[0].as_ref(),
            cfg,
            spill,
            fingerprints,
        )
    }

    /// Prepares, for the methods that need only the context, documents whose element keys
    /// were written to `keys` while the corpus was sketched (see
    /// [`super::held_keys`]); their external ids and image fingerprints (`None` each
    /// unless equal images collapse) were kept in memory. The context of the
    /// representatives is built in passes over the file as
    /// [`Prepared::from_images_streamed_by`] builds it over images files: the same output
    /// as [`Prepared::new_by`] on the same images.
    /// `corpus` names the input in messages.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn from_key_file(
        corpus: &Path,
        params: SketchParams,
        ext_ids: Vec<String>,
        img_fp: Vec<Option<u64>>,
        mut keys: KeyFile,
        cfg: &ContextConfig,
        spill: &SpillConfig,
        fingerprints: Option<&Fingerprints>,
    ) -> Result<Self> {
        let stats = *keys.stats();
        let image_lens = keys.lens().to_vec();
        Self::streamed(
            params,
            ext_ids,
            img_fp,
            image_lens,
            &stats,
            &mut keys,
            corpus,
            cfg,
            spill,
            fingerprints,
        )
    }

    /// The common part of the streamed preparations: the collapse, the budget's check and
    /// the context of the representatives built from `src` (`stats` from a first scan;
    /// `what` names the input in messages).
    #[allow(clippy::too_many_arguments)]
    fn streamed(
        params: SketchParams,
        ext_ids: Vec<String>,
        img_fp: Vec<Option<u64>>,
        image_lens: Vec<u32>,
        stats: &KeyStats,
        src: &mut dyn KeySource,
        what: &Path,
        cfg: &ContextConfig,
        spill: &SpillConfig,
        fingerprints: Option<&Fingerprints>,
    ) -> Result<Self> {
        let collapse = match fingerprints {
            Some(f) => collapse(&f.raw, &f.canonical, &img_fp)?,
            None => {
                let own: Vec<u64> = (0..ext_ids.len() as u64).collect();
                collapse(&own, &own, &img_fp)?
            }
        };
        drop(img_fp);
        let mut prep = Prepared {
            params,
            ext_ids,
            keys: Vec::new(),
            positional: None,
            sets: None,
            collapse,
            context: None,
            image_lens: Some(image_lens),
            context_build: None,
        };
        let held = prep.heap_bytes() + fingerprints.map_or(0, |f| 16 * f.raw.len() as u64);
        if let Some(b) = spill.budget {
            // The ids and per-document arrays, and room for passes of useful size.
            let (work, need) = context_needs(held, stats.total());
            if need > b.0 {
                return Err(context_refusal(what, prep.n_docs(), false, need, work, b));
            }
        }
        let (before, t) = (crate::spill::peak_rss_bytes(), std::time::Instant::now());
        let context = Context::from_key_source_bounded(
            src,
            stats,
            cfg,
            spill,
            &|d| prep.collapse.is_rep(d),
            spill.in_use(held),
        )?;
        prep.context = Some((*cfg, std::sync::Arc::new(context)));
        prep.context_build = Some((before, Phase::ended("context", t.elapsed().as_secs_f64())));
        Ok(prep)
    }

    /// When the context was built while preparing: the process's peak memory before the
    /// build, and the build as a phase.
    pub fn context_build(&self) -> Option<(Option<u64>, &Phase)> {
        self.context_build.as_ref().map(|(b, p)| (*b, p))
    }

    /// An estimate of the bytes this prepared corpus holds (ids, keys, images, sets, the
    /// in-memory context, per-document arrays), counted against a memory budget.
    pub fn heap_bytes(&self) -> u64 {
        // A `String` or `Vec` header, and what the allocator rounds a small block up to.
        let vecs = |v: &[Vec<u64>]| -> u64 {
            v.iter()
                .map(|x| VEC_HEADER_BYTES + ALLOC_BYTES + 8 * x.capacity() as u64)
                .sum::<u64>()
        };
        let ids: u64 = self
            .ext_ids
            .iter()
            .map(|s| VEC_HEADER_BYTES + ALLOC_BYTES + s.capacity() as u64)
            .sum();
        let context = match &self.context {
            Some((_, c)) => match &**c {
                BuiltContext::Memory(c) => c.heap_bytes(),
                BuiltContext::Spilled(_) => 0,
            },
            _ => 0,
        };
        ids + vecs(&self.keys)
            + self.positional.as_deref().map_or(0, vecs)
            + self.sets.as_deref().map_or(0, vecs)
            + self
                .image_lens
                .as_ref()
                .map_or(0, |v| 4 * v.capacity() as u64)
            + self.collapse.heap_bytes()
            + context
    }

    /// Drops the context built while preparing (its rows, or its temporary file) and gives
    /// the freed memory back to the system: for a caller that has run its method and
    /// needs only the ids, the collapse and the per-document data from here on. A later
    /// run on this prepared corpus builds the context again.
    pub fn drop_context(&mut self) {
        self.context = None;
        crate::spill::release_free_memory();
    }

    /// Number of documents.
    pub fn n_docs(&self) -> usize {
        self.collapse.n_docs()
    }

    /// The external ids.
    pub fn ext_ids(&self) -> &[String] {
        &self.ext_ids
    }

    /// The image scheme.
    pub fn scheme(&self) -> Scheme {
        self.params.sketch.scheme
    }

    /// The parameters the images were made with.
    pub fn params(&self) -> &SketchParams {
        &self.params
    }

    /// The collapse of equivalent documents.
    pub fn collapse(&self) -> &Collapse {
        &self.collapse
    }

    /// Whether the full shingle sets (for `exact`) are loaded.
    pub fn has_sets(&self) -> bool {
        self.sets.is_some()
    }

    /// Gives the full shingle sets, in DocId order (for `exact`).
    pub fn set_sets(&mut self, sets: Vec<Vec<u64>>) -> Result<()> {
        if sets.len() != self.n_docs() {
            return Err(Error::config(format!(
                "{} shingle sets given for {} documents",
                sets.len(),
                self.n_docs()
            )));
        }
        self.sets = Some(sets);
        Ok(())
    }

    /// Drops the full shingle sets, when loaded.
    pub(crate) fn drop_sets(&mut self) {
        self.sets = None;
    }

    /// The full shingle set of document `d`, when the sets are loaded.
    pub fn set_of(&self, d: DocId) -> Option<&[u64]> {
        self.sets.as_ref().map(|s| s[d.index()].as_slice())
    }

    /// The external ids, given up (for an output that outlives the prepared corpus).
    pub fn into_ext_ids(self) -> Vec<String> {
        self.ext_ids
    }

    /// Runs `cfg.method` (its `image_kind` is set from the scheme here); the context and
    /// the pair counts may spill as `spill` says.
    pub fn run(&self, cfg: &ClusterConfig, spill: &SpillConfig) -> Result<ClusterOutput> {
        let mut cfg = *cfg;
        if cfg.measure == super::Measure::Containment
            && cfg.method == Method::UnionFind
            && self.scheme() != Scheme::ModM
        {
            return Err(Error::config(format!(
                "union-find estimates containment from mod-m images only, not from {} images",
                self.scheme().name()
            )));
        }
        cfg.method.spec().check_scheme(self.scheme())?;
        let containment_on_mod_m =
            cfg.measure == super::Measure::Containment && self.scheme() == Scheme::ModM;
        match (image_kind_of(&self.params.sketch), cfg.threshold) {
            (Some(kind), _) => cfg.image_kind = kind,
            (None, super::Threshold::Resemblance(_))
                if cfg.method.reads() != Reads::Sets
                    && !containment_on_mod_m
                    && !self.scheme().is_fingerprint() =>
            {
                return Err(Error::config(
                    "mod-m images have no fixed size, so a resemblance threshold cannot be translated: give an absolute min-common k",
                ))
            }
            _ => {}
        }
        if let Some((built, _)) = &self.context {
            if cfg.method.reads() != Reads::Elements || cfg.measure != super::Measure::Resemblance {
                return Err(Error::config(format!(
                    "images prepared as a context only serve concept and union-find by resemblance, not {} by {}",
                    cfg.method, cfg.measure
                )));
            }
            if *built != cfg.context {
                return Err(Error::config(
                    "the context was prepared with other min-df / max-df settings",
                ));
            }
        }
        if cfg.method.reads() == Reads::Positional && self.positional.is_none() {
            return Err(Error::config(format!(
                "{} bands positional images (k-mins or one-permutation), not {} images",
                cfg.method,
                self.scheme().name()
            )));
        }
        if cfg.method.reads() == Reads::Sets && self.sets.is_none() {
            return Err(Error::config(
                "the exact join needs the documents' full shingle sets: give a corpus, not an images file",
            ));
        }
        let inputs = ClusterInputs {
            n_docs: self.n_docs(),
            keys: self.context.is_none().then_some(&self.keys[..]),
            positional: self.positional.as_deref(),
            sets: self.sets.as_deref(),
            super_shingles: None,
            context: match self.context.as_ref().map(|c| &*c.1) {
                Some(BuiltContext::Memory(c)) => Some(c),
                _ => None,
            },
            spilled: match self.context.as_ref().map(|c| &*c.1) {
                Some(BuiltContext::Spilled(c)) => Some(c),
                _ => None,
            },
            image_size: (self.scheme() != Scheme::ModM).then_some(self.params.sketch.size),
            image_lens: self.image_lens.as_deref(),
            collapse: Some(&self.collapse),
            miner: Some(&fp_miner),
            spill: Some(spill),
        };
        run_method(&inputs, &cfg)
    }
}
