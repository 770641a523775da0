//! [`EvalOptions`]: an evaluation described by named options, as every entry point receives
//! them (`fimdup eval` flags, the Python package's `evaluate` keywords): which pairs count,
//! the false-duplicate-cluster check, and the corpus with the words of its exact
//! resemblances. [`EvalOptions::load_truth`] and [`EvalOptions::evaluate`] are the calls
//! both make, so the translation from options to an [`Evaluation`] is written once.
//!
//! With `bootstrap` resamples the evaluation gets 95 % percentile intervals of precision,
//! recall and F1 ([`super::bootstrap`]): the units are the corpus's documents (or its
//! groups by `group_by`, which needs the corpus) when a corpus is given, else the documents
//! the truth and the prediction name.
//!
//! Invariant: the defaults are those of [`FalseClusterConfig::default`] (floor 0.5, 5
//! listed clusters) and [`TruthTokenizer::default`] (`word`), all pairs evaluated, no
//! corpus, no bootstrap (seed 0); a tokenizer other than the default needs a corpus (it
//! only cuts the corpus's words), and so does `group_by`.

use std::path::PathBuf;

use super::bootstrap::{corpus_units, BootstrapConfig, Resampler, Units};
use super::evaluation::EvalBootstrap;
use super::similarity::TruthTokenizer;
use super::{
    evaluate_loaded, Evaluation, FalseClusterConfig, LoadedTruth, Prediction, ShingleSets, Truth,
};
use crate::corpus::CorpusConfig;
use crate::{Error, Result};

/// The options of one evaluation (see the module docs); read and written by the names the
/// command takes ([`crate::defaults`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EvalOptions {
    /// Evaluate only the pairs the truth lists (always on for truths that label some pairs
    /// only, such as PAN).
    pub labeled_only: bool,
    /// A cluster with a member pair of exact resemblance below this is a false duplicate.
    pub floor: f64,
    /// How many of the worst false-duplicate clusters to list.
    pub examples: usize,
    /// A JSONL corpus (`id`, `text`) giving the exact resemblances of cluster pairs the
    /// truth does not score.
    pub corpus: Option<PathBuf>,
    /// The words of the corpus's exact resemblances.
    pub truth_tokenizer: TruthTokenizer,
    /// Bootstrap resamples for the intervals (0: none).
    pub bootstrap: usize,
    /// The bootstrap's seed.
    pub bootstrap_seed: u64,
    /// The corpus records' field naming each document's group, the bootstrap's unit
    /// (`None`: documents).
    pub group_by: Option<String>,
}

impl Default for EvalOptions {
    fn default() -> Self {
        let fc = FalseClusterConfig::default();
        EvalOptions {
            labeled_only: false,
            floor: fc.floor,
            examples: fc.max_examples,
            corpus: None,
            truth_tokenizer: TruthTokenizer::default(),
            bootstrap: 0,
            bootstrap_seed: 0,
            group_by: None,
        }
    }
}

impl EvalOptions {
    /// The false-duplicate-cluster check these options ask for.
    pub fn false_clusters(&self) -> FalseClusterConfig {
        FalseClusterConfig {
            floor: self.floor,
            max_examples: self.examples,
        }
    }

    /// The bootstrap these options ask for (`None`: none).
    pub fn bootstrap(&self) -> Result<Option<BootstrapConfig>> {
        BootstrapConfig::from_options(
            self.bootstrap,
            self.bootstrap_seed,
            self.group_by.as_deref(),
        )
    }

    /// Checks the floor, the bootstrap, and that a tokenizer other than the default and a
    /// group field come with a corpus.
    pub fn validate(&self) -> Result<()> {
        self.false_clusters().validate()?;
        self.bootstrap()?;
        if self.corpus.is_none() {
            if let Some(g) = &self.group_by {
                return Err(Error::config(format!(
                    "group-by '{g}' reads the field from the corpus's records: give a corpus too"
                )));
            }
        }
        if self.corpus.is_none() && !self.truth_tokenizer.is_default() {
            return Err(Error::config(format!(
                "truth tokenizer {} cuts the words of the corpus's resemblances: give a corpus too",
                self.truth_tokenizer
            )));
        }
        Ok(())
    }

    /// Checks the options, then reads `truth` (restricted to its listed pairs when
    /// `labeled_only` holds or its format labels only some pairs).
    pub fn load_truth(&self, truth: &Truth) -> Result<LoadedTruth> {
        self.validate()?;
        truth.load(self.labeled_only)
    }

    /// The corpus's exact shingle sets, with the words of `truth_tokenizer`.
    pub fn corpus_sets(&self) -> Result<Option<ShingleSets>> {
        self.corpus
            .as_deref()
            .map(|p| ShingleSets::read_jsonl_with(p, self.truth_tokenizer))
            .transpose()
    }

    /// Evaluates `pred` against a truth read by [`EvalOptions::load_truth`]: reads the
    /// corpus (when given) and runs [`evaluate_loaded`].
    pub fn evaluate(&self, pred: &Prediction, truth: &LoadedTruth) -> Result<Evaluation> {
        self.validate()?;
        let corpus = self.corpus_sets()?;
        let mut ev = evaluate_loaded(pred, truth, &self.false_clusters(), corpus.as_ref())?;
        if let Some(b) = self.bootstrap()? {
            let units = match &self.corpus {
                Some(c) => corpus_units(c, &CorpusConfig::default(), b.group_by.as_deref())?,
                None => Units::default(),
            };
            let mut r = Resampler::new(units, truth.labels());
            r.add_row(truth.labels(), pred, truth.listed());
            let res = r.run(&b)?;
            let how = EvalBootstrap {
                resamples: b.resamples,
                seed: b.seed,
                unit: b.unit(),
                units: res.units,
            };
            ev.set_intervals(&res.rows[0], how);
        }
        Ok(ev)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Labels;

    #[test]
    fn options_by_name_and_the_tokenizer_needs_a_corpus() {
        assert_eq!(
            serde_json::from_str::<EvalOptions>("{}").unwrap(),
            EvalOptions::default()
        );
        let o: EvalOptions =
            serde_json::from_str(r#"{"truth_tokenizer":"whitespace","corpus":"c.jsonl"}"#).unwrap();
        assert_eq!(o.truth_tokenizer, TruthTokenizer::Whitespace);
        let v = serde_json::to_value(&o).unwrap();
        assert_eq!(v["truth_tokenizer"], "whitespace");
        assert_eq!(serde_json::from_value::<EvalOptions>(v).unwrap(), o);
        assert!(serde_json::from_str::<EvalOptions>(r#"{"tokenizer":"word"}"#).is_err());
        let no_corpus = EvalOptions { corpus: None, ..o };
        let e = no_corpus.validate().unwrap_err().to_string();
        assert!(e.contains("give a corpus"), "{e}");
        let bad = EvalOptions {
            floor: 2.0,
            ..EvalOptions::default()
        };
        assert!(bad.validate().is_err());
    }

    #[test]
    fn the_corpus_words_decide_a_false_cluster() {
        // "a-b c-d e-f g-h i-j" has the words a..j under `word` (the same five shingles as
        // the spaced text) and five other words under `whitespace` (nothing shared).
        let dir = tempfile::tempdir().unwrap();
        let corpus = dir.path().join("c.jsonl");
        std::fs::write(
            &corpus,
            "{\"id\":\"x\",\"text\":\"a-b c-d e-f g-h i-j\"}\n{\"id\":\"y\",\"text\":\"a b c d e f g h i j\"}\n",
        )
        .unwrap();
        let pred = Prediction::from_clusters([vec!["x", "y"]]);
        let truth = Truth::Pairs {
            positives: Labels::from_pairs([("x", "y")]).unwrap(),
            listed: None,
        };
        let false_clusters = |t: TruthTokenizer| {
            let o = EvalOptions {
                corpus: Some(corpus.clone()),
                truth_tokenizer: t,
                ..EvalOptions::default()
            };
            let loaded = o.load_truth(&truth).unwrap();
            let ev = o.evaluate(&pred, &loaded).unwrap();
            ev.false_clusters.unwrap().false_clusters
        };
        assert_eq!(false_clusters(TruthTokenizer::Word), 0);
        assert_eq!(false_clusters(TruthTokenizer::Whitespace), 1);
    }
}
