//! Overlap estimation (L20): on generated collections with a known overlap (B = a known
//! fraction of A's documents lightly edited + new documents), the stated intervals cover
//! the true values in at least 95 of 100 seeded trials, and a whole-collection sample is
//! exact.

use fimdup::index::overlap::{estimate_overlap, OverlapConfig};
use fimdup::shingle::ShingleConfig;
use fimdup::sketch::{Image, Scheme, SketchConfig, Sketcher};
use fimdup::text::{Canonicalizer, TextConfig};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

struct Trial {
    a: Vec<Image>,
    b: Vec<Image>,
    shared: usize,
}

fn generate(seed: u64, sk: &Sketcher, canon: &Canonicalizer) -> Trial {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let doc = |rng: &mut ChaCha8Rng| -> Vec<String> {
        (0..50)
            .map(|_| format!("w{}", rng.gen_range(0..5000)))
            .collect()
    };
    let na = rng.gen_range(150..400);
    let a_docs: Vec<Vec<String>> = (0..na).map(|_| doc(&mut rng)).collect();
    let frac = rng.gen_range(0.1..0.9);
    let shared = (frac * na as f64) as usize;
    let mut b_docs: Vec<Vec<String>> = Vec::new();
    for d in &a_docs[..shared] {
        let mut e = d.clone();
        // light edit: one or two words replaced (resemblance about 0.8-0.9 with w = 4)
        for _ in 0..rng.gen_range(1..3) {
            let i = rng.gen_range(0..e.len());
            e[i] = format!("edit{}", rng.gen::<u32>());
        }
        b_docs.push(e);
    }
    let nb_new = rng.gen_range(50..400);
    for _ in 0..nb_new {
        b_docs.push(doc(&mut rng));
    }
    let img = |d: &Vec<String>| sk.sketch(&canon.canonicalize(&d.join(" ")));
    Trial {
        a: a_docs.iter().map(img).collect(),
        b: b_docs.iter().map(img).collect(),
        shared,
    }
}

#[test]
fn intervals_cover_the_truth_in_at_least_95_of_100_trials() {
    let shingle = ShingleConfig::new(4, 1, 3).unwrap();
    let cfg = SketchConfig {
        scheme: Scheme::BottomK,
        size: 64,
        ..SketchConfig::default()
    };
    let sk = Sketcher::new(shingle, cfg).unwrap();
    let canon = Canonicalizer::new(TextConfig::default()).unwrap();
    let (mut cov_a, mut cov_b, mut cov_r) = (0, 0, 0);
    let mut widths = 0.0;
    for seed in 0..100u64 {
        let t = generate(seed, &sk, &canon);
        let oc = OverlapConfig {
            sample: 60,
            threshold: 0.5,
            seed: 1000 + seed,
            confidence: 0.95,
        };
        // the truth: every document checked (exact, zero-width)
        let all = OverlapConfig {
            sample: usize::MAX,
            ..oc
        };
        let truth = estimate_overlap(&t.a, &t.b, &cfg, &all).unwrap();
        assert!(truth.a_in_b.exact && truth.b_in_a.exact);
        assert_eq!(truth.a_in_b.low, truth.a_in_b.high);
        // the generator's overlap is what the full check finds (one-to-one near-duplicates)
        assert_eq!(truth.a_in_b.hits as usize, t.shared, "seed {seed}");
        assert_eq!(truth.b_in_a.hits as usize, t.shared, "seed {seed}");
        let true_ratio = t.a.len() as f64 / t.b.len() as f64;
        let r = truth.size_ratio.unwrap();
        assert!((r.estimate - true_ratio).abs() < 1e-12);

        let est = estimate_overlap(&t.a, &t.b, &cfg, &oc).unwrap();
        assert_eq!(est.a_in_b.sampled, 60);
        let pa = truth.a_in_b.estimate;
        let pb = truth.b_in_a.estimate;
        cov_a += (est.a_in_b.low <= pa && pa <= est.a_in_b.high) as u32;
        cov_b += (est.b_in_a.low <= pb && pb <= est.b_in_a.high) as u32;
        if let Some(r) = est.size_ratio {
            cov_r += (r.low <= true_ratio && true_ratio <= r.high) as u32;
        }
        widths += est.a_in_b.high - est.a_in_b.low;
        // deterministic for a seed
        assert_eq!(est, estimate_overlap(&t.a, &t.b, &cfg, &oc).unwrap());
    }
    eprintln!(
        "coverage: A in B {cov_a}/100, B in A {cov_b}/100, ratio {cov_r}/100, mean width {:.3}",
        widths / 100.0
    );
    assert!(cov_a >= 95, "A in B covered in {cov_a}/100");
    assert!(cov_b >= 95, "B in A covered in {cov_b}/100");
    assert!(cov_r >= 95, "|A|/|B| covered in {cov_r}/100");
    // and the intervals are informative, not [0, 1]
    assert!(widths / 100.0 < 0.3, "mean width {}", widths / 100.0);
}
