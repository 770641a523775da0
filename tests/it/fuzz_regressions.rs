//! Inputs the fuzz targets (`fuzz/`) found crashing a parser, kept as regression tests: each
//! must now give a clean error naming the file and what was expected (the exact error kind
//! and message are asserted), within bounded memory.

use fimdup::sketch::{ImageReader, ImageSet};
use fimdup::Error;

/// The header of a streamed (version 3) images file: bottom-k, size 8, word 3-shingles,
/// the whole corpus (shard 0/1).
fn images_v3_header() -> Vec<u8> {
    let mut b = b"FIMDUPIM".to_vec();
    b.extend_from_slice(&3u32.to_le_bytes());
    b.extend_from_slice(&[0, 2, 0]); // unit word, lowercase, no stop words
    b.extend_from_slice(&[3, 1]); // shingle length 3, offset 1
    b.extend_from_slice(&0u64.to_le_bytes()); // shingle seed
    b.extend_from_slice(&[0, 8, 4]); // bottom-k, size 8, modulus 4
    b.extend_from_slice(&0u64.to_le_bytes()); // seed
    b.extend_from_slice(&[0, 0]); // no weighting, no weight table
    b.extend_from_slice(&[0, 1]); // shard 0/1
    b
}

/// A record whose external id claims almost 4 GiB in a file of a few bytes made the
/// streamed reader allocate the claimed length before reading (found by the `images`
/// target: malloc of 2.9 GB). It is a truncation error, and memory stays bounded by the file.
#[test]
fn images_stream_length_beyond_the_file_is_a_truncation_error() {
    let mut b = images_v3_header();
    b.push(1); // a document record
    b.extend_from_slice(&[0xf0, 0xff, 0xff, 0xff, 0x0f]); // id length 4294967280
    b.extend_from_slice(b"abc");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge-id.img");
    std::fs::write(&path, &b).unwrap();
    let at = images_v3_header().len() + 6;
    let want = format!(
        "{}: at byte {at}: truncated reading external id (4294967280 bytes expected, 3 left)",
        path.display()
    );

    let mut r = ImageReader::open(&path).unwrap();
    let e = r.next_doc().unwrap_err();
    assert!(matches!(e, Error::Format { .. }), "{e:?}");
    assert_eq!(e.to_string(), want);

    let e = ImageSet::from_bytes(&b, &path).unwrap_err();
    assert!(matches!(e, Error::Format { .. }), "{e:?}");
    assert_eq!(e.to_string(), want);
}

/// A plain-lines file holding only a UTF-8 byte order mark (no line end) gave one empty
/// document with the sequential reader and none with the parallel one (found by the `lines`
/// target, which checks that both agree). Such a file is empty: no document either way.
#[test]
fn lines_file_of_only_a_byte_order_mark_is_empty_for_both_readers() {
    use fimdup::corpus::par::{read_all_par_opts, ParOptions};
    use fimdup::corpus::{open, CorpusConfig, Format};
    let dir = tempfile::tempdir().unwrap();
    for (name, format, bytes) in [
        ("bom.txt", Format::Lines, &b"\xEF\xBB\xBF"[..]),
        ("bom.jsonl", Format::Jsonl, &b"\xEF\xBB\xBF"[..]),
        ("bom-nl.txt", Format::Lines, &b"\xEF\xBB\xBF\n"[..]),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let cfg = CorpusConfig {
            format: Some(format),
            ..CorpusConfig::default()
        };
        let seq = open(&path, &cfg).unwrap().read_all().unwrap();
        let (par, stats) = read_all_par_opts(&path, &cfg, &ParOptions::default()).unwrap();
        assert_eq!(seq, par, "{name}");
        // With a line end after the mark there is one (empty) line.
        let want = usize::from(name == "bom-nl.txt");
        assert_eq!(seq.len(), want, "{name}");
        assert_eq!(stats.documents, want as u64, "{name}");
    }
}

/// The error of reading the Parquet file `bytes`, written as `name` in `dir`, with the
/// default columns, and the file's path.
fn read_parquet(dir: &std::path::Path, name: &str, bytes: &[u8]) -> (std::path::PathBuf, Error) {
    use fimdup::corpus::{open, CorpusConfig, Format};
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let cfg = CorpusConfig {
        format: Some(Format::Parquet),
        ..CorpusConfig::default()
    };
    let e = open(&path, &cfg).and_then(|r| r.read_all()).unwrap_err();
    (path, e)
}

/// A footer declaring a column chunk at a negative offset made the Parquet decoder assert
/// (found by the `parquet` target). It is a format error naming the file and the chunk.
#[test]
#[cfg_attr(not(feature = "parquet"), ignore = "needs the `parquet` feature")]
fn parquet_chunk_outside_the_file_is_a_format_error() {
    let bytes = include_bytes!("../../fuzz/seeds/parquet/crash-negative-offset.parquet");
    let dir = tempfile::tempdir().unwrap();
    let (path, e) = read_parquet(dir.path(), "neg.parquet", bytes);
    assert!(matches!(e, Error::Format { .. }), "{e}");
    let msg = e.to_string();
    assert!(
        msg.starts_with(&format!("{}: row group ", path.display()))
            && msg.contains("expected a column chunk within the file"),
        "{msg}"
    );
}

/// A column chunk whose data page is dictionary-encoded with no dictionary page before it
/// made the Parquet decoder panic ("Decoder for dict should have been set"; found by the
/// `parquet` target). The reader's guard turns the panic into an error naming the file, and the binary prints that error alone: no panic message, exit 2, nothing written.
#[test]
#[cfg_attr(not(feature = "parquet"), ignore = "needs the `parquet` feature")]
fn parquet_decoder_panic_is_an_error_and_is_not_printed() {
    let bytes = include_bytes!("../../fuzz/seeds/parquet/crash-dict-unset.parquet");
    let dir = tempfile::tempdir().unwrap();
    let (path, e) = read_parquet(dir.path(), "dict.parquet", bytes);
    let msg = e.to_string();
    assert!(
        msg.starts_with(&path.display().to_string())
            && msg.contains("the Parquet decoder failed (Decoder for dict should have been set)")
            && msg.contains("expected valid Parquet data"),
        "{msg}"
    );
    assert!(!fimdup::corpus::parquet::decoder_panic_is_caught());

    let out = dir.path().join("out");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_fimdup"))
        .arg("cluster")
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("the Parquet decoder failed"), "{err}");
    assert!(!out.exists());
}
