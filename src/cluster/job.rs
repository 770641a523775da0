//! Running a method on a sketched corpus: the glue between `sketch` (images, fingerprints),
//! `context`, `mine` and the methods of this module, shared by `fimdup cluster`, `sweep`,
//! `demo` and the index.
//!
//! A [`Prepared`] corpus holds what every method may need, computed once: the images, their
//! element keys, the positional values (k-mins / one-permutation images), the collapse of
//! identical / lexically-equivalent / shingle-equivalent documents, and (only for `exact`)
//! the full shingle sets. [`Prepared::run`] then runs any method at any threshold on it,
//! so a sweep sketches once and clusters many times. [`Prepared::from_images_streamed`]
//! prepares images files for the context-only methods (concept, union-find by
//! resemblance) holding the context instead of the images, with the same results.
//!
//! Invariant: results do not depend on the number of threads (every step below is
//! deterministic; see the methods).

use std::path::Path;

use rayon::prelude::*;

use super::{
    collapse, run_method, verify_output, ClusterConfig, ClusterInputs, ClusterOutput, Collapse,
    ImageKind, MaximalMiner, Method, Regroup,
};
use crate::context::{Context, ContextConfig, KeySource, KeyStats};
use crate::corpus::CorpusConfig;
use crate::fimi::Transactions;
use crate::mine::{self, Itemset, MinSupport, MineConfig, Target};
use crate::shingle::ShingleConfig;
use crate::sketch::pipeline::Fingerprints;
use crate::sketch::{image_fingerprint, Image, ImageInputs, ImageSet, Scheme, SketchParams};
use crate::spill::SpillConfig;
use crate::text::TextConfig;
use crate::{DocId, Error, Result};

/// The project's maximal itemset miner ([`mine::mine`]) as a [`MaximalMiner`].
#[derive(Clone, Copy, Debug, Default)]
pub struct FpMiner;

impl MaximalMiner for FpMiner {
    fn mine_maximal(
        &self,
        t: &Transactions,
        minsup: u64,
        max_itemsets: Option<u64>,
    ) -> Result<Vec<Itemset>> {
        mine::mine(
            t,
            &MineConfig {
                minsup: MinSupport::Absolute(minsup),
                target: Target::Maximal,
                max_itemsets,
            },
        )
    }
}

/// How the images of a scheme translate a resemblance threshold (None for mod-m, whose
/// images have no fixed size: give `--min-common`).
pub fn image_kind(scheme: Scheme) -> Option<ImageKind> {
    match scheme {
        Scheme::BottomK => Some(ImageKind::BottomK),
        Scheme::KMins | Scheme::OnePermutation => Some(ImageKind::KMins),
        Scheme::ModM => None,
    }
}

/// A sketched corpus, ready for any method. The images themselves are not kept: their
/// values become the keys (sorted schemes) or the positional values (k-mins,
/// one-permutation), so one copy of them is held.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The parameters the images were made with.
    pub params: SketchParams,
    /// The external ids, in DocId order.
    pub ext_ids: Vec<String>,
    /// Element keys per document (`Image::keys`).
    pub keys: Vec<Vec<u64>>,
    /// Positional values per document (k-mins / one-permutation images only).
    pub positional: Option<Vec<Vec<u64>>>,
    /// Full shingle sets (only when loaded for `exact`).
    pub sets: Option<Vec<Vec<u64>>>,
    /// Equivalent documents collapsed to representatives.
    pub collapse: Collapse,
    /// The context of the representatives and the configuration it was built with, when
    /// prepared by [`Prepared::from_images_streamed`] (then `keys` is empty).
    pub context: Option<(ContextConfig, Context)>,
    /// Image length per document, when `keys` is empty (with `context`).
    pub image_lens: Option<Vec<u32>>,
}

/// Images files read again on every scan, as the documents' keys. A scan decodes the files
/// on a second thread, in batches of [`ImageKeys::BATCH`] documents handed over a bounded
/// channel, so that decoding overlaps what the caller does with the keys (same order).
struct ImageKeys<'a, P: AsRef<Path> + Sync> {
    paths: &'a [P],
    scheme: Scheme,
}

/// Documents decoded by [`ImageKeys`]: DocIds, and their keys as CSR.
#[derive(Default)]
struct KeyBatch {
    docs: Vec<DocId>,
    off: Vec<usize>,
    keys: Vec<u64>,
}

impl<P: AsRef<Path> + Sync> ImageKeys<'_, P> {
    const BATCH: usize = 16 * 1024;
}

impl<P: AsRef<Path> + Sync> KeySource for ImageKeys<'_, P> {
    fn scan(&mut self, f: &mut dyn FnMut(DocId, &[u64]) -> Result<()>) -> Result<()> {
        let (paths, scheme) = (self.paths, self.scheme);
        let (tx, rx) = std::sync::mpsc::sync_channel::<Result<KeyBatch>>(2);
        let (back_tx, back_rx) = std::sync::mpsc::channel::<KeyBatch>();
        std::thread::scope(|s| {
            s.spawn(move || {
                let fresh = || {
                    let mut b = back_rx.try_recv().unwrap_or_default();
                    b.docs.clear();
                    b.keys.clear();
                    b.off.clear();
                    b.off.push(0);
                    b
                };
                let mut batch = fresh();
                let r = ImageInputs::open(paths).and_then(|inputs| {
                    inputs.for_each(|d, _, img| {
                        batch.docs.push(d);
                        img.keys(scheme, &mut batch.keys);
                        batch.off.push(batch.keys.len());
                        if batch.docs.len() == Self::BATCH {
                            let full = std::mem::replace(&mut batch, fresh());
                            if tx.send(Ok(full)).is_err() {
                                // The consumer stopped (its error is the one reported).
                                return Err(crate::Error::Limit("scan stopped".into()));
                            }
                        }
                        Ok(())
                    })
                });
                let _ = match r {
                    Ok(_) => tx.send(Ok(batch)),
                    Err(e) => tx.send(Err(e)),
                };
            });
            let mut out = Ok(());
            for b in rx.iter() {
                let b = match b {
                    Ok(b) => b,
                    Err(e) => {
                        out = Err(e);
                        break;
                    }
                };
                for (i, &d) in b.docs.iter().enumerate() {
                    if let Err(e) = f(d, &b.keys[b.off[i]..b.off[i + 1]]) {
                        out = Err(e);
                        break;
                    }
                }
                if out.is_err() {
                    break;
                }
                let _ = back_tx.send(b);
            }
            // Dropping the receiver stops the decoder at its next batch.
            drop(rx);
            out
        })
    }
}

impl Prepared {
    /// Prepares images (consumed: their values are moved, not copied); `fingerprints` (raw
    /// and canonical, from the sketch pipeline) enable collapsing identical and
    /// lexically-equivalent documents; without them only shingle-equivalent documents
    /// (equal images) are collapsed.
    pub fn new(images: ImageSet, fingerprints: Option<&Fingerprints>) -> Result<Self> {
        let ImageSet {
            params,
            ext_ids,
            images,
        } = images;
        let scheme = params.sketch.scheme;
        let img_fp: Vec<Option<u64>> = images.par_iter().map(image_fingerprint).collect();
        let n = images.len();
        let (keys, positional): (Vec<Vec<u64>>, Option<Vec<Vec<u64>>>) = if scheme.is_positional() {
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
    ) -> Result<Self> {
        let inputs = ImageInputs::open(paths)?;
        let params = inputs.params().clone();
        let scheme = params.sketch.scheme;
        let mut stats = KeyStats::default();
        let mut docs: Vec<(DocId, String, Option<u64>, u32)> = Vec::new();
        let mut buf = Vec::new();
        inputs.for_each(|d, id, img| {
            buf.clear();
            img.keys(scheme, &mut buf);
            stats.add(d, &buf);
            docs.push((d, id, image_fingerprint(&img), buf.len() as u32));
            Ok(())
        })?;
        docs.sort_unstable_by_key(|x| x.0);
        let mut ext_ids = Vec::with_capacity(docs.len());
        let mut img_fp = Vec::with_capacity(docs.len());
        let mut image_lens = Vec::with_capacity(docs.len());
        for (_, id, fp, len) in docs {
            ext_ids.push(id);
            img_fp.push(fp);
            image_lens.push(len);
        }
        let own: Vec<u64> = (0..ext_ids.len() as u64).collect();
        let collapse = collapse(&own, &own, &img_fp)?;
        drop(img_fp);
        let mut src = ImageKeys { paths, scheme };
        let context =
            Context::from_key_source(&mut src, &stats, cfg, spill, &|d| collapse.is_rep(d))?;
        Ok(Prepared {
            params,
            ext_ids,
            keys: Vec::new(),
            positional: None,
            sets: None,
            collapse,
            context: Some((*cfg, context)),
            image_lens: Some(image_lens),
        })
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

    /// Runs `cfg.method` (its `image_kind` is set from the scheme here).
    pub fn run(&self, cfg: &ClusterConfig) -> Result<ClusterOutput> {
        let mut cfg = *cfg;
        if cfg.measure == super::Measure::Containment
            && cfg.method == Method::UnionFind
            && self.scheme() != Scheme::ModM
        {
            return Err(Error::config(format!(
                "union-find estimates containment from mod-m images only: use --scheme mod-m, not {}",
                self.scheme().name()
            )));
        }
        let containment_on_mod_m =
            cfg.measure == super::Measure::Containment && self.scheme() == Scheme::ModM;
        match (image_kind(self.scheme()), cfg.threshold) {
            (Some(kind), _) => cfg.image_kind = kind,
            (None, super::Threshold::Resemblance(_))
                if cfg.method != Method::Exact && !containment_on_mod_m =>
            {
                return Err(Error::config(
                    "mod-m images have no fixed size: give --min-common k instead of --threshold",
                ))
            }
            _ => {}
        }
        if let Some((built, _)) = &self.context {
            if !matches!(cfg.method, Method::Concept | Method::UnionFind)
                || cfg.measure != super::Measure::Resemblance
            {
                return Err(Error::config(format!(
                    "images prepared as a context only serve concept and union-find by resemblance, not {} by {}",
                    cfg.method, cfg.measure
                )));
            }
            if *built != cfg.context {
                return Err(Error::config(
                    "the context was prepared with other --min-df / --max-df settings",
                ));
            }
        }
        if cfg.method == Method::Lsh && self.positional.is_none() {
            return Err(Error::config(format!(
                "lsh bands positional images: use --scheme k-mins or one-permutation, not {}",
                self.scheme().name()
            )));
        }
        if cfg.method == Method::Exact && self.sets.is_none() {
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
            context: self.context.as_ref().map(|(_, c)| c),
            image_size: (self.scheme() != Scheme::ModM).then_some(self.params.sketch.size),
            image_lens: self.image_lens.as_deref(),
            collapse: Some(&self.collapse),
            miner: Some(&FpMiner),
        };
        let mut out = run_method(&inputs, &cfg)?;
        if cfg.method == Method::Exact {
            // The exact join's answer is its pairs (every pair at or above the threshold);
            // the transitive pairs of its connected components are not similar pairs.
            // Member pairs are kept when their representatives are joined (or equal: the
            // documents are equivalent); edges are between representatives.
            let c = &self.collapse;
            let joined: hashbrown::HashSet<(DocId, DocId)> = out
                .edges
                .iter()
                .map(|e| (e.a.min(e.b), e.a.max(e.b)))
                .collect();
            out.pairs.retain(|p| {
                let (ra, rb) = (c.rep(p.a), c.rep(p.b));
                ra == rb || joined.contains(&(ra.min(rb), ra.max(rb)))
            });
            out.summary.pairs = out.pairs.len() as u64;
        }
        Ok(out)
    }
}

/// Full shingle sets of the documents of a corpus whose DocIds are in `wanted` (ascending;
/// `None` = all), re-reading the corpus: only the wanted documents are shingled and only
/// their sets are kept in memory ([`crate::sketch::pipeline::shingle_sets_filtered`]).
pub fn load_sets(
    path: &Path,
    corpus: &CorpusConfig,
    text: &TextConfig,
    shingle: &ShingleConfig,
    wanted: Option<&[DocId]>,
) -> Result<crate::sketch::pipeline::DocSets> {
    crate::sketch::pipeline::shingle_sets_filtered(path, corpus, text, shingle, wanted, &|_| {})
}

/// Where `--verify exact` reads the documents again: the corpus and how it was read, plus,
/// when the first pass recorded them ([`crate::sketch::pipeline::SketchOutput::offsets`]),
/// the byte offset of every document's line and the external ids read then (so that only
/// the candidates are read again, and a changed file is caught).
#[derive(Clone, Copy, Debug)]
pub struct CorpusSource<'a> {
    /// The corpus file.
    pub path: &'a Path,
    /// How it is read.
    pub corpus: &'a CorpusConfig,
    /// How its text becomes tokens.
    pub text: &'a TextConfig,
    /// How tokens become shingles.
    pub shingle: &'a ShingleConfig,
    /// `offsets[d]`: where DocId `d`'s line starts, if recorded.
    pub offsets: Option<&'a [u64]>,
    /// External ids in DocId order (checked against the lines read at `offsets`).
    pub ext_ids: Option<&'a [String]>,
}

impl CorpusSource<'_> {
    /// The full shingle sets of `wanted` (ascending, distinct), in DocId order: read at the
    /// recorded offsets when there are some and the file allows it, else by re-reading the
    /// whole corpus (only the wanted documents are parsed and shingled).
    pub fn sets_of(&self, wanted: &[DocId]) -> Result<crate::sketch::pipeline::DocSets> {
        if let Some(offsets) = self.offsets {
            if let Some(sets) = crate::sketch::pipeline::shingle_sets_at(
                self.path,
                self.corpus,
                self.text,
                self.shingle,
                wanted,
                offsets,
                self.ext_ids,
            )? {
                return Ok(sets);
            }
        }
        load_sets(
            self.path,
            self.corpus,
            self.text,
            self.shingle,
            Some(wanted),
        )
    }
}

/// `--verify exact`: keeps the pairs whose exact resemblance (from the documents read
/// again, see [`CorpusSource::sets_of`]) is at least `t`; fills their `exact` scores and
/// rebuilds the clusters as `regroup` says.
pub fn verify_with_corpus(
    out: &mut ClusterOutput,
    src: &CorpusSource<'_>,
    t: f64,
    regroup: Regroup,
) -> Result<()> {
    let mut wanted: Vec<DocId> = out
        .pairs
        .iter()
        .chain(&out.edges)
        .flat_map(|p| [p.a, p.b])
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let sets = src.sets_of(&wanted)?;
    let fetch = |d: DocId| -> Result<Vec<u64>> {
        sets.binary_search_by_key(&d, |s| s.0)
            .map(|i| sets[i].1.clone())
            .map_err(|_| Error::config(format!("document {d} is not in the corpus")))
    };
    verify_output(out, fetch, t, regroup)
}
