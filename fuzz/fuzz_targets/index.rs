//! Index directories: one file of a small valid index (`CURRENT`, the generation's
//! `manifest.json` and `state.bin`, a segment's `images.bin`, `context.bin`, `docs.bin`,
//! `bands.bin`, `containment.bin`, `containment-context.bin`) replaced by the input, the
//! checksums that guard it forged to match. The first byte picks the base index and the file ([`fimdup_fuzz::index_slot`]).
//! An index that opens is used as `index query` and `index add` use it.
#![no_main]

use fimdup::index::{Candidates, CorpusSpec, Index, Measure, NewDoc, QueryOptions};
use fimdup_fuzz::{base_texts, index_slot, scratch, write_damaged_index};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let (which, name) = index_slot(selector);
    let dir = scratch().join("index");
    write_damaged_index(&dir, which, name, rest);
    let Ok(mut idx) = Index::open(&dir) else {
        return;
    };
    let _ = idx.clusters();
    for d in 0..idx.len().min(64) {
        let _ = idx.ext_id(fimdup::DocId(d as u32));
        let _ = idx.first_seen(fimdup::DocId(d as u32));
        let _ = idx.last_seen(fimdup::DocId(d as u32));
    }
    let Ok(qs) = idx.query_sketcher() else {
        return;
    };
    let texts = base_texts();
    for text in texts.iter().step_by(3) {
        let (_, q, qc) = qs.sketch_text(text);
        for (measure, candidates) in [
            (Measure::Resemblance, Candidates::Context),
            (Measure::Resemblance, Candidates::Lsh),
            (Measure::Containment, Candidates::Context),
        ] {
            let opts = QueryOptions {
                threshold: 0.3,
                measure,
                top: Some(5),
                candidates,
                exact: false,
            };
            let _ = idx.query_image(&q, qc.as_ref(), &opts);
        }
    }
    let docs: Vec<NewDoc> = texts
        .iter()
        .take(4)
        .enumerate()
        .map(|(i, t)| {
            let (_, image, containment) = qs.sketch_text(&format!("{t} fuzz"));
            NewDoc {
                ext_id: format!("doc{}", i * 5),
                image,
                containment,
            }
        })
        .collect();
    let _ = idx.add_documents(docs, Some("fuzz-sweep"), "f.jsonl", CorpusSpec::default());
    let _ = idx.remove(&["doc3".to_string()]);
    let _ = idx.merge_all();
});
