//! Building an index and adding sweeps: storing new and changed documents, updating the
//! postings incrementally, joining the new documents to the clusters, and the lost and found
//! report (see the invariants in [the module docs](super)).

use std::path::Path;

use hashbrown::HashMap;
use rayon::prelude::*;

use super::{CorpusSpec, Index, IndexConfig, Measure, Postings, Sweep};
use crate::cluster::uf::UnionFind;
use crate::corpus::CorpusConfig;
use crate::sketch::pipeline::{for_each_canonical_batch, text_params, PipelineConfig};
use crate::sketch::{
    super_shingles, Image, Scheme, Scratch, SketchConfig, SketchParams, Sketcher, Weighting,
};
use crate::{DocId, Error, Result};

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
        let stats =
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
        let mut rep = self.add_documents(docs, tag, &input_str, CorpusSpec::from_config(corpus))?;
        rep.renamed_ids = stats.renamed_ids;
        rep.skipped_oversized = stats.skipped_oversized;
        Ok(rep)
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
}
