//! The persisted index: on-the-fly resemblance queries and incremental sweeps.
