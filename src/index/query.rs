//! Queries: candidates from the inverted context or the LSH band table, estimates, the
//! best hits, and exact measures re-read from the sources; [`QuerySketcher`] sketches query
//! texts with the index's parameters. [`Index::query_texts`] is the whole query of
//! documents ([`Query`]: read from files or a JSONL / Parquet corpus, or given as texts):
//! sketch, [`Index::query_image`], and with [`QueryOptions::exact`] the exact measures;
//! `fimdup index query` prints its [`QueryResult`]s and the Python `Index.query` converts
//! them, neither adds to it.
//!
//! Invariants: context candidates lose nothing ([`min_shared`] is a bound every document at
//! or above the threshold satisfies), so [`Index::query_image`] equals a brute-force scan;
//! [`Index::query_texts`] answers the queries in their order whatever the thread count.

use std::path::{Path, PathBuf};

use hashbrown::HashMap;

use super::config::check_threshold;
use super::segment::Table;
use super::{Index, Measure};
use crate::corpus::{CorpusConfig, DuplicateIds, Format};
use crate::sketch::pipeline::for_each_canonical_batch;
use crate::sketch::{
    estimate_resemblance, super_shingles, Image, Scheme, Scratch, SketchConfig, Sketcher,
};
use crate::text::{Canonical, Canonicalizer};
use crate::{DocId, Error, Result};

/// How query candidates are found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Candidates {
    /// Documents sharing enough image elements (inverted context); exact with respect to a
    /// brute-force scan.
    #[default]
    Context,
    /// Documents agreeing on a whole LSH band (positional schemes only; may miss
    /// documents, as LSH does, and is faster for very common elements).
    Lsh,
}

/// Options of one query; the defaults are every entry point's (`fimdup index query`, the
/// Python `Index.query`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueryOptions {
    /// Report documents whose estimated measure is `>= threshold`, in `(0, 1]`.
    pub threshold: f64,
    /// Resemblance or containment.
    pub measure: Measure,
    /// Keep the best `top` hits (`None` = all).
    pub top: Option<usize>,
    /// Candidate generation.
    pub candidates: Candidates,
    /// Also compute the exact measure from the sources (an index built with
    /// `keep_sources`): [`Index::query_texts`] fills [`Hit::exact`]; an image alone
    /// ([`Index::query_image`]) has no shingle set to compare and ignores it.
    pub exact: bool,
}

impl Default for QueryOptions {
    fn default() -> Self {
        QueryOptions {
            threshold: 0.5,
            measure: Measure::Resemblance,
            top: None,
            candidates: Candidates::Context,
            exact: false,
        }
    }
}

/// A query document: a name (its file, its id in a corpus of queries, its position) and
/// its raw text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    /// What the query is called in the results.
    pub name: String,
    /// The raw text (canonicalized with the index's options).
    pub text: String,
}

impl Query {
    /// One query per file (`-`: standard input; `*.gz`, `*.zst` decompressed), named by its
    /// path; bytes that are not UTF-8 are replaced.
    pub fn read_files(paths: &[PathBuf]) -> Result<Vec<Query>> {
        paths
            .iter()
            .map(|p| {
                let bytes = crate::io::read_all(p)?;
                Ok(Query {
                    name: p.display().to_string(),
                    text: String::from_utf8_lossy(&bytes).into_owned(),
                })
            })
            .collect()
    }

    /// The documents of a JSONL file or a Parquet file / directory (the text in field or
    /// column `text_field`, the name in `id_field`), named by their ids, which need not be
    /// unique.
    pub fn read_corpus(path: &Path, text_field: &str, id_field: &str) -> Result<Vec<Query>> {
        let format = match Format::guess(path) {
            Ok(Format::Parquet) => Format::Parquet,
            _ => Format::Jsonl,
        };
        let cfg = CorpusConfig {
            format: Some(format),
            text_field: text_field.to_string(),
            id_field: id_field.to_string(),
            text_column: text_field.to_string(),
            id_column: id_field.to_string(),
            duplicate_ids: DuplicateIds::Keep,
            ..CorpusConfig::default()
        };
        Ok(crate::corpus::open(path, &cfg)?
            .read_all()?
            .into_iter()
            .map(|d| Query {
                name: d.ext_id,
                text: d.text,
            })
            .collect())
    }
}

/// The answer to one [`Query`] (serialized as `fimdup index query --json` prints it).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct QueryResult {
    /// The query's name.
    pub query: String,
    /// The query was too short to sketch (no shingle): it finds nothing.
    pub empty_image: bool,
    /// The indexed documents it resembles (contains), best first.
    pub hits: Vec<Hit>,
}

/// One query answer.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Hit {
    /// The indexed document.
    pub doc: DocId,
    /// Its external id.
    pub ext_id: String,
    /// Tag of the sweep it was last seen in.
    pub last_seen: String,
    /// Estimated measure.
    pub estimate: f64,
    /// Exact measure from the shingle sets (only with sources and `--exact`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact: Option<f64>,
}

/// Smallest number of shared image elements a document must have with a query image `q`
/// for its estimated `measure` to reach `t` (`t > 0`), so that counting shared elements
/// loses nothing:
/// * k-mins / one-permutation / icws: `est = equal positions / n`, so `>= ceil(t n)`; on
///   b-bit images `>= ceil(n (C + (1 - C) t))`, `C = 2^-b`;
/// * bottom-k: `est = both / taken` with `taken = min(n, |Q u D|) >= min(n, |Q|)` and
///   `both <= |Q n D|`, so `>= ceil(t min(n, |Q|))`;
/// * mod-m resemblance `|Q n D| / |Q u D|` and containment `|Q n D| / |Q|`: `>= ceil(t |Q|)`.
///
/// Always at least 1 (a document sharing nothing estimates 0). A tiny slack guards against
/// rounding in `t * m`.
pub fn min_shared(q: &Image, cfg: &SketchConfig, t: f64) -> usize {
    let m = match cfg.scheme {
        Scheme::KMins | Scheme::OnePermutation | Scheme::Icws => cfg.size,
        Scheme::BottomK => cfg.size.min(q.len()),
        Scheme::ModM => q.len(),
        Scheme::SimHash => unreachable!("an index refuses simhash images"),
    };
    // b-bit: `est = (c/n - C) / (1 - C)` reaches t from `c = n (C + (1 - C) t)`.
    let t = cfg.bits.map_or(t, |b| crate::sketch::bbit::agreement(t, b));
    ((t * m as f64 - 1e-9).ceil() as usize).max(1)
}

impl Index {
    /// The main sketcher and (when the index keeps mod-m images) the containment one.
    fn sketchers(&self) -> Result<(Sketcher, Option<Sketcher>)> {
        let main = Sketcher::new(self.params.shingle, self.params.sketch)?;
        let cont = match &self.cont_params {
            Some(p) => Some(Sketcher::new(p.shingle, p.sketch)?),
            None => None,
        };
        Ok((main, cont))
    }

    /// A sketcher bundle for query texts.
    pub fn query_sketcher(&self) -> Result<QuerySketcher> {
        let (main, cont) = self.sketchers()?;
        Ok(QuerySketcher {
            canon: Canonicalizer::new(self.text_config())?,
            main,
            cont,
        })
    }

    /// Documents with estimated `measure(q, d) >= t` among those `keep` accepts, found via
    /// the table `table` of every segment (unsorted); removed documents are never found.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn scan(
        &self,
        q: &Image,
        table: Table,
        scheme: Scheme,
        t: f64,
        measure: Measure,
        counts: &mut HashMap<u32, u32>,
        keep: impl Fn(u32) -> bool,
    ) -> Result<Vec<(u32, f64)>> {
        self.scan_in(q, table, scheme, t, measure, counts, |_| true, keep)
    }

    /// [`Index::scan`] of the segments (by position) `in_segment` accepts only: the caller
    /// knows that `keep` accepts no document of the others.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn scan_in(
        &self,
        q: &Image,
        table: Table,
        scheme: Scheme,
        t: f64,
        measure: Measure,
        counts: &mut HashMap<u32, u32>,
        in_segment: impl Fn(usize) -> bool,
        keep: impl Fn(u32) -> bool,
    ) -> Result<Vec<(u32, f64)>> {
        if q.is_empty() {
            return Ok(Vec::new());
        }
        let (cfg, images) = match measure {
            Measure::Resemblance => (&self.params.sketch, &self.images),
            Measure::Containment => match &self.cont_params {
                Some(p) => (&p.sketch, &self.cont_images),
                None => (&self.params.sketch, &self.images),
            },
        };
        let need = min_shared(q, cfg, t) as u32;
        counts.clear();
        let mut keys = Vec::with_capacity(q.len());
        q.keys(scheme, &mut keys);
        let any_deleted = !self.deleted.is_empty();
        // Each document is in exactly one segment, so counting segment by segment counts
        // every document's shared keys once.
        for (i, s) in self.segments.iter().enumerate() {
            let postings = s.table(table);
            if postings.is_empty() || !in_segment(i) {
                continue;
            }
            for &k in &keys {
                for &d in postings.get(k)? {
                    let d = s.base + d;
                    if keep(d) && !(any_deleted && self.deleted.contains(d)) {
                        *counts.entry(d).or_default() += 1;
                    }
                }
            }
        }
        let mut out = Vec::new();
        for (&d, &c) in counts.iter() {
            if c < need {
                continue;
            }
            let im = images.get(d)?;
            let est = match measure {
                Measure::Resemblance => estimate_resemblance(q, &im, cfg),
                Measure::Containment => crate::shingle::containment(q.values(), im.values()),
            };
            if est >= t {
                out.push((d, est));
            }
        }
        Ok(out)
    }

    /// True when containment can be estimated (mod-m main images or kept mod-m images).
    pub fn has_containment(&self) -> bool {
        self.params.sketch.scheme == Scheme::ModM || self.cont_params.is_some()
    }

    /// The indexed documents whose estimated measure with the query is `>= threshold`,
    /// best first (ties by DocId). `q` is the query's image with the index's parameters;
    /// `qc` its mod-m containment image when the index keeps them (see [`QuerySketcher`]).
    pub fn query_image(
        &self,
        q: &Image,
        qc: Option<&Image>,
        opts: &QueryOptions,
    ) -> Result<Vec<Hit>> {
        check_threshold(opts.threshold)?;
        let scheme = self.params.sketch.scheme;
        let mut counts = HashMap::new();
        let t = opts.threshold;
        let mut hits = match (opts.measure, opts.candidates) {
            (Measure::Containment, Candidates::Lsh) => {
                return Err(Error::config(
                    "LSH candidates estimate resemblance only; use the context candidates",
                ))
            }
            (Measure::Containment, Candidates::Context) => {
                if !self.has_containment() {
                    return Err(Error::config(format!(
                        "this index uses {scheme} images, which cannot estimate containment; \
                         rebuild it keeping a mod-m image per document (containment images) \
                         or with the mod-m scheme"
                    )));
                }
                if self.cont_params.is_some() {
                    let qc = qc.ok_or_else(|| {
                        Error::config("a containment query needs the query's mod-m image")
                    })?;
                    self.scan(
                        qc,
                        Table::Containment,
                        Scheme::ModM,
                        t,
                        Measure::Containment,
                        &mut counts,
                        |_| true,
                    )?
                } else {
                    let p = Table::Context;
                    self.scan(q, p, scheme, t, Measure::Containment, &mut counts, |_| true)?
                }
            }
            (Measure::Resemblance, Candidates::Context) => {
                let p = Table::Context;
                self.scan(q, p, scheme, t, Measure::Resemblance, &mut counts, |_| true)?
            }
            (Measure::Resemblance, Candidates::Lsh) => {
                let Some((b, r)) = self.bands else {
                    return Err(Error::config(format!(
                        "LSH candidates need a positional scheme (k-mins, one-permutation), \
                         this index uses {scheme}"
                    )));
                };
                let cfg = &self.params.sketch;
                let mut cands: Vec<u32> = Vec::new();
                for k in super_shingles(q, cfg, b as usize, r as usize) {
                    for s in &self.segments {
                        cands.extend(s.band_table.get(k)?.iter().map(|&d| s.base + d));
                    }
                }
                cands.sort_unstable();
                cands.dedup();
                cands.retain(|&d| !self.deleted.contains(d));
                let mut hits = Vec::new();
                for d in cands {
                    let e = estimate_resemblance(q, &*self.images.get(d)?, cfg);
                    if e >= t {
                        hits.push((d, e));
                    }
                }
                hits
            }
        };
        hits.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        if let Some(n) = opts.top {
            hits.truncate(n);
        }
        Ok(hits
            .into_iter()
            .map(|(d, e)| Hit {
                doc: DocId(d),
                ext_id: self.ext_ids[d as usize].to_string(),
                last_seen: self.last_seen(DocId(d)).to_string(),
                estimate: e,
                exact: None,
            })
            .collect())
    }

    /// An error unless the index keeps its sources (for exact measures).
    fn check_sources(&self) -> Result<()> {
        if !self.cfg.keep_sources {
            return Err(Error::config(
                "exact measures need an index that keeps its sources (built with keep_sources)",
            ));
        }
        Ok(())
    }

    /// Every query's hits, in the order of `queries` ([`Index::query_image`] of the query's
    /// images, made with the index's parameters; with [`QueryOptions::exact`] also the
    /// exact measures, [`Index::exact_measures`]). The queries are sketched and answered in
    /// parallel on the current rayon pool; the result does not depend on it.
    pub fn query_texts(&self, queries: &[Query], opts: &QueryOptions) -> Result<Vec<QueryResult>> {
        use rayon::prelude::*;
        check_threshold(opts.threshold)?;
        let qs = self.query_sketcher()?;
        let answered: Vec<(QueryResult, Option<Vec<u64>>)> = queries
            .par_iter()
            .map(|q| {
                let (c, img, cimg) = qs.sketch_text(&q.text);
                let hits = self.query_image(&img, cimg.as_ref(), opts)?;
                let set = (opts.exact && !hits.is_empty()).then(|| qs.shingle_set(&c));
                let result = QueryResult {
                    query: q.name.clone(),
                    empty_image: img.is_empty(),
                    hits,
                };
                Ok((result, set))
            })
            .collect::<Result<_>>()?;
        if opts.exact {
            self.check_sources()?;
        }
        answered
            .into_iter()
            .map(|(mut r, set)| {
                if let Some(set) = set {
                    self.exact_measures(&set, opts.measure, &mut r.hits)?;
                }
                Ok(r)
            })
            .collect()
    }

    /// Fills [`Hit::exact`] from the sources (needs an index built with `keep_sources`):
    /// re-reads the corpora of the hits' sweeps and computes the exact measure of the
    /// query's shingle set `qset` with each hit's.
    pub fn exact_measures(&self, qset: &[u64], measure: Measure, hits: &mut [Hit]) -> Result<()> {
        self.check_sources()?;
        let mut by_sweep: HashMap<u32, Vec<(u64, usize)>> = HashMap::new();
        for (h, hit) in hits.iter().enumerate() {
            let d = hit.doc.index();
            by_sweep
                .entry(self.first_sweep[d])
                .or_default()
                .push((self.source[d], h));
        }
        let canon = Canonicalizer::new(self.text_config())?;
        let mut sweeps: Vec<_> = by_sweep.into_iter().collect();
        sweeps.sort_unstable_by_key(|(s, _)| *s);
        for (s, mut want) in sweeps {
            want.sort_unstable();
            let sw = &self.sweeps[s as usize];
            let path = PathBuf::from(&sw.input);
            let mut ordinal = 0u64;
            let mut w = 0usize;
            for_each_canonical_batch(
                &path,
                &sw.corpus.to_config()?,
                &canon,
                &|_| {},
                |batch, canon_docs| {
                    for (doc, c) in batch.iter().zip(&canon_docs) {
                        while w < want.len() && want[w].0 == ordinal {
                            let hit = &mut hits[want[w].1];
                            if doc.ext_id != hit.ext_id {
                                return Err(Error::format(
                                &path,
                                format!(
                                    "source changed since indexing: document {ordinal} is {:?}, the index expected {:?}",
                                    doc.ext_id, hit.ext_id
                                ),
                            ));
                            }
                            let set = crate::shingle::shingle_set(c, &self.params.shingle);
                            hit.exact = Some(match measure {
                                Measure::Resemblance => crate::shingle::resemblance(qset, &set),
                                Measure::Containment => crate::shingle::containment(qset, &set),
                            });
                            w += 1;
                        }
                        ordinal += 1;
                    }
                    Ok(())
                },
            )?;
            if w < want.len() {
                return Err(Error::format(
                    &path,
                    format!("source changed since indexing: it has only {ordinal} documents"),
                ));
            }
        }
        Ok(())
    }
}

/// Canonicalizer and sketchers of an index, for query documents.
pub struct QuerySketcher {
    /// Text canonicalizer with the index's options.
    pub canon: Canonicalizer,
    main: Sketcher,
    cont: Option<Sketcher>,
}

impl QuerySketcher {
    /// [`QuerySketcher::sketch_canonical`] of every document of a batch, in parallel, in order.
    pub fn sketch_batch(&self, canon: &[Canonical]) -> Vec<(Image, Option<Image>)> {
        use rayon::prelude::*;
        canon
            .par_iter()
            .map_init(Scratch::default, |s, c| self.sketch_canonical(c, s))
            .collect()
    }

    /// The main image and (when the index keeps them) the mod-m containment image.
    pub fn sketch_canonical(&self, c: &Canonical, s: &mut Scratch) -> (Image, Option<Image>) {
        (
            self.main.sketch_with(c, s),
            self.cont.as_ref().map(|k| k.sketch_with(c, s)),
        )
    }

    /// Canonicalizes and sketches a raw text.
    pub fn sketch_text(&self, raw: &str) -> (Canonical, Image, Option<Image>) {
        let c = self.canon.canonicalize(raw);
        let (a, b) = self.sketch_canonical(&c, &mut Scratch::default());
        (c, a, b)
    }

    /// The exact shingle set of a canonical text.
    pub fn shingle_set(&self, c: &Canonical) -> Vec<u64> {
        crate::shingle::shingle_set(c, self.main.shingle_config())
    }
}
