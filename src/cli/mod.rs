//! Command-line front end: one file per subcommand (args -> library config -> run).
//!
//! Exit codes: 0 success, 2 any error (bad input, bad arguments, failed write); the error is
//! printed on stderr as `fimdup: <message>` naming the file and line at fault.

use clap::{Parser, Subcommand};

mod common;
mod compare;
mod context;
mod index;
mod overlap;
mod sketch;

/// Near-duplicate document clustering by frequent itemset mining, with the classic
/// baselines and their evaluation.
#[derive(Parser, Debug)]
#[command(name = "fimdup", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// Worker threads (default: all cores). Output is the same for any number.
    #[arg(long, global = true, value_name = "T")]
    threads: Option<usize>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Canonicalize, shingle and sketch a corpus into an images file.
    Sketch(sketch::Args),
    /// Transpose images into the inverted context (FIMI format).
    Context(context::Args),
    /// Resemblance and containment of two documents.
    Compare(compare::Args),
    /// Persisted index: build, query, add sweeps (lost and found).
    Index(index::Args),
    /// Overlap and relative size of two collections by sampling.
    Overlap(overlap::Args),
}

/// Runs the command line; returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    #[allow(unreachable_code)]
    if let Err(e) = common::init_threads(cli.threads) {
        eprintln!("fimdup: {e:#}");
        return 2;
    }
    let result = match cli.command {
        Command::Sketch(a) => sketch::run(a),
        Command::Context(a) => context::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Index(a) => index::run(a),
        Command::Overlap(a) => overlap::run(a),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("fimdup: {e:#}");
            2
        }
    }
}
