//! Shared pieces of the fuzz targets: a scratch directory per process, writing an input where
//! a path-based reader finds it, the differential check of the sequential and the parallel
//! corpus reader, and the small valid indexes the index target damages one file at a time.
//!
//! Invariant: every target feeds its bytes through the library's public reader API as a
//! user's file would go, consumes the parser's whole output, and panics only when the library
//! breaks a promise of its own (a panic inside the library, or two readers that must agree
//! giving different answers); a clean [`fimdup::Error`] is the expected outcome of bad input.
//! A panic of the Parquet decoder inside the library's guard is such an error, not a crash
//! ([`let_caught_decoder_panics_unwind`]).

use std::path::{Path, PathBuf};
use std::sync::{Once, OnceLock};

use fimdup::corpus::par::{read_all_par_opts, ParOptions};
use fimdup::corpus::{open, CorpusConfig, CorpusStats, Document};
use fimdup::index::{CorpusSpec, Index, IndexConfig, NewDoc};
use fimdup::shingle::ShingleConfig;
use fimdup::sketch::pipeline::PipelineConfig;
use fimdup::sketch::{Scheme, SketchConfig};

/// Lets a panic raised inside the library's guarded Parquet decoder calls unwind to that
/// guard, which turns it into an error naming the file, instead of aborting as libFuzzer's
/// panic hook does: the target then checks that the library answers with that error. Every
/// other panic still goes to libFuzzer's hook and is a crash, and a panic that escapes the
/// library aborts in libFuzzer's wrapper. Called by a target before its first input.
pub fn let_caught_decoder_panics_unwind() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let libfuzzer_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !fimdup::corpus::parquet::decoder_panic_is_caught() {
                libfuzzer_hook(info);
            }
        }));
    });
}

/// This process's scratch directory (left behind at exit: libFuzzer exits without running
/// destructors; `fuzz/run.sh` points `TMPDIR` at a directory it removes afterwards).
pub fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        tempfile::Builder::new()
            .prefix("fimdup-fuzz-")
            .tempdir()
            .expect("scratch directory")
            .keep()
    })
}

/// Writes `bytes` to the file `name` of the scratch directory and returns its path.
pub fn write_input(name: &str, bytes: &[u8]) -> PathBuf {
    let p = scratch().join(name);
    std::fs::write(&p, bytes).expect("write the fuzz input");
    p
}

/// What a corpus reader made of a file: every document and the counts, or the error's text.
pub type Outcome = Result<(Vec<Document>, CorpusStats), String>;

/// Reads the corpus at `path` with the sequential reader, every document.
pub fn read_sequential(path: &Path, cfg: &CorpusConfig) -> Outcome {
    let mut r = open(path, cfg).map_err(|e| e.to_string())?;
    let mut docs = Vec::new();
    for d in &mut r {
        docs.push(d.map_err(|e| e.to_string())?);
    }
    Ok((docs, r.stats()))
}

/// Reads the corpus at `path` with the parallel reader, in tiny blocks (so that block
/// boundaries fall everywhere), every document.
pub fn read_parallel(path: &Path, cfg: &CorpusConfig) -> Outcome {
    let opts = ParOptions {
        block_bytes: 61,
        in_flight: 3,
    };
    read_all_par_opts(path, cfg, &opts).map_err(|e| e.to_string())
}

/// Reads the corpus at `path` both ways and checks that both readers agree (same documents,
/// counts and error), as the parallel reader promises.
pub fn read_both(path: &Path, cfg: &CorpusConfig) -> Outcome {
    let seq = read_sequential(path, cfg);
    let par = read_parallel(path, cfg);
    assert_eq!(
        seq, par,
        "sequential and parallel readers disagree on {cfg:?}"
    );
    seq
}

/// One file of a saved index generation.
pub struct IndexFile {
    /// Its path: the name in the generation directory (`manifest.json`, `state.bin`), or
    /// `seg-NNNNNN/NAME` for a segment's file.
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// A small valid index, as its files.
pub struct BaseIndex {
    /// The generation directory's name (`gen-000002`).
    pub generation: String,
    /// `CURRENT`.
    pub current: Vec<u8>,
    /// The generation's files (`manifest.json` included) and the segments' files.
    pub files: Vec<IndexFile>,
}

/// Texts of the base indexes' documents: a few families of near-duplicates.
pub fn base_texts() -> Vec<String> {
    let words: Vec<String> = (0..40).map(|i| format!("w{}", (i * 37) % 101)).collect();
    (0..12)
        .map(|i| {
            let mut w = words.clone();
            for k in 0..(i % 5) {
                w[(k * 7 + i) % 40] = format!("z{}", i * 3 + k);
            }
            if i >= 8 {
                w.rotate_left(i);
            }
            w.join(" ")
        })
        .collect()
}

/// The two base indexes: 0 holds every kind of file (a positional scheme: bands; containment
/// images; sources), 1 is a plain bottom-k index. Each has two sweeps (the second changes
/// and drops documents).
pub fn base_index(which: usize) -> &'static BaseIndex {
    static BASES: OnceLock<[BaseIndex; 2]> = OnceLock::new();
    &BASES.get_or_init(|| [build_base(0), build_base(1)])[which % 2]
}

fn build_base(which: usize) -> BaseIndex {
    let (scheme, containment) = if which == 0 {
        (Scheme::OnePermutation, true)
    } else {
        (Scheme::BottomK, false)
    };
    let p = PipelineConfig {
        shingle: ShingleConfig::new(3, 1, 1).expect("shingle config"),
        sketch: SketchConfig {
            scheme,
            size: 16,
            ..SketchConfig::default()
        },
        ..PipelineConfig::default()
    };
    let cfg = IndexConfig {
        containment,
        keep_sources: containment,
        ..IndexConfig::default()
    };
    let mut idx = Index::new(&p, cfg).expect("index config");
    let qs = idx.query_sketcher().expect("query sketcher");
    let texts = base_texts();
    let sweep = |range: std::ops::Range<usize>, salt: &str| -> Vec<NewDoc> {
        range
            .map(|i| {
                let (_, image, containment) = qs.sketch_text(&format!("{} {salt}", texts[i]));
                NewDoc {
                    ext_id: format!("doc{i}"),
                    image,
                    containment,
                }
            })
            .collect()
    };
    idx.add_documents(
        sweep(0..8, ""),
        Some("s1"),
        "a.jsonl",
        CorpusSpec::default(),
    )
    .expect("first sweep");
    idx.add_documents(
        sweep(3..12, "v2"),
        Some("s2"),
        "b.jsonl",
        CorpusSpec::default(),
    )
    .expect("second sweep");
    let dir = tempfile::tempdir().expect("temp dir");
    idx.save(dir.path()).expect("save");
    let current = std::fs::read(dir.path().join("CURRENT")).expect("CURRENT");
    let generation = String::from_utf8_lossy(&current)
        .split(' ')
        .next()
        .expect("generation")
        .to_string();
    let mut files = Vec::new();
    for e in std::fs::read_dir(dir.path().join(&generation)).expect("generation dir") {
        let e = e.expect("entry");
        files.push(IndexFile {
            name: e.file_name().to_string_lossy().into_owned(),
            bytes: std::fs::read(e.path()).expect("index file"),
        });
    }
    for e in std::fs::read_dir(dir.path()).expect("index dir") {
        let seg = e.expect("entry").file_name().to_string_lossy().into_owned();
        if !seg.starts_with("seg-") {
            continue;
        }
        for f in std::fs::read_dir(dir.path().join(&seg)).expect("segment dir") {
            let f = f.expect("entry");
            files.push(IndexFile {
                name: format!("{seg}/{}", f.file_name().to_string_lossy()),
                bytes: std::fs::read(f.path()).expect("segment file"),
            });
        }
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    BaseIndex {
        generation,
        current,
        files,
    }
}

/// The slot a selector byte names: which base index and which of its files (`CURRENT` or
/// one of the generation's files, `manifest.json` included).
pub fn index_slot(selector: u8) -> (usize, &'static str) {
    let which = usize::from(selector & 1);
    let base = base_index(which);
    let k = usize::from(selector >> 1) % (base.files.len() + 1);
    let name = if k == 0 {
        "CURRENT"
    } else {
        base.files[k - 1].name.as_str()
    };
    (which, name)
}

/// The selector byte of file `name` of base index `which` (the inverse of [`index_slot`]).
pub fn index_selector(which: usize, name: &str) -> Option<u8> {
    (0..=255u8).find(|&s| index_slot(s) == (which, name))
}

/// Writes base index `which` to `dir` with the file `name` replaced by `bytes`, the
/// manifest's size and checksums (whole and per block) of that file and the manifest's
/// checksum in `CURRENT` forged to match (so the file's parser, not the checksum check, sees
/// the bytes).
pub fn write_damaged_index(dir: &Path, which: usize, name: &str, bytes: &[u8]) {
    use xxhash_rust::xxh64::xxh64;
    let base = base_index(which);
    let gdir = dir.join(&base.generation);
    std::fs::create_dir_all(&gdir).expect("generation dir");
    let path_of = |n: &str| {
        if n.contains('/') {
            dir.join(n)
        } else {
            gdir.join(n)
        }
    };
    let mut manifest = Vec::new();
    for f in &base.files {
        if f.name == "manifest.json" {
            manifest = f.bytes.clone();
        } else {
            let p = path_of(&f.name);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("segment dir");
            std::fs::write(p, &f.bytes).expect("write index file");
        }
    }
    if name != "CURRENT" && name != "manifest.json" {
        std::fs::write(path_of(name), bytes).expect("write fuzzed file");
        let mut m: serde_json::Value = serde_json::from_slice(&manifest).expect("base manifest");
        let (list, file) = match name.split_once('/') {
            Some((seg, file)) => {
                let segs = m["segments"].as_array_mut().expect("segments");
                let e = segs.iter_mut().find(|e| e["name"] == seg).expect("segment");
                (&mut e["files"], file)
            }
            None => (&mut m["files"], name),
        };
        if let Some(files) = list.as_array_mut() {
            for f in files {
                if f["name"] == file {
                    f["bytes"] = bytes.len().into();
                    f["xxh64"] = format!("{:016x}", xxh64(bytes, 0)).into();
                    f["blocks"] = bytes
                        .chunks(1 << 20)
                        .map(|b| format!("{:016x}", xxh64(b, 0)))
                        .collect::<Vec<_>>()
                        .into();
                }
            }
        }
        manifest = serde_json::to_vec_pretty(&m).expect("manifest");
    } else if name == "manifest.json" {
        manifest = bytes.to_vec();
    }
    std::fs::write(gdir.join("manifest.json"), &manifest).expect("write manifest");
    let current = if name == "CURRENT" {
        bytes.to_vec()
    } else {
        format!("{} {:016x}\n", base.generation, xxh64(&manifest, 0)).into_bytes()
    };
    std::fs::write(dir.join("CURRENT"), current).expect("write CURRENT");
}
