//! A sweep's curves ([`Curves`]): per method, the precision-recall curve of its pairs
//! ranked by their scores, with the average precision; per (method, threshold), the
//! S-curve of the truth's pairs against the method's theoretical detection probability
//! ([`crate::eval::curves`]); `prcurve.csv`, `scurve.csv`, `prcurve.svg`, `scurve.svg`.
//!
//! Ranking: a method's pairs are those of its run at the loosest threshold of the grid (the
//! smallest resemblance or k: the run that finds the most), each scored by the exact
//! resemblance when the run computed it (`exact`, verification), else the method's
//! estimate from the images (agreeing positions / n for lsh, the shared elements'
//! estimate for concept and union-find), else its shared count (super shingles); member
//! pairs that were no edge of the method have no score and rank last. A scored external
//! prediction is ranked by its score column. With `--labeled-only`, unlisted pairs are left
//! out, as in the rows.
//!
//! Similarity of the truth's pairs: the exact resemblance of the two documents' full
//! shingle sets under the sweep's own canonical form and shingling (what the sketches
//! estimate, so what the theory is a function of), computed from the corpus; a similarity
//! column of the truth (measured with other words or shingles) is not used. The pairs are
//! every listed pair of a pair-list truth (positive or negative), the positives of a cluster
//! or PAN truth; pairs naming a document the corpus lacks are left out. A run's S-curve
//! bins them by similarity and counts those among the run's pairs. Documents of equal
//! shingle sets (a document and its copies) have equal images, so the pairs they make with
//! one other document are found or missed together: one event of the S-curve's error.
//!
//! Models ([`detection`], per pair, from the sizes of its two shingle sets and their
//! intersection, measured as the similarity is): lsh (bands, rows and its filter's k from
//! the run), concept and union-find (k of n: exact on k-mins positions, the exact law of
//! bottom-k images, one-permutation bins simulated), super-shingle on positional images,
//! exact (a step); with exact verification the candidates' model times the verified step.
//! None for mod-m or weighted images, nor with the containment measure (no S-curve then at
//! all). The simulations of one-permutation images are made once per pair's sizes for the
//! whole sweep. The table and the plot show the same band, the theory ± three standard
//! errors, and the table flags every bin outside it with its remark.
//!
//! Invariants: everything here is computed in row order from sorted or input-ordered lists,
//! so the files are byte-identical for any number of threads.

use std::path::Path;

use rayon::prelude::*;
use serde::Serialize;

use super::plot::{self, Legend, Panel, Series};
use crate::cluster::{ClusterConfig, ClusterOutput, Measure};
use crate::eval::curves::{
    pr_curve, s_curve, Detection, PairSets, PrCurve, Remark, SBin, SPair, Simulations, BAND_SE,
};
use crate::eval::{Labeled, Labels, Prediction, TruthTable};
use crate::shingle::shingle_set;
use crate::sketch::pipeline::PipelineConfig;
use crate::sketch::Scheme;
use crate::sorted::intersection_size;
use crate::text::Canonicalizer;
use crate::{DocId, Error, Result};

/// The precision-recall curve of one method (or scored external prediction).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MethodPr {
    /// The method.
    pub method: String,
    /// The threshold of the run whose pairs are ranked (NaN for an external prediction).
    pub threshold: f64,
    /// What the pairs are scored by.
    pub score: String,
    /// Pairs ranked (unscored ones included).
    pub pairs: u64,
    /// The curve.
    pub curve: PrCurve,
}

/// The S-curve of one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SCurve {
    /// The method.
    pub method: String,
    /// The run's threshold.
    pub threshold: f64,
    /// The model's formula (`None`: no model for this run).
    pub model: Option<String>,
    /// The bins.
    pub bins: Vec<SBin>,
}

/// A sweep's curves.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Curves {
    /// Per method and scored external prediction, in row order.
    pub pr: Vec<MethodPr>,
    /// Per (method, threshold) row of the methods, in row order (empty with the containment
    /// measure or when no truth pair has a similarity of 0.5 or more).
    pub s: Vec<SCurve>,
    /// The truth's pairs with a similarity, and how many of them are at 0.5 or above.
    pub measured: (u64, u64),
}

/// The theoretical detection probability of a run of `method` (see the module docs):
/// `cfg` is the run's configuration, `out` its output, `scheme` the images it ran on.
pub fn detection(
    cfg: &ClusterConfig,
    out: &ClusterOutput,
    scheme: Scheme,
    weighted: bool,
) -> Option<Detection> {
    detection_bits(cfg, out, scheme, weighted, None)
}

/// [`detection`] on images keeping `bits` bits of each value (b-bit images:
/// [`Detection::b_bit`], `None` where no law is modelled).
pub fn detection_bits(
    cfg: &ClusterConfig,
    out: &ClusterOutput,
    scheme: Scheme,
    weighted: bool,
    bits: Option<u8>,
) -> Option<Detection> {
    let s = &out.summary;
    if cfg.measure == Measure::Containment {
        return None;
    }
    let n = u32::try_from(s.image_size).ok()?;
    let base = cfg
        .method
        .detection(cfg, s, (!weighted).then_some(scheme), n)?;
    let base = match bits {
        Some(b) if !matches!(base, Detection::Step { .. }) => Detection::b_bit(base, b)?,
        _ => base,
    };
    Some(match (s.candidate_threshold, &base) {
        // A step is the answer itself, verified or not.
        (Some(_), m) if !matches!(m, Detection::Step { .. }) => Detection::Verified {
            candidates: Box::new(base),
            threshold: s.threshold?,
        },
        _ => base,
    })
}

/// Gathers the curves while a sweep runs.
pub(crate) struct CurveCollector {
    /// The truth's pairs at similarity 0.5 or more, with their sets' sizes and their event
    /// (see [`crate::eval::SPair`]) (empty: no S-curves).
    binned: Vec<(String, String, PairSets, u64)>,
    /// The simulations of the models that need them, by the pairs' sizes.
    sims: Simulations,
    /// Their documents' DocIds, ascending (found on the first run).
    binned_ids: Option<Vec<Option<(DocId, DocId)>>>,
    /// The loosest threshold of the grid.
    loosest: f64,
    containment: bool,
    out: Curves,
}

impl CurveCollector {
    /// Measures the similarity of the truth's pairs (see the module docs) on `docs`.
    pub fn new<'t>(
        pipeline: &PipelineConfig,
        containment: bool,
        truth: &TruthTable,
        labels: &Labels,
        thresholds: &[f64],
        docs: impl IntoIterator<Item = (&'t str, &'t str)>,
    ) -> Result<Self> {
        let loosest = thresholds.iter().copied().fold(f64::INFINITY, f64::min);
        let mut c = CurveCollector {
            binned: Vec::new(),
            sims: Simulations::default(),
            binned_ids: None,
            loosest,
            containment,
            out: Curves::default(),
        };
        if containment {
            return Ok(c);
        }
        let listed = truth.listed();
        let pairs: Vec<(String, String)> = match listed.as_pairs() {
            Some(l) => l.sorted_pairs(),
            None => labels.sorted_pairs(),
        };
        let mut index: hashbrown::HashMap<&str, &str> = hashbrown::HashMap::new();
        for (id, text) in docs {
            index.entry(id).or_insert(text);
        }
        let mut needed: Vec<&str> = pairs
            .iter()
            .flat_map(|(a, b)| [a.as_str(), b.as_str()])
            .filter(|d| index.contains_key(d))
            .collect();
        needed.sort_unstable();
        needed.dedup();
        let canon = Canonicalizer::new(pipeline.text.clone())?;
        let sets: Vec<Vec<u64>> = needed
            .par_iter()
            .map(|d| shingle_set(&canon.canonicalize(index[d]), &pipeline.shingle))
            .collect();
        // documents of equal shingle sets (a document and its copies) have equal images:
        // one class
        let mut order: Vec<usize> = (0..sets.len()).collect();
        order.sort_by(|&i, &j| sets[i].cmp(&sets[j]));
        let mut class = vec![0u64; sets.len()];
        for w in 1..order.len() {
            let (prev, cur) = (order[w - 1], order[w]);
            class[cur] = class[prev] + u64::from(sets[cur] != sets[prev]);
        }
        let at = |d: &str| needed.binary_search(&d).ok();
        let mut measured = 0u64;
        for (a, b) in &pairs {
            let (Some(i), Some(j)) = (at(a), at(b)) else {
                continue;
            };
            let (x, y) = (&sets[i], &sets[j]);
            let event = class[i].min(class[j]) << 32 | class[i].max(class[j]);
            measured += 1;
            let sizes = PairSets::new(
                x.len() as u64,
                y.len() as u64,
                intersection_size(x, y) as u64,
            )?;
            if sizes.resemblance() >= 0.5 {
                c.binned.push((a.clone(), b.clone(), sizes, event));
            }
        }
        c.out.measured = (measured, c.binned.len() as u64);
        Ok(c)
    }

    /// One run of a method: its S-curve, and its ranking when it ran at the loosest
    /// threshold.
    #[allow(clippy::too_many_arguments)]
    pub fn add_run(
        &mut self,
        method: &str,
        tval: f64,
        res: &ClusterOutput,
        ids: &[String],
        pred: &Prediction,
        labels: &Labels,
        listed: Option<&Labeled>,
        positives: u64,
        model: Option<Detection>,
    ) {
        if !self.binned.is_empty() {
            let binned = &self.binned;
            let doc_ids = self.binned_ids.get_or_insert_with(|| {
                let mut at: hashbrown::HashMap<&str, u32> = hashbrown::HashMap::new();
                for (i, id) in ids.iter().enumerate() {
                    at.entry(id.as_str()).or_insert(i as u32);
                }
                binned
                    .iter()
                    .map(|(a, b, _, _)| {
                        let (x, y) = (*at.get(a.as_str())?, *at.get(b.as_str())?);
                        Some((DocId(x.min(y)), DocId(x.max(y))))
                    })
                    .collect()
            });
            // An edge of the method: an edge between the two (or their representatives:
            // an output pair carrying the edge's count), or two documents collapsed as one.
            let edge = |p: Option<(DocId, DocId)>| {
                p.is_some_and(|k| {
                    res.edges.binary_search_by_key(&k, |e| (e.a, e.b)).is_ok()
                        || res
                            .pairs
                            .binary_search_by_key(&k, |e| (e.a, e.b))
                            .is_ok_and(|i| res.pairs[i].shared.is_some())
                })
            };
            let pairs: Vec<SPair> = binned
                .iter()
                .zip(doc_ids.iter())
                .map(|((a, b, sets, event), &p)| SPair {
                    sets: *sets,
                    found: pred.contains(a, b),
                    edge: edge(p),
                    event: *event,
                })
                .collect();
            let bins = s_curve(&pairs, model.as_ref(), &mut self.sims);
            self.out.s.push(SCurve {
                method: method.to_string(),
                threshold: tval,
                model: model.map(|m| m.describe()),
                bins,
            });
        }
        if tval != self.loosest || self.out.pr.iter().any(|p| p.method == method) {
            return;
        }
        let what = res
            .pairs
            .iter()
            .find_map(|p| {
                if p.exact.is_some() {
                    Some("exact")
                } else if p.estimate.is_some() {
                    Some("estimate")
                } else {
                    p.shared.map(|_| "shared")
                }
            })
            .unwrap_or("none");
        let measure = if self.containment {
            "containment"
        } else {
            "resemblance"
        };
        let score = match what {
            "exact" => format!("exact {measure}"),
            "estimate" => format!("{measure} estimate from the images"),
            "shared" => "shared super shingles".to_string(),
            _ => "no score".to_string(),
        };
        let ranked: Vec<(Option<f64>, bool)> = res
            .pairs
            .iter()
            .filter_map(|p| {
                let (a, b) = (ids[p.a.index()].as_str(), ids[p.b.index()].as_str());
                listed.is_none_or(|l| l.contains(a, b)).then(|| {
                    let s = p.exact.or(p.estimate).or(p.shared.map(f64::from));
                    (s, labels.contains(a, b))
                })
            })
            .collect();
        self.out.pr.push(MethodPr {
            method: method.to_string(),
            threshold: tval,
            score,
            pairs: ranked.len() as u64,
            curve: pr_curve(ranked, positives),
        });
    }

    /// A scored external prediction's ranking.
    pub fn add_external(
        &mut self,
        ext: &crate::eval::External,
        labels: &Labels,
        listed: Option<&Labeled>,
        positives: u64,
    ) {
        if !ext.is_scored() {
            return;
        }
        let ranked: Vec<(Option<f64>, bool)> = ext
            .pairs_with_scores()
            .filter(|(a, b, _)| listed.is_none_or(|l| l.contains(a, b)))
            .map(|(a, b, s)| (s, labels.contains(a, b)))
            .collect();
        self.out.pr.push(MethodPr {
            method: ext.name().to_string(),
            threshold: f64::NAN,
            score: "its score column".into(),
            pairs: ranked.len() as u64,
            curve: pr_curve(ranked, positives),
        });
    }

    /// The curves gathered.
    pub fn finish(self) -> Curves {
        self.out
    }
}

/// A number as the CSV files write it (Rust's shortest round-trip form, as `results.csv`
/// has it; empty for NaN).
fn num(v: f64) -> String {
    if v.is_nan() {
        String::new()
    } else {
        format!("{v:?}")
    }
}

/// Writes `prcurve.csv`: `method,run_threshold,score,found,common,precision,recall,
/// average_precision`, one row per point of every curve.
pub fn write_pr_csv(path: &Path, curves: &Curves) -> Result<()> {
    let mut w = crate::corpus::dialect::writer(false).from_writer(Vec::new());
    let e = |e: csv::Error| Error::format(path, format!("writing CSV: {e}"));
    w.write_record([
        "method",
        "run_threshold",
        "score",
        "found",
        "common",
        "precision",
        "recall",
        "average_precision",
    ])
    .map_err(e)?;
    for m in &curves.pr {
        let ap = m.curve.average_precision.map_or(String::new(), num);
        for p in &m.curve.points {
            w.write_record([
                m.method.clone(),
                num(m.threshold),
                if p.score.is_finite() {
                    num(p.score)
                } else {
                    "unscored".into()
                },
                p.found.to_string(),
                p.common.to_string(),
                num(p.precision),
                num(p.recall),
                ap.clone(),
            ])
            .map_err(e)?;
        }
    }
    let bytes = w.into_inner().map_err(|x| e(x.into_error().into()))?;
    crate::io::write_atomic(path, &bytes)
}

/// Writes `scurve.csv`: `method,threshold,lo,hi,pairs,found,fraction,edges,edge_fraction,
/// theory,stderr,simulation_stderr,band_lo,band_hi,remarks`, one row per bin of every run
/// (empty fields where there is no value; the band is the theory ± three standard errors;
/// remarks are the flags of the bin's [`Remark`]s, joined by `; `).
pub fn write_s_csv(path: &Path, curves: &Curves) -> Result<()> {
    let mut w = crate::corpus::dialect::writer(false).from_writer(Vec::new());
    let e = |e: csv::Error| Error::format(path, format!("writing CSV: {e}"));
    w.write_record([
        "method",
        "threshold",
        "lo",
        "hi",
        "pairs",
        "found",
        "fraction",
        "edges",
        "edge_fraction",
        "theory",
        "stderr",
        "simulation_stderr",
        "band_lo",
        "band_hi",
        "remarks",
    ])
    .map_err(e)?;
    for c in &curves.s {
        for b in &c.bins {
            w.write_record([
                c.method.clone(),
                num(c.threshold),
                num(b.lo),
                num(b.hi),
                b.pairs.to_string(),
                b.found.to_string(),
                num(b.fraction),
                b.edges.to_string(),
                num(b.edge_fraction),
                b.theory.map_or(String::new(), num),
                b.stderr.map_or(String::new(), num),
                b.simulation_stderr.map_or(String::new(), num),
                b.band().map_or(String::new(), |x| num(x.0)),
                b.band().map_or(String::new(), |x| num(x.1)),
                flags(&b.remarks),
            ])
            .map_err(e)?;
        }
    }
    let bytes = w.into_inner().map_err(|x| e(x.into_error().into()))?;
    crate::io::write_atomic(path, &bytes)
}

/// At most this many points of a precision-recall curve are drawn (evenly chosen, the
/// first and last kept); the CSV has them all.
const MAX_DRAWN: usize = 400;

/// `prcurve.svg`: precision against recall, one line per ranking, labelled with its AP.
pub fn pr_svg(curves: &Curves) -> Result<String> {
    let series: Vec<Series> = curves
        .pr
        .iter()
        .map(|m| {
            let pts = &m.curve.points;
            let step = pts.len().div_ceil(MAX_DRAWN).max(1);
            let mut drawn: Vec<(f64, f64)> = pts
                .iter()
                .enumerate()
                .filter(|(i, _)| i % step == 0 || *i + 1 == pts.len())
                .map(|(_, p)| (p.recall, p.precision))
                .collect();
            drawn.dedup();
            Series {
                label: match m.curve.average_precision {
                    Some(ap) => format!("{} (AP {ap:.3})", m.method),
                    None => m.method.clone(),
                },
                points: drawn,
                band: Vec::new(),
                ..Default::default()
            }
        })
        .collect();
    let (svg, _) = plot::svg(
        &[Panel {
            title: "Precision vs recall (pairs ranked by score)",
            x_label: "recall",
            y_label: "precision",
            y_range: Some((0.0, 1.02)),
            series: &series,
            note: None,
            legend: Legend::LowerLeft,
        }],
        800,
        500,
    )
    .map_err(|m| Error::format("prcurve.svg", format!("plotting: {m}")))?;
    Ok(svg)
}

/// The runs drawn in `scurve.svg`: per method, its run at `best` (the threshold of its
/// best F1), in method order.
pub fn drawn_runs<'c>(curves: &'c Curves, best: &[(String, f64)]) -> Vec<&'c SCurve> {
    best.iter()
        .filter_map(|(m, t)| {
            curves.s.iter().find(|c| {
                &c.method == m && (c.threshold == *t || (c.threshold.is_nan() && t.is_nan()))
            })
        })
        .collect()
}

/// The flags of a bin's remarks, joined by `; ` (empty without any).
fn flags(remarks: &[Remark]) -> String {
    remarks
        .iter()
        .map(Remark::flag)
        .collect::<Vec<_>>()
        .join("; ")
}

/// `scurve.svg`: one panel per drawn run (three to a row): the fraction of the truth's
/// pairs found per bin (at the bin's middle), as output pairs and as edges, and the model's
/// mean per bin, with its band of three standard errors ([`SBin::band`], what the table
/// shows).
pub fn s_svg(runs: &[&SCurve]) -> Result<String> {
    let titles: Vec<String> = runs
        .iter()
        .map(|c| format!("{} at {}", c.method, c.threshold))
        .collect();
    let series: Vec<Vec<Series>> = runs
        .iter()
        .map(|c| {
            let mid = |b: &SBin| (b.lo + b.hi) / 2.0;
            let filled: Vec<&SBin> = c.bins.iter().filter(|b| b.pairs > 0).collect();
            let mut v = vec![
                Series {
                    label: "found (pairs)".into(),
                    points: filled.iter().map(|b| (mid(b), b.fraction)).collect(),
                    band: Vec::new(),
                    ..Default::default()
                },
                Series {
                    label: "found as edges".into(),
                    points: filled.iter().map(|b| (mid(b), b.edge_fraction)).collect(),
                    band: Vec::new(),
                    ..Default::default()
                },
            ];
            if c.model.is_some() {
                v.push(Series {
                    label: format!("theory (± {BAND_SE} s.e.)"),
                    points: filled
                        .iter()
                        .filter_map(|b| b.theory.map(|t| (mid(b), t)))
                        .collect(),
                    band: filled
                        .iter()
                        .filter_map(|b| b.band().map(|(lo, hi)| (mid(b), lo, hi)))
                        .collect(),
                    ..Default::default()
                });
            }
            v
        })
        .collect();
    let panels: Vec<Panel<'_>> = titles
        .iter()
        .zip(&series)
        .map(|(t, s)| Panel {
            title: t,
            x_label: "exact resemblance",
            y_label: "fraction found",
            y_range: Some((0.0, 1.02)),
            series: s,
            note: None,
            legend: Legend::LowerLeft,
        })
        .collect();
    let cols = panels.len().clamp(1, 3);
    let rows = panels.len().div_ceil(cols).max(1);
    let (svg, _) = plot::svg_grid(&panels, cols, 450 * cols as u32, 400 * rows as u32)
        .map_err(|m| Error::format("scurve.svg", format!("plotting: {m}")))?;
    Ok(svg)
}

/// What the ranking table says before it.
pub const PR_NOTE: &str = "Each method's pairs from its run at the loosest threshold of the \
grid, ranked by their score (pairs of equal score taken together; pairs without a score \
last). AP is the average precision: the sum over the ranks of the recall gained times the \
precision there. Every point is in prcurve.csv.";

/// The ranking table's head.
pub const PR_HEAD: [&str; 6] = [
    "method",
    "run threshold",
    "ranked by",
    "pairs ranked",
    "AP",
    "recall at the end",
];

/// The ranking table's rows.
pub fn pr_cells(curves: &Curves) -> Vec<Vec<String>> {
    curves
        .pr
        .iter()
        .map(|m| {
            vec![
                m.method.clone(),
                if m.threshold.is_nan() {
                    "-".into()
                } else {
                    m.threshold.to_string()
                },
                m.score.clone(),
                m.pairs.to_string(),
                m.curve
                    .average_precision
                    .map_or("-".into(), |a| format!("{a:.4}")),
                m.curve
                    .points
                    .last()
                    .map_or("0".into(), |p| format!("{:.4}", p.recall)),
            ]
        })
        .collect()
}

/// What the S-curve table says before it.
pub fn s_note(curves: &Curves, runs: &[&SCurve]) -> String {
    let mut s = format!(
        "The truth's pairs (every listed pair; a cluster or PAN truth's positives) by the exact \
resemblance of their shingle sets under this sweep's canonical form and shingling: {} pairs \
measured, {} at 0.5 or above. Per bin: the fraction the method found at its best threshold \
as output pairs / as edges (pairs the method joined directly, before grouping them into \
clusters), and the theoretical fraction of edges (the model's probability of each pair, \
from the sizes of its two shingle sets and their intersection, averaged over the bin's \
pairs) ± three standard errors (Poisson-binomial, sqrt(sum p(1-p)) / pairs, plus the \
simulation's error where the law is simulated): the band the plot draws. Laws: k-mins \
positions agree independently, each with probability s (exact: binomial); two bottom-k \
images share at least k elements with the exact probability integral over the k-th smallest \
common hash value (a Beta law) of both images' other elements below it staying within n-k \
(binomial in each set's own elements); one-permutation bins are dependent and are \
simulated ({} pairs of images per pair of sizes); a pair of equal sets is always found \
(collapsed). Each law takes the hash values as independent uniforms (ideal min-wise \
permutations). Models: ",
        curves.measured.0,
        curves.measured.1,
        crate::cluster::detection::TRIALS
    );
    let models: Vec<String> = runs
        .iter()
        .map(|c| {
            format!(
                "{} at {}: {}",
                c.method,
                c.threshold,
                c.model.as_deref().unwrap_or("none")
            )
        })
        .collect();
    s.push_str(&models.join("; "));
    s.push_str(". Grouping adds member pairs (union-find closure, concept sets) or drops them (center clustering); max-df guards change the images. A bin whose fraction of edges or of output pairs lies outside the band is flagged in the table, and the flags are explained below it. Every run's bins are in scurve.csv.");
    s
}

/// The S-curve table: one row per bin with pairs, `found / edges (theory ± 3 s.e.)` per
/// drawn run, and the flags of the bin's remarks.
pub fn s_table(runs: &[&SCurve]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut head = vec!["resemblance".to_string(), "pairs".to_string()];
    head.extend(
        runs.iter()
            .map(|c| format!("{} at {}", c.method, c.threshold)),
    );
    let Some(first) = runs.first() else {
        return (head, Vec::new());
    };
    let rows = (0..first.bins.len())
        .filter(|&i| first.bins[i].pairs > 0)
        .map(|i| {
            let b = &first.bins[i];
            let mut r = vec![format!("{:.2}-{:.2}", b.lo, b.hi), b.pairs.to_string()];
            r.extend(runs.iter().map(|c| {
                let b = &c.bins[i];
                let seen = format!("{:.3} / {:.3}", b.fraction, b.edge_fraction);
                let mut cell = match (b.theory, b.stderr) {
                    (Some(t), Some(se)) => {
                        format!("{seen} (theory {t:.3} ± {:.3})", BAND_SE * se)
                    }
                    _ => seen,
                };
                if !b.remarks.is_empty() {
                    cell.push_str(&format!(" ⚑ {}", flags(&b.remarks)));
                }
                cell
            }));
            r
        })
        .collect();
    (head, rows)
}

/// The sentences after the S-curve table: one per kind of remark that flags a bin of the
/// drawn runs, with the bins it flags (empty without any).
pub fn s_remarks(runs: &[&SCurve]) -> Vec<String> {
    let mut kinds: Vec<(&'static str, &'static str, Vec<String>)> = Vec::new();
    for c in runs {
        for b in c.bins.iter().filter(|b| b.pairs > 0) {
            for r in &b.remarks {
                let at = format!("{} at {} {:.2}-{:.2}", c.method, c.threshold, b.lo, b.hi);
                match kinds.iter_mut().find(|k| k.0 == r.kind()) {
                    Some(k) => k.2.push(at),
                    None => kinds.push((r.kind(), r.sentence(), vec![at])),
                }
            }
        }
    }
    kinds
        .into_iter()
        .map(|(kind, sentence, at)| format!("⚑ {kind} ({}): {sentence}.", at.join(", ")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::detection::Positions;
    use crate::cluster::{threshold, Method, Threshold};

    fn output(f: impl FnOnce(&mut crate::cluster::ClusterSummary)) -> ClusterOutput {
        let mut o = ClusterOutput::default();
        o.summary.image_size = 128;
        o.summary.threshold = Some(0.8);
        f(&mut o.summary);
        o
    }

    #[test]
    fn each_method_gets_its_model_from_the_run() {
        let cfg = |m: Method| ClusterConfig {
            method: m,
            threshold: Threshold::Resemblance(0.8),
            ..ClusterConfig::default()
        };
        let lsh = output(|s| {
            s.bands = Some(16);
            s.rows = Some(8);
            s.k = Some(103);
        });
        assert_eq!(
            detection(&cfg(Method::Lsh), &lsh, Scheme::KMins, false),
            Some(Detection::Bands {
                bands: 16,
                rows: 8,
                min_agree: 103,
                positions: Positions::KMins
            })
        );
        // weighted or mod-m images: no model
        assert_eq!(
            detection(&cfg(Method::Lsh), &lsh, Scheme::KMins, true),
            None
        );
        let k = output(|s| s.k = Some(112));
        assert_eq!(
            detection(&cfg(Method::Concept), &k, Scheme::BottomK, false),
            Some(Detection::BottomK { n: 128, k: 112 })
        );
        assert_eq!(
            detection(&cfg(Method::UnionFind), &k, Scheme::KMins, false),
            Some(Detection::KMins { n: 128, k: 112 })
        );
        assert_eq!(
            detection(&cfg(Method::UnionFind), &k, Scheme::ModM, false),
            None
        );
        assert_eq!(
            detection(&cfg(Method::Concept), &k, Scheme::OnePermutation, false),
            Some(Detection::OnePermutation { n: 128, k: 112 })
        );
        assert_eq!(
            detection(&cfg(Method::Lsh), &lsh, Scheme::OnePermutation, false),
            Some(Detection::Bands {
                bands: 16,
                rows: 8,
                min_agree: 103,
                positions: Positions::OnePermutation
            })
        );
        assert_eq!(
            detection(&cfg(Method::Exact), &k, Scheme::BottomK, false),
            Some(Detection::Step { threshold: 0.8 })
        );
        // super shingles of the width lsh would choose at 0.8
        let ss = detection(
            &cfg(Method::SuperShingle),
            &output(|s| s.k = Some(1)),
            Scheme::KMins,
            false,
        );
        let per =
            threshold::super_shingle_per(128, 0.8, &crate::cluster::LshConfig::default()).unwrap();
        assert_eq!(
            ss,
            Some(Detection::SuperShingles {
                n: 128,
                groups: 128 / per,
                per,
                min_shared: 1,
                positions: Positions::KMins
            })
        );
        // verification: the candidates' model, then the verified step
        let v = output(|s| {
            s.k = Some(95);
            s.candidate_threshold = Some(0.73);
        });
        assert_eq!(
            detection(&cfg(Method::UnionFind), &v, Scheme::KMins, false),
            Some(Detection::Verified {
                candidates: Box::new(Detection::KMins { n: 128, k: 95 }),
                threshold: 0.8
            })
        );
        let containment = ClusterConfig {
            measure: Measure::Containment,
            ..cfg(Method::UnionFind)
        };
        assert_eq!(detection(&containment, &k, Scheme::ModM, false), None);
    }
}
