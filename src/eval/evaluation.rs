//! [`Evaluation`]: one prediction against one truth, as every entry point reports it (the
//! JSON of `fimdup eval --json`, the dict of the Python package's `evaluate`).
//!
//! The truth is a file in any form [`TruthTable`] reads (with the rule that decides its
//! positives), or pairs held in memory ([`Truth::Pairs`]). Invariant: the five values,
//! precision, recall and F1 are those of [`evaluate_labeled`] on the truth's positives,
//! restricted to the listed pairs when `labeled_only` holds; a truth whose format labels
//! only some pairs (PAN) is evaluated labeled-only whatever is asked. A scored prediction
//! (a pair file with a score, see [`super::predict`]) also gets the average precision of its
//! pairs ranked by score ([`super::curves::pr_curve`]), over the same pairs and positives.

use std::path::PathBuf;

use super::metrics::{evaluate_labeled, false_clusters, FalseClusterConfig, FalseClusterReport};
use super::{Labeled, Labels, Prediction, ShingleSets, TruthFormat, TruthRule, TruthTable};
use crate::Result;

/// What a prediction is evaluated against.
#[derive(Clone, Debug)]
pub enum Truth {
    /// A truth file, its format (`auto`: guessed) and the rule choosing its positives
    /// (`None`: the format's default, [`TruthRule::for_table`]).
    File {
        /// The file or directory.
        path: PathBuf,
        /// How it is written.
        format: TruthFormat,
        /// `<column><op><number>`.
        rule: Option<String>,
    },
    /// Pairs held in memory: the positives, and every pair the truth labels (positive or
    /// negative) when it labels some pairs only.
    Pairs {
        /// The duplicate pairs.
        positives: Labels,
        /// Every labeled pair (`None`: the positives are all that is labeled).
        listed: Option<Labeled>,
    },
}

/// The result of one evaluation (serialized as `fimdup eval --json` prints it).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Evaluation {
    /// The truth (its path, or `<pairs>`).
    pub truth: String,
    /// Its format.
    pub truth_format: String,
    /// The rule that chose the positives (or what the format takes as positive).
    pub rule: String,
    /// Whether only listed pairs were evaluated.
    pub labeled_only: bool,
    /// Pairs in the truth, |T|.
    pub truth_pairs: u64,
    /// Pairs found, |F|.
    pub found: u64,
    /// |T \ F|.
    pub unique_truth: u64,
    /// |F \ T|.
    pub unique_ours: u64,
    /// |T ∩ F|.
    pub common: u64,
    /// common / found.
    pub precision: f64,
    /// common / truth pairs.
    pub recall: f64,
    /// Harmonic mean of precision and recall.
    pub f1: f64,
    /// The floor of the false-duplicate-cluster check.
    pub false_cluster_floor: f64,
    /// The check (clusters only).
    pub false_clusters: Option<FalseClusterReport>,
    /// The average precision of the pairs ranked by their scores (scored predictions with
    /// positives only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub average_precision: Option<f64>,
    /// What the listed pairs are, when only they were evaluated.
    #[serde(skip)]
    pub listed: Option<String>,
    /// With a bootstrap: how it was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bootstrap: Option<EvalBootstrap>,
    /// With a bootstrap: precision's 95 % percentile interval, lower end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub precision_lo: Option<f64>,
    /// Upper end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub precision_hi: Option<f64>,
    /// Recall's interval, lower end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recall_lo: Option<f64>,
    /// Upper end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recall_hi: Option<f64>,
    /// F1's interval, lower end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub f1_lo: Option<f64>,
    /// Upper end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub f1_hi: Option<f64>,
}

/// How an evaluation's bootstrap was made.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct EvalBootstrap {
    /// Resamples drawn.
    pub resamples: usize,
    /// Their seed.
    pub seed: u64,
    /// The resampled unit, in words.
    pub unit: String,
    /// Units resampled.
    pub units: usize,
}

impl Evaluation {
    /// The evaluation with its bootstrap intervals.
    pub fn set_intervals(&mut self, iv: &super::RowIntervals, how: EvalBootstrap) {
        self.bootstrap = Some(how);
        self.precision_lo = Some(iv.precision.lo);
        self.precision_hi = Some(iv.precision.hi);
        self.recall_lo = Some(iv.recall.lo);
        self.recall_hi = Some(iv.recall.hi);
        self.f1_lo = Some(iv.f1.lo);
        self.f1_hi = Some(iv.f1.hi);
    }
}

/// A truth read and its positives chosen: what [`evaluate_loaded`] compares with.
#[derive(Clone, Debug)]
pub struct LoadedTruth {
    name: String,
    format: String,
    rule: String,
    labels: Labels,
    listed: Option<Labeled>,
    table: Option<TruthTable>,
}

impl LoadedTruth {
    /// The positive pairs.
    pub fn labels(&self) -> &Labels {
        &self.labels
    }

    /// The pairs evaluated, when only the listed ones are.
    pub fn listed(&self) -> Option<&Labeled> {
        self.listed.as_ref()
    }
}

impl Truth {
    /// Reads the truth (a file: its table, rule and positives), restricted to the listed
    /// pairs when `labeled_only` holds or the format labels only some pairs.
    pub fn load(&self, labeled_only: bool) -> Result<LoadedTruth> {
        Ok(match self {
            Truth::File { path, format, rule } => {
                let table = TruthTable::read_as(path, *format)?;
                let labeled_only = labeled_only || table.format().labeled_only_by_default();
                let rule = TruthRule::for_table(rule.as_deref(), &table)?;
                let labels = table.labels(rule.as_ref())?;
                let listed = labeled_only.then(|| table.listed());
                LoadedTruth {
                    name: path.display().to_string(),
                    format: table.format().name().to_string(),
                    rule: rule
                        .as_ref()
                        .map(|r| r.to_string())
                        .unwrap_or_else(|| table.format().positives().into()),
                    labels,
                    listed,
                    table: Some(table),
                }
            }
            Truth::Pairs { positives, listed } => LoadedTruth {
                name: "<pairs>".to_string(),
                format: "pairs".to_string(),
                rule: "listed as duplicates".to_string(),
                labels: positives.clone(),
                listed: match (labeled_only, listed) {
                    (false, _) => None,
                    (true, Some(l)) => Some(l.clone()),
                    (true, None) => Some(Labeled::pairs(positives.clone())),
                },
                table: None,
            },
        })
    }
}

/// Evaluates `pred` against a truth read already ([`Truth::load`]; see the module docs);
/// `corpus` supplies resemblances of cluster pairs that a file truth does not score. The
/// entry points call it through [`super::EvalOptions::evaluate`].
pub fn evaluate_loaded(
    pred: &Prediction,
    truth: &LoadedTruth,
    fc: &FalseClusterConfig,
    corpus: Option<&ShingleSets>,
) -> Result<Evaluation> {
    let counts = evaluate_labeled(&truth.labels, pred, truth.listed.as_ref());
    let scored = truth.table.as_ref().filter(|t| t.has_column("resemblance"));
    let false_clusters = false_clusters(pred, scored, corpus, fc)?;
    let average_precision = if pred.is_scored() {
        let ranked = pred.scored_pairs().into_iter().filter_map(|(a, b, s)| {
            let counted = truth.listed.as_ref().is_none_or(|l| l.contains(&a, &b));
            counted.then(|| (s, truth.labels.contains(&a, &b)))
        });
        super::curves::pr_curve(ranked, counts.truth_pairs).average_precision
    } else {
        None
    };
    Ok(Evaluation {
        truth: truth.name.clone(),
        truth_format: truth.format.clone(),
        rule: truth.rule.clone(),
        labeled_only: truth.listed.is_some(),
        truth_pairs: counts.truth_pairs,
        found: counts.found,
        unique_truth: counts.unique_truth,
        unique_ours: counts.unique_ours,
        common: counts.common,
        precision: counts.precision(),
        recall: counts.recall(),
        f1: counts.f1(),
        false_cluster_floor: fc.floor,
        false_clusters,
        average_precision,
        listed: truth.listed.as_ref().map(|l| l.describe()),
        bootstrap: None,
        precision_lo: None,
        precision_hi: None,
        recall_lo: None,
        recall_hi: None,
        f1_lo: None,
        f1_hi: None,
    })
}
