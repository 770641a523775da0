//! Super shingles (B97 5.3): shingles of the sketch. Documents sharing at least
//! `min_shared` super shingles (default 1) are linked, and the links are closed by union-find.
//!
//! - Positional (k-mins) images of `n` values: super shingle `i` hashes positions
//!   `[i·per, (i+1)·per)` together with `i` (so group `i` only matches group `i`), for
//!   `i < n / per`; the last `n mod per` positions are unused.
//! - Sorted (bottom-k) images: B97 sorts the sketch and shingles it, so the super shingles are
//!   the hashes of every window of `per` consecutive values (`len - per + 1` of them).
//!
//! A super shingle is the crate's one group hash ([`crate::sketch::hash::group_hashes`]):
//! `xxh3_64_with_seed` of the little-endian values (and, when positional, the group index
//! first) with the configured seed. Documents whose image is shorter than `per`
//! have none. Links come from the same sort-and-count machinery as union-find
//! ([`pair_counts_of_rows`](crate::context::pair_counts_of_rows)), so the output is
//! independent of the thread count.

use rayon::prelude::*;

use super::declared::{as_u32, OptKind, OptionDecl};
use super::method::{MethodSpec, Reads};
use super::run::{Arm, Found};
use super::{threshold, ClusterConfig, ScoredPair, Threshold};
use crate::{DocId, Error, Result};

/// Super-shingle options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SuperShingleConfig {
    /// Image elements per super shingle; `None` (the default): chosen for a resemblance
    /// threshold on positional images as LSH chooses its rows
    /// ([`super::threshold::super_shingle_per`]), else [`DEFAULT_PER`].
    pub per: Option<u32>,
    /// Shared super shingles needed to link two documents (default 1).
    pub min_shared: u32,
    /// Seed of the super-shingle hash.
    pub seed: u64,
}

/// Image elements per super shingle when no threshold chooses them.
pub const DEFAULT_PER: u32 = 8;

/// The options super-shingle declares (henzinger declares `super_per` too).
pub(super) const OPTIONS: &[OptionDecl] = &[OptionDecl {
    name: "super_per",
    kind: OptKind::Count {
        default: None,
        min: 1,
        max: crate::sketch::MAX_SIZE as u64,
    },
    help: "image elements per super shingle [default: with --threshold on k-mins images, the rows per band LSH chooses for it; else 8]",
    get: |c| serde_json::json!(c.super_shingle.per),
    set: |c, v| c.super_shingle.per = Some(as_u32(v)),
}];

impl Default for SuperShingleConfig {
    fn default() -> Self {
        SuperShingleConfig {
            per: None,
            min_shared: 1,
            seed: 0x7375_7065_7273_6800, // "supersh"
        }
    }
}

impl SuperShingleConfig {
    /// `per` and `min_shared` must be positive.
    pub fn validate(&self) -> Result<()> {
        if self.per == Some(0) || self.min_shared == 0 {
            return Err(Error::config(
                "super shingles need per >= 1 and min_shared >= 1",
            ));
        }
        Ok(())
    }
}

/// The super shingles of one image (see the module docs), in image order: the crate's one
/// group hash ([`crate::sketch::hash::group_hashes`]) with the configured seed.
pub fn super_shingles(image: &[u64], positional: bool, cfg: &SuperShingleConfig) -> Vec<u64> {
    let per = cfg.per.unwrap_or(DEFAULT_PER) as usize;
    crate::sketch::hash::group_hashes(image, positional, per, usize::MAX, cfg.seed)
}

/// Linked pairs `(a, b, shared super shingles)`, `a < b`, sorted.
pub fn super_shingle_pairs<S: AsRef<[u64]> + Sync>(
    images: &[S],
    positional: bool,
    cfg: &SuperShingleConfig,
) -> Result<Vec<(DocId, DocId, u32)>> {
    cfg.validate()?;
    let per_doc: Vec<Vec<u64>> = images
        .par_iter()
        .map(|im| super_shingles(im.as_ref(), positional, cfg))
        .collect();
    shared_value_pairs(&per_doc, cfg.min_shared)
}

/// Pairs `(a, b, shared)`, `a < b`, sorted, of documents whose value sets (e.g. precomputed
/// super shingles, `sketch::super_shingles`) share at least `min_shared` distinct values.
pub fn shared_value_pairs<S: AsRef<[u64]> + Sync>(
    sets: &[S],
    min_shared: u32,
) -> Result<Vec<(DocId, DocId, u32)>> {
    let n_docs = u32::try_from(sets.len()).map_err(|_| Error::config("too many documents"))?;
    let mut entries: Vec<(u64, u32)> = sets
        .par_iter()
        .enumerate()
        .flat_map_iter(|(d, v)| v.as_ref().iter().map(move |&h| (h, d as u32)))
        .collect();
    entries.par_sort_unstable();
    entries.dedup();
    let mut rows = crate::fimi::Transactions::new();
    let mut i = 0;
    while i < entries.len() {
        let mut j = i;
        while j < entries.len() && entries[j].0 == entries[i].0 {
            j += 1;
        }
        if j - i >= 2 {
            let docs: Vec<u32> = entries[i..j].iter().map(|e| e.1).collect();
            rows.push(&docs);
        }
        i = j;
    }
    Ok(crate::context::pair_counts_of_rows(
        &rows,
        n_docs,
        min_shared.max(1),
    ))
}

/// The super-shingle width `per` a run of `cfg` uses on images of `n` elements (positional
/// or not), and the resemblance threshold that chose it when it was chosen: the configured
/// width, else (a resemblance threshold on positional images) the rows per band LSH chooses
/// at that threshold, else [`DEFAULT_PER`].
pub(crate) fn width(cfg: &ClusterConfig, positional: bool, n: usize) -> Result<(u32, Option<f64>)> {
    let chosen_at = match (cfg.super_shingle.per, cfg.threshold) {
        (None, Threshold::Resemblance(t)) if positional && n > 0 => Some(t),
        _ => None,
    };
    let per = match (cfg.super_shingle.per, chosen_at) {
        (Some(p), _) => p,
        (None, Some(t)) => threshold::super_shingle_per(n as u32, t, &cfg.lsh)?,
        (None, None) => DEFAULT_PER,
    };
    Ok((per, chosen_at))
}

/// The super-shingle step of [`super::run_method`]: the representatives' super shingles
/// (precomputed, else from positional groups, else from sliding windows over sorted
/// values), the pairs sharing `min_shared` of them, and their connected components.
fn run(arm: &mut Arm<'_, '_>) -> Result<Found> {
    let inputs = arm.inputs;
    let mut ss = arm.cfg.super_shingle;
    if let Threshold::MinCommon(k) = arm.cfg.threshold {
        ss.min_shared = k;
    }
    let positional = inputs.positional.is_some() && inputs.super_shingles.is_none();
    let (per, chosen_at) = width(arm.cfg, positional, arm.n)?;
    ss.per = Some(per);
    arm.summary.k = Some(ss.min_shared);
    arm.summary.k_rule = format!(
        ">= {} shared super shingles of {per} image elements",
        ss.min_shared
    );
    if let Some(t) = chosen_at {
        arm.summary.k_rule += &format!(" ({per} rows of the bands LSH chooses at {t})");
    }
    let collapse = arm.collapse();
    let e = match (inputs.super_shingles, inputs.positional, inputs.keys) {
        (Some(v), _, _) => shared_value_pairs(&super::run::mask(v, collapse), ss.min_shared)?,
        (None, Some(p), _) => super_shingle_pairs(&super::run::mask(p, collapse), true, &ss)?,
        (None, None, Some(k)) => super_shingle_pairs(&super::run::mask(k, collapse), false, &ss)?,
        (None, None, None) => {
            return Err(Error::config(
                "method super-shingle needs positional images or keys",
            ))
        }
    };
    arm.timer.lap("super-shingles");
    let sets = arm.components(&e);
    arm.timer.lap("union-find");
    let edges: Vec<ScoredPair> = Arm::scored(&e, |_, _| None, |_| None);
    Ok(Found { sets, edges })
}

/// The super-shingle method (B97 5.3): documents sharing super shingles, joined by
/// union-find.
pub(super) struct SuperShingle;

impl MethodSpec for SuperShingle {
    fn name(&self) -> &'static str {
        "super-shingle"
    }

    fn options(&self) -> &'static [OptionDecl] {
        OPTIONS
    }

    fn reads(&self) -> Reads {
        Reads::Images
    }

    fn run(&self, arm: &mut Arm<'_, '_>) -> Result<Found> {
        run(arm)
    }

    /// The super shingles of both images at the run's width, and which are shared.
    fn pair_detail(
        &self,
        v: &super::pair_detail::PairView<'_>,
    ) -> Result<(super::pair_detail::MethodDetail, String)> {
        let cluster = v.cfg;
        let (ia, ib) = v.images;
        let positional = v.scheme.is_positional();
        let (per, _) = width(cluster, positional, v.n())?;
        let min_shared = v.summary.k.unwrap_or(cluster.super_shingle.min_shared);
        let ss = SuperShingleConfig {
            per: Some(per),
            ..cluster.super_shingle
        };
        let sa = super_shingles(ia.values(), positional, &ss);
        let sb = super_shingles(ib.values(), positional, &ss);
        let mut set_b = sb.clone();
        set_b.sort_unstable();
        set_b.dedup();
        let shared_indices: Vec<usize> = sa
            .iter()
            .enumerate()
            .filter(|(_, h)| set_b.binary_search(h).is_ok())
            .map(|(i, _)| i)
            .collect();
        let mut distinct: Vec<u64> = shared_indices.iter().map(|&i| sa[i]).collect();
        distinct.sort_unstable();
        distinct.dedup();
        let shared = distinct.len();
        let reason = format!(
            "{} and {} super shingles of {per} image elements, {shared} shared ({}), the method needs {min_shared}",
            sa.len(),
            sb.len(),
            if shared_indices.is_empty() {
                "none".to_string()
            } else {
                format!("indices {}", super::pair_detail::list(&shared_indices))
            }
        );
        Ok((
            super::pair_detail::MethodDetail::SuperShingle {
                per,
                min_shared,
                count_a: sa.len(),
                count_b: sb.len(),
                shared,
                shared_indices,
            },
            reason,
        ))
    }

    /// At least `k` of the `n / per` super shingles of `per` positions agree (on k-mins
    /// images each with probability `s^per`; one-permutation images simulated), at the width
    /// of the candidate threshold; no model on sorted images.
    fn detection(
        &self,
        cfg: &ClusterConfig,
        summary: &super::ClusterSummary,
        scheme: Option<crate::sketch::Scheme>,
        n: u32,
    ) -> Option<super::detection::Detection> {
        let positions = super::detection::Positions::of(scheme?)?;
        if n == 0 {
            return None;
        }
        let mut run = *cfg;
        if let (Some(c), Threshold::Resemblance(_)) = (summary.candidate_threshold, cfg.threshold) {
            run.threshold = Threshold::Resemblance(c);
        }
        let (per, _) = width(&run, true, n as usize).ok()?;
        Some(super::detection::Detection::SuperShingles {
            n,
            groups: n / per.max(1),
            per,
            min_shared: summary.k?,
            positions,
        })
    }

    /// Documents sharing a super shingle of the width the run uses on images of `n`
    /// elements of `scheme`.
    fn candidate_rule(
        &self,
        cfg: &ClusterConfig,
        _head: &super::ClusterSummary,
        scheme: crate::sketch::Scheme,
        n: usize,
    ) -> Result<Option<super::CandidateRule>> {
        let positional = scheme.is_positional();
        let (per, _) = width(cfg, positional, n)?;
        Ok(Some(super::CandidateRule::SuperShingles {
            cfg: SuperShingleConfig {
                per: Some(per),
                ..cfg.super_shingle
            },
            positional,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positional_groups_and_links() {
        let cfg = SuperShingleConfig {
            per: Some(2),
            ..Default::default()
        };
        // 0 and 1 share group 1 ([3,4]); 2 has [3,4] at group 0 -> no link (position matters);
        // 3 shares groups 0 and 1 with 0; 4 is too short.
        let images: Vec<Vec<u64>> = vec![
            vec![1, 2, 3, 4, 5],
            vec![9, 9, 3, 4, 6],
            vec![3, 4, 0, 0],
            vec![1, 2, 3, 4],
            vec![1],
        ];
        assert_eq!(super_shingles(&images[0], true, &cfg).len(), 2);
        let p = super_shingle_pairs(&images, true, &cfg).unwrap();
        assert_eq!(
            p,
            vec![
                (DocId(0), DocId(1), 1),
                (DocId(0), DocId(3), 2),
                (DocId(1), DocId(3), 1)
            ]
        );
        let cfg2 = SuperShingleConfig {
            min_shared: 2,
            ..cfg
        };
        assert_eq!(
            super_shingle_pairs(&images, true, &cfg2).unwrap(),
            vec![(DocId(0), DocId(3), 2)]
        );
        // Sorted (sliding windows): 2's [3,4] window now matches 0, 1 and 3.
        let p = super_shingle_pairs(&images, false, &cfg).unwrap();
        assert!(p.contains(&(DocId(0), DocId(2), 1)));
        assert!(p.contains(&(DocId(0), DocId(3), 3))); // [1,2],[2,3],[3,4]
        assert!(super_shingle_pairs(
            &images,
            true,
            &SuperShingleConfig {
                per: Some(0),
                ..cfg
            }
        )
        .is_err());
        // Precomputed value sets: duplicates within a document count once.
        let sets = vec![vec![5u64, 5, 6], vec![6, 5], vec![7]];
        assert_eq!(
            shared_value_pairs(&sets, 2).unwrap(),
            vec![(DocId(0), DocId(1), 2)]
        );
    }
}
