//! The union-find method (B97 4.1): the pairs of representatives sharing at least `k` rows
//! of the context (the `<id,id,count>` phase, [`pair_counts`], spilled under the run's
//! memory budget), joined into connected components ([`super::uf`]); each cluster's support
//! is its weakest edge.
//!
//! On b-bit images the pairs come from blocks of positions instead of the context
//! ([`super::bbit_pairs`]: the same pairs, without rows of 1/2^b of the documents).
//!
//! Invariant: edges come out sorted by `(a, b)` and components ordered by their smallest
//! member, whatever the thread count.

use super::method::{MethodSpec, Reads};
use super::run::{components_with_support, estimate, Arm, Found};
use super::{ImageKind, Regroup};
use crate::context::{pair_counts, pair_counts_streamed, Context};
use crate::spill::SpillConfig;
use crate::{DocId, Error, Result};

/// B97 4.1 on a context: the pairs sharing `>= k` elements (the `<id,id,count>` phase) and
/// their connected components, each with its weakest edge as support.
#[allow(clippy::type_complexity)]
pub fn union_find_clusters(
    ctx: &Context,
    k: u32,
    spill: &SpillConfig,
) -> Result<(Vec<(DocId, DocId, u32)>, Vec<(Vec<DocId>, u32)>)> {
    let edges = pair_counts(ctx.rows(), ctx.n_docs(), k, spill)?;
    let comps = components_with_support(ctx.n_docs() as usize, &edges);
    Ok((edges, comps))
}

/// The union-find step of [`super::run_method`].
fn run(arm: &mut Arm<'_, '_>) -> Result<Found> {
    let kind = arm.cfg.image_kind;
    let k = arm.k(arm.n, kind)?;
    arm.summary.k = Some(k);
    if let ImageKind::BBit { bits } = kind {
        // The context's rows would hold 1/2^b of the documents each: the blocks of
        // `bbit_pairs` find the same pairs.
        let positional = match (arm.inputs.positional, arm.inputs.spilled) {
            (Some(p), None) if arm.inputs.context.is_none() => p,
            _ => {
                return Err(Error::config(
                    "union-find on b-bit images needs the positional images in memory, not a \
             ready context (its rows of (position, value) hold 1/2^b of the documents)",
                ))
            }
        };
        let images = super::run::mask(positional, arm.collapse());
        let e = super::bbit_pairs::agreeing_pairs(&images, k, bits)?;
        arm.timer.lap("pairs");
        let sets = arm.components(&e);
        arm.timer.lap("union-find");
        let n = arm.n;
        return Ok(Found {
            sets,
            edges: Arm::scored(&e, |_, c| estimate(c, n, kind), |_| None),
        });
    }
    let e = match arm.spilled_context()? {
        Some(sc) => pair_counts_streamed(sc, sc.n_docs(), k, arm.spill())?,
        None => {
            let ctx = arm.context()?;
            pair_counts(ctx.rows(), arm.n_docs() as u32, k, arm.spill())?
        }
    };
    arm.timer.lap("pairs");
    let sets = arm.components(&e);
    arm.timer.lap("union-find");
    let n = arm.n;
    Ok(Found {
        sets,
        edges: Arm::scored(&e, |_, c| estimate(c, n, kind), |_| None),
    })
}

/// The union-find method (B97 4.1): connected components of the pairs sharing `k`
/// elements; by containment, on mod-m images ([`super::containment`]).
pub(super) struct UnionFind;

impl MethodSpec for UnionFind {
    fn name(&self) -> &'static str {
        "union-find"
    }

    fn reads(&self) -> Reads {
        Reads::Elements
    }

    fn measures_containment(&self) -> bool {
        true
    }

    fn regroup(&self, _grouping_components: bool) -> Regroup {
        Regroup::Components
    }

    fn run(&self, arm: &mut Arm<'_, '_>) -> Result<Found> {
        if arm.cfg.measure == super::Measure::Containment {
            super::containment::run_mod_m(arm)
        } else {
            run(arm)
        }
    }

    fn pair_detail(
        &self,
        view: &super::pair_detail::PairView<'_>,
    ) -> Result<(super::pair_detail::MethodDetail, String)> {
        Ok(super::pair_detail::shared_elements_detail(view))
    }

    /// At least `k` shared elements of `n`: k-mins positions agree independently with
    /// probability `s`; bottom-k by its exact law from the set sizes, one-permutation bins
    /// simulated ([`super::detection`]).
    fn detection(
        &self,
        _cfg: &super::ClusterConfig,
        summary: &super::ClusterSummary,
        scheme: Option<crate::sketch::Scheme>,
        n: u32,
    ) -> Option<super::detection::Detection> {
        super::detection::Detection::shared_elements(summary, scheme, n)
    }

    /// Documents sharing `k` elements.
    fn candidate_rule(
        &self,
        _cfg: &super::ClusterConfig,
        head: &super::ClusterSummary,
        _scheme: crate::sketch::Scheme,
        _n: usize,
    ) -> Result<Option<super::CandidateRule>> {
        Ok(Some(super::CandidateRule::shared_elements(head)))
    }
}
