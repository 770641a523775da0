//! Stop words: the built-in English list and lists read from files.
//!
//! Invariant: a [`StopWords`] set holds its words lowercase, with `’` read as `'`, so that
//! lookups compare words normalized the same way ([`normalize_word`]).

use std::path::Path;

use super::push_lowercase;
use crate::{Error, Result};

/// The built-in English stop-word list: the NLTK / Snowball English list (179 words,
/// lowercase, with the contractions it contains).
pub const ENGLISH_STOPWORDS: &[&str] = &[
    "i",
    "me",
    "my",
    "myself",
    "we",
    "our",
    "ours",
    "ourselves",
    "you",
    "you're",
    "you've",
    "you'll",
    "you'd",
    "your",
    "yours",
    "yourself",
    "yourselves",
    "he",
    "him",
    "his",
    "himself",
    "she",
    "she's",
    "her",
    "hers",
    "herself",
    "it",
    "it's",
    "its",
    "itself",
    "they",
    "them",
    "their",
    "theirs",
    "themselves",
    "what",
    "which",
    "who",
    "whom",
    "this",
    "that",
    "that'll",
    "these",
    "those",
    "am",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "have",
    "has",
    "had",
    "having",
    "do",
    "does",
    "did",
    "doing",
    "a",
    "an",
    "the",
    "and",
    "but",
    "if",
    "or",
    "because",
    "as",
    "until",
    "while",
    "of",
    "at",
    "by",
    "for",
    "with",
    "about",
    "against",
    "between",
    "into",
    "through",
    "during",
    "before",
    "after",
    "above",
    "below",
    "to",
    "from",
    "up",
    "down",
    "in",
    "out",
    "on",
    "off",
    "over",
    "under",
    "again",
    "further",
    "then",
    "once",
    "here",
    "there",
    "when",
    "where",
    "why",
    "how",
    "all",
    "any",
    "both",
    "each",
    "few",
    "more",
    "most",
    "other",
    "some",
    "such",
    "no",
    "nor",
    "not",
    "only",
    "own",
    "same",
    "so",
    "than",
    "too",
    "very",
    "s",
    "t",
    "can",
    "will",
    "just",
    "don",
    "don't",
    "should",
    "should've",
    "now",
    "d",
    "ll",
    "m",
    "o",
    "re",
    "ve",
    "y",
    "ain",
    "aren",
    "aren't",
    "couldn",
    "couldn't",
    "didn",
    "didn't",
    "doesn",
    "doesn't",
    "hadn",
    "hadn't",
    "hasn",
    "hasn't",
    "haven",
    "haven't",
    "isn",
    "isn't",
    "ma",
    "mightn",
    "mightn't",
    "mustn",
    "mustn't",
    "needn",
    "needn't",
    "shan",
    "shan't",
    "shouldn",
    "shouldn't",
    "wasn",
    "wasn't",
    "weren",
    "weren't",
    "won",
    "won't",
    "wouldn",
    "wouldn't",
];

/// A set of stop words (stored lowercase).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StopWords {
    words: hashbrown::HashSet<String>,
}

impl StopWords {
    /// The built-in English list ([`ENGLISH_STOPWORDS`]).
    pub fn english() -> Self {
        Self::from_words(ENGLISH_STOPWORDS.iter().copied())
    }

    /// A list from words (lowercased, `’` read as `'`; empty strings ignored).
    pub fn from_words<I, S>(words: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let words = words
            .into_iter()
            .map(|w| normalize_word(w.as_ref().trim()))
            .filter(|w| !w.is_empty())
            .collect();
        StopWords { words }
    }

    /// Reads a list from a file: one word per line (UTF-8, `*.gz` allowed); surrounding
    /// whitespace is trimmed, blank lines and lines starting with `#` are ignored.
    /// A line holding more than one word is an [`Error::Parse`].
    pub fn from_file(path: &Path) -> Result<Self> {
        let bytes = crate::io::read_all(path)?;
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            let line = 1 + bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&c| c == b'\n')
                .count();
            Error::parse(
                path,
                line as u64,
                "invalid UTF-8; expected one word per line",
            )
        })?;
        let mut words = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let w = line.trim();
            if w.is_empty() || w.starts_with('#') {
                continue;
            }
            if w.split_whitespace().nth(1).is_some() {
                return Err(Error::parse(
                    path,
                    i as u64 + 1,
                    format!("found {w:?}; expected one stop word per line"),
                ));
            }
            words.push(w);
        }
        Ok(Self::from_words(words))
    }

    /// `english` gives [`StopWords::english`], anything else is read as a file
    /// ([`StopWords::from_file`]); this is what `--stopwords FILE|english` takes.
    pub fn from_spec(spec: &str) -> Result<Self> {
        if spec == "english" {
            Ok(Self::english())
        } else {
            Self::from_file(Path::new(spec))
        }
    }

    /// True when `word` (already lowercase) is a stop word.
    pub fn contains(&self, word: &str) -> bool {
        self.words.contains(word)
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// True when the list is empty.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The words, sorted (for reports and stable output).
    pub fn sorted(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.words.iter().map(String::as_str).collect();
        v.sort_unstable();
        v
    }
}

/// `w` lowercased (Unicode, per `char`), with `’` read as `'`: the form stop words are
/// stored and compared in.
pub(super) fn normalize_word(w: &str) -> String {
    let mut s = String::with_capacity(w.len());
    push_lowercase(w, &mut s);
    if s.contains('\u{2019}') {
        s = s.replace('\u{2019}', "'");
    }
    s
}
