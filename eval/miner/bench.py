#!/usr/bin/env python3
"""Side-by-side timing of `fimdup mine` against pyfim (Borgelt's fpgrowth) on every consensus
setting of ../shared/datasets/fimi/reference_counts.csv.

pyfim: fim.fpgrowth(tracts, target='m'|'c', supp=-N, report='#') -- the pattern spectrum, no
itemsets materialized; only the call is timed (transactions already in Python lists).
fimdup: `fimdup mine FILE --minsup N --target T --count --json`, the `mine_seconds` it
reports (recoding + search + counting, parsing excluded), on 1 and 2 threads; and on 1
thread with every itemset formatted and written to /dev/null (`write` column).
pyfim, ours on 1 and 2 threads (and --old on 1 and 2) are timed in interleaved rounds, one
run of each per round, so that a slow spell of the shared machine hits all of them alike;
each figure is the median of its rounds: 9 rounds when the slowest of the first round takes
under 1 s, 3 under 3 s, else 1. The `write` column: median of 3 (9 under 0.2 s).
Peak RSS (/usr/bin/time -v, whole process) on chess 20% and connect 10%.

With --old BIN, a second build is timed in the same run (1 and 2 threads, same settings) and
the table gains its times and the ratios new/old.
--only DATASET[,DATASET] restricts the settings; --no-rss skips the peak-RSS table.

Usage: python3 eval/miner/bench.py [--bin target/release/fimdup] [--old OLD_BIN]
                                   [--only mushroom,chess] [--no-rss] [--out eval/results/miner_table.md]
Needs: pip install pyfim; cargo build --release.
"""
import argparse
import csv
import gzip
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DATA = os.path.normpath(os.path.join(ROOT, "..", "shared", "datasets", "fimi"))


def path_of(ds):
    for name in (ds + ".dat", ds + ".dat.gz"):
        p = os.path.join(DATA, name)
        if os.path.exists(p):
            return p
    sys.exit("missing dataset " + ds)


def load(p):
    op = gzip.open if p.endswith(".gz") else open
    with op(p, "rt") as f:
        return [[int(x) for x in line.split()] for line in f]


def pyfim_version(fim):
    """pyfim's version: the module has no __version__; the installed distribution does."""
    try:
        import importlib.metadata
        return importlib.metadata.version("pyfim")
    except Exception:
        return getattr(fim, "__version__", "?")


def timed(fn):
    """Median of 3 runs; of 9 when the first takes under 0.2 s (timer noise on a shared
    machine is of the order of milliseconds); 1 run when the first takes over 3 s.
    Returns (seconds, result)."""
    t, res = fn()
    ts = [t]
    reps = 1 if t > 3.0 else (9 if t < 0.2 else 3)
    for _ in range(reps - 1):
        t, res = fn()
        ts.append(t)
    return statistics.median(ts), res


def timed_together(fns):
    """Interleaved rounds, one run of each of `fns` per round; per function the median time
    and the last result. 9 rounds when the slowest of the first round takes under 1 s, 3
    under 3 s, else 1."""
    first = [fn() for fn in fns]
    slowest = max(t for t, _ in first)
    reps = 1 if slowest > 3.0 else (9 if slowest < 1.0 else 3)
    ts = [[t] for t, _ in first]
    res = [r for _, r in first]
    for _ in range(reps - 1):
        for i, fn in enumerate(fns):
            t, r = fn()
            ts[i].append(t)
            res[i] = r
    return [(statistics.median(x), r) for x, r in zip(ts, res)]


def pyfim_run(fim, tracts, target, n):
    def f():
        t0 = time.perf_counter()
        spec = fim.fpgrowth(tracts, target=target[0], supp=-n, report="#")
        return time.perf_counter() - t0, int(round(sum(spec.values())))
    return f


def ours_run(binary, path, target, n, threads, write=False):
    def f():
        cmd = [binary, "mine", path, "--minsup", str(n), "--target", target,
               "--threads", str(threads)]
        if write:
            # Itemsets to stdout (/dev/null); the summary line on stderr has the times.
            r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, check=True)
            line = r.stderr.strip().splitlines()[-1]
            secs = float(line.split("mine ")[-1].split(" s")[0])
            count = int(line.split(" itemsets;")[0].split()[-2])
            return secs, count
        r = subprocess.run(cmd + ["--count", "--json"], capture_output=True, text=True, check=True)
        j = json.loads(r.stdout)
        return j["mine_seconds"], j["itemsets"]
    return f


def peak_rss_mb(cmd):
    r = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True, check=True)
    for line in r.stderr.splitlines():
        if "Maximum resident set size" in line:
            return int(line.split(":")[-1]) / 1024.0
    return float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "fimdup"))
    ap.add_argument("--old", default=None, help="a second fimdup binary timed in the same run")
    ap.add_argument("--only", default=None, help="comma-separated datasets")
    ap.add_argument("--targets", default=None, help="comma-separated targets (maximal,closed)")
    ap.add_argument("--no-rss", action="store_true")
    ap.add_argument("--out", default=os.path.join(ROOT, "eval", "results", "miner_table.md"))
    args = ap.parse_args()
    import fim  # pip install pyfim

    rows = []
    with open(os.path.join(DATA, "reference_counts.csv")) as f:
        for r in csv.DictReader(f):
            if r["peer"] == "consensus" and (
                    args.only is None or r["dataset"] in args.only.split(",")) and (
                    args.targets is None or r["target"] in args.targets.split(",")):
                rows.append(r)
    head = "| dataset | minsup | target | count | pyfim s | ours 1T s | ours 2T s | 1T/pyfim | 2T/pyfim | ours 1T write s |"
    if args.old:
        head += " old 1T s | old 2T s | new/old 1T | new/old 2T |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    cache = {}
    worst1 = worst2 = 0.0
    for r in rows:
        ds, n, tgt, want = r["dataset"], int(r["minsup_abs"]), r["target"], int(r["count"])
        p = path_of(ds)
        if ds not in cache:
            cache[ds] = load(p)
        tr = cache[ds]
        fns = [pyfim_run(fim, tr, tgt, n), ours_run(args.bin, p, tgt, n, 1),
               ours_run(args.bin, p, tgt, n, 2)]
        if args.old:
            fns += [ours_run(args.old, p, tgt, n, 1), ours_run(args.old, p, tgt, n, 2)]
        got = timed_together(fns)
        (tp, cp), (t1, c1), (t2, c2) = got[:3]
        tw, cw = timed(ours_run(args.bin, p, tgt, n, 1, write=True))
        assert c1 == want and c2 == want and cw == want, (ds, n, tgt, c1, c2, cw, want)
        note = "" if cp == want else f" (pyfim {cp})"
        r1, r2 = t1 / tp, t2 / tp
        worst1, worst2 = max(worst1, r1), max(worst2, r2)
        line = (f"| {ds} | {n} ({float(r['minsup_rel']) * 100:g}%) | {tgt} | {want}{note} | {tp:.4f} | "
                f"{t1:.4f} | {t2:.4f} | {r1:.2f} | {r2:.2f} | {tw:.4f} |")
        if args.old:
            (o1, d1), (o2, d2) = got[3:]
            assert d1 == want and d2 == want, (ds, n, tgt, "old", d1, d2, want)
            line += f" {o1:.4f} | {o2:.4f} | {t1 / o1:.2f} | {t2 / o2:.2f} |"
        print(line, flush=True)
        lines.append(line)
    lines.append("")
    lines.append(f"Worst ratio: 1 thread {worst1:.2f}, 2 threads {worst2:.2f}.")
    lines.append("")
    lines.append("| peak RSS (MB) | target | fimdup --count (1T) | fimdup --count (2T) | pyfim (python process) |")
    lines.append("|---|---|---|---|---|")
    for ds, rel, n in () if args.no_rss else (("chess", "20%", 640), ("connect", "10%", 6756)):
        p = path_of(ds)
        for tgt in ("maximal", "closed"):
            o1 = peak_rss_mb([args.bin, "mine", p, "--minsup", str(n), "--target", tgt, "--count", "--threads", "1"])
            o2 = peak_rss_mb([args.bin, "mine", p, "--minsup", str(n), "--target", tgt, "--count", "--threads", "2"])
            py = peak_rss_mb([sys.executable, "-c",
                              "import fim,gzip,sys;p=sys.argv[1];op=gzip.open if p.endswith('.gz') else open;"
                              "tr=[[int(x) for x in l.split()] for l in op(p,'rt')];"
                              f"fim.fpgrowth(tr,target='{tgt[0]}',supp=-{n},report='#')", p])
            line = f"| {ds} {rel} | {tgt} | {o1:.0f} | {o2:.0f} | {py:.0f} |"
            print(line, flush=True)
            lines.append(line)
    load1 = os.getloadavg()[0]
    lines.append("")
    lines.append(f"Machine: {os.cpu_count()} cores, load average at the end {load1:.2f}; "
                 f"pyfim {pyfim_version(fim)}; python {sys.version.split()[0]}.")
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
