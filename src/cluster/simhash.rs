//! The simhash method (Charikar, STOC 2002; Manku, Jain and Das Sarma, WWW 2007): two
//! documents are a pair when their `f`-bit fingerprints ([`crate::sketch::simhash`]) differ
//! in at most `h` bits; pairs are joined into connected components (union-find), each
//! cluster's support its weakest edge in agreeing bits.
//!
//! - The threshold: `--hamming h` directly; else a resemblance `t` gives the distance a pair
//!   of equal-size sets at `t` is expected to have, `h = floor(f acos(2t / (1 + t)) / pi)`
//!   ([`crate::sketch::simhash::hamming_for_resemblance`]; this is what a sweep of
//!   resemblance thresholds uses), and an absolute min-common `k` asks for `k` agreeing
//!   bits, `h = f - k` (Henzinger's 372 of 384).
//! - Candidates ([`pairs_within`]): Manku's permuted tables. The fingerprint is cut in `B`
//!   blocks of `f / B` bits (`B > h`, `B` dividing `f`); a pair within `h` differs in at
//!   most `h` blocks, so it agrees exactly on some `B - h` of them: one table per choice of
//!   `B - h` blocks, keyed by the fingerprint's bits in those blocks, and every pair
//!   sharing a key in some table is compared exactly. When every choice of `B` costs more
//!   than comparing all pairs (large `h / f`), all pairs are compared. Either way no pair
//!   within `h` is missed, and none beyond it is kept.
//! - The estimate of a pair at distance `d`: the resemblance the angle `pi d / f` implies
//!   ([`crate::sketch::simhash::estimate_resemblance`]).
//!
//! Invariant: edges come out sorted by `(a, b)` and components ordered by their smallest
//! member, whatever the thread count.

use rayon::prelude::*;

use super::declared::{as_u32, OptKind, OptionDecl};
use super::method::{MethodSpec, Reads};
use super::run::{Arm, Found};
use super::{ClusterConfig, Regroup, Threshold};
use crate::sketch::pipeline::PipelineConfig;
use crate::sketch::simhash::{estimate_resemblance, hamming, hamming_for_resemblance};
use crate::sketch::Scheme;
use crate::{DocId, Error, Result};

/// The fingerprint width when none is given: Manku's 64 bits.
pub const DEFAULT_BITS: u64 = 64;

/// The widest fingerprint accepted.
pub const MAX_BITS: u64 = 4096;

/// SimHash options (simhash and henzinger).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SimHashConfig {
    /// The fingerprint width `f` the job sketches with (the simhash scheme's image size;
    /// an images file carries its own).
    pub bits: u32,
    /// The Hamming threshold `h`, instead of the one the threshold implies.
    pub hamming: Option<u32>,
    /// The number of blocks of the permuted tables (`None`: the cheapest).
    pub blocks: Option<u32>,
}

impl Default for SimHashConfig {
    fn default() -> Self {
        SimHashConfig {
            bits: DEFAULT_BITS as u32,
            hamming: None,
            blocks: None,
        }
    }
}

impl SimHashConfig {
    /// `blocks`, when given, must be at least 1.
    pub fn validate(&self) -> Result<()> {
        if self.blocks == Some(0) {
            return Err(Error::config("option blocks takes at least 1 block"));
        }
        Ok(())
    }

    /// The Hamming threshold of a run on `f`-bit fingerprints under `threshold`, and the
    /// rule that gave it (for the summary).
    pub fn hamming_for(&self, threshold: Threshold, f: u32) -> Result<(u32, String)> {
        Ok(match (self.hamming, threshold) {
            (Some(h), _) => (h, format!("hamming h = {h} of {f} bits (given)")),
            (None, Threshold::MinCommon(k)) => {
                if k > f {
                    return Err(Error::config(format!(
                        "min-common {k} agreeing bits is more than the fingerprint's {f} bits"
                    )));
                }
                (
                    f - k,
                    format!("min-common {k} agreeing bits of {f}: h = {}", f - k),
                )
            }
            (None, Threshold::Resemblance(t)) => {
                let h = hamming_for_resemblance(t, f);
                (
                    h,
                    format!("simhash: h = floor(f*acos(2t/(1+t))/pi) = floor({f}*acos(2*{t}/(1+{t}))/pi) = {h}"),
                )
            }
        })
    }
}

/// The options simhash declares (henzinger declares `bits` and `hamming` too).
pub(super) const OPTIONS: &[OptionDecl] = &[
    OptionDecl {
        name: "bits",
        kind: OptKind::Count {
            default: Some(DEFAULT_BITS),
            min: 64,
            max: MAX_BITS,
        },
        help: "fingerprint width f in bits, a multiple of 64 (the simhash scheme's image size)",
        get: |c| serde_json::json!(c.simhash.bits),
        set: |c, v| c.simhash.bits = as_u32(v),
    },
    OptionDecl {
        name: "hamming",
        kind: OptKind::Count {
            default: None,
            min: 0,
            max: MAX_BITS,
        },
        help: "pairs within this Hamming distance h [default: floor(f*acos(2t/(1+t))/pi) for --threshold t; f - k for --min-common k]",
        get: |c| serde_json::json!(c.simhash.hamming),
        set: |c, v| c.simhash.hamming = Some(as_u32(v)),
    },
    OptionDecl {
        name: "blocks",
        kind: OptKind::Count {
            default: None,
            min: 1,
            max: MAX_BITS,
        },
        help: "permuted tables: blocks B the fingerprint is cut in (B > h, dividing f) [default: the cheapest B, or all pairs compared]",
        get: |c| serde_json::json!(c.simhash.blocks),
        set: |c, v| c.simhash.blocks = Some(as_u32(v)),
    },
];

/// Sets the simhash options and the scheme they sketch with; refuses a width that is not a
/// multiple of 64, a block count that does not divide it, and a Hamming threshold of the
/// whole width or more.
pub(super) fn configure(
    method: &str,
    cfg: &mut ClusterConfig,
    pipeline: &mut PipelineConfig,
) -> Result<()> {
    check_width(&cfg.simhash)?;
    let bits = u64::from(cfg.simhash.bits);
    if pipeline.sketch.scheme != Scheme::SimHash {
        return Err(Error::config(format!(
            "{method} reads simhash fingerprints, not {} images: leave --scheme out or give simhash",
            pipeline.sketch.scheme.name()
        )));
    }
    pipeline.sketch.size = bits as usize;
    if let Some(b) = cfg.simhash.blocks {
        if bits % u64::from(b) != 0 {
            return Err(Error::config(format!(
                "option blocks takes a divisor of the width {bits}, not {b}"
            )));
        }
        let (h, _) = cfg.simhash.hamming_for(cfg.threshold, bits as u32)?;
        if b <= h {
            return Err(Error::config(format!(
                "option blocks takes more blocks than the Hamming threshold h = {h}, not {b}"
            )));
        }
    }
    Ok(())
}

/// How the candidates of [`pairs_within`] were found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Search {
    /// Permuted tables over `blocks` blocks: one per choice of `blocks - h` of them.
    Tables {
        /// Blocks B.
        blocks: u32,
        /// Tables `C(B, h)`.
        tables: u64,
    },
    /// Every pair compared.
    AllPairs,
}

/// `C(n, k)`, saturating.
fn choose(n: u64, k: u64) -> u64 {
    let k = k.min(n - k.min(n));
    let mut c: u128 = 1;
    for i in 0..k {
        c = c * u128::from(n - i) / u128::from(i + 1);
        if c > u128::from(u64::MAX) {
            return u64::MAX;
        }
    }
    c as u64
}

/// The cheapest search for `n` fingerprints of `f` bits within `h`: `given` blocks, else
/// the block count minimising the tables' work (each table sorts `n` keys and compares the
/// pairs sharing a key, about `n^2 / 2^(key bits)` of them for random fingerprints),
/// or all pairs when that is cheaper (comparing a pair costs a twentieth of sorting a key).
pub fn plan_search(n: u64, f: u32, h: u32, given: Option<u32>) -> Search {
    let tables_cost = |b: u32| -> f64 {
        let t = choose(u64::from(b), u64::from(h)) as f64;
        let key_bits = f64::from((b - h) * (f / b));
        let n = n as f64;
        t * (n + n * n / 2f64.powf(key_bits.min(64.0)) / 20.0)
    };
    if let Some(b) = given {
        return Search::Tables {
            blocks: b,
            tables: choose(u64::from(b), u64::from(h)),
        };
    }
    let all_pairs = (n as f64) * (n as f64) / 2.0 / 20.0;
    let best = (h + 1..=f)
        .filter(|b| f.is_multiple_of(*b))
        .map(|b| (tables_cost(b), b))
        .min_by(|x, y| x.0.total_cmp(&y.0));
    match best {
        Some((c, b)) if c < all_pairs => Search::Tables {
            blocks: b,
            tables: choose(u64::from(b), u64::from(h)),
        },
        _ => Search::AllPairs,
    }
}

/// The bit masks of the tables of `blocks` blocks of `f` bits for threshold `h`: one mask
/// (`f / 64` words) per choice of `blocks - h` blocks, in lexicographic order of the choice.
fn table_masks(f: u32, blocks: u32, h: u32) -> Vec<Vec<u64>> {
    let words = (f / 64) as usize;
    let width = f / blocks;
    let keep = (blocks - h) as usize;
    let mut out = Vec::new();
    let mut pick: Vec<u32> = (0..keep as u32).collect();
    loop {
        let mut m = vec![0u64; words];
        for &b in &pick {
            for bit in b * width..(b + 1) * width {
                m[(bit / 64) as usize] |= 1u64 << (bit % 64);
            }
        }
        out.push(m);
        // next combination
        let mut i = keep;
        loop {
            if i == 0 {
                return out;
            }
            i -= 1;
            if pick[i] < blocks - (keep - i) as u32 {
                pick[i] += 1;
                for j in i + 1..keep {
                    pick[j] = pick[j - 1] + 1;
                }
                break;
            }
        }
    }
}

/// The key of fingerprint `fp` in the table of `mask`: the kept bits themselves for one
/// word, else the crate's group hash of the masked words (a collision only adds a
/// candidate, which the exact comparison drops).
fn table_key(fp: &[u64], mask: &[u64]) -> u64 {
    if fp.len() == 1 {
        return fp[0] & mask[0];
    }
    let masked: Vec<u64> = fp.iter().zip(mask).map(|(x, m)| x & m).collect();
    crate::sketch::hash::group_hashes(&masked, true, masked.len(), 1, 0x5349_4d48)[0]
}

/// Every pair `(a, b, d)`, `a < b`, of non-empty fingerprints (`f / 64` words each) at
/// Hamming distance `d <= h`, sorted, found by `search`.
pub fn pairs_within<S: AsRef<[u64]> + Sync>(
    fps: &[S],
    f: u32,
    h: u32,
    search: Search,
) -> Vec<(DocId, DocId, u32)> {
    let live: Vec<u32> = (0..fps.len() as u32)
        .filter(|&d| !fps[d as usize].as_ref().is_empty())
        .collect();
    let fp = |d: u32| fps[d as usize].as_ref();
    let mut out: Vec<(DocId, DocId, u32)> = match search {
        Search::AllPairs => live
            .par_iter()
            .enumerate()
            .flat_map_iter(|(i, &a)| {
                let fa = fp(a);
                live[i + 1..].iter().filter_map(move |&b| {
                    let d = hamming(fa, fp(b));
                    (d <= h).then_some((DocId(a), DocId(b), d))
                })
            })
            .collect(),
        Search::Tables { blocks, .. } => table_masks(f, blocks, h)
            .par_iter()
            .flat_map_iter(|mask| {
                let mut keyed: Vec<(u64, u32)> =
                    live.iter().map(|&d| (table_key(fp(d), mask), d)).collect();
                keyed.sort_unstable();
                let mut found = Vec::new();
                for run in keyed.chunk_by(|x, y| x.0 == y.0) {
                    for i in 0..run.len() {
                        for j in i + 1..run.len() {
                            let (a, b) = (run[i].1, run[j].1);
                            let d = hamming(fp(a), fp(b));
                            if d <= h {
                                found.push((DocId(a), DocId(b), d));
                            }
                        }
                    }
                }
                found
            })
            .collect(),
    };
    out.par_sort_unstable();
    out.dedup();
    out
}

/// The simhash step of [`super::run_method`]: the pairs within `h` of the representatives'
/// fingerprints, and their connected components.
pub(super) fn run(arm: &mut Arm<'_, '_>) -> Result<Found> {
    let fps = arm.need(arm.inputs.positional, "simhash fingerprints")?;
    let fps = super::run::mask(fps, arm.collapse());
    let f = arm.n as u32;
    if f == 0 || !f.is_multiple_of(64) {
        return Err(Error::config(format!(
            "simhash needs fingerprints of a multiple of 64 bits, not {f}"
        )));
    }
    let (h, rule) = arm.cfg.simhash.hamming_for(arm.cfg.threshold, f)?;
    if h >= f {
        return Err(Error::config(format!(
            "a Hamming threshold of {h} of {f} bits joins every pair"
        )));
    }
    arm.summary.k = Some(h);
    arm.summary.k_rule = rule;
    let live = fps.iter().filter(|x| !x.is_empty()).count() as u64;
    let search = plan_search(live, f, h, arm.cfg.simhash.blocks);
    if let Search::Tables { blocks, .. } = search {
        if !f.is_multiple_of(blocks) || blocks <= h {
            return Err(Error::config(format!(
                "option blocks takes a divisor of the width {f} above h = {h}, not {blocks}"
            )));
        }
        arm.summary.bands = Some(blocks);
        arm.summary.rows = Some(f / blocks);
    }
    let e = pairs_within(&fps, f, h, search);
    arm.summary.candidates = Some(e.len() as u64);
    arm.timer.lap("tables");
    let edges: Vec<(DocId, DocId, u32)> = e.iter().map(|&(a, b, d)| (a, b, f - d)).collect();
    Ok(joined(arm, f, &edges))
}

/// The connected components of `edges` (`(a, b, agreeing bits)` of `f`-bit fingerprints),
/// each edge scored by the resemblance its distance implies (simhash and henzinger).
pub(super) fn joined(arm: &mut Arm<'_, '_>, f: u32, edges: &[(DocId, DocId, u32)]) -> Found {
    let sets = arm.components(edges);
    arm.timer.lap("union-find");
    Found {
        sets,
        edges: Arm::scored(
            edges,
            |_, agree| Some(estimate_resemblance(f - agree, f)),
            |_| None,
        ),
    }
}

/// Refuses a width that is not a multiple of 64 and a Hamming threshold of the whole width
/// or more (simhash and henzinger).
pub(super) fn check_width(cfg: &SimHashConfig) -> Result<()> {
    let bits = cfg.bits;
    if !bits.is_multiple_of(64) || u64::from(bits) > MAX_BITS {
        return Err(Error::config(format!(
            "option bits takes a multiple of 64 in 64..={MAX_BITS}, not {bits}"
        )));
    }
    if let Some(h) = cfg.hamming {
        if h >= bits {
            return Err(Error::config(format!(
                "option hamming takes a distance below the fingerprint's {bits} bits, not {h}"
            )));
        }
    }
    Ok(())
}

/// The simhash method: fingerprints within Hamming distance `h`, joined by union-find.
pub(super) struct SimHash;

impl MethodSpec for SimHash {
    fn name(&self) -> &'static str {
        "simhash"
    }

    fn reads(&self) -> Reads {
        Reads::Positional
    }

    fn default_scheme(&self) -> Scheme {
        Scheme::SimHash
    }

    fn scheme_for(&self, _requested: Scheme) -> Scheme {
        Scheme::SimHash
    }

    fn options(&self) -> &'static [OptionDecl] {
        OPTIONS
    }

    fn configure(&self, cfg: &mut ClusterConfig, pipeline: &mut PipelineConfig) -> Result<()> {
        configure(self.name(), cfg, pipeline)
    }

    fn check_scheme(&self, scheme: Scheme) -> Result<()> {
        if scheme != Scheme::SimHash {
            return Err(Error::config(format!(
                "simhash reads simhash fingerprints, not {} images",
                scheme.name()
            )));
        }
        Ok(())
    }

    fn regroup(&self, _grouping_components: bool) -> Regroup {
        Regroup::Components
    }

    fn run(&self, arm: &mut Arm<'_, '_>) -> Result<Found> {
        run(arm)
    }

    /// The Hamming distance of the two fingerprints against `h`.
    fn pair_detail(
        &self,
        v: &super::pair_detail::PairView<'_>,
    ) -> Result<(super::pair_detail::MethodDetail, String)> {
        let (ia, ib) = v.images;
        let f = v.n() as u32;
        let d = hamming(ia.values(), ib.values());
        let h = v.summary.k.unwrap_or(0);
        Ok((
            super::pair_detail::MethodDetail::SimHash {
                bits: f,
                distance: d,
                hamming: h,
                estimate: estimate_resemblance(d, f),
            },
            format!(
                "the {f}-bit fingerprints differ in {d} bits against h = {h}: {}",
                if d <= h { "a pair" } else { "not a pair" }
            ),
        ))
    }

    /// At most `h` of `f` bits differ, each with probability `theta / pi`
    /// ([`super::detection::Detection::SimHash`]).
    fn detection(
        &self,
        _cfg: &ClusterConfig,
        summary: &super::ClusterSummary,
        scheme: Option<Scheme>,
        n: u32,
    ) -> Option<super::detection::Detection> {
        (scheme? == Scheme::SimHash).then_some(super::detection::Detection::SimHash {
            bits: n,
            hamming: summary.k?,
        })
    }

    /// None by key: the divided run gathers the fingerprints.
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn brute(fps: &[Vec<u64>], h: u32) -> Vec<(DocId, DocId, u32)> {
        let mut out = Vec::new();
        for a in 0..fps.len() {
            for b in a + 1..fps.len() {
                if fps[a].is_empty() || fps[b].is_empty() {
                    continue;
                }
                let d: u32 = fps[a]
                    .iter()
                    .zip(&fps[b])
                    .map(|(x, y)| (x ^ y).count_ones())
                    .sum();
                if d <= h {
                    out.push((DocId(a as u32), DocId(b as u32), d));
                }
            }
        }
        out
    }

    /// Fingerprints in families: a random base, members within a few bits of it.
    fn families(rng: &mut impl Rng, words: usize, n: usize) -> Vec<Vec<u64>> {
        let mut out = Vec::new();
        while out.len() < n {
            let base: Vec<u64> = (0..words).map(|_| rng.gen()).collect();
            for _ in 0..rng.gen_range(1..6) {
                let mut x = base.clone();
                for _ in 0..rng.gen_range(0..8) {
                    let bit = rng.gen_range(0..64 * words);
                    x[bit / 64] ^= 1 << (bit % 64);
                }
                out.push(if rng.gen_bool(0.03) { Vec::new() } else { x });
            }
        }
        out.truncate(n);
        out
    }

    #[test]
    fn tables_find_every_pair_within_h() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for &(words, h) in &[(1usize, 0u32), (1, 3), (1, 5), (2, 4), (2, 9)] {
            let f = 64 * words as u32;
            let fps = families(&mut rng, words, 600);
            let want = brute(&fps, h);
            let few = |b: &u32| choose(u64::from(*b), u64::from(h)) <= 20_000;
            for b in (h + 1..=f)
                .filter(|b| f.is_multiple_of(*b))
                .filter(few)
                .take(3)
            {
                let s = plan_search(fps.len() as u64, f, h, Some(b));
                assert_eq!(pairs_within(&fps, f, h, s), want, "f={f} h={h} B={b}");
            }
            assert_eq!(pairs_within(&fps, f, h, Search::AllPairs), want);
            let auto = plan_search(fps.len() as u64, f, h, None);
            assert_eq!(pairs_within(&fps, f, h, auto), want, "{auto:?}");
            assert!(!want.is_empty());
        }
    }

    #[test]
    fn tables_are_every_choice_of_blocks() {
        let m = table_masks(64, 4, 1);
        assert_eq!(m.len(), 4);
        // 3 of 4 blocks of 16 bits kept: each mask has 48 bits, each block left out once.
        assert!(m.iter().all(|x| x[0].count_ones() == 48));
        assert_eq!(m.iter().fold(u64::MAX, |a, x| a & x[0]), 0);
        assert_eq!(table_masks(64, 6, 3).len() as u64, choose(6, 3));
        assert_eq!(choose(16, 9), 11_440);
    }

    #[test]
    fn the_plan_prefers_tables_at_manku_settings_and_all_pairs_at_large_h() {
        match plan_search(1_000_000, 64, 3, None) {
            Search::Tables { blocks, tables } => assert_eq!((blocks, tables), (4, 4)),
            s => panic!("{s:?}"),
        }
        assert_eq!(plan_search(2_000, 64, 20, None), Search::AllPairs);
    }
}
