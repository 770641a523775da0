//! Candidate rules: how each method finds the pairs it looks at, in a form a stage that
//! divides the documents by key can run (`crate::dataflow`): the keys a document is
//! indexed by, and how many of them two documents must share to be linked. Each method's
//! rule is a function of its own file (`concept::candidate_rule`, ...); [`candidate_rule`]
//! picks it.
//!
//! Invariant: every pair a method finds links its two documents under its rule, so a
//! connected component of the links holds every cluster it touches, and running the method
//! on each component alone finds the whole run's clusters and pairs (the component split of
//! [`super::concept`], which holds for every method with a rule).

use super::{lsh, supershingle, ClusterConfig, ClusterSummary};
use crate::sketch::Scheme;
use crate::Result;

/// What a method indexes documents by, and when two are linked.
#[derive(Clone, Debug, PartialEq)]
pub enum CandidateRule {
    /// Documents sharing at least `k` kept elements of the context (rows filtered by
    /// `min_df` / `max_df`): the method's own edges (concept, union-find).
    Elements { k: u32 },
    /// Documents sharing an LSH band: a superset of lsh's candidates.
    Bands { bands: u32, rows: u32, seed: u64 },
    /// Documents sharing a super shingle: a superset of super-shingle's pairs.
    SuperShingles {
        cfg: super::SuperShingleConfig,
        positional: bool,
    },
    /// Documents whose full shingle sets (the keys) have resemblance `>= t`: the exact
    /// join's own edges, found by prefix filtering ([`super::exact::prefix_len`]).
    Resemblance { t: f64 },
}

impl CandidateRule {
    /// The keys of a document with element `keys` (ascending) and, for positional schemes,
    /// its `positional` image; ascending and distinct.
    pub fn keys(&self, keys: &[u64], positional: &[u64]) -> Vec<u64> {
        let mut k = match self {
            CandidateRule::Elements { .. } | CandidateRule::Resemblance { .. } => {
                return keys.to_vec()
            }
            CandidateRule::Bands { bands, rows, seed } => {
                lsh::band_keys(positional, *bands, *rows, *seed)
            }
            CandidateRule::SuperShingles { cfg, positional: p } => {
                supershingle::super_shingles(if *p { positional } else { keys }, *p, cfg)
            }
        };
        k.sort_unstable();
        k.dedup();
        k
    }

    /// Keys two documents must share to be linked.
    pub fn min_shared(&self) -> u32 {
        match self {
            CandidateRule::Elements { k } => (*k).max(1),
            _ => 1,
        }
    }

    /// The rule of the methods that count shared image elements (concept, union-find):
    /// documents sharing the run's `k` elements (`head`: the method's summary at the
    /// run's image size).
    pub fn shared_elements(head: &ClusterSummary) -> CandidateRule {
        CandidateRule::Elements {
            k: head.k.unwrap_or(1),
        }
    }

    /// Whether the keys are the context's elements, filtered by document frequency.
    pub fn is_context(&self) -> bool {
        matches!(self, CandidateRule::Elements { .. })
    }

    /// Whether pairs are found by prefix filtering on the keys in the global order of
    /// (document frequency, key), and counted exactly (elements and full sets), rather
    /// than by every pair of documents sharing a key.
    pub fn is_prefix_filtered(&self) -> bool {
        matches!(
            self,
            CandidateRule::Elements { .. } | CandidateRule::Resemblance { .. }
        )
    }

    /// Whether the keys are the documents' full shingle sets (the exact join).
    pub fn needs_sets(&self) -> bool {
        matches!(self, CandidateRule::Resemblance { .. })
    }
}

/// The rule of `cfg.method` on images of `n` elements of `scheme`, with the threshold as
/// `head` (the summary of the method run at this image size) translated it; `None` for a
/// method whose pairs no rule by key finds (the exact join by containment).
pub fn candidate_rule(
    cfg: &ClusterConfig,
    head: &ClusterSummary,
    scheme: Scheme,
    n: usize,
) -> Result<Option<CandidateRule>> {
    cfg.method.spec().candidate_rule(cfg, head, scheme, n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::{fp_miner, run_method, ClusterInputs, ImageKind, Method, Threshold};
    use rand::{Rng, SeedableRng};

    /// k-mins images of `n` positions in families: each family a random image and copies
    /// with some positions changed.
    fn families(n: usize, seed: u64) -> Vec<Vec<u64>> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut out = Vec::new();
        for _ in 0..12 {
            let base: Vec<u64> = (0..n).map(|_| rng.gen_range(0..400)).collect();
            for _ in 0..4 {
                let mut v = base.clone();
                for _ in 0..rng.gen_range(0..n / 2) {
                    let i = rng.gen_range(0..n);
                    v[i] = rng.gen_range(0..400);
                }
                out.push(v);
            }
        }
        out
    }

    /// Every edge each method finds links its documents under its rule (the rule's keys,
    /// computed as the divided run computes them, share at least `min_shared`), so the
    /// rule's components hold every cluster.
    #[test]
    fn every_edge_is_linked_by_the_rule() {
        let n = 16;
        let scheme = Scheme::KMins;
        for seed in 0..4 {
            let positional = families(n, seed);
            let keys: Vec<Vec<u64>> = positional
                .iter()
                .map(|p| {
                    let mut k = Vec::new();
                    crate::sketch::positional_keys(p, &mut k);
                    k.sort_unstable();
                    k
                })
                .collect();
            for method in [
                Method::Concept,
                Method::UnionFind,
                Method::Lsh,
                Method::SuperShingle,
            ] {
                let cfg = ClusterConfig {
                    method,
                    threshold: Threshold::Resemblance(0.5),
                    image_kind: ImageKind::KMins,
                    ..ClusterConfig::default()
                };
                let inputs = ClusterInputs {
                    n_docs: keys.len(),
                    keys: Some(&keys),
                    positional: Some(&positional),
                    image_size: Some(n),
                    miner: Some(&fp_miner),
                    ..ClusterInputs::default()
                };
                let out = run_method(&inputs, &cfg).unwrap();
                let rule = candidate_rule(&cfg, &out.summary, scheme, n)
                    .unwrap()
                    .unwrap();
                let rk: Vec<Vec<u64>> = (0..keys.len())
                    .map(|d| rule.keys(&keys[d], &positional[d]))
                    .collect();
                assert!(!out.edges.is_empty(), "{method}: no edges to check");
                for e in &out.edges {
                    let shared =
                        crate::sorted::intersection_size(&rk[e.a.index()], &rk[e.b.index()]);
                    assert!(
                        shared as u32 >= rule.min_shared(),
                        "{method} seed {seed}: edge {:?} shares {shared} keys",
                        (e.a, e.b)
                    );
                }
            }
            // The exact join by resemblance is linked by its own threshold; by containment
            // it has no rule.
            let exact = ClusterConfig {
                method: Method::Exact,
                threshold: Threshold::Resemblance(0.5),
                ..ClusterConfig::default()
            };
            let head = ClusterSummary::default();
            assert_eq!(
                candidate_rule(&exact, &head, scheme, n).unwrap(),
                Some(CandidateRule::Resemblance { t: 0.5 })
            );
            let contained = ClusterConfig {
                measure: crate::cluster::Measure::Containment,
                ..exact
            };
            assert_eq!(candidate_rule(&contained, &head, scheme, n).unwrap(), None);
        }
    }
}
