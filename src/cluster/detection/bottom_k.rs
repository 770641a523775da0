//! The exact probability that two bottom-`n` images share at least `k` elements
//! ([`bottom_k_probability`]), for sets of `a` and `b` elements with `c` in common, under one
//! random permutation (independent uniform hash values).
//!
//! # The law
//! The elements two bottom-`n` images share are the common elements below both images'
//! cut-offs: a prefix, in hash order, of the `c` common elements. So they share at least `k`
//! exactly when the `k`-th smallest common element `V` is in both images, that is when at
//! most `n - k` of the `a - c` elements only in A lie below `V`, and likewise for the `b - c`
//! elements only in B. Given `V = v` those two counts are independent `Binomial(a - c, v)` and
//! `Binomial(b - c, v)`, and `V ~ Beta(k, c - k + 1)` (the `k`-th order statistic of `c`
//! uniforms), so
//!
//! ```text
//! P(shared >= k) = ∫₀¹ Beta(k, c-k+1)(v) · P[Bin(a-c, v) <= n-k] · P[Bin(b-c, v) <= n-k] dv
//! ```
//!
//! (0 when `c < k`; 1 when neither set has more than `n - k` elements of its own).
//!
//! # The computation
//! The Beta density is evaluated in log space (log-factorials: a table below 1,024, Stirling's
//! series above) and the binomial distribution functions as sums of terms started at their
//! largest term and carried by the ratio of consecutive terms, the lower tail or one minus
//! the upper tail, whichever is summed from the side of the mode. The integral runs over the
//! interval where the Beta density is within `e^-45` of its maximum (found by bisection on its
//! log), which holds all but a negligible part of its mass, split into 16 panels, each
//! integrated by adaptive Gauss-Kronrod (7-15 points) to an absolute error of about `1e-12`.
//!
//! Invariant: the result is a deterministic function of `(a, b, c, n, k)`, in `[0, 1]`
//! (checked by the tests against the finite sum over the orders of the three kinds of
//! elements, and against the images of the crate's sketcher on random sets).

use std::sync::OnceLock;

/// Log-factorials tabulated below this.
const TABLE: usize = 1024;

/// `ln(m!)`: a table below [`TABLE`], Stirling's series above (error below `1e-13`
/// relative).
pub(crate) fn ln_factorial(m: u64) -> f64 {
    static T: OnceLock<Vec<f64>> = OnceLock::new();
    if (m as usize) < TABLE {
        let t = T.get_or_init(|| {
            let mut v = Vec::with_capacity(TABLE);
            v.push(0.0f64);
            for i in 1..TABLE {
                let prev = v[i - 1];
                v.push(prev + (i as f64).ln());
            }
            v
        });
        return t[m as usize];
    }
    let x = m as f64;
    let x2 = x * x;
    x * x.ln() - x + 0.5 * (2.0 * std::f64::consts::PI * x).ln() + 1.0 / (12.0 * x)
        - 1.0 / (360.0 * x * x2)
        + 1.0 / (1260.0 * x * x2 * x2)
}

/// `ln C(m, i)`.
fn ln_choose(m: u64, i: u64) -> f64 {
    ln_factorial(m) - ln_factorial(i) - ln_factorial(m - i)
}

/// Sum of a series whose first term is `exp(ln_first)` and whose term `t+1` is term `t`
/// times `ratio(t)` (`t` from 0), for `len` terms, the terms decreasing: summed until a term
/// is below `1e-17` of the sum.
fn decreasing_sum(ln_first: f64, len: u64, ratio: impl Fn(u64) -> f64) -> f64 {
    let (mut sum, mut term) = (1.0f64, 1.0f64);
    for t in 0..len.saturating_sub(1) {
        term *= ratio(t);
        sum += term;
        if term < 1e-17 * sum {
            break;
        }
    }
    ln_first.exp() * sum
}

/// `P[Binomial(m, v) <= j]`.
pub(crate) fn binomial_cdf(m: u64, v: f64, j: u64) -> f64 {
    if j >= m || v <= 0.0 {
        return 1.0;
    }
    if v >= 1.0 {
        return 0.0;
    }
    let (lv, lq) = (v.ln(), (-v).ln_1p());
    let odds = v / (1.0 - v);
    let ln_term = |i: u64| ln_choose(m, i) + i as f64 * lv + (m - i) as f64 * lq;
    // The largest term is at floor((m + 1) v).
    let mode = ((m + 1) as f64 * v).floor() as u64;
    let p = if j < mode {
        // terms j, j-1, ..., 0, decreasing
        decreasing_sum(ln_term(j), j + 1, |t| {
            let i = j - t;
            i as f64 / ((m - i + 1) as f64 * odds)
        })
    } else {
        // one minus the terms j+1, ..., m, decreasing
        let first = j + 1;
        1.0 - decreasing_sum(ln_term(first), m - first + 1, |t| {
            let i = first + t;
            (m - i) as f64 / (i + 1) as f64 * odds
        })
    };
    p.clamp(0.0, 1.0)
}

/// Gauss-Kronrod 7-15: the Kronrod abscissae (positive half, the last the centre) and
/// weights, and the Gauss weights of the odd-indexed abscissae (QUADPACK's `qk15`).
const XGK: [f64; 8] = [
    0.991_455_371_120_812_6,
    0.949_107_912_342_758_5,
    0.864_864_423_359_769_1,
    0.741_531_185_599_394_4,
    0.586_087_235_467_691_1,
    0.405_845_151_377_397_2,
    0.207_784_955_007_898_5,
    0.0,
];
const WGK: [f64; 8] = [
    0.022_935_322_010_529_22,
    0.063_092_092_629_978_55,
    0.104_790_010_322_250_2,
    0.140_653_259_715_525_9,
    0.169_004_726_639_267_9,
    0.190_350_578_064_785_4,
    0.204_432_940_075_298_9,
    0.209_482_141_084_727_8,
];
const WG: [f64; 4] = [
    0.129_484_966_168_869_7,
    0.279_705_391_489_276_7,
    0.381_830_050_505_118_9,
    0.417_959_183_673_469_4,
];

/// `(Kronrod estimate, |Kronrod - Gauss|)` of `∫ f` over `[lo, hi]`.
fn gk15(f: &impl Fn(f64) -> f64, lo: f64, hi: f64) -> (f64, f64) {
    let (c, h) = ((lo + hi) / 2.0, (hi - lo) / 2.0);
    let fc = f(c);
    let (mut k, mut g) = (WGK[7] * fc, WG[3] * fc);
    for i in 0..7 {
        let y = f(c - h * XGK[i]) + f(c + h * XGK[i]);
        k += WGK[i] * y;
        if i % 2 == 1 {
            g += WG[i / 2] * y;
        }
    }
    (k * h, ((k - g) * h).abs())
}

/// `∫ f` over `[lo, hi]` to an absolute error of about `tol`, halving panels whose
/// Kronrod and Gauss estimates differ by more (at most `depth` halvings).
fn adaptive(f: &impl Fn(f64) -> f64, lo: f64, hi: f64, tol: f64, depth: u32) -> f64 {
    let (k, err) = gk15(f, lo, hi);
    if err <= tol || depth == 0 {
        return k;
    }
    let mid = (lo + hi) / 2.0;
    adaptive(f, lo, mid, tol / 2.0, depth - 1) + adaptive(f, mid, hi, tol / 2.0, depth - 1)
}

/// How far below its maximum the log of the Beta density may fall inside the integration
/// interval.
const LOG_CUT: f64 = 45.0;

/// Panels the interval is first split into.
const PANELS: usize = 16;

/// `P(two bottom-n images share >= k elements)` for sets of `a` and `b` elements with `c`
/// in common (see the module docs; a set given fewer than `c` elements is read as having
/// none of its own).
pub fn bottom_k_probability(a: u64, b: u64, c: u64, n: u64, k: u64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if c < k || k > n {
        return 0.0;
    }
    let j = n - k;
    let (ma, mb) = (a.saturating_sub(c), b.saturating_sub(c));
    if ma <= j && mb <= j {
        return 1.0;
    }
    // Beta(alpha, beta), alpha = k, beta = c - k + 1: log density (up to a constant) and
    // its mode.
    let (am1, bm1) = ((k - 1) as f64, (c - k) as f64);
    let ln_norm = ln_factorial(c) - ln_factorial(k - 1) - ln_factorial(c - k);
    let ln_beta = |v: f64| {
        let x = if am1 > 0.0 { am1 * v.ln() } else { 0.0 };
        let y = if bm1 > 0.0 { bm1 * (-v).ln_1p() } else { 0.0 };
        x + y + ln_norm
    };
    let mode = if am1 + bm1 > 0.0 {
        am1 / (am1 + bm1)
    } else {
        0.5
    };
    let top = ln_beta(mode);
    // the interval where ln_beta >= top - LOG_CUT (ln_beta rises to the mode, then falls)
    let edge = |mut inside: f64, mut outside: f64| {
        if ln_beta(outside) >= top - LOG_CUT {
            return outside;
        }
        for _ in 0..100 {
            let mid = (inside + outside) / 2.0;
            if ln_beta(mid) >= top - LOG_CUT {
                inside = mid;
            } else {
                outside = mid;
            }
        }
        outside
    };
    let lo = if am1 > 0.0 { edge(mode, 0.0) } else { 0.0 };
    let hi = if bm1 > 0.0 { edge(mode, 1.0) } else { 1.0 };
    let f = |v: f64| {
        if v <= 0.0 || v >= 1.0 {
            return 0.0;
        }
        let fa = binomial_cdf(ma, v, j);
        if fa == 0.0 {
            return 0.0;
        }
        ln_beta(v).exp() * fa * binomial_cdf(mb, v, j)
    };
    let w = (hi - lo) / PANELS as f64;
    let total: f64 = (0..PANELS)
        .map(|i| {
            let (x, y) = (lo + i as f64 * w, lo + (i + 1) as f64 * w);
            adaptive(&f, x, y, 1e-12 / PANELS as f64, 30)
        })
        .sum();
    total.clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// The same probability as a finite sum: under a random order of the `a + b - c`
    /// elements, every sequence of their kinds (common, only A, only B) is equally likely;
    /// the k-th common element comes after `k - 1` common, `x` A-only and `y` B-only ones,
    /// and the images share `k` when `x <= n - k` and `y <= n - k`.
    fn by_orders(a: u64, b: u64, c: u64, n: u64, k: u64) -> f64 {
        if c < k || k > n {
            return 0.0;
        }
        let lf = |m: u64| (1..=m).map(|i| (i as f64).ln()).sum::<f64>();
        let multi =
            |parts: [u64; 3]| lf(parts.iter().sum()) - parts.iter().map(|&p| lf(p)).sum::<f64>();
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

    #[test]
    fn the_integral_equals_the_sum_over_orders() {
        for &(a, b, c, n, k) in &[
            (250u64, 250u64, 172u64, 128u64, 83u64),
            (250, 250, 172, 128, 112),
            (300, 180, 150, 128, 100),
            (90, 400, 90, 128, 80),
            (100, 100, 60, 64, 40),
            (60, 70, 50, 128, 50),
            (200, 200, 150, 32, 1),
            (200, 210, 190, 32, 32),
            (500, 520, 400, 128, 120),
        ] {
            let got = bottom_k_probability(a, b, c, n, k);
            let want = by_orders(a, b, c, n, k);
            assert!(
                (got - want).abs() < 1e-9,
                "a={a} b={b} c={c} n={n} k={k}: {got} vs {want}"
            );
        }
        // large sets: no overflow, and more shared elements never lower the probability
        let mut last = 0.0;
        for c in (600_000u64..=1_000_000).step_by(50_000) {
            let p = bottom_k_probability(1_000_000, 1_000_000, c, 256, 200);
            assert!((0.0..=1.0).contains(&p) && p + 1e-12 >= last, "c={c}: {p}");
            last = p;
        }
        assert!(last > 0.999, "{last}");
    }

    #[test]
    fn binomial_cdf_by_direct_sums() {
        for &(m, v, j) in &[
            (10u64, 0.3f64, 2u64),
            (10, 0.3, 7),
            (200, 0.5, 90),
            (200, 0.02, 1),
        ] {
            let direct: f64 = (0..=j)
                .map(|i| {
                    (ln_choose(m, i) + i as f64 * v.ln() + (m - i) as f64 * (1.0 - v).ln()).exp()
                })
                .sum();
            assert!(
                (binomial_cdf(m, v, j) - direct).abs() < 1e-12,
                "{m} {v} {j}"
            );
        }
        // Stirling's series meets the table
        let by_sum: f64 = (1..=5000u64).map(|i| (i as f64).ln()).sum();
        assert!((ln_factorial(5000) - by_sum).abs() < 1e-8);
    }

    /// The fraction of `trials` pairs of random sets (of `a` and `b` shingle hashes, `c`
    /// shared) whose bottom-`n` images, made by the crate's sketcher, share at least `k`
    /// elements.
    fn simulated(a: usize, b: usize, c: usize, n: usize, k: usize, trials: usize) -> f64 {
        use crate::shingle::ShingleConfig;
        use crate::sketch::{Scheme, SketchConfig, Sketcher};
        let sk = Sketcher::new(
            ShingleConfig::default(),
            SketchConfig {
                scheme: Scheme::BottomK,
                size: n,
                ..SketchConfig::default()
            },
        )
        .unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut hits = 0;
        for _ in 0..trials {
            let (mut x, mut y) = crate::cluster::detection::random_pair(&mut rng, a, b, c);
            let (ix, iy) = (sk.sketch_hashes(&mut x), sk.sketch_hashes(&mut y));
            let shared = crate::sorted::intersection_size(ix.values(), iy.values());
            hits += usize::from(shared >= k);
        }
        hits as f64 / trials as f64
    }

    #[test]
    fn the_law_matches_simulated_images() {
        let trials = 3000;
        for &(a, b, c, n, k) in &[
            // two sets of 250 at resemblance 0.524, k for a threshold of 0.5
            (250usize, 250usize, 172usize, 128usize, 83usize),
            (250, 250, 200, 128, 112),
            (400, 220, 200, 128, 100),
            (150, 160, 120, 128, 112),
        ] {
            let p = bottom_k_probability(a as u64, b as u64, c as u64, n as u64, k as u64);
            let got = simulated(a, b, c, n, k, trials);
            let se = (p * (1.0 - p) / trials as f64).sqrt();
            assert!(
                (got - p).abs() <= 4.0 * se + 1.0 / trials as f64,
                "a={a} b={b} c={c} n={n} k={k}: simulated {got}, law {p} (s.e. {se:.4})"
            );
        }
    }
}
