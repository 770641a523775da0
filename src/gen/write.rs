//! Writing a generated corpus: `docs.jsonl`, `truth.csv` and `params.json`.
//!
//! Invariants: each file is written atomically, and its bytes depend only on the corpus; a
//! document's line is written by [`write_doc_line`] on every path (in memory, to a directory,
//! streamed).

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::{GenConfig, GeneratedCorpus, TRUTH_HEADER};
use crate::io::AtomicFile;
use crate::{Error, Result};

/// One line of `docs.jsonl`, the fields of [`super::GenDoc`] that are written, in its order.
#[derive(Serialize)]
struct DocLine<'a> {
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    family: Option<&'a str>,
    kind: &'a str,
    text: &'a str,
}

/// Writes one document's line of `docs.jsonl` (`path`, for errors) to `out`.
pub(super) fn write_doc_line(
    out: &mut impl Write,
    path: &Path,
    id: &str,
    family: Option<&str>,
    kind: &str,
    text: &str,
) -> Result<()> {
    let line = DocLine {
        id,
        family,
        kind,
        text,
    };
    serde_json::to_writer(&mut *out, &line).map_err(|e| Error::io(path, e.into()))?;
    out.write_all(b"\n").map_err(|e| Error::io(path, e))
}

/// Writes `dir/docs.jsonl` (`{"id","family"?,"kind","text"}` per line), `dir/truth.csv` and
/// `dir/params.json` (the config), each atomically.
pub fn write_corpus(dir: &Path, corpus: &GeneratedCorpus) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let p = dir.join("docs.jsonl");
    let mut f = AtomicFile::create(&p)?;
    for d in &corpus.docs {
        write_doc_line(&mut f, &p, &d.id, d.family.as_deref(), &d.kind, &d.text)?;
    }
    f.commit()?;
    let p = dir.join("truth.csv");
    let mut f = AtomicFile::create(&p)?;
    let mut buf = String::with_capacity(corpus.truth.len() * 64 + 80);
    buf.push_str(TRUTH_HEADER);
    buf.push('\n');
    for r in &corpus.truth {
        use std::fmt::Write as _;
        let _ = writeln!(
            buf,
            "{},{},{:.6},{:.6},{:.6},{:.6},{}",
            r.a, r.b, r.resemblance, r.containment_ab, r.containment_ba, r.edit_similarity, r.kind
        );
    }
    f.write_all(buf.as_bytes()).map_err(|e| Error::io(&p, e))?;
    f.commit()?;
    write_params(dir, &corpus.config)
}

/// Writes `dir/params.json` (the config, pretty-printed) atomically.
pub(super) fn write_params(dir: &Path, cfg: &GenConfig) -> Result<()> {
    let p = dir.join("params.json");
    let mut s = serde_json::to_string_pretty(cfg).map_err(|e| Error::io(&p, e.into()))?;
    s.push('\n');
    crate::io::write_atomic(&p, s.as_bytes())
}
