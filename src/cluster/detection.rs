//! A method's theoretical probability of finding a pair of resemblance `s` ([`Detection`]):
//! the S-curve of B97 and H00 (lsh `1-(1-s^r)^b`, k-mins and bottom-k at `k` shared
//! elements, super shingles, the exact join's step, a verified run's product), given by
//! each method (`MethodSpec::detection`) and drawn against measured
//! fractions by [`crate::eval::curves`].
//!
//! Invariant: every probability is a deterministic function of `s` and the model's
//! parameters, in `[0, 1]`.

use super::threshold::expected_shared_bottom_k;

/// A method's theoretical probability of finding a pair of resemblance `s` (an edge of the
/// method; grouping into clusters adds or drops member pairs, which no model here sees).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "model")]
pub enum Detection {
    /// LSH on k-mins images of `bands * rows` positions: some band agrees on all its rows
    /// and the images agree on at least `min_agree` positions (the filtering pass). Each
    /// position agrees with probability `s`, independently; with `min_agree <= rows` this
    /// is `1 - (1 - s^rows)^bands`.
    Bands {
        /// Bands b.
        bands: u32,
        /// Rows per band r.
        rows: u32,
        /// Agreeing positions the filter asks for.
        min_agree: u32,
    },
    /// At least `k` of `n` k-mins positions agree: `sum_{j >= k} C(n, j) s^j (1 - s)^(n - j)`.
    KMins {
        /// Image size n.
        n: u32,
        /// Positions needed.
        k: u32,
    },
    /// At least `k` shared elements of two bottom-`n` images. Approximation: the count is
    /// taken as binomial with `n` trials and the mean of
    /// [`expected_shared_bottom_k`] (`n · 2s/(1+s)`, corrected), as for two documents of
    /// equal size much longer than `n`; the true count is more concentrated, and shorter
    /// documents share their whole sets.
    BottomK {
        /// Image size n.
        n: u32,
        /// Shared elements needed.
        k: u32,
    },
    /// At least `min_shared` of `groups` super shingles of `per` k-mins positions agree:
    /// `P(Binomial(groups, s^per) >= min_shared)`.
    SuperShingles {
        /// Super shingles per image.
        groups: u32,
        /// Positions per super shingle.
        per: u32,
        /// Shared super shingles needed.
        min_shared: u32,
    },
    /// Exact resemblance at least `threshold`: 0 below, 1 from there.
    Step {
        /// The threshold.
        threshold: f64,
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

/// Points of [`Detection::table`] over `[0, 1]`.
const TABLE_STEPS: usize = 2000;

/// A detection probability tabulated on a grid of `[0, 1]`, read with linear interpolation
/// (steps are handled exactly).
pub struct DetectionTable {
    values: Vec<f64>,
    step: Option<f64>,
}

impl DetectionTable {
    /// The probability at `s` (clamped to `[0, 1]`).
    pub fn at(&self, s: f64) -> f64 {
        let s = s.clamp(0.0, 1.0);
        let x = s * TABLE_STEPS as f64;
        let i = (x.floor() as usize).min(TABLE_STEPS - 1);
        let f = x - i as f64;
        let v = self.values[i] * (1.0 - f) + self.values[i + 1] * f;
        match self.step {
            Some(t) if s < t => 0.0,
            _ => v,
        }
    }
}

impl Detection {
    /// The model of the methods that count shared image elements (concept, union-find):
    /// at least the run's `k` of `n` elements shared, on k-mins or bottom-k images; `None`
    /// without a k or a fixed-size image kind.
    pub fn shared_elements(
        summary: &super::ClusterSummary,
        images: Option<super::ImageKind>,
        n: u32,
    ) -> Option<Detection> {
        let k = summary.k?;
        Some(match images? {
            super::ImageKind::KMins => Detection::KMins { n, k },
            super::ImageKind::BottomK => Detection::BottomK { n, k },
        })
    }

    /// The probability of finding a pair of resemblance `s`.
    pub fn probability(&self, s: f64) -> f64 {
        let s = s.clamp(0.0, 1.0);
        match self {
            Detection::Bands {
                bands,
                rows,
                min_agree,
            } => bands_probability(s, *bands, *rows, *min_agree),
            Detection::KMins { n, k } => binomial_tail(*n, s, *k),
            Detection::BottomK { n, k } => {
                let q = (expected_shared_bottom_k(s, *n as usize) / f64::from((*n).max(1)))
                    .clamp(0.0, 1.0);
                binomial_tail(*n, q, *k)
            }
            Detection::SuperShingles {
                groups,
                per,
                min_shared,
            } => binomial_tail(*groups, s.powi(*per as i32), *min_shared),
            Detection::Step { threshold } => f64::from(u8::from(s >= *threshold)),
            Detection::Verified {
                candidates,
                threshold,
            } => {
                if s >= *threshold {
                    candidates.probability(s)
                } else {
                    0.0
                }
            }
        }
    }

    /// The probability tabulated (what [`s_curve`](crate::eval::s_curve) averages; the grid has 2,000 steps, so
    /// the interpolation error of the smooth curves is far below any binomial error).
    pub fn table(&self) -> DetectionTable {
        let (inner, step) = match self {
            Detection::Step { threshold } => {
                return DetectionTable {
                    values: vec![1.0; TABLE_STEPS + 1],
                    step: Some(*threshold),
                }
            }
            Detection::Verified {
                candidates,
                threshold,
            } => (candidates.as_ref(), Some(*threshold)),
            d => (d, None),
        };
        DetectionTable {
            values: (0..=TABLE_STEPS)
                .map(|i| inner.probability(i as f64 / TABLE_STEPS as f64))
                .collect(),
            step,
        }
    }

    /// The model as a formula, for reports.
    pub fn describe(&self) -> String {
        match self {
            Detection::Bands {
                bands,
                rows,
                min_agree,
            } if min_agree <= rows => format!("1-(1-s^{rows})^{bands} (LSH, {bands} x {rows})"),
            Detection::Bands {
                bands,
                rows,
                min_agree,
            } => format!(
                "a band of {bands} x {rows} agrees and >= {min_agree} of {} positions agree (LSH with its filter)",
                bands * rows
            ),
            Detection::KMins { n, k } => format!("P(Bin({n}, s) >= {k}) (k-mins)"),
            Detection::BottomK { n, k } => {
                format!("P(Bin({n}, 2s/(1+s)) >= {k}) (bottom-k, binomial approximation)")
            }
            Detection::SuperShingles {
                groups,
                per,
                min_shared,
            } => format!("P(Bin({groups}, s^{per}) >= {min_shared}) (super shingles)"),
            Detection::Step { threshold } => format!("s >= {threshold} (exact)"),
            Detection::Verified {
                candidates,
                threshold,
            } => format!("{}, verified s >= {threshold}", candidates.describe()),
        }
    }
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
