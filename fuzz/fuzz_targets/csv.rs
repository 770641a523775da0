//! CSV and TSV corpora (the same bytes read as both), with the default columns, with line
//! numbers as ids, and skipping bad rows; the sequential and the parallel reader must agree.
#![no_main]

use fimdup::corpus::{CorpusConfig, Format};
use fimdup_fuzz::{read_both, write_input};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for (name, format) in [("in.csv", Format::Csv), ("in.tsv", Format::Tsv)] {
        let path = write_input(name, data);
        let base = CorpusConfig {
            format: Some(format),
            ..CorpusConfig::default()
        };
        let _ = read_both(&path, &base);
        let _ = read_both(
            &path,
            &CorpusConfig {
                id_column: String::new(),
                skip_bad_lines: true,
                ..base
            },
        );
    }
});
