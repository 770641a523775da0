//! Exact itemset counts against the consensus rows of the shared FIMI reference table
//! (`../shared/datasets/fimi/reference_counts.csv`, counts agreed by Borgelt's fpgrowth and
//! eclat, FPmax*/FPclose and LCM). Quick settings run always; the slow ones are `#[ignore]`d
//! and run by `.ci/run` in release mode.

use fimdup::fimi::{read_transactions, FimiOptions, Transactions};
use fimdup::mine::{self, MinSupport, MineConfig, Target};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/datasets/fimi");

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

/// The consensus rows, or None (with a note) when the data is absent outside CI.
fn rows() -> Option<Vec<Row>> {
    let path = format!("{DIR}/reference_counts.csv");
    if !std::path::Path::new(&path).exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{path} is missing: the reference tests need ../shared/datasets"
        );
        eprintln!("skipping: {path} is missing (set CI to make this an error)");
        return None;
    }
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
    assert_eq!(out.len(), 36, "expected 36 consensus rows in {path}");
    Some(out)
}

fn load(dataset: &str) -> Transactions {
    for name in [
        format!("{DIR}/{dataset}.dat"),
        format!("{DIR}/{dataset}.dat.gz"),
    ] {
        if std::path::Path::new(&name).exists() {
            return read_transactions(&name, FimiOptions::default()).unwrap();
        }
    }
    panic!("no {dataset}.dat(.gz) in {DIR}");
}

fn check(slow: bool) {
    let Some(rows) = rows() else { return };
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

/// `mine` (materialized, sorted) agrees with `count` and with itself on 1 and 2 threads, and
/// every reported maximal set is closed and frequent.
#[test]
fn mine_matches_count_and_is_thread_independent() {
    let Some(_) = rows() else { return };
    let t = load("mushroom");
    for (target, minsup, expected) in [(Target::Maximal, 82, 6768), (Target::Closed, 813, 4885)] {
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
        assert!(one.iter().all(|s| s.support as u64 >= minsup));
        if target == Target::Closed {
            // The closure of the empty set: item 85 is in every transaction.
            assert!(one.contains(&fimdup::mine::Itemset {
                items: vec![85],
                support: 8124
            }));
        }
    }
}
