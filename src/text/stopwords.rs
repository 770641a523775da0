//! Stop words: the built-in lists of the [`Lang`]s (the NLTK lists, see [`super::lang`]) and
//! lists read from files.
//!
//! Invariant: a [`StopWords`] set holds its words lowercase, with `’` read as `'`, so that
//! lookups compare words normalized the same way ([`normalize_word`]).

use std::path::Path;

use super::{push_lowercase, Lang};
use crate::{Error, Result};

/// A set of stop words (stored lowercase).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StopWords {
    words: hashbrown::HashSet<String>,
}

impl StopWords {
    /// The built-in English list (the NLTK English list, 179 words).
    pub fn english() -> Self {
        Self::builtin(Lang::ENGLISH).expect("English has a list")
    }

    /// The built-in list of `lang` (an error when it has none).
    pub fn builtin(lang: Lang) -> Result<Self> {
        Ok(Self::from_words(lang.stopword_list()?.iter().copied()))
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

    /// What `--stopwords LIST` takes: `lang` gives the built-in list of `lang`, a language
    /// code or name (`de`, `german`, `english`) that language's built-in list, anything else
    /// is read as a file ([`StopWords::from_file`]; write `./de` for a file named `de`).
    pub fn from_spec(spec: &str, lang: Lang) -> Result<Self> {
        if spec == "lang" {
            return Self::builtin(lang);
        }
        match spec.parse::<Lang>() {
            Ok(l) => Self::builtin(l),
            Err(_) => Self::from_file(Path::new(spec)),
        }
    }

    /// The same words normalized to `form` (what the canonicalizer compares against).
    pub fn normalized(&self, form: super::Normalization) -> Self {
        let mut buf = String::new();
        StopWords {
            words: self
                .words
                .iter()
                .map(|w| form.apply(w, &mut buf).to_string())
                .collect(),
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
