//! The synthetic language: a Zipf-ranked lexicon of made-up, syllable-built words (plus the
//! numbers 1000..=2099 as extra tokens), sentences, paragraphs, and a phrasebook of stock
//! phrases that gives unrelated documents a little realistic background overlap.
//!
//! Invariants: every token string is lowercase ASCII letters or digits, distinct from every
//! other token string, so the canonical (lowercased `\w+`) token of a rendered word is the
//! word itself; everything is drawn from the caller's seeded RNG in a fixed order.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// What follows a token when it is rendered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sep {
    /// A space.
    Space,
    /// `, `
    Comma,
    /// `: ` (field labels of template pages).
    Colon,
    /// `. ` ends a sentence.
    Period,
    /// A line break (menus, fields); the next token starts a line.
    Line,
    /// `.` and a paragraph break.
    Para,
}

/// One token of a document: a lexicon index and its separator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tok {
    /// Index into the [`Lexicon`].
    pub w: u32,
    /// Separator after the token.
    pub sep: Sep,
}

impl Tok {
    /// A token followed by a space.
    pub fn word(w: u32) -> Self {
        Tok { w, sep: Sep::Space }
    }
}

const ONSETS: &[&str] = &[
    "b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "tr", "st", "kl",
    "sh", "ch", "gr", "pl", "dr", "th", "w", "h", "j", "fl",
];
const VOWELS: &[&str] = &["a", "e", "i", "o", "u", "ai", "ou", "ea", "io", "y"];
const CODAS: &[&str] = &["", "", "", "", "n", "r", "s", "l", "m", "k", "nd", "st"];

/// First number token and count (the numbers 1000..=2099).
pub const NUMBER_BASE: u32 = 1000;
/// How many number tokens the lexicon holds.
pub const NUMBER_COUNT: u32 = 1100;

/// The lexicon: `vocab` made-up words ranked by Zipf frequency, then the number tokens.
#[derive(Clone, Debug)]
pub struct Lexicon {
    words: Vec<String>,
    vocab: u32,
    cdf: Vec<f64>,
}

impl Lexicon {
    /// Builds `vocab` distinct words (frequent ranks get fewer syllables) and the Zipf
    /// distribution with exponent `s` over them.
    pub fn new(vocab: usize, s: f64, rng: &mut ChaCha8Rng) -> Self {
        let mut seen: hashbrown::HashSet<String> = hashbrown::HashSet::new();
        let mut words = Vec::with_capacity(vocab + NUMBER_COUNT as usize);
        while words.len() < vocab {
            let rank = words.len();
            let syl = match rank {
                0..=39 => 1,
                40..=399 => rng.gen_range(1..=2),
                400..=2999 => rng.gen_range(2..=3),
                _ => rng.gen_range(2..=4),
            };
            let mut w = String::new();
            for _ in 0..syl {
                w.push_str(ONSETS[rng.gen_range(0..ONSETS.len())]);
                w.push_str(VOWELS[rng.gen_range(0..VOWELS.len())]);
                w.push_str(CODAS[rng.gen_range(0..CODAS.len())]);
            }
            if w.len() >= 2 && seen.insert(w.clone()) {
                words.push(w);
            }
        }
        for n in 0..NUMBER_COUNT {
            words.push((NUMBER_BASE + n).to_string());
        }
        let mut cdf = Vec::with_capacity(vocab);
        let mut acc = 0.0;
        for r in 0..vocab {
            acc += 1.0 / ((r + 1) as f64).powf(s);
            cdf.push(acc);
        }
        for c in &mut cdf {
            *c /= acc;
        }
        Lexicon {
            words,
            vocab: vocab as u32,
            cdf,
        }
    }

    /// The string of token `w`.
    pub fn word(&self, w: u32) -> &str {
        &self.words[w as usize]
    }

    /// A Zipf-distributed word.
    pub fn sample(&self, rng: &mut ChaCha8Rng) -> u32 {
        let u: f64 = rng.gen();
        (self.cdf.partition_point(|&c| c < u) as u32).min(self.vocab - 1)
    }

    /// A word of rank at least `min_rank` (content words: rarer, more distinctive).
    pub fn sample_rare(&self, min_rank: u32, rng: &mut ChaCha8Rng) -> u32 {
        loop {
            let w = self.sample(rng);
            if w >= min_rank.min(self.vocab - 1) {
                return w;
            }
        }
    }

    /// The token of number `n` (1000..=2099).
    pub fn number(&self, n: u32) -> u32 {
        self.vocab + (n.clamp(NUMBER_BASE, NUMBER_BASE + NUMBER_COUNT - 1) - NUMBER_BASE)
    }

    /// Number of made-up words (the number tokens follow them).
    pub fn vocab(&self) -> u32 {
        self.vocab
    }
}

/// Text generator: sentences and paragraphs over a lexicon, with stock phrases.
#[derive(Clone, Debug)]
pub struct Writer {
    /// The lexicon.
    pub lex: Lexicon,
    phrases: Vec<Vec<u32>>,
    phrase_prob: f64,
}

impl Writer {
    /// A writer with `n_phrases` stock phrases of 3-6 words, used in a sentence with
    /// probability `phrase_prob`.
    pub fn new(lex: Lexicon, n_phrases: usize, phrase_prob: f64, rng: &mut ChaCha8Rng) -> Self {
        let phrases = (0..n_phrases)
            .map(|_| {
                let n = rng.gen_range(3..=6);
                (0..n).map(|_| lex.sample(rng)).collect()
            })
            .collect();
        Writer {
            lex,
            phrases,
            phrase_prob,
        }
    }

    /// One sentence of 6-18 words, ending with [`Sep::Period`].
    pub fn sentence(&self, rng: &mut ChaCha8Rng, out: &mut Vec<Tok>) {
        let n = rng.gen_range(6..=18);
        let start = out.len();
        let phrase_at = if !self.phrases.is_empty() && rng.gen_bool(self.phrase_prob) {
            Some(rng.gen_range(0..n))
        } else {
            None
        };
        let mut i = 0;
        while i < n {
            if phrase_at == Some(i) {
                let p = &self.phrases[rng.gen_range(0..self.phrases.len())];
                out.extend(p.iter().map(|&w| Tok::word(w)));
                i += p.len();
                continue;
            }
            let mut t = Tok::word(self.lex.sample(rng));
            if i + 1 < n && rng.gen_bool(0.07) {
                t.sep = Sep::Comma;
            }
            out.push(t);
            i += 1;
        }
        if let Some(last) = out[start..].last_mut() {
            last.sep = Sep::Period;
        }
    }

    /// Prose of at least `words` words in paragraphs of 3-6 sentences; the last token ends a
    /// paragraph.
    pub fn prose(&self, words: usize, rng: &mut ChaCha8Rng) -> Vec<Tok> {
        let mut out = Vec::with_capacity(words + 20);
        while out.len() < words {
            let sentences = rng.gen_range(3..=6);
            for _ in 0..sentences {
                self.sentence(rng, &mut out);
                if out.len() >= words {
                    break;
                }
            }
            if let Some(last) = out.last_mut() {
                last.sep = Sep::Para;
            }
        }
        out
    }
}
