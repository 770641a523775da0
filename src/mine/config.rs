//! What and how to mine: the [`Target`], the minimum support ([`MinSupport`]) and the
//! [`MineConfig`] holding them with the itemset limit.
//!
//! Invariant: a config that passed [`MineConfig::validate`] has an absolute minimum support
//! of at least 1 or a fraction in (0, 1]; [`MinSupport::resolve`] never gives less than 1.

use std::str::FromStr;

use crate::{Error, Result};

/// What to mine.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// Frequent itemsets with no frequent proper superset.
    #[default]
    Maximal,
    /// Frequent itemsets with no proper superset of equal support.
    Closed,
    /// Every frequent itemset.
    All,
}

impl Target {
    /// The lowercase name (`maximal`, `closed`, `all`).
    pub fn as_str(self) -> &'static str {
        match self {
            Target::Maximal => "maximal",
            Target::Closed => "closed",
            Target::All => "all",
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Target {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "maximal" | "m" => Ok(Target::Maximal),
            "closed" | "c" => Ok(Target::Closed),
            "all" | "frequent" | "s" => Ok(Target::All),
            _ => Err(Error::config(format!(
                "unknown target {s:?}: expected maximal, closed or all"
            ))),
        }
    }
}

/// Minimum support: an absolute number of transactions or a fraction of them.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum MinSupport {
    /// At least this many transactions (>= 1).
    Absolute(u64),
    /// At least `ceil(fraction * transactions)` transactions; the fraction is in (0, 1].
    Relative(f64),
}

impl Default for MinSupport {
    fn default() -> Self {
        MinSupport::Absolute(1)
    }
}

impl MinSupport {
    /// The absolute minimum support for `n_transactions`: the number itself, or
    /// `ceil(fraction * n)` (a product within 1e-9 relative of an integer counts as that
    /// integer, so that `70%` of 10 is 7 despite floating point), and never below 1.
    pub fn resolve(&self, n_transactions: usize) -> u64 {
        match *self {
            MinSupport::Absolute(a) => a.max(1),
            MinSupport::Relative(f) => {
                let x = f * n_transactions as f64;
                let r = x.round();
                let v = if (x - r).abs() <= 1e-9 * x.abs().max(1.0) {
                    r
                } else {
                    x.ceil()
                };
                (v as u64).max(1)
            }
        }
    }

    fn validate(&self) -> Result<()> {
        match *self {
            MinSupport::Absolute(0) => Err(Error::config("minimum support must be at least 1")),
            MinSupport::Relative(f) if !(f > 0.0 && f <= 1.0) => Err(Error::config(format!(
                "relative minimum support must be in (0%, 100%], got {}%",
                f * 100.0
            ))),
            _ => Ok(()),
        }
    }
}

impl std::fmt::Display for MinSupport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MinSupport::Absolute(a) => write!(f, "{a}"),
            MinSupport::Relative(r) => write!(f, "{}%", r * 100.0),
        }
    }
}

impl FromStr for MinSupport {
    type Err = Error;
    /// `"1918"` (absolute), `"60%"` (percent of the transactions) or `"0.6"` (a fraction,
    /// any number with a decimal point).
    fn from_str(s: &str) -> Result<Self> {
        let t = s.trim();
        let bad = || {
            Error::config(format!(
                "bad minimum support {s:?}: expected a count such as 1918, a percentage such as 60% or a fraction such as 0.6"
            ))
        };
        let m = if let Some(p) = t.strip_suffix('%') {
            let v: f64 = p.trim().parse().map_err(|_| bad())?;
            MinSupport::Relative(v / 100.0)
        } else if t.bytes().all(|b| b.is_ascii_digit()) && !t.is_empty() {
            MinSupport::Absolute(t.parse().map_err(|_| bad())?)
        } else if t.contains('.') {
            MinSupport::Relative(t.parse().map_err(|_| bad())?)
        } else {
            return Err(bad());
        };
        m.validate()?;
        Ok(m)
    }
}

/// What and how to mine.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MineConfig {
    /// Minimum support.
    pub minsup: MinSupport,
    /// Maximal, closed or all frequent itemsets.
    pub target: Target,
    /// Stop with [`Error::Limit`] when more itemsets than this would be produced.
    pub max_itemsets: Option<u64>,
}

impl MineConfig {
    /// Checks the values (minimum support >= 1, or a fraction in (0, 1]).
    pub fn validate(&self) -> Result<()> {
        self.minsup.validate()
    }
}
