//! The collapse stage over a partition of the collapse classes: [`fold_class`] runs the
//! library's [`collapse`] on the documents that share a collapse key (an image
//! fingerprint, or a canonical one), which hold every member of their classes (equal raw
//! text implies equal canonical text implies equal images).
//!
//! Invariant: the classes, representatives and counts are those [`collapse`] finds on the
//! whole corpus, restricted to the documents given.

use crate::cluster::{collapse, CollapseSummary};
use crate::{DocId, Result};

/// A document of a collapse key's documents: `(doc, raw, canonical, image fingerprint)`.
pub type Prints = (u32, u64, u64, Option<u64>);

/// The collapse of documents `g` (ascending by document): its counts and every folded
/// document as `(representative, document)`.
pub fn fold_class(g: &[Prints]) -> Result<(CollapseSummary, Vec<(u32, u32)>)> {
    let raws: Vec<u64> = g.iter().map(|m| m.1).collect();
    let canons: Vec<u64> = g.iter().map(|m| m.2).collect();
    let imgs: Vec<Option<u64>> = g.iter().map(|m| m.3).collect();
    let c = collapse(&raws, &canons, &imgs)?;
    let mut folded = Vec::new();
    for (i, m) in g.iter().enumerate() {
        let rep = g[c.rep(DocId(i as u32)).index()].0;
        if rep != m.0 {
            folded.push((rep, m.0));
        }
    }
    Ok((*c.summary(), folded))
}
