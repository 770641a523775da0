//! The whole-file form, version 1: an [`ImageSet`] written and read in one piece (a
//! version-3 file without shards is read too, through the stream reader).

use std::io::Write;
use std::path::Path;

use super::params::{parse_params, write_params};
use super::reader::StreamParser;
use super::record::{parse_doc, write_doc};
use super::{SketchParams, MAGIC, STREAM_VERSION, VERSION};
use crate::codec::{put_header, put_varint, ByteSource, SliceReader};
use crate::io::AtomicFile;
use crate::sketch::Image;
use crate::{Error, Result};

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

/// Appends the version-1 header: magic, version, parameters, document count.
fn write_header(out: &mut Vec<u8>, p: &SketchParams, docs: usize) {
    put_header(out, MAGIC, VERSION);
    write_params(out, p);
    put_varint(out, docs as u64);
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
            write_doc(&mut out, id, img, &self.params.sketch);
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
        write_images(&mut f, path, &self.params, &self.ext_ids, &self.images)?;
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
        parse(bytes, path)
    }
}

/// Writes the contents of the [`ImageSet`] of `params`, `ext_ids` and `images` (the same
/// bytes as [`ImageSet::to_bytes`]) to `w`, a document at a time, the checksum computed on
/// the fly; `path` names the output in errors.
pub fn write_images<W: Write>(
    w: &mut W,
    path: &Path,
    params: &SketchParams,
    ext_ids: &[String],
    images: &[Image],
) -> Result<()> {
    if ext_ids.len() != images.len() {
        return Err(Error::config(format!(
            "{} external ids for {} images",
            ext_ids.len(),
            images.len()
        )));
    }
    let mut hasher = xxhash_rust::xxh64::Xxh64::new(0);
    let mut buf = Vec::with_capacity(1 << 16);
    write_header(&mut buf, params, images.len());
    let sketch = params.sketch;
    let mut flush = |buf: &mut Vec<u8>, w: &mut W| -> Result<()> {
        hasher.update(buf);
        w.write_all(buf).map_err(|e| Error::io(path, e))?;
        buf.clear();
        Ok(())
    };
    for (id, img) in ext_ids.iter().zip(images) {
        write_doc(&mut buf, id, img, &sketch);
        if buf.len() >= 1 << 16 {
            flush(&mut buf, w)?;
        }
    }
    flush(&mut buf, w)?;
    w.write_all(&hasher.digest().to_le_bytes())
        .map_err(|e| Error::io(path, e))
}

/// Reads a version-1 images file (as [`ImageSet::write`] makes) a document at a time,
/// without holding its bytes, checking the checksum at the end; other versions are read
/// whole ([`ImageSet::read`]). Holds at most `max_docs` documents: a file declaring more is
/// an error before anything is allocated.
pub fn read_images_streamed(path: &Path, max_docs: u64) -> Result<ImageSet> {
    let (mut ext_ids, mut images) = (Vec::new(), Vec::new());
    let params = scan_images_streamed(path, max_docs, |count, id, img| {
        if ext_ids.is_empty() {
            ext_ids.reserve_exact(count as usize);
            images.reserve_exact(count as usize);
        }
        ext_ids.push(id);
        images.push(img);
    })?;
    Ok(ImageSet {
        params,
        ext_ids,
        images,
    })
}

/// Calls `f(document count, external id, image)` on every document of an images file, in
/// order, reading a version-1 file a document at a time (other versions whole); returns
/// the parameters. An error (the checksum at the end included) may come after calls.
pub fn scan_images_streamed(
    path: &Path,
    max_docs: u64,
    mut f: impl FnMut(u64, String, Image),
) -> Result<SketchParams> {
    let mut r = crate::io::open_read(path)?;
    let head = std::io::BufRead::fill_buf(&mut r).map_err(|e| Error::io(path, e))?;
    let v1 = head.len() >= 12
        && &head[..8] == MAGIC
        && u32::from_le_bytes(head[8..12].try_into().expect("4 bytes")) == VERSION;
    if !v1 {
        drop(r);
        let set = ImageSet::read(path)?;
        let n = set.images.len() as u64;
        for (id, img) in set.ext_ids.into_iter().zip(set.images) {
            f(n, id, img);
        }
        return Ok(set.params);
    }
    let mut s = super::stream::Stream::new(r, path);
    s.take(12, "header")?;
    let params = parse_params(&mut s)?;
    let docs = s.varint("document count")?;
    if docs > max_docs {
        return Err(s.err(format!("{docs} documents, at most {max_docs} expected")));
    }
    for d in 0..docs {
        let (id, img) = parse_doc(&mut s, d, &params)?;
        f(docs, id, img);
    }
    let sum = s.digest();
    let stored = u64::from_le_bytes(s.raw(8, "checksum")?.try_into().expect("8 bytes"));
    if sum != stored {
        return Err(Error::format(
            path,
            "checksum mismatch: the file is truncated or corrupted",
        ));
    }
    if !s.at_eof()? {
        return Err(s.err("unexpected bytes after the checksum"));
    }
    Ok(params)
}

/// Parses a whole file (either version).
fn parse(bytes: &[u8], path: &Path) -> Result<ImageSet> {
    let fail = |msg: String| Err(Error::format(path, msg));
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return fail("not a fimdup images file (bad magic; expected FIMDUPIM)".into());
    }
    if bytes.len() < 12 + 8 {
        return fail(format!(
            "truncated: {} bytes, too short for a header",
            bytes.len()
        ));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version == STREAM_VERSION {
        return parse_stream(bytes, path);
    }
    if version != VERSION {
        return fail(format!(
            "unsupported images file version {version} (this build reads versions {VERSION} and {STREAM_VERSION})"
        ));
    }
    let body = &bytes[..bytes.len() - 8];
    let stored = u64::from_le_bytes(bytes[bytes.len() - 8..].try_into().expect("8 bytes"));
    if xxhash_rust::xxh64::xxh64(body, 0) != stored {
        return fail("checksum mismatch: the file is truncated or corrupted".into());
    }
    let mut c = SliceReader::at_offset(body, 12, path);
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
        return Err(c.err(format!(
            "{} unexpected bytes after the last document",
            c.left()
        )));
    }
    Ok(ImageSet {
        params,
        ext_ids,
        images,
    })
}

/// A version-3 file held in memory, read through the streaming reader.
fn parse_stream(bytes: &[u8], path: &Path) -> Result<ImageSet> {
    let mut r = StreamParser::new(Box::new(std::io::Cursor::new(bytes.to_vec())), path)?;
    if r.shard.count != 1 {
        return Err(Error::format(
            path,
            format!(
                "is shard {} of a sharded images file; read it with the other shards (ImageInputs)",
                r.shard
            ),
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
