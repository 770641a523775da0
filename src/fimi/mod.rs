//! Lists of `u32` transactions and the FIMI transaction format: [`Transactions`] is a compact
//! (CSR) list of transactions, the in-memory form of a FIMI file, which the miner
//! ([`crate::mine`]) reads and the inverted context ([`crate::context`]) is stored as;
//! [`FimiReader`] / [`read_transactions`] read FIMI files (one transaction per line, items
//! separated by spaces) and [`write_rows`] writes them.
//!
//! Invariants: transactions keep their input order; the items of one transaction keep the
//! order in which they were pushed (readers may require them strictly ascending); what
//! [`write_rows`] writes, [`read_transactions`] reads back unchanged.

mod format;
mod transactions;

pub use format::{read_transactions, write_rows, FimiOptions, FimiReader};
pub use transactions::Transactions;
