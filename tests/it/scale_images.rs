//! The streamed images file (version 3) through the library: written record by record and
//! read back equal to the in-memory set; shards read together equal one file; every
//! truncation and a bit flip are rejected naming the file; version-1 files still read.

use std::path::Path;

use fimdup::shingle::ShingleConfig;
use fimdup::sketch::{
    ImageInputs, ImageReader, ImageSet, ImageWriter, Scheme, Shard, SketchConfig, Sketcher,
    TextParams,
};
use fimdup::text::{Canonicalizer, TextConfig};

fn image_set(n: usize, scheme: Scheme) -> ImageSet {
    let canon = Canonicalizer::new(TextConfig::default()).unwrap();
    let sh = ShingleConfig::new(3, 1, 7).unwrap();
    let cfg = SketchConfig {
        scheme,
        size: 16,
        modulus: 4,
        ..SketchConfig::default()
    };
    let sk = Sketcher::new(sh, cfg).unwrap();
    let mut ext_ids = Vec::new();
    let mut images = Vec::new();
    for d in 0..n {
        let text: String = (0..40)
            .map(|j| format!("w{} ", (d * 13 + j * 7) % 97))
            .collect();
        let c = canon.canonicalize(&text);
        ext_ids.push(format!("doc-{d}"));
        images.push(sk.sketch(&c));
    }
    ImageSet {
        params: sk.params(TextParams::default()),
        ext_ids,
        images,
    }
}

fn write_v3(set: &ImageSet, path: &Path, shard: Shard) {
    let mut w = ImageWriter::create(path, &set.params, shard).unwrap();
    for (g, (id, img)) in set.ext_ids.iter().zip(&set.images).enumerate() {
        if shard.holds(g as u64) {
            w.push(id, img).unwrap();
        }
    }
    w.finish().unwrap();
}

#[test]
fn streamed_file_round_trips_for_every_scheme() {
    let dir = tempfile::tempdir().unwrap();
    for scheme in [
        Scheme::BottomK,
        Scheme::KMins,
        Scheme::OnePermutation,
        Scheme::ModM,
    ] {
        let set = image_set(57, scheme);
        let p = dir.path().join(format!("{scheme}.img"));
        write_v3(&set, &p, Shard::default());
        assert_eq!(ImageSet::read(&p).unwrap(), set, "{scheme}");
        let mut r = ImageReader::open(&p).unwrap();
        assert_eq!(r.params(), &set.params);
        let mut i = 0u32;
        while let Some((d, id, img)) = r.next_doc().unwrap() {
            assert_eq!(d.0, i);
            assert_eq!(id, set.ext_ids[i as usize]);
            assert_eq!(img, set.images[i as usize]);
            i += 1;
        }
        assert_eq!(i as usize, set.images.len());
    }
}

#[test]
fn shards_together_equal_one_file_and_bad_sets_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let set = image_set(50, Scheme::BottomK);
    let paths: Vec<_> = (0..3)
        .map(|i| {
            let p = dir.path().join(format!("s{i}.img"));
            write_v3(&set, &p, Shard::new(i, 3).unwrap());
            p
        })
        .collect();
    // Any order of the shards gives the same set.
    for order in [[0, 1, 2], [2, 0, 1]] {
        let ps: Vec<_> = order.iter().map(|&i| paths[i].clone()).collect();
        assert_eq!(ImageInputs::open(&ps).unwrap().read_all().unwrap(), set);
    }
    // A shard on its own is not a corpus.
    let e = ImageSet::read(&paths[1]).unwrap_err().to_string();
    assert!(e.contains("s1.img") && e.contains("shard 1/3"), "{e}");
    // Missing and doubled shards.
    let e = ImageInputs::open(&paths[..2]).err().unwrap().to_string();
    assert!(e.contains("shard 2/3 is missing"), "{e}");
    let doubled = vec![paths[0].clone(), paths[1].clone(), paths[1].clone()];
    let e = ImageInputs::open(&doubled).err().unwrap().to_string();
    assert!(e.contains("collide"), "{e}");
    // A shard of another corpus size.
    let other = image_set(20, Scheme::BottomK);
    let p = dir.path().join("o2.img");
    write_v3(&other, &p, Shard::new(2, 3).unwrap());
    let e = ImageInputs::open(&[paths[0].clone(), paths[1].clone(), p])
        .unwrap()
        .read_all()
        .unwrap_err()
        .to_string();
    assert!(e.contains("not from one run"), "{e}");
    // Whole files are concatenated: DocIds of the second follow the first.
    let a = dir.path().join("a.img");
    let b = dir.path().join("b.img");
    write_v3(&set, &a, Shard::default());
    // Their ids must differ: the same ids in both files are refused.
    other.write(&b).unwrap(); // version 1
    let e = ImageInputs::open(&[a.clone(), b.clone()])
        .unwrap()
        .read_all()
        .unwrap_err()
        .to_string();
    assert!(e.contains("document 1: duplicate id \"doc-0\""), "{e}");
    let mut other = other;
    for id in &mut other.ext_ids {
        id.insert_str(0, "other-");
    }
    other.write(&b).unwrap();
    let both = ImageInputs::open(&[a, b]).unwrap().read_all().unwrap();
    assert_eq!(both.images.len(), 70);
    assert_eq!(both.ext_ids[50], other.ext_ids[0]);
    // Different parameters are refused naming the file and the parameter.
    let km = dir.path().join("km.img");
    write_v3(&image_set(5, Scheme::KMins), &km, Shard::default());
    let e = ImageInputs::open(&[paths[0].clone(), km])
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("km.img") && e.contains("scheme"), "{e}");
}

#[test]
fn truncated_and_flipped_files_are_rejected_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let set = image_set(12, Scheme::BottomK);
    let p = dir.path().join("full.img");
    write_v3(&set, &p, Shard::default());
    let bytes = std::fs::read(&p).unwrap();
    let q = dir.path().join("bad.img");
    let read_all = |q: &Path| -> fimdup::Result<u64> {
        let mut r = ImageReader::open(q)?;
        let mut n = 0;
        while r.next_doc()?.is_some() {
            n += 1;
        }
        Ok(n)
    };
    for cut in 0..bytes.len() {
        std::fs::write(&q, &bytes[..cut]).unwrap();
        let e = read_all(&q).unwrap_err().to_string();
        assert!(e.contains("bad.img"), "cut {cut}: {e}");
        assert!(ImageSet::read(&q).is_err(), "cut {cut}");
    }
    for at in (12..bytes.len()).step_by(7) {
        let mut b = bytes.clone();
        b[at] ^= 0x10;
        std::fs::write(&q, &b).unwrap();
        let e = read_all(&q).unwrap_err().to_string();
        assert!(e.contains("bad.img"), "flip at {at}: {e}");
    }
    let mut b = bytes.clone();
    b.push(0);
    std::fs::write(&q, &b).unwrap();
    assert!(read_all(&q).is_err());
    assert_eq!(read_all(&p).unwrap(), 12);
}

/// `cluster` on images files builds only the context, in passes over the files
/// (`Prepared::from_images_streamed`): the same clusters, pairs and edges as with every image
/// in memory (`Prepared::new`), for both image families, one file or three shards, with or
/// without a budget that forces several passes, and with equal images collapsed.
#[test]
fn streamed_context_clusters_equal_the_in_memory_ones() {
    use fimdup::cluster::Prepared;
    use fimdup::cluster::{ClusterConfig, Method, Threshold};
    use fimdup::sketch::pipeline::{sketch_corpus, PipelineConfig};
    use fimdup::spill::{MemoryBudget, SpillConfig};

    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/default/docs.jsonl");
    let dir = tempfile::tempdir().unwrap();
    for scheme in [Scheme::BottomK, Scheme::KMins] {
        let mut pcfg = PipelineConfig::default();
        pcfg.sketch.scheme = scheme;
        let mut set = sketch_corpus(&corpus, &pcfg, &|_| {}).unwrap().images;
        // Equal images: the streamed path must collapse them as the in-memory one does.
        for d in [3usize, 10, 10] {
            set.ext_ids
                .push(format!("copy-of-{d}-{}", set.ext_ids.len()));
            set.images.push(set.images[d].clone());
        }
        let one = dir.path().join(format!("{scheme}.img"));
        write_v3(&set, &one, Shard::default());
        let shards: Vec<_> = (0..3)
            .map(|i| {
                let p = dir.path().join(format!("{scheme}-{i}.img"));
                write_v3(&set, &p, Shard::new(i, 3).unwrap());
                p
            })
            .collect();
        let total: u64 = set.images.iter().map(|i| i.len() as u64).sum();
        let mem = Prepared::new(set, None).unwrap();
        for method in [Method::Concept, Method::UnionFind] {
            let cfg = ClusterConfig {
                method,
                threshold: Threshold::Resemblance(0.8),
                ..ClusterConfig::default()
            };
            let want = mem.run(&cfg, &SpillConfig::default()).unwrap();
            assert!(
                want.pairs.len() > 20,
                "{scheme} {method}: a test with pairs"
            );
            assert!(
                want.summary.collapsed.removed >= 2,
                "{:?}",
                want.summary.collapsed
            );
            for budget in [None, Some(total * 12 / 4)] {
                let spill = SpillConfig {
                    budget: budget.map(MemoryBudget),
                    tmp_dir: Some(dir.path().to_path_buf()),
                    process: None,
                    ..Default::default()
                };
                for paths in [vec![one.clone()], shards.clone()] {
                    let p =
                        Prepared::from_images_streamed(&paths, &cfg.context, &spill, None).unwrap();
                    assert_eq!(p.ext_ids(), mem.ext_ids());
                    let got = p.run(&cfg, &spill).unwrap();
                    let what = format!("{scheme} {method} budget {budget:?} {} files", paths.len());
                    assert_eq!(got.clusters, want.clusters, "{what}");
                    assert_eq!(got.pairs, want.pairs, "{what}");
                    assert_eq!(got.edges, want.edges, "{what}");
                    assert_eq!(got.summary.collapsed, want.summary.collapsed, "{what}");
                    assert_eq!(
                        got.summary.context_rows, want.summary.context_rows,
                        "{what}"
                    );
                }
            }
            // The streamed preparation serves only the methods that need just the context.
            let p = Prepared::from_images_streamed(
                std::slice::from_ref(&one),
                &cfg.context,
                &SpillConfig::default(),
                None,
            )
            .unwrap();
            let lsh = ClusterConfig {
                method: Method::Lsh,
                ..cfg
            };
            let e = p
                .run(&lsh, &SpillConfig::default())
                .unwrap_err()
                .to_string();
            assert!(e.contains("only serve concept and union-find"), "{e}");
        }
    }
}
