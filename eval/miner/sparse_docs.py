#!/usr/bin/env python3
"""The clustering-issue shape: a synthetic sparse DocId context (transactions = image
elements, items = documents, few items per transaction, small supports), mined with
`fimdup mine` and pyfim side by side.

20,000 documents in near-duplicate groups of 1-10 documents; each group has a base image of
100 elements and every document keeps each base element with probability 0.8 (else gets a
fresh element of its own). Seeded, so the file is the same on every run.

Usage: python3 eval/miner/sparse_docs.py [--bin target/release/fimdup] [--minsup 2]
"""
import argparse
import json
import os
import random
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def generate(path, ndocs=20000, k=100, seed=7):
    rnd = random.Random(seed)
    elem_docs = {}
    nextel = 0
    d = 0
    while d < ndocs:
        g = rnd.choice([1, 1, 1, 2, 3, 5, 10])
        group = list(range(d, min(d + g, ndocs)))
        d += g
        base = list(range(nextel, nextel + k))
        nextel += k
        for doc in group:
            for e in base:
                if rnd.random() >= 0.8:
                    e = nextel
                    nextel += 1
                elem_docs.setdefault(e, []).append(doc)
    with open(path, "w") as f:
        for docs in elem_docs.values():
            f.write(" ".join(map(str, docs)) + "\n")
    return [docs for docs in elem_docs.values()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "fimdup"))
    ap.add_argument("--minsup", type=int, default=2)
    args = ap.parse_args()
    import fim

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "sparse_docs.dat")
        tracts = generate(path)
        print(f"{len(tracts)} transactions")
        print("| target | count | pyfim s | ours 1T s | ours 2T s | 1T/pyfim | 2T/pyfim |")
        print("|---|---|---|---|---|---|---|")
        for tgt in ("maximal", "closed"):
            t0 = time.perf_counter()
            spec = fim.fpgrowth(tracts, target=tgt[0], supp=-args.minsup, report="#")
            tp = time.perf_counter() - t0
            res = []
            for th in (1, 2):
                r = subprocess.run([args.bin, "mine", path, "--minsup", str(args.minsup), "--target", tgt,
                                    "--count", "--json", "--threads", str(th)],
                                   capture_output=True, text=True, check=True)
                res.append(json.loads(r.stdout))
            n = res[0]["itemsets"]
            assert n == res[1]["itemsets"]
            note = "" if int(sum(spec.values())) == n else f" (pyfim {int(sum(spec.values()))})"
            t1, t2 = res[0]["mine_seconds"], res[1]["mine_seconds"]
            print(f"| {tgt} | {n}{note} | {tp:.3f} | {t1:.3f} | {t2:.3f} | {t1 / tp:.2f} | {t2 / tp:.2f} |")


if __name__ == "__main__":
    main()
