//! The synthetic corpus generator (`fimdup gen`): documents in a made-up Zipfian language,
//! mixing, in stated proportions ([`Mix`]), unrelated documents, families of near-duplicates
//! made by word edits, drifting version chains (the transitive-closure trap), template pages
//! that share a large frame (IK09 Table 1), documents contained in larger ones, and exact
//! copies that differ only in case, whitespace or markup; plus the exact ground truth of
//! every pair that could matter.
//!
//! Invariants: the output is a pure function of the [`GenConfig`] (one ChaCha8 stream seeded
//! with `seed`; no hash-map iteration order reaches the output; the truth is computed in
//! parallel but collected in order), so the same config gives byte-identical files. Ids are
//! `d` plus a zero-padded number in file order, so string order = file order. The canonical
//! token sequence of each document (lowercased `\w+` words of its text with `<...>` tags
//! removed) is exactly the token sequence it was generated from; the truth's values are
//! computed on it: resemblance and containment of word 5-shingle sets (exact n-grams of token
//! strings, no hashing), and edit similarity `1 - levenshtein / max(len)` on words. With a
//! [`GenConfig::truth_tokenizer`] other than the default, the words are instead those that
//! tokenizer cuts from each document's rendered text (punctuation attached by
//! `whitespace`, say), and every truth value is computed on them; the documents are the same.

pub mod lang;
pub mod levenshtein;
pub mod render;
pub mod stream;

use std::io::Write;
use std::path::Path;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::eval::similarity::{
    containment, edit_similarity, jaccard, shingle_set, TruthTokenizer, WordIds, SHINGLE_LEN,
};
use crate::io::AtomicFile;
use crate::sorted::intersection_size;
use crate::{Error, Result};
use lang::{Lexicon, Sep, Tok, Writer};
use render::{case_variant, edit, render, whitespace_variant, Style};

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

/// One row of `truth.csv`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TruthRow {
    /// First id (`a < b`).
    pub a: String,
    /// Second id.
    pub b: String,
    /// Jaccard resemblance of the word 5-shingle sets.
    pub resemblance: f64,
    /// Share of a's shingles in b.
    pub containment_ab: f64,
    /// Share of b's shingles in a.
    pub containment_ba: f64,
    /// `1 - word levenshtein / max(len_a, len_b)`.
    pub edit_similarity: f64,
    /// The group kind both belong to (`edit`, `chain`, `template`, `containment`, `copy`), or
    /// `other` for a pair across groups found by the exact join.
    pub kind: String,
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

struct Draft {
    toks: Vec<Tok>,
    text: String,
    family: Option<String>,
    group: Option<(usize, &'static str)>,
    role: String,
}

struct Gen<'a> {
    cfg: &'a GenConfig,
    w: Writer,
    rng: ChaCha8Rng,
    style: Style,
    drafts: Vec<Draft>,
    groups: usize,
}

impl Gen<'_> {
    fn len_in(&mut self, r: [usize; 2]) -> usize {
        self.rng.gen_range(r[0]..=r[1])
    }

    fn render(&mut self, toks: &[Tok]) -> String {
        render(toks, &self.w.lex, self.style, &mut self.rng)
    }

    fn push(
        &mut self,
        toks: Vec<Tok>,
        text: String,
        group: Option<(usize, &'static str)>,
        role: String,
    ) {
        let family = group.map(|(g, k)| format!("{k}-{g:04}"));
        self.drafts.push(Draft {
            toks,
            text,
            family,
            group,
            role,
        });
    }

    fn new_group(&mut self, kind: &'static str) -> Option<(usize, &'static str)> {
        self.groups += 1;
        Some((self.groups, kind))
    }

    fn unrelated(&mut self) {
        let n = self.len_in(self.cfg.doc_words);
        let toks = self.w.prose(n, &mut self.rng);
        let text = self.render(&toks);
        self.push(toks, text, None, "unrelated".into());
    }

    fn edit_family(&mut self, size: usize) {
        let g = self.new_group("edit");
        let n = self.len_in(self.cfg.doc_words);
        let base = self.w.prose(n, &mut self.rng);
        let text = self.render(&base);
        self.push(base.clone(), text, g, "base".into());
        for _ in 1..size {
            let rate = *self
                .cfg
                .edit_rates
                .choose(&mut self.rng)
                .expect("validated");
            let mut t = base.clone();
            edit(&mut t, rate, true, &self.w, &mut self.rng);
            let text = self.render(&t);
            self.push(t, text, g, format!("edit-{rate:.2}"));
        }
    }

    fn chain(&mut self, size: usize) {
        let g = self.new_group("chain");
        let n = self.len_in(self.cfg.doc_words);
        let mut cur = self.w.prose(n, &mut self.rng);
        for v in 1..=size {
            if v > 1 {
                let [lo, hi] = self.cfg.chain_step;
                let rate = if hi > lo {
                    self.rng.gen_range(lo..=hi)
                } else {
                    lo
                };
                edit(&mut cur, rate, false, &self.w, &mut self.rng);
            }
            let text = self.render(&cur);
            self.push(cur.clone(), text, g, format!("v{v:02}"));
        }
    }

    fn template_group(&mut self, size: usize) {
        let g = self.new_group("template");
        let lex = &self.w.lex;
        let rng = &mut self.rng;
        let frame_target =
            rng.gen_range(self.cfg.template_frame_words[0]..=self.cfg.template_frame_words[1]);
        // menu: 6-10 items of 1-2 words, one per line
        let mut menu = Vec::new();
        for _ in 0..rng.gen_range(6..=10) {
            for _ in 0..rng.gen_range(1..=2) {
                menu.push(Tok::word(lex.sample(rng)));
            }
            menu.last_mut().expect("item").sep = Sep::Line;
        }
        // header: a title line
        let mut header: Vec<Tok> = (0..rng.gen_range(6..=12))
            .map(|_| Tok::word(lex.sample(rng)))
            .collect();
        header.last_mut().expect("title").sep = Sep::Line;
        // field labels
        let labels: Vec<Vec<Tok>> = (0..self.cfg.template_fields)
            .map(|_| {
                let mut l: Vec<Tok> = (0..rng.gen_range(1..=2))
                    .map(|_| Tok::word(lex.sample(rng)))
                    .collect();
                l.last_mut().expect("label").sep = Sep::Colon;
                l
            })
            .collect();
        let used = menu.len() + header.len() + labels.iter().map(Vec::len).sum::<usize>();
        let footer_words = frame_target.saturating_sub(used).max(10);
        let footer = self.w.prose(footer_words, rng);
        for _ in 0..size {
            let mut t = menu.clone();
            t.extend_from_slice(&header);
            for l in &labels {
                t.extend_from_slice(l);
                if rng.gen_bool(0.3) {
                    t.push(Tok::word(lex.number(rng.gen_range(1000..=2099))));
                } else {
                    for _ in 0..rng.gen_range(1..=3) {
                        t.push(Tok::word(lex.sample_rare(200, rng)));
                    }
                }
                t.last_mut().expect("value").sep = Sep::Line;
            }
            let n = rng
                .gen_range(self.cfg.template_content_words[0]..=self.cfg.template_content_words[1]);
            let mut content: Vec<Tok> = Vec::with_capacity(n);
            while content.len() < n {
                let mut s = Vec::new();
                self.w.sentence(rng, &mut s);
                // content words are rarer than the frame's stock words
                for tok in &mut s {
                    if tok.w < 200 && rng.gen_bool(0.7) {
                        tok.w = lex.sample_rare(200, rng);
                    }
                }
                content.extend(s);
            }
            content.last_mut().expect("content").sep = Sep::Para;
            t.extend(content);
            t.extend_from_slice(&footer);
            let text = render(&t, lex, self.style, rng);
            self.drafts.push(Draft {
                toks: t,
                text,
                family: g.map(|(g, k)| format!("{k}-{g:04}")),
                group: g,
                role: "page".into(),
            });
        }
    }

    fn containment(&mut self, size: usize) {
        let g = self.new_group("containment");
        let n = self.len_in(self.cfg.contained_words);
        let inner = self.w.prose(n, &mut self.rng);
        let text = self.render(&inner);
        self.push(inner.clone(), text, g, "contained".into());
        for _ in 1..size {
            let (a, b) = (
                self.len_in(self.cfg.container_extra_words),
                self.len_in(self.cfg.container_extra_words),
            );
            let mut t = self.w.prose(a, &mut self.rng);
            t.extend_from_slice(&inner);
            t.extend(self.w.prose(b, &mut self.rng));
            let text = self.render(&t);
            self.push(t, text, g, "container".into());
        }
    }

    fn copies(&mut self, size: usize) {
        let g = self.new_group("copy");
        let n = self.len_in(self.cfg.doc_words);
        let base = self.w.prose(n, &mut self.rng);
        let text = self.render(&base);
        self.push(base.clone(), text.clone(), g, "base".into());
        let mut kinds = ["exact", "case", "whitespace", "markup"];
        kinds.shuffle(&mut self.rng);
        for &k in kinds.iter().take(size - 1) {
            let t = match k {
                "exact" => text.clone(),
                "case" => case_variant(&text, &mut self.rng),
                "whitespace" => whitespace_variant(&text, &mut self.rng),
                _ => {
                    let st = if self.style == Style::Plain && self.rng.gen_bool(0.5) {
                        Style::HtmlA
                    } else {
                        Style::HtmlB
                    };
                    render(&base, &self.w.lex, st, &mut self.rng)
                }
            };
            self.push(base.clone(), t, g, k.into());
        }
    }
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
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let lex = Lexicon::new(cfg.vocab, cfg.zipf_exponent, &mut rng);
    let w = Writer::new(lex, cfg.phrases, cfg.phrase_prob, &mut rng);
    let mut g = Gen {
        cfg,
        w,
        rng,
        style: if cfg.html { Style::HtmlA } else { Style::Plain },
        drafts: Vec::with_capacity(cfg.docs),
        groups: 0,
    };
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

/// The truth rows: every pair within a group, plus every other pair whose resemblance or
/// either containment reaches `floor` (found exactly through an inverted index of shingles).
fn compute_truth(
    docs: &[GenDoc],
    seqs: &[Vec<u32>],
    groups: &[Option<(usize, &'static str)>],
    floor: f64,
) -> Vec<TruthRow> {
    let n = seqs.len();
    let mut table: hashbrown::HashMap<Vec<u32>, u32> = hashbrown::HashMap::new();
    let sets: Vec<Vec<u32>> = seqs
        .iter()
        .map(|s| shingle_set(s, SHINGLE_LEN, &mut table))
        .collect();
    let mut postings: Vec<Vec<u32>> = vec![Vec::new(); table.len()];
    for (d, set) in sets.iter().enumerate() {
        for &s in set {
            postings[s as usize].push(d as u32);
        }
    }
    let mut pairs: std::collections::BTreeSet<(u32, u32)> = std::collections::BTreeSet::new();
    // within groups
    let mut members: std::collections::BTreeMap<usize, Vec<u32>> =
        std::collections::BTreeMap::new();
    for (d, g) in groups.iter().enumerate() {
        if let Some((g, _)) = g {
            members.entry(*g).or_default().push(d as u32);
        }
    }
    for m in members.values() {
        for i in 0..m.len() {
            for j in i + 1..m.len() {
                pairs.insert((m[i].min(m[j]), m[i].max(m[j])));
            }
        }
    }
    // the exact join
    let mut count = vec![0u32; n];
    let mut touched: Vec<u32> = Vec::new();
    for (i, set) in sets.iter().enumerate() {
        for &s in set {
            for &j in &postings[s as usize] {
                if (j as usize) > i {
                    if count[j as usize] == 0 {
                        touched.push(j);
                    }
                    count[j as usize] += 1;
                }
            }
        }
        for &j in &touched {
            let inter = count[j as usize] as usize;
            count[j as usize] = 0;
            let (la, lb) = (set.len(), sets[j as usize].len());
            if jaccard(la, lb, inter) >= floor
                || containment(la, inter) >= floor
                || containment(lb, inter) >= floor
            {
                pairs.insert((i as u32, j));
            }
        }
        touched.clear();
    }
    let pairs: Vec<(u32, u32)> = pairs.into_iter().collect();
    pairs
        .par_iter()
        .map(|&(i, j)| {
            let (i, j) = (i as usize, j as usize);
            let (sa, sb) = (&sets[i], &sets[j]);
            let inter = intersection_size(sa, sb);
            let kind = match (groups[i], groups[j]) {
                (Some((x, k)), Some((y, _))) if x == y => k,
                _ => "other",
            };
            TruthRow {
                a: docs[i].id.clone(),
                b: docs[j].id.clone(),
                resemblance: jaccard(sa.len(), sb.len(), inter),
                containment_ab: containment(sa.len(), inter),
                containment_ba: containment(sb.len(), inter),
                edit_similarity: edit_similarity(&seqs[i], &seqs[j]),
                kind: kind.to_string(),
            }
        })
        .collect()
}

/// Header of `truth.csv`.
pub const TRUTH_HEADER: &str = "a,b,resemblance,containment_ab,containment_ba,edit_similarity,kind";

/// Writes `dir/docs.jsonl` (`{"id","family"?,"kind","text"}` per line), `dir/truth.csv` and
/// `dir/params.json` (the config), each atomically.
pub fn write_corpus(dir: &Path, corpus: &GeneratedCorpus) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let p = dir.join("docs.jsonl");
    let mut f = AtomicFile::create(&p)?;
    for d in &corpus.docs {
        serde_json::to_writer(&mut f, d).map_err(|e| Error::io(&p, e.into()))?;
        f.write_all(b"\n").map_err(|e| Error::io(&p, e))?;
    }
    f.commit()?;
    let p = dir.join("truth.csv");
    let mut f = AtomicFile::create(&p)?;
    let mut buf = String::with_capacity(corpus.truth.len() * 64 + 80);
    buf.push_str(TRUTH_HEADER);
    buf.push('\n');
    for r in &corpus.truth {
        use std::fmt::Write as _;
        let _ = writeln!(
            buf,
            "{},{},{:.6},{:.6},{:.6},{:.6},{}",
            r.a, r.b, r.resemblance, r.containment_ab, r.containment_ba, r.edit_similarity, r.kind
        );
    }
    f.write_all(buf.as_bytes()).map_err(|e| Error::io(&p, e))?;
    f.commit()?;
    write_params(dir, &corpus.config)
}

/// Writes `dir/params.json` (the config, pretty-printed) atomically.
fn write_params(dir: &Path, cfg: &GenConfig) -> Result<()> {
    let p = dir.join("params.json");
    let mut s = serde_json::to_string_pretty(cfg).map_err(|e| Error::io(&p, e.into()))?;
    s.push('\n');
    crate::io::write_atomic(&p, s.as_bytes())
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
