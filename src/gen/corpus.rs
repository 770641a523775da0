//! Generating a corpus in memory ([`generate`]) or into a directory ([`generate_to_dir`],
//! which hands a `stream` config to [`stream`]): the groups in stated proportions, then
//! unrelated documents, then a seeded shuffle into file order, ids, and the truth.
//!
//! Invariants: the result is a pure function of the config; ids are `d` plus a zero-padded
//! number in file order, so string order = file order; [`generate_to_dir`] writes the bytes
//! [`write_corpus`](super::write_corpus) writes for [`generate`]'s corpus (the same drafts, document lines and
//! truth rows).

use std::path::Path;

use rand::seq::SliceRandom;
use serde::Serialize;

use super::groups::{Draft, Gen};
use super::truth::{truth_rows, write_truth_csv, TruthRow};
use super::write::{write_doc_line, write_params};
use super::{stream, GenConfig};
use crate::eval::similarity::WordIds;
use crate::io::AtomicFile;
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

/// Generates the corpus of `cfg` into `dir` (`docs.jsonl`, `truth.csv`, `params.json`): the
/// files [`generate`] + [`write_corpus`](super::write_corpus) write, byte for byte, without
/// holding the corpus twice (each document is written from its draft, then only its words
/// are kept for the truth); or, for a `stream` config, document by document ([`stream`]) in
/// bounded memory.
pub fn generate_to_dir(cfg: &GenConfig, dir: &Path) -> Result<GenSummary> {
    if cfg.stream {
        return stream::generate_stream(cfg, dir);
    }
    let (_, drafts) = drafts_in_file_order(cfg)?;
    let docs = drafts.len();
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let width = id_width(docs);
    let p = dir.join("docs.jsonl");
    let mut f = AtomicFile::create(&p)?;
    let mut groups: Vec<Option<(usize, &'static str)>> = Vec::with_capacity(docs);
    // the truth's words of every document, end to end: one block, so that what the drafts
    // held is freed whole
    let mut words: Vec<u32> = Vec::new();
    if cfg.truth_tokenizer.is_default() {
        words.reserve_exact(drafts.iter().map(|d| d.words.len()).sum());
    }
    let mut ends: Vec<usize> = Vec::with_capacity(docs);
    let mut ids = WordIds::default();
    for (i, d) in drafts.into_iter().enumerate() {
        let id = format!("d{i:0width$}");
        write_doc_line(&mut f, &p, &id, d.family.as_deref(), &d.role, &d.text)?;
        groups.push(d.group);
        if cfg.truth_tokenizer.is_default() {
            words.extend_from_slice(&d.words);
        } else {
            words.extend(ids.words(cfg.truth_tokenizer, &d.text));
        }
        ends.push(words.len());
    }
    f.commit()?;
    drop(ids);
    // the drafts' blocks, freed in shuffled order, back to the system
    crate::spill::release_free_memory();
    let seqs: Vec<&[u32]> = (0..docs)
        .map(|i| &words[if i == 0 { 0 } else { ends[i - 1] }..ends[i]])
        .collect();
    let rows = truth_rows(&seqs, &groups, cfg.truth_floor);
    drop(seqs);
    drop(words);
    write_truth_csv(&dir.join("truth.csv"), &rows, width)?;
    write_params(dir, cfg)?;
    let mut pairs_by_kind = std::collections::BTreeMap::new();
    for r in &rows {
        *pairs_by_kind.entry(r.kind.to_string()).or_default() += 1;
    }
    Ok(GenSummary {
        docs,
        truth_pairs: rows.len(),
        pairs_by_kind,
    })
}

/// Digits of the zero-padded number in the ids of a corpus of `n` documents.
fn id_width(n: usize) -> usize {
    (n.saturating_sub(1)).to_string().len().max(4)
}

/// The generator of a validated, non-`stream` `cfg` and its drafts in file order: the groups
/// kind by kind in the mix's order, unrelated documents up to `docs`, then a seeded shuffle.
fn drafts_in_file_order(cfg: &GenConfig) -> Result<(Gen<'_>, Vec<Draft>)> {
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
    let mut slots: Vec<Option<Draft>> = std::mem::take(&mut g.drafts)
        .into_iter()
        .map(Some)
        .collect();
    let drafts: Vec<Draft> = order
        .iter()
        .map(|&i| slots[i].take().expect("once"))
        .collect();
    Ok((g, drafts))
}

/// Generates the corpus and its truth in memory. Deterministic for a config. A `stream`
/// config is refused: use [`generate_to_dir`].
pub fn generate(cfg: &GenConfig) -> Result<GeneratedCorpus> {
    let (g, drafts) = drafts_in_file_order(cfg)?;
    let width = id_width(drafts.len());
    let lex = &g.w.lex;
    let mut docs: Vec<GenDoc> = Vec::with_capacity(drafts.len());
    let mut groups: Vec<Option<(usize, &'static str)>> = Vec::with_capacity(drafts.len());
    let mut seqs: Vec<Vec<u32>> = Vec::with_capacity(drafts.len());
    for (i, d) in drafts.into_iter().enumerate() {
        docs.push(GenDoc {
            id: format!("d{i:0width$}"),
            family: d.family,
            kind: d.role,
            text: d.text,
            canonical: d.words.iter().map(|&w| lex.word(w).to_string()).collect(),
        });
        groups.push(d.group);
        seqs.push(d.words);
    }
    if !cfg.truth_tokenizer.is_default() {
        let mut ids = WordIds::default();
        seqs = docs
            .iter()
            .map(|d| ids.words(cfg.truth_tokenizer, &d.text))
            .collect();
    }
    let truth = truth_rows(&seqs, &groups, cfg.truth_floor)
        .into_iter()
        .map(|r| TruthRow {
            a: docs[r.a as usize].id.clone(),
            b: docs[r.b as usize].id.clone(),
            resemblance: r.resemblance,
            containment_ab: r.containment_ab,
            containment_ba: r.containment_ba,
            edit_similarity: r.edit_similarity,
            kind: r.kind.to_string(),
        })
        .collect();
    Ok(GeneratedCorpus {
        config: cfg.clone(),
        docs,
        truth,
    })
}
