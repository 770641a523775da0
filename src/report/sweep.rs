//! Threshold sweeps: every method at every threshold on one corpus, evaluated against one
//! labeled pair list (IK09 section 4, Tables 2-6, Figures 1-4).
//!
//! Each image scheme is sketched once and reused for every threshold ([`Prepared`]); the
//! exact method's shingle sets are loaded once. For every (method, threshold) the member
//! pairs of the method's clusters are compared with the truth (the five values, P, R, F1)
//! and its clusters are checked for false duplicates (a member pair of exact resemblance
//! below a floor).
//!
//! Invariants: rows come out in method order, then threshold order; everything but the
//! timing and memory columns is deterministic for any number of threads.

use std::path::Path;
use std::time::Instant;

use super::{peak_rss_bytes, reset_peak_rss, SweepRow};
use crate::cluster::job::{load_sets, verify_with_corpus, CorpusSource, Prepared};
use crate::cluster::lsh::choose_bands;
use crate::cluster::{
    candidate_threshold, ClusterConfig, Grouping, Measure, Method, Regroup, Threshold,
    VERIFY_SIGMAS,
};
use crate::corpus;
use crate::eval::{
    evaluate_labeled, false_clusters, FalseClusterConfig, Labels, Prediction, ShingleSets,
    TruthTable,
};
use crate::sketch::pipeline::{sketch_corpus, PipelineConfig};
use crate::sketch::Scheme;
use crate::{Error, Result};

/// The thresholds of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub enum SweepThresholds {
    /// Resemblance thresholds, translated per method.
    Resemblance(Vec<f64>),
    /// The paper's absolute k (shared image elements), as in IK09's tables; the exact join
    /// has no such k and is skipped.
    MinCommon(Vec<u32>),
}

/// What to sweep.
#[derive(Clone, Debug)]
pub struct SweepConfig {
    /// Methods, in report order.
    pub methods: Vec<Method>,
    /// Thresholds.
    pub thresholds: SweepThresholds,
    /// Corpus, text, shingle and sketch options. Its scheme serves concept, union-find and
    /// exact (collapse); lsh and super-shingle use k-mins images of the same size and seed
    /// unless the scheme is already positional.
    pub pipeline: PipelineConfig,
    /// Options shared by every method (max_df, guards, LSH weights...).
    pub cluster: ClusterConfig,
    /// Keep only pairs whose exact resemblance passes the threshold (`--verify exact`).
    pub verify: bool,
    /// False-duplicate cluster floor.
    pub false_clusters: FalseClusterConfig,
    /// `--labeled-only`: predicted pairs the truth file does not list at all are ignored
    /// (neither found nor false positives; see [`evaluate_labeled`]). For truths that label
    /// only some pairs (answers against their source, say).
    pub labeled_only: bool,
}

impl SweepConfig {
    /// Checks the parts and that there is something to sweep.
    pub fn validate(&self) -> Result<()> {
        if self.methods.is_empty() {
            return Err(Error::config("a sweep needs at least one method"));
        }
        match &self.thresholds {
            SweepThresholds::Resemblance(v) if v.is_empty() => {
                return Err(Error::config("a sweep needs at least one threshold"))
            }
            SweepThresholds::Resemblance(v) => {
                if let Some(t) = v.iter().find(|t| !(0.0..=1.0).contains(*t)) {
                    return Err(Error::config(format!("threshold {t} is not in [0, 1]")));
                }
            }
            SweepThresholds::MinCommon(v) if v.is_empty() || v.contains(&0) => {
                return Err(Error::config("min-common values must be at least 1"))
            }
            SweepThresholds::MinCommon(_) => {}
        }
        if self.verify && self.cluster.measure == Measure::Containment {
            return Err(Error::config(
                "--verify exact checks resemblance; it cannot be combined with --measure containment",
            ));
        }
        if self.cluster.measure == Measure::Containment {
            if let Some(m) = self
                .methods
                .iter()
                .find(|m| !matches!(m, Method::Exact | Method::UnionFind))
            {
                return Err(Error::config(format!(
                    "--measure containment is supported by exact and union-find (on mod-m images) only, not {m}"
                )));
            }
            if let SweepThresholds::MinCommon(_) = self.thresholds {
                return Err(Error::config(
                    "--measure containment takes containment thresholds, not --min-common",
                ));
            }
        }
        self.pipeline.validate()?;
        self.false_clusters.validate()
    }
}

/// The scheme a method is run on in a sweep.
pub fn scheme_for(method: Method, base: Scheme) -> Scheme {
    match method {
        Method::Lsh | Method::SuperShingle if !base.is_positional() => Scheme::KMins,
        _ => base,
    }
}

/// What [`sweep`] returns.
#[derive(Clone, Debug, Default)]
pub struct SweepOutput {
    /// One row per (method, threshold).
    pub rows: Vec<SweepRow>,
    /// Seconds spent sketching each scheme (included in the rows' `seconds`).
    pub sketch_seconds: Vec<(String, f64)>,
    /// Documents in the corpus.
    pub documents: u64,
    /// Positive pairs in the truth under the rule.
    pub truth_pairs: u64,
    /// Notes (skipped combinations and the like).
    pub notes: Vec<String>,
}

/// Runs the sweep on the corpus at `input` against `labels`; `truth` supplies exact
/// resemblances for the false-cluster check (pairs it lacks are computed from the corpus).
/// `progress` is told what runs.
pub fn sweep(
    input: &Path,
    truth: &TruthTable,
    labels: &Labels,
    cfg: &SweepConfig,
    progress: &dyn Fn(&str),
) -> Result<SweepOutput> {
    cfg.validate()?;
    let listed = cfg.labeled_only.then(|| truth.listed());
    let mut out = SweepOutput {
        truth_pairs: labels.len() as u64,
        ..Default::default()
    };
    // Sketch each needed scheme once.
    let base = cfg.pipeline.sketch.scheme;
    let mut prepared: Vec<(Scheme, Prepared, f64, Option<Vec<u64>>)> = Vec::new();
    for &m in &cfg.methods {
        let scheme = scheme_for(m, base);
        if prepared.iter().any(|p| p.0 == scheme) {
            continue;
        }
        progress(&format!("sketching ({})", scheme.name()));
        let t0 = Instant::now();
        let mut pcfg = cfg.pipeline.clone();
        pcfg.sketch.scheme = scheme;
        let s = sketch_corpus(input, &pcfg, &|_| {})?;
        let prep = Prepared::new(s.images, Some(&s.fingerprints))?;
        let secs = t0.elapsed().as_secs_f64();
        out.sketch_seconds.push((scheme.name().to_string(), secs));
        out.documents = prep.n_docs() as u64;
        prepared.push((scheme, prep, secs, s.offsets));
    }
    // The exact join needs the full shingle sets.
    if cfg.methods.contains(&Method::Exact) {
        let t0 = Instant::now();
        let i = prepared
            .iter()
            .position(|p| p.0 == scheme_for(Method::Exact, base))
            .unwrap();
        let sets = load_sets(
            input,
            &cfg.pipeline.corpus,
            &cfg.pipeline.text,
            &cfg.pipeline.shingle,
            None,
        )?;
        prepared[i].1.sets = Some(sets.into_iter().map(|(_, s)| s).collect());
        prepared[i].2 += t0.elapsed().as_secs_f64();
    }
    // Exact resemblance of pairs the truth lacks, for the false-cluster check.
    let docs = corpus::open(input, &cfg.pipeline.corpus)?.read_all()?;
    let exact_sets =
        ShingleSets::from_texts(docs.iter().map(|d| (d.ext_id.as_str(), d.text.as_str())));
    drop(docs);

    let thresholds: Vec<(f64, Threshold)> = match &cfg.thresholds {
        SweepThresholds::Resemblance(v) => {
            v.iter().map(|&t| (t, Threshold::Resemblance(t))).collect()
        }
        SweepThresholds::MinCommon(v) => v
            .iter()
            .map(|&k| (f64::from(k), Threshold::MinCommon(k)))
            .collect(),
    };
    for &m in &cfg.methods {
        let (_, prep, sketch_secs, offsets) = prepared
            .iter()
            .find(|p| p.0 == scheme_for(m, base))
            .unwrap();
        for &(tval, threshold) in &thresholds {
            if m == Method::Exact && matches!(threshold, Threshold::MinCommon(_)) {
                out.notes
                    .push("exact skipped: it takes resemblance thresholds, not min-common".into());
                break;
            }
            progress(&format!("{} at {tval}", m.name()));
            let mut ccfg = ClusterConfig {
                method: m,
                threshold,
                ..cfg.cluster
            };
            if let (true, Threshold::Resemblance(t)) = (cfg.verify && m != Method::Exact, threshold)
            {
                // Candidates below t, so that pairs whose estimate falls short are verified.
                let n = match cfg.pipeline.sketch.scheme {
                    crate::sketch::Scheme::ModM => 0,
                    _ => cfg.pipeline.sketch.size,
                };
                ccfg.threshold = Threshold::Resemblance(candidate_threshold(t, n, VERIFY_SIGMAS));
            }
            if let (Method::SuperShingle, Threshold::Resemblance(t)) = (m, threshold) {
                // Super shingles of `per` positions of a k-mins image link two documents of
                // resemblance s with probability 1 - (1 - s^per)^(n/per): LSH banding without
                // the filtering pass. Choose `per` as LSH chooses its rows.
                let n = cfg.pipeline.sketch.size as u32;
                ccfg.super_shingle.per = choose_bands(n, t.clamp(0.01, 0.99), 0.5, 0.5)?.1;
            }
            reset_peak_rss();
            let t0 = Instant::now();
            let mut res = prep.run(&ccfg)?;
            if cfg.verify && m != Method::Exact {
                if let Threshold::Resemblance(t) = threshold {
                    let src = CorpusSource {
                        path: input,
                        corpus: &cfg.pipeline.corpus,
                        text: &cfg.pipeline.text,
                        shingle: &cfg.pipeline.shingle,
                        offsets: offsets.as_deref(),
                        ext_ids: Some(prep.ext_ids()),
                    };
                    verify_with_corpus(
                        &mut res,
                        &src,
                        t,
                        Regroup::for_method(m, ccfg.lsh.grouping == Grouping::UnionFind),
                    )?;
                }
            }
            let secs = sketch_secs + t0.elapsed().as_secs_f64();
            let ids = prep.ext_ids();
            let pred = Prediction::from_pairs(
                res.pairs
                    .iter()
                    .map(|p| (ids[p.a.index()].as_str(), ids[p.b.index()].as_str())),
            )?;
            let counts = evaluate_labeled(labels, &pred, listed.as_ref());
            let clusters = Prediction::from_clusters(
                res.clusters
                    .iter()
                    .map(|c| c.docs.iter().map(|d| ids[d.index()].as_str())),
            );
            let fc = false_clusters(
                &clusters,
                Some(truth),
                Some(&exact_sets),
                &cfg.false_clusters,
            )?
            .map(|r| r.false_clusters as u64);
            out.rows.push(SweepRow::new(
                m.name(),
                tval,
                res.summary.k.map(u64::from),
                &counts,
                fc,
                secs,
                peak_rss_bytes(),
            ));
        }
    }
    Ok(out)
}
