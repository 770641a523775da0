//! The union-find method (B97 4.1): the pairs of representatives sharing at least `k` rows
//! of the context (the `<id,id,count>` phase, [`pair_counts`], spilled under the run's
//! memory budget), joined into connected components ([`super::uf`]); each cluster's support
//! is its weakest edge.
//!
//! Invariant: edges come out sorted by `(a, b)` and components ordered by their smallest
//! member, whatever the thread count.

use super::run::{components_with_support, estimate, Arm, Found};
use crate::context::{pair_counts, pair_counts_streamed, Context};
use crate::spill::SpillConfig;
use crate::{DocId, Result};

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
pub(super) fn run(arm: &mut Arm<'_, '_>) -> Result<Found> {
    let kind = arm.cfg.image_kind;
    let k = arm.k(arm.n, kind)?;
    arm.summary.k = Some(k);
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

/// Union-find's candidate rule: documents sharing `k` elements (its edges).
pub(crate) fn candidate_rule(head: &super::ClusterSummary) -> super::CandidateRule {
    super::CandidateRule::Elements {
        k: head.k.unwrap_or(1),
    }
}
