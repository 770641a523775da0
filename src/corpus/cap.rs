//! The cap on the number of documents (DocIds are 32-bit: at most 2^32 documents), checked
//! before any document is read where that costs little.
//!
//! An uncompressed JSONL or plain-lines file holds at most one document a line, and a line
//! takes at least one byte, so a file of at most 2^32 bytes is under the cap with no check;
//! a larger one has its line ends counted first (`memchr`, about the speed of reading the
//! file from the page cache), and only when that count passes the cap are its documents
//! counted as the reader counts them (blank JSONL lines and oversized lines are not
//! documents). A directory corpus counts its files when it opens. Other inputs (compressed,
//! CSV/TSV, WARC, Parquet, standard input) are refused when the reader reaches the
//! document past the cap, as the readers check on their own.
//!
//! Invariant: a corpus is refused here only if the reader would refuse it; the message is
//! the reader's own ([`super::reader::too_many_documents`]).

use std::io::Read;
use std::path::Path;

use super::{CorpusConfig, Format};
use crate::{Error, Result};

/// The most documents a corpus may hold.
pub(crate) const MAX_DOCUMENTS: u64 = 1 << 32;

/// Refuses an uncompressed line file at `path` holding more than [`MAX_DOCUMENTS`]
/// documents, before any of them is read (see the module docs for the files it looks at).
pub(crate) fn refuse_over_cap(path: &Path, cfg: &CorpusConfig) -> Result<()> {
    refuse_over(path, cfg, MAX_DOCUMENTS)
}

fn refuse_over(path: &Path, cfg: &CorpusConfig, cap: u64) -> Result<()> {
    if !matches!(cfg.format_of(path)?, Format::Jsonl | Format::Lines)
        || path == Path::new("-")
        || crate::io::Compression::of_path(path).is_compressed()
    {
        return Ok(());
    }
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(());
    };
    if !meta.is_file() || meta.len() <= cap {
        return Ok(());
    }
    if line_count(path)? <= cap {
        return Ok(());
    }
    let docs = super::split::count_range(path, cfg, 0, meta.len())?.docs;
    if docs > cap {
        return Err(super::reader::too_many_documents(path));
    }
    Ok(())
}

/// The lines of the file at `path`: its line ends, plus one for a last line without one.
fn line_count(path: &Path) -> Result<u64> {
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut buf = vec![0u8; 1 << 20];
    let (mut lines, mut last) = (0u64, b'\n');
    loop {
        let n = match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(path, e)),
        };
        lines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
        last = buf[n - 1];
    }
    Ok(lines + u64::from(last != b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(format: Format) -> CorpusConfig {
        CorpusConfig {
            format: Some(format),
            ..CorpusConfig::default()
        }
    }

    #[test]
    fn a_file_over_the_cap_is_refused_before_reading() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.jsonl");
        let line = |i: usize| format!("{{\"id\":\"{i}\",\"text\":\"t\"}}\n");
        let body: String = (0..5).map(line).collect();
        std::fs::write(&p, &body).unwrap();
        // Five documents: under a cap of 5, over a cap of 4 (the file is far larger than
        // either, so the lines are counted).
        assert!(refuse_over(&p, &cfg(Format::Jsonl), 5).is_ok());
        let e = refuse_over(&p, &cfg(Format::Jsonl), 4).unwrap_err();
        assert!(e.to_string().contains("c.jsonl"), "{e}");
        assert!(e.to_string().contains("32-bit"), "{e}");
    }

    #[test]
    fn blank_jsonl_lines_are_not_documents_but_blank_plain_lines_are() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.txt");
        std::fs::write(&p, "a\n\n\nb").unwrap();
        // Four lines (the last without a line end).
        assert_eq!(line_count(&p).unwrap(), 4);
        assert!(refuse_over(&p, &cfg(Format::Lines), 3).is_err());
        assert!(refuse_over(&p, &cfg(Format::Lines), 4).is_ok());
        let j = dir.path().join("c.jsonl");
        let doc = "{\"id\":\"1\",\"text\":\"t\"}\n";
        std::fs::write(&j, format!("{doc}\n\n\n{}", doc.replace('1', "2"))).unwrap();
        // Five lines, two documents: the lines pass a cap of 2, the documents do not.
        assert_eq!(line_count(&j).unwrap(), 5);
        assert!(refuse_over(&j, &cfg(Format::Jsonl), 2).is_ok());
        assert!(refuse_over(&j, &cfg(Format::Jsonl), 1).is_err());
    }

    #[test]
    fn small_files_and_other_formats_are_not_looked_at() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.csv");
        std::fs::write(&p, "id,text\n1,a\n2,b\n").unwrap();
        assert!(refuse_over(&p, &cfg(Format::Csv), 0).is_ok());
        let missing = dir.path().join("missing.jsonl");
        assert!(refuse_over(&missing, &cfg(Format::Jsonl), 0).is_ok());
    }
}
