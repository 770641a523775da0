//! Damaged indexes: truncated, bit-flipped and foreign files (of a segment or of the
//! generation) are rejected with an error naming the file and the offset, never a panic,
//! both when the checksums catch the damage and when the checksums are forged (so the
//! parsers themselves see the damage); a crashed writer's half-written generation or
//! segment is ignored.

use std::path::{Path, PathBuf};

use fimdup::index::{CorpusSpec, Index, IndexConfig, NewDoc};
use fimdup::shingle::ShingleConfig;
use fimdup::sketch::pipeline::PipelineConfig;
use fimdup::sketch::{Scheme, SketchConfig};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use xxhash_rust::xxh64::xxh64;

fn build(dir: &Path) -> Index {
    let p = PipelineConfig {
        shingle: ShingleConfig::new(3, 1, 1).unwrap(),
        sketch: SketchConfig {
            scheme: Scheme::OnePermutation,
            size: 16,
            ..SketchConfig::default()
        },
        ..PipelineConfig::default()
    };
    let cfg = IndexConfig {
        containment: true,
        keep_sources: true,
        ..IndexConfig::default()
    };
    let mut idx = Index::new(&p, cfg).unwrap();
    let qs = idx.query_sketcher().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let base: Vec<String> = (0..40)
        .map(|_| format!("w{}", rng.gen_range(0..200)))
        .collect();
    let docs: Vec<NewDoc> = (0..40)
        .map(|i| {
            let mut w = base.clone();
            for _ in 0..(i % 9) {
                let k = rng.gen_range(0..w.len());
                w[k] = format!("z{}", rng.gen_range(0..100));
            }
            let (_, image, containment) = qs.sketch_text(&w.join(" "));
            NewDoc {
                ext_id: format!("doc{i}"),
                image,
                containment,
            }
        })
        .collect();
    idx.add_documents(docs, Some("t1"), "mem", CorpusSpec::default())
        .unwrap();
    idx.save(dir).unwrap();
    idx
}

fn gen_dir(dir: &Path) -> PathBuf {
    let cur = std::fs::read_to_string(dir.join("CURRENT")).unwrap();
    dir.join(cur.split(' ').next().unwrap())
}

/// The one segment directory of the index at `dir`.
fn seg_dir(dir: &Path) -> PathBuf {
    dir.join("seg-000001")
}

/// Rewrites the file `name` of the segment (or, for `state.bin`, of the generation), its
/// manifest entry and CURRENT so the checksums match `bytes`.
fn forge(dir: &Path, name: &str, bytes: &[u8]) {
    let g = gen_dir(dir);
    let in_gen = name == "state.bin" || name == "deleted.bin";
    let fdir = if in_gen { g.clone() } else { seg_dir(dir) };
    std::fs::write(fdir.join(name), bytes).unwrap();
    let mpath = g.join("manifest.json");
    let mut m: serde_json::Value = serde_json::from_slice(&std::fs::read(&mpath).unwrap()).unwrap();
    let files = if in_gen {
        &mut m["files"]
    } else {
        &mut m["segments"][0]["files"]
    };
    for f in files.as_array_mut().unwrap() {
        if f["name"] == name {
            f["bytes"] = bytes.len().into();
            f["xxh64"] = format!("{:016x}", xxh64(bytes, 0)).into();
            f["blocks"] = bytes
                .chunks(1 << 20)
                .map(|b| format!("{:016x}", xxh64(b, 0)))
                .collect::<Vec<_>>()
                .into();
        }
    }
    let mb = serde_json::to_vec(&m).unwrap();
    std::fs::write(&mpath, &mb).unwrap();
    let gname = g.file_name().unwrap().to_str().unwrap().to_string();
    std::fs::write(
        dir.join("CURRENT"),
        format!("{gname} {:016x}\n", xxh64(&mb, 0)),
    )
    .unwrap();
}

type Damage = (String, Box<dyn Fn(&mut Vec<u8>)>);

fn damages(len: usize, rng: &mut ChaCha8Rng) -> Vec<Damage> {
    let mut v: Vec<Damage> = Vec::new();
    for cut in [0, 1, 7, 12, len / 3, len / 2, len.saturating_sub(1)] {
        if cut < len {
            v.push((
                format!("truncated to {cut}"),
                Box::new(move |b| b.truncate(cut)),
            ));
        }
    }
    let mut pos: Vec<usize> = vec![0, 3, 8, 11, 12, 13, len / 2, len - 1];
    for _ in 0..24 {
        pos.push(rng.gen_range(0..len));
    }
    for p in pos {
        let bit = rng.gen_range(0..8);
        v.push((
            format!("bit {bit} of byte {p} flipped"),
            Box::new(move |b| b[p] ^= 1 << bit),
        ));
    }
    v
}

#[test]
fn damaged_files_are_rejected_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let idx = build(dir.path());
    let g = gen_dir(dir.path());
    let listing = |d: &Path| {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        v.sort();
        v
    };
    assert_eq!(listing(&g), ["manifest.json", "state.bin"]);
    let seg = listing(&seg_dir(dir.path()));
    assert_eq!(
        seg,
        [
            "bands.bin",
            "containment-context.bin",
            "containment-values.bin",
            "context.bin",
            "docs.bin",
            "ids.bin",
            "values.bin",
        ]
    );
    let mut paths: Vec<PathBuf> = seg.iter().map(|n| seg_dir(dir.path()).join(n)).collect();
    paths.push(g.join("manifest.json"));
    paths.push(g.join("state.bin"));
    paths.push(dir.path().join("CURRENT"));
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut checked = 0;
    for path in &paths {
        let name = path.file_name().unwrap().to_str().unwrap();
        let orig = std::fs::read(path).unwrap();
        for (what, f) in damages(orig.len(), &mut rng) {
            let mut b = orig.clone();
            f(&mut b);
            std::fs::write(path, &b).unwrap();
            let Err(err) = Index::open(dir.path()) else {
                panic!("{name} {what} accepted");
            };
            let shown = err.to_string();
            // (a damaged CURRENT may name a generation whose manifest then does not match it)
            assert!(
                shown.contains(&path.display().to_string())
                    || (name == "CURRENT" && shown.contains(name)),
                "{name} {what}: error {shown:?} names another file"
            );
            assert!(
                matches!(err, fimdup::Error::Format { .. }),
                "{name} {what}: {err:?}"
            );
            if name.ends_with(".bin") {
                // Checked by blocks: the offset of the damage is named.
                let at = if let Some(cut) = what.strip_prefix("truncated to ") {
                    format!("at byte {cut}:")
                } else {
                    "checksum mismatch in bytes 0..".to_string()
                };
                assert!(shown.contains(&at), "{name} {what}: {shown}");
            }
            checked += 1;
        }
        std::fs::write(path, &orig).unwrap();
    }
    assert!(checked > 200);
    // undamaged again
    let back = Index::open(dir.path()).unwrap();
    assert_eq!(back.images().unwrap(), idx.images().unwrap());
    assert_eq!(back.labels(), idx.labels());
}

#[test]
fn parsers_survive_damage_behind_forged_checksums() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path());
    let g = gen_dir(dir.path());
    let sd = seg_dir(dir.path());
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let (cur0, man0) = (
        std::fs::read(dir.path().join("CURRENT")).unwrap(),
        std::fs::read(g.join("manifest.json")).unwrap(),
    );
    let mut rejected = 0;
    for name in [
        "bands.bin",
        "containment-context.bin",
        "containment-values.bin",
        "context.bin",
        "docs.bin",
        "ids.bin",
        "values.bin",
        "state.bin",
    ] {
        let fdir = if name == "state.bin" { &g } else { &sd };
        let orig = std::fs::read(fdir.join(name)).unwrap();
        for (what, f) in damages(orig.len(), &mut rng) {
            let mut b = orig.clone();
            f(&mut b);
            forge(dir.path(), name, &b);
            // a forged bit flip may still be a valid file; it must never panic, and a
            // truncation is always an error naming the file
            match Index::open(dir.path()) {
                Ok(_) => assert!(!what.starts_with("trunc"), "{name} {what} accepted"),
                Err(e) => {
                    assert!(e.to_string().contains(name), "{name} {what}: {e}");
                    rejected += 1;
                }
            }
        }
        std::fs::write(fdir.join(name), &orig).unwrap();
        std::fs::write(g.join("manifest.json"), &man0).unwrap();
        std::fs::write(dir.path().join("CURRENT"), &cur0).unwrap();
    }
    assert!(rejected > 100, "{rejected}");
    Index::open(dir.path()).unwrap();
}

#[test]
fn foreign_and_missing_indexes_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let e = Index::open(dir.path()).unwrap_err();
    assert!(e.to_string().contains("not a fimdup index"), "{e}");
    std::fs::write(dir.path().join("CURRENT"), b"\x00\xffgarbage").unwrap();
    let e = Index::open(dir.path()).unwrap_err();
    assert!(e.to_string().contains("CURRENT"), "{e}");
    // a writer refuses to replace what it cannot read
    let other = tempfile::tempdir().unwrap();
    let idx = build(other.path());
    let e = idx.save(dir.path()).unwrap_err();
    assert!(e.to_string().contains("CURRENT"), "{e}");
    // a valid-looking manifest of another format
    std::fs::remove_file(dir.path().join("CURRENT")).unwrap();
    build(dir.path());
    let g = gen_dir(dir.path());
    // a file of one kind in place of another
    let img = std::fs::read(seg_dir(dir.path()).join("ids.bin")).unwrap();
    forge(dir.path(), "docs.bin", &img);
    let e = Index::open(dir.path()).unwrap_err();
    assert!(e.to_string().contains("docs.bin"), "{e}");
    let mpath = g.join("manifest.json");
    let mut m: serde_json::Value = serde_json::from_slice(&std::fs::read(&mpath).unwrap()).unwrap();
    m["format"] = "something-else".into();
    let mb = serde_json::to_vec(&m).unwrap();
    std::fs::write(&mpath, &mb).unwrap();
    let gname = g.file_name().unwrap().to_str().unwrap().to_string();
    std::fs::write(
        dir.path().join("CURRENT"),
        format!("{gname} {:016x}\n", xxh64(&mb, 0)),
    )
    .unwrap();
    let e = Index::open(dir.path()).unwrap_err();
    assert!(e.to_string().contains("not a fimdup index"), "{e}");
    assert!(e.to_string().contains("manifest.json"), "{e}");
}

#[test]
fn a_crashed_writer_leaves_the_old_generation_readable() {
    let dir = tempfile::tempdir().unwrap();
    let idx = build(dir.path());
    // a writer that died after writing part of generation 5 and of a segment
    let junk = dir.path().join("gen-000005");
    std::fs::create_dir(&junk).unwrap();
    std::fs::write(junk.join("state.bin"), b"FIMDUPST partial").unwrap();
    let junk_seg = dir.path().join("seg-000007");
    std::fs::create_dir(&junk_seg).unwrap();
    std::fs::write(junk_seg.join("values.bin"), b"FIMDUPIV partial").unwrap();
    let back = Index::open(dir.path()).unwrap();
    assert_eq!(back.images().unwrap(), idx.images().unwrap());
    // the next save goes past them, switches, and removes them; the segment is listed again
    let g = back.save(dir.path()).unwrap();
    assert_eq!(g, 6);
    assert!(!junk.exists());
    assert!(!junk_seg.exists());
    assert!(seg_dir(dir.path()).exists());
    assert!(
        dir.path().join("gen-000001").exists(),
        "previous generation kept for readers"
    );
    let g = back.save(dir.path()).unwrap();
    assert_eq!(g, 7);
    assert!(!dir.path().join("gen-000001").exists());
    assert!(dir.path().join("gen-000006").exists());
    assert_eq!(Index::open(dir.path()).unwrap().labels(), idx.labels());
}
