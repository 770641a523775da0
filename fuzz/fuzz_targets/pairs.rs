//! Evaluation inputs: the same bytes as a truth table (CSV and TSV), as a cluster truth
//! (JSON lines and CSV), as a PAN XML file in a truth directory, as predicted `pairs.csv`,
//! as an external scored pairs file and as `clusters.jsonl`, each read whole and turned into
//! pair sets; and as a truth rule and a threshold list (the strings `eval` and `sweep` take).
#![no_main]

use fimdup::eval::{
    parse_thresholds, External, Prediction, TruthFormat, TruthRule, TruthTable, ROMIP_RULE,
};
use fimdup_fuzz::write_input;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = write_input("truth.csv", data);
    if let Ok(t) = TruthTable::read(&path) {
        let _ = t.columns();
        let _ = t.listed().as_pairs().map(|l| l.sorted_pairs());
        let _ = t.labels(None).map(|l| l.sorted_pairs());
        for rule in [ROMIP_RULE, "resemblance>=0.5"] {
            let rule = TruthRule::parse(rule).expect("rule");
            let _ = t.labels(Some(&rule)).map(|l| l.sorted_pairs());
        }
        let _ = t.resemblance("a", "b");
    }
    let pan = fimdup_fuzz::scratch().join("pan");
    std::fs::create_dir_all(&pan).expect("pan directory");
    let inputs = [
        (write_input("truth.tsv", data), TruthFormat::Pairs),
        (
            write_input("truth-clusters.jsonl", data),
            TruthFormat::Clusters,
        ),
        (
            write_input("truth-clusters.csv", data),
            TruthFormat::Clusters,
        ),
        (write_input("pan/doc.xml", data), TruthFormat::Pan),
    ];
    for (path, format) in inputs {
        let path = if format == TruthFormat::Pan {
            pan.clone()
        } else {
            path
        };
        if let Ok(t) = TruthTable::read_as(&path, format) {
            let l = t.listed();
            let _ = (l.len(), l.contains("a", "b"));
            let _ = t.labels(None).map(|l| l.sorted_pairs());
        }
    }
    if let Ok(e) = External::read("tool", &write_input("external.csv", data)) {
        let _ = e.at(0.5).sorted_pairs();
        let _ = e.pairs_with_scores().count();
    }
    let path = write_input("pairs.csv", data);
    if let Ok(p) = Prediction::read_pairs_csv(&path) {
        let _ = p.sorted_pairs();
    }
    let path = write_input("clusters.jsonl", data);
    if let Ok(p) = Prediction::read_clusters_jsonl(&path) {
        let _ = p.sorted_pairs();
        if let Some(cs) = p.clusters() {
            for c in cs {
                let _ = p.cluster_members(c).count();
            }
        }
    }
    let s = String::from_utf8_lossy(data);
    let _ = TruthRule::parse(&s);
    let _ = parse_thresholds(&s);
});
