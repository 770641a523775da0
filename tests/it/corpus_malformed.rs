//! Malformed corpus inputs: a table of cases, each giving an error that names the file, the
//! line (or WARC record) and what was expected, with no panic; and the reader stops after it.

use std::io::Write;
use std::path::Path;

use fimdup::corpus::{open, CorpusConfig, Format};
use fimdup::Error;

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn warc(version: &str, headers: &str, block: &[u8]) -> Vec<u8> {
    let mut v = format!("{version}\r\n{headers}\r\n").into_bytes();
    v.extend_from_slice(block);
    v.extend_from_slice(b"\r\n\r\n");
    v
}

const RESP: &str = "WARC-Type: response\r\nWARC-Target-URI: http://x/\r\n";

struct Case {
    name: &'static str,
    file: &'static str,
    bytes: Vec<u8>,
    cfg: CorpusConfig,
    /// `Some(line)`: a parse error at that line; `None`: an error naming the file only.
    line: Option<u64>,
    /// Substrings the message must hold (what was found / expected).
    expect: &'static [&'static str],
}

fn case(
    name: &'static str,
    file: &'static str,
    bytes: impl Into<Vec<u8>>,
    line: Option<u64>,
    expect: &'static [&'static str],
) -> Case {
    Case {
        name,
        file,
        bytes: bytes.into(),
        cfg: CorpusConfig::default(),
        line,
        expect,
    }
}

fn cases() -> Vec<Case> {
    let good = warc(
        "WARC/1.0",
        &format!("{RESP}Content-Length: 5\r\n"),
        b"hello",
    );
    let mut wrong_len = warc(
        "WARC/1.0",
        &format!("{RESP}Content-Length: 3\r\n"),
        b"hello",
    );
    wrong_len.extend_from_slice(&good);
    let mut second_truncated = good.clone();
    second_truncated
        .extend_from_slice(b"WARC/1.1\r\nWARC-Type: response\r\nContent-Length: 50\r\n\r\nshort");
    let mut truncated_gz = gz(b"{\"id\":1,\"text\":\"a long enough line to compress\"}\n");
    truncated_gz.truncate(truncated_gz.len() / 2);
    vec![
        case(
            "bad JSON",
            "c.jsonl",
            "{\"id\":1,\"text\":\"a\"}\n{\"id\": 2, \"text\": }\n",
            Some(2),
            &["invalid JSON", "expected one JSON object per line"],
        ),
        case(
            "JSON not an object",
            "c.jsonl",
            "[1, 2]\n",
            Some(1),
            &["found an array", "expected a JSON object"],
        ),
        case(
            "missing text field",
            "c.jsonl",
            "\n{\"id\":1,\"body\":\"x\"}\n",
            Some(2),
            &["no field \"text\"", "expected a string field"],
        ),
        case(
            "text not a string",
            "c.jsonl",
            "{\"id\":1,\"text\":5}\n",
            Some(1),
            &["field \"text\" is a number", "expected a string"],
        ),
        case(
            "missing id field",
            "c.jsonl",
            "{\"id\":1,\"text\":\"a\"}\n{\"text\":\"b\"}\n",
            Some(2),
            &["no field \"id\"", "expected a string or number id"],
        ),
        case(
            "id of the wrong type",
            "c.jsonl",
            "{\"id\":[1],\"text\":\"a\"}\n",
            Some(1),
            &["field \"id\" is an array", "expected a string or a number"],
        ),
        case(
            "CSV missing text column",
            "c.csv",
            "id,body\n1,x\n",
            Some(1),
            &[
                "no column \"text\"",
                "\"id\", \"body\"",
                "expected a header naming it",
            ],
        ),
        case(
            "CSV missing id column",
            "c.csv",
            "doc,text\n1,x\n",
            Some(1),
            &["no column \"id\"", "expected a header naming it"],
        ),
        case(
            "CSV ragged row",
            "c.csv",
            "id,text\n1,a\n2,b,c\n",
            Some(3),
            &["found 3 fields", "expected 2"],
        ),
        case(
            "TSV short row",
            "c.tsv",
            "id\ttext\n1\ta\n2\n",
            Some(3),
            &["found 1 fields", "expected 2"],
        ),
        case(
            "truncated WARC record",
            "c.warc",
            "WARC/1.0\r\nWARC-Type: response\r\nContent-Length: 100\r\n\r\nonly this",
            Some(1),
            &[
                "WARC record 1",
                "truncated record",
                "says 100 bytes, only 9 remain",
            ],
        ),
        case(
            "truncated WARC record after a good one",
            "c.warc",
            second_truncated,
            Some(8),
            &["WARC record 2", "truncated record"],
        ),
        case(
            "bad WARC version line",
            "c.warc",
            "HTTP/1.1 200 OK\r\n\r\n",
            Some(1),
            &[
                "WARC record 1",
                "found \"HTTP/1.1 200 OK\"",
                "expected a version line WARC/1.0 or WARC/1.1",
            ],
        ),
        case(
            "bad WARC header line",
            "c.warc",
            "WARC/1.0\r\nWARC-Type: response\r\nno colon here\r\nContent-Length: 0\r\n\r\n",
            Some(3),
            &[
                "WARC record 1",
                "malformed header line",
                "expected `Name: value`",
            ],
        ),
        case(
            "bad Content-Length",
            "c.warc",
            "WARC/1.0\r\nWARC-Type: response\r\nContent-Length: 12x\r\n\r\n",
            Some(1),
            &["Content-Length \"12x\"", "expected a non-negative integer"],
        ),
        case(
            "negative Content-Length",
            "c.warc",
            "WARC/1.1\r\nContent-Length: -5\r\n\r\n",
            Some(1),
            &["expected a non-negative integer"],
        ),
        case(
            "missing Content-Length",
            "c.warc",
            "WARC/1.0\r\nWARC-Type: response\r\n\r\n",
            Some(1),
            &["no Content-Length header"],
        ),
        case(
            "Content-Length too short leaves garbage",
            "c.warc",
            wrong_len,
            // Physical line 6 is "hello": the block took "hel", "lo" is read as a header.
            Some(6),
            &["WARC record 2", "found \"lo\"", "expected a version line"],
        ),
        case(
            "end of file inside WARC headers",
            "c.warc",
            "WARC/1.0\r\nWARC-Type: response\r\n",
            Some(1),
            &["truncated record", "end of file inside the header block"],
        ),
        case(
            "WARC response without target URI",
            "c.warc",
            warc(
                "WARC/1.0",
                "WARC-Type: response\r\nContent-Length: 2\r\n",
                b"hi",
            ),
            Some(1),
            &["WARC record 1", "without WARC-Target-URI"],
        ),
        case(
            "invalid gzip",
            "c.jsonl.gz",
            "this is not gzip at all\n",
            Some(1),
            &[
                "corrupt or truncated gzip data",
                "expected a readable gzip stream",
            ],
        ),
        case(
            "truncated gzip",
            "c.jsonl.gz",
            truncated_gz,
            Some(1),
            &["corrupt or truncated gzip data"],
        ),
        case(
            "invalid gzip WARC",
            "c.warc.gz",
            "WARC/1.0\r\n",
            Some(1),
            &["corrupt or truncated gzip data"],
        ),
        case(
            "gzip CSV header",
            "c.csv.gz",
            "id,text\n",
            Some(1),
            &["corrupt or truncated gzip data"],
        ),
    ]
}

#[test]
fn malformed_inputs_give_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let all = cases();
    assert!(all.len() >= 10);
    for c in all {
        let p = dir.path().join(c.file);
        std::fs::write(&p, &c.bytes).unwrap();
        let err = match open(&p, &c.cfg) {
            Err(e) => e,
            Ok(mut r) => {
                let mut found = None;
                for d in r.by_ref() {
                    if let Err(e) = d {
                        found = Some(e);
                        break;
                    }
                }
                let e = found.unwrap_or_else(|| panic!("{}: no error", c.name));
                assert!(
                    r.next().is_none(),
                    "{}: reader goes on after an error",
                    c.name
                );
                e
            }
        };
        let msg = err.to_string();
        match c.line {
            Some(line) => {
                assert!(matches!(err, Error::Parse { .. }), "{}: {err:?}", c.name);
                let prefix = format!("{}:{line}: ", p.display());
                assert!(
                    msg.starts_with(&prefix),
                    "{}: {msg:?} lacks {prefix:?}",
                    c.name
                );
            }
            None => assert!(msg.contains(&p.display().to_string()), "{}: {msg}", c.name),
        }
        assert!(err.is_bad_input(), "{}: {err:?}", c.name);
        for e in c.expect {
            assert!(msg.contains(e), "{}: {msg:?} lacks {e:?}", c.name);
        }
    }
}

#[test]
fn nonexistent_file_and_directory() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["none.jsonl", "none.csv", "none.txt", "none.warc.gz"] {
        let p = dir.path().join(name);
        let e = open(&p, &CorpusConfig::default()).unwrap_err();
        assert!(matches!(e, Error::Io { .. }), "{e:?}");
        assert!(e.to_string().starts_with(&p.display().to_string()), "{e}");
    }
    let p = dir.path().join("nodir");
    let cfg = CorpusConfig {
        format: Some(Format::Dir),
        ..CorpusConfig::default()
    };
    let e = open(&p, &cfg).unwrap_err();
    assert!(e.to_string().contains("nodir"), "{e}");
    // A plain file read as a directory.
    let f = dir.path().join("file.txt");
    std::fs::write(&f, "x").unwrap();
    let e = open(&f, &cfg).unwrap_err().to_string();
    assert!(
        e.contains("file.txt") && e.contains("expected a directory"),
        "{e}"
    );
}

#[test]
fn bad_gzip_inside_a_directory_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "fine").unwrap();
    std::fs::write(dir.path().join("b.txt.gz"), "not gzip").unwrap();
    let mut r = open(dir.path(), &CorpusConfig::default()).unwrap();
    assert_eq!(r.next().unwrap().unwrap().text, "fine");
    let e = r.next().unwrap().unwrap_err().to_string();
    assert!(e.contains("b.txt.gz") && e.contains("gzip"), "{e}");
    assert!(r.next().is_none());
}

#[test]
fn unguessable_format_is_a_config_error() {
    let e = open(Path::new("corpus.xml"), &CorpusConfig::default()).unwrap_err();
    assert!(matches!(e, Error::Config(_)));
    assert!(e.to_string().contains("corpus.xml"), "{e}");
}

#[test]
fn skip_bad_lines_does_not_hide_structural_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = CorpusConfig {
        skip_bad_lines: true,
        ..CorpusConfig::default()
    };
    let p = dir.path().join("c.warc");
    std::fs::write(&p, "WARC/1.0\r\nContent-Length: 9\r\n\r\nab").unwrap();
    let e = open(&p, &cfg).unwrap().next().unwrap().unwrap_err();
    assert!(e.to_string().contains("truncated record"), "{e}");
    let p = dir.path().join("c.csv");
    std::fs::write(&p, "id,body\n1,x\n").unwrap();
    assert!(open(&p, &cfg).is_err());
}
