//! The [`Verdict`] of one clustering method at one threshold on one pair.
//!
//! The method is run on the two documents as a corpus of their own, through
//! [`Prepared::run`] (the path of `fimdup cluster`: collapse of identical,
//! lexically-equivalent and shingle-equivalent documents, the threshold translated by
//! [`crate::cluster::threshold`], images of [`Method::scheme_for`] the pipeline's scheme);
//! `paired` is whether the pair is among its output pairs. The numbers the method compared
//! are recomputed beside it by the method itself ([`Method::pair_detail`], in the
//! method's file): shared image elements, agreeing positions and colliding bands, super
//! shingles, exact resemblance or containment ([`MethodDetail`]).
//!
//! Invariant: `paired` is the method's own answer, never a re-derivation; corpus-level
//! guards are not visible for one pair ([`GUARD_NOTE`]).

use super::explainer::{Explainer, Worked};
pub use crate::cluster::pair_detail::MethodDetail;
use crate::cluster::pair_detail::PairView;
use crate::cluster::{ClusterConfig, Measure, Method, Prepared, Reads, Threshold};
use crate::sketch::pipeline::Fingerprints;
use crate::sketch::{ImageSet, Scheme};
use crate::spill::SpillConfig;
use crate::text::{fingerprint_canonical, fingerprint_raw};
use crate::{DocId, Result};

/// What a verdict cannot show, stated with every verdict.
pub const GUARD_NOTE: &str = "the method ran on these two documents alone: what depends on a corpus (max-df dropping common elements, the itemset and pair caps, collapse with a third document, LSH center clustering giving a document to another center, exact verification) is not visible for one pair";

/// Whether one method pairs the two documents at one threshold, and why.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Verdict {
    /// The method.
    pub method: Method,
    /// The threshold asked for.
    pub threshold: Threshold,
    /// What a resemblance threshold measures.
    pub measure: Measure,
    /// The image scheme the method ran on.
    pub scheme: Scheme,
    /// The image size `n` of that scheme.
    pub image_size: usize,
    /// Whether the method pairs the two documents.
    pub paired: bool,
    /// The method's own k (shared elements, agreeing positions, shared super shingles),
    /// when it has one.
    pub k: Option<u32>,
    /// How the threshold became k (as the cluster summary states it).
    pub k_rule: String,
    /// When the two documents are collapsed into one before clustering: `identical`,
    /// `lexical` (same canonical text) or `shingle` (equal images). Every method then pairs
    /// them.
    pub collapsed: Option<String>,
    /// The numbers the method compared.
    pub detail: MethodDetail,
    /// One sentence: paired or not, and why.
    pub reason: String,
    /// What one pair cannot show ([`GUARD_NOTE`]).
    pub note: String,
}

/// The verdict of `cluster.method` at `cluster.threshold` on `a` and `b`.
pub(super) fn verdict(
    ex: &Explainer,
    a: &Worked,
    b: &Worked,
    cluster: &ClusterConfig,
) -> Result<Verdict> {
    let pipeline = ex.pipeline();
    let method = cluster.method;
    let scheme = method.scheme_for(pipeline.sketch.scheme);
    let (ia, ib) = (ex.image_in(a, scheme)?, ex.image_in(b, scheme)?);
    let params = ex.sketcher_for(scheme)?.params(pipeline.text_params());
    let images = ImageSet {
        params,
        ext_ids: vec![a.id.clone(), b.id.clone()],
        images: vec![ia.clone(), ib.clone()],
    };
    let prints = Fingerprints {
        raw: vec![
            fingerprint_raw(a.raw.as_bytes()),
            fingerprint_raw(b.raw.as_bytes()),
        ],
        canonical: vec![
            fingerprint_canonical(&a.canonical),
            fingerprint_canonical(&b.canonical),
        ],
    };
    let mut prep = Prepared::new(images, Some(&prints))?;
    if method.reads() == Reads::Sets {
        prep.set_sets(vec![a.set.clone(), b.set.clone()])?;
    }
    let out = prep.run(cluster, &SpillConfig::default())?;
    let paired = out.pairs.iter().any(|p| (p.a, p.b) == (DocId(0), DocId(1)));
    let c = prep.collapse().summary();
    let collapsed = (prep.collapse().rep(DocId(1)) == DocId(0)).then(|| {
        if c.identical > 0 {
            "identical"
        } else if c.lexical > 0 {
            "lexical"
        } else {
            "shingle"
        }
        .to_string()
    });
    let s = &out.summary;
    let n = s.image_size as usize;
    let t = match cluster.threshold {
        Threshold::Resemblance(t) => Some(t),
        Threshold::MinCommon(_) => None,
    };
    let sketch_cfg = crate::sketch::SketchConfig {
        scheme,
        ..pipeline.sketch
    };
    let view = PairView {
        cfg: cluster,
        summary: s,
        scheme,
        sketch: &sketch_cfg,
        images: (&ia, &ib),
        sets: (&a.set, &b.set),
        threshold: t,
    };
    let (detail, reason) = method.pair_detail(&view)?;
    let reason = match &collapsed {
        Some(kind) => format!(
            "paired: the two documents are {} and are collapsed into one before clustering, so every method pairs them ({reason})",
            match kind.as_str() {
                "identical" => "identical",
                "lexical" => "lexically equivalent (the same canonical text)",
                _ => "shingle-equivalent (equal images)",
            }
        ),
        None => format!("{}: {reason}", if paired { "paired" } else { "not paired" }),
    };
    Ok(Verdict {
        method,
        threshold: cluster.threshold,
        measure: cluster.measure,
        scheme,
        image_size: n,
        paired,
        k: s.k,
        k_rule: s.k_rule.clone(),
        collapsed,
        detail,
        reason,
        note: GUARD_NOTE.to_string(),
    })
}
