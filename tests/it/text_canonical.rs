//! Canonical text: the seed example, HTML stripping, Unicode lowercasing, stop words,
//! stemming, char mode, fingerprints, and no-panic properties.

use fimdup::text::html::strip_html;
use fimdup::text::{
    fingerprint_canonical, fingerprint_raw, Canonical, Canonicalizer, Lang, Scratch, StopWords,
    TextConfig, Unit,
};
use proptest::prelude::*;

fn words(cfg: TextConfig, s: &str) -> Vec<String> {
    Canonicalizer::new(cfg)
        .unwrap()
        .canonicalize(s)
        .iter()
        .map(str::to_string)
        .collect()
}

fn default_words(s: &str) -> Vec<String> {
    words(TextConfig::default(), s)
}

/// Checks the Canonical invariants: ranges in order, non-overlapping, on char boundaries,
/// and (word mode) text = tokens joined by single spaces.
fn check_invariants(c: &Canonical, unit: Unit) {
    let mut prev = 0u32;
    for r in &c.tokens {
        assert!(r.start >= prev && r.start < r.end, "{r:?} after {prev}");
        assert!(c.text.is_char_boundary(r.start as usize));
        assert!(c.text.is_char_boundary(r.end as usize));
        prev = r.end;
    }
    match unit {
        Unit::Word => {
            let joined: Vec<&str> = c.iter().collect();
            assert_eq!(joined.join(" "), c.text);
        }
        Unit::Char => {
            assert_eq!(c.len(), c.text.chars().count());
            assert_eq!(c.text.trim(), c.text);
            assert!(!c.text.contains("  "));
        }
    }
}

#[test]
fn seed_example_tokens() {
    let c = Canonicalizer::new(TextConfig::default())
        .unwrap()
        .canonicalize("a rose is a rose is a rose");
    let t: Vec<&str> = c.iter().collect();
    assert_eq!(t, ["a", "rose", "is", "a", "rose", "is", "a", "rose"]);
    assert_eq!(c.text, "a rose is a rose is a rose");
    assert_eq!(c.tokens[1], 2..6);
    check_invariants(&c, Unit::Word);
}

#[test]
fn punctuation_dropped_digits_kept() {
    assert_eq!(
        default_words("Hello, World!  It's 3.14 -- and 2024... (ok)"),
        ["hello", "world", "it's", "3.14", "and", "2024", "ok"]
    );
    assert!(default_words("  ,;:!  ").is_empty());
    assert!(default_words("").is_empty());
}

#[test]
fn unicode_lowercasing() {
    assert_eq!(
        default_words("ÉCOLE Straße ΟΔΟΣ"),
        ["école", "straße", "οδοσ"]
    );
    // İ (U+0130) lowercases to "i\u{307}": must not panic and must stay a single word.
    let w = default_words("İSTANBUL");
    assert_eq!(w, ["i\u{307}stanbul"]);
    let cfg = TextConfig {
        lowercase: false,
        ..TextConfig::default()
    };
    assert_eq!(words(cfg, "ÉCOLE École"), ["ÉCOLE", "École"]);
}

#[test]
fn stop_words_dropped() {
    let cfg = TextConfig {
        stopwords: Some(StopWords::english()),
        ..TextConfig::default()
    };
    assert_eq!(
        words(cfg.clone(), "The cat sat on the mat, and it wasn't happy"),
        ["cat", "sat", "mat", "happy"]
    );
    // Curly apostrophe is read as a straight one for the lookup.
    assert_eq!(words(cfg, "Don\u{2019}t panic"), ["panic"]);
    // The NLTK English list: 179 words, contractions included.
    let en = StopWords::english();
    assert_eq!(en.len(), 179);
    for w in ["i", "ourselves", "you're", "that'll", "wouldn't", "y"] {
        assert!(en.contains(w), "{w}");
    }
}

#[test]
fn stop_words_from_file_and_spec() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("stop.txt");
    std::fs::write(&p, "# my list\nRose\n\n  is  \n").unwrap();
    let sw = StopWords::from_spec(p.to_str().unwrap(), Lang::ENGLISH).unwrap();
    assert_eq!(sw.sorted(), ["is", "rose"]);
    let cfg = TextConfig {
        stopwords: Some(sw),
        ..TextConfig::default()
    };
    assert_eq!(words(cfg, "a rose is a rose"), ["a", "a"]);
    assert_eq!(
        StopWords::from_spec("english", "de".parse::<Lang>().unwrap()).unwrap(),
        StopWords::english()
    );

    std::fs::write(&p, "one\ntwo words\n").unwrap();
    let e = StopWords::from_file(&p).unwrap_err().to_string();
    assert!(e.contains("stop.txt:2:"), "{e}");
    let e = StopWords::from_file(&dir.path().join("none.txt"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("none.txt"), "{e}");
}

#[test]
fn stemming() {
    let cfg = TextConfig {
        stem: true,
        ..TextConfig::default()
    };
    // Porter 2 reference outputs (Snowball English vocabulary/output lists).
    assert_eq!(
        words(cfg.clone(), "Running runs connected connections generously"),
        ["run", "run", "connect", "connect", "generous"]
    );
    // Stop words are checked before stemming ("was" is a stop word, "wa" is not).
    let cfg2 = TextConfig {
        stopwords: Some(StopWords::english()),
        ..cfg
    };
    assert_eq!(words(cfg2, "it was flowering"), ["flower"]);
}

#[test]
fn char_mode() {
    let cfg = TextConfig {
        unit: Unit::Char,
        ..TextConfig::default()
    };
    let c = Canonicalizer::new(cfg.clone())
        .unwrap()
        .canonicalize("  A  Rose,\n\tIS! ");
    assert_eq!(c.text, "a rose, is!");
    let t: Vec<&str> = c.iter().collect();
    assert_eq!(t, ["a", " ", "r", "o", "s", "e", ",", " ", "i", "s", "!"]);
    check_invariants(&c, Unit::Char);

    let c = Canonicalizer::new(cfg.clone()).unwrap().canonicalize("Été");
    assert_eq!(c.tokens, vec![0..2, 2..3, 3..5]);

    let html = TextConfig {
        html: true,
        ..cfg.clone()
    };
    let c = Canonicalizer::new(html)
        .unwrap()
        .canonicalize("<p>Hi</p><p>there</p>");
    assert_eq!(c.text, "hi there");

    // Word notions are rejected in char mode.
    for bad in [
        TextConfig {
            stem: true,
            ..cfg.clone()
        },
        TextConfig {
            stopwords: Some(StopWords::english()),
            ..cfg
        },
    ] {
        let e = Canonicalizer::new(bad).unwrap_err();
        assert!(matches!(e, fimdup::Error::Config(_)), "{e}");
    }
}

#[test]
fn canonicalize_into_reuses_and_matches() {
    let canon = Canonicalizer::new(TextConfig {
        html: true,
        stem: true,
        stopwords: Some(StopWords::english()),
        ..TextConfig::default()
    })
    .unwrap();
    let mut scratch = Scratch::default();
    let mut out = Canonical::default();
    for s in [
        "<b>The</b> roses were blooming",
        "",
        "Connections &amp; <script>x()</script>relations",
    ] {
        canon.canonicalize_into(s, &mut scratch, &mut out);
        assert_eq!(out, canon.canonicalize(s));
        check_invariants(&out, Unit::Word);
    }
    assert_eq!(out.iter().collect::<Vec<_>>(), ["connect", "relat"]);
}

#[test]
fn html_script_style_comments() {
    assert_eq!(
        strip_html("a<script type=\"x\">var s = '<p>no</p>';</script>b<STYLE>p{}</Style >c"),
        "abc"
    );
    assert_eq!(strip_html("x<!-- hidden <b>c</b> -->y"), "xy");
    assert_eq!(strip_html("<!DOCTYPE html><?xml v?>t"), "t");
    // '</scripts' does not close a script.
    assert_eq!(strip_html("<script>a</scripts>b</script>c"), "c");
}

#[test]
fn html_entities() {
    assert_eq!(
        strip_html("&lt;a&gt; &amp;&quot;&apos; caf&eacute; &#233;&#xE9;&#XE9 &copy;&nbsp;x"),
        "<a> &\"' café ééé ©\u{a0}x"
    );
    // Unknown and malformed references are kept as written.
    assert_eq!(
        strip_html("&bogus; &amp &; &# &#x;"),
        "&bogus; &amp &; &# &#x;"
    );
    // Invalid code points become U+FFFD; C1 range maps as Windows-1252.
    assert_eq!(
        strip_html("&#0;&#xD800;&#99999999;&#150;"),
        "\u{FFFD}\u{FFFD}\u{FFFD}\u{2013}"
    );
}

#[test]
fn html_alt_and_blocks() {
    assert_eq!(
        strip_html("see<img src=a.png alt=\"a red &amp; rose\">here"),
        "see a red & rose here"
    );
    assert_eq!(strip_html("x<IMG ALT='q' src=x>y"), "x q y");
    assert_eq!(strip_html("x<img src=\"a>b\">y"), "xy");
    assert_eq!(strip_html("<div>one</div><div>two</div>"), " one  two ");
    // Inline tags join the text around them, block tags separate it.
    assert_eq!(strip_html("on<br/>two<span>three</span>"), "on twothree");
    assert_eq!(strip_html("x<a href='/p?a=1&b=2'>link</a>"), "xlink");
}

#[test]
fn html_broken() {
    assert_eq!(strip_html("text <unterminated tag"), "text ");
    assert_eq!(strip_html("text <!-- never closed"), "text ");
    assert_eq!(strip_html("x<script>never closed"), "x");
    assert_eq!(strip_html("<a href=\"unterminated>y"), "");
    assert_eq!(strip_html("1 < 2 and 3 <= 4 <"), "1 < 2 and 3 <= 4 <");
    assert_eq!(strip_html("<>x</>"), "<>x</>");
    assert_eq!(strip_html("&"), "&");
    assert_eq!(strip_html("<"), "<");
    assert_eq!(strip_html("<img alt="), "");
}

#[test]
fn html_word_pipeline() {
    let cfg = TextConfig {
        html: true,
        ..TextConfig::default()
    };
    assert_eq!(
        words(cfg, "<html><head><title>A Rose</title><style>b{}</style></head><body><p>is&nbsp;a<br>ROSE</p></body>"),
        ["a", "rose", "is", "a", "rose"]
    );
}

#[test]
fn fingerprints() {
    let canon = Canonicalizer::new(TextConfig {
        html: true,
        ..TextConfig::default()
    })
    .unwrap();
    let a = "<p>A rose is a rose</p>";
    let b = "a ROSE, is... a <b>rose</b>!";
    assert_ne!(fingerprint_raw(a.as_bytes()), fingerprint_raw(b.as_bytes()));
    assert_eq!(
        fingerprint_raw(a.as_bytes()),
        fingerprint_raw(a.to_string().as_bytes())
    );
    let (ca, cb) = (canon.canonicalize(a), canon.canonicalize(b));
    assert_eq!(fingerprint_canonical(&ca), fingerprint_canonical(&cb));
    assert_ne!(
        fingerprint_canonical(&ca),
        fingerprint_canonical(&canon.canonicalize("a rose is a flower"))
    );
    // Token boundaries count.
    let ab = Canonical {
        text: "ab".into(),
        tokens: std::iter::once(0..2).collect(),
    };
    let a_b = Canonical {
        text: "ab".into(),
        tokens: vec![0..1, 1..2],
    };
    assert_ne!(fingerprint_canonical(&ab), fingerprint_canonical(&a_b));
    // Stable: the documented definition, recomputed independently.
    assert_eq!(
        fingerprint_raw(b"abc"),
        xxhash_rust::xxh3::xxh3_64_with_seed(b"abc", fimdup::text::FINGERPRINT_SEED_RAW)
    );
    let mut bytes = Vec::new();
    for t in ["a", "rose"] {
        bytes.extend_from_slice(&(t.len() as u32).to_le_bytes());
        bytes.extend_from_slice(t.as_bytes());
    }
    assert_eq!(
        fingerprint_canonical(
            &Canonicalizer::new(TextConfig::default())
                .unwrap()
                .canonicalize("A rose")
        ),
        xxhash_rust::xxh3::xxh3_64_with_seed(&bytes, fimdup::text::FINGERPRINT_SEED_CANONICAL)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn html_stripper_never_panics(s in "(<|>|&|#|x|;|!|-|/|'|\"|=|a|l|t|i|m|g|s|c|r|p| |é|\\PC){0,200}") {
        let out = strip_html(&s);
        // Stripping never grows text except by block/alt spaces and entity expansion,
        // which is bounded by 4 bytes per input byte.
        prop_assert!(out.len() <= 4 * s.len() + 2);
    }

    #[test]
    fn html_stripper_random_strings(s in "\\PC{0,300}") {
        let _ = strip_html(&s);
    }

    #[test]
    fn canonical_invariants_hold(s in "(<[a-z/!]{0,3}|>|&[a-z#x0-9]{0,5};?|[ \\t\\n]|[A-Za-zÉİß0-9.,']{1,6}|\\PC){0,60}",
                                 html in any::<bool>(), stem in any::<bool>(), char_mode in any::<bool>()) {
        let unit = if char_mode { Unit::Char } else { Unit::Word };
        let cfg = TextConfig { html, stem: stem && !char_mode, unit, ..TextConfig::default() };
        let c = Canonicalizer::new(cfg).unwrap().canonicalize(&s);
        check_invariants(&c, unit);
    }
}

#[test]
fn canonicalizer_and_reader_can_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<Canonicalizer>();
    send_sync::<TextConfig>();
    send::<fimdup::corpus::CorpusReader>();
}

#[test]
fn unit_names() {
    for u in [Unit::Word, Unit::Char] {
        assert_eq!(u.to_string().parse::<Unit>().unwrap(), u);
    }
    assert_eq!("CHAR".parse::<Unit>().unwrap(), Unit::Char);
    assert!(matches!(
        "line".parse::<Unit>(),
        Err(fimdup::Error::Config(_))
    ));
}
