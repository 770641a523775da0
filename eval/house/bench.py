#!/usr/bin/env python3
"""Times two fimdup builds on the same work, interleaved (one run of each per round), and
reports the median wall time of each and the ratio new/old: the end-to-end commands of the
peers benchmark (eval/peers: `cluster` concept and lsh, with and without --verify exact, at
0.8 on the 50k generated corpus) and `sketch` of the same corpus.

    eval/house/bench.py OLD_BIN NEW_BIN [--corpus DOCS.jsonl] [--rounds 7]

The corpus defaults to the 50k corpus of eval/peers/corpus.json, generated with OLD_BIN.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def timed(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--corpus")
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="fimdup-house-bench-")
    docs = a.corpus
    if docs is None:
        gen = os.path.join(work, "corpus")
        subprocess.run(
            [a.old, "gen", "--config", os.path.join(ROOT, "eval/peers/corpus.json"), "--out", gen],
            check=True,
            stderr=subprocess.DEVNULL,
        )
        docs = os.path.join(gen, "docs.jsonl")
    cases = [
        ("sketch bottom-k", ["sketch", docs, "--out", "{out}/img"]),
        ("concept", ["cluster", docs, "--method", "concept", "--threshold", "0.8", "--out", "{out}/c"]),
        ("concept --verify exact", ["cluster", docs, "--method", "concept", "--threshold", "0.8", "--verify", "exact", "--out", "{out}/cv"]),
        ("lsh", ["cluster", docs, "--method", "lsh", "--threshold", "0.8", "--out", "{out}/l"]),
        ("lsh --verify exact", ["cluster", docs, "--method", "lsh", "--threshold", "0.8", "--verify", "exact", "--out", "{out}/lv"]),
    ]
    times = {(c, b): [] for c, _ in cases for b in ("old", "new")}
    for r in range(a.rounds):
        for name, args in cases:
            for b, binary in (("old", a.old), ("new", a.new)) if r % 2 == 0 else (("new", a.new), ("old", a.old)):
                out = os.path.join(work, b)
                os.makedirs(out, exist_ok=True)
                times[(name, b)].append(timed([binary] + [x.replace("{out}", out) for x in args]))
    print(f"| command (50k documents, {a.rounds} interleaved rounds) | old s | new s | new/old |")
    print("|---|---:|---:|---:|")
    for name, _ in cases:
        o = statistics.median(times[(name, "old")])
        n = statistics.median(times[(name, "new")])
        print(f"| {name} | {o:.3f} | {n:.3f} | {n / o:.3f} |")
    print(f"\nload average at the end: {os.getloadavg()}", file=sys.stderr)


if __name__ == "__main__":
    main()
