//! Stems already computed by one thread: Snowball stemming costs far more than a hash
//! lookup, and the words of a corpus repeat (a few thousand distinct words make most of
//! any text), so each distinct word is stemmed once while the cache has room.
//!
//! Invariants: [`Stems::stem`] gives exactly what the stemmer gives for the word (the
//! cache only remembers it); the cache holds at most [`MAX_WORDS`] words, and is emptied
//! when a new word would pass that, so its memory is bounded whatever the corpus.

use rust_stemmers::Stemmer;

/// The most words a cache holds (a few MB with their stems).
pub const MAX_WORDS: usize = 1 << 16;

/// A word -> stem cache (one per thread, in [`super::Scratch`]).
#[derive(Clone, Debug, Default)]
pub struct Stems {
    map: hashbrown::HashMap<Box<str>, Box<str>>,
}

impl Stems {
    /// The stem of `w` by `st`, from the cache or computed and remembered.
    pub fn stem<'a>(&'a mut self, st: &Stemmer, w: &str) -> &'a str {
        if self.map.len() >= MAX_WORDS && !self.map.contains_key(w) {
            self.map.clear();
        }
        self.map.entry_ref(w).or_insert_with(|| st.stem(w).into())
    }

    /// The number of words held.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_stemmers::Algorithm;

    /// Every word gets the stemmer's own stem, on first sight and from the cache, also
    /// after the cache filled up and was emptied.
    #[test]
    fn gives_the_stemmers_stem_and_stays_bounded() {
        let st = Stemmer::create(Algorithm::English);
        let mut c = Stems::default();
        let words = ["running", "runs", "ran", "easily", "fairly", "generously"];
        for round in 0..3 {
            for w in words {
                assert_eq!(c.stem(&st, w), st.stem(w), "{w}, round {round}");
            }
        }
        assert_eq!(c.len(), words.len());
        for i in 0..MAX_WORDS + 10 {
            let w = format!("word{i}ing");
            assert_eq!(c.stem(&st, &w), st.stem(&w));
            assert!(c.len() <= MAX_WORDS);
        }
        assert!(c.len() > 0);
    }
}
