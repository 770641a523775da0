//! The integration tests, one binary: each file a module (`cargo test --release --test it`;
//! one module: `cargo test --release --test it -- MODULE::`). Helpers are in `common`.
//!
//! The README's command builds them with every feature (`--features full`). A build without
//! one still runs everything else: a test that needs the feature is ignored with the
//! reason `needs the `FEATURE` feature`, and a module that cannot be built without it is
//! replaced by one such ignored test (below), so the run lists what it left out.

mod common;

mod bootstrap_ci;
mod budget_rss;
mod cli_canonical_text;
mod cli_cluster;
mod cli_foundation;
mod clough_cv;
mod clough_real;
mod cluster_concept_miner;
mod containment_cli;
mod corpus_hostile;
mod corpus_malformed;
mod corpus_par;
#[cfg(feature = "parquet")]
mod corpus_parquet;
#[cfg(not(feature = "parquet"))]
mod corpus_parquet {
    #[test]
    #[ignore = "needs the `parquet` feature"]
    fn left_out() {}
}
mod corpus_readers;
#[cfg(feature = "parquet")]
mod corpus_texts;
#[cfg(not(feature = "parquet"))]
mod corpus_texts {
    #[test]
    #[ignore = "needs the `parquet` feature"]
    fn left_out() {}
}
mod dedup;
#[cfg(feature = "distributed")]
mod distributed;
#[cfg(not(feature = "distributed"))]
mod distributed {
    #[test]
    #[ignore = "needs the `distributed` feature"]
    fn left_out() {}
}
mod duplicate_ids;
#[cfg(feature = "distributed")]
mod launch;
#[cfg(not(feature = "distributed"))]
mod launch {
    #[test]
    #[ignore = "needs the `distributed` feature"]
    fn left_out() {}
}
mod error_analysis;
mod eval_cli;
mod eval_metrics;
mod explain;
mod fuzz_regressions;
mod gen_corpus;
mod index_acceptance;
mod index_budget;
mod index_cli;
mod index_corrupt;
mod index_crash;
mod index_overlap;
mod job_paths;
mod mine_cli;
mod mine_props;
mod mine_reference;
mod partitions;
mod python_package;
mod readme_figures;
#[cfg(all(feature = "object-store", feature = "distributed"))]
mod remote;
#[cfg(not(all(feature = "object-store", feature = "distributed")))]
mod remote {
    #[test]
    #[ignore = "needs the `object-store` and `distributed` features"]
    fn left_out() {}
}
mod report_files;
mod s_curve;
mod scale_cli;
mod scale_images;
#[cfg(feature = "distributed")]
mod shards;
#[cfg(not(feature = "distributed"))]
mod shards {
    #[test]
    #[ignore = "needs the `distributed` feature"]
    fn left_out() {}
}
mod short_documents;
mod simhash;
mod sketch_file;
mod sketch_pipeline;
mod sketch_props;
mod sketch_seed;
mod sweep_report;
mod text_canonical;
mod text_fast_path;
mod text_tokenizers;
mod tokenizer_exact;
mod truth_formats;
mod truth_tokenizer;
mod tsv_pandas;
