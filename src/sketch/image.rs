//! The [`Image`] of a document and its keys (the items of the inverted context).

use super::hash::{fmix64, position_salt};
use super::Scheme;

/// The image of one document. Empty for documents without shingles.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Image {
    pub(super) values: Vec<u64>,
}

impl Image {
    /// The empty image.
    pub fn empty() -> Self {
        Image::default()
    }

    /// Wraps raw values (the caller keeps the scheme's layout invariant; the images-file
    /// reader checks it).
    pub fn from_values(values: Vec<u64>) -> Self {
        Image { values }
    }

    /// The values (sorted for bottom-k / mod-m, positional for k-mins / one-permutation).
    pub fn values(&self) -> &[u64] {
        &self.values
    }

    /// The values, moved out.
    pub fn into_values(self) -> Vec<u64> {
        self.values
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True for the empty image.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// `Err` with what is wrong unless the values have the layout of a `cfg` image: empty,
    /// or `values_of(size)` values for a positional or fingerprint scheme (each below
    /// `2^b` for b-bit images); at most `size` strictly ascending values for bottom-k, and
    /// strictly ascending multiples of the modulus for mod-m. (The images-file reader
    /// checks the same while it decodes, naming the offset.)
    pub fn check_layout(values: &[u64], cfg: &super::SketchConfig) -> Result<(), String> {
        let (scheme, size) = (cfg.scheme, cfg.size);
        let n = values.len();
        if scheme.is_positional() || scheme.is_fingerprint() {
            let want = scheme.values_of(size).unwrap_or(size);
            if n != 0 && n != want {
                return Err(format!("{n} values in a {scheme} image of size {size}"));
            }
            if let Some(b) = cfg.bits.filter(|&b| b < 64) {
                if values.iter().any(|&v| v >> b != 0) {
                    return Err(format!(
                        "a value of {} bits or more in a {b}-bit image",
                        b + 1
                    ));
                }
            }
            return Ok(());
        }
        if scheme == Scheme::BottomK && n > size {
            return Err(format!("{n} values in a bottom-k image of size {size}"));
        }
        if values.windows(2).any(|w| w[0] >= w[1]) {
            return Err("values not strictly ascending".into());
        }
        if scheme == Scheme::ModM {
            if let Some(x) = values
                .iter()
                .find(|&&x| cfg.modulus == 0 || x % cfg.modulus != 0)
            {
                return Err(format!(
                    "value {x} is not a multiple of the modulus {}",
                    cfg.modulus
                ));
            }
        }
        Ok(())
    }

    /// Appends to `out` the keys of this image's elements, sorted ascending and distinct:
    /// the items of the inverted context. Two images of one scheme share a key iff they
    /// share an image element:
    /// * sorted schemes (bottom-k, mod-m): the key is the value itself (exact).
    /// * positional schemes: value `v` at position `i` has key `fmix64(v ^ salt(i))` with a
    ///   fixed per-position salt ([`super::hash::position_salt`]). For one position this is a
    ///   bijection of `v`, so equal positions share a key exactly when the values are equal.
    ///   Equal values at different positions get different keys. A false share needs
    ///   `v' = v ^ salt(i) ^ salt(j)` for some `(i, v) != (j, v')`: with `E` distinct
    ///   elements in a corpus, the expected number of such collisions is at most
    ///   `E^2 / 2^65` (about 3e-4 for 10^8 elements).
    ///
    /// The empty image has no key.
    pub fn keys(&self, scheme: Scheme, out: &mut Vec<u64>) {
        if scheme.is_fingerprint() {
            // A fingerprint's words are bits, not elements: no keys.
        } else if scheme.is_positional() {
            positional_keys(&self.values, out);
        } else {
            out.extend_from_slice(&self.values);
        }
    }
}

/// Appends to `out` the keys of a positional image's values, sorted ascending and distinct:
/// value `v` at position `i` has key `fmix64(v ^ salt(i))` (see [`Image::keys`]). The one
/// positional-key function of the crate.
pub fn positional_keys(values: &[u64], out: &mut Vec<u64>) {
    let start = out.len();
    out.extend(
        values
            .iter()
            .enumerate()
            .map(|(i, &v)| fmix64(v ^ position_salt(i))),
    );
    out[start..].sort_unstable();
    // Positional values repeat after densification, but their keys differ; dedup only
    // guards against the negligible cross-position collisions.
    let mut tail = out.split_off(start);
    tail.dedup();
    out.extend(tail);
}
