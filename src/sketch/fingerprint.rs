//! Fingerprints (B97 5.2: of the raw content and of an image) and super shingles (B97 5.3,
//! [`super_shingles`]: the image's group hashes, [`super::hash::group_hashes`]).

use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::{hash, Image, SketchConfig};

const DOMAIN_SUPER: u64 = 0x5355_5045_5253_4831;

/// Super shingles (B97 5.3): shingles of the image, sorted ascending and distinct: the
/// [`hash::group_hashes`] of its values with the seed `cfg.seed ^ DOMAIN` (positional
/// schemes: `count` bands of `per` rows; sorted schemes: windows of `per` values). Two
/// documents share a positional super shingle iff they agree on that whole band.
pub fn super_shingles(image: &Image, cfg: &SketchConfig, count: usize, per: usize) -> Vec<u64> {
    let mut out = hash::group_hashes(
        &image.values,
        cfg.scheme.is_positional(),
        per,
        count,
        cfg.seed ^ DOMAIN_SUPER,
    );
    out.sort_unstable();
    out.dedup();
    out
}

/// Fingerprint of raw bytes (B97 5.2: the whole original content finds identical
/// documents; the canonical text finds lexically-equivalent ones): `xxh3_64` with seed 0.
pub fn content_fingerprint(bytes: &[u8]) -> u64 {
    xxh3_64_with_seed(bytes, 0)
}

/// Fingerprint of an image (B97 5.2, shingle-equivalent documents): `xxh3_64` (seed 0) of
/// the values in little endian; `None` for the empty image (empty documents are never
/// shingle-equivalent to anything).
pub fn image_fingerprint(image: &Image) -> Option<u64> {
    if image.is_empty() {
        return None;
    }
    let mut buf = Vec::with_capacity(8 * image.len());
    for x in &image.values {
        buf.extend_from_slice(&x.to_le_bytes());
    }
    Some(xxh3_64_with_seed(&buf, 0))
}
