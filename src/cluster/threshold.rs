//! Translating a resemblance threshold `t` into each method's own absolute `k`.
//!
//! # Bottom-k images (n smallest hash values of each document, B97 `MIN_n`)
//!
//! Take two shingle sets `A`, `B` of equal size `m` with resemblance `J = |A∩B| / |A∪B|`.
//! With `c = |A∩B|` we have `|A∪B| = 2m - c`, so `c = 2mJ / (1 + J)`: a fraction
//! `q = c / m = 2J / (1 + J)` of each set is shared (the containment of one in the other).
//!
//! Model the hash values as independent uniforms on `[0, 1]`. `MIN_n(A)` holds the elements of
//! `A` below `τ_A`, the n-th smallest value of `A`, and likewise for `B`. A shared element
//! `x ∈ A∩B` is in both images exactly when `h(x) < min(τ_A, τ_B)`; an unshared element is in
//! at most one. Hence the number of elements the two images share is the number of values of
//! `A∩B` below `min(τ_A, τ_B)`. Since `τ_A ≈ τ_B ≈ n/m`, the expectation to first order is
//! `c · n/m = q · n = n · 2J/(1+J)` -- not `J · n`, which is what positional (k-mins) images
//! give and what the union sketch `MIN_n(A∪B)` gives (B97's estimator).
//!
//! Second order: `τ_A` and `τ_B` differ only through the unshared parts. The counts of
//! `A \ B` and `B \ A` below `n/m` are each about Poisson with mean `(1-q)·n`, so the count
//! difference has variance `2(1-q)n`, which moves the thresholds apart by a relative amount
//! `Δ` with standard deviation `σ = sqrt(2(1-q)/n) = sqrt(2(1-J) / ((1+J)n))`. The smaller
//! threshold lies `E|Δ|/2 = σ/sqrt(2π)` below the mean (normal approximation), so
//!
//! ```text
//! E[shared] ≈ n · 2J/(1+J) · (1 - sqrt((1-J) / ((1+J) · π · n)))
//! ```
//!
//! which [`expected_shared_bottom_k`] computes; for n = 128 the correction is 1.7 % at
//! J = 0.8 and 2.9 % at J = 0.5. Sets of unequal size share fewer image elements
//! (`c · n / max(|A|, |B|)`), so the translation is exact only for equal sizes.
//! The test `bottom_k_translation_matches_simulation` checks the formula against simulated
//! sets with known resemblance. This mean only places `k`; the probability that a pair
//! reaches it is not a binomial around the mean but the exact law of
//! [`super::detection::bottom_k_probability`], a function of both set sizes.
//!
//! # k-mins (positional) images
//!
//! Position `i` holds the minimum of the i-th permutation; two documents agree there with
//! probability exactly `J`, so the expected number of agreeing positions is `J · n` and the
//! translation is `k = ceil(t · n)`.
//!
//! # b-bit images
//!
//! A b-bit image keeps `b` bits of each k-mins (or one-permutation, ICWS) value
//! ([`crate::sketch::bbit`]): a position agrees with probability `p(s) = C + (1 - C) s`,
//! `C = 2^-b` (two different minima agree on `b` bits by chance), so the expected number of
//! agreeing positions is `n p(t)` and `k = ceil(n (C + (1 - C) t))`; the estimate from `c`
//! agreeing positions is `(c/n - C) / (1 - C)`.
//!
//! In all cases `k = ceil(E[shared | J = t])` (with a 1e-9 tolerance against rounding noise):
//! a pair exactly at the threshold is kept about half of the time.
//!
//! # Bands (LSH) and super shingles
//!
//! [`choose_bands`]: among the divisors `r` of `n` (so `b · r = n` and every row is used),
//! pick the one minimising `w_fp · ∫₀ᵗ P(s) ds + w_fn · ∫ₜ¹ (1 - P(s)) ds` with
//! `P(s) = 1 - (1 - p(s)^r)^b`, the probability that a pair of resemblance `s` shares a band,
//! `p(s)` the probability that one position agrees ([`ImageKind::agreement`]: `s` for k-mins,
//! `C + (1 - C) s` for b-bit images; [`choose_bands_for`]).
//! Ties go to the smaller `r`. A super shingle of `per` positions of a k-mins image links two
//! documents of resemblance `s` with probability `1 - (1 - s^per)^(n/per)`: LSH banding
//! without the filtering pass, so [`super_shingle_per`] chooses `per` as LSH chooses its rows.
//!
//! # Verification
//!
//! With exact verification at `t`, a method finds candidates at the lower
//! [`candidate_threshold`]: `t` minus [`VERIFY_SIGMAS`] standard errors of the estimate.
//!
//! Invariant: every translation of a threshold in the crate is a function of this module.

use super::LshConfig;
use crate::sketch::Scheme;
use crate::{Error, Result};

/// How the images were made, which decides the translation of a threshold. Sketch schemes
/// map as: `bottom-k` -> [`ImageKind::BottomK`]; `k-mins` and `one-permutation` (densified
/// bins agree with probability about J too) -> [`ImageKind::KMins`]; `mod-m` images have no
/// fixed size, so give `--min-common` for them.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum ImageKind {
    /// The n smallest values of one permutation (sorted), B97 `MIN_n`.
    BottomK,
    /// The minimum of each of n permutations (positional), H00 / IK09 "minimal elements in n
    /// permutations".
    #[default]
    KMins,
    /// Positional images keeping `bits` bits of each value (b-bit minwise hashing).
    BBit {
        /// Bits per value (1, 2, 4 or 8).
        bits: u8,
    },
}

impl ImageKind {
    /// The probability that one position of two images of documents of resemblance `s`
    /// agrees: `s` (k-mins; bottom-k images have no positions, `s` too), `C + (1 - C) s`
    /// for b-bit images.
    pub fn agreement(self, s: f64) -> f64 {
        match self {
            ImageKind::BBit { bits } => crate::sketch::bbit::agreement(s, bits),
            ImageKind::KMins | ImageKind::BottomK => s.clamp(0.0, 1.0),
        }
    }
}

impl std::str::FromStr for ImageKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "bottom-k" => Ok(ImageKind::BottomK),
            "k-mins" => Ok(ImageKind::KMins),
            _ => Err(Error::config(format!(
                "image kind must be bottom-k or k-mins, not {s:?}"
            ))),
        }
    }
}

/// Expected number of image elements two equal-size documents with resemblance `j` share
/// when their images are bottom-`n` sets (derivation in the module docs).
pub fn expected_shared_bottom_k(j: f64, n: usize) -> f64 {
    if n == 0 || j <= 0.0 {
        return 0.0;
    }
    let j = j.min(1.0);
    let n = n as f64;
    let q = 2.0 * j / (1.0 + j);
    let corr = ((1.0 - j) / ((1.0 + j) * std::f64::consts::PI * n)).sqrt();
    n * q * (1.0 - corr)
}

/// Expected number of agreeing positions of two k-mins images of `n` positions whose
/// documents have resemblance `j`.
pub fn expected_shared_k_mins(j: f64, n: usize) -> f64 {
    j.clamp(0.0, 1.0) * n as f64
}

/// The absolute `k` (shared image elements or agreeing positions, at least 1) that stands for
/// resemblance `t` with images of `n` elements of the given kind.
pub fn k_for_threshold(t: f64, n: usize, kind: ImageKind) -> u32 {
    let e = match kind {
        ImageKind::BottomK => expected_shared_bottom_k(t, n),
        ImageKind::KMins => expected_shared_k_mins(t, n),
        ImageKind::BBit { .. } => kind.agreement(t) * n as f64,
    };
    ((e - 1e-9).ceil().max(1.0) as u64).min(u64::from(u32::MAX)) as u32
}

/// Rule text for the summary, e.g. `k = ceil(t*n) = ceil(0.8*128) = 103`.
pub fn describe(t: f64, n: usize, kind: ImageKind) -> String {
    let k = k_for_threshold(t, n, kind);
    match kind {
        ImageKind::KMins => format!("k-mins: k = ceil(t*n) = ceil({t}*{n}) = {k}"),
        ImageKind::BottomK => format!(
            "bottom-k: k = ceil(n*2t/(1+t)*(1-sqrt((1-t)/((1+t)*pi*n)))) with t={t}, n={n}: {k}"
        ),
        ImageKind::BBit { bits } => format!(
            "{bits}-bit: k = ceil(n*(C+(1-C)*t)), C = 2^-{bits}, = ceil({n}*({}+{}*{t})) = {k}",
            crate::sketch::bbit::chance(bits),
            1.0 - crate::sketch::bbit::chance(bits)
        ),
    }
}

/// `P(s) = 1 - (1 - s^r)^b`: probability that a pair of resemblance `s` shares a band.
pub fn s_curve(s: f64, b: u32, r: u32) -> f64 {
    1.0 - (1.0 - s.powi(r as i32)).powi(b as i32)
}

/// Simpson's rule with `steps` (even) intervals.
fn simpson(f: impl Fn(f64) -> f64, lo: f64, hi: f64, steps: usize) -> f64 {
    if hi <= lo {
        return 0.0;
    }
    let h = (hi - lo) / steps as f64;
    let mut s = f(lo) + f(hi);
    for i in 1..steps {
        let w = if i % 2 == 1 { 4.0 } else { 2.0 };
        s += w * f(lo + i as f64 * h);
    }
    s * h / 3.0
}

/// The weighted error `w_fp · FP + w_fn · FN` of `(b, r)` at threshold `t`.
pub fn band_error(t: f64, b: u32, r: u32, fp_weight: f64, fn_weight: f64) -> f64 {
    band_error_for(t, b, r, fp_weight, fn_weight, ImageKind::KMins)
}

/// [`band_error`] on images of `kind`: a band agrees with probability
/// `kind.agreement(s)^r`.
pub fn band_error_for(
    t: f64,
    b: u32,
    r: u32,
    fp_weight: f64,
    fn_weight: f64,
    kind: ImageKind,
) -> f64 {
    let p = |s: f64| s_curve(kind.agreement(s), b, r);
    let fp = simpson(p, 0.0, t, 1000);
    let fnr = simpson(|s| 1.0 - p(s), t, 1.0, 1000);
    fp_weight * fp + fn_weight * fnr
}

/// Chooses `(b, r)` with `b · r = n` minimising [`band_error`] (ties: smaller `r`).
pub fn choose_bands(n: u32, t: f64, fp_weight: f64, fn_weight: f64) -> Result<(u32, u32)> {
    choose_bands_for(n, t, fp_weight, fn_weight, ImageKind::KMins)
}

/// [`choose_bands`] on images of `kind` ([`band_error_for`]).
pub fn choose_bands_for(
    n: u32,
    t: f64,
    fp_weight: f64,
    fn_weight: f64,
    kind: ImageKind,
) -> Result<(u32, u32)> {
    if n == 0 {
        return Err(Error::config("LSH needs images of at least one position"));
    }
    if !(0.0..=1.0).contains(&t) {
        return Err(Error::config(format!(
            "threshold must be in [0, 1], not {t}"
        )));
    }
    let mut best: Option<(f64, u32, u32)> = None;
    for r in (1..=n).filter(|r| n.is_multiple_of(*r)) {
        let b = n / r;
        let e = band_error_for(t, b, r, fp_weight, fn_weight, kind);
        if best.is_none_or(|(be, _, _)| e < be) {
            best = Some((e, b, r));
        }
    }
    let (_, b, r) = best.expect("n has at least one divisor");
    Ok((b, r))
}

/// `per` for super shingles of positional images of `n` elements at resemblance threshold
/// `t`: the rows per band that [`choose_bands`] picks with the LSH weights of `lsh` (`t`
/// clamped to `[0.01, 0.99]`).
pub fn super_shingle_per(n: u32, t: f64, lsh: &LshConfig) -> Result<u32> {
    Ok(choose_bands(n, t.clamp(0.01, 0.99), lsh.fp_weight, lsh.fn_weight)?.1)
}

/// How the images of a scheme translate a resemblance threshold (`None` for mod-m, whose
/// images have no fixed size: give an absolute min-common k; and for simhash
/// fingerprints, which the simhash methods translate themselves).
pub fn image_kind(scheme: Scheme) -> Option<ImageKind> {
    match scheme {
        Scheme::BottomK => Some(ImageKind::BottomK),
        Scheme::KMins | Scheme::OnePermutation | Scheme::Icws => Some(ImageKind::KMins),
        Scheme::ModM | Scheme::SimHash => None,
    }
}

/// [`image_kind`] of a sketch configuration: [`ImageKind::BBit`] for b-bit images.
pub fn image_kind_of(cfg: &crate::sketch::SketchConfig) -> Option<ImageKind> {
    match cfg.bits {
        Some(bits) => image_kind(cfg.scheme).map(|_| ImageKind::BBit { bits }),
        None => image_kind(cfg.scheme),
    }
}

/// Standard errors below the threshold that candidates are found at by default when exact
/// verification follows (see [`candidate_threshold`]).
pub const VERIFY_SIGMAS: f64 = 2.0;

/// The threshold a method finds candidates at when exact verification at `t` follows:
/// `t` lowered by `sigmas` standard errors of the resemblance estimate of an image of size
/// `n` at `t` (`sqrt(t (1 - t) / n)`), so that pairs just above `t` whose estimate falls
/// short are still verified. Rounded down to 4 decimals and clamped to `[0, t]`; `t` itself
/// when `n` is 0 (images of no fixed size).
pub fn candidate_threshold(t: f64, n: usize, sigmas: f64) -> f64 {
    if n == 0 || !(0.0..=1.0).contains(&t) {
        return t;
    }
    let se = (t * (1.0 - t) / n as f64).sqrt();
    // Rounded down to 4 decimals, so that it prints as the number a user would type.
    ((t - sigmas * se) * 1e4).floor().clamp(0.0, t * 1e4) / 1e4
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Two random sets of size `m` sharing `c` elements; returns the overlap of their
    /// bottom-n images and the overlap of their k-mins images (n permutations simulated by
    /// n independent random hash functions: fresh uniform values per element and position).
    fn overlaps(rng: &mut rand_chacha::ChaCha8Rng, m: usize, c: usize, n: usize) -> (usize, usize) {
        // Element ids: shared 0..c, A-only c..m, B-only m..2m-c. Hash = random u64 per element.
        let u = 2 * m - c;
        let h: Vec<u64> = (0..u).map(|_| rng.gen()).collect();
        let a: Vec<usize> = (0..m).collect();
        let b: Vec<usize> = (0..c).chain(m..u).collect();
        let bottom = |s: &[usize]| {
            let mut v: Vec<u64> = s.iter().map(|&e| h[e]).collect();
            v.sort_unstable();
            v.truncate(n);
            v
        };
        let (ia, ib) = (bottom(&a), bottom(&b));
        let shared = ia.iter().filter(|x| ib.binary_search(x).is_ok()).count();
        // k-mins: per position a fresh random permutation (random values).
        let mut agree = 0;
        for _ in 0..n {
            let hp: Vec<u64> = (0..u).map(|_| rng.gen()).collect();
            let ma = a.iter().map(|&e| (hp[e], e)).min().unwrap().1;
            let mb = b.iter().map(|&e| (hp[e], e)).min().unwrap().1;
            agree += usize::from(ma == mb);
        }
        (shared, agree)
    }

    #[test]
    fn bottom_k_translation_matches_simulation() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(42);
        let (m, n, trials) = (600usize, 64usize, 150usize);
        for j in [0.5f64, 0.8, 0.9] {
            let c = (2.0 * m as f64 * j / (1.0 + j)).round() as usize;
            let true_j = c as f64 / (2 * m - c) as f64;
            let (mut s_sum, mut a_sum) = (0usize, 0usize);
            for _ in 0..trials {
                let (s, a) = overlaps(&mut rng, m, c, n);
                s_sum += s;
                a_sum += a;
            }
            let s_avg = s_sum as f64 / trials as f64;
            let a_avg = a_sum as f64 / trials as f64;
            let pred = expected_shared_bottom_k(true_j, n);
            // The standard error of the mean is well below 0.5 elements here.
            assert!(
                (s_avg - pred).abs() < 0.8,
                "J={true_j}: simulated {s_avg}, predicted {pred}"
            );
            // And it is NOT J*n: bottom-k images share clearly more than J*n elements.
            assert!(
                s_avg > true_j * n as f64 + 2.0,
                "J={true_j}: {s_avg} vs J*n"
            );
            // k-mins positions agree J*n times on average.
            let pk = expected_shared_k_mins(true_j, n);
            assert!(
                (a_avg - pk).abs() < 1.0,
                "J={true_j}: k-mins {a_avg} vs {pk}"
            );
        }
    }

    #[test]
    fn k_values() {
        assert_eq!(k_for_threshold(0.8, 128, ImageKind::KMins), 103); // 102.4 -> 103
        assert_eq!(k_for_threshold(0.5, 10, ImageKind::KMins), 5); // exactly 5, no rounding up
        assert_eq!(k_for_threshold(0.0, 10, ImageKind::KMins), 1);
        assert_eq!(k_for_threshold(1.0, 10, ImageKind::BottomK), 10);
        // 128*2*0.8/1.8 = 113.78; correction 1.66% -> 111.9 -> 112
        assert_eq!(k_for_threshold(0.8, 128, ImageKind::BottomK), 112);
    }

    #[test]
    fn bands_for_128_at_0_8() {
        let (b, r) = choose_bands(128, 0.8, 0.5, 0.5).unwrap();
        assert_eq!(b * r, 128);
        let thr = (1.0 / f64::from(b)).powf(1.0 / f64::from(r));
        assert!((thr - 0.8).abs() < 0.1, "b={b} r={r} threshold {thr}");
        // Independent check of optimality: a plain midpoint Riemann sum with 200k steps.
        let err = |b: u32, r: u32| {
            let steps = 200_000;
            let (mut fp, mut fnr) = (0.0, 0.0);
            for i in 0..steps {
                let s = (i as f64 + 0.5) / steps as f64;
                let p = 1.0 - (1.0 - s.powf(r as f64)).powf(b as f64);
                if s < 0.8 {
                    fp += p
                } else {
                    fnr += 1.0 - p
                }
            }
            0.5 * (fp + fnr) / steps as f64
        };
        let e = err(b, r);
        for r2 in [1u32, 2, 4, 8, 16, 32, 64, 128] {
            assert!(e <= err(128 / r2, r2) + 1e-6, "r={r} worse than r={r2}");
        }
        // Weights move the choice: penalising false negatives heavily means fewer rows.
        let (_, r_fn) = choose_bands(128, 0.8, 0.01, 0.99).unwrap();
        let (_, r_fp) = choose_bands(128, 0.8, 0.99, 0.01).unwrap();
        assert!(r_fn < r && r < r_fp, "{r_fn} < {r} < {r_fp}");
        assert!(choose_bands(0, 0.8, 0.5, 0.5).is_err());
    }
}
