//! Threshold ranges for sweeps: `start:stop:step` (inclusive, either direction), a comma list,
//! or one number.

use crate::{Error, Result};

/// Most values a range may expand to.
pub const MAX_THRESHOLDS: usize = 10_000;

/// Parses `"0.95:0.5:0.05"` into `[0.95, 0.9, ..., 0.5]` (inclusive of both ends when the
/// step divides the span up to float error; the step's sign is ignored, the direction is
/// from start to stop), `"150:100:5"` likewise, `"0.9,0.8,0.7"` as listed, or `"0.8"`.
/// Values are rounded to 12 decimals so that `0.95 - 9 * 0.05` prints as `0.5`.
pub fn parse_thresholds(spec: &str) -> Result<Vec<f64>> {
    let bad = |why: &str| {
        Error::config(format!(
            "thresholds '{spec}': {why}; expected start:stop:step (e.g. 0.95:0.5:0.05), a comma list or a number"
        ))
    };
    let num = |s: &str| -> Result<f64> {
        let v: f64 = s
            .trim()
            .parse()
            .map_err(|_| bad(&format!("'{}' is not a number", s.trim())))?;
        if v.is_finite() {
            Ok(v)
        } else {
            Err(bad("values must be finite"))
        }
    };
    let round = |v: f64| (v * 1e12).round() / 1e12;
    let spec_t = spec.trim();
    if spec_t.is_empty() {
        return Err(bad("empty"));
    }
    if spec_t.contains(':') {
        let parts: Vec<&str> = spec_t.split(':').collect();
        if parts.len() != 3 {
            return Err(bad("a range needs exactly three parts"));
        }
        let (start, stop, step) = (num(parts[0])?, num(parts[1])?, num(parts[2])?.abs());
        if step == 0.0 {
            return Err(bad("the step must not be 0"));
        }
        let span = (stop - start).abs();
        let q = span / step;
        let n = if (q - q.round()).abs() <= 1e-9 * q.max(1.0) {
            q.round()
        } else {
            q.floor()
        };
        if n + 1.0 > MAX_THRESHOLDS as f64 {
            return Err(bad(&format!("more than {MAX_THRESHOLDS} values")));
        }
        let dir = if stop < start { -1.0 } else { 1.0 };
        let mut v: Vec<f64> = (0..=n as usize)
            .map(|i| round(start + dir * step * i as f64))
            .collect();
        if let Some(last) = v.last_mut() {
            if (*last - stop).abs() <= 1e-9 * step {
                *last = stop;
            }
        }
        return Ok(v);
    }
    let v = spec_t.split(',').map(num).collect::<Result<Vec<f64>>>()?;
    if v.len() > MAX_THRESHOLDS {
        return Err(bad(&format!("more than {MAX_THRESHOLDS} values")));
    }
    Ok(v)
}
