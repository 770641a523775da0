//! What mining yields: [`Itemset`]s and the figures of a run ([`MineStats`]).
//!
//! Invariant: an itemset's items are ascending and its support is the number of
//! transactions that hold every item.

/// A frequent itemset and its support.
#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Itemset {
    /// Items, ascending.
    pub items: Vec<u32>,
    /// Number of transactions that contain every item.
    pub support: u32,
}

/// Figures about one run.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MineStats {
    /// Transactions (empty ones included).
    pub transactions: u64,
    /// Distinct items in the input.
    pub items: u64,
    /// Items with support >= the absolute minimum support.
    pub frequent_items: u64,
    /// The absolute minimum support used.
    pub minsup: u64,
    /// Itemsets found.
    pub itemsets: u64,
}
