//! [`Transactions`]: a compact (CSR) list of `u32` transactions, the in-memory form of a FIMI
//! file and of a context's rows.
//!
//! Invariants: transactions keep their input order; the items of one transaction keep the
//! order in which they were pushed (readers may require them strictly ascending).

/// A list of transactions stored contiguously: transaction `i` is
/// `items[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Transactions {
    items: Vec<u32>,
    offsets: Vec<usize>,
}

impl Default for Transactions {
    fn default() -> Self {
        Self::new()
    }
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
        self.items.extend_from_slice(row);
        self.offsets.push(self.items.len());
    }

    /// Number of transactions.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// True when there is no transaction.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Transaction `i`.
    pub fn get(&self, i: usize) -> &[u32] {
        &self.items[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Bytes the two vectors have allocated.
    pub fn heap_bytes(&self) -> u64 {
        (self.items.capacity() * 4 + self.offsets.capacity() * std::mem::size_of::<usize>()) as u64
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

    /// Transposes `n_lists` lists of targets below `n_targets` (`list(i)` holds the targets
    /// of list `i`): transaction `t` of the result holds, ascending, the lists `i` that hold
    /// target `t` (so `n_targets` transactions).
    pub fn transpose<'a>(
        n_targets: usize,
        n_lists: usize,
        list: impl Fn(usize) -> &'a [u32],
    ) -> Transactions {
        let lists = || (0..n_lists).map(&list);
        let mut offsets = vec![0usize; n_targets + 1];
        for l in lists() {
            for &t in l {
                offsets[t as usize + 1] += 1;
            }
        }
        for i in 0..n_targets {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut items = vec![0u32; offsets[n_targets]];
        for (i, l) in lists().enumerate() {
            for &t in l {
                items[fill[t as usize]] = i as u32;
                fill[t as usize] += 1;
            }
        }
        Transactions { items, offsets }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_lists_the_holders_of_each_target_ascending() {
        let t = Transactions::from_rows([&[0u32, 2][..], &[], &[2, 3], &[0]]);
        let tt = Transactions::transpose(5, t.len(), |i| t.get(i));
        assert_eq!(
            tt,
            Transactions::from_rows([&[0u32, 3][..], &[], &[0, 2], &[2], &[]])
        );
        assert_eq!(Transactions::transpose(4, tt.len(), |i| tt.get(i)), t);
        assert_eq!(Transactions::transpose(0, 0, |_| &[]), Transactions::new());
    }
}
