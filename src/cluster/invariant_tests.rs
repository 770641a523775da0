//! End-to-end tests of `run_method`, by invariant: the version chain, thread-count
//! independence, pair counts and candidates against brute force, names, configs and the
//! summary.

use super::concept::tests::brute_maximal;
use super::testutil::{bottom_k, cfg, docs_of, hand_keys, ids, k_mins};
use super::*;
use crate::context::{Context, ContextConfig};
use crate::{DocId, Error};
use rand::{Rng, SeedableRng};

// ---------- version chain ----------

/// doc1..doc10 as shingle sets: doc1 is 1000 random values, each next doc replaces 3 % of
/// the previous one's elements with fresh values.
fn version_chain(seed: u64) -> Vec<Vec<u64>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut cur: Vec<u64> = (0..1000).map(|_| rng.gen()).collect();
    let mut out = vec![cur.clone()];
    for _ in 1..10 {
        for _ in 0..30 {
            let i = rng.gen_range(0..cur.len());
            cur[i] = rng.gen();
        }
        out.push(cur.clone());
    }
    for s in &mut out {
        s.sort_unstable();
        s.dedup();
    }
    out
}

fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    let o = crate::sorted::intersection_size(a, b);
    o as f64 / (a.len() + b.len() - o) as f64
}

#[test]
fn version_chain_union_find_joins_concept_does_not() {
    for seed in [1u64, 2, 3] {
        let sets = version_chain(seed);
        // Sanity on the data itself: neighbours are close, the ends are far apart.
        assert!(jaccard(&sets[0], &sets[1]) > 0.9);
        assert!(jaccard(&sets[0], &sets[9]) < 0.7);
        let t = Threshold::Resemblance(0.8);
        let miner = brute_maximal;
        for kind in [ImageKind::KMins, ImageKind::BottomK] {
            let images: Vec<Vec<u64>> = sets
                .iter()
                .map(|s| match kind {
                    ImageKind::KMins => {
                        let mut k = Vec::new();
                        crate::sketch::positional_keys(&k_mins(s, 128), &mut k);
                        k
                    }
                    ImageKind::BottomK | ImageKind::BBit { .. } => bottom_k(s, 128),
                })
                .collect();
            let inputs = ClusterInputs {
                n_docs: 10,
                keys: Some(&images),
                image_size: Some(128),
                image_lens: None,
                miner: Some(&miner),
                ..Default::default()
            };
            let mut c = cfg(Method::UnionFind, t);
            c.image_kind = kind;
            let uf = run_method(&inputs, &c).unwrap();
            assert_eq!(
                docs_of(&uf).into_iter().map(|x| x.0).collect::<Vec<_>>(),
                vec![ids(&(0..10).collect::<Vec<_>>())],
                "union-find joins the whole chain ({kind:?}, seed {seed})"
            );
            c.method = Method::Concept;
            let cc = run_method(&inputs, &c).unwrap();
            assert!(!cc.clusters.is_empty());
            for cl in &cc.clusters {
                assert!(
                    !(cl.docs.contains(&DocId(0)) && cl.docs.contains(&DocId(9))),
                    "concept cluster {:?} holds doc1 and doc10 ({kind:?}, seed {seed})",
                    cl.docs
                );
            }
            assert!(!cc.pairs.iter().any(|p| (p.a, p.b) == (DocId(0), DocId(9))));
            // Neighbouring versions do end up together.
            assert!(cc.pairs.iter().any(|p| (p.a, p.b) == (DocId(0), DocId(1))));
        }
        // The exact join at 0.8 links neighbours but not the ends.
        let inputs = ClusterInputs {
            n_docs: 10,
            sets: Some(&sets),
            ..Default::default()
        };
        let ex = run_method(&inputs, &cfg(Method::Exact, t)).unwrap();
        assert!(ex.edges.iter().all(|p| (p.a, p.b) != (DocId(0), DocId(9))));
        assert!(ex.edges.iter().any(|p| (p.a, p.b) == (DocId(0), DocId(1))));
    }
}

// ---------- thread-count independence ----------

/// 120 documents: 30 groups of 4 near-duplicates (each 2 % edited from the group's base)
/// plus noise, as shingle sets.
fn corpus(seed: u64) -> Vec<Vec<u64>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..30 {
        let base: Vec<u64> = (0..300).map(|_| rng.gen_range(0..5000u64)).collect();
        for _ in 0..4 {
            let mut d = base.clone();
            for _ in 0..rng.gen_range(0..15) {
                let i = rng.gen_range(0..d.len());
                d[i] = rng.gen_range(0..5000u64);
            }
            d.sort_unstable();
            d.dedup();
            out.push(d);
        }
    }
    out
}

fn write_all(out: &ClusterOutput, dir: &std::path::Path, ext: &[String]) -> (Vec<u8>, Vec<u8>) {
    let (c, p) = (dir.join("clusters.jsonl"), dir.join("pairs.csv"));
    write_clusters(&c, &out.clusters, ext).unwrap();
    write_pairs(&p, &out.pairs, ext).unwrap();
    (std::fs::read(c).unwrap(), std::fs::read(p).unwrap())
}

#[test]
fn identical_output_for_one_and_two_threads() {
    let sets = corpus(9);
    let n = sets.len();
    let positional: Vec<Vec<u64>> = sets.iter().map(|s| k_mins(s, 64)).collect();
    let bottom: Vec<Vec<u64>> = sets.iter().map(|s| bottom_k(s, 64)).collect();
    let ext: Vec<String> = (0..n).map(|d| format!("doc{d:03}")).collect();
    // Brute force is exponential in a component's documents; the planted groups have 4.
    let miner = brute_maximal;
    let dir = tempfile::tempdir().unwrap();
    for method in [
        Method::UnionFind,
        Method::Lsh,
        Method::SuperShingle,
        Method::Exact,
        Method::Concept,
    ] {
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let inputs = ClusterInputs {
                    n_docs: n,
                    keys: Some(&bottom),
                    positional: if method == Method::SuperShingle || method == Method::Lsh {
                        Some(&positional)
                    } else {
                        None
                    },
                    sets: Some(&sets),
                    image_size: Some(64),
                    image_lens: None,
                    miner: Some(&miner),
                    ..Default::default()
                };
                let mut c = cfg(method, Threshold::Resemblance(0.8));
                c.image_kind = ImageKind::BottomK;
                c.super_shingle.per = Some(4);
                let out = run_method(&inputs, &c).unwrap();
                let d = dir.path().join(format!("{method}-{threads}"));
                (write_all(&out, &d, &ext), out)
            })
        };
        let ((c1, p1), o1) = run(1);
        let ((c2, p2), _) = run(2);
        assert_eq!(c1, c2, "{method}: clusters differ between 1 and 2 threads");
        assert_eq!(p1, p2, "{method}: pairs differ between 1 and 2 threads");
        // Not vacuous: each method finds most of the 30 planted groups.
        assert!(
            o1.clusters.len() >= 20,
            "{method}: {} clusters",
            o1.clusters.len()
        );
    }
}

// ---------- pair counting ----------

proptest::proptest! {
    #[test]
    fn pair_counts_equal_brute_force(
        docs in proptest::collection::vec(proptest::collection::vec(0u64..20, 0..10), 0..15),
        k in 1u32..4,
    ) {
        let ctx = Context::from_doc_keys(&docs, &ContextConfig::default(), &crate::spill::SpillConfig::default()).unwrap();
        let mut want = Vec::new();
        for a in 0..docs.len() {
            for b in a + 1..docs.len() {
                let sa: std::collections::BTreeSet<u64> = docs[a].iter().copied().collect();
                let sb: std::collections::BTreeSet<u64> = docs[b].iter().copied().collect();
                let c = sa.intersection(&sb).count() as u32;
                if c >= k {
                    want.push((DocId(a as u32), DocId(b as u32), c));
                }
            }
        }
        proptest::prop_assert_eq!(ctx.pair_counts(k), want);
    }
}

// ---------- LSH, super shingles: against brute force ----------

proptest::proptest! {
    #[test]
    fn lsh_candidates_equal_brute_force(
        raw in proptest::collection::vec(proptest::collection::vec(0u64..3, 6), 0..14),
        empties in proptest::collection::vec(proptest::bool::ANY, 14),
        r in proptest::sample::select(vec![1u32, 2, 3, 6]),
    ) {
        let images: Vec<Vec<u64>> = raw
            .into_iter()
            .zip(&empties)
            .map(|(v, &e)| if e { Vec::new() } else { v })
            .collect();
        let b = 6 / r;
        let got = lsh::candidate_pairs(&images, b, r, 5).unwrap();
        let mut want = Vec::new();
        for x in 0..images.len() {
            for y in x + 1..images.len() {
                let (p, q) = (&images[x], &images[y]);
                if p.is_empty() || q.is_empty() {
                    continue;
                }
                let r = r as usize;
                if (0..b as usize).any(|i| p[i * r..(i + 1) * r] == q[i * r..(i + 1) * r]) {
                    want.push((DocId(x as u32), DocId(y as u32)));
                }
            }
        }
        proptest::prop_assert_eq!(got, want);
    }

    #[test]
    fn center_clusters_invariants(
        raw in proptest::collection::vec((0u32..12, 0u32..12, 0u32..4), 0..30),
    ) {
        let edges: Vec<(DocId, DocId, f64)> = raw
            .iter()
            .filter(|e| e.0 != e.1)
            .map(|&(a, b, w)| (DocId(a), DocId(b), f64::from(w)))
            .collect();
        let cl = center_clusters(12, &edges);
        let mut owner = [None; 12];
        for (i, c) in cl.iter().enumerate() {
            proptest::prop_assert!(c.len() >= 2);
            for d in c {
                proptest::prop_assert!(owner[d.index()].is_none(), "clusters overlap");
                owner[d.index()] = Some(i);
            }
            // Every member has an edge to its center.
            for m in &c[1..] {
                proptest::prop_assert!(edges.iter().any(|&(a, b, _)| (a, b) == (c[0], *m) || (a, b) == (*m, c[0])));
            }
        }
        // Maximality: no edge joins two unassigned documents, nor an unassigned one to a center.
        let centers: Vec<DocId> = cl.iter().map(|c| c[0]).collect();
        for &(a, b, _) in &edges {
            let (ua, ub) = (owner[a.index()].is_none(), owner[b.index()].is_none());
            proptest::prop_assert!(!(ua && ub));
            proptest::prop_assert!(!(ua && centers.contains(&b) || ub && centers.contains(&a)));
        }
    }

    #[test]
    fn super_shingle_pairs_equal_brute_force(
        raw in proptest::collection::vec(proptest::collection::vec(0u64..3, 0..7), 0..12),
        per in 1u32..4,
        min_shared in 1u32..3,
        positional in proptest::bool::ANY,
    ) {
        let cfg = SuperShingleConfig { per: Some(per), min_shared, ..Default::default() };
        let got = supershingle::super_shingle_pairs(&raw, positional, &cfg).unwrap();
        // Brute force on the super shingles as value tuples (no hashing).
        let tuples = |v: &[u64]| -> std::collections::BTreeSet<(Option<usize>, Vec<u64>)> {
            let p = per as usize;
            if v.len() < p {
                return Default::default();
            }
            if positional {
                v.chunks_exact(p).enumerate().map(|(i, c)| (Some(i), c.to_vec())).collect()
            } else {
                v.windows(p).map(|w| (None, w.to_vec())).collect()
            }
        };
        let mut want = Vec::new();
        for x in 0..raw.len() {
            for y in x + 1..raw.len() {
                let c = tuples(&raw[x]).intersection(&tuples(&raw[y])).count() as u32;
                if c >= min_shared {
                    want.push((DocId(x as u32), DocId(y as u32), c));
                }
            }
        }
        proptest::prop_assert_eq!(got, want);
    }
}

// ---------- names, configs, summary ----------

#[test]
fn method_names_round_trip() {
    for m in [
        Method::Concept,
        Method::UnionFind,
        Method::Lsh,
        Method::SuperShingle,
        Method::Exact,
    ] {
        assert_eq!(m.name().parse::<Method>().unwrap(), m);
        assert_eq!(
            serde_json::to_value(m).unwrap(),
            serde_json::json!(m.name())
        );
    }
    assert!("unionfind".parse::<Method>().is_err());
    assert_eq!("center".parse::<Grouping>().unwrap(), Grouping::Center);
    assert_eq!("bottom-k".parse::<ImageKind>().unwrap(), ImageKind::BottomK);
}

#[test]
fn config_validation() {
    assert!(ClusterConfig::default().validate().is_ok());
    let bad = [
        ClusterConfig {
            threshold: Threshold::Resemblance(1.5),
            ..Default::default()
        },
        ClusterConfig {
            threshold: Threshold::MinCommon(0),
            ..Default::default()
        },
        cfg(Method::Exact, Threshold::Resemblance(0.0)),
        ClusterConfig {
            max_pairs: Some(0),
            ..Default::default()
        },
        ClusterConfig {
            context: ContextConfig {
                min_df: 0,
                max_df: None,
            },
            ..Default::default()
        },
        ClusterConfig {
            concept: ConceptConfig {
                max_itemsets: Some(0),
                split_components: true,
            },
            ..Default::default()
        },
        ClusterConfig {
            lsh: LshConfig {
                fp_weight: -1.0,
                ..Default::default()
            },
            ..Default::default()
        },
        ClusterConfig {
            super_shingle: SuperShingleConfig {
                per: Some(0),
                ..Default::default()
            },
            ..Default::default()
        },
    ];
    for c in bad {
        assert!(matches!(c.validate(), Err(Error::Config(_))), "{c:?}");
    }
}

#[test]
fn summary_serializes_and_max_pairs_guards() {
    let keys = hand_keys();
    let inputs = ClusterInputs {
        n_docs: 6,
        keys: Some(&keys),
        ..Default::default()
    };
    let mut c = cfg(Method::UnionFind, Threshold::MinCommon(1));
    let out = run_method(&inputs, &c).unwrap();
    // One cluster of all six documents: 15 member pairs.
    assert_eq!(
        (
            out.summary.clusters,
            out.summary.pairs,
            out.summary.largest_cluster
        ),
        (1, 15, 6)
    );
    let v = serde_json::to_value(&out.summary).unwrap();
    assert_eq!(v["method"], "union-find");
    assert_eq!(v["documents"], 6);
    assert_eq!(v["k"], 1);
    assert_eq!(v["collapsed"]["classes"], 0);
    assert!(v["phases"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["name"] == "pairs"));
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("summary.json");
    write_summary(&p, &out.summary).unwrap();
    let back: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
    assert_eq!(back["pairs"], 15);
    c.max_pairs = Some(14);
    assert!(matches!(run_method(&inputs, &c), Err(Error::Limit(_))));
}

#[test]
fn union_find_clusters_on_context() {
    let ctx = Context::from_doc_keys(
        &hand_keys(),
        &ContextConfig {
            min_df: 2,
            max_df: Some(5),
        },
        &crate::spill::SpillConfig::default(),
    )
    .unwrap();
    let (edges, comps) =
        union_find_clusters(&ctx, 3, &crate::spill::SpillConfig::default()).unwrap();
    assert_eq!(
        edges,
        vec![
            (DocId(0), DocId(1), 3),
            (DocId(1), DocId(2), 3),
            (DocId(3), DocId(4), 3)
        ]
    );
    assert_eq!(comps, vec![(ids(&[0, 1, 2]), 3), (ids(&[3, 4]), 3)]);
}

#[test]
#[ignore = "timing probe, run by hand"]
fn scale_probe() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let mut sets = Vec::new();
    for _ in 0..5000 {
        let base: Vec<u64> = (0..400).map(|_| rng.gen()).collect();
        for _ in 0..4 {
            let mut d = base.clone();
            for _ in 0..rng.gen_range(0..40) {
                let i = rng.gen_range(0..d.len());
                d[i] = rng.gen();
            }
            d.sort_unstable();
            d.dedup();
            sets.push(d);
        }
    }
    let n = sets.len();
    let t0 = std::time::Instant::now();
    let positional: Vec<Vec<u64>> = sets.iter().map(|s| k_mins(s, 128)).collect();
    eprintln!("k-mins images: {:?}", t0.elapsed());
    let inputs = ClusterInputs {
        n_docs: n,
        positional: Some(&positional),
        sets: Some(&sets),
        ..Default::default()
    };
    for m in [
        Method::UnionFind,
        Method::Lsh,
        Method::SuperShingle,
        Method::Exact,
    ] {
        let t0 = std::time::Instant::now();
        let out = run_method(&inputs, &cfg(m, Threshold::Resemblance(0.8))).unwrap();
        eprintln!(
            "{m}: {:?} clusters {} pairs {} edges {} k {:?} b,r {:?},{:?}",
            t0.elapsed(),
            out.clusters.len(),
            out.pairs.len(),
            out.edges.len(),
            out.summary.k,
            out.summary.bands,
            out.summary.rows
        );
    }
}
