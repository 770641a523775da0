//! [`Canonical`] text and the [`Canonicalizer`] that makes it: the general Unicode path and
//! the ASCII fast path of word mode (on the [`super::scanner`]).
//!
//! Invariant: a [`Canonical`] holds the canonical text and the byte ranges of its tokens, in
//! order; tokens never overlap and each range lies on UTF-8 boundaries of `text`. Both paths
//! give the same tokens; text past `u32::MAX` bytes (4 GiB) is not tokenized.

use std::ops::Range;

use super::scanner::ascii_words;
use super::stems::Stems;
use super::stopwords::normalize_word;
use super::tokenizer::{alnum_ascii, whitespace_ascii};
use super::{html, Normalization, StopWords, TextConfig, Tokenizer, Unit};
use crate::Result;

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

/// Reusable intermediate buffers for [`Canonicalizer::canonicalize_into`] (one per thread).
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    html: String,
    norm: String,
    lower: String,
    tmp: String,
    canon: Canonical,
    stems: Stems,
}

/// Turns raw text into [`Canonical`] form according to a [`TextConfig`].
/// Cheap to share between threads (`Send + Sync`).
pub struct Canonicalizer {
    cfg: TextConfig,
    stemmer: Option<rust_stemmers::Stemmer>,
    /// The stop words in the configuration's normalization form.
    stop: Option<StopWords>,
    /// Word mode with every word a token (no HTML stripping, stop words or stemming; UAX #29
    /// words): on ASCII text, [`Canonicalizer::for_each_token`]'s plain path.
    plain: bool,
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
        let stemmer = if cfg.stem {
            Some(cfg.lang.stemmer()?)
        } else {
            None
        };
        let stop = cfg.stopwords.as_ref().map(|s| match cfg.normalization {
            Normalization::None => s.clone(),
            form => s.normalized(form),
        });
        let plain = cfg.unit == Unit::Word
            && !cfg.html
            && stop.is_none()
            && stemmer.is_none()
            && cfg.tokenizer == Tokenizer::Unicode;
        Ok(Canonicalizer {
            cfg,
            stemmer,
            stop,
            plain,
        })
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
    /// (HTML-stripped) text is ASCII and the unit is words (ASCII text is its own NFC and
    /// NFKC form). That fast path splits [`Tokenizer::Unicode`] words with a byte-class
    /// scanner that implements the UAX #29 word-boundary rules restricted to ASCII (letters,
    /// digits, `_` joining; `.` and `'` between two letters or two digits, `:` between two
    /// letters, `,` and `;` between two digits) and keeps the segments holding a letter or
    /// digit, as `unicode_words` does; the other tokenizers by byte class. Any other input
    /// goes through [`Canonicalizer::canonicalize_reference_into`]. Stops, as the canonical
    /// text does, before the text would pass `u32::MAX` bytes.
    pub fn for_each_token<F: FnMut(&str)>(&self, raw: &str, scratch: &mut Scratch, mut f: F) {
        if self.plain && raw.is_ascii() {
            // The default options on ASCII text: every word is a token, and `f` has this one
            // call site (the other paths reach it through `dyn`), so it is inlined here.
            let s = self.ascii_case(raw, &mut scratch.lower);
            let mut text_len = 0usize;
            ascii_words(s, |w| {
                if !within_text_limit(&mut text_len, w) {
                    return false;
                }
                f(w);
                true
            });
            return;
        }
        self.for_each_token_general(raw, scratch, &mut f);
    }

    /// The ASCII text `s`, lowercased into `lower` when the configuration folds case.
    #[inline]
    fn ascii_case<'a>(&self, s: &'a str, lower: &'a mut String) -> &'a str {
        if !self.cfg.lowercase {
            return s;
        }
        lower.clear();
        lower.push_str(s);
        lower.make_ascii_lowercase();
        lower
    }

    /// [`Canonicalizer::for_each_token`] for every configuration and text.
    fn for_each_token_general(&self, raw: &str, scratch: &mut Scratch, f: &mut dyn FnMut(&str)) {
        let Scratch {
            html: hbuf,
            norm,
            lower,
            tmp,
            canon,
            stems,
        } = scratch;
        let mut s = self.strip_html(raw, hbuf);
        if self.cfg.unit != Unit::Word || !s.is_ascii() {
            self.reference_stripped(s, norm, lower, stems, canon);
            for t in canon.iter() {
                f(t);
            }
            return;
        }
        s = self.ascii_case(s, lower);
        let mut text_len = 0usize;
        let sw = self.stop.as_ref();
        let lowercase = self.cfg.lowercase;
        let stemmer = self.stemmer.as_ref();
        let mut each = |w: &str| {
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
            let tok: &str = match stemmer {
                Some(st) => stems.stem(st, w),
                None => w,
            };
            if tok.is_empty() {
                return true;
            }
            if !within_text_limit(&mut text_len, tok) {
                return false;
            }
            f(tok);
            true
        };
        // The default tokenizer keeps its own inlined instance of the scanner; the others go
        // through one shared, not inlined, instance so that the hot path's code stays as it is.
        match self.cfg.tokenizer {
            Tokenizer::Unicode => ascii_words(s, each),
            other => other_ascii_words(other, s, &mut each),
        }
    }

    /// The general canonicalization (any Unicode input, both units): HTML stripping,
    /// normalization, Unicode lowercase, the tokenizer's words, stop words, stemming. The reference that the fast
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
            html: hbuf,
            norm,
            lower,
            stems,
            ..
        } = scratch;
        let s = self.strip_html(raw, hbuf);
        self.reference_stripped(s, norm, lower, stems, out);
    }

    /// The general path after HTML stripping: normalization, lowercase, then words or
    /// characters.
    fn reference_stripped<'a>(
        &self,
        s: &'a str,
        norm: &'a mut String,
        lower: &'a mut String,
        stems: &mut Stems,
        out: &mut Canonical,
    ) {
        out.text.clear();
        out.tokens.clear();
        let mut s = self.cfg.normalization.apply(s, norm);
        if self.cfg.lowercase {
            lower.clear();
            push_lowercase(s, lower);
            s = lower;
        }
        match self.cfg.unit {
            Unit::Word => self.words(s, stems, out),
            Unit::Char => chars(s, out),
        }
    }

    /// The words of `s` (normalized and lowercased already if asked) through the general
    /// path of the tokenizer.
    fn words(&self, s: &str, stems: &mut Stems, out: &mut Canonical) {
        let mut tmp = String::new();
        self.cfg.tokenizer.words(s, |w| {
            if let Some(sw) = &self.stop {
                let stop = if self.cfg.lowercase && !w.contains('\u{2019}') {
                    sw.contains(w)
                } else {
                    tmp.clear();
                    tmp.push_str(&normalize_word(w));
                    sw.contains(&tmp)
                };
                if stop {
                    return true;
                }
            }
            match &self.stemmer {
                Some(st) => push_token(out, stems.stem(st, w), true),
                None => push_token(out, w, true),
            }
        });
    }
}

/// The words of ASCII text `s` under a tokenizer other than [`Tokenizer::Unicode`].
#[inline(never)]
fn other_ascii_words(t: Tokenizer, s: &str, f: &mut dyn FnMut(&str) -> bool) {
    match t {
        Tokenizer::Alnum => alnum_ascii(s, f),
        Tokenizer::Whitespace => whitespace_ascii(s, f),
        Tokenizer::Unicode => ascii_words(s, f),
    }
}

/// Counts `tok` (and the space before it) into `text_len`, the length of the canonical text
/// so far; false, counting nothing, when the text would pass `u32::MAX` bytes.
#[inline]
fn within_text_limit(text_len: &mut usize, tok: &str) -> bool {
    let sep = usize::from(*text_len != 0);
    if *text_len + sep + tok.len() > u32::MAX as usize {
        return false;
    }
    *text_len += sep + tok.len();
    true
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

/// The characters of `s` as tokens, whitespace runs collapsed to one space (char mode).
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
