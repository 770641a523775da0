//! The element keys of images files as a [`KeySource`] ([`ImageKeys`]: the files decoded again
//! on every scan, on a second thread), and the context of images files built from them under
//! a memory budget ([`context_of_images`]), with the external ids in DocId order.
//!
//! Invariant: [`context_of_images`] gives the rows that [`super::ContextBuilder`] gives on the
//! same images, for any budget (in memory or in a temporary file).

use std::path::Path;

use super::radix::read_ahead;
use super::{BuiltContext, Context, ContextConfig, KeySource, KeyStats};
use crate::sketch::{Image, ImageInputs, Scheme};
use crate::spill::SpillConfig;
use crate::{DocId, Result};

/// `None` when `doc_ids` ascend, else the order that sorts them (documents of sharded
/// files come interleaved).
pub(crate) fn doc_order(doc_ids: &[DocId]) -> Option<Vec<u32>> {
    if doc_ids.windows(2).all(|w| w[0] <= w[1]) {
        return None;
    }
    let mut order: Vec<u32> = (0..doc_ids.len() as u32).collect();
    order.sort_unstable_by_key(|&i| doc_ids[i as usize]);
    Some(order)
}

/// `v` permuted by `order` (see [`doc_order`]).
pub(crate) fn permuted<T: Default>(v: Vec<T>, order: &[u32]) -> Vec<T> {
    let mut v: Vec<Option<T>> = v.into_iter().map(Some).collect();
    order
        .iter()
        .map(|&i| v[i as usize].take().unwrap_or_default())
        .collect()
}

/// The first scan of images files: the key statistics of every document, and for each one
/// (in file order) its DocId, external id, image and keys handed to `f`.
pub(crate) fn first_scan(
    inputs: ImageInputs,
    mut f: impl FnMut(DocId, String, &Image, &[u64]),
) -> Result<KeyStats> {
    let scheme = inputs.params().sketch.scheme;
    let mut stats = KeyStats::default();
    let mut buf = Vec::new();
    inputs.for_each(|d, id, img| {
        buf.clear();
        img.keys(scheme, &mut buf);
        stats.add(d, &buf);
        f(d, id, &img, &buf);
        Ok(())
    })?;
    Ok(stats)
}

/// The context of every document of the images files `paths` (see [`Context::from_key_source_bounded`]:
/// under a budget, the external ids count against it and the rows move to a temporary
/// file when they do not fit), and the external ids in DocId order.
pub fn context_of_images<P: AsRef<Path> + Sync>(
    paths: &[P],
    cfg: &ContextConfig,
    spill: &SpillConfig,
) -> Result<(BuiltContext, Vec<String>)> {
    let inputs = ImageInputs::open(paths)?;
    let scheme = inputs.params().sketch.scheme;
    let (mut docs, mut ids) = (Vec::new(), Vec::new());
    let stats = first_scan(inputs, |d, id, _, _| {
        docs.push(d);
        ids.push(id);
    })?;
    if let Some(order) = doc_order(&docs) {
        ids = permuted(ids, &order);
    }
    drop(docs);
    let held: u64 = ids.iter().map(|s| 40 + s.capacity() as u64).sum();
    let mut src = ImageKeys::new(paths, scheme);
    let ctx = Context::from_key_source_bounded(&mut src, &stats, cfg, spill, &|_| true, held)?;
    Ok((ctx, ids))
}

/// Images files read again on every scan, as the documents' keys. A scan decodes the files
/// on a second thread, in batches of [`ImageKeys::BATCH`] documents handed over a bounded
/// channel, so that decoding overlaps what the caller does with the keys (same order).
pub(crate) struct ImageKeys<'a, P: AsRef<Path> + Sync> {
    paths: &'a [P],
    scheme: Scheme,
}

/// Documents decoded by [`ImageKeys`]: DocIds, and their keys as CSR.
#[derive(Default)]
struct KeyBatch {
    docs: Vec<DocId>,
    off: Vec<usize>,
    keys: Vec<u64>,
}

impl<'a, P: AsRef<Path> + Sync> ImageKeys<'a, P> {
    const BATCH: usize = 16 * 1024;

    /// The keys of the images of `paths`, made with `scheme`.
    pub(crate) fn new(paths: &'a [P], scheme: Scheme) -> Self {
        ImageKeys { paths, scheme }
    }
}

impl<P: AsRef<Path> + Sync> KeySource for ImageKeys<'_, P> {
    fn scan(&mut self, f: &mut dyn FnMut(DocId, &[u64]) -> Result<()>) -> Result<()> {
        let (paths, scheme) = (self.paths, self.scheme);
        read_ahead(
            |fresh: &mut dyn FnMut() -> KeyBatch, send: &mut dyn FnMut(KeyBatch) -> bool| {
                let mut fresh = || {
                    let mut b = fresh();
                    b.docs.clear();
                    b.keys.clear();
                    b.off.clear();
                    b.off.push(0);
                    b
                };
                let mut batch = fresh();
                ImageInputs::open(paths)?.for_each_again(|d, _, img| {
                    batch.docs.push(d);
                    img.keys(scheme, &mut batch.keys);
                    batch.off.push(batch.keys.len());
                    if batch.docs.len() == Self::BATCH
                        && !send(std::mem::replace(&mut batch, fresh()))
                    {
                        // The consumer stopped (its error is the one reported).
                        return Err(crate::Error::Limit("scan stopped".into()));
                    }
                    Ok(())
                })?;
                send(batch);
                Ok(())
            },
            |b: &KeyBatch| {
                for (i, &d) in b.docs.iter().enumerate() {
                    f(d, &b.keys[b.off[i]..b.off[i + 1]])?;
                }
                Ok(())
            },
        )
    }
}
