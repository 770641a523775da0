//! Error analysis of a sweep: for every (method, threshold), the false positives (pairs
//! "unique to ours") and the misses (pairs "unique to the truth"), up to a number of each,
//! nearest the threshold first, each with its exact value, the estimate from the method's
//! images and the method's own score; and, once per listed pair, both canonical texts with
//! the shared passages marked ([`crate::explain`]), for the report's side-by-side views.
//!
//! "Nearest the threshold" is measured on the estimate from the images the method ran on
//! (its scheme: k-mins for lsh and super-shingle): `|estimate - t|` for resemblance (or
//! containment) thresholds, `|shared image elements - k|` for the paper's absolute k. Ties
//! are broken by the pair's ids, so the lists are deterministic. Pairs whose documents are
//! not in the corpus (a truth naming unknown ids) have no values and come last.
//!
//! Invariants: for every row, the false positives listed are a subset of (predicted minus
//! positive [minus unlabeled, with `--labeled-only`]) and the misses a subset of (positive
//! minus predicted), both complete when they are shorter than the cap; every listed pair
//! has exactly one [`PairView`], and every view's documents one [`DocView`]; all lists are
//! sorted (nothing depends on hash-map iteration order).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::explain::{Doc, Explainer};
use crate::shingle::ShingleConfig;
use crate::sketch::pipeline::PipelineConfig;
use crate::sketch::{estimate_containment, estimate_resemblance, shared_elements};
use crate::sketch::{Image, SketchConfig, Sketcher};
use crate::text::Canonicalizer;
use crate::{Error, Result};

/// Default number of false positives and of misses listed per (method, threshold).
pub const DEFAULT_ERRORS: usize = 20;

/// Which side of the truth an error pair is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorKind {
    /// Found by the method, not a positive pair of the truth ("unique to ours").
    FalsePositive,
    /// A positive pair of the truth the method did not find ("unique to the truth").
    Miss,
}

impl ErrorKind {
    /// `false-positive` or `miss` (as in `errors.csv`).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::FalsePositive => "false-positive",
            ErrorKind::Miss => "miss",
        }
    }
}

/// One listed error of one method at one threshold.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairError {
    /// Method name.
    pub method: String,
    /// The swept threshold value (as in the results rows).
    pub threshold: f64,
    /// Smaller external id.
    pub a: String,
    /// Larger external id.
    pub b: String,
    /// False positive or miss.
    pub kind: ErrorKind,
    /// Exact resemblance of the full shingle sets (max-containment with the containment
    /// measure); NaN when a document is not in the corpus.
    pub exact: f64,
    /// The estimate from the method's images (resemblance, or max of both containment
    /// estimates); NaN when a document is not in the corpus.
    pub estimate: f64,
    /// Shared image elements of the method's images.
    pub shared: Option<u32>,
    /// The method's own score for a pair it found: its estimate, or its shared count when
    /// the method gives no estimate.
    pub score: Option<f64>,
    /// Index of the pair's [`PairView`].
    pub view: usize,
}

/// One document of the views: its external id and canonical text.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DocView {
    /// External id.
    pub id: String,
    /// Canonical text (what the shingles are cut from).
    pub text: String,
}

/// One listed pair: its two documents and, per document, the byte ranges of its canonical
/// text covered by shingles the other document shares.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairView {
    /// Index of document a's [`DocView`].
    pub a: usize,
    /// Index of document b's [`DocView`].
    pub b: usize,
    /// Shared passages of a, as `[start, end)` byte ranges.
    pub passages_a: Vec<(usize, usize)>,
    /// Shared passages of b.
    pub passages_b: Vec<(usize, usize)>,
    /// Exact resemblance of the pair.
    pub resemblance: f64,
    /// Exact max-containment of the pair (of the smaller set in the larger).
    pub containment: f64,
}

/// The errors of a whole sweep and the views they refer to.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ErrorAnalysis {
    /// The cap per kind and (method, threshold).
    pub cap: usize,
    /// Errors in row order, false positives before misses, nearest the threshold first.
    pub errors: Vec<PairError>,
    /// The listed pairs.
    pub views: Vec<PairView>,
    /// Their documents.
    pub docs: Vec<DocView>,
}

impl ErrorAnalysis {
    /// The errors of `method` at `threshold`.
    pub fn of(&self, method: &str, threshold: f64) -> impl Iterator<Item = &PairError> {
        let method = method.to_string();
        self.errors
            .iter()
            .filter(move |e| e.method == method && e.threshold.total_cmp(&threshold).is_eq())
    }

    /// Writes `errors.csv`: `method,threshold,a,b,kind,exact,estimate,shared,score`
    /// (empty cells for unknown values).
    pub fn write_csv(&self, path: &Path) -> Result<()> {
        let e = |err: csv::Error| Error::format(path, format!("writing CSV: {err}"));
        let mut w = crate::corpus::dialect::writer(false).from_writer(Vec::new());
        w.write_record([
            "method",
            "threshold",
            "a",
            "b",
            "kind",
            "exact",
            "estimate",
            "shared",
            "score",
        ])
        .map_err(e)?;
        let num = |v: f64| {
            if v.is_finite() {
                v.to_string()
            } else {
                String::new()
            }
        };
        for x in &self.errors {
            w.write_record([
                x.method.clone(),
                x.threshold.to_string(),
                x.a.clone(),
                x.b.clone(),
                x.kind.name().to_string(),
                num(x.exact),
                num(x.estimate),
                x.shared.map_or(String::new(), |s| s.to_string()),
                x.score.map_or(String::new(), num),
            ])
            .map_err(e)?;
        }
        let bytes = w
            .into_inner()
            .map_err(|err| Error::format(path, format!("writing CSV: {err}")))?;
        crate::io::write_atomic(path, &bytes)
    }
}

/// A candidate error before it is listed.
pub(crate) struct Candidate {
    pub a: String,
    pub b: String,
    pub kind: ErrorKind,
    pub score: Option<f64>,
}

/// Per-document values computed on demand (canonical shingle set and one image per
/// scheme), shared by every row of a sweep.
pub(crate) struct ErrorCollector<'t> {
    cap: usize,
    containment: bool,
    canon: Canonicalizer,
    shingle: ShingleConfig,
    explainer: Explainer,
    texts: hashbrown::HashMap<&'t str, &'t str>,
    images: hashbrown::HashMap<(SketchConfig, &'t str), Image>,
    sketchers: Vec<(SketchConfig, Option<Sketcher>)>,
    out: ErrorAnalysis,
    view_of: BTreeMap<(String, String), usize>,
    doc_of: BTreeMap<String, usize>,
}

impl<'t> ErrorCollector<'t> {
    /// A collector over the documents `docs` (external id, raw text) cut as `pipeline`
    /// says; `containment` when the sweep measures max-containment.
    pub fn new(
        cap: usize,
        containment: bool,
        pipeline: &PipelineConfig,
        docs: impl IntoIterator<Item = (&'t str, &'t str)>,
    ) -> Result<Self> {
        Ok(ErrorCollector {
            cap,
            containment,
            canon: Canonicalizer::new(pipeline.text.clone())?,
            shingle: pipeline.shingle,
            // The views need the texts and shingles only: images without weights serve them
            // (tf-idf weights need the corpus's document frequencies; ICWS samples weights,
            // so its views are k-mins ones).
            explainer: Explainer::new(&PipelineConfig {
                sketch: SketchConfig {
                    weighting: None,
                    scheme: match pipeline.sketch.scheme {
                        crate::sketch::Scheme::Icws => crate::sketch::Scheme::KMins,
                        s => s,
                    },
                    ..pipeline.sketch
                },
                ..pipeline.clone()
            })?,
            texts: docs.into_iter().collect(),
            images: hashbrown::HashMap::new(),
            sketchers: Vec::new(),
            out: ErrorAnalysis {
                cap,
                ..Default::default()
            },
            view_of: BTreeMap::new(),
            doc_of: BTreeMap::new(),
        })
    }

    fn image(&mut self, cfg: SketchConfig, id: &'t str) -> Option<&Image> {
        if !self.images.contains_key(&(cfg, id)) {
            if !self.sketchers.iter().any(|s| s.0 == cfg) {
                // tf-idf images need the corpus's document frequencies: no estimate then.
                self.sketchers
                    .push((cfg, Sketcher::new(self.shingle, cfg).ok()));
            }
            let sk = self.sketchers.iter().find(|s| s.0 == cfg)?.1.as_ref()?;
            let c = self.canon.canonicalize(self.texts[id]);
            let img = sk.sketch(&c);
            self.images.insert((cfg, id), img);
        }
        self.images.get(&(cfg, id))
    }

    /// The estimate and shared elements of a pair from images made with `cfg`.
    fn estimate(&mut self, cfg: SketchConfig, a: &'t str, b: &'t str) -> (f64, Option<u32>) {
        if self.image(cfg, a).is_none() || self.image(cfg, b).is_none() {
            return (f64::NAN, None);
        }
        let (ia, ib) = (&self.images[&(cfg, a)], &self.images[&(cfg, b)]);
        let shared = shared_elements(ia, ib, cfg.scheme) as u32;
        let est = if self.containment {
            match (
                estimate_containment(ia, ib, &cfg),
                estimate_containment(ib, ia, &cfg),
            ) {
                (Ok(x), Ok(y)) => x.max(y),
                _ => f64::NAN,
            }
        } else {
            estimate_resemblance(ia, ib, &cfg)
        };
        (est, Some(shared))
    }

    /// Lists the errors of one row: `candidates` are every false positive and miss of the
    /// row; the `cap` nearest the threshold of each kind are kept. `min_common` is the
    /// absolute k when the sweep runs on those.
    pub fn add_row(
        &mut self,
        method: &str,
        threshold: f64,
        min_common: bool,
        cfg: SketchConfig,
        candidates: Vec<Candidate>,
    ) {
        if self.cap == 0 {
            return;
        }
        let mut scored: Vec<(f64, PairError)> = Vec::with_capacity(candidates.len());
        for c in candidates {
            let (ka, kb) = match (
                self.texts.get_key_value(c.a.as_str()),
                self.texts.get_key_value(c.b.as_str()),
            ) {
                (Some((ka, _)), Some((kb, _))) => (Some(*ka), Some(*kb)),
                _ => (None, None),
            };
            let (estimate, shared) = match (ka, kb) {
                (Some(a), Some(b)) => self.estimate(cfg, a, b),
                _ => (f64::NAN, None),
            };
            let distance = if !threshold.is_finite() {
                f64::INFINITY
            } else if min_common {
                shared.map_or(f64::INFINITY, |s| (f64::from(s) - threshold).abs())
            } else if estimate.is_finite() {
                (estimate - threshold).abs()
            } else {
                f64::INFINITY
            };
            scored.push((
                distance,
                PairError {
                    method: method.to_string(),
                    threshold,
                    a: c.a,
                    b: c.b,
                    kind: c.kind,
                    exact: f64::NAN,
                    estimate,
                    shared,
                    score: c.score,
                    view: 0,
                },
            ));
        }
        scored.sort_by(|x, y| {
            (x.1.kind, x.0, &x.1.a, &x.1.b)
                .partial_cmp(&(y.1.kind, y.0, &y.1.a, &y.1.b))
                .expect("distances are not NaN")
        });
        let mut taken = [0usize; 2];
        for (_, mut e) in scored {
            let slot = &mut taken[e.kind as usize];
            if *slot >= self.cap {
                continue;
            }
            *slot += 1;
            if let (Some((a, ta)), Some((b, tb))) = (
                self.texts
                    .get_key_value(e.a.as_str())
                    .map(|(k, v)| (*k, *v)),
                self.texts
                    .get_key_value(e.b.as_str())
                    .map(|(k, v)| (*k, *v)),
            ) {
                e.view = self.view(a, ta, b, tb);
                let v = &self.out.views[e.view];
                e.exact = if self.containment {
                    v.containment
                } else {
                    v.resemblance
                };
            } else {
                e.view = usize::MAX;
            }
            self.out.errors.push(e);
        }
    }

    fn doc(&mut self, id: &str, canonical: &str) -> usize {
        if let Some(&i) = self.doc_of.get(id) {
            return i;
        }
        let i = self.out.docs.len();
        self.out.docs.push(DocView {
            id: id.to_string(),
            text: canonical.to_string(),
        });
        self.doc_of.insert(id.to_string(), i);
        i
    }

    fn view(&mut self, a: &str, ta: &str, b: &str, tb: &str) -> usize {
        let key = (a.to_string(), b.to_string());
        if let Some(&v) = self.view_of.get(&key) {
            return v;
        }
        let ex = self
            .explainer
            .explain(Doc { id: a, text: ta }, Doc { id: b, text: tb });
        let da = self.doc(a, &ex.a.text);
        let db = self.doc(b, &ex.b.text);
        let ranges = |v: &[std::ops::Range<usize>]| v.iter().map(|r| (r.start, r.end)).collect();
        let v = self.out.views.len();
        self.out.views.push(PairView {
            a: da,
            b: db,
            passages_a: ranges(&ex.a.passages),
            passages_b: ranges(&ex.b.passages),
            resemblance: ex.resemblance,
            containment: ex.containment_ab.max(ex.containment_ba),
        });
        self.view_of.insert(key, v);
        v
    }

    /// The analysis.
    pub fn finish(self) -> ErrorAnalysis {
        self.out
    }
}
