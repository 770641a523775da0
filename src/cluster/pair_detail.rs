//! What one method compared for one pair ([`MethodDetail`]): the numbers behind
//! `fimdup explain`'s verdict, recomputed with the functions the method itself uses (shared
//! image elements, agreeing positions and colliding bands with the LSH seed, super
//! shingles, exact resemblance or containment). Each method gives its own
//! (`MethodSpec::pair_detail`) from a [`PairView`] of the two documents.
//!
//! Invariant: a detail is computed from the two documents' images (or full sets) and the
//! run's summary only, so it is the same whichever entry point asks.

use super::{ClusterConfig, ClusterSummary, Measure};
use crate::shingle::containment;
use crate::sketch::{estimate_resemblance, shared_elements, Image, Scheme, SketchConfig};

/// Two documents as a method's verdict sees them: their images of the scheme the method
/// ran on, their full shingle sets (ascending), and the run's configuration and summary.
pub struct PairView<'a> {
    /// The run's configuration.
    pub cfg: &'a ClusterConfig,
    /// The summary of the method's run on the two documents (its k, bands, threshold).
    pub summary: &'a ClusterSummary,
    /// The scheme the method ran on.
    pub scheme: Scheme,
    /// The sketch configuration of that scheme.
    pub sketch: &'a SketchConfig,
    /// The two images.
    pub images: (&'a Image, &'a Image),
    /// The two full shingle sets.
    pub sets: (&'a [u64], &'a [u64]),
    /// The resemblance (or containment) threshold asked for; `None` for an absolute k.
    pub threshold: Option<f64>,
}

impl PairView<'_> {
    /// The image size `n` of the run.
    pub fn n(&self) -> usize {
        self.summary.image_size as usize
    }
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
    /// simhash: the Hamming distance of the two fingerprints against h.
    SimHash {
        /// Fingerprint width f.
        bits: u32,
        /// Bits in which the fingerprints differ.
        distance: u32,
        /// The Hamming threshold h.
        hamming: u32,
        /// The resemblance the distance implies.
        estimate: f64,
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

/// The detail of the methods that count shared image elements (concept, union-find): the
/// shared elements against k, with the resemblance estimate; by containment, the mod-m
/// containment estimate against the threshold.
pub(super) fn shared_elements_detail(v: &PairView<'_>) -> (MethodDetail, String) {
    let (ia, ib) = v.images;
    if v.cfg.measure == Measure::Containment {
        let value = max_containment(ia.values(), ib.values());
        let t = v.threshold.unwrap_or(0.0);
        return (
            MethodDetail::Value {
                measure: Measure::Containment,
                value,
                exact: false,
                threshold: t,
            },
            format!("the mod-m containment estimate is {value:.4} against the threshold {t}"),
        );
    }
    let shared = shared_elements(ia, ib, v.scheme);
    let k = v.summary.k.unwrap_or(0);
    let estimate = estimate_resemblance(ia, ib, v.sketch);
    let est = match v.threshold {
        Some(t) => format!("; the estimate {estimate:.4} against the threshold {t}"),
        None => format!("; the estimate is {estimate:.4}"),
    };
    (
        MethodDetail::SharedElements {
            shared,
            k,
            estimate,
            threshold: v.threshold,
        },
        format!(
            "the images share {shared} of {} elements, the method needs k = {k}{est}",
            v.n()
        ),
    )
}

/// The detail of the exact join: the exact resemblance or max-containment of the full sets
/// against the threshold.
pub(super) fn exact_detail(v: &PairView<'_>) -> (MethodDetail, String) {
    let measure = v.cfg.measure;
    let (a, b) = v.sets;
    let value = match measure {
        Measure::Resemblance => crate::shingle::resemblance(a, b),
        Measure::Containment => max_containment(a, b),
    };
    let t = v.threshold.unwrap_or(1.0);
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

/// `0, 3, 7` (at most 20 items, then `...`).
pub(super) fn list<T: std::fmt::Display>(v: &[T]) -> String {
    let mut s: Vec<String> = v.iter().take(20).map(|x| x.to_string()).collect();
    if v.len() > 20 {
        s.push(format!("... {} more", v.len() - 20));
    }
    s.join(", ")
}
