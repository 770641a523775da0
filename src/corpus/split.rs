//! How several workers split one corpus between them ([`super::par::par_map_corpus_share`]).
//!
//! An uncompressed JSONL or plain-lines file is cut into byte ranges, one per worker, at
//! line starts: worker `i` of `n` takes the lines that start in
//! `[start(i), start(i + 1))`, where `start(i)` is the first line start at or after
//! `i * len / n`. Each worker first counts the lines and documents of its range
//! ([`count_range`]); the prefix sums of those counts over the workers before it give the
//! line number and DocId its range starts at ([`LineRange`]). Every other input (gzip,
//! zstd, CSV, WARC, Parquet, directories, JSONL whose bad lines are skipped) is split by
//! blocks: every worker reads the input, and maps only its blocks ([`Share`]).
//!
//! A divided run reads a corpus's files (one file, the shards of a sharded corpus, or the
//! files of a directory of Parquet files, [`super::shards`]) as **pieces** divided by
//! bytes ([`assign_pieces`]): the files laid end to end, each worker takes about `1/N` of
//! the bytes ([`Cut`]); a file that can be
//! cut (as above) is cut at line starts, a Parquet file where its row groups start (a
//! piece holds the row groups that start in its bytes, their rows keeping their numbers in
//! the file), any other file (a gzip or zstd line-format file, a CSV/TSV or WARC shard,
//! read by its format's reader) is one piece read whole by the worker holding its middle
//! byte. The prefix sums of the pieces' counts in worker order place each piece
//! ([`place_pieces`]): its first line in its file and its first DocId in the corpus.
//!
//! Invariants: the ranges of the workers cover the file, do not overlap and hold whole
//! lines (the pieces of all workers, in worker order, cover the files in corpus order); a range's counts are the ones the whole-file reader finds for the same lines
//! (oversized lines and blank JSONL lines are lines but not documents; a byte-order mark
//! is skipped at the start of the file only).

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use super::input::{append_line, is_blank, open_read, read_err, Got};
use super::par::Share;
use super::{CorpusConfig, Format};
use crate::{Error, Result};

/// How a worker finds its share of a corpus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// Every worker reads the input and maps the blocks of its share.
    Blocks(Share),
    /// The worker reads one byte range of the file.
    Range(LineRange),
}

/// A byte range of a line-format file, with where it starts in line and document numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LineRange {
    /// First byte (a line start).
    pub start: u64,
    /// One past the last byte (a line start, or the end of the file).
    pub end: u64,
    /// The 1-based number of the range's first line in the file.
    pub first_line: u64,
    /// The DocId of the range's first document.
    pub first_doc: u64,
}

/// The lines and documents of a byte range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RangeCount {
    /// Lines (oversized and blank ones included).
    pub lines: u64,
    /// Documents.
    pub docs: u64,
}

/// True when `path` is split into byte ranges (an uncompressed JSONL or plain-lines
/// regular file, bad lines not skipped), false when it is split by blocks.
pub fn splits_by_range(path: &Path, cfg: &CorpusConfig) -> Result<bool> {
    if super::shards::is_sharded(path, cfg) {
        return Ok(false);
    }
    Ok(read_by_lines(cfg.format_of(path)?, cfg)
        && path != Path::new("-")
        && !crate::io::Compression::of_path(path).is_compressed()
        && std::fs::metadata(path).is_ok_and(|m| m.is_file()))
}

/// How a file of a divided run's corpus is divided between workers ([`assign_pieces`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Cut {
    /// Read whole by one worker.
    Whole,
    /// Cut into byte ranges at line starts ([`splits_by_range`]).
    Lines,
    /// A Parquet file, cut where its row groups start: a piece holds the row groups whose
    /// bytes start in it.
    RowGroups,
}

/// How the file `path` of a corpus is divided: at line starts when it is split by
/// ranges, at row groups when it is a Parquet file (or an object-store URL of one), else
/// whole.
pub fn cut_of(path: &Path, cfg: &CorpusConfig) -> Result<Cut> {
    Ok(if splits_by_range(path, cfg)? {
        Cut::Lines
    } else if cfg.format_of(path)? == Format::Parquet
        && (std::fs::metadata(path).is_ok_and(|m| m.is_file()) || super::remote::is_remote(path))
    {
        Cut::RowGroups
    } else {
        Cut::Whole
    })
}

/// The byte range `[start, end)` of worker `share.index` of `share.count` (see the module
/// docs).
pub fn byte_range(path: &Path, share: Share) -> Result<(u64, u64)> {
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let len = f.metadata().map_err(|e| Error::io(path, e))?.len();
    let n = u64::from(share.count.max(1));
    let i = u64::from(share.index);
    let at = |k: u64| (u128::from(len) * u128::from(k) / u128::from(n)) as u64;
    let start = line_start_at(&mut f, path, at(i), len)?;
    let end = if i + 1 == n {
        len
    } else {
        line_start_at(&mut f, path, at(i + 1), len)?
    };
    Ok((start, end.max(start)))
}

/// The first line start at or after `pos`.
fn line_start_at(f: &mut std::fs::File, path: &Path, pos: u64, len: u64) -> Result<u64> {
    if pos == 0 {
        return Ok(0);
    }
    if pos >= len {
        return Ok(len);
    }
    f.seek(SeekFrom::Start(pos - 1))
        .map_err(|e| Error::io(path, e))?;
    let mut r = BufReader::new(&mut *f);
    let mut skipped = Vec::new();
    // Read past the rest of the line that holds byte `pos - 1` (bounded reads).
    let mut n = 0u64;
    loop {
        skipped.clear();
        let got = (&mut r)
            .take(1 << 16)
            .read_until(b'\n', &mut skipped)
            .map_err(|e| Error::io(path, e))?;
        n += got as u64;
        if got == 0 || skipped.last() == Some(&b'\n') {
            break;
        }
    }
    Ok((pos - 1 + n).min(len))
}

/// Counts the lines and documents of the byte range `[start, end)` of `path` as the
/// reader of line formats counts them (see the module invariants).
pub fn count_range(path: &Path, cfg: &CorpusConfig, start: u64, end: u64) -> Result<RangeCount> {
    let mut c = RangeCount::default();
    walk_range(path, cfg, start, end, |doc| {
        c.lines += 1;
        c.docs += u64::from(doc.is_some());
        Ok(())
    })?;
    Ok(c)
}

/// Calls `f` with the DocId and the record of every document of `range`, in input order:
/// the record is the document's line as the whole-file reader writes it
/// ([`crate::corpus::CorpusReader::record`]: its bytes and line end, `\n` when it has none,
/// without the byte-order mark at the start of the file).
pub fn for_each_record(
    path: &Path,
    cfg: &CorpusConfig,
    range: LineRange,
    mut f: impl FnMut(crate::DocId, &[u8]) -> Result<()>,
) -> Result<()> {
    let mut doc = range.first_doc;
    let mut rec = Vec::new();
    walk_range(path, cfg, range.start, range.end, |line| {
        let Some(line) = line else {
            return Ok(());
        };
        let id = u32::try_from(doc)
            .map_err(|_| Error::Limit(format!("{}: too many documents", path.display())))?;
        doc += 1;
        rec.clear();
        rec.extend_from_slice(line);
        if rec.last() != Some(&b'\n') {
            rec.push(b'\n');
        }
        f(crate::DocId(id), &rec)
    })
}

/// Reads the lines of `[start, end)` of `path` and calls `f` once per line: with the line
/// (and its line end, the byte-order mark at the start of the file stripped) when it is a
/// document, with `None` when it is not (an oversized line, a blank JSONL line).
fn walk_range(
    path: &Path,
    cfg: &CorpusConfig,
    start: u64,
    end: u64,
    mut f: impl FnMut(Option<&[u8]>) -> Result<()>,
) -> Result<()> {
    let jsonl = cfg.format_of(path)? == Format::Jsonl;
    let mut r = open_piece(path, start, end)?;
    let mut buf = Vec::new();
    let mut first = start == 0;
    let mut line = 0u64;
    loop {
        buf.clear();
        line += 1;
        // A read error names the line as counted from the piece's start (the whole file
        // for a compressed one).
        match append_line(&mut r, &mut buf, cfg.max_doc_bytes)
            .map_err(|e| read_err(path, line, e))?
        {
            Got::Eof => break,
            Got::Oversized(_) => f(None)?,
            Got::Line(_) => {
                let mut l: &[u8] = &buf;
                if first {
                    l = l.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(l);
                }
                f((!jsonl || !is_blank(l)).then_some(l))?;
            }
        }
        first = false;
    }
    Ok(())
}

/// Opens the bytes `[start, end)` of the file at `path`; a gzip or zstd file is a piece
/// only as a whole (`start` 0), read decompressed to its end.
pub fn open_piece(path: &Path, start: u64, end: u64) -> Result<Box<dyn BufRead + Send>> {
    if crate::io::Compression::of_path(path).is_compressed() {
        if start != 0 {
            return Err(Error::config(format!(
                "{}: a compressed file is read whole, not from byte {start}",
                path.display()
            )));
        }
        return open_read(path);
    }
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    f.seek(SeekFrom::Start(start))
        .map_err(|e| Error::io(path, e))?;
    Ok(Box::new(BufReader::with_capacity(
        1 << 20,
        f.take(end.saturating_sub(start)),
    )))
}

/// True when every file of a corpus, cut or whole, is read line by line: JSONL (bad lines
/// not skipped) or plain lines, compressed or not.
pub fn read_by_lines(format: Format, cfg: &CorpusConfig) -> bool {
    match format {
        Format::Jsonl => !cfg.skip_bad_lines,
        Format::Lines => true,
        _ => false,
    }
}

/// One worker's part of one file of a corpus: file `file` (an index in the corpus's files),
/// bytes `[start, end)` (the whole file, `0..len`, when it is not cut).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Piece {
    /// The file, an index in the corpus's list of files.
    pub file: usize,
    /// First byte (a line start).
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
}

/// The pieces of every worker of `workers` when the files (in corpus order, each with its
/// size and how it is cut, [`cut_of`]) are divided by bytes: the files are laid end to
/// end, and worker `w` takes the bytes from `w * total / workers` on. A file read whole
/// goes to the worker holding its middle byte; a line file is cut at the first line start
/// at or after each worker's first byte, as [`byte_range`] cuts one file, and a Parquet
/// file at the first row group start there (its first piece starts at 0, its last ends at
/// its end, footer included). Pieces follow the corpus order: worker by worker, file by
/// file; empty pieces are left out, but a corpus of one cut file gives every worker a
/// piece (maybe empty).
pub fn assign_pieces(files: &[(&Path, u64, Cut)], workers: usize) -> Result<Vec<Vec<Piece>>> {
    let n = workers.max(1) as u128;
    let total: u64 = files.iter().map(|f| f.1).sum();
    let bound = |w: u128| (u128::from(total) * w / n) as u64;
    let owner = |x: u64| -> usize {
        // The worker whose bytes `[bound(w), bound(w + 1))` hold `x`.
        let mut w = ((u128::from(x) * n) / u128::from(total.max(1))) as usize;
        w = w.min(workers.max(1) - 1);
        while w > 0 && bound(w as u128) > x {
            w -= 1;
        }
        while ((w + 1) as u128) < n && bound(w as u128 + 1) <= x {
            w += 1;
        }
        w
    };
    let mut out: Vec<Vec<Piece>> = vec![Vec::new(); workers.max(1)];
    let single = files.len() == 1;
    let mut at = 0u64;
    for (i, &(path, len, cut)) in files.iter().enumerate() {
        if cut == Cut::Whole {
            if len > 0 || single {
                out[owner(at + len / 2)].push(Piece {
                    file: i,
                    start: 0,
                    end: len,
                });
            }
        } else {
            let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
            let starts = match cut {
                Cut::RowGroups => super::parquet::row_group_starts(path)?,
                _ => Vec::new(),
            };
            let mut cut_at = |x: u64| -> Result<u64> {
                if x <= at {
                    Ok(0)
                } else if x >= at + len {
                    Ok(len)
                } else if cut == Cut::RowGroups {
                    // The first row group after the first that starts at or after `x`.
                    let x = x - at;
                    Ok((starts.iter().skip(1).copied().find(|&s| s >= x)).unwrap_or(len))
                } else {
                    line_start_at(&mut f, path, x - at, len)
                }
            };
            let mut start = cut_at(bound(0))?;
            for (w, pieces) in out.iter_mut().enumerate() {
                let end = if w + 1 == workers.max(1) {
                    len
                } else {
                    cut_at(bound(w as u128 + 1))?
                };
                let end = end.max(start);
                if end > start || single {
                    pieces.push(Piece {
                        file: i,
                        start,
                        end,
                    });
                }
                start = end;
            }
        }
        at += len;
    }
    Ok(out)
}

/// The pieces of every worker (in worker order, each in corpus order) with their counts,
/// placed: where each starts in its file's line numbers and in the corpus's DocIds.
pub fn place_pieces(pieces: &[Vec<(Piece, RangeCount)>]) -> Vec<Vec<(Piece, LineRange)>> {
    let mut doc = 0u64;
    let mut lines: Vec<(usize, u64)> = Vec::new(); // (file, lines before the next piece)
    pieces
        .iter()
        .map(|w| {
            w.iter()
                .map(|&(p, c)| {
                    let before = match lines.last() {
                        Some(&(f, l)) if f == p.file => l,
                        _ => 0,
                    };
                    let r = LineRange {
                        start: p.start,
                        end: p.end,
                        first_line: before + 1,
                        first_doc: doc,
                    };
                    lines.push((p.file, before + c.lines));
                    doc += c.docs;
                    (p, r)
                })
                .collect()
        })
        .collect()
}

/// The ranges of every worker from their counts (in worker order): where each starts in
/// line and document numbers.
pub fn place_ranges(ranges: &[(u64, u64)], counts: &[RangeCount]) -> Vec<LineRange> {
    let (mut line, mut doc) = (1u64, 0u64);
    ranges
        .iter()
        .zip(counts)
        .map(|(&(start, end), c)| {
            let r = LineRange {
                start,
                end,
                first_line: line,
                first_doc: doc,
            };
            line += c.lines;
            doc += c.docs;
            r
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::par::{par_map_corpus_share, par_map_corpus_with, ParOptions};

    /// (DocId, external id, text, offset) of a document.
    type Doc = (u32, String, String, Option<u64>);

    /// Every document, through the whole-file reader.
    fn whole(path: &Path, cfg: &CorpusConfig) -> Vec<Doc> {
        let mut v = Vec::new();
        par_map_corpus_with(
            path,
            cfg,
            || (),
            |_, d| Ok((d.id.0, d.text.to_string(), d.offset)),
            |b| {
                for ((id, t, o), e) in b.items.into_iter().zip(b.ext_ids) {
                    v.push((id, e, t, o));
                }
                Ok(())
            },
        )
        .unwrap();
        v
    }

    /// The same through `n` workers' byte ranges, placed by their counts.
    fn by_ranges(path: &Path, cfg: &CorpusConfig, n: u32, opts: &ParOptions) -> (Vec<Doc>, u64) {
        let ranges: Vec<(u64, u64)> = (0..n)
            .map(|i| byte_range(path, Share { index: i, count: n }).unwrap())
            .collect();
        let len = std::fs::metadata(path).unwrap().len();
        assert_eq!(ranges[0].0, 0);
        assert_eq!(ranges[n as usize - 1].1, len);
        for w in ranges.windows(2) {
            assert_eq!(w[0].1, w[1].0, "ranges must meet: {ranges:?}");
        }
        let counts: Vec<RangeCount> = ranges
            .iter()
            .map(|&(s, e)| count_range(path, cfg, s, e).unwrap())
            .collect();
        let mut v = Vec::new();
        let mut docs = 0;
        for r in place_ranges(&ranges, &counts) {
            let stats = par_map_corpus_share(
                path,
                cfg,
                opts,
                Split::Range(r),
                || (),
                |_, d| Ok((d.id.0, d.text.to_string(), d.offset)),
                |b| {
                    for ((id, t, o), e) in b.items.into_iter().zip(b.ext_ids) {
                        v.push((id, e, t, o));
                    }
                    Ok(())
                },
            )
            .unwrap();
            docs += stats.documents;
        }
        (v, docs)
    }

    #[test]
    fn byte_ranges_give_the_documents_of_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = CorpusConfig {
            max_doc_bytes: 60,
            ..CorpusConfig::default()
        };
        let mut rng = 7u64;
        let mut next = || {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            rng >> 33
        };
        for case in 0..12 {
            let mut text = String::new();
            if case % 3 == 0 {
                text.push('\u{feff}');
            }
            let lines = next() % 40;
            for i in 0..lines {
                match next() % 6 {
                    0 => text.push('\n'),
                    1 => text.push_str(&format!(
                        "{{\"id\":\"o{i}\",\"text\":\"{}\"}}\n",
                        "y".repeat(80)
                    )),
                    _ => text.push_str(&format!(
                        "{{\"id\":\"d{i}\",\"text\":\"w{} v{}\"}}\r\n",
                        next() % 9,
                        i
                    )),
                }
            }
            if case % 2 == 0 && text.ends_with('\n') {
                text.pop();
            }
            let p = dir.path().join(format!("c{case}.jsonl"));
            std::fs::write(&p, &text).unwrap();
            let want = whole(&p, &cfg);
            // The records as the whole-file reader writes them.
            let mut reader = crate::corpus::open(&p, &cfg).unwrap();
            let mut records = Vec::new();
            while let Some(d) = reader.next() {
                let mut rec = Vec::new();
                assert!(reader.record(&mut rec));
                records.push((d.unwrap().id.0, rec));
            }
            assert_eq!(records.len(), want.len(), "case {case}");
            for n in [1, 2, 3, 7, 50] {
                let ranges: Vec<(u64, u64)> = (0..n)
                    .map(|i| byte_range(&p, Share { index: i, count: n }).unwrap())
                    .collect();
                let counts: Vec<RangeCount> = (ranges.iter())
                    .map(|&(s, e)| count_range(&p, &cfg, s, e).unwrap())
                    .collect();
                let mut got = Vec::new();
                for r in place_ranges(&ranges, &counts) {
                    for_each_record(&p, &cfg, r, |d, rec| {
                        got.push((d.0, rec.to_vec()));
                        Ok(())
                    })
                    .unwrap();
                }
                assert_eq!(got, records, "case {case}, records of {n} ranges");
                for block in [1, 64, 1 << 20] {
                    let opts = ParOptions {
                        block_bytes: block,
                        ..ParOptions::default()
                    };
                    let (got, docs) = by_ranges(&p, &cfg, n, &opts);
                    assert_eq!(got, want, "case {case}, {n} workers, blocks of {block}");
                    assert_eq!(docs, want.len() as u64);
                }
            }
        }
    }

    #[test]
    fn pieces_divide_the_files_by_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let line = |i: usize| format!("{{\"id\":\"d{i}\",\"text\":\"{}\"}}\n", "w ".repeat(i % 17));
        let mut files = Vec::new();
        for (f, lines) in [(0usize, 40usize), (1, 0), (2, 300), (3, 7), (4, 90)] {
            let p = dir.path().join(format!("s{f}.jsonl"));
            let text: String = (0..lines).map(line).collect();
            std::fs::write(&p, &text).unwrap();
            // s3 stands for a file read whole.
            let cut = if f == 3 { Cut::Whole } else { Cut::Lines };
            files.push((p, text.len() as u64, cut));
        }
        let args: Vec<(&Path, u64, Cut)> = files
            .iter()
            .map(|(p, l, c)| (p.as_path(), *l, *c))
            .collect();
        let total: u64 = files.iter().map(|f| f.1).sum();
        for n in [1usize, 2, 3, 5, 8, 40] {
            let pieces = assign_pieces(&args, n).unwrap();
            assert_eq!(pieces.len(), n);
            // In worker order the pieces cover every file, in order, without overlap.
            let flat: Vec<Piece> = pieces.iter().flatten().copied().collect();
            let mut at = vec![0u64; files.len()];
            let mut last_file = 0;
            for p in &flat {
                assert!(p.file >= last_file, "{n}: {flat:?}");
                last_file = p.file;
                assert_eq!(p.start, at[p.file], "{n}: {flat:?}");
                assert!(p.end > p.start, "{n}: empty piece {flat:?}");
                at[p.file] = p.end;
                if files[p.file].2 == Cut::Whole {
                    assert_eq!((p.start, p.end), (0, files[p.file].1));
                }
            }
            for (f, (_, len, _)) in files.iter().enumerate() {
                assert_eq!(at[f], *len, "{n}: file {f} not covered: {flat:?}");
            }
            // Each worker's bytes are its share, give or take the whole file and a line.
            for (w, ps) in pieces.iter().enumerate() {
                let bytes: u64 = ps.iter().map(|p| p.end - p.start).sum();
                assert!(
                    bytes <= total / n as u64 + files[3].1 + 64,
                    "{n}: worker {w} has {bytes} of {total}: {pieces:?}"
                );
            }
        }
        // One file: the byte ranges of `byte_range`, one per worker.
        let one = [args[2]];
        for n in [1u32, 2, 3, 7, 50] {
            let pieces = assign_pieces(&one, n as usize).unwrap();
            for i in 0..n {
                let (start, end) = byte_range(one[0].0, Share { index: i, count: n }).unwrap();
                let want = Piece {
                    file: 0,
                    start,
                    end,
                };
                assert_eq!(pieces[i as usize], [want], "{n} workers, worker {i}");
            }
        }
    }

    #[test]
    fn which_inputs_split_by_range() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = CorpusConfig::default();
        let j = dir.path().join("a.jsonl");
        std::fs::write(&j, "{\"text\":\"a\"}\n").unwrap();
        assert!(splits_by_range(&j, &cfg).unwrap());
        let skip = CorpusConfig {
            skip_bad_lines: true,
            ..CorpusConfig::default()
        };
        assert!(!splits_by_range(&j, &skip).unwrap());
        let c = dir.path().join("a.csv");
        std::fs::write(&c, "id,text\n1,a\n").unwrap();
        assert!(!splits_by_range(&c, &cfg).unwrap());
    }
}
