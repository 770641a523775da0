//! The [`Verdict`] of one clustering method at one threshold on one pair.
//!
//! The method is run on the two documents as a corpus of their own, through
//! [`Prepared::run`] (the path of `fimdup cluster`: collapse of identical,
//! lexically-equivalent and shingle-equivalent documents, the threshold translated by
//! [`crate::cluster::threshold`], images of [`Method::scheme_for`] the pipeline's scheme);
//! `paired` is whether the pair is among its output pairs. The numbers the method compared
//! are recomputed beside it with the functions the method uses: shared image elements
//! ([`shared_elements`], the support concept and union-find count), agreeing positions and
//! colliding bands ([`lsh::agreements`], [`group_hashes`] with the LSH seed), super
//! shingles ([`supershingle::super_shingles`]), exact resemblance or containment.
//!
//! Invariant: `paired` is the method's own answer, never a re-derivation; corpus-level
//! guards are not visible for one pair ([`GUARD_NOTE`]).

use super::explainer::{Explainer, Worked};
use crate::cluster::{lsh, supershingle, ClusterConfig, Measure, Method, Prepared, Threshold};
use crate::shingle::containment;
use crate::sketch::hash::group_hashes;
use crate::sketch::pipeline::Fingerprints;
use crate::sketch::{estimate_resemblance, shared_elements, Image, ImageSet, Scheme};
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

/// The numbers a method compares for a pair.
#[derive(Clone, Debug, serde::Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum MethodDetail {
    /// concept, union-find: image elements the two images share, against k; with the
    /// resemblance estimate from the images and the threshold it stands for.
    SharedElements {
        /// Shared image elements (the pair's support in the context).
        shared: usize,
        /// The k they are compared with.
        k: u32,
        /// The resemblance estimate from the two images.
        estimate: f64,
        /// The resemblance threshold, when one was given.
        threshold: Option<f64>,
    },
    /// lsh: the band layout, the bands whose hashes collide, and the filtering pass.
    Lsh {
        /// Bands b.
        bands: u32,
        /// Rows (positions) per band r.
        rows: u32,
        /// Indices of the bands on which the two images agree entirely.
        colliding_bands: Vec<u32>,
        /// Positions on which the two images agree.
        agreeing: usize,
        /// Agreeing positions the filtering pass needs.
        k: u32,
    },
    /// super-shingle: the super shingles of both images and which are shared.
    SuperShingle {
        /// Image elements per super shingle.
        per: u32,
        /// Shared super shingles needed.
        min_shared: u32,
        /// Super shingles of A.
        count_a: usize,
        /// Super shingles of B.
        count_b: usize,
        /// Distinct super shingles in both.
        shared: usize,
        /// Indices (in A's list, image order) of the shared super shingles.
        shared_indices: Vec<usize>,
    },
    /// exact (and containment runs): the measured value against the threshold.
    Value {
        /// What was measured: resemblance, or max-containment `|A n B| / min(|A|, |B|)`.
        measure: Measure,
        /// The value (exact for `exact`; from mod-m images for concept / union-find).
        value: f64,
        /// Whether it comes from the full shingle sets (else from images).
        exact: bool,
        /// The threshold.
        threshold: f64,
    },
}

/// Max-containment `|A n B| / min(|A|, |B|)` of two ascending sets (0 when one is empty).
fn max_containment(a: &[u64], b: &[u64]) -> f64 {
    containment(a, b).max(containment(b, a))
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
    if method == Method::Exact {
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
    let (detail, reason) = match method {
        Method::Concept | Method::UnionFind if cluster.measure == Measure::Containment => {
            let value = max_containment(ia.values(), ib.values());
            let t = t.unwrap_or(0.0);
            (
                MethodDetail::Value {
                    measure: Measure::Containment,
                    value,
                    exact: false,
                    threshold: t,
                },
                format!("the mod-m containment estimate is {value:.4} against the threshold {t}",),
            )
        }
        Method::Concept | Method::UnionFind => {
            let shared = shared_elements(&ia, &ib, scheme);
            let k = s.k.unwrap_or(0);
            let estimate = estimate_resemblance(&ia, &ib, &sketch_cfg);
            let est = match t {
                Some(t) => format!("; the estimate {estimate:.4} against the threshold {t}"),
                None => format!("; the estimate is {estimate:.4}"),
            };
            (
                MethodDetail::SharedElements {
                    shared,
                    k,
                    estimate,
                    threshold: t,
                },
                format!("the images share {shared} of {n} elements, the method needs k = {k}{est}",),
            )
        }
        Method::Lsh => {
            let (bands, rows) = (s.bands.unwrap_or(0), s.rows.unwrap_or(0));
            let bh = |im: &Image| {
                group_hashes(
                    im.values(),
                    true,
                    rows as usize,
                    bands as usize,
                    cluster.lsh.seed,
                )
            };
            let (ha, hb) = (bh(&ia), bh(&ib));
            let colliding: Vec<u32> = ha
                .iter()
                .zip(&hb)
                .enumerate()
                .filter(|(_, (x, y))| x == y)
                .map(|(i, _)| i as u32)
                .collect();
            let agreeing = lsh::agreements(ia.values(), ib.values());
            let k = s.k.unwrap_or(0);
            let why = if colliding.is_empty() {
                "no band collides, so the pair is never a candidate".to_string()
            } else {
                format!(
                    "{} of {bands} bands collide ({}), and the images agree on {agreeing} of {n} positions against the filtering pass's k = {k}",
                    colliding.len(),
                    list(&colliding)
                )
            };
            (
                MethodDetail::Lsh {
                    bands,
                    rows,
                    colliding_bands: colliding,
                    agreeing,
                    k,
                },
                format!("{bands} bands x {rows} rows; {why}"),
            )
        }
        Method::SuperShingle => {
            let positional = scheme.is_positional();
            let (per, _) = supershingle::width(cluster, positional, n)?;
            let min_shared = s.k.unwrap_or(cluster.super_shingle.min_shared);
            let ss = supershingle::SuperShingleConfig {
                per: Some(per),
                ..cluster.super_shingle
            };
            let sa = supershingle::super_shingles(ia.values(), positional, &ss);
            let sb = supershingle::super_shingles(ib.values(), positional, &ss);
            let mut set_b = sb.clone();
            set_b.sort_unstable();
            set_b.dedup();
            let shared_indices: Vec<usize> = sa
                .iter()
                .enumerate()
                .filter(|(_, h)| set_b.binary_search(h).is_ok())
                .map(|(i, _)| i)
                .collect();
            let mut distinct: Vec<u64> = shared_indices.iter().map(|&i| sa[i]).collect();
            distinct.sort_unstable();
            distinct.dedup();
            let shared = distinct.len();
            let reason = format!(
                "{} and {} super shingles of {per} image elements, {shared} shared ({}), the method needs {min_shared}",
                sa.len(),
                sb.len(),
                if shared_indices.is_empty() {
                    "none".to_string()
                } else {
                    format!("indices {}", list(&shared_indices))
                }
            );
            (
                MethodDetail::SuperShingle {
                    per,
                    min_shared,
                    count_a: sa.len(),
                    count_b: sb.len(),
                    shared,
                    shared_indices,
                },
                reason,
            )
        }
        Method::Exact => {
            let measure = cluster.measure;
            let value = match measure {
                Measure::Resemblance => crate::shingle::resemblance(&a.set, &b.set),
                Measure::Containment => max_containment(&a.set, &b.set),
            };
            let t = t.unwrap_or(1.0);
            (
                MethodDetail::Value {
                    measure,
                    value,
                    exact: true,
                    threshold: t,
                },
                format!(
                    "the exact {} is {value:.4} against the threshold {t}",
                    measure.name()
                ),
            )
        }
    };
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

/// `0, 3, 7` (at most 20 items, then `...`).
fn list<T: std::fmt::Display>(v: &[T]) -> String {
    let mut s: Vec<String> = v.iter().take(20).map(|x| x.to_string()).collect();
    if v.len() > 20 {
        s.push(format!("... {} more", v.len() - 20));
    }
    s.join(", ")
}
