//! Acceptance of the index: queries equal a brute-force scan of the same images,
//! two sweeps give the clusters of one build (and of an independent brute-force union-find),
//! the lost-and-found report equals a brute-force search, a save/open round trip changes
//! nothing, and the query of texts (what the command and the Python package call) equals
//! the brute-force scan of the texts' images in query order on any number of threads.

use fimdup::index::{
    Candidates, CorpusSpec, Index, IndexConfig, Measure, NewDoc, Query, QueryOptions,
};
use fimdup::shingle::ShingleConfig;
use fimdup::sketch::pipeline::PipelineConfig;
use std::collections::BTreeSet;

use fimdup::sketch::{Image, Scheme, SketchConfig};
use fimdup::DocId;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn words(rng: &mut ChaCha8Rng, n: usize, vocab: usize) -> Vec<String> {
    (0..n)
        .map(|_| format!("w{}", rng.gen_range(0..vocab)))
        .collect()
}

/// Replaces `k` random words (lightly or heavily edited copy).
fn edit(rng: &mut ChaCha8Rng, doc: &[String], k: usize) -> Vec<String> {
    let mut d = doc.to_vec();
    for _ in 0..k {
        let i = rng.gen_range(0..d.len());
        d[i] = format!("x{}", rng.gen::<u32>());
    }
    d
}

/// Families of near-duplicates with a spread of edit levels (so resemblances cover 0..1).
fn corpus(seed: u64, families: usize, prefix: &str) -> Vec<(String, String)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for f in 0..families {
        let len = 60 + rng.gen_range(0..40);
        let base = words(&mut rng, len, 3000);
        out.push((format!("{prefix}{f}"), base.join(" ")));
        for v in 0..rng.gen_range(0..4) {
            let k = rng.gen_range(0..12);
            out.push((
                format!("{prefix}{f}v{v}"),
                edit(&mut rng, &base, k).join(" "),
            ));
        }
    }
    // a few short documents (empty images)
    out.push((format!("{prefix}short"), "two words".into()));
    out
}

fn pipeline(scheme: Scheme, size: usize) -> PipelineConfig {
    PipelineConfig {
        shingle: ShingleConfig::new(4, 1, 7).unwrap(),
        sketch: SketchConfig {
            scheme,
            size,
            modulus: 8,
            seed: 11,
            // ICWS samples weights: the bag of the shingles.
            weighting: (scheme == Scheme::Icws).then_some(fimdup::sketch::Weighting::Bag),
            bits: None,
        },
        ..PipelineConfig::default()
    }
}

fn sketch(idx: &Index, docs: &[(String, String)]) -> Vec<NewDoc> {
    let qs = idx.query_sketcher().unwrap();
    docs.iter()
        .map(|(id, text)| {
            let (_, image, containment) = qs.sketch_text(text);
            NewDoc {
                ext_id: id.clone(),
                image,
                containment,
            }
        })
        .collect()
}

/// The resemblance estimate of two images, written here from the definitions (not the
/// library's estimator): bottom-k, `|MIN_n(A u B) n A n B| / |MIN_n(A u B)|`; k-mins and
/// one-permutation, equal positions over the shorter length; mod-m, `|A n B| / |A u B|`.
/// 0 when either image is empty.
fn reference_resemblance(a: &Image, b: &Image, cfg: &SketchConfig) -> f64 {
    let (x, y) = (a.values(), b.values());
    if x.is_empty() || y.is_empty() {
        return 0.0;
    }
    let (sx, sy): (BTreeSet<u64>, BTreeSet<u64>) =
        (x.iter().copied().collect(), y.iter().copied().collect());
    match cfg.scheme {
        Scheme::KMins | Scheme::OnePermutation | Scheme::Icws => {
            let equal = x.iter().zip(y).filter(|(p, q)| p == q).count();
            equal as f64 / x.len().min(y.len()) as f64
        }
        Scheme::ModM => sx.intersection(&sy).count() as f64 / sx.union(&sy).count() as f64,
        Scheme::SimHash => unreachable!("an index refuses simhash images"),
        Scheme::BottomK => {
            let smallest: Vec<u64> = sx.union(&sy).take(cfg.size).copied().collect();
            let both = smallest
                .iter()
                .filter(|v| sx.contains(v) && sy.contains(v))
                .count();
            both as f64 / smallest.len() as f64
        }
    }
}

/// `|A n B| / |A|` of two images' value sets (0 when A is empty), written here.
fn reference_containment(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() {
        return 0.0;
    }
    let sb: BTreeSet<u64> = b.iter().copied().collect();
    a.iter().filter(|v| sb.contains(v)).count() as f64 / a.len() as f64
}

fn brute(
    q: &Image,
    images: &[Image],
    cfg: &SketchConfig,
    t: f64,
    measure: Measure,
) -> Vec<(u32, f64)> {
    let mut v: Vec<(u32, f64)> = images
        .iter()
        .enumerate()
        .filter(|_| !q.is_empty())
        .map(|(d, im)| {
            let e = match measure {
                Measure::Resemblance => reference_resemblance(q, im, cfg),
                Measure::Containment => reference_containment(q.values(), im.values()),
            };
            (d as u32, e)
        })
        .filter(|&(_, e)| e >= t)
        .collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

fn got(hits: &[fimdup::index::Hit]) -> Vec<(u32, f64)> {
    hits.iter().map(|h| (h.doc.0, h.estimate)).collect()
}

#[test]
fn queries_equal_brute_force_for_every_scheme_and_survive_a_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    for (si, scheme) in Scheme::ALL.into_iter().enumerate() {
        let cfg = IndexConfig {
            containment: true,
            ..IndexConfig::default()
        };
        if scheme.is_fingerprint() {
            // Fingerprints have no elements to post: refused, naming the scheme.
            let e = Index::new(&pipeline(scheme, 64), cfg)
                .unwrap_err()
                .to_string();
            assert!(e.contains("simhash fingerprints"), "{e}");
            continue;
        }
        let mut idx = Index::new(&pipeline(scheme, 64), cfg).unwrap();
        let docs = sketch(&idx, &corpus(si as u64, 120, "d"));
        let n = docs.len();
        idx.add_documents(docs, None, "mem", CorpusSpec::default())
            .unwrap();
        assert_eq!(idx.len(), n);
        let path = dir.path().join(scheme.name());
        idx.save(&path).unwrap();
        let reopened = Index::open(&path).unwrap();
        // queries: indexed texts and fresh edits of them
        let mut rng = ChaCha8Rng::seed_from_u64(99);
        let texts = corpus(si as u64, 120, "d");
        let mut queries: Vec<String> = texts.iter().step_by(7).map(|d| d.1.clone()).collect();
        for d in texts.iter().step_by(11) {
            let w: Vec<String> = d.1.split(' ').map(String::from).collect();
            let k = rng.gen_range(0..10);
            queries.push(edit(&mut rng, &w, k).join(" "));
        }
        let qs = idx.query_sketcher().unwrap();
        let main_cfg = idx.params().sketch;
        let cont_cfg = SketchConfig {
            scheme: Scheme::ModM,
            modulus: 25,
            ..main_cfg
        };
        let cont_images: Vec<Image> = if scheme == Scheme::ModM {
            idx.images().unwrap()
        } else {
            sketch(&idx, &texts)
                .into_iter()
                .map(|d| d.containment.unwrap())
                .collect()
        };
        let mut nonempty = 0;
        for q in &queries {
            let (_, qi, qc) = qs.sketch_text(q);
            for t in [0.1, 0.3, 0.5, 0.8, 1.0] {
                let opts = QueryOptions {
                    threshold: t,
                    ..QueryOptions::default()
                };
                let h = idx.query_image(&qi, qc.as_ref(), &opts).unwrap();
                let want = brute(
                    &qi,
                    &idx.images().unwrap(),
                    &main_cfg,
                    t,
                    Measure::Resemblance,
                );
                assert_eq!(got(&h), want, "{scheme} t={t}");
                nonempty += !want.is_empty() as usize;
                let h2 = reopened.query_image(&qi, qc.as_ref(), &opts).unwrap();
                assert_eq!(h, h2);
                // containment (query in document)
                let copts = QueryOptions {
                    measure: Measure::Containment,
                    ..opts
                };
                let h = idx.query_image(&qi, qc.as_ref(), &copts).unwrap();
                let (cq, ccfg) = if scheme == Scheme::ModM {
                    (&qi, &main_cfg)
                } else {
                    (qc.as_ref().unwrap(), &cont_cfg)
                };
                let want = brute(cq, &cont_images, ccfg, t, Measure::Containment);
                assert_eq!(got(&h), want, "{scheme} containment t={t}");
                // top-N is the prefix
                let top = QueryOptions {
                    top: Some(2),
                    ..opts
                };
                let ht = idx.query_image(&qi, qc.as_ref(), &top).unwrap();
                let full = idx.query_image(&qi, qc.as_ref(), &opts).unwrap();
                assert_eq!(ht, full[..full.len().min(2)].to_vec());
                // LSH: a subset of the exact answer, with the same scores
                let lopts = QueryOptions {
                    candidates: Candidates::Lsh,
                    ..opts
                };
                match idx.query_image(&qi, qc.as_ref(), &lopts) {
                    Ok(hl) => {
                        assert!(scheme.is_positional());
                        for x in &hl {
                            assert!(full.contains(x), "{scheme}: LSH hit not in exact answer");
                        }
                    }
                    Err(e) => {
                        assert!(!scheme.is_positional());
                        assert!(matches!(e, fimdup::Error::Config(_)));
                    }
                }
            }
        }
        assert!(nonempty > 50, "{scheme}: queries must find something");
    }
}

#[test]
fn text_queries_equal_brute_force_in_order_on_any_thread_count() {
    let mut idx = Index::new(&pipeline(Scheme::BottomK, 64), IndexConfig::default()).unwrap();
    let texts = corpus(7, 80, "d");
    idx.add_documents(sketch(&idx, &texts), None, "mem", CorpusSpec::default())
        .unwrap();
    let queries: Vec<Query> = texts
        .iter()
        .step_by(3)
        .map(|(id, text)| Query {
            name: format!("q-{id}"),
            text: text.clone(),
        })
        .collect();
    let opts = QueryOptions {
        threshold: 0.3,
        ..QueryOptions::default()
    };
    let on = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| idx.query_texts(&queries, &opts).unwrap())
    };
    let one = on(1);
    assert_eq!(one, on(4));
    assert_eq!(one.len(), queries.len());
    let qs = idx.query_sketcher().unwrap();
    let cfg = idx.params().sketch;
    let mut found = 0;
    for (q, r) in queries.iter().zip(&one) {
        assert_eq!(r.query, q.name);
        let (_, image, _) = qs.sketch_text(&q.text);
        assert_eq!(r.empty_image, image.is_empty());
        assert_eq!(
            got(&r.hits),
            brute(
                &image,
                &idx.images().unwrap(),
                &cfg,
                0.3,
                Measure::Resemblance
            )
        );
        assert!(r.hits.iter().all(|h| h.exact.is_none()));
        found += r.hits.len();
    }
    assert!(
        found > queries.len(),
        "queries must find their near-duplicates"
    );
    assert!(
        one.iter().any(|r| r.empty_image),
        "the short document is a query"
    );
    // exact measures need the sources, which an index of images does not keep
    let exact = QueryOptions {
        exact: true,
        ..opts
    };
    let err = idx.query_texts(&queries, &exact).unwrap_err().to_string();
    assert!(err.contains("keeps its sources"), "{err}");
}

#[test]
fn containment_needs_mod_m_images() {
    let idx = Index::new(&pipeline(Scheme::BottomK, 32), IndexConfig::default()).unwrap();
    let opts = QueryOptions {
        measure: Measure::Containment,
        ..QueryOptions::default()
    };
    let err = idx
        .query_image(&Image::from_values(vec![1, 2]), None, &opts)
        .unwrap_err();
    assert!(
        err.to_string().contains("mod-m image per document"),
        "{err}"
    );
}

/// Connected components of "estimated resemblance >= t" by an O(n^2) scan, as labels
/// (smallest member).
fn brute_labels(images: &[Image], cfg: &SketchConfig, t: f64) -> Vec<u32> {
    let n = images.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            x = p[x];
        }
        x
    }
    for i in 0..n {
        for j in 0..i {
            if reference_resemblance(&images[i], &images[j], cfg) >= t {
                let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    (0..n).map(|i| find(&mut parent, i) as u32).collect()
}

/// A build finds its cluster edges from each document's rarest keys only: with a
/// boilerplate paragraph in most documents (keys in hundreds of images), every scheme at
/// low and high thresholds gives the components of the brute-force scan, and so does a
/// second batch added to the saved (mapped) index.
#[test]
fn a_build_over_common_keys_gives_the_brute_force_clusters() {
    let mut docs = corpus(21, 120, "c");
    let mut rng = ChaCha8Rng::seed_from_u64(22);
    let boiler = words(&mut rng, 40, 50).join(" ");
    for (i, d) in docs.iter_mut().enumerate() {
        if i % 5 != 0 {
            d.1 = format!("{} {}", boiler, d.1);
        }
    }
    let dir = tempfile::tempdir().unwrap();
    // Every scheme an index takes (not simhash's fingerprints).
    for scheme in Scheme::ALL.into_iter().filter(|&s| s != Scheme::SimHash) {
        for t in [0.3, 0.5, 0.85] {
            let p = pipeline(scheme, 64);
            let cfg = IndexConfig {
                threshold: t,
                ..IndexConfig::default()
            };
            let mut one = Index::new(&p, cfg.clone()).unwrap();
            let all = sketch(&one, &docs);
            one.add_documents(all, Some("all"), "c", CorpusSpec::default())
                .unwrap();
            let want = brute_labels(&one.images().unwrap(), &one.params().sketch, t);
            assert_eq!(one.labels(), &want[..], "{scheme} at {t}");
            let merged = want.iter().enumerate().filter(|&(i, &l)| i as u32 != l);
            assert!(
                merged.count() > 15,
                "{scheme} at {t}: too few edges to test"
            );
            // Half, saved and opened (mapped), then the other half: the join's edges.
            let half = docs.len() / 2;
            let mut two = Index::new(&p, cfg).unwrap();
            let a = sketch(&two, &docs[..half]);
            two.add_batch(a, Some("a"), "c", CorpusSpec::default())
                .unwrap();
            let path = dir.path().join(format!("{}-{t}", scheme.name()));
            two.save(&path).unwrap();
            let (mut two, _lock) = Index::open_for_write(&path, std::time::Duration::ZERO).unwrap();
            let b = sketch(&two, &docs[half..]);
            two.add_batch(b, Some("b"), "c", CorpusSpec::default())
                .unwrap();
            assert_eq!(two.labels(), &want[..], "{scheme} at {t}, two batches");
        }
    }
}

#[test]
fn two_sweeps_give_the_clusters_of_one_build() {
    let dir = tempfile::tempdir().unwrap();
    for scheme in [Scheme::BottomK, Scheme::KMins] {
        let a = corpus(5, 80, "p");
        // sweep 2: 2/3 of sweep 1 unchanged, some changed, some moved, new pages
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let mut b = Vec::new();
        for (i, (id, text)) in a.iter().enumerate() {
            let w: Vec<String> = text.split(' ').map(String::from).collect();
            match i % 6 {
                0 => b.push((id.clone(), edit(&mut rng, &w, 3).join(" "))), // changed
                1 => b.push((format!("moved-{id}"), edit(&mut rng, &w, 1).join(" "))),
                2 => {}                                  // gone
                _ => b.push((id.clone(), text.clone())), // unchanged
            }
        }
        b.extend(corpus(7, 30, "n"));
        let cfg = IndexConfig {
            threshold: 0.4,
            ..IndexConfig::default()
        };
        let p = pipeline(scheme, 64);
        // two sweeps, with a save/open in between
        let mut two = Index::new(&p, cfg.clone()).unwrap();
        let da = sketch(&two, &a);
        two.add_documents(da, Some("s1"), "a", CorpusSpec::default())
            .unwrap();
        let path = dir.path().join(scheme.name());
        two.save(&path).unwrap();
        let mut two = Index::open(&path).unwrap();
        let db = sketch(&two, &b);
        let rep = two
            .add_documents(db, Some("s2"), "b", CorpusSpec::default())
            .unwrap();
        two.save(&path).unwrap();
        let two = Index::open(&path).unwrap();
        // one build over both
        let mut one = Index::new(&p, cfg).unwrap();
        let all: Vec<(String, String)> = a.iter().chain(&b).cloned().collect();
        let dall = sketch(&one, &all);
        one.add_documents(dall, Some("all"), "ab", CorpusSpec::default())
            .unwrap();
        assert_eq!(two.len(), one.len());
        assert_eq!(two.images().unwrap(), one.images().unwrap());
        assert_eq!(two.labels(), one.labels(), "{scheme}");
        assert_eq!(two.clusters(), one.clusters());
        let want = brute_labels(&one.images().unwrap(), &one.params().sketch, 0.4);
        assert_eq!(
            one.labels(),
            &want[..],
            "{scheme}: union-find vs brute force"
        );
        assert!(one.clusters().len() > 20);
        // unchanged pages are not stored again
        let unchanged = a.len() / 2;
        assert!(rep.unchanged as usize >= unchanged - 2, "{}", rep.unchanged);
        assert_eq!(rep.added + rep.unchanged, b.len() as u64);

        // lost and found == brute force over the documents of sweep 2
        let s2: std::collections::HashSet<&str> = b.iter().map(|d| d.0.as_str()).collect();
        let lost_ids: Vec<&str> = a
            .iter()
            .map(|d| d.0.as_str())
            .filter(|id| !s2.contains(id))
            .collect();
        let mut reported: Vec<&str> = rep.lost.iter().map(|l| l.ext_id.as_str()).collect();
        reported.sort_unstable();
        let mut lost_sorted = lost_ids.clone();
        lost_sorted.sort_unstable();
        assert_eq!(reported, lost_sorted);
        let cfgs = two.params().sketch;
        let moved: std::collections::HashSet<&str> = b
            .iter()
            .filter_map(|d| d.0.strip_prefix("moved-"))
            .filter(|id| !id.ends_with("short"))
            .collect();
        assert!(moved.len() >= 10, "{moved:?}");
        let (mut found, mut moved_found, mut at_address) = (0, 0, 0);
        for l in &rep.lost {
            let q = &two.image(l.doc).unwrap();
            let mut best: Option<(u32, f64)> = None;
            let new_address = format!("moved-{}", l.ext_id);
            let mut at_new_address = None;
            for d in 0..two.len() {
                let id = DocId(d as u32);
                if two.last_seen(id) != "s2" || two.ext_id(id) == l.ext_id {
                    continue;
                }
                let e =
                    reference_resemblance(q, &two.image(fimdup::DocId(d as u32)).unwrap(), &cfgs);
                if two.ext_id(id) == new_address {
                    at_new_address = Some(e);
                }
                if e >= 0.4 && best.is_none_or(|(_, be)| e > be) {
                    best = Some((d as u32, e));
                }
            }
            assert_eq!(
                l.found.as_ref().map(|f| (f.0 .0, f.2)),
                best,
                "{scheme}: {}",
                l.ext_id
            );
            found += usize::from(l.found.is_some());
            if moved.contains(l.ext_id.as_str()) {
                // A moved page (one word edited) is found, at its new address; only a page at
                // least as similar (a variant close to its family's page) may stand in.
                let f = l.found.as_ref().expect("a moved page is found");
                let e = at_new_address.expect("the new address is in sweep 2");
                assert!(e >= 0.4, "{scheme}: {new_address} at {e}");
                assert!(f.1 == new_address || f.2 >= e, "{scheme}: {l:?}");
                at_address += usize::from(f.1 == new_address);
                moved_found += 1;
            }
        }
        assert_eq!(moved_found, moved.len(), "{scheme}: {moved:?}");
        assert!(
            at_address > 0,
            "{scheme}: no moved page found at its new address"
        );
        assert!(found >= 10, "{scheme}: {found} moved pages found");
        // lost documents stay, tagged with their last sweep
        let l0 = &rep.lost[0];
        assert_eq!(two.last_seen(l0.doc), "s1");
    }
}

/// Components of "estimated resemblance >= t" among the documents `live` accepts, by an
/// O(n^2) scan, as labels (smallest member); any other document is its own label.
fn brute_labels_live(
    images: &[Image],
    cfg: &SketchConfig,
    t: f64,
    live: &dyn Fn(usize) -> bool,
) -> Vec<u32> {
    let n = images.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            x = p[x];
        }
        x
    }
    for i in (0..n).filter(|&i| live(i)) {
        for j in (0..i).filter(|&j| live(j)) {
            if reference_resemblance(&images[i], &images[j], cfg) >= t {
                let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    (0..n).map(|i| find(&mut parent, i) as u32).collect()
}

/// Every answer of `idx` to `queries` (resemblance and containment from the context, and
/// LSH on positional schemes) at a few thresholds.
fn answers(idx: &Index, queries: &[String]) -> Vec<Vec<fimdup::index::Hit>> {
    let qs = idx.query_sketcher().unwrap();
    let mut out = Vec::new();
    for q in queries {
        let (_, qi, qc) = qs.sketch_text(q);
        for t in [0.2, 0.5, 0.9] {
            let mut all = vec![QueryOptions {
                threshold: t,
                ..QueryOptions::default()
            }];
            all.push(QueryOptions {
                measure: Measure::Containment,
                ..all[0]
            });
            if idx.params().sketch.scheme.is_positional() {
                all.push(QueryOptions {
                    candidates: Candidates::Lsh,
                    ..all[0]
                });
            }
            for o in all {
                out.push(idx.query_image(&qi, qc.as_ref(), &o).unwrap());
            }
        }
    }
    out
}

/// Queries: some indexed texts and edited copies of others.
fn some_queries(texts: &[(String, String)]) -> Vec<String> {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let mut queries: Vec<String> = texts.iter().step_by(5).map(|d| d.1.clone()).collect();
    for d in texts.iter().step_by(9) {
        let w: Vec<String> = d.1.split(' ').map(String::from).collect();
        let k = rng.gen_range(0..8);
        queries.push(edit(&mut rng, &w, k).join(" "));
    }
    queries
}

#[cfg(unix)]
fn inode(p: &std::path::Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p).unwrap().ino()
}

#[test]
fn segments_answer_like_one_build() {
    let dir = tempfile::tempdir().unwrap();
    for (si, scheme) in [Scheme::BottomK, Scheme::KMins, Scheme::ModM]
        .into_iter()
        .enumerate()
    {
        let texts = corpus(40 + si as u64, 90, "d");
        let cfg = IndexConfig {
            containment: true,
            threshold: 0.4,
            ..IndexConfig::default()
        };
        let p = pipeline(scheme, 64);
        // 11 sweeps of disjoint documents: 60, eight of 7 (merged by the policy into one of
        // 56 when the eighth arrives), 3, and the rest; saved and opened again now and then.
        let mut sizes = vec![60, 7, 7, 7, 7, 7, 7, 7, 7, 3];
        let used: usize = sizes.iter().sum();
        assert!(texts.len() > used + 10, "{}", texts.len());
        sizes.push(texts.len() - used);
        let path = dir.path().join(scheme.name());
        let mut multi = Index::new(&p, cfg.clone()).unwrap();
        let mut from = 0;
        let mut first_inode = None;
        for (i, &n) in sizes.iter().enumerate() {
            let docs = sketch(&multi, &texts[from..from + n]);
            multi
                .add_documents(docs, Some(&format!("s{i}")), "mem", CorpusSpec::default())
                .unwrap();
            from += n;
            if i % 3 == 0 || i == sizes.len() - 1 {
                multi.save(&path).unwrap();
                multi = Index::open(&path).unwrap();
                // The first segment is never rewritten: the same file, listed again.
                let f = path.join("seg-000001/values.bin");
                assert_eq!(*first_inode.get_or_insert_with(|| inode(&f)), inode(&f));
            }
            if i == 8 {
                assert_eq!(multi.segment_ranges(), [0..60, 60..116], "{scheme}");
            }
        }
        let n = texts.len() as u32;
        assert_eq!(
            multi.segment_ranges(),
            [0..60, 60..116, 116..119, 119..n],
            "{scheme}"
        );
        let mut one = Index::new(&p, cfg).unwrap();
        let all = sketch(&one, &texts);
        one.add_documents(all, Some("all"), "mem", CorpusSpec::default())
            .unwrap();
        assert_eq!(one.segment_count(), 1);
        assert_eq!(multi.images().unwrap(), one.images().unwrap());
        assert_eq!(multi.labels(), one.labels(), "{scheme}");
        let want = brute_labels(&one.images().unwrap(), &one.params().sketch, 0.4);
        assert_eq!(one.labels(), &want[..], "{scheme}");
        assert!(one.clusters().len() > 20, "{scheme}");
        let queries = some_queries(&texts);
        let want = answers(&one, &queries);
        assert!(want.iter().filter(|h| !h.is_empty()).count() > 100);
        // every answer equals brute force too (resemblance from the context)
        let qs = one.query_sketcher().unwrap();
        for q in &queries {
            let (_, qi, _) = qs.sketch_text(q);
            let o = QueryOptions {
                threshold: 0.5,
                ..QueryOptions::default()
            };
            let b = brute(
                &qi,
                &one.images().unwrap(),
                &one.params().sketch,
                0.5,
                Measure::Resemblance,
            );
            assert_eq!(got(&multi.query_image(&qi, None, &o).unwrap()), b);
        }
        let mut got_multi = answers(&multi, &queries);
        // the sweep tags differ (one sweep against eleven)
        for h in got_multi.iter_mut().flatten() {
            h.last_seen = "all".into();
        }
        assert_eq!(got_multi, want, "{scheme}: segmented vs one build");
        // a full merge changes no answer, on disk either
        let rep = multi.merge_all().unwrap();
        assert_eq!((rep.segments_before, rep.segments_after), (4, 1));
        assert_eq!(
            multi.segment_ranges(),
            vec![std::ops::Range { start: 0, end: n }]
        );
        let mut merged = answers(&multi, &queries);
        for h in merged.iter_mut().flatten() {
            h.last_seen = "all".into();
        }
        assert_eq!(merged, want, "{scheme}: merged");
        multi.save(&path).unwrap();
        let back = Index::open(&path).unwrap();
        assert_eq!(
            back.segment_ranges(),
            vec![std::ops::Range { start: 0, end: n }]
        );
        assert_eq!(back.labels(), one.labels());
        let mut reread = answers(&back, &queries);
        for h in reread.iter_mut().flatten() {
            h.last_seen = "all".into();
        }
        assert_eq!(reread, want, "{scheme}: merged, saved and opened");
        // the segments of the generation before are kept for its readers, older ones not
        let segs: Vec<String> = std::fs::read_dir(&path)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.starts_with("seg-"))
            .collect();
        assert_eq!(segs.len(), 5, "{segs:?}");
    }
}

#[test]
fn removed_documents_are_invisible_and_merges_drop_them() {
    let dir = tempfile::tempdir().unwrap();
    for scheme in [Scheme::BottomK, Scheme::KMins] {
        let texts = corpus(77, 100, "d");
        let cfg = IndexConfig {
            containment: true,
            threshold: 0.4,
            ..IndexConfig::default()
        };
        let p = pipeline(scheme, 64);
        let path = dir.path().join(scheme.name());
        let mut idx = Index::new(&p, cfg).unwrap();
        let third = texts.len() / 3;
        for (i, chunk) in texts.chunks(third).enumerate() {
            let docs = sketch(&idx, chunk);
            idx.add_documents(docs, Some(&format!("s{i}")), "m", CorpusSpec::default())
                .unwrap();
        }
        idx.save(&path).unwrap();
        let mut idx = Index::open(&path).unwrap();
        assert!(idx.segment_count() >= 3);
        // the base page of every third family (most are in clusters), and an unknown id
        let mut gone: Vec<String> = (0..100).step_by(3).map(|f| format!("d{f}")).collect();
        gone.push("nope".into());
        let clustered_before = idx.clusters().len();
        let rep = idx.remove(&gone).unwrap();
        assert_eq!(rep.removed, 34);
        assert_eq!(rep.unknown, ["nope"]);
        let dead: Vec<bool> = (0..idx.len())
            .map(|d| gone.contains(&idx.ext_id(DocId(d as u32)).to_string()))
            .collect();
        for (d, &x) in dead.iter().enumerate() {
            assert_eq!(idx.is_deleted(DocId(d as u32)), x);
        }
        let sk = idx.params().sketch;
        let check = |idx: &Index, what: &str| {
            let live = |d: usize| !dead[d];
            let want = brute_labels_live(&idx.images().unwrap(), &sk, 0.4, &live);
            assert_eq!(idx.labels(), &want[..], "{scheme} {what}: labels");
            let qs = idx.query_sketcher().unwrap();
            let live_images: Vec<Image> = (0..idx.len())
                .map(|d| {
                    if dead[d] {
                        Image::empty()
                    } else {
                        idx.image(fimdup::DocId(d as u32)).unwrap()
                    }
                })
                .collect();
            let mut found = 0;
            for q in some_queries(&texts) {
                let (_, qi, qc) = qs.sketch_text(&q);
                for t in [0.3, 0.7] {
                    let o = QueryOptions {
                        threshold: t,
                        ..QueryOptions::default()
                    };
                    let h = got(&idx.query_image(&qi, qc.as_ref(), &o).unwrap());
                    assert_eq!(
                        h,
                        brute(&qi, &live_images, &sk, t, Measure::Resemblance),
                        "{scheme} {what}"
                    );
                    found += h.len();
                    if scheme.is_positional() {
                        let l = QueryOptions {
                            candidates: Candidates::Lsh,
                            ..o
                        };
                        for x in idx.query_image(&qi, qc.as_ref(), &l).unwrap() {
                            assert!(!dead[x.doc.index()], "{scheme} {what}: LSH");
                        }
                    }
                }
            }
            assert!(found > 100, "{what}: {found}");
        };
        check(&idx, "removed");
        assert!(idx.clusters().len() < clustered_before + 34);
        idx.save(&path).unwrap();
        let back = Index::open(&path).unwrap();
        check(&back, "saved");
        assert_eq!(back.deleted_count(), 34);
        let mut merged = back.clone();
        merged.merge_all().unwrap();
        check(&merged, "merged");
        for (d, &x) in dead.iter().enumerate() {
            if x {
                assert!(
                    merged.image(fimdup::DocId(d as u32)).unwrap().is_empty(),
                    "a merge drops removed images"
                );
            }
        }
        merged.save(&path).unwrap();
        let mut merged = Index::open(&path).unwrap();
        check(&merged, "merged, saved");
        assert_eq!(merged.deleted_count(), 34);
        // removing again finds nothing; a new sweep stores a removed id again, new
        let rep = merged.remove(&gone[..3]).unwrap();
        assert_eq!(rep.removed, 0);
        let back_again: Vec<(String, String)> = texts
            .iter()
            .filter(|d| d.0 == "d0" || d.0 == "d1")
            .cloned()
            .collect();
        let docs = sketch(&merged, &back_again);
        let r = merged
            .add_documents(docs, Some("again"), "m", CorpusSpec::default())
            .unwrap();
        assert_eq!((r.added, r.unchanged), (1, 1), "{scheme}");
        let d0 = DocId(merged.len() as u32 - 1);
        assert_eq!(merged.ext_id(d0), "d0");
        let all_live = |d: usize| d >= dead.len() || !dead[d];
        let want = brute_labels_live(&merged.images().unwrap(), &sk, 0.4, &all_live);
        assert_eq!(merged.labels(), &want[..], "{scheme}: re-added");
        let (_, qi, qc) = merged
            .query_sketcher()
            .unwrap()
            .sketch_text(&back_again[0].1);
        let h = merged
            .query_image(&qi, qc.as_ref(), &QueryOptions::default())
            .unwrap();
        assert_eq!(h[0].doc, d0);
    }
}

/// Random histories of complete sweeps (unchanged, changed, new and dropped pages), batches,
/// removals, full merges and save/open round trips: after every step the segments cover the
/// DocIds in order, the clusters are those of a brute-force union-find over the documents
/// not removed, and queries equal a brute-force scan of them.
#[test]
fn random_histories_match_brute_force() {
    let dir = tempfile::tempdir().unwrap();
    let (mut hits, mut dead, mut segmented) = (0, 0, 0);
    for (h, scheme) in [Scheme::BottomK, Scheme::KMins, Scheme::BottomK]
        .into_iter()
        .enumerate()
    {
        let mut rng = ChaCha8Rng::seed_from_u64(1000 + h as u64);
        let pool = corpus(500 + h as u64, 50, "p");
        let cfg = IndexConfig {
            threshold: 0.4,
            ..IndexConfig::default()
        };
        let p = pipeline(scheme, 48);
        let path = dir.path().join(format!("h{h}"));
        let mut idx = Index::new(&p, cfg).unwrap();
        let mut removed: BTreeSet<String> = BTreeSet::new();
        let mut kinds = Vec::new();
        for step in 0..14 {
            let op = if step == 0 { 0 } else { rng.gen_range(0..6) };
            kinds.push(op);
            let tag = format!("t{step}");
            match op {
                // a complete sweep: part of the pool, some pages edited
                0 | 1 => {
                    let mut docs = Vec::new();
                    for (id, text) in &pool {
                        if rng.gen_bool(0.4) {
                            let t = if rng.gen_bool(0.2) {
                                let w: Vec<String> = text.split(' ').map(String::from).collect();
                                edit(&mut rng, &w, 2).join(" ")
                            } else {
                                text.clone()
                            };
                            docs.push((id.clone(), t));
                        }
                    }
                    let nd = sketch(&idx, &docs);
                    let r = idx
                        .add_documents(nd, Some(&tag), "m", CorpusSpec::default())
                        .unwrap();
                    assert_eq!(r.added + r.unchanged, docs.len() as u64);
                }
                // a batch of new pages, copies of pool pages under new ids
                2 => {
                    let docs: Vec<(String, String)> = (0..rng.gen_range(1..12))
                        .map(|i| {
                            let (_, t) = &pool[rng.gen_range(0..pool.len())];
                            (format!("b{step}-{i}"), t.clone())
                        })
                        .collect();
                    let nd = sketch(&idx, &docs);
                    let r = idx
                        .add_batch(nd, Some(&tag), "m", CorpusSpec::default())
                        .unwrap();
                    assert!(r.lost.is_empty());
                }
                // removals of present ids
                3 => {
                    let ids: Vec<String> = (0..3)
                        .map(|_| {
                            idx.ext_id(DocId(rng.gen_range(0..idx.len() as u32)))
                                .to_string()
                        })
                        .collect();
                    idx.remove(&ids).unwrap();
                    removed.extend(ids);
                }
                4 => {
                    idx.merge_all().unwrap();
                    assert_eq!(idx.segment_count(), 1);
                }
                _ => {
                    idx.save(&path).unwrap();
                    idx = Index::open(&path).unwrap();
                }
            }
            // Removed ids stay removed in every version stored before the removal; a later
            // sweep stores them again as new documents.
            let n = idx.len();
            let live: Vec<bool> = (0..n).map(|d| !idx.is_deleted(DocId(d as u32))).collect();
            for (d, _) in live.iter().enumerate().filter(|(_, &l)| !l) {
                assert!(removed.contains(idx.ext_id(DocId(d as u32))));
            }
            let ranges = idx.segment_ranges();
            dead += live.iter().filter(|&&l| !l).count();
            segmented += usize::from(ranges.len() > 1);
            assert_eq!(ranges.first().map_or(0, |r| r.start), 0);
            assert_eq!(ranges.last().map_or(0, |r| r.end) as usize, n);
            assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
            let sk = idx.params().sketch;
            let want = brute_labels_live(&idx.images().unwrap(), &sk, 0.4, &|d| live[d]);
            assert_eq!(
                idx.labels(),
                &want[..],
                "history {h} step {step} ops {kinds:?}"
            );
            let live_images: Vec<Image> = (0..n)
                .map(|d| {
                    if live[d] {
                        idx.image(fimdup::DocId(d as u32)).unwrap()
                    } else {
                        Image::empty()
                    }
                })
                .collect();
            let qs = idx.query_sketcher().unwrap();
            for (_, text) in pool.iter().step_by(13) {
                let (_, qi, _) = qs.sketch_text(text);
                let o = QueryOptions {
                    threshold: 0.4,
                    ..QueryOptions::default()
                };
                let answer = got(&idx.query_image(&qi, None, &o).unwrap());
                assert_eq!(
                    answer,
                    brute(&qi, &live_images, &sk, 0.4, Measure::Resemblance),
                    "history {h} step {step} ops {kinds:?}"
                );
                hits += answer.len();
            }
        }
        assert!(
            kinds.iter().collect::<BTreeSet<_>>().len() >= 4,
            "{kinds:?}"
        );
    }
    assert!(
        hits > 300 && dead > 20 && segmented > 10,
        "{hits} {dead} {segmented}"
    );
}

/// Small segments behind a larger one never form a tail of one level; the cap of
/// `max_segments` merges them anyway, and the answers stay those of one build.
#[test]
fn stranded_small_segments_are_merged_under_the_cap() {
    let texts = corpus(61, 250, "s");
    let mut sizes = Vec::new();
    for _ in 0..3 {
        sizes.push(100);
        sizes.extend([3; 7]);
    }
    let total: usize = sizes.iter().sum();
    assert!(texts.len() >= total, "{}", texts.len());
    let texts = &texts[..total];
    let cfg = IndexConfig {
        threshold: 0.4,
        containment: true,
        ..IndexConfig::default()
    };
    let p = pipeline(Scheme::BottomK, 64);
    let mut idx = Index::new(&p, cfg.clone()).unwrap();
    let mut from = 0;
    let mut most = 0;
    for (i, &n) in sizes.iter().enumerate() {
        let docs = sketch(&idx, &texts[from..from + n]);
        idx.add_documents(docs, Some(&format!("s{i}")), "m", CorpusSpec::default())
            .unwrap();
        from += n;
        let cap = fimdup::index::max_segments(idx.len() as u64);
        assert!(
            idx.segment_count() <= cap,
            "{} > {cap}",
            idx.segment_count()
        );
        most = most.max(idx.segment_count());
    }
    // 24 segments without the cap; 21 at most with it
    assert_eq!(fimdup::index::max_segments(total as u64), 21);
    assert_eq!(most, 21);
    assert!(idx.segment_count() < 24);
    let mut one = Index::new(&p, cfg).unwrap();
    let all = sketch(&one, texts);
    one.add_documents(all, Some("all"), "m", CorpusSpec::default())
        .unwrap();
    assert_eq!(idx.labels(), one.labels());
    let queries = some_queries(texts);
    let mut a = answers(&idx, &queries);
    for h in a.iter_mut().flatten() {
        h.last_seen = "all".into();
    }
    let want = answers(&one, &queries);
    assert!(want.iter().filter(|h| !h.is_empty()).count() > 50);
    assert_eq!(a, want);
}
