//! Finding the two documents of a pair in a corpus by their external ids.
//!
//! Invariant: the corpus is streamed (any format [`crate::corpus::open`] reads) and reading
//! stops as soon as both ids are found; a missing id is an error naming the corpus and the
//! id.

use std::path::Path;

use crate::corpus::{self, CorpusConfig, Document};
use crate::{Error, Result};

/// The documents with external ids `ids[0]` and `ids[1]` in the corpus at `path` (the same
/// id twice gives the document twice). The first occurrence of an id counts.
pub fn find_pair(path: &Path, cfg: &CorpusConfig, ids: [&str; 2]) -> Result<[Document; 2]> {
    let mut reader = corpus::open(path, cfg)?;
    let mut found: [Option<Document>; 2] = [None, None];
    let mut batch = Vec::new();
    while found.iter().any(Option::is_none) && reader.fill_batch(&mut batch, 1024)? > 0 {
        for d in batch.drain(..) {
            for (slot, id) in found.iter_mut().zip(ids) {
                if slot.is_none() && d.ext_id == id {
                    *slot = Some(d.clone());
                }
            }
        }
    }
    let [a, b] = found;
    let missing =
        |id: &str| Error::config(format!("{}: no document with id {id:?}", path.display()));
    Ok([
        a.ok_or_else(|| missing(ids[0]))?,
        b.ok_or_else(|| missing(ids[1]))?,
    ])
}
