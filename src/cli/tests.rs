//! The command's defaults are the library's: a command line without flags gives the
//! library's configurations and named options, and every flag that has a default is either
//! an option of the library (its default equal to [`fimdup::defaults::defaults`]'s) or one
//! of the few the command owns (output places, waiting, sharding, presence flags).

use clap::{CommandFactory, Parser};
use fimdup::cluster::JobOptions;
use fimdup::context::ContextConfig;
use fimdup::corpus::CorpusConfig;
use fimdup::dedup::DedupOptions;
use fimdup::eval::{EvalOptions, TruthFormat};
use fimdup::index::overlap::OverlapConfig;
use fimdup::index::{IndexConfig, QueryOptions};
use fimdup::mine::Target;
use fimdup::report::SweepOptions;
use fimdup::sketch::PipelineOptions;
use serde_json::Value;

use super::{index, Cli, Command};

fn parse(args: &[&str]) -> Command {
    Cli::try_parse_from(std::iter::once("fimdup").chain(args.iter().copied()))
        .unwrap_or_else(|e| panic!("{args:?}: {e}"))
        .command
}

#[test]
fn a_command_line_without_flags_gives_the_library_defaults() {
    let corpus = CorpusConfig::default();
    let pipeline = PipelineOptions::default();
    match parse(&["cluster", "in.jsonl", "--out", "o"]) {
        Command::Cluster(a) => {
            assert_eq!(a.job.options(), JobOptions::default());
            assert_eq!(a.job.pipeline.options(), pipeline);
            assert_eq!(a.job.pipeline.corpus.config(), corpus);
        }
        c => panic!("{c:?}"),
    }
    match parse(&["dedup", "in.jsonl", "--out", "o"]) {
        Command::Dedup(a) => {
            assert_eq!(a.options(), DedupOptions::default());
            assert_eq!(a.job.options(), JobOptions::default());
        }
        c => panic!("{c:?}"),
    }
    match parse(&["sketch", "in.jsonl", "--out", "o.img"]) {
        Command::Sketch(a) => {
            assert_eq!(a.pipeline.options(), pipeline);
            assert_eq!(a.pipeline.corpus.config(), corpus);
        }
        c => panic!("{c:?}"),
    }
    match parse(&["eval", "--truth", "t.csv", "--pairs", "p.csv"]) {
        Command::Eval(a) => {
            assert_eq!(a.options(), EvalOptions::default());
            assert_eq!(a.truth_format, TruthFormat::default());
            assert_eq!(a.truth_rule, None);
        }
        c => panic!("{c:?}"),
    }
    match parse(&["sweep", "in.jsonl", "--truth", "t.csv", "--out", "o"]) {
        Command::Sweep(a) => {
            assert_eq!(a.sweep.options(), SweepOptions::default());
            assert_eq!(a.sweep.pipeline.options(), pipeline);
            assert_eq!(a.sweep.truth_format, TruthFormat::default());
        }
        c => panic!("{c:?}"),
    }
    match parse(&["demo"]) {
        Command::Demo(a) => assert_eq!(a.sweep.options(), SweepOptions::default()),
        c => panic!("{c:?}"),
    }
    match parse(&["context", "a.img", "--out", "c.dat"]) {
        Command::Context(a) => {
            assert_eq!(a.config(), ContextConfig::default());
            assert_eq!(a.orientation, fimdup::context::Orientation::default());
        }
        c => panic!("{c:?}"),
    }
    match parse(&["mine", "a.dat", "--minsup", "2"]) {
        Command::Mine(a) => {
            assert_eq!(a.target.parse::<Target>().unwrap(), Target::default());
            assert_eq!(a.max_itemsets, None);
        }
        c => panic!("{c:?}"),
    }
    match parse(&["overlap", "a.jsonl", "b.jsonl"]) {
        Command::Overlap(a) => {
            assert_eq!(a.config(), OverlapConfig::default());
            assert_eq!(a.pipeline.options(), pipeline);
        }
        c => panic!("{c:?}"),
    }
    match parse(&["explain", "a.txt", "b.txt"]) {
        Command::Explain(a) => {
            let d = JobOptions::default();
            assert_eq!(a.measure, d.measure);
            assert_eq!(a.method_options.0, d.options);
            assert_eq!(a.pipeline.options(), pipeline);
        }
        c => panic!("{c:?}"),
    }
    match parse(&["compare", "a.txt", "b.txt"]) {
        Command::Compare(a) => {
            assert_eq!(
                a.text.shingle_config(a.scheme.seed).unwrap(),
                pipeline.shingle().unwrap()
            );
            assert_eq!(a.text.text_config().unwrap(), pipeline.text().unwrap());
            assert_eq!(
                a.scheme.sketch_config().unwrap(),
                pipeline.sketch(fimdup::sketch::Scheme::BottomK).unwrap()
            );
        }
        c => panic!("{c:?}"),
    }
    match parse(&["index", "build", "in.jsonl", "--out", "idx"]) {
        Command::Index(index::Args {
            cmd: index::Cmd::Build(a),
        }) => {
            assert_eq!(a.config(), IndexConfig::default());
            assert_eq!(a.pipeline.options(), pipeline);
        }
        c => panic!("{c:?}"),
    }
    match parse(&["index", "query", "idx", "q.txt"]) {
        Command::Index(index::Args {
            cmd: index::Cmd::Query(a),
        }) => {
            assert_eq!(a.options(), QueryOptions::default());
            assert_eq!(
                (&a.text_field, &a.id_field),
                (&corpus.text_field, &corpus.id_field)
            );
        }
        c => panic!("{c:?}"),
    }
    match parse(&["index", "add", "idx", "in.jsonl"]) {
        Command::Index(index::Args {
            cmd: index::Cmd::Add(a),
        }) => assert_eq!(a.corpus.config(), corpus),
        c => panic!("{c:?}"),
    }
}

/// The groups of [`fimdup::defaults::defaults`] a subcommand's flags take their defaults
/// from, the most specific first; `None` for a subcommand nobody has placed yet.
fn groups(subcommand: &str) -> Option<&'static [&'static str]> {
    Some(match subcommand {
        "gen" => &[],
        "sketch" | "compare" => &["pipeline", "corpus"],
        "context" => &["context"],
        "mine" => &["mine"],
        "cluster" | "explain" => &["job", "pipeline", "corpus"],
        "dedup" => &["dedup", "job", "pipeline", "corpus"],
        "eval" => &["eval", "truth"],
        "sweep" | "demo" => &["sweep", "truth", "pipeline", "corpus"],
        "index build" => &["index", "pipeline", "corpus"],
        "index query" => &["query", "corpus"],
        "index add" => &["corpus"],
        "index remove" | "index merge" => &[],
        "overlap" => &["overlap", "pipeline", "corpus"],
        _ => return None,
    })
}

/// Flags whose defaults belong to the command, not to a library option.
const COMMAND_OWN: [(&str, &str); 11] = [
    ("demo", "out"),
    ("sketch", "shard"),
    ("index build", "wait"),
    ("index add", "wait"),
    ("dedup", "wait"),
    ("index remove", "wait"),
    ("index merge", "wait"),
    // the distributed runs' flag, checked against the library's constant below
    ("*", "connect_timeout"),
    ("*", "peer_timeout"),
    ("*", "exchange"),
    ("*", "giant_groups"),
];

/// Whether a flag's default (as clap shows it) is the library's default `want`.
fn same_default(shown: &[String], want: &Value) -> bool {
    let one = shown.join(",");
    match want {
        Value::String(s) => one == *s,
        Value::Bool(b) => one == b.to_string(),
        Value::Number(n) => {
            let got = one.parse::<f64>().ok().or_else(|| {
                // sizes are shown as such (64MiB)
                one.parse::<fimdup::spill::MemoryBudget>()
                    .ok()
                    .map(|b| b.bytes() as f64)
            });
            got == n.as_f64()
        }
        Value::Array(items) => {
            let items: Vec<String> = items
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .collect();
            shown == items.as_slice()
        }
        Value::Null | Value::Object(_) => false,
    }
}

#[test]
fn every_flag_default_is_the_library_default() {
    let defaults = fimdup::defaults::defaults();
    let mut checked = 0;
    let mut subcommands: Vec<(String, clap::Command)> = Vec::new();
    for sc in Cli::command().get_subcommands() {
        if sc.has_subcommands() {
            for inner in sc.get_subcommands() {
                subcommands.push((
                    format!("{} {}", sc.get_name(), inner.get_name()),
                    inner.clone(),
                ));
            }
        } else {
            subcommands.push((sc.get_name().to_string(), sc.clone()));
        }
    }
    for (name, sc) in &subcommands {
        let groups = groups(name)
            .unwrap_or_else(|| panic!("`fimdup {name}`: say which defaults groups it takes"));
        for arg in sc.get_arguments() {
            let shown: Vec<String> = arg
                .get_default_values()
                .iter()
                .map(|v| v.to_string_lossy().into_owned())
                .collect();
            if shown.is_empty() {
                continue;
            }
            let id = arg.get_id().as_str();
            let want = groups
                .iter()
                .find_map(|g| defaults[*g].get(id).map(|v| (*g, v)));
            match want {
                Some((g, want)) => {
                    assert!(
                        same_default(&shown, want),
                        "`fimdup {name} --{}` defaults to {shown:?}, the library ({g}.{id}) to {want}",
                        arg.get_long().unwrap_or(id)
                    );
                    checked += 1;
                }
                None if COMMAND_OWN.contains(&(name.as_str(), id))
                    || COMMAND_OWN.contains(&("*", id)) => {}
                // a presence flag (off unless given) is no option's default
                None if matches!(arg.get_action(), clap::ArgAction::SetTrue) => {}
                None => panic!(
                    "`fimdup {name} --{}` defaults to {shown:?}, which is no library default \
                     (groups {groups:?}); take it from the library's configuration",
                    arg.get_long().unwrap_or(id)
                ),
            }
        }
    }
    assert!(checked > 100, "only {checked} defaults checked");
}

#[cfg(not(feature = "distributed"))]
#[test]
#[ignore = "needs the `distributed` feature"]
fn the_connect_timeout_is_the_library_s() {}

#[cfg(feature = "distributed")]
#[test]
fn the_connect_timeout_is_the_library_s() {
    match parse(&["cluster", "in.jsonl", "--out", "o", "--processes", "1"]) {
        Command::Cluster(a) => {
            assert_eq!(
                a.dist.connect_timeout,
                fimdup::dataflow::DEFAULT_CONNECT_TIMEOUT.as_secs()
            );
            assert_eq!(
                a.dist.peer_timeout,
                fimdup::dataflow::DEFAULT_PEER_TIMEOUT.as_secs_f64()
            );
            assert_eq!(a.dist.exchange, fimdup::dataflow::Exchange::default());
            assert_eq!(
                a.dist.giant_groups,
                fimdup::dataflow::GiantGroups::default()
            );
        }
        c => panic!("{c:?}"),
    }
}
