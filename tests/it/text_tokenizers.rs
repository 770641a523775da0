//! The three tokenizers (`--tokenizer unicode|alnum|whitespace`) on a table of strings where
//! word definitions part: snake_case, dotted paths, numbers with separators, apostrophes,
//! hyphens, abbreviations, emoji, CJK, Arabic, combining marks. The expected words are
//! written from each definition (UAX #29 for `unicode`), not produced by the library; every
//! row is checked through the general path and through the ASCII fast path
//! (`canonicalize_into`), and `--normalize`, `--lang` and the stop-word lists on
//! non-English text.

use fimdup::text::{Canonicalizer, Lang, Normalization, StopWords, TextConfig, Tokenizer};

fn tokens(cfg: &TextConfig, s: &str) -> Vec<String> {
    let c = Canonicalizer::new(cfg.clone()).unwrap();
    let general: Vec<String> = c.canonicalize(s).iter().map(str::to_string).collect();
    let mut fast = fimdup::text::Canonical::default();
    c.canonicalize_into(s, &mut fimdup::text::Scratch::default(), &mut fast);
    let fast: Vec<String> = fast.iter().map(str::to_string).collect();
    assert_eq!(general, fast, "{cfg:?} on {s:?}");
    general
}

fn with(tokenizer: Tokenizer) -> TextConfig {
    TextConfig {
        tokenizer,
        ..TextConfig::default()
    }
}

/// (input, unicode words, alnum words, whitespace words), all lowercased.
type Row = (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
);

const TABLE: &[Row] = &[
    (
        "alloc_zeroed(ptr) __init__",
        &["alloc_zeroed", "ptr", "__init__"],
        &["alloc", "zeroed", "ptr", "init"],
        &["alloc_zeroed(ptr)", "__init__"],
    ),
    (
        "std.io::Read fn.realloc",
        &["std.io", "read", "fn.realloc"],
        &["std", "io", "read", "fn", "realloc"],
        &["std.io::read", "fn.realloc"],
    ),
    (
        "1,000.50 and 3.14 or 10:30",
        &["1,000.50", "and", "3.14", "or", "10", "30"],
        &["1", "000", "50", "and", "3", "14", "or", "10", "30"],
        &["1,000.50", "and", "3.14", "or", "10:30"],
    ),
    (
        "Can't won\u{2019}t 'quoted'",
        &["can't", "won\u{2019}t", "quoted"],
        &["can", "t", "won", "t", "quoted"],
        &["can't", "won\u{2019}t", "'quoted'"],
    ),
    (
        "e-mail state-of-the-art",
        &["e", "mail", "state", "of", "the", "art"],
        &["e", "mail", "state", "of", "the", "art"],
        &["e-mail", "state-of-the-art"],
    ),
    (
        "e.g. U.S.A. done",
        &["e.g", "u.s.a", "done"],
        &["e", "g", "u", "s", "a", "done"],
        &["e.g.", "u.s.a.", "done"],
    ),
    (
        "ok \u{1F44D}\u{1F3FD} done!",
        &["ok", "done"],
        &["ok", "done"],
        &["ok", "\u{1F44D}\u{1F3FD}", "done!"],
    ),
    // Ideographs and hiragana are a word each under UAX #29, a katakana run is one word;
    // runs of letters know no word boundary inside a script written without spaces.
    (
        "日本語のテキスト",
        &["日", "本", "語", "の", "テキスト"],
        &["日本語のテキスト"],
        &["日本語のテキスト"],
    ),
    (
        "السلام عليكم، مَرْحَبًا",
        &["السلام", "عليكم", "مَرْحَبًا"],
        &["السلام", "عليكم", "مَرْحَبًا"],
        &["السلام", "عليكم،", "مَرْحَبًا"],
    ),
    // Decomposed diaeresis and acute: the marks stay in their words.
    (
        "Nai\u{308}ve CAFE\u{301}",
        &["nai\u{308}ve", "cafe\u{301}"],
        &["nai\u{308}ve", "cafe\u{301}"],
        &["nai\u{308}ve", "cafe\u{301}"],
    ),
    (
        "tab\tvt\u{b}ff\u{c}nbsp\u{a0}end",
        &["tab", "vt", "ff", "nbsp", "end"],
        &["tab", "vt", "ff", "nbsp", "end"],
        &["tab", "vt", "ff", "nbsp", "end"],
    ),
];

#[test]
fn every_tokenizer_on_the_table() {
    for (s, uni, aln, ws) in TABLE {
        for (t, want) in [
            (Tokenizer::Unicode, uni),
            (Tokenizer::Alnum, aln),
            (Tokenizer::Whitespace, ws),
        ] {
            assert_eq!(tokens(&with(t), s), *want, "{t} on {s:?}");
        }
    }
}

/// `alnum` is the definition of `[[:alnum:]]+` over Unicode: maximal runs of characters with
/// the Alphabetic or Numeric property (plus combining marks), here checked character by
/// character against `char::is_alphanumeric` on every character of a mixed string.
#[test]
fn alnum_words_are_the_maximal_alphanumeric_runs() {
    let s = "Größe_3½ x²·y ΑΒΓ-δ Ⅻ ٣٤ नमस्ते 한국어 a\u{200d}b";
    let mut want = Vec::new();
    let mut cur = String::new();
    for c in s.chars() {
        if c.is_alphanumeric() || fimdup::text::is_alnum_char(c) {
            cur.extend(c.to_lowercase());
        } else if !cur.is_empty() {
            want.push(std::mem::take(&mut cur));
        }
    }
    want.push(cur);
    assert_eq!(tokens(&with(Tokenizer::Alnum), s), want);
    // Devanagari vowel signs and the virama are marks: नमस्ते stays one word.
    assert!(want.contains(&"नमस्ते".to_string()), "{want:?}");
}

#[test]
fn nfkc_folds_full_width_latin_and_compatibility_forms() {
    let nfkc = TextConfig {
        normalization: Normalization::Nfkc,
        ..TextConfig::default()
    };
    // Full-width letters, digits and ideographic space; a ligature; a superscript.
    let s = "ＨＥＬＬＯ\u{3000}Ｗｏｒｌｄ １２３ ﬁne x²";
    assert_eq!(tokens(&nfkc, s), ["hello", "world", "123", "fine", "x2"]);
    // Without normalization the full-width word stays full-width (lowercased).
    assert_eq!(
        tokens(&TextConfig::default(), s)[..2],
        ["ｈｅｌｌｏ", "ｗｏｒｌｄ"]
    );
    // NFC composes, so decomposed and composed accents give one token.
    let nfc = TextConfig {
        normalization: Normalization::Nfc,
        ..TextConfig::default()
    };
    assert_eq!(tokens(&nfc, "cafe\u{301}"), tokens(&nfc, "caf\u{e9}"));
    assert_eq!(tokens(&nfc, "cafe\u{301}"), ["caf\u{e9}"]);
    assert_ne!(
        tokens(&TextConfig::default(), "cafe\u{301}"),
        tokens(&TextConfig::default(), "caf\u{e9}")
    );
}

fn lang_cfg(code: &str, stem: bool) -> TextConfig {
    let lang: Lang = code.parse().unwrap();
    TextConfig {
        lang,
        stem,
        stopwords: Some(StopWords::from_spec("lang", lang).unwrap()),
        ..TextConfig::default()
    }
}

/// Stems from the Snowball project's own Python implementation (`snowballstemmer` 3.0 on
/// PyPI, `stemmer('german').stemWord(w)`), and stop words from the NLTK German list.
#[test]
fn german_stop_words_and_stems() {
    let cfg = lang_cfg("de", true);
    assert_eq!(
        tokens(
            &cfg,
            "Die Häuser und das Haus des Hauses, die Kinder mit den Kindern"
        ),
        ["haus", "haus", "haus", "kind", "kind"]
    );
    assert_eq!(
        tokens(&cfg, "Wir fahren, er fährt; sie laufen, er läuft"),
        ["fahr", "fahrt", "lauf", "lauft"]
    );
    // Two inflected phrases become one canonical text.
    assert_eq!(
        tokens(&cfg, "Die Häuser der Kinder"),
        tokens(&cfg, "das Haus des Kindes")
    );
    assert_eq!(tokens(&cfg, "das Haus des Kindes"), ["haus", "kind"]);
}

/// Stems from `snowballstemmer` 3.0 (`stemmer('russian')`), stop words from the NLTK
/// Russian list.
#[test]
fn russian_stop_words_and_stems() {
    let cfg = lang_cfg("ru", true);
    assert_eq!(
        tokens(&cfg, "Я читал книги, и она читала книгу в доме"),
        ["чита", "книг", "чита", "книг", "дом"]
    );
    // Cyrillic upper case folds before the lookup and the stemmer.
    assert_eq!(tokens(&cfg, "КНИГОЙ ДОМОВ"), ["книг", "дом"]);
}

/// Indonesian has an NLTK stop-word list but no Snowball stemmer in rust-stemmers.
#[test]
fn indonesian_stop_words_and_no_stemmer() {
    let cfg = lang_cfg("id", false);
    assert_eq!(
        tokens(&cfg, "Rumah yang besar dan indah itu ada di desa"),
        ["rumah", "indah", "desa"]
    );
    let e = Canonicalizer::new(lang_cfg("id", true))
        .unwrap_err()
        .to_string();
    assert!(e.contains("no stemmer for indonesian"), "{e}");
    // Only the language's list is used: English stop words stay.
    assert_eq!(tokens(&cfg, "the rumah"), ["the", "rumah"]);
}

#[test]
fn char_mode_rejects_a_word_tokenizer() {
    let cfg = TextConfig {
        unit: fimdup::text::Unit::Char,
        tokenizer: Tokenizer::Alnum,
        ..TextConfig::default()
    };
    let e = Canonicalizer::new(cfg).unwrap_err().to_string();
    assert!(e.contains("alnum tokenizer needs word units"), "{e}");
}
