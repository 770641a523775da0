//! Canonical text: the token sequence that shingles are cut from.
//!
//! A [`Canonicalizer`] (built from a validated [`TextConfig`]) turns raw document text into a
//! [`Canonical`]:
//!
//! - **word mode** ([`Unit::Word`]): HTML stripped (if `html`, see [`html`]) -> Unicode
//!   lowercase (if `lowercase`; per `char`, `char::to_lowercase`) -> words on Unicode word
//!   boundaries (UAX #29 `unicode_words`: punctuation and whitespace dropped, digits and
//!   in-word apostrophes kept, e.g. `can't`, `3.14`) -> stop words dropped (compared in
//!   lowercase, with `’` read as `'`) -> Snowball English ("Porter 2") stemming if `stem`.
//!   `text` is the tokens joined by single spaces.
//! - **char mode** ([`Unit::Char`]): HTML stripped -> lowercase -> every run of Unicode
//!   whitespace collapsed to one ASCII space, leading/trailing whitespace trimmed; every
//!   `char` of the result is one token (so char n-grams are shingles). Stop words and
//!   stemming are word notions and are rejected by [`TextConfig::validate`] in char mode.
//!
//! Fingerprints (B97 5.2): [`fingerprint_raw`] identifies identical documents,
//! [`fingerprint_canonical`] lexically-equivalent ones; both are seeded xxh3 with fixed,
//! documented seeds, stable across runs, platforms and versions of this crate.
//!
//! Invariant: a [`Canonical`] holds the canonical text and the byte ranges of its tokens, in
//! order; tokens never overlap and each range lies on UTF-8 boundaries of `text`. Text past
//! `u32::MAX` bytes (4 GiB) is not tokenized.

use std::ops::Range;
use std::path::Path;

use unicode_segmentation::UnicodeSegmentation;

use crate::{Error, Result};

pub mod html;

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

/// A document in canonical form.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Canonical {
    /// The canonical text.
    pub text: String,
    /// Byte ranges of the tokens in `text`, in order.
    pub tokens: Vec<Range<u32>>,
}

impl Canonical {
    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// True when there is no token.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// Token `i`.
    pub fn token(&self, i: usize) -> &str {
        let r = &self.tokens[i];
        &self.text[r.start as usize..r.end as usize]
    }

    /// Iterates over the tokens.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.tokens
            .iter()
            .map(move |r| &self.text[r.start as usize..r.end as usize])
    }
}

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

fn normalize_word(w: &str) -> String {
    let mut s = String::with_capacity(w.len());
    push_lowercase(w, &mut s);
    if s.contains('\u{2019}') {
        s = s.replace('\u{2019}', "'");
    }
    s
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
    /// Stop words dropped in word mode.
    pub stopwords: Option<StopWords>,
    /// Snowball English (Porter 2) stemming in word mode.
    pub stem: bool,
}

impl Default for TextConfig {
    fn default() -> Self {
        TextConfig {
            html: false,
            lowercase: true,
            unit: Unit::Word,
            stopwords: None,
            stem: false,
        }
    }
}

impl TextConfig {
    /// Checks the combination: stop words and stemming need word mode.
    pub fn validate(&self) -> Result<()> {
        if self.unit == Unit::Char {
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

/// Reusable intermediate buffers for [`Canonicalizer::canonicalize_into`] (one per thread).
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    html: String,
    lower: String,
    tmp: String,
    canon: Canonical,
}

/// Turns raw text into [`Canonical`] form according to a [`TextConfig`].
/// Cheap to share between threads (`Send + Sync`).
pub struct Canonicalizer {
    cfg: TextConfig,
    stemmer: Option<rust_stemmers::Stemmer>,
}

impl std::fmt::Debug for Canonicalizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Canonicalizer")
            .field("cfg", &self.cfg)
            .finish()
    }
}

impl Canonicalizer {
    /// Validates `cfg` and builds the canonicalizer.
    pub fn new(cfg: TextConfig) -> Result<Self> {
        cfg.validate()?;
        let stemmer = cfg
            .stem
            .then(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English));
        Ok(Canonicalizer { cfg, stemmer })
    }

    /// The configuration.
    pub fn config(&self) -> &TextConfig {
        &self.cfg
    }

    /// The token unit.
    pub fn unit(&self) -> Unit {
        self.cfg.unit
    }

    /// The canonical form of `raw`.
    pub fn canonicalize(&self, raw: &str) -> Canonical {
        let mut out = Canonical::default();
        self.canonicalize_into(raw, &mut Scratch::default(), &mut out);
        out
    }

    /// The canonical form of `raw` written into `out` (cleared first), reusing the
    /// allocations of `out` and `scratch`. Same result as [`Canonicalizer::canonicalize`]
    /// and [`Canonicalizer::canonicalize_reference_into`] (it takes the ASCII fast path of
    /// [`Canonicalizer::for_each_token`] when it can).
    pub fn canonicalize_into(&self, raw: &str, scratch: &mut Scratch, out: &mut Canonical) {
        if self.cfg.unit != Unit::Word {
            return self.canonicalize_reference_into(raw, scratch, out);
        }
        out.text.clear();
        out.tokens.clear();
        self.for_each_token(raw, scratch, |t| {
            push_token(out, t, true);
        });
    }

    /// `raw` with its HTML stripped into `buf` when the configuration asks for it, else `raw`.
    fn strip_html<'a>(&self, raw: &'a str, buf: &'a mut String) -> &'a str {
        if self.cfg.html {
            buf.clear();
            html::strip_html_into(raw, buf);
            buf
        } else {
            raw
        }
    }

    /// Calls `f` on every canonical token of `raw`, in order: the tokens of
    /// [`Canonicalizer::canonicalize`]`(raw)`, without building the canonical text when the
    /// (HTML-stripped) text is ASCII and the unit is words. That fast path splits words with
    /// a byte-class scanner that implements the UAX #29 word-boundary rules restricted to
    /// ASCII (letters, digits, `_` joining; `.` and `'` between two letters or two digits,
    /// `:` between two letters, `,` and `;` between two digits) and keeps the segments
    /// holding a letter or digit, as `unicode_words` does; any other input goes through
    /// [`Canonicalizer::canonicalize_reference_into`]. Stops, as the canonical text does,
    /// before the text would pass `u32::MAX` bytes.
    pub fn for_each_token<F: FnMut(&str)>(&self, raw: &str, scratch: &mut Scratch, mut f: F) {
        let Scratch {
            html: hbuf,
            lower,
            tmp,
            canon,
        } = scratch;
        let mut s = self.strip_html(raw, hbuf);
        if self.cfg.unit != Unit::Word || !s.is_ascii() {
            self.reference_stripped(s, lower, canon);
            for t in canon.iter() {
                f(t);
            }
            return;
        }
        if self.cfg.lowercase {
            lower.clear();
            lower.push_str(s);
            lower.make_ascii_lowercase();
            s = lower;
        }
        let mut text_len = 0usize;
        let sw = self.cfg.stopwords.as_ref();
        let lowercase = self.cfg.lowercase;
        let stemmer = self.stemmer.as_ref();
        ascii_words(s, |w| {
            if let Some(sw) = sw {
                let stop = if lowercase {
                    sw.contains(w)
                } else {
                    tmp.clear();
                    tmp.push_str(w);
                    tmp.make_ascii_lowercase();
                    sw.contains(tmp)
                };
                if stop {
                    return true;
                }
            }
            let stemmed;
            let tok: &str = match stemmer {
                Some(st) => {
                    stemmed = st.stem(w);
                    &stemmed
                }
                None => w,
            };
            if tok.is_empty() {
                return true;
            }
            let sep = usize::from(text_len != 0);
            if text_len + sep + tok.len() > u32::MAX as usize {
                return false;
            }
            text_len += sep + tok.len();
            f(tok);
            true
        });
    }

    /// The general canonicalization (any Unicode input, both units): HTML stripping,
    /// Unicode lowercase, `unicode_words`, stop words, stemming. The reference that the fast
    /// path of [`Canonicalizer::for_each_token`] is tested against.
    pub fn canonicalize_reference_into(
        &self,
        raw: &str,
        scratch: &mut Scratch,
        out: &mut Canonical,
    ) {
        out.text.clear();
        out.tokens.clear();
        let Scratch {
            html: hbuf, lower, ..
        } = scratch;
        let s = self.strip_html(raw, hbuf);
        self.reference_stripped(s, lower, out);
    }

    /// The general path after HTML stripping: lowercase, then words or characters.
    fn reference_stripped<'a>(&self, mut s: &'a str, lower: &'a mut String, out: &mut Canonical) {
        out.text.clear();
        out.tokens.clear();
        if self.cfg.lowercase {
            lower.clear();
            push_lowercase(s, lower);
            s = lower;
        }
        match self.cfg.unit {
            Unit::Word => self.words(s, out),
            Unit::Char => chars(s, out),
        }
    }

    fn words(&self, s: &str, out: &mut Canonical) {
        let mut tmp = String::new();
        for w in s.unicode_words() {
            if let Some(sw) = &self.cfg.stopwords {
                let stop = if self.cfg.lowercase && !w.contains('\u{2019}') {
                    sw.contains(w)
                } else {
                    tmp.clear();
                    tmp.push_str(&normalize_word(w));
                    sw.contains(&tmp)
                };
                if stop {
                    continue;
                }
            }
            match &self.stemmer {
                Some(st) => {
                    let stemmed = st.stem(w);
                    if !push_token(out, &stemmed, true) {
                        return;
                    }
                }
                None => {
                    if !push_token(out, w, true) {
                        return;
                    }
                }
            }
        }
    }
}

/// Word-break classes of ASCII bytes (UAX #29 restricted to ASCII).
const C_OTHER: u8 = 0;
/// ALetter.
const C_LETTER: u8 = 1;
/// Numeric.
const C_DIGIT: u8 = 2;
/// ExtendNumLet (`_`).
const C_EXTEND: u8 = 3;
/// MidLetter (`:`).
const C_MIDLETTER: u8 = 4;
/// MidNumLet and Single_Quote (`.`, `'`).
const C_MIDNUMLET: u8 = 5;
/// MidNum (`,`, `;`).
const C_MIDNUM: u8 = 6;

/// Class of every byte (non-ASCII bytes are [`C_OTHER`]; the scanner only sees ASCII).
const BYTE_CLASS: [u8; 256] = {
    let mut t = [C_OTHER; 256];
    let mut i = 0;
    while i < 128 {
        let c = i as u8;
        t[i] = if c.is_ascii_alphabetic() {
            C_LETTER
        } else if c.is_ascii_digit() {
            C_DIGIT
        } else {
            match c {
                b'_' => C_EXTEND,
                b':' => C_MIDLETTER,
                b'.' | b'\'' => C_MIDNUMLET,
                b',' | b';' => C_MIDNUM,
                _ => C_OTHER,
            }
        };
        i += 1;
    }
    t
};

/// True for the bytes words are made of (letters, digits, `_`).
const IS_WORD: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = BYTE_CLASS[i];
        t[i] = c == C_LETTER || c == C_DIGIT || c == C_EXTEND;
        i += 1;
    }
    t
};

/// Calls `f` on the words of ASCII text `s` as `unicode_words` finds them; stops when `f`
/// returns false.
///
/// The text is classified 64 bytes at a time into a bit mask of word bytes (letters,
/// digits, `_`; SSE2 on x86-64); runs of word bytes are found from the mask's transitions,
/// so the loop branches once per run instead of once per byte. A run that ends at a
/// MidLetter / MidNum / MidNumLet byte between two letters or two digits joins the next run
/// (WB6/7, WB11/12), as in [`ascii_words_bytewise`], the byte-at-a-time form it is tested
/// against.
fn ascii_words(s: &str, mut f: impl FnMut(&str) -> bool) {
    let b = s.as_bytes();
    let n = b.len();
    // Start of the current segment, when inside one.
    let mut seg: Option<usize> = None;
    // A join at byte `i` continues the segment over the run that starts at `i + 1`.
    let mut skip_start = usize::MAX;
    // Whether the byte before the current chunk is a word byte.
    let mut carry = 0u64;
    let mut base = 0usize;
    while base < n {
        let len = (n - base).min(64);
        let m = word_mask(&b[base..base + len]);
        let prev = (m << 1) | carry;
        carry = m >> 63;
        // Run starts (word byte after a non-word one) and ends (non-word byte after a word
        // one); bits past `len` are zero in `m`, so an end can appear at `len` only when
        // `len < 64`, i.e. at the end of the text, handled below.
        let mut edges = (m & !prev) | (!m & prev);
        if len < 64 {
            edges &= (1u64 << len) - 1;
        }
        while edges != 0 {
            let j = edges.trailing_zeros() as usize;
            edges &= edges - 1;
            let i = base + j;
            if (m >> j) & 1 == 1 {
                // A run starts at `i`.
                if i == skip_start {
                    continue;
                }
                seg = Some(i);
            } else {
                // A run ends at `i` (b[i] is not a word byte; b[i - 1] is).
                if i + 1 < n && joins(b[i - 1], b[i], b[i + 1]) {
                    skip_start = i + 1;
                    continue;
                }
                if let Some(start) = seg.take() {
                    if !emit_segment(s, start, i, &mut f) {
                        return;
                    }
                }
            }
        }
        base += len;
    }
    if let Some(start) = seg {
        emit_segment(s, start, n, &mut f);
    }
}

/// Whether `mid`, standing between the word byte `prev` and `next`, joins them into one
/// word: MidLetter / MidNumLet between two letters (WB6/7), MidNum / MidNumLet between two
/// digits (WB11/12).
#[inline]
fn joins(prev: u8, mid: u8, next: u8) -> bool {
    let next = BYTE_CLASS[usize::from(next)];
    match (BYTE_CLASS[usize::from(prev)], BYTE_CLASS[usize::from(mid)]) {
        (C_LETTER, C_MIDLETTER | C_MIDNUMLET) => next == C_LETTER,
        (C_DIGIT, C_MIDNUM | C_MIDNUMLET) => next == C_DIGIT,
        _ => false,
    }
}

/// Calls `f` on the segment `s[start..end]` unless it is made of `_` alone (no letter or
/// digit: not a word); returns what `f` returns (true for a skipped segment).
#[inline]
fn emit_segment(s: &str, start: usize, end: usize, f: &mut impl FnMut(&str) -> bool) -> bool {
    let w = &s.as_bytes()[start..end];
    let alnum = w[0] != b'_' || w.iter().any(|&c| c != b'_');
    // Both ends are ASCII bytes, so these are char boundaries.
    !alnum || f(&s[start..end])
}

/// Bit `j` set when `chunk[j]` (at most 64 ASCII bytes) is a word byte: `[0-9A-Za-z_]`.
#[inline]
fn word_mask(chunk: &[u8]) -> u64 {
    debug_assert!(chunk.len() <= 64);
    #[cfg(target_arch = "x86_64")]
    if chunk.len() == 64 {
        // SAFETY: SSE2 is part of the x86-64 baseline; the four loads read `chunk[0..64]`.
        return unsafe { word_mask_sse2(chunk.as_ptr()) };
    }
    let mut m = 0u64;
    for (j, &c) in chunk.iter().enumerate() {
        m |= u64::from(IS_WORD[usize::from(c)]) << j;
    }
    m
}

/// [`word_mask`] of the 64 bytes at `p` with SSE2 (ASCII input: the signed comparisons
/// below rely on bytes < 0x80 only for the range tricks, and any byte >= 0x80 is classed
/// as not a word byte all the same).
#[cfg(target_arch = "x86_64")]
#[inline]
unsafe fn word_mask_sse2(p: *const u8) -> u64 {
    use std::arch::x86_64::*;
    let mut m = 0u64;
    // Ranges by the bias trick: x + (0x80 - lo) < 0x80 - 128 + width, signed.
    let digit_bias = _mm_set1_epi8((0x80u8.wrapping_sub(b'0')) as i8);
    let digit_lim = _mm_set1_epi8((-128i16 + 10) as i8);
    let alpha_bias = _mm_set1_epi8((0x80u8.wrapping_sub(b'a')) as i8);
    let alpha_lim = _mm_set1_epi8((-128i16 + 26) as i8);
    let case = _mm_set1_epi8(0x20);
    let under = _mm_set1_epi8(b'_' as i8);
    for k in 0..4 {
        let v = _mm_loadu_si128(p.add(16 * k) as *const __m128i);
        let d = _mm_cmplt_epi8(_mm_add_epi8(v, digit_bias), digit_lim);
        let a = _mm_cmplt_epi8(_mm_add_epi8(_mm_or_si128(v, case), alpha_bias), alpha_lim);
        let u = _mm_cmpeq_epi8(v, under);
        let w = _mm_or_si128(_mm_or_si128(d, a), u);
        m |= u64::from(_mm_movemask_epi8(w) as u16) << (16 * k);
    }
    m
}

/// The byte-at-a-time scanner [`ascii_words`] replaced (its reference in tests).
#[cfg(test)]
fn ascii_words_bytewise(s: &str, mut f: impl FnMut(&str) -> bool) {
    let b = s.as_bytes();
    let n = b.len();
    let mut i = 0;
    loop {
        while i < n && !IS_WORD[usize::from(b[i])] {
            i += 1;
        }
        if i >= n {
            return;
        }
        let start = i;
        loop {
            // A run of letters, digits and `_`.
            while i < n && IS_WORD[usize::from(b[i])] {
                i += 1;
            }
            if i + 1 >= n {
                break;
            }
            // b[i] ends the run; it joins two letters or two digits (WB6/7, WB11/12).
            if !joins(b[i - 1], b[i], b[i + 1]) {
                break;
            }
            i += 2;
        }
        if !emit_segment(s, start, i, &mut f) {
            return;
        }
    }
}

/// Appends a token (with a separating space in word mode); false when past the u32 limit.
fn push_token(out: &mut Canonical, tok: &str, space: bool) -> bool {
    if tok.is_empty() {
        return true;
    }
    let sep = usize::from(space && !out.text.is_empty());
    if out.text.len() + sep + tok.len() > u32::MAX as usize {
        return false;
    }
    if sep == 1 {
        out.text.push(' ');
    }
    let start = out.text.len() as u32;
    out.text.push_str(tok);
    out.tokens.push(start..out.text.len() as u32);
    true
}

fn chars(s: &str, out: &mut Canonical) {
    let mut pending_space = false;
    let mut buf = [0u8; 4];
    for c in s.chars() {
        if c.is_whitespace() {
            pending_space = !out.text.is_empty();
            continue;
        }
        if pending_space {
            pending_space = false;
            if !push_token(out, " ", false) {
                return;
            }
        }
        if !push_token(out, c.encode_utf8(&mut buf), false) {
            return;
        }
    }
}

/// Appends the Unicode lowercase of `s` to `out` (per `char`; ASCII fast path).
pub fn push_lowercase(s: &str, out: &mut String) {
    out.reserve(s.len());
    for c in s.chars() {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else {
            out.extend(c.to_lowercase());
        }
    }
}

/// Seed of [`fingerprint_raw`] (fixed forever: fingerprints are stored in files).
pub const FINGERPRINT_SEED_RAW: u64 = 0x6669_6d64_7570_0001;
/// Seed of [`fingerprint_canonical`] (fixed forever).
pub const FINGERPRINT_SEED_CANONICAL: u64 = 0x6669_6d64_7570_0002;

/// Fingerprint of the raw document bytes: equal for identical documents (B97 5.2).
/// `xxh3_64_with_seed(bytes, FINGERPRINT_SEED_RAW)`.
pub fn fingerprint_raw(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(bytes, FINGERPRINT_SEED_RAW)
}

/// Fingerprint of the canonical form: equal for lexically-equivalent documents (same token
/// sequence; B97 5.2). Streaming xxh3 seeded with [`FINGERPRINT_SEED_CANONICAL`] over, for
/// each token, its byte length as a little-endian `u32` followed by its bytes, so that the
/// token boundaries count (`["ab"]` and `["a", "b"]` differ).
pub fn fingerprint_canonical(c: &Canonical) -> u64 {
    let mut buf = Vec::with_capacity(c.text.len() + 4 * c.len());
    for t in c.iter() {
        push_fingerprint_token(&mut buf, t);
    }
    fingerprint_canonical_encoded(&buf)
}

/// Appends one token to the encoding hashed by [`fingerprint_canonical_encoded`]: its byte
/// length as a little-endian `u32`, then its bytes.
#[inline]
pub fn push_fingerprint_token(buf: &mut Vec<u8>, token: &str) {
    buf.extend_from_slice(&(token.len() as u32).to_le_bytes());
    buf.extend_from_slice(token.as_bytes());
}

/// [`fingerprint_canonical`] from the tokens encoded with [`push_fingerprint_token`]
/// (one-shot xxh3 of the encoding, equal to the streaming form over the same bytes).
pub fn fingerprint_canonical_encoded(encoded: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(encoded, FINGERPRINT_SEED_CANONICAL)
}

/// The streaming form of [`fingerprint_canonical`] (the reference the one-shot form is
/// tested against).
pub fn fingerprint_canonical_streaming(c: &Canonical) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::with_seed(FINGERPRINT_SEED_CANONICAL);
    for t in c.iter() {
        h.update(&(t.len() as u32).to_le_bytes());
        h.update(t.as_bytes());
    }
    h.digest()
}

#[cfg(test)]
mod scanner_tests {
    use super::{ascii_words, ascii_words_bytewise, word_mask, IS_WORD};
    use proptest::prelude::*;

    /// A word scanner under test.
    type Scanner = fn(&str, &mut dyn FnMut(&str) -> bool);

    fn words(s: &str, stop_after: usize, scan: Scanner) -> Vec<String> {
        let mut v = Vec::new();
        scan(s, &mut |w| {
            v.push(w.to_string());
            v.len() < stop_after
        });
        v
    }

    fn fast(s: &str, f: &mut dyn FnMut(&str) -> bool) {
        ascii_words(s, f)
    }

    fn slow(s: &str, f: &mut dyn FnMut(&str) -> bool) {
        ascii_words_bytewise(s, f)
    }

    /// ASCII text heavy in the bytes that matter: letters, digits, `_`, the Mid* joiners
    /// and separators, long enough to cross several 64-byte chunks.
    fn ascii_text() -> impl Strategy<Value = String> {
        let byte = prop_oneof![
            8 => prop::sample::select(b"abcXYZ".to_vec()),
            3 => prop::sample::select(b"0189".to_vec()),
            3 => prop::sample::select(b" .':,;_".to_vec()),
            1 => 0u8..128,
        ];
        prop::collection::vec(byte, 0..400).prop_map(|b| String::from_utf8(b).unwrap())
    }

    #[test]
    fn word_mask_matches_the_table_for_every_byte() {
        for c in 0u8..=255 {
            let chunk = [c; 64];
            let want = if IS_WORD[usize::from(c)] { u64::MAX } else { 0 };
            assert_eq!(word_mask(&chunk), want, "byte {c:#x}");
            assert_eq!(word_mask(&chunk[..5]), want & 0x1f, "byte {c:#x}");
        }
    }

    #[test]
    fn joins_and_runs_across_chunk_boundaries() {
        for pad in 0..130 {
            for tail in [
                "a.b c", "1,2 x", "a:b", "__ _a_", "ab.", "a'b'c", "1.a", "x",
            ] {
                let s = format!("{}{tail}", " ".repeat(pad));
                assert_eq!(
                    words(&s, usize::MAX, fast),
                    words(&s, usize::MAX, slow),
                    "{s:?}"
                );
                let s = format!("{}{tail}", "w".repeat(pad));
                assert_eq!(
                    words(&s, usize::MAX, fast),
                    words(&s, usize::MAX, slow),
                    "{s:?}"
                );
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn chunked_scanner_equals_bytewise(s in ascii_text(), stop in 1usize..50) {
            prop_assert_eq!(words(&s, usize::MAX, fast), words(&s, usize::MAX, slow));
            prop_assert_eq!(words(&s, stop, fast), words(&s, stop, slow));
        }
    }
}
