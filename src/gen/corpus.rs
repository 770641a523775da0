//! Generating a corpus in memory ([`generate`]) or into a directory ([`generate_to_dir`],
//! which hands a `stream` config to [`stream`]): the groups in stated proportions, then
//! unrelated documents, then a seeded shuffle into file order, ids, and the truth.
//!
//! Invariant: the result is a pure function of the config; ids are `d` plus a zero-padded
//! number in file order, so string order = file order.

use std::path::Path;

use rand::seq::SliceRandom;
use serde::Serialize;

use super::groups::{Draft, Gen};
use super::truth::{compute_truth, TruthRow};
use super::write::write_corpus;
use super::{stream, GenConfig};
use crate::eval::similarity::WordIds;
use crate::{Error, Result};

/// One generated document.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GenDoc {
    /// External id (`d0001`, ...; string order = file order).
    pub id: String,
    /// The group it belongs to (`chain-0003`, ...); `None` for unrelated documents.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    /// Its role: `unrelated`, `base`, `edit-0.05`, `v03`, `page`, `contained`, `container`,
    /// `exact`, `case`, `whitespace`, `markup`.
    pub kind: String,
    /// The text (plain or HTML).
    pub text: String,
    /// The canonical token sequence (not written: it is what the text tokenizes to).
    #[serde(skip)]
    pub canonical: Vec<String>,
}

/// A generated corpus and its truth.
#[derive(Clone, Debug)]
pub struct GeneratedCorpus {
    /// The configuration it was made with.
    pub config: GenConfig,
    /// Documents in file order.
    pub docs: Vec<GenDoc>,
    /// Truth rows sorted by `(a, b)`.
    pub truth: Vec<TruthRow>,
}

/// What [`generate_to_dir`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenSummary {
    /// Documents written.
    pub docs: usize,
    /// Rows of `truth.csv`.
    pub truth_pairs: usize,
    /// Truth rows by kind.
    pub pairs_by_kind: std::collections::BTreeMap<String, usize>,
}

/// Generates the corpus of `cfg` into `dir` (`docs.jsonl`, `truth.csv`, `params.json`): in
/// memory by [`generate`] + [`write_corpus`], or, for a `stream` config, document by
/// document ([`stream`]) in bounded memory.
pub fn generate_to_dir(cfg: &GenConfig, dir: &Path) -> Result<GenSummary> {
    if cfg.stream {
        return stream::generate_stream(cfg, dir);
    }
    let corpus = generate(cfg)?;
    write_corpus(dir, &corpus)?;
    let mut pairs_by_kind = std::collections::BTreeMap::new();
    for r in &corpus.truth {
        *pairs_by_kind.entry(r.kind.clone()).or_default() += 1;
    }
    Ok(GenSummary {
        docs: corpus.docs.len(),
        truth_pairs: corpus.truth.len(),
        pairs_by_kind,
    })
}

/// Generates the corpus and its truth in memory. Deterministic for a config. A `stream`
/// config is refused: use [`generate_to_dir`].
pub fn generate(cfg: &GenConfig) -> Result<GeneratedCorpus> {
    cfg.validate()?;
    if cfg.stream {
        return Err(Error::config(
            "gen: a stream config is generated to a directory (generate_to_dir)".to_string(),
        ));
    }
    let mut g = Gen::new(cfg);
    g.drafts.reserve(cfg.docs);
    let n = cfg.docs;
    let m = &cfg.mix;
    let budget = |share: f64| (share * n as f64).round() as usize;
    let plan: [(usize, u8); 5] = [
        (budget(m.edit_families), 0),
        (budget(m.version_chains), 1),
        (budget(m.templates), 2),
        (budget(m.containment), 3),
        (budget(m.copies), 4),
    ];
    let mut used = 0usize;
    for (b, kind) in plan {
        let mut left = b.min(n - used);
        loop {
            let want = match kind {
                0 => g.len_in(cfg.family_size),
                1 => cfg.chain_length,
                2 => g.len_in(cfg.template_group),
                3 => 1 + g.len_in(cfg.containers),
                _ => 1 + g.len_in(cfg.copy_variants),
            };
            let size = want.min(left);
            if size < 2 {
                break;
            }
            match kind {
                0 => g.edit_family(size),
                1 => g.chain(size),
                2 => g.template_group(size),
                3 => g.containment(size),
                _ => g.copies(size),
            }
            left -= size;
            used += size;
        }
    }
    while g.drafts.len() < n {
        g.unrelated();
    }
    // file order: a seeded shuffle
    let mut order: Vec<usize> = (0..g.drafts.len()).collect();
    order.shuffle(&mut g.rng);
    let width = (n.saturating_sub(1)).to_string().len().max(4);
    let lex = &g.w.lex;
    let mut slots: Vec<Option<Draft>> = g.drafts.into_iter().map(Some).collect();
    let drafts: Vec<Draft> = order
        .iter()
        .map(|&i| slots[i].take().expect("once"))
        .collect();
    let docs: Vec<GenDoc> = drafts
        .iter()
        .enumerate()
        .map(|(i, d)| GenDoc {
            id: format!("d{i:0width$}"),
            family: d.family.clone(),
            kind: d.role.clone(),
            text: d.text.clone(),
            canonical: d.toks.iter().map(|t| lex.word(t.w).to_string()).collect(),
        })
        .collect();
    let seqs: Vec<Vec<u32>> = if cfg.truth_tokenizer.is_default() {
        drafts
            .iter()
            .map(|d| d.toks.iter().map(|t| t.w).collect())
            .collect()
    } else {
        let mut ids = WordIds::default();
        docs.iter()
            .map(|d| ids.words(cfg.truth_tokenizer, &d.text))
            .collect()
    };
    let groups: Vec<Option<(usize, &'static str)>> = drafts.iter().map(|d| d.group).collect();
    let truth = compute_truth(&docs, &seqs, &groups, cfg.truth_floor);
    Ok(GeneratedCorpus {
        config: cfg.clone(),
        docs,
        truth,
    })
}
