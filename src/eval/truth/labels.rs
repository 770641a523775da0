//! What a truth says: the positive pairs ([`Labels`]) and the pairs it labels at all,
//! positive or negative ([`Labeled`], for `--labeled-only`).
//!
//! Invariants: pairs are unordered pairs of two different external ids; [`Labeled`] never
//! materializes the pairs of a document-set or bipartite truth (10k x 10k documents are
//! 100M pairs): membership is decided from the documents.

use crate::eval::ids::{insert_pairs, key, Ids};
use crate::Result;

/// A set of positive (duplicate) pairs of external ids.
#[derive(Clone, Debug, Default)]
pub struct Labels {
    pub(crate) ids: Ids,
    pub(crate) pairs: hashbrown::HashSet<(u32, u32)>,
}

impl Labels {
    /// Builds the set from pairs of external ids. A self-pair is an error.
    pub fn from_pairs<I, A, B>(pairs: I) -> Result<Self>
    where
        I: IntoIterator<Item = (A, B)>,
        A: AsRef<str>,
        B: AsRef<str>,
    {
        let mut l = Labels::default();
        insert_pairs(&mut l.ids, &mut l.pairs, pairs, "labeled")?;
        Ok(l)
    }

    /// Adds `{a, b}` (the caller makes sure `a != b`).
    pub(crate) fn insert(&mut self, a: &str, b: &str) {
        debug_assert_ne!(a, b);
        let (x, y) = (self.ids.intern(a), self.ids.intern(b));
        self.pairs.insert(key(x, y));
    }

    /// Number of positive pairs.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// True when there is no positive pair.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// True when `{a, b}` is a positive pair.
    pub fn contains(&self, a: &str, b: &str) -> bool {
        match (self.ids.get(a), self.ids.get(b)) {
            (Some(x), Some(y)) => self.pairs.contains(&key(x, y)),
            _ => false,
        }
    }

    /// The pairs, in no particular order (each once, its two ids in no particular order).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        self.pairs
            .iter()
            .map(|&(x, y)| (self.ids.name(x), self.ids.name(y)))
    }

    /// The pairs as `(a, b)` with `a < b`, sorted.
    pub fn sorted_pairs(&self) -> Vec<(String, String)> {
        sorted_names(&self.ids, self.pairs.iter().copied())
    }
}

/// Interned pairs as `(a, b)` external ids with `a < b`, sorted.
pub(crate) fn sorted_names(
    ids: &Ids,
    pairs: impl Iterator<Item = (u32, u32)>,
) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = pairs
        .map(|(x, y)| {
            let (a, b) = (ids.name(x), ids.name(y));
            if a < b {
                (a.to_string(), b.to_string())
            } else {
                (b.to_string(), a.to_string())
            }
        })
        .collect();
    v.sort_unstable();
    v
}

type DocSet = hashbrown::HashSet<Box<str>>;

/// The pairs a truth labels, positive or negative: those [`evaluate_labeled`] keeps with
/// `--labeled-only`.
///
/// [`evaluate_labeled`]: crate::eval::evaluate_labeled
#[derive(Clone, Debug)]
pub struct Labeled(Kind);

#[derive(Clone, Debug)]
enum Kind {
    /// The listed pairs (a pair list).
    Pairs(Labels),
    /// Every pair of two labeled documents (a cluster assignment).
    Documents(DocSet),
    /// Every pair of one left and one right document (PAN: suspicious x source).
    Bipartite { left: DocSet, right: DocSet },
}

fn doc_set<I, S>(docs: I) -> DocSet
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    docs.into_iter().map(|d| d.as_ref().into()).collect()
}

impl Labeled {
    /// Exactly the pairs of `pairs`.
    pub fn pairs(pairs: Labels) -> Self {
        Labeled(Kind::Pairs(pairs))
    }

    /// Every pair of two different documents of `docs`.
    pub fn documents<I, S>(docs: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        Labeled(Kind::Documents(doc_set(docs)))
    }

    /// Every pair of a document of `left` and a different document of `right` (a document
    /// may be in both).
    pub fn bipartite<L, R, S, T>(left: L, right: R) -> Self
    where
        L: IntoIterator<Item = S>,
        R: IntoIterator<Item = T>,
        S: AsRef<str>,
        T: AsRef<str>,
    {
        Labeled(Kind::Bipartite {
            left: doc_set(left),
            right: doc_set(right),
        })
    }

    /// True when the truth labels `{a, b}` (positive or negative); never for `a == b`.
    pub fn contains(&self, a: &str, b: &str) -> bool {
        if a == b {
            return false;
        }
        match &self.0 {
            Kind::Pairs(l) => l.contains(a, b),
            Kind::Documents(d) => d.contains(a) && d.contains(b),
            Kind::Bipartite { left, right } => {
                (left.contains(a) && right.contains(b)) || (left.contains(b) && right.contains(a))
            }
        }
    }

    /// Number of labeled pairs (computed, not counted, for documents and bipartite sets).
    pub fn len(&self) -> u64 {
        match &self.0 {
            Kind::Pairs(l) => l.len() as u64,
            Kind::Documents(d) => {
                let n = d.len() as u64;
                n * n.saturating_sub(1) / 2
            }
            Kind::Bipartite { left, right } => {
                // Ordered (l, r) with l != r, less the pairs of two documents on both sides,
                // which are counted both ways.
                let both = left.iter().filter(|d| right.contains(*d)).count() as u64;
                left.len() as u64 * right.len() as u64 - both - both * both.saturating_sub(1) / 2
            }
        }
    }

    /// True when no pair is labeled.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The listed pairs when the truth is a pair list.
    pub fn as_pairs(&self) -> Option<&Labels> {
        match &self.0 {
            Kind::Pairs(l) => Some(l),
            _ => None,
        }
    }

    /// Which pairs are labeled, in words (for reports).
    pub fn describe(&self) -> String {
        match &self.0 {
            Kind::Pairs(l) => format!("the {} listed pairs", l.len()),
            Kind::Documents(d) => format!("every pair of the {} labeled documents", d.len()),
            Kind::Bipartite { left, right } => format!(
                "every pair across the two sides ({} x {} documents)",
                left.len(),
                right.len()
            ),
        }
    }
}

impl From<Labels> for Labeled {
    fn from(l: Labels) -> Self {
        Labeled::pairs(l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labeled_sets_decide_membership_and_count_pairs() {
        let docs = Labeled::documents(["x", "y", "z"]);
        assert!(docs.contains("x", "z") && docs.contains("z", "x"));
        assert!(!docs.contains("x", "x") && !docs.contains("x", "w"));
        assert_eq!(docs.len(), 3);
        // s1 is on both sides: pairs s1-r1, s1-r2, s2-r1, s2-r2, s2-s1 (once).
        let bi = Labeled::bipartite(["s1", "s2"], ["r1", "r2", "s1"]);
        assert!(bi.contains("r1", "s2") && bi.contains("s1", "s2"));
        assert!(!bi.contains("r1", "r2") && !bi.contains("s1", "s1"));
        assert_eq!(bi.len(), 5);
        let pairs = Labeled::from(Labels::from_pairs([("a", "b")]).unwrap());
        assert!(pairs.contains("b", "a") && !pairs.contains("a", "c"));
        assert_eq!(pairs.len(), 1);
        assert!(pairs.as_pairs().is_some() && bi.as_pairs().is_none());
    }
}
