//! The ASCII fast path of the canonicalizer (`Canonicalizer::for_each_token`,
//! `canonicalize_into`) gives exactly the tokens of the general path
//! (`canonicalize_reference_into`: UAX #29 `unicode_words`, or the other tokenizers), on
//! hand-picked word-break cases and on arbitrary ASCII-heavy, Unicode and HTML input, under
//! every text option and tokenizer; and the
//! one-shot canonical fingerprint equals the streaming one.

use fimdup::text::{
    fingerprint_canonical, fingerprint_canonical_encoded, fingerprint_canonical_streaming,
    push_fingerprint_token, Canonical, Canonicalizer, Normalization, Scratch, StopWords,
    TextConfig, Tokenizer, Unit,
};
use proptest::prelude::*;

fn configs() -> Vec<TextConfig> {
    let mut v = Vec::new();
    for html in [false, true] {
        for lowercase in [true, false] {
            for stop in [false, true] {
                for stem in [false, true] {
                    for tokenizer in Tokenizer::ALL {
                        v.push(TextConfig {
                            html,
                            lowercase,
                            unit: Unit::Word,
                            tokenizer,
                            stopwords: stop.then(StopWords::english),
                            stem,
                            ..TextConfig::default()
                        });
                    }
                }
            }
        }
        for normalization in [Normalization::Nfc, Normalization::Nfkc] {
            v.push(TextConfig {
                html,
                normalization,
                stopwords: Some(StopWords::english()),
                ..TextConfig::default()
            });
        }
        v.push(TextConfig {
            html,
            unit: Unit::Char,
            ..TextConfig::default()
        });
    }
    v
}

fn reference(c: &Canonicalizer, s: &str) -> Canonical {
    let mut out = Canonical::default();
    c.canonicalize_reference_into(s, &mut Scratch::default(), &mut out);
    out
}

/// Checks every fast form against the reference for one input under one canonicalizer.
fn check(c: &Canonicalizer, s: &str, scratch: &mut Scratch) {
    let want = reference(c, s);
    let want_tokens: Vec<&str> = want.iter().collect();
    let mut got = Vec::new();
    c.for_each_token(s, scratch, |t| got.push(t.to_string()));
    assert_eq!(got, want_tokens, "for_each_token {:?} on {s:?}", c.config());
    let mut into = Canonical::default();
    c.canonicalize_into(s, scratch, &mut into);
    assert_eq!(into, want, "canonicalize_into {:?} on {s:?}", c.config());
    let mut enc = Vec::new();
    for t in want.iter() {
        push_fingerprint_token(&mut enc, t);
    }
    let streaming = fingerprint_canonical_streaming(&want);
    assert_eq!(fingerprint_canonical_encoded(&enc), streaming);
    assert_eq!(fingerprint_canonical(&want), streaming);
}

#[test]
fn word_break_cases_match_unicode_words() {
    let cases = [
        "can't won't o'clock 'quoted' it's'",
        "3.14 1,000,000 1;2 1:2 a:b a.b a,b a;b a'b 1'2",
        "a.b.c. 1.2.3 a..b 1..2 .a a. _a a_ _ __ a_b 1_2 _1_ a_.b a._b",
        "a1.b 1a.b a1.2 1.a a.1 x:y:z e.g. U.S.A. 3:30pm",
        "The Quick, BROWN fox; jumps\tover\r\nthe\x0bLAZY\x0cdog...",
        "HELLO World Foo_Bar foo-bar foo/bar (x) [y] {z} \"q\" #h @a $5 %6 ^7 &8 *9",
        "<p>Fish &amp; Chips</p><br>caf&eacute; <script>var x=1;</script> tail",
        "naïve café Straße ÀB ΣΑΣ can’t don’t",
        "",
        "   ",
        "a",
        "_",
        "...",
    ];
    for cfg in configs() {
        let c = Canonicalizer::new(cfg).unwrap();
        let mut scratch = Scratch::default();
        for s in cases {
            check(&c, s, &mut scratch);
        }
    }
}

/// ASCII-heavy text: letters, digits and every ASCII character with a word-break role,
/// whitespace and controls, now and then an HTML fragment or a non-ASCII character.
fn text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        8 => "[a-zA-Z]{1,6}",
        3 => "[0-9]{1,3}",
        6 => prop::sample::select(vec![
            ".", "'", ":", ",", ";", "_", " ", " ", "  ", "\t", "\n", "\r\n", "\x0b", "\x0c",
            "-", "\"", "!", "?", "/", "(", ")", "&", "#", "@", "\x00", "\x7f",
        ])
        .prop_map(str::to_string),
        1 => prop::sample::select(vec![
            "<p>", "</div>", "<b>", "<br/>", "<!-- c -->", "&amp;", "&eacute;", "&#39;", "&#8217;",
            "<img alt=\"Alt Text\">", "<script>x.y=1</script>", "a < b",
        ])
        .prop_map(str::to_string),
        1 => prop::sample::select(vec![
            "é", "É", "’", "ß", "İ", "ﬁ", "\u{200d}", "\u{301}", "日本", "\u{a0}", "٣", "Σ",
            "\u{2028}", "\u{ad}",
        ])
        .prop_map(str::to_string),
        1 => any::<String>(),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn fast_path_equals_reference(s in text()) {
        for cfg in configs() {
            let c = Canonicalizer::new(cfg).unwrap();
            check(&c, &s, &mut Scratch::default());
        }
    }

    #[test]
    fn fast_path_equals_reference_ascii_words(s in "[a-zA-Z0-9.,;:'_ ]{0,60}") {
        let c = Canonicalizer::new(TextConfig::default()).unwrap();
        check(&c, &s, &mut Scratch::default());
    }

    /// Texts of a few hundred bytes, long runs of words, joining punctuation and newlines.
    #[test]
    fn fast_path_equals_reference_long_ascii(s in "[a-zA-Z0-9.,;:'_ \n-]{0,400}") {
        let c = Canonicalizer::new(TextConfig::default()).unwrap();
        check(&c, &s, &mut Scratch::default());
    }
}
