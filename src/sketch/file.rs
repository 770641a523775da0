//! The images file: every document's external id and image, with all the parameters that
//! made them, so that a later stage refuses images made with other parameters.
//!
//! Layout (version 1; integers little endian, `varint` = unsigned LEB128):
//!
//! ```text
//! magic    8 bytes  b"FIMDUPIM"
//! version  u32      1
//! header   text:    u8 unit (0 word, 1 char), u8 flags (1 html, 2 lowercase, 4 stem),
//!                   u8 has_stopwords, [varint len, UTF-8 bytes]
//!          shingle: varint len, varint offset, u64 seed
//!          sketch:  u8 scheme (0 bottom-k, 1 k-mins, 2 one-permutation, 3 mod-m),
//!                   varint size, varint modulus, u64 seed,
//!                   u8 weighting (0 none, 1 bag, 2 tf-idf) [tf-idf: varint total],
//!                   u8 has_weight_table [u64 DocFreq fingerprint]
//!          varint doc_count
//! docs     doc_count times: varint id_len, id (UTF-8), varint nvalues, values:
//!            sorted schemes: first value, then the gaps to the previous value, as varints
//!            positional schemes: each value as a varint
//! trailer  u64      xxh64 (seed 0) of every byte before it
//! ```
//!
//! Reading checks, in order: magic, version, checksum (so truncation and bit flips are
//! caught before parsing), then every field (bounds, UTF-8, scheme codes, image layout:
//! positional images have 0 or `size` values, sorted ones are strictly ascending, bottom-k
//! ones have at most `size`, mod-m values are multiples of `m`). Every failure is an
//! [`Error::Format`] naming the file; nothing panics.

use std::io::Write;
use std::path::Path;

use super::{Image, Scheme, SketchConfig, Weighting};
use crate::io::AtomicFile;
use crate::shingle::ShingleConfig;
use crate::text::Unit;
use crate::{Error, Result};

/// Magic bytes at the start of an images file.
pub const MAGIC: &[u8; 8] = b"FIMDUPIM";
/// Current format version.
pub const VERSION: u32 = 1;

/// Text options that produced the canonical tokens (the lead maps the text module's
/// configuration onto this).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct TextParams {
    /// Word or character tokens.
    pub unit: Unit,
    /// HTML stripped.
    pub html: bool,
    /// Lowercased.
    pub lowercase: bool,
    /// Stop-word list: `"english"` or an identifier (e.g. a hash) of the list file.
    pub stopwords: Option<String>,
    /// Porter stemming.
    pub stem: bool,
}

impl Default for TextParams {
    fn default() -> Self {
        TextParams {
            unit: Unit::Word,
            html: false,
            lowercase: true,
            stopwords: None,
            stem: false,
        }
    }
}

/// Every parameter that determines an image.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct SketchParams {
    /// Text options.
    pub text: TextParams,
    /// Shingle options.
    pub shingle: ShingleConfig,
    /// Scheme options.
    pub sketch: SketchConfig,
    /// Fingerprint of the tf-idf document-frequency table ([`super::DocFreq::fingerprint`]).
    pub weight_table: Option<u64>,
}

impl SketchParams {
    /// Names of the parameters and their printed values, in header order.
    fn fields(&self) -> Vec<(&'static str, String)> {
        let t = &self.text;
        vec![
            ("unit", format!("{:?}", t.unit).to_lowercase()),
            ("html", t.html.to_string()),
            ("lowercase", t.lowercase.to_string()),
            ("stopwords", format!("{:?}", t.stopwords)),
            ("stem", t.stem.to_string()),
            ("shingle-len", self.shingle.len.to_string()),
            ("offset", self.shingle.offset.to_string()),
            ("shingle seed", self.shingle.seed.to_string()),
            ("scheme", self.sketch.scheme.to_string()),
            (
                "size",
                if self.sketch.scheme == Scheme::ModM {
                    "-".into()
                } else {
                    self.sketch.size.to_string()
                },
            ),
            (
                "modulus",
                if self.sketch.scheme == Scheme::ModM {
                    self.sketch.modulus.to_string()
                } else {
                    "-".into()
                },
            ),
            ("seed", self.sketch.seed.to_string()),
            ("weighting", format!("{:?}", self.sketch.weighting)),
            ("weight table", format!("{:?}", self.weight_table)),
        ]
    }

    /// `Ok` when images made with `other` can be compared with images made with `self`;
    /// otherwise [`Error::Format`] naming `other_path` and the first differing parameter.
    /// (`size` is ignored for mod-m and `modulus` for the other schemes.)
    pub fn ensure_compatible(&self, other: &SketchParams, other_path: &Path) -> Result<()> {
        for ((name, mine), (_, theirs)) in self.fields().into_iter().zip(other.fields()) {
            if mine != theirs {
                return Err(Error::format(
                    other_path,
                    format!(
                        "images were made with {name} = {theirs}, but {mine} is required; \
                         re-run `fimdup sketch` with the same parameters"
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// A set of images with their parameters and external ids (`images[i]` belongs to
/// `ext_ids[i]`, DocId `i`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageSet {
    /// Parameters of every image.
    pub params: SketchParams,
    /// External document ids, in DocId order.
    pub ext_ids: Vec<String>,
    /// Images, in DocId order.
    pub images: Vec<Image>,
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn write_header(out: &mut Vec<u8>, p: &SketchParams, docs: usize) {
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.push(match p.text.unit {
        Unit::Word => 0,
        Unit::Char => 1,
    });
    out.push(p.text.html as u8 | (p.text.lowercase as u8) << 1 | (p.text.stem as u8) << 2);
    match &p.text.stopwords {
        None => out.push(0),
        Some(s) => {
            out.push(1);
            put_varint(out, s.len() as u64);
            out.extend_from_slice(s.as_bytes());
        }
    }
    put_varint(out, p.shingle.len as u64);
    put_varint(out, p.shingle.offset as u64);
    out.extend_from_slice(&p.shingle.seed.to_le_bytes());
    out.push(p.sketch.scheme.code());
    put_varint(out, p.sketch.size as u64);
    put_varint(out, p.sketch.modulus);
    out.extend_from_slice(&p.sketch.seed.to_le_bytes());
    match p.sketch.weighting {
        None => out.push(0),
        Some(Weighting::Bag) => out.push(1),
        Some(Weighting::TfIdf { total }) => {
            out.push(2);
            put_varint(out, total as u64);
        }
    }
    match p.weight_table {
        None => out.push(0),
        Some(f) => {
            out.push(1);
            out.extend_from_slice(&f.to_le_bytes());
        }
    }
    put_varint(out, docs as u64);
}

fn write_doc(out: &mut Vec<u8>, id: &str, img: &Image, scheme: Scheme) {
    put_varint(out, id.len() as u64);
    out.extend_from_slice(id.as_bytes());
    let v = img.values();
    put_varint(out, v.len() as u64);
    if scheme.is_positional() {
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

impl ImageSet {
    /// Checks that ids and images line up.
    fn check(&self) -> Result<()> {
        if self.ext_ids.len() != self.images.len() {
            return Err(Error::config(format!(
                "{} external ids for {} images",
                self.ext_ids.len(),
                self.images.len()
            )));
        }
        Ok(())
    }

    /// The file contents (see the module docs).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        self.check()?;
        let mut out = Vec::new();
        write_header(&mut out, &self.params, self.images.len());
        for (id, img) in self.ext_ids.iter().zip(&self.images) {
            write_doc(&mut out, id, img, self.params.sketch.scheme);
        }
        let sum = xxhash_rust::xxh64::xxh64(&out, 0);
        out.extend_from_slice(&sum.to_le_bytes());
        Ok(out)
    }

    /// Writes the file atomically (streaming the documents, checksum computed on the fly).
    pub fn write(&self, path: impl AsRef<Path>) -> Result<()> {
        self.check()?;
        let path = path.as_ref();
        let mut f = AtomicFile::create(path)?;
        let mut hasher = xxhash_rust::xxh64::Xxh64::new(0);
        let mut buf = Vec::with_capacity(1 << 16);
        write_header(&mut buf, &self.params, self.images.len());
        let scheme = self.params.sketch.scheme;
        let mut flush = |buf: &mut Vec<u8>, f: &mut AtomicFile| -> Result<()> {
            hasher.update(buf);
            f.write_all(buf).map_err(|e| Error::io(path, e))?;
            buf.clear();
            Ok(())
        };
        for (id, img) in self.ext_ids.iter().zip(&self.images) {
            write_doc(&mut buf, id, img, scheme);
            if buf.len() >= 1 << 16 {
                flush(&mut buf, &mut f)?;
            }
        }
        flush(&mut buf, &mut f)?;
        f.write_all(&hasher.digest().to_le_bytes())
            .map_err(|e| Error::io(path, e))?;
        f.commit()
    }

    /// Reads and checks an images file (`*.gz` decompressed transparently).
    pub fn read(path: impl AsRef<Path>) -> Result<ImageSet> {
        let path = path.as_ref();
        let bytes = crate::io::read_all(path)?;
        Self::from_bytes(&bytes, path)
    }

    /// Parses file contents; `path` only names the file in errors.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<ImageSet> {
        parse(bytes).map_err(|msg| Error::format(path, msg))
    }
}

struct Cursor<'a> {
    b: &'a [u8],
    pos: usize,
}

type R<T> = std::result::Result<T, String>;

impl Cursor<'_> {
    fn left(&self) -> usize {
        self.b.len() - self.pos
    }
    fn bytes(&mut self, n: usize, what: &str) -> R<&[u8]> {
        if n > self.left() {
            return Err(format!(
                "truncated at byte {} reading {what} ({n} bytes expected)",
                self.pos
            ));
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u8(&mut self, what: &str) -> R<u8> {
        Ok(self.bytes(1, what)?[0])
    }
    fn u64(&mut self, what: &str) -> R<u64> {
        Ok(u64::from_le_bytes(self.bytes(8, what)?.try_into().unwrap()))
    }
    fn varint(&mut self, what: &str) -> R<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let at = self.pos;
            let byte = self.u8(what)?;
            if shift == 63 && byte > 1 {
                return Err(format!("varint overflow at byte {at} reading {what}"));
            }
            v |= ((byte & 0x7f) as u64) << shift;
            if byte & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(format!("varint too long reading {what}"))
    }
    fn usize_max(&mut self, what: &str, max: u64) -> R<usize> {
        let v = self.varint(what)?;
        if v > max {
            return Err(format!("{what} = {v} is out of range (at most {max})"));
        }
        Ok(v as usize)
    }
    fn string(&mut self, what: &str) -> R<String> {
        let n = self.usize_max(what, self.left() as u64)?;
        let at = self.pos;
        let s = self.bytes(n, what)?;
        String::from_utf8(s.to_vec()).map_err(|_| format!("{what} at byte {at} is not UTF-8"))
    }
}

fn parse(bytes: &[u8]) -> R<ImageSet> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err("not a fimdup images file (bad magic; expected FIMDUPIM)".into());
    }
    if bytes.len() < 12 + 8 {
        return Err(format!(
            "truncated: {} bytes, too short for a header",
            bytes.len()
        ));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
    if version != VERSION {
        return Err(format!(
            "unsupported images file version {version} (this build reads version {VERSION})"
        ));
    }
    let body = &bytes[..bytes.len() - 8];
    let stored = u64::from_le_bytes(bytes[bytes.len() - 8..].try_into().unwrap());
    if xxhash_rust::xxh64::xxh64(body, 0) != stored {
        return Err("checksum mismatch: the file is truncated or corrupted".into());
    }
    let mut c = Cursor { b: body, pos: 12 };
    let unit = match c.u8("unit")? {
        0 => Unit::Word,
        1 => Unit::Char,
        u => return Err(format!("unknown unit code {u}")),
    };
    let flags = c.u8("text flags")?;
    if flags & !7 != 0 {
        return Err(format!("unknown text flags {flags:#x}"));
    }
    let stopwords = match c.u8("stopwords tag")? {
        0 => None,
        1 => Some(c.string("stopwords")?),
        t => return Err(format!("bad stopwords tag {t}")),
    };
    let text = TextParams {
        unit,
        html: flags & 1 != 0,
        lowercase: flags & 2 != 0,
        stem: flags & 4 != 0,
        stopwords,
    };
    let shingle = ShingleConfig {
        len: c.usize_max("shingle length", u32::MAX as u64)?,
        offset: c.usize_max("shingle offset", u32::MAX as u64)?,
        seed: c.u64("shingle seed")?,
    };
    shingle.validate().map_err(|e| e.to_string())?;
    let code = c.u8("scheme")?;
    let scheme = Scheme::from_code(code).ok_or_else(|| format!("unknown scheme code {code}"))?;
    let size = c.usize_max("image size", u32::MAX as u64)?;
    let modulus = c.varint("modulus")?;
    let seed = c.u64("seed")?;
    let weighting = match c.u8("weighting")? {
        0 => None,
        1 => Some(Weighting::Bag),
        2 => Some(Weighting::TfIdf {
            total: c.usize_max("tf-idf total", u32::MAX as u64)? as u32,
        }),
        w => return Err(format!("unknown weighting code {w}")),
    };
    let weight_table = match c.u8("weight table tag")? {
        0 => None,
        1 => Some(c.u64("weight table")?),
        t => return Err(format!("bad weight table tag {t}")),
    };
    let sketch = SketchConfig {
        scheme,
        size,
        modulus,
        seed,
        weighting,
    };
    sketch.validate().map_err(|e| e.to_string())?;
    // Each document takes at least two bytes.
    let docs = c.usize_max("document count", (c.left() / 2) as u64)?;
    let mut ext_ids = Vec::with_capacity(docs);
    let mut images = Vec::with_capacity(docs);
    for d in 0..docs {
        let id = c.string("external id")?;
        let at = c.pos;
        let nv = c.usize_max("value count", c.left() as u64)?;
        let mut v = Vec::with_capacity(nv);
        if scheme.is_positional() {
            if nv != 0 && nv != size {
                return Err(format!(
                    "document {d} ({id:?}): {nv} values in a {scheme} image of size {size}"
                ));
            }
            for _ in 0..nv {
                v.push(c.varint("image value")?);
            }
        } else {
            if scheme == Scheme::BottomK && nv > size {
                return Err(format!(
                    "document {d} ({id:?}): {nv} values in a bottom-k image of size {size}"
                ));
            }
            let mut prev = 0u64;
            for i in 0..nv {
                let g = c.varint("image value")?;
                let x = if i == 0 {
                    g
                } else {
                    if g == 0 {
                        return Err(format!(
                            "document {d} ({id:?}) at byte {at}: values not strictly ascending"
                        ));
                    }
                    prev.checked_add(g).ok_or_else(|| {
                        format!("document {d} ({id:?}) at byte {at}: value overflow")
                    })?
                };
                if scheme == Scheme::ModM && x % modulus != 0 {
                    return Err(format!(
                        "document {d} ({id:?}): value {x} is not a multiple of the modulus {modulus}"
                    ));
                }
                v.push(x);
                prev = x;
            }
        }
        ext_ids.push(id);
        images.push(Image::from_values(v));
    }
    if c.left() != 0 {
        return Err(format!(
            "{} unexpected bytes after the last document",
            c.left()
        ));
    }
    Ok(ImageSet {
        params: SketchParams {
            text,
            shingle,
            sketch,
            weight_table,
        },
        ext_ids,
        images,
    })
}
