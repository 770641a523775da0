//! The schemes against their definitions, through the sketcher's permutations.

use super::*;
use crate::sketch::shared_elements;
use crate::sorted::intersection_size;

fn sk(scheme: Scheme, n: usize) -> Sketcher {
    let cfg = SketchConfig {
        scheme,
        size: n,
        modulus: 4,
        seed: 9,
        // ICWS samples weights: the bag of the shingles.
        weighting: (scheme == Scheme::Icws).then_some(crate::sketch::Weighting::Bag),
        bits: None,
    };
    Sketcher::new(ShingleConfig::default(), cfg).unwrap()
}

#[test]
fn bottom_k_is_n_smallest_permuted() {
    let s = sk(Scheme::BottomK, 16);
    for len in [3usize, 16, 40, 65, 300, 1000, 5000] {
        let mut xs: Vec<u64> = (0..len as u64).map(|i| i * 7919 % 1000).collect();
        let mut want: Vec<u64> = xs.iter().map(|&x| s.pi.apply(x)).collect();
        want.sort_unstable();
        want.dedup();
        want.truncate(16);
        assert_eq!(s.sketch_hashes(&mut xs).values(), &want[..], "len {len}");
    }
}

/// The threshold pass and its fallback (many repeated values, few distinct ones) give
/// the n smallest distinct permuted values, for sizes around the threshold's margins.
#[test]
fn bottom_k_threshold_and_fallback() {
    for n in [1usize, 7, 128, 200] {
        let s = sk(Scheme::BottomK, n);
        for len in [n, n + 1, 2 * n, 3 * n + 50, 10 * n + 100] {
            for distinct in [1u64, n as u64 / 2 + 1, n as u64, len as u64] {
                let mut xs: Vec<u64> = (0..len as u64).map(|i| fmix64(i % distinct)).collect();
                let mut want: Vec<u64> = xs.iter().map(|&x| s.pi.apply(x)).collect();
                want.sort_unstable();
                want.dedup();
                want.truncate(n);
                let got = s.sketch_hashes(&mut xs);
                assert_eq!(
                    got.values(),
                    &want[..],
                    "n {n} len {len} distinct {distinct}"
                );
            }
        }
    }
}

proptest::proptest! {
    /// The bucket sort of the threshold pass sorts any values below any threshold, skewed
    /// and repeated ones included.
    #[test]
    fn sort_below_sorts(
        mut v in proptest::collection::vec(proptest::num::u64::ANY, 0..400),
        tau in 1u64..,
        skew in 0u32..64,
    ) {
        for x in &mut v {
            *x = (*x >> skew) % tau;
        }
        let mut want = v.clone();
        want.sort_unstable();
        let mut got = Vec::new();
        sort_below(&v, tau, &mut got);
        proptest::prop_assert_eq!(got, want);
    }
}

#[test]
fn k_mins_is_min_per_permutation() {
    let s = sk(Scheme::KMins, 8);
    let mut xs: Vec<u64> = (0..11u64).map(fmix64).collect();
    let img = s.sketch_hashes(&mut xs.clone());
    for i in 0..8 {
        let m = xs
            .iter()
            .map(|&x| s.a[i].wrapping_mul(x).wrapping_add(s.b[i]))
            .min()
            .unwrap();
        assert_eq!(img.values()[i], m);
    }
    xs.clear();
    assert!(s.sketch_hashes(&mut xs).is_empty());
}

#[test]
fn oph_bins_and_densification() {
    let s = sk(Scheme::OnePermutation, 64);
    let mut xs: Vec<u64> = (0..5u64).map(fmix64).collect();
    let img = s.sketch_hashes(&mut xs.clone());
    assert_eq!(img.len(), 64);
    let mut own = 0;
    for (i, &v) in img.values().iter().enumerate() {
        // every value is the permuted value of some input
        assert!(xs.iter().any(|&x| s.pi.apply(x) == v));
        if reduce(v, 64) == i {
            own += 1;
            let m = xs
                .iter()
                .map(|&x| s.pi.apply(x))
                .filter(|&y| reduce(y, 64) == i)
                .min();
            assert_eq!(m, Some(v));
        }
    }
    let distinct_bins: std::collections::BTreeSet<usize> =
        xs.iter().map(|&x| reduce(s.pi.apply(x), 64)).collect();
    assert_eq!(own, distinct_bins.len());
    xs.clear();
    assert!(s.sketch_hashes(&mut xs).is_empty());
}

#[test]
fn oph_single_shingle_fills_every_bin() {
    let s = sk(Scheme::OnePermutation, 4096);
    let img = s.sketch_hashes(&mut [12345]);
    let v = s.pi.apply(12345);
    assert!(img.values().iter().all(|&x| x == v));
}

#[test]
fn mod_m_keeps_multiples() {
    let s = sk(Scheme::ModM, 0);
    let mut xs: Vec<u64> = (0..400u64).collect();
    let img = s.sketch_hashes(&mut xs);
    let want: Vec<u64> = {
        let mut w: Vec<u64> = (0..400u64)
            .map(|x| s.pi.apply(x))
            .filter(|y| y % 4 == 0)
            .collect();
        w.sort_unstable();
        w
    };
    assert_eq!(img.values(), &want[..]);
    assert!(img.len() > 50 && img.len() < 150);
}

#[test]
fn keys_match_shared_elements() {
    // A fingerprint has bits, not elements (no keys): the element schemes only.
    for scheme in Scheme::ALL.into_iter().filter(|s| !s.is_fingerprint()) {
        let s = sk(scheme, 32);
        let mut a: Vec<u64> = (0..100u64).collect();
        let mut b: Vec<u64> = (50..160u64).collect();
        let (ia, ib) = (s.sketch_hashes(&mut a), s.sketch_hashes(&mut b));
        let (mut ka, mut kb) = (Vec::new(), Vec::new());
        ia.keys(scheme, &mut ka);
        ib.keys(scheme, &mut kb);
        assert_eq!(
            intersection_size(&ka, &kb),
            shared_elements(&ia, &ib, scheme),
            "{scheme}"
        );
        assert!(shared_elements(&ia, &ib, scheme) > 0, "{scheme}");
    }
}

/// A simhash image is the fingerprint of the distinct shingles under the sketcher's keys:
/// duplicates do not vote twice without a weighting, and do with the bag weighting.
#[test]
fn simhash_is_the_fingerprint_of_the_set() {
    let s = sk(Scheme::SimHash, 128);
    let mut xs: Vec<u64> = (0..300u64).map(|i| fmix64(i % 120)).collect();
    let img = s.sketch_hashes(&mut xs.clone());
    let mut set: Vec<u64> = xs.clone();
    set.sort_unstable();
    set.dedup();
    assert_eq!(
        img.values(),
        &simhash::of_set(&set, &simhash::keys(9, 2))[..]
    );
    assert_eq!(img.len(), 2);
    let bag = Sketcher::new(
        ShingleConfig::default(),
        SketchConfig {
            weighting: Some(Weighting::Bag),
            ..*s.config()
        },
    )
    .unwrap();
    let mut w = Vec::new();
    weight::weights(&mut xs, Weighting::Bag, None, &mut w);
    assert!(w.iter().all(|x| x.1 == 2.0 || x.1 == 3.0));
    assert_eq!(
        bag.sketch_hashes(&mut xs).values(),
        &simhash::of_weighted(&w, &simhash::keys(9, 2))[..]
    );
    assert!(s.sketch_hashes(&mut Vec::new()).is_empty());
}
