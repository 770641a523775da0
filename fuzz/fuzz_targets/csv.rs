//! CSV and TSV corpora (the same bytes read as both), with the default columns (the
//! sequential and the parallel reader must agree), and with line numbers as ids while
//! skipping bad rows.
#![no_main]

use fimdup::corpus::{CorpusConfig, Format};
use fimdup_fuzz::{read_both, read_sequential, write_input};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for (name, format) in [("in.csv", Format::Csv), ("in.tsv", Format::Tsv)] {
        let path = write_input(name, data);
        let base = CorpusConfig {
            format: Some(format),
            ..CorpusConfig::default()
        };
        let _ = read_both(&path, &base);
        let _ = read_sequential(
            &path,
            &CorpusConfig {
                id_column: String::new(),
                skip_bad_lines: true,
                ..base
            },
        );
    }
});
