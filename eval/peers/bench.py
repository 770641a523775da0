#!/usr/bin/env python3
"""Side-by-side benchmark of fimdup against the Python MinHash/LSH peers (datasketch, rensa,
gaoya) on one generated corpus, in one run; see eval/peers/run.sh, which makes the venv, the
corpus and calls this.

1. Sketching throughput (documents/s), 128 permutations, word 5-shingles, lowercased \\w+ words:
   - "from raw text": read docs.jsonl + parse + tokenize + shingle + hash + minhash (what
     `fimdup sketch` does; fimdup's time is its whole process, images file written);
   - "bulk hash only": shingles already in Python lists, only the peer's bulk MinHash call.
2. End-to-end dedup at resemblance >= THRESHOLD: wall time and peak RSS of one child process
   per tool (/usr/bin/time -v), and precision / recall / F1 of its pairs against the exact
   truth (pairs with word 5-shingle resemblance >= THRESHOLD, from the generator's truth.csv,
   an exact inverted-index join over the whole corpus, complete above its truth_floor).
3. With --miner: eval/miner/bench.py (pyfim vs `fimdup mine`), its table appended.
fimdup's timings are the median of --repeat runs (default 5; every run is listed in the
report); each peer runs once (seconds long, so less sensitive to a passing load).

Each peer runs with its documented usage:
  datasketch  MinHash.bulk(num_perm=128) + MinHashLSH(threshold, num_perm=128): insert all,
              query each; its candidates are the pairs (datasketch does not verify).
  rensa       RMinHash(num_perm=128, seed=42).update(shingles) + RMinHashLSH(threshold,
              num_perm=128, num_bands=16): insert all, query each, keep candidates whose
              RMinHash.jaccard >= threshold (the README's dedup recipe).
  gaoya       gaoya.minhash.MinHashStringIndex(hash_size=32, jaccard_threshold, num_bands=16,
              band_size=8, analyzer='word', lowercase=True, ngram_range=(5, 5)):
              par_bulk_insert_docs + par_bulk_query (its own Rust tokenizer, multi-threaded;
              the query keeps estimated jaccard >= threshold).

Usage: bench.py --bin FIMDUP --corpus DIR --work DIR --out eval/results/peers.md [--miner]
(internal: bench.py _worker TOOL TASK DOCS OUT)
"""
import argparse
import csv
import json
import os
import platform
import random
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
NUM_PERM = 128
SHINGLE = 5
WORD = re.compile(r"\w+")


# ---------------------------------------------------------------- worker side (child process)


def tokens(text):
    return WORD.findall(text.lower())


def shingles(text):
    t = tokens(text)
    if len(t) < SHINGLE:
        return [" ".join(t)] if t else []
    return [" ".join(t[i : i + SHINGLE]) for i in range(len(t) - SHINGLE + 1)]


def read_docs(path):
    ids, texts = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            ids.append(d["id"])
            texts.append(d["text"])
    return ids, texts


def write_pairs(out, ids, pairs):
    rows = sorted({(min(ids[i], ids[j]), max(ids[i], ids[j])) for i, j in pairs if i != j})
    with open(out, "w") as f:
        for a, b in rows:
            f.write(f"{a},{b}\n")
    return len(rows)


def worker(tool, task, docs, out, threshold):
    res = {}
    t0 = time.perf_counter()
    if task == "bulk":
        ids, texts = read_docs(docs)
        sets = [shingles(t) for t in texts]
        if tool == "datasketch":
            from datasketch import MinHash

            b = [[s.encode("utf-8") for s in ss] for ss in sets]
            t0 = time.perf_counter()
            MinHash.bulk(b, num_perm=NUM_PERM)
        elif tool == "rensa":
            from rensa import RMinHash

            t0 = time.perf_counter()
            RMinHash.digest_matrix_from_token_sets(sets, NUM_PERM, 42)
        res["seconds"] = time.perf_counter() - t0
        res["docs"] = len(ids)
    elif task == "raw":
        if tool == "datasketch":
            from datasketch import MinHash

            t0 = time.perf_counter()
            ids, texts = read_docs(docs)
            MinHash.bulk(
                ([s.encode("utf-8") for s in shingles(t)] for t in texts), num_perm=NUM_PERM
            )
        elif tool == "rensa":
            from rensa import RMinHash

            t0 = time.perf_counter()
            ids, texts = read_docs(docs)
            for t in texts:
                m = RMinHash(num_perm=NUM_PERM, seed=42)
                m.update(shingles(t))
        elif tool == "gaoya":
            import gaoya

            ix = gaoya.minhash.MinHashStringIndex(
                hash_size=32, jaccard_threshold=threshold, num_bands=16, band_size=8,
                analyzer="word", lowercase=True, ngram_range=(SHINGLE, SHINGLE),
            )
            t0 = time.perf_counter()
            ids, texts = read_docs(docs)
            ix.par_bulk_insert_docs(list(range(len(texts))), texts)
        res["seconds"] = time.perf_counter() - t0
        res["docs"] = len(ids)
    elif task == "dedup":
        ids, texts = read_docs(docs)
        pairs = []
        if tool == "datasketch":
            from datasketch import MinHash, MinHashLSH

            mhs = MinHash.bulk(
                ([s.encode("utf-8") for s in shingles(t)] for t in texts), num_perm=NUM_PERM
            )
            lsh = MinHashLSH(threshold=threshold, num_perm=NUM_PERM)
            with lsh.insertion_session() as sess:
                for i, m in enumerate(mhs):
                    sess.insert(i, m)
            for i, m in enumerate(mhs):
                for j in lsh.query(m):
                    if j > i:
                        pairs.append((i, j))
        elif tool == "rensa":
            from rensa import RMinHash, RMinHashLSH

            mhs = []
            for t in texts:
                m = RMinHash(num_perm=NUM_PERM, seed=42)
                m.update(shingles(t))
                mhs.append(m)
            lsh = RMinHashLSH(threshold=threshold, num_perm=NUM_PERM, num_bands=16)
            for i, m in enumerate(mhs):
                lsh.insert(i, m)
            for i, m in enumerate(mhs):
                for j in lsh.query(m):
                    if j > i and m.jaccard(mhs[j]) >= threshold:
                        pairs.append((i, j))
        elif tool == "gaoya":
            import gaoya

            ix = gaoya.minhash.MinHashStringIndex(
                hash_size=32, jaccard_threshold=threshold, num_bands=16, band_size=8,
                analyzer="word", lowercase=True, ngram_range=(SHINGLE, SHINGLE),
            )
            ix.par_bulk_insert_docs(list(range(len(texts))), texts)
            for i, hits in enumerate(ix.par_bulk_query(texts)):
                for j in hits:
                    if j > i:
                        pairs.append((i, j))
        res["pairs"] = write_pairs(out, ids, pairs)
        res["seconds"] = time.perf_counter() - t0
        res["docs"] = len(ids)
    print(json.dumps(res))


# ---------------------------------------------------------------- driver side


def timed_child(cmd, env=None):
    """Runs cmd under /usr/bin/time -v; returns (wall s, peak RSS MiB, stdout)."""
    t0 = time.perf_counter()
    p = subprocess.run(
        ["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True, env=env
    )
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        raise SystemExit(f"failed: {' '.join(cmd)}")
    rss = None
    for line in p.stderr.splitlines():
        if "Maximum resident set size" in line:
            rss = int(line.split(":")[1]) / 1024.0
    return wall, rss, p.stdout


def timed_median(cmd, n):
    """timed_child n times: (median wall s, peak RSS MiB over the runs, stdout, all walls)."""
    runs = [timed_child(cmd) for _ in range(max(1, n))]
    walls = sorted(r[0] for r in runs)
    rss = max((r[1] for r in runs if r[1] is not None), default=None)
    return walls[len(walls) // 2], rss, runs[-1][2], walls


def load_truth(corpus, threshold, work):
    """Pairs with exact resemblance >= threshold, cached in WORK/truth-T.csv."""
    cache = os.path.join(work, f"truth-{threshold:.2f}.csv")
    src = os.path.join(corpus, "truth.csv")
    if not (os.path.exists(cache) and os.path.getmtime(cache) >= os.path.getmtime(src)):
        rows = []
        with open(src) as f:
            for r in csv.DictReader(f):
                if float(r["resemblance"]) >= threshold:
                    rows.append((r["a"], r["b"]))
        tmp = cache + ".tmp"
        with open(tmp, "w") as f:
            for a, b in sorted(rows):
                f.write(f"{a},{b}\n")
        os.replace(tmp, cache)
    return read_pairs(cache)


def read_pairs(path):
    out = set()
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            a, b = line.strip().split(",")[:2]
            if a in ("a", "id_a", "doc_a"):
                continue
            out.add((min(a, b), max(a, b)))
    return out


def read_fimdup_pairs(path):
    out = set()
    with open(path) as f:
        r = csv.reader(f)
        header = next(r)
        for row in r:
            a, b = row[0], row[1]
            out.add((min(a, b), max(a, b)))
    return out, header


def prf(pred, truth):
    tp = len(pred & truth)
    p = tp / len(pred) if pred else 1.0
    r = tp / len(truth) if truth else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def jaccard_exact(ta, tb):
    def sh(t):
        tok = tokens(t)
        if len(tok) < SHINGLE:
            return {tuple(tok)}
        return {tuple(tok[i : i + SHINGLE]) for i in range(len(tok) - SHINGLE + 1)}

    a, b = sh(ta), sh(tb)
    return len(a & b) / len(a | b) if a | b else 0.0


def cross_check(corpus, threshold, truth, preds, n=300, seed=1):
    """Recomputes exact resemblance in Python for a sample of truth pairs and of predicted
    pairs outside the truth: the truth file and this tokenizer must agree."""
    rng = random.Random(seed)
    sample = rng.sample(sorted(truth), min(n, len(truth)))
    outside = sorted(set().union(*preds) - truth)
    sample += rng.sample(outside, min(n, len(outside)))
    need = {x for p in sample for x in p}
    texts = {}
    with open(os.path.join(corpus, "docs.jsonl"), encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            if d["id"] in need:
                texts[d["id"]] = d["text"]
    bad = 0
    for a, b in sample:
        j = jaccard_exact(texts[a], texts[b])
        if (j >= threshold) != ((a, b) in truth):
            bad += 1
    return len(sample), bad


def versions(py):
    out = {}
    code = (
        "import importlib.metadata as m, json;"
        "print(json.dumps({k: m.version(k) for k in ['datasketch','rensa','gaoya','pyfim','numpy','scipy']}))"
    )
    try:
        out = json.loads(subprocess.run([py, "-c", code], capture_output=True, text=True).stdout)
    except Exception:  # noqa: BLE001 - versions are informative only
        pass
    return out


def sh(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, shell=True).stdout.strip()
    except Exception:  # noqa: BLE001
        return "?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--corpus", required=True, help="dir with docs.jsonl and truth.csv")
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--miner", action="store_true")
    ap.add_argument("--peers", default="datasketch,rensa,gaoya")
    ap.add_argument("--note", default="", help="free text put under the machine line")
    ap.add_argument("--repeat", type=int, default=5,
                    help="fimdup runs per measurement (the median is reported); peers run once")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    docs = os.path.join(a.corpus, "docs.jsonl")
    py = sys.executable
    me = os.path.abspath(__file__)
    peers = [p for p in a.peers.split(",") if p]
    t = a.threshold
    loads = [os.getloadavg()]
    log = lambda m: print(f"[peers {time.strftime('%H:%M:%S')}] {m}", file=sys.stderr, flush=True)

    truth = load_truth(a.corpus, t, a.work)
    ndocs = sum(1 for _ in open(docs, encoding="utf-8"))
    log(f"{ndocs} docs, {len(truth)} truth pairs at resemblance >= {t}")

    # 1. sketching throughput
    sketch = []  # (tool, mode, seconds, rss)
    spread = []  # (fimdup measurement, every wall time)
    for tool in peers:
        for task in ["raw", "bulk"]:
            if tool == "gaoya" and task == "bulk":
                continue
            log(f"sketch {tool} {task}")
            wall, rss, out = timed_child([py, me, "_worker", tool, task, docs, os.devnull, str(t)])
            sketch.append((tool, task, json.loads(out.strip().splitlines()[-1])["seconds"], rss))
    for scheme in ["bottom-k", "k-mins"]:
        for th in [1, 2]:
            log(f"sketch fimdup {scheme} threads {th}")
            img = os.path.join(a.work, f"sketch-{scheme}.img")
            wall, rss, _, walls = timed_median(
                [a.bin, "sketch", docs, "--scheme", scheme, "--size", str(NUM_PERM),
                 "--threads", str(th), "--out", img], a.repeat
            )
            sketch.append((f"fimdup {scheme} --threads {th}", "raw", wall, rss))
            spread.append((f"sketch {scheme} --threads {th}", walls))
    loads.append(os.getloadavg())

    # 2. end-to-end dedup
    e2e = []  # (tool, wall, rss, pred pairs set)
    for tool in peers:
        log(f"dedup {tool}")
        pf = os.path.join(a.work, f"pairs-{tool}.csv")
        wall, rss, _ = timed_child([py, me, "_worker", tool, "dedup", docs, pf, str(t)])
        e2e.append((tool, wall, rss, read_pairs(pf)))
    runs = [
        ("concept", []),
        ("concept", ["--verify", "exact"]),
        ("lsh", []),
        ("lsh", ["--verify", "exact"]),
    ]
    for method, extra in runs:
        name = f"fimdup {method}" + (" --verify exact" if extra else "")
        log(f"dedup {name}")
        od = os.path.join(a.work, "out-" + name.replace(" ", "_").replace("--", ""))
        wall, rss, _, walls = timed_median(
            [a.bin, "cluster", docs, "--method", method, "--threshold", str(t), "--out", od] + extra,
            a.repeat,
        )
        spread.append((name, walls))
        pairs, _ = read_fimdup_pairs(os.path.join(od, "pairs.csv"))
        e2e.append((name, wall, rss, pairs))
    loads.append(os.getloadavg())
    checked, bad = cross_check(a.corpus, t, truth, [e[3] for e in e2e])
    log(f"cross-check: {bad} of {checked} sampled pairs disagree with truth.csv")

    # 3. miner
    miner_md = None
    if a.miner:
        log("miner bench")
        mo = os.path.join(a.work, "miner_table.md")
        subprocess.run(
            [py, os.path.join(ROOT, "eval", "miner", "bench.py"), "--bin", a.bin, "--out", mo],
            check=True,
        )
        with open(mo) as f:
            miner_md = f.read()
        loads.append(os.getloadavg())

    # report
    v = versions(py)
    fim_v = sh(f"{a.bin} --version")
    rev = sh(f"git -C {ROOT} rev-parse --short HEAD")
    L = []
    L.append("# fimdup against its peers\n")
    L.append(
        f"Generated by `eval/peers/run.sh` (`eval/peers/bench.py`), {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.\n"
    )
    L.append(
        f"- Machine: {os.cpu_count()} cores, {sh('grep MemTotal /proc/meminfo')}, "
        f"{platform.platform()}; load average (1/5/15 min) at start, after sketching, after dedup"
        + (", after miner" if a.miner else "")
        + ": "
        + "; ".join("/".join(f"{x:.2f}" for x in l) for l in loads)
    )
    if a.note:
        L.append(f"- Note: {a.note}")
    L.append(
        f"- Versions: {fim_v} (the binary's own build commit; scripts at git {rev}), Python {platform.python_version()}, "
        + ", ".join(f"{k} {x}" for k, x in v.items())
    )
    L.append(
        f"- Corpus: {ndocs} documents from `fimdup gen --config eval/peers/corpus.json` "
        f"(250-350 words, 20 % in edit families made by 1-10 % word edits); truth: "
        f"{len(truth)} pairs with exact word 5-shingle resemblance >= {t} (the generator's exact "
        f"join; {bad} of {checked} sampled truth and predicted pairs disagree when recomputed in "
        f"Python with lowercased `\\w+` words)."
    )
    L.append("")
    L.append("## 1. Sketching throughput (128 hashes, word 5-shingles)\n")
    L.append(
        "\"raw\": read docs.jsonl + parse + tokenize + shingle + hash + minhash (fimdup: whole "
        "process wall time, images file written; peers: in-process timer from the first read). "
        "\"bulk\": shingle lists already in Python memory, only the bulk MinHash call "
        "(datasketch `MinHash.bulk`, rensa `RMinHash.digest_matrix_from_token_sets`). gaoya has "
        "no separate MinHash call in its Python API: its row is `par_bulk_insert_docs` on raw "
        "texts, which also fills its LSH index (multi-threaded). fimdup bottom-k is its default "
        "(one hash, bottom 128); k-mins is 128 permutations, like the peers. datasketch and "
        "rensa are single-threaded.\n"
    )
    base = next(s for s in sketch if s[0] == "fimdup k-mins --threads 1")[2]
    L.append("| tool | mode | seconds | docs/s | peak RSS MiB | time / fimdup k-mins 1 thread |")
    L.append("|---|---|---:|---:|---:|---:|")
    for tool, mode, secs, rss in sketch:
        L.append(
            f"| {tool} | {mode} | {secs:.2f} | {ndocs / secs:,.0f} | {rss:.0f} | {secs / base:.2f} |"
        )
    L.append("")
    L.append(f"## 2. End-to-end dedup at resemblance >= {t}\n")
    L.append(
        "Wall time and peak RSS of one process per tool (`/usr/bin/time -v`): read, sketch, "
        "index, pairs written (peers: Python start and imports included, a fraction of a "
        "second). fimdup runs on all cores (2). Precision, recall and F1 of the reported pairs "
        "against the exact truth.\n"
    )
    base = next(e for e in e2e if e[0] == "fimdup concept")[1]
    L.append("| tool | wall s | peak RSS MiB | pairs | precision | recall | F1 | wall / fimdup concept |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    for tool, wall, rss, pairs in e2e:
        p, r, f = prf(pairs, truth)
        L.append(
            f"| {tool} | {wall:.2f} | {rss:.0f} | {len(pairs)} | {p:.4f} | {r:.4f} | {f:.4f} | {wall / base:.2f} |"
        )
    L.append("")
    L.append(
        f"fimdup timings are the median of {a.repeat} runs (peers: one run each); every fimdup "
        "run, in seconds: "
        + "; ".join(f"{name}: " + ", ".join(f"{w:.2f}" for w in walls) for name, walls in spread)
        + ".\n"
    )
    L.append(
        "Peer usage: datasketch `MinHash.bulk` + `MinHashLSH(threshold, num_perm=128)` "
        "(candidates are its answer); rensa `RMinHash(128, seed=42)` + `RMinHashLSH(threshold, "
        "128, num_bands=16)` with candidates kept when `jaccard >= threshold`; gaoya "
        "`MinHashStringIndex(hash_size=32, jaccard_threshold, num_bands=16, band_size=8, "
        "analyzer='word', lowercase=True, ngram_range=(5, 5))`. fimdup: `fimdup cluster DOCS "
        f"--method M --threshold {t} [--verify exact] --out DIR`, pairs from DIR/pairs.csv."
    )
    if miner_md is not None:
        L.append("")
        L.append("## 3. Miner: pyfim against `fimdup mine` (eval/miner/bench.py)\n")
        L.append(miner_md.strip())
    L.append("")
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        f.write("\n".join(L))
    log(f"wrote {a.out}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_worker":
        worker(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], float(sys.argv[6]))
    else:
        main()
