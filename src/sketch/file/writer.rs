//! Writing a version-3 images file as the documents come ([`ImageWriter`]).

use std::io::Write;
use std::path::{Path, PathBuf};

use super::params::write_params;
use super::record::write_doc;
use super::{Shard, SketchParams, MAGIC, STREAM_VERSION, TAG_DOC, TAG_END};
use crate::codec::{put_header, put_varint};
use crate::io::AtomicFile;
use crate::sketch::{Image, SketchConfig};
use crate::{Error, Result};

/// Writes a version-3 images file as the documents come (header first, then one record per
/// document, then the count and checksum); the file appears complete on
/// [`ImageWriter::finish`] or not at all.
pub struct ImageWriter {
    f: AtomicFile,
    path: PathBuf,
    hasher: xxhash_rust::xxh64::Xxh64,
    buf: Vec<u8>,
    sketch: SketchConfig,
    count: u64,
}

impl ImageWriter {
    /// Starts writing `path` with `params`, holding `shard` of the corpus.
    pub fn create(path: impl AsRef<Path>, params: &SketchParams, shard: Shard) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let f = AtomicFile::create(&path)?;
        let mut buf = Vec::with_capacity(1 << 16);
        put_header(&mut buf, MAGIC, STREAM_VERSION);
        write_params(&mut buf, params);
        put_varint(&mut buf, u64::from(shard.index));
        put_varint(&mut buf, u64::from(shard.count));
        Ok(ImageWriter {
            f,
            path,
            hasher: xxhash_rust::xxh64::Xxh64::new(0),
            buf,
            sketch: params.sketch,
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
        write_doc(&mut self.buf, ext_id, image, &self.sketch);
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
