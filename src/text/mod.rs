//! Canonical text: the token sequence that shingles are cut from.
//!
//! A [`Canonicalizer`] (built from a validated [`TextConfig`]) turns raw document text into a
//! [`Canonical`]:
//!
//! - **word mode** ([`Unit::Word`]): HTML stripped (if `html`, see [`html`]) -> Unicode
//!   normalization (if asked: NFC or NFKC, see [`Normalization`]) -> Unicode lowercase (if
//!   `lowercase`; per `char`, `char::to_lowercase`) -> words as the [`Tokenizer`] cuts them
//!   (default: UAX #29 `unicode_words`, punctuation and whitespace dropped, digits and
//!   in-word apostrophes kept, e.g. `can't`, `3.14`; or runs of letters and digits; or runs
//!   of non-whitespace) -> stop words dropped (compared in lowercase, with `’` read as `'`,
//!   in the same normalization form) -> Snowball stemming in the [`Lang`] if `stem`.
//!   `text` is the tokens joined by single spaces.
//! - **char mode** ([`Unit::Char`]): HTML stripped -> normalization -> lowercase -> every run
//!   of Unicode whitespace collapsed to one ASCII space, leading/trailing whitespace trimmed;
//!   every `char` of the result is one token (so char n-grams are shingles). Stop words,
//!   stemming and the choice of tokenizer are word notions and are rejected by
//!   [`TextConfig::validate`] in char mode.
//!
//! Fingerprints (B97 5.2): [`fingerprint_raw`] identifies identical documents,
//! [`fingerprint_canonical`] lexically-equivalent ones; both are seeded xxh3 with fixed,
//! documented seeds, stable across runs, platforms and versions of this crate.
//!
//! Invariant: a [`Canonical`] holds the canonical text and the byte ranges of its tokens, in
//! order; tokens never overlap and each range lies on UTF-8 boundaries of `text`. Text past
//! `u32::MAX` bytes (4 GiB) is not tokenized.

mod canonical;
mod config;
mod fingerprint;
pub mod html;
mod lang;
mod normalize;
mod scanner;
mod stems;
mod stopwords;
mod tokenizer;

pub use canonical::{push_lowercase, Canonical, Canonicalizer, Scratch};
pub use config::{TextConfig, Unit};
pub use fingerprint::{
    fingerprint_canonical, fingerprint_canonical_encoded, fingerprint_canonical_streaming,
    fingerprint_raw, push_fingerprint_token, FINGERPRINT_SEED_CANONICAL, FINGERPRINT_SEED_RAW,
};
pub use lang::Lang;
pub use normalize::Normalization;
pub use stopwords::StopWords;
pub use tokenizer::{is_alnum_char, Tokenizer};
