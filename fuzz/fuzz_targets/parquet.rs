//! Parquet corpora: the bytes as a `.parquet` file, read with the default columns, with
//! row-number ids, with a struct field as the id and skipping bad rows (the sequential and
//! the parallel reader must agree), and through the kept-row writer (every row kept; the
//! output must read back with the same documents). A panic of the Parquet decoder that the
//! reader guards is its error, not a crash; any other panic is.
#![no_main]

use fimdup::corpus::parquet::write_kept_parquet;
use fimdup::corpus::{CorpusConfig, Format};
use fimdup_fuzz::{
    let_caught_decoder_panics_unwind, read_both, read_sequential, scratch, write_input,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let_caught_decoder_panics_unwind();
    let path = write_input("in.parquet", data);
    let base = CorpusConfig {
        format: Some(Format::Parquet),
        ..CorpusConfig::default()
    };
    let got = read_both(&path, &base);
    let _ = read_both(
        &path,
        &CorpusConfig {
            id_column: String::new(),
            ..base.clone()
        },
    );
    let _ = read_sequential(
        &path,
        &CorpusConfig {
            id_column: "meta.url".into(),
            skip_bad_lines: true,
            ..base.clone()
        },
    );
    if let Ok((docs, _)) = got {
        let out = scratch().join("kept.parquet");
        if let Ok(n) = write_kept_parquet(&path, &base, &|_| true, &out) {
            assert_eq!(n, docs.len() as u64, "every document kept");
            let (again, _) = read_sequential(&out, &base).expect("the kept rows read back");
            assert_eq!(again, docs, "the kept rows are the documents");
        }
    }
});
