//! Henzinger's combined algorithm (SIGIR 2006, "Finding near-duplicate web pages: a
//! large-scale evaluation of algorithms"): Broder's super-shingle candidates, kept when
//! their Charikar fingerprints agree. Both sketches are made here from each document's full
//! shingle set, as the paper computes both per page.
//!
//! - Broder's part: k-mins images of the run's image size `n` (the images' size option,
//!   `--size`), cut in `n / per` super shingles of `per` values (`--super-per`, chosen for
//!   the threshold as super-shingle chooses it when not given); a candidate pair shares at
//!   least `--min-shared` of them (the paper's B-similarity).
//! - Charikar's part: `f`-bit fingerprints (`--bits`, [`crate::sketch::simhash`]); a
//!   candidate is kept when they differ in at most `h` bits (`--hamming`, else the distance
//!   the threshold implies, as simhash translates it; the paper's C-similarity is `f - h`
//!   agreeing bits).
//! - The paper's settings: 84 k-mins values in 6 super shingles of 14, at least 2 shared;
//!   384-bit fingerprints with at least 355 agreeing bits: `--size 84 --super-per 14
//!   --min-shared 2 --bits 384 --hamming 29`.
//!
//! Pairs are joined into connected components (union-find), each cluster's support its
//! weakest edge in agreeing bits; a pair's estimate is the resemblance its Hamming distance
//! implies.
//!
//! Invariant: the sketches are seeded by constants of this file, so the output depends
//! only on the shingle sets and the options, whatever the thread count.

use rayon::prelude::*;

use super::declared::{as_u32, OptKind, OptionDecl};
use super::method::{MethodSpec, Reads};
use super::run::{Arm, Found};
use super::supershingle::{super_shingle_pairs, width};
use super::{ClusterConfig, Regroup};
use crate::shingle::ShingleConfig;
use crate::sketch::pipeline::PipelineConfig;
use crate::sketch::simhash::hamming;
use crate::sketch::{Scheme, SketchConfig, Sketcher};
use crate::{DocId, Result};

/// The seed of both sketches ("henzingr").
const SEED: u64 = 0x6865_6e7a_696e_6772;

/// The options henzinger declares: Broder's super shingles (`super_per` as super-shingle
/// declares it), the shared ones it needs, and simhash's width and Hamming threshold.
const OPTIONS: &[OptionDecl] = &[
    super::supershingle::OPTIONS[0],
    OptionDecl {
        name: "min_shared",
        kind: OptKind::Count {
            default: Some(1),
            min: 1,
            max: crate::sketch::MAX_SIZE as u64,
        },
        help: "shared super shingles a candidate needs (Henzinger's B-similarity; 2 in the paper)",
        get: |c| serde_json::json!(c.super_shingle.min_shared),
        set: |c, v| c.super_shingle.min_shared = as_u32(v),
    },
    super::simhash::OPTIONS[0],
    super::simhash::OPTIONS[1],
];

/// The henzinger step of [`super::run_method`].
fn run(arm: &mut Arm<'_, '_>) -> Result<Found> {
    let cfg = *arm.cfg;
    let sets = arm.need(arm.inputs.sets, "the documents' full shingle sets")?;
    let sets = super::run::mask(sets, arm.collapse());
    let n = if arm.n == 0 { 128 } else { arm.n };
    let f = cfg.simhash.bits;
    let (per, _) = width(&cfg, true, n)?;
    let (h, rule) = cfg.simhash.hamming_for(cfg.threshold, f)?;
    let sketcher = |scheme: Scheme, size: usize| {
        Sketcher::new(
            ShingleConfig::default(),
            SketchConfig {
                scheme,
                size,
                seed: SEED,
                ..SketchConfig::default()
            },
        )
    };
    let (kmins, simhash) = (
        sketcher(Scheme::KMins, n)?,
        sketcher(Scheme::SimHash, f as usize)?,
    );
    let images: Vec<(Vec<u64>, Vec<u64>)> = sets
        .par_iter()
        .map(|set| {
            if set.is_empty() {
                return (Vec::new(), Vec::new());
            }
            let k = kmins.sketch_hashes(&mut set.to_vec()).into_values();
            let s = simhash.sketch_hashes(&mut set.to_vec()).into_values();
            (k, s)
        })
        .collect();
    arm.timer.lap("sketches");
    let ss = super::SuperShingleConfig {
        per: Some(per),
        ..cfg.super_shingle
    };
    let mins: Vec<&[u64]> = images.iter().map(|x| x.0.as_slice()).collect();
    let cand = super_shingle_pairs(&mins, true, &ss)?;
    arm.summary.candidates = Some(cand.len() as u64);
    arm.summary.k = Some(h);
    arm.summary.k_rule = format!(
        "{} super shingles of {per} k-mins values, >= {} shared; then {rule}",
        n as u32 / per.max(1),
        ss.min_shared
    );
    arm.timer.lap("super shingles");
    let edges: Vec<(DocId, DocId, u32)> = cand
        .par_iter()
        .filter_map(|&(a, b, _)| {
            let d = hamming(&images[a.index()].1, &images[b.index()].1);
            (d <= h).then_some((a, b, f - d))
        })
        .collect();
    arm.timer.lap("fingerprints");
    Ok(super::simhash::joined(arm, f, &edges))
}

/// Henzinger's combined algorithm: super-shingle candidates kept when their fingerprints
/// are within `h` bits.
pub(super) struct Henzinger;

impl MethodSpec for Henzinger {
    fn name(&self) -> &'static str {
        "henzinger"
    }

    fn reads(&self) -> Reads {
        Reads::Sets
    }

    fn options(&self) -> &'static [OptionDecl] {
        OPTIONS
    }

    /// The width a multiple of 64, the Hamming threshold below it.
    fn configure(&self, cfg: &mut ClusterConfig, _pipeline: &mut PipelineConfig) -> Result<()> {
        super::simhash::check_width(&cfg.simhash)
    }

    fn regroup(&self, _grouping_components: bool) -> Regroup {
        Regroup::Components
    }

    fn run(&self, arm: &mut Arm<'_, '_>) -> Result<Found> {
        run(arm)
    }

    /// Both numbers the combination compares: the exact resemblance of the sets (from
    /// which the sketches are made) and its threshold.
    fn pair_detail(
        &self,
        view: &super::pair_detail::PairView<'_>,
    ) -> Result<(super::pair_detail::MethodDetail, String)> {
        Ok(super::pair_detail::exact_detail(view))
    }

    /// None by key: the divided run gathers the sets.
    fn candidate_rule(
        &self,
        _cfg: &ClusterConfig,
        _head: &super::ClusterSummary,
        _scheme: Scheme,
        _n: usize,
    ) -> Result<Option<super::CandidateRule>> {
        Ok(None)
    }
}
