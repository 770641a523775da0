//! Corpus readers: each format, gzip, directories, WARC (hand-made records), stats,
//! batches, the id table, format guessing, and random bytes (no panic).

use std::io::Write;
use std::path::{Path, PathBuf};

use fimdup::corpus::{
    id_table_path, open, read_id_table, write_id_table, CorpusConfig, Document, Format,
    IdTableWriter,
};
use fimdup::DocId;
use proptest::prelude::*;

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&p, bytes).unwrap();
    p
}

fn read(path: &Path, cfg: &CorpusConfig) -> (Vec<Document>, fimdup::corpus::CorpusStats) {
    let mut r = open(path, cfg).unwrap();
    let docs: Vec<Document> = r.by_ref().collect::<fimdup::Result<_>>().unwrap();
    (docs, r.stats())
}

fn pairs(docs: &[Document]) -> Vec<(u32, &str, &str)> {
    docs.iter()
        .map(|d| (d.id.0, d.ext_id.as_str(), d.text.as_str()))
        .collect()
}

#[test]
fn jsonl_string_and_number_ids() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "c.jsonl",
        b"\xEF\xBB\xBF{\"id\": \"a\", \"text\": \"first\", \"x\": [1]}\n\n{\"text\": \"second\", \"id\": 7}\r\n  \n{\"id\": 1.5, \"text\": \"\"}",
    );
    let (docs, st) = read(&p, &CorpusConfig::default());
    assert_eq!(
        pairs(&docs),
        [(0, "a", "first"), (1, "7", "second"), (2, "1.5", "")]
    );
    assert_eq!(st.documents, 3);
    assert_eq!(st.empty, 1);
    assert_eq!(st.text_bytes, 11);
    assert_eq!(st.files, 1);
}

#[test]
fn jsonl_custom_fields_and_line_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "c.ndjson.gz",
        &gz(b"{\"body\": \"x\"}\n\n{\"body\": \"y\"}\n"),
    );
    let cfg = CorpusConfig {
        text_field: "body".into(),
        id_field: String::new(),
        ..CorpusConfig::default()
    };
    let (docs, _) = read(&p, &cfg);
    assert_eq!(pairs(&docs), [(0, "1", "x"), (1, "3", "y")]);
}

#[test]
fn jsonl_skip_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "c.jsonl",
        b"{\"id\":1,\"text\":\"ok\"}\n{bad\n[1]\n{\"id\":2}\n{\"id\":3,\"text\":\"ok3\"}\n",
    );
    let cfg = CorpusConfig {
        skip_bad_lines: true,
        ..CorpusConfig::default()
    };
    let (docs, st) = read(&p, &cfg);
    assert_eq!(pairs(&docs), [(0, "1", "ok"), (1, "3", "ok3")]);
    assert_eq!(st.skipped_bad_lines, 3);
}

#[test]
fn lossy_utf8_is_counted() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "c.txt", b"good\nba\xffd\n\xc3\n");
    let (docs, st) = read(&p, &CorpusConfig::default());
    assert_eq!(
        pairs(&docs),
        [
            (0, "1", "good"),
            (1, "2", "ba\u{FFFD}d"),
            (2, "3", "\u{FFFD}")
        ]
    );
    assert_eq!(st.lossy_utf8, 2);
    assert!(docs[1].lossy && !docs[0].lossy);

    let p = write(
        dir.path(),
        "c.jsonl",
        b"{\"id\":\"x\",\"text\":\"caf\xe9\"}\n",
    );
    let (docs, st) = read(&p, &CorpusConfig::default());
    assert_eq!(docs[0].text, "caf\u{FFFD}");
    assert_eq!(st.lossy_utf8, 1);
}

#[test]
fn lines_reader_keeps_empty_lines() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "c.txt.gz", &gz(b"one\r\n\ntwo three\nlast"));
    let (docs, st) = read(&p, &CorpusConfig::default());
    assert_eq!(
        pairs(&docs),
        [
            (0, "1", "one"),
            (1, "2", ""),
            (2, "3", "two three"),
            (3, "4", "last")
        ]
    );
    assert_eq!(st.empty, 1);
}

#[test]
fn csv_and_tsv() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "c.csv",
        b"\xEF\xBB\xBFid,title,text\nd1,T,\"a, quoted\ntext\"\nd2,U,plain\n",
    );
    let (docs, _) = read(&p, &CorpusConfig::default());
    assert_eq!(
        pairs(&docs),
        [(0, "d1", "a, quoted\ntext"), (1, "d2", "plain")]
    );

    let p = write(
        dir.path(),
        "c.tsv",
        b"doc\tbody\nx\tnot \"quoted\nq\t\"tab\there\"\n",
    );
    let cfg = CorpusConfig {
        text_column: "body".into(),
        id_column: "doc".into(),
        ..CorpusConfig::default()
    };
    let (docs, _) = read(&p, &cfg);
    // TSV is quoted as CSV is: a `"` inside an unquoted field is kept, a field starting
    // with `"` is quoted.
    assert_eq!(
        pairs(&docs),
        [(0, "x", "not \"quoted"), (1, "q", "tab\there")]
    );

    // Empty id column: line numbers where the rows start.
    let p = write(dir.path(), "n.csv", b"text\n\"multi\nline\"\nnext\n");
    let cfg = CorpusConfig {
        id_column: String::new(),
        ..CorpusConfig::default()
    };
    let (docs, _) = read(&p, &cfg);
    assert_eq!(pairs(&docs), [(0, "2", "multi\nline"), (1, "4", "next")]);
}

#[test]
fn csv_skip_ragged_rows() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "c.csv", b"id,text\n1,a\n2,b,extra\n3\n4,d\n");
    let cfg = CorpusConfig {
        skip_bad_lines: true,
        ..CorpusConfig::default()
    };
    let (docs, st) = read(&p, &cfg);
    assert_eq!(pairs(&docs), [(0, "1", "a"), (1, "4", "d")]);
    assert_eq!(st.skipped_bad_lines, 2);
}

#[test]
fn empty_inputs_give_no_documents() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["e.csv", "e.tsv", "e.jsonl", "e.txt", "e.warc"] {
        let p = write(dir.path(), name, b"");
        let (docs, st) = read(&p, &CorpusConfig::default());
        assert!(docs.is_empty(), "{name}");
        assert_eq!(st.documents, 0);
    }
    // A header and no rows.
    let p = write(dir.path(), "h.csv", b"id,text\n");
    assert!(read(&p, &CorpusConfig::default()).0.is_empty());
}

#[test]
fn directory_recursive_sorted() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("corpus");
    write(&root, "b.txt", b"bee");
    write(&root, "a/z.txt", b"zed");
    write(&root, "a/b/c.html.gz", &gz(b"<p>deep</p>"));
    write(&root, "a.txt", b"ay");
    write(&root, ".hidden", b"no");
    write(&root, "a/.git/x", b"no");
    write(&root, "empty", b"");
    let (docs, st) = read(&root, &CorpusConfig::default());
    assert_eq!(
        pairs(&docs),
        // Byte order of the relative path: '.' (0x2E) sorts before '/' (0x2F).
        [
            (0, "a.txt", "ay"),
            (1, "a/b/c.html.gz", "<p>deep</p>"),
            (2, "a/z.txt", "zed"),
            (3, "b.txt", "bee"),
            (4, "empty", ""),
        ]
    );
    assert_eq!(st.files, 5);
    assert_eq!(st.empty, 1);
    assert_eq!(Format::guess(&root).unwrap(), Format::Dir);
}

/// A WARC record with CRLF line ends and the given headers and block.
fn warc_record(version: &str, headers: &[(&str, &str)], block: &[u8]) -> Vec<u8> {
    let mut v = format!("{version}\r\n").into_bytes();
    for (k, val) in headers {
        v.extend_from_slice(format!("{k}: {val}\r\n").as_bytes());
    }
    v.extend_from_slice(format!("Content-Length: {}\r\n\r\n", block.len()).as_bytes());
    v.extend_from_slice(block);
    v.extend_from_slice(b"\r\n\r\n");
    v
}

fn sample_warc() -> Vec<Vec<u8>> {
    vec![
        warc_record(
            "WARC/1.0",
            &[("WARC-Type", "warcinfo"), ("WARC-Record-ID", "<urn:uuid:1>")],
            b"software: hand\r\n",
        ),
        warc_record(
            "WARC/1.0",
            &[("WARC-Type", "request"), ("WARC-Target-URI", "http://a.example/")],
            b"GET / HTTP/1.1\r\nHost: a.example\r\n\r\n",
        ),
        warc_record(
            "WARC/1.0",
            &[
                ("WARC-Type", "response"),
                ("WARC-Target-URI", "http://a.example/"),
                ("Content-Type", "application/http; msgtype=response"),
            ],
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html><p>A rose</p></html>",
        ),
        warc_record(
            "WARC/1.1",
            &[
                ("warc-type", "response"),
                ("WARC-Target-URI", "<http://b.example/x>"),
                ("X-Long", "first"),
            ],
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nis a \r\n4\r\nrose\r\n0\r\n\r\n",
        ),
        warc_record(
            "WARC/1.1",
            &[("WARC-Type", "metadata"), ("WARC-Target-URI", "http://b.example/x")],
            b"fetchTimeMs: 3\r\n",
        ),
    ]
}

fn check_sample(docs: &[Document], st: &fimdup::corpus::CorpusStats) {
    assert_eq!(
        pairs(docs),
        [
            (0, "http://a.example/", "<html><p>A rose</p></html>"),
            (1, "http://b.example/x", "is a rose"),
        ]
    );
    assert_eq!(st.skipped_records, 3);
}

#[test]
fn warc_plain() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "c.warc", &sample_warc().concat());
    let (docs, st) = read(&p, &CorpusConfig::default());
    check_sample(&docs, &st);
}

#[test]
fn warc_gzip_per_record() {
    let dir = tempfile::tempdir().unwrap();
    let bytes: Vec<u8> = sample_warc().iter().flat_map(|r| gz(r)).collect();
    let p = write(dir.path(), "c.warc.gz", &bytes);
    let (docs, st) = read(&p, &CorpusConfig::default());
    check_sample(&docs, &st);
}

#[test]
fn warc_lf_line_ends_and_header_continuation() {
    let dir = tempfile::tempdir().unwrap();
    let block = b"HTTP/1.0 200 OK\nServer: x\n\nbody text";
    let rec = format!(
        "WARC/1.0\nWARC-Type: response\nWARC-Target-URI:\n  http://c.example/\nContent-Length: {}\n\n",
        block.len()
    );
    let mut bytes = rec.into_bytes();
    bytes.extend_from_slice(block);
    bytes.extend_from_slice(b"\n\n");
    let p = write(dir.path(), "lf.warc", &bytes);
    let (docs, _) = read(&p, &CorpusConfig::default());
    assert_eq!(pairs(&docs), [(0, "http://c.example/", "body text")]);
}

#[test]
fn format_names_and_guessing() {
    for (s, f) in [
        ("jsonl", Format::Jsonl),
        ("NDJSON", Format::Jsonl),
        ("csv", Format::Csv),
        ("tsv", Format::Tsv),
        ("lines", Format::Lines),
        ("txt", Format::Lines),
        ("dir", Format::Dir),
        ("warc", Format::Warc),
    ] {
        assert_eq!(s.parse::<Format>().unwrap(), f);
        assert_eq!(f.to_string().parse::<Format>().unwrap(), f);
    }
    assert!(matches!(
        "xml".parse::<Format>(),
        Err(fimdup::Error::Config(_))
    ));
    for (name, f) in [
        ("a.jsonl", Format::Jsonl),
        ("a.json.gz", Format::Jsonl),
        ("a.ndjson", Format::Jsonl),
        ("a.CSV", Format::Csv),
        ("a.tsv.gz", Format::Tsv),
        ("a.txt", Format::Lines),
        ("crawl.warc.gz", Format::Warc),
    ] {
        assert_eq!(Format::guess(Path::new(name)).unwrap(), f, "{name}");
    }
    for name in ["a.xml", "a.gz", "-", "noext"] {
        let e = Format::guess(Path::new(name)).unwrap_err();
        assert!(matches!(e, fimdup::Error::Config(_)), "{name}");
    }
}

#[test]
fn explicit_format_overrides_extension() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "data.dat", b"x\ny\n");
    let cfg = CorpusConfig {
        format: Some(Format::Lines),
        ..CorpusConfig::default()
    };
    assert_eq!(read(&p, &cfg).0.len(), 2);
}

#[test]
fn batches_cover_the_stream_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (1..=10).map(|i| format!("doc {i}\n")).collect();
    let p = write(dir.path(), "c.txt", text.as_bytes());
    let mut r = open(&p, &CorpusConfig::default()).unwrap();
    let mut sizes = Vec::new();
    let mut ids = Vec::new();
    loop {
        let b = r.next_batch(4).unwrap();
        if b.is_empty() {
            break;
        }
        sizes.push(b.len());
        ids.extend(b.iter().map(|d| d.id.0));
    }
    assert_eq!(sizes, [4, 4, 2]);
    assert_eq!(ids, (0..10).collect::<Vec<_>>());
    assert_eq!(r.stats().documents, 10);
}

#[test]
fn config_validation() {
    assert!(CorpusConfig::default().validate().is_ok());
    for bad in [
        CorpusConfig {
            text_field: String::new(),
            ..CorpusConfig::default()
        },
        CorpusConfig {
            text_column: String::new(),
            ..CorpusConfig::default()
        },
        CorpusConfig {
            id_field: "text".into(),
            ..CorpusConfig::default()
        },
    ] {
        assert!(matches!(bad.validate(), Err(fimdup::Error::Config(_))));
        assert!(matches!(
            open(Path::new("x.txt"), &bad),
            Err(fimdup::Error::Config(_))
        ));
    }
}

#[test]
fn id_table_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("images.bin");
    let p = id_table_path(&out);
    assert_eq!(p, dir.path().join("images.bin.ids.tsv"));
    let ids = vec![
        (DocId(0), "plain".to_string()),
        (DocId(1), "tab\there\nnew\\line\r".to_string()),
        (DocId(2), String::new()),
        (DocId(3), "http://x/é".to_string()),
    ];
    write_id_table(&p, &ids).unwrap();
    let text = std::fs::read_to_string(&p).unwrap();
    assert_eq!(
        text,
        "doc_id\text_id\n0\tplain\n1\ttab\\there\\nnew\\\\line\\r\n2\t\n3\thttp://x/é\n"
    );
    assert_eq!(read_id_table(&p).unwrap(), ids);

    // Streaming writer gives the same bytes; nothing appears before commit.
    let p2 = dir.path().join("b.ids.tsv");
    let mut w = IdTableWriter::create(&p2).unwrap();
    for (id, e) in &ids {
        w.push(*id, e).unwrap();
    }
    assert!(!p2.exists());
    w.commit().unwrap();
    assert_eq!(std::fs::read_to_string(&p2).unwrap(), text);

    std::fs::write(&p2, "doc_id\text_id\n0\tok\nx\ty\n").unwrap();
    let e = read_id_table(&p2).unwrap_err().to_string();
    assert!(e.contains("b.ids.tsv:3:"), "{e}");
}

#[test]
fn reference_corpus_reads() {
    let p = common::dataset("clough_stevenson_2011/docs.jsonl");
    // Independent count: non-blank lines of the file.
    let raw = std::fs::read(&p).unwrap();
    let expected = raw
        .split(|&c| c == b'\n')
        .filter(|l| l.iter().any(|c| !c.is_ascii_whitespace()))
        .count() as u64;
    let r = open(&p, &CorpusConfig::default()).unwrap();
    let mut n = 0u64;
    let mut r = r;
    for d in r.by_ref() {
        let d = d.unwrap();
        assert_eq!(u64::from(d.id.0), n);
        assert!(!d.ext_id.is_empty());
        n += 1;
    }
    assert_eq!(n, expected);
    assert_eq!(r.stats().documents, expected);
}

fn drain(p: &Path, cfg: &CorpusConfig) {
    if let Ok(r) = open(p, cfg) {
        for d in r.take(10_000) {
            if d.is_err() {
                break;
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600),
                                prefix in prop::sample::select(vec![
                                    &b""[..], b"WARC/1.0\r\n", b"WARC/1.1\r\nContent-Length: 5\r\n\r\n",
                                    b"{\"id\":1,\"text\":", b"id,text\n", b"id\ttext\n"]),
                                skip in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let mut data = prefix.to_vec();
        data.extend_from_slice(&bytes);
        let cfg = CorpusConfig { skip_bad_lines: skip, ..CorpusConfig::default() };
        for name in ["r.jsonl", "r.csv", "r.tsv", "r.txt", "r.warc"] {
            let p = write(dir.path(), name, &data);
            drain(&p, &cfg);
            let pz = write(dir.path(), &format!("{name}.gz"), &data);
            drain(&pz, &cfg);
            let pz2 = write(dir.path(), &format!("z{name}.gz"), &gz(&data));
            drain(&pz2, &cfg);
        }
    }
}

#[test]
fn parallel_batches_match_sequential() {
    use fimdup::text::{Canonical, Canonicalizer, Scratch, TextConfig};
    use rayon::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..500)
        .map(|i| {
            format!(
                "{{\"id\":{i},\"text\":\"<p>Doc {i}: a Rose is a rose &amp; {}</p>\"}}\n",
                i * 7
            )
        })
        .collect();
    let p = write(dir.path(), "c.jsonl", text.as_bytes());
    let canon = Canonicalizer::new(TextConfig {
        html: true,
        ..TextConfig::default()
    })
    .unwrap();
    let seq: Vec<Canonical> = open(&p, &CorpusConfig::default())
        .unwrap()
        .map(|d| canon.canonicalize(&d.unwrap().text))
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let mut r = open(&p, &CorpusConfig::default()).unwrap();
    let mut par = Vec::new();
    loop {
        let batch = r.next_batch(64).unwrap();
        if batch.is_empty() {
            break;
        }
        let out: Vec<Canonical> = pool.install(|| {
            batch
                .par_iter()
                .map_init(Scratch::default, |s, d| {
                    let mut c = Canonical::default();
                    canon.canonicalize_into(&d.text, s, &mut c);
                    c
                })
                .collect()
        });
        par.extend(out);
    }
    assert_eq!(seq.len(), 500);
    assert_eq!(par, seq);
    assert_eq!(
        seq[3].iter().collect::<Vec<_>>(),
        ["doc", "3", "a", "rose", "is", "a", "rose", "21"]
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Content-Length framing: arbitrary bodies (CRLFs, "WARC/1.0" lines, binary) between
    /// arbitrary non-response records come back exactly, plain and gzip per record.
    #[test]
    fn warc_framing_round_trip(
        recs in prop::collection::vec(
            (any::<bool>(), prop::collection::vec(prop::sample::select(vec![
                &b"a"[..], b"\r\n", b"\n", b"WARC/1.0\r\n", b"\r\n\r\n", b"\xff", b"<p>", b" "]), 0..20)),
            0..6),
        gzipped in any::<bool>(),
    ) {
        let mut bytes = Vec::new();
        let mut expected = Vec::new();
        for (i, (response, parts)) in recs.iter().enumerate() {
            let body: Vec<u8> = parts.concat();
            let uri = format!("http://e.example/{i}");
            let rec = if *response {
                let mut block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n".to_vec();
                block.extend_from_slice(&body);
                expected.push((uri.clone(), String::from_utf8_lossy(&body).into_owned()));
                warc_record("WARC/1.1", &[("WARC-Type", "response"), ("WARC-Target-URI", &uri)], &block)
            } else {
                warc_record("WARC/1.0", &[("WARC-Type", "resource"), ("WARC-Target-URI", &uri)], &body)
            };
            if gzipped { bytes.extend(gz(&rec)) } else { bytes.extend(rec) }
        }
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), if gzipped { "r.warc.gz" } else { "r.warc" }, &bytes);
        let (docs, st) = read(&p, &CorpusConfig::default());
        let got: Vec<(String, String)> = docs.into_iter().map(|d| (d.ext_id, d.text)).collect();
        prop_assert_eq!(got, expected);
        prop_assert_eq!(st.skipped_records as usize, recs.iter().filter(|r| !r.0).count());
    }
}

use crate::common;

/// A JSONL corpus and its zstd twin made by the `zstd` command-line tool (two frames: the
/// halves compressed separately and concatenated), or `None` when the tool is missing.
fn zstd_twin(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    if !common::zstd_cli() {
        return None;
    }
    let mut text = String::new();
    for i in 0..3000 {
        text.push_str(&format!(
            "{{\"id\": \"d{i}\", \"text\": \"document {i} says {}\"}}\n",
            "word ".repeat(i % 17)
        ));
    }
    text.push_str("\n{\"id\": \"last\", \"text\": \"caf\\u00e9\"}\n");
    let plain = write(dir, "c.jsonl", text.as_bytes());
    let (a, b) = text.split_at(text.len() / 2);
    let mut bytes = Vec::new();
    for (k, half) in [a, b].into_iter().enumerate() {
        let p = write(dir, &format!("half{k}"), half.as_bytes());
        let o = std::process::Command::new("zstd")
            .args(["-q", "-c", "-3"])
            .arg(&p)
            .output()
            .unwrap();
        assert!(o.status.success());
        bytes.extend(o.stdout);
    }
    Some((plain, write(dir, "c.jsonl.zst", &bytes)))
}

#[test]
fn zstd_jsonl_reads_like_its_plain_twin() {
    use fimdup::corpus::par::{read_all_par_opts, ParOptions};
    let dir = tempfile::tempdir().unwrap();
    let Some((plain, zst)) = zstd_twin(dir.path()) else {
        return;
    };
    assert_eq!(Format::guess(&zst).unwrap(), Format::Jsonl);
    let cfg = CorpusConfig::default();
    let (want, want_stats) = read(&plain, &cfg);
    let (got, got_stats) = read(&zst, &cfg);
    assert_eq!(want.len(), 3001);
    assert_eq!(got, want);
    assert_eq!(got_stats, want_stats);
    let opts = ParOptions {
        block_bytes: 4096,
        in_flight: 3,
    };
    let (par, par_stats) = read_all_par_opts(&zst, &cfg, &opts).unwrap();
    assert_eq!(par, want);
    assert_eq!(par_stats, want_stats);
}

#[test]
fn zstd_corrupt_truncated_and_empty() {
    let dir = tempfile::tempdir().unwrap();
    let body = "{\"id\": 1, \"text\": \"x\"}\n".repeat(2000);
    let full = zstd::encode_all(body.as_bytes(), 3).unwrap();
    let trunc = write(dir.path(), "t.jsonl.zst", &full[..full.len() / 2]);
    let mut bad = full.clone();
    bad[0] ^= 0xff;
    let bad = write(dir.path(), "b.jsonl.zst", &bad);
    for p in [&trunc, &bad] {
        let e = open(p, &CorpusConfig::default())
            .and_then(|r| r.read_all())
            .unwrap_err();
        let msg = e.to_string();
        assert!(
            matches!(e, fimdup::Error::Parse { .. })
                && msg.contains("corrupt or truncated zstd data")
                && msg.starts_with(&format!("{}:", p.display())),
            "{msg}"
        );
        let e = fimdup::corpus::par::read_all_par(p, &CorpusConfig::default()).unwrap_err();
        assert!(
            e.to_string().contains("corrupt or truncated zstd data"),
            "{e}"
        );
    }
    let empty = write(dir.path(), "e.txt.zst", b"");
    let (docs, _) = read(&empty, &CorpusConfig::default());
    assert!(docs.is_empty());
}
