//! The formats truths are published in, and how `auto` tells them apart.
//!
//! `auto` resolves by looking, in this order: a directory is `pan`; a file named `*.jsonl`
//! or `*.ndjson` (also with `.gz` or `.zst`) is `clusters`; a CSV or TSV whose first row is
//! `id,cluster[,...]` is `clusters`; anything else (and standard input, `-`, which cannot be
//! looked at twice) is `pairs`. Invariant: a resolved format is never `Auto`.

use std::path::Path;

use crate::eval::delimited::Rows;
use crate::{Error, Result};

/// How a truth file is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TruthFormat {
    /// Decided from the path and the first line (see the module docs).
    #[default]
    Auto,
    /// Pairs `a,b[,columns...]` (CSV or TSV, header optional): every listed pair is labeled,
    /// positives by every row or by a truth rule on a column.
    Pairs,
    /// A cluster per document (JSONL `{"id": .., "cluster": ..}` or CSV `id,cluster`): the
    /// pairs within a cluster are positive, every other pair of labeled documents negative.
    Clusters,
    /// A directory of PAN plagiarism-detection XML files: (suspicious, source) pairs are
    /// labeled, positive when a plagiarism case links them.
    Pan,
}

impl TruthFormat {
    /// Every format, `Auto` first.
    pub const ALL: [TruthFormat; 4] = [
        TruthFormat::Auto,
        TruthFormat::Pairs,
        TruthFormat::Clusters,
        TruthFormat::Pan,
    ];

    /// The format's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            TruthFormat::Auto => "auto",
            TruthFormat::Pairs => "pairs",
            TruthFormat::Clusters => "clusters",
            TruthFormat::Pan => "pan",
        }
    }

    /// Which pairs are positive without a truth rule, in words (for reports).
    pub fn positives(self) -> &'static str {
        match self {
            TruthFormat::Auto | TruthFormat::Pairs => "every listed pair",
            TruthFormat::Clusters => "every pair within a cluster",
            TruthFormat::Pan => "every (suspicious, source) pair of a plagiarism case",
        }
    }

    /// True when a truth of this format labels only some pairs of its documents, so that
    /// evaluation is `--labeled-only` by default (PAN: pairs within the suspicious or within
    /// the source documents are not labeled).
    pub fn labeled_only_by_default(self) -> bool {
        self == TruthFormat::Pan
    }

    /// The format of the truth at `path`: `self` unless it is `Auto`, which is decided as the
    /// module docs say (reading the first row of a file).
    pub fn resolve(self, path: &Path) -> Result<TruthFormat> {
        if self != TruthFormat::Auto {
            return Ok(self);
        }
        if path == Path::new("-") {
            return Ok(TruthFormat::Pairs);
        }
        if path.is_dir() {
            return Ok(TruthFormat::Pan);
        }
        let name = crate::eval::delimited::plain_name(path);
        if name.ends_with(".jsonl") || name.ends_with(".ndjson") {
            return Ok(TruthFormat::Clusters);
        }
        let mut rows = Rows::open(path)?;
        if rows.advance()? && is_cluster_header(rows.record()) {
            return Ok(TruthFormat::Clusters);
        }
        Ok(TruthFormat::Pairs)
    }
}

/// True when a first row is the header `id,cluster[,...]` of a cluster-assignment CSV.
pub(crate) fn is_cluster_header(rec: &csv::StringRecord) -> bool {
    rec.len() >= 2 && &rec[0] == "id" && &rec[1] == "cluster"
}

impl std::fmt::Display for TruthFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for TruthFormat {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        TruthFormat::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                Error::config(format!(
                    "truth format must be auto, pairs, clusters or pan, not {s:?}"
                ))
            })
    }
}
