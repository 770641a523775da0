//! Reading an images file record by record ([`ImageReader`]; the version-3 parser,
//! [`StreamParser`], also serves [`ImageSet::from_bytes`](super::ImageSet::from_bytes)).

use std::io::BufRead;
use std::path::{Path, PathBuf};

use super::params::parse_params;
use super::record::parse_doc;
use super::stream::Stream;
use super::{ImageSet, Shard, SketchParams, MAGIC, STREAM_VERSION, TAG_DOC, TAG_END, VERSION};
use crate::codec::ByteSource;
use crate::sketch::Image;
use crate::{DocId, Error, Result};

/// Streams a version-3 file, checking each record as it comes and the count and checksum
/// at the end.
pub(super) struct StreamParser {
    s: Stream,
    pub(super) params: SketchParams,
    pub(super) shard: Shard,
    count: u64,
    done: bool,
}

impl StreamParser {
    /// Reads magic, version and header of `r`, the contents of `path` (named in errors).
    pub(super) fn new(r: Box<dyn std::io::BufRead + Send>, path: &Path) -> Result<Self> {
        let mut s = Stream::new(r, path);
        let bad_magic = || {
            Error::format(
                path,
                "not a fimdup images file (bad magic; expected FIMDUPIM)",
            )
        };
        if s.take(8, "magic").map_err(|_| bad_magic())? != MAGIC {
            return Err(bad_magic());
        }
        let version = s.u32("version")?;
        if version != STREAM_VERSION {
            return Err(Error::format(
                path,
                format!("unsupported images file version {version} (expected {STREAM_VERSION})"),
            ));
        }
        let params = parse_params(&mut s)?;
        let index = s.usize_max("shard index", u32::MAX as u64)? as u32;
        let count = s.usize_max("shard count", u32::MAX as u64)? as u32;
        let shard = Shard::new(index, count).map_err(|e| s.err(e))?;
        Ok(StreamParser {
            s,
            params,
            shard,
            count: 0,
            done: false,
        })
    }

    /// The next record, or `None` after the trailer was checked.
    pub(super) fn next(&mut self) -> Result<Option<(String, Image)>> {
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
                    return Err(self.s.err(format!(
                        "trailer counts {n} documents but {} were read",
                        self.count
                    )));
                }
                let want = self.s.digest();
                let stored =
                    u64::from_le_bytes(self.s.raw(8, "checksum")?.try_into().expect("8 bytes"));
                if stored != want {
                    return Err(self.s.err("checksum mismatch: the file is corrupted"));
                }
                if !self.s.at_eof()? {
                    return Err(self.s.err("unexpected bytes after the trailer"));
                }
                self.done = true;
                Ok(None)
            }
            t => Err(Error::format(
                self.s.path(),
                format!(
                    "at byte {}: bad record tag {t} (corrupted file)",
                    self.s.at() - 1
                ),
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
            && u32::from_le_bytes(head[8..12].try_into().expect("4 bytes")) == VERSION;
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
        let p = StreamParser::new(r, &path)?;
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

    /// The number of documents the file declares, read from its end without reading the
    /// records (version 1: from the header); `None` for a compressed or unreadable file or
    /// a malformed end (which the reader reports when it gets there).
    pub fn declared_count(&self) -> Option<u64> {
        match &self.inner {
            ReaderInner::Whole(it) => Some(self.next + it.len() as u64),
            ReaderInner::Stream(_) => {
                use std::io::{Read, Seek, SeekFrom};
                if crate::io::Compression::of_path(&self.path).is_compressed() {
                    return None;
                }
                // `tag 0, varint count, u64 checksum`: the varint's bytes before its last
                // have the high bit set, the tag before it is 0.
                let mut f = std::fs::File::open(&self.path).ok()?;
                let len = f.seek(SeekFrom::End(0)).ok()?;
                let tail = len.min(8 + 11);
                f.seek(SeekFrom::Start(len - tail)).ok()?;
                let mut b = vec![0u8; tail as usize];
                f.read_exact(&mut b).ok()?;
                let v = &b[..b.len().checked_sub(8)?];
                let last = v.len().checked_sub(1)?;
                let mut start = last;
                while start > 0 && v[start - 1] & 0x80 != 0 {
                    start -= 1;
                }
                if start == 0 || v[start - 1] != TAG_END || v[last] & 0x80 != 0 {
                    return None;
                }
                crate::codec::varint_in(&v[start..]).map(|(n, _)| n)
            }
        }
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
            ReaderInner::Stream(p) => p.next()?,
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
