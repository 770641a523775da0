//! Collapsing identical, lexically-equivalent and shingle-equivalent documents (B97 5.2).
//!
//! Each document comes with three fingerprints: of its raw contents, of its canonical token
//! sequence, and of its selected shingles (image); the image fingerprint is `None` for a
//! document with an empty image, which is never shingle-equivalent to anything. Documents
//! are grouped by union-find over "equal raw, or equal canonical, or equal image
//! fingerprint" (in practice identical ⊂ lexically equivalent ⊂ shingle equivalent). The
//! smallest DocId of each group is its representative; only representatives go through a
//! clustering method, and the other members are added back afterwards
//! ([`Collapse::expand_clusters`]).
//!
//! Each non-representative `d` is counted once, in the finest class that explains it: as
//! *identical* when an earlier member of its group has the same raw fingerprint, else
//! *lexical* when one has the same canonical fingerprint, else *shingle*.

use crate::{DocId, Error, Result};

use super::uf::UnionFind;

/// Which documents are equivalent (collapsed before clustering).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Equivalence {
    /// Equal raw text, equal canonical token sequence, or equal non-empty image (B97 5.2):
    /// every member of a group has the same image, so the same estimates.
    #[default]
    Shingle,
    /// Equal raw text or equal canonical token sequence only: every member of a group has
    /// the same full shingle set, so the same exact resemblance with any document.
    Lexical,
}

/// Counts of a collapse.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CollapseSummary {
    /// Groups with at least two documents.
    pub classes: u64,
    /// Documents removed (sum over groups of size - 1).
    pub removed: u64,
    /// Removed as identical to an earlier member.
    pub identical: u64,
    /// Removed as lexically equivalent (same canonical form, different raw contents).
    pub lexical: u64,
    /// Removed as shingle equivalent only.
    pub shingle: u64,
}

impl CollapseSummary {
    /// Adds the counts of `other` (another part's collapse) to these.
    pub fn add(&mut self, other: &CollapseSummary) {
        self.classes += other.classes;
        self.removed += other.removed;
        self.identical += other.identical;
        self.lexical += other.lexical;
        self.shingle += other.shingle;
    }
}

/// Result of [`collapse`]: the representative of every document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collapse {
    rep: Vec<DocId>,
    /// Members (excluding the representative) of each representative, ascending; indexed by
    /// position in `reps_with_members`.
    members: Vec<(DocId, Vec<DocId>)>,
    summary: CollapseSummary,
}

impl Collapse {
    /// An estimate of the bytes held.
    pub fn heap_bytes(&self) -> u64 {
        4 * self.rep.capacity() as u64
            + self
                .members
                .iter()
                .map(|(_, m)| 48 + 4 * m.capacity() as u64)
                .sum::<u64>()
    }
}

/// Groups the documents by their fingerprints (see the module docs). All three slices must
/// have one entry per document.
pub fn collapse(raw: &[u64], canonical: &[u64], image: &[Option<u64>]) -> Result<Collapse> {
    let n = raw.len();
    if canonical.len() != n || image.len() != n {
        return Err(Error::config(format!(
            "fingerprint counts differ: raw {n}, canonical {}, image {}",
            canonical.len(),
            image.len()
        )));
    }
    let mut uf = UnionFind::new(n);
    let mut link = |keys: Vec<(u64, u32)>| {
        let mut keys = keys;
        keys.sort_unstable();
        for w in keys.windows(2) {
            if w[0].0 == w[1].0 {
                uf.union(w[0].1, w[1].1);
            }
        }
    };
    link(
        raw.iter()
            .enumerate()
            .map(|(d, &f)| (f, d as u32))
            .collect(),
    );
    link(
        canonical
            .iter()
            .enumerate()
            .map(|(d, &f)| (f, d as u32))
            .collect(),
    );
    link(
        image
            .iter()
            .enumerate()
            .filter_map(|(d, f)| f.map(|f| (f, d as u32)))
            .collect(),
    );
    let sets = uf.sets(1);
    let mut rep = vec![DocId(0); n];
    let mut members = Vec::new();
    let mut s = CollapseSummary::default();
    for set in sets {
        let r = DocId(set[0]);
        for &d in &set {
            rep[d as usize] = r;
        }
        if set.len() < 2 {
            continue;
        }
        s.classes += 1;
        s.removed += set.len() as u64 - 1;
        for (i, &d) in set.iter().enumerate().skip(1) {
            let earlier = &set[..i];
            if earlier.iter().any(|&e| raw[e as usize] == raw[d as usize]) {
                s.identical += 1;
            } else if earlier
                .iter()
                .any(|&e| canonical[e as usize] == canonical[d as usize])
            {
                s.lexical += 1;
            } else {
                s.shingle += 1;
            }
        }
        members.push((r, set[1..].iter().map(|&d| DocId(d)).collect()));
    }
    Ok(Collapse {
        rep,
        members,
        summary: s,
    })
}

impl Collapse {
    /// No collapse: every document is its own representative.
    pub fn identity(n_docs: usize) -> Self {
        Collapse {
            rep: (0..n_docs as u32).map(DocId).collect(),
            members: Vec::new(),
            summary: CollapseSummary::default(),
        }
    }

    /// Number of documents.
    pub fn n_docs(&self) -> usize {
        self.rep.len()
    }

    /// The representative of `d`.
    pub fn rep(&self, d: DocId) -> DocId {
        self.rep[d.index()]
    }

    /// True when `d` represents its group (and so takes part in clustering).
    pub fn is_rep(&self, d: DocId) -> bool {
        self.rep[d.index()] == d
    }

    /// The counts.
    pub fn summary(&self) -> &CollapseSummary {
        &self.summary
    }

    /// Representatives that stand for other documents, with those documents (ascending),
    /// ordered by representative.
    pub fn classes(&self) -> &[(DocId, Vec<DocId>)] {
        &self.members
    }

    /// The other members of `r`'s group (empty when none or when `r` is not a representative).
    pub fn members_of(&self, r: DocId) -> &[DocId] {
        match self.members.binary_search_by_key(&r, |m| m.0) {
            Ok(i) => &self.members[i].1,
            Err(_) => &[],
        }
    }

    /// Adds the members back: every cluster gets the members of each of its documents'
    /// groups; every group not in any cluster becomes a cluster of its own with
    /// `class_support(representative)` as support. Documents of each cluster come out
    /// ascending.
    pub fn expand_clusters(
        &self,
        clusters: Vec<(Vec<DocId>, u32)>,
        class_support: impl Fn(DocId) -> u32,
    ) -> Vec<(Vec<DocId>, u32)> {
        let mut in_cluster = bitvec::bitvec![0; self.members.len()];
        let mut out: Vec<(Vec<DocId>, u32)> = clusters
            .into_iter()
            .map(|(docs, s)| {
                let mut all = docs.clone();
                for d in docs {
                    if let Ok(i) = self.members.binary_search_by_key(&d, |m| m.0) {
                        in_cluster.set(i, true);
                        all.extend_from_slice(&self.members[i].1);
                    }
                }
                all.sort_unstable();
                all.dedup();
                (all, s)
            })
            .collect();
        for (i, (r, m)) in self.members.iter().enumerate() {
            if !in_cluster[i] {
                let mut docs = vec![*r];
                docs.extend_from_slice(m);
                out.push((docs, class_support(*r)));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_and_counts() {
        // 0,1 identical; 2 lexically equal to 0; 3 shingle-equal to 0; 4,5 empty images with
        // different text (not collapsed); 6 identical to 4 (collapsed by raw despite None).
        let raw = [10, 10, 11, 12, 13, 14, 13];
        let canon = [20, 20, 20, 21, 22, 23, 22];
        let image = [Some(30), Some(30), Some(30), Some(30), None, None, None];
        let c = collapse(&raw, &canon, &image).unwrap();
        let s = c.summary();
        assert_eq!(
            (s.classes, s.removed, s.identical, s.lexical, s.shingle),
            (2, 4, 2, 1, 1)
        );
        assert_eq!(c.rep(DocId(3)), DocId(0));
        assert_eq!(c.rep(DocId(6)), DocId(4));
        assert!(c.is_rep(DocId(5)));
        assert_eq!(c.members_of(DocId(0)), &[DocId(1), DocId(2), DocId(3)]);
        // Cluster {0, 5} gets 1,2,3 back; the {4,6} class becomes its own cluster.
        let ex = c.expand_clusters(vec![(vec![DocId(0), DocId(5)], 7)], |_| 99);
        assert_eq!(
            ex,
            vec![
                (vec![DocId(0), DocId(1), DocId(2), DocId(3), DocId(5)], 7),
                (vec![DocId(4), DocId(6)], 99)
            ]
        );
        assert!(collapse(&raw, &canon[..2], &image).is_err());
    }
}
