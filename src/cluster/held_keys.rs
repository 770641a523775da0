//! A corpus sketched for the methods that need only the context (concept, union-find by
//! resemblance) when its images may not all be held: [`sketch_held_or_keys_by`] holds the
//! images while `fits` says they fit, as an unbounded run does; past that, every
//! document's element keys go to a temporary [`KeyFile`] (raw `u64`s, read back in passes
//! without decoding) and only what the rest of the run needs stays in memory: the
//! external ids, each image's fingerprint (equal images collapse), and the documents' text
//! fingerprints and offsets.
//!
//! Invariant: the documents, ids, image fingerprints and keys are those the images held in
//! memory give, so a context built from the key file equals the one built from the images
//! ([`super::Prepared::from_key_file`]).

use std::path::Path;

use super::prepared::{context_needs, context_refusal};
use super::Equivalence;
use crate::context::{KeyFile, KeyFileWriter};
use crate::sketch::inputs::Holding;
use crate::sketch::pipeline::{
    owned_here, Prints, SketchBatch, SketchOutput, SketchSink, SketchStats,
};
use crate::sketch::{image_fingerprint, Image, SketchParams};
use crate::spill::MemoryBudget;
use crate::{DocId, Result};

/// What [`sketch_held_or_keys_by`] made of a stream.
pub(crate) enum HeldOrKeys {
    /// Every image in memory.
    Held(SketchOutput),
    /// The keys in a file.
    Keys(SpilledKeys),
}

/// A sketched corpus whose keys are in a [`KeyFile`].
pub(crate) struct SpilledKeys {
    /// The pipeline's counts.
    pub stats: SketchStats,
    /// The parameters of the images.
    pub params: SketchParams,
    /// The external ids, in DocId order.
    pub ext_ids: Vec<String>,
    /// Each image's fingerprint (`None` each when equal images do not collapse).
    pub img_fp: Vec<Option<u64>>,
    /// The text fingerprints and offsets.
    pub prints: Prints,
    /// The element keys.
    pub keys: KeyFile,
}

/// Sketches a stream (`stream` feeds a sink as `sketch_stream` does), holding the images
/// while `fits(documents, bytes)` holds for the documents so far and their images' bytes
/// (`held_image_bytes` each); past that, writes their keys to a [`KeyFile`] in a new
/// spill directory under `parent` and keeps the rest as [`SpilledKeys`] (see the module
/// docs). Nothing is created on disk while the images fit. Under `budget`, the stream
/// stops with the refusal the context's build would give as soon as what is kept per
/// document (ids, fingerprints, key counts) and the room to build the context take more
/// than the budget (`corpus` names the input): the process stays within the budget even
/// when the run cannot.
pub(crate) fn sketch_held_or_keys_by(
    corpus: &Path,
    budget: Option<MemoryBudget>,
    parent: &Path,
    eq: Equivalence,
    fits: &dyn Fn(u64, u64) -> bool,
    stream: &mut dyn FnMut(&mut dyn SketchSink) -> Result<SketchStats>,
) -> Result<HeldOrKeys> {
    let mut sink = HoldThenKeys {
        corpus,
        budget,
        id_bytes: 0,
        keys_total: 0,
        parent,
        eq,
        holding: Holding::new(fits),
        spilled: None,
        buf: Vec::new(),
    };
    let stats = stream(&mut sink)?;
    let HoldThenKeys {
        holding, spilled, ..
    } = sink;
    let memory = holding.memory;
    match spilled {
        None => Ok(HeldOrKeys::Held(memory.into_output(stats)?)),
        Some(s) => Ok(HeldOrKeys::Keys(SpilledKeys {
            stats,
            params: memory.begun()?.clone(),
            ext_ids: s.ext_ids,
            img_fp: s.img_fp,
            prints: s.prints,
            keys: s.keys.finish()?,
        })),
    }
}

use crate::plan::{id_bytes, KEYED_DOC_BYTES};

/// What the sink keeps once past the limit.
struct Spilling {
    ext_ids: Vec<String>,
    img_fp: Vec<Option<u64>>,
    prints: Prints,
    keys: KeyFileWriter,
}

/// The sink of [`sketch_held_or_keys_by`].
struct HoldThenKeys<'a> {
    corpus: &'a Path,
    budget: Option<MemoryBudget>,
    /// Bytes of the external ids kept, and keys written, once past the limit.
    id_bytes: u64,
    keys_total: u64,
    parent: &'a Path,
    eq: Equivalence,
    holding: Holding<'a>,
    spilled: Option<Spilling>,
    buf: Vec<u64>,
}

impl HoldThenKeys<'_> {
    /// Under a budget, the refusal of [`super::prepared::context_needs`] as soon as what is
    /// kept so far already needs more: ids (40 bytes and the text each), fingerprints and
    /// key counts (20 bytes a document), and the room for passes over the keys so far. A
    /// lower bound of what the build will count, so a run refused here would be refused
    /// after the stream.
    fn check_budget(&self) -> Result<()> {
        let (Some(b), Some(s)) = (self.budget, &self.spilled) else {
            return Ok(());
        };
        let docs = s.ext_ids.len();
        let held = self.id_bytes + KEYED_DOC_BYTES * docs as u64;
        let (work, need) = context_needs(held, self.keys_total);
        if need > b.0 {
            return Err(context_refusal(self.corpus, docs, true, need, work, b));
        }
        Ok(())
    }

    /// Writes the keys of `images` (the next documents) and keeps their fingerprints.
    fn spill(&mut self, images: &[Image]) -> Result<()> {
        let scheme = self.holding.memory.begun()?.sketch.scheme;
        let eq = self.eq;
        let Some(s) = &mut self.spilled else {
            return Ok(());
        };
        for img in images {
            self.buf.clear();
            img.keys(scheme, &mut self.buf);
            self.keys_total += self.buf.len() as u64;
            let d = DocId(s.keys.len() as u32);
            s.keys.push(d, &self.buf)?;
            s.img_fp.push(match eq {
                Equivalence::Shingle => image_fingerprint(img),
                Equivalence::Lexical => None,
            });
        }
        Ok(())
    }
}

impl SketchSink for HoldThenKeys<'_> {
    fn begin(&mut self, params: &SketchParams) -> Result<()> {
        self.holding.memory.begin(params)
    }

    fn batch(&mut self, mut b: SketchBatch) -> Result<()> {
        if let Some(s) = &mut self.spilled {
            s.prints.add(&mut b);
            self.id_bytes += id_bytes(&b.ext_ids);
            s.ext_ids.extend(owned_here(std::mem::take(&mut b.ext_ids)));
            self.spill(&b.images)?;
            return self.check_budget();
        }
        if !self.holding.hold(b)? {
            // Past the limit: the keys of what is held go to the file, and so do the rest.
            let m = &mut self.holding.memory;
            let images = std::mem::take(&mut m.images);
            let ext_ids = std::mem::take(&mut m.ext_ids);
            self.id_bytes = id_bytes(&ext_ids);
            self.spilled = Some(Spilling {
                ext_ids,
                img_fp: Vec::with_capacity(images.len()),
                prints: std::mem::replace(&mut m.prints, Prints::new()),
                keys: KeyFileWriter::create_in(self.parent)?,
            });
            self.spill(&images)?;
            drop(images);
            crate::spill::release_free_memory();
            return self.check_budget();
        }
        Ok(())
    }
}
