//! Building an index and adding sweeps: storing new and changed documents, updating the
//! postings incrementally, joining the new documents to the clusters, and the lost and found
//! report (see the invariants in [the module docs](super)); under a memory budget, through a
//! temporary images file and the up-front check of [`memory_needed`].

use std::path::Path;

use hashbrown::HashMap;
use rayon::prelude::*;

use super::segment::Table;
use super::{min_shared, CorpusSpec, Index, IndexConfig, Measure, Sweep};
use crate::cluster::uf::UnionFind;
use crate::corpus::CorpusConfig;
use crate::sketch::pipeline::{for_each_canonical_batch, text_params, PipelineConfig};
use crate::sketch::{
    estimate_resemblance, Image, ImageReader, ImageWriter, Scheme, Shard, SketchConfig,
    SketchParams, Sketcher, Weighting,
};
use crate::spill::{MemoryBudget, SpillConfig, SpillDir};
use crate::{DocId, Error, Result};

pub use crate::plan::{
    INDEX_BYTES_PER_DOC as BYTES_PER_DOC, INDEX_BYTES_PER_VALUE as BYTES_PER_VALUE,
};

pub use crate::plan::index_needs as memory_needed;
use crate::plan::{index_held, index_join_pairs, index_sweep_needs, INDEX_JOIN_BYTES_PER_KEY};

/// What an index build or add holds in memory, for the message of [`check_fits`].
pub(super) const HOLDS: &str = "the index holds their ids, the new documents' images and \
     postings and the segments not mapped from disk in memory";

/// [`Error::Budget`] when `need` bytes (of the memory plan's index rules) exceed `budget`:
/// "`what` needs at least N MiB for M documents, more than the memory budget (B): `why`".
pub(super) fn check_fits(
    need: u64,
    docs: u64,
    budget: MemoryBudget,
    what: &str,
    why: &str,
) -> Result<()> {
    if need > budget.0 {
        return Err(Error::Budget(format!(
            "{what} needs at least {} MiB for {docs} documents, more than the memory budget \
             ({budget}): {why}",
            need.div_ceil(1 << 20),
        )));
    }
    Ok(())
}

/// A sweep being added: its number, whether it is a batch, its first DocId, the next
/// ordinal, the report so far.
struct SweepState {
    sweep: u32,
    batch: bool,
    /// The budget the merge policy keeps to after the sweep.
    budget: Option<MemoryBudget>,
    start: usize,
    ordinal: u64,
    rep: AddReport,
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
    /// Repeated external ids of the sweep renamed (`X#2`, ...); ids of earlier sweeps are
    /// not repeats but new versions.
    pub renamed_ids: u64,
    /// Documents of the sweep skipped as larger than the largest document size.
    pub skipped_oversized: u64,
    /// What the merge policy did after the sweep (under a memory budget it may leave
    /// merges for `index merge`).
    pub segment_merges: super::MergeReport,
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
        if pipeline.sketch.scheme.is_fingerprint() {
            return Err(Error::config(
                "an index keeps image elements, not simhash fingerprints: choose another --scheme",
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
                    bits: None,
                    ..pipeline.sketch
                },
                weight_table: None,
            });
        let bands = if pipeline.sketch.scheme.is_positional() {
            Some(crate::cluster::choose_bands_for(
                pipeline.sketch.size as u32,
                cfg.threshold,
                1.0,
                1.0,
                crate::cluster::image_kind_of(&pipeline.sketch).unwrap_or_default(),
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
            ext_ids: Default::default(),
            images: Default::default(),
            cont_images: Default::default(),
            first_sweep: Vec::new(),
            last_seen: Vec::new(),
            source: Vec::new(),
            labels: Vec::new(),
            segments: Vec::new(),
            deleted: roaring::RoaringBitmap::new(),
            sweeps: Vec::new(),
            latest: Default::default(),
            origin: None,
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
        Index::build_with(input, pipeline, cfg, tag, &SpillConfig::default(), progress)
    }

    /// [`Index::build`] under the memory budget of `spill` (see [`Index::add_corpus_with`]).
    pub fn build_with(
        input: &Path,
        pipeline: &PipelineConfig,
        cfg: IndexConfig,
        tag: Option<&str>,
        spill: &SpillConfig,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<(Index, AddReport)> {
        let mut idx = Index::new(pipeline, cfg)?;
        let rep = idx.add_corpus_with(input, &pipeline.corpus, tag, spill, progress)?;
        Ok((idx, rep))
    }

    /// Reads, sketches and adds the corpus at `input` as a new sweep.
    pub fn add_corpus(
        &mut self,
        input: &Path,
        corpus: &CorpusConfig,
        tag: Option<&str>,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<AddReport> {
        self.add_corpus_with(input, corpus, tag, &SpillConfig::default(), progress)
    }

    /// [`Index::add_corpus`] under the memory budget of `spill`. Without a budget the
    /// sweep's images are held in memory until they are added. With one, they are written
    /// to a temporary images file (and one for the containment images) in a spill
    /// directory of `spill`, so that the number of documents is known before anything is
    /// added: when the index with them cannot fit in the budget ([`memory_needed`])
    /// this fails with [`Error::Budget`] and the index is unchanged; otherwise the images
    /// are read back one at a time into the index. The index is the same either way.
    pub fn add_corpus_with(
        &mut self,
        input: &Path,
        corpus: &CorpusConfig,
        tag: Option<&str>,
        spill: &SpillConfig,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<AddReport> {
        self.add_corpus_as(input, corpus, tag, spill, progress, false)
    }

    /// [`Index::add_corpus_with`] of a batch of new documents rather than a complete crawl,
    /// as [`Index::add_batch`]: no document is lost by it (the report's `lost` is empty), so
    /// its cost does not grow with the documents already indexed that it lacks.
    pub fn add_batch_corpus_with(
        &mut self,
        input: &Path,
        corpus: &CorpusConfig,
        tag: Option<&str>,
        spill: &SpillConfig,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<AddReport> {
        self.add_corpus_as(input, corpus, tag, spill, progress, true)
    }

    /// [`Index::add_corpus_with`] (`batch` false) and [`Index::add_batch_corpus_with`]
    /// (`batch` true).
    fn add_corpus_as(
        &mut self,
        input: &Path,
        corpus: &CorpusConfig,
        tag: Option<&str>,
        spill: &SpillConfig,
        progress: &(dyn Fn(u64) + Sync),
        batch: bool,
    ) -> Result<AddReport> {
        let tag = self.sweep_tag(tag)?;
        let qs = self.query_sketcher()?;
        if self.cfg.keep_sources && corpus.texts.is_some() {
            return Err(Error::config(
                "an index that keeps its sources reads them again: it needs a corpus file, and in-memory texts are not kept",
            ));
        }
        let input_str = if self.cfg.keep_sources {
            std::fs::canonicalize(input)
                .map_err(|e| Error::io(input, e))?
                .to_string_lossy()
                .into_owned()
        } else {
            input.to_string_lossy().into_owned()
        };
        let spec = CorpusSpec::from_config(corpus);
        let Some(budget) = spill.budget else {
            let mut docs = Vec::new();
            let stats =
                for_each_canonical_batch(input, corpus, &qs.canon, progress, |batch, canon| {
                    let imgs = qs.sketch_batch(&canon);
                    for (d, (image, containment)) in batch.iter().zip(imgs) {
                        docs.push(NewDoc {
                            ext_id: d.ext_id.clone(),
                            image,
                            containment,
                        });
                    }
                    Ok(())
                })?;
            let mut rep = self.add_sweep(docs, Some(&tag), &input_str, spec, batch)?;
            rep.renamed_ids = stats.renamed_ids;
            rep.skipped_oversized = stats.skipped_oversized;
            return Ok(rep);
        };
        let dir = SpillDir::new_in(&spill.dir())?;
        let main_path = dir.path().join("sweep.img");
        let cont_path = dir.path().join("sweep-containment.img");
        let mut main_w = ImageWriter::create(&main_path, &self.params, Shard::default())?;
        let mut cont_w = match &self.cont_params {
            Some(cp) => Some(ImageWriter::create(&cont_path, cp, Shard::default())?),
            None => None,
        };
        // The documents that will be stored (new ids and changed images) and their values.
        let (mut stored, mut values) = (0u64, 0u64);
        let this = &*self;
        let stats =
            for_each_canonical_batch(input, corpus, &qs.canon, progress, |batch, canon| {
                let imgs = qs.sketch_batch(&canon);
                for (d, (image, containment)) in batch.iter().zip(imgs) {
                    let new = match this.latest.get(&d.ext_id, &this.ext_ids) {
                        Some(p) => *this.images.get(p)? != image,
                        None => true,
                    };
                    if new {
                        stored += 1;
                        values += image.len() as u64;
                    }
                    main_w.push(&d.ext_id, &image)?;
                    if let (Some(w), Some(c)) = (cont_w.as_mut(), containment) {
                        if new {
                            values += c.len() as u64;
                        }
                        w.push(&d.ext_id, &c)?;
                    }
                }
                Ok(())
            })?;
        main_w.finish()?;
        if let Some(w) = cont_w {
            w.finish()?;
        }
        check_fits(
            index_sweep_needs(self.bands, self.held(), stored, values),
            self.len() as u64 + stored,
            budget,
            if self.sweeps.is_empty() {
                "index build"
            } else {
                "index add"
            },
            &format!("{HOLDS} ({})", input.display()),
        )?;
        let mut main_r = ImageReader::open(&main_path)?;
        let mut cont_r = match &self.cont_params {
            Some(_) => Some(ImageReader::open(&cont_path)?),
            None => None,
        };
        // Room for the documents that will be stored, not for the unchanged ones.
        let mut st = self.begin_sweep(tag, stored as usize)?;
        st.batch = batch;
        st.budget = Some(budget);
        while let Some((_, ext_id, image)) = main_r.next_doc()? {
            let containment = match cont_r.as_mut() {
                Some(r) => Some(
                    r.next_doc()?
                        .ok_or_else(|| {
                            Error::format(&cont_path, "fewer documents than the main images")
                        })?
                        .2,
                ),
                None => None,
            };
            self.push_doc(
                &mut st,
                NewDoc {
                    ext_id,
                    image,
                    containment,
                },
            )?;
        }
        drop(main_r);
        drop(cont_r);
        drop(dir);
        let mut rep = self.finish_sweep(st, &input_str, spec)?;
        rep.renamed_ids = stats.renamed_ids;
        rep.skipped_oversized = stats.skipped_oversized;
        Ok(rep)
    }

    /// The tag of the next sweep (`tag`, or `sweep-<number>`); an error when the index has
    /// a sweep with that tag already.
    fn sweep_tag(&self, tag: Option<&str>) -> Result<String> {
        let tag = tag
            .map(String::from)
            .unwrap_or_else(|| format!("sweep-{}", self.sweeps.len() + 1));
        if self.sweeps.iter().any(|s| s.tag == tag) {
            return Err(Error::config(format!(
                "the index already has a sweep tagged {tag:?}"
            )));
        }
        Ok(tag)
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
        self.add_sweep(docs, tag, input, corpus, false)
    }

    /// Adds a batch of sketched documents, as [`Index::add_documents`] does, but as new
    /// documents rather than a complete crawl: it is recorded as a sweep (flagged
    /// [`Sweep::batch`]), and no document is lost by it (the report's `lost` is empty); the
    /// next complete sweep reports as lost what the complete sweep before it and the batches
    /// since held and it lacks.
    pub fn add_batch(
        &mut self,
        docs: Vec<NewDoc>,
        tag: Option<&str>,
        input: &str,
        corpus: CorpusSpec,
    ) -> Result<AddReport> {
        self.add_sweep(docs, tag, input, corpus, true)
    }

    /// [`Index::add_documents`] (`batch` false) and [`Index::add_batch`] (`batch` true).
    fn add_sweep(
        &mut self,
        docs: Vec<NewDoc>,
        tag: Option<&str>,
        input: &str,
        corpus: CorpusSpec,
        batch: bool,
    ) -> Result<AddReport> {
        let tag = self.sweep_tag(tag)?;
        let mut st = self.begin_sweep(tag, docs.len())?;
        st.batch = batch;
        for d in docs {
            self.push_doc(&mut st, d)?;
        }
        self.finish_sweep(st, input, corpus)
    }

    /// Starts a sweep of `expected` documents tagged `tag` (checked by [`Index::sweep_tag`]).
    fn begin_sweep(&mut self, tag: String, expected: usize) -> Result<SweepState> {
        if self.images.len() + expected > u32::MAX as usize {
            return Err(Error::config("an index holds at most 2^32 - 1 documents"));
        }
        self.ext_ids.reserve(expected, 0);
        self.images.reserve(expected);
        if self.cont_params.is_some() {
            self.cont_images.reserve(expected);
        }
        self.first_sweep.reserve_exact(expected);
        self.last_seen.reserve_exact(expected);
        if self.cfg.keep_sources {
            self.source.reserve_exact(expected);
        }
        self.labels.reserve_exact(expected);
        self.latest.reserve(expected);
        Ok(SweepState {
            sweep: self.sweeps.len() as u32,
            batch: false,
            budget: None,
            start: self.images.len(),
            ordinal: 0,
            rep: AddReport {
                tag,
                ..AddReport::default()
            },
        })
    }

    /// The next document of the sweep: an unchanged version is marked seen, a new or
    /// changed one stored with the next DocId.
    fn push_doc(&mut self, st: &mut SweepState, d: NewDoc) -> Result<()> {
        let ordinal = st.ordinal;
        st.ordinal += 1;
        st.rep.documents += 1;
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
        if let Some(prev) = self.latest.get(&d.ext_id, &self.ext_ids) {
            if *self.images.get(prev)? == d.image {
                self.last_seen[prev as usize] = st.sweep;
                st.rep.unchanged += 1;
                return Ok(());
            }
        }
        if self.images.len() >= u32::MAX as usize {
            return Err(Error::config("an index holds at most 2^32 - 1 documents"));
        }
        let id = self.images.len() as u32;
        self.ext_ids.push(&d.ext_id);
        self.latest.insert(id, &self.ext_ids);
        self.images.push(d.image);
        if let Some(c) = d.containment {
            self.cont_images.push(c);
        }
        self.first_sweep.push(st.sweep);
        self.last_seen.push(st.sweep);
        if self.cfg.keep_sources {
            self.source.push(ordinal);
        }
        self.labels.push(id);
        Ok(())
    }

    /// Ends a sweep: records it, adds the new documents to the postings, joins them to the
    /// clusters and reports what was lost.
    fn finish_sweep(
        &mut self,
        st: SweepState,
        input: &str,
        corpus: CorpusSpec,
    ) -> Result<AddReport> {
        let SweepState {
            sweep,
            batch,
            budget,
            start,
            mut rep,
            ..
        } = st;
        let end = self.images.len();
        rep.added = (end - start) as u64;
        self.sweeps.push(Sweep {
            tag: rep.tag.clone(),
            input: input.to_string(),
            corpus,
            documents: rep.documents,
            added: rep.added,
            batch,
        });
        // 2. The new documents' segment, with their postings; the segments before it are
        // not touched.
        if end > start {
            let seg = self.build_segment(start as u32, (end - start) as u32)?;
            self.segments.push(seg);
        }
        // 3. Join the new documents to the clusters: edges (j, i), j < i, i new, estimated
        // at least `t` (the components, hence the labels and the number of merges, do not
        // depend on the order of the edges), from the candidate pairs of the join of the
        // new segment's postings with the others' in key order, over each new document's
        // rarest keys (see `join`: each mapped page read once a pass).
        let t = self.cfg.threshold;
        let mut uf = UnionFind::new(end);
        for (i, &l) in self.labels.iter().enumerate() {
            if l as usize != i {
                uf.union(i as u32, l);
            }
        }
        if end > start {
            let cfg = &self.params.sketch;
            let images = &self.images;
            let needs = (start..end)
                .map(|i| Ok(min_shared(&*images.get(i as u32)?, cfg, t) as u32))
                .collect::<Result<Vec<u32>>>()?;
            let need = |i: u32| needs[i as usize - start];
            // The join's passes take what the budget leaves beside the index and the new
            // documents' keys (the plan's share; the pairs are the same for any pass size).
            let room = budget.map(|b| {
                let keys = images.values_in(start as u32, end as u32) * INDEX_JOIN_BYTES_PER_KEY;
                b.0.saturating_sub(index_held(self.bands, self.held()) + keys)
            });
            self.new_pairs(&need, index_join_pairs(room), |cands| {
                let edges = cands
                    .par_iter()
                    .map(|&(j, i)| -> Result<Option<(u32, u32)>> {
                        let e = estimate_resemblance(&*images.get(i)?, &*images.get(j)?, cfg);
                        Ok((e >= t).then_some((j, i)))
                    })
                    .collect::<Result<Vec<_>>>()?;
                for (a, b) in edges.into_iter().flatten() {
                    if uf.union(a, b) {
                        rep.merges += 1;
                    }
                }
                Ok(())
            })?;
        }
        // The label of a component is its smallest DocId: the first one met in DocId order.
        let mut min_of = vec![u32::MAX; end];
        for d in 0..end as u32 {
            let r = uf.find(d) as usize;
            if min_of[r] == u32::MAX {
                min_of[r] = d;
            }
        }
        let mut sizes = vec![0u32; end];
        for d in 0..end as u32 {
            let l = min_of[uf.find(d) as usize];
            self.labels[d as usize] = l;
            sizes[l as usize] += 1;
        }
        rep.clusters = sizes.iter().filter(|&&s| s >= 2).count() as u64;
        drop((uf, min_of, sizes));
        // 4. Lost and found.
        if sweep > 0 && !batch {
            rep.lost = self.lost_and_found(sweep)?;
        }
        // 5. The merge policy: segments of one level merged (the clusters, the lost and
        // found and every query answer do not depend on the segments).
        rep.segment_merges = self.merge_by_policy_within(budget)?;
        Ok(rep)
    }

    /// The lost and found of the complete sweep `sweep`: the latest versions last seen in
    /// the complete sweep before it or in a batch since, each with its best match among the
    /// documents seen in `sweep`.
    fn lost_and_found(&self, sweep: u32) -> Result<Vec<Lost>> {
        let mut since = sweep - 1;
        while since > 0 && self.sweeps[since as usize].batch {
            since -= 1;
        }
        let mut lost: Vec<u32> = self
            .latest
            .values()
            .filter(|&d| (since..sweep).contains(&self.last_seen[d as usize]))
            .collect();
        lost.sort_unstable();
        // Only the segments holding documents seen in this sweep can hold a match (a sweep
        // of new pages only: its own segment).
        let seen: Vec<bool> = self
            .segments
            .iter()
            .map(|s| (s.base..s.base + s.len).any(|d| self.last_seen[d as usize] == sweep))
            .collect();
        let scheme = self.params.sketch.scheme;
        let t = self.cfg.threshold;
        lost.par_iter()
            .map_init(HashMap::new, |counts, &d| {
                let ext = &self.ext_ids[d as usize];
                let hits = self.scan_in(
                    &*self.images.get(d)?,
                    Table::Context,
                    scheme,
                    t,
                    Measure::Resemblance,
                    counts,
                    |i| seen[i],
                    |c| self.last_seen[c as usize] == sweep && &self.ext_ids[c as usize] != ext,
                )?;
                let best = hits
                    .into_iter()
                    .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
                Ok(Lost {
                    doc: DocId(d),
                    ext_id: ext.to_string(),
                    found: best.map(|(c, s)| (DocId(c), self.ext_ids[c as usize].to_string(), s)),
                })
            })
            .collect()
    }
}
