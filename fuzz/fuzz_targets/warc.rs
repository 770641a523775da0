//! WARC corpora. The first byte picks how the rest reaches the reader: 0 a plain `.warc`,
//! 1 gzip-compressed by the target (a valid `.warc.gz`), 2 as it is under a `.warc.gz` name
//! (damaged gzip). The record reader and the HTTP payload extraction are run directly too.
#![no_main]

use std::io::Write;
use std::path::Path;

use fimdup::corpus::warc::{http_body, WarcReader};
use fimdup::corpus::{CorpusConfig, Format};
use fimdup_fuzz::{read_sequential, write_input};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let cfg = CorpusConfig {
        format: Some(Format::Warc),
        ..CorpusConfig::default()
    };
    let path = match mode % 3 {
        0 => write_input("in.warc", rest),
        1 => {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(rest).expect("compress");
            write_input("in.warc.gz", &gz.finish().expect("compress"))
        }
        _ => write_input("in.warc.gz", rest),
    };
    let _ = read_sequential(&path, &cfg);
    let mut r = WarcReader::new(
        Box::new(std::io::Cursor::new(rest.to_vec())),
        Path::new("in.warc"),
    );
    while let Ok(Some(rec)) = r.next_record() {
        let _ = rec.header("WARC-Type");
        let _ = http_body(&rec.block);
    }
});
