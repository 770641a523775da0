//! Documents shorter than the shingle length (5 words) have empty shingle sets, yet
//! identical and lexically equivalent ones are duplicates: every method, with and without
//! exact verification, pairs every two members of such a family (verified at exact
//! resemblance 1) and nothing across families, and `fimdup dedup` keeps one member of each.
//! Longer documents (one near-duplicate pair among unrelated ones) give the methods their
//! ordinary work beside them.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::{ok, s};
use fimdup::cluster::{Input, JobBuilder, Method, Threshold, Verify};
use rand::{Rng, SeedableRng};

const METHODS: [&str; 5] = ["concept", "union-find", "lsh", "super-shingle", "exact"];
const T: &str = "0.8";

/// The test corpus: its records `(id, text)` in order, the short families (ids of
/// documents that are identical or lexically equivalent, all shorter than a shingle), the
/// short documents equivalent to nothing else, and the long near-duplicate pair.
struct Corpus {
    records: Vec<(String, String)>,
    families: Vec<Vec<String>>,
    short_singles: Vec<String>,
    long_pair: (String, String),
}

fn words(rng: &mut rand_chacha::ChaCha8Rng, n: usize) -> Vec<String> {
    (0..n)
        .map(|_| format!("w{}", rng.gen_range(0..5000u32)))
        .collect()
}

fn corpus() -> Corpus {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let mut records = Vec::new();
    let mut families = Vec::new();
    // Short documents are interleaved with long ones so that family members are not
    // neighbours in DocId order.
    let mut long_docs: Vec<(String, String)> = (0..8)
        .map(|u| (format!("other{u}"), words(&mut rng, 200).join(" ")))
        .collect();
    let base = words(&mut rng, 300);
    let mut edited = base.clone();
    for _ in 0..3 {
        let i = rng.gen_range(0..edited.len());
        edited[i] = format!("edit{}", rng.gen_range(0..1_000_000u32));
    }
    long_docs.push(("long0".into(), base.join(" ")));
    long_docs.push(("long1".into(), edited.join(" ")));
    let mut push = |id: &str, text: &str| {
        records.push((id.to_string(), text.to_string()));
        if let Some(l) = long_docs.pop() {
            records.push(l);
        }
    };
    // Four identical three-word documents and two that differ only in case and punctuation.
    let redirect = [
        "Redirecting to index",
        "Redirecting to index",
        "Redirecting to index",
        "Redirecting to index",
        "redirecting, TO index!",
        "REDIRECTING to Index.",
    ];
    let mut fam = Vec::new();
    for (i, text) in redirect.iter().enumerate() {
        let id = format!("redirect{i}");
        push(&id, text);
        fam.push(id);
    }
    families.push(fam);
    // Three-word documents sharing two words with the family, and one another.
    let short_singles: Vec<String> = ["Redirecting to faq", "Redirecting to home"]
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let id = format!("single{i}");
            push(&id, text);
            id
        })
        .collect();
    // Two identical two-word documents.
    let mut fam = Vec::new();
    for i in 0..2 {
        let id = format!("moved{i}");
        push(&id, "Page moved");
        fam.push(id);
    }
    families.push(fam);
    records.append(&mut long_docs);
    Corpus {
        records,
        families,
        short_singles,
        long_pair: ("long0".into(), "long1".into()),
    }
}

impl Corpus {
    fn write(&self, path: &Path) {
        let text: String = self
            .records
            .iter()
            .map(|(id, t)| serde_json::json!({"id": id, "text": t}).to_string() + "\n")
            .collect();
        std::fs::write(path, text).unwrap();
    }

    /// Every short document.
    fn short(&self) -> BTreeSet<String> {
        self.families
            .iter()
            .flatten()
            .chain(&self.short_singles)
            .cloned()
            .collect()
    }

    /// Every pair `(a, b)`, `a < b`, of two members of one family.
    fn family_pairs(&self) -> BTreeSet<(String, String)> {
        let mut out = BTreeSet::new();
        for f in &self.families {
            for a in f {
                for b in f {
                    if a < b {
                        out.insert((a.clone(), b.clone()));
                    }
                }
            }
        }
        out
    }

    /// The family holding `id`, if any.
    fn family_of(&self, id: &str) -> Option<&Vec<String>> {
        self.families.iter().find(|f| f.iter().any(|m| m == id))
    }
}

/// The rows of a pairs.csv: `(a, b) -> exact` (the `exact` cell parsed, `None` when empty).
fn read_pairs(path: &Path) -> BTreeMap<(String, String), Option<f64>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    assert_eq!(
        r.headers().unwrap(),
        vec!["a", "b", "shared", "estimate", "exact"]
    );
    r.records()
        .map(|row| {
            let row = row.unwrap();
            (
                (row[0].to_string(), row[1].to_string()),
                row[4].parse::<f64>().ok(),
            )
        })
        .collect()
}

/// The member ids of every cluster of a clusters.jsonl.
fn read_clusters(path: &Path) -> Vec<BTreeSet<String>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let j: serde_json::Value = serde_json::from_str(l).unwrap();
            j["docs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_str().unwrap().to_string())
                .collect()
        })
        .collect()
}

/// Checks a run's pairs: among the short documents exactly the family pairs (scored 1 when
/// verified), and the long near-duplicate pair.
fn check_pairs(
    c: &Corpus,
    what: &str,
    verified: bool,
    pairs: &BTreeMap<(String, String), Option<f64>>,
) {
    let short = c.short();
    let got: BTreeSet<(String, String)> = pairs
        .keys()
        .filter(|(a, b)| short.contains(a) || short.contains(b))
        .cloned()
        .collect();
    assert_eq!(got, c.family_pairs(), "{what}: pairs of short documents");
    if verified {
        for p in c.family_pairs() {
            assert_eq!(pairs[&p], Some(1.0), "{what}: exact score of {p:?}");
        }
    }
    assert!(
        pairs.contains_key(&c.long_pair),
        "{what}: the long near-duplicate pair is missing"
    );
}

/// Checks that every family is one cluster (of its members only) and no short document
/// outside a family is clustered.
fn check_clusters(c: &Corpus, what: &str, clusters: &[BTreeSet<String>]) {
    for f in &c.families {
        let want: BTreeSet<String> = f.iter().cloned().collect();
        assert!(
            clusters.contains(&want),
            "{what}: no cluster {want:?} in {clusters:?}"
        );
    }
    for id in &c.short_singles {
        assert!(
            clusters.iter().all(|cl| !cl.contains(id)),
            "{what}: {id} is clustered"
        );
    }
}

#[test]
fn every_method_pairs_short_equivalent_documents_with_and_without_verification() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("docs.jsonl");
    let c = corpus();
    c.write(&input);
    assert_eq!(c.family_pairs().len(), 15 + 1);
    for method in METHODS {
        for verify in [false, true] {
            let what = format!("{method}, verify {verify}");
            let out = dir.path().join(format!("{method}-{verify}"));
            let mut args = vec![
                "cluster",
                s(&input),
                "--method",
                method,
                "--threshold",
                T,
                "--out",
                s(&out),
                "--json",
            ];
            if verify {
                args.extend(["--verify", "exact"]);
            }
            let o = ok(&args);
            let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            let pairs = read_pairs(&out.join("pairs.csv"));
            check_pairs(&c, &what, verify, &pairs);
            check_clusters(&c, &what, &read_clusters(&out.join("clusters.jsonl")));
            assert_eq!(summary["pairs"], pairs.len() as u64, "{what}: {summary}");
        }
    }
}

#[test]
fn dedup_keeps_one_document_of_each_short_family() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("docs.jsonl");
    let c = corpus();
    c.write(&input);
    for method in METHODS {
        for verify in [false, true] {
            let what = format!("dedup {method}, verify {verify}");
            let out = dir.path().join(format!("dedup-{method}-{verify}"));
            let mut args = vec![
                "dedup",
                s(&input),
                "--method",
                method,
                "--threshold",
                T,
                "--out",
                s(&out),
            ];
            if verify {
                args.extend(["--verify", "exact"]);
            }
            ok(&args);
            let kept: BTreeSet<String> = std::fs::read_to_string(out.join("kept.jsonl"))
                .unwrap()
                .lines()
                .map(|l| {
                    let v: serde_json::Value = serde_json::from_str(l).unwrap();
                    v["id"].as_str().unwrap().to_string()
                })
                .collect();
            let clusters = read_clusters(&out.join("clusters.jsonl"));
            let mut r = csv::Reader::from_path(out.join("removed.csv")).unwrap();
            assert_eq!(
                r.headers().unwrap(),
                vec!["id", "representative", "cluster", "score", "score_kind"]
            );
            let mut removed = BTreeSet::new();
            for row in r.records() {
                let row = row.unwrap();
                let (id, rep) = (row[0].to_string(), row[1].to_string());
                removed.insert(id.clone());
                let Some(fam) = c.family_of(&id) else {
                    continue;
                };
                assert!(fam.contains(&rep), "{what}: {id} removed for {rep}");
                assert!(kept.contains(&rep), "{what}: {id} names {rep}, not kept");
                assert_eq!((&row[3], &row[4]), ("1", "exact"), "{what}: score of {id}");
                // The cluster named holds both documents.
                let cl: usize = row[2]
                    .parse()
                    .unwrap_or_else(|_| panic!("{what}: {id} names no cluster"));
                assert!(
                    clusters[cl].contains(&id) && clusters[cl].contains(&rep),
                    "{what}: cluster {cl} of {id}"
                );
            }
            assert_eq!(kept.len() + removed.len(), c.records.len(), "{what}");
            for f in &c.families {
                let k = f.iter().filter(|m| kept.contains(*m)).count();
                assert_eq!(k, 1, "{what}: {k} kept of {f:?}");
            }
            for id in &c.short_singles {
                assert!(kept.contains(id), "{what}: {id} removed");
            }
            assert!(
                kept.contains(&c.long_pair.0) != kept.contains(&c.long_pair.1),
                "{what}: one of the long pair is kept"
            );
        }
    }
}

#[test]
fn library_job_counts_no_short_family_pair_as_removed_by_verification() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("docs.jsonl");
    let c = corpus();
    c.write(&input);
    let input = Input::Corpus(input);
    // The candidates are found at 0.6: the verified run's candidates are the pairs of the
    // unverified run at 0.6, and verification removes exactly the ones below 0.8.
    for m in Method::ALL {
        let job = |t: f64, verify: bool| {
            JobBuilder::new(m)
                .threshold(Threshold::Resemblance(t))
                .verify(verify.then_some(Verify::Exact))
                .candidate_threshold(verify.then_some(0.6))
                .build()
                .unwrap()
        };
        let cand = job(0.6, false).run(&input, &|_| {}).unwrap();
        let ver = job(0.8, true).run(&input, &|_| {}).unwrap();
        let ids = &ver.ext_ids;
        let named = |o: &fimdup::cluster::JobOutput| -> BTreeMap<(String, String), Option<f64>> {
            o.output
                .pairs
                .iter()
                .map(|p| {
                    let (a, b) = (ids[p.a.index()].clone(), ids[p.b.index()].clone());
                    let key = if a < b { (a, b) } else { (b, a) };
                    (key, p.exact)
                })
                .collect()
        };
        let (pc, pv) = (named(&cand), named(&ver));
        check_pairs(&c, &format!("{m} at 0.6"), false, &pc);
        check_pairs(&c, &format!("{m} verified"), true, &pv);
        let s = &ver.output.summary;
        assert_eq!(s.pairs, pv.len() as u64, "{m}");
        assert_eq!(
            s.verify_removed,
            Some(pc.len() as u64 - pv.len() as u64),
            "{m}: candidates {pc:?}, verified {pv:?}"
        );
        // Every verified pair was a candidate.
        assert!(pv.keys().all(|k| pc.contains_key(k)), "{m}");
    }
}
