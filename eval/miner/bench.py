#!/usr/bin/env python3
"""Side-by-side timing of `fimdup mine` against pyfim (Borgelt's fpgrowth) on every consensus
setting of datasets/fimi/reference_counts.csv, with both sides timed for the same work.

Each round runs, as separate processes on the same file:
- pyfim: `python3 -c PYFIM_CHILD FILE TARGET N`, a minimal Python process that imports fim,
  reads the file into lists of ints (`list(map(int, line.split()))` per line; `.gz` files
  through gzip.open) and calls `fim.fpgrowth(tracts, target='m'|'c', supp=-N, report='#')`
  (the pattern spectrum: no itemsets materialized). It prints its own read+parse time and
  call time (perf_counter) as JSON.
- fimdup: `fimdup mine FILE --minsup N --target T --count --json --threads 1|2`, which prints
  `parse_seconds` (reading, decompressing, parsing) and `mine_seconds` (recoding, search,
  counting).

From each run three times are taken, giving three tables:
1. whole process: the wall time of the subprocess as seen by this script (exec, interpreter
   start and `import fim` for pyfim, reading and parsing, mining, printing, exit);
2. in-process, parse-inclusive: pyfim's read+parse + fpgrowth call, timed inside Python, against
   fimdup's parse_seconds + mine_seconds;
3. search only: pyfim's fpgrowth call on lists already built, against fimdup's mine_seconds;
   parsing is excluded on both sides, but the two calls do not start from the same state
   (pyfim's call still converts the Python lists into its own transaction table; fimdup's
   transactions are already parsed into its own arrays).

Runs are interleaved: one run of each of pyfim, ours 1 thread, ours 2 threads (and --old on
1 and 2 threads) per round, the order rotated by one each round, so that a slow spell of the
shared machine hits all of them alike.
Every figure is the median over rounds of that quantity: 9 rounds when the slowest whole
process of the first round takes under 1 s, 3 under 3 s, else 1. Every round's count from
fimdup must equal the consensus count (asserted); pyfim's count is shown when it differs.
The `write` column: the whole-process wall time of `fimdup mine` on 1 thread writing every
itemset to /dev/null (median of 3; of 9 under 0.2 s); pyfim has no counterpart (report='#').
Peak RSS (/usr/bin/time -v, whole process) on chess 20% and connect 10%.

With --old BIN, a second build is timed in the same rounds and the first two tables gain its
times and the ratios new/old. --only DATASET[,DATASET] and --targets restrict the settings;
--no-rss skips the peak-RSS table.

Usage: python3 eval/miner/bench.py [--bin target/release/fimdup] [--old OLD_BIN]
                                   [--only mushroom,chess] [--targets maximal,closed]
                                   [--no-rss] [--out eval/results/miner_table.md]
Run it with the Python that has pyfim (pip install pyfim): the pyfim child process uses the
same interpreter (sys.executable). Needs `cargo build --release --features full`.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DATA = os.path.join(ROOT, "datasets", "fimi")

# The pyfim side as a whole process: argv = FILE TARGET MINSUP. Kept to what a user's script
# would do; the times it prints exclude interpreter start and `import fim`, like fimdup's
# parse_seconds + mine_seconds exclude exec and argument parsing.
PYFIM_CHILD = r"""
import sys, time
import fim
p, target, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
t0 = time.perf_counter()
if p.endswith('.gz'):
    import gzip
    f = gzip.open(p, 'rt')
else:
    f = open(p)
with f:
    tracts = [list(map(int, line.split())) for line in f]
t1 = time.perf_counter()
spec = fim.fpgrowth(tracts, target=target[0], supp=-n, report='#')
t2 = time.perf_counter()
print('{"parse_seconds": %r, "call_seconds": %r, "itemsets": %d}'
      % (t1 - t0, t2 - t1, int(round(sum(spec.values())))))
"""


def path_of(ds):
    for name in (ds + ".dat", ds + ".dat.gz"):
        p = os.path.join(DATA, name)
        if os.path.exists(p):
            return p
    sys.exit("missing dataset " + ds)


def pyfim_version():
    """pyfim's version: the module has no __version__; the installed distribution does."""
    try:
        import importlib.metadata
        return importlib.metadata.version("pyfim")
    except Exception:
        return "?"


def loadavg():
    """The first three fields of /proc/loadavg (1, 5 and 15 minute averages)."""
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())


def load1():
    return float(loadavg().split()[0])


def command_output(cmd, cwd=ROOT):
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def provenance(binary, old=None):
    """Lines naming what was measured: the binary's --version, modification time and sha256
    prefix; the checkout's commit (the script's commit; marked when eval/miner has
    uncommitted changes) and the files under src/ that differ from it."""
    import hashlib

    def one(label, b):
        ver = command_output([b, "--version"])
        mtime = time.strftime("%Y-%m-%d %H:%M", time.localtime(os.path.getmtime(b)))
        h = hashlib.sha256()
        with open(b, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        return f"{label} `{b}`: `{ver}` (binary modified {mtime}, sha256 {h.hexdigest()[:12]})"
    head = command_output(["git", "rev-parse", "--short", "HEAD"])
    dirty = command_output(["git", "status", "--porcelain", "--", "eval/miner"])
    script = f"script's commit: {head}" + (
        " (with uncommitted changes under eval/miner)" if dirty not in ("", "?") else "")
    src = command_output(["git", "status", "--porcelain", "--", "src"])
    src_files = [line.split(None, 1)[-1] for line in src.splitlines()] if src != "?" else ["?"]
    out = [one("fimdup", binary)]
    if old:
        out.append(one("old", old))
    out.append(script)
    out.append("uncommitted changes under src/: " + (", ".join(src_files) or "none"))
    return out


def timed(fn):
    """Median of 3 runs of fn (returning (seconds, result)); of 9 when the first takes under
    0.2 s; 1 run when the first takes over 3 s. Returns (seconds, last result)."""
    t, res = fn()
    ts = [t]
    reps = 1 if t > 3.0 else (9 if t < 0.2 else 3)
    for _ in range(reps - 1):
        t, res = fn()
        ts.append(t)
    return statistics.median(ts), res


def timed_together(fns, min_rounds=1):
    """Interleaved rounds, one run of each of `fns` per round, the order rotated by one each
    round. Each fn returns a dict of times (seconds) plus "itemsets". Per fn: the median of
    each time over the rounds, and the list of counts seen. 9 rounds when the slowest "whole"
    of the first round is under 1 s, 3 under 3 s, else 1 (at least min_rounds)."""
    runs = [[fn()] for fn in fns]
    slowest = max(r[0]["whole"] for r in runs)
    reps = max(min_rounds, 1 if slowest > 3.0 else (9 if slowest < 1.0 else 3))
    for k in range(1, reps):
        # Each round starts with the next function, so that no side always runs first in
        # its round (right after the previous setting's runs or the write timing).
        for j in range(len(fns)):
            i = (k + j) % len(fns)
            runs[i].append(fns[i]())
    out = []
    for rs in runs:
        med = {k: statistics.median(r[k] for r in rs) for k in rs[0] if k != "itemsets"}
        med["counts"] = sorted({r["itemsets"] for r in rs})
        med["rounds"] = len(rs)
        out.append(med)
    return out


def timed_process(cmd, search_key):
    """A function that runs `cmd` (which prints a JSON summary with `parse_seconds`,
    `search_key` and `itemsets`) once. whole = wall time of the subprocess; inproc =
    parse_seconds + the search; search = the search alone; parse = parse_seconds."""

    def f():
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True, check=True)
        whole = time.perf_counter() - t0
        j = json.loads(r.stdout)
        return {"whole": whole, "inproc": j["parse_seconds"] + j[search_key],
                "search": j[search_key], "parse": j["parse_seconds"],
                "itemsets": j["itemsets"]}
    return f


def pyfim_run(path, target, n):
    """One whole pyfim process. whole = wall time of the subprocess; inproc = read+parse +
    fpgrowth call (timed inside Python); search = the call alone; parse = read+parse."""
    cmd = [sys.executable, "-c", PYFIM_CHILD, path, target, str(n)]

    return timed_process(cmd, "call_seconds")


def ours_run(binary, path, target, n, threads):
    """One whole `fimdup mine --count --json` process. whole = wall time of the subprocess;
    inproc = parse_seconds + mine_seconds; search = mine_seconds; parse = parse_seconds."""
    cmd = [binary, "mine", path, "--minsup", str(n), "--target", target,
           "--threads", str(threads), "--count", "--json"]

    return timed_process(cmd, "mine_seconds")


def ours_write_run(binary, path, target, n):
    """Whole-process wall time of `fimdup mine` on 1 thread writing every itemset line to
    /dev/null; the count is read from the summary line on standard error."""
    cmd = [binary, "mine", path, "--minsup", str(n), "--target", target, "--threads", "1"]

    def f():
        t0 = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, check=True)
        whole = time.perf_counter() - t0
        line = r.stderr.strip().splitlines()[-1]
        return whole, int(line.split(" itemsets;")[0].split()[-2])
    return f


def peak_rss_mb(cmd):
    r = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True, check=True)
    for line in r.stderr.splitlines():
        if "Maximum resident set size" in line:
            return int(line.split(":")[-1]) / 1024.0
    return float("nan")


def table(title, head, body):
    cols = head.count("|") - 1
    return [title, "", head, "|" + "---|" * cols] + body + [""]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "fimdup"))
    ap.add_argument("--old", default=None, help="a second fimdup binary timed in the same run")
    ap.add_argument("--only", default=None, help="comma-separated datasets")
    ap.add_argument("--targets", default=None, help="comma-separated targets (maximal,closed)")
    ap.add_argument("--no-rss", action="store_true")
    ap.add_argument("--out", default=os.path.join(ROOT, "eval", "results", "miner_table.md"))
    args = ap.parse_args()
    try:
        import fim  # noqa: F401  (pip install pyfim; the child processes import it)
    except ImportError:
        sys.exit(f"pyfim is not installed for {sys.executable} (pip install pyfim)")

    started = time.time()
    load_start = loadavg()
    loads = [load1()]
    prov = provenance(args.bin, args.old)
    bins = [b for b in (args.bin, args.old) if b]
    mtimes = [os.path.getmtime(b) for b in bins]
    for line in prov:
        print(line, flush=True)
    print(f"load average at the start: {load_start}", flush=True)

    rows = []
    with open(os.path.join(DATA, "reference_counts.csv")) as f:
        for r in csv.DictReader(f):
            if r["peer"] == "consensus" and (
                    args.only is None or r["dataset"] in args.only.split(",")) and (
                    args.targets is None or r["target"] in args.targets.split(",")):
                rows.append(r)

    whole_rows, inproc_rows, search_rows = [], [], []
    worst = {"whole": [0.0, 0.0], "inproc": [0.0, 0.0], "search": [0.0, 0.0]}
    for r in rows:
        ds, n, tgt, want = r["dataset"], int(r["minsup_abs"]), r["target"], int(r["count"])
        p = path_of(ds)
        fns = [pyfim_run(p, tgt, n), ours_run(args.bin, p, tgt, n, 1),
               ours_run(args.bin, p, tgt, n, 2)]
        if args.old:
            fns += [ours_run(args.old, p, tgt, n, 1), ours_run(args.old, p, tgt, n, 2)]
        got = timed_together(fns)
        py, o1, o2 = got[:3]
        tw, cw = timed(ours_write_run(args.bin, p, tgt, n))
        for g in got[1:]:
            assert g["counts"] == [want], (ds, n, tgt, g["counts"], want)
        assert cw == want, (ds, n, tgt, "write", cw, want)
        note = "" if py["counts"] == [want] else f" (pyfim {'/'.join(map(str, py['counts']))})"
        key = f"| {ds} | {n} ({float(r['minsup_rel']) * 100:g}%) | {tgt} | {want}{note} |"
        ratio = {}
        for k in worst:
            ratio[k] = (o1[k] / py[k], o2[k] / py[k])
            worst[k] = [max(worst[k][0], ratio[k][0]), max(worst[k][1], ratio[k][1])]
        line = (f"{key} {py['rounds']} | {py['whole']:.4f} | {o1['whole']:.4f} | {o2['whole']:.4f} | "
                f"{ratio['whole'][0]:.2f} | {ratio['whole'][1]:.2f} | {tw:.4f} |")
        line2 = (f"{key} {py['parse']:.4f} | {py['inproc']:.4f} | {o1['parse']:.4f} | "
                 f"{o1['inproc']:.4f} | {o2['inproc']:.4f} | "
                 f"{ratio['inproc'][0]:.2f} | {ratio['inproc'][1]:.2f} |")
        line3 = (f"{key} {py['search']:.4f} | {o1['search']:.4f} | {o2['search']:.4f} | "
                 f"{ratio['search'][0]:.2f} | {ratio['search'][1]:.2f} |")
        if args.old:
            d1, d2 = got[3:]
            for g in (d1, d2):
                assert g["counts"] == [want], (ds, n, tgt, "old", g["counts"], want)
            line += (f" {d1['whole']:.4f} | {d2['whole']:.4f} | {o1['whole'] / d1['whole']:.2f} | "
                     f"{o2['whole'] / d2['whole']:.2f} |")
            line2 += (f" {d1['inproc']:.4f} | {d2['inproc']:.4f} | "
                      f"{o1['inproc'] / d1['inproc']:.2f} | {o2['inproc'] / d2['inproc']:.2f} |")
        whole_rows.append(line)
        inproc_rows.append(line2)
        search_rows.append(line3)
        loads.append(load1())
        print(line, flush=True)
        print(line2, flush=True)
        print(line3, flush=True)

    key_head = "| dataset | minsup | target | count |"
    old_whole = " old 1T s | old 2T s | new/old 1T | new/old 2T |" if args.old else ""
    lines = ["Provenance: " + "; ".join(prov) + ".", ""]
    lines += table(
        "Whole process (wall time of the subprocess: start, read + parse, mine, print, exit):",
        key_head + " rounds | pyfim process s | ours 1T s | ours 2T s | 1T/pyfim | 2T/pyfim "
        "| ours 1T write s |" + old_whole, whole_rows)
    lines.append(f"Worst whole-process ratio: 1 thread {worst['whole'][0]:.2f}, "
                 f"2 threads {worst['whole'][1]:.2f}.")
    lines.append("")
    lines += table(
        "In-process, parse-inclusive (pyfim: read + parse into lists + fpgrowth call, timed "
        "inside Python; ours: parse_seconds + mine_seconds):",
        key_head + " pyfim read+parse s | pyfim read+parse+call s | ours parse s (1T) | "
        "ours parse+mine 1T s | ours parse+mine 2T s | 1T/pyfim | 2T/pyfim |" + old_whole,
        inproc_rows)
    lines.append(f"Worst parse-inclusive ratio: 1 thread {worst['inproc'][0]:.2f}, "
                 f"2 threads {worst['inproc'][1]:.2f}.")
    lines.append("")
    lines += table(
        "Search only, parse excluded on both sides (pyfim: the fpgrowth call on lists already "
        "built, which still converts them; ours: mine_seconds). Not equal work; kept for "
        "comparison with earlier runs:",
        key_head + " pyfim call s | ours mine 1T s | ours mine 2T s | 1T/pyfim | 2T/pyfim |",
        search_rows)
    lines.append(f"Worst search-only ratio: 1 thread {worst['search'][0]:.2f}, "
                 f"2 threads {worst['search'][1]:.2f}.")
    lines.append("")

    if not args.no_rss:
        lines.append("| peak RSS (MB) | target | fimdup --count (1T) | fimdup --count (2T) | "
                     "pyfim (python process) |")
        lines.append("|---|---|---|---|---|")
        for ds, rel, n in (("chess", "20%", 640), ("connect", "10%", 6756)):
            p = path_of(ds)
            for tgt in ("maximal", "closed"):
                base = [args.bin, "mine", p, "--minsup", str(n), "--target", tgt, "--count"]
                r1 = peak_rss_mb(base + ["--threads", "1"])
                r2 = peak_rss_mb(base + ["--threads", "2"])
                rp = peak_rss_mb([sys.executable, "-c", PYFIM_CHILD, p, tgt, str(n)])
                line = f"| {ds} {rel} | {tgt} | {r1:.0f} | {r2:.0f} | {rp:.0f} |"
                print(line, flush=True)
                lines.append(line)
        lines.append("")
    loads.append(load1())
    load_end = loadavg()
    minutes = (time.time() - started) / 60.0
    lines.append(
        f"Machine: {os.cpu_count()} cores; load average (1, 5, 15 min) {load_start} at the start, "
        f"{load_end} at the end, 1-minute average between settings {min(loads):.2f}-"
        f"{max(loads):.2f}; run took {minutes:.1f} min; pyfim {pyfim_version()}; "
        f"python {sys.version.split()[0]}. `.gz` inputs are decompressed by both sides.")
    changed = [b for b, m in zip(bins, mtimes) if os.path.getmtime(b) != m]
    if changed:
        lines.append("")
        lines.append("WARNING: rebuilt during the run (the figures mix two builds): "
                     + ", ".join(changed) + ".")
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(lines[-1])
    print("wrote", args.out)


if __name__ == "__main__":
    main()
