//! The streaming form of the generator ([`GenConfig::stream`]): documents are written to
//! `docs.jsonl` as they are generated, so memory stays bounded by a shuffle window of
//! [`WINDOW`] documents plus the groups not yet complete, and grows only by the truth rows
//! (64 bytes each, kept to be sorted at the end; some 14 MB per million documents of
//! `eval/peers/corpus.json`).
//!
//! It differs from [`super::generate`] in three stated ways: group kinds are interleaved (each
//! next group's kind is drawn in proportion to the documents its kind still has to make,
//! unrelated documents included) instead of made kind by kind; file order is a windowed
//! shuffle (each new document replaces a random one of the window, which is written; drawn
//! from a second ChaCha8 stream of the seed, so the window changes the order only) instead
//! of a full one; and the truth holds only the pairs within groups (no exact join across the
//! corpus; each pair's values computed as [`super::generate`] computes them). Invariants as for
//! [`super::generate`]: a pure function of the config (one ChaCha8 stream; truth rows sorted
//! by `(a, b)`, computed in parallel but in a fixed order), ids `d` + zero-padded file
//! position, and each document's canonical tokens are the ones its truth is computed on
//! (with a non-default [`GenConfig::truth_tokenizer`], the words that tokenizer cuts from the
//! written text).

use std::collections::BTreeMap;
use std::path::Path;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::groups::{Draft, Gen};
use super::truth::{write_truth_csv, Row};
use super::write::write_doc_line;
use super::{GenConfig, GenSummary};
use crate::eval::similarity::{shingle_set, TruthTokenizer, WordIds, SHINGLE_LEN};
use crate::io::AtomicFile;
use crate::sorted::intersection_size;
use crate::{Error, Result};

/// Documents held back in the shuffle window.
pub const WINDOW: usize = 1 << 16;

/// Completed groups whose truth is computed in one parallel batch.
const BATCH: usize = 4096;

/// A written document awaiting the rest of its group.
struct Member {
    idx: u64,
    seq: Vec<u32>,
}

struct Sink {
    out: AtomicFile,
    path: std::path::PathBuf,
    width: usize,
    written: u64,
    /// group number -> (kind, size, members written so far)
    pending: hashbrown::HashMap<usize, (&'static str, usize, Vec<Member>)>,
    ready: Vec<(&'static str, Vec<Member>)>,
    rows: Vec<Row>,
    pairs_by_kind: BTreeMap<String, usize>,
    /// The truth's words: the generated sequence (default) or the text re-tokenized.
    tokenizer: TruthTokenizer,
    word_ids: WordIds,
}

impl Sink {
    fn emit(&mut self, d: Draft, size_of: &mut hashbrown::HashMap<usize, usize>) -> Result<()> {
        let idx = self.written;
        self.written += 1;
        let id = format!("d{idx:0w$}", w = self.width);
        write_doc_line(
            &mut self.out,
            &self.path,
            &id,
            d.family.as_deref(),
            &d.role,
            &d.text,
        )?;
        if let Some((g, kind)) = d.group {
            let size = *size_of.get(&g).expect("every group's size is recorded");
            let seq: Vec<u32> = if self.tokenizer.is_default() {
                d.words
            } else {
                self.word_ids.words(self.tokenizer, &d.text)
            };
            let e = self
                .pending
                .entry(g)
                .or_insert_with(|| (kind, size, Vec::with_capacity(size)));
            e.2.push(Member { idx, seq });
            if e.2.len() == e.1 {
                let (kind, _, members) = self.pending.remove(&g).expect("present");
                size_of.remove(&g);
                self.ready.push((kind, members));
                if self.ready.len() >= BATCH {
                    self.flush_truth();
                }
            }
        }
        Ok(())
    }

    fn flush_truth(&mut self) {
        let ready = std::mem::take(&mut self.ready);
        let rows: Vec<Vec<Row>> = ready.par_iter().map(|(k, m)| group_rows(k, m)).collect();
        for r in rows {
            for row in &r {
                *self.pairs_by_kind.entry(row.kind.to_string()).or_default() += 1;
            }
            self.rows.extend(r);
        }
    }
}

fn group_rows(kind: &'static str, members: &[Member]) -> Vec<Row> {
    let mut table: hashbrown::HashMap<Vec<u32>, u32> = hashbrown::HashMap::new();
    let sets: Vec<Vec<u32>> = members
        .iter()
        .map(|m| shingle_set(&m.seq, SHINGLE_LEN, &mut table))
        .collect();
    let mut rows = Vec::new();
    for i in 0..members.len() {
        for j in i + 1..members.len() {
            let (x, y) = if members[i].idx < members[j].idx {
                (i, j)
            } else {
                (j, i)
            };
            let (sa, sb) = (&sets[x], &sets[y]);
            rows.push(Row::of(
                (members[x].idx, members[y].idx),
                (&members[x].seq, &members[y].seq),
                (sa.len(), sb.len()),
                intersection_size(sa, sb),
                kind,
            ));
        }
    }
    rows
}

/// Generates the corpus of a `stream` config into `dir` (`docs.jsonl`, `truth.csv`,
/// `params.json`, each atomically).
pub(super) fn generate_stream(cfg: &GenConfig, dir: &Path) -> Result<GenSummary> {
    generate_stream_window(cfg, dir, WINDOW)
}

fn generate_stream_window(cfg: &GenConfig, dir: &Path, window_len: usize) -> Result<GenSummary> {
    cfg.validate()?;
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut g = Gen::new(cfg);
    let n = cfg.docs;
    let m = &cfg.mix;
    let budget = |share: f64| (share * n as f64).round() as usize;
    // remaining documents per kind: edit, chain, template, containment, copy, unrelated
    let mut left = [0usize; 6];
    let mut used = 0usize;
    for (k, share) in [
        m.edit_families,
        m.version_chains,
        m.templates,
        m.containment,
        m.copies,
    ]
    .into_iter()
    .enumerate()
    {
        left[k] = budget(share).min(n - used);
        used += left[k];
    }
    left[5] = n - used;
    let path = dir.join("docs.jsonl");
    let mut sink = Sink {
        out: AtomicFile::create(&path)?,
        path,
        width: (n.saturating_sub(1)).to_string().len().max(4),
        written: 0,
        pending: hashbrown::HashMap::new(),
        ready: Vec::new(),
        rows: Vec::new(),
        pairs_by_kind: BTreeMap::new(),
        tokenizer: cfg.truth_tokenizer,
        word_ids: WordIds::default(),
    };
    let mut size_of: hashbrown::HashMap<usize, usize> = hashbrown::HashMap::new();
    let mut window: Vec<Draft> = Vec::with_capacity(window_len.min(n));
    // the shuffle draws from its own stream, so the window size changes the order only
    let mut order_rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    order_rng.set_stream(1);
    loop {
        let total: usize = left.iter().sum();
        if total == 0 {
            break;
        }
        let mut r = g.rng.gen_range(0..total);
        let mut kind = 0;
        while r >= left[kind] {
            r -= left[kind];
            kind += 1;
        }
        if kind == 5 {
            g.unrelated();
            left[5] -= 1;
        } else {
            let want = match kind {
                0 => g.len_in(cfg.family_size),
                1 => cfg.chain_length,
                2 => g.len_in(cfg.template_group),
                3 => 1 + g.len_in(cfg.containers),
                _ => 1 + g.len_in(cfg.copy_variants),
            };
            let size = want.min(left[kind]);
            if size < 2 {
                // too few left for a group: they become unrelated documents
                left[5] += left[kind];
                left[kind] = 0;
                continue;
            }
            match kind {
                0 => g.edit_family(size),
                1 => g.chain(size),
                2 => g.template_group(size),
                3 => g.containment(size),
                _ => g.copies(size),
            }
            left[kind] -= size;
            size_of.insert(g.groups, size);
        }
        for d in std::mem::take(&mut g.drafts) {
            if window.len() < window_len {
                window.push(d);
            } else {
                let i = order_rng.gen_range(0..window_len);
                let out = std::mem::replace(&mut window[i], d);
                sink.emit(out, &mut size_of)?;
            }
        }
    }
    window.shuffle(&mut order_rng);
    for d in window {
        sink.emit(d, &mut size_of)?;
    }
    sink.flush_truth();
    debug_assert!(sink.pending.is_empty());
    sink.out.commit()?;
    let docs = sink.written as usize;
    let mut rows = sink.rows;
    rows.par_sort_unstable_by_key(|r| (r.a, r.b));
    write_truth_csv(&dir.join("truth.csv"), &rows, sink.width)?;
    super::write::write_params(dir, cfg)?;
    Ok(GenSummary {
        docs,
        truth_pairs: rows.len(),
        pairs_by_kind: sink.pairs_by_kind,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::similarity::edit_similarity;
    use crate::eval::ShingleSets;
    use crate::gen::TRUTH_HEADER;

    fn cfg(docs: usize) -> GenConfig {
        GenConfig {
            seed: 11,
            docs,
            stream: true,
            ..GenConfig::default()
        }
    }

    fn run(c: &GenConfig, window: usize, threads: usize) -> (GenSummary, [Vec<u8>; 3]) {
        let dir = tempfile::tempdir().unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let s = pool
            .install(|| generate_stream_window(c, dir.path(), window))
            .unwrap();
        let read = |f: &str| std::fs::read(dir.path().join(f)).unwrap();
        (
            s,
            [read("docs.jsonl"), read("truth.csv"), read("params.json")],
        )
    }

    /// Same config: byte-identical files on 1 and 2 threads; another seed differs; the window
    /// size (a shuffle detail) changes the order only.
    #[test]
    fn deterministic_across_threads() {
        let c = cfg(1200);
        let (s1, a) = run(&c, 50, 1);
        let (s2, b) = run(&c, 50, 2);
        assert_eq!(s1, s2);
        assert!(a == b, "1 and 2 threads differ");
        let (_, d) = run(
            &GenConfig {
                seed: 12,
                ..c.clone()
            },
            50,
            1,
        );
        assert_ne!(a[0], d[0]);
        let (s3, e) = run(&c, 5000, 1);
        assert_ne!(a[0], e[0]);
        assert_eq!(s1.pairs_by_kind, s3.pairs_by_kind);
        // params.json round-trips to the config, stream flag included
        let back: GenConfig = serde_json::from_slice(&a[2]).unwrap();
        assert_eq!(back, c);
    }

    /// Every within-group pair is in the truth, with the values recomputed from the written
    /// text (eval's shingle sets, the quadratic edit distance on lowercased words); nothing
    /// else is; ids follow file order; every kind is made.
    #[test]
    fn truth_is_exact_within_groups() {
        let word = truth_checked(TruthTokenizer::Word);
        // whitespace words keep the punctuation ("word," is not "word"): other values
        let ws = truth_checked(TruthTokenizer::Whitespace);
        assert_eq!(word.len(), ws.len());
        assert_ne!(word, ws);
    }

    /// The truth.csv of a 900-document stream with `tok`, checked as above.
    fn truth_checked(tok: TruthTokenizer) -> Vec<u8> {
        let c = GenConfig {
            truth_tokenizer: tok,
            ..cfg(900)
        };
        let (s, [docs, truth, params]) = run(&c, 64, 2);
        let back: GenConfig = serde_json::from_slice(&params).unwrap();
        assert_eq!(back, c);
        let tok_key = std::str::from_utf8(&params)
            .unwrap()
            .contains("truth_tokenizer");
        assert_eq!(tok_key, !tok.is_default());
        let truth_bytes = truth.clone();
        let docs: Vec<serde_json::Value> = std::str::from_utf8(&docs)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(docs.len(), 900);
        assert_eq!(s.docs, 900);
        let mut fams: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, d) in docs.iter().enumerate() {
            assert_eq!(d["id"].as_str().unwrap(), format!("d{i:04}"));
            if let Some(f) = d["family"].as_str() {
                fams.entry(f.to_string()).or_default().push(i);
            }
        }
        let text = |i: usize| docs[i]["text"].as_str().unwrap().to_string();
        let sets = ShingleSets::from_texts_with(
            (0..docs.len()).map(|i| (format!("d{i:04}"), text(i))),
            tok,
        );
        let mut want: BTreeMap<(String, String), (f64, f64, String)> = BTreeMap::new();
        for (f, m) in &fams {
            let kind = f.split('-').next().unwrap().to_string();
            for x in 0..m.len() {
                for y in x + 1..m.len() {
                    let (a, b) = (format!("d{:04}", m[x]), format!("d{:04}", m[y]));
                    let es = edit_similarity(&tok.words(&text(m[x])), &tok.words(&text(m[y])));
                    let r = sets.resemblance(&a, &b).unwrap();
                    want.insert((a, b), (r, es, kind.clone()));
                }
            }
        }
        let truth = std::str::from_utf8(&truth).unwrap();
        let mut lines = truth.lines();
        assert_eq!(lines.next().unwrap(), TRUTH_HEADER);
        let mut got = 0;
        let mut prev = (String::new(), String::new());
        for l in lines {
            let f: Vec<&str> = l.split(',').collect();
            let key = (f[0].to_string(), f[1].to_string());
            assert!(key > prev, "truth not sorted at {l}");
            prev = key.clone();
            let (r, es, kind) = want.get(&key).unwrap_or_else(|| panic!("extra row {l}"));
            assert!(
                (f[2].parse::<f64>().unwrap() - r).abs() < 1e-6,
                "{l}: resemblance {r}"
            );
            assert!(
                (f[5].parse::<f64>().unwrap() - es).abs() < 1e-6,
                "{l}: edit {es}"
            );
            assert_eq!(f[6], kind);
            got += 1;
        }
        assert_eq!(got, want.len());
        assert_eq!(s.truth_pairs, got);
        for k in ["chain", "copy", "template", "containment", "edit"] {
            assert!(
                s.pairs_by_kind.get(k).copied().unwrap_or(0) > 0,
                "no {k} pairs"
            );
        }
        truth_bytes
    }

    #[test]
    fn docs_limit_depends_on_stream() {
        let mut c = cfg(2_000_000);
        assert!(c.validate().is_ok());
        c.stream = false;
        assert!(c.validate().unwrap_err().to_string().contains("stream"));
        assert!(super::super::generate(&cfg(10)).is_err());
    }
}
