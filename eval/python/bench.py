#!/usr/bin/env python3
"""Benchmark of the `fimdup` Python package against the Python peers, everything in ONE
Python process; see eval/python/run.sh, which makes the venv and the corpus and calls this.

1. Dedup at resemblance >= THRESHOLD on the peers corpus (eval/peers/corpus.json, made by
   `fimdup gen`; docs.jsonl + truth.csv). The documents are read from docs.jsonl into a list
   of Python `str` BEFORE any timing; every tool starts from that list:
     fimdup      fimdup.cluster(texts, ids, method=M, threshold=T[, verify="exact"]), the
                 `.pairs` table fetched inside the timed call (all cores, its default; one
                 row also with threads=1);
     rensa       RMinHash(num_perm=128, seed=42).update(shingles) + RMinHashLSH(T, 128,
                 num_bands=16): insert all, query each, keep candidates whose
                 RMinHash.jaccard >= T (exactly as eval/peers/bench.py);
     datasketch  MinHash.bulk(num_perm=128) + MinHashLSH(T, num_perm=128): insert all, query
                 each; its candidates are the pairs (as eval/peers/bench.py); a second row
                 adds the filter MinHash.jaccard >= T, timed in the same run.
   Peers tokenize in Python (lowercased \\w+ words, word 5-shingles), as eval/peers/bench.py.
   Wall seconds (time.perf_counter around the call), median over interleaved rounds (one run
   of every tool per round; peers only in the first --peer-repeat rounds); precision, recall,
   F1 of the reported pairs against the exact truth (truth.csv rows with resemblance >= T).
   Input variants for fimdup (method concept, no verify): list of str, pyarrow string and
   large_string arrays, pandas Series (default dtype and object dtype), a pathlib.Path to
   docs.jsonl (read by Rust), and the CLI `fimdup cluster` as a subprocess for reference;
   conversions are made before timing.
2. Miner: fimdup.mine(transactions, minsup, target="maximal") against
   fim.fpgrowth(transactions, target="m", supp=-minsup) (pyfim; itemsets materialized as
   Python tuples by both), FIMI files of datasets/fimi read into Python lists of
   ints before timing; interleaved rounds; counts and the sets of (itemset, support) compared.

Usage: bench.py --corpus DIR --out FILE [--bin FIMDUP] [--work DIR] [--limit N]
                [--repeat 7] [--peer-repeat 3] [--skip dedup|mine|variants|peers]
                [--mine chess:959,chess:640,retail:9,retail:3] [--note TEXT] [--command TEXT]
"""
import argparse
import csv
import gc
import importlib.metadata
import json
import os
import pathlib
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
FIMI = os.path.join(ROOT, "datasets", "fimi")
NUM_PERM = 128
SHINGLE = 5
WORD = re.compile(r"\w+")


def log(msg):
    print(f"[python-bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def sh(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, shell=True).stdout.strip()
    except Exception:  # noqa: BLE001 - informative only
        return "?"


def loadavg():
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


# ---------------------------------------------------------------- peers (as eval/peers/bench.py)


def tokens(text):
    return WORD.findall(text.lower())


def shingles(text):
    t = tokens(text)
    if len(t) < SHINGLE:
        return [" ".join(t)] if t else []
    return [" ".join(t[i : i + SHINGLE]) for i in range(len(t) - SHINGLE + 1)]


def run_datasketch(texts, threshold):
    """Returns (seconds, {"datasketch": pairs, "datasketch + jaccard filter": pairs},
    {row: seconds}): the LSH candidates (eval/peers/bench.py's usage) and, timed on top in
    the same run, the candidates whose MinHash.jaccard >= threshold."""
    from datasketch import MinHash, MinHashLSH

    t0 = time.perf_counter()
    mhs = MinHash.bulk(
        ([s.encode("utf-8") for s in shingles(t)] for t in texts), num_perm=NUM_PERM
    )
    lsh = MinHashLSH(threshold=threshold, num_perm=NUM_PERM)
    with lsh.insertion_session() as sess:
        for i, m in enumerate(mhs):
            sess.insert(i, m)
    pairs = []
    for i, m in enumerate(mhs):
        for j in lsh.query(m):
            if j > i:
                pairs.append((i, j))
    t1 = time.perf_counter()
    kept = [(i, j) for i, j in pairs if mhs[i].jaccard(mhs[j]) >= threshold]
    t2 = time.perf_counter()
    return {
        "datasketch": (t1 - t0, pairs),
        "datasketch + jaccard >= T": (t2 - t0, kept),
    }


def run_rensa(texts, threshold):
    from rensa import RMinHash, RMinHashLSH

    t0 = time.perf_counter()
    mhs = []
    for t in texts:
        m = RMinHash(num_perm=NUM_PERM, seed=42)
        m.update(shingles(t))
        mhs.append(m)
    lsh = RMinHashLSH(threshold=threshold, num_perm=NUM_PERM, num_bands=16)
    for i, m in enumerate(mhs):
        lsh.insert(i, m)
    pairs = []
    for i, m in enumerate(mhs):
        for j in lsh.query(m):
            if j > i and m.jaccard(mhs[j]) >= threshold:
                pairs.append((i, j))
    return {"rensa": (time.perf_counter() - t0, pairs)}


# ---------------------------------------------------------------- fimdup


def fimdup_runner(name, texts, ids, threshold, **kw):
    import fimdup

    def f():
        t0 = time.perf_counter()
        res = fimdup.cluster(texts, ids, threshold=threshold, **kw)
        tab = res.pairs
        secs = time.perf_counter() - t0
        return {name: (secs, tab)}

    return f


def cli_runner(name, binary, docs, threshold, out_dir):
    def f():
        t0 = time.perf_counter()
        subprocess.run(
            [binary, "cluster", docs, "--method", "concept", "--threshold", str(threshold),
             "--out", out_dir],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        secs = time.perf_counter() - t0
        return {name: (secs, os.path.join(out_dir, "pairs.csv"))}

    return f


# ---------------------------------------------------------------- scoring


def to_id_pairs(obj, ids):
    """Set of (min id, max id) from: a list of (i, j) positions, a pyarrow Table with a, b,
    or a pairs.csv path."""
    out = set()
    if isinstance(obj, str):
        with open(obj) as f:
            r = csv.reader(f)
            next(r)
            for row in r:
                a, b = row[0], row[1]
                out.add((min(a, b), max(a, b)))
        return out
    if hasattr(obj, "column"):
        a = obj.column("a").to_pylist()
        b = obj.column("b").to_pylist()
        for x, y in zip(a, b):
            x, y = str(x), str(y)
            out.add((min(x, y), max(x, y)))
        return out
    for i, j in obj:
        x, y = ids[i], ids[j]
        if x != y:
            out.add((min(x, y), max(x, y)))
    return out


def prf(pred, truth):
    tp = len(pred & truth)
    p = tp / len(pred) if pred else 1.0
    r = tp / len(truth) if truth else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def read_corpus(corpus, limit):
    ids, texts = [], []
    with open(os.path.join(corpus, "docs.jsonl"), encoding="utf-8") as f:
        for line in f:
            if limit and len(ids) >= limit:
                break
            d = json.loads(line)
            ids.append(d["id"])
            texts.append(d["text"])
    return ids, texts


def read_truth(corpus, threshold, idset):
    out = set()
    with open(os.path.join(corpus, "truth.csv")) as f:
        for r in csv.DictReader(f):
            if float(r["resemblance"]) >= threshold and r["a"] in idset and r["b"] in idset:
                a, b = r["a"], r["b"]
                out.add((min(a, b), max(a, b)))
    return out


# ---------------------------------------------------------------- rounds


def interleaved(runners, rounds, log_prefix):
    """runners: list of (callable returning {row: (secs, raw)}, number of rounds for it).
    One run of each runner per round while its count lasts. Returns {row: [secs...]} and
    {row: raw of the last run}."""
    times, raws = {}, {}
    for r in range(rounds):
        for fn, n in runners:
            if r >= n:
                continue
            gc.collect()
            res = fn()
            for row, (secs, raw) in res.items():
                times.setdefault(row, []).append(secs)
                raws[row] = raw
                log(f"{log_prefix} round {r + 1}: {row} {secs:.3f} s")
            del res
    return times, raws


def med(xs):
    return statistics.median(xs)


# ---------------------------------------------------------------- 1. dedup


def bench_dedup(a, L, info):
    import fimdup

    t = a.threshold
    log(f"reading {a.corpus}/docs.jsonl" + (f" (first {a.limit})" if a.limit else ""))
    ids, texts = read_corpus(a.corpus, a.limit)
    truth = read_truth(a.corpus, t, set(ids))
    log(f"{len(texts)} docs, {len(truth)} truth pairs at resemblance >= {t}")
    info["ndocs"], info["ntruth"] = len(texts), len(truth)

    # warm-up (imports, thread pool): untimed, on a small slice
    w = min(2000, len(texts))
    fimdup.cluster(texts[:w], ids[:w], method="concept", threshold=t).pairs
    if "peers" not in a.skip:
        run_rensa(texts[:200], t)
        run_datasketch(texts[:200], t)

    fim_rows = [
        ("fimdup concept", dict(method="concept")),
        ("fimdup concept verify=exact", dict(method="concept", verify="exact")),
        ("fimdup lsh", dict(method="lsh")),
        ("fimdup lsh verify=exact", dict(method="lsh", verify="exact")),
        ("fimdup concept threads=1", dict(method="concept", threads=1)),
        ("fimdup concept verify=exact threads=1", dict(method="concept", verify="exact", threads=1)),
    ]
    runners = [(fimdup_runner(n, texts, ids, t, **kw), a.repeat) for n, kw in fim_rows]
    peer_rows = []
    if "peers" not in a.skip:
        runners.append((lambda: run_rensa(texts, t), a.peer_repeat))
        runners.append((lambda: run_datasketch(texts, t), a.peer_repeat))
        peer_rows = ["rensa", "datasketch", "datasketch + jaccard >= T"]
    rounds = max(a.repeat, a.peer_repeat if peer_rows else 0)
    load0 = loadavg()
    times, raws = interleaved(runners, rounds, "dedup")
    load1 = loadavg()
    info["loads"].append(("dedup", load0, load1))

    scored = {}
    for row in [n for n, _ in fim_rows] + peer_rows:
        pred = to_id_pairs(raws[row], ids)
        scored[row] = (med(times[row]), len(pred), prf(pred, truth), pred)
    base = scored["fimdup concept"][0]

    L.append(f"## 1. Dedup at resemblance >= {t}: fimdup.cluster against the MinHash LSH peers\n")
    L.append(
        f"{len(texts)} documents already in memory as a Python `list` of `str` (read from "
        "docs.jsonl before timing), ids = the corpus ids (`str`). Wall seconds of the call in "
        "this process (`time.perf_counter`), median over interleaved rounds: fimdup "
        f"{a.repeat} rounds, each peer {min(a.peer_repeat, rounds) if peer_rows else 0}. fimdup "
        "uses all cores by default (`threads=None`) and returns a `Result` whose `.pairs` "
        "(pyarrow Table) is fetched inside the timed call; rensa and datasketch run on one "
        "thread and tokenize in Python. Precision / recall / F1 of the reported pairs against "
        f"the exact truth ({len(truth)} pairs of truth.csv with resemblance >= {t}).\n"
    )
    L.append("| tool | call | rounds | wall s (median) | pairs | precision | recall | F1 | wall / fimdup concept |")
    L.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    calls = {
        "fimdup concept": f'`cluster(texts, ids, method="concept", threshold={t})`',
        "fimdup concept verify=exact": f'`cluster(..., method="concept", threshold={t}, verify="exact")`',
        "fimdup lsh": f'`cluster(..., method="lsh", threshold={t})`',
        "fimdup lsh verify=exact": f'`cluster(..., method="lsh", threshold={t}, verify="exact")`',
        "fimdup concept threads=1": '`cluster(..., method="concept", threads=1)`',
        "fimdup concept verify=exact threads=1": '`cluster(..., method="concept", verify="exact", threads=1)`',
        "rensa": f"RMinHash(128, seed=42) + RMinHashLSH({t}, 128, num_bands=16), keep jaccard >= {t}",
        "datasketch": f"MinHash.bulk(num_perm=128) + MinHashLSH({t}, 128), candidates",
        "datasketch + jaccard >= T": f"the same run, then keep MinHash.jaccard >= {t}",
    }
    for row, (w_, n, (p, r, f), _) in scored.items():
        label = row.replace("jaccard >= T", f"jaccard >= {t}")
        L.append(
            f"| {label} | {calls[row]} | {len(times[row])} | {w_:.3f} | {n} | {p:.4f} | {r:.4f} | "
            f"{f:.4f} | {w_ / base:.2f} |"
        )
    L.append("")
    if peer_rows:
        fcols = ["fimdup concept", "fimdup concept verify=exact", "fimdup lsh verify=exact",
                 "fimdup concept threads=1"]
        L.append("Ratio peer wall / fimdup wall (medians of the table above; > 1: fimdup is faster):\n")
        L.append("| peer | " + " | ".join(fcols) + " |")
        L.append("|---|" + "---:|" * len(fcols))
        for pr in peer_rows:
            label = pr.replace("jaccard >= T", f"jaccard >= {t}")
            L.append(f"| {label} | " + " | ".join(f"{scored[pr][0] / scored[c][0]:.1f}" for c in fcols) + " |")
        L.append("")
    L.append(
        "Every round, in seconds: "
        + "; ".join(
            f"{row.replace('jaccard >= T', f'jaccard >= {t}')}: " + ", ".join(f"{x:.3f}" for x in times[row])
            for row in scored
        )
        + ".\n"
    )
    L.append(f"Load average (1/5/15 min) before / after this section: {load0}; {load1}.\n")
    return ids, texts, scored


# ---------------------------------------------------------------- 1b. input variants


def bench_variants(a, L, info, ids, texts, ref_pairs):
    import pandas as pd
    import pyarrow as pa

    t = a.threshold
    work = a.work
    os.makedirs(work, exist_ok=True)
    if a.limit:
        docs = os.path.join(work, f"docs-{len(texts)}.jsonl")
        with open(docs, "w", encoding="utf-8") as f:
            for i, x in zip(ids, texts):
                f.write(json.dumps({"id": i, "text": x}) + "\n")
    else:
        docs = os.path.join(a.corpus, "docs.jsonl")

    log("converting inputs (untimed)")
    c0 = time.perf_counter()
    arr = pa.array(texts, type=pa.string())
    c_arr = time.perf_counter() - c0
    c0 = time.perf_counter()
    larr = pa.array(texts, type=pa.large_string())
    c_larr = time.perf_counter() - c0
    c0 = time.perf_counter()
    ser = pd.Series(texts)
    c_ser = time.perf_counter() - c0
    c0 = time.perf_counter()
    sero = pd.Series(texts, dtype=object)
    c_sero = time.perf_counter() - c0
    path = pathlib.Path(docs)
    variants = [
        ("list of str", texts, ids, "-", "`list`"),
        ("pyarrow Array string", arr, ids, f"{c_arr:.3f}", f"`pa.array(texts, pa.string())` ({type(arr).__name__})"),
        ("pyarrow Array large_string", larr, ids, f"{c_larr:.3f}", "`pa.array(texts, pa.large_string())`"),
        ("pandas Series (default dtype)", ser, ids, f"{c_ser:.3f}", f"`pd.Series(texts)`, dtype `{ser.dtype}` ({type(ser.array).__name__})"),
        ("pandas Series object", sero, ids, f"{c_sero:.3f}", "`pd.Series(texts, dtype=object)`"),
        ("pathlib.Path docs.jsonl", path, None, "-", "`pathlib.Path(docs.jsonl)`, read and parsed by Rust inside the call, ids from the file"),
    ]
    runners = [
        (fimdup_runner(name, x, i, t, method="concept"), a.repeat) for name, x, i, _, _ in variants
    ]
    descr = {name: (conv, d) for name, _, _, conv, d in variants}
    if a.bin:
        out_dir = os.path.join(work, "cli-concept")
        runners.append((cli_runner("CLI fimdup cluster (subprocess)", a.bin, docs, t, out_dir), a.repeat))
        descr["CLI fimdup cluster (subprocess)"] = (
            "-", f"`{os.path.basename(a.bin)} cluster docs.jsonl --method concept --threshold {t} --out DIR` via subprocess.run (process start, read, files written)"
        )
    load0 = loadavg()
    times, raws = interleaved(runners, a.repeat, "variants")
    load1 = loadavg()
    info["loads"].append(("input variants", load0, load1))
    base = med(times["list of str"])
    L.append("### Input variants (fimdup.cluster, method concept, no verify)\n")
    L.append(
        "The same documents handed over in different containers; conversions were made before "
        "timing (their time is given apart). Median of "
        f"{a.repeat} interleaved rounds. \"same pairs\": the reported pairs equal those of the "
        "list-of-str call (of section 1).\n"
    )
    L.append("| input | how | conversion s (untimed) | wall s (median) | wall / list of str | same pairs |")
    L.append("|---|---|---:|---:|---:|---|")
    for row, xs in times.items():
        pred = to_id_pairs(raws[row], ids)
        conv, d = descr[row]
        L.append(
            f"| {row} | {d} | {conv} | {med(xs):.3f} | {med(xs) / base:.2f} | "
            f"{'yes' if pred == ref_pairs else f'no ({len(pred)} pairs)'} |"
        )
    L.append("")
    L.append(
        "Every round, in seconds: "
        + "; ".join(f"{row}: " + ", ".join(f"{x:.3f}" for x in xs) for row, xs in times.items())
        + ".\n"
    )
    L.append(f"Load average before / after: {load0}; {load1}.\n")


# ---------------------------------------------------------------- 2. miner


def load_fimi(ds):
    import gzip

    for name in (ds + ".dat", ds + ".dat.gz"):
        p = os.path.join(FIMI, name)
        if os.path.exists(p):
            op = gzip.open if p.endswith(".gz") else open
            with op(p, "rt") as f:
                return p, [[int(x) for x in line.split()] for line in f]
    sys.exit("missing dataset " + ds)


def bench_mine(a, L, info):
    import fim
    import fimdup

    settings = []
    for item in a.mine.split(","):
        ds, n = item.split(":")
        settings.append((ds, int(n)))
    data = {}
    for ds, _ in settings:
        if ds not in data:
            log(f"loading {ds}")
            data[ds] = load_fimi(ds)
    rows = []
    load0 = loadavg()
    for ds, n in settings:
        path, tr = data[ds]

        def f_pyfim():
            t0 = time.perf_counter()
            r = fim.fpgrowth(tr, target="m", supp=-n)
            return time.perf_counter() - t0, r

        def f_ours(threads=None):
            def f():
                t0 = time.perf_counter()
                r = fimdup.mine(tr, n, target="maximal", threads=threads)
                return time.perf_counter() - t0, r
            return f

        def f_path():
            t0 = time.perf_counter()
            r = fimdup.mine(path, n, target="maximal")
            return time.perf_counter() - t0, r

        fns = [("pyfim", f_pyfim), ("fimdup", f_ours()), ("fimdup 1T", f_ours(1)), ("fimdup path", f_path)]
        ts = {k: [] for k, _ in fns}
        res = {}
        rounds = None
        r_ = 0
        while rounds is None or r_ < rounds:
            for k, fn in fns:
                res.pop(k, None)
                gc.collect()
                secs, out = fn()
                ts[k].append(secs)
                res[k] = out
                log(f"mine {ds} {n} round {r_ + 1}: {k} {secs:.3f} s ({len(out)} itemsets)")
            if rounds is None:
                slowest = max(x[0] for x in ts.values())
                rounds = a.mine_rounds if slowest < 10 else 1
            r_ += 1
        counts = {k: len(v) for k, v in res.items()}
        # compare the sets of (sorted itemset, support), untimed
        sp = {(tuple(sorted(i)), s) for i, s in res["pyfim"]}
        so = {(tuple(i), s) for i, s in res["fimdup"]}
        same = sp == so
        diff = "" if same else f" ({len(sp - so)} only pyfim, {len(so - sp)} only fimdup)"
        same_path = {(tuple(i), s) for i, s in res["fimdup path"]} == so and \
            {(tuple(i), s) for i, s in res["fimdup 1T"]} == so
        del sp, so, res
        rows.append((ds, n, len(tr), counts, same, diff, same_path, {k: med(v) for k, v in ts.items()}, ts))
    load1 = loadavg()
    info["loads"].append(("miner", load0, load1))

    L.append("## 2. Miner: fimdup.mine against pyfim's fpgrowth (maximal itemsets)\n")
    L.append(
        "FIMI files of `datasets/fimi/` read into Python lists of lists of int before "
        "timing. pyfim: `fim.fpgrowth(transactions, target=\"m\", supp=-minsup)` (negative = "
        "absolute support; returns a list of (itemset tuple, support)). fimdup: "
        "`fimdup.mine(transactions, minsup, target=\"maximal\")` (all cores; also threads=1, "
        "and the file path given instead of the lists, parsed by Rust inside the call); it "
        "returns a list of (items, support). Both materialize every itemset as Python objects. "
        "Interleaved rounds (one run of each per round), median of "
        f"{a.mine_rounds} rounds (1 when the slowest first run takes >= 10 s). \"same set\": "
        "the sets of (sorted itemset, support) of pyfim and fimdup are equal (checked on every "
        "setting; the threads=1 and path results equal the default one: "
        + ("yes on every setting" if all(r[6] for r in rows) else "NOT on every setting") + ").\n"
    )
    L.append("| dataset | minsup | rounds | pyfim itemsets | fimdup itemsets | same set | pyfim s | fimdup s | fimdup threads=1 s | fimdup path s | pyfim / fimdup | pyfim / fimdup threads=1 |")
    L.append("|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for ds, n, ntr, counts, same, diff, _, m, ts in rows:
        L.append(
            f"| {ds} | {n} ({100 * n / ntr:.3g}%) | {len(ts['pyfim'])} | {counts['pyfim']} | {counts['fimdup']} | "
            f"{'yes' if same else 'no' + diff} | {m['pyfim']:.3f} | {m['fimdup']:.3f} | {m['fimdup 1T']:.3f} | "
            f"{m['fimdup path']:.3f} | {m['pyfim'] / m['fimdup']:.2f} | {m['pyfim'] / m['fimdup 1T']:.2f} |"
        )
    L.append("")
    L.append(
        "Every round, in seconds: "
        + "; ".join(
            f"{ds} {n} " + ", ".join(f"{k} " + "/".join(f"{x:.3f}" for x in v) for k, v in ts.items())
            for ds, n, _, _, _, _, _, _, ts in rows
        )
        + ".\n"
    )
    L.append(f"Load average before / after: {load0}; {load1}.\n")


# ---------------------------------------------------------------- report


def versions():
    out = {}
    for k in ["fimdup", "datasketch", "rensa", "pyfim", "numpy", "pyarrow", "pandas"]:
        try:
            out[k] = importlib.metadata.version(k)
        except Exception:  # noqa: BLE001
            out[k] = "?"
    if out["fimdup"] == "?":
        try:
            import fimdup

            out["fimdup"] = getattr(fimdup, "__version__", "?")
        except Exception:  # noqa: BLE001
            pass
    try:
        import fimdup

        out["fimdup"] += f" (git {getattr(fimdup, '__git_hash__', '?')})"
    except Exception:  # noqa: BLE001
        pass
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True, help="dir with docs.jsonl and truth.csv")
    ap.add_argument("--out", required=True)
    ap.add_argument("--bin", default=None, help="fimdup CLI binary (a reference row; its version)")
    ap.add_argument("--work", default=None, help="scratch dir (default: a temporary dir)")
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--limit", type=int, default=0, help="only the first N documents")
    ap.add_argument("--repeat", type=int, default=7, help="fimdup rounds (median reported)")
    ap.add_argument("--peer-repeat", type=int, default=3, help="rounds of each peer")
    ap.add_argument("--mine", default="chess:959,chess:640,retail:9,retail:3",
                    help="dataset:minsup_abs,... (maximal)")
    ap.add_argument("--mine-rounds", type=int, default=3)
    ap.add_argument("--skip", default="", help="comma list of: dedup, variants, peers, mine")
    ap.add_argument("--note", default="")
    ap.add_argument("--command", default=None, help="the command line to record")
    a = ap.parse_args()
    a.skip = set(x for x in a.skip.split(",") if x)
    tmp = None
    if a.work is None:
        tmp = tempfile.TemporaryDirectory(prefix="fimdup-pybench-")
        a.work = tmp.name
    os.makedirs(a.work, exist_ok=True)

    import fimdup  # noqa: F401 - fails early when the package is missing

    info = {"loads": []}
    load_start = loadavg()
    body = []
    if "dedup" not in a.skip:
        ids, texts, scored = bench_dedup(a, body, info)
        if "variants" not in a.skip:
            bench_variants(a, body, info, ids, texts, scored["fimdup concept"][3])
        del ids, texts, scored
        gc.collect()
    if "mine" not in a.skip:
        bench_mine(a, body, info)
    load_end = loadavg()

    v = versions()
    rev = sh(f"git -C {ROOT} rev-parse --short HEAD")
    st = [x for x in sh(f"git -C {ROOT} status --porcelain").splitlines() if x.strip()]
    modified = sum(1 for x in st if not x.startswith("??"))
    untracked = [x[3:] for x in st if x.startswith("??")]
    tree = ""
    if modified or untracked:
        tree = (f" plus uncommitted work in the tree ({modified} tracked files modified; untracked: "
                + (", ".join(untracked) if untracked else "none") + ")")
    cli_v = sh(f"{a.bin} --version") if a.bin else None
    cmd = a.command or " ".join([os.path.relpath(sys.executable)] + sys.argv)
    L = ["# fimdup Python package against the Python peers\n"]
    L.append(
        f"Generated by `eval/python/bench.py` (via `eval/python/run.sh`), "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, one Python process. Command: "
        f"`{cmd}`.\n"
    )
    L.append(
        f"- Machine: {os.cpu_count()} cores, {sh('grep MemTotal /proc/meminfo')}, "
        f"{platform.platform()}; load average (1/5/15 min) at start {load_start}, at end "
        f"{load_end} (per section below)."
    )
    if a.note:
        L.append(f"- Note: {a.note}")
    L.append(
        f"- Versions: fimdup package {v['fimdup']}"
        + (f" (CLI reference and corpus generator: {cli_v}, binary built "
           + time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(os.path.getmtime(a.bin))) + ")" if cli_v else "")
        + f", scripts at git {rev}"
        + tree
        + f"; Python {platform.python_version()}, "
        + ", ".join(f"{k} {x}" for k, x in v.items() if k != "fimdup")
        + "."
    )
    if "ndocs" in info:
        L.append(
            f"- Corpus: {info['ndocs']} documents of `fimdup gen --config eval/peers/corpus.json` "
            f"(the corpus of eval/results/peers.md: 250-350 words, 20 % in edit families){', first ' + str(a.limit) + ' only' if a.limit else ''}; "
            f"truth: {info['ntruth']} pairs with exact word 5-shingle resemblance >= {a.threshold} "
            "(the generator's truth.csv, as eval/peers/bench.py)."
        )
    L.append("")
    L.extend(body)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        f.write("\n".join(L))
    log(f"wrote {a.out}")
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
