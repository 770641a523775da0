//! The rows and pairs stages of a divided run. **Rows**: the representatives' candidate
//! keys ([`CandidateRule::keys`]) go to the keys' owners, which keep or drop each row by
//! the context's rule ([`ContextConfig::row_fate`], the context methods only); under a
//! budget in passes, each over a slice of the keys. **Pairs**, counted exactly: for the
//! prefix-filtered rules each kept shared element goes back to its documents' holders with
//! its document frequency ([`DfRuns`]), each document's prefix ([`PrefixFilter`]) goes to
//! the elements' owners and on to the pair owners, which test the candidates on the full
//! lists ([`link_candidates`]); for the others each row goes once to the pair owners of its
//! documents but the last, which count the pairs ([`count_pairs`]). With
//! [`Exchange::Prefix`](super::Exchange::Prefix) the prefix-filtered rules skip the rows:
//! each representative's prefix in element order ([`PrefixFilter::element_prefix`], the
//! elements frequent on some worker, all-gathered, last) goes to the elements' owners and
//! on to the pair owners ([`prefix_rows_stage`]), which fetch the candidates' full lists
//! from their holders and test them ([`prefix_pairs_stage`]). Which elements are frequent
//! depends on the layout; the pairs do not (any global order gives them).
//!
//! Invariants: every key is in one pass of the rows, so the rows and their fates are the
//! one-process context's; every prefix element is in one pass of the prefix rows, and two
//! linked documents share an element of their prefixes in either order, so both
//! exchanges find the same candidates' links; each pair `(a, b)` is counted on `a`'s pair owner only; every
//! worker makes the same number of passes and rounds.

use std::path::Path;

use super::cluster::Doc;
use super::dfruns::{DfMsg, DfRuns};
use super::messages::{
    in_pass, owner_of, pair_owner, passes_for, spread, to_pair_owners, KeysMsg, RowMsg,
};
use super::rounds::{Rounds, Target};
use crate::cluster::stages::{count_pairs, link_candidates};
use crate::cluster::CandidateRule;
use crate::context::DocKeys;
use crate::context::{ContextConfig, PrefixFilter, RowFate};
use crate::plan::LIST_KEY_BYTES;
use crate::Result;

/// What the rows stage leaves on a worker.
pub(super) struct Rows {
    /// For the prefix-filtered rules: this worker's documents' shared kept elements with
    /// their document frequencies.
    pub dfs: DfRuns,
    /// For the others: the rows to the pair owners.
    pub to_owners: Vec<RowMsg>,
    /// Incidences sent.
    pub incidences: u64,
    /// Rows held by this worker as a key's owner: kept, dropped as rare, dropped as common.
    pub kept: u64,
    pub rare: u64,
    pub common: u64,
    /// The longest row this worker held as a key's owner (its incidences).
    pub hottest: u64,
    /// The dropped elements two documents share, of every worker, ascending.
    pub dropped: Vec<u64>,
}

/// The rows stage in `passes` passes over slices of the keys: the representatives'
/// (`is_rep`) keys of `rule`, by key.
#[allow(clippy::too_many_arguments)]
pub(super) fn rows_stage(
    rounds: &mut Rounds<'_>,
    docs: &[Doc],
    held: &mut DocKeys,
    is_rep: &dyn Fn(&Doc) -> bool,
    rule: &CandidateRule,
    context: ContextConfig,
    starts: &[u64],
    passes: u64,
    spill_dir: Option<&Path>,
) -> Result<Rows> {
    let peers = rounds.peers();
    // Only the context methods filter rows by document frequency.
    let ccfg = match rule {
        CandidateRule::Elements { .. } => context,
        _ => ContextConfig {
            min_df: 1,
            max_df: None,
        },
    };
    let elements = rule.is_prefix_filtered();
    let mut out = Rows {
        dfs: DfRuns::new(spill_dir)?,
        to_owners: Vec::new(),
        incidences: 0,
        kept: 0,
        rare: 0,
        common: 0,
        hottest: 0,
        dropped: Vec::new(),
    };
    let mut dropped_shared: Vec<u64> = Vec::new();
    // The context methods: each kept element shared by two documents or more goes back to
    // its documents' owners with its document frequency (for the prefix filter). The
    // others: a row shared by two documents or more goes, once, to the owner of each of
    // its documents but the last (the owners of the pairs' smaller DocIds). Each pass's
    // elements with their frequencies reach their documents' owners as the pass ends: one
    // sorted run a pass, on disk under a budget.
    for pass in 0..passes {
        let mut dfs: Vec<DfMsg> = Vec::new();
        let mut inc: Vec<(u64, u32)> = Vec::new();
        held.for_each(|i, keys, values| {
            let d = &docs[i];
            if is_rep(d) {
                inc.extend(
                    (rule.keys(keys, values).into_iter())
                        .filter(|&k| in_pass(k, pass, passes))
                        .map(|k| (k, d.id)),
                );
            }
            Ok(())
        })?;
        out.incidences += inc.len() as u64;
        let mut rows = rounds.exchange(inc, |x: &(u64, u32)| spread(x.0));
        rows.sort_unstable();
        for r in rows.chunk_by(|a, b| a.0 == b.0) {
            let df = r.len();
            out.hottest = out.hottest.max(df as u64);
            match ccfg.row_fate(df) {
                RowFate::Rare => out.rare += 1,
                RowFate::Common => out.common += 1,
                RowFate::Kept => {
                    out.kept += 1;
                    if df < 2 {
                        continue;
                    }
                    if elements {
                        dfs.extend(r.iter().map(|x| DfMsg {
                            doc: x.1,
                            key: x.0,
                            df: df as u32,
                        }));
                    } else {
                        let docs = r.iter().map(|x| x.1).collect();
                        to_pair_owners(docs, peers, &mut out.to_owners);
                    }
                    continue;
                }
            }
            if df >= 2 {
                dropped_shared.push(r[0].0);
            }
        }
        drop(rows);
        if elements {
            let starts_d = starts.to_vec();
            let got = rounds.exchange(dfs, move |m: &DfMsg| owner_of(&starts_d, m.doc));
            out.dfs.add_run(got)?;
        }
    }
    let dropped_all = rounds.all_gather(dropped_shared);
    out.dropped = dropped_all.into_iter().flat_map(|(_, v)| v).collect();
    out.dropped.sort_unstable();
    Ok(out)
}

/// The pairs stage: this worker's edges `(a, b)` (`a`'s pairs are counted here) and the
/// candidates it counted. `size` gives the full key count of this worker's documents; the
/// lists of the prefix filter wait under `spill_dir` and travel in rounds of
/// `round_bytes` (both under a budget only).
pub(super) fn pairs_stage(
    rounds: &mut Rounds<'_>,
    rows: Rows,
    rule: &CandidateRule,
    size: &dyn Fn(u32) -> usize,
    spill_dir: Option<&Path>,
    round_bytes: Option<u64>,
) -> Result<(Vec<(u32, u32)>, u64)> {
    let (peers, me) = (rounds.peers(), rounds.index());
    if !rule.is_prefix_filtered() {
        let held = rounds.exchange(rows.to_owners, |r: &RowMsg| r.to as Target);
        return Ok(count_pairs(
            &held,
            |d| pair_owner(d, peers) == me,
            rule.min_shared(),
        ));
    }
    prefix_pairs(
        rounds,
        rows.dfs,
        prefix_filter(rule),
        size,
        spill_dir,
        round_bytes,
    )
}

/// The edges by prefix filtering, exactly. `dfs` are this worker's documents' shared kept
/// elements `x(d)` (held by two documents or more) with their document frequencies, each
/// document's in the global order (df, element). Each document's prefix
/// ([`PrefixFilter::prefix_of_shared`]) goes to the elements' owners, which send each
/// prefix row on to the pair owners of its documents (all but the last); the owner of `a`
/// pairs it with the row's later documents `b` (so a hot row is paired by many workers);
/// that worker also holds `x(a)` (sent to it here), asks `b`'s pair owner for `x(b)` once,
/// and tests the candidate on the two lists ([`link_candidates`]). Every worker makes the
/// same number of rounds.
fn prefix_pairs(
    rounds: &mut Rounds<'_>,
    dfs: DfRuns,
    filter: PrefixFilter,
    size: &dyn Fn(u32) -> usize,
    spill_dir: Option<&Path>,
    round_bytes: Option<u64>,
) -> Result<(Vec<(u32, u32)>, u64)> {
    let (peers, me) = (rounds.peers(), rounds.index());
    let n_rounds = passes_for(rounds, dfs.len() * LIST_KEY_BYTES, round_bytes);
    let per_round = dfs.len().div_ceil(n_rounds).max(1);
    // The lists this worker pairs.
    let mut lists = Lists::new(spill_dir, n_rounds, per_round)?;
    let mut prefix: Vec<(u64, u32)> = Vec::new();
    dfs.for_each_doc(|doc, x| {
        let full = size(doc);
        let take = filter.prefix_of_shared(full, x.len());
        if take == 0 {
            return Ok(());
        }
        prefix.extend(x[..take].iter().map(|m| (m.key, doc)));
        let mut keys: Vec<u64> = x.iter().map(|m| m.key).collect();
        keys.sort_unstable();
        let weight = keys.len() as u64;
        let m = KeysMsg {
            to: pair_owner(doc, peers) as u32,
            doc,
            size: full as u32,
            keys,
        };
        lists.push(rounds, m, weight)
    })?;
    lists.finish(rounds)?;
    let mut prefix = rounds.exchange(prefix, |x: &(u64, u32)| spread(x.0));
    prefix.sort_unstable();
    let mut rows: Vec<RowMsg> = Vec::new();
    for r in prefix.chunk_by(|a, b| a.0 == b.0) {
        if r.len() >= 2 {
            to_pair_owners(r.iter().map(|x| x.1).collect(), peers, &mut rows);
        }
    }
    drop(prefix);
    let rows = rounds.exchange(rows, |r: &RowMsg| r.to as Target);
    // The candidates `(a, b)` of this worker's `a`s, sorted and distinct.
    let (cands, _) = count_pairs(&rows, |d| pair_owner(d, peers) == me, 1);
    drop(rows);
    // The other documents' lists, asked for once from their pair owners.
    let mut wanted: Vec<u32> = (cands.iter().map(|p| p.1))
        .filter(|&b| pair_owner(b, peers) != me)
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let asks: Vec<(u32, u32)> = wanted.into_iter().map(|b| (b, me as u32)).collect();
    let asks = rounds.exchange(asks, move |a: &(u32, u32)| pair_owner(a.0, peers));
    let mut answers: Vec<KeysMsg> = Vec::new();
    for (b, to) in asks {
        if let Some((keys, size)) = lists.get(b)? {
            answers.push(KeysMsg {
                to,
                doc: b,
                size: size as u32,
                keys,
            });
        }
    }
    let mut fetched = rounds.exchange(answers, |m: &KeysMsg| m.to as Target);
    fetched.sort_unstable_by_key(|m| m.doc);
    let list = |d: u32| -> Result<(Vec<u64>, usize)> {
        if pair_owner(d, peers) == me {
            Ok(lists.get(d)?.unwrap_or_default())
        } else {
            Ok(fetched
                .binary_search_by_key(&d, |m| m.doc)
                .map_or((Vec::new(), 0), |i| {
                    (fetched[i].keys.clone(), fetched[i].size as usize)
                }))
        }
    };
    let edges = link_candidates(&cands, filter, list)?;
    Ok((edges, cands.len() as u64))
}

/// How many of one worker's representatives hold an element that [`prefix_rows_stage`]
/// ranks last (with every such element of every worker): an element of a row of
/// `FREQUENT_HERE x workers` documents or more is one of them.
const FREQUENT_HERE: usize = 8;

/// The rows of [`Exchange::Prefix`](super::Exchange::Prefix) for the prefix-filtered rules,
/// in `passes` passes over slices of the keys: only each representative's (`is_rep`)
/// prefix in element order ([`PrefixFilter::element_prefix`], the elements frequent on
/// some worker last: each worker counts its own, and they are all-gathered) goes to the
/// elements' owners, which send each prefix row of two documents or more on, once, to the
/// pair owners of its documents but the last. No document frequency is exchanged and no
/// row dropped. The rows to the pair owners and the incidences sent.
pub(super) fn prefix_rows_stage(
    rounds: &mut Rounds<'_>,
    docs: &[Doc],
    held: &mut DocKeys,
    is_rep: &dyn Fn(&Doc) -> bool,
    rule: &CandidateRule,
    passes: u64,
    spill_dir: Option<&Path>,
) -> Result<(Vec<RowMsg>, u64, u64)> {
    let peers = rounds.peers();
    let filter = prefix_filter(rule);
    // The elements held by `FREQUENT_HERE` of this worker's representatives or more, in
    // passes over the same slices of the keys; every worker ranks those of every worker
    // last, so that frequent elements (a row held by many documents pairs them all) stay
    // out of the prefixes.
    let mut frequent: Vec<u64> = Vec::new();
    for pass in 0..passes {
        let mut here: Vec<u64> = Vec::new();
        held.for_each(|i, keys, values| {
            if is_rep(&docs[i]) {
                here.extend(
                    (rule.keys(keys, values).into_iter()).filter(|&k| in_pass(k, pass, passes)),
                );
            }
            Ok(())
        })?;
        here.sort_unstable();
        frequent.extend(
            (here.chunk_by(|a, b| a == b))
                .filter(|r| r.len() >= FREQUENT_HERE)
                .map(|r| r[0]),
        );
    }
    let mut last: Vec<u64> = (rounds.all_gather(frequent).into_iter())
        .flat_map(|(_, v)| v)
        .collect();
    last.sort_unstable();
    last.dedup();
    // Each representative's prefix, made once (on disk under a budget, beside the keys),
    // then sent in the same passes.
    let mut prefixes = DocKeys::new(spill_dir)?;
    held.for_each(|i, keys, values| {
        let p = if is_rep(&docs[i]) {
            filter.element_prefix(&rule.keys(keys, values), &last)
        } else {
            Vec::new()
        };
        prefixes.push(p, Vec::new())
    })?;
    let (mut to_owners, mut sent, mut hottest) = (Vec::new(), 0u64, 0u64);
    for pass in 0..passes {
        let mut inc: Vec<(u64, u32)> = Vec::new();
        prefixes.for_each(|i, p, _| {
            inc.extend(
                (p.iter().copied())
                    .filter(|&k| in_pass(k, pass, passes))
                    .map(|k| (k, docs[i].id)),
            );
            Ok(())
        })?;
        sent += inc.len() as u64;
        let mut rows = rounds.exchange(inc, |x: &(u64, u32)| spread(x.0));
        rows.sort_unstable();
        for r in rows.chunk_by(|a, b| a.0 == b.0) {
            hottest = hottest.max(r.len() as u64);
            if r.len() >= 2 {
                to_pair_owners(r.iter().map(|x| x.1).collect(), peers, &mut to_owners);
            }
        }
    }
    Ok((to_owners, sent, hottest))
}

/// The pairs of [`Exchange::Prefix`](super::Exchange::Prefix), counted exactly: the prefix
/// rows `to_owners` ([`prefix_rows_stage`]) reach their pair owners, which make the
/// candidates `(a, b)` of their `a`s, ask the holders of the candidates' documents (by
/// DocId, `starts`) for their full key lists once, and test the candidates on them
/// ([`link_candidates`]; the lists travel in rounds of `round_bytes` and wait under
/// `spill_dir`, under a budget only). This worker's edges and the candidates it counted.
#[allow(clippy::too_many_arguments)]
pub(super) fn prefix_pairs_stage(
    rounds: &mut Rounds<'_>,
    to_owners: Vec<RowMsg>,
    docs: &[Doc],
    held: &mut DocKeys,
    starts: &[u64],
    rule: &CandidateRule,
    spill_dir: Option<&Path>,
    round_bytes: Option<u64>,
) -> Result<(Vec<(u32, u32)>, u64)> {
    let (peers, me) = (rounds.peers(), rounds.index());
    let rows = rounds.exchange(to_owners, |r: &RowMsg| r.to as Target);
    // The candidates `(a, b)` of this worker's `a`s, sorted and distinct.
    let (cands, _) = count_pairs(&rows, |d| pair_owner(d, peers) == me, 1);
    drop(rows);
    let mut wanted: Vec<u32> = cands.iter().flat_map(|p| [p.0, p.1]).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let asks: Vec<(u32, u32)> = wanted.into_iter().map(|d| (d, me as u32)).collect();
    let starts_a = starts.to_vec();
    let mut asks = rounds.exchange(asks, move |a: &(u32, u32)| owner_of(&starts_a, a.0));
    asks.sort_unstable();
    let mut at: Vec<usize> = Vec::with_capacity(asks.len());
    for &(d, _) in &asks {
        at.push(docs.binary_search_by_key(&d, |x| x.id).map_err(|_| {
            crate::Error::Distributed(format!("document {d} asked of the wrong worker"))
        })?);
    }
    let bytes: u64 = at.iter().map(|&i| held.keys_len(i) as u64).sum::<u64>() * LIST_KEY_BYTES;
    let n_rounds = passes_for(rounds, bytes, round_bytes);
    let per_round = bytes.div_ceil(n_rounds).max(1);
    // The lists this worker tests.
    let mut lists = Lists::new(spill_dir, n_rounds, per_round)?;
    for (&(doc, to), &i) in asks.iter().zip(&at) {
        let (keys, values) = held.get(i)?;
        let mut keys = rule.keys(&keys, &values);
        keys.sort_unstable();
        let weight = keys.len() as u64 * LIST_KEY_BYTES;
        let m = KeysMsg {
            to,
            doc,
            size: keys.len() as u32,
            keys,
        };
        lists.push(rounds, m, weight)?;
    }
    lists.finish(rounds)?;
    let list = |d: u32| -> Result<(Vec<u64>, usize)> { Ok(lists.get(d)?.unwrap_or_default()) };
    let edges = link_candidates(&cands, prefix_filter(rule), list)?;
    Ok((edges, cands.len() as u64))
}

/// The prefix filter of a prefix-filtered rule.
fn prefix_filter(rule: &CandidateRule) -> PrefixFilter {
    match *rule {
        CandidateRule::Resemblance { t } => PrefixFilter::Resemblance { t },
        _ => PrefixFilter::Shared {
            k: rule.min_shared(),
        },
    }
}

/// The key lists a worker receives to test its candidates on: each sent to its `to` in
/// `n_rounds` rounds of about `per_round` (in the caller's weight), every worker making the
/// same rounds; held under `spill_dir` (on disk under a budget) and found by document.
struct Lists {
    stored: DocKeys,
    /// (document, its entry in `stored`, its list's full size), sorted by
    /// [`Lists::finish`].
    index: Vec<(u32, u32, u32)>,
    out: Vec<KeysMsg>,
    n_rounds: u64,
    per_round: u64,
    pending: u64,
    sent_rounds: u64,
}

impl Lists {
    fn new(spill_dir: Option<&Path>, n_rounds: u64, per_round: u64) -> Result<Self> {
        Ok(Lists {
            stored: DocKeys::new(spill_dir)?,
            index: Vec::new(),
            out: Vec::new(),
            n_rounds,
            per_round,
            pending: 0,
            sent_rounds: 0,
        })
    }

    /// Queues `m` (of `weight`); a round goes once the queue reaches its share, but the
    /// last, which [`Lists::finish`] sends.
    fn push(&mut self, rounds: &mut Rounds<'_>, m: KeysMsg, weight: u64) -> Result<()> {
        self.out.push(m);
        self.pending += weight;
        if self.pending >= self.per_round && self.sent_rounds + 1 < self.n_rounds {
            self.send(rounds)?;
            self.pending = 0;
        }
        Ok(())
    }

    /// The remaining rounds; then the lists are found by document.
    fn finish(&mut self, rounds: &mut Rounds<'_>) -> Result<()> {
        while self.sent_rounds < self.n_rounds {
            self.send(rounds)?;
        }
        self.index.sort_unstable();
        Ok(())
    }

    fn send(&mut self, rounds: &mut Rounds<'_>) -> Result<()> {
        let out = std::mem::take(&mut self.out);
        let mut got = rounds.exchange(out, |m: &KeysMsg| m.to as Target);
        got.sort_unstable_by_key(|m| m.doc);
        for m in got {
            self.index.push((m.doc, self.stored.len() as u32, m.size));
            self.stored.push(m.keys, Vec::new())?;
        }
        self.sent_rounds += 1;
        Ok(())
    }

    /// The list of document `d` with its full size, `None` when it did not arrive here.
    fn get(&mut self, d: u32) -> Result<Option<(Vec<u64>, usize)>> {
        match self.index.binary_search_by_key(&d, |e| e.0) {
            Ok(i) => Ok(Some((
                self.stored.get(self.index[i].1 as usize)?.0,
                self.index[i].2 as usize,
            ))),
            Err(_) => Ok(None),
        }
    }
}
