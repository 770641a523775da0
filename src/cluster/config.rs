//! What a clustering run is asked to do: the [`Method`], the [`Threshold`] (a resemblance
//! translated per method, or the paper's absolute k) and every method's options in one
//! [`ClusterConfig`], validated in one place ([`ClusterConfig::validate`]).
//!
//! Invariant: a configuration that passes `validate` is accepted by every method it names;
//! what depends on the input (the image scheme, the image size) is checked when the method
//! runs.

use super::method::{MethodSpec, Reads};
use super::{
    ConceptConfig, ExactConfig, ImageKind, LshConfig, Measure, SimHashConfig, SuperShingleConfig,
};
use crate::context::ContextConfig;
use crate::sketch::Scheme;
use crate::{Error, Result};

/// Declares [`Method`] from the registration list: one line a method, its variant and the
/// [`MethodSpec`] value in its file.
macro_rules! methods {
    ($( $(#[$doc:meta])* $variant:ident => $spec:expr ),* $(,)?) => {
        /// The clustering method.
        #[derive(
            Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
        )]
        #[serde(rename_all = "kebab-case")]
        pub enum Method {
            $( $(#[$doc])* $variant, )*
        }

        impl Method {
            /// Every method, in report order.
            pub const ALL: [Method; [$(stringify!($variant)),*].len()] = [$(Method::$variant),*];

            /// What the method is (its file's [`MethodSpec`]).
            pub(super) fn spec(self) -> &'static dyn MethodSpec {
                match self {
                    $( Method::$variant => &$spec, )*
                }
            }
        }
    };
}

// The registered methods, in report order.
methods! {
    /// Maximal frequent itemsets of the shingle-rows context (IK09).
    #[default]
    Concept => super::concept::Concept,
    /// Connected components of the pairs sharing `>= k` elements (B97 4.1).
    UnionFind => super::union_find::UnionFind,
    /// Bands of k-mins images, filtering pass, center clustering (H00).
    Lsh => super::lsh::Lsh,
    /// Documents sharing super shingles, union-find (B97 5.3).
    SuperShingle => super::supershingle::SuperShingle,
    /// Exact similarity join on full shingle sets; clusters are connected components.
    Exact => super::exact::Exact,
    /// Charikar's fingerprints within Hamming distance h (C02, MJS07), union-find.
    #[serde(rename = "simhash")]
    SimHash => super::simhash::SimHash,
    /// Super-shingle candidates kept when their fingerprints agree (Henzinger 2006).
    Henzinger => super::henzinger::Henzinger,
}

impl Method {
    /// The CLI name.
    pub fn name(self) -> &'static str {
        self.spec().name()
    }

    /// The options the method declares in its file ([`super::declared`]).
    pub fn options(self) -> &'static [super::declared::OptionDecl] {
        self.spec().options()
    }

    /// The image scheme a method runs on when none is asked for: k-mins for the banding
    /// methods (lsh, super-shingle: positional images), bottom-k for the others.
    pub fn default_scheme(self) -> Scheme {
        self.spec().default_scheme()
    }

    /// The scheme a method runs on when several methods share one requested scheme (a
    /// sweep): the banding methods need positional images and take k-mins images of the
    /// same size and seed when the requested scheme is not positional; the others take it.
    pub fn scheme_for(self, requested: Scheme) -> Scheme {
        self.spec().scheme_for(requested)
    }

    /// What the method reads of a sketched corpus.
    pub fn reads(self) -> Reads {
        self.spec().reads()
    }

    /// Whether the method mines maximal itemsets (its input's miner is called).
    pub fn mines(self) -> bool {
        self.spec().mines()
    }

    /// Whether the method measures containment too.
    pub fn measures_containment(self) -> bool {
        self.spec().measures_containment()
    }

    /// The method's theoretical detection probability for a run (see
    /// [`super::detection`]); `None` where it has no model.
    pub fn detection(
        self,
        cfg: &ClusterConfig,
        summary: &super::ClusterSummary,
        scheme: Option<crate::sketch::Scheme>,
        n: u32,
    ) -> Option<super::detection::Detection> {
        self.spec().detection(cfg, summary, scheme, n)
    }

    /// What the method compared for one pair, and one sentence saying so (see
    /// [`super::pair_detail`]).
    pub fn pair_detail(
        self,
        view: &super::pair_detail::PairView<'_>,
    ) -> Result<(super::pair_detail::MethodDetail, String)> {
        self.spec().pair_detail(view)
    }

    /// The whole run's limits on what a divided run's groups produced together (see
    /// `MethodSpec::check_merged`).
    pub fn check_merged(self, cfg: &ClusterConfig, mined: u64, sets: u64) -> Result<()> {
        self.spec().check_merged(cfg, mined, sets)
    }

    /// Whether the method takes the paper's absolute min-common k (else resemblance
    /// thresholds only).
    pub fn takes_min_common(self) -> bool {
        self.spec().check_threshold(Threshold::MinCommon(1)).is_ok()
    }

    /// The methods that measure containment, named for a message ("union-find and exact").
    pub fn containment_names() -> String {
        let by: Vec<&str> = (Method::ALL.iter())
            .filter(|m| m.measures_containment())
            .map(|m| m.name())
            .collect();
        by.join(" and ")
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
                let names: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
                Error::config(format!(
                    "method must be one of {}, not {s:?}",
                    names.join(", ")
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

/// Everything that configures [`run_method`](super::run_method).
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
    /// SimHash options (simhash, henzinger).
    #[serde(default)]
    pub simhash: SimHashConfig,
    /// Stop with [`Error::Limit`] when the clusters have more member pairs than this.
    pub max_pairs: Option<u64>,
    /// What a [`Threshold::Resemblance`] value measures: resemblance (every method) or
    /// max-containment (`exact`, and `union-find` on mod-m images; see [`containment`](super::containment)).
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
            simhash: SimHashConfig::default(),
            max_pairs: Some(50_000_000),
            measure: Measure::Resemblance,
        }
    }
}

impl ClusterConfig {
    /// Why a run of this configuration cannot be divided by component (the divided
    /// multi-process run), if it cannot.
    pub fn undivided_because(&self) -> Option<&'static str> {
        self.method.spec().undivided_because(self)
    }

    /// Checks every part; `Error::Config` names the bad value.
    pub fn validate(&self) -> Result<()> {
        match self.threshold {
            Threshold::Resemblance(t) if !(0.0..=1.0).contains(&t) => {
                return Err(Error::config(format!(
                    "threshold must be in [0, 1], not {t}"
                )))
            }
            Threshold::MinCommon(0) => return Err(Error::config("min-common must be at least 1")),
            _ => {}
        }
        self.method.spec().check_threshold(self.threshold)?;
        if self.measure == Measure::Containment {
            if !self.method.measures_containment() {
                return Err(Error::config(format!(
                    "containment is measured by {} only (union-find on mod-m images), not by {}",
                    Method::containment_names(),
                    self.method
                )));
            }
            if let Threshold::MinCommon(_) = self.threshold {
                return Err(Error::config(
                    "a containment run takes a containment threshold, not an absolute min-common k",
                ));
            }
        }
        if self.max_pairs == Some(0) {
            return Err(Error::config("max_pairs must be at least 1"));
        }
        self.context.validate()?;
        self.concept.validate()?;
        self.lsh.validate()?;
        self.super_shingle.validate()?;
        self.simhash.validate()?;
        self.exact.validate()
    }
}
