//! One worker's share of a corpus read by several workers ([`Share`]), and the
//! duplicate-id check of the line formats over the blocks of every share ([`ShareIds`]).
//!
//! Invariant: the shares `0..count` own every block exactly once; checking the blocks of all
//! shares in input order gives the errors (and renamings) of one reader of the whole corpus.

use std::path::Path;

use super::order::IdsInOrder;
use super::parse::line_kind;
use crate::corpus::unique::check_for;
use crate::corpus::CorpusConfig;
use crate::Result;

#[cfg(doc)]
use super::par_map_corpus_share;

/// One share of a corpus read by several workers ([`par_map_corpus_share`]): worker `index`
/// of `count` maps the blocks whose sequence number `s` has `s % count == index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Share {
    /// This worker, `0..count`.
    pub index: u32,
    /// Number of workers, at least 1.
    pub count: u32,
}

impl Share {
    /// True when block `seq` belongs to this share.
    pub fn owns(&self, seq: u64) -> bool {
        seq % u64::from(self.count.max(1)) == u64::from(self.index)
    }
}

/// The duplicate-id check of the line formats over the blocks of every share, in input
/// order: what the parallel reader checks of a whole corpus, with the same errors.
pub struct ShareIds<'a> {
    ids: IdsInOrder<'a>,
}

impl<'a> ShareIds<'a> {
    /// The check for `path` (none needed when the format or configuration cannot repeat
    /// ids, or when the sequential reader checks them itself).
    pub fn new(path: &'a Path, cfg: &'a CorpusConfig) -> Result<Self> {
        let check = match line_kind(path, cfg)? {
            Some(_) => check_for(cfg.format_of(path)?, cfg),
            None => None,
        };
        Ok(ShareIds {
            ids: IdsInOrder { check, path, cfg },
        })
    }

    /// Checks (and maybe renames) the ids of one block, documents at `lines`; blocks must
    /// come in input order.
    pub fn check(&mut self, ids: &mut [String], lines: &[u64]) -> Result<()> {
        self.ids.check(ids, lines)
    }

    /// Ids renamed so far.
    pub fn renamed(&self) -> u64 {
        self.ids.check.as_ref().map_or(0, |c| c.renamed())
    }
}
