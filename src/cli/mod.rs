//! Command-line front end: one file per subcommand (args -> library config -> run).
//!
//! Exit codes: 0 success, 2 any error (bad input, bad arguments, failed write); the error is
//! printed on stderr as `fimdup: <message>` naming the file and line at fault.

use clap::{Parser, Subcommand};

#[allow(dead_code)] // used by the subcommands as they land
mod common;
mod eval;
mod gen;

/// Near-duplicate document clustering by frequent itemset mining, with the classic
/// baselines and their evaluation.
#[derive(Parser, Debug)]
#[command(name = "fimdup", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Evaluate predicted pairs or clusters against labeled pairs (five values, P/R/F1).
    Eval(eval::Args),
    /// Generate a synthetic corpus with known near-duplicates and its exact truth.
    Gen(gen::Args),
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
    let result: anyhow::Result<()> = match cli.command {
        Command::Eval(a) => eval::run(a),
        Command::Gen(a) => gen::run(a),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("fimdup: {e:#}");
            2
        }
    }
}
