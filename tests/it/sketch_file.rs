//! Images file: round trips for every scheme and weighting, and malformed files (truncated,
//! bit-flipped, foreign magic, wrong version, and a table of crafted bodies with a valid
//! checksum) rejected with `Error::Format` naming the file, never a panic. Also the
//! parameter compatibility check and thread-count independence of batch sketching.

use std::path::Path;

use fimdup::shingle::ShingleConfig;
use fimdup::sketch::{
    sketch_batch, DocFreq, Image, ImageSet, Scheme, SketchConfig, SketchParams, Sketcher,
    TextParams, Weighting,
};
use fimdup::text::{Canonical, Unit};
use fimdup::Error;
use rand::{Rng, SeedableRng};

fn canon(words: &[&str]) -> Canonical {
    let text = words.join(" ");
    let mut tokens = Vec::new();
    let mut pos = 0u32;
    for w in words {
        tokens.push(pos..pos + w.len() as u32);
        pos += w.len() as u32 + 1;
    }
    Canonical { text, tokens }
}

/// Synthetic corpus with near-duplicates, short and empty documents.
fn corpus(n: usize, seed: u64) -> Vec<Canonical> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let vocab: Vec<String> = (0..500).map(|i| format!("w{i}")).collect();
    let mut docs: Vec<Vec<&str>> = Vec::new();
    for i in 0..n {
        if i % 17 == 3 {
            docs.push(Vec::new());
        } else if i % 13 == 5 {
            docs.push(vec!["tiny", "doc"]);
        } else if i % 4 == 1 && i > 0 {
            let mut d = docs[i - 1].clone();
            if !d.is_empty() {
                let k = rng.gen_range(0..d.len());
                d[k] = "edited";
            }
            docs.push(d);
        } else {
            let len = rng.gen_range(5..120);
            docs.push(
                (0..len)
                    .map(|_| vocab[rng.gen_range(0..500)].as_str())
                    .collect(),
            );
        }
    }
    docs.iter().map(|d| canon(d)).collect()
}

fn text_params() -> TextParams {
    TextParams {
        unit: Unit::Word,
        html: true,
        lowercase: true,
        stopwords: Some("english".into()),
        stem: false,
        ..TextParams::default()
    }
}

fn configs() -> Vec<(ShingleConfig, SketchConfig)> {
    let mut v = Vec::new();
    for scheme in Scheme::ALL {
        for weighting in [
            None,
            Some(Weighting::Bag),
            Some(Weighting::TfIdf { total: 200 }),
        ] {
            if scheme == Scheme::Icws && weighting.is_none() {
                // ICWS samples weights: refused without a weighting.
                continue;
            }
            v.push((
                ShingleConfig::new(3, 1, 5).unwrap(),
                SketchConfig {
                    scheme,
                    size: 64,
                    modulus: 8,
                    seed: 42,
                    weighting,
                    bits: None,
                },
            ));
        }
    }
    v
}

fn make_sketcher(docs: &[Canonical], sh: ShingleConfig, cfg: SketchConfig) -> Sketcher {
    match cfg.weighting {
        Some(Weighting::TfIdf { .. }) => {
            Sketcher::with_doc_freq(sh, cfg, DocFreq::from_docs(docs, &sh)).unwrap()
        }
        _ => Sketcher::new(sh, cfg).unwrap(),
    }
}

fn image_set(docs: &[Canonical], sh: ShingleConfig, cfg: SketchConfig) -> ImageSet {
    let sk = make_sketcher(docs, sh, cfg);
    ImageSet {
        params: sk.params(text_params()),
        ext_ids: (0..docs.len()).map(|i| format!("doc-{i}/é✓")).collect(),
        images: sketch_batch(docs, &sk),
    }
}

fn assert_format_err(r: fimdup::Result<ImageSet>, path: &Path, what: &str) -> String {
    match r {
        Err(Error::Format { path: p, msg }) => {
            assert_eq!(p, path, "{what}");
            msg
        }
        Err(e) => panic!("{what}: expected Error::Format, got {e}"),
        Ok(_) => panic!("{what}: malformed file accepted"),
    }
}

#[test]
fn round_trip_every_scheme_and_weighting() {
    let docs = corpus(120, 1);
    let dir = tempfile::tempdir().unwrap();
    for (sh, cfg) in configs() {
        let set = image_set(&docs, sh, cfg);
        assert!(set.images.iter().any(|i| i.is_empty()));
        assert!(set.images.iter().any(|i| !i.is_empty()));
        let path = dir
            .path()
            .join(format!("{}-{:?}.img", cfg.scheme, cfg.weighting));
        set.write(&path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes, set.to_bytes().unwrap());
        let back = ImageSet::read(&path).unwrap();
        assert_eq!(back, set, "{} {:?}", cfg.scheme, cfg.weighting);
        back.params.ensure_compatible(&set.params, &path).unwrap();
        // Compact: positional values are varints, sorted ones delta-coded.
        let values: usize = set.images.iter().map(Image::len).sum();
        assert!(
            bytes.len() < 9 * values + 64 * docs.len(),
            "{} bytes",
            bytes.len()
        );
    }
}

#[test]
fn truncated_and_bit_flipped_files_are_rejected() {
    let docs = corpus(30, 2);
    let (sh, cfg) = configs()[3];
    let bytes = image_set(&docs, sh, cfg).to_bytes().unwrap();
    let path = Path::new("t.img");
    for cut in (0..bytes.len()).step_by(7).chain([bytes.len() - 1]) {
        assert_format_err(
            ImageSet::from_bytes(&bytes[..cut], path),
            path,
            &format!("cut {cut}"),
        );
    }
    let mut flipped = bytes.clone();
    for i in (0..bytes.len()).step_by(5) {
        for bit in [0, 3, 7] {
            flipped[i] ^= 1 << bit;
            assert_format_err(
                ImageSet::from_bytes(&flipped, path),
                path,
                &format!("flip {i}:{bit}"),
            );
            flipped[i] ^= 1 << bit;
        }
    }
    assert!(ImageSet::from_bytes(&flipped, path).is_ok());
}

#[test]
fn foreign_and_wrong_version_files_are_rejected_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.img");
    std::fs::write(&p, b"PK\x03\x04 this is a zip file, not images").unwrap();
    let msg = assert_format_err(ImageSet::read(&p), &p, "foreign");
    assert!(msg.contains("magic"), "{msg}");
    let docs = corpus(5, 3);
    let (sh, cfg) = configs()[0];
    let mut b = image_set(&docs, sh, cfg).to_bytes().unwrap();
    b[8] = 2;
    reseal(&mut b);
    std::fs::write(&p, &b).unwrap();
    let msg = assert_format_err(ImageSet::read(&p), &p, "version");
    assert!(msg.contains("version 2"), "{msg}");
    std::fs::write(&p, b"").unwrap();
    assert_format_err(ImageSet::read(&p), &p, "empty file");
    // Missing file: an I/O error naming it.
    let missing = dir.path().join("missing.img");
    assert!(matches!(ImageSet::read(&missing), Err(Error::Io { .. })));
}

/// Recomputes the trailing checksum after an edit.
fn reseal(b: &mut [u8]) {
    let n = b.len() - 8;
    let sum = xxhash_rust::xxh64::xxh64(&b[..n], 0);
    b[n..].copy_from_slice(&sum.to_le_bytes());
}

/// Header offsets for the base file below: text params without stop words, w = 5 (1-byte
/// varint), offset 1, size 128 (2-byte varint), modulus 25.
const UNIT: usize = 12;
const FLAGS: usize = 13;
const STOP: usize = 14;
const SHLEN: usize = 15;
const SCHEME: usize = 25;
const SIZE: usize = 26;
const WEIGHT: usize = 37;
const TABLE: usize = 38;
const DOCS: usize = 39;

#[test]
fn crafted_bodies_with_valid_checksums_are_rejected() {
    let sh = ShingleConfig::new(5, 1, 0).unwrap();
    let base_cfg = |scheme| SketchConfig {
        scheme,
        size: 128,
        modulus: 25,
        seed: 0,
        weighting: None,
        bits: None,
    };
    let base = |scheme: Scheme, images: Vec<Image>| {
        let sk = Sketcher::new(sh, base_cfg(scheme)).unwrap();
        let mut tp = text_params();
        tp.stopwords = None;
        ImageSet {
            params: sk.params(tp),
            ext_ids: (0..images.len()).map(|i| format!("d{i}")).collect(),
            images,
        }
        .to_bytes()
        .unwrap()
    };
    let sorted = base(Scheme::BottomK, vec![Image::from_values(vec![3, 10, 200])]);
    assert_eq!(sorted[SIZE..SIZE + 2], [0x80, 0x01]);
    assert_eq!(sorted[DOCS], 1);
    let positional = base(Scheme::KMins, vec![Image::from_values(vec![7; 128])]);
    let big = base(
        Scheme::BottomK,
        vec![Image::from_values((1..=129).collect())],
    );
    let modm = base(Scheme::ModM, vec![Image::from_values(vec![25, 50])]);
    // Doc record of `sorted`: id_len 2, "d0", nvalues 3, 3, 7, 190.
    let rec = DOCS + 1;
    type Edit = Box<dyn Fn(&mut Vec<u8>)>;
    let cases: Vec<(&str, &Vec<u8>, Edit, &str)> = vec![
        ("unit code", &sorted, Box::new(move |b| b[UNIT] = 9), "unit"),
        (
            "text flags",
            &sorted,
            Box::new(move |b| b[FLAGS] |= 0x40),
            "flags",
        ),
        (
            "stopwords tag",
            &sorted,
            Box::new(move |b| b[STOP] = 5),
            "stopwords",
        ),
        (
            "zero shingle length",
            &sorted,
            Box::new(move |b| b[SHLEN] = 0),
            "shingle length",
        ),
        (
            "scheme code",
            &sorted,
            Box::new(move |b| b[SCHEME] = 9),
            "scheme",
        ),
        (
            "b-bit code",
            &sorted,
            Box::new(move |b| b[SCHEME] = 0x51),
            "b-bit code",
        ),
        (
            "b-bit on a sorted scheme",
            &sorted,
            Box::new(move |b| b[SCHEME] = 0x20),
            "--b-bit",
        ),
        (
            "zero size",
            &sorted,
            Box::new(move |b| {
                b[SIZE] = 0;
                b.remove(SIZE + 1);
            }),
            "image size",
        ),
        (
            "weighting code",
            &sorted,
            Box::new(move |b| b[WEIGHT] = 7),
            "weighting",
        ),
        (
            "weight table tag",
            &sorted,
            Box::new(move |b| b[TABLE] = 3),
            "weight table",
        ),
        (
            "doc count too large",
            &sorted,
            Box::new(move |b| b[DOCS] = 0x7f),
            "document count",
        ),
        (
            "doc count short",
            &sorted,
            Box::new(move |b| b[DOCS] = 0),
            "unexpected bytes",
        ),
        (
            "id not utf-8",
            &sorted,
            Box::new(move |b| b[rec + 1] = 0xff),
            "UTF-8",
        ),
        (
            "id length past end",
            &sorted,
            Box::new(move |b| b[rec] = 0x70),
            "external id",
        ),
        (
            "not ascending",
            &sorted,
            Box::new(move |b| b[rec + 5] = 0),
            "ascending",
        ),
        (
            "too many bottom-k values",
            &big,
            Box::new(move |_| {}),
            "129 values in a bottom-k image",
        ),
        (
            "varint overflow",
            &sorted,
            Box::new(move |b| {
                let at = rec + 4;
                b.splice(at..at + 1, [0xff; 10]);
            }),
            "varint",
        ),
        (
            "positional count",
            &positional,
            Box::new(move |b| b[rec + 3] = 5),
            "size 128",
        ),
        (
            "mod-m multiple",
            &modm,
            Box::new(move |b| b[rec + 4] = 26),
            "multiple",
        ),
        (
            "trailing bytes",
            &sorted,
            Box::new(move |b| b.insert(b.len() - 8, 0)),
            "unexpected bytes",
        ),
    ];
    let path = Path::new("crafted.img");
    for (name, base, edit, want) in cases {
        let mut b = base.clone();
        edit(&mut b);
        reseal(&mut b);
        let msg = assert_format_err(ImageSet::from_bytes(&b, path), path, name);
        assert!(msg.contains(want), "{name}: message {msg:?} lacks {want:?}");
    }
    // The unedited bases parse.
    for b in [&sorted, &positional, &modm] {
        ImageSet::from_bytes(b, path).unwrap();
    }
}

#[test]
fn incompatible_parameters_are_refused_naming_the_parameter() {
    let docs = corpus(10, 4);
    let (sh, cfg) = configs()[3];
    let a = image_set(&docs, sh, cfg);
    let p = Path::new("other.img");
    let mut changes: Vec<(&str, SketchParams)> = Vec::new();
    let mut x = a.params.clone();
    x.sketch.size = 32;
    changes.push(("size", x));
    let mut x = a.params.clone();
    x.sketch.seed = 1;
    changes.push(("seed", x));
    let mut x = a.params.clone();
    x.shingle.len = 4;
    changes.push(("shingle-len", x));
    let mut x = a.params.clone();
    x.text.stem = true;
    changes.push(("stem", x));
    let mut x = a.params.clone();
    x.sketch.scheme = Scheme::BottomK;
    changes.push(("scheme", x));
    let mut x = a.params.clone();
    x.sketch.weighting = Some(Weighting::Bag);
    changes.push(("weighting", x));
    for (name, other) in changes {
        match a.params.ensure_compatible(&other, p) {
            Err(Error::Format { path, msg }) => {
                assert_eq!(path, p);
                assert!(msg.contains(name), "{name}: {msg}");
            }
            r => panic!("{name}: {r:?}"),
        }
    }
    // Modulus does not matter for a size-based scheme.
    let mut x = a.params.clone();
    x.sketch.modulus = 3;
    a.params.ensure_compatible(&x, p).unwrap();
}

#[test]
fn output_is_identical_for_one_and_two_threads() {
    let docs = corpus(400, 5);
    for (sh, cfg) in configs() {
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| image_set(&docs, sh, cfg).to_bytes().unwrap())
        };
        assert_eq!(run(1), run(2), "{} {:?}", cfg.scheme, cfg.weighting);
    }
}
