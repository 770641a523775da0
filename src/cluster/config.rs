//! What a clustering run is asked to do: the [`Method`], the [`Threshold`] (a resemblance
//! translated per method, or the paper's absolute k) and every method's options in one
//! [`ClusterConfig`], validated in one place ([`ClusterConfig::validate`]).
//!
//! Invariant: a configuration that passes `validate` is accepted by every method it names;
//! what depends on the input (the image scheme, the image size) is checked when the method
//! runs.

use super::{ConceptConfig, ExactConfig, ImageKind, LshConfig, Measure, SuperShingleConfig};
use crate::context::ContextConfig;
use crate::sketch::Scheme;
use crate::{Error, Result};

/// The clustering method.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Maximal frequent itemsets of the shingle-rows context (IK09).
    #[default]
    Concept,
    /// Connected components of the pairs sharing `>= k` elements (B97 4.1).
    UnionFind,
    /// Bands of k-mins images, filtering pass, center clustering (H00).
    Lsh,
    /// Documents sharing super shingles, union-find (B97 5.3).
    SuperShingle,
    /// Exact similarity join on full shingle sets; clusters are connected components.
    Exact,
}

impl Method {
    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            Method::Concept => "concept",
            Method::UnionFind => "union-find",
            Method::Lsh => "lsh",
            Method::SuperShingle => "super-shingle",
            Method::Exact => "exact",
        }
    }

    /// Every method, in report order.
    pub const ALL: [Method; 5] = [
        Method::Concept,
        Method::UnionFind,
        Method::Lsh,
        Method::SuperShingle,
        Method::Exact,
    ];

    /// The image scheme a method runs on when none is asked for: k-mins for the banding
    /// methods (lsh, super-shingle: positional images), bottom-k for the others.
    pub fn default_scheme(self) -> Scheme {
        match self {
            Method::Lsh | Method::SuperShingle => Scheme::KMins,
            _ => Scheme::BottomK,
        }
    }

    /// The scheme a method runs on when several methods share one requested scheme (a
    /// sweep): the banding methods need positional images and take k-mins images of the
    /// same size and seed when the requested scheme is not positional; the others take it.
    pub fn scheme_for(self, requested: Scheme) -> Scheme {
        match self {
            Method::Lsh | Method::SuperShingle if !requested.is_positional() => Scheme::KMins,
            _ => requested,
        }
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Method {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Method::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                Error::config(format!(
                    "method must be concept, union-find, lsh, super-shingle or exact, not {s:?}"
                ))
            })
    }
}

/// The similarity threshold: a resemblance translated per method, or the paper's absolute k.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Threshold {
    /// A resemblance `t` in `[0, 1]` (`(0, 1]` for `exact`), translated to each method's k.
    Resemblance(f64),
    /// The absolute `k`: shared image elements (concept, union-find), agreeing positions
    /// (lsh), shared super shingles (super-shingle). Not valid for `exact`.
    MinCommon(u32),
}

impl Default for Threshold {
    fn default() -> Self {
        Threshold::Resemblance(0.8)
    }
}

/// Everything that configures [`run_method`].
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ClusterConfig {
    /// The method.
    pub method: Method,
    /// The threshold.
    pub threshold: Threshold,
    /// How the images were made (decides the threshold translation).
    pub image_kind: ImageKind,
    /// Row filtering of the context built for concept / union-find (`max_df`: B97 5.1).
    pub context: ContextConfig,
    /// Concept options.
    pub concept: ConceptConfig,
    /// LSH options.
    pub lsh: LshConfig,
    /// Super-shingle options.
    pub super_shingle: SuperShingleConfig,
    /// Exact-join options.
    pub exact: ExactConfig,
    /// Stop with [`Error::Limit`] when the clusters have more member pairs than this.
    pub max_pairs: Option<u64>,
    /// What a [`Threshold::Resemblance`] value measures: resemblance (every method) or
    /// max-containment (`exact`, and `union-find` on mod-m images; see [`containment`]).
    #[serde(default)]
    pub measure: Measure,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            method: Method::default(),
            threshold: Threshold::default(),
            image_kind: ImageKind::default(),
            context: ContextConfig::default(),
            concept: ConceptConfig::default(),
            lsh: LshConfig::default(),
            super_shingle: SuperShingleConfig::default(),
            exact: ExactConfig::default(),
            max_pairs: Some(50_000_000),
            measure: Measure::Resemblance,
        }
    }
}

impl ClusterConfig {
    /// Checks every part; `Error::Config` names the bad value.
    pub fn validate(&self) -> Result<()> {
        match self.threshold {
            Threshold::Resemblance(t) if !(0.0..=1.0).contains(&t) => {
                return Err(Error::config(format!(
                    "threshold must be in [0, 1], not {t}"
                )))
            }
            Threshold::Resemblance(t) if t == 0.0 && self.method == Method::Exact => {
                return Err(Error::config("the exact join needs a threshold above 0"))
            }
            Threshold::MinCommon(0) => return Err(Error::config("min-common must be at least 1")),
            Threshold::MinCommon(_) if self.method == Method::Exact => {
                return Err(Error::config(
                    "the exact join takes a resemblance threshold, not an absolute min-common k",
                ))
            }
            _ => {}
        }
        if self.measure == Measure::Containment {
            if !matches!(self.method, Method::Exact | Method::UnionFind) {
                return Err(Error::config(format!(
                    "containment is measured by exact and union-find (on mod-m images) only, not by {}",
                    self.method
                )));
            }
            match self.threshold {
                Threshold::MinCommon(_) => return Err(Error::config(
                    "a containment run takes a containment threshold, not an absolute min-common k",
                )),
                Threshold::Resemblance(t) if t == 0.0 && self.method == Method::Exact => {
                    return Err(Error::config("the exact join needs a threshold above 0"))
                }
                _ => {}
            }
        }
        if self.max_pairs == Some(0) {
            return Err(Error::config("max_pairs must be at least 1"));
        }
        self.context.validate()?;
        self.concept.validate()?;
        self.lsh.validate()?;
        self.super_shingle.validate()?;
        self.exact.validate()
    }
}
