//! Document fingerprints (B97 5.2): [`fingerprint_raw`] identifies identical documents,
//! [`fingerprint_canonical`] lexically-equivalent ones.
//!
//! Invariant: both are seeded xxh3 with fixed, documented seeds, stable across runs,
//! platforms and versions of this crate (fingerprints are stored in files); the one-shot
//! [`fingerprint_canonical_encoded`] equals the streaming [`fingerprint_canonical_streaming`].

use super::Canonical;

/// Seed of [`fingerprint_raw`] (fixed forever: fingerprints are stored in files).
pub const FINGERPRINT_SEED_RAW: u64 = 0x6669_6d64_7570_0001;
/// Seed of [`fingerprint_canonical`] (fixed forever).
pub const FINGERPRINT_SEED_CANONICAL: u64 = 0x6669_6d64_7570_0002;

/// Fingerprint of the raw document bytes: equal for identical documents (B97 5.2).
/// `xxh3_64_with_seed(bytes, FINGERPRINT_SEED_RAW)`.
pub fn fingerprint_raw(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(bytes, FINGERPRINT_SEED_RAW)
}

/// Fingerprint of the canonical form: equal for lexically-equivalent documents (same token
/// sequence; B97 5.2). Streaming xxh3 seeded with [`FINGERPRINT_SEED_CANONICAL`] over, for
/// each token, its byte length as a little-endian `u32` followed by its bytes, so that the
/// token boundaries count (`["ab"]` and `["a", "b"]` differ).
pub fn fingerprint_canonical(c: &Canonical) -> u64 {
    let mut buf = Vec::with_capacity(c.text.len() + 4 * c.len());
    for t in c.iter() {
        push_fingerprint_token(&mut buf, t);
    }
    fingerprint_canonical_encoded(&buf)
}

/// Appends one token to the encoding hashed by [`fingerprint_canonical_encoded`]: its byte
/// length as a little-endian `u32`, then its bytes.
#[inline]
pub fn push_fingerprint_token(buf: &mut Vec<u8>, token: &str) {
    let b = token.as_bytes();
    let len = b.len();
    buf.reserve(4 + len);
    buf.extend_from_slice(&(len as u32).to_le_bytes());
    let at = buf.len();
    // The bytes of a word (most are 1 to 16 bytes long) are moved as at most two
    // overlapping loads and stores of 1, 4 or 8 bytes, without a call to `memcpy`.
    // SAFETY: `reserve` made room for `len` bytes past `at`; every read is inside `b`
    // and every write inside `at..at + len`, which all get written before `set_len`.
    unsafe {
        let (src, dst) = (b.as_ptr(), buf.as_mut_ptr().add(at));
        match len {
            0 => {}
            1..=3 => {
                *dst = *src;
                *dst.add(len / 2) = *src.add(len / 2);
                *dst.add(len - 1) = *src.add(len - 1);
            }
            4..=7 => {
                let head = std::ptr::read_unaligned(src as *const u32);
                let tail = std::ptr::read_unaligned(src.add(len - 4) as *const u32);
                std::ptr::write_unaligned(dst as *mut u32, head);
                std::ptr::write_unaligned(dst.add(len - 4) as *mut u32, tail);
            }
            8..=16 => {
                let head = std::ptr::read_unaligned(src as *const u64);
                let tail = std::ptr::read_unaligned(src.add(len - 8) as *const u64);
                std::ptr::write_unaligned(dst as *mut u64, head);
                std::ptr::write_unaligned(dst.add(len - 8) as *mut u64, tail);
            }
            _ => std::ptr::copy_nonoverlapping(src, dst, len),
        }
        buf.set_len(at + len);
    }
}

/// [`fingerprint_canonical`] from the tokens encoded with [`push_fingerprint_token`]
/// (one-shot xxh3 of the encoding, equal to the streaming form over the same bytes).
pub fn fingerprint_canonical_encoded(encoded: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(encoded, FINGERPRINT_SEED_CANONICAL)
}

/// The streaming form of [`fingerprint_canonical`] (the reference the one-shot form is
/// tested against).
pub fn fingerprint_canonical_streaming(c: &Canonical) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::with_seed(FINGERPRINT_SEED_CANONICAL);
    for t in c.iter() {
        h.update(&(t.len() as u32).to_le_bytes());
        h.update(t.as_bytes());
    }
    h.digest()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The encoding of tokens of every length up to 40 (each copy path and its bounds),
    /// appended one after another, against the plain byte-by-byte encoding.
    #[test]
    fn push_fingerprint_token_is_length_then_bytes() {
        let text: String = (0..40u8).map(|i| char::from(b'a' + i % 26)).collect();
        let (mut got, mut want) = (Vec::new(), Vec::new());
        for len in 0..=40 {
            for start in [0, 40 - len] {
                let t = &text[start..start + len];
                push_fingerprint_token(&mut got, t);
                want.extend_from_slice(&(len as u32).to_le_bytes());
                want.extend(t.bytes());
                assert_eq!(got, want, "length {len} at {start}");
            }
        }
    }
}
