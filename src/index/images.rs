//! The documents' images by DocId: held in memory (a sweep's new documents, segments
//! stored in the older format) or read where they lie in a segment's mapped values file,
//! so that opening an index for a sweep or a query does not decode every image.
//!
//! A values file (`values.bin`, and `containment-values.bin` for the mod-m images):
//!
//! ```text
//! magic (8) | version u32 | 0 u32 | documents u64 | values u64        32 bytes
//! offsets   documents + 1 u64: the first 0, ascending, the last = values
//! values    u64: the documents' image values, one after the other
//! ```
//!
//! all little-endian, so the offsets and values are used in place on a little-endian
//! machine (a big-endian one decodes the file into memory when it opens it).
//!
//! Invariants: the parts cover the DocIds `0 .. len` in order, each a contiguous range; a
//! mapped document's offsets (ascending, within the values) and its image's layout
//! ([`Image::check_layout`]) are checked when it is read, and its blocks against the
//! manifest's checksums ([`MappedFile::ensure`]) before; a document
//! cleared by a merge ([`Images::clear`]) reads as the empty image, as the merged segment
//! stores it.

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

use roaring::RoaringBitmap;

use super::mapped::MappedFile;
use crate::sketch::{Image, SketchConfig};
use crate::{Error, Result};

/// Version of the values files written.
pub(crate) const VERSION: u32 = 1;

/// Bytes of a values file before its offsets.
const HEADER: usize = 32;

/// Images by DocId (see the module documentation).
#[derive(Clone, Debug, Default)]
pub(crate) struct Images {
    /// `(first DocId, part)`, in DocId order.
    parts: Vec<(u32, Part)>,
    len: usize,
    /// Documents a merge dropped from a mapped part: read as empty.
    cleared: RoaringBitmap,
}

#[derive(Clone, Debug)]
enum Part {
    Owned(Vec<Image>),
    Mapped(Arc<MappedValues>),
}

impl Images {
    /// Number of documents.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// True when there is none.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The image of `d` (< `len`): borrowed when held in memory, copied out of a mapped
    /// file (whose blocks it reads are checked first; a damaged one is an error naming the
    /// file and the bytes).
    pub(crate) fn get(&self, d: u32) -> Result<Cow<'_, Image>> {
        let p = self.parts.partition_point(|(b, _)| *b <= d) - 1;
        let (base, part) = &self.parts[p];
        let i = (d - base) as usize;
        Ok(match part {
            Part::Owned(v) => Cow::Borrowed(&v[i]),
            Part::Mapped(_) if self.cleared.contains(d) => Cow::Owned(Image::empty()),
            Part::Mapped(m) => Cow::Owned(Image::from_values(m.get(i)?.to_vec())),
        })
    }

    /// Every image, in DocId order, in memory.
    pub(crate) fn to_vec(&self) -> Result<Vec<Image>> {
        (0..self.len as u32)
            .map(|d| self.get(d).map(Cow::into_owned))
            .collect()
    }

    /// The number of values of the images of the DocIds `from .. to` (of a mapped file
    /// that the range covers only in part: all of its values, an upper bound).
    pub(crate) fn values_in(&self, from: u32, to: u32) -> u64 {
        let mut total = 0;
        for (i, (base, part)) in self.parts.iter().enumerate() {
            let end = self.parts.get(i + 1).map_or(self.len as u32, |p| p.0);
            let (lo, hi) = (from.max(*base), to.min(end));
            if lo >= hi {
                continue;
            }
            total += match part {
                Part::Owned(v) => (v[(lo - base) as usize..(hi - base) as usize].iter())
                    .map(|i| i.len() as u64)
                    .sum(),
                Part::Mapped(m) => m.values,
            };
        }
        total
    }

    /// Room for `n` more documents in memory.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.owned_tail().reserve_exact(n);
    }

    /// Appends the image of the next DocId (held in memory).
    pub(crate) fn push(&mut self, image: Image) {
        self.owned_tail().push(image);
        self.len += 1;
    }

    /// Appends images held in memory (a segment of the older format, decoded).
    pub(crate) fn extend(&mut self, images: Vec<Image>) {
        let n = images.len();
        self.owned_tail().extend(images);
        self.len += n;
    }

    /// Appends the `n` images of the values file at `path` (its size already checked
    /// against the manifest; `sums` its blocks' xxh64, see [`MappedFile::open`]) of `cfg`
    /// images: mapped
    /// and read in place; with `lazy` its blocks are checked when first read, else all of
    /// them now (and always on a big-endian machine, which decodes it).
    pub(crate) fn append_file(
        &mut self,
        path: &Path,
        (magic, cfg): (&[u8; 8], SketchConfig),
        n: u32,
        (sums, block): (Vec<u64>, usize),
        lazy: bool,
    ) -> Result<()> {
        let m = MappedValues::open(path, magic, n, sums, block, cfg)?;
        if !lazy || cfg!(target_endian = "big") {
            m.file.check_all(|_, _| Ok(()))?;
        }
        if cfg!(target_endian = "big") {
            let v = (0..n as usize)
                .map(|i| m.get_converted(i).map(Image::from_values))
                .collect::<Result<Vec<_>>>()?;
            self.extend(v);
            return Ok(());
        }
        self.parts
            .push((self.len as u32, Part::Mapped(Arc::new(m))));
        self.len += n as usize;
        Ok(())
    }

    /// Drops the image of `d` (a merge drops a removed document's): it reads as empty.
    pub(crate) fn clear(&mut self, d: u32) {
        let p = self.parts.partition_point(|(b, _)| *b <= d) - 1;
        let base = self.parts[p].0;
        match &mut self.parts[p].1 {
            Part::Owned(v) => v[(d - base) as usize] = Image::empty(),
            Part::Mapped(_) => {
                self.cleared.insert(d);
            }
        }
    }

    /// The last part, held in memory (a new one after a mapped part).
    fn owned_tail(&mut self) -> &mut Vec<Image> {
        if !matches!(self.parts.last(), Some((_, Part::Owned(_)))) {
            self.parts.push((self.len as u32, Part::Owned(Vec::new())));
        }
        match &mut self.parts.last_mut().expect("a part").1 {
            Part::Owned(v) => v,
            Part::Mapped(_) => unreachable!("the tail was just made owned"),
        }
    }

    /// Writes the values file of the documents `from .. to` to `out`, in pieces.
    pub(crate) fn write_values(
        &self,
        magic: &[u8; 8],
        (from, to): (u32, u32),
        out: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        let mut lens = Vec::with_capacity((to - from) as usize);
        for d in from..to {
            lens.push(self.get(d)?.len() as u64);
        }
        let total: u64 = lens.iter().sum();
        let mut buf = Vec::with_capacity(1 << 16);
        buf.extend_from_slice(magic);
        buf.extend_from_slice(&VERSION.to_le_bytes());
        buf.extend_from_slice(&0u32.to_le_bytes());
        buf.extend_from_slice(&u64::from(to - from).to_le_bytes());
        buf.extend_from_slice(&total.to_le_bytes());
        let mut flush = |buf: &mut Vec<u8>, force: bool| -> Result<()> {
            if force || buf.len() >= 1 << 16 {
                out(buf)?;
                buf.clear();
            }
            Ok(())
        };
        let mut at = 0u64;
        buf.extend_from_slice(&at.to_le_bytes());
        for l in lens {
            at += l;
            buf.extend_from_slice(&at.to_le_bytes());
            flush(&mut buf, false)?;
        }
        for d in from..to {
            for v in self.get(d)?.values() {
                buf.extend_from_slice(&v.to_le_bytes());
            }
            flush(&mut buf, false)?;
        }
        flush(&mut buf, true)
    }
}

/// A mapped values file.
#[derive(Debug)]
struct MappedValues {
    file: MappedFile,
    n: usize,
    values: u64,
    values_at: usize,
    /// The images' parameters (each image's layout is checked when it is read).
    cfg: SketchConfig,
}

impl MappedValues {
    /// Maps the values file at `path` of `n` documents and checks its header.
    fn open(
        path: &Path,
        magic: &[u8; 8],
        n: u32,
        sums: Vec<u64>,
        block: usize,
        cfg: SketchConfig,
    ) -> Result<MappedValues> {
        let file = MappedFile::open(path, sums, block)?;
        file.check_header(HEADER, magic, (VERSION, "image values file"))?;
        let len = file.len();
        let err = |msg: String| Error::format(path, msg);
        let (docs, values) = (file.u64_at(16), file.u64_at(24));
        if docs != u64::from(n) {
            return Err(err(format!(
                "at byte 16: {docs} documents, the manifest says {n}"
            )));
        }
        let values_at = HEADER + 8 * (n as usize + 1);
        let size = usize::try_from(values)
            .ok()
            .and_then(|v| v.checked_mul(8))
            .and_then(|v| v.checked_add(values_at));
        if file.u32_at(12) != 0 || size != Some(len) {
            return Err(err(format!(
                "at byte 12: header ({docs} documents, {values} values) does not match the \
                 file's {len} bytes"
            )));
        }
        Ok(MappedValues {
            file,
            n: n as usize,
            values,
            values_at,
            cfg,
        })
    }

    /// The values of document `i`'s image: their offsets and then they are checked.
    fn range(&self, i: usize) -> Result<(usize, usize)> {
        let at = HEADER + 8 * i;
        self.file.ensure(at, at + 16, |_, _| Ok(()))?;
        let (a, z) = (self.file.u64_at(at), self.file.u64_at(at + 8));
        if a > z || z > self.values || (i == 0 && a != 0) || (i + 1 == self.n && z != self.values) {
            return Err(Error::format(
                self.file.path(),
                format!(
                    "at byte {at}: offsets {a}..{z} of document {i} not ascending within \
                     {} values",
                    self.values
                ),
            ));
        }
        let (a, z) = (a as usize, z as usize);
        self.file.ensure(
            self.values_at + 8 * a,
            self.values_at + 8 * z,
            |_, _| Ok(()),
        )?;
        Ok((a, z))
    }

    /// An error naming document `i`'s values unless `v`, its values, have its images'
    /// layout.
    fn check(&self, i: usize, a: usize, v: &[u64]) -> Result<()> {
        Image::check_layout(v, &self.cfg).map_err(|e| {
            Error::format(
                self.file.path(),
                format!("at byte {}: document {i}: {e}", self.values_at + 8 * a),
            )
        })
    }

    /// Document `i`'s values, in place (little-endian machines).
    fn get(&self, i: usize) -> Result<&[u64]> {
        let (a, z) = self.range(i)?;
        let v = &self.file.u64s(self.values_at, self.values as usize)[a..z];
        self.check(i, a, v)?;
        Ok(v)
    }

    /// Document `i`'s values, converted (any machine).
    fn get_converted(&self, i: usize) -> Result<Vec<u64>> {
        let (a, z) = self.range(i)?;
        let v: Vec<u64> = (a..z)
            .map(|k| self.file.u64_at(self.values_at + 8 * k))
            .collect();
        self.check(i, a, &v)?;
        Ok(v)
    }
}
