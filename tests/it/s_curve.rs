//! The S-curve of a sweep against the theory: on a corpus of disjoint pairs spread over
//! resemblance 0.5-1.0, the fraction of pairs lsh finds per bin lies within the binomial
//! error of `1-(1-s^r)^b` (bands fixed, no filter beyond a band), and within that of the
//! banding-and-filter model when the filter asks for more; the precision-recall curve's
//! average precision equals a recomputation by ranks; the report carries the files.

use std::fmt::Write as _;
use std::path::Path;

use fimdup::cluster::{ClusterConfig, LshConfig, Method};
use fimdup::eval::{FalseClusterConfig, TruthTable};
use fimdup::report::sweep::{sweep, SweepConfig, SweepOutput, SweepThresholds};

/// Words per document.
const N: usize = 200;
/// Pairs in the corpus.
const PAIRS: usize = 800;

/// Disjoint pairs of documents of `N` distinct words each (no word shared across pairs):
/// the second keeps the first `m` words of the first and replaces the rest, so of the
/// `N - 4` word 5-shingles of each, `m - 4` are shared: resemblance
/// `(m - 4) / (2(N - 4) - (m - 4))`. `m` is chosen for resemblances spread evenly over
/// [0.5, 1]. Returns each pair's exact resemblance, by construction.
fn corpus(dir: &Path) -> Vec<f64> {
    let mut docs = String::new();
    let mut truth = String::from("a,b\n");
    let mut sims = Vec::new();
    let mut word = 0usize;
    let mut fresh = || {
        word += 1;
        format!("w{word}")
    };
    let u = (N - 4) as f64;
    for i in 0..PAIRS {
        let target = 0.5 + 0.5 * (i as f64 + 0.5) / PAIRS as f64;
        // shared shingles c with c / (2u - c) = target
        let c = (2.0 * u * target / (1.0 + target)).round() as usize;
        let m = c + 4;
        let a: Vec<String> = (0..N).map(|_| fresh()).collect();
        let b: Vec<String> = a[..m]
            .iter()
            .cloned()
            .chain((m..N).map(|_| fresh()))
            .collect();
        sims.push(c as f64 / (2.0 * u - c as f64));
        let _ = writeln!(docs, "{{\"id\":\"a{i}\",\"text\":\"{}\"}}", a.join(" "));
        let _ = writeln!(docs, "{{\"id\":\"b{i}\",\"text\":\"{}\"}}", b.join(" "));
        let _ = writeln!(truth, "a{i},b{i}");
    }
    std::fs::write(dir.join("docs.jsonl"), docs).unwrap();
    std::fs::write(dir.join("truth.csv"), truth).unwrap();
    sims
}

fn run(dir: &Path, thresholds: SweepThresholds, lsh: LshConfig) -> SweepOutput {
    let truth = TruthTable::read(&dir.join("truth.csv")).unwrap();
    let labels = truth.labels(None).unwrap();
    let cfg = SweepConfig {
        methods: vec![Method::Lsh],
        thresholds,
        pipeline: Default::default(),
        cluster: ClusterConfig {
            lsh,
            ..Default::default()
        },
        spill: Default::default(),
        verify: false,
        false_clusters: FalseClusterConfig::default(),
        truth_tokenizer: Default::default(),
        labeled_only: false,
        errors: 0,
        external: Vec::new(),
        bootstrap: None,
        cv: None,
        shingle_lens: Vec::new(),
        repeat: Default::default(),
    };
    sweep(&dir.join("docs.jsonl"), &truth, &labels, &cfg, &|_| {}).unwrap()
}

/// Checks every bin of the run's S-curve with at least 50 pairs against `theory`, evaluated
/// here at each pair's resemblance and averaged over the bin: the observed fraction lies
/// within 3 binomial standard errors, plus one pair (the fraction's granularity).
fn check_bins(out: &SweepOutput, sims: &[f64], theory: impl Fn(f64) -> f64, what: &str) {
    assert_eq!(out.curves.s.len(), 1, "{what}");
    let curve = &out.curves.s[0];
    assert!(curve.model.is_some(), "{what}");
    let mut checked = 0;
    for b in &curve.bins {
        let mine: Vec<f64> = sims
            .iter()
            .copied()
            .filter(|&s| s >= b.lo && (s < b.hi || (b.hi == 1.0 && s <= 1.0)))
            .collect();
        // the sweep measured the same resemblances from the texts
        assert_eq!(b.pairs, mine.len() as u64, "{what}: bin {}-{}", b.lo, b.hi);
        if mine.len() < 50 {
            continue;
        }
        checked += 1;
        let n = mine.len() as f64;
        let p = mine.iter().map(|&s| theory(s)).sum::<f64>() / n;
        // the library's own theory agrees with the independent one
        let lib = b.theory.unwrap();
        assert!((lib - p).abs() < 1e-4, "{what}: theory {lib} vs {p}");
        let allowed = 3.0 * (p * (1.0 - p) / n).sqrt() + 1.0 / n;
        // disjoint pairs: every edge is an output pair
        assert_eq!(b.found, b.edges, "{what}");
        assert!(
            (b.fraction - p).abs() <= allowed,
            "{what}: bin {}-{}: found {} of {} = {:.3}, theory {p:.3} +- {allowed:.3}",
            b.lo,
            b.hi,
            b.found,
            b.pairs,
            b.fraction
        );
    }
    assert_eq!(checked, 10, "{what}: every bin holds at least 50 pairs");
}

#[test]
fn lsh_s_curve_lies_within_the_binomial_error_of_the_theory() {
    let dir = tempfile::tempdir().unwrap();
    let sims = corpus(dir.path());
    // 16 bands of 8 rows on k-mins images of 128 (the sweep's default size); min-common 8:
    // the filter asks for no more than one band's agreement, so the model is the S-curve.
    let (b, r) = (16u32, 8u32);
    let out = run(
        dir.path(),
        SweepThresholds::MinCommon(vec![8]),
        LshConfig {
            bands_rows: Some((b, r)),
            ..LshConfig::default()
        },
    );
    assert_eq!(out.curves.measured, (PAIRS as u64, PAIRS as u64));
    check_bins(
        &out,
        &sims,
        |s| 1.0 - (1.0 - s.powi(r as i32)).powi(b as i32),
        "lsh 16 x 8",
    );
    // The curve is an S: nearly nothing at 0.5, nearly everything above 0.9.
    let bins = &out.curves.s[0].bins;
    assert!(
        bins[0].fraction < 0.15 && bins[9].fraction > 0.95,
        "{bins:?}"
    );

    // A resemblance threshold of 0.75: bands chosen for it and a filter of ceil(0.75 * 128)
    // = 96 agreeing positions; the theory, by brute force over the agreements in each band.
    let out = run(
        dir.path(),
        SweepThresholds::Resemblance(vec![0.75]),
        LshConfig::default(),
    );
    let s = &out.curves.s[0];
    let model = s.model.clone().unwrap();
    let (bands, rows) = (out_bands(&model), 128 / out_bands(&model));
    let theory = |p: f64| band_and_filter(p, bands, rows, 96);
    check_bins(&out, &sims, theory, &model);

    // The ranking: AP recomputed from the curve's points by ranks (the scores are the
    // agreement fractions, so levels; within a level every order gives the level's
    // precision at its end, which is what the step-wise AP takes).
    let pr = &out.curves.pr[0];
    assert_eq!(pr.curve.positives, PAIRS as u64);
    let mut ap = 0.0;
    let mut last = 0u64;
    for p in &pr.curve.points {
        ap += (p.common - last) as f64 / PAIRS as f64 * p.common as f64 / p.found as f64;
        last = p.common;
    }
    assert!((pr.curve.average_precision.unwrap() - ap).abs() < 1e-12);
    // every pair the run found is a truth pair: precision 1 all along
    assert!(pr.curve.points.iter().all(|p| p.precision == 1.0));
}

/// The bands of a model described as "a band of B x R agrees ...".
fn out_bands(model: &str) -> u32 {
    let rest = model.split("a band of ").nth(1).expect(model);
    rest.split(' ').next().unwrap().parse().unwrap()
}

/// P(some band of `r` rows agrees on all rows and at least `k` of the `b * r` positions
/// agree), each position agreeing with probability `s`: summed over the agreements of
/// every band, enumerated by a convolution over bands kept apart for hit and no hit.
fn band_and_filter(s: f64, b: u32, r: u32, k: u32) -> f64 {
    let binom = |n: u32, j: u32| -> f64 {
        (0..j).fold(1.0, |acc, i| acc * f64::from(n - i) / f64::from(i + 1))
    };
    let per: Vec<f64> = (0..=r)
        .map(|j| binom(r, j) * s.powi(j as i32) * (1.0 - s).powi((r - j) as i32))
        .collect();
    // no_hit[c]: probability of c agreements so far with no full band; any[c]: all paths
    let n = (b * r) as usize;
    let mut any = vec![0.0; n + 1];
    let mut no_hit = vec![0.0; n + 1];
    any[0] = 1.0;
    no_hit[0] = 1.0;
    for _ in 0..b {
        let mut a2 = vec![0.0; n + 1];
        let mut n2 = vec![0.0; n + 1];
        for c in 0..=n {
            for (j, q) in per.iter().enumerate() {
                if c + j > n {
                    break;
                }
                a2[c + j] += any[c] * q;
                if j < r as usize {
                    n2[c + j] += no_hit[c] * q;
                }
            }
        }
        any = a2;
        no_hit = n2;
    }
    (k as usize..=n).map(|c| any[c] - no_hit[c]).sum()
}

#[test]
fn the_report_has_the_curves() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let out = dir.path().join("report");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_fimdup"))
        .args([
            "sweep",
            "--methods",
            "lsh,exact",
            "--thresholds",
            "0.8,0.6",
            "--out",
        ])
        .arg(&out)
        .arg("--truth")
        .arg(dir.path().join("truth.csv"))
        .arg(dir.path().join("docs.jsonl"))
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    for f in ["prcurve.csv", "prcurve.svg", "scurve.csv", "scurve.svg"] {
        assert!(out.join(f).exists(), "{f}");
    }
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("## Ranking by score") && md.contains("## S-curves"),
        "{md}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("id=\"s-curves\"") && html.contains("id=\"ranking\""));
    // scurve.csv: a header and 10 bins per run (2 methods x 2 thresholds)
    let csv = std::fs::read_to_string(out.join("scurve.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 40);
    // exact finds exactly the pairs at or above its threshold: the bins above 0.8 are full,
    // those below 0.8 (for the run at 0.8) empty
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f[0] != "exact" {
            continue;
        }
        let (t, lo, hi): (f64, f64, f64) = (
            f[1].parse().unwrap(),
            f[2].parse().unwrap(),
            f[3].parse().unwrap(),
        );
        if lo >= t {
            assert_eq!(f[4], f[5], "{line}");
        } else if hi <= t {
            assert_eq!(f[5], "0", "{line}");
        }
    }
}

#[test]
fn eval_ranks_a_scored_pair_file() {
    use fimdup::eval::{EvalOptions, Labels, Prediction, Truth};
    let dir = tempfile::tempdir().unwrap();
    let truth = Truth::Pairs {
        positives: Labels::from_pairs([("x1", "y1"), ("x2", "y2"), ("x3", "y3")]).unwrap(),
        listed: None,
    };
    let o = EvalOptions::default();
    let loaded = o.load_truth(&truth).unwrap();
    let ap = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        let pred = Prediction::read_pairs_csv(&p).unwrap();
        o.evaluate(&pred, &loaded).unwrap().average_precision
    };
    // ranks: + (0.9), - (0.8), + (0.7); x3-y3 never found: (1/1 + 2/3) / 3
    let want = (1.0 + 2.0 / 3.0) / 3.0;
    let got = ap("s.csv", "a,b,score\nx1,y1,0.9\nx1,z,0.8\ny2,x2,0.7\n").unwrap();
    assert!((got - want).abs() < 1e-12, "{got}");
    // fimdup cluster's layout: exact, else estimate, else shared; an unscored pair last
    let got = ap(
        "f.csv",
        "a,b,shared,estimate,exact\nx1,y1,3,0.1,0.9\nx1,z,2,0.8,\ny2,x2,1,,\nq,r,,,\n",
    )
    .unwrap();
    // scores 0.9 (+), 0.8 (-), 1 shared (+: ranks first), unscored (-)
    let want = (1.0 + 1.0) / 3.0;
    assert!((got - want).abs() < 1e-12, "{got}");
    // without a score: no average precision
    assert_eq!(ap("u.csv", "a,b\nx1,y1\n"), None);
}
