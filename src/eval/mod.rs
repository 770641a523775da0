//! Evaluation against labeled duplicate pairs: the paper's five values (IK09 section 4),
//! precision, recall, F1 and false-duplicate clusters; threshold ranges for sweeps.
//!
//! Flow: a [`TruthTable`] (a truth in any [`TruthFormat`]: pair list, cluster assignment or
//! PAN directory) and an optional [`TruthRule`] give the positive pairs ([`Labels`]) and the
//! labeled pairs ([`Labeled`], for `--labeled-only`); a method's output is read into a
//! [`Prediction`] (pairs or clusters, all member pairs), another tool's scored pairs into an
//! [`External`] (a [`Prediction`] per threshold); [`evaluate`] gives the [`Counts`];
//! [`false_clusters`] checks the clusters against exact resemblance (from the truth or from
//! [`ShingleSets`] of the corpus). [`EvalOptions`] is an evaluation by named options, what
//! the command and the Python package both run ([`Evaluation`]). [`bootstrap`] resamples
//! documents or groups of them and recounts the pairs under each resample ([`Resampler`]):
//! percentile intervals of P, R and F1 and paired comparisons of methods. [`cv`] recounts
//! the same pair lists on folds of the units: settings (threshold, shingle length) chosen on
//! some folds and scored on the others. [`curves`] ranks scored pairs (precision-recall curves,
//! average precision) and bins pairs by similarity against a method's theoretical detection
//! probability (S-curves).
//!
//! Invariants: all pairs are unordered pairs of distinct external ids, each counted once;
//! nothing here depends on hash-map iteration order (listings are sorted).

pub mod bootstrap;
pub mod curves;
pub mod cv;
mod delimited;
mod evaluation;
pub mod external;
mod ids;
mod json_lines;
pub mod metrics;
mod options;
mod pairs;
pub mod predict;
pub mod rule;
pub mod similarity;
pub mod thresholds;
pub mod truth;

pub use bootstrap::{
    BootstrapConfig, BootstrapResult, Interval, Paired, Resampler, RowIntervals, Units,
};
pub use curves::{pr_curve, s_curve, Detection, PairSets, PrCurve, PrPoint, Remark, SBin, SPair};
pub use cv::{CvConfig, CvResult, CvSplit, CvSummary, Setting};
pub use evaluation::{evaluate_loaded, EvalBootstrap, Evaluation, LoadedTruth, Truth};
pub use external::{External, ExternalSpec};
pub use metrics::{
    evaluate, evaluate_labeled, false_clusters, Counts, FalseCluster, FalseClusterConfig,
    FalseClusterReport,
};
pub use options::EvalOptions;
pub use predict::{PredCluster, Prediction};
pub use rule::{Op, TruthRule, ROMIP_RULE};
pub use similarity::ShingleSets;
pub use thresholds::parse_thresholds;
pub use truth::{Labeled, Labels, TruthFormat, TruthTable};
