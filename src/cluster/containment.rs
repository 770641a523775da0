//! Containment instead of resemblance: the [`Measure`] a run uses, an exact containment join
//! on full shingle sets, and B97's containment estimate on mod-m images.
//!
//! With `C(a in b) = |S(a) ∩ S(b)| / |S(a)|`, a pair qualifies under containment when
//! `max(C(a in b), C(b in a)) = |S(a) ∩ S(b)| / min(|S(a)|, |S(b)|) >= t`: one document is
//! (mostly) contained in the other, whatever the length of the other (an answer copied from
//! a much longer source has a low resemblance but a high containment).
//!
//! # Exact containment join ([`containment_join`])
//!
//! Elements are ranked globally by ascending document frequency (ties by value), and every
//! set is rewritten as its ascending ranks. Documents are ordered by `(|x|, DocId)`; for a pair
//! let `x` be the earlier (smaller) one, so the measure is `ov / |x|` and the pair qualifies
//! iff `ov >= ceil(t·|x|)`. **Prefix filter for containment:** if none of the first
//! `p(x) = |x| - ceil(t·|x|) + 1` ranks of `x` is in `y`, the overlap lies within the last
//! `ceil(t·|x|) - 1` ranks of `x`, so `ov < ceil(t·|x|)` and the pair fails. Hence every
//! qualifying pair shares an element of the prefix of its *smaller* set. Unlike the
//! resemblance prefix filter, nothing bounds where that element lies in the larger set `y`
//! (nor `|y|`: there is no length filter), so the prefixes of all sets are indexed and each
//! set `y` probes the index with *all* of its elements, keeping the indexed sets `x` that come
//! before `y` in the `(|x|, DocId)` order. Candidates are verified by a merge of the full
//! sets. Tests compare the join with brute force (proptest).
//!
//! # Mod-m containment ([`mod_m_containment_pairs`])
//!
//! B97 estimates `C(a in b)` by `|V(a) ∩ V(b)| / |V(a)|` on the mod-m samples `V`; the
//! max-containment estimate is `|V(a) ∩ V(b)| / min(|V(a)|, |V(b)|)`. The pairs sharing at
//! least one sample element come from the inverted context (its rows); `|V(d)|` is the
//! document's full sample size (elements dropped from the context by `max_df` lower only the
//! shared count).
//!
//! Invariants: empty sets / samples are never paired; pairs are `(a, b)` with `a < b`, sorted,
//! independent of the thread count; thresholds use the same 1e-9 tolerance as the
//! resemblance join (toward longer prefixes, never shorter).

use rayon::prelude::*;

use super::run::{mask, Arm, Found};
use super::Threshold;
use crate::context::pair_counts_of_rows;
use crate::fimi::Transactions;
use crate::sorted::intersection_size;
use crate::{DocId, Error, Result};

/// The similarity measure a threshold applies to.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Measure {
    /// Jaccard resemblance `|A ∩ B| / |A ∪ B|` (every method).
    #[default]
    Resemblance,
    /// Max-containment `|A ∩ B| / min(|A|, |B|)` (exact; union-find on mod-m images).
    Containment,
}

impl Measure {
    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            Measure::Resemblance => "resemblance",
            Measure::Containment => "containment",
        }
    }
}

impl std::fmt::Display for Measure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Measure {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "resemblance" => Ok(Measure::Resemblance),
            "containment" => Ok(Measure::Containment),
            _ => Err(Error::config(format!(
                "measure must be resemblance or containment, not {s:?}"
            ))),
        }
    }
}

/// A pair found by the containment join.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContainmentPair {
    /// Smaller DocId.
    pub a: DocId,
    /// Larger DocId.
    pub b: DocId,
    /// Shared elements.
    pub overlap: u32,
    /// `overlap / min(|A|, |B|)`.
    pub containment: f64,
}

/// The one max-containment predicate (join, mod-m estimate, tests): `ov / min(la, lb) >= t`,
/// false when either set is empty.
#[inline]
pub fn passes_containment(overlap: usize, la: usize, lb: usize, t: f64) -> bool {
    let m = la.min(lb);
    m > 0 && overlap as f64 / m as f64 >= t
}

fn ceil_tol(x: f64) -> usize {
    (x - 1e-9).ceil().max(0.0) as usize
}

/// All pairs of `sets` (each strictly ascending; `sets[d]` is `DocId(d)`) whose
/// max-containment is `>= t`, `t` in `(0, 1]` (algorithm in the module docs).
pub fn containment_join<S: AsRef<[u64]> + Sync>(
    sets: &[S],
    t: f64,
) -> Result<Vec<ContainmentPair>> {
    if !(t > 0.0 && t <= 1.0) {
        return Err(Error::config(format!(
            "containment join threshold must be in (0, 1], not {t}"
        )));
    }
    for (d, s) in sets.iter().enumerate() {
        if s.as_ref().windows(2).any(|w| w[0] >= w[1]) {
            return Err(Error::config(format!(
                "shingle set of document {d} is not strictly ascending"
            )));
        }
    }
    // Global order: ascending document frequency, ties by value.
    let mut values: Vec<u64> = sets
        .par_iter()
        .flat_map_iter(|s| s.as_ref().iter().copied())
        .collect();
    values.par_sort_unstable();
    let mut runs: Vec<(u32, u64)> = Vec::new(); // (frequency, value)
    for &v in &values {
        match runs.last_mut() {
            Some(r) if r.1 == v => r.0 += 1,
            _ => runs.push((1, v)),
        }
    }
    drop(values);
    let mut by_rank = runs.clone();
    by_rank.par_sort_unstable();
    // value -> rank, looked up by binary search in `runs` (sorted by value).
    let mut rank_of_run = vec![0u32; runs.len()];
    for (rank, &(_, v)) in by_rank.iter().enumerate() {
        let i = runs
            .binary_search_by_key(&v, |r| r.1)
            .expect("value present");
        rank_of_run[i] = rank as u32;
    }
    let ranked: Vec<Vec<u32>> = sets
        .par_iter()
        .map(|s| {
            let mut r: Vec<u32> = s
                .as_ref()
                .iter()
                .map(|&v| rank_of_run[runs.binary_search_by_key(&v, |r| r.1).expect("present")])
                .collect();
            r.sort_unstable();
            r
        })
        .collect();
    let n_ranks = runs.len();
    drop(runs);
    // Processing order (|x|, DocId); empty sets never pair.
    let mut order: Vec<u32> = (0..sets.len() as u32)
        .filter(|&d| !ranked[d as usize].is_empty())
        .collect();
    order.sort_unstable_by_key(|&d| (ranked[d as usize].len(), d));
    let prefix_len = |len: usize| (len - ceil_tol(t * len as f64).min(len) + 1).min(len);
    // Inverted index (CSR) over the prefixes: rank -> order positions, ascending.
    let mut post_off = vec![0usize; n_ranks + 1];
    for &d in &order {
        let x = &ranked[d as usize];
        for &e in &x[..prefix_len(x.len())] {
            post_off[e as usize + 1] += 1;
        }
    }
    for i in 0..n_ranks {
        post_off[i + 1] += post_off[i];
    }
    let mut fill = post_off.clone();
    let mut post = vec![0u32; post_off[n_ranks]];
    for (oi, &d) in order.iter().enumerate() {
        let x = &ranked[d as usize];
        for &e in &x[..prefix_len(x.len())] {
            post[fill[e as usize]] = oi as u32;
            fill[e as usize] += 1;
        }
    }
    drop(fill);
    // Probe with every element of y; candidates are the indexed sets before y.
    let mut pairs: Vec<ContainmentPair> = (0..order.len())
        .into_par_iter()
        .map_init(
            || (vec![false; order.len()], Vec::<u32>::new()),
            |(seen, touched), oi| {
                let yd = order[oi];
                for &e in &ranked[yd as usize] {
                    let list = &post[post_off[e as usize]..post_off[e as usize + 1]];
                    let end = list.partition_point(|&o| (o as usize) < oi);
                    for &o in &list[..end] {
                        if !seen[o as usize] {
                            seen[o as usize] = true;
                            touched.push(o);
                        }
                    }
                }
                let ys = sets[yd as usize].as_ref();
                let mut out = Vec::new();
                for &o in touched.iter() {
                    seen[o as usize] = false;
                    let xd = order[o as usize];
                    let xs = sets[xd as usize].as_ref();
                    let ov = intersection_size(xs, ys);
                    if passes_containment(ov, xs.len(), ys.len(), t) {
                        let (a, b) = if xd < yd { (xd, yd) } else { (yd, xd) };
                        out.push(ContainmentPair {
                            a: DocId(a),
                            b: DocId(b),
                            overlap: ov as u32,
                            containment: ov as f64 / xs.len().min(ys.len()) as f64,
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

/// B97 containment on mod-m samples: the pairs sharing at least one element of `rows` (the
/// inverted context: element -> documents) whose estimate
/// `shared / min(sizes[a], sizes[b])` is `>= t` (`sizes[d] = |V(d)|`, the full sample size).
/// Returns `(a, b, shared, estimate)` with `a < b`, sorted.
pub fn mod_m_containment_pairs(
    rows: &Transactions,
    sizes: &[usize],
    t: f64,
) -> Result<Vec<(DocId, DocId, u32, f64)>> {
    if !(0.0..=1.0).contains(&t) {
        return Err(Error::config(format!(
            "containment threshold must be in [0, 1], not {t}"
        )));
    }
    let n = sizes.len() as u32;
    if let Some(d) = rows
        .iter()
        .filter_map(|r| r.last().copied())
        .find(|&d| d >= n)
    {
        return Err(Error::config(format!(
            "context row holds document {d}, but sizes are given for {n}"
        )));
    }
    let counts = pair_counts_of_rows(rows, n, 1);
    Ok(counts
        .into_iter()
        .filter_map(|(a, b, c)| {
            let (la, lb) = (sizes[a.index()], sizes[b.index()]);
            passes_containment(c as usize, la, lb, t)
                .then(|| (a, b, c, f64::from(c) / la.min(lb) as f64))
        })
        .collect())
}

/// The union-find step of [`super::run_method`] by containment on mod-m images: the
/// representatives' context, B97's estimate per sharing pair
/// ([`mod_m_containment_pairs`]), and the connected components of the passing pairs.
pub(super) fn run_mod_m(arm: &mut Arm<'_, '_>) -> Result<Found> {
    let ctx = arm.context()?;
    let Threshold::Resemblance(t) = arm.cfg.threshold else {
        unreachable!("validated: containment takes a threshold")
    };
    arm.summary.k_rule =
        format!("mod-m containment estimate |V(a) n V(b)| / min(|V(a)|, |V(b)|) >= {t}");
    let keys = arm.need(arm.inputs.keys, "mod-m image keys (for the sample sizes)")?;
    let sizes: Vec<usize> = mask(keys, arm.collapse()).iter().map(|k| k.len()).collect();
    let p = mod_m_containment_pairs(ctx.rows(), &sizes, t)?;
    arm.timer.lap("pairs");
    let e: Vec<(DocId, DocId, u32)> = p.iter().map(|x| (x.0, x.1, x.2)).collect();
    let sets = arm.components(&e);
    arm.timer.lap("union-find");
    Ok(Found {
        sets,
        edges: Arm::scored(&e, |i, _| Some(p[i].3), |_| None),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::testutil::{brute_pairs, norm};
    use proptest::prelude::*;

    fn brute(sets: &[Vec<u64>], t: f64) -> Vec<(u32, u32, u32)> {
        // The definition, written here rather than through `passes_containment`.
        brute_pairs(sets, |ov, la, lb| {
            let smaller = la.min(lb);
            smaller > 0 && ov as f64 / smaller as f64 >= t
        })
    }

    #[test]
    fn hand_example() {
        // 0 = {1..4} is inside 1 = {1..10}: C = 1 (J = 0.4); 2 = {1,2,20,21}: C(2 in 0) = 0.5,
        // C(2 in 1) = 0.5; 3 empty; 4 = {30}: nothing shared.
        let sets = vec![
            vec![1, 2, 3, 4],
            (1..=10).collect(),
            vec![1, 2, 20, 21],
            vec![],
            vec![30],
        ];
        let got = containment_join(&sets, 0.5).unwrap();
        let v: Vec<_> = got.iter().map(|p| (p.a.0, p.b.0, p.overlap)).collect();
        assert_eq!(v, vec![(0, 1, 4), (0, 2, 2), (1, 2, 2)]);
        assert_eq!(got[0].containment, 1.0);
        let got = containment_join(&sets, 0.9).unwrap();
        assert_eq!(got.len(), 1);
        assert!(containment_join(&sets, 0.0).is_err());
        assert!(containment_join(&[vec![2u64, 1]], 0.5).is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn join_equals_brute_force(
            raw in prop::collection::vec(prop::collection::vec(0u64..40, 0..25), 0..30),
            t in 0.05f64..=1.0,
        ) {
            let sets = norm(raw);
            let got: Vec<_> = containment_join(&sets, t)
                .unwrap()
                .iter()
                .map(|p| (p.a.0, p.b.0, p.overlap))
                .collect();
            prop_assert_eq!(got, brute(&sets, t));
        }

        #[test]
        fn join_at_grid_thresholds(
            raw in prop::collection::vec(prop::collection::vec(0u64..20, 1..12), 2..20),
            k in 1usize..=10,
        ) {
            // Thresholds like 0.3 or 0.7 make t*|x| land on whole numbers: the tolerance
            // must never shorten a prefix.
            let sets = norm(raw);
            let t = k as f64 / 10.0;
            let got: Vec<_> = containment_join(&sets, t)
                .unwrap()
                .iter()
                .map(|p| (p.a.0, p.b.0, p.overlap))
                .collect();
            prop_assert_eq!(got, brute(&sets, t));
        }
    }

    #[test]
    fn mod_m_estimate_by_hand() {
        // Samples: V0 = {10, 20}, V1 = {10, 20, 30, 40, 50}, V2 = {30, 60, 70, 80},
        // V3 = {90}. Shared: (0,1) 2 -> 2/min(2,5) = 1.0; (1,2) 1 -> 1/4 = 0.25;
        // (0,2), (0,3), (1,3), (2,3) share nothing.
        let samples: Vec<Vec<u64>> = vec![
            vec![10, 20],
            vec![10, 20, 30, 40, 50],
            vec![30, 60, 70, 80],
            vec![90],
        ];
        let ctx = crate::context::Context::from_doc_keys(
            &samples,
            &crate::context::ContextConfig::default(),
            &crate::spill::SpillConfig::default(),
        )
        .unwrap();
        let sizes: Vec<usize> = samples.iter().map(Vec::len).collect();
        let got = mod_m_containment_pairs(ctx.rows(), &sizes, 0.25).unwrap();
        assert_eq!(
            got,
            vec![(DocId(0), DocId(1), 2, 1.0), (DocId(1), DocId(2), 1, 0.25)]
        );
        let got = mod_m_containment_pairs(ctx.rows(), &sizes, 0.3).unwrap();
        assert_eq!(got, vec![(DocId(0), DocId(1), 2, 1.0)]);
        assert!(mod_m_containment_pairs(ctx.rows(), &sizes[..2], 0.3).is_err());
    }
}

#[cfg(test)]
mod run_tests {
    use super::*;
    use crate::cluster::{run_method, ClusterConfig, ClusterInputs, Method, Threshold};

    fn cfg(method: Method, t: f64) -> ClusterConfig {
        ClusterConfig {
            method,
            threshold: Threshold::Resemblance(t),
            measure: Measure::Containment,
            ..Default::default()
        }
    }

    #[test]
    fn union_find_on_mod_m_samples() {
        // Mod-m samples by hand: a short answer V0 inside a long source V1 (estimate
        // 3/3 = 1, resemblance only 3/8); V2 shares 2 of its 4 with V1 (0.5); V3 shares 1 of
        // 2 with V4 (0.5); V5 shares 1 of 5 with V1 (0.2).
        let samples: Vec<Vec<u64>> = vec![
            vec![1, 2, 3],
            vec![1, 2, 3, 4, 5, 6, 7, 8],
            vec![4, 5, 40, 41],
            vec![50, 51],
            vec![51, 52],
            vec![8, 60, 61, 62, 63],
        ];
        let inputs = ClusterInputs {
            n_docs: samples.len(),
            keys: Some(&samples),
            ..Default::default()
        };
        let out = run_method(&inputs, &cfg(Method::UnionFind, 0.5)).unwrap();
        let edges: Vec<_> = out
            .edges
            .iter()
            .map(|p| (p.a.0, p.b.0, p.shared, p.estimate))
            .collect();
        assert_eq!(
            edges,
            vec![
                (0, 1, Some(3), Some(1.0)),
                (1, 2, Some(2), Some(0.5)),
                (3, 4, Some(1), Some(0.5)),
            ]
        );
        let clusters: Vec<Vec<u32>> = out
            .clusters
            .iter()
            .map(|c| c.docs.iter().map(|d| d.0).collect())
            .collect();
        assert_eq!(clusters, vec![vec![0, 1, 2], vec![3, 4]]);
        // Member pairs: (0,2) is in the cluster without an edge of its own.
        assert_eq!(out.pairs.len(), 4);
        // At 0.2 doc 5 joins the first cluster.
        let out = run_method(&inputs, &cfg(Method::UnionFind, 0.2)).unwrap();
        assert_eq!(out.clusters[0].docs.len(), 4);
        // The same images under resemblance at 0.5 (absolute k needed for mod-m elsewhere;
        // here k = 1 shared element would link everything): containment differs from it.
        let res = ClusterConfig {
            measure: Measure::Resemblance,
            threshold: Threshold::MinCommon(3),
            method: Method::UnionFind,
            ..Default::default()
        };
        let out = run_method(&inputs, &res).unwrap();
        assert_eq!(out.edges.len(), 1);
    }

    #[test]
    fn exact_containment_through_run_method() {
        let sets: Vec<Vec<u64>> = vec![vec![1, 2, 3, 4], (1..=10).collect(), vec![30, 31]];
        let inputs = ClusterInputs {
            n_docs: 3,
            sets: Some(&sets),
            ..Default::default()
        };
        let out = run_method(&inputs, &cfg(Method::Exact, 0.9)).unwrap();
        assert_eq!(out.pairs.len(), 1);
        assert_eq!(out.pairs[0].exact, Some(1.0));
        assert_eq!(out.pairs[0].shared, Some(4));
        // Resemblance of the same pair is 0.4: not found at 0.9.
        let res = ClusterConfig {
            measure: Measure::Resemblance,
            ..cfg(Method::Exact, 0.9)
        };
        assert!(run_method(&inputs, &res).unwrap().pairs.is_empty());
    }

    #[test]
    fn other_methods_refuse_containment() {
        for m in [Method::Concept, Method::Lsh, Method::SuperShingle] {
            let e = cfg(m, 0.5).validate().unwrap_err().to_string();
            assert!(
                e.contains("union-find and exact") && e.contains(m.name()),
                "{e}"
            );
        }
        let e = ClusterConfig {
            threshold: Threshold::MinCommon(3),
            ..cfg(Method::UnionFind, 0.5)
        }
        .validate()
        .unwrap_err()
        .to_string();
        assert!(e.contains("min-common"), "{e}");
        assert!(cfg(Method::Exact, 0.0).validate().is_err());
        assert!(cfg(Method::UnionFind, 0.0).validate().is_ok());
    }
}
