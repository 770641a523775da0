//! Threshold sweeps: every method at every threshold on one corpus, evaluated against one
//! labeled pair list (IK09 section 4, Tables 2-6, Figures 1-4).
//!
//! Every (method, threshold) is one [`Job`], the job `fimdup cluster` runs; each image
//! scheme is sketched once ([`Job::prepare`]) and every job of that scheme runs on it
//! ([`Job::run_on`]); the exact method's shingle sets are loaded once. For every
//! (method, threshold) the member
//! pairs of the method's clusters are compared with the truth (the five values, P, R, F1)
//! and its clusters are checked for false duplicates (a member pair of exact resemblance
//! below a floor; a pair the truth does not give is computed from the corpus with the
//! evaluation's own words, [`SweepConfig::truth_tokenizer`]).
//!
//! With a bootstrap ([`SweepConfig::bootstrap`]) every row's counted pairs are kept in
//! units ([`Resampler`]) and recounted under each resample after the last row: the rows get
//! their intervals, and every pair of methods (externals included) its paired comparison of
//! best F1 ([`crate::eval::bootstrap::paired`]).
//!
//! With a cross-validation ([`SweepConfig::cv`]) the same pair lists in units are recounted
//! on folds after the last row ([`crate::eval::cv`]): per method and split the setting
//! (threshold, and with a grid the shingle length) chosen on the choose-set's folds and its
//! F1 on the report-set's; unscored external predictions (one point) are left out.
//!
//! With a grid of shingle lengths ([`SweepConfig::shingle_lens`]) the sweep is run once per
//! length, in the order given, each length's schemes sketched (and dropped) in turn; every
//! row carries its length, and the cross-validation chooses the length with the threshold.
//!
//! Every timed step (a scheme's sketch, the exact method's shingle sets, each job) is
//! repeated as [`SweepConfig::repeat`] says ([`super::timing`]); a row's seconds are the least
//! sketch of its scheme (and for `exact` the least load of the sets) plus its job's least,
//! and its `seconds_max` the same sum of the most; its peak memory is its job's.
//!
//! Invariants: rows come out in shingle-length order (a grid's), then method order, then
//! threshold order; everything but the
//! timing and memory columns (`seconds`, `peak_rss_bytes`, `repeats`, `seconds_max`,
//! `peak_rss_max_bytes`) is deterministic for any number of threads (the bootstrap's
//! too: see [`crate::eval::bootstrap`]), and for any number of repetitions.

use std::path::Path;

use super::curves::{detection_bits, CurveCollector, Curves};
use super::errors::{Candidate, ErrorAnalysis, ErrorCollector, ErrorKind};
use super::timing::{repeated, Repeat, Spread};
use super::SweepRow;
use crate::cluster::{
    ClusterConfig, Input, Job, JobBuilder, Measure, Method, Reads, Sketched, Threshold, Verify,
};
use crate::corpus;
use crate::eval::bootstrap::{corpus_units, paired, Units};
use crate::eval::cv::{cross_validate, CvConfig, CvMethod, CvResult, Setting};
use crate::eval::similarity::TruthTokenizer;
use crate::eval::{
    evaluate_labeled, false_clusters, BootstrapConfig, External, FalseClusterConfig, Labeled,
    Labels, Paired, Prediction, Resampler, ShingleSets, TruthTable,
};
use crate::sketch::pipeline::PipelineConfig;
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
    /// Options shared by every method (max_df, guards, LSH weights...); its method and
    /// threshold are replaced by each row's.
    pub cluster: ClusterConfig,
    /// Where the context and the pair counts may spill.
    pub spill: crate::spill::SpillConfig,
    /// Keep only pairs whose exact resemblance passes the threshold (`--verify exact`).
    pub verify: bool,
    /// False-duplicate cluster floor.
    pub false_clusters: FalseClusterConfig,
    /// The words of the exact resemblances the false-cluster check computes from the corpus
    /// (for pairs the truth does not give); see [`crate::eval::similarity`].
    pub truth_tokenizer: TruthTokenizer,
    /// `--labeled-only`: predicted pairs the truth file does not list at all are ignored
    /// (neither found nor false positives; see [`evaluate_labeled`]). For truths that label
    /// only some pairs (answers against their source, say).
    pub labeled_only: bool,
    /// How many false positives and misses to list per (method, threshold) for the
    /// report's error analysis (0: none).
    pub errors: usize,
    /// Other tools' predictions, evaluated beside the methods (after them, in order): a
    /// scored one at every threshold, an unscored one once (threshold NaN).
    pub external: Vec<External>,
    /// Bootstrap intervals and paired comparisons (`None`: point values only).
    pub bootstrap: Option<BootstrapConfig>,
    /// Cross-validated F1 (`None`: none). Its group field, when both are given, is the
    /// bootstrap's.
    pub cv: Option<CvConfig>,
    /// A grid of shingle lengths (two or more, distinct): the sweep runs at each, in this
    /// order, with the pipeline's length replaced, and every row carries its length. Empty:
    /// the pipeline's one length (and no length on the rows).
    pub shingle_lens: Vec<usize>,
    /// How often each sketch, shingle-set load and job is repeated to time it (see
    /// [`super::timing`]).
    pub repeat: Repeat,
}

/// A scheme prepared for the runs of one shingle length, and what preparing it took.
struct PreparedScheme {
    scheme: Scheme,
    /// The scheme's name in the report (with the length in a grid).
    name: String,
    sketched: Sketched,
    /// The sketch's seconds.
    sketch: Spread<f64>,
    /// The full shingle sets' seconds, once loaded.
    sets: Option<Spread<f64>>,
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
                "exact verification checks resemblance; it cannot be combined with the containment measure",
            ));
        }
        if self.cluster.measure == Measure::Containment {
            if let Some(m) = self.methods.iter().find(|m| !m.measures_containment()) {
                return Err(Error::config(format!(
                    "containment is measured by {} only (union-find on mod-m images), not by {m}",
                    Method::containment_names()
                )));
            }
            if let SweepThresholds::MinCommon(_) = self.thresholds {
                return Err(Error::config(
                    "a containment sweep takes containment thresholds, not absolute min-common values",
                ));
            }
        }
        let mut names: Vec<&str> = self.methods.iter().map(|m| m.name()).collect();
        for e in &self.external {
            if names.contains(&e.name()) {
                return Err(Error::config(format!(
                    "external prediction name '{}' is taken by a method or another prediction",
                    e.name()
                )));
            }
            names.push(e.name());
        }
        if let Some(b) = &self.bootstrap {
            b.validate()?;
        }
        if let Some(c) = &self.cv {
            c.validate()?;
            if let Some(b) = &self.bootstrap {
                if b.group_by != c.group_by {
                    return Err(Error::config(
                        "the bootstrap and the cross-validation must share their group-by field",
                    ));
                }
            }
        }
        if self.shingle_lens.len() == 1 {
            return Err(Error::config(
                "a grid of shingle lengths has two or more; give one length as the pipeline's",
            ));
        }
        for (i, &w) in self.shingle_lens.iter().enumerate() {
            if self.shingle_lens[..i].contains(&w) {
                return Err(Error::config(format!(
                    "shingle length {w} is given twice in the grid"
                )));
            }
            let mut p = self.pipeline.clone();
            p.shingle.len = w;
            p.validate()?;
        }
        if !self.shingle_lens.is_empty() {
            if let Some(e) = self.external.first() {
                return Err(Error::config(format!(
                    "external prediction '{}' has no shingle length: a sweep over a grid of shingle lengths takes none",
                    e.name()
                )));
            }
        }
        self.repeat.validate()?;
        self.pipeline.validate()?;
        self.false_clusters.validate()
    }

    /// The shingle lengths swept, in order: the grid, or the pipeline's one length.
    pub fn lengths(&self) -> Vec<usize> {
        if self.shingle_lens.is_empty() {
            vec![self.pipeline.shingle.len]
        } else {
            self.shingle_lens.clone()
        }
    }
}

/// What [`sweep`] returns.
#[derive(Clone, Debug, Default)]
pub struct SweepOutput {
    /// One row per (method, threshold).
    pub rows: Vec<SweepRow>,
    /// Seconds spent sketching each scheme, least and most of the repetitions (the least
    /// and the most are included in the rows' `seconds` and `seconds_max`).
    pub sketch_seconds: Vec<(String, Spread<f64>)>,
    /// Seconds spent loading the full shingle sets of a scheme for the methods that read
    /// them (`exact`), least and most (included in those methods' rows as the sketch is).
    pub sets_seconds: Vec<(String, Spread<f64>)>,
    /// Documents in the corpus.
    pub documents: u64,
    /// Positive pairs in the truth under the rule.
    pub truth_pairs: u64,
    /// Notes (skipped combinations and the like).
    pub notes: Vec<String>,
    /// The listed false positives and misses of every row.
    pub errors: ErrorAnalysis,
    /// With a bootstrap: how it was made.
    pub bootstrap: Option<BootstrapSummary>,
    /// With a bootstrap: every pair of methods (and external predictions), in row order.
    pub paired: Vec<Paired>,
    /// With a cross-validation: its folds and per-method figures.
    pub cv: Option<CvResult>,
    /// The precision-recall curves of the methods' scores and the S-curves of their runs
    /// ([`super::curves`]).
    pub curves: Curves,
}

/// How a sweep's bootstrap was made.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BootstrapSummary {
    /// Resamples drawn.
    pub resamples: usize,
    /// Their seed.
    pub seed: u64,
    /// The resampled unit, in words.
    pub unit: String,
    /// Units resampled.
    pub units: usize,
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
    let input_path = input;
    let input = Input::Corpus(input_path.to_path_buf());
    let thresholds: Vec<(f64, Threshold)> = match &cfg.thresholds {
        SweepThresholds::Resemblance(v) => {
            v.iter().map(|&t| (t, Threshold::Resemblance(t))).collect()
        }
        SweepThresholds::MinCommon(v) => v
            .iter()
            .map(|&k| (f64::from(k), Threshold::MinCommon(k)))
            .collect(),
    };
    // One job per (shingle length, method, threshold), built (and so validated) before
    // anything runs.
    let base = cfg.pipeline.sketch.scheme;
    let lengths = cfg.lengths();
    let grid = !cfg.shingle_lens.is_empty();
    let mut jobs: Vec<Vec<(Method, f64, Job)>> = Vec::new();
    for &w in &lengths {
        let mut of_len = Vec::new();
        for &m in &cfg.methods {
            for &(tval, threshold) in &thresholds {
                if !m.takes_min_common() && matches!(threshold, Threshold::MinCommon(_)) {
                    let note =
                        format!("{m} skipped: it takes resemblance thresholds, not min-common");
                    if !out.notes.contains(&note) {
                        out.notes.push(note);
                    }
                    break;
                }
                let mut pipeline = cfg.pipeline.clone();
                pipeline.shingle.len = w;
                pipeline.sketch.scheme = m.scheme_for(base);
                let job = JobBuilder::new(m)
                    .cluster(ClusterConfig {
                        method: m,
                        threshold,
                        ..cfg.cluster
                    })
                    .pipeline(pipeline)
                    .verify(cfg.verify.then_some(Verify::Exact))
                    .spill(cfg.spill.clone())
                    .build()?;
                of_len.push((m, tval, job));
            }
        }
        jobs.push(of_len);
    }
    let min_common = matches!(cfg.thresholds, SweepThresholds::MinCommon(_));
    // The errors' passages and estimates are cut with one shingle length: a grid lists none.
    let error_cap = if grid { 0 } else { cfg.errors };
    if grid && cfg.errors > 0 {
        out.notes.push(
            "errors: not listed in a sweep over a grid of shingle lengths (sweep one length to list them)"
                .into(),
        );
    }
    // The S-curves' similarities are of one shingle length: a grid draws no curves.
    if grid {
        out.notes.push(
            "curves: precision-recall and S-curves are not drawn in a sweep over a grid of shingle lengths (sweep one length to draw them)"
                .into(),
        );
    }
    // Exact resemblance of pairs the truth lacks, for the false-cluster check.
    let docs = corpus::open(input_path, &cfg.pipeline.corpus)?.read_all()?;
    let exact_sets = ShingleSets::from_texts_with(
        docs.iter().map(|d| (d.ext_id.as_str(), d.text.as_str())),
        cfg.truth_tokenizer,
    );
    let tvals: Vec<f64> = thresholds.iter().map(|t| t.0).collect();
    let mut curves = CurveCollector::new(
        &cfg.pipeline,
        cfg.cluster.measure == Measure::Containment,
        truth,
        labels,
        &tvals,
        docs.iter().map(|d| (d.ext_id.as_str(), d.text.as_str())),
    )?;
    let mut errors = ErrorCollector::new(
        error_cap,
        cfg.cluster.measure == Measure::Containment,
        &cfg.pipeline,
        docs.iter().map(|d| (d.ext_id.as_str(), d.text.as_str())),
    )?;
    let group_by = match (&cfg.bootstrap, &cfg.cv) {
        (Some(b), _) => Some(b.group_by.as_deref()),
        (None, Some(c)) => Some(c.group_by.as_deref()),
        (None, None) => None,
    };
    let mut resampler = match group_by {
        None => None,
        Some(group_by) => {
            let units = match group_by {
                None => Units::documents(docs.iter().map(|d| d.ext_id.as_str())),
                Some(g) => {
                    let u = corpus_units(input_path, &cfg.pipeline.corpus, Some(g))?;
                    if u.len() == docs.len() {
                        out.notes.push(format!(
                            "bootstrap: no two documents share a value of '{g}': every document is a group of its own"
                        ));
                    }
                    u
                }
            };
            Some(Resampler::new(units, labels))
        }
    };

    for (&w, of_len) in lengths.iter().zip(&jobs) {
        // Sketch each needed scheme of this length once (timed as the configuration's
        // repetitions); dropped before the next length.
        let mut prepared: Vec<PreparedScheme> = Vec::new();
        for (m, _, job) in of_len {
            let scheme = m.scheme_for(base);
            if prepared.iter().any(|p| p.scheme == scheme) {
                continue;
            }
            let name = if grid {
                format!("{} w={w}", scheme.name())
            } else {
                scheme.name().to_string()
            };
            progress(&format!("sketching ({name})"));
            let s = repeated(&cfg.repeat, || job.prepare(&input, &|_| {}))?;
            out.sketch_seconds.push((name.clone(), s.seconds));
            out.documents = s.value.n_docs() as u64;
            prepared.push(PreparedScheme {
                scheme,
                name,
                sketched: s.value,
                sketch: s.seconds,
                sets: None,
            });
        }
        for (m, tval, job) in of_len {
            let (m, tval) = (*m, *tval);
            let p = prepared
                .iter_mut()
                .find(|p| p.scheme == m.scheme_for(base))
                .expect("every scheme was prepared");
            // The exact join's full shingle sets: loaded (and timed) once per scheme, before
            // its first run, and counted in each of its runs as the sketch is.
            let mut before = p.sketch;
            if m.reads() == Reads::Sets {
                if p.sets.is_none() {
                    progress(&format!("shingle sets ({})", p.name));
                    let sketched = &mut p.sketched;
                    let l = repeated(&cfg.repeat, || sketched.load_sets())?;
                    out.sets_seconds.push((p.name.clone(), l.seconds));
                    p.sets = Some(l.seconds);
                }
                before = before.then(p.sets.expect("loaded above"));
            }
            let sketched = &mut p.sketched;
            progress(&format!("{} at {tval}", m.name()));
            let run = repeated(&cfg.repeat, || job.run_on(sketched))?;
            let res = run.value;
            let ids = sketched.ext_ids();
            let pred = Prediction::from_pairs(
                res.pairs
                    .iter()
                    .map(|p| (ids[p.a.index()].as_str(), ids[p.b.index()].as_str())),
            )?;
            let counts = evaluate_labeled(labels, &pred, listed.as_ref());
            if let Some(r) = &mut resampler {
                r.add_row(labels, &pred, listed.as_ref());
            }
            if !grid {
                let model = detection_bits(
                    job.cluster_config(),
                    &res,
                    m.scheme_for(base),
                    cfg.pipeline.sketch.weighting.is_some(),
                    cfg.pipeline.sketch.bits,
                );
                curves.add_run(
                    m.name(),
                    tval,
                    &res,
                    ids,
                    &pred,
                    labels,
                    listed.as_ref(),
                    counts.truth_pairs,
                    model,
                );
            }
            if error_cap > 0 {
                let found = res.pairs.iter().map(|p| {
                    (
                        ids[p.a.index()].as_str(),
                        ids[p.b.index()].as_str(),
                        p.estimate.or(p.shared.map(f64::from)),
                    )
                });
                let mut sketch = cfg.pipeline.sketch;
                sketch.scheme = m.scheme_for(base);
                errors.add_row(
                    m.name(),
                    tval,
                    min_common,
                    sketch,
                    candidates(labels, listed.as_ref(), &pred, found),
                );
            }
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
            let mut row = SweepRow::new(
                m.name(),
                tval,
                res.summary.k.map(u64::from),
                &counts,
                fc,
                f64::NAN,
                None,
            );
            row.set_cost(before.then(run.seconds), run.peak);
            row.shingle_len = grid.then_some(w as u64);
            out.rows.push(row);
        }
    }
    // External predictions: at every threshold when scored, once (threshold NaN) when not.
    for ext in &cfg.external {
        let positives = evaluate_labeled(labels, &Prediction::default(), listed.as_ref());
        curves.add_external(ext, labels, listed.as_ref(), positives.truth_pairs);
        let points: Vec<f64> = if ext.is_scored() {
            thresholds.iter().map(|t| t.0).collect()
        } else {
            vec![f64::NAN]
        };
        for tval in points {
            let pred = ext.at(tval);
            let counts = evaluate_labeled(labels, &pred, listed.as_ref());
            if let Some(r) = &mut resampler {
                r.add_row(labels, &pred, listed.as_ref());
            }
            if cfg.errors > 0 {
                let found = ext
                    .pairs_with_scores()
                    .filter(|p| p.2.is_none_or(|s| s >= tval));
                errors.add_row(
                    ext.name(),
                    tval,
                    min_common,
                    cfg.pipeline.sketch,
                    candidates(labels, listed.as_ref(), &pred, found),
                );
            }
            out.rows.push(SweepRow::new(
                ext.name(),
                tval,
                None,
                &counts,
                None,
                f64::NAN,
                None,
            ));
        }
    }
    out.errors = errors.finish();
    out.curves = curves.finish();
    if let (Some(r), Some(c)) = (&resampler, &cfg.cv) {
        progress("cross-validation");
        // Per method, every (shingle length, threshold) it ran at.
        let methods: Vec<CvMethod> = super::charts::methods(&out.rows)
            .into_iter()
            .map(|m| CvMethod {
                name: m.to_string(),
                rows: (0..out.rows.len())
                    .filter(|&i| out.rows[i].method == m && out.rows[i].threshold.is_finite())
                    .map(|i| {
                        let setting = Setting {
                            shingle_len: out.rows[i].shingle_len.map(|w| w as usize),
                            threshold: out.rows[i].threshold,
                        };
                        (setting, i)
                    })
                    .collect(),
            })
            .filter(|m| !m.rows.is_empty())
            .collect();
        let unit = match &c.group_by {
            None => "documents".to_string(),
            Some(f) => format!("groups by the record field '{f}'"),
        };
        out.cv = Some(cross_validate(r, &methods, c, unit, &cfg.shingle_lens)?);
    }
    if let (Some(r), Some(b)) = (&resampler, &cfg.bootstrap) {
        progress("bootstrap");
        let res = r.run(b)?;
        for (row, iv) in out.rows.iter_mut().zip(&res.rows) {
            row.set_intervals(iv);
        }
        // Per series: a method, or with a grid of shingle lengths a (method, length).
        let shown = super::series_rows(&out.rows);
        let methods: Vec<(String, f64, Vec<usize>)> = super::charts::methods(&shown)
            .into_iter()
            .map(|m| {
                let idx: Vec<usize> = (0..shown.len()).filter(|&i| shown[i].method == m).collect();
                let best = idx
                    .iter()
                    .map(|&i| out.rows[i].f1)
                    .fold(f64::NEG_INFINITY, f64::max);
                (m.to_string(), best, idx)
            })
            .collect();
        out.paired = paired(&res, &methods);
        out.bootstrap = Some(BootstrapSummary {
            resamples: b.resamples,
            seed: b.seed,
            unit: b.unit(),
            units: res.units,
        });
    }
    Ok(out)
}

/// Every false positive (a found pair that is not positive; with `listed`, only the pairs
/// it lists) and every miss (a positive pair not in `pred`) of one run; `found` gives the
/// found pairs with the method's score.
fn candidates<'p>(
    labels: &Labels,
    listed: Option<&Labeled>,
    pred: &Prediction,
    found: impl Iterator<Item = (&'p str, &'p str, Option<f64>)>,
) -> Vec<Candidate> {
    let ordered = |a: &str, b: &str| {
        if a <= b {
            (a.to_string(), b.to_string())
        } else {
            (b.to_string(), a.to_string())
        }
    };
    let mut out = Vec::new();
    for (a, b, score) in found {
        let counted = listed.is_none_or(|l| l.contains(a, b));
        if counted && !labels.contains(a, b) {
            let (a, b) = ordered(a, b);
            out.push(Candidate {
                a,
                b,
                kind: ErrorKind::FalsePositive,
                score,
            });
        }
    }
    for (a, b) in labels.iter() {
        if !pred.contains(a, b) {
            let (a, b) = ordered(a, b);
            out.push(Candidate {
                a,
                b,
                kind: ErrorKind::Miss,
                score: None,
            });
        }
    }
    out
}

/// How a sweep was made, as the report's parameter table: the corpus, the truth and its
/// rule, every setting, the sketch times and the notes. `thresholds` is the grid as given
/// (e.g. `0.95:0.5:0.05`).
pub fn describe(
    input: &Path,
    truth_path: &Path,
    rule: Option<&crate::eval::TruthRule>,
    thresholds: &str,
    cfg: &SweepConfig,
    res: &SweepOutput,
) -> Result<Vec<(String, String)>> {
    let mut params: Vec<(String, String)> = Vec::new();
    let p = &cfg.pipeline;
    let corpus = match &p.corpus.texts {
        Some(t) => super::provenance::digest_texts(t),
        None => super::provenance::digest(input)?,
    };
    let truth = super::provenance::digest(truth_path)?;
    params.extend([
        ("corpus".to_string(), input.display().to_string()),
        ("documents".into(), res.documents.to_string()),
        (
            "corpus bytes".into(),
            format!("{} ({} files)", corpus.bytes, corpus.files),
        ),
        ("corpus content hash (xxh3-128)".into(), corpus.xxh3_128),
        ("truth".into(), truth_path.display().to_string()),
        ("truth content hash (xxh3-128)".into(), truth.xxh3_128),
        (
            "truth rule".into(),
            rule.map_or("every listed pair".into(), |r| r.to_string()),
        ),
        ("truth pairs".into(), res.truth_pairs.to_string()),
        (
            "methods".into(),
            cfg.methods
                .iter()
                .map(|m| m.name())
                .collect::<Vec<_>>()
                .join(","),
        ),
        ("thresholds".into(), thresholds.to_string()),
        ("measure".into(), cfg.cluster.measure.name().to_string()),
        (
            "labeled only".into(),
            if cfg.labeled_only {
                "yes: predicted pairs absent from the truth file are ignored".into()
            } else {
                "no".into()
            },
        ),
        ("unit".into(), p.text.unit.name().to_string()),
        ("html".into(), p.text.html.to_string()),
        (
            "shingle length".into(),
            if cfg.shingle_lens.is_empty() {
                p.shingle.len.to_string()
            } else {
                let l: Vec<String> = cfg.shingle_lens.iter().map(|w| w.to_string()).collect();
                format!("{} (a grid: every length swept)", l.join(","))
            },
        ),
        ("offset".into(), p.shingle.offset.to_string()),
        (
            "scheme (concept, union-find)".into(),
            p.sketch.scheme.name().to_string(),
        ),
        (
            "scheme (lsh, super-shingle)".into(),
            Method::Lsh.scheme_for(p.sketch.scheme).name().to_string(),
        ),
        ("image size n".into(), p.sketch.size.to_string()),
        (
            "modulus m (mod-m)".into(),
            if p.sketch.scheme == Scheme::ModM {
                p.sketch.modulus.to_string()
            } else {
                "-".into()
            },
        ),
        ("seed".into(), p.sketch.seed.to_string()),
        (
            "max_df".into(),
            cfg.cluster
                .context
                .max_df
                .map_or("none".into(), |d| d.to_string()),
        ),
        (
            "verify".into(),
            if cfg.verify {
                "exact".into()
            } else {
                "no".into()
            },
        ),
        (
            "false-cluster floor".into(),
            cfg.false_clusters.floor.to_string(),
        ),
        (
            "false-cluster words (pairs not in the truth)".into(),
            cfg.truth_tokenizer.name().to_string(),
        ),
        ("threads".into(), rayon::current_num_threads().to_string()),
        (
            "seconds column".into(),
            "sketching of the method's scheme (+ loading the full shingle sets, exact) + clustering (+ verification); each the least of its repetitions, seconds_max the sum of the most".into(),
        ),
        (
            "repetitions".into(),
            format!(
                "every sketch, shingle-set load and run repeated until its repetitions took {} s together, at most {} times",
                cfg.repeat.seconds, cfg.repeat.max
            ),
        ),
        (
            "peak memory column".into(),
            "the process's resident high-water mark (VmHWM) during the run, reset before each repetition after the allocator's free memory is handed back; the whole process (corpus, prepared schemes, evaluation data), whole pages given in kB; the least of the repetitions, peak_rss_max_bytes the most; the report ties peaks within 1 MiB".into(),
        ),
    ]);
    let spread = |s: &Spread<f64>| {
        format!(
            "{:.4} (least; most {:.4}; {} runs)",
            s.least, s.most, s.runs
        )
    };
    for (s, secs) in &res.sketch_seconds {
        params.push((format!("sketch seconds ({s})"), spread(secs)));
    }
    for (s, secs) in &res.sets_seconds {
        params.push((format!("shingle-set seconds ({s})"), spread(secs)));
    }
    for e in &cfg.external {
        params.push((
            format!("external {}", e.name()),
            format!(
                "{} ({} pairs, {}; xxh3-128 {})",
                e.path().display(),
                e.len(),
                if e.is_scored() {
                    "scored: swept over the thresholds"
                } else {
                    "unscored: one point"
                },
                super::provenance::digest(e.path())?.xxh3_128
            ),
        ));
    }
    if let (Some(b), Some(s)) = (&cfg.bootstrap, &res.bootstrap) {
        params.push((
            "bootstrap".into(),
            format!(
                "{} resamples of {} ({} units), seed {}; 95 % percentile intervals",
                b.resamples, s.unit, s.units, b.seed
            ),
        ));
    }
    if let Some(c) = &res.cv {
        params.push((
            "cross-validation".into(),
            format!(
                "{} folds of {} ({} units), seed {}; {} chosen {}",
                c.folds,
                c.unit,
                c.units,
                c.seed,
                if c.shingle_lens.is_empty() {
                    "threshold"
                } else {
                    "shingle length and threshold"
                },
                if c.leave_one_out {
                    "on the other folds".to_string()
                } else {
                    let sizes: Vec<String> = c.choose.iter().map(|m| m.to_string()).collect();
                    format!(
                        "on every set of {} folds, the rest reported ({} splits)",
                        sizes.join(" or "),
                        c.splits
                    )
                }
            ),
        ));
    }
    params.push((
        "errors listed".into(),
        if cfg.errors > 0 {
            format!(
                "up to {} false positives and {} misses per run",
                cfg.errors, cfg.errors
            )
        } else {
            "none".into()
        },
    ));
    for n in &res.notes {
        params.push(("note".into(), n.clone()));
    }
    Ok(params)
}
