//! The sketch stage against its limits: the same JSONL corpus through the minimal code of
//! each step, added one at a time (read the file, split lines, parse the JSON text field,
//! cut ASCII words and lowercase them, hash each word, combine 5-word shingles, keep the
//! 128 smallest), each on every core (rayon over blocks of lines), beside the library's
//! own reader (read, split, parse: `par_map_corpus_opts`) and its whole sketch
//! (`sketch_stream` with the default pipeline: word 5-shingles, bottom-k 128). Each figure is
//! the best of three runs; the report gives documents and megabytes a second and the
//! library's time over the limit's for the steps they share. The vectorised rows redo the
//! steps after the JSON field with the words found 16 bytes at a time (SSE2 masks, the
//! lowercase made in the same pass), and hash them with xxh3 or with rapidhash v1, a hash of
//! the multiply-mix family built for short keys: the distance to the machine, measured.
//!
//! The limits are what the steps cost without the library's generality (Unicode tokenizers,
//! HTML, markup, ids, error positions, fingerprints, ordering), so a ratio near 1 says a
//! step is at the machine's speed and a large one says where time is lost.
//!
//! Run: `cargo bench --bench limits` (writes `eval/results/limits.md`; `LIMITS_DOCS`
//! documents, default 200,000, generated as 300-word texts over a Zipf-like vocabulary;
//! `LIMITS_CORPUS=path.jsonl` measures a corpus of one's own instead).

use std::borrow::Cow;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use fimdup::corpus::par::{par_map_corpus_opts, ParOptions};
use fimdup::corpus::CorpusConfig;
use fimdup::sketch::pipeline::{sketch_stream, PipelineConfig, SketchBatch, SketchSink};
use fimdup::sketch::SketchParams;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

const WORDS: usize = 300;
const SHINGLE: usize = 5;
const K: usize = 128;

/// Writes `n` generated documents as JSONL (ids and 300-word texts with capitals and
/// punctuation).
fn generate(path: &Path, n: usize) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(42);
    let vocab: Vec<String> = (0..20_000)
        .map(|_| {
            let len = rng.gen_range(2..10);
            (0..len)
                .map(|_| rng.gen_range(b'a'..=b'z') as char)
                .collect()
        })
        .collect();
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut text = String::new();
    for i in 0..n {
        text.clear();
        for k in 0..WORDS {
            let r: f64 = rng.gen();
            let w = &vocab[(r * r * vocab.len() as f64) as usize];
            if k > 0 {
                text.push_str(if rng.gen_ratio(1, 12) { ". " } else { " " });
            }
            if k == 0 || rng.gen_ratio(1, 20) {
                let mut c = w.chars();
                text.push(c.next().unwrap().to_ascii_uppercase());
                text.push_str(c.as_str());
            } else {
                text.push_str(w);
            }
        }
        let line = serde_json::json!({"id": format!("d{i}"), "text": text}).to_string();
        writeln!(f, "{line}").unwrap();
    }
    f.flush().unwrap();
}

/// The text field of a JSONL line.
#[derive(serde::Deserialize)]
struct Line<'a> {
    #[serde(borrow)]
    text: Cow<'a, str>,
}

/// How far the minimal pipeline goes.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
enum Step {
    Lines,
    Json,
    Words,
    Hash,
    Shingles,
    BottomK,
}

/// How the minimal pipeline finds and hashes words.
#[derive(Clone, Copy, PartialEq)]
enum Words {
    /// Byte at a time, xxh3.
    Scalar,
    /// 16 bytes at a time (SSE2 masks, lowercased in the same pass), xxh3.
    Vector,
    /// As `Vector`, words hashed with rapidhash v1 (a short-key multiply-mix hash).
    VectorRapid,
}

/// Lowercases the ASCII `text` into `lower` and appends the spans of its words (runs of
/// ASCII letters and digits) to `spans`, 16 bytes at a time: one SSE2 pass makes the
/// lowercase bytes and a word-byte mask, and the runs come from the mask's edges.
fn vector_words(text: &[u8], lower: &mut Vec<u8>, spans: &mut Vec<(u32, u32)>) {
    let n = text.len();
    lower.clear();
    lower.resize(n.next_multiple_of(16), 0);
    spans.clear();
    let mut start: Option<usize> = None;
    let mut carry = 0u64;
    let mut base = 0;
    while base < n {
        let len = (n - base).min(64);
        let mut m = 0u64;
        let mut k = 0;
        while k < len {
            let w = (len - k).min(16);
            let mut chunk = [0u8; 16];
            chunk[..w].copy_from_slice(&text[base + k..base + k + w]);
            let (mask, low) = lower16(chunk);
            lower[base + k..base + k + 16].copy_from_slice(&low);
            m |= u64::from(mask & ((1u32 << w) - 1) as u16) << k;
            k += 16;
        }
        let prev = (m << 1) | carry;
        carry = m >> 63;
        let mut edges = (m & !prev) | (!m & prev);
        if len < 64 {
            edges &= (1u64 << len) - 1;
        }
        while edges != 0 {
            let j = edges.trailing_zeros() as usize;
            edges &= edges - 1;
            if (m >> j) & 1 == 1 {
                start = Some(base + j);
            } else if let Some(s) = start.take() {
                spans.push((s as u32, (base + j) as u32));
            }
        }
        base += len;
    }
    if let Some(s) = start {
        spans.push((s as u32, n as u32));
    }
}

/// The word-byte mask (`[0-9A-Za-z]`) and the lowercase of 16 ASCII bytes.
#[cfg(target_arch = "x86_64")]
fn lower16(chunk: [u8; 16]) -> (u16, [u8; 16]) {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86-64 baseline; the load and store are of 16 bytes.
    unsafe {
        let v = _mm_loadu_si128(chunk.as_ptr() as *const __m128i);
        let range = |lo: u8, width: i8| {
            let bias = _mm_set1_epi8(0x80u8.wrapping_sub(lo) as i8);
            let lim = _mm_set1_epi8((-128i16 + i16::from(width)) as i8);
            (bias, lim)
        };
        let (ub, ul) = range(b'A', 26);
        let (db, dl) = range(b'0', 10);
        let upper = _mm_cmplt_epi8(_mm_add_epi8(v, ub), ul);
        let lower = _mm_or_si128(v, _mm_and_si128(upper, _mm_set1_epi8(0x20)));
        let (lb, ll) = range(b'a', 26);
        let alpha = _mm_cmplt_epi8(_mm_add_epi8(lower, lb), ll);
        let digit = _mm_cmplt_epi8(_mm_add_epi8(v, db), dl);
        let mask = _mm_movemask_epi8(_mm_or_si128(alpha, digit)) as u16;
        let mut out = [0u8; 16];
        _mm_storeu_si128(out.as_mut_ptr() as *mut __m128i, lower);
        (mask, out)
    }
}

/// The portable form of the x86-64 [`lower16`].
#[cfg(not(target_arch = "x86_64"))]
fn lower16(chunk: [u8; 16]) -> (u16, [u8; 16]) {
    let mut mask = 0u16;
    let mut out = chunk;
    for (j, c) in out.iter_mut().enumerate() {
        *c = c.to_ascii_lowercase();
        mask |= u16::from(c.is_ascii_alphanumeric()) << j;
    }
    (mask, out)
}

/// The blocks of `data` at line ends, about `size` bytes each.
fn blocks(data: &[u8], size: usize) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < data.len() {
        let mut end = (start + size).min(data.len());
        if end < data.len() {
            end += memchr::memchr(b'\n', &data[end..]).map_or(data.len() - end, |i| i + 1);
        }
        out.push(&data[start..end]);
        start = end;
    }
    out
}

fn mix(x: u64) -> u64 {
    let x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Scratch buffers of one worker of the minimal pipeline.
#[derive(Default)]
struct Bufs {
    word: Vec<u8>,
    hashes: Vec<u64>,
    lower: Vec<u8>,
    spans: Vec<(u32, u32)>,
}

/// One document's work up to `step`; returns a value that depends on all of it.
fn doc(line: &[u8], step: Step, how: Words, bufs: &mut Bufs) -> u64 {
    let Bufs {
        word,
        hashes,
        lower,
        spans,
    } = bufs;
    if step == Step::Lines {
        return line.len() as u64;
    }
    let parsed: Line<'_> = serde_json::from_slice(line).expect("a JSON line");
    let text = parsed.text.as_bytes();
    if step == Step::Json {
        return text.len() as u64;
    }
    hashes.clear();
    let mut words = 0u64;
    if how != Words::Scalar {
        vector_words(text, lower, spans);
        words = spans.len() as u64;
        if step >= Step::Hash {
            let secrets = rapidhash::v1::RapidSecrets::seed_cpp(0);
            for &(a, b) in spans.iter() {
                let w = &lower[a as usize..b as usize];
                hashes.push(if how == Words::VectorRapid {
                    rapidhash::v1::rapidhash_v1_inline::<false, false, false, false>(w, &secrets)
                } else {
                    xxhash_rust::xxh3::xxh3_64(w)
                });
            }
        }
    }
    // One pass over the bytes: a word is a run of ASCII letters and digits; it is hashed
    // as it is when it holds no capital, else lowercased into `word` first.
    let mut i = if how == Words::Scalar { 0 } else { text.len() };
    while i < text.len() {
        if !text[i].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let start = i;
        let mut upper = false;
        while i < text.len() && text[i].is_ascii_alphanumeric() {
            upper |= text[i].is_ascii_uppercase();
            i += 1;
        }
        let w = &text[start..i];
        words += 1;
        if step >= Step::Hash {
            let h = if upper {
                word.clear();
                word.extend(w.iter().map(|c| c.to_ascii_lowercase()));
                xxhash_rust::xxh3::xxh3_64(word)
            } else {
                xxhash_rust::xxh3::xxh3_64(w)
            };
            hashes.push(h);
        }
    }
    if step == Step::Words {
        return words;
    }
    if step == Step::Hash {
        return hashes.iter().fold(0, |a, &h| a ^ h);
    }
    // Shingles: the hashes of SHINGLE consecutive words combined.
    let n = hashes.len().saturating_sub(SHINGLE - 1);
    for i in 0..n {
        let mut h = hashes[i];
        for &x in &hashes[i + 1..i + SHINGLE] {
            h = mix(h.rotate_left(5) ^ x);
        }
        hashes[i] = h;
    }
    hashes.truncate(n);
    if step == Step::Shingles {
        return hashes.iter().fold(0, |a, &h| a ^ h);
    }
    if hashes.len() > K {
        hashes.select_nth_unstable(K);
        hashes.truncate(K + 1);
    }
    hashes.sort_unstable();
    hashes.dedup();
    hashes.truncate(K);
    hashes.first().copied().unwrap_or(0)
}

/// The minimal pipeline up to `step` over the file's bytes, on every core.
fn limit(data: &[u8], step: Step, how: Words) -> u64 {
    blocks(data, 1 << 22)
        .par_iter()
        .map(|b| {
            let mut bufs = Bufs::default();
            memchr::memchr_iter(b'\n', b)
                .scan(0usize, |start, end| {
                    let line = &b[*start..end];
                    *start = end + 1;
                    Some(line)
                })
                .filter(|l| !l.is_empty())
                .map(|l| doc(l, step, how, &mut bufs))
                .fold(0u64, |a, x| a.wrapping_add(x))
        })
        .reduce(|| 0, u64::wrapping_add)
}

/// The best of three runs of `f`, in seconds.
fn best(mut f: impl FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

struct Null(usize);

impl SketchSink for Null {
    fn begin(&mut self, _: &SketchParams) -> fimdup::Result<()> {
        Ok(())
    }
    fn batch(&mut self, b: SketchBatch) -> fimdup::Result<()> {
        self.0 += std::hint::black_box(b.images).len();
        Ok(())
    }
}

fn main() {
    // `cargo test --benches` runs this with `--bench` absent: nothing to measure then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = match std::env::var("LIMITS_CORPUS") {
        Ok(p) => std::path::PathBuf::from(p),
        Err(_) => {
            let n: usize = std::env::var("LIMITS_DOCS")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(200_000);
            let p = dir.path().join("limits.jsonl");
            generate(&p, n);
            p
        }
    };
    let bytes = std::fs::metadata(&path).unwrap().len() as f64;
    let data = std::fs::read(&path).unwrap();
    let docs = memchr::memchr_iter(b'\n', &data).count() as f64;
    let threads = rayon::current_num_threads();

    let read = best(|| {
        std::hint::black_box(std::fs::read(&path).unwrap());
    });
    let steps = [
        (Step::Lines, "+ split lines (memchr)"),
        (
            Step::Json,
            "+ parse the JSON text field (serde_json, borrowed)",
        ),
        (Step::Words, "+ ASCII words, lowercased"),
        (Step::Hash, "+ hash each word (xxh3)"),
        (Step::Shingles, "+ 5-word shingles (combined word hashes)"),
        (Step::BottomK, "+ bottom-128 (select, sort)"),
    ];
    let mut rows: Vec<(String, f64)> = vec![("read the file (page cache)".into(), read)];
    for (step, name) in steps {
        let s = best(|| {
            std::hint::black_box(limit(&data, step, Words::Scalar));
        });
        rows.push((name.to_string(), read + s));
    }
    // The vectorised limit: from the JSON field on, words found 16 bytes at a time and
    // lowercased in the same pass; the word hash xxh3 or rapidhash v1.
    let vector_steps = [
        (
            Step::Words,
            Words::Vector,
            "vectorised: ASCII words, lowercased (SSE2 masks, one pass)",
        ),
        (
            Step::Hash,
            Words::Vector,
            "vectorised: + hash each word (xxh3)",
        ),
        (
            Step::Hash,
            Words::VectorRapid,
            "vectorised: + hash each word (rapidhash v1)",
        ),
        (
            Step::Shingles,
            Words::Vector,
            "vectorised: + 5-word shingles (xxh3 words)",
        ),
        (
            Step::BottomK,
            Words::Vector,
            "vectorised: + bottom-128 (xxh3 words)",
        ),
    ];
    let mut vector_rows: Vec<(String, f64)> = Vec::new();
    for (step, how, name) in vector_steps {
        let s = best(|| {
            std::hint::black_box(limit(&data, step, how));
        });
        vector_rows.push((name.to_string(), read + s));
    }
    let cfg = CorpusConfig::default();
    let reader = best(|| {
        par_map_corpus_opts(
            &path,
            &cfg,
            &ParOptions::default(),
            || (),
            |_, d| Ok(d.text.len()),
            |b| {
                std::hint::black_box(b.items);
                Ok(())
            },
        )
        .unwrap();
    });
    let pipeline = PipelineConfig::default();
    let sketch = best(|| {
        let mut s = Null(0);
        sketch_stream(&path, &pipeline, &|_| {}, &mut s).unwrap();
        assert_eq!(s.0 as f64, docs);
    });

    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split(' ').take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into());
    let mut md = String::new();
    md += "# The sketch stage against its limits\n\n";
    md += &format!(
        "Generated by `cargo bench --bench limits` ({}). {} documents, {:.1} MB of JSONL, \
         {threads} threads, {} cores, load average {load} at the end; each figure the best \
         of three runs, the file in the page cache. Each limit row adds one step to the row above it, in the minimal code \
         of `benches/limits.rs`; the library rows run the same file through fimdup.\n\n",
        std::env::var("LIMITS_CORPUS")
            .map(|p| format!("corpus {p}"))
            .unwrap_or_else(|_| "generated 300-word documents".into()),
        docs as u64,
        bytes / 1e6,
        std::thread::available_parallelism().map_or(0, |n| n.get()),
    );
    md += "| step | seconds | documents/s | MB/s |\n|---|---:|---:|---:|\n";
    let row = |name: &str, s: f64| {
        format!(
            "| {name} | {s:.3} | {:.0} | {:.0} |\n",
            docs / s,
            bytes / 1e6 / s
        )
    };
    for (name, s) in rows.iter().chain(&vector_rows) {
        md += &row(name, *s);
    }
    md += &row(
        "**fimdup's reader** (read, split, parse: `par_map_corpus_opts`)",
        reader,
    );
    md += &row(
        "**fimdup's sketch** (`sketch_stream`: word 5-shingles, bottom-k 128)",
        sketch,
    );
    let json = rows[2].1;
    let all = rows[rows.len() - 1].1;
    let vector_all = vector_rows[vector_rows.len() - 1].1;
    md += &format!(
        "\nfimdup's reader over the limit up to the JSON field: **{:.2}x**; fimdup's sketch \
         over the limit of every step: **{:.2}x**, over the vectorised limit: **{:.2}x**.\n",
        reader / json,
        sketch / all,
        sketch / vector_all
    );
    print!("{md}");
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("eval/results/limits.md");
    std::fs::write(&out, md).unwrap();
    eprintln!("wrote {}", out.display());
}
