//! The `fimdup` binary: parses arguments, turns them into library configs, runs, prints.
//! All the work is in the `fimdup` library; see `src/cli/` (one file per subcommand).

mod cli;

fn main() {
    // The fail points FAILPOINTS names (the fail-stop tests); none without it.
    #[cfg(feature = "failpoints")]
    let scenario = fail::FailScenario::setup();
    let code = cli::main();
    #[cfg(feature = "failpoints")]
    scenario.teardown();
    // Destructors do not run on exit: temporaries still registered belong to threads that
    // never returned (a worker waiting for an error to be reported), and go now.
    fimdup::cleanup::shut_down_and_clean();
    std::process::exit(code);
}
