//! String interner for external document ids (internal lookups only; nothing that reaches
//! output depends on map iteration order: ids are numbered in first-seen order).

/// Interns external id strings as dense `u32`s in first-seen order.
#[derive(Clone, Debug, Default)]
pub struct Ids {
    map: hashbrown::HashMap<Box<str>, u32>,
    names: Vec<Box<str>>,
}

impl Ids {
    /// The id of `s`, interning it if new.
    pub fn intern(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.map.get(s) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(s.into());
        self.map.insert(s.into(), i);
        i
    }

    /// The id of `s`, if interned.
    pub fn get(&self, s: &str) -> Option<u32> {
        self.map.get(s).copied()
    }

    /// The string of id `i`.
    pub fn name(&self, i: u32) -> &str {
        &self.names[i as usize]
    }
}

/// An unordered pair key: the two interned ids, smaller first.
#[inline]
pub fn key(a: u32, b: u32) -> (u32, u32) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

/// Adds pairs of external ids to a pair set (`ids` interns them, `pairs` holds their
/// [`key`]s); a pair of a document with itself is an error calling it a `what` pair.
pub(crate) fn insert_pairs<I, A, B>(
    ids: &mut Ids,
    pairs: &mut hashbrown::HashSet<(u32, u32)>,
    input: I,
    what: &str,
) -> crate::Result<()>
where
    I: IntoIterator<Item = (A, B)>,
    A: AsRef<str>,
    B: AsRef<str>,
{
    for (a, b) in input {
        let (a, b) = (a.as_ref(), b.as_ref());
        if a == b {
            return Err(crate::Error::config(format!(
                "{what} pair ({a}, {a}) pairs a document with itself"
            )));
        }
        let (x, y) = (ids.intern(a), ids.intern(b));
        pairs.insert(key(x, y));
    }
    Ok(())
}
