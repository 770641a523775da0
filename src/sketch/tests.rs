//! Image keys, super shingles, fingerprints and configuration checks.

use super::*;
use crate::shingle::ShingleConfig;
use crate::sorted::intersection_size;

#[test]
fn positional_keys_distinguish_positions() {
    let a = Image::from_values(vec![5, 6]);
    let b = Image::from_values(vec![6, 5]);
    let (mut ka, mut kb) = (Vec::new(), Vec::new());
    a.keys(Scheme::KMins, &mut ka);
    b.keys(Scheme::KMins, &mut kb);
    assert_eq!(intersection_size(&ka, &kb), 0);
    assert_eq!(shared_elements(&a, &b, Scheme::KMins), 0);
    a.keys(Scheme::BottomK, &mut kb);
    assert_eq!(kb.len(), 4);
}

#[test]
fn super_shingles_and_fingerprints() {
    let cfg = SketchConfig {
        scheme: Scheme::KMins,
        size: 8,
        ..Default::default()
    };
    let a = Image::from_values((0..8).collect());
    let mut bv: Vec<u64> = (0..8).collect();
    bv[5] = 99;
    let b = Image::from_values(bv);
    let (sa, sb) = (
        super_shingles(&a, &cfg, 4, 2),
        super_shingles(&b, &cfg, 4, 2),
    );
    assert_eq!(sa.len(), 4);
    assert_eq!(intersection_size(&sa, &sb), 3);
    assert!(super_shingles(&Image::empty(), &cfg, 4, 2).is_empty());
    // Sorted: windows of 3 starting at 0..count.
    let cfg = SketchConfig::default();
    let x = Image::from_values(vec![1, 2, 3, 4, 5]);
    let y = Image::from_values(vec![1, 2, 3, 9, 10]);
    let (sx, sy) = (
        super_shingles(&x, &cfg, 10, 3),
        super_shingles(&y, &cfg, 10, 3),
    );
    assert_eq!(sx.len(), 3);
    assert_eq!(intersection_size(&sx, &sy), 1);
    assert_eq!(image_fingerprint(&Image::empty()), None);
    assert_eq!(image_fingerprint(&x), image_fingerprint(&x.clone()));
    assert_ne!(image_fingerprint(&x), image_fingerprint(&y));
}

#[test]
fn config_validation() {
    let mut c = SketchConfig::default();
    assert!(c.validate().is_ok());
    c.size = 0;
    assert!(c.validate().is_err());
    c.scheme = Scheme::ModM;
    assert!(c.validate().is_ok());
    c.modulus = 0;
    assert!(c.validate().is_err());
    let c = SketchConfig {
        weighting: Some(Weighting::TfIdf { total: 100 }),
        ..Default::default()
    };
    assert!(Sketcher::new(ShingleConfig::default(), c).is_err());
    assert!(Sketcher::with_doc_freq(ShingleConfig::default(), c, DocFreq::new()).is_ok());
    assert_eq!("k-mins".parse::<Scheme>().unwrap(), Scheme::KMins);
    assert!("kmins".parse::<Scheme>().is_err());
}

/// Two shingle multisets of random hashes: `common` shingles in both, `own` in each alone.
fn random_sets(s: &mut u64, common: usize, own: usize) -> (Vec<u64>, Vec<u64>) {
    let shared: Vec<u64> = (0..common).map(|_| hash::splitmix64(s)).collect();
    let mut a = shared.clone();
    let mut b = shared;
    a.extend((0..own).map(|_| hash::splitmix64(s)));
    b.extend((0..own).map(|_| hash::splitmix64(s)));
    (a, b)
}

/// b-bit k-mins images of pairs of known resemblance: positions agree with probability
/// `C + (1 - C) J` (binomial, 3 standard errors over many positions), the corrected estimate
/// is within 3 of its standard errors of J, and the images-file record is packed to
/// `ceil(n b / 8)` bytes and read back equal.
#[test]
fn b_bit_images_agree_as_the_theory_says() {
    let mut s = 77u64;
    let n = 4096;
    for bits in bbit::BITS {
        for (common, own) in [(300usize, 30usize), (200, 200), (50, 300)] {
            let cfg = SketchConfig {
                scheme: Scheme::KMins,
                size: n,
                seed: 5,
                bits: Some(bits),
                ..Default::default()
            };
            let sk = Sketcher::new(ShingleConfig::default(), cfg).unwrap();
            let (mut a, mut b) = random_sets(&mut s, common, own);
            let j = common as f64 / (common + 2 * own) as f64;
            let (ia, ib) = (sk.sketch_hashes(&mut a), sk.sketch_hashes(&mut b));
            assert!(ia.values().iter().all(|&v| v < 1 << bits));
            let p = bbit::agreement(j, bits);
            let agree = shared_elements(&ia, &ib, Scheme::KMins) as f64 / n as f64;
            let se = (p * (1.0 - p) / n as f64).sqrt();
            assert!(
                (agree - p).abs() < 3.0 * se,
                "b={bits} J={j}: {agree} vs {p}"
            );
            let est = estimate_resemblance(&ia, &ib, &cfg);
            let c = bbit::chance(bits);
            assert!(
                (est - j).abs() < 3.0 * se / (1.0 - c),
                "b={bits} J={j}: est {est}"
            );
        }
        // The file: packed records, read back equal.
        let cfg = SketchConfig {
            scheme: Scheme::KMins,
            size: 128,
            bits: Some(bits),
            ..Default::default()
        };
        let sk = Sketcher::new(ShingleConfig::default(), cfg).unwrap();
        let (mut a, mut b) = random_sets(&mut s, 40, 10);
        let set = ImageSet {
            params: sk.params(TextParams::default()),
            ext_ids: vec!["a".into(), "b".into(), "e".into()],
            images: vec![
                sk.sketch_hashes(&mut a),
                sk.sketch_hashes(&mut b),
                Image::empty(),
            ],
        };
        let bytes = set.to_bytes().unwrap();
        let full = ImageSet {
            params: Sketcher::new(ShingleConfig::default(), SketchConfig { bits: None, ..cfg })
                .unwrap()
                .params(TextParams::default()),
            images: vec![Image::from_values(vec![0; 128]); 2]
                .into_iter()
                .chain([Image::empty()])
                .collect(),
            ..set.clone()
        }
        .to_bytes()
        .unwrap();
        // Same header and ids; each of the two images 128 one-byte varints (0) in full,
        // 128 b / 8 bytes packed.
        assert_eq!(
            full.len() - bytes.len(),
            2 * (128 - 128 * bits as usize / 8)
        );
        let back = ImageSet::from_bytes(&bytes, std::path::Path::new("t.img")).unwrap();
        assert_eq!(back, set);
    }
}

/// ICWS images from the sketcher over bag counts: the agreeing fraction is within 3
/// standard errors of the weighted Jaccard `sum min / sum max` of the counts, by brute force.
#[test]
fn icws_images_estimate_the_weighted_jaccard_of_counts() {
    let mut s = 3u64;
    let n = 3000;
    let cfg = SketchConfig {
        scheme: Scheme::Icws,
        size: n,
        weighting: Some(Weighting::Bag),
        ..Default::default()
    };
    let sk = Sketcher::new(ShingleConfig::default(), cfg).unwrap();
    for (common, own) in [(30usize, 10usize), (20, 40)] {
        let (base_a, base_b) = random_sets(&mut s, common, own);
        // Repeat each shingle 1..=4 times, independently in the two documents.
        let bag = |v: &[u64], s: &mut u64| -> Vec<u64> {
            v.iter()
                .flat_map(|&h| std::iter::repeat_n(h, 1 + (hash::splitmix64(s) % 4) as usize))
                .collect()
        };
        let (mut a, mut b) = (bag(&base_a, &mut s), bag(&base_b, &mut s));
        let count = |v: &[u64], h: u64| v.iter().filter(|&&x| x == h).count() as f64;
        let mut all: Vec<u64> = a.iter().chain(&b).copied().collect();
        all.sort_unstable();
        all.dedup();
        let (lo, hi) = all.iter().fold((0.0, 0.0), |(lo, hi), &h| {
            let (x, y) = (count(&a, h), count(&b, h));
            (lo + x.min(y), hi + x.max(y))
        });
        let j = lo / hi;
        let (ia, ib) = (sk.sketch_hashes(&mut a), sk.sketch_hashes(&mut b));
        assert_eq!(ia.len(), n);
        let p = shared_elements(&ia, &ib, Scheme::Icws) as f64 / n as f64;
        let se = (j * (1.0 - j) / n as f64).sqrt();
        assert!((p - j).abs() < 3.0 * se, "{p} vs weighted Jaccard {j}");
        assert_eq!(estimate_resemblance(&ia, &ib, &cfg), p);
    }
    // Without a weighting ICWS is refused at configuration.
    let e = SketchConfig {
        weighting: None,
        ..cfg
    }
    .validate()
    .unwrap_err()
    .to_string();
    assert!(e.contains("--weighting"), "{e}");
}

/// tf-idf weights scaled to a small total are not integers: the flattened bag samples the
/// rounded weights and ICWS the weights themselves. On generated pairs (brute force over
/// the weight lists), k-mins over the flattened bag agrees within 3 standard errors of the
/// weighted Jaccard of the rounded weights, ICWS within 3 of that of the real weights.
#[test]
fn icws_samples_the_weights_the_flattened_bag_rounds() {
    let mut s = 21u64;
    let n = 3000;
    let w = Weighting::TfIdf { total: 40 };
    let icws_cfg = SketchConfig {
        scheme: Scheme::Icws,
        size: n,
        weighting: Some(w),
        ..Default::default()
    };
    let bag_cfg = SketchConfig {
        scheme: Scheme::KMins,
        ..icws_cfg
    };
    // A table of 10 documents none of the shingles is in: idf = ln 10 for all, so the
    // weights are the counts scaled to the total.
    let mut df = DocFreq::new();
    for _ in 0..10 {
        df.add_set(&[]);
    }
    let (icws, bag) = (
        Sketcher::with_doc_freq(ShingleConfig::default(), icws_cfg, df.clone()).unwrap(),
        Sketcher::with_doc_freq(ShingleConfig::default(), bag_cfg, df.clone()).unwrap(),
    );
    let jaccard = |x: &[(u64, f64)], y: &[(u64, f64)], round: bool| {
        let get = |v: &[(u64, f64)], h: u64| {
            let w = v.iter().find(|p| p.0 == h).map_or(0.0, |p| p.1);
            if round {
                w.round()
            } else {
                w
            }
        };
        let mut all: Vec<u64> = x.iter().chain(y).map(|p| p.0).collect();
        all.sort_unstable();
        all.dedup();
        let (lo, hi) = all.iter().fold((0.0, 0.0), |(lo, hi), &h| {
            let (a, b) = (get(x, h), get(y, h));
            (lo + f64::min(a, b), hi + f64::max(a, b))
        });
        lo / hi
    };
    for (common, own) in [(40usize, 8usize), (25, 25)] {
        let (base_a, base_b) = random_sets(&mut s, common, own);
        let bag_of = |v: &[u64], s: &mut u64| -> Vec<u64> {
            v.iter()
                .flat_map(|&h| std::iter::repeat_n(h, 1 + (hash::splitmix64(s) % 3) as usize))
                .collect()
        };
        let (mut a, mut b) = (bag_of(&base_a, &mut s), bag_of(&base_b, &mut s));
        let (mut wa, mut wb) = (Vec::new(), Vec::new());
        weight::weights(&mut a.clone(), w, Some(&df), &mut wa);
        weight::weights(&mut b.clone(), w, Some(&df), &mut wb);
        let (j_real, j_round) = (jaccard(&wa, &wb, false), jaccard(&wa, &wb, true));
        let agree = |sk: &Sketcher, a: &mut Vec<u64>, b: &mut Vec<u64>| {
            let (ia, ib) = (sk.sketch_hashes(a), sk.sketch_hashes(b));
            shared_elements(&ia, &ib, Scheme::KMins) as f64 / n as f64
        };
        let (p_icws, p_bag) = (agree(&icws, &mut a, &mut b), agree(&bag, &mut a, &mut b));
        let se = |j: f64| (j * (1.0 - j) / n as f64).sqrt();
        eprintln!(
            "common {common} own {own}: weighted Jaccard {j_real:.4} (rounded weights \
             {j_round:.4}); icws {p_icws:.4}, flattened bag {p_bag:.4}"
        );
        assert!(
            (p_icws - j_real).abs() < 3.0 * se(j_real),
            "icws {p_icws} vs {j_real}"
        );
        assert!(
            (p_bag - j_round).abs() < 3.0 * se(j_round),
            "bag {p_bag} vs {j_round}"
        );
    }
}
