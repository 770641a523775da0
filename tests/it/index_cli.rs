//! The `index` and `overlap` subcommands end to end: build / query / add / overlap on a
//! small generated corpus; JSON on stdout, one summary line on stderr, exit 2 on errors;
//! the index files are byte-identical for 1 and 2 threads; `--exact` equals the exact
//! resemblance of `fimdup compare --exact`.

use std::path::Path;
use std::process::{Command, Output};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn fimdup(args: &[&str], threads: Option<usize>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_fimdup"));
    if let Some(t) = threads {
        c.arg("--threads").arg(t.to_string());
    }
    c.args(args).output().unwrap()
}

fn ok(o: &Output) -> serde_json::Value {
    assert!(
        o.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.trim_end().lines().count() <= 1,
        "one summary line: {err}"
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Writes two sweeps: `a.jsonl` (base pages + near-duplicates) and `b.jsonl` (a's pages
/// with every 5th moved to a new id and every 7th gone, plus new ones). Returns the text
/// of page 3.
fn corpora(dir: &Path) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let page = |rng: &mut ChaCha8Rng| -> Vec<String> {
        (0..60)
            .map(|_| format!("w{}", rng.gen_range(0..4000)))
            .collect()
    };
    let pages: Vec<Vec<String>> = (0..60).map(|_| page(&mut rng)).collect();
    let line = |id: &str, w: &[String]| {
        serde_json::json!({"id": id, "text": w.join(" ")}).to_string() + "\n"
    };
    let mut a = String::new();
    for (i, p) in pages.iter().enumerate() {
        a += &line(&format!("u{i}"), p);
        if i % 4 == 0 {
            let mut e = p.clone();
            e[10] = "edited".into();
            a += &line(&format!("u{i}-copy"), &e);
        }
    }
    let mut b = String::new();
    for (i, p) in pages.iter().enumerate() {
        if i % 7 == 0 {
            continue;
        }
        if i % 5 == 0 {
            let mut e = p.clone();
            e[30] = "moved".into();
            b += &line(&format!("new-u{i}"), &e);
        } else {
            b += &line(&format!("u{i}"), p);
        }
    }
    for _ in 0..10 {
        b += &line(&format!("n{}", rng.gen::<u32>()), &page(&mut rng));
    }
    std::fs::write(dir.join("a.jsonl"), a).unwrap();
    std::fs::write(dir.join("b.jsonl"), b).unwrap();
    pages[3].join(" ")
}

/// The files of the current generation and of the segment directories (not the manifest,
/// which holds the input path), by `gen/NAME` or `seg-NNNNNN/NAME`.
fn files_of(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let cur = std::fs::read_to_string(dir.join("CURRENT")).unwrap();
    let mut dirs = vec![(dir.join(cur.split(' ').next().unwrap()), "gen".to_string())];
    for e in std::fs::read_dir(dir).unwrap() {
        let n = e.unwrap().file_name().into_string().unwrap();
        if n.starts_with("seg-") {
            dirs.push((dir.join(&n), n));
        }
    }
    let mut v: Vec<(String, Vec<u8>)> = Vec::new();
    for (d, label) in dirs {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let n = e.file_name().into_string().unwrap();
            if n != "manifest.json" {
                v.push((format!("{label}/{n}"), std::fs::read(e.path()).unwrap()));
            }
        }
    }
    v.sort();
    v
}

#[test]
fn build_query_add_overlap() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let p3 = corpora(d);
    let s = |p: &str| d.join(p).to_str().unwrap().to_string();
    let (a, b, idx) = (s("a.jsonl"), s("b.jsonl"), s("idx"));
    let mut built = Vec::new();
    for t in [1, 2] {
        let out = s(&format!("idx{t}"));
        let args = [
            "index",
            "build",
            &a,
            "--out",
            &out,
            "--scheme",
            "k-mins",
            "--size",
            "64",
            "--shingle-len",
            "3",
            "--threshold",
            "0.6",
            "--tag",
            "d1",
            "--keep-sources",
            "--containment",
            "--json",
        ];
        let o = fimdup(&args, Some(t));
        assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 1);
        let j = ok(&o);
        assert_eq!(j["documents"], 75);
        assert_eq!(j["clusters"], 15, "{j}");
        built.push(files_of(Path::new(&out)));
    }
    assert_eq!(
        built[0], built[1],
        "index files differ between 1 and 2 threads"
    );
    std::fs::rename(s("idx1"), &idx).unwrap();

    // query with a file and stdin-free path; --exact vs compare --exact
    std::fs::write(d.join("q.txt"), &p3).unwrap();
    let q = s("q.txt");
    let j = ok(&fimdup(
        &[
            "index",
            "query",
            &idx,
            &q,
            "--threshold",
            "0.3",
            "--exact",
            "--json",
        ],
        None,
    ));
    let hits = j["queries"][0]["hits"].as_array().unwrap().clone();
    assert_eq!(hits.len(), 1, "{j}");
    assert_eq!(hits[0]["ext_id"], "u3");
    assert_eq!(hits[0]["exact"], 1.0);
    // containment of the query in u3 (mod-m images kept by --containment)
    let j = ok(&fimdup(
        &[
            "index",
            "query",
            &idx,
            &q,
            "--measure",
            "containment",
            "--threshold",
            "0.9",
            "--json",
        ],
        None,
    ));
    assert_eq!(j["queries"][0]["hits"][0]["ext_id"], "u3");
    // u4 and its copy: exact resemblance equals `fimdup compare --exact`
    let jl = s("queries.jsonl");
    let a_lines: Vec<String> = std::fs::read_to_string(&a)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let u4: serde_json::Value = serde_json::from_str(&a_lines[5]).unwrap();
    assert_eq!(u4["id"], "u4");
    std::fs::write(&jl, format!("{}\n", a_lines[5])).unwrap();
    let j = ok(&fimdup(
        &[
            "index",
            "query",
            &idx,
            "--jsonl",
            &jl,
            "--threshold",
            "0.2",
            "--exact",
            "--json",
        ],
        None,
    ));
    let hits = j["queries"][0]["hits"].as_array().unwrap().clone();
    let copy = hits
        .iter()
        .find(|h| h["ext_id"] == "u4-copy")
        .expect("copy found");
    let copy_text: serde_json::Value = serde_json::from_str(&a_lines[6]).unwrap();
    assert_eq!(copy_text["id"], "u4-copy");
    std::fs::write(d.join("x.txt"), u4["text"].as_str().unwrap()).unwrap();
    std::fs::write(d.join("y.txt"), copy_text["text"].as_str().unwrap()).unwrap();
    let c = ok(&fimdup(
        &[
            "compare",
            &s("x.txt"),
            &s("y.txt"),
            "--exact",
            "--shingle-len",
            "3",
            "--json",
        ],
        None,
    ));
    let want = c["resemblance"].as_f64().unwrap();
    assert!(
        (copy["exact"].as_f64().unwrap() - want).abs() < 1e-12,
        "{copy} vs {c}"
    );

    // add the second sweep: lost and found
    let j = ok(&fimdup(
        &["index", "add", &idx, &b, "--tag", "d2", "--json"],
        None,
    ));
    let lost = j["lost"].as_array().unwrap();
    // gone: the 9 pages i % 7 == 0, the 15 copies, the 10 moved pages (i % 5 == 0, i % 7 != 0)
    assert_eq!(lost.len(), 9 + 15 + 10, "{j}");
    for l in lost {
        let id = l["ext_id"].as_str().unwrap();
        let i: usize = id
            .trim_start_matches('u')
            .split('-')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        if i.is_multiple_of(5) && !i.is_multiple_of(7) && !id.ends_with("-copy") {
            assert_eq!(l["found"]["ext_id"], format!("new-u{i}"), "{l}");
        }
        if i.is_multiple_of(7) && !id.ends_with("-copy") {
            assert!(l["found"].is_null(), "{l}");
        }
    }
    assert_eq!(j["unchanged"], 60 - 9 - 10);

    // overlap of the two sweeps, whole collections: exact
    let j = ok(&fimdup(
        &[
            "overlap",
            &a,
            &b,
            "--sample",
            "1000",
            "--threshold",
            "0.5",
            "--json",
        ],
        None,
    ));
    assert_eq!(j["a_in_b"]["exact"], true);
    assert_eq!(j["a_in_b"]["low"], j["a_in_b"]["high"]);
    // pages of A with a near-duplicate in B: the 60 - 9 kept or moved, and the copies of them
    let kept_copies = (0..60).filter(|i| i % 4 == 0 && i % 7 != 0).count();
    assert_eq!(j["a_in_b"]["hits"], 51 + kept_copies);
    assert_eq!(j["b_in_a"]["hits"], 51);
}

#[test]
fn errors_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    corpora(d);
    let s = |p: &str| d.join(p).to_str().unwrap().to_string();
    let idx = s("idx");
    let o = fimdup(&["index", "query", &s("nope"), &s("a.jsonl")], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a fimdup index"));
    ok(&fimdup(
        &["index", "build", &s("a.jsonl"), "--out", &idx, "--json"],
        None,
    ));
    // containment on a bottom-k index without --containment
    let o = fimdup(
        &[
            "index",
            "query",
            &idx,
            &s("a.jsonl"),
            "--measure",
            "containment",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("mod-m image per document"));
    // --exact without sources
    let o = fimdup(&["index", "query", &idx, &s("a.jsonl"), "--exact"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("keeps its sources"));
    // the same tag twice
    let o = fimdup(
        &["index", "add", &idx, &s("b.jsonl"), "--tag", "sweep-1"],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    // tf-idf refused
    let o = fimdup(
        &[
            "index",
            "build",
            &s("a.jsonl"),
            "--out",
            &s("i2"),
            "--weighting",
            "tfidf",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(!d.join("i2").exists());
    // a damaged segment file: every reading command exits 2 naming it and the offset
    let ctx = d.join("idx/seg-000001/context.bin");
    let orig = std::fs::read(&ctx).unwrap();
    let mut bytes = orig.clone();
    let n = bytes.len();
    bytes[n / 2] ^= 4;
    std::fs::write(&ctx, &bytes).unwrap();
    let reads: [&[&str]; 4] = [
        &["index", "query", &idx, &s("a.jsonl")],
        &["index", "add", &idx, &s("b.jsonl")],
        &["index", "merge", &idx],
        &["index", "remove", &idx, "u1"],
    ];
    let flipped = format!("context.bin: checksum mismatch in bytes 0..{n}");
    for args in reads {
        let o = fimdup(args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(&flipped), "{args:?}: {err}");
    }
    bytes.truncate(n / 3);
    std::fs::write(&ctx, &bytes).unwrap();
    let o = fimdup(&["index", "query", &idx, &s("a.jsonl")], None);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("context.bin: at byte {}:", n / 3)),
        "{err}"
    );
    // the generation and the segment stay as they were: repaired, the index reads again
    std::fs::write(&ctx, &orig).unwrap();
    let o = fimdup(&["index", "query", &idx, &s("a.jsonl")], None);
    assert_eq!(o.status.code(), Some(0));
}

/// Copies the directory `from` (files only, one level of subdirectories) to `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// tests/it/data/index-v1 holds an index of format version 1 (every file in the generation
/// directory) made by the fimdup before segments: `index build sweep1.jsonl --scheme k-mins
/// --size 32 --containment --tag s1`, `index add sweep2.jsonl --tag s2`, and its answers to
/// `index query --jsonl sweep2.jsonl --threshold 0.3 --json` (query-v1.json). This fimdup
/// answers the same from it, a sweep added to it writes version 2 with the answers of an
/// index built from scratch, and a manifest of an unknown version is refused naming both.
#[test]
fn a_version_1_index_is_read_upgraded_and_unknown_versions_refused() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/data/index-v1");
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    copy_tree(&data.join("idx"), &idx);
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let (s1, s2) = (s(&data.join("sweep1.jsonl")), s(&data.join("sweep2.jsonl")));
    let query = |i: &Path| {
        let q = ok(&fimdup(
            &[
                "index",
                "query",
                &s(i),
                "--jsonl",
                &s2,
                "--threshold",
                "0.3",
                "--json",
            ],
            None,
        ));
        q["queries"].clone()
    };
    let want: serde_json::Value =
        serde_json::from_slice(&std::fs::read(data.join("query-v1.json")).unwrap()).unwrap();
    let v1_answers = query(&idx);
    assert_eq!(v1_answers, want["queries"]);
    assert!(v1_answers.as_array().unwrap().len() > 20);
    // a third sweep (sweep 1's pages under new ids) upgrades it: the old documents in one
    // segment, the new ones in another; the same answers as a fresh index of the sweeps
    let s3p = tmp.path().join("sweep3.jsonl");
    let text = std::fs::read_to_string(data.join("sweep1.jsonl")).unwrap();
    std::fs::write(&s3p, text.replace("{\"id\": \"", "{\"id\": \"c-")).unwrap();
    assert!(std::fs::read_to_string(&s3p)
        .unwrap()
        .contains("\"c-a0v0\""));
    let s3 = s(&s3p);
    ok(&fimdup(
        &["index", "add", &s(&idx), &s3, "--tag", "s3", "--json"],
        None,
    ));
    let cur = std::fs::read_to_string(idx.join("CURRENT")).unwrap();
    let g = cur.split(' ').next().unwrap().to_string();
    assert_eq!(g, "gen-000003");
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(idx.join(&g).join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(m["version"], 3);
    assert_eq!(m["segments"].as_array().unwrap().len(), 2);
    let fresh = tmp.path().join("fresh");
    let build = [
        "index",
        "build",
        &s1,
        "--out",
        &s(&fresh),
        "--scheme",
        "k-mins",
        "--size",
        "32",
        "--containment",
        "--tag",
        "s1",
        "--json",
    ];
    ok(&fimdup(&build, None));
    ok(&fimdup(
        &["index", "add", &s(&fresh), &s2, "--tag", "s2", "--json"],
        None,
    ));
    ok(&fimdup(
        &["index", "add", &s(&fresh), &s3, "--tag", "s3", "--json"],
        None,
    ));
    assert_eq!(query(&idx), query(&fresh));
    // `index merge` rewrites the version-1 postings in the current version (mapped by
    // readers); the same answers
    let (cur_before, answers) = (std::fs::read(idx.join("CURRENT")).unwrap(), query(&idx));
    ok(&fimdup(&["index", "merge", &s(&idx), "--json"], None));
    assert_ne!(std::fs::read(idx.join("CURRENT")).unwrap(), cur_before);
    let cur = std::fs::read_to_string(idx.join("CURRENT")).unwrap();
    let g = cur.split(' ').next().unwrap().to_string();
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(idx.join(&g).join("manifest.json")).unwrap())
            .unwrap();
    let segs = m["segments"].as_array().unwrap();
    assert_eq!(segs.len(), 1);
    for name in ["context.bin", "containment-context.bin", "bands.bin"] {
        let b = std::fs::read(idx.join(segs[0]["name"].as_str().unwrap()).join(name)).unwrap();
        assert_eq!(b[8..12], 2u32.to_le_bytes(), "{name}");
    }
    assert_eq!(segment_files(&idx, &segs[0]), CURRENT_SEGMENT_FILES);
    assert_eq!(query(&idx), answers);
    // an unknown version: refused, naming both
    let mpath = idx.join(&g).join("manifest.json");
    let mut m = m;
    m["version"] = 7.into();
    let mb = serde_json::to_vec(&m).unwrap();
    std::fs::write(&mpath, &mb).unwrap();
    std::fs::write(
        idx.join("CURRENT"),
        format!("{g} {:016x}\n", xxhash_rust::xxh64::xxh64(&mb, 0)),
    )
    .unwrap();
    let o = fimdup(&["index", "query", &s(&idx), &s2], None);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(
            "manifest.json: index format version 7, this fimdup reads versions 1, 2 and 3"
        ),
        "{err}"
    );
}

/// The files of a segment of the current version with containment images and LSH bands.
const CURRENT_SEGMENT_FILES: [&str; 7] = [
    "bands.bin",
    "containment-context.bin",
    "containment-values.bin",
    "context.bin",
    "docs.bin",
    "ids.bin",
    "values.bin",
];

/// The file names of the segment a manifest lists as `seg`, sorted.
fn segment_files(idx: &Path, seg: &serde_json::Value) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(idx.join(seg["name"].as_str().unwrap()))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// An index written by fimdup 0.1.0 before the values files (`tests/it/data/index-v2`:
/// manifest version 2, two segments whose ids and images are in `images.bin` and
/// `containment.bin`, k-mins 32 with containment, built from `index-v1`'s sweeps; its
/// answers to sweep 2 saved by that fimdup): read with the same answers; a sweep adds a
/// segment of values files and lists the old ones as they are (the same files); a merge
/// rewrites them all as values files, with the same answers as a fresh build.
#[test]
fn a_version_2_index_is_read_and_a_merge_rewrites_its_images() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/data");
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    copy_tree(&data.join("index-v2/idx"), &idx);
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let v1 = data.join("index-v1");
    let (s1, s2) = (s(&v1.join("sweep1.jsonl")), s(&v1.join("sweep2.jsonl")));
    let query = |i: &Path| {
        let q = ok(&fimdup(
            &[
                "index",
                "query",
                &s(i),
                "--jsonl",
                &s2,
                "--threshold",
                "0.3",
                "--json",
            ],
            None,
        ));
        q["queries"].clone()
    };
    let manifest = |i: &Path| -> serde_json::Value {
        let cur = std::fs::read_to_string(i.join("CURRENT")).unwrap();
        let g = cur.split(' ').next().unwrap().to_string();
        serde_json::from_slice(&std::fs::read(i.join(g).join("manifest.json")).unwrap()).unwrap()
    };
    let m = manifest(&idx);
    assert_eq!(m["version"], 2);
    let old_files = [
        "bands.bin",
        "containment-context.bin",
        "containment.bin",
        "context.bin",
        "docs.bin",
        "images.bin",
    ];
    for seg in m["segments"].as_array().unwrap() {
        assert_eq!(segment_files(&idx, seg), old_files);
    }
    let want: serde_json::Value =
        serde_json::from_slice(&std::fs::read(data.join("index-v2/query-v2.json")).unwrap())
            .unwrap();
    assert_eq!(query(&idx), want["queries"]);
    assert!(want["queries"].as_array().unwrap().len() > 20);
    // a third sweep: one new segment of values files, the two old ones listed as they are
    let s3p = tmp.path().join("sweep3.jsonl");
    let text = std::fs::read_to_string(v1.join("sweep1.jsonl")).unwrap();
    std::fs::write(&s3p, text.replace("{\"id\": \"", "{\"id\": \"c-")).unwrap();
    let s3 = s(&s3p);
    let first = idx.join("seg-000001/images.bin");
    let before = std::fs::read(&first).unwrap();
    ok(&fimdup(
        &["index", "add", &s(&idx), &s3, "--tag", "s3", "--json"],
        None,
    ));
    let m = manifest(&idx);
    assert_eq!(m["version"], 3);
    let segs = m["segments"].as_array().unwrap();
    assert_eq!(segs.len(), 3);
    assert_eq!(segment_files(&idx, &segs[0]), old_files);
    assert_eq!(segment_files(&idx, &segs[1]), old_files);
    assert_eq!(segment_files(&idx, &segs[2]), CURRENT_SEGMENT_FILES);
    assert_eq!(std::fs::read(&first).unwrap(), before);
    let fresh = tmp.path().join("fresh");
    ok(&fimdup(
        &[
            "index",
            "build",
            &s1,
            "--out",
            &s(&fresh),
            "--scheme",
            "k-mins",
            "--size",
            "32",
            "--containment",
            "--tag",
            "s1",
            "--json",
        ],
        None,
    ));
    for (sweep, tag) in [(&s2, "s2"), (&s3, "s3")] {
        ok(&fimdup(
            &["index", "add", &s(&fresh), sweep, "--tag", tag, "--json"],
            None,
        ));
    }
    let answers = query(&idx);
    assert_eq!(answers, query(&fresh));
    // a merge: one segment of values files, the same answers
    ok(&fimdup(&["index", "merge", &s(&idx), "--json"], None));
    let m = manifest(&idx);
    let segs = m["segments"].as_array().unwrap();
    assert_eq!(segs.len(), 1);
    assert_eq!(segment_files(&idx, &segs[0]), CURRENT_SEGMENT_FILES);
    assert_eq!(query(&idx), answers);
}

/// `index remove` and `index merge` end to end: removed ids vanish from every answer (the
/// rest unchanged), unknown ids are reported, and a merge into one segment changes no answer.
#[test]
fn remove_and_merge() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    corpora(d);
    let s = |p: &str| d.join(p).to_str().unwrap().to_string();
    let idx = s("idx");
    ok(&fimdup(
        &["index", "build", &s("a.jsonl"), "--out", &idx, "--json"],
        None,
    ));
    ok(&fimdup(
        &["index", "add", &idx, &s("b.jsonl"), "--json"],
        None,
    ));
    let query = || {
        ok(&fimdup(
            &[
                "index",
                "query",
                &idx,
                "--jsonl",
                &s("a.jsonl"),
                "--threshold",
                "0.5",
                "--json",
            ],
            None,
        ))["queries"]
            .clone()
    };
    let before = query();
    let gone = ["u4", "u4-copy"];
    let mut want = before.clone();
    let mut dropped = 0;
    for q in want.as_array_mut().unwrap() {
        let hits = q["hits"].as_array_mut().unwrap();
        let n = hits.len();
        hits.retain(|h| !gone.contains(&h["ext_id"].as_str().unwrap()));
        dropped += n - hits.len();
    }
    assert!(dropped >= 4, "{dropped}");
    let r = ok(&fimdup(
        &["index", "remove", &idx, "u4", "u4-copy", "zzz", "--json"],
        None,
    ));
    assert_eq!(r["removed"], 2);
    assert_eq!(r["unknown"], serde_json::json!(["zzz"]));
    assert_eq!(query(), want);
    let m = ok(&fimdup(&["index", "merge", &idx, "--json"], None));
    assert_eq!(
        (m["segments_before"].as_u64(), m["segments_after"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(query(), want);
    // the generation lists one segment
    let cur = std::fs::read_to_string(d.join("idx/CURRENT")).unwrap();
    let man: serde_json::Value = serde_json::from_slice(
        &std::fs::read(
            d.join("idx")
                .join(cur.split(' ').next().unwrap())
                .join("manifest.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(man["segments"].as_array().unwrap().len(), 1);
}

/// `index add --batch`: the batch stores what a full sweep of it stores and loses nothing;
/// the next full sweep reports as lost the batch's documents it lacks, exactly as after a
/// full sweep of the batch (the ids of b absent from a, read from the files).
#[test]
fn add_batch_loses_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    corpora(d);
    let s = |p: &str| d.join(p).to_str().unwrap().to_string();
    let ids = |p: &str| -> std::collections::BTreeSet<String> {
        crate::common::corpus_ids(&d.join(p)).into_iter().collect()
    };
    let mut after = Vec::new();
    for batch in [false, true] {
        let idx = s(if batch { "batch" } else { "full" });
        ok(&fimdup(
            &["index", "build", &s("a.jsonl"), "--out", &idx, "--json"],
            None,
        ));
        let b = s("b.jsonl");
        let mut args = vec!["index", "add", &idx, &b, "--json"];
        if batch {
            args.push("--batch");
        }
        let r = ok(&fimdup(&args, None));
        let lost = r["lost"].as_array().unwrap().len();
        if batch {
            assert_eq!(lost, 0);
        } else {
            assert!(lost > 0);
        }
        let again = ok(&fimdup(
            &["index", "add", &idx, &s("a.jsonl"), "--json"],
            None,
        ));
        after.push((r["added"].clone(), r["clusters"].clone(), again));
    }
    assert_eq!(after[0].0, after[1].0);
    assert_eq!(after[0].1, after[1].1);
    assert_eq!(after[0].2["lost"], after[1].2["lost"]);
    let lost: std::collections::BTreeSet<String> = after[1].2["lost"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["ext_id"].as_str().unwrap().to_string())
        .collect();
    let want: std::collections::BTreeSet<String> = ids("b.jsonl")
        .difference(&ids("a.jsonl"))
        .cloned()
        .collect();
    assert!(!want.is_empty());
    assert_eq!(lost, want);
}

/// A flipped byte in a block of a postings file past its header: the open of a query
/// (which checks every block) and a batch add (which checks a block when it first reads
/// it) both stop with exit 2 naming the file and the block, and leave the index as it was.
#[test]
fn a_damaged_postings_block_stops_the_commands_that_read_it() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let mut rng = ChaCha8Rng::seed_from_u64(46);
    let (mut a, mut b) = (String::new(), String::new());
    for i in 0..1500 {
        let w: Vec<String> = (0..150)
            .map(|_| format!("w{}", rng.gen_range(0..50_000)))
            .collect();
        let text = w.join(" ");
        a += &(serde_json::json!({"id": format!("a{i}"), "text": text}).to_string() + "\n");
        b += &(serde_json::json!({"id": format!("b{i}"), "text": text}).to_string() + "\n");
    }
    std::fs::write(d.join("a.jsonl"), a).unwrap();
    std::fs::write(d.join("b.jsonl"), b).unwrap();
    let s = |p: &str| d.join(p).to_str().unwrap().to_string();
    ok(&fimdup(
        &[
            "index",
            "build",
            &s("a.jsonl"),
            "--out",
            &s("idx"),
            "--json",
        ],
        None,
    ));
    let ctx = d.join("idx/seg-000001/context.bin");
    let orig = std::fs::read(&ctx).unwrap();
    assert!(
        orig.len() > 2 << 20,
        "{} bytes: more than two blocks",
        orig.len()
    );
    let at = orig.len() / 2;
    let block = (at >> 20) << 20;
    let range = format!("bytes {}..{}", block, (block + (1 << 20)).min(orig.len()));
    let mut bad = orig.clone();
    bad[at] ^= 0x04;
    std::fs::write(&ctx, &bad).unwrap();
    let current = std::fs::read(d.join("idx/CURRENT")).unwrap();
    for args in [
        vec!["index", "query", "idx", "--jsonl", "b.jsonl", "--json"],
        vec!["index", "add", "idx", "b.jsonl", "--batch", "--json"],
    ] {
        let args: Vec<String> = args
            .iter()
            .map(|a| {
                if a.contains('.') || *a == "idx" {
                    s(a)
                } else {
                    a.to_string()
                }
            })
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = fimdup(&args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(&ctx.display().to_string()) && err.contains(&range),
            "{args:?}: {err}"
        );
        assert_eq!(std::fs::read(d.join("idx/CURRENT")).unwrap(), current);
    }
    // repaired: the batch add works
    std::fs::write(&ctx, &orig).unwrap();
    let r = ok(&fimdup(
        &[
            "index",
            "add",
            &s("idx"),
            &s("b.jsonl"),
            "--batch",
            "--json",
        ],
        None,
    ));
    assert_eq!(r["added"], 1500);
}
