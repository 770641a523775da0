//! The exact truth of a generated corpus: every pair within a group, plus every other pair
//! whose resemblance or either containment reaches the floor ([`truth_rows`], rows by file
//! position; [`TruthRow`], rows by id), and the lines of `truth.csv` ([`write_truth_csv`]).
//!
//! Invariants: values are computed on word 5-shingle sets compared word by word (exact
//! n-grams: a 64-bit hash only sorts the n-grams into passes and groups, and n-grams of equal
//! hash are told apart by their words) and on word edit similarity; the pairs outside the
//! groups are found exactly through an inverted index of the n-grams that two or more
//! documents share (an n-gram of one document cannot be in an intersection, so it only
//! counts in its set's size), probed by each document's rarest ones only as far as a pair
//! reaching the floor must share one (a prefix filter; every candidate's intersection is
//! counted exactly); rows are computed in parallel but returned in `(a, b)` order,
//! so the output does not depend on the thread count. Memory: the token sequences, one byte
//! per n-gram (its pass), 16 bytes per n-gram of one pass (at most [`PASS_NGRAMS`] n-grams,
//! or a 32nd of the corpus's; twice that while they are gathered), and 8 bytes per
//! incidence of a shared n-gram; never a table of every n-gram.

use std::io::Write;
use std::path::Path;

use rayon::prelude::*;
use serde::Serialize;

use super::levenshtein::edit_similarity_u32;
use crate::eval::similarity::{containment, jaccard, SHINGLE_LEN};
use crate::io::AtomicFile;
use crate::sorted::intersection_size;
use crate::{Error, Result};

/// Header of `truth.csv`.
pub const TRUTH_HEADER: &str = "a,b,resemblance,containment_ab,containment_ba,edit_similarity,kind";

/// n-grams gathered in one pass of [`SharedNgrams::build`] (16 bytes each), unless the
/// corpus has more than 32 times as many: then a 32nd of them.
const PASS_NGRAMS: usize = 1 << 22;

/// Most passes of [`SharedNgrams::build`].
const MAX_PASSES: usize = 32;

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

/// One truth row by file positions (`a < b`).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Row {
    pub(super) a: u64,
    pub(super) b: u64,
    pub(super) resemblance: f64,
    pub(super) containment_ab: f64,
    pub(super) containment_ba: f64,
    pub(super) edit_similarity: f64,
    pub(super) kind: &'static str,
}

impl Row {
    /// The row of documents `a < b` (file positions) with the given word sequences, shingle
    /// set sizes and shared shingles.
    pub(super) fn of(
        (a, b): (u64, u64),
        (seq_a, seq_b): (&[u32], &[u32]),
        (len_a, len_b): (usize, usize),
        inter: usize,
        kind: &'static str,
    ) -> Row {
        Row {
            a,
            b,
            resemblance: jaccard(len_a, len_b, inter),
            containment_ab: containment(len_a, inter),
            containment_ba: containment(len_b, inter),
            edit_similarity: edit_similarity_u32(seq_a, seq_b),
            kind,
        }
    }
}

/// Writes `path` (atomically): the header, then one line per row, ids `d` + the file position
/// zero-padded to `width` digits.
pub(super) fn write_truth_csv(path: &Path, rows: &[Row], width: usize) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    writeln!(f, "{TRUTH_HEADER}").map_err(|e| Error::io(path, e))?;
    let w = width;
    for r in rows {
        writeln!(
            f,
            "d{:0w$},d{:0w$},{:.6},{:.6},{:.6},{:.6},{}",
            r.a, r.b, r.resemblance, r.containment_ab, r.containment_ba, r.edit_similarity, r.kind
        )
        .map_err(|e| Error::io(path, e))?;
    }
    f.commit()
}

/// The truth rows of documents with word sequences `seqs` (file order) and groups `groups`
/// (group number and kind): every pair within a group, plus every other pair whose
/// resemblance or either containment reaches `floor`; sorted by `(a, b)`.
pub(super) fn truth_rows<S: AsRef<[u32]> + Sync>(
    seqs: &[S],
    groups: &[Option<(usize, &'static str)>],
    floor: f64,
) -> Vec<Row> {
    debug_assert_eq!(seqs.len(), groups.len());
    let shared = SharedNgrams::build(seqs);
    // within groups
    let mut members: Vec<(usize, u32)> = groups
        .iter()
        .enumerate()
        .filter_map(|(d, g)| g.map(|(g, _)| (g, d as u32)))
        .collect();
    members.sort_unstable();
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for m in members.chunk_by(|x, y| x.0 == y.0) {
        for i in 0..m.len() {
            for j in i + 1..m.len() {
                pairs.push((m[i].1, m[j].1));
            }
        }
    }
    // the exact join: each document against the later ones sharing an n-gram with it
    pairs.extend(shared.join(floor));
    pairs.par_sort_unstable();
    pairs.dedup();
    pairs
        .par_iter()
        .map(|&(i, j)| {
            let (x, y) = (i as usize, j as usize);
            let kind = match (groups[x], groups[y]) {
                (Some((g, k)), Some((h, _))) if g == h => k,
                _ => "other",
            };
            Row::of(
                (i as u64, j as u64),
                (seqs[x].as_ref(), seqs[y].as_ref()),
                (shared.size[x] as usize, shared.size[y] as usize),
                intersection_size(shared.of_doc(x), shared.of_doc(y)),
                kind,
            )
        })
        .collect()
}

/// The word 5-shingle sets of a corpus, reduced to what pairs can share: each document's set
/// size, and the n-grams held by two or more documents, numbered from the rarest, as two CSR
/// indexes (document -> its shared n-grams ascending; n-gram -> its documents ascending).
struct SharedNgrams {
    /// Shingle set size of each document.
    size: Vec<u32>,
    doc_off: Vec<usize>,
    doc_ngrams: Vec<u32>,
    ngram_off: Vec<usize>,
    ngram_docs: Vec<u32>,
}

/// The n-grams of a sequence of `len` words: `len - 4` windows, or the whole sequence when
/// it is shorter than five words (none when it is empty), as `shingle_set` makes them.
fn ngram_count(len: usize) -> usize {
    match len {
        0 => 0,
        l if l < SHINGLE_LEN => 1,
        l => l - SHINGLE_LEN + 1,
    }
}

/// The words of n-gram `pos` of `seq`.
fn ngram(seq: &[u32], pos: u32) -> &[u32] {
    let p = pos as usize;
    &seq[p..(p + SHINGLE_LEN).min(seq.len())]
}

/// A 64-bit hash of an n-gram's words and length (fixed, so the passes do not depend on the
/// run): the words packed into three `u64`, two folded multiplications, MurmurHash3's
/// finalizer.
#[inline]
fn ngram_hash(words: &[u32]) -> u64 {
    let mut x = [0u64; 3];
    for (i, &w) in words.iter().enumerate() {
        x[i / 2] |= u64::from(w) << (32 * (i % 2));
    }
    x[2] |= (words.len() as u64) << 32;
    let fold = |a: u64, b: u64| {
        let r = u128::from(a) * u128::from(b);
        (r as u64) ^ ((r >> 64) as u64)
    };
    let mut h = fold(x[0] ^ 0x9e37_79b9_7f4a_7c15, x[1] ^ 0xc2b2_ae3d_27d4_eb4f)
        ^ fold(x[2] ^ 0x1656_67b1_9e37_79f9, 0x27d4_eb2f_1656_67c5);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

impl SharedNgrams {
    /// Reads every n-gram of `seqs`, in passes over disjoint hash ranges: a first sweep
    /// hashes every n-gram and keeps its pass (one byte); a pass hashes its own n-grams again,
    /// as `(hash, document, position)`, sorts them and walks the runs of one hash, split by
    /// the words where two n-grams collide.
    fn build<S: AsRef<[u32]> + Sync>(seqs: &[S]) -> SharedNgrams {
        let total: usize = seqs.iter().map(|s| ngram_count(s.as_ref().len())).sum();
        Self::build_with(
            seqs,
            total.div_ceil(PASS_NGRAMS).clamp(1, MAX_PASSES),
            ngram_hash,
        )
    }

    /// [`SharedNgrams::build`] in `passes` passes (1 to [`MAX_PASSES`]) with the hash `hash`.
    fn build_with<S: AsRef<[u32]> + Sync>(
        seqs: &[S],
        passes: usize,
        hash: impl Fn(&[u32]) -> u64 + Sync,
    ) -> SharedNgrams {
        assert!((1..=MAX_PASSES).contains(&passes));
        let n = seqs.len();
        let hash = &hash;
        let pass_of = |h: u64| ((u128::from(h) * passes as u128) >> 64) as u8;
        let tags: Vec<Vec<u8>> = seqs
            .par_iter()
            .map(|s| {
                let s = s.as_ref();
                (0..ngram_count(s.len()) as u32)
                    .map(|p| pass_of(hash(ngram(s, p))))
                    .collect()
            })
            .collect();
        let mut size = vec![0u32; n];
        let mut ngram_off = vec![0usize];
        let mut ngram_docs: Vec<u32> = Vec::new();
        let mut entries: Vec<(u64, u32, u32)> = Vec::new();
        let mut run_docs: Vec<u32> = Vec::new();
        let mut split: Vec<(u64, u32, u32)> = Vec::new();
        for pass in 0..passes as u8 {
            entries.clear();
            entries.par_extend(seqs.par_iter().zip(&tags).enumerate().flat_map_iter(
                |(d, (s, t))| {
                    let s = s.as_ref();
                    t.iter()
                        .enumerate()
                        .filter(|&(_, &x)| x == pass)
                        .map(move |(p, _)| {
                            let p = p as u32;
                            (hash(ngram(s, p)), d as u32, p)
                        })
                },
            ));
            entries.par_sort_unstable_by_key(|e| (e.0, e.1));
            let words = |e: &(u64, u32, u32)| ngram(seqs[e.1 as usize].as_ref(), e.2);
            // one n-gram's occurrences, documents ascending
            let mut one = |run: &[(u64, u32, u32)]| {
                run_docs.clear();
                run_docs.extend(run.iter().map(|e| e.1));
                run_docs.dedup();
                for &d in &run_docs {
                    size[d as usize] += 1;
                }
                if run_docs.len() >= 2 {
                    ngram_docs.extend_from_slice(&run_docs);
                    ngram_off.push(ngram_docs.len());
                }
            };
            for run in entries.chunk_by(|x, y| x.0 == y.0) {
                let first = words(&run[0]);
                if run.len() == 1 || run[1..].iter().all(|e| words(e) == first) {
                    one(run);
                } else {
                    split.clear();
                    split.extend_from_slice(run);
                    split.sort_unstable_by(|x, y| words(x).cmp(words(y)).then(x.1.cmp(&y.1)));
                    for r in split.chunk_by(|x, y| words(x) == words(y)) {
                        one(r);
                    }
                }
            }
        }
        drop((entries, tags));
        // numbered again from the rarest (fewest documents; ties in the order found), so that
        // a document's list ascending is its shared n-grams rarest first
        let df = |g: usize| ngram_off[g + 1] - ngram_off[g];
        let mut by_rarity: Vec<u32> = (0..ngram_off.len() as u32 - 1).collect();
        by_rarity.par_sort_unstable_by_key(|&g| (df(g as usize), g));
        let mut off = Vec::with_capacity(ngram_off.len());
        off.push(0);
        let mut docs = Vec::with_capacity(ngram_docs.len());
        for &g in &by_rarity {
            let g = g as usize;
            docs.extend_from_slice(&ngram_docs[ngram_off[g]..ngram_off[g + 1]]);
            off.push(docs.len());
        }
        drop(by_rarity);
        let (ngram_off, ngram_docs) = (off, docs);
        // the transpose: each document's shared n-grams, ascending
        let mut doc_off = vec![0usize; n + 1];
        for &d in &ngram_docs {
            doc_off[d as usize + 1] += 1;
        }
        for d in 0..n {
            doc_off[d + 1] += doc_off[d];
        }
        let mut fill = doc_off.clone();
        let mut doc_ngrams = vec![0u32; ngram_docs.len()];
        for g in 0..ngram_off.len() - 1 {
            for &d in &ngram_docs[ngram_off[g]..ngram_off[g + 1]] {
                doc_ngrams[fill[d as usize]] = g as u32;
                fill[d as usize] += 1;
            }
        }
        SharedNgrams {
            size,
            doc_off,
            doc_ngrams,
            ngram_off,
            ngram_docs,
        }
    }

    /// The shared n-grams of document `d`, ascending.
    fn of_doc(&self, d: usize) -> &[u32] {
        &self.doc_ngrams[self.doc_off[d]..self.doc_off[d + 1]]
    }

    /// The documents holding shared n-gram `g`, ascending.
    fn docs_of(&self, g: u32) -> &[u32] {
        &self.ngram_docs[self.ngram_off[g as usize]..self.ngram_off[g as usize + 1]]
    }

    /// Every pair `(i, j)`, `i < j`, whose resemblance or either containment reaches
    /// `floor` (unordered; a pair may come twice).
    ///
    /// A pair qualifies exactly when its intersection reaches [`fewest_shared`] of one of its
    /// documents (its resemblance never exceeds either containment). If it reaches `t`, that
    /// of document `d`, then among `d`'s shared n-grams rarest first, the first `|list| - t +
    /// 1` hold one the other document holds too (at most `t - 1` lie after them). So each
    /// document probes only those (none when it shares fewer than `t`), each document met
    /// is a candidate, and each candidate's exact intersection is tested: the most common
    /// n-grams (stock phrases, held by thousands of documents) are never walked.
    fn join(&self, floor: f64) -> Vec<(u32, u32)> {
        let n = self.size.len();
        const CHUNK: usize = 1024;
        let chunks: Vec<Vec<(u32, u32)>> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map_init(
                || vec![u32::MAX; n],
                |seen, c| {
                    let mut out = Vec::new();
                    for x in c * CHUNK..((c + 1) * CHUNK).min(n) {
                        let list = self.of_doc(x);
                        let t = fewest_shared(self.size[x] as usize, floor);
                        let probe = (list.len() + 1).saturating_sub(t);
                        for &g in &list[..probe] {
                            for &y in self.docs_of(g) {
                                if y as usize == x || seen[y as usize] == x as u32 {
                                    continue;
                                }
                                seen[y as usize] = x as u32;
                                let (a, b) = (x.min(y as usize), x.max(y as usize));
                                let inter = intersection_size(list, self.of_doc(y as usize));
                                let (la, lb) = (self.size[a] as usize, self.size[b] as usize);
                                if jaccard(la, lb, inter) >= floor
                                    || containment(la, inter) >= floor
                                    || containment(lb, inter) >= floor
                                {
                                    out.push((a as u32, b as u32));
                                }
                            }
                        }
                    }
                    out
                },
            )
            .collect();
        chunks.concat()
    }
}

/// The fewest shared shingles whose containment in a set of `size` reaches `floor` (> 0):
/// the least `t` with `containment(size, t) >= floor`, or `usize::MAX` when there is none
/// (an empty set).
fn fewest_shared(size: usize, floor: f64) -> usize {
    let reaches = |t: usize| containment(size, t) >= floor;
    if size == 0 || !reaches(size) {
        return usize::MAX;
    }
    // near ceil(floor * size), then exactly as the floating-point test decides
    let mut t = ((floor * size as f64).ceil() as usize).clamp(1, size);
    while t > 1 && reaches(t - 1) {
        t -= 1;
    }
    while !reaches(t) {
        t += 1;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::similarity::{edit_similarity, shingle_set};

    /// The truth by brute force: the n-gram sets of `shingle_set`, every pair compared.
    fn brute(seqs: &[Vec<u32>], groups: &[Option<(usize, &'static str)>], floor: f64) -> Vec<Row> {
        let mut table = hashbrown::HashMap::new();
        let sets: Vec<Vec<u32>> = seqs
            .iter()
            .map(|s| shingle_set(s, SHINGLE_LEN, &mut table))
            .collect();
        let mut rows = Vec::new();
        for i in 0..seqs.len() {
            for j in i + 1..seqs.len() {
                let inter = intersection_size(&sets[i], &sets[j]);
                let (la, lb) = (sets[i].len(), sets[j].len());
                let same = matches!((groups[i], groups[j]), (Some((g, _)), Some((h, _))) if g == h);
                let r = jaccard(la, lb, inter);
                let (cab, cba) = (containment(la, inter), containment(lb, inter));
                if same || r >= floor || cab >= floor || cba >= floor {
                    rows.push(Row {
                        a: i as u64,
                        b: j as u64,
                        resemblance: r,
                        containment_ab: cab,
                        containment_ba: cba,
                        edit_similarity: edit_similarity(&seqs[i], &seqs[j]),
                        kind: if same { groups[i].unwrap().1 } else { "other" },
                    });
                }
            }
        }
        rows
    }

    /// Hand-made sequences over a small alphabet (many shared n-grams and pairs near the
    /// floor), short ones (fewer than five words: one n-gram, the whole sequence, which a
    /// five-word window with the same start must not match) and empty ones; the rows equal
    /// the brute force's, whatever the number of passes.
    #[test]
    fn rows_equal_the_brute_force() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut seqs: Vec<Vec<u32>> = (0..300)
            .map(|_| {
                let len = rng.gen_range(0..40);
                (0..len).map(|_| rng.gen_range(0..4)).collect()
            })
            .collect();
        seqs.extend([
            vec![],
            vec![1, 2, 3],
            vec![1, 2, 3],
            vec![1, 2, 3, 0, 0],
            vec![7],
        ]);
        let groups: Vec<Option<(usize, &'static str)>> = (0..seqs.len())
            .map(|d| (d % 7 == 0).then_some((d % 3, "edit")))
            .collect();
        for floor in [0.05, 0.1, 0.3, 1.0 / 3.0, 0.5, 0.7, 1.0] {
            let want = brute(&seqs, &groups, floor);
            assert!(want
                .iter()
                .any(|r| r.kind == "other" && r.resemblance < 1.0));
            let got = truth_rows(&seqs, &groups, floor);
            assert_eq!(got.len(), want.len(), "floor {floor}");
            for (g, w) in got.iter().zip(&want) {
                assert_eq!(g, w, "floor {floor}");
            }
        }
        // short sequences: [1 2 3] twice is one shared n-gram, not [1 2 3 0 0]'s
        let s = SharedNgrams::build(&seqs);
        let n = seqs.len();
        assert_eq!(s.size[n - 5..], [0, 1, 1, 1, 1]);
        assert_eq!(
            intersection_size(s.of_doc(n - 4), s.of_doc(n - 3)),
            1,
            "{:?}",
            (s.of_doc(n - 4), s.of_doc(n - 3))
        );
        assert_eq!(intersection_size(s.of_doc(n - 4), s.of_doc(n - 2)), 0);
    }

    /// `fewest_shared` is the least count whose containment reaches the floor, as the
    /// floating-point test decides (1/3 of 3 and 0.7 of 10 included).
    #[test]
    fn fewest_shared_is_the_least_reaching_count() {
        for floor in [0.05, 0.1, 0.3, 1.0 / 3.0, 0.5, 0.7, 0.9, 1.0] {
            assert_eq!(fewest_shared(0, floor), usize::MAX);
            for size in 1..400 {
                let want = (1..=size).find(|&t| containment(size, t) >= floor).unwrap();
                assert_eq!(fewest_shared(size, floor), want, "{size} at {floor}");
            }
        }
        assert_eq!(fewest_shared(3, 1.0 / 3.0), 1);
        assert_eq!(fewest_shared(10, 0.7), 7);
    }

    /// The shared n-grams give each document's set size and each pair's intersection as
    /// `shingle_set` does, in one pass or many, and when n-grams collide: with a hash that
    /// keeps only an n-gram's length, or nothing at all, they are told apart by their words.
    #[test]
    fn shared_ngrams_survive_passes_and_collisions() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let mut seqs: Vec<Vec<u32>> = (0..120)
            .map(|_| {
                let len = rng.gen_range(0..30);
                (0..len).map(|_| rng.gen_range(0..3)).collect()
            })
            .collect();
        seqs.extend([vec![2, 2], vec![2, 2], vec![2, 2, 2, 2, 2], vec![]]);
        let mut table = hashbrown::HashMap::new();
        let sets: Vec<Vec<u32>> = seqs
            .iter()
            .map(|s| shingle_set(s, SHINGLE_LEN, &mut table))
            .collect();
        let by_len = |w: &[u32]| w.len() as u64;
        let constant = |_: &[u32]| 7u64;
        let built = [
            SharedNgrams::build(&seqs),
            SharedNgrams::build_with(&seqs, 5, ngram_hash),
            SharedNgrams::build_with(&seqs, 3, by_len),
            SharedNgrams::build_with(&seqs, 1, constant),
        ];
        for (v, s) in built.iter().enumerate() {
            for i in 0..seqs.len() {
                assert_eq!(s.size[i] as usize, sets[i].len(), "variant {v}, doc {i}");
                for j in i + 1..seqs.len() {
                    assert_eq!(
                        intersection_size(s.of_doc(i), s.of_doc(j)),
                        intersection_size(&sets[i], &sets[j]),
                        "variant {v}, docs {i} {j}"
                    );
                }
            }
        }
        assert_ne!(ngram_hash(&[1, 2, 3]), ngram_hash(&[1, 2, 3, 0]));
        assert_ne!(ngram_hash(&[0]), ngram_hash(&[0, 0]));
    }
}
