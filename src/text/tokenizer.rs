//! [`Tokenizer`]: which runs of canonical text are words (word mode).
//!
//! - [`Tokenizer::Unicode`] (the default): the words of UAX #29 word segmentation
//!   (`unicode_words` of the unicode-segmentation crate): segments holding a letter, digit or
//!   ideograph; `_` joins (`alloc_zeroed`), `.` and `'` join two letters or two digits
//!   (`std.io`, `e.g`, `can't`, `3.14`), `,` and `;` join two digits (`1,000`), `:` joins two
//!   letters; scripts written without spaces give one word per ideograph or kana.
//! - [`Tokenizer::Alnum`]: maximal runs of Unicode letters and digits (`char::is_alphanumeric`,
//!   the Alphabetic and Numeric properties) and combining marks (General_Category M, so that
//!   a decomposed `é` stays in its word); everything else separates, `_` and `.` included
//!   (`alloc`, `zeroed`). The word definition of `[^\W_]+`-style dedup scripts.
//! - [`Tokenizer::Whitespace`]: maximal runs of non-whitespace (`char::is_whitespace`, the
//!   White_Space property); punctuation stays in the words.
//!
//! Invariant: the ASCII splitters ([`alnum_ascii`], [`whitespace_ascii`]) give exactly the
//! words of the general ones on ASCII text (tested), which is what lets the canonicalizer's
//! ASCII fast path take them.

use unicode_normalization::char::is_combining_mark;
use unicode_segmentation::UnicodeSegmentation;

use super::scanner::ascii_words;

use crate::{Error, Result};

/// Which runs of canonical text are words (see the module docs).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Tokenizer {
    /// UAX #29 words.
    #[default]
    Unicode,
    /// Runs of letters, digits and combining marks.
    Alnum,
    /// Runs of non-whitespace.
    Whitespace,
}

impl Tokenizer {
    /// Every tokenizer, in the order of their codes.
    pub const ALL: [Tokenizer; 3] = [Tokenizer::Unicode, Tokenizer::Alnum, Tokenizer::Whitespace];

    /// The name (`unicode`, `alnum`, `whitespace`), as accepted by [`std::str::FromStr`].
    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::Unicode => "unicode",
            Tokenizer::Alnum => "alnum",
            Tokenizer::Whitespace => "whitespace",
        }
    }

    /// The code stored in images files.
    pub fn code(self) -> u8 {
        match self {
            Tokenizer::Unicode => 0,
            Tokenizer::Alnum => 1,
            Tokenizer::Whitespace => 2,
        }
    }

    /// The tokenizer of a code.
    pub fn from_code(c: u8) -> Option<Tokenizer> {
        Tokenizer::ALL.into_iter().find(|t| t.code() == c)
    }

    /// Calls `f` on the words of `s` in order (any text); stops when `f` returns false.
    pub fn words<'a>(self, s: &'a str, f: impl FnMut(&'a str) -> bool) {
        match self {
            Tokenizer::Unicode => uax29_words(s, f),
            Tokenizer::Alnum => runs(s, is_alnum_char, f),
            Tokenizer::Whitespace => runs(s, |c| !c.is_whitespace(), f),
        }
    }
}

impl std::fmt::Display for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Tokenizer {
    type Err = Error;

    /// `unicode` (also `uax29`), `alnum` or `whitespace` (case-insensitive).
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "unicode" | "uax29" => Ok(Tokenizer::Unicode),
            "alnum" => Ok(Tokenizer::Alnum),
            "whitespace" => Ok(Tokenizer::Whitespace),
            _ => Err(Error::config(format!(
                "unknown tokenizer {s:?}; expected unicode, alnum or whitespace"
            ))),
        }
    }
}

/// `unicode_words` of `s`, with its ASCII stretches through the ASCII scanner
/// ([`ascii_words`], equal to `unicode_words` on ASCII text): the text is cut at the start
/// of ASCII space runs, and only the pieces holding a non-ASCII character go through
/// `unicode_words`. A cut there changes no word: UAX #29 breaks before a space whatever
/// precedes it (no rule joins a character to a following space but WB3d, between two
/// spaces, which make no word), and a piece starting with the space run holds no word in
/// it (spaces join nothing but spaces, and WB4's extending characters after a space stay
/// with it). Stops when `f` returns false.
fn uax29_words<'a>(s: &'a str, mut f: impl FnMut(&'a str) -> bool) {
    let b = s.as_bytes();
    let n = b.len();
    let mut pos = 0;
    while pos < n {
        let Some(q) = b[pos..].iter().position(|&c| c >= 0x80).map(|q| pos + q) else {
            ascii_piece(&s[pos..], &mut f);
            return;
        };
        // The piece with the non-ASCII byte at `q` starts at the space run before it (or
        // at `pos`) and ends where the next space after it starts (or at the end).
        let mut start = memchr::memrchr(b' ', &b[pos..q]).map_or(pos, |i| pos + i);
        while start > pos && b[start - 1] == b' ' {
            start -= 1;
        }
        let end = memchr::memchr(b' ', &b[q..]).map_or(n, |i| q + i);
        if start > pos && !ascii_piece(&s[pos..start], &mut f) {
            return;
        }
        // The bytes at `start` and `end` are ASCII (or the ends): char boundaries.
        for w in s[start..end].unicode_words() {
            if !f(w) {
                return;
            }
        }
        pos = end;
    }
}

/// The words of the ASCII text `piece` ([`ascii_words`]); false when `f` asked to stop.
fn ascii_piece<'a>(piece: &'a str, f: &mut impl FnMut(&'a str) -> bool) -> bool {
    let mut go = true;
    ascii_words(piece, |w| {
        go = f(w);
        go
    });
    go
}

/// True for the characters of [`Tokenizer::Alnum`] words.
#[inline]
pub fn is_alnum_char(c: char) -> bool {
    c.is_alphanumeric() || (!c.is_ascii() && is_combining_mark(c))
}

/// Calls `f` on the maximal runs of characters satisfying `inside`.
#[inline]
fn runs<'a>(s: &'a str, inside: impl Fn(char) -> bool, mut f: impl FnMut(&'a str) -> bool) {
    let mut start = None;
    for (i, c) in s.char_indices() {
        match (inside(c), start) {
            (true, None) => start = Some(i),
            (false, Some(b)) => {
                start = None;
                if !f(&s[b..i]) {
                    return;
                }
            }
            _ => {}
        }
    }
    if let Some(b) = start {
        f(&s[b..]);
    }
}

/// [`Tokenizer::Alnum`] on ASCII text: runs of `[A-Za-z0-9]`.
#[inline]
pub(super) fn alnum_ascii<'a>(s: &'a str, f: impl FnMut(&'a str) -> bool) {
    byte_runs(s, |b| b.is_ascii_alphanumeric(), f)
}

/// [`Tokenizer::Whitespace`] on ASCII text: runs of bytes other than tab, line feed,
/// vertical tab, form feed, carriage return and space (the ASCII White_Space characters).
#[inline]
pub(super) fn whitespace_ascii<'a>(s: &'a str, f: impl FnMut(&'a str) -> bool) {
    byte_runs(s, |b| !matches!(b, b'\t'..=b'\r' | b' '), f)
}

/// Calls `f` on the maximal runs of bytes satisfying `inside` (ASCII text).
#[inline]
fn byte_runs<'a>(s: &'a str, inside: impl Fn(u8) -> bool, mut f: impl FnMut(&'a str) -> bool) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && !inside(b[i]) {
            i += 1;
        }
        let start = i;
        while i < b.len() && inside(b[i]) {
            i += 1;
        }
        if start < i && !f(&s[start..i]) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Characters around which UAX #29 has rules: ASCII letters, digits, joiners and
    /// spaces; accented letters, combining marks (WB4), ideographs and kana, non-ASCII
    /// spaces (WB3d), a zero-width joiner and a pictograph (WB3c), regional indicators
    /// (WB15/16), line breaks (WB3a/b), Hebrew letters and quotes (WB7a-c).
    const PIECES: &[&str] = &[
        "a",
        "Z",
        "7",
        "_",
        ".",
        "'",
        ":",
        ",",
        ";",
        " ",
        "  ",
        "-",
        "\n",
        "\r\n",
        "\t",
        "é",
        "e\u{301}",
        "\u{301}",
        "日本",
        "カタカナ",
        "\u{3000}",
        "\u{a0}",
        "\u{2003}",
        "\u{200d}",
        "\u{1f600}",
        "\u{1f1eb}",
        "\u{1f1f7}",
        "\u{5d0}",
        "\"",
        "\u{2019}",
        "3.14",
        "can't",
        "ß",
        "İ",
        "\u{ad}",
        "\u{200b}",
        "\u{feff}",
    ];

    proptest! {
        /// The Unicode tokenizer's words are `unicode_words`' on any mix of those.
        #[test]
        fn unicode_words_with_ascii_stretches_equal_unicode_words(
            parts in prop::collection::vec(0..PIECES.len(), 0..40)
        ) {
            let s: String = parts.iter().map(|&i| PIECES[i]).collect();
            let want: Vec<&str> = s.unicode_words().collect();
            prop_assert_eq!(words(Tokenizer::Unicode, &s), want, "{:?}", s);
        }
    }

    /// Stopping after a word stops the tokenizer there, in an ASCII piece and in a
    /// non-ASCII one.
    #[test]
    fn the_unicode_tokenizer_stops_when_asked() {
        for s in [
            "one two café three",
            "café one two three",
            "one café two three",
        ] {
            for stop in 1..4 {
                let mut got = Vec::new();
                Tokenizer::Unicode.words(s, |w| {
                    got.push(w);
                    got.len() < stop
                });
                let want: Vec<&str> = s.unicode_words().take(stop).collect();
                assert_eq!(got, want, "{s}");
            }
        }
    }

    fn words(t: Tokenizer, s: &str) -> Vec<&str> {
        let mut v = Vec::new();
        t.words(s, |w| {
            v.push(w);
            true
        });
        v
    }

    #[test]
    fn ascii_splitters_equal_the_general_ones_on_every_ascii_byte() {
        let mut s = String::new();
        for b in 0u8..128 {
            s.push(b as char);
            s.push('a');
            s.push(b as char);
            s.push(b as char);
            s.push('7');
        }
        let collect = |t: Tokenizer| -> Vec<String> {
            let mut got = Vec::new();
            let f = |w: &str| {
                got.push(w.to_string());
                true
            };
            match t {
                Tokenizer::Alnum => alnum_ascii(&s, f),
                _ => whitespace_ascii(&s, f),
            }
            got
        };
        for t in [Tokenizer::Alnum, Tokenizer::Whitespace] {
            let want: Vec<String> = words(t, &s).into_iter().map(String::from).collect();
            assert_eq!(collect(t), want, "{t}");
        }
    }

    #[test]
    fn names_and_codes_round_trip() {
        for t in Tokenizer::ALL {
            assert_eq!(t.name().parse::<Tokenizer>().unwrap(), t);
            assert_eq!(Tokenizer::from_code(t.code()), Some(t));
        }
        let e = "words".parse::<Tokenizer>().unwrap_err().to_string();
        assert!(e.contains("unicode, alnum or whitespace"), "{e}");
    }

    #[test]
    fn stops_when_asked() {
        for t in Tokenizer::ALL {
            let mut n = 0;
            t.words("a b c d", |_| {
                n += 1;
                n < 2
            });
            assert_eq!(n, 2, "{t}");
        }
    }
}
