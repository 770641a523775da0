#!/usr/bin/env python3
"""The clustering-issue shape: a synthetic sparse DocId context (transactions = image
elements, items = documents, few items per transaction, small supports), mined with
`fimdup mine` and pyfim side by side on the same file.

20,000 documents in near-duplicate groups of 1-10 documents; each group has a base image of
100 elements and every document keeps each base element with probability 0.8 (else gets a
fresh element of its own). Seeded, so the file is the same on every run.

Timed as in bench.py (its helpers are reused): per round one whole pyfim process (reads the
file into lists, calls fim.fpgrowth(..., report='#')) and one whole `fimdup mine --count
--json` process on 1 and on 2 threads, the order rotated each round; medians over the rounds
(at least --rounds). Three tables: whole process (wall time of the subprocess), in-process
parse-inclusive (pyfim read+parse + call timed inside Python; fimdup parse_seconds +
mine_seconds), and search only (pyfim's call on ready lists; fimdup's mine_seconds; parse
excluded on both sides, not equal work).

Usage: python3 eval/miner/sparse_docs.py [--bin target/release/fimdup] [--minsup 2] [--rounds 3]
Run it with the Python that has pyfim (pip install pyfim).
"""
import argparse
import os
import random
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import bench  # noqa: E402  (eval/miner/bench.py: timing helpers)


def generate(path, ndocs=20000, k=100, seed=7):
    """Writes the context to `path`; returns the number of transactions."""
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
    return len(elem_docs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "fimdup"))
    ap.add_argument("--minsup", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3, help="at least this many interleaved rounds")
    args = ap.parse_args()
    try:
        import fim  # noqa: F401  (the child processes import it)
    except ImportError:
        sys.exit(f"pyfim is not installed for {sys.executable} (pip install pyfim)")

    started = time.time()
    load_start = bench.loadavg()
    for line in bench.provenance(args.bin):
        print(line)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "sparse_docs.dat")
        ntr = generate(path)
        print(f"{ntr} transactions, {os.path.getsize(path)} bytes; minsup {args.minsup}; "
              f"load average at the start {load_start}")
        whole, inproc, search = [], [], []
        for tgt in ("maximal", "closed"):
            py, o1, o2 = bench.timed_together(
                [bench.pyfim_run(path, tgt, args.minsup),
                 bench.ours_run(args.bin, path, tgt, args.minsup, 1),
                 bench.ours_run(args.bin, path, tgt, args.minsup, 2)],
                min_rounds=args.rounds)
            assert o1["counts"] == o2["counts"] and len(o1["counts"]) == 1, (o1, o2)
            n = o1["counts"][0]
            note = "" if py["counts"] == [n] else f" (pyfim {'/'.join(map(str, py['counts']))})"
            key = f"| {tgt} | {n}{note} | {py['rounds']} |"
            r = {k: (o1[k] / py[k], o2[k] / py[k]) for k in ("whole", "inproc", "search")}
            whole.append(f"{key} {py['whole']:.3f} | {o1['whole']:.3f} | {o2['whole']:.3f} | "
                         f"{r['whole'][0]:.2f} | {r['whole'][1]:.2f} |")
            inproc.append(f"{key} {py['parse']:.3f} | {py['inproc']:.3f} | {o1['parse']:.3f} | "
                          f"{o1['inproc']:.3f} | {o2['inproc']:.3f} | "
                          f"{r['inproc'][0]:.2f} | {r['inproc'][1]:.2f} |")
            search.append(f"{key} {py['search']:.3f} | {o1['search']:.3f} | {o2['search']:.3f} | "
                          f"{r['search'][0]:.2f} | {r['search'][1]:.2f} |")
            print(whole[-1], inproc[-1], search[-1], sep="\n", flush=True)
    out = []
    out += bench.table(
        "Whole process (wall time of the subprocess):",
        "| target | count | rounds | pyfim process s | ours 1T s | ours 2T s | 1T/pyfim | 2T/pyfim |",
        whole)
    out += bench.table(
        "In-process, parse-inclusive (pyfim: read + parse + fpgrowth call; ours: parse_seconds "
        "+ mine_seconds):",
        "| target | count | rounds | pyfim read+parse s | pyfim read+parse+call s | ours parse s (1T) "
        "| ours parse+mine 1T s | ours parse+mine 2T s | 1T/pyfim | 2T/pyfim |",
        inproc)
    out += bench.table(
        "Search only, parse excluded on both sides (pyfim: the call on ready lists; ours: "
        "mine_seconds); not equal work:",
        "| target | count | rounds | pyfim call s | ours mine 1T s | ours mine 2T s | 1T/pyfim | 2T/pyfim |",
        search)
    out.append(f"Load average (1, 5, 15 min) {load_start} at the start, {bench.loadavg()} at the "
               f"end; run took {(time.time() - started) / 60.0:.1f} min; pyfim "
               f"{bench.pyfim_version()}; python {sys.version.split()[0]}.")
    print()
    print("\n".join(out))


if __name__ == "__main__":
    main()
