//! Exact set and sequence similarities used by the evaluation and by the generator's truth:
//! word 5-shingle resemblance (Jaccard) and containment, and word-level edit similarity.
//!
//! This is a deliberately small, self-contained computation (words cut by a
//! [`TruthTokenizer`] written here, shingle sets kept exactly as interned word 5-grams, no
//! hashing) so that the evaluation does not depend on the pipeline it judges.
//!
//! Words. When the text, after leading whitespace, starts with `<`, it is taken as HTML and
//! every `<...>` tag is replaced by a space first ([`strip_tags`]); then the
//! [`TruthTokenizer`] cuts the words, all lowercased per `char` (`char::to_lowercase`):
//!
//! - [`TruthTokenizer::Word`] (the default; `word`): maximal runs of `\w` characters, a
//!   `\w` character being `char::is_alphanumeric()` or `_`; each character is lowercased as
//!   it is taken. `alloc_zeroed` is one word, `std.io` two, `can't` two (`can`, `t`).
//! - [`TruthTokenizer::Alnum`] (`alnum`): the text is lowercased, then words are the
//!   maximal runs of characters that are `char::is_alphanumeric()` or a combining mark
//!   (General_Category Mn, Mc or Me); everything else, `_` included, separates.
//!   `alloc_zeroed` is two words, a decomposed `nai\u{308}ve` one.
//! - [`TruthTokenizer::Whitespace`] (`whitespace`): the text is lowercased, then words are
//!   the maximal runs of characters that are not `char::is_whitespace`; punctuation stays
//!   in the words (`e.g.`, `1,000.5`, `can't`).
//! - [`TruthTokenizer::Unicode`] (`unicode`): the text is lowercased, then words are the
//!   UAX #29 words of `unicode_segmentation::UnicodeSegmentation::unicode_words` (word
//!   boundaries, keeping the segments that hold an alphanumeric character): `std.io`, `e.g`,
//!   `1,000.5` and `can't` are one word each, every Han ideograph is a word of its own.
//!
//! Conventions: a document with fewer than [`SHINGLE_LEN`] (but at least one) words has one
//! shingle, its whole word sequence; an empty document has none. The resemblance of two empty
//! shingle sets is 0 (no evidence of similarity), as is the containment of an empty set.

use std::path::Path;

use unicode_segmentation::UnicodeSegmentation;

use super::ids::Ids;
use crate::sorted::intersection_size;
use crate::{Error, Result};

/// Words per shingle for the evaluation's exact resemblance.
pub const SHINGLE_LEN: usize = 5;

/// How the evaluation cuts a text into words (see the module docs for each definition).
/// Serialized by [`TruthTokenizer::name`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TruthTokenizer {
    /// Maximal runs of `char::is_alphanumeric()` or `_` (`\w+`), lowercased.
    #[default]
    Word,
    /// Maximal runs of `char::is_alphanumeric()` or combining marks (M*) of the lowercased
    /// text.
    Alnum,
    /// Maximal runs of non-whitespace of the lowercased text.
    Whitespace,
    /// UAX #29 words (`unicode_words`) of the lowercased text.
    Unicode,
}

impl TruthTokenizer {
    /// Every tokenizer, the default first.
    pub const ALL: [TruthTokenizer; 4] = [
        TruthTokenizer::Word,
        TruthTokenizer::Alnum,
        TruthTokenizer::Whitespace,
        TruthTokenizer::Unicode,
    ];

    /// The name the command line and the configs use.
    pub fn name(self) -> &'static str {
        match self {
            TruthTokenizer::Word => "word",
            TruthTokenizer::Alnum => "alnum",
            TruthTokenizer::Whitespace => "whitespace",
            TruthTokenizer::Unicode => "unicode",
        }
    }

    /// True for the default, [`TruthTokenizer::Word`].
    pub fn is_default(&self) -> bool {
        *self == TruthTokenizer::Word
    }

    /// The lowercased words of `text`, HTML tags stripped when the text starts with `<`
    /// (see the module docs). [`TruthTokenizer::Word`] gives [`words_lower`].
    pub fn words(self, text: &str) -> Vec<String> {
        if self == TruthTokenizer::Word {
            return words_lower(text);
        }
        let stripped;
        let text = if is_html(text) {
            stripped = strip_tags(text);
            stripped.as_str()
        } else {
            text
        };
        let mut lower = String::with_capacity(text.len());
        for c in text.chars() {
            lower.extend(c.to_lowercase());
        }
        match self {
            TruthTokenizer::Word => unreachable!("handled above"),
            TruthTokenizer::Alnum => lower
                .split(|c: char| {
                    !(c.is_alphanumeric() || unicode_normalization::char::is_combining_mark(c))
                })
                .filter(|w| !w.is_empty())
                .map(String::from)
                .collect(),
            TruthTokenizer::Whitespace => lower
                .split(char::is_whitespace)
                .filter(|w| !w.is_empty())
                .map(String::from)
                .collect(),
            TruthTokenizer::Unicode => lower.unicode_words().map(String::from).collect(),
        }
    }
}

impl std::fmt::Display for TruthTokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for TruthTokenizer {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        TruthTokenizer::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| {
                Error::config(format!(
                    "truth tokenizer must be word, alnum, whitespace or unicode, not {s:?}"
                ))
            })
    }
}

impl serde::Serialize for TruthTokenizer {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for TruthTokenizer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// True when `text`, after leading whitespace, starts with `<` (taken as HTML).
fn is_html(text: &str) -> bool {
    text.trim_start().starts_with('<')
}

/// Interns the words a [`TruthTokenizer`] cuts from texts as `u32` ids (first seen, first
/// numbered), so that documents are compared as id sequences.
#[derive(Debug, Default)]
pub(crate) struct WordIds(hashbrown::HashMap<String, u32>);

impl WordIds {
    /// The word ids of `text` under `tokenizer`.
    pub(crate) fn words(&mut self, tokenizer: TruthTokenizer, text: &str) -> Vec<u32> {
        tokenizer
            .words(text)
            .into_iter()
            .map(|w| {
                let next = self.0.len() as u32;
                *self.0.entry(w).or_insert(next)
            })
            .collect()
    }
}

/// Lowercased `\w+` words of `text` (alphanumeric characters and `_`). When the text, after
/// leading whitespace, starts with `<`, it is taken as HTML: everything between `<` and the
/// next `>` is dropped (replaced by a space) before the words are cut.
pub fn words_lower(text: &str) -> Vec<String> {
    let stripped;
    let text = if is_html(text) {
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

/// Exact word 5-shingle sets of a set of documents, by external id, with the words of one
/// [`TruthTokenizer`].
#[derive(Debug, Default)]
pub struct ShingleSets {
    ids: Ids,
    sets: Vec<Vec<u32>>,
    tokenizer: TruthTokenizer,
}

impl ShingleSets {
    /// Builds the sets from `(external id, text)` pairs with the default words
    /// ([`TruthTokenizer::Word`]); a repeated id keeps its last text.
    pub fn from_texts<I, A, B>(docs: I) -> Self
    where
        I: IntoIterator<Item = (A, B)>,
        A: AsRef<str>,
        B: AsRef<str>,
    {
        Self::from_texts_with(docs, TruthTokenizer::Word)
    }

    /// Builds the sets from `(external id, text)` pairs with the words of `tokenizer`; a
    /// repeated id keeps its last text.
    pub fn from_texts_with<I, A, B>(docs: I, tokenizer: TruthTokenizer) -> Self
    where
        I: IntoIterator<Item = (A, B)>,
        A: AsRef<str>,
        B: AsRef<str>,
    {
        let mut words = WordIds::default();
        let mut table: hashbrown::HashMap<Vec<u32>, u32> = hashbrown::HashMap::new();
        let mut s = ShingleSets {
            tokenizer,
            ..ShingleSets::default()
        };
        for (id, text) in docs {
            let toks = words.words(tokenizer, text.as_ref());
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
    /// a number) and builds its shingle sets with the default words
    /// ([`TruthTokenizer::Word`]). Errors name the file and line.
    pub fn read_jsonl(path: &Path) -> Result<Self> {
        Self::read_jsonl_with(path, TruthTokenizer::Word)
    }

    /// [`ShingleSets::read_jsonl`] with the words of `tokenizer`.
    pub fn read_jsonl_with(path: &Path, tokenizer: TruthTokenizer) -> Result<Self> {
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
        Ok(Self::from_texts_with(docs, tokenizer))
    }

    /// The tokenizer the sets were built with.
    pub fn tokenizer(&self) -> TruthTokenizer {
        self.tokenizer
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
    fn cut(t: TruthTokenizer, text: &str) -> Vec<String> {
        t.words(text)
    }

    /// Expected words per tokenizer, in the order word, alnum, whitespace, unicode, worked
    /// out from the definitions in the module docs (for unicode, from UAX #29: `_` is
    /// ExtendNumLet (WB13a/b), `.` MidNumLet and `'` Single_Quote join letters (WB6/7), `,`
    /// MidNum and `.` join digits (WB11/12), marks are Extend (WB4), Han ideographs are
    /// Word_Break Other (a boundary on each side), an emoji with its modifier holds no
    /// alphanumeric character and is dropped).
    #[test]
    fn tokenizers_on_tricky_strings() {
        use TruthTokenizer::{Alnum, Unicode, Whitespace, Word};
        #[allow(clippy::type_complexity)]
        let cases: &[(&str, [&[&str]; 4])] = &[
            (
                "alloc_zeroed",
                [
                    &["alloc_zeroed"],
                    &["alloc", "zeroed"],
                    &["alloc_zeroed"],
                    &["alloc_zeroed"],
                ],
            ),
            (
                "Std.io",
                [&["std", "io"], &["std", "io"], &["std.io"], &["std.io"]],
            ),
            ("e.g.", [&["e", "g"], &["e", "g"], &["e.g."], &["e.g"]]),
            (
                "1,000.5",
                [
                    &["1", "000", "5"],
                    &["1", "000", "5"],
                    &["1,000.5"],
                    &["1,000.5"],
                ],
            ),
            (
                "Can't",
                [&["can", "t"], &["can", "t"], &["can't"], &["can't"]],
            ),
            // n a i U+0308 (combining diaeresis, Mn, not alphabetic) v e
            (
                "Nai\u{308}ve",
                [
                    &["nai", "ve"],
                    &["nai\u{308}ve"],
                    &["nai\u{308}ve"],
                    &["nai\u{308}ve"],
                ],
            ),
            // U+094D virama is Mn and not alphabetic; U+0947 vowel sign e is
            // Other_Alphabetic
            ("नमस्ते", [&["नमस", "ते"], &["नमस्ते"], &["नमस्ते"], &["नमस्ते"]]),
            (
                "日本語",
                [&["日本語"], &["日本語"], &["日本語"], &["日", "本", "語"]],
            ),
            ("👍🏽 OK", [&["ok"], &["ok"], &["👍🏽", "ok"], &["ok"]]),
            (
                "السلام عليكم",
                [
                    &["السلام", "عليكم"],
                    &["السلام", "عليكم"],
                    &["السلام", "عليكم"],
                    &["السلام", "عليكم"],
                ],
            ),
            // HTML: tags become spaces first, for every tokenizer
            (
                " <p>Std.IO <b>can't</b></p>",
                [
                    &["std", "io", "can", "t"],
                    &["std", "io", "can", "t"],
                    &["std.io", "can't"],
                    &["std.io", "can't"],
                ],
            ),
            // not HTML (does not start with `<`): `<` and `>` are ordinary characters
            (
                "a <b>",
                [&["a", "b"], &["a", "b"], &["a", "<b>"], &["a", "b"]],
            ),
        ];
        for (text, expected) in cases {
            for (t, want) in [Word, Alnum, Whitespace, Unicode].into_iter().zip(expected) {
                assert_eq!(cut(t, text), *want, "{t} on {text:?}");
            }
            assert_eq!(cut(Word, text), words_lower(text));
        }
    }

    #[test]
    fn tokenizer_names() {
        for t in TruthTokenizer::ALL {
            assert_eq!(t.name().parse::<TruthTokenizer>().unwrap(), t);
            assert_eq!(t.to_string(), t.name());
            let json = serde_json::to_string(&t).unwrap();
            assert_eq!(json, format!("\"{}\"", t.name()));
            assert_eq!(serde_json::from_str::<TruthTokenizer>(&json).unwrap(), t);
        }
        assert_eq!(TruthTokenizer::default(), TruthTokenizer::Word);
        assert!(TruthTokenizer::Word.is_default() && !TruthTokenizer::Alnum.is_default());
        let e = "Alnum".parse::<TruthTokenizer>().unwrap_err().to_string();
        assert!(
            e.contains("word, alnum, whitespace or unicode") && e.contains("\"Alnum\""),
            "{e}"
        );
        assert!(serde_json::from_str::<TruthTokenizer>("\"ws\"").is_err());
    }

    #[test]
    fn shingle_sets_use_their_tokenizer() {
        // word: x = [a_b c d e f] (one shingle, five words), y = [a b c d e f] (abcde,
        // bcdef): nothing shared. alnum: both [a b c d e f].
        let docs = [("x", "a_b c d e f"), ("y", "A b c d e f")];
        let w = ShingleSets::from_texts(docs);
        assert_eq!(w.tokenizer(), TruthTokenizer::Word);
        assert_eq!(w.resemblance("x", "y"), Some(0.0));
        let a = ShingleSets::from_texts_with(docs, TruthTokenizer::Alnum);
        assert_eq!(a.tokenizer(), TruthTokenizer::Alnum);
        assert_eq!(a.resemblance("x", "y"), Some(1.0));
        // whitespace: x = [a_b c d e f], y = [a b c d e f]: as word here
        let s = ShingleSets::from_texts_with(docs, TruthTokenizer::Whitespace);
        assert_eq!(s.resemblance("x", "y"), Some(0.0));
        // whitespace keeps punctuation: "c," differs from "c"
        let p = [("x", "a b c, d e f"), ("y", "a b c d e f")];
        assert_eq!(ShingleSets::from_texts(p).resemblance("x", "y"), Some(1.0));
        assert_eq!(
            ShingleSets::from_texts_with(p, TruthTokenizer::Whitespace).resemblance("x", "y"),
            Some(0.0)
        );
    }
}
