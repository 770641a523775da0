//! [`Lang`]: the language of stemming and of the built-in stop-word lists (`--lang CODE`).
//!
//! Stemmers are the Snowball stemmers of the rust-stemmers crate (18 languages). Stop-word
//! lists are the NLTK stop-word corpus as packaged by the stop-words crate (MIT OR
//! Apache-2.0; the NLTK lists come from the Snowball project's lists, BSD-3-Clause, with the
//! additions recorded in the corpus README): 23 languages. A language has a stemmer, a list or
//! both; [`Lang::ALL`] is the union. The English list is the NLTK English list of 179 words.
//!
//! Invariant: every [`Lang`] has a stemmer or a stop-word list; codes are ISO 639-1.

use rust_stemmers::Algorithm;

use crate::{Error, Result};

/// A language of stemming and stop words (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct Lang {
    code: &'static str,
    name: &'static str,
    stemmer: Option<Algorithm>,
    stopwords: bool,
}

const fn lang(
    code: &'static str,
    name: &'static str,
    stemmer: Option<Algorithm>,
    stopwords: bool,
) -> Lang {
    Lang {
        code,
        name,
        stemmer,
        stopwords,
    }
}

impl Lang {
    /// English, the default.
    pub const ENGLISH: Lang = lang("en", "english", Some(Algorithm::English), true);

    /// Every language, by code.
    pub const ALL: [Lang; 24] = [
        lang("ar", "arabic", Some(Algorithm::Arabic), true),
        lang("az", "azerbaijani", None, true),
        lang("da", "danish", Some(Algorithm::Danish), true),
        lang("de", "german", Some(Algorithm::German), true),
        lang("el", "greek", Some(Algorithm::Greek), true),
        Lang::ENGLISH,
        lang("es", "spanish", Some(Algorithm::Spanish), true),
        lang("fi", "finnish", Some(Algorithm::Finnish), true),
        lang("fr", "french", Some(Algorithm::French), true),
        lang("hu", "hungarian", Some(Algorithm::Hungarian), true),
        lang("id", "indonesian", None, true),
        lang("it", "italian", Some(Algorithm::Italian), true),
        lang("kk", "kazakh", None, true),
        lang("ne", "nepali", None, true),
        lang("nl", "dutch", Some(Algorithm::Dutch), true),
        lang("no", "norwegian", Some(Algorithm::Norwegian), true),
        lang("pt", "portuguese", Some(Algorithm::Portuguese), true),
        lang("ro", "romanian", Some(Algorithm::Romanian), true),
        lang("ru", "russian", Some(Algorithm::Russian), true),
        lang("sl", "slovenian", None, true),
        lang("sv", "swedish", Some(Algorithm::Swedish), true),
        lang("ta", "tamil", Some(Algorithm::Tamil), false),
        lang("tg", "tajik", None, true),
        lang("tr", "turkish", Some(Algorithm::Turkish), true),
    ];

    /// The ISO 639-1 code (`de`).
    pub fn code(self) -> &'static str {
        self.code
    }

    /// The English name (`german`).
    pub fn name(self) -> &'static str {
        self.name
    }

    /// True when rust-stemmers has a stemmer for it.
    pub fn has_stemmer(self) -> bool {
        self.stemmer.is_some()
    }

    /// True when there is a built-in stop-word list for it.
    pub fn has_stopwords(self) -> bool {
        self.stopwords
    }

    /// The Snowball stemmer, or a configuration error naming the languages that have one.
    pub fn stemmer(self) -> Result<rust_stemmers::Stemmer> {
        match self.stemmer {
            Some(a) => Ok(rust_stemmers::Stemmer::create(a)),
            None => Err(Error::config(format!(
                "no stemmer for {} ({}): rust-stemmers has Snowball stemmers for {}",
                self.name,
                self.code,
                Self::codes(Lang::has_stemmer)
            ))),
        }
    }

    /// The built-in stop-word list, or a configuration error naming the languages that have
    /// one.
    pub fn stopword_list(self) -> Result<&'static [&'static str]> {
        if !self.stopwords {
            return Err(Error::config(format!(
                "no built-in stop-word list for {} ({}); give a file with one word per line \
                 (built-in lists: {})",
                self.name,
                self.code,
                Self::codes(Lang::has_stopwords)
            )));
        }
        Ok(stop_words::get(self.code))
    }

    /// The codes of the languages for which `has` holds, comma-separated.
    fn codes(has: fn(Lang) -> bool) -> String {
        Lang::ALL
            .into_iter()
            .filter(|l| has(*l))
            .map(Lang::code)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl PartialEq for Lang {
    fn eq(&self, other: &Lang) -> bool {
        self.code == other.code
    }
}

impl Eq for Lang {}

impl std::hash::Hash for Lang {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.code.hash(h)
    }
}

impl Default for Lang {
    fn default() -> Self {
        Lang::ENGLISH
    }
}

impl std::fmt::Display for Lang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code)
    }
}

impl std::str::FromStr for Lang {
    type Err = Error;

    /// An ISO 639-1 code (`de`) or the English name (`german`), case-insensitive.
    fn from_str(s: &str) -> Result<Self> {
        let l = s.to_ascii_lowercase();
        Lang::ALL
            .into_iter()
            .find(|x| x.code == l || x.name == l)
            .ok_or_else(|| {
                Error::config(format!(
                    "unknown language {s:?}; expected one of {}",
                    Self::codes(|_| true)
                ))
            })
    }
}

impl serde::Serialize for Lang {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.code)
    }
}

impl<'de> serde::Deserialize<'de> for Lang {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_has_a_stemmer_or_a_list_and_round_trips() {
        let mut codes: Vec<&str> = Lang::ALL.iter().map(|l| l.code).collect();
        let n = codes.len();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), n);
        for l in Lang::ALL {
            assert!(l.has_stemmer() || l.has_stopwords(), "{l}");
            assert_eq!(l.code.parse::<Lang>().unwrap(), l);
            assert_eq!(l.name.to_uppercase().parse::<Lang>().unwrap(), l);
            if l.has_stopwords() {
                assert!(l.stopword_list().unwrap().len() > 20, "{l}");
            } else {
                assert!(l.stopword_list().is_err());
            }
            assert_eq!(l.stemmer().is_ok(), l.has_stemmer());
        }
        // The 18 Snowball stemmers of rust-stemmers.
        assert_eq!(Lang::ALL.iter().filter(|l| l.has_stemmer()).count(), 18);
        let e = "xx".parse::<Lang>().unwrap_err().to_string();
        assert!(e.contains("id") && e.contains("ru"), "{e}");
        let e = "id"
            .parse::<Lang>()
            .unwrap()
            .stemmer()
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("no stemmer for indonesian"), "{e}");
    }
}
