//! The methods' own options as flags: one `--name` per option a method declares in its
//! file (`fimdup::cluster::declared`), with its help, type and range from the declaration;
//! the given ones become the job's `MethodValues`, which the library checks.

use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use fimdup::cluster::declared::all_options;
use fimdup::cluster::{MethodValues, OptKind};
use serde_json::Value;

/// The flags of every declared method option (see the module docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MethodArgs(pub MethodValues);

impl FromArgMatches for MethodArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut v = MethodValues::default();
        for (d, _) in all_options() {
            let id = d.name;
            let value = match d.kind {
                OptKind::Flag => m.get_flag(id).then_some(Value::Bool(true)),
                OptKind::Count { .. } => m.get_one::<u64>(id).map(|x| Value::from(*x)),
                OptKind::Real { .. } => m.get_one::<f64>(id).map(|x| Value::from(*x)),
                OptKind::Choice { .. } => m.get_one::<String>(id).map(|x| Value::from(x.clone())),
            };
            if let Some(x) = value {
                v.set(id, x);
            }
        }
        Ok(MethodArgs(v))
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl Args for MethodArgs {
    fn augment_args(cmd: Command) -> Command {
        let mut cmd = cmd;
        for (d, by) in all_options() {
            let methods: Vec<&str> = by.iter().map(|m| m.name()).collect();
            let default = match d.kind {
                OptKind::Count { default: None, .. } | OptKind::Flag => String::new(),
                _ => format!(
                    " [default: {}]",
                    d.default_json().to_string().trim_matches('"')
                ),
            };
            let help = format!("{}: {}{default}", methods.join(", "), d.help);
            let arg = Arg::new(d.name).long(d.flag()).help(help);
            let arg = match d.kind {
                OptKind::Flag => arg.action(ArgAction::SetTrue),
                OptKind::Count { min, max, .. } => arg
                    .value_name("N")
                    .value_parser(clap::value_parser!(u64).range(min..=max)),
                OptKind::Real { .. } => arg.value_name("X").value_parser(clap::value_parser!(f64)),
                OptKind::Choice { choices, .. } => arg.value_name(choices.join("|")).value_parser(
                    clap::builder::PossibleValuesParser::new(choices.iter().copied()),
                ),
            };
            cmd = cmd.arg(arg);
        }
        cmd
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}
