//! The divided run's outputs in parts (stage 9 of [`super::cluster`]): every process writes
//! its part of `clusters.jsonl`, `pairs.csv` (a clustering) and `removed.csv` (a
//! deduplication) into its own output directory, and process 0 receives counts only.
//!
//! Each worker turns its groups' results into lines keyed in each file's order
//! ([`group_rows`]) and counts them ([`Totals`]); one all-gather gives every worker the
//! totals (each checks the run's limits, so all stop together on one) and a sample of
//! every worker's keys, from which every worker computes the same splitters: part `p`
//! owns the `p`-th key range of each file, about `1/processes` of its lines. The lines go
//! to the first worker of their part's process with the external ids they name (the
//! group's owner holds its members' ids), packed ([`super::packed`]), and that worker
//! orders them as one process orders the file; an all-gather of the parts' cluster
//! counts numbers the clusters (prefix sums); a removal's cluster is numbered by the owner of that cluster's key, and the removal
//! then goes on to the owner of its DocId's range (`removed.csv` is in DocId order).
//!
//! Invariants: every worker calls the same rounds (a deduplication's and a clustering's
//! rounds differ, but every worker of a run is the same kind); the parts concatenated in
//! process order are the one-process files byte for byte (see
//! [`crate::cluster::stages::group_rows`]'s module); with one process the part is the
//! file, under the file's name; process 0 receives its part's lines and the small
//! all-gathers (totals, samples, counts), never the whole output; a process that sees the
//! run fail after it began writing its parts removes them ([`remove_parts`]).

use std::path::Path;

use super::messages::{owner_of, together};
use super::packed::Packed;
use super::rounds::{Rounds, Target, Wire};
use crate::cluster::stages::{
    check_totals, finish_part_clusters, group_rows, part_file, resolve, sort_pair_lines,
    sort_removed_lines, write_clusters_part, write_pairs_part, write_removed_part, ClusterLine,
    ClusterRef, GroupFound, PairLine, RemovedLine, Totals,
};
use crate::cluster::Job;
use crate::{Error, Result};

/// Removes the parts process `part` wrote into `dir` (its files named `*.part-PPPPP.*`),
/// for a run that failed once it had begun writing them: a divided run's outputs are
/// complete only once process 0 has written `summary.json`, and a failed run leaves no
/// part behind in a process that sees it fail (one that was killed cannot remove its own).
/// A file that cannot be removed is left.
pub(super) fn remove_parts(dir: &Path, part: usize) {
    let tag = format!(".part-{part:05}.");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().contains(&tag) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Lines as they go on the wire ([`Packed`]).
fn packed<T>(lines: Vec<T>) -> Vec<Packed<T>> {
    lines.into_iter().map(Packed).collect()
}

/// Lines as they came off the wire.
fn unpacked<T>(got: Vec<Packed<T>>) -> Vec<T> {
    got.into_iter().map(|p| p.0).collect()
}

/// Samples a worker sends per part, from each file's keys.
const SAMPLES_PER_PART: usize = 16;

/// What the output stage needs of the run.
pub(super) struct OutputPlan<'a> {
    pub job: &'a Job,
    /// The directory every process writes its parts into.
    pub dir: &'a Path,
    /// Workers per process.
    pub per_process: usize,
    /// The first DocId of each worker's documents.
    pub starts: &'a [u64],
    /// Documents in the corpus.
    pub n_docs: u64,
    /// A deduplication (it writes `removed.csv`, not `pairs.csv`).
    pub dedup: bool,
    /// A deduplication's kept records this worker wrote.
    pub kept_written: u64,
}

/// What the output stage leaves a worker with: the run's totals and what it wrote.
pub(super) struct Written {
    pub totals: Totals,
    /// Lines this worker wrote (clusters, pairs and removals).
    pub lines: u64,
}

impl Wire for Totals {
    fn wire_bytes(&self) -> u64 {
        18 * 8
    }
}

/// Up to `n` keys of the sorted `keys`, evenly spaced, each with the number of keys from
/// it to the next sample.
fn samples<K: Clone>(keys: &[K], n: usize) -> Vec<(K, u64)> {
    let m = keys.len();
    if m == 0 || n == 0 {
        return Vec::new();
    }
    let take = n.min(m);
    let at = |j: usize| j * m / take;
    (0..take)
        .map(|j| (keys[at(j)].clone(), (at(j + 1) - at(j)) as u64))
        .collect()
}

/// The `parts - 1` splitters of the gathered weighted samples: part `p` takes the keys from
/// splitter `p - 1` (inclusive) to splitter `p` (exclusive), about equal weights each.
fn splitters<K: Ord + Clone>(mut all: Vec<(K, u64)>, parts: usize) -> Vec<K> {
    all.sort_by(|x, y| x.0.cmp(&y.0));
    let total: u64 = all.iter().map(|x| x.1).sum();
    let mut out = Vec::with_capacity(parts.saturating_sub(1));
    let mut before = 0u64;
    let mut i = 0usize;
    for p in 1..parts {
        let target = total * p as u64 / parts as u64;
        while i < all.len() && before + all[i].1 <= target {
            before += all[i].1;
            i += 1;
        }
        match all.get(i) {
            Some(x) => out.push(x.0.clone()),
            None => {
                if let Some(last) = all.last() {
                    // Past the last sample: the later parts are empty.
                    out.push(last.0.clone());
                }
            }
        }
    }
    out
}

/// The part of `key`: the number of splitters at or below it.
fn part_of<K: Ord>(splitters: &[K], key: &K) -> usize {
    splitters.partition_point(|s| s <= key)
}

/// Stage 9: the groups' results written in parts into `plan.dir`; every worker returns the
/// run's totals.
pub(super) fn write_parts(
    rounds: &mut Rounds<'_>,
    plan: &OutputPlan<'_>,
    results: Vec<GroupFound>,
) -> Result<Written> {
    let (me, peers) = (rounds.index(), rounds.peers());
    let per = plan.per_process.max(1);
    let processes = peers.div_ceil(per);
    let first_of = move |p: usize| -> Target { p * per };

    let mut mine = Totals {
        kept_written: plan.kept_written,
        ..Totals::default()
    };
    let (mut clusters, mut pairs, mut removals) = (Vec::new(), Vec::new(), Vec::new());
    for r in results {
        let g = group_rows(r, &mut mine);
        clusters.extend(g.clusters);
        pairs.extend(g.pairs);
        removals.extend(g.removals);
    }

    // The totals (every worker checks the run's limits) and the keys' samples.
    clusters.sort_unstable_by_key(ClusterLine::key);
    pairs.sort_unstable_by(|l, r| l.x.cmp(&r.x));
    let n_samples = SAMPLES_PER_PART * processes;
    let keys: Vec<u64> = clusters.iter().map(ClusterLine::key).collect();
    let c_samples = samples(&keys, n_samples);
    drop(keys);
    let p_samples = if plan.dedup {
        Vec::new()
    } else {
        let xs: Vec<&String> = pairs.iter().map(|p| &p.x).collect();
        (samples(&xs, n_samples).into_iter())
            .map(|(x, w)| (x.clone(), w))
            .collect()
    };
    let gathered = rounds.all_gather((mine, (c_samples, p_samples)));
    let mut totals = Totals::default();
    let (mut all_c, mut all_p) = (Vec::new(), Vec::new());
    for (_, (t, (c, p))) in gathered {
        totals.add(&t);
        all_c.extend(c);
        all_p.extend(p);
    }
    if let Err(e) = check_totals(plan.job, &totals, plan.n_docs, plan.dedup) {
        return Err(together(rounds, e));
    }
    let c_split = splitters(all_c, processes);
    let p_split = splitters(all_p, processes);

    // Clusters to their parts, ordered and numbered.
    let cs = c_split.clone();
    let got = rounds.exchange(packed(clusters), move |c: &Packed<ClusterLine>| {
        first_of(part_of(&cs, &c.0.key()))
    });
    let clusters = finish_part_clusters(unpacked(got));
    let counts = rounds.all_gather(clusters.len() as u64);
    let base: u64 = counts.iter().filter(|(w, _)| *w < me).map(|(_, n)| n).sum();
    let base = u32::try_from(base)
        .map_err(|_| Error::Distributed(format!("{base} clusters: more than u32 ids")))?;

    let is_writer = me.is_multiple_of(per);
    let part = me / per;
    let name = |file: &str| plan.dir.join(part_file(file, part, processes));
    let mut lines = clusters.len() as u64;
    if is_writer {
        std::fs::create_dir_all(plan.dir).map_err(|e| Error::io(plan.dir, e))?;
    }

    if plan.dedup {
        // A removal goes first to the owner of its cluster's key (which numbers it), then
        // to the owner of its DocId's range.
        let starts = plan.starts.to_vec();
        let doc_part = move |d: u32| owner_of(&starts, d) / per;
        let dp = doc_part.clone();
        let cs = c_split.clone();
        let got = rounds.exchange(packed(removals), move |r: &Packed<RemovedLine>| {
            match r.0.cluster {
                ClusterRef::At { key, .. } => first_of(part_of(&cs, &key)),
                _ => first_of(dp(r.0.doc)),
            }
        });
        let numbered: Vec<Packed<RemovedLine>> = (got.into_iter())
            .map(|mut r| {
                r.0.cluster = resolve(&clusters, base, r.0.cluster);
                r
            })
            .collect();
        let mut removed = unpacked(rounds.exchange(numbered, move |r: &Packed<RemovedLine>| {
            first_of(doc_part(r.0.doc))
        }));
        if let Some(r) = removed
            .iter()
            .find(|r| matches!(r.cluster, ClusterRef::At { .. }))
        {
            return Err(Error::Distributed(format!(
                "the cluster of removed document {} was not numbered",
                r.doc
            )));
        }
        sort_removed_lines(&mut removed);
        lines += removed.len() as u64;
        if is_writer {
            write_removed_part(&name("removed.csv"), part == 0, &removed)?;
        }
    } else {
        let ps = p_split;
        let mut got = unpacked(rounds.exchange(packed(pairs), move |p: &Packed<PairLine>| {
            first_of(part_of(&ps, &p.0.x))
        }));
        sort_pair_lines(&mut got);
        lines += got.len() as u64;
        if is_writer {
            write_pairs_part(&name("pairs.csv"), part == 0, &got)?;
        }
    }
    if is_writer {
        write_clusters_part(&name("clusters.jsonl"), &clusters, base)?;
    }
    Ok(Written { totals, lines })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Splitting by the samples of every worker's sorted keys gives contiguous parts of
    /// about equal size, equal keys in one part.
    #[test]
    fn splitters_divide_sorted_keys_evenly() {
        let workers: Vec<Vec<u64>> = (0..3)
            .map(|w| (0..1000u64).map(|i| (i * 7 + w) % 500).collect())
            .map(|mut v: Vec<u64>| {
                v.sort_unstable();
                v
            })
            .collect();
        let all: Vec<(u64, u64)> = workers.iter().flat_map(|k| samples(k, 64)).collect();
        let split = splitters(all, 4);
        assert_eq!(split.len(), 3);
        let mut sizes = [0usize; 4];
        for k in workers.iter().flatten() {
            sizes[part_of(&split, k)] += 1;
        }
        assert_eq!(sizes.iter().sum::<usize>(), 3000);
        for s in sizes {
            assert!((600..=900).contains(&s), "{sizes:?}");
        }
        // Monotone: a larger key never goes to an earlier part.
        let mut keys: Vec<u64> = workers.concat();
        keys.sort_unstable();
        let parts: Vec<usize> = keys.iter().map(|k| part_of(&split, k)).collect();
        assert!(parts.windows(2).all(|w| w[0] <= w[1]));
        // No keys: every key to part 0.
        assert!(splitters(Vec::<(u64, u64)>::new(), 4).is_empty());
        assert_eq!(part_of(&Vec::<u64>::new(), &5), 0);
    }
}
