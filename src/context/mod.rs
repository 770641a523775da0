//! The inverted shingle-by-document context and the FIMI transaction format.
//!
//! [`Transactions`] is a compact (CSR) list of transactions of `u32` items, the in-memory form
//! of a FIMI file; [`fimi`] reads and writes that format.
//!
//! Invariants: transactions keep their input order; the items of one transaction keep the
//! order in which they were pushed (readers may require them strictly ascending).

pub mod fimi;

/// A list of transactions stored contiguously: transaction `i` is
/// `items[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Transactions {
    items: Vec<u32>,
    offsets: Vec<usize>,
}

impl Transactions {
    /// An empty list.
    pub fn new() -> Self {
        Transactions {
            items: Vec::new(),
            offsets: vec![0],
        }
    }

    /// Builds from any rows.
    pub fn from_rows<R: AsRef<[u32]>>(rows: impl IntoIterator<Item = R>) -> Self {
        let mut t = Self::new();
        for r in rows {
            t.push(r.as_ref());
        }
        t
    }

    /// Appends one transaction.
    pub fn push(&mut self, row: &[u32]) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.items.extend_from_slice(row);
        self.offsets.push(self.items.len());
    }

    /// Number of transactions.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// True when there is no transaction.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Transaction `i`.
    pub fn get(&self, i: usize) -> &[u32] {
        &self.items[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Total number of item occurrences.
    pub fn total_items(&self) -> usize {
        self.items.len()
    }

    /// Iterates over the transactions in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u32]> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// One more than the largest item (0 when there is none).
    pub fn item_bound(&self) -> u64 {
        self.items
            .iter()
            .map(|&x| u64::from(x) + 1)
            .max()
            .unwrap_or(0)
    }
}
