//! [`Explainer`]: canonicalizes, shingles and sketches two documents with one pipeline
//! configuration and explains their resemblance.
//!
//! Invariant: every number comes from the crate's own functions (the canonicalizer, the
//! shingle hash, the sketcher, the estimators), so it equals what the rest of fimdup
//! computes for the same documents and options.

use super::shared::{passages, shared_shingles};
use super::{verdict, ConfigEcho, Doc, Explanation, Side};
use crate::cluster::{ClusterConfig, Method};
use crate::shingle::{containment, resemblance, shingle_set};
use crate::sketch::pipeline::PipelineConfig;
use crate::sketch::{estimate_resemblance, shared_elements, Image, Scheme, Sketcher, Weighting};
use crate::text::{Canonical, Canonicalizer};
use crate::{Error, Result};

/// Explains pairs of documents under one pipeline configuration (text, shingles, images).
pub struct Explainer {
    pipeline: PipelineConfig,
    canon: Canonicalizer,
    /// Images of the pipeline's scheme.
    sketcher: Sketcher,
    /// Images of the schemes the methods may run on instead (`Method::scheme_for`), when
    /// they differ from the pipeline's.
    others: Vec<(Scheme, Sketcher)>,
}

impl std::fmt::Debug for Explainer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Explainer")
            .field("pipeline", &self.pipeline)
            .finish()
    }
}

/// One document canonicalized, shingled and sketched.
pub(super) struct Worked {
    pub id: String,
    pub raw: String,
    pub canonical: Canonical,
    /// The full shingle set, ascending and distinct.
    pub set: Vec<u64>,
    /// The image of the pipeline's scheme.
    pub image: Image,
}

impl Explainer {
    /// Validates; lsh/super-shingle checks use `Method::scheme_for(pipeline.sketch.scheme)`
    /// images. A tf-idf weighting is refused: its weights come from the document
    /// frequencies of a whole corpus, which one pair does not have.
    pub fn new(pipeline: &PipelineConfig) -> Result<Self> {
        pipeline.validate()?;
        if matches!(pipeline.sketch.weighting, Some(Weighting::TfIdf { .. })) {
            return Err(Error::config(
                "explain compares one pair: tf-idf weights need the document frequencies of a whole corpus (use no weighting or bag)",
            ));
        }
        let canon = Canonicalizer::new(pipeline.text.clone())?;
        let sketcher = Sketcher::new(pipeline.shingle, pipeline.sketch)?;
        let mut others = Vec::new();
        for m in Method::ALL {
            let s = m.scheme_for(pipeline.sketch.scheme);
            if s != pipeline.sketch.scheme && !others.iter().any(|(o, _)| *o == s) {
                let cfg = crate::sketch::SketchConfig {
                    scheme: s,
                    ..pipeline.sketch
                };
                others.push((s, Sketcher::new(pipeline.shingle, cfg)?));
            }
        }
        Ok(Explainer {
            pipeline: pipeline.clone(),
            canon,
            sketcher,
            others,
        })
    }

    /// The pipeline configuration.
    pub fn pipeline(&self) -> &PipelineConfig {
        &self.pipeline
    }

    /// Everything but the method verdict.
    pub fn explain(&self, a: Doc<'_>, b: Doc<'_>) -> Explanation {
        let (wa, wb) = (self.work(a), self.work(b));
        self.explanation(&wa, &wb)
    }

    /// With the verdict of one method at one threshold (see [`super::Verdict`]).
    pub fn explain_method(
        &self,
        a: Doc<'_>,
        b: Doc<'_>,
        cluster: &ClusterConfig,
    ) -> Result<Explanation> {
        cluster.validate()?;
        let (wa, wb) = (self.work(a), self.work(b));
        let mut e = self.explanation(&wa, &wb);
        e.verdict = Some(verdict::verdict(self, &wa, &wb, cluster)?);
        Ok(e)
    }

    /// The sketcher of `scheme`: the pipeline's, or one a method runs on.
    pub(super) fn sketcher_for(&self, scheme: Scheme) -> Result<&Sketcher> {
        if scheme == self.pipeline.sketch.scheme {
            return Ok(&self.sketcher);
        }
        self.others
            .iter()
            .find(|(s, _)| *s == scheme)
            .map(|(_, sk)| sk)
            .ok_or_else(|| Error::config(format!("no sketcher for {scheme} images")))
    }

    /// The image of `w` in `scheme` (the pipeline's, or one a method runs on).
    pub(super) fn image_in(&self, w: &Worked, scheme: Scheme) -> Result<Image> {
        if scheme == self.pipeline.sketch.scheme {
            return Ok(w.image.clone());
        }
        Ok(self.sketcher_for(scheme)?.sketch(&w.canonical))
    }

    fn work(&self, d: Doc<'_>) -> Worked {
        let canonical = self.canon.canonicalize(d.text);
        let set = shingle_set(&canonical, &self.pipeline.shingle);
        let image = self.sketcher.sketch(&canonical);
        Worked {
            id: d.id.to_string(),
            raw: d.text.to_string(),
            canonical,
            set,
            image,
        }
    }

    fn explanation(&self, a: &Worked, b: &Worked) -> Explanation {
        let cfg = &self.pipeline;
        let shared = shared_shingles(&a.canonical, &b.canonical, &cfg.shingle);
        let side = |w: &Worked, passages| Side {
            id: w.id.clone(),
            text: w.canonical.text.clone(),
            shingles: w.set.len(),
            passages,
        };
        let pa = passages(shared.iter().map(|s| &s.ranges_a));
        let pb = passages(shared.iter().map(|s| &s.ranges_b));
        let common = crate::sorted::intersection_size(&a.set, &b.set);
        Explanation {
            a: side(a, pa),
            b: side(b, pb),
            resemblance: resemblance(&a.set, &b.set),
            containment_ab: containment(&a.set, &b.set),
            containment_ba: containment(&b.set, &a.set),
            estimate: estimate_resemblance(&a.image, &b.image, &cfg.sketch),
            shared_image_elements: shared_elements(&a.image, &b.image, cfg.sketch.scheme),
            shared_shingles: shared,
            verdict: None,
            tokens_a: a.canonical.len(),
            tokens_b: b.canonical.len(),
            union_shingles: a.set.len() + b.set.len() - common,
            image_size_a: a.image.len(),
            image_size_b: b.image.len(),
            config: ConfigEcho {
                text: cfg.text_params(),
                shingle: cfg.shingle,
                sketch: cfg.sketch,
            },
        }
    }
}
