#!/usr/bin/env python3
"""Throughput of canonical text: `fimdup sketch --threads 1` under each tokenizer and
normalization, on ASCII text (the ASCII fast path) and on the same text made non-ASCII (one
`é` per document: the general Unicode path), interleaved rounds, median wall time,
documents/s. Writes a Markdown table to stdout.

    eval/text/bench.py BIN --corpus DOCS.jsonl [--rounds 5]

The corpus is a JSONL file with `id` and `text` fields (e.g. the peers benchmark's 50k
generated corpus: `fimdup gen --config eval/peers/corpus.json --out DIR`).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

SETTINGS = [
    ("unicode (default)", []),
    ("alnum", ["--tokenizer", "alnum"]),
    ("whitespace", ["--tokenizer", "whitespace"]),
    ("unicode, --normalize nfkc", ["--normalize", "nfkc"]),
    ("alnum, --normalize nfkc", ["--tokenizer", "alnum", "--normalize", "nfkc"]),
    ("unicode, --stem", ["--stem"]),
    ("unicode, --stopwords lang --stem", ["--stopwords", "lang", "--stem"]),
]


def timed(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="fimdup-text-bench-")
    accented = os.path.join(work, "accented.jsonl")
    n = 0
    with open(a.corpus) as f, open(accented, "w") as g:
        for line in f:
            d = json.loads(line)
            d["text"] = "Café. " + d["text"]
            g.write(json.dumps({"id": d["id"], "text": d["text"]}, ensure_ascii=False) + "\n")
            n += 1
    corpora = [("ASCII", a.corpus), ("non-ASCII", accented)]
    times = {}
    for r in range(a.rounds):
        order = SETTINGS if r % 2 == 0 else list(reversed(SETTINGS))
        for cname, path in corpora:
            for sname, flags in order:
                out = os.path.join(work, "img")
                cmd = [a.bin, "sketch", path, "--threads", "1", "--out", out] + flags
                times.setdefault((cname, sname), []).append(timed(cmd))
    version = subprocess.run([a.bin, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"`{version}`, {n:,} documents, {a.rounds} interleaved rounds, median wall time of "
          f"`fimdup sketch --threads 1` (process start, reading, sketching, writing); "
          f"load average at the end {os.getloadavg()[0]:.1f}.\n")
    print("| text | setting | median s | documents/s | vs unicode |")
    print("|---|---|---:|---:|---:|")
    for cname, _ in corpora:
        base = statistics.median(times[(cname, SETTINGS[0][0])])
        for sname, _ in SETTINGS:
            m = statistics.median(times[(cname, sname)])
            print(f"| {cname} | {sname} | {m:.2f} | {n / m:,.0f} | {m / base:.2f} |")
    print(file=sys.stderr)


if __name__ == "__main__":
    main()
