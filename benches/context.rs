//! The inverted context held two ways, side by side: CSR (`Context`: one `Vec<u32>` of
//! DocIds plus row offsets, what the library uses) and one `RoaringBitmap` per row. Both are
//! built from the same images (bottom-k, n = 128, word 5-shingles: `fimdup sketch`'s
//! defaults) and run the operations the methods run on the context:
//! - `build`: rows from the documents' keys (the CSR radix build; Roaring = the same rows
//!   converted, so its time is the CSR build plus `convert`);
//! - `pairs_k112`: the prefix-filtered `<id,id,count>` phase at k = 112 (what concept and
//!   union-find use at `--threshold 0.8` with bottom-k 128); the Roaring form holds each
//!   document's rows as a bitmap and counts a candidate's shared rows by `intersection_len`;
//! - `pairs_k1`: the counting form at k = 1 (containment, super shingles);
//! - `row_and`: intersections of two rows (DocId sets), for every two consecutive rows of
//!   every document, and the same over the rows of 64 documents or more only;
//! - `miner_input`: the miner's `Transactions` in both orientations.
//!
//! The structures' sizes are heap bytes counted by a counting allocator (the bytes asked
//! for, without the allocator's own overhead), printed on stderr before the timings.
//!
//! Run: `cargo bench --bench context` (5k and 50k documents generated from
//! `eval/peers/corpus.json` into a temporary directory). For one run on an images file
//! (e.g. the 1M corpus) with peak RSS per phase:
//! `CONTEXT_BENCH_IMAGES=c1m.img CONTEXT_BENCH_REPR=csr|roaring cargo bench --bench context`
//! (one representation per process, so the peaks are its own; k = 1 is left out there).

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use criterion::{BenchmarkId, Criterion};
use fimdup::context::{Context, ContextConfig, Orientation};
use fimdup::fimi::Transactions;
use fimdup::sorted::intersection_size;
use fimdup::spill::SpillConfig;
use rayon::prelude::*;
use roaring::RoaringBitmap;

/// The system allocator, counting the bytes currently allocated.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to `System`, only counting.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size(), Ordering::Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        System.dealloc(p, l)
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size(), Ordering::Relaxed);
        System.alloc_zeroed(l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        LIVE.fetch_add(new, Ordering::Relaxed);
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        System.realloc(p, l, new)
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn live() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// `f()` and the heap bytes it left allocated.
fn retained<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = live();
    let x = f();
    (x, live().saturating_sub(before))
}

/// The minimum support of `fimdup cluster --threshold 0.8` on bottom-k images of 128.
const K: u32 = 112;

/// The context's rows as Roaring bitmaps, row `i` the documents of `Context::row(i)`.
fn to_roaring(ctx: &Context) -> Vec<RoaringBitmap> {
    let rows = ctx.rows();
    (0..rows.len())
        .into_par_iter()
        .map(|i| RoaringBitmap::from_sorted_iter(rows.get(i).iter().copied()).unwrap())
        .collect()
}

/// Each document's rows (ascending) as a bitmap.
fn roaring_doc_rows(rows: &[RoaringBitmap], n_docs: u32) -> Vec<RoaringBitmap> {
    let mut out = vec![RoaringBitmap::new(); n_docs as usize];
    for (i, r) in rows.iter().enumerate() {
        for d in r {
            out[d as usize].push(i as u32);
        }
    }
    out
}

/// The prefix-filtered pair counts (as `Context::pair_counts` for `k >= 2`) on Roaring
/// rows: documents' rows as bitmaps, prefixes of the `m - k + 1` rarest rows, candidates
/// as the union of the prefix rows' bitmaps above `a`, shared rows by `intersection_len`.
fn roaring_pairs_prefix(rows: &[RoaringBitmap], n_docs: u32, k: u32) -> Vec<(u32, u32, u32)> {
    let k = k as usize;
    let doc_rows = roaring_doc_rows(rows, n_docs);
    let len: Vec<u64> = rows.iter().map(|r| r.len()).collect();
    let prefixes: Vec<Vec<u32>> = doc_rows
        .par_iter()
        .map(|mine| {
            let m = mine.len() as usize;
            if m < k {
                return Vec::new();
            }
            let mut v: Vec<u32> = mine.iter().collect();
            let p = m - k + 1;
            if p < v.len() {
                v.select_nth_unstable_by_key(p - 1, |&r| (len[r as usize], r));
                v.truncate(p);
            }
            v.sort_unstable();
            v
        })
        .collect();
    let mut pdocs = vec![RoaringBitmap::new(); rows.len()];
    for (a, p) in prefixes.iter().enumerate() {
        for &r in p {
            pdocs[r as usize].push(a as u32);
        }
    }
    (0..n_docs)
        .into_par_iter()
        .map(|a| {
            let mut cand = RoaringBitmap::new();
            for &r in &prefixes[a as usize] {
                cand |= &pdocs[r as usize];
            }
            cand.remove_range(..=a);
            let ra = &doc_rows[a as usize];
            cand.iter()
                .filter_map(|b| {
                    let c = ra.intersection_len(&doc_rows[b as usize]) as u32;
                    (c as usize >= k).then_some((a, b, c))
                })
                .collect::<Vec<_>>()
        })
        .flatten_iter()
        .collect()
}

/// The counting form at k = 1 on Roaring rows: per document, a dense counter over the
/// documents after it in each of its rows.
fn roaring_pairs_k1(rows: &[RoaringBitmap], n_docs: u32) -> Vec<(u32, u32, u32)> {
    let doc_rows = roaring_doc_rows(rows, n_docs);
    (0..n_docs)
        .into_par_iter()
        .map_init(
            || (vec![0u32; n_docs as usize], Vec::<u32>::new()),
            |(counts, touched), a| {
                for r in &doc_rows[a as usize] {
                    for b in rows[r as usize].range(a + 1..) {
                        let c = &mut counts[b as usize];
                        if *c == 0 {
                            touched.push(b);
                        }
                        *c += 1;
                    }
                }
                touched.sort_unstable();
                let v: Vec<_> = touched
                    .iter()
                    .map(|&b| (a, b, std::mem::take(&mut counts[b as usize])))
                    .collect();
                touched.clear();
                v
            },
        )
        .flatten_iter()
        .collect()
}

/// Row pairs to intersect: every two consecutive rows of every document (all rows, and
/// rows of at least `min_len` documents only).
fn row_pairs(ctx: &Context, min_len: usize) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for rs in ctx.to_transactions(Orientation::DocRows).iter() {
        let big: Vec<u32> = rs
            .iter()
            .copied()
            .filter(|&r| ctx.row(r as usize).len() >= min_len)
            .collect();
        out.extend(big.windows(2).map(|w| (w[0], w[1])));
    }
    out
}

fn csr_row_and(ctx: &Context, pairs: &[(u32, u32)]) -> usize {
    pairs
        .par_iter()
        .map(|&(x, y)| intersection_size(ctx.row(x as usize), ctx.row(y as usize)))
        .sum()
}

fn roaring_row_and(rows: &[RoaringBitmap], pairs: &[(u32, u32)]) -> u64 {
    pairs
        .par_iter()
        .map(|&(x, y)| rows[x as usize].intersection_len(&rows[y as usize]))
        .sum()
}

/// The miner's input from Roaring rows, in the given orientation.
fn roaring_transactions(rows: &[RoaringBitmap], n_docs: u32, o: Orientation) -> Transactions {
    match o {
        Orientation::ShingleRows => {
            let mut t = Transactions::new();
            let mut buf = Vec::new();
            for r in rows {
                buf.clear();
                buf.extend(r.iter());
                t.push(&buf);
            }
            t
        }
        Orientation::DocRows => Transactions::from_rows(
            roaring_doc_rows(rows, n_docs)
                .iter()
                .map(|r| r.iter().collect::<Vec<u32>>()),
        ),
    }
}

fn csr_pairs(ctx: &Context, k: u32) -> Vec<(u32, u32, u32)> {
    ctx.pair_counts(k)
        .into_iter()
        .map(|(a, b, c)| (a.0, b.0, c))
        .collect()
}

/// The keys of every document of a corpus generated from `eval/peers/corpus.json` with
/// `docs` documents, sketched with the default pipeline.
fn generated_keys(docs: usize) -> Vec<Vec<u64>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cfg = fimdup::gen::read_config(&root.join("eval/peers/corpus.json")).unwrap();
    cfg.docs = docs;
    let dir = tempfile::tempdir().unwrap();
    fimdup::gen::generate_to_dir(&cfg, dir.path()).unwrap();
    let out = fimdup::sketch::pipeline::sketch_corpus(
        &dir.path().join("docs.jsonl"),
        &fimdup::sketch::pipeline::PipelineConfig::default(),
        &|_| {},
    )
    .unwrap();
    let scheme = out.images.params.sketch.scheme;
    out.images
        .images
        .iter()
        .map(|im| {
            let mut v = Vec::new();
            im.keys(scheme, &mut v);
            v
        })
        .collect()
}

fn file_keys(paths: &str) -> Vec<Vec<u64>> {
    let paths: Vec<&str> = paths.split(',').collect();
    let inputs = fimdup::sketch::ImageInputs::open(&paths).unwrap();
    let scheme = inputs.params().sketch.scheme;
    let mut keys: Vec<Vec<u64>> = Vec::new();
    inputs
        .for_each(|d, _, im| {
            let d = d.index();
            if keys.len() <= d {
                keys.resize_with(d + 1, Vec::new);
            }
            im.keys(scheme, &mut keys[d]);
            Ok(())
        })
        .unwrap();
    keys
}

/// Bytes of the rows in Roaring's serialized form (as the index's files hold them).
fn serialized(rows: &[RoaringBitmap]) -> usize {
    rows.iter().map(|r| r.serialized_size()).sum()
}

fn sizes(name: &str, ctx: &Context, ctx_bytes: usize, rows: &[RoaringBitmap], rows_bytes: usize) {
    let st = ctx.stats();
    let keys = 8 * ctx.len();
    eprintln!(
        "context {name}: {} docs, {} rows, {} incidences, largest row {}",
        st.documents, st.rows, st.incidences, st.max_row
    );
    eprintln!(
        "  heap: csr {} B ({:.2} B/incidence, keys {keys} B included); roaring rows {} B + keys {keys} B = {} B ({:.2} B/incidence); roaring serialized {} B",
        ctx_bytes,
        ctx_bytes as f64 / st.incidences as f64,
        rows_bytes,
        rows_bytes + keys,
        (rows_bytes + keys) as f64 / st.incidences as f64,
        serialized(rows)
    );
}

fn bench(c: &mut Criterion) {
    for docs in [5_000usize, 50_000] {
        let keys = generated_keys(docs);
        let cfg = ContextConfig::default();
        let name = format!("{}k", docs / 1000);
        let (ctx, ctx_bytes) =
            retained(|| Context::from_doc_keys(&keys, &cfg, &SpillConfig::default()).unwrap());
        let (rows, rows_bytes) = retained(|| to_roaring(&ctx));
        sizes(&name, &ctx, ctx_bytes, &rows, rows_bytes);
        let n = ctx.n_docs();
        assert_eq!(roaring_pairs_prefix(&rows, n, K), csr_pairs(&ctx, K));
        assert_eq!(roaring_pairs_k1(&rows, n), csr_pairs(&ctx, 1));
        let all = row_pairs(&ctx, 2);
        let big = row_pairs(&ctx, 64);
        assert_eq!(csr_row_and(&ctx, &all) as u64, roaring_row_and(&rows, &all));
        eprintln!(
            "  row pairs: {} (both rows of 64 documents or more: {})",
            all.len(),
            big.len()
        );

        let mut g = c.benchmark_group(format!("context/{name}"));
        g.sample_size(10)
            .warm_up_time(std::time::Duration::from_secs(1))
            .measurement_time(std::time::Duration::from_secs(3));
        g.bench_function(BenchmarkId::new("build", "csr"), |b| {
            b.iter(|| Context::from_doc_keys(&keys, &cfg, &SpillConfig::default()).unwrap())
        });
        g.bench_function(BenchmarkId::new("convert", "roaring"), |b| {
            b.iter(|| to_roaring(&ctx))
        });
        g.bench_function(BenchmarkId::new("pairs_k112", "csr"), |b| {
            b.iter(|| ctx.pair_counts(K))
        });
        g.bench_function(BenchmarkId::new("pairs_k112", "roaring"), |b| {
            b.iter(|| roaring_pairs_prefix(&rows, n, K))
        });
        g.bench_function(BenchmarkId::new("pairs_k1", "csr"), |b| {
            b.iter(|| ctx.pair_counts(1))
        });
        g.bench_function(BenchmarkId::new("pairs_k1", "roaring"), |b| {
            b.iter(|| roaring_pairs_k1(&rows, n))
        });
        for (what, pairs) in [("row_and_all", &all), ("row_and_64", &big)] {
            g.bench_function(BenchmarkId::new(what, "csr"), |b| {
                b.iter(|| csr_row_and(&ctx, pairs))
            });
            g.bench_function(BenchmarkId::new(what, "roaring"), |b| {
                b.iter(|| roaring_row_and(&rows, pairs))
            });
        }
        for o in [Orientation::ShingleRows, Orientation::DocRows] {
            let what = format!("miner_input_{o:?}");
            g.bench_function(BenchmarkId::new(&what, "csr"), |b| {
                b.iter(|| ctx.to_transactions(o))
            });
            g.bench_function(BenchmarkId::new(&what, "roaring"), |b| {
                b.iter(|| roaring_transactions(&rows, n, o))
            });
        }
        g.finish();
    }
}

/// Peak resident set size so far (VmHWM), in bytes.
fn peak_rss() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Resets the peak RSS to the current RSS (Linux >= 4.0).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// One timed run of `f`, printed with the heap it left and the peak RSS during it.
fn once<T>(what: &str, f: impl FnOnce() -> T) -> T {
    reset_peak();
    let before = live();
    let t = Instant::now();
    let x = f();
    eprintln!(
        "  {what}: {:.3} s, heap left {} B, peak RSS {} MiB",
        t.elapsed().as_secs_f64(),
        live() as i64 - before as i64,
        peak_rss() >> 20
    );
    x
}

/// One run of every operation but k = 1 on one representation of an images file's context.
fn one_shot(images: &str, repr: &str) {
    let keys = once("read keys", || file_keys(images));
    let cfg = ContextConfig::default();
    let (ctx, ctx_bytes) = retained(|| {
        once("build csr", || {
            Context::from_doc_keys(&keys, &cfg, &SpillConfig::default())
        })
    });
    let ctx = ctx.unwrap();
    drop(keys);
    let n = ctx.n_docs();
    let all = row_pairs(&ctx, 2);
    let big = row_pairs(&ctx, 64);
    eprintln!(
        "{images} ({repr}): csr heap {ctx_bytes} B; row pairs {} (of rows >= 64: {})",
        all.len(),
        big.len()
    );
    match repr {
        "csr" => {
            let p = once("pairs_k112 csr", || ctx.pair_counts(K));
            eprintln!("  {} pairs", p.len());
            once("row_and_all csr", || csr_row_and(&ctx, &all));
            once("row_and_64 csr", || csr_row_and(&ctx, &big));
            for o in [Orientation::ShingleRows, Orientation::DocRows] {
                once(&format!("miner_input_{o:?} csr"), || ctx.to_transactions(o));
            }
        }
        "roaring" => {
            let (rows, rows_bytes) = retained(|| once("convert roaring", || to_roaring(&ctx)));
            sizes(images, &ctx, ctx_bytes, &rows, rows_bytes);
            drop(ctx);
            let p = once("pairs_k112 roaring", || roaring_pairs_prefix(&rows, n, K));
            eprintln!("  {} pairs", p.len());
            once("row_and_all roaring", || roaring_row_and(&rows, &all));
            once("row_and_64 roaring", || roaring_row_and(&rows, &big));
            for o in [Orientation::ShingleRows, Orientation::DocRows] {
                once(&format!("miner_input_{o:?} roaring"), || {
                    roaring_transactions(&rows, n, o)
                });
            }
        }
        _ => panic!("CONTEXT_BENCH_REPR must be csr or roaring"),
    }
}

fn main() {
    if let Ok(images) = std::env::var("CONTEXT_BENCH_IMAGES") {
        let repr = std::env::var("CONTEXT_BENCH_REPR").unwrap_or_else(|_| "csr".into());
        one_shot(&images, &repr);
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
