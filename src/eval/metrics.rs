//! The paper's five values (IK09 section 4), precision, recall, F1, and false-duplicate
//! clusters.
//!
//! With T the positive (truth) pairs and F the predicted (found) pairs:
//! pairs in the truth = |T|, pairs found = |F|, unique to the truth = |T \ F| (false
//! negatives), unique to ours = |F \ T| (false positives), common = |T ∩ F| (true positives).
//!
//! Zero cases (vacuous truth, so every value is finite): precision = common / found, and 1
//! when nothing was found (no wrong claim was made); recall = common / truth, and 1 when the
//! truth is empty (nothing was missed); F1 = 2PR / (P + R), and 0 when P + R = 0. So finding
//! nothing against a non-empty truth scores P = 1, R = 0, F1 = 0; finding anything against
//! an empty truth scores P = 0, R = 1, F1 = 0; both empty scores 1, 1, 1.

use serde::Serialize;

use super::predict::Prediction;
use super::similarity::ShingleSets;
use super::truth::{Labeled, Labels, TruthTable};
use crate::{Error, Result};

/// The paper's five values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Pairs in the truth, |T|.
    pub truth_pairs: u64,
    /// Pairs found, |F|.
    pub found: u64,
    /// Unique to the truth, |T \ F| (false negatives).
    pub unique_truth: u64,
    /// Unique to ours, |F \ T| (false positives).
    pub unique_ours: u64,
    /// Common, |T ∩ F| (true positives).
    pub common: u64,
}

impl Counts {
    /// The five values from |T|, |F| and |T ∩ F| (`common` must not exceed either).
    pub fn new(truth_pairs: u64, found: u64, common: u64) -> Self {
        debug_assert!(common <= truth_pairs && common <= found);
        Counts {
            truth_pairs,
            found,
            unique_truth: truth_pairs - common,
            unique_ours: found - common,
            common,
        }
    }

    /// Precision = common / found (1 when found = 0).
    pub fn precision(&self) -> f64 {
        if self.found == 0 {
            1.0
        } else {
            self.common as f64 / self.found as f64
        }
    }

    /// Recall = common / truth (1 when the truth is empty).
    pub fn recall(&self) -> f64 {
        if self.truth_pairs == 0 {
            1.0
        } else {
            self.common as f64 / self.truth_pairs as f64
        }
    }

    /// F1 = 2PR / (P + R) (0 when P + R = 0).
    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }
}

/// Compares a prediction with the labeled pairs.
pub fn evaluate(labels: &Labels, pred: &Prediction) -> Counts {
    let mut common = 0u64;
    for &(x, y) in &pred.pairs {
        let (a, b) = (pred.ids.name(x), pred.ids.name(y));
        if labels.contains(a, b) {
            common += 1;
        }
    }
    Counts::new(labels.len() as u64, pred.len() as u64, common)
}

/// [`evaluate`] with `--labeled-only`: when `listed` (every pair the truth labels, positive
/// or negative: [`TruthTable::listed`]) is given, predicted pairs it does not label are
/// ignored -- counted neither as found nor as false positives -- because the truth says
/// nothing about them (e.g. a truth that labels answers against their source only, or PAN's
/// suspicious x source pairs). With `None` this is [`evaluate`].
pub fn evaluate_labeled(labels: &Labels, pred: &Prediction, listed: Option<&Labeled>) -> Counts {
    let Some(listed) = listed else {
        return evaluate(labels, pred);
    };
    let (mut found, mut common) = (0u64, 0u64);
    for &(x, y) in &pred.pairs {
        let (a, b) = (pred.ids.name(x), pred.ids.name(y));
        if !listed.contains(a, b) && !labels.contains(a, b) {
            continue;
        }
        found += 1;
        if labels.contains(a, b) {
            common += 1;
        }
    }
    Counts::new(labels.len() as u64, found, common)
}

/// Settings of the false-duplicate-cluster check.
#[derive(Clone, Debug, PartialEq)]
pub struct FalseClusterConfig {
    /// A cluster is false when one of its pairs has exact resemblance below this.
    pub floor: f64,
    /// How many of the worst false clusters to list.
    pub max_examples: usize,
}

impl Default for FalseClusterConfig {
    fn default() -> Self {
        FalseClusterConfig {
            floor: 0.5,
            max_examples: 5,
        }
    }
}

impl FalseClusterConfig {
    /// Checks the values (`floor` in [0, 1]).
    pub fn validate(&self) -> Result<()> {
        if !(0.0..=1.0).contains(&self.floor) {
            return Err(Error::config(format!(
                "false-cluster floor {} is not in [0, 1]",
                self.floor
            )));
        }
        Ok(())
    }
}

/// One false-duplicate cluster.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FalseCluster {
    /// The cluster's id.
    pub id: String,
    /// Number of members.
    pub size: usize,
    /// The pair of least resemblance (`a < b`).
    pub worst_a: String,
    /// See `worst_a`.
    pub worst_b: String,
    /// Its resemblance.
    pub worst_resemblance: f64,
    /// How many of the cluster's pairs are below the floor.
    pub pairs_below: u64,
}

/// The result of the false-duplicate-cluster check.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FalseClusterReport {
    /// Clusters of two or more documents checked.
    pub clusters: usize,
    /// Clusters holding a pair below the floor.
    pub false_clusters: usize,
    /// Member pairs whose resemblance was neither in the truth nor computable from the corpus
    /// (they cannot make a cluster false; pass the corpus to resolve them).
    pub unresolved_pairs: u64,
    /// The worst false clusters: least resemblance first, then larger first, then by id.
    pub examples: Vec<FalseCluster>,
}

/// Finds the predicted clusters that hold a pair of exact resemblance below `cfg.floor`. The
/// resemblance of a pair is taken from the truth table's `resemblance` column when the pair is
/// listed there, else computed from `corpus`; pairs found in neither are counted as
/// unresolved. Returns `None` when the prediction has no clusters (pairs only).
pub fn false_clusters(
    pred: &Prediction,
    truth: Option<&TruthTable>,
    corpus: Option<&ShingleSets>,
    cfg: &FalseClusterConfig,
) -> Result<Option<FalseClusterReport>> {
    cfg.validate()?;
    let Some(clusters) = pred.clusters() else {
        return Ok(None);
    };
    let mut rep = FalseClusterReport::default();
    let mut found: Vec<FalseCluster> = Vec::new();
    for c in clusters {
        if c.size() < 2 {
            continue;
        }
        rep.clusters += 1;
        let mut worst: Option<(f64, &str, &str)> = None;
        let mut below = 0u64;
        for i in 0..c.docs.len() {
            for j in i + 1..c.docs.len() {
                let (a, b) = (pred.ids.name(c.docs[i]), pred.ids.name(c.docs[j]));
                let (a, b) = if a < b { (a, b) } else { (b, a) };
                let r = match truth.map(|t| t.resemblance(a, b)).transpose()?.flatten() {
                    Some(r) => Some(r),
                    None => corpus.and_then(|s| s.resemblance(a, b)),
                };
                let Some(r) = r else {
                    rep.unresolved_pairs += 1;
                    continue;
                };
                if r < cfg.floor {
                    below += 1;
                }
                let better = match worst {
                    None => true,
                    Some((w, wa, wb)) => r < w || (r == w && (a, b) < (wa, wb)),
                };
                if better {
                    worst = Some((r, a, b));
                }
            }
        }
        if below > 0 {
            let (r, a, b) = worst.expect("a pair below the floor was seen");
            found.push(FalseCluster {
                id: c.id.clone(),
                size: c.size(),
                worst_a: a.to_string(),
                worst_b: b.to_string(),
                worst_resemblance: r,
                pairs_below: below,
            });
        }
    }
    rep.false_clusters = found.len();
    found.sort_by(|x, y| {
        x.worst_resemblance
            .total_cmp(&y.worst_resemblance)
            .then(y.size.cmp(&x.size))
            .then_with(|| x.id.cmp(&y.id))
    });
    found.truncate(cfg.max_examples);
    rep.examples = found;
    Ok(Some(rep))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labeled_only_ignores_unlisted_pairs() {
        // The truth lists (a1,s), (a2,s), (a3,s); positives (a1,s), (a2,s). The prediction
        // holds (a1,s) TP, (a3,s) FP (listed, negative), and (a1,a2), (a2,a3) that the truth
        // does not list: ignored with --labeled-only, false positives without.
        let listed =
            Labeled::from(Labels::from_pairs([("a1", "s"), ("a2", "s"), ("a3", "s")]).unwrap());
        let labels = Labels::from_pairs([("s", "a1"), ("a2", "s")]).unwrap();
        let pred =
            Prediction::from_pairs([("a1", "s"), ("s", "a3"), ("a1", "a2"), ("a3", "a2")]).unwrap();
        let all = evaluate(&labels, &pred);
        assert_eq!(all, Counts::new(2, 4, 1));
        assert_eq!(evaluate_labeled(&labels, &pred, None), all);
        let only = evaluate_labeled(&labels, &pred, Some(&listed));
        assert_eq!(
            only,
            Counts {
                truth_pairs: 2,
                found: 2,
                unique_truth: 1,
                unique_ours: 1,
                common: 1
            }
        );
        assert_eq!(only.precision(), 0.5);
        assert_eq!(only.recall(), 0.5);
        // A positive is never ignored, even when `listed` lacks it.
        let short = Labeled::from(Labels::from_pairs([("a3", "s")]).unwrap());
        assert_eq!(
            evaluate_labeled(&labels, &pred, Some(&short)),
            Counts::new(2, 2, 1)
        );
    }
}
