//! The prefix filter, the one rule every pair search by prefixes uses (the union-find
//! pair counts for `k >= 2` in `pairs.rs`, the exact join in `crate::cluster::exact`, and
//! the divided run's pair stage): each document's elements are ranked in one global order,
//! `(document frequency, element)`, rarest first, and two documents that are linked
//! ([`PrefixFilter::holds`]) share an element of their prefixes
//! ([`PrefixFilter::prefix_of_shared`]). Any fixed global order will do: the divided run
//! can also rank by the element, a given set of frequent elements last
//! ([`PrefixFilter::element_prefix`]), which needs no document frequencies (longer
//! prefixes: the elements held alone are not ranked out).
//! Only the prefixes are expanded into candidates; each candidate is then tested on its
//! full lists.
//!
//! Invariants: a prefix is never shorter than the rule needs (the resemblance bound
//! rounds toward longer prefixes by a 1e-9 tolerance), so the filter loses no linked
//! pair; [`passes`] is the one resemblance predicate of the crate (join, verification,
//! tests).

/// When two documents are linked, and so how long their prefixes are.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PrefixFilter {
    /// Sharing at least `k` elements (`k` of 0 counts as 1).
    Shared {
        /// The least number of shared elements.
        k: u32,
    },
    /// Full sets of resemblance at least `t` ([`passes`]).
    Resemblance {
        /// The least resemblance, in `(0, 1]`.
        t: f64,
    },
}

impl PrefixFilter {
    /// The prefix length of a document of `size` elements: two linked documents share an
    /// element among the first `prefix(size)` of each, in the global order.
    pub fn prefix(self, size: usize) -> usize {
        match self {
            PrefixFilter::Shared { k } => (size + 1).saturating_sub(k.max(1) as usize),
            PrefixFilter::Resemblance { t } if size > 0 => prefix_len(size, t),
            PrefixFilter::Resemblance { .. } => 0,
        }
    }

    /// How many of a document's `shared` elements (those another document holds too),
    /// ranked in the global order, form its prefix, when it holds `full` elements in all:
    /// the elements it holds alone (document frequency 1) rank first and take the start
    /// of its prefix, and pair nothing. `shared == full` when every element counts.
    pub fn prefix_of_shared(self, full: usize, shared: usize) -> usize {
        self.prefix(full)
            .saturating_sub(full.saturating_sub(shared))
            .min(shared)
    }

    /// A document's prefix, ascending, in the global order `(x in last, x)`: the elements
    /// ascending, those of `last` (sorted; the same set for every document) after all the
    /// others. No document frequency is needed; `last` only keeps frequent elements out of
    /// the prefixes. The first [`PrefixFilter::prefix`]`(keys.len())` of its distinct
    /// `keys`, given in any order. Two linked documents share one of their prefixes'
    /// elements, whatever `last` is.
    pub fn element_prefix(self, keys: &[u64], last: &[u64]) -> Vec<u64> {
        let p = self.prefix(keys.len());
        let (mut first, rest): (Vec<u64>, Vec<u64>) =
            keys.iter().partition(|x| last.binary_search(x).is_err());
        if first.len() >= p {
            return smallest_by(&first, p, |x| x);
        }
        first.extend(smallest_by(&rest, p - first.len(), |x| x));
        first.sort_unstable();
        first
    }

    /// Whether documents of `sa` and `sb` elements sharing `shared` of them are linked.
    pub fn holds(self, shared: usize, sa: usize, sb: usize) -> bool {
        match self {
            PrefixFilter::Shared { k } => shared >= k.max(1) as usize,
            PrefixFilter::Resemblance { t } => passes(shared, sa + sb - shared, t),
        }
    }
}

/// The resemblance predicate: `overlap / union >= t`, never for an empty union.
#[inline]
pub fn passes(overlap: usize, union: usize, t: f64) -> bool {
    union > 0 && overlap as f64 / union as f64 >= t
}

/// The prefix filter's length for a set of `len` elements at resemblance `t`: two sets
/// with resemblance `>= t`, each in one global order, share an element of their prefixes
/// of this length (rounded toward longer prefixes, never shorter).
pub fn prefix_len(len: usize, t: f64) -> usize {
    len - ceil_tol(t * len as f64).min(len) + 1
}

/// `ceil(x)` with a 1e-9 tolerance downward (toward the shorter bound on overlaps, the
/// longer prefix).
pub fn ceil_tol(x: f64) -> usize {
    (x - 1e-9).ceil().max(0.0) as usize
}

/// The first `p` of `list` in the order `rank` (ties none: `rank` is a total order),
/// returned ascending by value: a document's prefix when its list is not held in the
/// global order.
pub fn smallest_by<T: Copy + Ord, R: Ord>(list: &[T], p: usize, rank: impl Fn(T) -> R) -> Vec<T> {
    let mut v = list.to_vec();
    if p == 0 {
        return Vec::new();
    }
    if p < v.len() {
        v.select_nth_unstable_by_key(p - 1, |&x| rank(x));
        v.truncate(p);
    }
    v.sort_unstable();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_prefix_is_size_minus_k_plus_one() {
        let f = PrefixFilter::Shared { k: 3 };
        assert_eq!(f.prefix(2), 0);
        assert_eq!(f.prefix(3), 1);
        assert_eq!(f.prefix(10), 8);
        // The elements held alone rank first: with 4 of 10 shared, 8 - 6 = 2 of them.
        assert_eq!(f.prefix_of_shared(10, 4), 2);
        assert_eq!(f.prefix_of_shared(10, 10), 8);
        assert!(f.holds(3, 5, 5) && !f.holds(2, 5, 5));
        assert_eq!(PrefixFilter::Shared { k: 0 }.prefix(4), 4);
        assert_eq!(f.element_prefix(&[9, 4, 7, 1], &[]), vec![1, 4]);
        assert_eq!(f.element_prefix(&[9, 4, 7, 1], &[1, 5]), vec![4, 7]);
        assert!(f.element_prefix(&[9, 4], &[]).is_empty());
    }

    #[test]
    fn resemblance_prefix_and_test() {
        let f = PrefixFilter::Resemblance { t: 0.8 };
        assert_eq!(f.prefix(0), 0);
        assert_eq!(f.prefix(5), prefix_len(5, 0.8));
        assert_eq!(prefix_len(5, 0.8), 2);
        assert!(f.holds(4, 5, 4) && !f.holds(3, 5, 4));
        assert!(!passes(0, 0, 0.5));
    }

    #[test]
    fn element_prefixes_of_linked_sets_meet() {
        // Brute force over small random sets: every linked pair shares an element of its
        // prefixes in element order, for both rules.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let sets: Vec<Vec<u64>> = (0..60)
            .map(|_| {
                let mut v: Vec<u64> = (0..4 + next() % 8).map(|_| next() % 16).collect();
                v.sort_unstable();
                v.dedup();
                v
            })
            .collect();
        let mut linked = 0;
        for f in [
            PrefixFilter::Shared { k: 3 },
            PrefixFilter::Resemblance { t: 0.5 },
        ] {
            for last in [&[][..], &[0, 3, 5, 6, 11][..]] {
                for a in &sets {
                    for b in &sets {
                        let shared = a.iter().filter(|e| b.contains(e)).count();
                        if f.holds(shared, a.len(), b.len()) {
                            linked += 1;
                            let pa = f.element_prefix(a, last);
                            let pb = f.element_prefix(b, last);
                            assert!(pa.iter().any(|e| pb.contains(e)), "{f:?} {a:?} {b:?}");
                        }
                    }
                }
            }
        }
        assert!(linked > 200, "{linked} linked pairs");
    }

    #[test]
    fn smallest_by_rank() {
        let v = [5u32, 1, 4, 2, 3];
        assert_eq!(smallest_by(&v, 2, std::cmp::Reverse), vec![4, 5]);
        assert_eq!(smallest_by(&v, 9, |x| x), vec![1, 2, 3, 4, 5]);
        assert!(smallest_by(&v, 0, |x| x).is_empty());
    }
}
