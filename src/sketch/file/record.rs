//! One document record: the external id and the image, sorted images gap-encoded, b-bit
//! images packed (see the layout in [the module docs](super)).
//!
//! Invariant: [`parse_doc`] accepts exactly the images [`write_doc`] can write for the
//! scheme: positional images have 0 or `size` values (simhash fingerprints 0 or
//! `size / 64` words, written as positional values are), sorted ones are strictly ascending,
//! bottom-k ones have at most `size`, mod-m values are multiples of the modulus, b-bit
//! values are below `2^b`.

use super::SketchParams;
use crate::codec::{put_varint, ByteSource};
use crate::sketch::{bbit, Image, Scheme, SketchConfig};
use crate::Result;

/// Appends one document record (without the version-3 tag).
pub(super) fn write_doc(out: &mut Vec<u8>, id: &str, img: &Image, sketch: &SketchConfig) {
    let v = img.values();
    // At most 10 bytes a varint: one growth of `out` for the whole record.
    out.reserve(id.len() + 10 * (v.len() + 2));
    put_varint(out, id.len() as u64);
    out.extend_from_slice(id.as_bytes());
    put_varint(out, v.len() as u64);
    if let Some(b) = sketch.bits {
        bbit::pack(v, b, out);
    } else if sketch.scheme.is_positional() || sketch.scheme.is_fingerprint() {
        for &x in v {
            put_varint(out, x);
        }
    } else {
        let mut prev = 0u64;
        for (i, &x) in v.iter().enumerate() {
            put_varint(out, if i == 0 { x } else { x.wrapping_sub(prev) });
            prev = x;
        }
    }
}

/// Parses one document record (external id and image), checking the image layout; `d` is
/// the record's position in the file (for messages).
pub(super) fn parse_doc<S: ByteSource>(
    c: &mut S,
    d: u64,
    p: &SketchParams,
) -> Result<(String, Image)> {
    let (scheme, size, modulus) = (p.sketch.scheme, p.sketch.size, p.sketch.modulus);
    let id = c.string("external id")?;
    // A value takes at least a byte, or `b` bits packed.
    let per_byte = p.sketch.bits.map_or(1, |b| u64::from(8 / b));
    let nv = c.usize_max("value count", c.left().saturating_mul(per_byte))?;
    let mut v = Vec::with_capacity(nv.min(1 << 16));
    if scheme.is_positional() || scheme.is_fingerprint() {
        let want = scheme.values_of(size).unwrap_or(size);
        if nv != 0 && nv != want {
            return Err(c.err(format!(
                "document {d} ({id:?}): {nv} values in a {scheme} image of size {size}"
            )));
        }
        if let Some(b) = p.sketch.bits {
            let unpacked = bbit::unpack(c.take(bbit::packed_len(nv, b), "b-bit image")?, nv, b);
            v = unpacked.ok_or_else(|| {
                c.err(format!(
                    "document {d} ({id:?}): bits set past the last value of a {b}-bit image"
                ))
            })?;
        } else {
            for _ in 0..nv {
                v.push(c.varint("image value")?);
            }
        }
    } else {
        if scheme == Scheme::BottomK && nv > size {
            return Err(c.err(format!(
                "document {d} ({id:?}): {nv} values in a bottom-k image of size {size}"
            )));
        }
        let mut prev = 0u64;
        for i in 0..nv {
            let g = c.varint("image value")?;
            let x = if i == 0 {
                g
            } else {
                if g == 0 {
                    return Err(c.err(format!(
                        "document {d} ({id:?}): values not strictly ascending"
                    )));
                }
                prev.checked_add(g)
                    .ok_or_else(|| c.err(format!("document {d} ({id:?}): value overflow")))?
            };
            if scheme == Scheme::ModM && x % modulus != 0 {
                return Err(c.err(format!(
                    "document {d} ({id:?}): value {x} is not a multiple of the modulus {modulus}"
                )));
            }
            v.push(x);
            prev = x;
        }
    }
    Ok((id, Image::from_values(v)))
}
