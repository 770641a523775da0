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
//!
//! Files: `config.rs` (the parameters and their validation), `groups.rs` (the drafts of each
//! kind of group), `corpus.rs` (generating in memory or to a directory), `truth.rs` (the
//! truth pairs), `write.rs` (`docs.jsonl`, `truth.csv`, `params.json`); `lang.rs` (the
//! made-up language), `render.rs` (text, HTML and variants), `levenshtein.rs`, and
//! `stream.rs` (the streaming form).

mod config;
mod corpus;
mod groups;
pub mod lang;
pub mod levenshtein;
pub mod render;
pub mod stream;
mod truth;
mod write;

pub use config::{read_config, GenConfig, Mix};
pub use corpus::{generate, generate_to_dir, GenDoc, GenSummary, GeneratedCorpus};
pub use truth::{TruthRow, TRUTH_HEADER};
pub use write::write_corpus;
