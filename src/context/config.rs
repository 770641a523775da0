//! What a context keeps and how it is laid out: [`ContextConfig`] (the `min_df` / `max_df`
//! row filter), [`Orientation`] (shingle-rows or doc-rows FIMI files) and [`ContextStats`]
//! (what a build kept and dropped).
//!
//! Invariants: a valid config has `min_df >= 1` and `max_df >= min_df`
//! ([`ContextConfig::validate`]); every build checks it. [`ContextConfig::row_fate`] is the
//! one rule deciding which rows are kept, for every build and for the divided run's owners
//! of the keys.

use crate::{Error, Result};

/// How a context is laid out as FIMI transactions.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Orientation {
    /// One line per image element listing the DocIds that hold it (IK09).
    #[default]
    ShingleRows,
    /// One line per document listing the indices (row numbers) of its elements.
    DocRows,
}

impl std::fmt::Display for Orientation {
    /// The name [`std::str::FromStr`] reads.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Orientation::ShingleRows => "shingle-rows",
            Orientation::DocRows => "doc-rows",
        })
    }
}

impl std::str::FromStr for Orientation {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "shingle-rows" => Ok(Orientation::ShingleRows),
            "doc-rows" => Ok(Orientation::DocRows),
            _ => Err(Error::config(format!(
                "orientation must be shingle-rows or doc-rows, not {s:?}"
            ))),
        }
    }
}

/// Which rows a context keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ContextConfig {
    /// Drop elements held by fewer documents (at least 1; default 2: an element held by one
    /// document cannot join a cluster).
    pub min_df: u32,
    /// Drop elements held by more documents (B97 5.1: very common shingles); `None` keeps all.
    pub max_df: Option<u32>,
}

impl Default for ContextConfig {
    fn default() -> Self {
        ContextConfig {
            min_df: 2,
            max_df: None,
        }
    }
}

impl ContextConfig {
    /// Checks the values: `min_df >= 1` and `max_df >= min_df`.
    pub fn validate(&self) -> Result<()> {
        if self.min_df == 0 {
            return Err(Error::config("min_df must be at least 1"));
        }
        if let Some(m) = self.max_df {
            if m < self.min_df {
                return Err(Error::config(format!(
                    "max_df ({m}) must be at least min_df ({})",
                    self.min_df
                )));
            }
        }
        Ok(())
    }

    /// What becomes of a row held by `df` documents: dropped as rare below `min_df`, as
    /// common above `max_df`, kept otherwise.
    pub fn row_fate(&self, df: usize) -> RowFate {
        if df < self.min_df as usize {
            RowFate::Rare
        } else if df > self.max_df.map_or(usize::MAX, |m| m as usize) {
            RowFate::Common
        } else {
            RowFate::Kept
        }
    }
}

/// What [`ContextConfig::row_fate`] decides for a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowFate {
    /// Held by fewer than `min_df` documents: dropped.
    Rare,
    /// Held by more than `max_df` documents: dropped.
    Common,
    /// Kept.
    Kept,
}

/// What building a context kept and dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ContextStats {
    /// Documents (columns), including those left with no element.
    pub documents: u64,
    /// Distinct elements over all images.
    pub elements: u64,
    /// Elements dropped because fewer than `min_df` documents hold them.
    pub dropped_rare: u64,
    /// Elements dropped because more than `max_df` documents hold them.
    pub dropped_common: u64,
    /// Elements kept (rows).
    pub rows: u64,
    /// Sum of row sizes (incidences kept).
    pub incidences: u64,
    /// Size of the largest row.
    pub max_row: u64,
}
