//! Statistical acceptance of every estimator: over many random set pairs with a known exact
//! Jaccard `J` (or containment `C`), the error of the estimate must match the sampling
//! theory of the scheme, for several image sizes.
//!
//! Bounds (σ is the theoretical standard deviation of one estimate, T the number of pairs):
//! * k-mins: `n * est ~ Binomial(n, J)` (n independent permutations), so the estimator is
//!   unbiased with `σ = sqrt(J(1-J)/n)`.
//! * bottom-k: `MIN_n(F(A) u F(B))` is a uniform sample of `k = min(n, |A u B|)` elements of
//!   the union without replacement, so `k * est` is hypergeometric: unbiased,
//!   `σ = sqrt(J(1-J)/k * (U-k)/(U-1))` with `U = |A u B|`.
//! * one-permutation + optimal densification: unbiased (Shrivastava 2017); its variance lies
//!   between the without-replacement (bottom-k) value and the k-mins value (it is never worse
//!   than independent permutations by more than the densification correlation, small here).
//! * mod-m: conditional on the sample `V`, the ratios are hypergeometric, hence unbiased;
//!   with expected sample size `s = |A|/m` (containment) or `|A u B|/m` (resemblance),
//!   `σ ≈ sqrt(X(1-X)/s * (1 - 1/m))`.
//!
//! Checks per configuration: `|mean error| <= 4 σ / sqrt(T) + 0.002` (no bias beyond 4
//! standard errors) and `lo * σ_lower <= RMSE <= 1.25 σ_upper` (the spread is what the
//! theory says: the sample RMSE of T = 200 values has a relative standard error of about
//! 5 %, so 1.25 is 5 standard errors; the lower bound catches a broken estimator that is
//! "too good to be true", e.g. one that reads the exact answer).

use fimdup::shingle::ShingleConfig;
use fimdup::sketch::{
    estimate_containment, estimate_resemblance, Scheme, SketchConfig, Sketcher, Weighting,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const T: usize = 200;

/// Two random sets of distinct random u64 with `|A u B| = u` and `|A n B| = i`; the rest of
/// the union split evenly.
fn pair(rng: &mut ChaCha8Rng, u: usize, i: usize) -> (Vec<u64>, Vec<u64>) {
    let mut all: Vec<u64> = Vec::with_capacity(u);
    let mut seen = std::collections::HashSet::new();
    while all.len() < u {
        let x: u64 = rng.gen();
        if seen.insert(x) {
            all.push(x);
        }
    }
    let rest = u - i;
    let a_only = rest / 2;
    let mut a = all[..i + a_only].to_vec();
    let mut b = all[..i].to_vec();
    b.extend_from_slice(&all[i + a_only..]);
    a.sort_unstable();
    b.sort_unstable();
    (a, b)
}

struct Stats {
    mean: f64,
    rmse: f64,
}

fn stats(errors: &[f64]) -> Stats {
    let n = errors.len() as f64;
    Stats {
        mean: errors.iter().sum::<f64>() / n,
        rmse: (errors.iter().map(|e| e * e).sum::<f64>() / n).sqrt(),
    }
}

fn check(label: &str, errors: &[f64], sigma_lo: f64, sigma_hi: f64, lo: f64) {
    let s = stats(errors);
    let se = sigma_hi / (errors.len() as f64).sqrt();
    eprintln!(
        "{label}: mean error {:+.4}, rmse {:.4}, theory sigma {:.4}..{:.4}",
        s.mean, s.rmse, sigma_lo, sigma_hi
    );
    assert!(
        s.mean.abs() <= 4.0 * se + 0.002,
        "{label}: bias {:.4} exceeds 4 standard errors ({:.4})",
        s.mean,
        4.0 * se
    );
    assert!(
        s.rmse <= 1.25 * sigma_hi,
        "{label}: rmse {:.4} > 1.25 * sigma {:.4}",
        s.rmse,
        sigma_hi
    );
    assert!(
        s.rmse >= lo * sigma_lo,
        "{label}: rmse {:.4} < {lo} * sigma {:.4} (too good: estimator suspicious)",
        s.rmse,
        sigma_lo
    );
}

fn sketcher(scheme: Scheme, size: usize, modulus: u64, seed: u64) -> Sketcher {
    let cfg = SketchConfig {
        scheme,
        size,
        modulus,
        seed,
        weighting: None,
        bits: None,
    };
    Sketcher::new(ShingleConfig::default(), cfg).unwrap()
}

fn resemblance_errors(scheme: Scheme, n: usize, u: usize, i: usize, seed: u64) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let j = i as f64 / u as f64;
    (0..T)
        .map(|t| {
            let (mut a, mut b) = pair(&mut rng, u, i);
            let sk = sketcher(scheme, n, 1, seed * 1000 + t as u64);
            let (ia, ib) = (sk.sketch_hashes(&mut a), sk.sketch_hashes(&mut b));
            estimate_resemblance(&ia, &ib, sk.config()) - j
        })
        .collect()
}

const U: usize = 1000;
const JS: [usize; 3] = [100, 500, 800];

#[test]
fn k_mins_is_binomial() {
    for n in [32, 128, 512] {
        for i in JS {
            let j = i as f64 / U as f64;
            let sigma = (j * (1.0 - j) / n as f64).sqrt();
            let e = resemblance_errors(Scheme::KMins, n, U, i, 11 + n as u64);
            check(&format!("k-mins n={n} J={j}"), &e, sigma, sigma, 0.75);
        }
    }
}

#[test]
fn bottom_k_is_hypergeometric() {
    for n in [32, 128, 512] {
        for i in JS {
            let j = i as f64 / U as f64;
            let k = n.min(U) as f64;
            let sigma = (j * (1.0 - j) / k * (U as f64 - k) / (U as f64 - 1.0)).sqrt();
            let e = resemblance_errors(Scheme::BottomK, n, U, i, 23 + n as u64);
            check(&format!("bottom-k n={n} J={j}"), &e, sigma, sigma, 0.75);
        }
    }
}

#[test]
fn bottom_k_is_exact_when_n_covers_the_union() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for (u, i) in [(50, 10), (200, 150), (7, 7)] {
        let (mut a, mut b) = pair(&mut rng, u, i);
        let sk = sketcher(Scheme::BottomK, 256, 1, 3);
        let est = estimate_resemblance(
            &sk.sketch_hashes(&mut a),
            &sk.sketch_hashes(&mut b),
            sk.config(),
        );
        assert_eq!(est, i as f64 / u as f64);
    }
}

#[test]
fn one_permutation_is_close_to_k_mins() {
    for n in [32, 128, 512] {
        for i in JS {
            let j = i as f64 / U as f64;
            let kmins = (j * (1.0 - j) / n as f64).sqrt();
            let k = n.min(U) as f64;
            let hyper = (j * (1.0 - j) / k * (U as f64 - k) / (U as f64 - 1.0)).sqrt();
            let e = resemblance_errors(Scheme::OnePermutation, n, U, i, 37 + n as u64);
            check(
                &format!("one-permutation n={n} J={j}"),
                &e,
                hyper,
                kmins,
                0.75,
            );
        }
    }
}

#[test]
fn one_permutation_sparse_sets_need_densification() {
    // Far fewer elements than bins: most bins are densified; still unbiased.
    let (n, u, i) = (256, 40, 20);
    let j = 0.5;
    let e = resemblance_errors(Scheme::OnePermutation, n, u, i, 99);
    // With u << n the estimate is dominated by the u elements: sigma is at most the
    // k-mins value with n = u samples and at least the exact-sampling value 0.
    let sigma = (j * (1.0 - j) / u as f64).sqrt();
    check("one-permutation sparse", &e, sigma, sigma, 0.0);
}

#[test]
fn mod_m_containment_and_resemblance() {
    // A: 2000 elements; B: `common` of them plus 1000 others. Union 3000.
    let (a_len, extra) = (2000usize, 1000usize);
    for m in [4u64, 16, 64] {
        for c in [0.2, 0.6, 0.9] {
            let common = (c * a_len as f64) as usize;
            let mut rng = ChaCha8Rng::seed_from_u64(m * 100 + (c * 10.0) as u64);
            let (mut ce, mut re) = (Vec::new(), Vec::new());
            for t in 0..T {
                let (mut a, mut b) = pair(&mut rng, a_len + extra, common);
                // `pair` splits the rest evenly; re-split it with the sizes wanted here.
                let all: Vec<u64> = {
                    let mut v = a.clone();
                    v.extend(&b);
                    v.sort_unstable();
                    v.dedup();
                    v
                };
                let inter: Vec<u64> = a
                    .iter()
                    .copied()
                    .filter(|x| b.binary_search(x).is_ok())
                    .collect();
                let others: Vec<u64> = all
                    .iter()
                    .copied()
                    .filter(|x| inter.binary_search(x).is_err())
                    .collect();
                a = inter.clone();
                a.extend_from_slice(&others[..a_len - common]);
                b = inter;
                b.extend_from_slice(&others[a_len - common..]);
                a.sort_unstable();
                b.sort_unstable();
                assert_eq!((a.len(), b.len()), (a_len, common + extra));
                // The exact values by construction: A and B share the `common` elements of
                // `inter` and nothing else.
                assert_eq!(
                    b.iter().filter(|x| a.binary_search(x).is_ok()).count(),
                    common
                );
                let exact_c = common as f64 / a_len as f64;
                let exact_r = common as f64 / (a_len + extra) as f64;
                let sk = sketcher(Scheme::ModM, 0, m, 7000 + t as u64);
                let (ia, ib) = (sk.sketch_hashes(&mut a), sk.sketch_hashes(&mut b));
                ce.push(estimate_containment(&ia, &ib, sk.config()).unwrap() - exact_c);
                re.push(estimate_resemblance(&ia, &ib, sk.config()) - exact_r);
            }
            let fpc = 1.0 - 1.0 / m as f64;
            let s = a_len as f64 / m as f64;
            let sigma_c = (c * (1.0 - c) / s * fpc).sqrt();
            check(
                &format!("mod-m containment m={m} C={c}"),
                &ce,
                sigma_c,
                sigma_c,
                0.75,
            );
            let union = (a_len + extra) as f64;
            let jr = common as f64 / union;
            let sigma_r = (jr * (1.0 - jr) / (union / m as f64) * fpc).sqrt();
            check(
                &format!("mod-m resemblance m={m} J={jr:.3}"),
                &re,
                sigma_r,
                sigma_r,
                0.75,
            );
        }
    }
}

#[test]
fn containment_needs_mod_m() {
    let sk = sketcher(Scheme::KMins, 16, 1, 1);
    let img = sk.sketch_hashes(&mut [1, 2, 3]);
    assert!(estimate_containment(&img, &img, sk.config()).is_err());
}

#[test]
fn bag_images_estimate_the_multiset_jaccard() {
    // Multisets over 300 distinct items; counts 1..=4. Weighted Jaccard
    // = sum min / sum max, computed directly.
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    let n = 128;
    let mut errors = Vec::new();
    let mut jsum = 0.0;
    for t in 0..T {
        let items: Vec<u64> = (0..300).map(|_| rng.gen()).collect();
        let mut a = Vec::new();
        let mut b = Vec::new();
        let (mut smin, mut smax) = (0u32, 0u32);
        for &x in &items {
            let ca: u32 = rng.gen_range(0..=4);
            let cb: u32 = if rng.gen_bool(0.6) {
                ca
            } else {
                rng.gen_range(0..=4)
            };
            smin += ca.min(cb);
            smax += ca.max(cb);
            a.extend(std::iter::repeat_n(x, ca as usize));
            b.extend(std::iter::repeat_n(x, cb as usize));
        }
        let jw = smin as f64 / smax as f64;
        jsum += jw;
        let cfg = SketchConfig {
            scheme: Scheme::KMins,
            size: n,
            modulus: 1,
            seed: 500 + t as u64,
            weighting: Some(Weighting::Bag),
            bits: None,
        };
        let sk = Sketcher::new(ShingleConfig::default(), cfg).unwrap();
        let (ia, ib) = (sk.sketch_hashes(&mut a), sk.sketch_hashes(&mut b));
        errors.push(estimate_resemblance(&ia, &ib, &cfg) - jw);
    }
    let j = jsum / T as f64;
    let sigma = (j * (1.0 - j) / n as f64).sqrt();
    check("bag k-mins n=128", &errors, sigma, sigma, 0.75);
}
