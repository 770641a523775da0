//! Shards: which part of a corpus an images file holds (stored in the version-3 header).

use crate::{DocId, Error, Result};

/// Which part of a corpus an images file holds: shard `index` of `count` holds the
/// documents whose position `g` in the corpus has `g % count == index`; its `j`-th record
/// has DocId `index + count * j` (so the shards of a corpus together give each document the
/// DocId it has in one unsharded file). `0/1` is the whole corpus.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Shard {
    /// This part, `0..count`.
    pub index: u32,
    /// Number of parts, at least 1.
    pub count: u32,
}

impl Default for Shard {
    fn default() -> Self {
        Shard { index: 0, count: 1 }
    }
}

impl Shard {
    /// Shard `index` of `count` (checked: `index < count`).
    pub fn new(index: u32, count: u32) -> Result<Self> {
        if count == 0 || index >= count {
            return Err(Error::config(format!(
                "shard must be i/N with 0 <= i < N, not {index}/{count}"
            )));
        }
        Ok(Shard { index, count })
    }

    /// The DocId of the `j`-th record of this shard.
    pub fn doc_id(&self, j: u64) -> Result<DocId> {
        let g = u64::from(self.index) + u64::from(self.count) * j;
        u32::try_from(g)
            .map(DocId)
            .map_err(|_| Error::config("more than u32::MAX documents"))
    }

    /// True when the document at position `g` of the corpus belongs to this shard.
    pub fn holds(&self, g: u64) -> bool {
        g % u64::from(self.count) == u64::from(self.index)
    }

    /// Number of documents this shard holds of a corpus of `total`.
    pub fn len_of(&self, total: u64) -> u64 {
        let (i, n) = (u64::from(self.index), u64::from(self.count));
        if total <= i {
            0
        } else {
            (total - i).div_ceil(n)
        }
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl std::str::FromStr for Shard {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let bad = || Error::config(format!("shard must be i/N (e.g. 0/4), not {s:?}"));
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let i: u32 = i.trim().parse().map_err(|_| bad())?;
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        Shard::new(i, n)
    }
}
