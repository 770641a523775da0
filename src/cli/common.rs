//! Helpers shared by the subcommands: thread pool set-up, progress bars, summaries.

use std::io::IsTerminal;

/// Configures the global rayon pool (`None` = all cores). Call once, before any work.
pub fn init_threads(threads: Option<usize>) -> anyhow::Result<()> {
    if let Some(t) = threads {
        anyhow::ensure!(t >= 1, "--threads must be at least 1");
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build_global()?;
    }
    Ok(())
}

/// A progress bar on stderr, hidden when stderr is not a terminal.
pub fn progress(len: Option<u64>, msg: &'static str) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let pb = match len {
        Some(n) => indicatif::ProgressBar::new(n),
        None => indicatif::ProgressBar::new_spinner(),
    };
    pb.set_message(msg);
    pb
}
