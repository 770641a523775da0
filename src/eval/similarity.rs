//! Exact set and sequence similarities used by the evaluation and by the generator's truth:
//! word 5-shingle resemblance (Jaccard) and containment, and word-level edit similarity.
//!
//! This is a deliberately small, self-contained computation (lowercased `\w+` words, shingle
//! sets kept exactly as interned word 5-grams, no hashing) so that the evaluation does not
//! depend on the pipeline it judges.
//!
//! Conventions: a document with fewer than [`SHINGLE_LEN`] (but at least one) words has one
//! shingle, its whole word sequence; an empty document has none. The resemblance of two empty
//! shingle sets is 0 (no evidence of similarity), as is the containment of an empty set.

use std::path::Path;

use super::ids::Ids;
use crate::sorted::intersection_size;
use crate::{Error, Result};

/// Words per shingle for the evaluation's exact resemblance.
pub const SHINGLE_LEN: usize = 5;

/// Lowercased `\w+` words of `text` (alphanumeric characters and `_`). When the text, after
/// leading whitespace, starts with `<`, it is taken as HTML: everything between `<` and the
/// next `>` is dropped (replaced by a space) before the words are cut.
pub fn words_lower(text: &str) -> Vec<String> {
    let stripped;
    let text = if text.trim_start().starts_with('<') {
        stripped = strip_tags(text);
        stripped.as_str()
    } else {
        text
    };
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' {
            cur.extend(c.to_lowercase());
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Replaces every `<...>` tag by a space (a naive markup stripper; no entity decoding).
pub fn strip_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match (in_tag, c) {
            (false, '<') => in_tag = true,
            (false, c) => out.push(c),
            (true, '>') => {
                in_tag = false;
                out.push(' ');
            }
            (true, _) => {}
        }
    }
    out
}

/// Sorted, deduplicated shingle ids of a token sequence: each window of `n` consecutive
/// tokens is interned in `table` (exactly, by content) and its id collected.
pub fn shingle_set<T: Copy + Eq + std::hash::Hash>(
    tokens: &[T],
    n: usize,
    table: &mut hashbrown::HashMap<Vec<T>, u32>,
) -> Vec<u32> {
    let mut out = Vec::new();
    if tokens.is_empty() {
        return out;
    }
    let n = n.max(1);
    let windows: Box<dyn Iterator<Item = &[T]>> = if tokens.len() < n {
        Box::new(std::iter::once(tokens))
    } else {
        Box::new(tokens.windows(n))
    };
    for w in windows {
        let next = table.len() as u32;
        let id = *table.entry_ref(w).or_insert(next);
        out.push(id);
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Jaccard resemblance `|A∩B| / |A∪B|` from the set sizes and the intersection size
/// (0 when both sets are empty).
pub fn jaccard(len_a: usize, len_b: usize, inter: usize) -> f64 {
    let union = len_a + len_b - inter;
    if union == 0 {
        0.0
    } else {
        inter as f64 / union as f64
    }
}

/// Containment of A in B, `|A∩B| / |A|` (0 when A is empty).
pub fn containment(len_a: usize, inter: usize) -> f64 {
    if len_a == 0 {
        0.0
    } else {
        inter as f64 / len_a as f64
    }
}

/// Word-level Levenshtein distance (unit-cost insert, delete, substitute); O(nm) time,
/// O(min(n,m)) memory.
pub fn levenshtein<T: Eq>(a: &[T], b: &[T]) -> usize {
    let (a, b) = if a.len() < b.len() { (b, a) } else { (a, b) };
    if b.is_empty() {
        return a.len();
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0usize; b.len() + 1];
    for (i, x) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(x != y);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Edit similarity `1 - levenshtein(a, b) / max(|a|, |b|)` (1 when both are empty).
pub fn edit_similarity<T: Eq>(a: &[T], b: &[T]) -> f64 {
    let m = a.len().max(b.len());
    if m == 0 {
        1.0
    } else {
        1.0 - levenshtein(a, b) as f64 / m as f64
    }
}

/// Exact word 5-shingle sets of a set of documents, by external id.
#[derive(Debug, Default)]
pub struct ShingleSets {
    ids: Ids,
    sets: Vec<Vec<u32>>,
}

impl ShingleSets {
    /// Builds the sets from `(external id, text)` pairs; a repeated id keeps its last text.
    pub fn from_texts<I, A, B>(docs: I) -> Self
    where
        I: IntoIterator<Item = (A, B)>,
        A: AsRef<str>,
        B: AsRef<str>,
    {
        let mut words: hashbrown::HashMap<String, u32> = hashbrown::HashMap::new();
        let mut table: hashbrown::HashMap<Vec<u32>, u32> = hashbrown::HashMap::new();
        let mut s = ShingleSets::default();
        for (id, text) in docs {
            let toks: Vec<u32> = words_lower(text.as_ref())
                .into_iter()
                .map(|w| {
                    let next = words.len() as u32;
                    *words.entry(w).or_insert(next)
                })
                .collect();
            let set = shingle_set(&toks, SHINGLE_LEN, &mut table);
            let i = s.ids.intern(id.as_ref()) as usize;
            if i == s.sets.len() {
                s.sets.push(set);
            } else {
                s.sets[i] = set;
            }
        }
        s
    }

    /// Reads a JSONL corpus (`{"id": .., "text": ..}` per line; the id may be a string or
    /// a number) and builds its shingle sets. Errors name the file and line.
    pub fn read_jsonl(path: &Path) -> Result<Self> {
        let mut docs = Vec::new();
        super::json_lines::for_each_json_line(path, |lineno, mut v| {
            let Some(Ok(id)) = v
                .get_mut("id")
                .map(|i| crate::corpus::ext_id_from_json(i.take()))
            else {
                return Err(Error::parse(
                    path,
                    lineno,
                    "expected an \"id\" field (string or number)",
                ));
            };
            let text = match v.get_mut("text").map(serde_json::Value::take) {
                Some(serde_json::Value::String(s)) => s,
                _ => {
                    return Err(Error::parse(
                        path,
                        lineno,
                        "expected a \"text\" field (string)",
                    ))
                }
            };
            docs.push((id, text));
            Ok(())
        })?;
        Ok(Self::from_texts(docs))
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.sets.len()
    }

    /// True when there is no document.
    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }

    /// The shingle set of document `id` (sorted shingle ids), if known.
    pub fn set(&self, id: &str) -> Option<&[u32]> {
        self.ids.get(id).map(|i| self.sets[i as usize].as_slice())
    }

    /// Exact resemblance of two documents; `None` when either id is unknown.
    pub fn resemblance(&self, a: &str, b: &str) -> Option<f64> {
        let (x, y) = (self.set(a)?, self.set(b)?);
        Some(jaccard(x.len(), y.len(), intersection_size(x, y)))
    }

    /// Exact containment of `a` in `b`; `None` when either id is unknown.
    pub fn containment(&self, a: &str, b: &str) -> Option<f64> {
        let (x, y) = (self.set(a)?, self.set(b)?);
        Some(containment(x.len(), intersection_size(x, y)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levenshtein_by_hand() {
        // kitten -> sitting: k->s, e->i, +g = 3
        let a: Vec<char> = "kitten".chars().collect();
        let b: Vec<char> = "sitting".chars().collect();
        assert_eq!(levenshtein(&a, &b), 3);
        assert_eq!(levenshtein(&b, &a), 3);
        assert_eq!(levenshtein::<u8>(&[], &[1, 2]), 2);
        // 1 - 3/7
        assert!((edit_similarity(&a, &b) - 4.0 / 7.0).abs() < 1e-12);
    }

    #[test]
    fn resemblance_by_hand() {
        // a: "a b c d e f" -> shingles abcde, bcdef; b: "a b c d e g" -> abcde, bcdeg
        // intersection 1, union 3.
        let s = ShingleSets::from_texts([("x", "A b c d e f"), ("y", "a b, c d e g"), ("z", "")]);
        assert!((s.resemblance("x", "y").unwrap() - 1.0 / 3.0).abs() < 1e-12);
        assert!((s.containment("x", "y").unwrap() - 0.5).abs() < 1e-12);
        assert_eq!(s.resemblance("x", "z"), Some(0.0));
        assert_eq!(s.resemblance("x", "nope"), None);
        // short document: one shingle, the whole sequence
        let t = ShingleSets::from_texts([("p", "one two"), ("q", "ONE two")]);
        assert_eq!(t.resemblance("p", "q"), Some(1.0));
    }

    #[test]
    fn html_is_stripped() {
        assert_eq!(
            words_lower("<p>Hello <b>World</b></p><br/>x_y"),
            vec!["hello", "world", "x_y"]
        );
        assert_eq!(words_lower("a<b c>d"), vec!["a", "b", "c", "d"]);
    }
}
