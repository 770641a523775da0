//! Curves of scored pairs: the precision-recall curve with its average precision, and the
//! S-curve (the fraction of pairs found per similarity bin) with a method's theoretical
//! detection probability ([`Detection`]), the picture of B97 and H00 made from measured
//! pairs.
//!
//! Precision-recall ([`pr_curve`]): pairs are ranked by descending score; pairs of equal
//! score form one level and are taken together (a threshold `score >= x` takes all of them
//! or none), so the curve has one point per distinct score and does not depend on the order
//! the pairs come in. Pairs without a score rank after every scored pair, as one last
//! level. At level `i`, precision `P_i = common / found` and recall `R_i = common /
//! positives` count every pair of the levels up to `i`; the average precision is
//! `AP = sum_i (R_i - R_{i-1}) * P_i` with `R_0 = 0` (the step-wise area, scikit-learn's
//! `average_precision_score`). With distinct scores it is the sum, over the positive pairs
//! ranked, of the precision at their rank, divided by the positives; positives never ranked
//! add nothing. Without positives it is undefined (`None`).
//!
//! S-curve ([`s_curve`]): [`S_BINS`] bins of width 0.05 from 0.5 to 1 (`[lo, hi)`, the last
//! one closed); a pair below 0.5 (or not finite) is in none. Per bin: the pairs, those
//! found (in the output), those found as an edge of the method (before its pairs were
//! grouped into clusters, which adds and drops pairs), their fractions, and the
//! theoretical fraction of edges: the mean of the detection
//! probability at each pair's own similarity (so the bin's width adds no error when the
//! pairs are spread unevenly in it), with the binomial standard error `sqrt(p (1 - p) / n)`
//! of a fraction of `n` pairs around it.
//!
//! Invariants: every function here is deterministic and independent of the input order
//! (ties are levels; bins are counts and sums, summed in the order given, which the callers
//! fix).

pub use crate::cluster::detection::{binomial_tail, Detection, DetectionTable};

/// One point of a precision-recall curve: every pair scored at least `score` taken.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct PrPoint {
    /// The level's score (`-inf` for the level of the unscored pairs).
    pub score: f64,
    /// Pairs taken, up to this level.
    pub found: u64,
    /// Positive pairs among them.
    pub common: u64,
    /// common / found.
    pub precision: f64,
    /// common / positives.
    pub recall: f64,
}

/// A precision-recall curve (see the module docs).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PrCurve {
    /// One point per distinct score, highest score first.
    pub points: Vec<PrPoint>,
    /// The positive pairs of the truth (the denominator of recall).
    pub positives: u64,
    /// The average precision (`None` without positives).
    pub average_precision: Option<f64>,
}

/// The precision-recall curve of `pairs`, each `(score, positive)` (`None` or NaN: unscored),
/// against `positives` positive pairs in all (see the module docs). A pair must be listed
/// once.
pub fn pr_curve(pairs: impl IntoIterator<Item = (Option<f64>, bool)>, positives: u64) -> PrCurve {
    let mut v: Vec<(f64, bool)> = pairs
        .into_iter()
        .map(|(s, p)| (s.filter(|x| !x.is_nan()).unwrap_or(f64::NEG_INFINITY), p))
        .collect();
    v.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut points = Vec::new();
    let (mut found, mut common) = (0u64, 0u64);
    let mut ap = 0.0;
    let mut last_recall = 0.0;
    let mut i = 0;
    while i < v.len() {
        let score = v[i].0;
        while i < v.len() && v[i].0 == score {
            found += 1;
            common += u64::from(v[i].1);
            i += 1;
        }
        let precision = common as f64 / found as f64;
        let recall = if positives == 0 {
            0.0
        } else {
            common as f64 / positives as f64
        };
        ap += (recall - last_recall) * precision;
        last_recall = recall;
        points.push(PrPoint {
            score,
            found,
            common,
            precision,
            recall,
        });
    }
    PrCurve {
        points,
        positives,
        average_precision: (positives > 0).then_some(ap),
    }
}

/// Bins of the S-curve: 0.50-0.55, ..., 0.95-1.00.
pub const S_BINS: usize = 10;

/// The lower end of bin `i`.
pub fn bin_lo(i: usize) -> f64 {
    (10 + i) as f64 / 20.0
}

/// The bin of similarity `s` (`None` below 0.5, above 1 or not finite).
pub fn bin_of(s: f64) -> Option<usize> {
    if !(0.5..=1.0).contains(&s) {
        return None;
    }
    (0..S_BINS).rev().find(|&i| s >= bin_lo(i))
}

/// One bin of an S-curve.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct SBin {
    /// Lower end of the similarity bin.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// Pairs whose similarity is in the bin.
    pub pairs: u64,
    /// Those found.
    pub found: u64,
    /// found / pairs (NaN without pairs).
    pub fraction: f64,
    /// Those found as an edge of the method.
    pub edges: u64,
    /// edges / pairs (NaN without pairs).
    pub edge_fraction: f64,
    /// The mean detection probability at the pairs' similarities (`None` without a model or
    /// without pairs).
    pub theory: Option<f64>,
    /// The binomial standard error of the fraction around the theory
    /// (`sqrt(theory (1 - theory) / pairs)`; `None` without a theory).
    pub stderr: Option<f64>,
}

/// The S-curve of `pairs`, each `(similarity, found, found as an edge)`, against `model`
/// (see the module docs).
pub fn s_curve(
    pairs: impl IntoIterator<Item = (f64, bool, bool)>,
    model: Option<&Detection>,
) -> Vec<SBin> {
    let mut n = [0u64; S_BINS];
    let mut found = [0u64; S_BINS];
    let mut edges = [0u64; S_BINS];
    let mut theory = [0f64; S_BINS];
    let table = model.map(Detection::table);
    for (s, f, e) in pairs {
        let Some(b) = bin_of(s) else { continue };
        n[b] += 1;
        found[b] += u64::from(f);
        edges[b] += u64::from(e);
        if let Some(t) = &table {
            theory[b] += t.at(s);
        }
    }
    (0..S_BINS)
        .map(|i| {
            let th = (table.is_some() && n[i] > 0).then(|| theory[i] / n[i] as f64);
            let frac = |k: u64| {
                if n[i] == 0 {
                    f64::NAN
                } else {
                    k as f64 / n[i] as f64
                }
            };
            SBin {
                lo: bin_lo(i),
                hi: bin_lo(i + 1),
                pairs: n[i],
                found: found[i],
                fraction: frac(found[i]),
                edges: edges[i],
                edge_fraction: frac(edges[i]),
                theory: th,
                stderr: th.map(|p| (p * (1.0 - p) / n[i] as f64).sqrt()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::detection::bands_probability;

    /// AP by its definition over ranks (distinct scores): the mean over positives of the
    /// precision at each positive's rank, positives never ranked counting 0.
    fn ap_by_ranks(scores: &[(f64, bool)], positives: u64) -> f64 {
        let mut v = scores.to_vec();
        v.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap());
        let mut tp = 0;
        let mut sum = 0.0;
        for (rank, (_, pos)) in v.iter().enumerate() {
            if *pos {
                tp += 1;
                sum += tp as f64 / (rank + 1) as f64;
            }
        }
        sum / positives as f64
    }

    #[test]
    fn average_precision_is_the_mean_precision_at_the_positives() {
        // ranks: + - + + - -, 5 positives in the truth (2 never ranked)
        let pairs = [
            (0.9, true),
            (0.8, false),
            (0.7, true),
            (0.6, true),
            (0.5, false),
            (0.4, false),
        ];
        let c = pr_curve(pairs.iter().map(|&(s, p)| (Some(s), p)), 5);
        // (1/1 + 2/3 + 3/4) / 5
        let want = (1.0 + 2.0 / 3.0 + 0.75) / 5.0;
        assert!((c.average_precision.unwrap() - want).abs() < 1e-12);
        assert!((ap_by_ranks(&pairs, 5) - want).abs() < 1e-12);
        assert_eq!(c.points.len(), 6);
        assert_eq!(c.points[3].found, 4);
        assert_eq!(c.points[3].common, 3);
        assert!((c.points[3].recall - 0.6).abs() < 1e-12);
        // the order the pairs come in does not matter
        let mut rev = pairs.to_vec();
        rev.reverse();
        assert_eq!(pr_curve(rev.iter().map(|&(s, p)| (Some(s), p)), 5), c);
        assert_eq!(pr_curve(std::iter::empty(), 0).average_precision, None);
    }

    #[test]
    fn ties_are_one_level_and_unscored_pairs_come_last() {
        // two tied at 0.9 (one positive), then an unscored positive
        let c = pr_curve([(Some(0.9), false), (Some(0.9), true), (None, true)], 2);
        assert_eq!(c.points.len(), 2);
        assert_eq!((c.points[0].found, c.points[0].common), (2, 1));
        assert_eq!(c.points[1].score, f64::NEG_INFINITY);
        // 0.5 * 0.5 + 0.5 * 2/3
        let want = 0.25 + 0.5 * 2.0 / 3.0;
        assert!((c.average_precision.unwrap() - want).abs() < 1e-12);
        // with distinct scores the level definition is the rank definition
        let mut x = 12345u64;
        let mut pairs = Vec::new();
        for i in 0..200 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let pos = (x >> 60) < 6;
            pairs.push((i as f64 / 200.0 + (x >> 40) as f64 * 1e-12, pos));
        }
        let npos = pairs.iter().filter(|p| p.1).count() as u64 + 7;
        let c = pr_curve(pairs.iter().map(|&(s, p)| (Some(s), p)), npos);
        assert!((c.average_precision.unwrap() - ap_by_ranks(&pairs, npos)).abs() < 1e-12);
    }

    #[test]
    fn bins_and_binomial_tails() {
        assert_eq!(bin_of(0.5), Some(0));
        assert_eq!(bin_of(0.549_999), Some(0));
        assert_eq!(bin_of(0.55), Some(1));
        assert_eq!(bin_of(0.95), Some(9));
        assert_eq!(bin_of(1.0), Some(9));
        assert_eq!(bin_of(0.499), None);
        assert_eq!(bin_of(f64::NAN), None);
        // P(Bin(4, 0.5) >= 3) = (4 + 1) / 16
        assert!((binomial_tail(4, 0.5, 3) - 5.0 / 16.0).abs() < 1e-12);
        assert_eq!(binomial_tail(4, 0.5, 0), 1.0);
        assert_eq!(binomial_tail(4, 0.5, 5), 0.0);
        // the banding walk equals the closed form when the filter asks for no more than a
        // band, and a brute force over all 2^6 agreement patterns otherwise
        for s in [0.3, 0.55, 0.8, 0.97] {
            let closed = 1.0 - (1.0f64 - s * s).powi(3);
            assert!((bands_probability(s, 3, 2, 2) - closed).abs() < 1e-12);
            let mut brute = 0.0;
            for m in 0u32..64 {
                let agree = m.count_ones();
                let band = (0..3).any(|i| (m >> (2 * i)) & 3 == 3);
                if band && agree >= 4 {
                    brute += s.powi(agree as i32) * (1.0 - s).powi(6 - agree as i32);
                }
            }
            assert!(
                (bands_probability(s, 3, 2, 4) - brute).abs() < 1e-12,
                "s={s}"
            );
        }
        let d = Detection::Verified {
            candidates: Box::new(Detection::KMins { n: 10, k: 5 }),
            threshold: 0.7,
        };
        let t = d.table();
        assert_eq!(t.at(0.69), 0.0);
        assert!((t.at(0.8) - binomial_tail(10, 0.8, 5)).abs() < 1e-6);
        let s = s_curve(
            [
                (0.52, true, false),
                (0.53, false, false),
                (0.99, true, true),
                (0.2, true, true),
            ],
            Some(&d),
        );
        assert_eq!((s[0].pairs, s[0].found, s[0].fraction), (2, 1, 0.5));
        assert_eq!((s[0].edges, s[9].edges, s[9].edge_fraction), (0, 1, 1.0));
        assert_eq!(s[0].theory, Some(0.0));
        assert_eq!((s[9].pairs, s[9].found), (1, 1));
        assert!(s[5].fraction.is_nan() && s[5].theory.is_none());
    }
}
