//! Frequent itemset mining: maximal (FPmax-style), closed and all frequent itemsets of a list
//! of [`Transactions`](crate::context::Transactions).
//!
//! Invariants: results do not depend on the number of threads; itemsets have ascending items
//! and come out in a deterministic order.

/// What to mine.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// Frequent itemsets with no frequent proper superset.
    #[default]
    Maximal,
    /// Frequent itemsets with no proper superset of equal support.
    Closed,
    /// Every frequent itemset.
    All,
}

/// A frequent itemset and its support.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Itemset {
    /// Items, ascending.
    pub items: Vec<u32>,
    /// Number of transactions that contain every item.
    pub support: u32,
}
