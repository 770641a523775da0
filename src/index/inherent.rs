//! The [`Index`] itself: its fields and the accessors of what it holds.
//!
//! Invariants: the per-document vectors (`ext_ids`, `images`, `first_sweep`, `last_seen`,
//! `labels`, and `cont_images` / `source` when kept) all have one entry per DocId; the
//! segments cover the DocIds `0..len()` in order, each a contiguous range; `latest` maps an
//! external id to its latest version that is not deleted; a deleted document is its own
//! cluster (its label is itself).

use std::path::PathBuf;

use hashbrown::HashMap;
use roaring::RoaringBitmap;

use super::ids::{Ids, Latest};
use super::images::Images;
use super::segment::Segment;
use super::{IndexConfig, Sweep};
use crate::shingle::ShingleConfig;
use crate::sketch::{Image, SketchParams};
use crate::text::{StopWords, TextConfig};
use crate::{DocId, Result};

/// The index (see the module documentation).
#[derive(Clone, Debug)]
pub struct Index {
    pub(crate) params: SketchParams,
    pub(crate) stopword_list: Option<Vec<String>>,
    pub(crate) cfg: IndexConfig,
    pub(crate) bands: Option<(u32, u32)>,
    pub(crate) cont_params: Option<SketchParams>,
    pub(crate) ext_ids: Ids,
    pub(crate) images: Images,
    pub(crate) cont_images: Images,
    pub(crate) first_sweep: Vec<u32>,
    pub(crate) last_seen: Vec<u32>,
    pub(crate) source: Vec<u64>,
    pub(crate) labels: Vec<u32>,
    pub(crate) segments: Vec<Segment>,
    pub(crate) deleted: RoaringBitmap,
    pub(crate) sweeps: Vec<Sweep>,
    pub(crate) latest: Latest,
    /// The index directory (canonical) whose segment directories hold the segments marked
    /// stored, when the index was opened from one or saved to one.
    pub(crate) origin: Option<PathBuf>,
}

impl Index {
    /// Every parameter of the images.
    pub fn params(&self) -> &SketchParams {
        &self.params
    }

    /// The build options.
    pub fn config(&self) -> &IndexConfig {
        &self.cfg
    }

    /// `(bands, rows)` of the LSH band table (positional schemes).
    pub fn bands(&self) -> Option<(u32, u32)> {
        self.bands
    }

    /// Number of documents (all versions, lost ones included).
    pub fn len(&self) -> usize {
        self.images.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.images.is_empty()
    }

    /// External id of `d`.
    pub fn ext_id(&self, d: DocId) -> &str {
        &self.ext_ids[d.index()]
    }

    /// Every image, in DocId order (copied out of the mapped segment files; a damaged
    /// block is an error naming the file and the bytes).
    pub fn images(&self) -> Result<Vec<Image>> {
        self.images.to_vec()
    }

    /// The image of `d`.
    pub fn image(&self, d: DocId) -> Result<Image> {
        self.images.get(d.0).map(std::borrow::Cow::into_owned)
    }

    /// The sweeps, oldest first.
    pub fn sweeps(&self) -> &[Sweep] {
        &self.sweeps
    }

    /// Tag of the sweep `d` was first stored in.
    pub fn first_seen(&self, d: DocId) -> &str {
        &self.sweeps[self.first_sweep[d.index()] as usize].tag
    }

    /// Tag of the sweep `d` was last seen in.
    pub fn last_seen(&self, d: DocId) -> &str {
        &self.sweeps[self.last_seen[d.index()] as usize].tag
    }

    /// Cluster label of each document (the smallest DocId of its cluster).
    pub fn labels(&self) -> &[u32] {
        &self.labels
    }

    /// True when `d` was removed ([`Index::remove`]): no query, cluster or sweep sees it.
    pub fn is_deleted(&self, d: DocId) -> bool {
        self.deleted.contains(d.0)
    }

    /// Number of removed documents.
    pub fn deleted_count(&self) -> u64 {
        self.deleted.len()
    }

    /// The DocId ranges of the segments, in order.
    pub fn segment_ranges(&self) -> Vec<std::ops::Range<u32>> {
        self.segments
            .iter()
            .map(|s| s.base..s.base + s.len)
            .collect()
    }

    /// The clusters of at least two documents, each ascending, ordered by smallest member
    /// (removed documents are in none).
    pub fn clusters(&self) -> Vec<Vec<DocId>> {
        let mut by: HashMap<u32, Vec<DocId>> = HashMap::new();
        for (d, &l) in self.labels.iter().enumerate() {
            by.entry(l).or_default().push(DocId(d as u32));
        }
        let mut out: Vec<Vec<DocId>> = by.into_values().filter(|c| c.len() >= 2).collect();
        out.sort_unstable();
        out
    }

    /// The text options as a [`TextConfig`] (to canonicalize queries and sweeps).
    pub fn text_config(&self) -> TextConfig {
        let t = &self.params.text;
        TextConfig {
            html: t.html,
            lowercase: t.lowercase,
            unit: t.unit,
            tokenizer: t.tokenizer,
            normalization: t.normalization,
            stopwords: self.stopword_list.as_ref().map(StopWords::from_words),
            stem: t.stem,
            lang: t.lang,
        }
    }

    /// The shingle options.
    pub fn shingle_config(&self) -> ShingleConfig {
        self.params.shingle
    }
}
