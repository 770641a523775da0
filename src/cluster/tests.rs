//! End-to-end tests of `run_method`: hand-made cases for every method, the version chain,
//! collapse, verification, and thread-count independence.

use super::concept::tests::brute_maximal;
use super::verify::regroup_cluster;
use super::*;
use crate::context::{Context, ContextConfig};
use crate::{DocId, Error};
use rand::{Rng, SeedableRng};

fn ids(v: &[u32]) -> Vec<DocId> {
    v.iter().map(|&d| DocId(d)).collect()
}

fn docs_of(out: &ClusterOutput) -> Vec<(Vec<DocId>, u32)> {
    out.clusters
        .iter()
        .map(|c| (c.docs.clone(), c.support))
        .collect()
}

fn pair_list(out: &ClusterOutput) -> Vec<(u32, u32, Option<u32>)> {
    out.pairs.iter().map(|p| (p.a.0, p.b.0, p.shared)).collect()
}

fn cfg(method: Method, th: Threshold) -> ClusterConfig {
    ClusterConfig {
        method,
        threshold: th,
        ..Default::default()
    }
}

/// splitmix64 finalizer: the test's own hash mixer.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// k-mins image: position i holds min over the set of mix(x ^ seed_i).
fn k_mins(set: &[u64], n: usize) -> Vec<u64> {
    (0..n)
        .map(|i| {
            set.iter()
                .map(|&x| mix(x ^ mix(i as u64 + 1)))
                .min()
                .unwrap_or(0)
        })
        .collect()
}

/// bottom-n image: the n smallest of mix(x), ascending.
fn bottom_k(set: &[u64], n: usize) -> Vec<u64> {
    let mut v: Vec<u64> = set.iter().map(|&x| mix(x)).collect();
    v.sort_unstable();
    v.truncate(n);
    v
}

// ---------- hand-made cases, one per method ----------

/// Keys: 0-1 share {1,2,3}, 1-2 share {4,5,6}, 0-2 share {7}; 3-4 share {8,9,10};
/// doc 5 shares only {1} with 0 and 1; element 99 is in every document.
fn hand_keys() -> Vec<Vec<u64>> {
    vec![
        vec![1, 2, 3, 7, 99],
        vec![1, 2, 3, 4, 5, 6, 99],
        vec![4, 5, 6, 7, 99],
        vec![8, 9, 10, 99],
        vec![8, 9, 10, 99],
        vec![1, 99, 50],
    ]
}

#[test]
fn union_find_hand() {
    let keys = hand_keys();
    let inputs = ClusterInputs {
        n_docs: 6,
        keys: Some(&keys),
        ..Default::default()
    };
    let mut c = cfg(Method::UnionFind, Threshold::MinCommon(4));
    c.context = ContextConfig {
        min_df: 2,
        max_df: Some(5),
    };
    let out = run_method(&inputs, &c).unwrap();
    // 99 is held by 6 > 5 documents: dropped (B97 5.1), reported.
    assert_eq!(out.summary.dropped_common, 1);
    // Without 99: 0-1 share 3, 1-2 share 3, 3-4 share 3 -> nothing reaches 4.
    assert!(out.clusters.is_empty());
    c.threshold = Threshold::MinCommon(3);
    let out = run_method(&inputs, &c).unwrap();
    assert_eq!(docs_of(&out), vec![(ids(&[0, 1, 2]), 3), (ids(&[3, 4]), 3)]);
    // Pairs are all member pairs; (0,2) shares 1 element, so it is no edge (no score).
    assert_eq!(
        pair_list(&out),
        vec![
            (0, 1, Some(3)),
            (0, 2, None),
            (1, 2, Some(3)),
            (3, 4, Some(3))
        ]
    );
    assert_eq!(
        (
            out.summary.edges,
            out.summary.pairs,
            out.summary.largest_component
        ),
        (3, 4, 3)
    );
    // Keeping 99 (no max_df), doc 5 shares {1,99} = 2 with 0 and 1: joins at k = 2; 3 and 4
    // share only 99 with the rest and stay apart.
    c.context = ContextConfig::default();
    c.threshold = Threshold::MinCommon(2);
    let out = run_method(&inputs, &c).unwrap();
    assert_eq!(
        docs_of(&out),
        vec![(ids(&[0, 1, 2, 5]), 2), (ids(&[3, 4]), 4)]
    );
}

#[test]
fn concept_hand() {
    let keys = hand_keys();
    let miner = brute_maximal;
    let inputs = ClusterInputs {
        n_docs: 6,
        keys: Some(&keys),
        miner: Some(&miner),
        ..Default::default()
    };
    let mut c = cfg(Method::Concept, Threshold::MinCommon(3));
    c.context.max_df = Some(5);
    let out = run_method(&inputs, &c).unwrap();
    // Unlike union-find, 0 and 2 are not put together: they share one element.
    assert_eq!(
        docs_of(&out),
        vec![(ids(&[0, 1]), 3), (ids(&[1, 2]), 3), (ids(&[3, 4]), 3)]
    );
    assert_eq!(out.summary.largest_component, 3);
    assert_eq!(out.summary.components, 2);
    // With 99 kept and k = 2: {0,1,5} share {1,99}; {0,1} share {1,2,3,99} (4 >= 2) is
    // inside {0,1,5}; {1,2} share 4; {0,2} share {7,99}; {0,1,2} share {99} only.
    c.context.max_df = None;
    c.threshold = Threshold::MinCommon(2);
    let out = run_method(&inputs, &c).unwrap();
    assert_eq!(
        docs_of(&out),
        vec![
            (ids(&[0, 1, 5]), 2),
            (ids(&[0, 2]), 2),
            (ids(&[1, 2]), 4),
            (ids(&[3, 4]), 4)
        ]
    );
    // No miner: a clear configuration error.
    let no_miner = ClusterInputs {
        miner: None,
        ..inputs
    };
    assert!(matches!(run_method(&no_miner, &c), Err(Error::Config(_))));
}

#[test]
fn lsh_hand() {
    // n = 4 positions; doc 0,1 agree on 4, 0-2 on 3, 3-4 on 2, 5 empty.
    let images: Vec<Vec<u64>> = vec![
        vec![1, 2, 3, 4],
        vec![1, 2, 3, 4],
        vec![1, 2, 3, 9],
        vec![5, 6, 7, 8],
        vec![5, 6, 0, 0],
        vec![],
    ];
    let inputs = ClusterInputs {
        n_docs: 6,
        positional: Some(&images),
        ..Default::default()
    };
    let mut c = cfg(Method::Lsh, Threshold::Resemblance(0.75));
    c.lsh.bands_rows = Some((2, 2));
    let out = run_method(&inputs, &c).unwrap();
    assert_eq!(out.summary.k, Some(3));
    // Candidates: band 0 {0,1,2} and {3,4}; band 1 {0,1}. Filter keeps agreements >= 3.
    assert_eq!(out.summary.candidates, Some(4));
    assert_eq!(docs_of(&out), vec![(ids(&[0, 1, 2]), 3)]);
    // Pair (1,2): agreements 3 -> scored edge.
    assert_eq!(
        pair_list(&out),
        vec![(0, 1, Some(4)), (0, 2, Some(3)), (1, 2, Some(3))]
    );
    c.threshold = Threshold::MinCommon(2);
    let out = run_method(&inputs, &c).unwrap();
    assert_eq!(docs_of(&out), vec![(ids(&[0, 1, 2]), 3), (ids(&[3, 4]), 2)]);
    // b x r must be n.
    c.lsh.bands_rows = Some((3, 1));
    assert!(run_method(&inputs, &c).is_err());
}

#[test]
fn super_shingle_hand() {
    let images: Vec<Vec<u64>> = vec![
        vec![1, 2, 3, 4, 5, 6],
        vec![1, 2, 9, 9, 9, 9],
        vec![0, 0, 0, 0, 5, 6],
        vec![7, 7, 7, 7, 7, 7],
    ];
    let inputs = ClusterInputs {
        n_docs: 4,
        positional: Some(&images),
        ..Default::default()
    };
    let mut c = cfg(Method::SuperShingle, Threshold::Resemblance(0.9));
    c.super_shingle.per = Some(2);
    let out = run_method(&inputs, &c).unwrap();
    // 0-1 share group 0, 0-2 share group 2: one component {0,1,2}.
    assert_eq!(docs_of(&out), vec![(ids(&[0, 1, 2]), 1)]);
    c.threshold = Threshold::MinCommon(2);
    assert!(run_method(&inputs, &c).unwrap().clusters.is_empty());
    // Precomputed super shingles take precedence over the images.
    let ss: Vec<Vec<u64>> = vec![vec![1, 2], vec![3], vec![2, 3], vec![]];
    let with = ClusterInputs {
        super_shingles: Some(&ss),
        ..inputs
    };
    c.threshold = Threshold::MinCommon(1);
    assert_eq!(
        docs_of(&run_method(&with, &c).unwrap()),
        vec![(ids(&[0, 1, 2]), 1)]
    );
    let with = ClusterInputs {
        positional: None,
        ..with
    };
    let out = run_method(&with, &c).unwrap();
    assert_eq!(
        out.edges.iter().map(|p| (p.a.0, p.b.0)).collect::<Vec<_>>(),
        vec![(0, 2), (1, 2)]
    );
}

#[test]
fn exact_hand() {
    let sets: Vec<Vec<u64>> = vec![
        vec![1, 2, 3, 4, 5],
        vec![1, 2, 3, 4],
        vec![1, 2, 3, 9],
        vec![20, 21],
        vec![20, 21, 22],
    ];
    let inputs = ClusterInputs {
        n_docs: 5,
        sets: Some(&sets),
        ..Default::default()
    };
    let out = run_method(&inputs, &cfg(Method::Exact, Threshold::Resemblance(0.6))).unwrap();
    // J(0,1)=0.8, J(1,2)=0.6, J(0,2)=0.5, J(3,4)=0.667.
    assert_eq!(docs_of(&out), vec![(ids(&[0, 1, 2]), 3), (ids(&[3, 4]), 2)]);
    let e: Vec<_> = out
        .edges
        .iter()
        .map(|p| (p.a.0, p.b.0, p.exact.unwrap()))
        .collect();
    assert_eq!(e, vec![(0, 1, 0.8), (1, 2, 0.6), (3, 4, 2.0 / 3.0)]);
    assert!(run_method(&inputs, &cfg(Method::Exact, Threshold::MinCommon(2))).is_err());
}

#[test]
fn collapse_and_verify_in_run() {
    // Docs 0 and 2 identical; 1 near 0; 3 identical to 4; 5 alone.
    let sets: Vec<Vec<u64>> = vec![
        vec![1, 2, 3, 4, 5],
        vec![1, 2, 3, 4, 6],
        vec![1, 2, 3, 4, 5],
        vec![10, 11],
        vec![10, 11],
        vec![30, 31],
    ];
    let fp = |s: &Vec<u64>| mix(s.iter().fold(7, |h, &x| mix(h ^ x)));
    let raw: Vec<u64> = sets.iter().map(fp).collect();
    let col = collapse(
        &raw,
        &raw,
        &raw.iter().map(|&f| Some(f)).collect::<Vec<_>>(),
    )
    .unwrap();
    assert_eq!(col.summary().identical, 2);
    let inputs = ClusterInputs {
        n_docs: 6,
        keys: Some(&sets),
        sets: Some(&sets),
        collapse: Some(&col),
        ..Default::default()
    };
    let out = run_method(&inputs, &cfg(Method::UnionFind, Threshold::MinCommon(4))).unwrap();
    // 2 is added back to 0's cluster; {3,4} is a class of its own (support = image size 2).
    assert_eq!(docs_of(&out), vec![(ids(&[0, 1, 2]), 4), (ids(&[3, 4]), 2)]);
    assert_eq!(out.summary.representatives, 4);
    // (1,2) takes the score of (0,1) through the representative; (0,2) is one class.
    assert_eq!(
        pair_list(&out),
        vec![
            (0, 1, Some(4)),
            (0, 2, Some(5)),
            (1, 2, Some(4)),
            (3, 4, Some(2))
        ]
    );
    // Verification: J(0,1) = 4/6 < 0.7 drops (0,1) and (1,2).
    let mut out = out;
    verify_output(
        &mut out,
        |d| Ok(sets[d.index()].clone()),
        0.7,
        Regroup::Components,
        Some(&col),
    )
    .unwrap();
    let v: Vec<_> = out
        .pairs
        .iter()
        .map(|p| (p.a.0, p.b.0, p.exact.unwrap()))
        .collect();
    assert_eq!(v, vec![(0, 2, 1.0), (3, 4, 1.0)]);
    assert_eq!(out.summary.verify_removed, Some(2));
    // The cluster {0, 1, 2} loses 1: only (0, 2) passed.
    assert_eq!(docs_of(&out), vec![(ids(&[0, 2]), 4), (ids(&[3, 4]), 2)]);
    assert_eq!(out.summary.clusters, 2);
    assert_eq!(out.summary.clustered_documents, 4);
    assert_eq!(out.summary.largest_cluster, 2);
}

#[test]
fn equivalent_documents_with_empty_sets_pass_verification() {
    // Shorter than a shingle: 0, 1, 2 the same text, 3 and 4 the same other text, 5 a third
    // text; all with empty sets and images. 6 and 7 are near-duplicates (J = 4/6).
    let sets: Vec<Vec<u64>> = vec![
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
        vec![1, 2, 3, 4, 5],
        vec![1, 2, 3, 4, 6],
    ];
    let text = [1u64, 1, 1, 2, 2, 3, 4, 5];
    let image: Vec<Option<u64>> = sets
        .iter()
        .map(|s| (!s.is_empty()).then(|| s.iter().fold(7, |h, &x| mix(h ^ x))))
        .collect();
    let col = collapse(&text, &text, &image).unwrap();
    let inputs = ClusterInputs {
        n_docs: sets.len(),
        keys: Some(&sets),
        sets: Some(&sets),
        collapse: Some(&col),
        ..Default::default()
    };
    let class_pairs = vec![(0, 1), (0, 2), (1, 2), (3, 4)];
    for method in [Method::UnionFind, Method::Exact] {
        let out = run_method(&inputs, &cfg(method, Threshold::Resemblance(0.6))).unwrap();
        let unverified: Vec<_> = out.pairs.iter().map(|p| (p.a.0, p.b.0)).collect();
        let mut want = class_pairs.clone();
        want.push((6, 7));
        assert_eq!(unverified, want, "{method}");
        let fetch = |d: DocId| Ok(sets[d.index()].clone());
        let regroup = Regroup::for_method(method, false);
        // With the collapse: the groups pass at resemblance 1; (6, 7) fails 0.7.
        let mut v = out.clone();
        verify_output(&mut v, fetch, 0.7, regroup, Some(&col)).unwrap();
        let got: Vec<_> = v
            .pairs
            .iter()
            .map(|p| (p.a.0, p.b.0, p.exact.unwrap()))
            .collect();
        let want: Vec<_> = class_pairs.iter().map(|&(a, b)| (a, b, 1.0)).collect();
        assert_eq!(got, want, "{method}");
        assert_eq!(v.summary.verify_removed, Some(1), "{method}");
        assert_eq!(
            docs_of(&v).into_iter().map(|c| c.0).collect::<Vec<_>>(),
            vec![ids(&[0, 1, 2]), ids(&[3, 4])],
            "{method}"
        );
        assert_eq!(v.summary.clustered_documents, 5, "{method}");
        // Without a collapse nothing says the empty sets are the same text.
        let mut v = out.clone();
        verify_output(&mut v, fetch, 0.6, regroup, None).unwrap();
        let got: Vec<_> = v.pairs.iter().map(|p| (p.a.0, p.b.0)).collect();
        assert_eq!(got, vec![(6, 7)], "{method}");
        assert_eq!(v.summary.verify_removed, Some(4), "{method}");
        assert_eq!(v.summary.clusters, 1, "{method}");
    }
}

/// Every subset of `0..m` that is a clique of `edges` and maximal, by enumeration.
fn brute_maximal_cliques(m: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let adj = |a: usize, b: usize| edges.contains(&(a.min(b), a.max(b)));
    let is_clique = |s: u32| {
        (0..m).all(|i| (i + 1..m).all(|j| s & (1 << i) == 0 || s & (1 << j) == 0 || adj(i, j)))
    };
    let cliques: Vec<u32> = (1u32..1 << m).filter(|&s| is_clique(s)).collect();
    let mut out: Vec<Vec<usize>> = cliques
        .iter()
        .filter(|&&s| !cliques.iter().any(|&t| t != s && t & s == s))
        .filter(|&&s| s.count_ones() >= 2)
        .map(|&s| (0..m).filter(|i| s & (1 << i) != 0).collect())
        .collect();
    out.sort();
    out
}

#[test]
fn regroup_into_cliques_and_components_matches_brute_force() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    for round in 0..300 {
        let m = rng.gen_range(2..9usize);
        // Cluster members are spread-out DocIds; verified pairs may also leave the cluster.
        let docs: Vec<DocId> = (0..m).map(|i| DocId(3 * i as u32 + 1)).collect();
        let p = rng.gen_range(0.1..0.9);
        let mut local = Vec::new();
        let mut verified = Vec::new();
        for i in 0..m {
            for j in i + 1..m {
                if rng.gen_bool(p) {
                    local.push((i, j));
                    verified.push((docs[i], docs[j]));
                }
            }
            verified.push((docs[i], DocId(3 * i as u32 + 2)));
        }
        verified.sort_unstable();
        let to_docs = |v: Vec<Vec<usize>>| -> Vec<Vec<DocId>> {
            let mut v: Vec<Vec<DocId>> = v
                .into_iter()
                .map(|c| c.into_iter().map(|i| docs[i]).collect())
                .collect();
            v.sort();
            v
        };
        let mut got = regroup_cluster(&docs, &verified, Regroup::Cliques);
        got.sort();
        assert_eq!(
            got,
            to_docs(brute_maximal_cliques(m, &local)),
            "round {round}"
        );
        let mut got = regroup_cluster(&docs, &verified, Regroup::Components);
        got.sort();
        let comps = uf::components(
            m,
            local
                .iter()
                .map(|&(a, b)| (DocId(a as u32), DocId(b as u32))),
        );
        let want = to_docs(
            comps
                .into_iter()
                .map(|c| c.into_iter().map(|d| d.index()).collect())
                .collect(),
        );
        assert_eq!(got, want, "round {round}");
    }
}

#[test]
fn candidate_threshold_is_two_standard_errors_below() {
    // t = 0.8, n = 128: se = sqrt(0.16 / 128) = 0.035355; 0.8 - 2 se = 0.729289 -> 0.7292.
    assert_eq!(candidate_threshold(0.8, 128, 2.0), 0.7292);
    assert_eq!(candidate_threshold(0.8, 0, 2.0), 0.8);
    assert_eq!(candidate_threshold(1.0, 128, 2.0), 1.0);
    assert_eq!(candidate_threshold(0.01, 4, 2.0), 0.0);
}

#[test]
fn prebuilt_context_is_masked_by_collapse() {
    let keys = hand_keys();
    let ctx = Context::from_doc_keys(
        &keys,
        &ContextConfig::default(),
        &crate::spill::SpillConfig::default(),
    )
    .unwrap();
    // Pretend 4 is identical to 3.
    let raw = [0u64, 1, 2, 3, 3, 5];
    let col = collapse(&raw, &raw, &[None; 6]).unwrap();
    let inputs = ClusterInputs {
        n_docs: 6,
        context: Some(&ctx),
        keys: Some(&keys),
        collapse: Some(&col),
        ..Default::default()
    };
    let out = run_method(&inputs, &cfg(Method::UnionFind, Threshold::MinCommon(4))).unwrap();
    // 3-4 would share 4 elements, but 4 is collapsed into 3 and comes back as a class.
    assert_eq!(docs_of(&out), vec![(ids(&[0, 1, 2]), 4), (ids(&[3, 4]), 4)]);
}

#[test]
fn threshold_translation_in_summary() {
    let images: Vec<Vec<u64>> = (0..3u64)
        .map(|d| (0..128).map(|i| i + d).collect())
        .collect();
    let inputs = ClusterInputs {
        n_docs: 3,
        positional: Some(&images),
        ..Default::default()
    };
    let mut c = cfg(Method::UnionFind, Threshold::Resemblance(0.8));
    c.image_kind = ImageKind::KMins;
    assert_eq!(run_method(&inputs, &c).unwrap().summary.k, Some(103));
    c.image_kind = ImageKind::BottomK;
    let inputs = ClusterInputs {
        n_docs: 3,
        keys: Some(&images),
        ..Default::default()
    };
    assert_eq!(run_method(&inputs, &c).unwrap().summary.k, Some(112));
}

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
                    ImageKind::BottomK => bottom_k(s, 128),
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
