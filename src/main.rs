//! The `fimdup` binary: parses arguments, turns them into library configs, runs, prints.
//! All the work is in the `fimdup` library; see `src/cli/` (one file per subcommand).

mod cli;

fn main() {
    std::process::exit(cli::main());
}
