//! [`TextConfig`]: how raw text becomes canonical text, and the token [`Unit`].
//!
//! Invariant: a validated configuration asks for stop words, stemming and a tokenizer other
//! than the default only in word mode, and for stemming only in a language with a stemmer.

use super::{Lang, Normalization, StopWords, Tokenizer};
use crate::{Error, Result};

/// The unit that shingles are made of.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Words (Unicode word boundaries, digits kept).
    #[default]
    Word,
    /// Characters of the canonical character stream (whitespace collapsed).
    Char,
}

impl Unit {
    /// The name (`word` or `char`), as accepted by [`std::str::FromStr`].
    pub fn name(self) -> &'static str {
        match self {
            Unit::Word => "word",
            Unit::Char => "char",
        }
    }
}

impl std::fmt::Display for Unit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Unit {
    type Err = Error;

    /// `word` or `char` (case-insensitive; `chars`, `character`, `words` also accepted).
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "word" | "words" => Ok(Unit::Word),
            "char" | "chars" | "character" | "characters" => Ok(Unit::Char),
            _ => Err(Error::config(format!(
                "unknown unit {s:?}; expected word or char"
            ))),
        }
    }
}

/// How raw text becomes canonical text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextConfig {
    /// Strip HTML first (tags, comments, script/style bodies; entities decoded; alt text kept).
    pub html: bool,
    /// Unicode lowercase (default true).
    pub lowercase: bool,
    /// Word or character tokens.
    pub unit: Unit,
    /// Which runs of text are words (word mode).
    pub tokenizer: Tokenizer,
    /// Unicode normalization form, applied before lowercasing.
    pub normalization: Normalization,
    /// Stop words dropped in word mode.
    pub stopwords: Option<StopWords>,
    /// Snowball stemming in word mode, in the language `lang`.
    pub stem: bool,
    /// The language of stemming.
    pub lang: Lang,
}

impl Default for TextConfig {
    fn default() -> Self {
        TextConfig {
            html: false,
            lowercase: true,
            unit: Unit::Word,
            tokenizer: Tokenizer::Unicode,
            normalization: Normalization::None,
            stopwords: None,
            stem: false,
            lang: Lang::ENGLISH,
        }
    }
}

impl TextConfig {
    /// Checks the combination: stop words, stemming and the tokenizer need word mode;
    /// stemming needs a language with a stemmer.
    pub fn validate(&self) -> Result<()> {
        if self.stem {
            self.lang.stemmer()?;
        }
        if self.unit == Unit::Char {
            if self.tokenizer != Tokenizer::Unicode {
                return Err(Error::config(format!(
                    "the {} tokenizer needs word units (char mode keeps every character)",
                    self.tokenizer
                )));
            }
            if self.stopwords.is_some() {
                return Err(Error::config(
                    "stop words need word units (char mode keeps every character)",
                ));
            }
            if self.stem {
                return Err(Error::config(
                    "stemming needs word units (char mode keeps every character)",
                ));
            }
        }
        Ok(())
    }
}
