//! Estimators from two images: shared elements, resemblance (B97) and containment (mod-m).

use super::{Image, Scheme, SketchConfig};
use crate::sorted::intersection_size;
use crate::{Error, Result};

/// Number of image elements shared by `a` and `b`: equal positions (both non-empty) for
/// positional schemes, the size of the intersection for sorted ones. This equals the number
/// of shared [`Image::keys`] (up to the collision bound stated there). For simhash
/// fingerprints, which have no keys: the agreeing bits.
pub fn shared_elements(a: &Image, b: &Image, scheme: Scheme) -> usize {
    if a.is_empty() || b.is_empty() {
        return 0;
    }
    if scheme.is_fingerprint() {
        // Fingerprints share bits: the agreeing ones.
        return 64 * a.len().min(b.len()) - super::simhash::hamming(&a.values, &b.values) as usize;
    }
    if scheme.is_positional() {
        a.values
            .iter()
            .zip(&b.values)
            .filter(|(x, y)| x == y)
            .count()
    } else {
        intersection_size(&a.values, &b.values)
    }
}

/// Estimated resemblance of the documents of `a` and `b` (0 if either image is empty).
/// * bottom-k: `|MIN_n(A u B) n A n B| / |MIN_n(A u B)|` (B97 / S, unbiased), where `A`,
///   `B` are the images;
/// * k-mins, one-permutation, icws (weighted Jaccard): equal positions / n; b-bit images
///   `(P - C) / (1 - C)` with `P` = equal positions / n, `C = 2^-b` ([`super::bbit`]);
/// * mod-m: `|V(A) n V(B)| / |V(A) u V(B)|` (0 when both samples are empty);
/// * simhash: the resemblance the Hamming distance implies
///   ([`super::simhash::estimate_resemblance`]).
pub fn estimate_resemblance(a: &Image, b: &Image, cfg: &SketchConfig) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    match cfg.scheme {
        Scheme::KMins | Scheme::OnePermutation | Scheme::Icws => {
            let n = a.len().min(b.len());
            let agree = shared_elements(a, b, cfg.scheme);
            match cfg.bits {
                Some(bits) => super::bbit::estimate(agree, n, bits),
                None => agree as f64 / n as f64,
            }
        }
        Scheme::ModM => crate::shingle::resemblance(&a.values, &b.values),
        Scheme::SimHash => super::simhash::estimate_resemblance(
            super::simhash::hamming(&a.values, &b.values),
            cfg.size as u32,
        ),
        Scheme::BottomK => {
            let (x, y) = (&a.values, &b.values);
            let n = cfg.size;
            let (mut i, mut j, mut taken, mut both) = (0, 0, 0usize, 0usize);
            while taken < n && (i < x.len() || j < y.len()) {
                if j >= y.len() || (i < x.len() && x[i] < y[j]) {
                    i += 1;
                } else if i >= x.len() || y[j] < x[i] {
                    j += 1;
                } else {
                    both += 1;
                    i += 1;
                    j += 1;
                }
                taken += 1;
            }
            both as f64 / taken as f64
        }
    }
}

/// Estimated containment of A in B, `|V(A) n V(B)| / |V(A)|`, from mod-m images (0 when
/// `V(A)` is empty). Other schemes: [`Error::Config`].
pub fn estimate_containment(a: &Image, b: &Image, cfg: &SketchConfig) -> Result<f64> {
    if cfg.scheme != Scheme::ModM {
        return Err(Error::config(format!(
            "containment can only be estimated from mod-m images, not {}",
            cfg.scheme
        )));
    }
    Ok(crate::shingle::containment(&a.values, &b.values))
}
