//! A method's theoretical probability of finding a pair as an edge ([`Detection`]), given
//! the sizes of the pair's two shingle sets and their intersection ([`PairSets`]): the
//! S-curve of B97 and H00, given by each method
//! (`MethodSpec::detection`) and drawn against measured fractions by
//! [`crate::eval::curves`].
//!
//! # The laws
//! | model | law |
//! |---|---|
//! | k of n k-mins positions ([`Detection::KMins`]) | exact: each position agrees with probability `s`, independently: `P(Bin(n, s) >= k)` |
//! | k shared of two bottom-n images ([`Detection::BottomK`]) | exact, from the set sizes `a`, `b`, `c` (`bottom_k`) |
//! | k of n one-permutation bins ([`Detection::OnePermutation`]) | simulated: [`TRIALS`] pairs of images of sets of the pair's sizes (`one_permutation`), with the simulation's variance |
//! | LSH bands and its filter ([`Detection::Bands`]) | exact on k-mins positions (a walk over the bands); simulated on one-permutation images |
//! | super shingles ([`Detection::SuperShingles`]) | exact on k-mins positions: `P(Bin(groups, s^per) >= min_shared)`; simulated on one-permutation images |
//! | simhash ([`Detection::SimHash`]) | `P(Bin(f, theta / pi) <= h)` with `cos theta = c / sqrt(a b)`: Charikar's law for random hyperplanes, which the fingerprint's +-1 projections approach for sets of more than a few dozen shingles |
//! | the exact join ([`Detection::Step`]) | exact: `s >= t` |
//! | exact verification ([`Detection::Verified`]) | the candidates' law times `s >= t` |
//! | a k-mins law on b-bit values ([`Detection::BBit`]) | the law with each position agreeing with probability `2^-b + (1 - 2^-b) s` |
//!
//! The sizes are those of the shingle *sets* (the images are made from the distinct shingle
//! hashes; a document with fewer than `n` shingles has them all as its image, which the
//! bottom-k law covers: its own elements are then at most `n - k` or it has fewer than `k`
//! in common). A pair of equal non-empty sets has equal images, which the clustering
//! collapses into one document, so it is always found, whatever its k. The elements the
//! context drops for `min_df` are held by one document only, so never shared: no law
//! changes. What the laws leave out:
//! * the hash values are taken as independent uniforms: one seeded bijection of the 64-bit
//!   shingle hashes for bottom-k and one-permutation images, `n` multiply-add functions for
//!   k-mins (only approximately min-wise independent); shingle-hash collisions (about
//!   `2^-56` a pair of shingles) are ignored;
//! * the one-permutation simulation draws the densification's probe key afresh for each
//!   trial, where the sketcher has one key per seed;
//! * a pair is modelled alone: a `max_df` guard that drops common elements from the context
//!   changes what is shared, and pairs with a document in common are correlated through its
//!   image (the S-curve's error counts a document and its exact copies as one event, no
//!   other dependence).
//!
//! Invariant: every probability is a deterministic function of the pair's sizes and the
//! model's parameters (a simulation is seeded by them), in `[0, 1]`; the variance is 0 for
//! the exact laws.

mod bottom_k;
mod one_permutation;

pub use bottom_k::bottom_k_probability;
pub use one_permutation::{Simulations, TRIALS};

use crate::sketch::Scheme;

/// Two sets of random hashes of sizes `a` and `b` sharing their first `c` (the tests'
/// pairs of known sets).
#[cfg(test)]
pub(crate) fn random_pair(
    rng: &mut impl rand::Rng,
    a: usize,
    b: usize,
    c: usize,
) -> (Vec<u64>, Vec<u64>) {
    let common: Vec<u64> = (0..c).map(|_| rng.gen()).collect();
    let mut with = |n: usize| -> Vec<u64> {
        let mut v = common.clone();
        v.extend((c..n).map(|_| rng.gen::<u64>()));
        v
    };
    let x = with(a);
    (x, with(b))
}

/// The sizes of a pair's two shingle sets and of their intersection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct PairSets {
    /// Shingles of the first document.
    pub a: u64,
    /// Shingles of the second.
    pub b: u64,
    /// Shingles of both.
    pub common: u64,
}

impl PairSets {
    /// The sizes `a`, `b` and `common` (`common <= min(a, b)`, else an error).
    pub fn new(a: u64, b: u64, common: u64) -> crate::Result<Self> {
        if common > a.min(b) {
            return Err(crate::Error::config(format!(
                "a pair's sets of {a} and {b} elements cannot share {common}"
            )));
        }
        Ok(PairSets { a, b, common })
    }

    /// The resemblance `common / (a + b - common)` (0 for two empty sets), computed as
    /// [`crate::shingle::resemblance`] computes it.
    pub fn resemblance(&self) -> f64 {
        let u = self.a + self.b - self.common;
        if u == 0 {
            0.0
        } else {
            self.common as f64 / u as f64
        }
    }

    /// Two equal non-empty sets (equal images: always collapsed into one document).
    pub fn equal(&self) -> bool {
        self.a > 0 && self.a == self.b && self.b == self.common
    }
}

/// A pair's detection probability and the variance of its computation (0 for an exact law;
/// for a simulated one, the variance of the simulated fraction).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Probability {
    /// The probability.
    pub p: f64,
    /// The variance of `p` as computed.
    pub variance: f64,
}

impl Probability {
    fn exact(p: f64) -> Self {
        Probability {
            p: p.clamp(0.0, 1.0),
            variance: 0.0,
        }
    }
}

/// How two positional images' positions agree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Positions {
    /// k-mins: each position with probability `s`, independently.
    #[default]
    KMins,
    /// One-permutation hashing with densification: dependent positions, simulated.
    OnePermutation,
}

impl Positions {
    /// The positions of `scheme`'s images (`None` for the sorted schemes and for ICWS, whose
    /// positions agree with the weighted Jaccard, not the set resemblance of [`PairSets`]).
    pub fn of(scheme: Scheme) -> Option<Positions> {
        match scheme {
            Scheme::KMins => Some(Positions::KMins),
            Scheme::OnePermutation => Some(Positions::OnePermutation),
            Scheme::BottomK | Scheme::ModM | Scheme::SimHash | Scheme::Icws => None,
        }
    }
}

/// A method's theoretical probability of finding a pair as an edge of the method (grouping
/// into clusters adds or drops member pairs, which no model here sees).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "model")]
pub enum Detection {
    /// LSH on positional images of `bands * rows` positions: some band agrees on all its
    /// rows and the images agree on at least `min_agree` positions (the filtering pass). On
    /// k-mins positions with `min_agree <= rows` this is `1 - (1 - s^rows)^bands`.
    Bands {
        /// Bands b.
        bands: u32,
        /// Rows per band r.
        rows: u32,
        /// Agreeing positions the filter asks for.
        min_agree: u32,
        /// The images' positions.
        positions: Positions,
    },
    /// At least `k` of `n` k-mins positions agree: `sum_{j >= k} C(n, j) s^j (1 - s)^(n - j)`.
    KMins {
        /// Image size n.
        n: u32,
        /// Positions needed.
        k: u32,
    },
    /// At least `k` of `n` one-permutation bins (densified) agree: simulated.
    OnePermutation {
        /// Image size n.
        n: u32,
        /// Positions needed.
        k: u32,
    },
    /// At least `k` shared elements of two bottom-`n` images: the exact law of
    /// [`bottom_k_probability`].
    BottomK {
        /// Image size n.
        n: u32,
        /// Shared elements needed.
        k: u32,
    },
    /// At least `min_shared` of `groups` super shingles of `per` positions of `n`-position
    /// images agree (on k-mins positions `P(Binomial(groups, s^per) >= min_shared)`).
    SuperShingles {
        /// Image size n.
        n: u32,
        /// Super shingles per image.
        groups: u32,
        /// Positions per super shingle.
        per: u32,
        /// Shared super shingles needed.
        min_shared: u32,
        /// The images' positions.
        positions: Positions,
    },
    /// Two `bits`-bit simhash fingerprints differ in at most `hamming` bits, each bit
    /// independently with probability `theta / pi`, `cos theta = common / sqrt(a b)` (the
    /// angle of the sets' 0/1 vectors): `P(Bin(bits, theta / pi) <= hamming)`.
    SimHash {
        /// Fingerprint width f.
        bits: u32,
        /// Hamming threshold h.
        hamming: u32,
    },
    /// Exact resemblance at least `threshold`: 0 below, 1 from there.
    Step {
        /// The threshold.
        threshold: f64,
    },
    /// A k-mins law ([`Detection::KMins`], [`Detection::Bands`] or
    /// [`Detection::SuperShingles`] on k-mins positions) on b-bit images: each position agrees
    /// with probability `C + (1 - C) s`, `C = 2^-bits`, instead of `s` ([`Detection::b_bit`]).
    BBit {
        /// Bits per value.
        bits: u8,
        /// The law on full values.
        law: Box<Detection>,
    },
    /// Candidates found by `candidates`, then kept when their exact resemblance is at least
    /// `threshold` (exact verification).
    Verified {
        /// How the candidates are found.
        candidates: Box<Detection>,
        /// The verified threshold.
        threshold: f64,
    },
}

impl Detection {
    /// The model of the methods that count shared image elements (concept, union-find):
    /// at least the run's `k` of `n` elements shared, on `scheme`'s images; `None` without a
    /// k, for mod-m images, or without a scheme (weighted images).
    pub fn shared_elements(
        summary: &super::ClusterSummary,
        scheme: Option<Scheme>,
        n: u32,
    ) -> Option<Detection> {
        let k = summary.k?;
        Some(match scheme? {
            Scheme::KMins => Detection::KMins { n, k },
            Scheme::OnePermutation => Detection::OnePermutation { n, k },
            Scheme::BottomK => Detection::BottomK { n, k },
            Scheme::ModM | Scheme::SimHash | Scheme::Icws => return None,
        })
    }

    /// The law on `bits`-bit values of `law` on full values: `None` unless `law` is one of
    /// k-mins positions (one-permutation bins and sorted images are not modelled on b-bit
    /// values).
    pub fn b_bit(law: Detection, bits: u8) -> Option<Detection> {
        let kmins = match &law {
            Detection::KMins { .. } => true,
            Detection::Bands { positions, .. } | Detection::SuperShingles { positions, .. } => {
                *positions == Positions::KMins
            }
            _ => false,
        };
        kmins.then(|| Detection::BBit {
            bits,
            law: Box::new(law),
        })
    }

    /// The probability of a k-mins law when each position agrees with probability `p`.
    fn at_agreement(&self, p: f64) -> Option<f64> {
        Some(match self {
            Detection::KMins { n, k } => binomial_tail(*n, p, *k),
            Detection::Bands {
                bands,
                rows,
                min_agree,
                positions: Positions::KMins,
            } => bands_probability(p, *bands, *rows, *min_agree),
            Detection::SuperShingles {
                groups,
                per,
                min_shared,
                positions: Positions::KMins,
                ..
            } => binomial_tail(*groups, p.powi(*per as i32), *min_shared),
            _ => return None,
        })
    }

    /// The image size of the one-permutation images this model simulates (`None`: no
    /// simulation).
    fn simulated(&self) -> Option<u32> {
        match self {
            Detection::OnePermutation { n, .. } => Some(*n),
            Detection::Bands {
                bands,
                rows,
                positions: Positions::OnePermutation,
                ..
            } => Some(bands * rows),
            Detection::SuperShingles {
                n,
                positions: Positions::OnePermutation,
                ..
            } => Some(*n),
            Detection::Verified { candidates, .. } => candidates.simulated(),
            _ => None,
        }
    }

    /// Each pair's probability of being found, in the order given; the one-permutation
    /// simulations are made in `sims` (kept there for the next model on the same pairs).
    pub fn probabilities(&self, pairs: &[PairSets], sims: &mut Simulations) -> Vec<Probability> {
        use rayon::prelude::*;
        if let Some(n) = self.simulated() {
            sims.simulate(pairs, n);
        }
        let sims = &*sims;
        pairs.par_iter().map(|p| self.with(p, sims)).collect()
    }

    /// One pair's probability of being found (a simulation, if the model needs one, made
    /// for this call).
    pub fn probability(&self, pair: &PairSets) -> Probability {
        let mut sims = Simulations::default();
        self.probabilities(std::slice::from_ref(pair), &mut sims)[0]
    }

    /// The probability of `pair`, the simulations it needs made.
    fn with(&self, pair: &PairSets, sims: &Simulations) -> Probability {
        if pair.equal() {
            return Probability::exact(1.0);
        }
        let s = pair.resemblance();
        match self {
            Detection::Bands {
                bands,
                rows,
                min_agree,
                positions,
            } => match positions {
                Positions::KMins => {
                    Probability::exact(bands_probability(s, *bands, *rows, *min_agree))
                }
                Positions::OnePermutation => sims.fraction(pair, bands * rows, |bits| {
                    one_permutation::full_groups(bits, *rows, *bands) >= 1
                        && one_permutation::agreeing(bits) >= *min_agree
                }),
            },
            Detection::KMins { n, k } => Probability::exact(binomial_tail(*n, s, *k)),
            Detection::OnePermutation { n, k } => {
                sims.fraction(pair, *n, |bits| one_permutation::agreeing(bits) >= *k)
            }
            Detection::BottomK { n, k } => Probability::exact(bottom_k_probability(
                pair.a,
                pair.b,
                pair.common,
                u64::from(*n),
                u64::from(*k),
            )),
            Detection::SuperShingles {
                n,
                groups,
                per,
                min_shared,
                positions,
            } => match positions {
                Positions::KMins => {
                    Probability::exact(binomial_tail(*groups, s.powi(*per as i32), *min_shared))
                }
                Positions::OnePermutation => sims.fraction(pair, *n, |bits| {
                    one_permutation::full_groups(bits, *per, *groups) >= *min_shared
                }),
            },
            Detection::SimHash { bits, hamming } => {
                Probability::exact(simhash_probability(pair, *bits, *hamming))
            }
            Detection::Step { threshold } => {
                Probability::exact(f64::from(u8::from(s >= *threshold)))
            }
            Detection::BBit { bits, law } => Probability::exact(
                law.at_agreement(crate::sketch::bbit::agreement(s, *bits))
                    .unwrap_or(0.0),
            ),
            Detection::Verified {
                candidates,
                threshold,
            } => {
                if s >= *threshold {
                    candidates.with(pair, sims)
                } else {
                    Probability::exact(0.0)
                }
            }
        }
    }

    /// The law the model uses, in a few words (exact, or simulated with its trials).
    pub fn law(&self) -> String {
        match self {
            Detection::Verified { candidates, .. } => candidates.law(),
            d if d.simulated().is_some() => format!(
                "simulated: {TRIALS} pairs of one-permutation images of sets of each pair's sizes"
            ),
            Detection::BottomK { .. } => {
                "exact, from each pair's two set sizes and their intersection".to_string()
            }
            Detection::Step { .. } => "exact".to_string(),
            Detection::SimHash { .. } => {
                "Charikar's random-hyperplane law, from each pair's set sizes and intersection"
                    .to_string()
            }
            _ => "exact for independent positions".to_string(),
        }
    }

    /// The model as a formula with its law, for reports.
    pub fn describe(&self) -> String {
        let formula = match self {
            Detection::Bands {
                bands,
                rows,
                min_agree,
                positions: Positions::KMins,
            } if min_agree <= rows => format!("1-(1-s^{rows})^{bands} (LSH, {bands} x {rows})"),
            Detection::Bands {
                bands,
                rows,
                min_agree,
                positions: Positions::KMins,
            } => format!(
                "a band of {bands} x {rows} agrees and >= {min_agree} of {} positions agree (LSH with its filter)",
                bands * rows
            ),
            Detection::Bands {
                bands,
                rows,
                min_agree,
                positions: Positions::OnePermutation,
            } => format!(
                "a band of {bands} x {rows} one-permutation bins agrees and >= {min_agree} of {} bins agree (LSH with its filter)",
                bands * rows
            ),
            Detection::KMins { n, k } => format!("P(Bin({n}, s) >= {k}) (k-mins)"),
            Detection::OnePermutation { n, k } => {
                format!("P(>= {k} of {n} one-permutation bins agree) (one-permutation)")
            }
            Detection::BottomK { n, k } => format!(
                "P(two bottom-{n} images share >= {k}) = ∫ Beta(v; {k}, c-{k}+1) P[Bin(a-c, v) <= {}] P[Bin(b-c, v) <= {}] dv (bottom-k)",
                n.saturating_sub(*k),
                n.saturating_sub(*k)
            ),
            Detection::SuperShingles {
                groups,
                per,
                min_shared,
                positions: Positions::KMins,
                ..
            } => format!("P(Bin({groups}, s^{per}) >= {min_shared}) (super shingles)"),
            Detection::SuperShingles {
                groups,
                per,
                min_shared,
                positions: Positions::OnePermutation,
                ..
            } => format!(
                "P(>= {min_shared} of {groups} super shingles of {per} one-permutation bins agree) (super shingles)"
            ),
            Detection::SimHash { bits, hamming } => format!(
                "P(Bin({bits}, acos(c/sqrt(ab))/pi) <= {hamming}) (simhash; on equal sizes cos = 2s/(1+s))"
            ),
            Detection::Step { threshold } => format!("s >= {threshold} (exact)"),
            Detection::BBit { bits, law } => {
                return format!(
                    "{} with s -> 2^-{bits} + (1 - 2^-{bits}) s ({bits}-bit values)",
                    law.describe()
                );
            }
            Detection::Verified {
                candidates,
                threshold,
            } => {
                return format!("{}, verified s >= {threshold}", candidates.describe());
            }
        };
        format!("{formula} [{}]", self.law())
    }
}

/// The probability that the `bits`-bit fingerprints of a pair's two sets differ in at most
/// `hamming` bits (see [`Detection::SimHash`]); 0 when either set is empty.
pub fn simhash_probability(pair: &PairSets, bits: u32, hamming: u32) -> f64 {
    if pair.a == 0 || pair.b == 0 {
        return 0.0;
    }
    let cos = pair.common as f64 / ((pair.a as f64) * (pair.b as f64)).sqrt();
    let p = crate::sketch::simhash::bit_differs(cos.clamp(-1.0, 1.0).acos());
    crate::sketch::simhash::within(hamming, bits, p)
}

/// `P(Binomial(n, p) >= k)`, summed in log space.
pub fn binomial_tail(n: u32, p: f64, k: u32) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if k > n {
        return 0.0;
    }
    if p <= 0.0 {
        return 0.0;
    }
    if p >= 1.0 {
        return 1.0;
    }
    let ln_fact = ln_factorials(n);
    let (lp, lq) = (p.ln(), (1.0 - p).ln());
    let total: f64 = (k..=n)
        .map(|j| {
            let (j, n) = (j as usize, n as usize);
            (ln_fact[n] - ln_fact[j] - ln_fact[n - j] + j as f64 * lp + (n - j) as f64 * lq).exp()
        })
        .sum();
    total.min(1.0)
}

fn ln_factorials(n: u32) -> Vec<f64> {
    let mut v = Vec::with_capacity(n as usize + 1);
    v.push(0.0f64);
    for i in 1..=n as usize {
        let prev = v[i - 1];
        v.push(prev + (i as f64).ln());
    }
    v
}

/// `P(some band of rows r agrees fully and at least k of b*r positions agree)`, positions
/// agreeing independently with probability `s`: a walk over the bands whose state is the
/// agreeing positions so far and whether a band agreed fully.
pub(crate) fn bands_probability(s: f64, b: u32, r: u32, k: u32) -> f64 {
    if b == 0 || r == 0 {
        return 0.0;
    }
    if k <= r {
        return 1.0 - (1.0 - s.powi(r as i32)).powi(b as i32);
    }
    let n = (b * r) as usize;
    let r = r as usize;
    // agreeing positions in one band
    let ln_fact = ln_factorials(r as u32);
    let per_band: Vec<f64> = (0..=r)
        .map(|j| {
            let c = (ln_fact[r] - ln_fact[j] - ln_fact[r - j]).exp();
            c * s.powi(j as i32) * (1.0 - s).powi((r - j) as i32)
        })
        .collect();
    // [agreeing][hit]
    let mut cur = vec![[0.0f64; 2]; n + 1];
    cur[0][0] = 1.0;
    for band in 0..b as usize {
        let mut next = vec![[0.0f64; 2]; n + 1];
        for (c, state) in cur.iter().enumerate().take(band * r + 1) {
            for (hit, &p) in state.iter().enumerate() {
                if p == 0.0 {
                    continue;
                }
                for (j, q) in per_band.iter().enumerate() {
                    let h = usize::from(hit == 1 || j == r);
                    next[c + j][h] += p * q;
                }
            }
        }
        cur = next;
    }
    (k as usize..=n).map(|c| cur[c][1]).sum::<f64>().min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_pair_laws() {
        let pair = |a, b, c| PairSets::new(a, b, c).unwrap();
        assert!(PairSets::new(10, 20, 11).is_err());
        // bottom-k: sets no larger than the image share everything they have in common
        let d = Detection::BottomK { n: 128, k: 100 };
        assert_eq!(d.probability(&pair(120, 110, 100)).p, 1.0);
        assert_eq!(d.probability(&pair(120, 110, 99)).p, 0.0);
        // equal sets are collapsed into one document, found whatever k asks
        assert_eq!(d.probability(&pair(60, 60, 60)), Probability::exact(1.0));
        assert_eq!(pair(0, 0, 0).resemblance(), 0.0);
        // k-mins and the step depend on the resemblance only
        let k = Detection::KMins { n: 20, k: 12 };
        let (x, y) = (pair(100, 100, 80), pair(400, 50, 50)); // 0.667 and 0.125
        assert!((k.probability(&x).p - binomial_tail(20, 80.0 / 120.0, 12)).abs() < 1e-15);
        assert_eq!(k.probability(&x).variance, 0.0);
        assert_eq!(Detection::Step { threshold: 0.6 }.probability(&x).p, 1.0);
        assert_eq!(Detection::Step { threshold: 0.6 }.probability(&y).p, 0.0);
        // verification multiplies the candidates' law by the step on the exact resemblance
        for (t, want) in [(0.6, k.probability(&x).p), (0.7, 0.0)] {
            let v = Detection::Verified {
                candidates: Box::new(k.clone()),
                threshold: t,
            };
            assert_eq!(v.probability(&x).p, want);
        }
        // a simulated law reports its variance; one simulation serves every k
        let o = |k| Detection::OnePermutation { n: 64, k };
        let mut sims = Simulations::default();
        let many = o(40).probabilities(&[x, x, y], &mut sims);
        assert_eq!(many[0], many[1]);
        assert!(many[0].variance > 0.0 && many[0].variance < 0.25 / TRIALS as f64 + 1e-12);
        assert_eq!(many[2].p, 0.0);
        let by_k: Vec<f64> = (30..50)
            .map(|k| o(k).probabilities(&[x], &mut sims)[0].p)
            .collect();
        assert!(by_k.windows(2).all(|w| w[1] <= w[0]), "{by_k:?}");
        assert!(o(40).describe().contains("simulated"));
        assert!(d.describe().contains("exact"));
    }

    /// The b-bit laws against a simulation of the mechanism: a position agrees when the
    /// minima are equal (probability s), or else when their b bits agree by chance (2^-b);
    /// the simulated fraction within 3 standard errors (binomial) of the law. Sorted
    /// schemes have no b-bit law.
    #[test]
    fn b_bit_laws_match_a_simulation() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
        let pair = PairSets::new(100, 100, 70).unwrap(); // s = 70 / 130
        let s = pair.resemblance();
        let trials = 20_000;
        for (bits, law) in [
            (2u8, Detection::KMins { n: 64, k: 40 }),
            (1, Detection::KMins { n: 64, k: 50 }),
            (
                2,
                Detection::Bands {
                    bands: 8,
                    rows: 8,
                    min_agree: 40,
                    positions: Positions::KMins,
                },
            ),
        ] {
            let (n, k, rows) = match law {
                Detection::KMins { n, k } => (n, k, None),
                Detection::Bands {
                    bands,
                    rows,
                    min_agree,
                    ..
                } => (bands * rows, min_agree, Some(rows)),
                _ => unreachable!(),
            };
            let c = 0.5f64.powi(i32::from(bits));
            let mut hits = 0usize;
            for _ in 0..trials {
                let agree: Vec<bool> = (0..n)
                    .map(|_| rng.gen::<f64>() < s || rng.gen::<f64>() < c)
                    .collect();
                let count = agree.iter().filter(|&&x| x).count() as u32;
                let band =
                    rows.is_none_or(|r| agree.chunks(r as usize).any(|b| b.iter().all(|&x| x)));
                hits += usize::from(count >= k && band);
            }
            let p = Detection::b_bit(law.clone(), bits)
                .unwrap()
                .probability(&pair)
                .p;
            let f = hits as f64 / trials as f64;
            let se = (p * (1.0 - p) / trials as f64).sqrt();
            assert!((f - p).abs() < 3.0 * se, "{law:?} b={bits}: {f} vs {p}");
            assert!(p > 0.01 && p < 0.99, "{law:?} b={bits}: {p} says little");
        }
        assert!(Detection::b_bit(Detection::BottomK { n: 64, k: 40 }, 2).is_none());
    }
}
