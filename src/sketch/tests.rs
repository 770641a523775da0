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
