//! The parallel corpus reader (`fimdup::corpus::par`) against the sequential one: the same
//! documents (DocIds, external ids, texts, lossy flags) and counts, and the same first
//! error (file, line, message) in document order, with 1 and 2 threads and block sizes
//! from a few bytes (every line its own block) to the default.

use std::io::Write;
use std::path::Path;

use fimdup::corpus::par::{par_map_corpus, par_map_corpus_wanted, read_all_par_opts, ParOptions};
use fimdup::corpus::{open, CorpusConfig, CorpusStats, Document, Format};
use fimdup::{DocId, Error, Result};
use proptest::prelude::*;

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// The sequential reader: documents and counts, or the first error as a string.
fn sequential(
    p: &Path,
    cfg: &CorpusConfig,
) -> std::result::Result<(Vec<Document>, CorpusStats), String> {
    let mut r = open(p, cfg).map_err(|e| e.to_string())?;
    let mut docs = Vec::new();
    for d in r.by_ref() {
        docs.push(d.map_err(|e| e.to_string())?);
    }
    Ok((docs, r.stats()))
}

const OPTS: [ParOptions; 4] = [
    ParOptions {
        block_bytes: 1,
        in_flight: 1,
    },
    ParOptions {
        block_bytes: 7,
        in_flight: 3,
    },
    ParOptions {
        block_bytes: 64,
        in_flight: 0,
    },
    ParOptions {
        block_bytes: 1 << 20,
        in_flight: 0,
    },
];

/// Every thread count and block size gives what the sequential reader gives.
fn check_same(p: &Path, cfg: &CorpusConfig) {
    let want = sequential(p, cfg);
    for threads in [1, 2] {
        for opts in OPTS {
            let got = pool(threads)
                .install(|| read_all_par_opts(p, cfg, &opts))
                .map_err(|e| e.to_string());
            assert_eq!(got, want, "{} threads, {opts:?}, {}", threads, p.display());
        }
        // Called from outside any pool, on the global pool.
        if threads == 1 {
            let got = read_all_par_opts(p, cfg, &OPTS[1]).map_err(|e| e.to_string());
            assert_eq!(got, want, "global pool, {}", p.display());
        }
    }
}

fn jsonl_cfg(skip: bool) -> CorpusConfig {
    CorpusConfig {
        skip_bad_lines: skip,
        ..CorpusConfig::default()
    }
}

/// JSONL with a BOM, CRLF, blank and whitespace lines, an escaped newline, a numeric id and
/// no final newline.
const EDGE_JSONL: &str = "\u{feff}{\"id\":\"a\",\"text\":\"one two\"}\r\n\n  \n{\"id\":7,\"text\":\"x\\ny\"}\n{\"text\":\"\",\"id\":1.5}\n{\"id\":\"z\",\"text\":\"last, no newline\"}";
/// Plain lines with a BOM (and a second one inside), a blank line, CRLF, no final newline.
const EDGE_LINES: &str = "\u{feff}first\n\nthird line\r\n\u{feff}x\nno newline";

/// JSONL with invalid UTF-8 in a text.
fn edge_lossy_jsonl() -> Vec<u8> {
    let mut v = b"{\"id\":1,\"text\":\"caf\xe9\"}\n".to_vec();
    v.extend_from_slice(b"{\"id\":2,\"text\":\"ok\"}\n");
    v
}

#[test]
fn same_documents_as_the_sequential_reader() {
    let dir = tempfile::tempdir().unwrap();
    let (jsonl, lines, bad_utf8) = (EDGE_JSONL, EDGE_LINES, edge_lossy_jsonl());
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("a.jsonl", jsonl.into()),
        ("a.jsonl.gz", gz(jsonl.as_bytes())),
        ("b.txt", lines.into()),
        ("b.txt.gz", gz(lines.as_bytes())),
        ("empty.jsonl", Vec::new()),
        ("empty.txt.gz", Vec::new()),
        ("blank.jsonl", b"\n\n \n".to_vec()),
        ("lossy.jsonl", bad_utf8),
        ("c.csv", b"id,text\n1,\"a\nb\"\n2,c\n".to_vec()),
        ("d.tsv", b"text\tid\nx y\t1\n".to_vec()),
    ];
    for (name, bytes) in files {
        let p = dir.path().join(name);
        std::fs::write(&p, &bytes).unwrap();
        check_same(&p, &CorpusConfig::default());
        check_same(&p, &jsonl_cfg(true));
        if name.ends_with(".jsonl") {
            let cfg = CorpusConfig {
                id_field: String::new(),
                ..CorpusConfig::default()
            };
            check_same(&p, &cfg);
        }
    }
    // A directory (sequential fallback).
    let d = dir.path().join("dir");
    std::fs::create_dir_all(d.join("sub")).unwrap();
    std::fs::write(d.join("b.txt"), "bee").unwrap();
    std::fs::write(d.join("sub/a.txt"), "ay").unwrap();
    check_same(&d, &CorpusConfig::default());
}

#[test]
fn first_error_in_document_order_wins() {
    let dir = tempfile::tempdir().unwrap();
    let good = |i: usize| format!("{{\"id\":{i},\"text\":\"document number {i}\"}}\n");
    let mut cases: Vec<(&str, String, CorpusConfig)> = Vec::new();
    // Errors early and late, several in one input (the first must be reported).
    for bad_at in [0usize, 1, 5, 39] {
        let mut s = String::new();
        for i in 0..40 {
            if i == bad_at {
                s.push_str("{\"id\": 1, \"text\": }\n");
            } else if i == bad_at + 3 {
                s.push_str("[1, 2]\n");
            } else if i == 30 {
                s.push_str("{\"id\":3}\n");
            } else {
                s.push_str(&good(i));
            }
        }
        cases.push(("e.jsonl", s, CorpusConfig::default()));
    }
    // The error names the file and the line of the first bad document, whatever the
    // threads and blocks.
    for bad_at in [0usize, 17, 39] {
        let p = dir.path().join(format!("line{bad_at}.jsonl"));
        let body: String = (0..40)
            .map(|i| {
                if i == bad_at {
                    "{\"id\":1,\"text\":}\n".to_string()
                } else {
                    good(i)
                }
            })
            .collect();
        std::fs::write(&p, body).unwrap();
        let at = format!("{}:{}", p.display(), bad_at + 1);
        for threads in [1, 2] {
            for opts in OPTS {
                let e = pool(threads)
                    .install(|| read_all_par_opts(&p, &CorpusConfig::default(), &opts))
                    .unwrap_err()
                    .to_string();
                assert!(e.contains(&at), "{e:?} does not name {at}");
            }
        }
    }
    cases.push((
        "f.jsonl",
        format!("{}{{\"id\":true,\"text\":\"t\"}}\n{}", good(0), good(1)),
        CorpusConfig::default(),
    ));
    cases.push((
        "g.jsonl",
        format!("{}{{\"text\":\"no id\"}}\n", good(0)),
        CorpusConfig::default(),
    ));
    cases.push((
        "h.jsonl",
        format!("{}\"a string\"\n{}", good(0), good(1)),
        CorpusConfig::default(),
    ));
    cases.push((
        "i.jsonl",
        format!("{}{{\"id\":1,\"text\":5}}\n{}not json\n", good(0), good(1)),
        jsonl_cfg(false),
    ));
    cases.push((
        "j.csv",
        "id,text\n1,a\n2,b,c\n3,d\n".into(),
        CorpusConfig::default(),
    ));
    for (name, body, cfg) in &cases {
        let p = dir.path().join(name);
        std::fs::write(&p, body).unwrap();
        let want = sequential(&p, cfg);
        assert!(want.is_err(), "{name}: the case has no error");
        check_same(&p, cfg);
    }
    // Truncated gzip: a read error after some good lines.
    let mut s = String::new();
    for i in 0..2000 {
        s.push_str(&good(i));
    }
    let mut z = gz(s.as_bytes());
    z.truncate(z.len() / 2);
    let p = dir.path().join("t.jsonl.gz");
    std::fs::write(&p, &z).unwrap();
    let want = sequential(&p, &CorpusConfig::default());
    assert!(want.as_ref().unwrap_err().contains("gzip"), "{want:?}");
    check_same(&p, &CorpusConfig::default());
}

#[test]
fn map_errors_and_consumer_errors_stop_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("m.txt");
    let body: String = (0..500).map(|i| format!("line {i}\n")).collect();
    std::fs::write(&p, body).unwrap();
    let cfg = CorpusConfig {
        format: Some(Format::Lines),
        ..CorpusConfig::default()
    };
    for threads in [1, 2] {
        // The map fails on two documents: the earlier one is reported.
        let r = pool(threads).install(|| {
            par_map_corpus(
                &p,
                &cfg,
                |d| {
                    if d.id == DocId(137) || d.id == DocId(400) {
                        Err(Error::config(format!("doc {}", d.id.0)))
                    } else {
                        Ok(d.id)
                    }
                },
                |_| Ok(()),
            )
        });
        assert_eq!(r.unwrap_err().to_string(), "invalid configuration: doc 137");
        // The consumer sees the blocks in order and can stop the reading.
        let mut seen = Vec::new();
        let r: Result<CorpusStats> = pool(threads).install(|| {
            par_map_corpus(
                &p,
                &cfg,
                |d| Ok(d.id),
                |b| {
                    assert_eq!(b.first, b.items[0]);
                    seen.extend(b.items);
                    if seen.len() > 300 {
                        return Err(Error::config("enough"));
                    }
                    Ok(())
                },
            )
        });
        assert!(r.is_err());
        assert!(seen.iter().enumerate().all(|(i, d)| d.0 as usize == i));
    }
}

fn json_line() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => ("[a-z ]{0,30}", 0u32..1000).prop_map(|(t, i)| {
            serde_json::json!({"id": i, "text": t}).to_string()
        }),
        1 => Just(String::new()),
        1 => Just("   ".to_string()),
        1 => "[a-z{}\":, ]{0,12}",
        1 => Just("{\"id\":\"x\",\"text\":\"dup\",\"text\":\"last\"}".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn random_jsonl_same_as_sequential(
        lines in prop::collection::vec(json_line(), 0..60),
        skip in any::<bool>(),
        crlf in any::<bool>(),
        last_newline in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.jsonl");
        let sep = if crlf { "\r\n" } else { "\n" };
        let mut body = lines.join(sep);
        if last_newline {
            body.push_str(sep);
        }
        std::fs::write(&p, body).unwrap();
        check_same(&p, &jsonl_cfg(skip));
    }
}

/// `par_map_corpus_wanted` maps exactly the wanted documents (as the sequential reader
/// reads them) and gives `None` for the others, whatever the thread count and block size;
/// unwanted lines are not parsed, so a malformed one is not reported while a malformed
/// wanted one is, at its line.
#[test]
fn wanted_documents_only_and_unwanted_lines_not_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = "{\"id\":\"a\",\"text\":\"one\"}\n\n  \n{\"id\":7,\"text\":\"two\"}\r\n{\"id\":\"c\",\"text\":\"three\"}\n{\"id\":\"d\",\"text\":\"four\"}\n{\"id\":\"e\",\"text\":\"five\"}";
    let lines = "first\n\nthird line\r\nx\nno newline";
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("a.jsonl", jsonl.into()),
        ("a.jsonl.gz", gz(jsonl.as_bytes())),
        ("b.txt", lines.into()),
        ("c.csv", b"id,text\n1,\"a\nb\"\n2,c\n3,d\n".to_vec()),
    ];
    let wanted_sets: [&[u32]; 4] = [&[], &[0], &[1, 3], &[0, 1, 2, 3, 4, 9]];
    for (name, bytes) in files {
        let p = dir.path().join(name);
        std::fs::write(&p, &bytes).unwrap();
        let cfg = CorpusConfig::default();
        let (all, _) = sequential(&p, &cfg).unwrap();
        for w in wanted_sets {
            let wanted: Vec<DocId> = w.iter().map(|&d| DocId(d)).collect();
            let want: Vec<Option<(u32, String, String)>> = all
                .iter()
                .map(|d| {
                    wanted
                        .contains(&d.id)
                        .then(|| (d.id.0, d.ext_id.clone(), d.text.clone()))
                })
                .collect();
            for threads in [1, 2] {
                for opts in OPTS {
                    let mut got = Vec::new();
                    let mut next = 0u32;
                    pool(threads)
                        .install(|| {
                            par_map_corpus_wanted(
                                &p,
                                &cfg,
                                &opts,
                                &wanted,
                                || (),
                                |_, d| Ok((d.id.0, d.ext_id.to_string(), d.text.into_owned())),
                                |b| {
                                    assert_eq!(b.first, DocId(next), "blocks are dense");
                                    next += b.items.len() as u32;
                                    got.extend(b.items);
                                    Ok(())
                                },
                            )
                        })
                        .unwrap();
                    assert_eq!(got, want, "{name} {w:?} {threads} threads {opts:?}");
                }
            }
        }
    }
    // A malformed line: skipped when unwanted, reported at its line when wanted.
    let p = dir.path().join("bad.jsonl");
    std::fs::write(
        &p,
        "{\"id\":1,\"text\":\"a\"}\nnot json\n{\"id\":3,\"text\":\"c\"}\n",
    )
    .unwrap();
    let cfg = CorpusConfig::default();
    let run = |w: &[u32]| {
        let wanted: Vec<DocId> = w.iter().map(|&d| DocId(d)).collect();
        let mut n = 0usize;
        par_map_corpus_wanted(
            &p,
            &cfg,
            &OPTS[3],
            &wanted,
            || (),
            |_, d| Ok(d.id),
            |b| {
                n += b.items.iter().flatten().count();
                Ok(())
            },
        )
        .map(|_| n)
    };
    assert_eq!(run(&[0, 2]).unwrap(), 2);
    let e = run(&[1]).unwrap_err().to_string();
    assert!(e.contains("bad.jsonl") && e.contains(":2"), "{e}");
    // Wanted DocIds out of order are refused.
    assert!(run(&[2, 0]).is_err());
}

/// Every document of a seekable line-format file (JSONL or plain lines, any block size and
/// thread count, with a BOM, CRLF, blank lines and no final newline) carries the byte
/// offset of its line, and `LineDocReader::read_at` reads the same document back there;
/// gzip, CSV and JSONL read with `skip_bad_lines` report no offsets and no reader.
#[test]
fn line_offsets_read_the_same_documents_back() {
    use fimdup::corpus::par::{par_map_corpus_opts, LineDocReader};
    let dir = tempfile::tempdir().unwrap();
    let (jsonl, lines, bad_utf8) = (EDGE_JSONL, EDGE_LINES, edge_lossy_jsonl());
    let files: Vec<(&str, Vec<u8>, bool)> = vec![
        ("a.jsonl", jsonl.into(), true),
        ("b.txt", lines.into(), true),
        ("lossy.jsonl", bad_utf8, true),
        ("a.jsonl.gz", gz(jsonl.as_bytes()), false),
        ("c.csv", b"id,text\n1,\"a\nb\"\n2,c\n".to_vec(), false),
    ];
    for (name, bytes, seekable) in files {
        let p = dir.path().join(name);
        std::fs::write(&p, &bytes).unwrap();
        let cfg = CorpusConfig::default();
        let (want, _) = sequential(&p, &cfg).unwrap();
        let reader = LineDocReader::open(&p, &cfg).unwrap();
        assert_eq!(reader.is_some(), seekable, "{name}");
        assert!(
            LineDocReader::open(&p, &jsonl_cfg(true)).unwrap().is_none()
                || !name.ends_with(".jsonl")
        );
        for threads in [1, 2] {
            for opts in OPTS {
                let mut got = Vec::new();
                pool(threads)
                    .install(|| {
                        par_map_corpus_opts(
                            &p,
                            &cfg,
                            &opts,
                            || (),
                            |_, d| Ok((d.id, d.offset)),
                            |b| {
                                got.extend(b.items);
                                Ok(())
                            },
                        )
                    })
                    .unwrap();
                assert_eq!(got.len(), want.len(), "{name}");
                let mut buf = Vec::new();
                for ((id, offset), doc) in got.into_iter().zip(&want) {
                    assert_eq!(id, doc.id);
                    match (&reader, offset) {
                        (Some(r), Some(at)) => {
                            let back = r.read_at(at, &mut buf).unwrap();
                            assert_eq!(back.text, doc.text, "{name} {opts:?} at {at}");
                            let ext = back.ext_id.unwrap_or_else(|| doc.ext_id.clone());
                            assert_eq!(ext, doc.ext_id, "{name} at {at}");
                        }
                        (None, None) => {}
                        other => panic!("{name}: reader and offset disagree: {:?}", other.1),
                    }
                }
            }
        }
    }
    // An offset that no longer starts a document line is an error naming the file and offset.
    let p = dir.path().join("a.jsonl");
    let r = LineDocReader::open(&p, &CorpusConfig::default())
        .unwrap()
        .unwrap();
    let e = r.read_at(5, &mut Vec::new()).unwrap_err().to_string();
    assert!(e.contains("a.jsonl") && e.contains("byte offset 5"), "{e}");
    let blank = jsonl.find("\n\n").unwrap() as u64 + 1;
    assert!(r.read_at(blank, &mut Vec::new()).is_err());
}
