//! Concept clusters computed with the project's miner (`mine::mine` behind
//! `cluster::fp_miner`) equal the brute-force maximal frequent itemsets (of two or more
//! documents) of the shingle-rows context, with and without the split by connected
//! components, for 1 and 2 threads.

use fimdup::cluster::concept::concept_clusters;
use fimdup::cluster::fp_miner;
use fimdup::cluster::ConceptConfig;
use fimdup::context::{Context, ContextConfig, Orientation};
use fimdup::mine::{brute_force, Target};
use fimdup::spill::SpillConfig;
use fimdup::DocId;

fn check(docs: &[Vec<u64>], k: u32) {
    let ctx =
        Context::from_doc_keys(docs, &ContextConfig::default(), &SpillConfig::default()).unwrap();
    let t = ctx.to_transactions(Orientation::ShingleRows);
    let mut want: Vec<(Vec<DocId>, u32)> = brute_force(&t, u64::from(k), Target::Maximal)
        .into_iter()
        .filter(|s| s.items.len() >= 2)
        .map(|s| (s.items.into_iter().map(DocId).collect(), s.support))
        .collect();
    want.sort();
    for split in [true, false] {
        for threads in [1, 2] {
            let cfg = ConceptConfig {
                split_components: split,
                ..ConceptConfig::default()
            };
            let got = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| {
                    concept_clusters(
                        ctx.rows(),
                        ctx.n_docs(),
                        k,
                        &fp_miner,
                        &cfg,
                        &SpillConfig::default(),
                    )
                })
                .unwrap();
            assert_eq!(
                got.sets, want,
                "k={k} split={split} threads={threads} docs={docs:?}"
            );
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
    #[test]
    fn concept_clusters_with_the_real_miner_equal_brute_force(
        docs in proptest::collection::vec(proptest::collection::vec(0u64..24, 0..12), 0..14),
        k in 1u32..5,
    ) {
        check(&docs, k);
    }
}

#[test]
fn overlapping_groups() {
    // Docs 0-2 share {1..6}; docs 2-4 share {10..15}; doc 2 is in both groups.
    let docs: Vec<Vec<u64>> = vec![
        (1..7).collect(),
        (1..7).chain(30..33).collect(),
        (1..7).chain(10..16).collect(),
        (10..16).chain(40..42).collect(),
        (10..16).collect(),
    ];
    check(&docs, 5);
    let ctx =
        Context::from_doc_keys(&docs, &ContextConfig::default(), &SpillConfig::default()).unwrap();
    let got = concept_clusters(
        ctx.rows(),
        ctx.n_docs(),
        5,
        &fp_miner,
        &ConceptConfig::default(),
        &SpillConfig::default(),
    )
    .unwrap();
    let sets: Vec<Vec<u32>> = got
        .sets
        .iter()
        .map(|s| s.0.iter().map(|d| d.0).collect())
        .collect();
    assert_eq!(sets, vec![vec![0, 1, 2], vec![2, 3, 4]]);
}
