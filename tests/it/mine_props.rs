//! Property tests: on random small databases the miner's maximal, closed and all frequent
//! itemsets (sets and supports) equal the brute-force reference, on 1 and 2 threads, and the
//! streamed output, the counts and the `--max-itemsets` guard agree with them; the parts
//! [`mine::mine_part`] divides the search into make up the whole.

use fimdup::fimi::Transactions;
use fimdup::mine::{self, brute_force, MinSupport, MineConfig, Target};
use proptest::prelude::*;

fn db() -> impl Strategy<Value = (Vec<Vec<u32>>, u64)> {
    // Up to 40 transactions of up to 10 items from a small alphabet (with repeats and
    // unsorted items), sometimes large item ids, and a minimum support of 1..=6.
    (
        prop::collection::vec(prop::collection::vec(0u32..14, 0..10), 0..40),
        1u64..=6,
        prop::bool::ANY,
    )
        .prop_map(|(mut rows, minsup, big)| {
            if big {
                for r in &mut rows {
                    for x in r.iter_mut() {
                        *x = x.wrapping_mul(0x9E37_79B9) | 0x8000_0000;
                    }
                }
            }
            (rows, minsup)
        })
}

fn wide_db() -> impl Strategy<Value = (Vec<Vec<u32>>, u64)> {
    // 10-40 transactions of 4-10 items, each item from a small core (shared prefixes) or
    // from 0..220 (often more than 64 frequent items at these minimum supports).
    (
        prop::collection::vec(
            prop::collection::vec(prop_oneof![0u32..12, 0u32..220], 4..=10),
            10..=40,
        ),
        1u64..=2,
    )
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn equals_brute_force((rows, minsup) in db()) {
        let t = Transactions::from_rows(&rows);
        for target in [Target::Maximal, Target::Closed, Target::All] {
            let expected = brute_force(&t, minsup, target);
            let cfg = MineConfig { minsup: MinSupport::Absolute(minsup), target, max_itemsets: None };
            for threads in [1, 2] {
                let p = pool(threads);
                let got = p.install(|| mine::mine(&t, &cfg)).unwrap();
                prop_assert_eq!(&got, &expected, "target {} threads {}", target, threads);
                let got = p.install(|| mine::mine_sparse_mode(&t, &cfg)).unwrap();
                prop_assert_eq!(&got, &expected, "sparse mode, target {} threads {}", target, threads);
                let got = p.install(|| mine::mine_split_halves(&t, &cfg)).unwrap();
                prop_assert_eq!(&got, &expected, "preparation in halves, target {} threads {}", target, threads);
                let n = p.install(|| mine::count(&t, &cfg)).unwrap();
                prop_assert_eq!(n, expected.len() as u64);
                // The streamed lines hold the same sets.
                let mut buf = Vec::new();
                let st = p.install(|| mine::write_itemsets(&t, &cfg, &mut buf, "m".as_ref())).unwrap();
                prop_assert_eq!(st.itemsets, expected.len() as u64);
                let mut lines: Vec<String> = String::from_utf8(buf).unwrap().lines().map(str::to_string).collect();
                lines.sort();
                let mut want: Vec<String> = expected.iter().map(|s| {
                    let mut l: String = s.items.iter().map(|x| format!("{x} ")).collect();
                    l.push_str(&format!("({})", s.support));
                    l
                }).collect();
                want.sort();
                prop_assert_eq!(lines, want);
            }
        }
    }

    /// Wider alphabets: up to 220 frequent items, so the dense mode's item masks take 1-4
    /// words (the prefix tree compares masks across words, child rows merge by mask words).
    #[test]
    #[cfg_attr(debug_assertions, ignore = "slow brute force in debug builds")]
    fn wide_alphabet_equals_brute_force((rows, minsup) in wide_db()) {
        let t = Transactions::from_rows(&rows);
        for target in [Target::Maximal, Target::Closed] {
            let expected = brute_force(&t, minsup, target);
            let cfg = MineConfig { minsup: MinSupport::Absolute(minsup), target, max_itemsets: None };
            let mut streamed = Vec::new();
            for threads in [1, 2] {
                let p = pool(threads);
                let got = p.install(|| mine::mine(&t, &cfg)).unwrap();
                prop_assert_eq!(&got, &expected, "target {} threads {}", target, threads);
                let got = p.install(|| mine::mine_split_halves(&t, &cfg)).unwrap();
                prop_assert_eq!(&got, &expected, "preparation in halves, target {} threads {}", target, threads);
                let mut buf = Vec::new();
                p.install(|| mine::write_itemsets(&t, &cfg, &mut buf, "m".as_ref())).unwrap();
                streamed.push(buf);
            }
            prop_assert_eq!(&streamed[0], &streamed[1], "streamed output, target {}", target);
        }
    }

    #[test]
    fn parts_together_equal_brute_force((rows, minsup) in db(), parts in 1usize..=4) {
        let t = Transactions::from_rows(&rows);
        for target in [Target::Maximal, Target::Closed, Target::All] {
            let expected = brute_force(&t, minsup, target);
            let cfg = MineConfig { minsup: MinSupport::Absolute(minsup), target, max_itemsets: None };
            for sparse in [false, true] {
                let mut union = Vec::new();
                for part in 0..parts {
                    let got = if sparse {
                        mine::mine_part_sparse_mode(&t, &cfg, part, parts)
                    } else {
                        mine::mine_part(&t, &cfg, part, parts)
                    }
                    .unwrap();
                    prop_assert!(got.windows(2).all(|w| w[0] < w[1]), "part {} sorted", part);
                    union.extend(got);
                }
                union.sort();
                prop_assert_eq!(&union, &expected, "target {} parts {} sparse {}", target, parts, sparse);
            }
        }
    }

    #[test]
    fn max_itemsets_guard((rows, minsup) in db(), slack in 0u64..3) {
        let t = Transactions::from_rows(&rows);
        let n = brute_force(&t, minsup, Target::Closed).len() as u64;
        let cfg = |max| MineConfig { minsup: MinSupport::Absolute(minsup), target: Target::Closed, max_itemsets: Some(max) };
        prop_assert_eq!(mine::count(&t, &cfg(n + slack)).unwrap(), n);
        if n > 0 {
            let e = mine::mine(&t, &cfg(n - 1)).unwrap_err();
            prop_assert!(matches!(e, fimdup::Error::Limit(_)), "{}", e);
        }
    }
}

/// Rows of a chain of `n` documents as the concept method mines them (items = documents,
/// transactions = shared elements): each element held by a few neighbours, some by a
/// document far away, so that the component has hundreds of frequent items (the sparse
/// search) and many maximal sets.
fn chain_rows(n: u32, seed: u64) -> Vec<Vec<u32>> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut rows = Vec::new();
    for d in 0..n {
        for _ in 0..6 {
            let span = 1 + (next() % 4) as u32;
            let mut row: Vec<u32> = (d..(d + span).min(n)).collect();
            if next() % 5 == 0 {
                row.push((next() % u64::from(n)) as u32);
            }
            row.sort_unstable();
            row.dedup();
            rows.push(row);
        }
    }
    rows
}

#[test]
fn parts_of_a_wide_component_together_equal_the_whole() {
    for (n, seed) in [(600, 7), (1_500, 11)] {
        let t = Transactions::from_rows(chain_rows(n, seed));
        for target in [Target::Maximal, Target::Closed] {
            let cfg = MineConfig {
                minsup: MinSupport::Absolute(2),
                target,
                max_itemsets: None,
            };
            let stats = mine::count_stats(&t, &cfg).unwrap();
            assert!(
                stats.frequent_items > 256,
                "the sparse search runs: {stats:?}"
            );
            let whole = mine::mine(&t, &cfg).unwrap();
            assert!(whole.len() as u32 * 2 > n, "{} sets", whole.len());
            for threads in [1, 2] {
                for parts in [2, 3, 5] {
                    let got: Vec<Vec<_>> = (0..parts)
                        .map(|p| pool(threads).install(|| mine::mine_part(&t, &cfg, p, parts)))
                        .collect::<Result<_, _>>()
                        .unwrap();
                    // Every part does a share of the work.
                    let least = got.iter().map(Vec::len).min().unwrap();
                    assert!(
                        least * parts * 3 >= whole.len(),
                        "parts {parts}: a part of {least}"
                    );
                    let mut union: Vec<_> = got.into_iter().flatten().collect();
                    union.sort();
                    assert_eq!(
                        union, whole,
                        "{target} n {n} parts {parts} threads {threads}"
                    );
                }
            }
        }
    }
    let t = Transactions::from_rows(chain_rows(50, 3));
    let cfg = MineConfig {
        minsup: MinSupport::Absolute(2),
        target: Target::Maximal,
        max_itemsets: None,
    };
    let e = mine::mine_part(&t, &cfg, 2, 2).unwrap_err();
    assert!(e.to_string().contains("part 2 of 2"), "{e}");
}

#[test]
fn streamed_output_is_identical_for_any_thread_count() {
    // A deterministic pseudo-random database big enough for several branches.
    let mut x: u64 = 12345;
    let rows: Vec<Vec<u32>> = (0..300)
        .map(|_| {
            (0..12)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((x >> 33) % 40) as u32
                })
                .collect()
        })
        .collect();
    let t = Transactions::from_rows(&rows);
    for target in [Target::Maximal, Target::Closed] {
        let cfg = MineConfig {
            minsup: MinSupport::Absolute(4),
            target,
            max_itemsets: None,
        };
        let out = |threads| {
            let mut buf = Vec::new();
            pool(threads)
                .install(|| mine::write_itemsets(&t, &cfg, &mut buf, "m".as_ref()))
                .unwrap();
            buf
        };
        let one = out(1);
        assert!(!one.is_empty());
        assert_eq!(one, out(2));
        assert_eq!(one, out(3));
    }
}

#[test]
fn minsup_parsing_and_resolution() {
    assert_eq!(
        "1918".parse::<MinSupport>().unwrap(),
        MinSupport::Absolute(1918)
    );
    assert_eq!(
        "60%".parse::<MinSupport>().unwrap(),
        MinSupport::Relative(0.6)
    );
    assert_eq!(
        "0.25".parse::<MinSupport>().unwrap(),
        MinSupport::Relative(0.25)
    );
    for bad in ["0", "-3", "0%", "101%", "x", "", "1.5", "12a"] {
        assert!(bad.parse::<MinSupport>().is_err(), "{bad}");
    }
    // ceil(0.6 * 3196) = ceil(1917.6); 70% of 10 is exactly 7 despite 0.7 * 10 > 7.
    assert_eq!(MinSupport::Relative(0.6).resolve(3196), 1918);
    assert_eq!(MinSupport::Relative(0.7).resolve(10), 7);
    assert_eq!(MinSupport::Relative(0.0001).resolve(88162), 9);
    assert_eq!(MinSupport::Relative(0.5).resolve(0), 1);
    let bad = MineConfig {
        minsup: MinSupport::Absolute(0),
        ..Default::default()
    };
    assert!(matches!(bad.validate(), Err(fimdup::Error::Config(_))));
}

#[test]
fn hand_worked_example() {
    // a=1 b=2 c=3 d=4; minsup 2.
    let t = Transactions::from_rows([
        vec![1, 2, 3],
        vec![1, 2],
        vec![2, 3, 4],
        vec![3, 2, 3],
        vec![],
    ]);
    let cfg = |target| MineConfig {
        minsup: MinSupport::Absolute(2),
        target,
        max_itemsets: None,
    };
    let sets = |target| -> Vec<(Vec<u32>, u32)> {
        mine::mine(&t, &cfg(target))
            .unwrap()
            .into_iter()
            .map(|s| (s.items, s.support))
            .collect()
    };
    assert_eq!(
        sets(Target::Maximal),
        vec![(vec![1, 2], 2), (vec![2, 3], 3)]
    );
    assert_eq!(
        sets(Target::Closed),
        vec![(vec![1, 2], 2), (vec![2], 4), (vec![2, 3], 3)]
    );
    assert_eq!(
        sets(Target::All),
        vec![
            (vec![1], 2),
            (vec![1, 2], 2),
            (vec![2], 4),
            (vec![2, 3], 3),
            (vec![3], 3)
        ]
    );
}
