//! A method's own options, declared in the method's file ([`OptionDecl`]: name, kind,
//! default, range, help) and read everywhere from that declaration: the command's flags
//! (`--name-with-dashes`), the Python keywords and `JobOptions` keys (`name_with_underscores`),
//! the checks of a given value and where it goes ([`MethodValues::apply`]), the `options`
//! object of `summary.json` ([`values_of`]) and the defaults the Python package reads
//! ([`catalogue`]).
//!
//! Invariants: an option's name is declared once with one meaning (two methods declaring
//! the same name declare the same [`OptionDecl`], checked by a test); a declaration's
//! default is the value [`ClusterConfig::default`] holds (checked by a test); only given
//! values are written, each checked against its kind and range; an option no method
//! declares, or one the chosen method does not declare, is refused with a message naming
//! it and the methods that take it.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{ClusterConfig, Method};
use crate::{Error, Result};

/// One option of a method: what it is, and where it lives in a [`ClusterConfig`].
#[derive(Clone, Copy, Debug)]
pub struct OptionDecl {
    /// The key (`snake_case`): the Python keyword and the `JobOptions` key; the command's
    /// flag is the same with dashes.
    pub name: &'static str,
    /// Its type, default and range.
    pub kind: OptKind,
    /// One line of help (the command's `--help`, the Python docs).
    pub help: &'static str,
    /// Its value in a configuration (the summary's `options`).
    pub get: fn(&ClusterConfig) -> Value,
    /// Writes a given value (checked against `kind`) into a configuration.
    pub set: fn(&mut ClusterConfig, &Value),
}

impl PartialEq for OptionDecl {
    /// The same name, kind and help (where it lives is the method's business).
    fn eq(&self, o: &Self) -> bool {
        (self.name, self.kind, self.help) == (o.name, o.kind, o.help)
    }
}

/// The type of an option, with its default and range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OptKind {
    /// A whole number in `min..=max`; `default: None` leaves the choice to the method (its
    /// help says how).
    Count {
        /// The default, if any.
        default: Option<u64>,
        /// Least accepted.
        min: u64,
        /// Most accepted.
        max: u64,
    },
    /// A real number in `min..=max`.
    Real {
        /// The default.
        default: f64,
        /// Least accepted.
        min: f64,
        /// Most accepted.
        max: f64,
    },
    /// On or off (off by default).
    Flag,
    /// One of `choices`.
    Choice {
        /// The default.
        default: &'static str,
        /// Every accepted name.
        choices: &'static [&'static str],
    },
}

impl OptionDecl {
    /// The command's flag name (the key with dashes).
    pub fn flag(&self) -> String {
        self.name.replace('_', "-")
    }

    /// The default as JSON (`null`: chosen by the method).
    pub fn default_json(&self) -> Value {
        match self.kind {
            OptKind::Count { default, .. } => json!(default),
            OptKind::Real { default, .. } => json!(default),
            OptKind::Flag => json!(false),
            OptKind::Choice { default, .. } => json!(default),
        }
    }

    /// What the option accepts, in words ("a whole number in 1..=64").
    pub fn accepts(&self) -> String {
        match self.kind {
            OptKind::Count { min, max, .. } => format!("a whole number in {min}..={max}"),
            OptKind::Real { min, max, .. } => format!("a number in [{min}, {max}]"),
            OptKind::Flag => "true or false".into(),
            OptKind::Choice { choices, .. } => format!("one of {}", choices.join(", ")),
        }
    }

    /// `v` checked against the kind and range (a whole number is a real number too).
    fn check(&self, v: &Value) -> Result<Value> {
        let bad = || {
            Error::config(format!(
                "option {} takes {}, not {v}",
                self.name,
                self.accepts()
            ))
        };
        match self.kind {
            OptKind::Count { min, max, .. } => {
                let x = v.as_u64().ok_or_else(bad)?;
                (min..=max).contains(&x).then(|| json!(x)).ok_or_else(bad)
            }
            OptKind::Real { min, max, .. } => {
                let x = v.as_f64().ok_or_else(bad)?;
                (x.is_finite() && (min..=max).contains(&x))
                    .then(|| json!(x))
                    .ok_or_else(bad)
            }
            OptKind::Flag => v.as_bool().map(|b| json!(b)).ok_or_else(bad),
            OptKind::Choice { choices, .. } => {
                let s = v.as_str().ok_or_else(bad)?;
                choices.contains(&s).then(|| json!(s)).ok_or_else(bad)
            }
        }
    }
}

/// Every declared option with the methods declaring it, in method order then declaration
/// order, each name once.
pub fn all_options() -> Vec<(OptionDecl, Vec<Method>)> {
    let mut out: Vec<(OptionDecl, Vec<Method>)> = Vec::new();
    for m in Method::ALL {
        for d in m.options() {
            match out.iter_mut().find(|(o, _)| o.name == d.name) {
                Some((_, by)) => by.push(m),
                None => out.push((*d, vec![m])),
            }
        }
    }
    out
}

/// The declarations as the Python package and the docs read them: one object per option
/// with its name, flag, methods, type, default, range or choices and help.
pub fn catalogue() -> Value {
    let rows: Vec<Value> = all_options()
        .into_iter()
        .map(|(d, by)| {
            let mut o = json!({
                "name": d.name,
                "flag": format!("--{}", d.flag()),
                "methods": by.iter().map(|m| m.name()).collect::<Vec<_>>(),
                "default": d.default_json(),
                "help": d.help,
            });
            match d.kind {
                OptKind::Count { min, max, .. } => {
                    o["type"] = json!("int");
                    o["min"] = json!(min);
                    o["max"] = json!(max);
                }
                OptKind::Real { min, max, .. } => {
                    o["type"] = json!("float");
                    o["min"] = json!(min);
                    o["max"] = json!(max);
                }
                OptKind::Flag => o["type"] = json!("bool"),
                OptKind::Choice { choices, .. } => {
                    o["type"] = json!("str");
                    o["choices"] = json!(choices);
                }
            }
            o
        })
        .collect();
    Value::Array(rows)
}

/// The method options given to a job, by key (`null` values count as not given).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct MethodValues(pub BTreeMap<String, Value>);

impl MethodValues {
    /// Sets `name` to `v` (a builder step).
    pub fn set(&mut self, name: &str, v: impl Into<Value>) -> &mut Self {
        self.0.insert(name.to_string(), v.into());
        self
    }

    /// Writes the given values of `method`'s declared options into `cfg`, each checked
    /// against its declaration; an option the method does not declare is refused. What is
    /// not given keeps the configuration's value (its default unless set otherwise).
    pub fn apply(&self, method: Method, cfg: &mut ClusterConfig) -> Result<()> {
        let decls = method.options();
        for (k, v) in &self.0 {
            if v.is_null() {
                continue;
            }
            match decls.iter().find(|d| d.name == k) {
                Some(d) => (d.set)(cfg, &d.check(v)?),
                None => {
                    let by: Vec<Method> = all_options()
                        .into_iter()
                        .find(|(d, _)| d.name == k)
                        .map(|(_, by)| by)
                        .unwrap_or_default();
                    return Err(Error::config(if by.is_empty() {
                        let names: Vec<&str> = all_options().iter().map(|(d, _)| d.name).collect();
                        format!(
                            "unknown option {k:?}; the methods' options are {}",
                            names.join(", ")
                        )
                    } else {
                        let names: Vec<&str> = by.iter().map(|m| m.name()).collect();
                        format!(
                            "option {k} belongs to {}, not to {method}",
                            names.join(" and ")
                        )
                    }));
                }
            }
        }
        Ok(())
    }
}

/// The values of `cfg.method`'s declared options in `cfg`, as one JSON object (the
/// summary's `options`).
pub fn values_of(cfg: &ClusterConfig) -> Value {
    Value::Object(
        cfg.method
            .options()
            .iter()
            .map(|d| (d.name.to_string(), (d.get)(cfg)))
            .collect(),
    )
}

/// A whole-number option's value as a `u32` (the checked range fits the field).
pub(super) fn as_u32(v: &Value) -> u32 {
    v.as_u64()
        .map_or(0, |x| u32::try_from(x).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_has_one_declaration() {
        for m in Method::ALL {
            for d in m.options() {
                for m2 in Method::ALL {
                    if let Some(d2) = m2.options().iter().find(|x| x.name == d.name) {
                        assert_eq!(d, d2, "{} declared differently by {m} and {m2}", d.name);
                    }
                }
            }
        }
    }

    #[test]
    fn apply_checks_and_keeps_the_rest() {
        let mut v = MethodValues::default();
        v.set("bands", 8).set("fn_weight", 0.7);
        let mut cfg = ClusterConfig {
            method: Method::Lsh,
            ..ClusterConfig::default()
        };
        v.apply(Method::Lsh, &mut cfg).unwrap();
        assert_eq!(cfg.lsh.fn_weight, 0.7);
        let o = values_of(&cfg);
        assert_eq!(
            (o["bands"].clone(), o["grouping"].clone()),
            (json!(8), json!("center"))
        );
        // another method's option, an unknown one, a value out of range, a wrong choice
        let mut c = ClusterConfig::default();
        let e = v.apply(Method::Concept, &mut c).unwrap_err().to_string();
        assert!(e.contains("bands belongs to lsh"), "{e}");
        let mut u = MethodValues::default();
        u.set("nope", 1);
        let e = u.apply(Method::Lsh, &mut c).unwrap_err().to_string();
        assert!(e.contains("unknown option"), "{e}");
        let mut w = MethodValues::default();
        w.set("fn_weight", 1.5);
        let e = w.apply(Method::Lsh, &mut c).unwrap_err().to_string();
        assert!(e.contains("fn_weight takes a number in [0, 1]"), "{e}");
        let mut g = MethodValues::default();
        g.set("grouping", "star");
        assert!(g.apply(Method::Lsh, &mut c).is_err());
        // null is not given; what is not given keeps the configuration's value
        let mut n = MethodValues::default();
        n.set("bands", Value::Null);
        let mut kept = ClusterConfig::default();
        kept.concept.split_components = false;
        n.apply(Method::Concept, &mut kept).unwrap();
        assert!(!kept.concept.split_components);
        assert_eq!(values_of(&kept)["no_split"], json!(true));
    }

    #[test]
    fn the_defaults_are_the_configuration_defaults() {
        for m in Method::ALL {
            let cfg = ClusterConfig {
                method: m,
                ..ClusterConfig::default()
            };
            for d in m.options() {
                assert_eq!((d.get)(&cfg), d.default_json(), "{m} {}", d.name);
            }
        }
    }
}
