//! Writing a deduplication's outputs: the kept records (the second read of the input),
//! `removed.csv`.
//!
//! Invariants: every output is written through [`AtomicFile`] (complete or absent; the kept
//! files of a directory appear together by one rename); kept records come out in input
//! order, as the input wrote them (see [`crate::corpus::CorpusReader::record`]), in the
//! input's compression; the second read must number the same documents as the first, or
//! nothing is written.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::select::{Reason, Removal, Representative, ScoreKind};
use super::OutFormat;
use crate::cluster::Cluster;
use crate::corpus::{self, CorpusConfig, Format};
use crate::io::{AtomicFile, Compression};
use crate::{DocId, Error, Result};

/// What was written of the kept documents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kept {
    /// The file (or directory) name in the output directory.
    pub name: String,
    /// Documents written.
    pub documents: u64,
}

/// The file name extension of a line format.
fn line_ext(format: Format) -> &'static str {
    match format {
        Format::Jsonl => "jsonl",
        Format::Lines => "txt",
        Format::Csv => "csv",
        Format::Tsv => "tsv",
        Format::Warc => "warc",
        Format::Parquet => "parquet",
        Format::Dir => "",
        // In-memory texts: their records are JSON lines.
        Format::Texts => "jsonl",
    }
}

/// Writes the documents `kept` holds (`kept[d]` for DocId `d`) of the corpus at `path` into
/// `dir`, as `out` says; `n` documents were read by the first pass.
pub fn write_kept(
    path: &Path,
    cfg: &CorpusConfig,
    out: OutFormat,
    kept: &[bool],
    dir: &Path,
) -> Result<Kept> {
    let format = cfg.format_of(path)?;
    let comp = kept_compression(path);
    if comp.is_compressed() && kept_by_lines(format, cfg, out) {
        return write_kept_frames(path, cfg, format, comp, kept, dir);
    }
    match (format, out) {
        (Format::Dir, OutFormat::Same) => copy_dir(path, cfg, kept, dir),
        (Format::Parquet, _) => {
            let keep = |d: DocId| kept.get(d.index()).copied().unwrap_or(false);
            let (name, n) = if out == OutFormat::Jsonl {
                let name = "kept.jsonl".to_string();
                let n = corpus::parquet::write_kept_jsonl(path, cfg, &keep, &dir.join(&name))?;
                (name, n)
            } else {
                let name = "kept.parquet".to_string();
                let n = corpus::parquet::write_kept_parquet(path, cfg, &keep, &dir.join(&name))?;
                (name, n)
            };
            Ok(Kept { name, documents: n })
        }
        (_, OutFormat::Parquet) => {
            // The kept records as JSONL (a JSONL input's own lines, in-memory texts' records,
            // else id and text), then converted with the schema inferred from them.
            let tmp = crate::io::ScratchFile::new_in(dir, ".fimdup-kept-", ".jsonl")?;
            let jsonl = matches!(format, Format::Jsonl | Format::Texts);
            write_records(path, cfg, kept, tmp.path(), Compression::None, false, jsonl)?;
            let name = "kept.parquet".to_string();
            let documents = corpus::parquet::jsonl_to_parquet(tmp.path(), &dir.join(&name))?;
            Ok(Kept { name, documents })
        }
        (Format::Jsonl | Format::Texts, OutFormat::Jsonl) | (_, OutFormat::Same) => {
            let name = kept_name(format, comp);
            let per_record = format == Format::Warc && comp == Compression::Gzip;
            let n = write_records(path, cfg, kept, &dir.join(&name), comp, per_record, true)?;
            Ok(Kept { name, documents: n })
        }
        (_, OutFormat::Jsonl) => {
            let name = format!("kept.jsonl{}", comp.extension());
            let n = write_records(path, cfg, kept, &dir.join(&name), comp, false, false)?;
            Ok(Kept { name, documents: n })
        }
    }
}

/// True when the kept records of a corpus in `format` read with `cfg` are the input's own
/// lines, read line by line (JSONL, or plain lines kept as lines), so that a compressed
/// corpus's are written a frame per file ([`write_kept`]) and a divided run writes
/// them by pieces ([`write_kept_part`]).
pub fn kept_by_lines(format: Format, cfg: &CorpusConfig, out: OutFormat) -> bool {
    corpus::split::read_by_lines(format, cfg)
        && matches!(
            (format, out),
            (Format::Jsonl, OutFormat::Same | OutFormat::Jsonl) | (Format::Lines, OutFormat::Same)
        )
}

/// The compression of the kept records of the corpus at `path`: its own (a pattern's, by
/// its extension; none for standard input or a directory).
pub fn kept_compression(path: &Path) -> Compression {
    if path == Path::new("-") {
        Compression::None
    } else {
        Compression::of_path(path)
    }
}

/// The name of the kept records of a corpus in `format` as they are written, compressed by
/// `comp`: `kept.jsonl`, `kept.jsonl.zst`, `kept.warc.gz`, ...
fn kept_name(format: Format, comp: Compression) -> String {
    format!("kept.{}{}", line_ext(format), comp.extension())
}

/// The name of part `part` of the kept records of a corpus in `format` divided by pieces,
/// compressed by `comp`, written as `out` says: `kept.part-00000.jsonl`,
/// `kept.part-00000.jsonl.zst`, ..., and for a Parquet corpus `kept.part-00000.parquet` (or
/// `.jsonl` with [`OutFormat::Jsonl`]). The parts in order are the one-process kept file
/// (a Parquet corpus's: its rows, in its row groups).
pub fn part_name(format: Format, out: OutFormat, comp: Compression, part: usize) -> String {
    let ext = match (format, out) {
        (Format::Parquet, OutFormat::Jsonl) => "jsonl",
        _ => line_ext(format),
    };
    format!("kept.part-{part:05}.{ext}{}", comp.extension())
}

/// A process's part of a divided run's kept records.
pub struct KeptPart<'a> {
    /// The corpus (a file, directory or pattern), named by errors.
    pub input: &'a Path,
    /// The corpus's first file: a Parquet part's columns and codec are its own, as the
    /// one-process file's are.
    pub first_file: &'a Path,
    /// The process's pieces in corpus order: a file of the corpus and its range (a byte
    /// range at line starts, or that the row groups of a Parquet file start in), with its
    /// first DocId.
    pub pieces: &'a [(&'a Path, corpus::split::LineRange)],
    /// The part's number (the process's).
    pub part: usize,
}

/// Writes a process's part of the kept records into `dir` ([`part_name`]): the records of
/// the documents of its pieces that are not in `removed` (sorted DocIds), in input order.
/// A line-format corpus's (in `format`: JSONL or lines, one file or shards) as the input
/// wrote them, compressed by `comp` as one frame (zstd) or member (gzip) per piece; the
/// parts of pieces that cover the corpus, concatenated in order, are the kept file
/// [`write_kept`] writes for the same removals: uncompressed for an uncompressed file or a
/// directory of shards; for compressed files (read whole, so one piece a file) a frame per
/// file, as [`write_kept`] writes them. A Parquet corpus's kept rows as Parquet (the
/// parts' rows in order are the one-process file's, in the same row groups) or, with
/// [`OutFormat::Jsonl`], as JSONL (the parts concatenated are the one-process file).
pub fn write_kept_part(
    of: &KeptPart<'_>,
    cfg: &CorpusConfig,
    format: Format,
    out: OutFormat,
    comp: Compression,
    removed: &[u32],
    dir: &Path,
) -> Result<Kept> {
    let name = part_name(format, out, comp, of.part);
    let dest = dir.join(&name);
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let keep = |d: DocId| removed.binary_search(&d.0).is_err();
    if format == Format::Parquet {
        let (first, jsonl) = (of.first_file, out == OutFormat::Jsonl);
        let documents =
            corpus::parquet::write_kept_part(of.input, first, of.pieces, jsonl, cfg, &keep, &dest)?;
        return Ok(Kept { name, documents });
    }
    let mut file = AtomicFile::create(&dest)?;
    let mut documents = 0u64;
    for &(path, r) in of.pieces {
        file = write_piece(file, &dest, path, cfg, r, comp, &keep, &mut documents)?.0;
    }
    file.commit()?;
    Ok(Kept { name, documents })
}

/// Appends to `file` (the output `dest`) the records of the documents of `range` of the
/// corpus file `path` that `keep` holds, compressed by `comp` as one frame or member
/// (which a piece with no kept record still writes, as the one-process file does); counts
/// them in `documents` and returns `file` with the DocId after the range's last document.
#[allow(clippy::too_many_arguments)]
fn write_piece(
    file: AtomicFile,
    dest: &Path,
    path: &Path,
    cfg: &CorpusConfig,
    range: corpus::split::LineRange,
    comp: Compression,
    keep: &dyn Fn(DocId) -> bool,
    documents: &mut u64,
) -> Result<(AtomicFile, u64)> {
    let io = |e: std::io::Error| Error::io(dest, e);
    let mut w = comp.writer(file).map_err(io)?;
    let mut next = range.first_doc;
    corpus::split::for_each_record(path, cfg, range, |d, rec| {
        next = u64::from(d.0) + 1;
        if keep(d) {
            w.write_all(rec).map_err(io)?;
            *documents += 1;
        }
        Ok(())
    })?;
    Ok((w.finish().map_err(io)?, next))
}

/// The kept records of a compressed line-format corpus (JSONL or lines read line by line:
/// one file, or a pattern of compressed shards) as the input wrote them, one compressed
/// frame (zstd) or member (gzip) per file of the corpus, in `comp`: the file a divided run's
/// parts make when concatenated, as each of its pieces of a compressed corpus is a whole
/// file ([`write_kept_part`]).
fn write_kept_frames(
    path: &Path,
    cfg: &CorpusConfig,
    format: Format,
    comp: Compression,
    kept: &[bool],
    dir: &Path,
) -> Result<Kept> {
    let files: Vec<PathBuf> = match corpus::shards::list(path, cfg)? {
        Some(shards) => shards.into_iter().map(|s| s.path).collect(),
        None => vec![path.to_path_buf()],
    };
    let name = kept_name(format, comp);
    let dest = dir.join(&name);
    let mut file = AtomicFile::create(&dest)?;
    let keep = |d: DocId| kept.get(d.index()).copied().unwrap_or(false);
    let (mut documents, mut next) = (0u64, 0u64);
    for f in &files {
        let range = corpus::split::LineRange {
            start: 0,
            end: u64::MAX,
            first_line: 1,
            first_doc: next,
        };
        (file, next) = write_piece(file, &dest, f, cfg, range, comp, &keep, &mut documents)?;
    }
    if next != kept.len() as u64 {
        return Err(changed(path, next as usize, kept.len()));
    }
    file.commit()?;
    Ok(Kept { name, documents })
}

/// Streams the corpus and writes each kept document: with `as_input`, its record as the
/// input wrote it, after the input's preamble (the header row of CSV/TSV); otherwise (or
/// for a format without records) `{"id":..,"text":..}`, without a preamble. With
/// `per_record`, each record is its own compressed member (gzip WARC files are read record
/// by record).
fn write_records(
    path: &Path,
    cfg: &CorpusConfig,
    kept: &[bool],
    dest: &Path,
    comp: Compression,
    per_record: bool,
    as_input: bool,
) -> Result<u64> {
    let mut reader = corpus::open(path, cfg)?;
    let file = AtomicFile::create(dest)?;
    let io = |e: std::io::Error| Error::io(dest, e);
    let mut w = if per_record {
        Compression::None.writer(file).map_err(io)?
    } else {
        comp.writer(file).map_err(io)?
    };
    let mut buf = Vec::new();
    if as_input {
        reader.preamble(&mut buf);
    }
    w.write_all(&buf).map_err(io)?;
    let written = for_each_kept(&mut reader, path, kept, |reader, doc| {
        buf.clear();
        if !as_input || !reader.record(&mut buf) {
            serde_json::to_writer(
                &mut buf,
                &serde_json::json!({"id": doc.ext_id, "text": doc.text}),
            )
            .map_err(|e| Error::config(format!("writing a record: {e}")))?;
            buf.push(b'\n');
        }
        if per_record {
            let mut m = comp.writer(Vec::new()).map_err(io)?;
            m.write_all(&buf).map_err(io)?;
            w.write_all(&m.finish().map_err(io)?).map_err(io)?;
        } else {
            w.write_all(&buf).map_err(io)?;
        }
        Ok(())
    })?;
    w.finish().map_err(io)?.commit()?;
    Ok(written)
}

/// Reads the corpus again through `reader` and calls `f` with the reader and each document
/// that `kept` holds, in input order; the read must number exactly the `kept.len()`
/// documents of the first one. Returns how many documents were kept.
fn for_each_kept(
    reader: &mut corpus::CorpusReader,
    path: &Path,
    kept: &[bool],
    mut f: impl FnMut(&corpus::CorpusReader, corpus::Document) -> Result<()>,
) -> Result<u64> {
    let mut seen = 0usize;
    let mut written = 0u64;
    while let Some(doc) = reader.next() {
        let doc = doc?;
        seen += 1;
        let Some(&keep) = kept.get(doc.id.index()) else {
            return Err(changed(path, seen, kept.len()));
        };
        if keep {
            f(reader, doc)?;
            written += 1;
        }
    }
    if seen != kept.len() {
        return Err(changed(path, seen, kept.len()));
    }
    Ok(written)
}

fn changed(path: &Path, now: usize, before: usize) -> Error {
    Error::format(
        path,
        format!(
            "the input changed between the two reads: {now} documents or more now, {before} before"
        ),
    )
}

/// Copies the kept files of a directory corpus into `dir/kept/` (relative paths kept),
/// through a temporary directory renamed into place.
fn copy_dir(root: &Path, cfg: &CorpusConfig, kept: &[bool], dir: &Path) -> Result<Kept> {
    let name = "kept".to_string();
    let dest = dir.join(&name);
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    // Registered for an interrupt's cleanup, and removed on drop if never renamed.
    let tmp = crate::spill::SpillDir::with_prefix_in(dir, ".fimdup-kept-")?;
    let mut reader = corpus::open(root, cfg)?;
    let written = for_each_kept(&mut reader, root, kept, |_, doc| {
        let rel = PathBuf::from(&doc.ext_id);
        let to = tmp.path().join(&rel);
        let from = root.join(&rel);
        // Gated: once an interrupt's cleanup has removed the directory, nothing remakes it.
        crate::cleanup::create_gated(&to, || {
            if let Some(p) = to.parent() {
                std::fs::create_dir_all(p).map_err(|e| Error::io(p, e))?;
            }
            std::fs::copy(&from, &to).map_err(|e| Error::io(&from, e))?;
            Ok(())
        })
    })?;
    if dest.exists() {
        std::fs::remove_dir_all(&dest).map_err(|e| Error::io(&dest, e))?;
    }
    // Gated like a creation: after an interrupt's cleanup has begun, nothing appears.
    crate::cleanup::create_gated(&dest, || {
        std::fs::rename(tmp.path(), &dest).map_err(|e| Error::io(&dest, e))
    })?;
    drop(tmp);
    crate::io::sync_dir(dir)?;
    Ok(Kept {
        name,
        documents: written,
    })
}

/// One row of `removed.csv`: a removed document, the kept (or indexed) document it
/// resembles, the cluster holding both (when one does), the score and its kind, the reason.
#[derive(Clone, Debug, PartialEq)]
pub struct RemovedRow<'a> {
    /// The removed document.
    pub doc: DocId,
    /// The external id of the document it resembles.
    pub representative: &'a str,
    /// The id of a cluster holding both.
    pub cluster: Option<u32>,
    /// The score of the pair.
    pub score: Option<f64>,
    /// What the score is.
    pub kind: ScoreKind,
    /// Why it was removed.
    pub reason: Reason,
}

/// The rows of `removed.csv`, one per removed document in input order.
pub fn removed_rows<'a>(
    removed: &'a [Option<Removal>],
    ext_ids: &'a [String],
    cluster_of: &dyn Fn(DocId, DocId) -> Option<u32>,
    clusters: &[Cluster],
) -> Vec<RemovedRow<'a>> {
    removed
        .iter()
        .enumerate()
        .filter_map(|(d, r)| {
            let r = r.as_ref()?;
            let d = DocId(d as u32);
            let (representative, cluster) = match &r.representative {
                Representative::Doc(m) => (
                    ext_ids[m.index()].as_str(),
                    cluster_of(d, *m).map(|c| clusters[c as usize].id),
                ),
                Representative::Indexed(id) => (id.as_str(), None),
            };
            Some(RemovedRow {
                doc: d,
                representative,
                cluster,
                score: r.score,
                kind: r.kind,
                reason: r.reason,
            })
        })
        .collect()
}

/// Writes `removed.csv`: `id,representative,cluster,score,score_kind`, one row per removed
/// document in input order ([`removed_rows`]).
pub fn write_removed(dest: &Path, rows: &[RemovedRow<'_>], ext_ids: &[String]) -> Result<()> {
    let lines = rows.iter().map(|r| {
        let id = ext_ids[r.doc.index()].as_str();
        (id, r.representative, r.cluster, r.score, r.kind)
    });
    write_removed_lines(dest, true, lines)
}

/// Writes the rows of `removed.csv` (or of a part of it), each `(id, representative,
/// cluster, score, score kind)`, in the order given; the header first when `header`.
pub fn write_removed_lines<'a>(
    dest: &Path,
    header: bool,
    rows: impl IntoIterator<Item = (&'a str, &'a str, Option<u32>, Option<f64>, ScoreKind)>,
) -> Result<()> {
    let mut f = AtomicFile::create(dest)?;
    {
        let io = |e: csv::Error| Error::io(dest, e.into());
        let mut w = crate::corpus::dialect::writer(false).from_writer(&mut f);
        if header {
            w.write_record(["id", "representative", "cluster", "score", "score_kind"])
                .map_err(io)?;
        }
        for (id, representative, cluster, score, kind) in rows {
            let cluster = cluster.map(|c| c.to_string()).unwrap_or_default();
            let score = score.map(|s| s.to_string()).unwrap_or_default();
            w.write_record([id, representative, &cluster, &score, kind.name()])
                .map_err(io)?;
        }
        w.flush().map_err(|e| Error::io(dest, e))?;
    }
    f.commit()
}
