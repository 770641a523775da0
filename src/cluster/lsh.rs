//! Locality-sensitive hashing over k-mins images (H00 section 3): band hashes, candidate
//! pairs, the filtering pass, and the center clustering. The choice of bands and rows for a
//! threshold is [`super::threshold::choose_bands`].
//!
//! - [`candidate_pairs`]: band `i` of a document is the positions `[i·r, (i+1)·r)` of its image,
//!   keyed by the crate's one group hash ([`crate::sketch::hash::group_hashes`]: xxh3 with
//!   the seed over `i` and the little-endian values). Entries `(key, doc)` are sorted; every
//!   run of equal keys yields all its pairs.
//!   Pairs are deduplicated; documents with an empty image take part in no band.
//! - [`filter_pairs`]: keeps pairs whose images agree on at least `k` positions
//!   (`k = ceil(t·n)`), scored by the agreement fraction (the unbiased estimate of resemblance).
//! - [`center_clusters`]: H00's "center" clustering, defined here precisely: edges are
//!   scanned in descending score, ties by ascending `(a, b)`. For edge `(a, b)` (a < b):
//!   if neither end is assigned, `a` becomes a center and `b` joins it; else if one end is a
//!   center and the other is unassigned, the unassigned end joins that center; otherwise the
//!   edge is ignored. Every cluster is a center with at least one member; clusters are
//!   disjoint; a document left unassigned is a singleton (not a cluster).
//!
//! Invariant: every step sorts before it groups, so results do not depend on thread count.

use rayon::prelude::*;

use super::declared::{as_u32, OptKind, OptionDecl};
use super::method::{MethodSpec, Reads};
use super::run::{estimate, Arm, Found};
use super::threshold::{self, choose_bands_for, k_for_threshold, ImageKind};
use super::{ScoredPair, Threshold};
use crate::{DocId, Error, Result};

/// Weights and seed of the LSH method.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LshConfig {
    /// Bands and rows to use instead of the optimised choice (`b · r` must equal `n`).
    pub bands_rows: Option<(u32, u32)>,
    /// Weight of the false-positive area (default 0.5).
    pub fp_weight: f64,
    /// Weight of the false-negative area (default 0.5).
    pub fn_weight: f64,
    /// Seed of the band hashes.
    pub seed: u64,
    /// How the filtered pairs become clusters.
    pub grouping: Grouping,
}

/// The weight of the false-negative area when none is given.
pub const DEFAULT_FN_WEIGHT: f64 = 0.5;

/// The options lsh declares.
const OPTIONS: &[OptionDecl] = &[
    OptionDecl {
        name: "bands",
        kind: OptKind::Count {
            default: None,
            min: 1,
            max: crate::sketch::MAX_SIZE as u64,
        },
        help: "number of bands b (rows r = n / b; b must divide the image size n) [default: the optimised choice]",
        get: |c| serde_json::json!(c.lsh.bands_rows.map(|(b, _)| b)),
        // The rows follow from the image size (`configure`).
        set: |c, v| c.lsh.bands_rows = Some((as_u32(v), 0)),
    },
    OptionDecl {
        name: "fn_weight",
        kind: OptKind::Real {
            default: DEFAULT_FN_WEIGHT,
            min: 0.0,
            max: 1.0,
        },
        help: "weight of the false-negative area when choosing b and r (false positives get 1 - w; the filtering pass removes false positives, so recall is worth more)",
        get: |c| serde_json::json!(c.lsh.fn_weight),
        set: |c, v| {
            let w = v.as_f64().unwrap_or(DEFAULT_FN_WEIGHT);
            c.lsh.fn_weight = w;
            c.lsh.fp_weight = 1.0 - w;
        },
    },
    OptionDecl {
        name: "grouping",
        kind: OptKind::Choice {
            default: "center",
            choices: &["center", "union-find"],
        },
        help: "how filtered pairs become clusters: H00's centers, or connected components",
        get: |c| serde_json::json!(c.lsh.grouping.to_string()),
        set: |c, v| {
            c.lsh.grouping = match v.as_str() {
                Some("union-find") => Grouping::UnionFind,
                _ => Grouping::Center,
            }
        },
    },
];

impl Default for LshConfig {
    fn default() -> Self {
        LshConfig {
            bands_rows: None,
            fp_weight: 1.0 - DEFAULT_FN_WEIGHT,
            fn_weight: DEFAULT_FN_WEIGHT,
            seed: 0x6669_6d64_7570_6c73, // "fimdupls"
            grouping: Grouping::Center,
        }
    }
}

impl LshConfig {
    /// Weights must be finite, non-negative and not both zero; bands and rows positive.
    pub fn validate(&self) -> Result<()> {
        let ok = |w: f64| w.is_finite() && w >= 0.0;
        if !ok(self.fp_weight) || !ok(self.fn_weight) || self.fp_weight + self.fn_weight <= 0.0 {
            return Err(Error::config(
                "LSH weights must be finite, non-negative and not both zero",
            ));
        }
        if let Some((b, r)) = self.bands_rows {
            if b == 0 || r == 0 {
                return Err(Error::config("LSH bands and rows must be positive"));
            }
        }
        Ok(())
    }
}

/// How a graph of similar pairs becomes clusters.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Grouping {
    /// H00 center clustering (disjoint, star-shaped clusters).
    #[default]
    Center,
    /// Connected components (transitive closure).
    UnionFind,
}

impl std::fmt::Display for Grouping {
    /// The name [`std::str::FromStr`] reads.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Grouping::Center => "center",
            Grouping::UnionFind => "union-find",
        })
    }
}

impl std::str::FromStr for Grouping {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "center" => Ok(Grouping::Center),
            "union-find" => Ok(Grouping::UnionFind),
            _ => Err(Error::config(format!(
                "grouping must be center or union-find, not {s:?}"
            ))),
        }
    }
}

/// Length of the images (all non-empty images must have it); 0 when all are empty.
pub fn image_len<S: AsRef<[u64]>>(images: &[S]) -> Result<usize> {
    let mut n = 0;
    for (d, im) in images.iter().enumerate() {
        let l = im.as_ref().len();
        if l == 0 {
            continue;
        }
        if n == 0 {
            n = l;
        } else if l != n {
            return Err(Error::config(format!(
                "k-mins image of document {d} has {l} positions, expected {n}"
            )));
        }
    }
    Ok(n)
}

/// Candidate pairs `(a, b)`, `a < b`, sorted and distinct: documents whose images agree on
/// all `r` positions of at least one of the `b` bands (detected through equal band hashes).
pub fn candidate_pairs<S: AsRef<[u64]> + Sync>(
    images: &[S],
    bands: u32,
    rows: u32,
    seed: u64,
) -> Result<Vec<(DocId, DocId)>> {
    let n = image_len(images)?;
    if n == 0 {
        return Ok(Vec::new());
    }
    if (bands as usize) * (rows as usize) != n {
        return Err(Error::config(format!(
            "bands x rows = {bands} x {rows} must equal the image length {n}"
        )));
    }
    Ok(pairs_sharing_groups(
        images,
        rows as usize,
        bands as usize,
        seed,
    ))
}

/// Pairs `(a, b)`, `a < b`, sorted and distinct, of documents whose images agree on all
/// `per` positions of at least one of the groups `j*per .. (j+1)*per`, `j < count` (groups
/// past the image's end are left out), detected through equal group hashes.
pub(crate) fn pairs_sharing_groups<S: AsRef<[u64]> + Sync>(
    images: &[S],
    per: usize,
    count: usize,
    seed: u64,
) -> Vec<(DocId, DocId)> {
    // A band is a group of `per` positions: its key is the crate's one group hash, which
    // holds the band index, so equal keys are equal bands of the same index.
    let mut entries: Vec<(u64, u32)> = images
        .par_iter()
        .enumerate()
        .flat_map_iter(|(d, im)| {
            crate::sketch::hash::group_hashes(im.as_ref(), true, per, count, seed)
                .into_iter()
                .map(move |h| (h, d as u32))
        })
        .collect();
    entries.par_sort_unstable();
    let mut starts = Vec::new();
    for i in 0..entries.len() {
        if i == 0 || entries[i].0 != entries[i - 1].0 {
            starts.push(i);
        }
    }
    starts.push(entries.len());
    let mut pairs: Vec<(DocId, DocId)> = starts
        .par_windows(2)
        .flat_map_iter(|w| {
            let run = &entries[w[0]..w[1]];
            (0..run.len()).flat_map(move |i| {
                (i + 1..run.len()).map(move |j| (DocId(run[i].1), DocId(run[j].1)))
            })
        })
        .collect();
    pairs.par_sort_unstable();
    pairs.dedup();
    pairs
}

/// Number of positions at which two images agree.
pub fn agreements(a: &[u64], b: &[u64]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x == y).count()
}

/// The filtering pass: keeps candidate pairs whose images agree on at least `k` positions,
/// as `(a, b, agreeing positions)`.
pub fn filter_pairs<S: AsRef<[u64]> + Sync>(
    images: &[S],
    candidates: &[(DocId, DocId)],
    k: u32,
) -> Vec<(DocId, DocId, u32)> {
    candidates
        .par_iter()
        .filter_map(|&(a, b)| {
            let c = agreements(images[a.index()].as_ref(), images[b.index()].as_ref()) as u32;
            (c >= k).then_some((a, b, c))
        })
        .collect()
}

/// H00 center clustering of a weighted pair graph (definition in the module docs). Edges
/// are `(a, b, score)` with `a != b`; scores compare by `total_cmp`. Returns clusters
/// (center first, then members ascending) ordered by center.
pub fn center_clusters(n_docs: usize, edges: &[(DocId, DocId, f64)]) -> Vec<Vec<DocId>> {
    let mut order: Vec<(DocId, DocId, f64)> = edges
        .iter()
        .map(|&(a, b, s)| if a < b { (a, b, s) } else { (b, a, s) })
        .collect();
    order.sort_by(|x, y| y.2.total_cmp(&x.2).then(x.0.cmp(&y.0)).then(x.1.cmp(&y.1)));
    const FREE: u32 = u32::MAX;
    // assigned[d] = the center of d's cluster (d itself for a center), FREE if unassigned.
    let mut assigned = vec![FREE; n_docs];
    for &(a, b, _) in &order {
        let (ai, bi) = (a.index(), b.index());
        match (assigned[ai], assigned[bi]) {
            (FREE, FREE) => {
                assigned[ai] = a.0;
                assigned[bi] = a.0;
            }
            (c, FREE) if c == a.0 => assigned[bi] = a.0,
            (FREE, c) if c == b.0 => assigned[ai] = b.0,
            _ => {}
        }
    }
    let mut by_center: Vec<Vec<DocId>> = vec![Vec::new(); n_docs];
    for (d, &c) in assigned.iter().enumerate() {
        if c != FREE && c as usize != d {
            by_center[c as usize].push(DocId(d as u32));
        }
    }
    by_center
        .into_iter()
        .enumerate()
        .filter(|(_, m)| !m.is_empty())
        .map(|(c, m)| std::iter::once(DocId(c as u32)).chain(m).collect())
        .collect()
}

/// The LSH step of [`super::run_method`]: bands of the representatives' positional images
/// (chosen for the threshold unless given), the filtering pass at the method's k, and the
/// grouping (center clusters, or connected components).
fn run(arm: &mut Arm<'_, '_>) -> Result<Found> {
    let cfg = arm.cfg;
    let positional = arm.need(arm.inputs.positional, "positional (k-mins) images")?;
    let images = super::run::mask(positional, arm.collapse());
    let n = image_len(&images)?;
    arm.summary.image_size = n as u64;
    if n == 0 {
        return Ok(Found {
            sets: Vec::new(),
            edges: Vec::new(),
        });
    }
    // Full positional values, or b-bit ones (chance agreement in the translation, the
    // band choice and the estimate).
    let kind = match cfg.image_kind {
        k @ ImageKind::BBit { .. } => k,
        _ => ImageKind::KMins,
    };
    let (k, t) = match cfg.threshold {
        Threshold::MinCommon(k) => {
            arm.summary.k_rule = format!("min-common {k} agreeing positions");
            (k, estimate(k, n, kind).unwrap_or(0.0))
        }
        Threshold::Resemblance(t) => {
            arm.summary.k_rule = threshold::describe(t, n, kind);
            (k_for_threshold(t, n, kind), t)
        }
    };
    arm.summary.k = Some(k);
    let (b, r) = match cfg.lsh.bands_rows {
        Some(br) => br,
        None => choose_bands_for(
            n as u32,
            t.min(1.0),
            cfg.lsh.fp_weight,
            cfg.lsh.fn_weight,
            kind,
        )?,
    };
    arm.summary.bands = Some(b);
    arm.summary.rows = Some(r);
    let cand = candidate_pairs(&images, b, r, cfg.lsh.seed)?;
    arm.summary.candidates = Some(cand.len() as u64);
    arm.timer.lap("bands");
    let kept = filter_pairs(&images, &cand, k);
    arm.timer.lap("filter");
    let comps = arm.components(&kept);
    let sets = match cfg.lsh.grouping {
        Grouping::UnionFind => comps,
        Grouping::Center => {
            let w: Vec<(DocId, DocId, f64)> = kept
                .iter()
                .map(|&(a, b, c)| (a, b, estimate(c, n, kind).unwrap_or(0.0)))
                .collect();
            center_clusters(arm.n_docs(), &w)
                .into_iter()
                .map(|c| {
                    let center = c[0];
                    let sup = c[1..]
                        .iter()
                        .map(|&m| agreements(images[center.index()], images[m.index()]) as u32)
                        .min()
                        .unwrap_or(0);
                    (c, sup)
                })
                .collect()
        }
    };
    arm.timer.lap("cluster");
    let edges: Vec<ScoredPair> = Arm::scored(&kept, |_, c| estimate(c, n, kind), |_| None);
    Ok(Found { sets, edges })
}

/// The band keys of a positional image (none for an empty image or no bands): equal keys
/// are equal bands of the same index.
pub(crate) fn band_keys(image: &[u64], bands: u32, rows: u32, seed: u64) -> Vec<u64> {
    if image.is_empty() || bands == 0 {
        return Vec::new();
    }
    crate::sketch::hash::group_hashes(image, true, rows as usize, bands as usize, seed)
}

/// The lsh method (H00): bands of positional images, the filtering pass, center
/// clusters (or connected components).
pub(super) struct Lsh;

impl MethodSpec for Lsh {
    fn name(&self) -> &'static str {
        "lsh"
    }

    fn options(&self) -> &'static [OptionDecl] {
        OPTIONS
    }

    /// The rows of given bands: the image size over the bands, which must divide it.
    fn configure(
        &self,
        cfg: &mut super::ClusterConfig,
        pipeline: &mut crate::sketch::pipeline::PipelineConfig,
    ) -> Result<()> {
        let n = pipeline.sketch.size as u32;
        if let Some((b, 0)) = cfg.lsh.bands_rows {
            if b == 0 || !n.is_multiple_of(b) {
                return Err(Error::config(format!(
                    "option bands takes a divisor of the image size {n}, not {b}"
                )));
            }
            cfg.lsh.bands_rows = Some((b, n / b));
        }
        Ok(())
    }

    fn reads(&self) -> Reads {
        Reads::Positional
    }

    fn regroup(&self, grouping_components: bool) -> super::Regroup {
        if grouping_components {
            super::Regroup::Components
        } else {
            super::Regroup::Cliques
        }
    }

    fn run(&self, arm: &mut Arm<'_, '_>) -> Result<Found> {
        run(arm)
    }

    /// The band layout, the bands whose hashes collide (with the run's seed) and the
    /// positions the filtering pass counts.
    fn pair_detail(
        &self,
        v: &super::pair_detail::PairView<'_>,
    ) -> Result<(super::pair_detail::MethodDetail, String)> {
        let s = v.summary;
        let (ia, ib) = v.images;
        let (bands, rows) = (s.bands.unwrap_or(0), s.rows.unwrap_or(0));
        let bh = |im: &crate::sketch::Image| {
            crate::sketch::hash::group_hashes(
                im.values(),
                true,
                rows as usize,
                bands as usize,
                v.cfg.lsh.seed,
            )
        };
        let (ha, hb) = (bh(ia), bh(ib));
        let colliding: Vec<u32> = ha
            .iter()
            .zip(&hb)
            .enumerate()
            .filter(|(_, (x, y))| x == y)
            .map(|(i, _)| i as u32)
            .collect();
        let agreeing = agreements(ia.values(), ib.values());
        let k = s.k.unwrap_or(0);
        let why = if colliding.is_empty() {
            "no band collides, so the pair is never a candidate".to_string()
        } else {
            format!(
                "{} of {bands} bands collide ({}), and the images agree on {agreeing} of {} positions against the filtering pass's k = {k}",
                colliding.len(),
                super::pair_detail::list(&colliding),
                v.n()
            )
        };
        Ok((
            super::pair_detail::MethodDetail::Lsh {
                bands,
                rows,
                colliding_bands: colliding,
                agreeing,
                k,
            },
            format!("{bands} bands x {rows} rows; {why}"),
        ))
    }

    /// A band of `rows` agreeing positions in one of `bands`, then at least `k` agreeing
    /// positions in the filtering pass (H00), on the positional images it ran on.
    fn detection(
        &self,
        _cfg: &super::ClusterConfig,
        summary: &super::ClusterSummary,
        scheme: Option<crate::sketch::Scheme>,
        _n: u32,
    ) -> Option<super::detection::Detection> {
        Some(super::detection::Detection::Bands {
            bands: summary.bands?,
            rows: summary.rows?,
            min_agree: summary.k?,
            positions: super::detection::Positions::of(scheme?)?,
        })
    }

    /// Documents sharing a band (the bands and rows `head` chose).
    fn candidate_rule(
        &self,
        cfg: &super::ClusterConfig,
        head: &super::ClusterSummary,
        _scheme: crate::sketch::Scheme,
        _n: usize,
    ) -> Result<Option<super::CandidateRule>> {
        Ok(Some(super::CandidateRule::Bands {
            bands: head.bands.unwrap_or(0),
            rows: head.rows.unwrap_or(0),
            seed: cfg.lsh.seed,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_filter_and_centers() {
        // n = 4, b = 2 bands of r = 2.
        let images: Vec<Vec<u64>> = vec![
            vec![1, 2, 3, 4], // 0
            vec![1, 2, 9, 9], // 1: band 0 with 0 (2 agreements)
            vec![7, 7, 3, 4], // 2: band 1 with 0
            vec![1, 2, 3, 5], // 3: band 0 with 0 and 1 (3 agreements with 0)
            vec![],           // 4: empty
            vec![8, 8, 8, 8], // 5: alone
        ];
        let c = candidate_pairs(&images, 2, 2, 7).unwrap();
        let ids = |v: &[(u32, u32)]| {
            v.iter()
                .map(|&(a, b)| (DocId(a), DocId(b)))
                .collect::<Vec<_>>()
        };
        assert_eq!(c, ids(&[(0, 1), (0, 2), (0, 3), (1, 3)]));
        let f = filter_pairs(&images, &c, 2);
        assert_eq!(
            f,
            vec![
                (DocId(0), DocId(1), 2),
                (DocId(0), DocId(2), 2),
                (DocId(0), DocId(3), 3),
                (DocId(1), DocId(3), 2)
            ]
        );
        assert!(candidate_pairs(&images, 4, 2, 7).is_err());
        assert!(candidate_pairs(&[vec![1u64, 2], vec![1]], 1, 2, 7).is_err());
        // Centers: (0,3) first (0.75) -> center 0 with 3; then (0,1), (0,2) join 0; (1,3) ignored.
        let e: Vec<_> = f
            .iter()
            .map(|&(a, b, c)| (a, b, f64::from(c) / 4.0))
            .collect();
        assert_eq!(
            center_clusters(6, &e),
            vec![vec![DocId(0), DocId(1), DocId(2), DocId(3)]]
        );
    }

    #[test]
    fn center_is_not_transitive_closure() {
        // Path 0-1-2-3 with descending weights: (0,1) makes 0 a center with 1; (1,2): 1 is a
        // member, 2 free -> ignored; (2,3): both free -> center 2 with 3.
        let e = vec![
            (DocId(0), DocId(1), 0.9),
            (DocId(2), DocId(1), 0.8),
            (DocId(2), DocId(3), 0.7),
        ];
        assert_eq!(
            center_clusters(5, &e),
            vec![vec![DocId(0), DocId(1)], vec![DocId(2), DocId(3)]]
        );
        // Ties break by (a, b): (1,2) before (2,3) at equal score.
        let e = vec![(DocId(2), DocId(3), 0.5), (DocId(1), DocId(2), 0.5)];
        assert_eq!(center_clusters(4, &e), vec![vec![DocId(1), DocId(2)]]);
        // A center keeps collecting its free neighbours: star around 3.
        let e = vec![
            (DocId(3), DocId(0), 0.9),
            (DocId(3), DocId(4), 0.6),
            (DocId(0), DocId(4), 0.95),
        ];
        // (0,4) first: 0 center with 4; (0,3): 0 is center, 3 free -> joins 0; (3,4) ignored.
        assert_eq!(
            center_clusters(5, &e),
            vec![vec![DocId(0), DocId(3), DocId(4)]]
        );
    }
}
