#!/usr/bin/env python3
"""The first fimdup.cluster call of a fresh Python process against the later calls of the same
process, and the `fimdup cluster` command on the same documents; a markdown report on stdout.

Each of --runs rounds starts one fresh Python process (the interpreter running this script,
which must have the fimdup package installed) and one run of the command, in that order. The
process imports fimdup (timed), reads docs.jsonl into a list of str texts and a list of str
ids (not timed), then calls `fimdup.cluster(texts, ids)` --calls times in a row (defaults,
all cores), each timed with time.perf_counter around the call alone (and its CPU seconds,
time.process_time: every thread of the process, user and system); it also counts the
modules a call imports. The command is timed as a whole process (`fimdup cluster DOCS --out
DIR`: reading, the job and writing the three files). Medians over the rounds; "later" is
each process's median of its calls 2..K.

The corpus: DIR/docs.jsonl; when missing it is made with
`BIN gen --out DIR --config eval/peers/corpus.json --docs 50000`.

Usage: first_call.py --bin FIMDUP [--corpus DIR] [--runs 5] [--calls 4] [--command TEXT]
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def child(docs, calls):
    """One fresh process: prints a JSON object with the import and the calls' seconds."""
    t = time.perf_counter()
    import fimdup

    import_s = time.perf_counter() - t
    texts, ids = [], []
    with open(docs, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            texts.append(d["text"])
            ids.append(d["id"])
    out = {"import": import_s, "calls": [], "cpu": [], "imported": [], "pairs": []}
    for _ in range(calls):
        before = len(sys.modules)
        c = time.process_time()
        t = time.perf_counter()
        r = fimdup.cluster(texts, ids)
        out["calls"].append(time.perf_counter() - t)
        out["cpu"].append(time.process_time() - c)
        out["imported"].append(len(sys.modules) - before)
        out["pairs"].append(r.summary["pairs"])
    print(json.dumps(out))


def versions(python):
    code = (
        "import json, platform, importlib.metadata as m\n"
        "import fimdup\n"
        "v = {'python': platform.python_version(), 'fimdup': fimdup.__version__,"
        " 'git': fimdup.__git_hash__}\n"
        "for p in ('pyarrow', 'numpy', 'pandas'):\n"
        "    try:\n"
        "        v[p] = m.version(p)\n"
        "    except m.PackageNotFoundError:\n"
        "        v[p] = 'not installed'\n"
        "print(json.dumps(v))\n"
    )
    return json.loads(subprocess.run([python, "-c", code], check=True, capture_output=True, text=True,
                                     cwd="/").stdout)


def med(xs):
    return statistics.median(xs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="the fimdup binary (the command's row, the corpus)")
    ap.add_argument("--corpus", default=os.path.join(tempfile.gettempdir(), "fimdup-first-call"))
    ap.add_argument("--runs", type=int, default=5, help="fresh processes (and command runs)")
    ap.add_argument("--calls", type=int, default=4, help="calls per process (at least 2)")
    ap.add_argument("--command", default=None, help="the command line recorded in the report")
    ap.add_argument("--child", nargs=2, metavar=("DOCS", "CALLS"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        return child(a.child[0], int(a.child[1]))
    if a.calls < 2:
        ap.error("--calls must be at least 2")

    docs = os.path.join(a.corpus, "docs.jsonl")
    if not os.path.exists(docs):
        subprocess.run([a.bin, "gen", "--out", a.corpus, "--config", os.path.join(ROOT, "eval/peers/corpus.json"),
                        "--docs", "50000"], check=True)
    n_docs = sum(1 for _ in open(docs, "rb"))
    v = versions(sys.executable)
    bin_version = subprocess.run([a.bin, "--version"], capture_output=True, text=True).stdout.strip()
    load_start = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())

    rows = []
    with tempfile.TemporaryDirectory(prefix="fimdup-first-call-") as work:
        for i in range(a.runs):
            out_dir = os.path.join(work, f"cli-{i}")
            t = time.perf_counter()
            p = subprocess.run([a.bin, "cluster", docs, "--out", out_dir, "--json"], capture_output=True, text=True)
            cli_s = time.perf_counter() - t
            if p.returncode != 0:
                sys.exit(f"fimdup cluster failed: {p.stderr}")
            cli_pairs = json.loads(p.stdout)["pairs"]
            # cwd=/: the installed package, never a checkout's python/fimdup
            p = subprocess.run([sys.executable, os.path.abspath(__file__), "--bin", a.bin, "--child", docs,
                                str(a.calls)], capture_output=True, text=True, cwd="/")
            if p.returncode != 0:
                sys.exit(f"the Python process failed: {p.stderr}")
            r = json.loads(p.stdout)
            r["cli"], r["cli_pairs"] = cli_s, cli_pairs
            rows.append(r)
            print(f"[first-call] round {i + 1}/{a.runs}: import {r['import']:.3f} s, calls "
                  + ", ".join(f"{c:.3f}" for c in r["calls"]) + f" s; command {cli_s:.3f} s", file=sys.stderr)
    load_end = os.getloadavg()

    first = [r["calls"][0] for r in rows]
    later = [med(r["calls"][1:]) for r in rows]
    ratio = [f / l for f, l in zip(first, later)]
    first_cpu = [r["cpu"][0] for r in rows]
    later_cpu = [med(r["cpu"][1:]) for r in rows]
    imports = [r["import"] for r in rows]
    cli = [r["cli"] for r in rows]
    pairs = sorted({p for r in rows for p in r["pairs"]} | {r["cli_pairs"] for r in rows})

    def line(name, xs, fmt="{:.3f}"):
        return f"| {name} | {len(xs)} | {fmt.format(med(xs))} | {fmt.format(min(xs))} | {fmt.format(max(xs))} |"

    cmd = a.command or "python eval/python/first_call.py " + " ".join(
        f"{k} {x}" for k, x in (("--bin", a.bin), ("--corpus", a.corpus), ("--runs", a.runs), ("--calls", a.calls)))
    print("# fimdup.cluster: the first call of a fresh process against the later calls\n")
    print(f"Generated by `eval/python/first_call.py`, {started}. Command: `{cmd}`.\n")
    print(f"- Machine: {os.cpu_count()} cores, {platform.platform()}; load average (1/5/15 min) at start "
          + "/".join(f"{x:.2f}" for x in load_start) + ", at end " + "/".join(f"{x:.2f}" for x in load_end) + ".")
    print(f"- Versions: fimdup package {v['fimdup']} (git {v['git']}), command `{bin_version}`; Python {v['python']}, "
          f"pyarrow {v['pyarrow']}, numpy {v['numpy']}, pandas {v['pandas']}.")
    print(f"- Corpus: {a.corpus}/docs.jsonl, {n_docs} documents (`fimdup gen --config eval/peers/corpus.json "
          f"--docs 50000`), read into a list of str texts and a list of str ids before the calls.")
    print(f"- Every call and every command run found the same number of pairs: {', '.join(map(str, pairs))}.\n")
    print("Wall seconds; medians, minima and maxima over the fresh processes (one command run beside each):\n")
    print("| what | processes | median | min | max |")
    print("|---|---:|---:|---:|---:|")
    print(line("`import fimdup`", imports))
    print(line("first `fimdup.cluster(texts, ids)`", first))
    print(line(f"later calls (the median of calls 2..{a.calls} of each process)", later))
    print(line("first / later (per process)", ratio, "{:.2f}"))
    print(line("CPU seconds of the first call", first_cpu))
    print(line("CPU seconds of a later call (median of calls 2..K)", later_cpu))
    print(line("`fimdup cluster docs.jsonl --out DIR` (the command, a whole process)", cli))
    print("\nEvery process (wall seconds, CPU seconds; modules imported by each call):\n")
    print("| process | import | calls | CPU of the calls | modules imported | command |")
    print("|---:|---:|---|---|---|---:|")
    for i, r in enumerate(rows):
        print(f"| {i + 1} | {r['import']:.3f} | " + ", ".join(f"{c:.3f}" for c in r["calls"]) + " | "
              + ", ".join(f"{c:.2f}" for c in r["cpu"]) + " | "
              + ", ".join(map(str, r["imported"])) + f" | {r['cli']:.3f} |")


if __name__ == "__main__":
    main()
