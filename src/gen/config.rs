//! The generator's parameters ([`GenConfig`], with the [`Mix`] of group kinds), their
//! validation, and reading them from JSON ([`read_config`]).
//!
//! Invariants: `GenConfig::default()` is the committed default corpus (`datasets/default`);
//! every config the generator runs has passed [`GenConfig::validate`], whose errors name the
//! field.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::eval::similarity::TruthTokenizer;
use crate::{Error, Result};

#[cfg(doc)]
use super::stream;

/// Shares of the documents by the kind of group they belong to (they sum to 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Mix {
    /// Singletons of independent text.
    pub unrelated: f64,
    /// Families: a base and variants made by word edits at rates from `edit_rates`.
    pub edit_families: f64,
    /// Version chains v1 -> v2 -> ... each a few percent from the previous.
    pub version_chains: f64,
    /// Template pages: a shared frame (menu, header, field labels, footer), own content.
    pub templates: f64,
    /// A document and one to three larger documents that contain it.
    pub containment: f64,
    /// A base document and copies differing only in case, whitespace or markup.
    pub copies: f64,
}

impl Default for Mix {
    fn default() -> Self {
        Mix {
            unrelated: 0.30,
            edit_families: 0.25,
            version_chains: 0.15,
            templates: 0.12,
            containment: 0.08,
            copies: 0.10,
        }
    }
}

/// Generator parameters. `Default` is the committed default corpus (`datasets/default`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GenConfig {
    /// Seed of the one ChaCha8 stream everything is drawn from.
    pub seed: u64,
    /// Number of documents.
    pub docs: usize,
    /// Render documents as HTML pages instead of plain text.
    pub html: bool,
    /// Number of made-up words in the lexicon.
    pub vocab: usize,
    /// Zipf exponent of word frequencies.
    pub zipf_exponent: f64,
    /// Number of stock phrases (3-6 words) shared across documents.
    pub phrases: usize,
    /// Probability that a sentence holds a stock phrase.
    pub phrase_prob: f64,
    /// Length range (words) of ordinary documents.
    pub doc_words: [usize; 2],
    /// Shares of the documents by kind.
    pub mix: Mix,
    /// Size range of an edit family (base included).
    pub family_size: [usize; 2],
    /// Edit rates (share of words touched) a family variant draws from.
    pub edit_rates: Vec<f64>,
    /// Versions per chain.
    pub chain_length: usize,
    /// Range of the edit rate between consecutive versions (substitute/insert/delete only).
    pub chain_step: [f64; 2],
    /// Size range of a template group.
    pub template_group: [usize; 2],
    /// Range of the number of frame words of a template.
    pub template_frame_words: [usize; 2],
    /// Number of labelled fields of a template.
    pub template_fields: usize,
    /// Range of the content words of a template page.
    pub template_content_words: [usize; 2],
    /// Length range of a contained document.
    pub contained_words: [usize; 2],
    /// Length range of the text added on each side of a contained document.
    pub container_extra_words: [usize; 2],
    /// Range of the number of containers of a contained document.
    pub containers: [usize; 2],
    /// Range of the number of copies of a base document.
    pub copy_variants: [usize; 2],
    /// Pairs outside the groups enter the truth when their resemblance or either containment
    /// is at least this.
    pub truth_floor: f64,
    /// Stream the documents to disk as they are generated (bounded memory, up to 1e9
    /// documents; see [`stream`]): group kinds interleaved, file order a windowed shuffle,
    /// truth only within groups. Off by default (and then not written to `params.json`).
    #[serde(skip_serializing_if = "is_false")]
    pub stream: bool,
    /// The words the truth is computed on: the default ([`TruthTokenizer::Word`]) takes the
    /// generated word sequence (which is what `word` cuts from the text); any other
    /// re-tokenizes each document's rendered text (see [`crate::eval::similarity`]). Not
    /// written to `params.json` when it is the default.
    #[serde(skip_serializing_if = "TruthTokenizer::is_default")]
    pub truth_tokenizer: TruthTokenizer,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            seed: 20090101,
            docs: 1500,
            html: false,
            vocab: 6000,
            zipf_exponent: 1.0,
            phrases: 200,
            phrase_prob: 0.12,
            doc_words: [120, 300],
            mix: Mix::default(),
            family_size: [3, 6],
            edit_rates: vec![0.01, 0.02, 0.03, 0.05, 0.08, 0.12, 0.2, 0.3],
            chain_length: 10,
            chain_step: [0.02, 0.04],
            template_group: [4, 8],
            template_frame_words: [130, 180],
            template_fields: 8,
            template_content_words: [25, 50],
            contained_words: [60, 150],
            container_extra_words: [60, 150],
            containers: [1, 2],
            copy_variants: [2, 4],
            truth_floor: 0.1,
            stream: false,
            truth_tokenizer: TruthTokenizer::Word,
        }
    }
}

fn check_range<T: PartialOrd + Copy + std::fmt::Display>(
    name: &str,
    r: [T; 2],
    lo: T,
) -> Result<()> {
    if r[0] < lo || r[1] < r[0] {
        return Err(Error::config(format!(
            "gen: {name} [{}, {}] must satisfy {lo} <= min <= max",
            r[0], r[1]
        )));
    }
    Ok(())
}

impl GenConfig {
    /// Checks every value; the error names the field.
    pub fn validate(&self) -> Result<()> {
        let fail = |m: String| Err(Error::config(format!("gen: {m}")));
        if self.stream {
            if self.docs == 0 || self.docs > 1_000_000_000 {
                return fail(format!(
                    "docs {} must be in 1..=1000000000 (stream)",
                    self.docs
                ));
            }
        } else if self.docs == 0 || self.docs > 1_000_000 {
            return fail(format!(
                "docs {} must be in 1..=1000000 (set stream for more)",
                self.docs
            ));
        }
        if self.vocab < 100 || self.vocab > 10_000_000 {
            return fail(format!("vocab {} must be in 100..=10000000", self.vocab));
        }
        if !(self.zipf_exponent > 0.0 && self.zipf_exponent <= 5.0) {
            return fail(format!(
                "zipf_exponent {} must be in (0, 5]",
                self.zipf_exponent
            ));
        }
        if !(0.0..=1.0).contains(&self.phrase_prob) {
            return fail(format!(
                "phrase_prob {} must be in [0, 1]",
                self.phrase_prob
            ));
        }
        check_range("doc_words", self.doc_words, 10)?;
        let m = &self.mix;
        let shares = [
            m.unrelated,
            m.edit_families,
            m.version_chains,
            m.templates,
            m.containment,
            m.copies,
        ];
        if shares.iter().any(|s| !(0.0..=1.0).contains(s)) {
            return fail("mix shares must be in [0, 1]".into());
        }
        let sum: f64 = shares.iter().sum();
        if (sum - 1.0).abs() > 1e-6 {
            return fail(format!("mix shares sum to {sum}, not 1"));
        }
        check_range("family_size", self.family_size, 2)?;
        if self.edit_rates.is_empty() || self.edit_rates.iter().any(|r| !(*r > 0.0 && *r < 1.0)) {
            return fail("edit_rates must be non-empty, each in (0, 1)".into());
        }
        if self.chain_length < 2 {
            return fail(format!(
                "chain_length {} must be at least 2",
                self.chain_length
            ));
        }
        if !(self.chain_step[0] > 0.0 && self.chain_step[1] < 1.0) {
            return fail("chain_step must lie in (0, 1)".into());
        }
        check_range("chain_step", self.chain_step, 0.0)?;
        check_range("template_group", self.template_group, 2)?;
        check_range("template_frame_words", self.template_frame_words, 20)?;
        check_range("template_content_words", self.template_content_words, 1)?;
        check_range("contained_words", self.contained_words, 10)?;
        check_range("container_extra_words", self.container_extra_words, 1)?;
        check_range("containers", self.containers, 1)?;
        check_range("copy_variants", self.copy_variants, 1)?;
        if self.copy_variants[1] > 4 {
            return fail("copy_variants max is 4 (exact, case, whitespace, markup)".into());
        }
        if !(0.0..=1.0).contains(&self.truth_floor) || self.truth_floor == 0.0 {
            return fail(format!(
                "truth_floor {} must be in (0, 1]",
                self.truth_floor
            ));
        }
        Ok(())
    }
}

/// Reads a [`GenConfig`] from JSON (missing fields take their defaults) and validates it.
pub fn read_config(path: &Path) -> Result<GenConfig> {
    let bytes = crate::io::read_all(path)?;
    let cfg: GenConfig = serde_json::from_slice(&bytes).map_err(|e| {
        Error::parse(
            path,
            e.line() as u64,
            format!("invalid generator config: {e}"),
        )
    })?;
    cfg.validate()?;
    Ok(cfg)
}
