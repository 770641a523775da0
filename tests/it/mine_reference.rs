//! Exact itemset counts against the consensus rows of the shared FIMI reference table
//! (`datasets/fimi/reference_counts.csv`, counts agreed by Borgelt's fpgrowth and
//! eclat, FPmax*/FPclose and LCM). Quick settings run always; the slow ones are `#[ignore]`d
//! and run by `.ci/run` in release mode.

use crate::common;

use fimdup::fimi::{read_transactions, FimiOptions, Transactions};
use fimdup::mine::{self, MinSupport, MineConfig, Target};

/// Settings where pyfim (the `pyfim-6.28-fpgrowth` row) took longer than this run in the
/// ignored (slow) test.
const QUICK_MAX_PYFIM_SECONDS: f64 = 0.1;

struct Row {
    dataset: String,
    minsup_abs: u64,
    minsup_rel: f64,
    target: Target,
    count: u64,
    pyfim_seconds: f64,
}

/// The consensus rows.
fn rows() -> Vec<Row> {
    let path = common::dataset("fimi/reference_counts.csv");
    let mut r = csv::Reader::from_path(&path).unwrap();
    let recs: Vec<csv::StringRecord> = r.records().map(|r| r.unwrap()).collect();
    let mut out = Vec::new();
    for rec in &recs {
        if &rec[5] != "consensus" {
            continue;
        }
        let pyfim_seconds = recs
            .iter()
            .find(|p| {
                p[0] == rec[0] && p[1] == rec[1] && p[3] == rec[3] && &p[5] == "pyfim-6.28-fpgrowth"
            })
            .map(|p| p[6].parse::<f64>().unwrap())
            .unwrap();
        out.push(Row {
            dataset: rec[0].to_string(),
            minsup_abs: rec[1].parse().unwrap(),
            minsup_rel: rec[2].parse().unwrap(),
            target: rec[3].parse().unwrap(),
            count: rec[4].parse().unwrap(),
            pyfim_seconds,
        });
    }
    assert_eq!(
        out.len(),
        36,
        "expected 36 consensus rows in {}",
        path.display()
    );
    out
}

fn load(dataset: &str) -> Transactions {
    let path = common::dataset(&format!("fimi/{dataset}.dat.gz"));
    read_transactions(&path, FimiOptions::default()).unwrap()
}

fn check(slow: bool) {
    let rows = rows();
    let mut cache: Vec<(String, Transactions)> = Vec::new();
    let mut checked = 0;
    for row in rows
        .iter()
        .filter(|r| (r.pyfim_seconds > QUICK_MAX_PYFIM_SECONDS) == slow)
    {
        if !cache.iter().any(|(d, _)| *d == row.dataset) {
            cache.push((row.dataset.clone(), load(&row.dataset)));
        }
        let t = &cache.iter().find(|(d, _)| *d == row.dataset).unwrap().1;
        // The relative threshold resolves to the table's absolute one.
        assert_eq!(
            MinSupport::Relative(row.minsup_rel).resolve(t.len()),
            row.minsup_abs,
            "{} {}",
            row.dataset,
            row.minsup_rel
        );
        let cfg = MineConfig {
            minsup: MinSupport::Relative(row.minsup_rel),
            target: row.target,
            max_itemsets: None,
        };
        let got = mine::count(t, &cfg).unwrap();
        assert_eq!(
            got, row.count,
            "{} minsup {} {}: got {got}, consensus {}",
            row.dataset, row.minsup_abs, row.target, row.count
        );
        checked += 1;
    }
    assert!(checked > 0);
}

#[test]
fn consensus_counts_quick() {
    check(false);
}

#[test]
#[ignore = "slow: run in release mode by .ci/run"]
fn consensus_counts_slow() {
    check(true);
}

/// The transactions of `dataset`.dat as item bitsets over transaction numbers, read by a plain
/// split on whitespace (not by the library's FIMI reader): `tids[item]` has bit `t` set when
/// transaction `t` holds `item`. Returns the bitsets and the number of transactions.
fn tidsets(dataset: &str) -> (Vec<Vec<u64>>, usize) {
    let text = common::dataset_text(&format!("fimi/{dataset}.dat.gz"));
    let lines: Vec<&str> = text.lines().collect();
    let words = lines.len().div_ceil(64);
    let mut tids: Vec<Vec<u64>> = Vec::new();
    for (t, line) in lines.iter().enumerate() {
        for item in line.split_whitespace() {
            let item: usize = item.parse().unwrap();
            if tids.len() <= item {
                tids.resize(item + 1, vec![0; words]);
            }
            tids[item][t / 64] |= 1 << (t % 64);
        }
    }
    (tids, lines.len())
}

/// The transactions holding every item of `items`.
fn cover(tids: &[Vec<u64>], items: &[u32], n: usize) -> Vec<u64> {
    let mut c = vec![u64::MAX; n.div_ceil(64)];
    if !n.is_multiple_of(64) {
        *c.last_mut().unwrap() = (1u64 << (n % 64)) - 1;
    }
    for &i in items {
        for (w, x) in c.iter_mut().zip(&tids[i as usize]) {
            *w &= x;
        }
    }
    c
}

fn ones(c: &[u64]) -> u64 {
    c.iter().map(|w| u64::from(w.count_ones())).sum()
}

/// `mine` (materialized, sorted) agrees with the consensus count and with itself on 1 and 2
/// threads. Every reported set is checked against the transactions themselves: its support is
/// the number of transactions holding it, a closed set gains no item that every one of those
/// transactions holds, and a maximal set is closed and no one-item extension of it is frequent.
#[test]
fn mine_matches_count_and_is_thread_independent() {
    let rows = rows();
    let t = load("mushroom");
    let (tids, n) = tidsets("mushroom");
    assert_eq!(n, t.len());
    for (target, minsup) in [(Target::Maximal, 82), (Target::Closed, 813)] {
        let expected = rows
            .iter()
            .find(|r| r.dataset == "mushroom" && r.minsup_abs == minsup && r.target == target)
            .expect("a consensus row for mushroom")
            .count;
        let cfg = MineConfig {
            minsup: MinSupport::Absolute(minsup),
            target,
            max_itemsets: None,
        };
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| mine::mine(&t, &cfg).unwrap())
        };
        let one = run(1);
        assert_eq!(one.len() as u64, expected);
        assert_eq!(one, run(2));
        assert!(one.windows(2).all(|w| w[0] < w[1]));
        for s in &one {
            let c = cover(&tids, &s.items, n);
            assert_eq!(ones(&c), s.support as u64, "{target} {:?}", s.items);
            assert!(s.support as u64 >= minsup, "{target} {:?}", s.items);
            for extra in 0..tids.len() as u32 {
                if s.items.contains(&extra) {
                    continue;
                }
                let with: u64 = c
                    .iter()
                    .zip(&tids[extra as usize])
                    .map(|(a, b)| u64::from((a & b).count_ones()))
                    .sum();
                // closed: no item is in every transaction that holds the set
                assert!(with < s.support as u64, "{target} {:?} + {extra}", s.items);
                if target == Target::Maximal {
                    assert!(
                        with < minsup,
                        "{target} {:?} + {extra} is frequent",
                        s.items
                    );
                }
            }
        }
        if target == Target::Closed {
            // The closure of the empty set: item 85 is in every transaction.
            assert_eq!(ones(&tids[85]), n as u64);
            assert!(one.contains(&fimdup::mine::Itemset {
                items: vec![85],
                support: 8124
            }));
        }
    }
}
