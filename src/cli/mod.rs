//! Command-line front end: one file per subcommand (args -> library config -> run).
//!
//! Exit codes: 0 success, 2 any error (bad input, bad arguments, failed write); the error is
//! printed on stderr as `fimdup: <message>` naming the file and line at fault; 130 on
//! SIGINT / SIGTERM, after removing temporary files (spill directories, unfinished outputs).

use clap::{Parser, Subcommand};

mod cluster;
mod common;
mod compare;
mod context;
mod dedup;
mod demo;
mod eval;
mod explain;
mod gen;
mod index;
mod method_args;
mod mine;
mod overlap;
mod sketch;
mod sweep;
#[cfg(test)]
mod tests;

/// Near-duplicate document clustering by frequent itemset mining, with the classic
/// baselines and their evaluation.
#[derive(Parser, Debug)]
#[command(
    name = "fimdup",
    version = concat!(env!("CARGO_PKG_VERSION"), " (git ", env!("FIMDUP_GIT_HASH"), ")"),
    about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// Worker threads (default: all cores). Output is the same for any number.
    #[arg(long, global = true, value_name = "T")]
    threads: Option<usize>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// The main job: every method swept over the threshold on the default corpus, reported.
    Demo(demo::Args),
    /// Generate a synthetic corpus with known near-duplicates and its exact truth.
    Gen(gen::Args),
    /// Canonicalize, shingle and sketch a corpus into an images file.
    Sketch(sketch::Args),
    /// Transpose images into the inverted context (FIMI format).
    Context(context::Args),
    /// Mine maximal, closed or all frequent itemsets of a FIMI file.
    Mine(mine::Args),
    /// Cluster near-duplicate documents with one method.
    Cluster(cluster::Args),
    /// Remove near-duplicates: the corpus back without them, and what was removed and why.
    Dedup(dedup::Args),
    /// Evaluate predicted pairs or clusters against labeled pairs (five values, P/R/F1).
    Eval(eval::Args),
    /// Sweep the threshold for several methods against labeled pairs, with plots and a report.
    Sweep(sweep::Args),
    /// Resemblance and containment of two documents.
    Compare(compare::Args),
    /// Why a pair was found or missed: shared shingles, estimates, a method's verdict.
    Explain(explain::Args),
    /// Persisted index: build, query, add sweeps (lost and found).
    Index(index::Args),
    /// Overlap and relative size of two collections by sampling.
    Overlap(overlap::Args),
}

/// Gives SIGPIPE its default action back (Rust ignores it), so that a reader closing the
/// pipe downstream (`fimdup mine data.dat | head`) ends the process quietly, as it ends any
/// Unix filter, instead of failing a write with an error or a panic. Files are written
/// atomically, so nothing half-written is left.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any other thread exists; SIG_DFL is a
    // valid action for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Panics the library catches and turns into errors are not printed: the user sees the
/// error. Those are timely's communication and worker threads' panics when a connection to
/// another process is lost (the error names the lost process), and the Parquet decoder's
/// panics on a malformed file (the error names the file).
fn quiet_caught_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let timely = std::thread::current()
            .name()
            .is_some_and(|n| n.starts_with("timely:"));
        let payload = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        let lost_connection = payload.starts_with("timely communication error")
            || payload.starts_with("MergeQueue poisoned");
        let caught =
            (timely && lost_connection) || fimdup::corpus::parquet::decoder_panic_is_caught();
        if !caught {
            default(info);
        }
    }));
}

/// Runs the command line; returns the process exit code.
pub fn main() -> i32 {
    restore_sigpipe();
    quiet_caught_panics();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    common::install_interrupt_handler();
    if let Err(e) = common::init_threads(cli.threads) {
        eprintln!("fimdup: {e:#}");
        return 2;
    }
    let result = match cli.command {
        Command::Demo(a) => demo::run(a),
        Command::Gen(a) => gen::run(a),
        Command::Sketch(a) => sketch::run(a),
        Command::Context(a) => context::run(a),
        Command::Mine(a) => mine::run(a),
        Command::Cluster(a) => cluster::run(a),
        Command::Dedup(a) => dedup::run(a),
        Command::Eval(a) => eval::run(a),
        Command::Sweep(a) => sweep::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Explain(a) => explain::run(a),
        Command::Index(a) => index::run(a),
        Command::Overlap(a) => overlap::run(a),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            if common::interrupted() {
                // The handler is removing the temporary files and will exit with 130; an
                // error caused by that removal must not race it to exit 2.
                loop {
                    std::thread::park();
                }
            }
            // The library's errors already say their cause (an I/O error names the file and
            // the OS message); anyhow's alternate form would repeat the cause after them.
            match e.downcast_ref::<fimdup::Error>() {
                Some(le) => eprintln!("fimdup: {le}"),
                None => eprintln!("fimdup: {e:#}"),
            }
            2
        }
    }
}
