//! Frequent itemset mining: maximal, closed and all frequent itemsets of a list of
//! [`Transactions`](crate::fimi::Transactions), plus a brute-force reference miner.
//!
//! Items are recoded by ascending support (infrequent ones dropped, items repeated within a
//! transaction counted once), items present in every transaction are set aside (the closure of
//! the empty set: reported as a closed set when non-empty), identical transactions merged;
//! then an LCM-style depth-first search with FPmax-style maximality repositories runs
//! (`search.rs` describes it; in dense mode the top-level branches read their rows from a
//! prefix tree, `trie.rs`, and maximal sets on several threads go through `par.rs`). Entry points: [`mine`] (materialized, sorted; [`mine_part`] one of several disjoint parts of it), [`count`] /
//! [`count_stats`] (nothing materialized), [`write_itemsets`] (streamed `i1 i2 ... (s)` lines).
//!
//! Invariants: results do not depend on the number of threads; itemsets have ascending items;
//! [`mine`] returns them sorted, [`write_itemsets`] in the search order (deterministic).
//! Non-empty itemsets only.
//!
//! Files: `config.rs` ([`Target`], [`MinSupport`], [`MineConfig`]), `itemset.rs`
//! ([`Itemset`], [`MineStats`]), `run.rs` ([`mine`], [`count`] and the search they share),
//! `write.rs` ([`write_itemsets`]), `sink.rs` (the itemset limit and the sinks the search
//! reports to), `prep.rs` (recoding and merging the transactions), `db.rs` (weighted
//! conditional databases), `search.rs`, `trie.rs`, `par.rs` (above), and `brute.rs`
//! ([`brute_force`]).

mod brute;
mod config;
mod db;
mod itemset;
mod par;
mod prep;
mod run;
mod search;
mod sink;
mod trie;
mod write;

pub use brute::brute_force;
pub use config::{MinSupport, MineConfig, Target};
pub use itemset::{Itemset, MineStats};
pub use run::{
    count, count_stats, mine, mine_part, mine_part_sparse_mode, mine_sparse_mode, mine_split_halves,
};
pub use sink::check_itemset_limit;
pub use write::write_itemsets;
