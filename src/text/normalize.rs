//! [`Normalization`]: the Unicode normalization form applied to the text before case folding
//! and word splitting (the unicode-normalization crate).
//!
//! NFKC makes compatibility forms equal to their plain counterparts (full-width `Ｈｅｌｌｏ`
//! becomes `Hello`, `ﬁ` becomes `fi`, `²` becomes `2`) and composes (`e` + U+0301 becomes
//! `é`); NFC only composes. ASCII text is its own normal form in both, so it is never copied.
//!
//! Invariant: [`Normalization::apply`] leaves text unchanged for [`Normalization::None`] and
//! for text already in the asked form.

use unicode_normalization::{is_nfc_quick, is_nfkc_quick, IsNormalized, UnicodeNormalization};

use crate::{Error, Result};

/// The Unicode normalization form of canonical text.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Normalization {
    /// The text as it is.
    #[default]
    None,
    /// Canonical composition (NFC).
    Nfc,
    /// Compatibility decomposition, then canonical composition (NFKC).
    Nfkc,
}

impl Normalization {
    /// Every form, in the order of their codes.
    pub const ALL: [Normalization; 3] =
        [Normalization::None, Normalization::Nfc, Normalization::Nfkc];

    /// The name (`none`, `nfc`, `nfkc`), as accepted by [`std::str::FromStr`].
    pub fn name(self) -> &'static str {
        match self {
            Normalization::None => "none",
            Normalization::Nfc => "nfc",
            Normalization::Nfkc => "nfkc",
        }
    }

    /// The code stored in images files.
    pub fn code(self) -> u8 {
        match self {
            Normalization::None => 0,
            Normalization::Nfc => 1,
            Normalization::Nfkc => 2,
        }
    }

    /// The form of a code.
    pub fn from_code(c: u8) -> Option<Normalization> {
        Normalization::ALL.into_iter().find(|n| n.code() == c)
    }

    /// True when `s` is in this form already (a quick check, then a full one if unsure).
    pub fn is_normalized(self, s: &str) -> bool {
        if s.is_ascii() {
            return true;
        }
        match self {
            Normalization::None => true,
            Normalization::Nfc => match is_nfc_quick(s.chars()) {
                IsNormalized::Yes => true,
                IsNormalized::No => false,
                IsNormalized::Maybe => s.chars().eq(s.nfc()),
            },
            Normalization::Nfkc => match is_nfkc_quick(s.chars()) {
                IsNormalized::Yes => true,
                IsNormalized::No => false,
                IsNormalized::Maybe => s.chars().eq(s.nfkc()),
            },
        }
    }

    /// `s` in this form: `s` itself when it is already, else the normalized text written into
    /// `buf` (cleared first).
    pub fn apply<'a>(self, s: &'a str, buf: &'a mut String) -> &'a str {
        if self.is_normalized(s) {
            return s;
        }
        buf.clear();
        match self {
            Normalization::None => return s,
            Normalization::Nfc => buf.extend(s.nfc()),
            Normalization::Nfkc => buf.extend(s.nfkc()),
        }
        buf
    }
}

impl std::fmt::Display for Normalization {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Normalization {
    type Err = Error;

    /// `none`, `nfc` or `nfkc` (case-insensitive).
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "none" => Ok(Normalization::None),
            "nfc" => Ok(Normalization::Nfc),
            "nfkc" => Ok(Normalization::Nfkc),
            _ => Err(Error::config(format!(
                "unknown normalization {s:?}; expected none, nfc or nfkc"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_by_hand() {
        let mut buf = String::new();
        // Full-width Latin, a ligature and a superscript fold under NFKC only.
        let s = "\u{FF28}\u{FF45}\u{FF4C}\u{FF4C}\u{FF4F} \u{FB01}ne x\u{B2}";
        assert_eq!(Normalization::Nfkc.apply(s, &mut buf), "Hello fine x2");
        assert_eq!(Normalization::Nfc.apply(s, &mut buf), s);
        assert_eq!(Normalization::None.apply(s, &mut buf), s);
        // A decomposed é composes under both.
        let d = "caf\u{65}\u{301}";
        assert_eq!(Normalization::Nfc.apply(d, &mut buf), "caf\u{e9}");
        assert_eq!(Normalization::Nfkc.apply(d, &mut buf), "caf\u{e9}");
        assert!(Normalization::Nfc.is_normalized("caf\u{e9}"));
        assert!(!Normalization::Nfkc.is_normalized(s));
    }

    #[test]
    fn names_and_codes_round_trip() {
        for n in Normalization::ALL {
            assert_eq!(n.name().parse::<Normalization>().unwrap(), n);
            assert_eq!(Normalization::from_code(n.code()), Some(n));
        }
        assert!("nfd".parse::<Normalization>().is_err());
    }
}
