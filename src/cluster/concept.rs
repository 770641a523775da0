//! Concept clusters (IK09): sets of at least two documents sharing at least `k` image
//! elements, as the maximal frequent itemsets of the shingle-rows context (transactions =
//! image elements, items = DocIds) at minimum support `k`.
//!
//! Component split: every pair inside such a set shares `>= k` elements, so each set lies in
//! one connected component of the pair graph (pairs sharing `>= k` elements). Restricted to a
//! component `C`, the transactions keep the supports of every itemset inside `C`, and every
//! frequent superset of a set inside `C` is inside `C` too; so the maximal sets of size `>= 2`
//! of the whole context are exactly the union over components of the maximal sets of size
//! `>= 2` of each component's sub-context. Sub-contexts number their documents `0..|C|` in
//! ascending DocId order and keep only rows with at least two documents of `C` (a row with one
//! only supports singletons, which are not clusters). Components are mined in parallel,
//! largest first. The test `split_equals_whole` checks the equality.
//!
//! The pair graph is counted under the run's memory budget (`pair_counts`, spilled sorted
//! runs when it does not fit).
//!
//! Invariant: the result is sorted (see [`super::finish_clusters`]) whatever the thread count.

use rayon::prelude::*;

use super::declared::{OptKind, OptionDecl};
use super::method::{MethodSpec, Reads};
use super::run::{estimate, Arm, Found};
use super::uf;
use crate::context::{pair_counts, pair_counts_streamed, RowSource, SpilledContext};
use crate::fimi::Transactions;
use crate::mine::{self, Itemset, MinSupport, MineConfig, Target};
use crate::spill::{ExternalSorter, SpillConfig};
use crate::{DocId, Error, Result};

/// A maximal frequent itemset miner: given transactions, an absolute minimum support and an
/// optional cap on the number of itemsets, returns every maximal frequent itemset (items
/// ascending), or [`Error::Limit`] when the cap is exceeded. Any
/// `Fn(&Transactions, u64, Option<u64>) -> Result<Vec<Itemset>> + Sync` is one, e.g.
/// `|t, k, max| mine::mine(t, &MineConfig { minsup: MinSupport::Absolute(k), target:
/// Target::Maximal, max_itemsets: max })`; tests use a brute-force miner.
pub trait MaximalMiner: Sync {
    /// Mines the maximal frequent itemsets of `t` at absolute support `minsup`, producing at
    /// most `max_itemsets` of them.
    fn mine_maximal(
        &self,
        t: &Transactions,
        minsup: u64,
        max_itemsets: Option<u64>,
    ) -> Result<Vec<Itemset>>;
}

/// The project's maximal itemset miner ([`mine::mine`]); a [`MaximalMiner`] through the
/// impl for functions (`&fp_miner`).
pub fn fp_miner(t: &Transactions, minsup: u64, max_itemsets: Option<u64>) -> Result<Vec<Itemset>> {
    mine::mine(
        t,
        &MineConfig {
            minsup: MinSupport::Absolute(minsup),
            target: Target::Maximal,
            max_itemsets,
        },
    )
}

impl<F> MaximalMiner for F
where
    F: Fn(&Transactions, u64, Option<u64>) -> Result<Vec<Itemset>> + Sync,
{
    fn mine_maximal(
        &self,
        t: &Transactions,
        minsup: u64,
        max_itemsets: Option<u64>,
    ) -> Result<Vec<Itemset>> {
        self(t, minsup, max_itemsets)
    }
}

/// Concept clustering options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ConceptConfig {
    /// Stop with [`Error::Limit`] when more itemsets than this come out (in total, or from one
    /// component); `None` for no limit. Default 1,000,000.
    pub max_itemsets: Option<u64>,
    /// Mine each connected component of the pair graph separately (default true).
    pub split_components: bool,
}

/// The itemset cap when none is given.
pub const DEFAULT_MAX_ITEMSETS: u64 = 1_000_000;

/// The options concept declares.
const OPTIONS: &[OptionDecl] = &[
    OptionDecl {
        name: "max_itemsets",
        kind: OptKind::Count {
            default: Some(DEFAULT_MAX_ITEMSETS),
            min: 1,
            max: u64::MAX,
        },
        help: "stop with an error when more itemsets than this come out",
        get: |c| serde_json::json!(c.concept.max_itemsets),
        set: |c, v| c.concept.max_itemsets = v.as_u64(),
    },
    OptionDecl {
        name: "no_split",
        kind: OptKind::Flag,
        help: "mine the whole context at once instead of one connected component at a time",
        get: |c| serde_json::json!(!c.concept.split_components),
        set: |c, v| c.concept.split_components = !v.as_bool().unwrap_or(false),
    },
];

impl Default for ConceptConfig {
    fn default() -> Self {
        ConceptConfig {
            max_itemsets: Some(DEFAULT_MAX_ITEMSETS),
            split_components: true,
        }
    }
}

impl ConceptConfig {
    /// `max_itemsets`, when given, must be positive.
    pub fn validate(&self) -> Result<()> {
        if self.max_itemsets == Some(0) {
            return Err(Error::config("max_itemsets must be at least 1"));
        }
        Ok(())
    }
}

/// Concept clusters and what it took to find them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConceptResult {
    /// `(documents ascending, support)`, one per maximal itemset of size >= 2, sorted by
    /// documents.
    pub sets: Vec<(Vec<DocId>, u32)>,
    /// Pairs sharing `>= k` elements (the graph that was split), `(a, b, shared)` sorted.
    pub edges: Vec<(DocId, DocId, u32)>,
    /// Number of components mined (1 when not split and the context is not empty).
    pub components: u64,
    /// Documents in the largest component.
    pub largest_component: u64,
}

fn limit_check(count: usize, cfg: &ConceptConfig, what: &str) -> Result<()> {
    if let Some(m) = cfg.max_itemsets {
        if count as u64 > m {
            return Err(Error::Limit(format!(
                "{what} produced {count} itemsets, more than max_itemsets = {m}"
            )));
        }
    }
    Ok(())
}

/// The shingle-rows transactions of each component (documents ascending), renumbered
/// `0..|component|`, keeping rows with at least two documents of the component. One pass
/// over the rows: each row is cut into its per-component runs.
fn sub_transactions(rows: &Transactions, n_docs: u32, comps: &[Vec<DocId>]) -> Vec<Transactions> {
    let comp_of = component_index(n_docs, comps);
    let mut out: Vec<Transactions> = vec![Transactions::new(); comps.len()];
    let (mut buf, mut local) = (Vec::new(), Vec::new());
    for r in rows.iter() {
        split_row(r, &comp_of, &mut buf, &mut local, |c, l| {
            out[c as usize].push(l);
            Ok(())
        })
        .expect("pushing in memory does not fail");
    }
    out
}

/// No component (see [`component_index`]).
const NONE: u32 = u32::MAX;

/// Concept clusters of the context given by its rows (each the DocIds holding one element)
/// over `n_docs` documents, at minimum support `k >= 1`.
pub fn concept_clusters(
    rows: &Transactions,
    n_docs: u32,
    k: u32,
    miner: &dyn MaximalMiner,
    cfg: &ConceptConfig,
    spill: &SpillConfig,
) -> Result<ConceptResult> {
    concept_of(Rows::Memory(rows), n_docs, k, miner, cfg, spill)
}

/// [`concept_clusters`] of a context whose rows are in a file: the pair counts and the
/// components' transactions go through sorted runs on disk under `spill`, and the
/// components are mined in batches of bounded size. The same result.
pub fn concept_clusters_spilled(
    rows: &SpilledContext,
    k: u32,
    miner: &dyn MaximalMiner,
    cfg: &ConceptConfig,
    spill: &SpillConfig,
) -> Result<ConceptResult> {
    concept_of(Rows::File(rows), rows.n_docs(), k, miner, cfg, spill)
}

/// The rows a concept run reads.
#[derive(Clone, Copy)]
enum Rows<'a> {
    Memory(&'a Transactions),
    File(&'a SpilledContext),
}

fn concept_of(
    rows: Rows<'_>,
    n_docs: u32,
    k: u32,
    miner: &dyn MaximalMiner,
    cfg: &ConceptConfig,
    spill: &SpillConfig,
) -> Result<ConceptResult> {
    cfg.validate()?;
    if k == 0 {
        return Err(Error::config("concept clusters need k >= 1"));
    }
    let edges = match rows {
        Rows::Memory(t) => pair_counts(t, n_docs, k, spill)?,
        Rows::File(f) => pair_counts_streamed(f, n_docs, k, spill)?,
    };
    let comps: Vec<Vec<DocId>> = if cfg.split_components {
        uf::components(n_docs as usize, edges.iter().map(|&(a, b, _)| (a, b)))
    } else if edges.is_empty() {
        Vec::new()
    } else {
        vec![(0..n_docs).map(DocId).collect()]
    };
    let largest_component = comps.iter().map(|c| c.len() as u64).max().unwrap_or(0);
    // A component of two documents is one edge: its only maximal set of size >= 2 is the
    // pair itself, with the shared count as support. Only larger components are mined.
    let n_comps = comps.len() as u64;
    let (pairs, comps): (Vec<Vec<DocId>>, Vec<Vec<DocId>>) = comps
        .into_iter()
        .partition(|c| c.len() == 2 && cfg.split_components);
    let pair_sets: Vec<(Vec<DocId>, u32)> = pairs
        .into_iter()
        .map(|mut c| {
            c.sort_unstable();
            let i = edges
                .binary_search_by_key(&(c[0], c[1]), |e| (e.0, e.1))
                .expect("a two-document component is one edge");
            (c, edges[i].2)
        })
        .collect();
    let mut sets: Vec<(Vec<DocId>, u32)> = Vec::new();
    let mut mine_batch = |batch: Vec<(usize, Transactions)>| -> Result<()> {
        // Largest first for load balance; results are re-sorted afterwards.
        let mut by_size = batch;
        by_size.sort_by_key(|c| std::cmp::Reverse(c.1.total_items()));
        let per_comp: Vec<Vec<(Vec<DocId>, u32)>> = by_size
            .par_iter()
            .map(|(c, t)| {
                let comp = &comps[*c];
                let found = miner.mine_maximal(t, u64::from(k), cfg.max_itemsets)?;
                limit_check(found.len(), cfg, "one component")?;
                Ok(found
                    .into_iter()
                    .filter(|s| s.items.len() >= 2)
                    .map(|s| {
                        let docs: Vec<DocId> = s.items.iter().map(|&i| comp[i as usize]).collect();
                        (docs, s.support)
                    })
                    .collect())
            })
            .collect::<Result<_>>()?;
        sets.extend(per_comp.into_iter().flatten());
        limit_check(sets.len(), cfg, "mining")
    };
    match rows {
        Rows::Memory(t) => {
            let subs = sub_transactions(t, n_docs, &comps);
            mine_batch(subs.into_iter().enumerate().collect())?;
        }
        Rows::File(f) => {
            // What is left of the budget besides the edges and the component index: a
            // quarter for each batch of transactions, the rest for the sorted runs.
            let held = crate::plan::components_held(u64::from(n_docs), edges.len() as u64);
            let room = spill.hand("component batches", spill.less(held).room());
            let (batch_bytes, runs) = crate::plan::component_shares(spill, room);
            sub_transactions_spilled(f, n_docs, &comps, &runs, batch_bytes, &mut mine_batch)?;
        }
    }
    sets.extend(pair_sets);
    limit_check(sets.len(), cfg, "mining")?;
    for s in &mut sets {
        s.0.sort_unstable();
    }
    sets.sort();
    Ok(ConceptResult {
        sets,
        edges,
        components: n_comps,
        largest_component,
    })
}

/// Where each document sits: `(component, index in it)`, `NONE` outside every component.
fn component_index(n_docs: u32, comps: &[Vec<DocId>]) -> Vec<(u32, u32)> {
    let mut comp_of = vec![(NONE, 0u32); n_docs as usize];
    for (c, comp) in comps.iter().enumerate() {
        for (i, d) in comp.iter().enumerate() {
            comp_of[d.index()] = (c as u32, i as u32);
        }
    }
    comp_of
}

/// Calls `emit(component, locals)` for each run of at least two documents of one component
/// in `row` (locals ascending).
fn split_row(
    row: &[u32],
    comp_of: &[(u32, u32)],
    buf: &mut Vec<(u32, u32)>,
    local: &mut Vec<u32>,
    mut emit: impl FnMut(u32, &[u32]) -> Result<()>,
) -> Result<()> {
    buf.clear();
    buf.extend(
        row.iter()
            .map(|&d| comp_of[d as usize])
            .filter(|p| p.0 != NONE),
    );
    // Docs ascending and components' docs ascending => locals ascending within a comp.
    buf.sort_unstable();
    let mut i = 0;
    while i < buf.len() {
        let mut j = i;
        while j < buf.len() && buf[j].0 == buf[i].0 {
            j += 1;
        }
        if j - i >= 2 {
            local.clear();
            local.extend(buf[i..j].iter().map(|p| p.1));
            emit(buf[i].0, local)?;
        }
        i = j;
    }
    Ok(())
}

/// [`sub_transactions`] from rows read in order, through sorted `(component, row, local)`
/// records on disk under `spill`: `f` receives the components' transactions in batches
/// (ascending component) of about `batch_bytes` each.
fn sub_transactions_spilled(
    rows: &dyn RowSource,
    n_docs: u32,
    comps: &[Vec<DocId>],
    spill: &SpillConfig,
    batch_bytes: u64,
    f: &mut dyn FnMut(Vec<(usize, Transactions)>) -> Result<()>,
) -> Result<()> {
    let comp_of = component_index(n_docs, comps);
    let mut sorter = ExternalSorter::<[u32; 3]>::new(spill, "components");
    let (mut buf, mut local) = (Vec::new(), Vec::new());
    let mut row_no = 0u32;
    rows.for_each_row(&mut |r| {
        split_row(r, &comp_of, &mut buf, &mut local, |c, l| {
            for &x in l {
                sorter.push([c, row_no, x])?;
            }
            Ok(())
        })?;
        row_no += 1;
        Ok(())
    })?;
    drop(comp_of);
    let mut batch: Vec<(usize, Transactions)> = Vec::new();
    let mut batch_size = 0u64;
    let mut cur: Option<(u32, u32)> = None;
    let mut t = Transactions::new();
    let mut row: Vec<u32> = Vec::new();
    for r in sorter.finish()? {
        let [c, rn, x] = r?;
        if cur != Some((c, rn)) {
            if !row.is_empty() {
                t.push(&row);
                row.clear();
            }
            if let Some((pc, _)) = cur.filter(|p| p.0 != c) {
                batch_size += t.heap_bytes();
                batch.push((pc as usize, std::mem::take(&mut t)));
                if batch_size >= batch_bytes {
                    f(std::mem::take(&mut batch))?;
                    batch_size = 0;
                }
            }
            cur = Some((c, rn));
        }
        row.push(x);
    }
    if let Some((c, _)) = cur {
        t.push(&row);
        batch.push((c as usize, t));
    }
    if !batch.is_empty() {
        f(batch)?;
    }
    Ok(())
}

/// The concept step of [`super::run_method`]: the context of the representatives at the
/// method's k, mined for its maximal itemsets component by component.
fn run(arm: &mut Arm<'_, '_>) -> Result<Found> {
    let kind = arm.cfg.image_kind;
    if let super::ImageKind::BBit { bits } = kind {
        return Err(crate::Error::config(format!(
            "concept clusters mine the (position, value) rows of the context, which on \
             {bits}-bit images hold 1/{} of the documents each: use union-find or lsh on \
             b-bit images",
            1u32 << bits
        )));
    }
    let k = arm.k(arm.n, kind)?;
    arm.summary.k = Some(k);
    let miner = arm.need(arm.inputs.miner, "a miner")?;
    let r = match arm.spilled_context()? {
        Some(sc) => concept_clusters_spilled(sc, k, miner, &arm.cfg.concept, arm.spill())?,
        None => {
            let ctx = arm.context()?;
            concept_clusters(
                ctx.rows(),
                arm.n_docs() as u32,
                k,
                miner,
                &arm.cfg.concept,
                arm.spill(),
            )?
        }
    };
    arm.summary.components = r.components;
    arm.summary.largest_component = r.largest_component;
    arm.timer.lap("mine");
    let n = arm.n;
    Ok(Found {
        edges: Arm::scored(&r.edges, |_, c| estimate(c, n, kind), |_| None),
        sets: r.sets,
    })
}

/// The concept method (IK09): maximal sets of documents sharing `k` image elements.
pub(super) struct Concept;

impl MethodSpec for Concept {
    fn name(&self) -> &'static str {
        "concept"
    }

    fn options(&self) -> &'static [OptionDecl] {
        OPTIONS
    }

    fn reads(&self) -> Reads {
        Reads::Elements
    }

    fn mines(&self) -> bool {
        true
    }

    fn run(&self, arm: &mut Arm<'_, '_>) -> Result<Found> {
        run(arm)
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

    /// Documents sharing `k` elements (its pair graph, the graph its mining is split by).
    fn candidate_rule(
        &self,
        _cfg: &super::ClusterConfig,
        head: &super::ClusterSummary,
        _scheme: crate::sketch::Scheme,
        _n: usize,
    ) -> Result<Option<super::CandidateRule>> {
        Ok(Some(super::CandidateRule::shared_elements(head)))
    }

    /// The cap on itemsets, as one process checks it: first the itemsets of the mined
    /// components, then with those of the two-document components (one cluster per maximal
    /// itemset).
    fn check_merged(&self, cfg: &super::ClusterConfig, mined: u64, sets: u64) -> Result<()> {
        for count in [mined, sets] {
            limit_check(count as usize, &cfg.concept, "mining")?;
        }
        Ok(())
    }

    fn undivided_because(&self, cfg: &super::ClusterConfig) -> Option<&'static str> {
        (!cfg.concept.split_components).then_some("concept mining is not split by component")
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::context::{Context, ContextConfig, Orientation};
    use proptest::prelude::*;

    /// Brute-force maximal frequent itemsets: enumerate every subset of the items (at most
    /// 16 distinct items), keep the frequent ones, then those with no frequent superset.
    pub(crate) fn brute_maximal(
        t: &Transactions,
        minsup: u64,
        _max: Option<u64>,
    ) -> Result<Vec<Itemset>> {
        let nitems = t.item_bound() as usize;
        assert!(nitems <= 16, "brute force is for tiny contexts");
        let masks: Vec<u32> = t
            .iter()
            .map(|r| r.iter().fold(0u32, |m, &i| m | 1 << i))
            .collect();
        let mut frequent: Vec<(u32, u32)> = Vec::new();
        for s in 1u32..(1u32 << nitems) {
            let sup = masks.iter().filter(|&&m| m & s == s).count() as u32;
            if u64::from(sup) >= minsup {
                frequent.push((s, sup));
            }
        }
        let mut out: Vec<Itemset> = frequent
            .iter()
            .filter(|&&(s, _)| !frequent.iter().any(|&(o, _)| o != s && o & s == s))
            .map(|&(s, sup)| Itemset {
                items: (0..nitems as u32).filter(|i| s >> i & 1 == 1).collect(),
                support: sup,
            })
            .collect();
        out.sort();
        Ok(out)
    }

    pub(crate) fn run(ctx: &Context, k: u32, split: bool) -> Vec<(Vec<DocId>, u32)> {
        let cfg = ConceptConfig {
            split_components: split,
            ..Default::default()
        };
        concept_clusters(
            ctx.rows(),
            ctx.n_docs(),
            k,
            &brute_maximal,
            &cfg,
            &SpillConfig::default(),
        )
        .unwrap()
        .sets
    }

    #[test]
    fn hand_example() {
        // Elements 1..=6. Docs 0,1,2 share {1,2,3}; 0,1 also share 4; 3,4 share {5,6};
        // doc 5 shares only 1 with the others.
        let docs: Vec<Vec<u64>> = vec![
            vec![1, 2, 3, 4],
            vec![1, 2, 3, 4],
            vec![1, 2, 3],
            vec![5, 6, 9],
            vec![5, 6],
            vec![1],
        ];
        let ctx = Context::from_doc_keys(&docs, &ContextConfig::default(), &SpillConfig::default())
            .unwrap();
        let id = |v: &[u32]| v.iter().map(|&d| DocId(d)).collect::<Vec<_>>();
        // k = 2: {0,1} (support 4) is contained in {0,1,2} (support 3) -- maximal only {0,1,2}
        // and {3,4}. Doc 5 alone shares 1 element.
        assert_eq!(
            run(&ctx, 2, true),
            vec![(id(&[0, 1, 2]), 3), (id(&[3, 4]), 2)]
        );
        // k = 4: only {0,1}.
        assert_eq!(run(&ctx, 4, true), vec![(id(&[0, 1]), 4)]);
        // k = 1: doc 5 joins 0,1,2 via element 1.
        assert_eq!(
            run(&ctx, 1, true),
            vec![(id(&[0, 1, 2, 5]), 1), (id(&[3, 4]), 2)]
        );
        let r = concept_clusters(
            ctx.rows(),
            ctx.n_docs(),
            2,
            &brute_maximal,
            &ConceptConfig::default(),
            &SpillConfig::default(),
        )
        .unwrap();
        assert_eq!((r.components, r.largest_component), (2, 3));
        let lim = ConceptConfig {
            max_itemsets: Some(1),
            ..Default::default()
        };
        assert!(matches!(
            concept_clusters(
                ctx.rows(),
                ctx.n_docs(),
                2,
                &brute_maximal,
                &lim,
                &SpillConfig::default()
            ),
            Err(Error::Limit(_))
        ));
    }

    /// Maximal sets of size >= 2 of the whole context, by brute force over all DocId subsets.
    fn whole_brute(ctx: &Context, k: u32) -> Vec<(Vec<DocId>, u32)> {
        let t = ctx.to_transactions(Orientation::ShingleRows);
        // item_bound may be below n_docs; brute_maximal uses item_bound items.
        let mut v: Vec<(Vec<DocId>, u32)> = brute_maximal(&t, u64::from(k), None)
            .unwrap()
            .into_iter()
            .filter(|s| s.items.len() >= 2)
            .map(|s| (s.items.into_iter().map(DocId).collect(), s.support))
            .collect();
        v.sort();
        v
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(150))]
        #[test]
        fn split_equals_whole(
            docs in prop::collection::vec(prop::collection::vec(0u64..14, 0..9), 1..12),
            k in 1u32..5,
        ) {
            let ctx = Context::from_doc_keys(&docs, &ContextConfig::default(), &SpillConfig::default()).unwrap();
            let want = whole_brute(&ctx, k);
            prop_assert_eq!(run(&ctx, k, true), want.clone());
            prop_assert_eq!(run(&ctx, k, false), want);
        }

        /// The concept clusters of a context whose rows are in a file (pair counts and
        /// components' transactions through sorted runs, mined in batches) are the
        /// in-memory ones, with the same edges and component counts.
        #[test]
        fn spilled_equals_in_memory(
            docs in prop::collection::vec(prop::collection::vec(0u64..14, 0..9), 1..40),
            k in 1u32..5,
            budget in 1u64..4096,
        ) {
            let ctx = Context::from_doc_keys(&docs, &ContextConfig::default(), &SpillConfig::default()).unwrap();
            let tmp = tempfile::tempdir().unwrap();
            let spill = SpillConfig {
                budget: Some(crate::spill::MemoryBudget(budget)),
                tmp_dir: Some(tmp.path().to_path_buf()), process: None, ..Default::default() };
            let sc = SpilledContext::of(&ctx, &spill).unwrap();
            let cfg = ConceptConfig::default();
            let want = concept_clusters(ctx.rows(), ctx.n_docs(), k, &fp_miner, &cfg, &SpillConfig::default()).unwrap();
            let got = concept_clusters_spilled(&sc, k, &fp_miner, &cfg, &spill).unwrap();
            prop_assert_eq!(got.sets, want.sets);
            prop_assert_eq!(got.edges, want.edges);
            prop_assert_eq!(got.components, want.components);
            prop_assert_eq!(got.largest_component, want.largest_component);
        }
    }
}
