#!/usr/bin/env python3
"""Side-by-side benchmark of `fimdup dedup` against text-dedup's MinHash deduplication
(pip `text-dedup`, github ChenghaoMou/text-dedup) on the generated corpus of the peers
benchmark, in one run; see eval/dedup/run.sh, which makes the venv and the corpus and calls
this. Writes eval/results/dedup.md.

Data. `fimdup gen --config eval/peers/corpus.json` (50k documents, 250-350 words, 20 % in
edit families) as docs.jsonl, and the same documents converted here with pyarrow to
docs.parquet (columns id, text only; ROW_GROUP rows per row group). Both tools read both.

Truth. Pairs with exact word 5-shingle resemblance >= THRESHOLD (lowercased \\w+ words), taken
from the generator's exact join (truth.csv) by eval/peers/bench.py's load_truth, imported
from there, not copied.

What each tool is asked: keep one document of every group of near-duplicates at resemblance
>= THRESHOLD (word 5-shingles, lowercased; 128 permutations where the tool has that
parameter). Each run is one child process under /usr/bin/time -v:
  fimdup     `fimdup dedup INPUT --threshold T [--method lsh] [--verify exact] [--per-cluster]
             --out DIR` (its defaults: word 5-shingles, lowercased; concept method; keep
             first; all cores, 2); --per-cluster keeps one per cluster of the method instead
             of its greedy choice (with --method lsh: text-dedup's semantics);
             the kept ids are read from DIR/kept.jsonl or DIR/kept.parquet, the removals
             and their named representatives from DIR/removed.csv
             (id,representative,cluster,score,score_kind), and DIR/summary.json is recorded.
  text-dedup its `python -m text_dedup.minhash` entry point (the body of its __main__: Config
             from ./config.toml, check_env, main), called as `bench.py _textdedup` in a
             directory holding config.toml (its current, 0.4.x, interface: the whole
             configuration is read from ./config.toml). PyPI's newest release, 0.4.1, has a bug
             fixed upstream after it (issue #129, PR #130: commits ed69d13 + 172e77f, unreleased): cluster()
             returns union-find group numbers instead of member row indices, so in its default
             mode (no check_false_positive) every document of every candidate cluster is removed,
             none kept. The wrapper replaces text_dedup.minhash.cluster by upstream's fixed one
             (FIXED_CLUSTER below, copied from upstream master 7538f3e); `--as-released` runs
             0.4.1 unpatched, reported in one row for the record. Configuration:
             input_type local_files, file_type json|parquet, read_arguments {path: json|
             parquet, data_files: INPUT, split: train}; algorithm minhash, text_column text,
             num_perm 128, threshold T, ngram_size 5, hash_bits 64, seed 42, bands/rows from
             its optimal_param (as datasketch), check_false_positive false (its default) or
             true (its README's example); output save_clusters, keep_index_column. It writes
             the kept rows as a Hugging Face dataset (save_to_disk), read back here with
             datasets.load_from_disk for the kept ids; clusters.pickle maps each clustered
             row index to its cluster's smallest row index, which is its representative.
             A fresh HF_HOME per run, so no run reuses another's Arrow cache.

Measured per run: wall time, CPU time (user + sys, children included), peak RSS of the
largest single process (/usr/bin/time -v; text-dedup forks num_proc = 2 worker processes,
so also the peak of the summed PSS of the whole process tree, sampled every 0.1 s from
/proc/PID/smaps_rollup), documents kept and removed, and, against the exact truth:
  residual pairs       truth pairs with both documents kept (0 = nothing near-duplicate left);
  kept w/ earlier twin kept documents resembling an earlier kept document at >= T (what an
                       exact keep-first pass over the kept set would still remove);
  lone removals        removed documents that resemble no other document at >= T at all;
  bad representative   removed documents whose named representative does not resemble them
                       at >= T (fimdup: removed.csv; text-dedup: the cluster's smallest index).
Two exact references, computed here from the truth (not timed): keep-first in input order
(keep a document unless it resembles an already kept one; fimdup's semantics) and one per
connected component of the truth graph (text-dedup's union-find semantics, exact).
fimdup timings are the median of --repeat runs (every run listed); text-dedup runs once per
configuration (tens of seconds, so less sensitive to a passing load).

Usage: bench.py --bin FIMDUP --corpus DIR --work DIR --out eval/results/dedup.md
                [--threshold 0.8] [--repeat 5] [--note TEXT] [--tools fimdup,text-dedup]
(internal: bench.py _textdedup [--as-released], run in a directory holding config.toml)
"""
import argparse
import csv
import importlib.util
import json
import os
import pickle
import platform
import shutil
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
NUM_PERM = 128
SHINGLE = 5
ROW_GROUP = 5000  # rows per Parquet row group: 10 row groups for the 50k corpus


def _load_peers():
    """eval/peers/bench.py as a module (by path: this file is also called bench.py)."""
    spec = importlib.util.spec_from_file_location(
        "peers_bench", os.path.join(ROOT, "eval", "peers", "bench.py")
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


peers = _load_peers()


def log(m):
    print(f"[dedup {time.strftime('%H:%M:%S')}] {m}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- data


def to_parquet(jsonl, out):
    """docs.jsonl -> docs.parquet (id, text; ROW_GROUP rows per group), unless up to date."""
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(jsonl):
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    ids, texts = peers.read_docs(jsonl)
    table = pa.table({"id": pa.array(ids, pa.string()), "text": pa.array(texts, pa.string())})
    tmp = out + ".tmp"
    pq.write_table(table, tmp, row_group_size=ROW_GROUP)
    os.replace(tmp, out)


def parquet_layout(path):
    import pyarrow.parquet as pq

    md = pq.ParquetFile(path).metadata
    codec = md.row_group(0).column(0).compression if md.num_row_groups else "?"
    return md.num_rows, md.num_row_groups, codec


def input_lines(jsonl):
    """id -> the exact input line (bytes, newline stripped), for the byte-identity check."""
    out = {}
    with open(jsonl, "rb") as f:
        for line in f:
            line = line.rstrip(b"\n")
            out[json.loads(line)["id"]] = line
    return out


# ---------------------------------------------------------------- truth and scoring


class Truth:
    """The exact truth pairs as a graph over documents in input order."""

    def __init__(self, ids, pairs):
        self.ids = ids
        self.pos = {d: i for i, d in enumerate(ids)}
        self.pairs = pairs  # set of (min id, max id)
        self.adj = {}
        for a, b in pairs:
            self.adj.setdefault(a, set()).add(b)
            self.adj.setdefault(b, set()).add(a)

    def resembles(self, a, b):
        return (min(a, b), max(a, b)) in self.pairs

    def keep_first(self):
        """Exact keep-first in input order: keep a document unless it resembles a kept one."""
        kept = set()
        for d in self.ids:
            if not any(n in kept for n in self.adj.get(d, ())):
                kept.add(d)
        return kept

    def one_per_component(self):
        """Exact union-find: keep the first document (input order) of each component."""
        parent = {}

        def find(x):
            while parent.get(x, x) != x:
                parent[x] = parent.get(parent[x], parent[x])
                x = parent[x]
            return x

        for a, b in self.pairs:
            ra, rb = find(a), find(b)
            if ra != rb:
                if self.pos[ra] < self.pos[rb]:
                    parent[rb] = ra
                else:
                    parent[ra] = rb
        return {d for d in self.ids if find(d) == d}

    def score(self, kept, reps=None):
        """Scores a kept set; reps maps removed id -> named representative (or None)."""
        kept = set(kept)
        removed = [d for d in self.ids if d not in kept]
        residual = sum(1 for a, b in self.pairs if a in kept and b in kept)
        twin = sum(
            1
            for d in kept
            if any(n in kept and self.pos[n] < self.pos[d] for n in self.adj.get(d, ()))
        )
        lone = sum(1 for d in removed if d not in self.adj)
        bad_rep = rep_missing = rep_removed = None
        if reps is not None:
            bad_rep = sum(1 for d in removed if not (d in reps and self.resembles(d, reps[d])))
            rep_missing = sum(1 for d in removed if d not in reps)
            rep_removed = sum(1 for d in removed if d in reps and reps[d] not in kept)
        return {
            "kept": len(kept),
            "removed": len(removed),
            "residual": residual,
            "twin": twin,
            "lone": lone,
            "bad_rep": bad_rep,
            "rep_missing": rep_missing,
            "rep_removed": rep_removed,
        }


# ---------------------------------------------------------------- timing


def _tree_pss_kib(root_pid):
    """Summed PSS (KiB) of the descendants of root_pid (the /usr/bin/time process)."""
    children = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat") as f:
                s = f.read()
            ppid = int(s[s.rindex(")") + 2 :].split()[1])
            children.setdefault(ppid, []).append(int(p))
        except (OSError, ValueError):
            continue
    total, todo = 0, list(children.get(root_pid, []))
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
                        break
        except OSError:
            continue
    return total


class RunFailed(Exception):
    """A timed command exited with an error."""

    def __init__(self, cmd, code, stderr):
        super().__init__(f"failed ({code}): {' '.join(cmd)}")
        # its own message: the stderr lines that are not /usr/bin/time -v's report
        self.message = " ".join(
            l.strip() for l in stderr.splitlines()
            if l.strip() and not l.startswith("\t") and "Command exited" not in l
        )[:300]


def timed(cmd, cwd=None, env=None, log_path=None, sample=True):
    """Runs cmd under /usr/bin/time -v. Returns a dict: wall s, cpu s (user + sys), rss MiB
    (largest single process), tree MiB (peak summed PSS of the tree, sampled; None when not
    sampled), stdout and stderr (also written to log_path)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(
        ["/usr/bin/time", "-v"] + cmd,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    peak = [0]
    done = threading.Event()

    def sampler():
        while not done.is_set():
            peak[0] = max(peak[0], _tree_pss_kib(p.pid))
            done.wait(0.1)

    th = threading.Thread(target=sampler, daemon=True)
    if sample:
        th.start()
    out, err = p.communicate()
    wall = time.perf_counter() - t0
    done.set()
    if sample:
        th.join()
    if log_path:
        with open(log_path, "w") as f:
            f.write(" ".join(cmd) + "\n--- stdout\n" + out + "\n--- stderr\n" + err)
    if p.returncode != 0:
        raise RunFailed(cmd, p.returncode, err)
    r = {"wall": wall, "cpu": 0.0, "rss": None, "tree": peak[0] / 1024.0 if sample else None}
    for line in err.splitlines():
        line = line.strip()
        if line.startswith("User time (seconds):") or line.startswith("System time (seconds):"):
            r["cpu"] += float(line.split(":")[1])
        elif line.startswith("Maximum resident set size"):
            r["rss"] = int(line.split(":")[1]) / 1024.0
    r["stdout"], r["stderr"] = out, err
    return r


def median_run(runs):
    """The run with the median wall time, with the peak RSS over all runs."""
    s = sorted(runs, key=lambda r: r["wall"])
    m = dict(s[len(s) // 2])
    m["rss"] = max(r["rss"] for r in runs if r["rss"] is not None)
    trees = [r["tree"] for r in runs if r["tree"]]
    m["tree"] = max(trees) if trees else None
    m["walls"] = [r["wall"] for r in s]
    return m


# ---------------------------------------------------------------- fimdup


def fimdup_runs():
    """(label, extra args) of the fimdup dedup configurations."""
    return [
        ("concept", []),
        ("concept --verify exact", ["--verify", "exact"]),
        ("lsh", ["--method", "lsh"]),
        ("lsh --verify exact", ["--method", "lsh", "--verify", "exact"]),
        # one per LSH union-find cluster: text-dedup's semantics
        ("lsh --per-cluster", ["--method", "lsh", "--per-cluster"]),
    ]


def fimdup_cmd(binary, inp, t, extra, out):
    return [binary, "dedup", inp, "--threshold", str(t)] + extra + ["--out", out]


def read_fimdup_out(od, fmt, lines, texts):
    """(kept ids in file order, removed id -> representative, summary, byte mismatches).
    Byte identity: each kept JSONL line equals its input line; each kept Parquet row's id
    and text equal the input's."""
    kept, mismatched = [], 0
    if fmt == "jsonl":
        with open(os.path.join(od, "kept.jsonl"), "rb") as f:
            for line in f:
                line = line.rstrip(b"\n")
                d = json.loads(line)["id"]
                kept.append(d)
                mismatched += lines.get(d) != line
    else:
        import pyarrow.parquet as pq

        t = pq.read_table(os.path.join(od, "kept.parquet"), columns=["id", "text"])
        for d, x in zip(t.column("id").to_pylist(), t.column("text").to_pylist()):
            kept.append(d)
            mismatched += texts.get(d) != x
    reps = {}
    with open(os.path.join(od, "removed.csv"), newline="") as f:
        r = csv.DictReader(f)
        for row in r:
            reps[row["id"]] = row["representative"]
    summary = {}
    sp = os.path.join(od, "summary.json")
    if os.path.exists(sp):
        with open(sp) as f:
            summary = json.load(f)
    return kept, reps, summary, mismatched


# ---------------------------------------------------------------- text-dedup


def textdedup_config(fmt, data, t, verify, outdir):
    """The config.toml text-dedup 0.4.x reads from its working directory."""
    return f"""[input]
input_type = "local_files"
file_type = "{fmt}"

[input.read_arguments]
path = "{fmt}"
data_files = "{data}"
split = "train"

[algorithm]
algorithm_name = "minhash"
text_column = "text"
seed = 42
batch_size = 10000
num_perm = {NUM_PERM}
threshold = {t}
false_positive_weight = 0.5
false_negative_weight = 0.5
hash_bits = 64
ngram_size = {SHINGLE}
check_false_positive = {"true" if verify else "false"}

[output]
output_dir = "{outdir}"
clean_cache = false
save_clusters = true
keep_index_column = true
keep_cluster_column = false

[debug]
enable_profiling = false
"""


def fixed_cluster(config, ds):
    """text_dedup.minhash.cluster as on upstream master (7538f3e, after PR #130): the
    union-find groups of the LSH candidate pairs mapped to their smallest member row index.
    0.4.1 returns the super_merger group number itself, which is no member's index."""
    from typing import cast

    import polars as pl
    from polars_grouper import super_merger
    from text_dedup.config import MinHashAlgorithmConfig

    algo = cast(MinHashAlgorithmConfig, config.algorithm)
    signatures = ds.select_columns(["__band_idx__", "__band_val__", algo.internal_index_column]).to_polars()
    clusters = (
        signatures.group_by(["__band_idx__", "__band_val__"])
        .agg(pl.col(algo.internal_index_column))
        .filter(pl.col(algo.internal_index_column).list.len() > 1)
        .select(pl.col(algo.internal_index_column).alias("values"))
        .with_row_index(name="index")
    )
    exploded_df = clusters.explode("values")
    combinations = (
        exploded_df.join(exploded_df, on="index")
        .filter(pl.col("values") < pl.col("values_right"))
        .rename({"values": "src", "values_right": "dst"})
        .drop("index")
    )
    grouped = super_merger(combinations, from_col_name="src", to_col_name="dst")
    mapping = pl.concat([
        grouped.select(pl.col("src").alias("id"), pl.col("group")).unique(),
        grouped.select(pl.col("dst").alias("id"), pl.col("group")).unique(),
    ]).unique()
    mapping = (
        mapping.group_by("group")
        .agg(pl.col("id"), pl.min("id").alias("cluster"))
        .select(pl.col("id"), pl.col("cluster"))
        .explode("id")
    )
    return dict(mapping.iter_rows(named=False))


def textdedup_entry(as_released):
    """What `python -m text_dedup.minhash` does (its __main__ block), with upstream's fixed
    cluster() unless as_released."""
    import text_dedup.minhash as tdm
    from pydantic_settings import CliApp
    from text_dedup.utils.env import check_env

    if not as_released:
        tdm.cluster = fixed_cluster
    sys.argv = [sys.argv[0]]  # its CliApp parses the command line: give it none
    config = CliApp.run(tdm.Config)
    check_env()
    tdm.main(config)


def read_textdedup_out(od, ids):
    """(kept ids in order, removed id -> representative id, row order preserved?)."""
    import datasets

    ds = datasets.load_from_disk(od)
    kept = ds["id"]
    idx = ds["__INDEX__"]
    in_order = all(ids[i] == d for i, d in zip(idx, kept)) and idx == sorted(idx)
    with open(os.path.join(od, "clusters.pickle"), "rb") as f:
        clusters = pickle.load(f)  # row index -> its cluster's smallest row index
    reps = {ids[i]: ids[c] for i, c in clusters.items() if i != c}
    return kept, reps, in_order


def textdedup_phases(text):
    """Its own timer lines ('Preprocessing: 1.56 s (7.71%)') -> {phase: seconds}."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        for k, w in enumerate(parts):
            if w.endswith(":") and k + 2 < len(parts) and parts[k + 2] == "s":
                try:
                    out[w[:-1]] = float(parts[k + 1])
                except ValueError:
                    pass
    return out


# ---------------------------------------------------------------- report helpers


def sh(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, shell=True).stdout.strip()
    except Exception:  # noqa: BLE001 - informative only
        return "?"


def versions():
    import importlib.metadata as m

    out = {}
    for k in ["text-dedup", "datasets", "polars", "polars-grouper", "pyarrow", "numpy", "scipy", "xxhash"]:
        try:
            out[k] = m.version(k)
        except m.PackageNotFoundError:
            pass
    return out


def condense_summary(s):
    """The figures of fimdup's summary.json worth a line: removals by reason, the method's
    parameters, its pairs, and its phase timings."""
    c = s.get("cluster", {})
    by = ", ".join(f"{k} {v}" for k, v in s.get("removed_by", {}).items() if v)
    par = ", ".join(f"{k} {c[k]}" for k in ["k", "bands", "rows", "candidate_threshold"]
                    if c.get(k) is not None)
    ph = ", ".join(f"{p['name']} {p['seconds']:.2f}" for p in c.get("phases", []))
    return (f"kept {s.get('kept')}, removed {s.get('removed')} ({by}); {c.get('method')}: "
            f"{par}; pairs {c.get('pairs')}"
            + (f" ({c['verify_removed']} removed by the exact check)" if c.get("verify_removed") is not None else "")
            + f"; phases (s) {ph}; total {s.get('seconds', 0):.2f} s")


def fmt_mib(x):
    return "-" if x is None else f"{x:.0f}"


def fmt_opt(x):
    return "-" if x is None else str(x)


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True, help="the fimdup binary")
    ap.add_argument("--corpus", required=True, help="dir with docs.jsonl and truth.csv")
    ap.add_argument("--work", required=True, help="scratch dir (outputs, caches)")
    ap.add_argument("--out", required=True, help="the markdown report")
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--repeat", type=int, default=5, help="fimdup runs per configuration (median)")
    ap.add_argument("--tools", default="fimdup,text-dedup")
    ap.add_argument("--note", default="", help="free text put under the machine line")
    a = ap.parse_args()
    tools = [x for x in a.tools.split(",") if x]
    t = a.threshold
    os.makedirs(a.work, exist_ok=True)
    jsonl = os.path.join(a.corpus, "docs.jsonl")
    parquet = os.path.join(a.work, "docs.parquet")
    loads = [("start", os.getloadavg())]

    to_parquet(jsonl, parquet)
    nrows, ngroups, codec = parquet_layout(parquet)
    ids, texts_list = peers.read_docs(jsonl)
    texts = dict(zip(ids, texts_list))
    lines = input_lines(jsonl)
    del texts_list
    truth = Truth(ids, peers.load_truth(a.corpus, t, a.work))
    log(f"{len(ids)} docs, {len(truth.pairs)} truth pairs at resemblance >= {t}; "
        f"parquet {nrows} rows in {ngroups} row groups ({codec})")
    ref_first = truth.score(truth.keep_first())
    ref_comp = truth.score(truth.one_per_component())

    inputs = [("jsonl", jsonl), ("parquet", parquet)]
    rows = []  # dicts: tool, input, config, run (timed), score, extra
    failed = []  # (run, its error message): runs that could not be measured
    spread = []

    # fimdup dedup
    if "fimdup" in tools:
        for fmt, inp in inputs:
            for label, extra in fimdup_runs():
                name = f"fimdup dedup {label}"
                log(f"{name} ({fmt})")
                od = os.path.join(a.work, "fimdup-" + fmt + "-" + label.replace(" ", "_").replace("--", ""))
                runs = []
                try:
                    for k in range(max(1, a.repeat)):
                        shutil.rmtree(od, ignore_errors=True)
                        runs.append(timed(fimdup_cmd(a.bin, inp, t, extra, od), sample=True,
                                          log_path=od + ".log"))
                except RunFailed as e:
                    # e.g. an input format this build does not read: say so in the report
                    log(f"{name} ({fmt}) {e}: {e.message}")
                    failed.append((f"fimdup dedup {label} ({fmt})", e.message))
                    continue
                run = median_run(runs)
                spread.append((f"{name} ({fmt})", run["walls"]))
                kept, reps, summary, mism = read_fimdup_out(od, fmt, lines, texts)
                order_ok = [truth.pos[d] for d in kept] == sorted(truth.pos[d] for d in kept)
                sc = truth.score(kept, reps)
                rows.append({
                    "tool": "fimdup", "input": fmt, "config": label, "run": run, "score": sc,
                    "cmd": " ".join(fimdup_cmd("fimdup", "INPUT", t, extra, "DIR")),
                    "check": f"{mism} kept records differ from the input"
                             + ("" if order_ok else ", NOT in input order"),
                    "summary": summary,
                })
        loads.append(("after fimdup", os.getloadavg()))

    # text-dedup minhash
    if "text-dedup" in tools:
        td_runs = [(fmt, inp, verify, False) for fmt, inp in inputs for verify in [False, True]]
        td_runs.append(("parquet", parquet, False, True))  # 0.4.1 unpatched, for the record
        for fmt, inp, verify, released in td_runs:
            label = "minhash" + (" check_false_positive" if verify else "")
            label += " (0.4.1 as released)" if released else ""
            log(f"text-dedup {label} ({fmt})")
            tag = ("verify" if verify else "default") + ("-released" if released else "")
            base = os.path.join(a.work, f"textdedup-{fmt}-{tag}")
            shutil.rmtree(base, ignore_errors=True)
            os.makedirs(base)
            od = os.path.join(base, "output")
            with open(os.path.join(base, "config.toml"), "w") as f:
                f.write(textdedup_config("json" if fmt == "jsonl" else "parquet", inp, t, verify, od))
            env = dict(os.environ)
            env["HF_HOME"] = os.path.join(base, "hf")  # fresh cache: no reuse across runs
            env["HF_HUB_OFFLINE"] = "1"
            env["COLUMNS"] = "200"  # its rich log lines unwrapped, for the phase timings
            cmd = [sys.executable, os.path.abspath(__file__), "_textdedup"]
            cmd += ["--as-released"] if released else []
            run = timed(cmd, cwd=base, env=env, log_path=os.path.join(base, "log.txt"))
            kept, reps, in_order = read_textdedup_out(od, ids)
            sc = truth.score(kept, reps)
            phases = textdedup_phases(run["stdout"] + "\n" + run["stderr"])
            rows.append({
                "tool": "text-dedup", "input": fmt, "config": label, "run": run, "score": sc,
                "cmd": "cd DIR && python eval/dedup/bench.py _textdedup"
                       + (" --as-released" if released else "")
                       + "   # = python -m text_dedup.minhash with DIR/config.toml"
                       + ("" if released else ", upstream's fixed cluster()"),
                "check": "kept rows in input order" if in_order else "kept rows NOT in input order",
                "phases": phases,
            })
            shutil.rmtree(env["HF_HOME"], ignore_errors=True)
        loads.append(("after text-dedup", os.getloadavg()))

    write_report(a, t, ids, truth, ref_first, ref_comp, rows, spread, loads,
                 (nrows, ngroups, codec), failed)


def write_report(a, t, ids, truth, ref_first, ref_comp, rows, spread, loads, pq_layout, failed):
    v = versions()
    fim_v = sh(f"{a.bin} --version")
    rev = sh(f"git -C {ROOT} rev-parse --short HEAD")
    L = []
    L.append("# `fimdup dedup` against text-dedup (MinHash)\n")
    L.append(f"Generated by `eval/dedup/run.sh` (`eval/dedup/bench.py`), "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.\n")
    L.append(
        f"- Machine: {os.cpu_count()} cores, {sh('grep MemTotal /proc/meminfo')}, "
        f"{platform.platform()}; load average (1/5/15 min) "
        + "; ".join(f"{k}: " + "/".join(f"{x:.2f}" for x in l) for k, l in loads)
        + ". Other builds may run on the machine: CPU time (user + sys) is given beside wall time."
    )
    if a.note:
        L.append(f"- Note: {a.note}")
    L.append(f"- Versions: {fim_v} (the binary's own build commit; scripts at git {rev}), Python {platform.python_version()}, "
             + ", ".join(f"{k} {x}" for k, x in v.items()))
    L.append(
        f"- Corpus: {len(ids)} documents from `fimdup gen --config eval/peers/corpus.json` (the "
        f"peers benchmark's corpus: 250-350 words, 20 % in edit families made by 1-10 % word "
        f"edits), as docs.jsonl (fields id, family, kind, text) and as docs.parquet (id, text; "
        f"{pq_layout[1]} row groups of {ROW_GROUP} rows, {pq_layout[2]}, written with pyarrow). "
        f"Truth: {len(truth.pairs)} pairs with exact word 5-shingle resemblance >= {t} "
        f"(eval/peers/bench.py load_truth: the generator's exact join), over "
        f"{len(truth.adj)} documents."
    )
    L.append("")
    L.append(f"## Dedup at resemblance >= {t}\n")
    L.append(
        "One process per run (`/usr/bin/time -v`): read, sketch, index, decide, write the kept "
        "records. CPU = user + sys of the process and its children. RSS = peak RSS of the "
        "largest single process; tree = peak of the summed PSS of the process tree (sampled "
        "every 0.1 s). Both use the 2 cores: fimdup 2 threads, text-dedup num_proc = 2 worker "
        "processes (its default, the core count) and polars' 2 threads. Residual = truth pairs with both "
        "documents kept; twin = kept documents resembling an earlier kept one; lone = removed "
        "documents resembling no document at all; bad rep = removed documents whose named "
        "representative does not resemble them (all at >= the threshold, exact).\n"
    )
    L.append("| tool | input | configuration | wall s | CPU s | RSS MiB | tree MiB | kept | removed "
             "| residual pairs | kept w/ earlier twin | lone removals | bad rep |")
    L.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, sc in [("exact keep-first (truth)", ref_first), ("exact one per component (truth)", ref_comp)]:
        L.append(f"| {name} | - | reference | - | - | - | - | {sc['kept']} | {sc['removed']} | "
                 f"{sc['residual']} | {sc['twin']} | {sc['lone']} | - |")
    for r in rows:
        run, sc = r["run"], r["score"]
        L.append(
            f"| {r['tool']} | {r['input']} | {r['config']} | {run['wall']:.2f} | {run['cpu']:.2f} | "
            f"{fmt_mib(run['rss'])} | {fmt_mib(run['tree'])} | {sc['kept']} | {sc['removed']} | "
            f"{sc['residual']} | {sc['twin']} | {sc['lone']} | {fmt_opt(sc['bad_rep'])} |"
        )
    L.append("")

    # ratios: fimdup over text-dedup, same input; unverified against its default, verified
    # against check_false_positive
    fim = {(r["input"], r["config"]): r for r in rows if r["tool"] == "fimdup"}
    td = {(r["input"], r["config"]): r for r in rows if r["tool"] == "text-dedup"}
    pairs = []
    for inp in ["jsonl", "parquet"]:
        for fc, tc in [("concept", "minhash"), ("lsh", "minhash"),
                       ("concept --verify exact", "minhash check_false_positive"),
                       ("lsh --verify exact", "minhash check_false_positive"),
                       ("lsh --per-cluster", "minhash")]:
            if (inp, fc) in fim and (inp, tc) in td:
                pairs.append((inp, fim[(inp, fc)], td[(inp, tc)]))
    if pairs:
        L.append("### Ratios (fimdup / text-dedup, same input)\n")
        L.append("Unverified fimdup runs against text-dedup's default; `--verify exact` against "
                 "its `check_false_positive = true`.\n")
        L.append("| input | fimdup | text-dedup | wall ratio | CPU ratio | RSS ratio | tree ratio |")
        L.append("|---|---|---|---:|---:|---:|---:|")
        for inp, f, x in pairs:
            fr, xr = f["run"], x["run"]
            tree = (f"{fr['tree'] / xr['tree']:.3f}" if fr["tree"] and xr["tree"] else "-")
            L.append(f"| {inp} | {f['config']} | {x['config']} | {fr['wall'] / xr['wall']:.3f} | "
                     f"{fr['cpu'] / xr['cpu']:.3f} | {fr['rss'] / xr['rss']:.3f} | {tree} |")
        L.append("")

    L.append("### Checks and details\n")
    by_msg = {}
    for name, msg in failed:
        by_msg.setdefault(msg, []).append(name)
    for msg, names in by_msg.items():
        L.append(f"- {', '.join(names)}: not measured, the run failed: `{msg}`")
    for r in rows:
        extra = ""
        if r.get("summary"):
            extra = "; summary.json: " + condense_summary(r["summary"])
        if r.get("phases"):
            extra = "; its own phase timer (s): " + ", ".join(f"{k} {v:.2f}" for k, v in r["phases"].items())
        sc = r["score"]
        if sc.get("rep_missing"):
            extra += f"; {sc['rep_missing']} removed documents have no named representative"
        if sc.get("rep_removed") is not None:
            extra += f"; {sc['rep_removed']} named representatives are not kept"
        L.append(f"- {r['tool']} {r['config']} ({r['input']}): {r['check']}{extra}")
    if spread:
        L.append(
            f"- fimdup timings are the median of {a.repeat} runs (RSS: the peak over them); every "
            "run, in seconds: "
            + "; ".join(f"{n}: " + ", ".join(f"{w:.2f}" for w in ws) for n, ws in spread)
        )
    L.append("")

    L.append("## Commands\n")
    L.append("INPUT is docs.jsonl or docs.parquet; DIR a fresh output directory per run.\n")
    L.append("```")
    L.append("eval/dedup/run.sh" + (f" --note '{a.note}'" if a.note else "")
             + "   # all of the below, then this report")
    L.append("fimdup gen --config eval/peers/corpus.json --out CORPUS   # CORPUS/docs.jsonl, truth.csv")
    L.append(f"# docs.parquet: pyarrow.parquet.write_table(table(id, text), row_group_size={ROW_GROUP})")
    seen = set()
    for r in rows:
        if r["cmd"] not in seen:
            seen.add(r["cmd"])
            L.append(r["cmd"])
    L.append("```\n")
    if any(r["tool"] == "text-dedup" for r in rows):
        L.append("text-dedup's config.toml (json input; for Parquet `file_type` and `path` are "
                 "`parquet`; `check_false_positive = true` in the verified runs):\n")
        L.append("```toml")
        L.append(textdedup_config("json", "docs.jsonl", t, False, "output").strip())
        L.append("```\n")

    if any(r["tool"] == "text-dedup" for r in rows):
        try:
            from text_dedup.config.algorithms.minhash import optimal_param

            b, r = optimal_param(t, NUM_PERM)
            probs = " / ".join(f"{1 - (1 - s ** r) ** b:.2f}" for s in (t, t + 0.05, t + 0.1))
            L.append(
                f"text-dedup's bands and rows come from its `optimal_param({t}, {NUM_PERM})` "
                f"(datasketch's weighted false positive / negative areas, weights 0.5 / 0.5): "
                f"{b} bands of {r} rows ({b * r} of the {NUM_PERM} hashes used), so a pair of "
                f"resemblance {t:.2f} / {t + 0.05:.2f} / {t + 0.1:.2f} becomes a candidate with "
                f"probability {probs}. Every residual pair of text-dedup is a pair its bands never put "
                f"in one cluster (union-find would have removed one of the two otherwise).\n"
            )
        except Exception as e:  # noqa: BLE001 - informative only
            log(f"optimal_param: {e}")
    L.append("## Semantics\n")
    L.append(
        "fimdup keeps a document unless it resembles an already kept one (input order; a "
        "removed document names the kept document it resembles, so there are no transitive "
        "chains: a document that resembles only a removed one is kept); with `--per-cluster` it "
        "keeps one document per cluster of the method instead (`--method lsh --per-cluster` "
        "is text-dedup's semantics). text-dedup unites "
        "every LSH candidate pair (its bands) in a union-find and keeps one document per "
        "cluster (the smallest row index); a chain a~b~c removes c even when c does not "
        "resemble a, and LSH candidates that are not near-duplicates merge clusters too. With "
        "`check_false_positive = true` it computes exact Jaccard for every pair inside each "
        "candidate cluster and removes the documents that have a verified partner there, "
        "keeping the smallest of them per cluster (so chains remain). The two exact references "
        "show the two semantics on the truth: both leave 0 residual pairs; keep-first keeps at "
        "least as many documents (one per component is always among them), one per component "
        "removes more through chains."
    )
    L.append("")
    L.append("## text-dedup version\n")
    L.append(
        "text-dedup 0.4.1 is PyPI's newest release (pinned in eval/dedup/run.sh). Its MinHash "
        "`cluster()` returns union-find group numbers where `assign()` expects each cluster's "
        "smallest row index, so in its default mode (no `check_false_positive`) a document is "
        "kept only when its row index happens to equal its group number: nearly every document "
        "of every candidate cluster is removed (the \"0.4.1 as released\" row). Upstream fixed "
        "this after the release (issue #129, PR #130: commits ed69d13 and 172e77f, February 2026; master "
        "7538f3e has no other change to the MinHash path since 0.4.1). The other text-dedup rows "
        "run 0.4.1 with that fixed `cluster()` put in place by `bench.py _textdedup` (copied "
        "from upstream master); with `check_false_positive = true` the bug is masked anyway, as "
        "the verification regroups by smallest row index."
    )
    L.append("")
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        f.write("\n".join(L))
    log(f"wrote {a.out}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_textdedup":
        textdedup_entry("--as-released" in sys.argv[2:])
    else:
        main()
