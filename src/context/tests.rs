//! Tests of the context builds (builder, radix in memory, streamed key source), the FIMI
//! round trip and the pair counts.

use std::path::Path;

use proptest::prelude::*;

use super::*;
use crate::fimi::Transactions;
use crate::spill::SpillConfig;
use crate::{DocId, Result};

/// The prefix-filtered pair counts equal a brute-force count over all pairs, for every
/// k, on random contexts with common rows.
#[test]
fn prefix_pair_counts_equal_brute_force() {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = move |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    for round in 0..30 {
        let n_docs = 20 + rnd(60) as u32;
        let n_keys = 10 + rnd(80);
        // Documents draw keys with a skew, so some rows are common.
        let docs: Vec<Vec<u64>> = (0..n_docs)
            .map(|_| {
                let len = 1 + rnd(30);
                let mut v: Vec<u64> = (0..len)
                    .map(|_| {
                        let m = 1 + rnd(n_keys);
                        rnd(m)
                    })
                    .collect();
                v.sort_unstable();
                v.dedup();
                v
            })
            .collect();
        let c = Context::from_doc_keys(&docs, &ContextConfig::default(), &SpillConfig::default())
            .unwrap();
        for k in 1..=12u32 {
            let got = c.pair_counts(k);
            let mut want = Vec::new();
            for a in 0..docs.len() {
                for b in a + 1..docs.len() {
                    let shared = docs[a].iter().filter(|x| docs[b].contains(x)).count() as u32;
                    if shared >= k {
                        want.push((DocId(a as u32), DocId(b as u32), shared));
                    }
                }
            }
            assert_eq!(got, want, "round {round}, k {k}");
        }
    }
}

fn ctx(docs: &[&[u64]], cfg: ContextConfig) -> Context {
    Context::from_doc_keys(docs, &cfg, &SpillConfig::default()).unwrap()
}

#[test]
fn transposes_and_drops_rare_and_common() {
    let docs: &[&[u64]] = &[&[1, 2, 3, 9], &[2, 3, 9], &[3, 9, 7], &[9]];
    let c = ctx(
        docs,
        ContextConfig {
            min_df: 2,
            max_df: Some(3),
        },
    );
    // 1 and 7 are held by one doc; 9 by four (> 3).
    assert_eq!(c.keys(), &[2, 3]);
    assert_eq!(c.row(0), &[0, 1]);
    assert_eq!(c.row(1), &[0, 1, 2]);
    let s = c.stats();
    assert_eq!(
        (s.elements, s.dropped_rare, s.dropped_common, s.rows),
        (5, 2, 1, 2)
    );
    assert_eq!(
        c.doc_rows(),
        Transactions::from_rows([&[0u32, 1][..], &[0, 1], &[1], &[]])
    );
    assert_eq!(
        c.pair_counts(1),
        vec![
            (DocId(0), DocId(1), 2),
            (DocId(0), DocId(2), 1),
            (DocId(1), DocId(2), 1)
        ]
    );
    assert_eq!(c.pair_counts(2), vec![(DocId(0), DocId(1), 2)]);
}

#[test]
fn fimi_round_trip_both_orientations() {
    let docs: &[&[u64]] = &[&[10, 20, 30], &[20, 30], &[30, 40], &[40, 10]];
    let c = ctx(docs, ContextConfig::default());
    let dir = tempfile::tempdir().unwrap();
    for o in [Orientation::ShingleRows, Orientation::DocRows] {
        let p = dir.path().join("c.dat");
        c.write_fimi(&p, o).unwrap();
        let back = Context::read_fimi(&p, o, Some(c.n_docs())).unwrap();
        assert_eq!(back.rows(), c.rows(), "{o:?}");
        assert_eq!(back.n_docs(), c.n_docs());
        assert_eq!(back.to_transactions(o), c.to_transactions(o));
    }
    let p = dir.path().join("s.dat");
    c.write_fimi(&p, Orientation::ShingleRows).unwrap();
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        "0 3\n0 1\n0 1 2\n2 3\n"
    );
}

#[test]
fn same_context_for_one_and_two_threads() {
    let docs: Vec<Vec<u64>> = (0..500u64)
        .map(|d| (0..40).map(|j| (d * 7 + j * 13) % 997).collect())
        .collect();
    let build = |t| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .unwrap()
            .install(|| ctx_owned(&docs))
    };
    assert_eq!(build(1), build(2));
}

fn ctx_owned(docs: &[Vec<u64>]) -> Context {
    Context::from_doc_keys(docs, &ContextConfig::default(), &SpillConfig::default()).unwrap()
}

fn tiny(dir: &Path) -> SpillConfig {
    spill_in(dir, Some(1))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn spilled_context_and_pair_counts_equal_in_memory(
        docs in proptest::collection::vec(proptest::collection::vec(0u64..60, 0..40), 0..120),
        k in 1u32..4,
        max_df in proptest::option::of(2u32..30),
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let cfg = ContextConfig { min_df: 2, max_df };
        let mem = Context::from_doc_keys(&docs, &cfg, &SpillConfig::default()).unwrap();
        let sp = Context::from_doc_keys(&docs, &cfg, &tiny(tmp.path())).unwrap();
        prop_assert_eq!(&mem, &sp);
        // Streamed in reverse order through the builder: the same context.
        let mut b = ContextBuilder::new(&cfg, &tiny(tmp.path())).unwrap();
        b.ensure_docs(docs.len() as u64);
        for (d, ks) in docs.iter().enumerate().rev() {
            for &key in ks.iter().rev() {
                b.push(key, DocId(d as u32)).unwrap();
            }
        }
        prop_assert_eq!(&b.finish().unwrap(), &mem);
        let want = mem.pair_counts(k);
        prop_assert_eq!(&mem.pair_counts_spilled(k, &tiny(tmp.path())).unwrap(), &want);
        prop_assert_eq!(
            &pair_counts(mem.rows(), mem.n_docs(), k, &tiny(tmp.path())).unwrap(),
            &want
        );
        prop_assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }
}

/// The context through the external sorter (in memory: no budget) and the grouping loop
/// of [`ContextBuilder::finish`], the reference for [`context_in_memory`].
fn through_builder(docs: &[Vec<u64>], cfg: &ContextConfig) -> Context {
    let mut b = ContextBuilder::new(cfg, &SpillConfig::default()).unwrap();
    b.ensure_docs(docs.len() as u64);
    for (d, ks) in docs.iter().enumerate() {
        b.push_doc(DocId(d as u32), ks).unwrap();
    }
    b.finish().unwrap()
}

/// Up to 150 documents of up to 40 keys each, drawn from a pool of up to 80 keys that
/// mixes the full u64 range, small keys and keys next to u64::MAX (so keys are shared,
/// crowded and at both ends of the range).
fn key_docs() -> impl Strategy<Value = Vec<Vec<u64>>> {
    (
        proptest::collection::vec(
            prop_oneof![any::<u64>(), 0u64..64, (u64::MAX - 64)..=u64::MAX],
            1..80,
        ),
        proptest::collection::vec(proptest::collection::vec(any::<usize>(), 0..40), 0..150),
    )
        .prop_map(|(pool, picks)| {
            picks
                .iter()
                .map(|p| p.iter().map(|&i| pool[i % pool.len()]).collect())
                .collect()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn bucketed_context_equals_sorted_on_any_keys(
        docs in key_docs(),
        max_df in proptest::option::of(2u32..30),
    ) {
        let cfg = ContextConfig { min_df: 2, max_df };
        let mem = Context::from_doc_keys(&docs, &cfg, &SpillConfig::default()).unwrap();
        prop_assert_eq!(&mem, &through_builder(&docs, &cfg));
    }
}

/// Enough incidences for several buckets and chunks (about 600k: 64 buckets, so a tiny
/// budget needs more than `MAX_PASSES` passes and spills); keys skewed like bottom-k
/// images (most small, a few anywhere, one at u64::MAX), some held by many documents
/// (crowded slots), and repeated keys inside a document.
fn many_bucket_docs() -> Vec<Vec<u64>> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut pool: Vec<u64> = (0..120_000)
        .map(|i| match i % 10 {
            0 => next(),
            1 => next() % 64,
            _ => next() >> 24,
        })
        .collect();
    pool.push(u64::MAX);
    (0..10_000)
        .map(|d| {
            let mut ks: Vec<u64> = (0..60)
                .map(|_| pool[(next() % pool.len() as u64) as usize])
                .collect();
            ks.push(ks[0]);
            if d % 7 == 0 {
                ks.push(u64::MAX);
            }
            ks
        })
        .collect()
}

/// Budgets for `total` incidences: none (one pass), about 3 and 10 passes over key
/// ranges, and one needing more than MAX_PASSES passes (sorted runs spilled instead).
fn test_budgets(total: u64) -> [Option<u64>; 4] {
    [
        None,
        Some(total * 12 / 3),
        Some(total * 12 / 10),
        Some(1024),
    ]
}

fn spill_in(dir: &Path, budget: Option<u64>) -> SpillConfig {
    SpillConfig {
        budget: budget.map(crate::spill::MemoryBudget),
        tmp_dir: Some(dir.to_path_buf()),
        process: None,
        ..Default::default()
    }
}

#[test]
fn bucketed_context_equals_sorted_with_many_buckets() {
    let docs = many_bucket_docs();
    let total: u64 = docs.iter().map(|d| d.len() as u64).sum();
    let tmp = tempfile::tempdir().unwrap();
    for max_df in [None, Some(5)] {
        let cfg = ContextConfig { min_df: 2, max_df };
        let want = through_builder(&docs, &cfg);
        assert!(
            want.len() > 1000,
            "a test that shares keys: {} rows",
            want.len()
        );
        for budget in test_budgets(total) {
            let spill = spill_in(tmp.path(), budget);
            let got = Context::from_doc_keys(&docs, &cfg, &spill).unwrap();
            assert_eq!(got, want, "budget {budget:?}");
        }
    }
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

/// Keys replayed from memory in a given document order, counting the scans.
struct Replay<'a> {
    docs: &'a [Vec<u64>],
    order: Vec<u32>,
    scans: usize,
}

impl KeySource for Replay<'_> {
    fn scan(&mut self, f: &mut dyn FnMut(DocId, &[u64]) -> Result<()>) -> Result<()> {
        self.scans += 1;
        for &d in &self.order {
            f(DocId(d), &self.docs[d as usize])?;
        }
        Ok(())
    }
}

/// A replay of `docs` in `order`, after the first scan that gives its key stats.
fn replay(docs: &[Vec<u64>], order: Vec<u32>) -> (Replay<'_>, KeyStats) {
    let mut src = Replay {
        docs,
        order,
        scans: 0,
    };
    let mut stats = KeyStats::default();
    src.scan(&mut |d, ks| {
        stats.add(d, ks);
        Ok(())
    })
    .unwrap();
    (src, stats)
}

fn streamed(
    docs: &[Vec<u64>],
    order: Vec<u32>,
    cfg: &ContextConfig,
    spill: &SpillConfig,
    keep: &dyn Fn(DocId) -> bool,
) -> (Result<Context>, usize) {
    let (mut src, stats) = replay(docs, order);
    let c = Context::from_key_source(&mut src, &stats, cfg, spill, keep);
    (c, src.scans)
}

fn masked(docs: &[Vec<u64>], keep: &dyn Fn(DocId) -> bool) -> Vec<Vec<u64>> {
    docs.iter()
        .enumerate()
        .map(|(d, k)| {
            if keep(DocId(d as u32)) {
                k.clone()
            } else {
                Vec::new()
            }
        })
        .collect()
}

#[test]
fn streamed_context_equals_in_memory_in_passes_and_any_order() {
    let docs = many_bucket_docs();
    let total: u64 = docs.iter().map(|d| d.len() as u64).sum();
    let tmp = tempfile::tempdir().unwrap();
    let n = docs.len() as u32;
    // Ascending, reversed, and interleaved like shards (0, 3, 6, ..., 1, 4, ...).
    let orders: Vec<Vec<u32>> = vec![
        (0..n).collect(),
        (0..n).rev().collect(),
        (0..3).flat_map(|s| (s..n).step_by(3)).collect(),
    ];
    let keep_all = |_: DocId| true;
    let keep_some = |d: DocId| d.0 % 5 != 2;
    for max_df in [None, Some(5)] {
        let cfg = ContextConfig { min_df: 2, max_df };
        for keep in [&keep_all as &dyn Fn(DocId) -> bool, &keep_some] {
            let want = through_builder(&masked(&docs, keep), &cfg);
            assert!(want.len() > 1000, "{} rows", want.len());
            for budget in test_budgets(total) {
                let spill = spill_in(tmp.path(), budget);
                // The spilled fallback is slow with so tiny a budget: one order.
                let n_orders = if budget == Some(1024) {
                    1
                } else {
                    orders.len()
                };
                for order in &orders[..n_orders] {
                    let (got, scans) = streamed(&docs, order.clone(), &cfg, &spill, keep);
                    assert_eq!(got.unwrap(), want, "budget {budget:?}");
                    if budget != Some(1024) {
                        // A pass holds whole buckets (one at least, however large),
                        // so the count of passes depends on the key skew: one without
                        // a budget, several with one.
                        let passes = scans - 2;
                        assert!(
                            if budget.is_none() {
                                passes == 1
                            } else {
                                passes >= 2
                            },
                            "budget {budget:?}: {passes} passes"
                        );
                    } else {
                        assert_eq!(scans, 3, "one scan to count, one to spill");
                    }
                }
            }
        }
    }
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

/// A source whose key counts or range change between scans (a file rewritten while
/// it is read) is an error, not a wrong context or a panic.
#[test]
fn streamed_context_rejects_a_changing_source() {
    struct Drift(u64, u64);
    impl KeySource for Drift {
        fn scan(&mut self, f: &mut dyn FnMut(DocId, &[u64]) -> Result<()>) -> Result<()> {
            self.0 += 1;
            for d in 0..100u32 {
                let k = u64::from(d % 10);
                if self.0 > 2 && d == 50 {
                    f(DocId(d), &[k, 1000 + u64::from(d), self.1])?;
                } else {
                    f(DocId(d), &[k, 1000 + u64::from(d)])?;
                }
            }
            Ok(())
        }
    }
    // An extra key in range (bucket counts differ), and one past the range.
    for extra in [500, 5000] {
        let mut src = Drift(0, extra);
        let mut stats = KeyStats::default();
        src.scan(&mut |d, ks| {
            stats.add(d, ks);
            Ok(())
        })
        .unwrap();
        let e = Context::from_key_source(
            &mut src,
            &stats,
            &ContextConfig::default(),
            &SpillConfig::default(),
            &|_| true,
        )
        .unwrap_err();
        assert!(e.to_string().contains("changed between scans"), "{e}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn streamed_context_equals_sorted_on_any_keys(
        docs in key_docs(),
        max_df in proptest::option::of(2u32..30),
        rotate in any::<usize>(),
        passes in 1u64..6,
        drop_mod in 2u32..7,
    ) {
        let n = docs.len() as u32;
        let mut order: Vec<u32> = (0..n).collect();
        if n > 0 {
            order.rotate_left(rotate % n as usize);
        }
        let total: u64 = docs.iter().map(|d| d.len() as u64).sum();
        let spill = SpillConfig {
            budget: Some(crate::spill::MemoryBudget((total * 12 / passes).max(12))),
            tmp_dir: None, process: None, ..Default::default() };
        let cfg = ContextConfig { min_df: 2, max_df };
        let keep = |d: DocId| d.0 % drop_mod != 1;
        let (got, _) = streamed(&docs, order, &cfg, &spill, &keep);
        prop_assert_eq!(got.unwrap(), through_builder(&masked(&docs, &keep), &cfg));
    }
}

#[test]
fn builder_filter_equals_masked_keys() {
    let docs: Vec<Vec<u64>> = (0..300u64)
        .map(|d| (0..30).map(|j| (d * 7 + j * 13) % 211).collect())
        .collect();
    let keep = |d: DocId| !d.0.is_multiple_of(3);
    let cfg = ContextConfig {
        min_df: 2,
        max_df: Some(40),
    };
    let want =
        Context::from_doc_keys(&masked(&docs, &keep), &cfg, &SpillConfig::default()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut b = ContextBuilder::new(&cfg, &tiny(tmp.path())).unwrap();
    for (d, k) in docs.iter().enumerate() {
        b.push_doc(DocId(d as u32), k).unwrap();
    }
    assert!(b.runs() > 0);
    assert_eq!(b.finish_filtered(&keep).unwrap(), want);
}

/// The rows of any row source, in order.
fn collect_rows(src: &dyn RowSource) -> Vec<Vec<u32>> {
    let mut v = Vec::new();
    src.for_each_row(&mut |r| {
        v.push(r.to_vec());
        Ok(())
    })
    .unwrap();
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Under a budget bounding everything held, the build keeps its rows in memory or moves
    /// them to a file; either way the rows and counts are the in-memory context's, and the
    /// streamed pair counts are the in-memory ones for every k.
    #[test]
    fn bounded_context_and_streamed_pair_counts_equal_in_memory(
        docs in key_docs(),
        max_df in proptest::option::of(2u32..30),
        budget in 64u64..20_000,
        held in 0u64..2_000,
        drop_mod in 2u32..7,
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let n = docs.len() as u32;
        let (mut src, stats) = replay(&docs, (0..n).collect());
        let cfg = ContextConfig { min_df: 2, max_df };
        let keep = |d: DocId| d.0 % drop_mod != 1;
        let spill = spill_in(tmp.path(), Some(budget));
        let want = through_builder(&masked(&docs, &keep), &cfg);
        let got = Context::from_key_source_bounded(&mut src, &stats, &cfg, &spill, &keep, held)
            .unwrap();
        let want_rows: Vec<Vec<u32>> = want.rows().iter().map(|r| r.to_vec()).collect();
        prop_assert_eq!(got.stats(), want.stats());
        prop_assert_eq!(got.n_docs(), want.n_docs());
        match &got {
            BuiltContext::Memory(c) => prop_assert_eq!(c, &want),
            BuiltContext::Spilled(c) => prop_assert_eq!(collect_rows(c), want_rows),
        }
        for k in 1..=6u32 {
            let want_pairs = pair_counts_of_rows(want.rows(), want.n_docs(), k);
            let got_pairs = match &got {
                BuiltContext::Memory(c) => pair_counts_streamed(c.rows(), n, k, &spill).unwrap(),
                BuiltContext::Spilled(c) => pair_counts_streamed(c, n, k, &spill).unwrap(),
            };
            prop_assert_eq!(got_pairs, want_pairs, "k {}", k);
        }
        drop(got);
        prop_assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }
}

/// A budget that cannot hold the kept rows moves them to a file (the property above then
/// checks a spilled context, not only in-memory ones).
#[test]
fn bounded_context_spills_rows_under_a_small_budget() {
    let docs = many_bucket_docs();
    let tmp = tempfile::tempdir().unwrap();
    let n = docs.len() as u32;
    let (mut src, stats) = replay(&docs, (0..n).collect());
    let cfg = ContextConfig::default();
    let want = through_builder(&docs, &cfg);
    let spill = spill_in(tmp.path(), Some(want.heap_bytes()));
    let got =
        Context::from_key_source_bounded(&mut src, &stats, &cfg, &spill, &|_| true, 0).unwrap();
    let BuiltContext::Spilled(c) = &got else {
        panic!(
            "rows of {} bytes kept in memory under a budget of as much",
            want.heap_bytes()
        );
    };
    assert!(c.file_bytes() > 0);
    let want_rows: Vec<Vec<u32>> = want.rows().iter().map(|r| r.to_vec()).collect();
    assert_eq!(collect_rows(c), want_rows);
    // Without a budget the same call keeps everything in memory.
    let got = Context::from_key_source_bounded(
        &mut src,
        &stats,
        &cfg,
        &SpillConfig::default(),
        &|_| true,
        0,
    )
    .unwrap();
    assert!(matches!(got, BuiltContext::Memory(c) if c == want));
}
