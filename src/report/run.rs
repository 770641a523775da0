//! [`run_sweep`]: a sweep against a truth file and, when asked, its report: what `fimdup
//! sweep`, `fimdup demo` and the Python package's `sweep` and `report` run, each from the
//! same named options ([`SweepOptions`], the command's defaults).
//!
//! Invariant: the rows depend only on the input, the truth and the configuration; the
//! report's parameter table starts with what the caller says about itself (its command
//! line), then the fimdup version and commit, then [`describe`]'s table with the truth's
//! format after the truth.

use std::path::Path;

use super::sweep::{describe, sweep, SweepConfig, SweepOutput, SweepThresholds};
use super::timing::Repeat;
use super::{write_report, MachineInfo, Report, DEFAULT_ERRORS};
use crate::cluster::{ClusterConfig, Measure, Method, Verify};
use crate::eval::similarity::TruthTokenizer;
use crate::eval::{
    parse_thresholds, BootstrapConfig, CvConfig, External, FalseClusterConfig, TruthFormat,
    TruthRule, TruthTable,
};
use crate::sketch::by_name;
use crate::sketch::pipeline::PipelineConfig;
use crate::{Error, Result};

/// A sweep's options but the pipeline, by name, with the defaults every entry point takes
/// (`fimdup sweep --help`, the Python `sweep`): every method, resemblance 0.95 down to 0.5
/// in steps of 0.05, no verification, the false-cluster floor of
/// [`FalseClusterConfig::default`] (0.5, resemblance on `word` words), [`DEFAULT_ERRORS`]
/// (20) listed errors per row, no bootstrap (seed 0, documents as the unit), no
/// cross-validation (seed 0, each fold reported against the others), one shingle length
/// (the pipeline's), every timed step repeated as [`Repeat::default`] says (at most 3
/// times, until its repetitions took 0.25 s). Serialized by the names the command takes
/// ([`crate::defaults`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SweepOptions {
    /// Methods, in report order.
    pub methods: Vec<Method>,
    /// Resemblance thresholds `FROM:TO:STEP` (inclusive) or a comma list.
    pub thresholds: String,
    /// The paper's absolute k instead, in the same forms.
    pub min_common: Option<String>,
    /// Exact verification.
    #[serde(with = "by_name::option")]
    pub verify: Option<Verify>,
    /// Evaluate only the pairs the truth lists.
    pub labeled_only: bool,
    /// False-duplicate cluster floor.
    pub floor: f64,
    /// The words of the false-cluster check's exact resemblances, by name (`word`, `alnum`,
    /// `whitespace`, `unicode`).
    pub truth_tokenizer: TruthTokenizer,
    /// Drop image elements held by more than this many documents.
    pub max_df: Option<u32>,
    /// What the thresholds measure.
    #[serde(with = "by_name")]
    pub measure: Measure,
    /// False positives and misses listed per row.
    pub errors: usize,
    /// Bootstrap resamples for the intervals and paired comparisons (0: none).
    pub bootstrap: usize,
    /// The bootstrap's seed.
    pub bootstrap_seed: u64,
    /// The corpus records' field naming each document's group, the unit of the bootstrap
    /// and of the cross-validation (`None`: documents).
    pub group_by: Option<String>,
    /// Folds of the cross-validation (0: none).
    pub cv: usize,
    /// The seed of the cross-validation's fold assignment.
    pub cv_seed: u64,
    /// The cross-validation's choose-set sizes: every set of that many folds chosen on,
    /// the rest reported (empty: each fold reported against all the others).
    pub cv_choose: Vec<usize>,
    /// A grid of shingle lengths (two or more) swept in turn, each row carrying its
    /// length; the cross-validation chooses the length with the threshold. Empty: the
    /// pipeline's one length.
    pub shingle_lens: Vec<usize>,
    /// At most this many repetitions of each timed step (1: each once).
    pub repeats: usize,
    /// No further repetition of a step once its repetitions took this many seconds.
    pub repeat_seconds: f64,
}

impl Default for SweepOptions {
    fn default() -> Self {
        SweepOptions {
            methods: Method::ALL.to_vec(),
            thresholds: "0.95:0.5:0.05".into(),
            min_common: None,
            verify: None,
            labeled_only: false,
            floor: FalseClusterConfig::default().floor,
            truth_tokenizer: TruthTokenizer::default(),
            max_df: None,
            measure: Measure::default(),
            errors: DEFAULT_ERRORS,
            bootstrap: 0,
            bootstrap_seed: 0,
            group_by: None,
            cv: 0,
            cv_seed: 0,
            cv_choose: Vec::new(),
            shingle_lens: Vec::new(),
            repeats: Repeat::default().max,
            repeat_seconds: Repeat::default().seconds,
        }
    }
}

impl SweepOptions {
    /// The grid, and its label for the report (`0.95:0.5:0.05`, `min-common 150:100:5`).
    pub fn thresholds(&self) -> Result<(SweepThresholds, String)> {
        Ok(match &self.min_common {
            Some(spec) => (
                SweepThresholds::MinCommon(
                    parse_thresholds(spec)?
                        .into_iter()
                        .map(|k| {
                            if k >= 1.0 && k.fract() == 0.0 {
                                Ok(k as u32)
                            } else {
                                Err(Error::config(format!(
                                    "min-common takes whole numbers >= 1, not {k}"
                                )))
                            }
                        })
                        .collect::<Result<_>>()?,
                ),
                format!("min-common {spec}"),
            ),
            None => (
                SweepThresholds::Resemblance(parse_thresholds(&self.thresholds)?),
                self.thresholds.clone(),
            ),
        })
    }

    /// The sweep on images made by `pipeline`, with other tools' predictions beside it.
    pub fn config(&self, pipeline: PipelineConfig, external: Vec<External>) -> Result<SweepConfig> {
        let mut cluster = ClusterConfig::default();
        cluster.context.max_df = self.max_df;
        cluster.measure = self.measure;
        let cfg = SweepConfig {
            methods: self.methods.clone(),
            thresholds: self.thresholds()?.0,
            pipeline,
            cluster,
            spill: crate::spill::SpillConfig::default(),
            verify: self.verify == Some(Verify::Exact),
            false_clusters: FalseClusterConfig {
                floor: self.floor,
                ..FalseClusterConfig::default()
            },
            truth_tokenizer: self.truth_tokenizer,
            labeled_only: self.labeled_only,
            errors: self.errors,
            external,
            bootstrap: BootstrapConfig::from_options(
                self.bootstrap,
                self.bootstrap_seed,
                self.group_by.as_deref().filter(|_| self.bootstrap > 0),
            )?,
            cv: (self.cv > 0).then(|| CvConfig {
                folds: self.cv,
                seed: self.cv_seed,
                group_by: self.group_by.clone(),
                choose: self.cv_choose.clone(),
            }),
            shingle_lens: self.shingle_lens.clone(),
            repeat: Repeat {
                max: self.repeats,
                seconds: self.repeat_seconds,
            },
        };
        if !self.cv_choose.is_empty() && self.cv == 0 {
            return Err(Error::config(
                "cv-choose sizes the choose-sets of a cross-validation: give a number of folds too",
            ));
        }
        if self.group_by.is_some() && self.bootstrap == 0 && self.cv == 0 {
            return Err(Error::config(
                "group-by chooses the unit of the bootstrap or the cross-validation: give a number of resamples or of folds too",
            ));
        }
        cfg.validate()?;
        Ok(cfg)
    }
}

/// The truth a sweep is evaluated against.
#[derive(Clone, Copy, Debug)]
pub struct SweepTruth<'a> {
    /// The file (or directory).
    pub path: &'a Path,
    /// How it is written.
    pub format: TruthFormat,
    /// `<column><op><number>` (`None`: the format's default).
    pub rule: Option<&'a str>,
}

/// Runs the sweep of `cfg` on the corpus at `input` against `truth` (labeled-only when
/// asked or when the truth's format labels only some pairs) and, with `out_dir`, writes the
/// report there. `caller` leads the report's parameter table; `thresholds` is the grid as
/// given.
pub fn run_sweep(
    input: &Path,
    truth: SweepTruth<'_>,
    mut cfg: SweepConfig,
    thresholds: &str,
    caller: &[(String, String)],
    out_dir: Option<&Path>,
    progress: &dyn Fn(&str),
) -> Result<SweepOutput> {
    let table = TruthTable::read_as(truth.path, truth.format)?;
    let rule = TruthRule::for_table(truth.rule, &table)?;
    let labels = table.labels(rule.as_ref())?;
    cfg.labeled_only |= table.format().labeled_only_by_default();
    let res = sweep(input, &table, &labels, &cfg, progress)?;
    let Some(out_dir) = out_dir else {
        return Ok(res);
    };
    let mut params: Vec<(String, String)> = caller.to_vec();
    params.extend([
        ("fimdup version".into(), env!("CARGO_PKG_VERSION").into()),
        ("git commit".into(), crate::GIT_HASH.into()),
    ]);
    params.extend(describe(
        input,
        truth.path,
        rule.as_ref(),
        thresholds,
        &cfg,
        &res,
    )?);
    let at = params
        .iter()
        .position(|p| p.0 == "truth")
        .map_or(0, |i| i + 1);
    let f = table.format();
    let mut format = format!("{f} (positive without a rule: {}", f.positives());
    if f.labeled_only_by_default() {
        format.push_str("; labeled only by default");
    }
    format.push(')');
    params.insert(at, ("truth format".into(), format));
    write_report(
        out_dir,
        &Report {
            rows: &res.rows,
            params: &params,
            machine: &MachineInfo::detect(),
            errors: (cfg.errors > 0).then_some(&res.errors),
            paired: res.bootstrap.is_some().then_some(res.paired.as_slice()),
            cv: res.cv.as_ref(),
            curves: Some(&res.curves),
        },
    )?;
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_options_by_name() {
        let o: SweepOptions = serde_json::from_str(
            r#"{"methods":["concept","union-find"],"min_common":"120:100:10","verify":"exact"}"#,
        )
        .unwrap();
        assert_eq!(o.methods, vec![Method::Concept, Method::UnionFind]);
        let (t, label) = o.thresholds().unwrap();
        assert_eq!(t, SweepThresholds::MinCommon(vec![120, 110, 100]));
        assert_eq!(label, "min-common 120:100:10");
        assert_eq!(
            serde_json::from_str::<SweepOptions>("{}").unwrap(),
            SweepOptions::default()
        );
        // written by name, read back the same
        let v = serde_json::to_value(&o).unwrap();
        assert_eq!(v["methods"], serde_json::json!(["concept", "union-find"]));
        assert_eq!(v["verify"], "exact");
        assert_eq!(serde_json::from_value::<SweepOptions>(v).unwrap(), o);
        let bad: SweepOptions = serde_json::from_str(r#"{"min_common":"2.5"}"#).unwrap();
        assert!(bad.thresholds().is_err());
        let t: SweepOptions = serde_json::from_str(r#"{"truth_tokenizer":"alnum"}"#).unwrap();
        assert_eq!(t.truth_tokenizer, TruthTokenizer::Alnum);
        let cfg = t.config(PipelineConfig::default(), Vec::new()).unwrap();
        assert_eq!(cfg.truth_tokenizer, TruthTokenizer::Alnum);
        let e = serde_json::from_str::<SweepOptions>(r#"{"truth_tokenizer":"words"}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("word, alnum, whitespace or unicode"), "{e}");
    }
}
