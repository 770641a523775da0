//! Sweeps, plots and the comparative report.
