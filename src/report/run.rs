//! [`run_sweep`]: a sweep against a truth file and, when asked, its report: what `fimdup
//! sweep`, `fimdup demo` and the Python package's `sweep` and `report` run.
//!
//! Invariant: the rows depend only on the input, the truth and the configuration; the
//! report's parameter table starts with what the caller says about itself (its command
//! line), then the fimdup version and commit, then [`describe`]'s table with the truth's
//! format after the truth.

use std::path::Path;

use super::sweep::{describe, sweep, SweepConfig, SweepOutput};
use super::{write_report, MachineInfo, Report};
use crate::eval::{TruthFormat, TruthRule, TruthTable};
use crate::Result;

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
        ("git commit".into(), env!("FIMDUP_GIT_HASH").into()),
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
        },
    )?;
    Ok(res)
}
