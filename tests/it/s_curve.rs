//! The S-curve of a sweep against the theory: on a corpus of disjoint pairs spread over
//! resemblance 0.5-1.0, the fraction of pairs lsh finds per bin lies within the binomial
//! error of `1-(1-s^r)^b` (bands fixed, no filter beyond a band), and within that of the
//! banding-and-filter model when the filter asks for more; on pairs of documents of many
//! sizes, every method and image scheme with a model (concept and union-find on bottom-k,
//! k-mins and one-permutation images, lsh, super shingles, the exact join, exact
//! verification) finds per bin a fraction within three standard errors (plus one pair) of
//! its model, whose means are recomputed here by independent formulas (bottom-k: a finite
//! sum over the orders of the elements); the precision-recall curve's average precision
//! equals a recomputation by ranks; the report carries the files.

use std::fmt::Write as _;
use std::path::Path;

use fimdup::cluster::{ClusterConfig, LshConfig, Method};
use fimdup::eval::{FalseClusterConfig, TruthTable};
use fimdup::report::sweep::{sweep, SweepConfig, SweepOutput, SweepThresholds};
use fimdup::shingle::ShingleConfig;
use fimdup::sketch::pipeline::PipelineConfig;
use fimdup::sketch::{Scheme, SketchConfig};
use rand::{Rng, SeedableRng};

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
    let cluster = ClusterConfig {
        lsh,
        ..Default::default()
    };
    run_with(
        dir,
        vec![Method::Lsh],
        thresholds,
        Default::default(),
        cluster,
        false,
    )
}

fn run_with(
    dir: &Path,
    methods: Vec<Method>,
    thresholds: SweepThresholds,
    pipeline: PipelineConfig,
    cluster: ClusterConfig,
    verify: bool,
) -> SweepOutput {
    let truth = TruthTable::read(&dir.join("truth.csv")).unwrap();
    let labels = truth.labels(None).unwrap();
    let cfg = SweepConfig {
        methods,
        thresholds,
        pipeline,
        cluster,
        spill: Default::default(),
        verify,
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

/// Pairs in the corpus of many sizes.
const SIZED_PAIRS: usize = 1200;

/// A pair's set sizes: the first document's, the second's, and their intersection's.
type Sizes = (u64, u64, u64);

/// Disjoint pairs of documents of distinct words (no word in two pairs), read with
/// shingles of one word, so that a document's shingle set is its words: pair `i`'s documents
/// hold `a` and `b` words, `c` of them in both. The target resemblance `s` is spread evenly
/// over [0.5, 1], `a` is drawn from 40..=450 (shorter and longer than the images), the ratio
/// `b / a` from `[s, 1 / s]` (so `c <= min(a, b)`), and `c = round(s (a + b) / (1 + s))`.
fn sized_corpus(dir: &Path) -> Vec<Sizes> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(20);
    let mut docs = String::new();
    let mut truth = String::from("a,b\n");
    let mut sizes = Vec::new();
    let mut word = 0u64;
    let mut fresh = |k: u64| -> Vec<String> {
        (0..k)
            .map(|_| {
                word += 1;
                format!("w{word}")
            })
            .collect()
    };
    for i in 0..SIZED_PAIRS {
        let target = 0.5 + 0.5 * (i as f64 + 0.5) / SIZED_PAIRS as f64;
        let a: u64 = rng.gen_range(40..=450);
        let ratio = target + (1.0 / target - target) * rng.gen::<f64>();
        let b = ((a as f64 * ratio).round() as u64).max(1);
        let c = ((target * (a + b) as f64 / (1.0 + target)).round() as u64).min(a.min(b));
        let common = fresh(c);
        let x: Vec<String> = common.iter().cloned().chain(fresh(a - c)).collect();
        let y: Vec<String> = common.iter().cloned().chain(fresh(b - c)).collect();
        let _ = writeln!(docs, "{{\"id\":\"a{i}\",\"text\":\"{}\"}}", x.join(" "));
        let _ = writeln!(docs, "{{\"id\":\"b{i}\",\"text\":\"{}\"}}", y.join(" "));
        let _ = writeln!(truth, "a{i},b{i}");
        sizes.push((a, b, c));
    }
    std::fs::write(dir.join("docs.jsonl"), docs).unwrap();
    std::fs::write(dir.join("truth.csv"), truth).unwrap();
    sizes
}

/// Shingles of one word, images of 128 of `scheme`.
fn one_word_shingles(scheme: Scheme) -> PipelineConfig {
    PipelineConfig {
        shingle: ShingleConfig {
            len: 1,
            ..ShingleConfig::default()
        },
        sketch: SketchConfig {
            scheme,
            ..SketchConfig::default()
        },
        ..PipelineConfig::default()
    }
}

fn resemblance((a, b, c): Sizes) -> f64 {
    c as f64 / (a + b - c) as f64
}

/// Checks every run's bins with at least 50 pairs: the fraction of the bin's pairs found as
/// edges (every edge is an output pair: the pairs are disjoint) lies within three standard
/// errors of the run's theory plus one pair (the fraction's granularity). Then, where
/// `independent` gives each pair's probability for the run (its row, the pair's sizes), the
/// bin's theory is their mean. Returns the bins checked whose theory lies in [0.05, 0.95],
/// and those whose theory was recomputed.
fn check_sized(
    out: &SweepOutput,
    sizes: &[Sizes],
    independent: impl Fn(&fimdup::report::SweepRow, &str, Sizes) -> Option<f64>,
) -> (usize, usize) {
    use fimdup::eval::curves::bin_of;
    assert!(!out.curves.s.is_empty());
    let (mut off, mut checked, mut middle) = (Vec::new(), 0, 0);
    let mut means = Vec::new();
    for c in &out.curves.s {
        let what = format!("{} at {}", c.method, c.threshold);
        let model = c
            .model
            .clone()
            .unwrap_or_else(|| panic!("{what}: no model"));
        let row = out
            .rows
            .iter()
            .find(|r| r.method == c.method && r.threshold == c.threshold)
            .unwrap();
        for (i, b) in c.bins.iter().enumerate() {
            let mine: Vec<Sizes> = sizes
                .iter()
                .copied()
                .filter(|&s| bin_of(resemblance(s)) == Some(i))
                .collect();
            // the sweep measured the same sizes from the texts
            assert_eq!(b.pairs, mine.len() as u64, "{what}: bin {}-{}", b.lo, b.hi);
            if mine.len() < 50 {
                continue;
            }
            checked += 1;
            assert_eq!(b.found, b.edges, "{what}");
            let (t, se) = (b.theory.unwrap(), b.stderr.unwrap());
            let n = mine.len() as f64;
            let allowed = 3.0 * se + 1.0 / n;
            if (b.edge_fraction - t).abs() > allowed {
                off.push(format!(
                    "{what}: bin {:.2}-{:.2}: found {} of {} = {:.3}, theory {t:.3} ± {allowed:.3}",
                    b.lo, b.hi, b.edges, b.pairs, b.edge_fraction
                ));
            }
            if (0.05..=0.95).contains(&t) {
                middle += 1;
            }
            if let Some(ps) = mine
                .iter()
                .map(|&s| independent(row, &model, s))
                .collect::<Option<Vec<f64>>>()
            {
                means.push((what.clone(), b.lo, t, ps.iter().sum::<f64>() / n));
            }
        }
    }
    assert!(off.is_empty(), "bins outside the band:\n{}", off.join("\n"));
    assert!(
        checked >= 10 * out.curves.s.len() - 2 * out.curves.s.len(),
        "{checked}"
    );
    for (what, lo, lib, want) in &means {
        assert!(
            (lib - want).abs() < 1e-6,
            "{what}: bin {lo}: the library's theory {lib} against {want}"
        );
    }
    (middle, means.len())
}

/// `ln m!` by summation (tabulated up to 4,096).
fn ln_fact(m: u64) -> f64 {
    static TABLE: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    let t = TABLE.get_or_init(|| {
        let mut v = vec![0.0f64];
        for i in 1..=4096u64 {
            v.push(v[v.len() - 1] + (i as f64).ln());
        }
        v
    });
    t[m as usize]
}

/// `P(Binomial(n, p) >= k)` by summing the terms.
fn binomial_at_least(n: u64, p: f64, k: u64) -> f64 {
    if p >= 1.0 {
        return f64::from(u8::from(k <= n));
    }
    (k..=n)
        .map(|j| {
            (ln_fact(n) - ln_fact(j) - ln_fact(n - j)
                + j as f64 * p.ln()
                + (n - j) as f64 * (1.0 - p).ln())
            .exp()
        })
        .sum()
}

/// P(two bottom-`n` images share >= `k` elements) as a finite sum: in a random order of the
/// `a + b - c` elements every sequence of their kinds (common, only in A, only in B) is
/// equally likely; the k-th common element comes after `k - 1` common, `x` A-only and `y`
/// B-only elements, and it is in both images when `x <= n - k` and `y <= n - k`. Two equal
/// sets have equal images, collapsed into one document: found.
fn bottom_k_by_orders((a, b, c): Sizes, n: u64, k: u64) -> f64 {
    if a == b && b == c && a > 0 {
        return 1.0;
    }
    if c < k || k > n {
        return 0.0;
    }
    let multi = |parts: [u64; 3]| {
        ln_fact(parts.iter().sum()) - parts.iter().map(|&p| ln_fact(p)).sum::<f64>()
    };
    let (ma, mb) = (a - c, b - c);
    let total = multi([c, ma, mb]);
    let mut p = 0.0;
    for x in 0..=ma.min(n - k) {
        for y in 0..=mb.min(n - k) {
            p += (multi([k - 1, x, y]) + multi([c - k, ma - x, mb - y]) - total).exp();
        }
    }
    p
}

/// "P(Bin(G, s^R) >= K) (super shingles ...)": (G, R).
fn super_shingle_shape(model: &str) -> (u64, i32) {
    let rest = model.split("P(Bin(").nth(1).expect(model);
    let g = rest.split(',').next().unwrap().parse().unwrap();
    let r = rest
        .split("s^")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    (g, r)
}

/// Each model by an independent formula, for images of 128 (`None` where it is simulated).
fn independent(
    row: &fimdup::report::SweepRow,
    model: &str,
    s: Sizes,
    scheme: Scheme,
) -> Option<f64> {
    let k = row.k;
    let j = resemblance(s);
    let equal = s.0 == s.1 && s.1 == s.2;
    if scheme == Scheme::OnePermutation && row.method != "exact" {
        return None;
    }
    let verified = model.contains("verified s >=");
    let step = |t: f64| f64::from(u8::from(j >= t));
    let p = match row.method.as_str() {
        "exact" => return Some(step(row.threshold)),
        "concept" | "union-find" if scheme == Scheme::BottomK => {
            bottom_k_by_orders(s, 128, k.unwrap())
        }
        "concept" | "union-find" => binomial_at_least(128, j, k.unwrap()),
        "lsh" => {
            let bands = out_bands(model);
            band_and_filter(j, bands, 128 / bands, k.unwrap() as u32)
        }
        "super-shingle" => {
            let (g, r) = super_shingle_shape(model);
            if equal {
                1.0
            } else {
                binomial_at_least(g, j.powi(r), k.unwrap())
            }
        }
        m => panic!("{m}"),
    };
    Some(if verified { p * step(row.threshold) } else { p })
}

#[test]
fn bottom_k_s_curves_follow_the_exact_law() {
    let dir = tempfile::tempdir().unwrap();
    let sizes = sized_corpus(dir.path());
    let out = run_with(
        dir.path(),
        vec![Method::Concept, Method::UnionFind],
        SweepThresholds::Resemblance(vec![0.6, 0.8]),
        one_word_shingles(Scheme::BottomK),
        ClusterConfig::default(),
        false,
    );
    let (middle, recomputed) = check_sized(&out, &sizes, |r, m, s| {
        independent(r, m, s, Scheme::BottomK)
    });
    assert!(middle >= 4 && recomputed == 40, "{middle} {recomputed}");
}

/// Concept, union-find, lsh and super-shingle at 0.7 and 0.8 on `scheme`'s images.
fn image_methods_at_07_08(dir: &Path, scheme: Scheme) -> SweepOutput {
    run_with(
        dir,
        vec![
            Method::Concept,
            Method::UnionFind,
            Method::Lsh,
            Method::SuperShingle,
        ],
        SweepThresholds::Resemblance(vec![0.7, 0.8]),
        one_word_shingles(scheme),
        ClusterConfig::default(),
        false,
    )
}

#[test]
fn k_mins_s_curves_follow_the_binomial_laws() {
    let dir = tempfile::tempdir().unwrap();
    let sizes = sized_corpus(dir.path());
    let out = image_methods_at_07_08(dir.path(), Scheme::KMins);
    let (middle, recomputed) =
        check_sized(&out, &sizes, |r, m, s| independent(r, m, s, Scheme::KMins));
    assert!(middle >= 8 && recomputed == 80, "{middle} {recomputed}");
}

#[test]
fn one_permutation_s_curves_follow_their_simulation() {
    let dir = tempfile::tempdir().unwrap();
    let sizes = sized_corpus(dir.path());
    let out = image_methods_at_07_08(dir.path(), Scheme::OnePermutation);
    for c in &out.curves.s {
        let m = c.model.as_deref().unwrap();
        assert!(m.contains("simulated"), "{m}");
    }
    let (middle, _) = check_sized(&out, &sizes, |r, m, s| {
        independent(r, m, s, Scheme::OnePermutation)
    });
    assert!(middle >= 8, "{middle}");
}

#[test]
fn verified_s_curves_are_the_candidates_law_times_the_step() {
    let dir = tempfile::tempdir().unwrap();
    let sizes = sized_corpus(dir.path());
    let out = run_with(
        dir.path(),
        vec![Method::Concept, Method::UnionFind, Method::Exact],
        SweepThresholds::Resemblance(vec![0.7]),
        one_word_shingles(Scheme::BottomK),
        ClusterConfig::default(),
        true,
    );
    for c in out.curves.s.iter().filter(|c| c.method != "exact") {
        assert!(
            c.model.as_deref().unwrap().contains("verified s >= 0.7"),
            "{c:?}"
        );
    }
    let (middle, recomputed) = check_sized(&out, &sizes, |r, m, s| {
        independent(r, m, s, Scheme::BottomK)
    });
    assert!(middle >= 2 && recomputed == 30, "{middle} {recomputed}");
}
