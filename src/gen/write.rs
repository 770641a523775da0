//! Writing a generated corpus: `docs.jsonl`, `truth.csv` and `params.json`.
//!
//! Invariant: each file is written atomically, and its bytes depend only on the corpus.

use std::io::Write;
use std::path::Path;

use super::{GenConfig, GeneratedCorpus};
use crate::io::AtomicFile;
use crate::{Error, Result};

/// Header of `truth.csv`.
pub const TRUTH_HEADER: &str = "a,b,resemblance,containment_ab,containment_ba,edit_similarity,kind";

/// Writes `dir/docs.jsonl` (`{"id","family"?,"kind","text"}` per line), `dir/truth.csv` and
/// `dir/params.json` (the config), each atomically.
pub fn write_corpus(dir: &Path, corpus: &GeneratedCorpus) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let p = dir.join("docs.jsonl");
    let mut f = AtomicFile::create(&p)?;
    for d in &corpus.docs {
        serde_json::to_writer(&mut f, d).map_err(|e| Error::io(&p, e.into()))?;
        f.write_all(b"\n").map_err(|e| Error::io(&p, e))?;
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
