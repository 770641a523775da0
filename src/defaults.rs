//! The default of every option an entry point takes, gathered from the library's own
//! `Default` impls into one JSON object: what the Python package's signatures are built
//! from (`fimdup._fimdup.defaults()`) and what the command's flags are checked against.
//!
//! Groups and their source:
//! `corpus` ([`CorpusConfig`]), `pipeline` ([`PipelineOptions`]), `job` ([`JobOptions`]),
//! `dedup` ([`DedupOptions`]), `truth` ([`TruthFormat`], no rule), `eval` ([`EvalOptions`]),
//! `method` (every method's own options, from their declarations; `method_catalogue` lists
//! each with its methods, type, range and help), `sweep` ([`SweepOptions`]), `index` ([`IndexConfig`]), `query` ([`QueryOptions`]),
//! `context` ([`ContextConfig`], [`Orientation`]), `mine` ([`Target`], no cap) and `overlap`
//! ([`OverlapConfig`]).
//!
//! Invariant: every value is read from a `Default` impl (nothing is stated here), keyed by
//! the name the command's flag and the Python keyword use (`sample_seed`, `lsh`, `target`,
//! `truth_format`); enumerations are written by the names the command takes.

use serde_json::{json, Value};

use crate::cluster::JobOptions;
use crate::context::{ContextConfig, Orientation};
use crate::corpus::CorpusConfig;
use crate::dedup::DedupOptions;
use crate::eval::{EvalOptions, TruthFormat};
use crate::index::overlap::OverlapConfig;
use crate::index::{Candidates, IndexConfig, QueryOptions};
use crate::mine::Target;
use crate::report::SweepOptions;
use crate::sketch::PipelineOptions;

/// Every group of defaults (see the module docs).
pub fn defaults() -> Value {
    let corpus = CorpusConfig::default();
    let query = QueryOptions::default();
    let context = ContextConfig::default();
    let overlap = OverlapConfig::default();
    json!({
        "corpus": {
            "format": corpus.format.map(|f| f.name()),
            "text_field": corpus.text_field,
            "id_field": corpus.id_field,
            "text_column": corpus.text_column,
            "id_column": corpus.id_column,
            "skip_bad_lines": corpus.skip_bad_lines,
            "duplicate_ids": corpus.duplicate_ids.name(),
            "max_doc_bytes": corpus.max_doc_bytes,
        },
        "pipeline": PipelineOptions::default(),
        "job": JobOptions::default(),
        "method": crate::cluster::declared::all_options()
            .into_iter()
            .map(|(d, _)| (d.name.to_string(), d.default_json()))
            .collect::<serde_json::Map<String, Value>>(),
        "method_catalogue": crate::cluster::declared::catalogue(),
        "dedup": DedupOptions::default(),
        "truth": {
            "truth_format": TruthFormat::default().name(),
            "truth_rule": Value::Null,
        },
        "eval": EvalOptions::default(),
        "sweep": SweepOptions::default(),
        "index": IndexConfig::default(),
        "query": {
            "threshold": query.threshold,
            "measure": query.measure.name(),
            "top": query.top,
            "lsh": query.candidates == Candidates::Lsh,
            "exact": query.exact,
        },
        "context": {
            "min_df": context.min_df,
            "max_df": context.max_df,
            "orientation": Orientation::default(),
        },
        "mine": {
            "target": Target::default().as_str(),
            "max_itemsets": Value::Null,
        },
        "overlap": {
            "sample": overlap.sample,
            "threshold": overlap.threshold,
            "sample_seed": overlap.seed,
            "confidence": overlap.confidence,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_options_read_back_their_own_defaults() {
        let d = defaults();
        let back = |group: &str| d[group].clone();
        assert_eq!(
            serde_json::from_value::<PipelineOptions>(back("pipeline")).unwrap(),
            PipelineOptions::default()
        );
        assert_eq!(
            serde_json::from_value::<JobOptions>(back("job")).unwrap(),
            JobOptions::default()
        );
        assert_eq!(
            serde_json::from_value::<DedupOptions>(back("dedup")).unwrap(),
            DedupOptions::default()
        );
        assert_eq!(
            serde_json::from_value::<EvalOptions>(back("eval")).unwrap(),
            EvalOptions::default()
        );
        assert_eq!(
            serde_json::from_value::<SweepOptions>(back("sweep")).unwrap(),
            SweepOptions::default()
        );
        // names the command takes, parsed back
        assert_eq!(
            d["corpus"]["duplicate_ids"]
                .as_str()
                .unwrap()
                .parse::<crate::corpus::DuplicateIds>()
                .unwrap(),
            CorpusConfig::default().duplicate_ids
        );
        assert_eq!(
            d["truth"]["truth_format"]
                .as_str()
                .unwrap()
                .parse::<TruthFormat>()
                .unwrap(),
            TruthFormat::default()
        );
        assert_eq!(
            d["mine"]["target"]
                .as_str()
                .unwrap()
                .parse::<Target>()
                .unwrap(),
            Target::default()
        );
        assert_eq!(
            d["query"]["measure"]
                .as_str()
                .unwrap()
                .parse::<crate::cluster::Measure>()
                .unwrap(),
            QueryOptions::default().measure
        );
    }
}
