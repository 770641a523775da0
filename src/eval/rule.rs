//! Truth rules: which rows of a truth table count as positive (duplicate) pairs.
//!
//! A rule is `<column><op><number>` with op one of `>`, `>=`, `<`, `<=`, `=` (also `==`),
//! e.g. `edit_similarity>0.85` (the ROMIP rule of IK09), `resemblance>=0.8`,
//! `containment_ab>=0.5`. Whitespace around the parts is ignored.

use crate::{Error, Result};

/// A comparison operator of a [`TruthRule`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `=` (exact float equality)
    Eq,
}

impl Op {
    fn as_str(self) -> &'static str {
        match self {
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Eq => "=",
        }
    }
}

/// A parsed rule `column op value`.
#[derive(Clone, Debug, PartialEq)]
pub struct TruthRule {
    /// Column of the truth table the rule reads.
    pub column: String,
    /// Comparison.
    pub op: Op,
    /// Right-hand side.
    pub value: f64,
}

/// The ROMIP rule of IK09: a pair is a duplicate when its word edit similarity exceeds 0.85.
pub const ROMIP_RULE: &str = "edit_similarity>0.85";

impl TruthRule {
    /// The rule a run uses on `table`: `given` parsed, else the ROMIP rule for a scored
    /// truth (one with columns to apply it to), else none (every listed pair is positive).
    pub fn for_table(given: Option<&str>, table: &super::TruthTable) -> Result<Option<Self>> {
        match given {
            Some(r) => TruthRule::parse(r).map(Some),
            None if table.is_scored() => TruthRule::parse(ROMIP_RULE).map(Some),
            None => Ok(None),
        }
    }

    /// Parses `column op number`; the error names the rule and what was expected.
    pub fn parse(s: &str) -> Result<Self> {
        let bad = |why: &str| {
            Error::config(format!(
                "truth rule '{s}': {why}; expected <column><op><number> with op one of > >= < <= = (e.g. 'edit_similarity>0.85')"
            ))
        };
        let pos = s
            .find(['>', '<', '='])
            .ok_or_else(|| bad("no comparison operator"))?;
        let column = s[..pos].trim();
        let rest = &s[pos..];
        let (op, len) = if rest.starts_with(">=") {
            (Op::Ge, 2)
        } else if rest.starts_with("<=") {
            (Op::Le, 2)
        } else if rest.starts_with("==") {
            (Op::Eq, 2)
        } else if rest.starts_with('>') {
            (Op::Gt, 1)
        } else if rest.starts_with('<') {
            (Op::Lt, 1)
        } else {
            (Op::Eq, 1)
        };
        if column.is_empty() {
            return Err(bad("missing column name"));
        }
        if !column
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.')
        {
            return Err(bad(
                "column name may hold only letters, digits, '_', '-', '.'",
            ));
        }
        let num = rest[len..].trim();
        let value: f64 = num
            .parse()
            .map_err(|_| bad(&format!("'{num}' is not a number")))?;
        if !value.is_finite() {
            return Err(bad("the number must be finite"));
        }
        Ok(TruthRule {
            column: column.to_string(),
            op,
            value,
        })
    }

    /// True when `x` satisfies the rule.
    pub fn accepts(&self, x: f64) -> bool {
        match self.op {
            Op::Gt => x > self.value,
            Op::Ge => x >= self.value,
            Op::Lt => x < self.value,
            Op::Le => x <= self.value,
            Op::Eq => x == self.value,
        }
    }
}

impl std::fmt::Display for TruthRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}{}", self.column, self.op.as_str(), self.value)
    }
}

impl std::str::FromStr for TruthRule {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        TruthRule::parse(s)
    }
}
