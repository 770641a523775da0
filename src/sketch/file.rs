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
//! Version 3 is the streamed form ([`ImageWriter`], [`ImageReader`]): written as the
//! documents come, read one record at a time:
//!
//! ```text
//! magic    8 bytes  b"FIMDUPIM"
//! version  u32      3
//! header   text, shingle, sketch as in version 1 (no doc_count), then
//!          varint shard index i, varint shard count N (see [`Shard`]; 0, 1 = whole corpus)
//! docs     per document: u8 tag 1, then the document as in version 1
//! end      u8 tag 0, varint doc_count
//! trailer  u64      xxh64 (seed 0) of every byte before it
//! ```
//!
//! The `j`-th record of shard `i/N` has DocId `i + N j`. A version-3 reader checks each
//! record as it comes and the count and checksum at the end, so a truncated or corrupted
//! file fails (naming the file) before a stage commits its output.
//!
//! Reading checks, in order: magic, version, checksum (so truncation and bit flips are
//! caught before parsing), then every field (bounds, UTF-8, scheme codes, image layout:
//! positional images have 0 or `size` values, sorted ones are strictly ascending, bottom-k
//! ones have at most `size`, mod-m values are multiples of `m`). Every failure is an
//! [`Error::Format`] naming the file; nothing panics.

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

use super::{Image, Scheme, SketchConfig, Weighting};
use crate::io::AtomicFile;
use crate::shingle::ShingleConfig;
use crate::text::Unit;
use crate::{DocId, Error, Result};

/// Magic bytes at the start of an images file.
pub const MAGIC: &[u8; 8] = b"FIMDUPIM";

/// Whether the file at `path` starts with [`MAGIC`] (an images file of the sketch stage,
/// whatever its name); `false` when it cannot be read.
pub fn is_images_file(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 8];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && &magic == MAGIC
}
/// Version of the whole-file format ([`ImageSet::to_bytes`], [`ImageSet::write`]).
pub const VERSION: u32 = 1;
/// Version of the streamed format ([`ImageWriter`], [`ImageReader`]).
pub const STREAM_VERSION: u32 = 3;

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
    write_params(out, p);
    put_varint(out, docs as u64);
}

fn write_params(out: &mut Vec<u8>, p: &SketchParams) {
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

/// A byte source the header and record parsers read from: a slice ([`Cursor`]) or a
/// stream ([`Stream`]).
trait Src {
    /// The next `n` bytes.
    fn take(&mut self, n: usize, what: &str) -> R<&[u8]>;
    /// Bytes read so far.
    fn at(&self) -> u64;
    /// The largest length a field can plausibly have (bytes left, when known).
    fn left(&self) -> u64;

    fn u8(&mut self, what: &str) -> R<u8> {
        Ok(self.take(1, what)?[0])
    }
    fn u64(&mut self, what: &str) -> R<u64> {
        Ok(u64::from_le_bytes(self.take(8, what)?.try_into().unwrap()))
    }
    fn varint(&mut self, what: &str) -> R<u64> {
        varint_bytewise(self, what)
    }
    fn usize_max(&mut self, what: &str, max: u64) -> R<usize> {
        let v = self.varint(what)?;
        if v > max {
            return Err(format!("{what} = {v} is out of range (at most {max})"));
        }
        Ok(v as usize)
    }
    fn string(&mut self, what: &str) -> R<String> {
        let n = self.usize_max(what, self.left())?;
        let at = self.at();
        let s = self.take(n, what)?;
        String::from_utf8(s.to_vec()).map_err(|_| format!("{what} at byte {at} is not UTF-8"))
    }
}

/// Decodes a LEB128 varint one byte at a time (the general form of [`Src::varint`]).
fn varint_bytewise<S: Src + ?Sized>(c: &mut S, what: &str) -> R<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let at = c.at();
        let byte = c.u8(what)?;
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

/// Decodes a varint from the first bytes of `b` (at least 10 of them): the value and the
/// bytes it took, or `None` when it overflows (the caller's byte-wise decoder reports it).
#[inline]
fn varint_in(b: &[u8]) -> Option<(u64, usize)> {
    let b: &[u8; 10] = b[..10].try_into().ok()?;
    let mut v = 0u64;
    for (i, &byte) in b.iter().enumerate() {
        if i == 9 && byte > 1 {
            return None;
        }
        v |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    None
}

impl Src for Cursor<'_> {
    fn take(&mut self, n: usize, what: &str) -> R<&[u8]> {
        if n > self.b.len() - self.pos {
            return Err(format!(
                "truncated at byte {} reading {what} ({n} bytes expected)",
                self.pos
            ));
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    #[inline]
    fn varint(&mut self, what: &str) -> R<u64> {
        if self.b.len() - self.pos >= 10 {
            if let Some((v, n)) = varint_in(&self.b[self.pos..]) {
                self.pos += n;
                return Ok(v);
            }
        }
        varint_bytewise(self, what)
    }
    fn at(&self) -> u64 {
        self.pos as u64
    }
    fn left(&self) -> u64 {
        (self.b.len() - self.pos) as u64
    }
}

/// A streamed byte source that hashes what it reads (xxh64, seed 0).
///
/// It reads the file in chunks of [`Stream::CHUNK`] bytes into its own buffer and hands out
/// slices of it, hashing consumed bytes a chunk at a time (per-byte reads through the
/// `BufRead` and per-field hash updates made reading a 1 GB file take minutes).
/// Invariant: `buf[..hashed]` has been fed to the hasher, `hashed <= start <= end`, and
/// `buf[start..end]` are the bytes read but not yet consumed.
struct Stream {
    chunk: usize,
    r: Box<dyn std::io::BufRead + Send>,
    hasher: xxhash_rust::xxh64::Xxh64,
    /// Bytes consumed so far (the position in the file).
    pos: u64,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    hashed: usize,
}

impl Stream {
    /// Bytes read from the underlying reader at a time.
    const CHUNK: usize = 1 << 20;

    fn new(r: Box<dyn std::io::BufRead + Send>) -> Self {
        Self::with_chunk(r, Self::CHUNK)
    }

    /// A stream reading `chunk` bytes at a time (tests use tiny chunks to cross boundaries).
    fn with_chunk(r: Box<dyn std::io::BufRead + Send>, chunk: usize) -> Self {
        Stream {
            chunk: chunk.max(1),
            r,
            hasher: xxhash_rust::xxh64::Xxh64::new(0),
            pos: 0,
            buf: Vec::new(),
            start: 0,
            end: 0,
            hashed: 0,
        }
    }

    /// Hashes the bytes consumed and not yet hashed.
    fn hash_consumed(&mut self) {
        if self.hashed < self.start {
            self.hasher.update(&self.buf[self.hashed..self.start]);
            self.hashed = self.start;
        }
    }

    /// The checksum of every byte consumed so far.
    fn digest(&mut self) -> u64 {
        self.hash_consumed();
        self.hasher.digest()
    }

    /// Makes at least `n` unconsumed bytes available, or as many as the reader has left.
    fn refill(&mut self, n: usize) -> R<()> {
        self.hash_consumed();
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        self.hashed = 0;
        let want = n.max(self.chunk);
        if self.buf.len() < want {
            self.buf.resize(want, 0);
        }
        while self.end < n {
            let upto = self.buf.len().min(self.end + self.chunk);
            match self.r.read(&mut self.buf[self.end..upto]) {
                Ok(0) => break,
                Ok(k) => self.end += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("read error at byte {}: {e}", self.pos)),
            }
        }
        Ok(())
    }

    /// Consumes `n` bytes, hashed or not as `hash` says (the trailer is not).
    fn consume(&mut self, n: usize, what: &str, hash: bool) -> R<&[u8]> {
        if self.end - self.start < n {
            self.refill(n)?;
            if self.end - self.start < n {
                return Err(format!(
                    "truncated at byte {} reading {what} ({n} bytes expected)",
                    self.pos
                ));
            }
        }
        if !hash {
            self.hash_consumed();
        }
        let at = self.start;
        self.start += n;
        if !hash {
            self.hashed = self.start;
        }
        self.pos += n as u64;
        Ok(&self.buf[at..at + n])
    }

    /// Reads `n` bytes without hashing them (the trailer).
    fn raw(&mut self, n: usize, what: &str) -> R<Vec<u8>> {
        self.consume(n, what, false).map(<[u8]>::to_vec)
    }

    /// True when no byte is left.
    fn at_eof(&mut self) -> R<bool> {
        if self.start < self.end {
            return Ok(false);
        }
        self.refill(1)?;
        Ok(self.start == self.end)
    }
}

impl Src for Stream {
    #[inline]
    fn take(&mut self, n: usize, what: &str) -> R<&[u8]> {
        self.consume(n, what, true)
    }
    #[inline]
    fn u8(&mut self, what: &str) -> R<u8> {
        if self.start < self.end {
            let b = self.buf[self.start];
            self.start += 1;
            self.pos += 1;
            return Ok(b);
        }
        Ok(self.consume(1, what, true)?[0])
    }
    #[inline]
    fn varint(&mut self, what: &str) -> R<u64> {
        if self.end - self.start >= 10 {
            if let Some((v, n)) = varint_in(&self.buf[self.start..self.end]) {
                self.start += n;
                self.pos += n as u64;
                return Ok(v);
            }
        }
        varint_bytewise(self, what)
    }
    fn at(&self) -> u64 {
        self.pos
    }
    fn left(&self) -> u64 {
        u64::from(u32::MAX)
    }
}

/// Parses the parameters part of a header (after magic and version).
fn parse_params<S: Src>(c: &mut S) -> R<SketchParams> {
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
    Ok(SketchParams {
        text,
        shingle,
        sketch,
        weight_table,
    })
}

/// Parses one document record (external id and image), checking the image layout; `d` is
/// the record's position in the file (for messages).
fn parse_doc<S: Src>(c: &mut S, d: u64, p: &SketchParams) -> R<(String, Image)> {
    let (scheme, size, modulus) = (p.sketch.scheme, p.sketch.size, p.sketch.modulus);
    let id = c.string("external id")?;
    let at = c.at();
    let nv = c.usize_max("value count", c.left())?;
    let mut v = Vec::with_capacity(nv.min(1 << 16));
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
                prev.checked_add(g)
                    .ok_or_else(|| format!("document {d} ({id:?}) at byte {at}: value overflow"))?
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
    Ok((id, Image::from_values(v)))
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
    if version == STREAM_VERSION {
        return parse_stream(bytes);
    }
    if version != VERSION {
        return Err(format!(
            "unsupported images file version {version} (this build reads versions {VERSION} and {STREAM_VERSION})"
        ));
    }
    let body = &bytes[..bytes.len() - 8];
    let stored = u64::from_le_bytes(bytes[bytes.len() - 8..].try_into().unwrap());
    if xxhash_rust::xxh64::xxh64(body, 0) != stored {
        return Err("checksum mismatch: the file is truncated or corrupted".into());
    }
    let mut c = Cursor { b: body, pos: 12 };
    let params = parse_params(&mut c)?;
    // Each document takes at least two bytes.
    let docs = c.usize_max("document count", c.left() / 2)?;
    let mut ext_ids = Vec::with_capacity(docs);
    let mut images = Vec::with_capacity(docs);
    for d in 0..docs {
        let (id, img) = parse_doc(&mut c, d as u64, &params)?;
        ext_ids.push(id);
        images.push(img);
    }
    if c.left() != 0 {
        return Err(format!(
            "{} unexpected bytes after the last document",
            c.left()
        ));
    }
    Ok(ImageSet {
        params,
        ext_ids,
        images,
    })
}

/// A version-3 file held in memory, read through the streaming reader.
fn parse_stream(bytes: &[u8]) -> R<ImageSet> {
    let mut r = StreamParser::new(Box::new(std::io::Cursor::new(bytes.to_vec())))?;
    if r.shard.count != 1 {
        return Err(format!(
            "is shard {} of a sharded images file; read it with the other shards (ImageInputs)",
            r.shard
        ));
    }
    let mut ext_ids = Vec::new();
    let mut images = Vec::new();
    while let Some((id, img)) = r.next()? {
        ext_ids.push(id);
        images.push(img);
    }
    Ok(ImageSet {
        params: r.params,
        ext_ids,
        images,
    })
}

/// Which part of a corpus an images file holds: shard `index` of `count` holds the
/// documents whose position `g` in the corpus has `g % count == index`; its `j`-th record
/// has DocId `index + count * j` (so the shards of a corpus together give each document the
/// DocId it has in one unsharded file). `0/1` is the whole corpus.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Shard {
    /// This part, `0..count`.
    pub index: u32,
    /// Number of parts, at least 1.
    pub count: u32,
}

impl Default for Shard {
    fn default() -> Self {
        Shard { index: 0, count: 1 }
    }
}

impl Shard {
    /// Shard `index` of `count` (checked: `index < count`).
    pub fn new(index: u32, count: u32) -> Result<Self> {
        if count == 0 || index >= count {
            return Err(Error::config(format!(
                "shard must be i/N with 0 <= i < N, not {index}/{count}"
            )));
        }
        Ok(Shard { index, count })
    }

    /// The DocId of the `j`-th record of this shard.
    pub fn doc_id(&self, j: u64) -> Result<DocId> {
        let g = u64::from(self.index) + u64::from(self.count) * j;
        u32::try_from(g)
            .map(DocId)
            .map_err(|_| Error::config("more than u32::MAX documents"))
    }

    /// True when the document at position `g` of the corpus belongs to this shard.
    pub fn holds(&self, g: u64) -> bool {
        g % u64::from(self.count) == u64::from(self.index)
    }

    /// Number of documents this shard holds of a corpus of `total`.
    pub fn len_of(&self, total: u64) -> u64 {
        let (i, n) = (u64::from(self.index), u64::from(self.count));
        if total <= i {
            0
        } else {
            (total - i).div_ceil(n)
        }
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl std::str::FromStr for Shard {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let bad = || Error::config(format!("shard must be i/N (e.g. 0/4), not {s:?}"));
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let i: u32 = i.trim().parse().map_err(|_| bad())?;
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        Shard::new(i, n)
    }
}

/// Record tags of a version-3 file.
const TAG_DOC: u8 = 1;
const TAG_END: u8 = 0;

/// Streams a version-3 file (after the magic).
struct StreamParser {
    s: Stream,
    params: SketchParams,
    shard: Shard,
    count: u64,
    done: bool,
}

impl StreamParser {
    /// Reads magic, version and header.
    fn new(r: Box<dyn std::io::BufRead + Send>) -> R<Self> {
        let mut s = Stream::new(r);
        let magic = s
            .take(8, "magic")
            .map_err(|_| "not a fimdup images file (bad magic; expected FIMDUPIM)".to_string())?;
        if magic != MAGIC {
            return Err("not a fimdup images file (bad magic; expected FIMDUPIM)".into());
        }
        let version = u32::from_le_bytes(s.take(4, "version")?.try_into().unwrap());
        if version != STREAM_VERSION {
            return Err(format!(
                "unsupported images file version {version} (expected {STREAM_VERSION})"
            ));
        }
        let params = parse_params(&mut s)?;
        let index = s.usize_max("shard index", u32::MAX as u64)? as u32;
        let count = s.usize_max("shard count", u32::MAX as u64)? as u32;
        let shard = Shard::new(index, count).map_err(|e| e.to_string())?;
        Ok(StreamParser {
            s,
            params,
            shard,
            count: 0,
            done: false,
        })
    }

    /// The next record, or `None` after the trailer was checked.
    fn next(&mut self) -> R<Option<(String, Image)>> {
        if self.done {
            return Ok(None);
        }
        match self.s.u8("record tag")? {
            TAG_DOC => {
                let d = parse_doc(&mut self.s, self.count, &self.params)?;
                self.count += 1;
                Ok(Some(d))
            }
            TAG_END => {
                let n = self.s.varint("document count")?;
                if n != self.count {
                    return Err(format!(
                        "trailer counts {n} documents but {} were read",
                        self.count
                    ));
                }
                let want = self.s.digest();
                let stored = u64::from_le_bytes(self.s.raw(8, "checksum")?.try_into().unwrap());
                if stored != want {
                    return Err("checksum mismatch: the file is corrupted".into());
                }
                if !self.s.at_eof()? {
                    return Err(format!(
                        "unexpected bytes after the trailer at byte {}",
                        self.s.pos
                    ));
                }
                self.done = true;
                Ok(None)
            }
            t => Err(format!(
                "bad record tag {t} at byte {} (corrupted file)",
                self.s.pos - 1
            )),
        }
    }
}

/// Reads an images file record by record (version 3 streamed; version 1 read whole, then
/// handed out), checking every record and, at the end, the count and checksum. Errors name
/// the file.
pub struct ImageReader {
    path: PathBuf,
    params: SketchParams,
    shard: Shard,
    inner: ReaderInner,
    next: u64,
}

enum ReaderInner {
    Stream(Box<StreamParser>),
    Whole(std::vec::IntoIter<(String, Image)>),
}

impl ImageReader {
    /// Opens `path` (`*.gz` decompressed) and reads its header.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let mut r = crate::io::open_read(&path)?;
        let head = r.fill_buf().map_err(|e| Error::io(&path, e))?;
        let v1 = head.len() >= 12
            && &head[..8] == MAGIC
            && u32::from_le_bytes(head[8..12].try_into().unwrap()) == VERSION;
        if v1 {
            drop(r);
            let set = ImageSet::read(&path)?;
            let docs: Vec<(String, Image)> = set.ext_ids.into_iter().zip(set.images).collect();
            return Ok(ImageReader {
                path,
                params: set.params,
                shard: Shard::default(),
                inner: ReaderInner::Whole(docs.into_iter()),
                next: 0,
            });
        }
        let p = StreamParser::new(r).map_err(|m| Error::format(&path, m))?;
        Ok(ImageReader {
            params: p.params.clone(),
            shard: p.shard,
            path,
            inner: ReaderInner::Stream(Box::new(p)),
            next: 0,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The parameters of every image.
    pub fn params(&self) -> &SketchParams {
        &self.params
    }

    /// Which part of the corpus the file holds.
    pub fn shard(&self) -> Shard {
        self.shard
    }

    /// Records read so far.
    pub fn count(&self) -> u64 {
        self.next
    }

    /// The next document as (DocId, external id, image); `None` at the end, once the
    /// trailer (count and checksum) was checked.
    pub fn next_doc(&mut self) -> Result<Option<(DocId, String, Image)>> {
        let got = match &mut self.inner {
            ReaderInner::Whole(it) => it.next(),
            ReaderInner::Stream(p) => p.next().map_err(|m| Error::format(&self.path, m))?,
        };
        match got {
            None => Ok(None),
            Some((id, img)) => {
                let d = self.shard.doc_id(self.next)?;
                self.next += 1;
                Ok(Some((d, id, img)))
            }
        }
    }
}

/// Writes a version-3 images file as the documents come (header first, then one record per
/// document, then the count and checksum); the file appears complete on
/// [`ImageWriter::finish`] or not at all.
pub struct ImageWriter {
    f: AtomicFile,
    path: PathBuf,
    hasher: xxhash_rust::xxh64::Xxh64,
    buf: Vec<u8>,
    scheme: Scheme,
    count: u64,
}

impl ImageWriter {
    /// Starts writing `path` with `params`, holding `shard` of the corpus.
    pub fn create(path: impl AsRef<Path>, params: &SketchParams, shard: Shard) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let f = AtomicFile::create(&path)?;
        let mut buf = Vec::with_capacity(1 << 16);
        buf.extend_from_slice(MAGIC);
        buf.extend_from_slice(&STREAM_VERSION.to_le_bytes());
        write_params(&mut buf, params);
        put_varint(&mut buf, u64::from(shard.index));
        put_varint(&mut buf, u64::from(shard.count));
        Ok(ImageWriter {
            f,
            path,
            hasher: xxhash_rust::xxh64::Xxh64::new(0),
            buf,
            scheme: params.sketch.scheme,
            count: 0,
        })
    }

    fn flush_buf(&mut self) -> Result<()> {
        self.hasher.update(&self.buf);
        self.f
            .write_all(&self.buf)
            .map_err(|e| Error::io(&self.path, e))?;
        self.buf.clear();
        Ok(())
    }

    /// Appends one document.
    pub fn push(&mut self, ext_id: &str, image: &Image) -> Result<()> {
        self.buf.push(TAG_DOC);
        write_doc(&mut self.buf, ext_id, image, self.scheme);
        self.count += 1;
        if self.buf.len() >= 1 << 16 {
            self.flush_buf()?;
        }
        Ok(())
    }

    /// Documents written so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Writes the trailer and renames the file into place; returns the document count.
    pub fn finish(mut self) -> Result<u64> {
        self.buf.push(TAG_END);
        put_varint(&mut self.buf, self.count);
        self.flush_buf()?;
        let sum = self.hasher.digest();
        self.f
            .write_all(&sum.to_le_bytes())
            .map_err(|e| Error::io(&self.path, e))?;
        self.f.commit()?;
        Ok(self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chunked stream hands out the same bytes, errors and checksum as a slice, whatever
    /// the chunk size, across chunk boundaries.
    #[test]
    fn stream_equals_cursor_across_chunk_boundaries() {
        let mut data = Vec::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..5000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            put_varint(&mut data, x >> (i % 64));
        }
        let trailer = 0xdead_beef_u64.to_le_bytes();
        for chunk in [1usize, 2, 3, 7, 64, 1000, 1 << 20] {
            let mut bytes = data.clone();
            bytes.extend_from_slice(&trailer);
            let mut s = Stream::with_chunk(Box::new(std::io::Cursor::new(bytes.clone())), chunk);
            let mut c = Cursor { b: &bytes, pos: 0 };
            let mut n = 0;
            while c.pos < data.len() {
                assert_eq!(
                    s.varint("v").unwrap(),
                    c.varint("v").unwrap(),
                    "chunk {chunk}"
                );
                n += 1;
            }
            assert_eq!(n, 5000);
            assert_eq!(s.at(), data.len() as u64);
            assert_eq!(
                s.digest(),
                xxhash_rust::xxh64::xxh64(&data, 0),
                "chunk {chunk}"
            );
            assert_eq!(s.raw(8, "trailer").unwrap(), trailer);
            assert_eq!(s.digest(), xxhash_rust::xxh64::xxh64(&data, 0));
            assert!(s.at_eof().unwrap());
            let e = s.take(1, "more").unwrap_err();
            assert!(e.contains("truncated at byte"), "{e}");
        }
        // A take longer than the chunk and longer than what is left.
        let mut s = Stream::with_chunk(Box::new(std::io::Cursor::new(data.clone())), 5);
        assert_eq!(s.take(100, "block").unwrap(), &data[..100]);
        let e = s.take(data.len(), "rest").unwrap_err();
        assert!(
            e.contains(&format!(
                "truncated at byte 100 reading rest ({} bytes",
                data.len()
            )),
            "{e}"
        );
    }
}
