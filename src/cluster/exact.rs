//! Exact similarity join on full shingle sets: every pair with Jaccard resemblance `>= t`,
//! by prefix filtering (AllPairs / PPJoin, Xiao et al. 2008, reference 25 of IK09).
//!
//! Algorithm: the elements are ranked globally by ascending document frequency (ties by
//! value) and each set is rewritten as its ascending ranks, so rare elements come first.
//! Documents are ordered by `(|x|, DocId)`. A pair `(y, x)` with `y` before `x` and
//! `J >= t` overlaps in `α = ceil(t/(1+t) · (|x|+|y|)) >= ceil(t·|x|)` elements, so the
//! prefixes of length `|x| - ceil(t·|x|) + 1` of both sets intersect (prefix filter) and
//! `|y| >= t·|x|` (length filter). Every document's prefix is indexed first; each document
//! `x` then probes, in parallel, the index entries of its prefix elements that belong to
//! documents before it. With the optional positional filter (PPJoin), a candidate whose
//! overlap so far plus the most that the remaining suffixes can add falls below `α` is
//! pruned. Survivors are verified by a merge of the full sets.
//!
//! Invariants: the result is exactly the brute-force set of pairs whose resemblance passes
//! [`passes`] (the filters use a 1e-9 tolerance toward longer prefixes, never shorter);
//! empty sets are never joined ([`verify_exact`] passes two empty sets only when told the
//! two documents are equivalent); pairs are `(a, b)` with `a < b`, sorted, independent of
//! the thread count.

use rayon::prelude::*;

use super::method::{MethodSpec, Reads};
use super::run::{mask, Arm, Found};
use super::{containment_join, Measure, ScoredPair, Threshold};
use crate::context::prefix::{ceil_tol, PrefixFilter};
pub use crate::context::prefix::{passes, prefix_len};
use crate::sorted::intersection_size;
use crate::{DocId, Error, Result};

/// Exact-join options.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ExactConfig {
    /// Apply the PPJoin positional filter (default true).
    pub positional_filter: bool,
}

impl Default for ExactConfig {
    fn default() -> Self {
        ExactConfig {
            positional_filter: true,
        }
    }
}

impl ExactConfig {
    /// Nothing can be invalid today; kept for symmetry with the other configs.
    pub fn validate(&self) -> Result<()> {
        Ok(())
    }
}

/// A pair found by the exact join.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExactPair {
    /// Smaller DocId.
    pub a: DocId,
    /// Larger DocId.
    pub b: DocId,
    /// Shared elements.
    pub overlap: u32,
    /// Exact resemblance `overlap / |A ∪ B|`.
    pub jaccard: f64,
}

fn check_t(t: f64) -> Result<()> {
    if !(t > 0.0 && t <= 1.0) {
        return Err(Error::config(format!(
            "exact join threshold must be in (0, 1], not {t}"
        )));
    }
    Ok(())
}

/// All pairs of `sets` (each ascending and distinct; `sets[d]` is `DocId(d)`) with Jaccard
/// resemblance `>= t`, `t` in `(0, 1]`. Errors when a set is not strictly ascending.
pub fn exact_join<S: AsRef<[u64]> + Sync>(
    sets: &[S],
    t: f64,
    cfg: &ExactConfig,
) -> Result<Vec<ExactPair>> {
    check_t(t)?;
    for (d, s) in sets.iter().enumerate() {
        if s.as_ref().windows(2).any(|w| w[0] >= w[1]) {
            return Err(Error::config(format!(
                "shingle set of document {d} is not strictly ascending"
            )));
        }
    }
    // Global order: ascending document frequency, ties by value. Sort (value, doc) once,
    // rank the runs by (frequency, value), then regroup (doc, rank) by document.
    let mut entries: Vec<(u64, u32)> = sets
        .par_iter()
        .enumerate()
        .flat_map_iter(|(d, s)| s.as_ref().iter().map(move |&v| (v, d as u32)))
        .collect();
    entries.par_sort_unstable();
    let mut runs: Vec<(u32, u64, usize)> = Vec::new(); // (frequency, value, start)
    for (i, e) in entries.iter().enumerate() {
        match runs.last_mut() {
            Some(r) if r.1 == e.0 => r.0 += 1,
            _ => runs.push((1, e.0, i)),
        }
    }
    let n_ranks = runs.len();
    runs.par_sort_unstable();
    let mut doc_rank: Vec<(u32, u32)> = Vec::with_capacity(entries.len());
    for (rank, &(f, _, start)) in runs.iter().enumerate() {
        doc_rank.extend(
            entries[start..start + f as usize]
                .iter()
                .map(|e| (e.1, rank as u32)),
        );
    }
    drop(entries);
    drop(runs);
    doc_rank.par_sort_unstable();
    let mut ranked: Vec<&[u32]> = Vec::with_capacity(sets.len());
    let ranks: Vec<u32> = doc_rank.iter().map(|p| p.1).collect();
    {
        let mut i = 0;
        for d in 0..sets.len() as u32 {
            let start = i;
            while i < doc_rank.len() && doc_rank[i].0 == d {
                i += 1;
            }
            ranked.push(&ranks[start..i]);
        }
    }
    drop(doc_rank);
    // Processing order.
    let mut order: Vec<u32> = (0..sets.len() as u32)
        .filter(|&d| !ranked[d as usize].is_empty())
        .collect();
    order.sort_unstable_by_key(|&d| (ranked[d as usize].len(), d));
    let mut pos_in_order = vec![u32::MAX; sets.len()];
    for (i, &d) in order.iter().enumerate() {
        pos_in_order[d as usize] = i as u32;
    }
    let filter = PrefixFilter::Resemblance { t };
    let prefix_len = |len: usize| filter.prefix_of_shared(len, len);
    // Inverted index over prefixes: rank -> (order position, position in set), ascending.
    // (CSR: the list of rank e is post[post_off[e]..post_off[e + 1]].)
    let prefix = |d: u32| {
        let x = ranked[d as usize];
        &x[..prefix_len(x.len())]
    };
    let mut post_off = vec![0usize; n_ranks + 1];
    for &d in &order {
        for &e in prefix(d) {
            post_off[e as usize + 1] += 1;
        }
    }
    for i in 0..n_ranks {
        post_off[i + 1] += post_off[i];
    }
    let mut fill = post_off.clone();
    let mut post = vec![(0u32, 0u32); post_off[n_ranks]];
    for (oi, &d) in order.iter().enumerate() {
        for (p, &e) in prefix(d).iter().enumerate() {
            post[fill[e as usize]] = (oi as u32, p as u32);
            fill[e as usize] += 1;
        }
    }
    drop(fill);
    let positional = cfg.positional_filter;
    let mut pairs: Vec<ExactPair> = (0..order.len())
        .into_par_iter()
        .map_init(
            || (vec![0i32; order.len()], Vec::<u32>::new()),
            |(acc, touched), oi| {
                let xd = order[oi];
                let x = ranked[xd as usize];
                let lx = x.len();
                let min_len = ceil_tol(t * lx as f64);
                for (i, &e) in x[..prefix_len(lx)].iter().enumerate() {
                    let list = &post[post_off[e as usize]..post_off[e as usize + 1]];
                    let end = list.partition_point(|&(o, _)| (o as usize) < oi);
                    for &(o, j) in &list[..end] {
                        let ly = ranked[order[o as usize] as usize].len();
                        if ly < min_len {
                            continue;
                        }
                        let a = &mut acc[o as usize];
                        if *a < 0 {
                            continue; // pruned
                        }
                        if *a == 0 {
                            touched.push(o);
                        }
                        if positional {
                            let alpha = ceil_tol(t / (1.0 + t) * (lx + ly) as f64);
                            let ub = *a as usize + 1 + (lx - i - 1).min(ly - j as usize - 1);
                            if ub < alpha {
                                *a = -1;
                                continue;
                            }
                        }
                        *a += 1;
                    }
                }
                let mut out = Vec::new();
                for &o in touched.iter() {
                    let keep = acc[o as usize] > 0;
                    acc[o as usize] = 0;
                    if !keep {
                        continue;
                    }
                    let yd = order[o as usize];
                    let y = &sets[yd as usize].as_ref();
                    let xs = sets[xd as usize].as_ref();
                    let ov = intersection_size(xs, y);
                    let un = xs.len() + y.len() - ov;
                    if filter.holds(ov, xs.len(), y.len()) {
                        let (a, b) = if xd < yd { (xd, yd) } else { (yd, xd) };
                        out.push(ExactPair {
                            a: DocId(a),
                            b: DocId(b),
                            overlap: ov as u32,
                            jaccard: ov as f64 / un as f64,
                        });
                    }
                }
                touched.clear();
                out
            },
        )
        .flatten_iter()
        .collect();
    pairs.par_sort_unstable_by_key(|p| (p.a, p.b));
    Ok(pairs)
}

/// Keeps the pairs whose exact resemblance is `>= t`, fetching each needed document's
/// shingle set once through `fetch` (in parallel, e.g. by re-reading the corpus), and returns
/// them with their exact scores, sorted. Pairs are normalised to `a < b`; duplicates and
/// self-pairs are dropped.
///
/// Two empty sets (documents shorter than a shingle) have no resemblance to compare: such a
/// pair passes, with resemblance 1 and overlap 0, exactly when `equivalent(a, b)` says the
/// two documents are the same text (identical or lexically equivalent, e.g. members of one
/// group of [`super::Collapse`], see [`super::verify`]); `|_, _| false` when nothing is
/// known. `equivalent` is asked about no other pair.
pub fn verify_exact<F, E>(
    pairs: &[(DocId, DocId)],
    fetch: F,
    t: f64,
    equivalent: E,
) -> Result<Vec<ExactPair>>
where
    F: Fn(DocId) -> Result<Vec<u64>> + Sync,
    E: Fn(DocId, DocId) -> bool + Sync,
{
    check_t(t)?;
    let norm = normalised(pairs);
    let mut docs: Vec<DocId> = norm.iter().flat_map(|&(a, b)| [a, b]).collect();
    docs.sort_unstable();
    docs.dedup();
    let fetched: Vec<(DocId, Vec<u64>)> = docs
        .par_iter()
        .map(|&d| Ok((d, fetch(d)?)))
        .collect::<Result<_>>()?;
    verify_fetched(&norm, fetched, t, equivalent)
}

/// `pairs` with `a < b`, without self-pairs, sorted and without duplicates.
fn normalised(pairs: &[(DocId, DocId)]) -> Vec<(DocId, DocId)> {
    let mut norm: Vec<(DocId, DocId)> = pairs
        .iter()
        .filter(|(a, b)| a != b)
        .map(|&(a, b)| if a < b { (a, b) } else { (b, a) })
        .collect();
    norm.sort_unstable();
    norm.dedup();
    norm
}

/// [`verify_exact`] on shingle sets fetched already: `sets` holds each document of `pairs`
/// once, ascending by DocId (each set is sorted and deduplicated in place, not copied).
pub fn verify_fetched<E>(
    pairs: &[(DocId, DocId)],
    mut sets: Vec<(DocId, Vec<u64>)>,
    t: f64,
    equivalent: E,
) -> Result<Vec<ExactPair>>
where
    E: Fn(DocId, DocId) -> bool + Sync,
{
    check_t(t)?;
    let norm = normalised(pairs);
    sets.par_iter_mut().for_each(|(_, s)| {
        s.sort_unstable();
        s.dedup();
    });
    let missing = |d: DocId| Error::config(format!("document {d} is not in the corpus"));
    let get = |d: DocId| -> Result<&[u64]> {
        sets.binary_search_by_key(&d, |s| s.0)
            .map(|i| &sets[i].1[..])
            .map_err(|_| missing(d))
    };
    for &(a, b) in &norm {
        get(a)?;
        get(b)?;
    }
    let get = |d: DocId| get(d).unwrap_or_default();
    Ok(norm
        .par_iter()
        .filter_map(|&(a, b)| {
            let (x, y) = (get(a), get(b));
            if x.is_empty() && y.is_empty() {
                return equivalent(a, b).then_some(ExactPair {
                    a,
                    b,
                    overlap: 0,
                    jaccard: 1.0,
                });
            }
            let ov = intersection_size(x, y);
            let un = x.len() + y.len() - ov;
            passes(ov, un, t).then(|| ExactPair {
                a,
                b,
                overlap: ov as u32,
                jaccard: ov as f64 / un as f64,
            })
        })
        .collect())
}

/// The exact step of [`super::run_method`]: the exact join of the representatives' full
/// shingle sets at the threshold (resemblance, or max-containment with the containment
/// measure) and the connected components of the joined pairs. The method's answer is its
/// pairs: [`super::run_method`] keeps only the member pairs that were joined (or whose
/// documents are equivalent), not the transitive pairs of a component.
fn run(arm: &mut Arm<'_, '_>) -> Result<Found> {
    let Threshold::Resemblance(t) = arm.cfg.threshold else {
        unreachable!("validated: exact takes a resemblance")
    };
    let sets_in = mask(
        arm.need(arm.inputs.sets, "full shingle sets")?,
        arm.collapse(),
    );
    let pairs: Vec<ExactPair> = if arm.cfg.measure == Measure::Containment {
        arm.summary.k_rule = format!("exact max-containment >= {t}");
        // The containment goes in the `jaccard` slot: it becomes the pair's `exact` score
        // (the run's measure).
        containment_join(&sets_in, t)?
            .into_iter()
            .map(|p| ExactPair {
                a: p.a,
                b: p.b,
                overlap: p.overlap,
                jaccard: p.containment,
            })
            .collect()
    } else {
        arm.summary.k_rule = format!("exact resemblance >= {t}");
        exact_join(&sets_in, t, &arm.cfg.exact)?
    };
    arm.timer.lap("join");
    let e: Vec<(DocId, DocId, u32)> = pairs.iter().map(|p| (p.a, p.b, p.overlap)).collect();
    let sets = arm.components(&e);
    arm.timer.lap("union-find");
    let edges: Vec<ScoredPair> = Arm::scored(&e, |_, _| None, |i| Some(pairs[i].jaccard));
    Ok(Found { sets, edges })
}

/// The exact similarity join on full shingle sets (resemblance or max-containment); its
/// clusters are the connected components of the joined pairs, and its answer is its pairs.
pub(super) struct Exact;

impl MethodSpec for Exact {
    fn name(&self) -> &'static str {
        "exact"
    }

    fn reads(&self) -> Reads {
        Reads::Sets
    }

    fn measures_containment(&self) -> bool {
        true
    }

    fn check_threshold(&self, threshold: Threshold) -> Result<()> {
        match threshold {
            Threshold::Resemblance(t) if t <= 0.0 => {
                Err(Error::config("the exact join needs a threshold above 0"))
            }
            Threshold::MinCommon(_) => Err(Error::config(
                "the exact join takes a resemblance threshold, not an absolute min-common k",
            )),
            _ => Ok(()),
        }
    }

    fn answers_with_pairs(&self) -> bool {
        true
    }

    fn pair_detail(
        &self,
        view: &super::pair_detail::PairView<'_>,
    ) -> Result<(super::pair_detail::MethodDetail, String)> {
        Ok(super::pair_detail::exact_detail(view))
    }

    /// A step at the threshold: its pairs are exactly those at or above it.
    fn detection(
        &self,
        _cfg: &super::ClusterConfig,
        summary: &super::ClusterSummary,
        _scheme: Option<crate::sketch::Scheme>,
        _n: u32,
    ) -> Option<super::detection::Detection> {
        Some(super::detection::Detection::Step {
            threshold: summary.threshold?,
        })
    }

    fn run(&self, arm: &mut Arm<'_, '_>) -> Result<Found> {
        run(arm)
    }

    /// Documents indexed by their full shingle sets, linked when their resemblance is at
    /// least the threshold (found by prefix filtering); none for the containment measure.
    fn candidate_rule(
        &self,
        cfg: &super::ClusterConfig,
        _head: &super::ClusterSummary,
        _scheme: crate::sketch::Scheme,
        _n: usize,
    ) -> Result<Option<super::CandidateRule>> {
        Ok(match (cfg.measure, cfg.threshold) {
            (Measure::Resemblance, Threshold::Resemblance(t)) => {
                Some(super::CandidateRule::Resemblance { t })
            }
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::testutil::{brute_pairs, norm};
    use proptest::prelude::*;

    fn brute(sets: &[Vec<u64>], t: f64) -> Vec<(u32, u32, u32)> {
        // The definition, written here rather than through `passes`.
        brute_pairs(sets, |ov, la, lb| {
            let union = la + lb - ov;
            union > 0 && ov as f64 / union as f64 >= t
        })
    }

    #[test]
    fn hand_example() {
        // J(0,1) = 4/5 = 0.8, J(0,2) = 3/6 = 0.5, J(1,2) = 3/5 = 0.6, doc 3 empty.
        let sets = vec![
            vec![1, 2, 3, 4, 5],
            vec![1, 2, 3, 4],
            vec![1, 2, 3, 9],
            vec![],
        ];
        let got = exact_join(&sets, 0.6, &ExactConfig::default()).unwrap();
        let v: Vec<_> = got.iter().map(|p| (p.a.0, p.b.0, p.overlap)).collect();
        assert_eq!(v, vec![(0, 1, 4), (1, 2, 3)]);
        assert!((got[0].jaccard - 0.8).abs() < 1e-12);
        let got = exact_join(&sets, 0.8, &ExactConfig::default()).unwrap();
        assert_eq!(got.len(), 1);
        assert!(exact_join(&sets, 0.0, &ExactConfig::default()).is_err());
        assert!(exact_join(&[vec![2u64, 1]], 0.5, &ExactConfig::default()).is_err());
    }

    #[test]
    fn verify_filters_and_normalises() {
        let sets = [vec![1u64, 2, 3, 4, 5], vec![1, 2, 3, 4], vec![3, 4, 5, 9]];
        let pairs = [
            (DocId(1), DocId(0)),
            (DocId(0), DocId(2)),
            (DocId(0), DocId(1)),
            (DocId(2), DocId(2)),
        ];
        let got = verify_exact(&pairs, |d| Ok(sets[d.index()].clone()), 0.7, |_, _| true).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(
            (got[0].a, got[0].b, got[0].overlap),
            (DocId(0), DocId(1), 4)
        );
    }

    #[test]
    fn two_empty_sets_pass_only_when_equivalent() {
        // 0, 1, 2 empty; 3 not. 0 and 1 are equivalent, 2 is not; an empty and a non-empty
        // set never pass, whatever `equivalent` says.
        let sets = [vec![], vec![], vec![], vec![7u64]];
        let eq = |a: DocId, b: DocId| a.0 + b.0 == 1 || b.0 == 3;
        let pairs = [
            (DocId(1), DocId(0)),
            (DocId(0), DocId(2)),
            (DocId(1), DocId(2)),
            (DocId(0), DocId(3)),
        ];
        let got = verify_exact(&pairs, |d| Ok(sets[d.index()].clone()), 1.0, eq).unwrap();
        let v: Vec<_> = got.iter().map(|p| (p.a.0, p.b.0, p.overlap)).collect();
        assert_eq!(v, vec![(0, 1, 0)]);
        assert_eq!(got[0].jaccard, 1.0);
        let none = verify_exact(&pairs, |d| Ok(sets[d.index()].clone()), 0.5, |_, _| false);
        assert!(none.unwrap().is_empty());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn equals_brute_force(
            raw in prop::collection::vec(prop::collection::vec(0u64..40, 0..15), 0..25),
            t in 0.05f64..1.0,
            positional in any::<bool>(),
        ) {
            let sets = norm(raw);
            let got = exact_join(&sets, t, &ExactConfig { positional_filter: positional }).unwrap();
            let v: Vec<_> = got.iter().map(|p| (p.a.0, p.b.0, p.overlap)).collect();
            prop_assert_eq!(v, brute(&sets, t));
        }

        #[test]
        fn equals_brute_force_at_exact_ratios(
            raw in prop::collection::vec(prop::collection::vec(0u64..12, 1..8), 2..20),
            num in 1u32..10, den in 1u32..10,
        ) {
            // Thresholds that are exact ratios hit the float edge cases of the filters.
            prop_assume!(num <= den);
            let t = f64::from(num) / f64::from(den);
            let sets = norm(raw);
            let got = exact_join(&sets, t, &ExactConfig::default()).unwrap();
            let v: Vec<_> = got.iter().map(|p| (p.a.0, p.b.0, p.overlap)).collect();
            prop_assert_eq!(v, brute(&sets, t));
        }
    }
}
