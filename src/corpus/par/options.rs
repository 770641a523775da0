//! Tuning of the parallel reader: block size and blocks in flight.
//!
//! Invariant: the output never depends on these options, only memory and speed do.

/// Default size of a block of input bytes handed to one worker.
pub const DEFAULT_BLOCK_BYTES: usize = 1 << 20;

/// Tuning of the parallel reader (the output never depends on it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParOptions {
    /// Bytes per block (at least one line per block whatever the size).
    pub block_bytes: usize,
    /// Blocks in flight at most; 0 = twice the number of rayon threads, plus 2.
    pub in_flight: usize,
}

impl Default for ParOptions {
    fn default() -> Self {
        ParOptions {
            block_bytes: DEFAULT_BLOCK_BYTES,
            in_flight: 0,
        }
    }
}

impl ParOptions {
    pub(super) fn max_in_flight(&self) -> usize {
        if self.in_flight == 0 {
            2 * rayon::current_num_threads() + 2
        } else {
            self.in_flight
        }
    }
}
