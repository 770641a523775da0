#!/usr/bin/env python3
"""Writes datasketch's near-duplicate pairs of a JSONL corpus as a scored pairs file
(`a,b,score`) for `fimdup sweep --external datasketch=FILE`.

datasketch 2.0.0: `MinHash.bulk(num_perm=128)` on word 5-shingles (lowercased `\\w+` words,
HTML tags dropped), `MinHashLSH(threshold=T)` for candidates, and each candidate scored by
the MinHash estimate `m_a.jaccard(m_b)`. Pairs below the candidate threshold T still come out
of the LSH with their estimate; the sweep keeps those scored at least each threshold.

Usage: datasketch_pairs.py DOCS.jsonl OUT.csv [--threshold T]
"""
import argparse
import csv
import json
import re

from datasketch import MinHash, MinHashLSH

WORD = re.compile(r"\w+")
TAG = re.compile(r"<[^>]*>")
SHINGLE = 5
NUM_PERM = 128


def shingles(text):
    t = WORD.findall(TAG.sub(" ", text).lower())
    if len(t) < SHINGLE:
        return [" ".join(t)] if t else []
    return [" ".join(t[i : i + SHINGLE]) for i in range(len(t) - SHINGLE + 1)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("docs")
    ap.add_argument("out")
    ap.add_argument("--threshold", type=float, default=0.5)
    a = ap.parse_args()
    ids, texts = [], []
    with open(a.docs, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            ids.append(str(d["id"]))
            texts.append(d["text"])
    mhs = MinHash.bulk(
        ([s.encode("utf-8") for s in shingles(t)] for t in texts), num_perm=NUM_PERM
    )
    lsh = MinHashLSH(threshold=a.threshold, num_perm=NUM_PERM)
    with lsh.insertion_session() as sess:
        for i, m in enumerate(mhs):
            sess.insert(i, m)
    rows = {}
    for i, m in enumerate(mhs):
        for j in lsh.query(m):
            if j != i:
                x, y = sorted((ids[i], ids[j]))
                rows[(x, y)] = m.jaccard(mhs[j])
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["a", "b", "score"])
        for (x, y), s in sorted(rows.items()):
            w.writerow([x, y, repr(s)])


if __name__ == "__main__":
    main()
