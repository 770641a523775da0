//! Segments: the index's documents in contiguous DocId ranges, each with its own inverted
//! context, containment context and band table, immutable once written; the merge policy
//! and merges; removals (tombstones).
//!
//! Invariants:
//! * The segments cover the DocIds `0..len()` in order, without gaps or overlaps; a
//!   segment's postings hold its documents' incidences with local ids (`DocId - base`), so a
//!   query visits every segment and finds each document in exactly one of them, and its
//!   answer does not depend on how the documents are divided into segments.
//! * A sweep adds one segment (none when it stores no document); nothing of the segments
//!   before it changes. Merging replaces adjacent segments by one covering their union, with
//!   the postings a single build of those documents would have, minus the removed ones.
//! * Merge policy ([`MERGE_FACTOR`] `F`): a segment's level is `floor(log_F(docs))`;
//!   whenever the last `F` segments have one level they are merged into one (and so on, up
//!   the levels), so a steady stream of sweeps rewrites a document about `log_F n` times
//!   over its life. Segments can only merge with their neighbours (a segment is a DocId
//!   range), so small segments left behind a large one are merged too once the index has
//!   more than [`max_segments`] segments: the `F` adjacent ones with the fewest documents,
//!   until it has no more. An index of `n` documents therefore never keeps more than
//!   `(F - 1) (floor(log_F n) + 1)` segments after a sweep, which bounds a query's fan-out.
//! * A removed document keeps its DocId (ids are never reused or renumbered) and its cluster
//!   becomes itself; the clusters of the other documents are the connected components of the
//!   graph over the documents not removed, as a fresh build of them would give. A merge
//!   drops the removed documents' postings and images (an empty image stays in their place).

use hashbrown::HashMap;
use rayon::prelude::*;

use super::build::check_fits;
use super::images::Images;
use super::store::SegmentEntry;
use super::{Index, Measure, Postings};
use crate::cluster::uf::UnionFind;
use crate::plan::{index_held, index_merge_adds, IndexHeld};
use crate::sketch::{super_shingles, Image, Scheme};
use crate::spill::MemoryBudget;
use crate::{Error, Result};

/// Segments of one level merged at once by the merge policy (and the base of the levels).
pub const MERGE_FACTOR: usize = 8;

/// One segment: the documents `base .. base + len` and their postings (local ids).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Segment {
    pub base: u32,
    pub len: u32,
    pub context: Postings,
    pub cont_context: Postings,
    pub band_table: Postings,
    /// Its manifest entry, when it is on disk in the index's origin directory.
    pub stored: Option<SegmentEntry>,
    /// Read from postings files of the older version (decoded into memory): a merge
    /// rewrites it, even alone, in the current one.
    pub old_format: bool,
}

/// Which table of a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Table {
    Context,
    Containment,
}

impl Segment {
    pub fn table(&self, t: Table) -> &Postings {
        match t {
            Table::Context => &self.context,
            Table::Containment => &self.cont_context,
        }
    }
}

/// What [`Index::remove`] did.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct RemoveReport {
    /// Documents (all versions of the given external ids) marked removed.
    pub removed: u64,
    /// Given external ids the index does not hold (or holds removed already).
    pub unknown: Vec<String>,
    /// Clusters (of >= 2 documents) after the removal.
    pub clusters: u64,
}

/// What a merge did.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct MergeReport {
    /// Segments before.
    pub segments_before: u64,
    /// Segments after.
    pub segments_after: u64,
    /// Documents whose postings were rewritten.
    pub documents_rewritten: u64,
    /// Merges the policy left for `index merge`: under a memory budget, a merge whose
    /// postings would not fit beside the index ([`crate::plan::index_merge_adds`]) waits
    /// (the segments stay as they are; queries and sweeps give the same answers).
    pub deferred: u64,
    /// The bytes the first deferred merge needed (0 when none was deferred).
    pub deferred_needs: u64,
}

/// The most segments the merge policy leaves in an index of `docs` documents:
/// `(F - 1) (floor(log_F docs) + 1)`, `F` = [`MERGE_FACTOR`].
pub fn max_segments(docs: u64) -> usize {
    (MERGE_FACTOR - 1) * (level(docs.min(u32::MAX as u64) as u32) as usize + 1)
}

/// The level of a segment of `len` documents.
fn level(len: u32) -> u32 {
    let mut l = 0;
    let mut x = len.max(1) as u64;
    while x >= MERGE_FACTOR as u64 {
        x /= MERGE_FACTOR as u64;
        l += 1;
    }
    l
}

impl Index {
    /// A segment of the documents `base .. base + len` with fresh postings (the removed
    /// documents left out); its images are read once a table (a mapped image whose block
    /// is damaged is the error).
    pub(crate) fn build_segment(&self, base: u32, len: u32) -> Result<Segment> {
        let scheme = self.params.sketch.scheme;
        let (b0, n) = (base as usize, len as usize);
        let live = |i: usize| !self.deleted.contains((b0 + i) as u32);
        let mut s = Segment {
            base,
            len,
            ..Segment::default()
        };
        // The first error reading an image; the tables are built without its keys and
        // dropped.
        let failed: std::sync::Mutex<Option<Error>> = std::sync::Mutex::new(None);
        let image = |images, i: usize| noting(images, (b0 + i) as u32, &failed);
        let images = &self.images;
        s.context.extend(0, n, |i, out| {
            if live(i) {
                if let Some(img) = image(images, i) {
                    img.keys(scheme, out)
                }
            }
        });
        if self.cont_params.is_some() {
            let cont = &self.cont_images;
            s.cont_context.extend(0, n, |i, out| {
                if live(i) {
                    if let Some(img) = image(cont, i) {
                        img.keys(Scheme::ModM, out)
                    }
                }
            });
        }
        if let Some((b, r)) = self.bands {
            let cfg = self.params.sketch;
            s.band_table.extend(0, n, |i, out| {
                if live(i) {
                    if let Some(img) = image(images, i) {
                        out.extend(super_shingles(&img, &cfg, b as usize, r as usize))
                    }
                }
            });
        }
        match failed.into_inner().expect("not poisoned") {
            Some(e) => Err(e),
            None => Ok(s),
        }
    }

    /// Number of segments.
    pub fn segment_count(&self) -> usize {
        self.segments.len()
    }

    /// What the index holds in memory ([`IndexHeld`]): its documents, and those of the
    /// segments whose postings are in memory, with their image values.
    pub(crate) fn held(&self) -> IndexHeld {
        let mut h = IndexHeld {
            docs: self.len() as u64,
            ..IndexHeld::default()
        };
        for s in self.segments.iter().filter(|s| !s.context.is_mapped()) {
            h.owned_docs += s.len as u64;
            h.owned_values += self.values_of(s);
        }
        h
    }

    /// The image values (main and containment) of the documents of segment `s`.
    fn values_of(&self, s: &Segment) -> u64 {
        let (from, to) = (s.base, s.base + s.len);
        self.images.values_in(from, to) + self.cont_images.values_in(from, to)
    }

    /// The bytes the index holds while it merges the segments `from .. to`: what it holds
    /// now, and the postings built for the mapped ones among them (those held in memory
    /// are freed before the merged postings are built).
    fn merge_needs(&self, from: usize, to: usize) -> u64 {
        let (mut docs, mut values) = (0u64, 0u64);
        for s in self.segments[from..to]
            .iter()
            .filter(|s| s.context.is_mapped())
        {
            docs += s.len as u64;
            values += self.values_of(s);
        }
        index_held(self.bands, self.held()) + index_merge_adds(self.bands, docs, values)
    }

    /// Merges the segments `from .. to` (indexes into the segment list) into one.
    fn merge_range(&mut self, from: usize, to: usize, rep: &mut MergeReport) -> Result<()> {
        let base = self.segments[from].base;
        let end = self.segments[to - 1].base + self.segments[to - 1].len;
        // Removed documents lose their images too.
        let dropped: Vec<u32> = self
            .deleted
            .iter()
            .filter(|&d| (base..end).contains(&d))
            .collect();
        for d in dropped {
            self.images.clear(d);
            if self.cont_params.is_some() {
                self.cont_images.clear(d);
            }
        }
        // The old postings go before the new ones are built.
        for s in &mut self.segments[from..to] {
            *s = Segment::default();
        }
        let merged = self.build_segment(base, end - base)?;
        self.segments.splice(from..to, std::iter::once(merged));
        rep.documents_rewritten += (end - base) as u64;
        Ok(())
    }

    /// Applies the merge policy (see the [module docs](self)): merges the last
    /// [`MERGE_FACTOR`] segments while they have one level, then, while there are more
    /// than [`max_segments`], the [`MERGE_FACTOR`] adjacent ones with the fewest documents.
    pub fn merge_by_policy(&mut self) -> Result<MergeReport> {
        self.merge_by_policy_within(None)
    }

    /// [`Index::merge_by_policy`] under a memory budget: a merge that would not fit in it
    /// ([`crate::plan::index_merge_adds`] beside what the index holds) is left for
    /// `index merge` and the policy stops there (the report counts it as deferred).
    pub fn merge_by_policy_within(&mut self, budget: Option<MemoryBudget>) -> Result<MergeReport> {
        let mut rep = MergeReport {
            segments_before: self.segments.len() as u64,
            ..MergeReport::default()
        };
        let fits = |idx: &Index, from: usize, to: usize, rep: &mut MergeReport| {
            let need = idx.merge_needs(from, to);
            let ok = budget.is_none_or(|b| need <= b.0);
            if !ok {
                rep.deferred += 1;
                rep.deferred_needs = need;
            }
            ok
        };
        loop {
            let n = self.segments.len();
            if n < MERGE_FACTOR {
                break;
            }
            let tail = &self.segments[n - MERGE_FACTOR..];
            let l = level(tail[0].len);
            if !tail.iter().all(|s| level(s.len) == l) || !fits(self, n - MERGE_FACTOR, n, &mut rep)
            {
                break;
            }
            self.merge_range(n - MERGE_FACTOR, n, &mut rep)?;
        }
        let cap = max_segments(self.len() as u64);
        while self.segments.len() > cap && rep.deferred == 0 {
            let n = self.segments.len();
            let w = MERGE_FACTOR.min(n);
            let from = (0..=n - w)
                .min_by_key(|&i| {
                    let docs: u64 = self.segments[i..i + w].iter().map(|s| s.len as u64).sum();
                    (docs, std::cmp::Reverse(i))
                })
                .expect("a window");
            if !fits(self, from, from + w, &mut rep) {
                break;
            }
            self.merge_range(from, from + w, &mut rep)?;
        }
        rep.segments_after = self.segments.len() as u64;
        Ok(rep)
    }

    /// Merges every segment into one, dropping the removed documents' postings and images
    /// (a single segment is rewritten when it has removed documents or postings files of
    /// the older version).
    pub fn merge_all(&mut self) -> Result<MergeReport> {
        self.merge_all_within(None)
    }

    /// [`Index::merge_all`] under a memory budget: [`Error::Budget`] before anything is
    /// merged when the merge would not fit in it ([`crate::plan::index_merge_adds`] beside
    /// what the index holds).
    pub fn merge_all_within(&mut self, budget: Option<MemoryBudget>) -> Result<MergeReport> {
        let mut rep = MergeReport {
            segments_before: self.segments.len() as u64,
            ..MergeReport::default()
        };
        let n = self.segments.len();
        if n > 1 || (n == 1 && (!self.deleted.is_empty() || self.segments[0].old_format)) {
            if let Some(b) = budget {
                check_fits(
                    self.merge_needs(0, n),
                    self.len() as u64,
                    b,
                    "index merge",
                    "the merged postings are built in memory beside the documents' ids",
                )?;
            }
            self.merge_range(0, n, &mut rep)?;
        }
        rep.segments_after = self.segments.len() as u64;
        Ok(rep)
    }

    /// Marks every version of the external ids `ids` removed: no query, cluster, sweep or
    /// lost-and-found report sees them again, and the next merge of their segment drops
    /// them. The clusters they were in are split into the components of what remains.
    pub fn remove(&mut self, ids: &[String]) -> Result<RemoveReport> {
        let want: hashbrown::HashSet<&str> = ids.iter().map(String::as_str).collect();
        let mut seen: hashbrown::HashSet<&str> = hashbrown::HashSet::new();
        let mut gone = Vec::new();
        for (d, e) in self.ext_ids.iter().enumerate() {
            if want.contains(e) && !self.deleted.contains(d as u32) {
                gone.push(d as u32);
                seen.insert(e);
            }
        }
        let mut unknown: Vec<String> = ids
            .iter()
            .filter(|e| !seen.contains(e.as_str()))
            .cloned()
            .collect();
        unknown.sort();
        unknown.dedup();
        drop(seen);
        let mut rep = RemoveReport {
            removed: gone.len() as u64,
            unknown,
            clusters: 0,
        };
        let mut touched: hashbrown::HashSet<u32> = hashbrown::HashSet::new();
        for &d in &gone {
            self.deleted.insert(d);
            touched.insert(self.labels[d as usize]);
            self.latest
                .remove(&self.ext_ids[d as usize], d, &self.ext_ids);
        }
        self.relabel(&touched)?;
        rep.clusters = self.clusters().len() as u64;
        Ok(rep)
    }

    /// Recomputes the clusters whose labels are in `touched` as the connected components of
    /// their documents that are not removed (a removed document becomes its own cluster).
    fn relabel(&mut self, touched: &hashbrown::HashSet<u32>) -> Result<()> {
        if touched.is_empty() {
            return Ok(());
        }
        let members: Vec<u32> = (0..self.len() as u32)
            .filter(|&d| touched.contains(&self.labels[d as usize]))
            .collect();
        let pos: HashMap<u32, u32> = members
            .iter()
            .enumerate()
            .map(|(i, &d)| (d, i as u32))
            .collect();
        let scheme = self.params.sketch.scheme;
        let t = self.cfg.threshold;
        let live: Vec<u32> = members
            .iter()
            .copied()
            .filter(|&d| !self.deleted.contains(d))
            .collect();
        let edges: Vec<(u32, u32)> = live
            .par_iter()
            .map_init(HashMap::new, |counts, &i| {
                let li = self.labels[i as usize];
                self.scan(
                    &*self.images.get(i)?,
                    Table::Context,
                    scheme,
                    t,
                    Measure::Resemblance,
                    counts,
                    |d| d < i && self.labels[d as usize] == li,
                )
                .map(|hits| {
                    hits.into_iter()
                        .map(move |(d, _)| (d, i))
                        .collect::<Vec<_>>()
                })
            })
            .collect::<Result<Vec<Vec<_>>>>()?
            .into_iter()
            .flatten()
            .collect();
        if members.len() > u32::MAX as usize {
            return Err(Error::config("an index holds at most 2^32 - 1 documents"));
        }
        let mut uf = UnionFind::new(members.len());
        for (a, b) in edges {
            uf.union(pos[&a], pos[&b]);
        }
        // Members ascend, so the first member met of a component is its smallest.
        let mut min_of = vec![u32::MAX; members.len()];
        for (i, &d) in members.iter().enumerate() {
            let r = uf.find(i as u32) as usize;
            if min_of[r] == u32::MAX {
                min_of[r] = d;
            }
        }
        for (i, &d) in members.iter().enumerate() {
            self.labels[d as usize] = min_of[uf.find(i as u32) as usize];
        }
        Ok(())
    }
}

/// The image of `d`, or `None` with the error kept in `failed` (the first one only).
fn noting<'a>(
    images: &'a Images,
    d: u32,
    failed: &std::sync::Mutex<Option<Error>>,
) -> Option<std::borrow::Cow<'a, Image>> {
    match images.get(d) {
        Ok(img) => Some(img),
        Err(e) => {
            failed.lock().expect("not poisoned").get_or_insert(e);
            None
        }
    }
}
