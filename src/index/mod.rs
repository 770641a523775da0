//! The persisted index: on-the-fly resemblance queries, incremental sweeps with a "lost and
//! found" report (B97 6.1-6.2), containment queries, and collection overlap by sampling
//! (L20, [`overlap`]).
//!
//! An [`Index`] holds, per document (DocId `i`, dense, in insertion order): the external
//! id, the image, optionally a second mod-m image for containment, the sweep it was first
//! and last seen in, optionally the ordinal of its source document in that sweep's corpus,
//! and its cluster label. Besides it holds the inverted context (element key -> documents,
//! [`Postings`]), for positional schemes the LSH band table (band key -> documents), and
//! the sweeps (tag, input, corpus options).
//!
//! # Invariants
//! * Query results do not depend on how the index was built: candidates are the documents
//!   sharing at least `need` image elements with the query, where `need` is a bound that
//!   every document with estimated measure `>= t` satisfies (see [`min_shared`]), so
//!   [`Index::query_image`] returns exactly what a brute-force scan of all images with the
//!   same estimator returns.
//! * Clusters are the connected components of the graph "estimated resemblance `>= t`"
//!   (`t` = the index threshold, B97 union-find). [`Index::add_documents`] only compares the
//!   new documents with everything (old and new), never old with old; because the
//!   components of a graph do not depend on the order its edges arrive in, building in
//!   two sweeps gives the same clusters as building once over both. A cluster's label is its
//!   smallest DocId.
//! * Sweeps: a document whose external id is already in the index with an identical image
//!   (its latest version) is not stored again; that version is marked seen in the new sweep.
//!   A changed document is stored as a new version (a new DocId) tagged with the sweep.
//!   Lost documents (external id not seen in the latest sweep) STAY in the index, tagged
//!   with the sweep they were last seen in, so that later sweeps can still find where they
//!   moved (B97 6.2) and so that clusters equal those of a single build over all sweeps.
//! * tf-idf weighted images are refused: their weights depend on the whole collection, so
//!   they cannot be extended incrementally.
//! * Nothing here prints; every failure is an [`Error`].
//!
//! The on-disk layout, the atomic generation switch and the checksums are in [`store`].

pub mod overlap;
mod postings;
pub mod store;

use std::path::{Path, PathBuf};

use hashbrown::HashMap;
use rayon::prelude::*;

pub use postings::Postings;

use crate::cluster::uf::UnionFind;
use crate::corpus::{CorpusConfig, Format};
use crate::shingle::ShingleConfig;
use crate::sketch::pipeline::{for_each_canonical_batch, text_params, PipelineConfig};
use crate::sketch::{
    estimate_resemblance, super_shingles, Image, Scheme, Scratch, SketchConfig, SketchParams,
    Sketcher, Weighting,
};
use crate::text::{Canonical, Canonicalizer, StopWords, TextConfig};
use crate::{DocId, Error, Result};

/// Build-time options of an index.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexConfig {
    /// Resemblance threshold of the clusters (and of the LSH band choice); in `(0, 1]`.
    pub threshold: f64,
    /// Keep a second, mod-m image per document so that containment can be estimated
    /// whatever the main scheme (ignored when the main scheme is mod-m).
    pub containment: bool,
    /// Modulus of the containment images.
    pub containment_modulus: u64,
    /// Record each document's source (corpus path + ordinal) for exact queries.
    pub keep_sources: bool,
}

impl Default for IndexConfig {
    fn default() -> Self {
        IndexConfig {
            threshold: 0.5,
            containment: false,
            containment_modulus: 25,
            keep_sources: false,
        }
    }
}

impl IndexConfig {
    /// Checks the threshold and the modulus.
    pub fn validate(&self) -> Result<()> {
        check_threshold(self.threshold)?;
        if self.containment && self.containment_modulus == 0 {
            return Err(Error::config("containment modulus must be >= 1"));
        }
        Ok(())
    }
}

fn check_threshold(t: f64) -> Result<()> {
    if !(t > 0.0 && t <= 1.0) {
        return Err(Error::config(format!(
            "threshold must be in (0, 1], not {t}"
        )));
    }
    Ok(())
}

/// One sweep (crawl) added to the index.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Sweep {
    /// The user's tag (e.g. a crawl date); defaults to `sweep-<number>`.
    pub tag: String,
    /// The corpus path as given (absolute when sources are kept).
    pub input: String,
    /// Corpus options needed to read it again (`--exact`).
    pub corpus: CorpusSpec,
    /// Documents read.
    pub documents: u64,
    /// Documents stored as new DocIds (new or changed).
    pub added: u64,
}

/// The serializable part of a [`CorpusConfig`].
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CorpusSpec {
    /// Format name, `None` = guessed from the extension.
    pub format: Option<String>,
    /// JSONL text field.
    pub text_field: String,
    /// JSONL id field.
    pub id_field: String,
    /// CSV/TSV text column.
    pub text_column: String,
    /// CSV/TSV id column.
    pub id_column: String,
    /// Malformed lines skipped.
    pub skip_bad_lines: bool,
}

impl CorpusSpec {
    /// From a corpus configuration.
    pub fn from_config(c: &CorpusConfig) -> Self {
        CorpusSpec {
            format: c.format.map(|f| f.name().to_string()),
            text_field: c.text_field.clone(),
            id_field: c.id_field.clone(),
            text_column: c.text_column.clone(),
            id_column: c.id_column.clone(),
            skip_bad_lines: c.skip_bad_lines,
        }
    }

    /// Back to a corpus configuration.
    pub fn to_config(&self) -> Result<CorpusConfig> {
        Ok(CorpusConfig {
            format: self
                .format
                .as_deref()
                .map(str::parse::<Format>)
                .transpose()?,
            text_field: self.text_field.clone(),
            id_field: self.id_field.clone(),
            text_column: self.text_column.clone(),
            id_column: self.id_column.clone(),
            skip_bad_lines: self.skip_bad_lines,
        })
    }
}

/// What a query measures: the one [`Measure`](crate::cluster::Measure) of the crate. For a
/// query, `Resemblance` is the estimated resemblance of the query and the document and
/// `Containment` the estimated containment of the query IN the document, `|Q n D| / |Q|`
/// (mod-m images).
pub use crate::cluster::Measure;

/// How query candidates are found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Candidates {
    /// Documents sharing enough image elements (inverted context); exact with respect to a
    /// brute-force scan.
    #[default]
    Context,
    /// Documents agreeing on a whole LSH band (positional schemes only; may miss
    /// documents, as LSH does, and is faster for very common elements).
    Lsh,
}

/// Options of one query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueryOptions {
    /// Report documents whose estimated measure is `>= threshold`, in `(0, 1]`.
    pub threshold: f64,
    /// Resemblance or containment.
    pub measure: Measure,
    /// Keep the best `top` hits (`None` = all).
    pub top: Option<usize>,
    /// Candidate generation.
    pub candidates: Candidates,
}

impl Default for QueryOptions {
    fn default() -> Self {
        QueryOptions {
            threshold: 0.5,
            measure: Measure::Resemblance,
            top: None,
            candidates: Candidates::Context,
        }
    }
}

/// One query answer.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Hit {
    /// The indexed document.
    pub doc: DocId,
    /// Its external id.
    pub ext_id: String,
    /// Tag of the sweep it was last seen in.
    pub last_seen: String,
    /// Estimated measure.
    pub estimate: f64,
    /// Exact measure from the shingle sets (only with sources and `--exact`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact: Option<f64>,
}

/// A document of a new sweep, already sketched.
#[derive(Clone, Debug)]
pub struct NewDoc {
    /// External id.
    pub ext_id: String,
    /// Image with the index's parameters.
    pub image: Image,
    /// Mod-m containment image (required iff the index keeps them).
    pub containment: Option<Image>,
}

/// A document of the previous sweep whose external id was not seen in the new one.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Lost {
    /// Its DocId (latest version).
    pub doc: DocId,
    /// Its external id.
    pub ext_id: String,
    /// The most similar document of the new sweep under another external id, with its
    /// estimated resemblance, when one is at or above the index threshold.
    pub found: Option<(DocId, String, f64)>,
}

/// What [`Index::add_documents`] did.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct AddReport {
    /// Tag of the sweep.
    pub tag: String,
    /// Documents in the sweep.
    pub documents: u64,
    /// Stored as new DocIds.
    pub added: u64,
    /// Unchanged (same external id and image as their latest version): not stored again.
    pub unchanged: u64,
    /// Cluster merges caused by the new documents.
    pub merges: u64,
    /// Clusters (of >= 2 documents) after the sweep.
    pub clusters: u64,
    /// The lost and found report.
    pub lost: Vec<Lost>,
}

/// The index (see the module documentation).
#[derive(Clone, Debug)]
pub struct Index {
    pub(crate) params: SketchParams,
    pub(crate) stopword_list: Option<Vec<String>>,
    pub(crate) cfg: IndexConfig,
    pub(crate) bands: Option<(u32, u32)>,
    pub(crate) cont_params: Option<SketchParams>,
    pub(crate) ext_ids: Vec<String>,
    pub(crate) images: Vec<Image>,
    pub(crate) cont_images: Vec<Image>,
    pub(crate) first_sweep: Vec<u32>,
    pub(crate) last_seen: Vec<u32>,
    pub(crate) source: Vec<u64>,
    pub(crate) labels: Vec<u32>,
    pub(crate) context: Postings,
    pub(crate) cont_context: Postings,
    pub(crate) band_table: Postings,
    pub(crate) sweeps: Vec<Sweep>,
    pub(crate) latest: HashMap<String, u32>,
}

/// Smallest number of shared image elements a document must have with a query image `q`
/// for its estimated `measure` to reach `t` (`t > 0`), so that counting shared elements
/// loses nothing:
/// * k-mins / one-permutation: `est = equal positions / n`, so `>= ceil(t n)`;
/// * bottom-k: `est = both / taken` with `taken = min(n, |Q u D|) >= min(n, |Q|)` and
///   `both <= |Q n D|`, so `>= ceil(t min(n, |Q|))`;
/// * mod-m resemblance `|Q n D| / |Q u D|` and containment `|Q n D| / |Q|`: `>= ceil(t |Q|)`.
///
/// Always at least 1 (a document sharing nothing estimates 0). A tiny slack guards against
/// rounding in `t * m`.
pub fn min_shared(q: &Image, cfg: &SketchConfig, t: f64) -> usize {
    let m = match cfg.scheme {
        Scheme::KMins | Scheme::OnePermutation => cfg.size,
        Scheme::BottomK => cfg.size.min(q.len()),
        Scheme::ModM => q.len(),
    };
    ((t * m as f64 - 1e-9).ceil() as usize).max(1)
}

impl Index {
    /// An empty index for images made with `pipeline` (text, shingle and sketch options).
    pub fn new(pipeline: &PipelineConfig, cfg: IndexConfig) -> Result<Index> {
        pipeline.validate()?;
        cfg.validate()?;
        if matches!(pipeline.sketch.weighting, Some(Weighting::TfIdf { .. })) {
            return Err(Error::config(
                "an index cannot use tf-idf weighted images: their weights depend on the whole \
                 collection and would change with every sweep (use bag weighting or none)",
            ));
        }
        let text = text_params(&pipeline.text);
        let sketcher = Sketcher::new(pipeline.shingle, pipeline.sketch)?;
        let params = sketcher.params(text.clone());
        let stopword_list = pipeline
            .text
            .stopwords
            .as_ref()
            .map(|s| s.sorted().into_iter().map(String::from).collect());
        let cont_params =
            (cfg.containment && pipeline.sketch.scheme != Scheme::ModM).then_some(SketchParams {
                text,
                shingle: pipeline.shingle,
                sketch: SketchConfig {
                    scheme: Scheme::ModM,
                    modulus: cfg.containment_modulus,
                    ..pipeline.sketch
                },
                weight_table: None,
            });
        let bands = if pipeline.sketch.scheme.is_positional() {
            Some(crate::cluster::choose_bands(
                pipeline.sketch.size as u32,
                cfg.threshold,
                1.0,
                1.0,
            )?)
        } else {
            None
        };
        Ok(Index {
            params,
            stopword_list,
            cfg,
            bands,
            cont_params,
            ext_ids: Vec::new(),
            images: Vec::new(),
            cont_images: Vec::new(),
            first_sweep: Vec::new(),
            last_seen: Vec::new(),
            source: Vec::new(),
            labels: Vec::new(),
            context: Postings::default(),
            cont_context: Postings::default(),
            band_table: Postings::default(),
            sweeps: Vec::new(),
            latest: HashMap::new(),
        })
    }

    /// Builds an index from the corpus at `input` (the first sweep, tagged `tag`).
    pub fn build(
        input: &Path,
        pipeline: &PipelineConfig,
        cfg: IndexConfig,
        tag: Option<&str>,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<(Index, AddReport)> {
        let mut idx = Index::new(pipeline, cfg)?;
        let rep = idx.add_corpus(input, &pipeline.corpus, tag, progress)?;
        Ok((idx, rep))
    }

    /// Every parameter of the images.
    pub fn params(&self) -> &SketchParams {
        &self.params
    }

    /// The build options.
    pub fn config(&self) -> &IndexConfig {
        &self.cfg
    }

    /// `(bands, rows)` of the LSH band table (positional schemes).
    pub fn bands(&self) -> Option<(u32, u32)> {
        self.bands
    }

    /// Number of documents (all versions, lost ones included).
    pub fn len(&self) -> usize {
        self.images.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.images.is_empty()
    }

    /// External id of `d`.
    pub fn ext_id(&self, d: DocId) -> &str {
        &self.ext_ids[d.index()]
    }

    /// Images in DocId order.
    pub fn images(&self) -> &[Image] {
        &self.images
    }

    /// The sweeps, oldest first.
    pub fn sweeps(&self) -> &[Sweep] {
        &self.sweeps
    }

    /// Tag of the sweep `d` was first stored in.
    pub fn first_seen(&self, d: DocId) -> &str {
        &self.sweeps[self.first_sweep[d.index()] as usize].tag
    }

    /// Tag of the sweep `d` was last seen in.
    pub fn last_seen(&self, d: DocId) -> &str {
        &self.sweeps[self.last_seen[d.index()] as usize].tag
    }

    /// Cluster label of each document (the smallest DocId of its cluster).
    pub fn labels(&self) -> &[u32] {
        &self.labels
    }

    /// The clusters of at least two documents, each ascending, ordered by smallest member.
    pub fn clusters(&self) -> Vec<Vec<DocId>> {
        let mut by: HashMap<u32, Vec<DocId>> = HashMap::new();
        for (d, &l) in self.labels.iter().enumerate() {
            by.entry(l).or_default().push(DocId(d as u32));
        }
        let mut out: Vec<Vec<DocId>> = by.into_values().filter(|c| c.len() >= 2).collect();
        out.sort_unstable();
        out
    }

    /// The text options as a [`TextConfig`] (to canonicalize queries and sweeps).
    pub fn text_config(&self) -> TextConfig {
        let t = &self.params.text;
        TextConfig {
            html: t.html,
            lowercase: t.lowercase,
            unit: t.unit,
            stopwords: self.stopword_list.as_ref().map(StopWords::from_words),
            stem: t.stem,
        }
    }

    /// The shingle options.
    pub fn shingle_config(&self) -> ShingleConfig {
        self.params.shingle
    }

    fn sketchers(&self) -> Result<(Sketcher, Option<Sketcher>)> {
        let main = Sketcher::new(self.params.shingle, self.params.sketch)?;
        let cont = match &self.cont_params {
            Some(p) => Some(Sketcher::new(p.shingle, p.sketch)?),
            None => None,
        };
        Ok((main, cont))
    }

    /// A sketcher bundle for query texts.
    pub fn query_sketcher(&self) -> Result<QuerySketcher> {
        let (main, cont) = self.sketchers()?;
        Ok(QuerySketcher {
            canon: Canonicalizer::new(self.text_config())?,
            main,
            cont,
        })
    }

    /// Reads, sketches and adds the corpus at `input` as a new sweep.
    pub fn add_corpus(
        &mut self,
        input: &Path,
        corpus: &CorpusConfig,
        tag: Option<&str>,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<AddReport> {
        let qs = self.query_sketcher()?;
        let mut docs = Vec::new();
        for_each_canonical_batch(input, corpus, &qs.canon, progress, |batch, canon| {
            let imgs: Vec<(Image, Option<Image>)> = canon
                .par_iter()
                .map_init(Scratch::default, |s, c| qs.sketch_canonical(c, s))
                .collect();
            for (d, (image, containment)) in batch.iter().zip(imgs) {
                docs.push(NewDoc {
                    ext_id: d.ext_id.clone(),
                    image,
                    containment,
                });
            }
            Ok(())
        })?;
        let input_str = if self.cfg.keep_sources {
            std::fs::canonicalize(input)
                .map_err(|e| Error::io(input, e))?
                .to_string_lossy()
                .into_owned()
        } else {
            input.to_string_lossy().into_owned()
        };
        self.add_documents(docs, tag, &input_str, CorpusSpec::from_config(corpus))
    }

    /// Adds a sweep of sketched documents (in corpus order; ordinal `i` is the `i`-th):
    /// stores new and changed ones with new DocIds, updates the context and band tables
    /// incrementally, joins the new documents to the existing clusters, and reports the
    /// documents of the previous sweep that are gone (with where they moved).
    pub fn add_documents(
        &mut self,
        docs: Vec<NewDoc>,
        tag: Option<&str>,
        input: &str,
        corpus: CorpusSpec,
    ) -> Result<AddReport> {
        let sweep = self.sweeps.len() as u32;
        let tag = tag
            .map(String::from)
            .unwrap_or_else(|| format!("sweep-{}", sweep + 1));
        if self.sweeps.iter().any(|s| s.tag == tag) {
            return Err(Error::config(format!(
                "the index already has a sweep tagged {tag:?}"
            )));
        }
        if self.images.len() + docs.len() > u32::MAX as usize {
            return Err(Error::config("an index holds at most 2^32 - 1 documents"));
        }
        let scheme = self.params.sketch.scheme;
        let start = self.images.len();
        let mut rep = AddReport {
            tag: tag.clone(),
            documents: docs.len() as u64,
            ..AddReport::default()
        };
        // 1. Sequential: dedup unchanged versions, assign DocIds.
        for (ordinal, d) in docs.into_iter().enumerate() {
            if d.containment.is_some() != self.cont_params.is_some() {
                return Err(Error::config(format!(
                    "document {:?}: containment image {} but the index {} them",
                    d.ext_id,
                    if d.containment.is_some() {
                        "given"
                    } else {
                        "missing"
                    },
                    if self.cont_params.is_some() {
                        "keeps"
                    } else {
                        "does not keep"
                    }
                )));
            }
            if let Some(&prev) = self.latest.get(&d.ext_id) {
                if self.images[prev as usize] == d.image {
                    self.last_seen[prev as usize] = sweep;
                    rep.unchanged += 1;
                    continue;
                }
            }
            let id = self.images.len() as u32;
            self.latest.insert(d.ext_id.clone(), id);
            self.ext_ids.push(d.ext_id);
            self.images.push(d.image);
            if let Some(c) = d.containment {
                self.cont_images.push(c);
            }
            self.first_sweep.push(sweep);
            self.last_seen.push(sweep);
            if self.cfg.keep_sources {
                self.source.push(ordinal as u64);
            }
            self.labels.push(id);
        }
        let end = self.images.len();
        rep.added = (end - start) as u64;
        self.sweeps.push(Sweep {
            tag,
            input: input.to_string(),
            corpus,
            documents: rep.documents,
            added: rep.added,
        });
        // 2. Postings of the new documents, merged into the existing ones.
        let new_pairs = |imgs: &[Image], sch: Scheme| -> Vec<(u64, u32)> {
            imgs.par_iter()
                .enumerate()
                .flat_map_iter(|(i, im)| {
                    let mut k = Vec::new();
                    im.keys(sch, &mut k);
                    k.into_iter().map(move |key| (key, (start + i) as u32))
                })
                .collect()
        };
        self.context.merge(Postings::from_pairs(new_pairs(
            &self.images[start..],
            scheme,
        )));
        if !self.cont_images.is_empty() {
            self.cont_context.merge(Postings::from_pairs(new_pairs(
                &self.cont_images[start..],
                Scheme::ModM,
            )));
        }
        if let Some((b, r)) = self.bands {
            let cfg = self.params.sketch;
            let pairs: Vec<(u64, u32)> = self.images[start..]
                .par_iter()
                .enumerate()
                .flat_map_iter(|(i, im)| {
                    super_shingles(im, &cfg, b as usize, r as usize)
                        .into_iter()
                        .map(move |k| (k, (start + i) as u32))
                })
                .collect();
            self.band_table.merge(Postings::from_pairs(pairs));
        }
        // 3. Join the new documents to the clusters: edges (j, i), j < i, i new.
        let t = self.cfg.threshold;
        let edges: Vec<(u32, u32)> = (start..end)
            .into_par_iter()
            .map_init(HashMap::new, |counts, i| {
                let hits = self.scan(
                    &self.images[i],
                    &self.context,
                    scheme,
                    t,
                    Measure::Resemblance,
                    counts,
                    |d| (d as usize) < i,
                );
                hits.into_iter()
                    .map(move |(d, _)| (d, i as u32))
                    .collect::<Vec<_>>()
            })
            .flatten_iter()
            .collect();
        let mut uf = UnionFind::new(end);
        for (i, &l) in self.labels.iter().enumerate() {
            if l as usize != i {
                uf.union(i as u32, l);
            }
        }
        for &(a, b) in &edges {
            if uf.union(a, b) {
                rep.merges += 1;
            }
        }
        let mut min_of: HashMap<u32, u32> = HashMap::new();
        for d in 0..end as u32 {
            let r = uf.find(d);
            min_of.entry(r).or_insert(d);
        }
        let mut sizes: HashMap<u32, u32> = HashMap::new();
        for d in 0..end as u32 {
            let l = min_of[&uf.find(d)];
            self.labels[d as usize] = l;
            *sizes.entry(l).or_default() += 1;
        }
        rep.clusters = sizes.values().filter(|&&s| s >= 2).count() as u64;
        // 4. Lost and found.
        if sweep > 0 {
            rep.lost = self.lost_and_found(sweep);
        }
        Ok(rep)
    }

    fn lost_and_found(&self, sweep: u32) -> Vec<Lost> {
        let mut lost: Vec<u32> = self
            .latest
            .values()
            .copied()
            .filter(|&d| self.last_seen[d as usize] == sweep - 1)
            .collect();
        lost.sort_unstable();
        let scheme = self.params.sketch.scheme;
        let t = self.cfg.threshold;
        lost.par_iter()
            .map_init(HashMap::new, |counts, &d| {
                let ext = &self.ext_ids[d as usize];
                let hits = self.scan(
                    &self.images[d as usize],
                    &self.context,
                    scheme,
                    t,
                    Measure::Resemblance,
                    counts,
                    |c| self.last_seen[c as usize] == sweep && &self.ext_ids[c as usize] != ext,
                );
                let best = hits
                    .into_iter()
                    .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
                Lost {
                    doc: DocId(d),
                    ext_id: ext.clone(),
                    found: best.map(|(c, s)| (DocId(c), self.ext_ids[c as usize].clone(), s)),
                }
            })
            .collect()
    }

    /// Documents with estimated `measure(q, d) >= t` among those `keep` accepts, found via
    /// `postings` (unsorted).
    #[allow(clippy::too_many_arguments)]
    fn scan(
        &self,
        q: &Image,
        postings: &Postings,
        scheme: Scheme,
        t: f64,
        measure: Measure,
        counts: &mut HashMap<u32, u32>,
        keep: impl Fn(u32) -> bool,
    ) -> Vec<(u32, f64)> {
        if q.is_empty() {
            return Vec::new();
        }
        let (cfg, images) = match measure {
            Measure::Resemblance => (&self.params.sketch, &self.images),
            Measure::Containment => match &self.cont_params {
                Some(p) => (&p.sketch, &self.cont_images),
                None => (&self.params.sketch, &self.images),
            },
        };
        let need = min_shared(q, cfg, t) as u32;
        counts.clear();
        let mut keys = Vec::with_capacity(q.len());
        q.keys(scheme, &mut keys);
        for k in keys {
            for &d in postings.get(k) {
                if keep(d) {
                    *counts.entry(d).or_default() += 1;
                }
            }
        }
        let mut out = Vec::new();
        for (&d, &c) in counts.iter() {
            if c < need {
                continue;
            }
            let im = &images[d as usize];
            let est = match measure {
                Measure::Resemblance => estimate_resemblance(q, im, cfg),
                Measure::Containment => crate::shingle::containment(q.values(), im.values()),
            };
            if est >= t {
                out.push((d, est));
            }
        }
        out
    }

    /// True when containment can be estimated (mod-m main images or kept mod-m images).
    pub fn has_containment(&self) -> bool {
        self.params.sketch.scheme == Scheme::ModM || self.cont_params.is_some()
    }

    /// The indexed documents whose estimated measure with the query is `>= threshold`,
    /// best first (ties by DocId). `q` is the query's image with the index's parameters;
    /// `qc` its mod-m containment image when the index keeps them (see [`QuerySketcher`]).
    pub fn query_image(
        &self,
        q: &Image,
        qc: Option<&Image>,
        opts: &QueryOptions,
    ) -> Result<Vec<Hit>> {
        check_threshold(opts.threshold)?;
        let scheme = self.params.sketch.scheme;
        let mut counts = HashMap::new();
        let t = opts.threshold;
        let mut hits = match (opts.measure, opts.candidates) {
            (Measure::Containment, Candidates::Lsh) => {
                return Err(Error::config(
                    "LSH candidates estimate resemblance only; use the context candidates",
                ))
            }
            (Measure::Containment, Candidates::Context) => {
                if !self.has_containment() {
                    return Err(Error::config(format!(
                        "this index uses {scheme} images, which cannot estimate containment; \
                         rebuild it keeping a mod-m image per document (containment images) \
                         or with the mod-m scheme"
                    )));
                }
                if self.cont_params.is_some() {
                    let qc = qc.ok_or_else(|| {
                        Error::config("a containment query needs the query's mod-m image")
                    })?;
                    let p = &self.cont_context;
                    self.scan(
                        qc,
                        p,
                        Scheme::ModM,
                        t,
                        Measure::Containment,
                        &mut counts,
                        |_| true,
                    )
                } else {
                    let p = &self.context;
                    self.scan(q, p, scheme, t, Measure::Containment, &mut counts, |_| true)
                }
            }
            (Measure::Resemblance, Candidates::Context) => {
                let p = &self.context;
                self.scan(q, p, scheme, t, Measure::Resemblance, &mut counts, |_| true)
            }
            (Measure::Resemblance, Candidates::Lsh) => {
                let Some((b, r)) = self.bands else {
                    return Err(Error::config(format!(
                        "LSH candidates need a positional scheme (k-mins, one-permutation), \
                         this index uses {scheme}"
                    )));
                };
                let cfg = &self.params.sketch;
                let mut cands: Vec<u32> = Vec::new();
                for k in super_shingles(q, cfg, b as usize, r as usize) {
                    cands.extend_from_slice(self.band_table.get(k));
                }
                cands.sort_unstable();
                cands.dedup();
                cands
                    .into_iter()
                    .filter_map(|d| {
                        let e = estimate_resemblance(q, &self.images[d as usize], cfg);
                        (e >= t).then_some((d, e))
                    })
                    .collect()
            }
        };
        hits.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        if let Some(n) = opts.top {
            hits.truncate(n);
        }
        Ok(hits
            .into_iter()
            .map(|(d, e)| Hit {
                doc: DocId(d),
                ext_id: self.ext_ids[d as usize].clone(),
                last_seen: self.last_seen(DocId(d)).to_string(),
                estimate: e,
                exact: None,
            })
            .collect())
    }

    /// Fills [`Hit::exact`] from the sources (needs an index built with `keep_sources`):
    /// re-reads the corpora of the hits' sweeps and computes the exact measure of the
    /// query's shingle set `qset` with each hit's.
    pub fn exact_measures(&self, qset: &[u64], measure: Measure, hits: &mut [Hit]) -> Result<()> {
        if !self.cfg.keep_sources {
            return Err(Error::config(
                "exact measures need an index that keeps its sources (built with keep_sources)",
            ));
        }
        let mut by_sweep: HashMap<u32, Vec<(u64, usize)>> = HashMap::new();
        for (h, hit) in hits.iter().enumerate() {
            let d = hit.doc.index();
            by_sweep
                .entry(self.first_sweep[d])
                .or_default()
                .push((self.source[d], h));
        }
        let canon = Canonicalizer::new(self.text_config())?;
        let mut sweeps: Vec<_> = by_sweep.into_iter().collect();
        sweeps.sort_unstable_by_key(|(s, _)| *s);
        for (s, mut want) in sweeps {
            want.sort_unstable();
            let sw = &self.sweeps[s as usize];
            let path = PathBuf::from(&sw.input);
            let mut ordinal = 0u64;
            let mut w = 0usize;
            for_each_canonical_batch(
                &path,
                &sw.corpus.to_config()?,
                &canon,
                &|_| {},
                |batch, canon_docs| {
                    for (doc, c) in batch.iter().zip(&canon_docs) {
                        while w < want.len() && want[w].0 == ordinal {
                            let hit = &mut hits[want[w].1];
                            if doc.ext_id != hit.ext_id {
                                return Err(Error::format(
                                &path,
                                format!(
                                    "source changed since indexing: document {ordinal} is {:?}, the index expected {:?}",
                                    doc.ext_id, hit.ext_id
                                ),
                            ));
                            }
                            let set = crate::shingle::shingle_set(c, &self.params.shingle);
                            hit.exact = Some(match measure {
                                Measure::Resemblance => crate::shingle::resemblance(qset, &set),
                                Measure::Containment => crate::shingle::containment(qset, &set),
                            });
                            w += 1;
                        }
                        ordinal += 1;
                    }
                    Ok(())
                },
            )?;
            if w < want.len() {
                return Err(Error::format(
                    &path,
                    format!("source changed since indexing: it has only {ordinal} documents"),
                ));
            }
        }
        Ok(())
    }
}

/// Canonicalizer and sketchers of an index, for query documents.
pub struct QuerySketcher {
    /// Text canonicalizer with the index's options.
    pub canon: Canonicalizer,
    main: Sketcher,
    cont: Option<Sketcher>,
}

impl QuerySketcher {
    /// The main image and (when the index keeps them) the mod-m containment image.
    pub fn sketch_canonical(&self, c: &Canonical, s: &mut Scratch) -> (Image, Option<Image>) {
        (
            self.main.sketch_with(c, s),
            self.cont.as_ref().map(|k| k.sketch_with(c, s)),
        )
    }

    /// Canonicalizes and sketches a raw text.
    pub fn sketch_text(&self, raw: &str) -> (Canonical, Image, Option<Image>) {
        let c = self.canon.canonicalize(raw);
        let (a, b) = self.sketch_canonical(&c, &mut Scratch::default());
        (c, a, b)
    }

    /// The exact shingle set of a canonical text.
    pub fn shingle_set(&self, c: &Canonical) -> Vec<u64> {
        crate::shingle::shingle_set(c, self.main.shingle_config())
    }
}
