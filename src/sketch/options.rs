//! [`PipelineOptions`]: how documents become images, described by named options with the
//! command's defaults, as every entry point receives them (the CLI's flags, the Python
//! package's keyword arguments); [`PipelineOptions::config`] makes the validated
//! [`PipelineConfig`].
//!
//! Invariant: the defaults are those of the configurations the options make
//! ([`SketchConfig`], [`ShingleConfig`], [`TextConfig`], [`crate::shingle::default_len`]),
//! stated there once and read by the command's flags and the Python keywords alike
//! (`fimdup sketch --help`): bottom-k images of 128 values (k-mins for the banding methods),
//! word 5-shingles (character 9-shingles), offset 1, seed 0, case folded, UAX #29 words, no
//! normalization, no HTML stripping, stop words or stemming, English as the language of
//! stemming and `--stopwords lang`.

use std::str::FromStr;

use super::pipeline::PipelineConfig;
use super::{Scheme, SketchConfig, Weighting};
use crate::corpus::CorpusConfig;
use crate::shingle::ShingleConfig;
use crate::text::{Lang, Normalization, StopWords, TextConfig, Tokenizer, Unit};
use crate::{Error, Result};

/// Reads a value through its [`FromStr`] and writes it through its `Display` (the names the
/// command takes) in serde.
pub(crate) mod by_name {
    use std::fmt::Display;
    use std::str::FromStr;

    use serde::Deserialize;

    pub fn serialize<S: serde::Serializer, T: Display>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }

    pub fn deserialize<'de, D, T>(d: D) -> Result<T, D::Error>
    where
        D: serde::Deserializer<'de>,
        T: FromStr,
        T::Err: Display,
    {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }

    /// The same for an optional value (`null`: none).
    pub mod option {
        use super::*;

        pub fn serialize<S, T>(v: &Option<T>, s: S) -> Result<S::Ok, S::Error>
        where
            S: serde::Serializer,
            T: Display,
        {
            match v {
                Some(v) => s.collect_str(v),
                None => s.serialize_none(),
            }
        }

        pub fn deserialize<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
        where
            D: serde::Deserializer<'de>,
            T: FromStr,
            T::Err: Display,
        {
            match Option::<String>::deserialize(d)? {
                Some(s) => s.parse().map(Some).map_err(serde::de::Error::custom),
                None => Ok(None),
            }
        }
    }
}

/// Every option from canonical text to images (see the module docs); serialized by the
/// names the command takes ([`crate::defaults`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PipelineOptions {
    /// The image scheme (`None`: the caller's default, [`crate::cluster::Method::default_scheme`]).
    #[serde(with = "by_name::option")]
    pub scheme: Option<Scheme>,
    /// Image size n.
    pub size: usize,
    /// Modulus m of mod-m images.
    pub modulus: u64,
    /// Seed of the shingle hash and the permutations.
    pub seed: u64,
    /// Bag or tf-idf weighting.
    #[serde(with = "by_name::option")]
    pub weighting: Option<Weighting>,
    /// b-bit minwise hashing: keep 1, 2, 4 or 8 bits of each positional value.
    pub b_bit: Option<u8>,
    /// Shingle unit.
    #[serde(with = "by_name")]
    pub unit: Unit,
    /// Shingle length (`None`: 5 words or 9 characters).
    pub shingle_len: Option<usize>,
    /// Distance between the starts of two consecutive shingles.
    pub offset: usize,
    /// Strip HTML.
    pub html: bool,
    /// Keep case (the default folds it).
    pub keep_case: bool,
    /// Which runs of text are words.
    #[serde(with = "by_name")]
    pub tokenizer: Tokenizer,
    /// Unicode normalization form.
    #[serde(with = "by_name")]
    pub normalize: Normalization,
    /// Stop words: `lang` (the language's list), a language, or a file with one word per
    /// line.
    pub stopwords: Option<String>,
    /// Snowball stemming in `lang`.
    pub stem: bool,
    /// The language of stemming and of `stopwords: lang`.
    pub lang: Lang,
}

impl Default for PipelineOptions {
    /// The defaults of the configurations the options make ([`SketchConfig`],
    /// [`ShingleConfig`], [`TextConfig`]), so that each default is stated once.
    fn default() -> Self {
        let sketch = SketchConfig::default();
        let shingle = ShingleConfig::default();
        let text = TextConfig::default();
        PipelineOptions {
            scheme: None,
            size: sketch.size,
            modulus: sketch.modulus,
            seed: sketch.seed,
            weighting: sketch.weighting,
            b_bit: sketch.bits,
            unit: text.unit,
            shingle_len: None,
            offset: shingle.offset,
            html: text.html,
            keep_case: !text.lowercase,
            tokenizer: text.tokenizer,
            normalize: text.normalization,
            stopwords: None,
            stem: text.stem,
            lang: text.lang,
        }
    }
}

impl PipelineOptions {
    /// The shingle length: as given, else [`crate::shingle::default_len`] of the unit (5
    /// words, 9 characters).
    pub fn shingle_len(&self) -> usize {
        self.shingle_len
            .unwrap_or_else(|| crate::shingle::default_len(self.unit))
    }

    /// Canonical text.
    pub fn text(&self) -> Result<TextConfig> {
        let stopwords = match &self.stopwords {
            Some(spec) => Some(StopWords::from_spec(spec, self.lang)?),
            None => None,
        };
        let cfg = TextConfig {
            html: self.html,
            lowercase: !self.keep_case,
            unit: self.unit,
            tokenizer: self.tokenizer,
            normalization: self.normalize,
            stopwords,
            stem: self.stem,
            lang: self.lang,
        };
        cfg.validate()?;
        Ok(cfg)
    }

    /// Shingles.
    pub fn shingle(&self) -> Result<ShingleConfig> {
        ShingleConfig::new(self.shingle_len(), self.offset, self.seed)
    }

    /// The image scheme, with `default` when none was given.
    pub fn sketch(&self, default: Scheme) -> Result<SketchConfig> {
        let cfg = SketchConfig {
            scheme: self.scheme.unwrap_or(default),
            size: self.size,
            modulus: self.modulus,
            seed: self.seed,
            weighting: self.weighting,
            bits: self.b_bit,
        };
        cfg.validate()?;
        Ok(cfg)
    }

    /// The pipeline reading `corpus`, with `default` as the scheme when none was given.
    pub fn config(&self, corpus: CorpusConfig, default: Scheme) -> Result<PipelineConfig> {
        let cfg = PipelineConfig {
            corpus,
            text: self.text()?,
            shingle: self.shingle()?,
            sketch: self.sketch(default)?,
        };
        cfg.validate()?;
        Ok(cfg)
    }
}

impl std::fmt::Display for Weighting {
    /// The name [`FromStr`] reads: `bag` or `tfidf` (the normalization total is not named).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Weighting::Bag => "bag",
            Weighting::TfIdf { .. } => "tfidf",
        })
    }
}

impl FromStr for Weighting {
    type Err = Error;

    /// `bag`, or `tfidf` (`tf-idf`): tf-idf weights normalized to 100 pairs.
    fn from_str(s: &str) -> Result<Weighting> {
        match s {
            "bag" => Ok(Weighting::Bag),
            "tfidf" | "tf-idf" => Ok(Weighting::TfIdf { total: 100 }),
            _ => Err(Error::config(format!(
                "unknown weighting {s:?}: expected bag or tfidf"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_by_name_with_the_command_defaults() {
        let o: PipelineOptions =
            serde_json::from_str(r#"{"scheme":"k-mins","unit":"char","weighting":"bag"}"#).unwrap();
        assert_eq!(o.scheme, Some(Scheme::KMins));
        assert_eq!(o.shingle_len(), 9);
        assert_eq!(o.weighting, Some(Weighting::Bag));
        // written by the names the command takes, read back the same
        let v = serde_json::to_value(&o).unwrap();
        assert_eq!(
            (&v["scheme"], &v["unit"], &v["weighting"], &v["lang"]),
            (
                &serde_json::json!("k-mins"),
                &serde_json::json!("char"),
                &serde_json::json!("bag"),
                &serde_json::json!("en")
            )
        );
        assert_eq!(serde_json::from_value::<PipelineOptions>(v).unwrap(), o);
        let c = o.config(CorpusConfig::default(), Scheme::BottomK).unwrap();
        assert_eq!((c.sketch.size, c.shingle.len), (128, 9));
        let d: PipelineOptions = serde_json::from_str("{}").unwrap();
        assert_eq!(d, PipelineOptions::default());
        assert_eq!(
            d.config(CorpusConfig::default(), Scheme::KMins)
                .unwrap()
                .sketch
                .scheme,
            Scheme::KMins
        );
        let e = serde_json::from_str::<PipelineOptions>(r#"{"shingle":3}"#).unwrap_err();
        assert!(e.to_string().contains("unknown field"), "{e}");
        let e = serde_json::from_str::<PipelineOptions>(r#"{"scheme":"nope"}"#).unwrap_err();
        assert!(e.to_string().contains("nope"), "{e}");
    }
}
