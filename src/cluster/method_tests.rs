//! End-to-end tests of `run_method`, by method: hand-made cases for every method,
//! collapse and verification inside a run, regrouping, and the threshold's translation.

use super::concept::tests::brute_maximal;
use super::testutil::{cfg, docs_of, hand_keys, ids, mix, pair_list};
use super::verify::regroup_cluster;
use super::*;
use crate::context::{Context, ContextConfig};
use crate::{DocId, Error};
use rand::{Rng, SeedableRng};

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
    assert_eq!(out.summary.dropped_common, Some(1));
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
