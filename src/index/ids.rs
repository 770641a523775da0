//! The external ids by DocId ([`Ids`]) and each id's latest version ([`Latest`]), held
//! without an allocation per document.
//!
//! Invariants: [`Ids`] holds one id per DocId, in DocId order, in one byte buffer with
//! end offsets. [`Latest`] maps an id to a DocId by the id's 64-bit hash and checks the id
//! itself on every lookup; an id whose hash another id already holds goes to a small map
//! of whole ids instead, which every lookup consults first, so two ids are never confused.
//! The map lives only in memory (nothing of it reaches a file).

use hashbrown::HashMap;
use xxhash_rust::xxh3::xxh3_64;

/// External ids by DocId.
#[derive(Clone, Debug, Default)]
pub(crate) struct Ids {
    bytes: String,
    ends: Vec<u64>,
}

impl Ids {
    /// Number of ids.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Room for `n` more ids of about `bytes` bytes in all.
    pub(crate) fn reserve(&mut self, n: usize, bytes: usize) {
        self.ends.reserve_exact(n);
        self.bytes.reserve(bytes);
    }

    /// Appends the id of the next DocId.
    pub(crate) fn push(&mut self, id: &str) {
        self.bytes.push_str(id);
        self.ends.push(self.bytes.len() as u64);
    }

    /// The id of DocId `d`.
    pub(crate) fn get(&self, d: usize) -> &str {
        let from = if d == 0 { 0 } else { self.ends[d - 1] as usize };
        &self.bytes[from..self.ends[d] as usize]
    }

    /// The ids of the DocIds `from .. to`, in order.
    pub(crate) fn range(&self, from: usize, to: usize) -> impl Iterator<Item = &str> + '_ {
        (from..to).map(move |d| self.get(d))
    }

    /// Every id, in DocId order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.range(0, self.len())
    }
}

impl std::ops::Index<usize> for Ids {
    type Output = str;

    fn index(&self, d: usize) -> &str {
        self.get(d)
    }
}

/// Each external id's latest version (a DocId).
#[derive(Clone, Debug)]
pub(crate) struct Latest {
    by_hash: HashMap<u64, u32>,
    /// Ids whose hash `by_hash` holds for another id.
    clashes: HashMap<String, u32>,
    hash: fn(&[u8]) -> u64,
}

impl Default for Latest {
    fn default() -> Self {
        Latest {
            by_hash: HashMap::new(),
            clashes: HashMap::new(),
            hash: xxh3_64,
        }
    }
}

impl Latest {
    /// Room for `n` more ids.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.by_hash.reserve(n);
    }

    /// The latest version of `id` (`ids` the index's ids).
    pub(crate) fn get(&self, id: &str, ids: &Ids) -> Option<u32> {
        if let Some(&d) = self.clashes.get(id) {
            return Some(d);
        }
        self.by_hash
            .get(&(self.hash)(id.as_bytes()))
            .copied()
            .filter(|&d| &ids[d as usize] == id)
    }

    /// Makes `d` the latest version of its id (`ids[d]`).
    pub(crate) fn insert(&mut self, d: u32, ids: &Ids) {
        let id = &ids[d as usize];
        if let Some(v) = self.clashes.get_mut(id) {
            *v = d;
            return;
        }
        match self.by_hash.entry((self.hash)(id.as_bytes())) {
            hashbrown::hash_map::Entry::Vacant(e) => {
                e.insert(d);
            }
            hashbrown::hash_map::Entry::Occupied(mut e) => {
                if &ids[*e.get() as usize] == id {
                    e.insert(d);
                } else {
                    self.clashes.insert(id.to_string(), d);
                }
            }
        }
    }

    /// Forgets `id` when its latest version is `d`.
    pub(crate) fn remove(&mut self, id: &str, d: u32, ids: &Ids) {
        if self.clashes.get(id) == Some(&d) {
            self.clashes.remove(id);
            return;
        }
        let h = (self.hash)(id.as_bytes());
        if self.by_hash.get(&h) == Some(&d) && &ids[d as usize] == id {
            self.by_hash.remove(&h);
        }
    }

    /// Every latest version, in no order.
    pub(crate) fn values(&self) -> impl Iterator<Item = u32> + '_ {
        self.by_hash.values().chain(self.clashes.values()).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip() {
        let mut ids = Ids::default();
        for id in ["a", "", "bcd", "é"] {
            ids.push(id);
        }
        assert_eq!(ids.iter().collect::<Vec<_>>(), ["a", "", "bcd", "é"]);
        assert_eq!(&ids[2], "bcd");
        assert_eq!(ids.range(1, 3).collect::<Vec<_>>(), ["", "bcd"]);
    }

    /// Every id hashed alike: the ids still never mix, through inserts, new versions,
    /// removals and lookups of unknown ids.
    #[test]
    fn ids_whose_hashes_clash_are_told_apart() {
        let mut ids = Ids::default();
        let mut l = Latest {
            hash: |_| 7,
            ..Latest::default()
        };
        for (d, id) in ["x", "y", "z", "y", "x"].iter().enumerate() {
            ids.push(id);
            l.insert(d as u32, &ids);
        }
        assert_eq!(l.get("x", &ids), Some(4));
        assert_eq!(l.get("y", &ids), Some(3));
        assert_eq!(l.get("z", &ids), Some(2));
        assert_eq!(l.get("w", &ids), None);
        // an older version is not the latest: nothing removed
        l.remove("y", 1, &ids);
        assert_eq!(l.get("y", &ids), Some(3));
        l.remove("y", 3, &ids);
        l.remove("x", 4, &ids);
        assert_eq!(l.get("y", &ids), None);
        assert_eq!(l.get("x", &ids), None);
        assert_eq!(l.get("z", &ids), Some(2));
        let v: Vec<u32> = l.values().collect();
        assert_eq!(v, [2]);
        // "x" again, after the id that held the hash is gone
        ids.push("x");
        l.insert(5, &ids);
        assert_eq!(l.get("x", &ids), Some(5));
        let mut v: Vec<u32> = l.values().collect();
        v.sort();
        assert_eq!(v, [2, 5]);
    }
}
