//! JSONL corpora: the sequential and the parallel reader (which must agree) with the default
//! fields and with line numbers as ids; the sequential one skipping bad lines (the parallel
//! reader hands that case to it).
#![no_main]

use fimdup::corpus::{CorpusConfig, Format};
use fimdup_fuzz::{read_both, read_sequential, write_input};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = write_input("in.jsonl", data);
    let base = CorpusConfig {
        format: Some(Format::Jsonl),
        ..CorpusConfig::default()
    };
    let _ = read_both(&path, &base);
    let _ = read_both(
        &path,
        &CorpusConfig {
            id_field: String::new(),
            ..base.clone()
        },
    );
    let _ = read_sequential(
        &path,
        &CorpusConfig {
            skip_bad_lines: true,
            ..base
        },
    );
});
