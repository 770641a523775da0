//! Plain-line corpora (the sequential and the parallel reader must agree) and the id table
//! (`OUTPUT.ids.tsv`), a line format too.
#![no_main]

use fimdup::corpus::{read_id_table, CorpusConfig, Format};
use fimdup_fuzz::{read_both, write_input};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = write_input("in.txt", data);
    let cfg = CorpusConfig {
        format: Some(Format::Lines),
        ..CorpusConfig::default()
    };
    if let Ok((docs, stats)) = read_both(&path, &cfg) {
        assert_eq!(docs.len() as u64, stats.documents);
    }
    let path = write_input("in.ids.tsv", data);
    if let Ok(rows) = read_id_table(&path) {
        // What the writer writes, the reader reads back.
        let out = fimdup_fuzz::scratch().join("out.ids.tsv");
        fimdup::corpus::write_id_table(&out, &rows).expect("write id table");
        assert_eq!(read_id_table(&out).expect("read back"), rows);
    }
});
