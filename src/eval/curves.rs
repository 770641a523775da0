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
//! one closed) of the pairs' exact resemblance, given by the sizes of their two shingle sets
//! and their intersection ([`PairSets`]); a pair below 0.5 is in none. Per bin: the pairs,
//! those found (in the output), those found as an edge of the method (before its pairs were
//! grouped into clusters, which adds and drops pairs), their fractions, and the theoretical
//! fraction of edges: the mean of the model's probability for each pair (from the pair's own
//! set sizes, so neither the bin's width nor the spread of sizes in it adds error), with the
//! standard error of a fraction of `N` independent pairs of probabilities `p_i` around it
//! (Poisson-binomial: `sqrt(sum p_i (1 - p_i)) / N`; pairs that are one event, found or
//! missed together because their documents' shingle sets are pairwise equal, count as one
//! trial of weight `m`, adding `m^2 p (1 - p)`), widened by the simulation's own variance of
//! the mean when the law is simulated (pairs of equal sizes share one simulation, so their
//! errors add as one). The band is the theory ± [`BAND_SE`] standard
//! errors; a bin whose fraction of edges or of output pairs lies outside it carries a
//! [`Remark`] saying why: grouping (output pairs only), a band too rough for the bin (the
//! exact Poisson-binomial probability of a count that far out is not small: few pairs, or
//! probabilities near 0 or 1), or a count the model does not explain.
//!
//! Invariants: every function here is deterministic and independent of the input order
//! (ties are levels; bins are counts and sums, summed in the order given, which the callers
//! fix; a simulation is a function of a pair's sizes).

pub use crate::cluster::detection::{binomial_tail, Detection, PairSets, Probability, Simulations};

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

/// Standard errors each side of the theory that an S-curve's band spans (the table, the
/// plot and the remarks use it).
pub const BAND_SE: f64 = 3.0;

/// The one-sided probability of a normal count beyond [`BAND_SE`] standard errors: an
/// exact tail at least this large means a count outside the band is not unlikely.
const BAND_TAIL: f64 = 0.001_35;

/// Why a bin's measured fraction lies outside its band (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "remark")]
pub enum Remark {
    /// The fraction of edges is outside the band, but under the model a count at least that
    /// far from its mean, on that side, has the exact probability `tail` >= 0.00135: the
    /// band's normal approximation is rough here (few pairs, or probabilities near 0 or 1).
    RoughBand {
        /// The exact Poisson-binomial tail probability.
        tail: f64,
    },
    /// The fraction of edges is outside the band and its exact tail probability `tail` is
    /// below 0.00135: something the model leaves out acts on these pairs.
    OffModel {
        /// The exact Poisson-binomial tail probability.
        tail: f64,
    },
    /// The fraction of output pairs is outside the band, above the edges': grouping into
    /// clusters added member pairs the method never joined directly.
    GroupingAdds,
    /// The fraction of output pairs is outside the band, below the edges': grouping dropped
    /// pairs the method joined (center clustering keeps one center per cluster).
    GroupingDrops,
}

impl Remark {
    /// A short flag for a table cell (with the exact tail probability where there is one).
    pub fn flag(&self) -> String {
        match self {
            Remark::RoughBand { tail } => format!("rough band, p = {tail:.3}"),
            Remark::OffModel { tail } => format!("off model, p = {tail:.1e}"),
            Remark::GroupingAdds => "grouping adds".to_string(),
            Remark::GroupingDrops => "grouping drops".to_string(),
        }
    }

    /// The kind of remark, without its figures (one per variant).
    pub fn kind(&self) -> &'static str {
        match self {
            Remark::RoughBand { .. } => "rough band",
            Remark::OffModel { .. } => "off model",
            Remark::GroupingAdds => "grouping adds",
            Remark::GroupingDrops => "grouping drops",
        }
    }

    /// What the flag means.
    pub fn sentence(&self) -> &'static str {
        match self {
            Remark::RoughBand { .. } => "the fraction of edges lies outside the band, but under the model a count at least that far out, on that side, has the exact (Poisson-binomial) probability p, not small: with few pairs, or probabilities near 0 or 1, the band's normal approximation is rough",
            Remark::OffModel { .. } => "the fraction of edges lies outside the band and a count at least that far out has the exact (Poisson-binomial) probability p < 0.00135 under the model: something the model leaves out acts on these pairs",
            Remark::GroupingAdds => "the output pairs lie above the band: grouping into clusters added member pairs the method never joined directly (union-find's closure, concept sets); the model is of edges",
            Remark::GroupingDrops => "the output pairs lie below the band: grouping dropped pairs the method joined (center clustering); the model is of edges",
        }
    }
}

/// One bin of an S-curve.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
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
    /// The mean detection probability of the bin's pairs (`None` without a model or
    /// without pairs).
    pub theory: Option<f64>,
    /// The standard error of the fraction around the theory: `sqrt(sum p (1 - p)) / pairs`,
    /// with the simulation's variance of the mean added for a simulated law (`None` without
    /// a theory).
    pub stderr: Option<f64>,
    /// The simulation's part of the standard error (`sqrt` of its variance of the mean; 0
    /// for an exact law, `None` without a theory).
    pub simulation_stderr: Option<f64>,
    /// Why the fraction of edges, and why that of output pairs, lies outside the band (empty
    /// when both lie inside, or without a theory).
    pub remarks: Vec<Remark>,
}

impl SBin {
    /// The band: the theory ± [`BAND_SE`] standard errors, clamped to `[0, 1]`.
    pub fn band(&self) -> Option<(f64, f64)> {
        let (t, se) = (self.theory?, self.stderr?);
        Some(((t - BAND_SE * se).max(0.0), (t + BAND_SE * se).min(1.0)))
    }

    /// Whether `fraction` lies outside the band (never without one).
    pub fn outside(&self, fraction: f64) -> bool {
        self.band()
            .is_some_and(|(lo, hi)| fraction < lo - 1e-12 || fraction > hi + 1e-12)
    }
}

/// One pair of an S-curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SPair {
    /// The sizes of its two shingle sets and their intersection.
    pub sets: PairSets,
    /// Found (in the output).
    pub found: bool,
    /// Found as an edge of the method.
    pub edge: bool,
    /// Its event: pairs of one event are found or missed together (their documents have
    /// pairwise equal shingle sets, so equal images: a document and its copies against
    /// another), and count as one trial of their number's weight. Distinct for independent
    /// pairs.
    pub event: u64,
}

/// The S-curve of `pairs` against `model`, its simulations (if it needs any) made in `sims`
/// (see the module docs).
pub fn s_curve(pairs: &[SPair], model: Option<&Detection>, sims: &mut Simulations) -> Vec<SBin> {
    let binned: Vec<(usize, &SPair)> = pairs
        .iter()
        .filter_map(|p| Some((bin_of(p.sets.resemblance())?, p)))
        .collect();
    let probs: Option<Vec<Probability>> = model.map(|m| {
        let sets: Vec<PairSets> = binned.iter().map(|(_, p)| p.sets).collect();
        m.probabilities(&sets, sims)
    });
    (0..S_BINS)
        .map(|i| {
            let mine: Vec<usize> = (0..binned.len()).filter(|&j| binned[j].0 == i).collect();
            let n = mine.len() as u64;
            let count =
                |f: fn(&SPair) -> bool| mine.iter().filter(|&&j| f(binned[j].1)).count() as u64;
            let (found, edges) = (count(|p| p.found), count(|p| p.edge));
            let frac = |k: u64| {
                if n == 0 {
                    f64::NAN
                } else {
                    k as f64 / n as f64
                }
            };
            let mut bin = SBin {
                lo: bin_lo(i),
                hi: bin_lo(i + 1),
                pairs: n,
                found,
                fraction: frac(found),
                edges,
                edge_fraction: frac(edges),
                theory: None,
                stderr: None,
                simulation_stderr: None,
                remarks: Vec::new(),
            };
            let Some(probs) = probs.as_ref().filter(|_| n > 0) else {
                return bin;
            };
            let nf = n as f64;
            let mean = mine.iter().map(|&j| probs[j].p).sum::<f64>() / nf;
            // the bin's events with their weights, and the groups of pairs of equal sizes,
            // which share one simulation (their simulation errors add as one)
            let weighted = |key: &dyn Fn(&SPair) -> (u64, PairSets)| {
                let mut v: Vec<((u64, PairSets), usize)> =
                    mine.iter().map(|&j| (key(binned[j].1), j)).collect();
                v.sort_by_key(|x| x.0);
                v.chunk_by(|x, y| x.0 == y.0)
                    .map(|g| (g.len() as f64, probs[g[0].1]))
                    .collect::<Vec<_>>()
            };
            let events = weighted(&|p| (p.event, p.sets));
            let spread: f64 = events.iter().map(|(m, q)| m * m * q.p * (1.0 - q.p)).sum();
            let sim_var: f64 = weighted(&|p| (0, p.sets))
                .iter()
                .map(|(m, q)| m * m * q.variance)
                .sum();
            bin.theory = Some(mean);
            bin.stderr = Some((spread + sim_var).sqrt() / nf);
            bin.simulation_stderr = Some(sim_var.sqrt() / nf);
            if bin.outside(bin.edge_fraction) {
                let trials: Vec<(u64, f64)> =
                    events.iter().map(|(m, q)| (*m as u64, q.p)).collect();
                let tail = poisson_binomial_tail(&trials, edges, bin.edge_fraction > mean);
                bin.remarks.push(if tail >= BAND_TAIL {
                    Remark::RoughBand { tail }
                } else {
                    Remark::OffModel { tail }
                });
            }
            if found != edges && bin.outside(bin.fraction) {
                bin.remarks.push(if found > edges {
                    Remark::GroupingAdds
                } else {
                    Remark::GroupingDrops
                });
            }
            bin
        })
        .collect()
}

/// Pairs above which [`poisson_binomial_tail`] takes the normal approximation (the exact
/// distribution costs about `N^2 / 2` steps).
const EXACT_TAIL_PAIRS: u64 = 20_000;

/// `P(X >= x)` (`upper`) or `P(X <= x)` for `X = sum m_i B_i`, `B_i` independent Bernoulli
/// trials of probabilities `p_i`, each counting `m_i` pairs (`trials`: `(m_i, p_i)`): the
/// exact distribution by adding one trial at a time, or above `EXACT_TAIL_PAIRS` pairs
/// the normal approximation with a continuity correction.
pub fn poisson_binomial_tail(trials: &[(u64, f64)], x: u64, upper: bool) -> f64 {
    let total: u64 = trials.iter().map(|t| t.0).sum();
    if total > EXACT_TAIL_PAIRS {
        let mean: f64 = trials.iter().map(|&(m, p)| m as f64 * p).sum();
        let sd = trials
            .iter()
            .map(|&(m, p)| (m * m) as f64 * p * (1.0 - p))
            .sum::<f64>()
            .sqrt();
        let z = if upper {
            (x as f64 - 0.5 - mean) / sd
        } else {
            (mean - x as f64 - 0.5) / sd
        };
        return 0.5 * erfc(z / std::f64::consts::SQRT_2);
    }
    let total = total as usize;
    let mut dist = vec![0.0f64; total + 1];
    dist[0] = 1.0;
    let mut reach = 0usize;
    for &(m, p) in trials {
        let m = m as usize;
        for j in (0..=reach + m).rev() {
            let stay = if j <= reach { dist[j] * (1.0 - p) } else { 0.0 };
            let step = if j >= m { dist[j - m] * p } else { 0.0 };
            dist[j] = stay + step;
        }
        reach += m;
    }
    let x = x as usize;
    let tail: f64 = if upper {
        dist[x.min(total + 1)..].iter().sum()
    } else {
        dist[..=x.min(total)].iter().sum()
    };
    tail.clamp(0.0, 1.0)
}

/// The complementary error function (Numerical Recipes' `erfcc`, a Chebyshev fit with a
/// fractional error below `1.2e-7`).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
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

    fn pair(sets: PairSets, found: bool, edge: bool, event: u64) -> SPair {
        SPair {
            sets,
            found,
            edge,
            event,
        }
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
        // sets of 100 and 100 sharing c: resemblance c / (200 - c)
        let sets = |c: u64| PairSets::new(100, 100, c).unwrap();
        let (below, above) = (sets(82), sets(90)); // 0.694, 0.818
        assert_eq!(d.probability(&below).p, 0.0);
        let want = binomial_tail(10, above.resemblance(), 5);
        assert!((d.probability(&above).p - want).abs() < 1e-12);
        let mut sims = Simulations::default();
        let s = s_curve(
            &[
                pair(sets(70), true, false, 0),  // 0.538
                pair(sets(71), false, false, 1), // 0.550: the next bin
                pair(sets(100), true, true, 2),  // 1
                pair(sets(20), true, true, 3),   // 0.111: in no bin
            ],
            Some(&d),
            &mut sims,
        );
        assert_eq!((s[0].pairs, s[0].found, s[0].fraction), (1, 1, 1.0));
        assert_eq!((s[1].pairs, s[1].found, s[1].edges), (1, 0, 0));
        assert_eq!((s[0].edges, s[9].edges, s[9].edge_fraction), (0, 1, 1.0));
        assert_eq!(s[0].theory, Some(0.0));
        // found, not as an edge, where the model says never: grouping added it
        assert_eq!(s[0].remarks, vec![Remark::GroupingAdds]);
        assert_eq!((s[9].pairs, s[9].found, s[9].theory), (1, 1, Some(1.0)));
        assert!(s[5].fraction.is_nan() && s[5].theory.is_none());
    }

    #[test]
    fn a_bin_has_the_poisson_binomial_error_and_says_why_it_is_off() {
        // k-mins, 7 of 10: pairs of resemblance 0.6 (c = 75 of 100 and 100) and 0.538 (70)
        let d = Detection::KMins { n: 10, k: 7 };
        let (x, y) = (
            PairSets::new(100, 100, 75).unwrap(),
            PairSets::new(100, 100, 70).unwrap(),
        );
        let (px, py) = (
            binomial_tail(10, 0.6, 7),
            binomial_tail(10, 70.0 / 130.0, 7),
        );
        let mut pairs = Vec::new();
        for i in 0..30 {
            pairs.push(pair(x, true, i < 11, i));
        }
        for i in 0..10 {
            pairs.push(pair(y, i < 3, i < 3, 100 + i));
        }
        let mut sims = Simulations::default();
        let s = s_curve(&pairs, Some(&d), &mut sims);
        // 0.538 and 0.6 fall in bins 0 and 2
        let b = &s[2];
        assert!((b.theory.unwrap() - px).abs() < 1e-12);
        let se = (30.0 * px * (1.0 - px)).sqrt() / 30.0;
        assert!((b.stderr.unwrap() - se).abs() < 1e-12);
        assert_eq!(b.simulation_stderr, Some(0.0));
        // every pair found, 11 of 30 as edges (theory 0.382 +- 3 x 0.089): only the
        // output pairs are out, by grouping
        assert!(!b.outside(b.edge_fraction) && b.outside(b.fraction));
        assert_eq!(b.remarks, vec![Remark::GroupingAdds]);
        // 3 of 10 at p = 0.26: inside
        assert!((s[0].theory.unwrap() - py).abs() < 1e-12 && s[0].remarks.is_empty());
        // the 30 pairs of resemblance 0.6 as 10 events of 3 pairs each (a document and its
        // copies): the variance of their count is 10 x 3^2 p (1 - p)
        let events: Vec<SPair> = pairs[..30]
            .iter()
            .enumerate()
            .map(|(i, p)| SPair {
                event: i as u64 / 3,
                edge: i < 12,
                ..*p
            })
            .collect();
        let b = &s_curve(&events, Some(&d), &mut sims)[2];
        let se = (90.0 * px * (1.0 - px)).sqrt() / 30.0;
        assert!((b.stderr.unwrap() - se).abs() < 1e-12);
        // the exact tail against a direct enumeration of 2^6 outcomes, trials of weights
        // 1 and 2
        let ps = [0.1, 0.5, 0.9, 0.3, 0.99, 0.02];
        for weights in [[1u64; 6], [1, 2, 1, 2, 2, 1]] {
            let trials: Vec<(u64, f64)> = weights.iter().copied().zip(ps).collect();
            for x in 0..=9u64 {
                let (mut up, mut down) = (0.0, 0.0);
                for m in 0u32..64 {
                    let k: u64 = (0..6).filter(|i| m >> i & 1 == 1).map(|i| weights[i]).sum();
                    let pr: f64 = (0..6)
                        .map(|i| if m >> i & 1 == 1 { ps[i] } else { 1.0 - ps[i] })
                        .product();
                    if k >= x {
                        up += pr;
                    }
                    if k <= x {
                        down += pr;
                    }
                }
                assert!((poisson_binomial_tail(&trials, x, true) - up).abs() < 1e-12);
                assert!((poisson_binomial_tail(&trials, x, false) - down).abs() < 1e-12);
            }
        }
        // edges far off a certain model: 3 of 60 pairs missed where p = 1
        let sure = PairSets::new(100, 100, 100).unwrap();
        let pairs: Vec<_> = (0..60).map(|i| pair(sure, i >= 3, i >= 3, i)).collect();
        let s = s_curve(&pairs, Some(&d), &mut sims);
        assert_eq!(s[9].remarks, vec![Remark::OffModel { tail: 0.0 }]);
        // a rough band: p = 0.0093 for 20 pairs, two found (band up to 0.074; tail 0.015)
        let rare = Detection::KMins { n: 10, k: 10 };
        let pairs: Vec<_> = (0..20)
            .map(|i| pair(PairSets::new(100, 100, 77).unwrap(), i < 2, i < 2, i))
            .collect();
        let s = s_curve(&pairs, Some(&rare), &mut sims);
        let b = s.iter().find(|b| b.pairs > 0).unwrap();
        let p = b.theory.unwrap();
        let tail = 1.0 - (1.0 - p).powi(20) - 20.0 * p * (1.0 - p).powi(19);
        assert!(b.outside(b.edge_fraction), "{b:?}");
        match b.remarks[..] {
            [Remark::RoughBand { tail: t }] => assert!((t - tail).abs() < 1e-12),
            _ => panic!("{b:?}"),
        }
    }
}
