#!/usr/bin/env python3
"""Multi-process benchmark of `fimdup cluster`; see eval/dist/run.sh, which builds the binary,
generates the corpora and calls this. Standard library only.

Configurations (--configs, comma-separated; default 1p,2x1,4x1,1x2):
  1p    the plain single-process command: `fimdup cluster DOCS --method M --threshold T --out D`
        (all cores: --threads defaults to every core).
  NxW   N processes x W timely workers each, any N >= 1 and W >= 1 (2x1, 4x1, 1x2, 3x2, ...).
        N > 1: the same command plus `--processes N --process P --hosts HOSTS --workers W
        --connect-timeout S`, P = 0 .. N-1 started together on 127.0.0.1, HOSTS N lines
        127.0.0.1:PORT with ports free at run time (bound to port 0, read back, closed). All
        get the same --out; a divided run's processes each write their parts there (compared
        concatenated in process order), a gathered run's process 0 everything.
        N = 1: `--processes 1 --workers W`, the dataflow without the network (1x2 tells the
        dataflow's cost from the network's).
  NxW-prefix, NxW-rows  the same with `--exchange prefix` (only each document's prefix in
        element order is exchanged, not the rows; summary.json's context_rows, dropped_rare and
        dropped_common are then null and not compared) or `--exchange rows` (the default).
Each run is one child process per fimdup process under /usr/bin/time (%e %M: wall seconds,
peak RSS); the run's wall time is from the first start to the last exit. Runs are
interleaved (1p, 2x1, 4x1, 1x2, 1p, 2x1, ...) and the median wall time is reported; --repeat
rounds for corpora under 200k documents, --repeat-large for larger ones (default 3 each).

Checks (any failure: the report and raw JSON are still written, with the failure at the top,
then exit 1): every process exits 0; the output directory of every other configuration holds
exactly the files of the 1p run, each equal byte for byte (cmp); the deterministic fields of
summary.json (all but phases, seconds, peak_rss_bytes, distributed) are equal; no temporary
file is left behind.

Recorded: wall seconds, summary.json of the writing process (its phases, and its
`distributed` block: mode divided / gathered and why; per process: documents, bytes sent and
received, seconds per stage, per stage {seconds, bytes_sent, bytes_received, count}, peak
RSS), /usr/bin/time's peak RSS per process and the size of every output file. Written: --out
(Markdown) and one JSON file per (corpus, method) in --raw with every run.

Reported per configuration against 1p: median wall and its ratio, peak RSS per process and
the largest over 1p's, the mode, bytes sent per document per process and received at process
0, bytes per stage (sent by all processes and received at process 0, per corpus document),
each stage's count per document (candidate pairs: stage `pairs` summed over processes /
documents), edges per document, components, and whether the outputs are identical.

The model of --model-docs documents on --model-machines machines is computed from the largest
corpus's divided runs (concept first): see model() for each formula.

Usage: bench.py --bin FIMDUP --corpus DOCS.jsonl [--corpus ...] --work DIR --out FILE.md
                --raw DIR [--methods concept,union-find] [--threshold 0.8] [--repeat 3]
                [--repeat-large 3] [--configs 1p,2x1,4x1,1x2] [--note TEXT] [--report-only]
"""
import argparse
import json
import math
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
# summary.json fields that are timings or memory, not outputs
FAIL_STOP_GRACE = 60  # seconds the other processes get to stop after one fails
VOLATILE = {"phases", "seconds", "peak_rss_bytes", "distributed"}
# the divided mode's stages, in the order they run (summary.json `distributed.per_process[].stages`)
STAGES = ["read and sketch", "ids", "collapse", "rows", "pairs", "components", "per group", "output",
          "summary"]
# stages whose traffic goes to worker 0 (process 0) rather than all to all (a divided run's
# outputs are written in parts by every process: "output" is all to all, "summary" the counts)
TO_ZERO = {"summary"}


def log(m):
    print(f"[dist {time.strftime('%H:%M:%S')}] {m}", file=sys.stderr, flush=True)


def free_ports(n):
    """n distinct TCP ports on 127.0.0.1 free right now (bound together, then closed)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def count_docs(path):
    n = 0
    with open(path, "rb") as f:
        for _ in f:
            n += 1
    return n


class Failure(Exception):
    pass


def launch(cmds, work, tag, timeout):
    """Starts every command of cmds together, each under /usr/bin/time in its own process
    group; waits for all. Returns (wall seconds, [(wall, rss bytes, rc)], stderr paths)."""
    procs = []
    t0 = time.perf_counter()
    for i, cmd in enumerate(cmds):
        tf = os.path.join(work, f"run.p{i}.time")
        ef = os.path.join(work, f"run.p{i}.stderr")
        of = os.path.join(work, f"run.p{i}.stdout")
        with open(ef, "wb") as e, open(of, "wb") as o:
            p = subprocess.Popen(
                ["/usr/bin/time", "-f", "%e %M", "-o", tf] + cmd,
                stdout=o,
                stderr=e,
                start_new_session=True,
            )
        procs.append((p, tf, ef))
    deadline = t0 + timeout
    failed_at = None  # when a process first exited non-zero: the others must stop too (fail-stop)
    while True:
        rcs = [p.poll() for p, _, _ in procs]
        if all(rc is not None for rc in rcs):
            break
        now = time.perf_counter()
        if failed_at is None and any(rc not in (None, 0) for rc in rcs):
            failed_at = now
        late = failed_at is not None and now - failed_at > FAIL_STOP_GRACE
        if now > deadline or late:
            alive = [i for i, rc in enumerate(rcs) if rc is None]
            for i in alive:
                os.killpg(procs[i][0].pid, signal.SIGKILL)  # the group of a child started here
                procs[i][0].wait()
            why = (f"process(es) {alive} still running {FAIL_STOP_GRACE} s after another failed (no fail-stop)"
                   if late else f"still running after {timeout} s")
            raise Failure(f"{tag}: {why}, killed; stderr in {work}/run.p*.stderr")
        time.sleep(0.05)
    wall = time.perf_counter() - t0
    res = []
    for p, tf, ef in procs:
        w, rss = float("nan"), 0
        try:
            last = open(tf).read().strip().splitlines()[-1].split()
            w, rss = float(last[0]), int(last[1]) * 1024
        except (OSError, IndexError, ValueError):
            pass
        res.append((w, rss, p.returncode))
    bad = [(i, rc) for i, (_, _, rc) in enumerate(res) if rc != 0]
    if bad:
        msg = []
        for i, rc in bad:
            tail = open(procs[i][2], errors="replace").read().strip().splitlines()[-5:]
            msg.append(f"process {i} exited {rc}: " + " | ".join(tail))
        raise Failure(f"{tag}: " + "; ".join(msg))
    return wall, res


def files_under(d):
    out = []
    for dirpath, _, names in os.walk(d):
        for n in names:
            out.append(os.path.relpath(os.path.join(dirpath, n), d))
    return sorted(out)


def phases_of(summary):
    """summary.json's phases as an ordered {name: seconds}; a repeated name is numbered."""
    out = {}
    for p in summary.get("phases", []):
        name = p["name"]
        k, i = name, 2
        while k in out:
            k = f"{name}#{i}"
            i += 1
        out[k] = p["seconds"]
    return out


def fmt_stages(d):
    return ", ".join(f"{k} {v:.2f}" for k, v in d.items()) if d else "-"


def per_doc(v, docs):
    """bytes (a number, or {stage: bytes}) per document."""
    if not docs:
        return None
    if isinstance(v, dict):
        return {k: x / docs for k, x in v.items()}
    if isinstance(v, (int, float)):
        return v / docs
    return None


def total_bytes(v):
    if isinstance(v, dict):
        return sum(x for x in v.values() if isinstance(x, (int, float)))
    return v if isinstance(v, (int, float)) else 0


def fmt_bpd(v):
    if v is None:
        return "-"
    if isinstance(v, dict):
        return ", ".join(f"{k} {x:.0f}" for k, x in v.items())
    return f"{v:.0f}"


def mib(b):
    return f"{b / 2**20:.0f}"


def human_s(s):
    if s < 120:
        return f"{s:.1f} s"
    if s < 7200:
        return f"{s / 60:.1f} min"
    if s < 2 * 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.1f} days"


def human_b(b):
    for unit, f in (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if b >= f:
            return f"{b / f:.1f} {unit}"
    return f"{b:.0f} B"



def fmt_num(x):
    """A count per document: a few significant figures."""
    if x is None:
        return "-"
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.4f}"


# ---------------------------------------------------------------- runs


def parse_cfg(cfg):
    """None for 1p, (processes, workers, exchange or None) for `<n>x<w>[-rows|-prefix]`."""
    if cfg == "1p":
        return None
    m = re.fullmatch(r"([1-9]\d*)x([1-9]\d*)(?:-(rows|prefix))?", cfg)
    if not m:
        raise SystemExit(f"unknown configuration {cfg!r}: 1p or <processes>x<workers>[-rows|-prefix] "
                         "(2x1, 4x1, 1x2, 4x1-prefix, ...)")
    return int(m.group(1)), int(m.group(2)), m.group(3)


# summary.json fields a run with `--exchange prefix` does not count (null)
UNCOUNTED_BY_PREFIX = {"context_rows", "dropped_rare", "dropped_common"}


def commands(a, cfg, docs, method, out, hosts):
    base = [a.bin, "cluster", docs, "--method", method, "--threshold", str(a.threshold), "--out", out]
    nw = parse_cfg(cfg)
    if nw is None:
        return [base]
    n, w, exchange = nw
    if exchange:
        base = base + ["--exchange", exchange]
    if n == 1:
        return [base + ["--processes", "1", "--workers", str(w)]]
    return [
        base + ["--processes", str(n), "--process", str(p), "--hosts", hosts, "--workers", str(w),
                "--connect-timeout", str(a.connect_timeout)]
        for p in range(n)
    ]


def run_config(a, cfg, docs, method, tag):
    out = os.path.join(a.work, tag, "out")
    shutil.rmtree(os.path.join(a.work, tag), ignore_errors=True)
    os.makedirs(os.path.join(a.work, tag))
    hosts = os.path.join(a.work, tag, "hosts.txt")
    nw = parse_cfg(cfg)
    if nw and nw[0] > 1:
        ports = free_ports(nw[0])
        with open(hosts, "w") as f:
            f.write("".join(f"127.0.0.1:{p}\n" for p in ports))
    cmds = commands(a, cfg, docs, method, out, hosts)
    load = os.getloadavg()[0]
    wall, res = launch(cmds, os.path.join(a.work, tag), tag, a.timeout)
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    files = files_under(out)
    return {
        "config": cfg,
        "commands": cmds,
        "hosts": open(hosts).read().split() if os.path.exists(hosts) else None,
        "wall_seconds": wall,
        "load_1min_before": load,
        "processes": [{"process": i, "time_wall_seconds": w, "time_peak_rss_bytes": r}
                      for i, (w, r, _) in enumerate(res)],
        "files": files,
        "file_bytes": {f: os.path.getsize(os.path.join(out, f)) for f in files},
        "summary": summary,
        "out": out,
    }


def joined(files):
    """{output file: its files in order}: a divided run's parts (`pairs.part-00000.csv`, ...)
    stand for the file they make concatenated in order (`pairs.csv`)."""
    out = {}
    for f in sorted(files):
        m = re.fullmatch(r"(.*)\.part-\d{5}\.(.*)", f)
        out.setdefault(f"{m.group(1)}.{m.group(2)}" if m else f, []).append(f)
    return out


def check_same(ref, run):
    """Problems of run's outputs against the 1p reference (empty: identical); a divided run's
    parts are concatenated in process order first."""
    probs = []
    rj = {k: v for k, v in joined(ref["files"]).items() if k != "summary.json"}
    xj = {k: v for k, v in joined(run["files"]).items() if k != "summary.json"}
    if sorted(rj) != sorted(xj):
        probs.append(f"files differ: 1p {sorted(rj)}, {run['config']} {sorted(xj)}")
    for f, refs in rj.items():
        if f in xj:
            want = b"".join(open(os.path.join(ref["out"], x), "rb").read() for x in refs)
            got = b"".join(open(os.path.join(run["out"], x), "rb").read() for x in xj[f])
            if want != got:
                probs.append(f"{f}: differs ({len(want)} vs {len(got)} bytes)")
    tmp = [f for f in run["files"] if ".tmp" in f]
    if tmp:
        probs.append(f"temporary files left: {tmp}")
    rs, xs = ref["summary"], run["summary"]
    skip = VOLATILE | (UNCOUNTED_BY_PREFIX if run["config"].endswith("-prefix") else set())
    for k in sorted(set(rs) - skip):
        if rs.get(k) != xs.get(k):
            probs.append(f"summary.json {k}: 1p {rs.get(k)!r}, {run['config']} {xs.get(k)!r}")
    return probs


def median_run(runs):
    ws = sorted(runs, key=lambda r: r["wall_seconds"])
    return ws[(len(ws) - 1) // 2]


# ---------------------------------------------------------------- figures from a run


def dist_block(run):
    return run["summary"].get("distributed") or {}


def mode_of(run):
    d = dist_block(run)
    if not d:
        return "-"
    m = d.get("mode", "?")
    if m == "gathered" and d.get("gathered_because"):
        return f"gathered ({d['gathered_because']})"
    return m


def n_processes(run):
    return len(dist_block(run).get("per_process") or []) or 1


def n_workers(run):
    return dist_block(run).get("workers") or 1


def per_process_rows(run):
    d = dist_block(run)
    rows = []
    pp = d.get("per_process") or []
    for i, p in enumerate(pp):
        docs = p.get("documents") or 0
        rss_time = run["processes"][i]["time_peak_rss_bytes"] if i < len(run["processes"]) else None
        rows.append({
            "process": p.get("process", i),
            "documents": docs,
            "seconds": in_stage_order(stages_of(p.get("seconds"))),
            "stages": p.get("stages") or {},
            "bytes_sent": p.get("bytes_sent"),
            "bytes_received": p.get("bytes_received"),
            "sent_per_doc": per_doc(p.get("bytes_sent"), docs),
            "received_per_doc": per_doc(p.get("bytes_received"), docs),
            "peak_rss_bytes": p.get("peak_rss_bytes"),
            "time_peak_rss_bytes": rss_time,
        })
    return rows


def stages_of(v):
    """{stage: seconds} from a dict, a list of {name, seconds}, or a number (one stage)."""
    if isinstance(v, dict):
        return {k: x for k, x in v.items() if isinstance(x, (int, float))}
    if isinstance(v, list):
        return phases_of({"phases": v})
    if isinstance(v, (int, float)):
        return {"total": v}
    return {}


def in_stage_order(d):
    """A {stage: x} dict with STAGES's order first, then any other stage as it came."""
    return {k: d[k] for k in [s for s in STAGES if s in d] + [s for s in d if s not in STAGES]}


def stage_names(run):
    """The stages of a run's per-process reports: STAGES's order, then any other."""
    seen = []
    for p in per_process_rows(run):
        for k in p["stages"]:
            if k not in seen:
                seen.append(k)
    return [s for s in STAGES if s in seen] + [s for s in seen if s not in STAGES]


def stage_tot(run, stage, field):
    """A stage's field summed over every process; None when no process reports the stage."""
    vals = [p["stages"][stage].get(field) for p in per_process_rows(run) if stage in p["stages"]]
    vals = [v for v in vals if isinstance(v, (int, float))]
    return sum(vals) if vals else None


def stage_p0(run, stage, field):
    for p in per_process_rows(run):
        if p["process"] == 0 and stage in p["stages"]:
            return p["stages"][stage].get(field)
    return None


def candidate_pairs(run):
    """Candidate pairs counted (stage `pairs` count summed over processes), None if unreported."""
    return stage_tot(run, "pairs", "count")


def core_seconds(run, stage, cores):
    """A stage's core-seconds: each process's seconds in the stage times its workers, scaled
    down when the run's workers outnumber the machine's cores (they then share them). The
    stage seconds are wall time, waiting for the slowest worker included: an upper bound."""
    P, W = n_processes(run), n_workers(run)
    s = stage_tot(run, stage, "seconds")
    if s is None:
        return None
    return s * W * min(1.0, cores / (P * W))


def output_bytes(run):
    """Bytes of the files a run writes, summary.json aside (None for older raw JSON)."""
    fb = run.get("file_bytes")
    if not fb:
        return None
    return sum(v for k, v in fb.items() if k != "summary.json")


# ---------------------------------------------------------------- model


def divided_multi(cases):
    """{config: median run} of the multi-process configurations that ran divided."""
    out = {}
    for cfg, runs in cases.items():
        if cfg == "1p" or not runs:
            continue
        r = median_run(runs)
        if dist_block(r).get("mode") == "divided" and n_processes(r) > 1:
            out[cfg] = r
    return out


def growth(by_n):
    """The exponent alpha of v ~ n^alpha between the smallest and the largest n of {n: v}
    (None with fewer than two sizes or a value <= 0)."""
    by_n = {n: v for n, v in by_n.items() if isinstance(v, (int, float))}
    if len(by_n) < 2:
        return None
    lo, hi = min(by_n), max(by_n)
    if by_n[lo] <= 0 or by_n[hi] <= 0 or hi == lo:
        return None
    return math.log(by_n[hi] / by_n[lo]) / math.log(hi / lo)


def skew_model(res, method, big_cfg, srun, cores, D, N, Dm, C, link):
    """The skew of the model: the largest component (one group, mined on one worker) and the
    hottest row (one element's incidences, at one owner), each measured at every corpus
    size, grown to N documents by the fitted n^alpha (linear, alpha = 1, a fixed share of the
    corpus, when only one size ran), and its time on one core and one link added to its
    stage's (the rest of the stage is balanced over the machines; the skewed part is not).

    - largest component L: summary.json `largest_component`; its time L_N x the per-group
      stage's core-seconds per member shipped (per-group cost linear in the group's size: a
      lower bound for a mining that grows faster than its group).
    - hottest row H: `distributed.hottest_row` (the longest row an owner held in the rows
      stage, prefix incidences only under `--exchange prefix`); its time H_N x 12 B / link +
      H_N x the rows stage's core-seconds per incidence."""
    comp, hot = {}, {}
    for n in sorted(res):
        r = divided_multi(res[n].get(method) or {}).get(big_cfg)
        if not r:
            continue
        comp[n] = r["summary"].get("largest_component")
        hots = [p.get("hottest_row") for p in (dist_block(r).get("per_process") or [])]
        hots = [h for h in hots if isinstance(h, (int, float))]
        hot[n] = max(hots) if hots else None
    out = {"extra_seconds": {}, "largest_component": {}, "hottest_row": {}}
    members = stage_tot(srun, "per group", "count")
    pg_cs = core_seconds(srun, "per group", cores)
    rows_n = stage_tot(srun, "rows", "count")
    rows_cs = core_seconds(srun, "rows", cores)
    for name, by_n, stage, per_item, item_bytes in (
        ("largest_component", comp, "per group", (pg_cs / members) if (pg_cs and members) else None, 0),
        ("hottest_row", hot, "rows", (rows_cs / rows_n) if (rows_cs and rows_n) else None, 12),
    ):
        vals = {n: v for n, v in by_n.items() if isinstance(v, (int, float))}
        if not vals:
            continue
        alpha = growth(vals)
        a_used = alpha if alpha is not None else 1.0
        a_used = max(a_used, 0.0)
        top = max(vals)
        at_n = vals[top] * (N / top) ** a_used
        cpu = at_n * per_item if per_item else 0.0
        net = at_n * item_bytes / link
        # the part of the stage the model already gives its owner, balanced: N/M documents'
        # share; the skewed item adds what exceeds it
        t = cpu + net
        out["extra_seconds"][stage] = out["extra_seconds"].get(stage, 0.0) + t
        out[name] = {"measured": {str(n): v for n, v in vals.items()}, "alpha": alpha,
                     "alpha_used": a_used, "at_model": at_n, "seconds_per_item": per_item,
                     "model_seconds": t, "stage": stage}
    return out


def model(a, res, corpus_bytes):
    """The model of a.model_docs documents on a.model_machines machines, from the divided
    multi-process runs of the largest corpus. Returns (lines of Markdown, dict of the numbers).

    Formulas (D documents measured, N modelled, M machines of C cores, link bytes/s):
    - bytes of a stage per document if every item crossed machines, b = (bytes sent by all
      processes) / D / ((P-1)/P), from the run with the most processes (P); an item's owner is
      a hash, so a fraction (P-1)/P of items leaves its process. All-to-all stages then move
      N/M * b * (M-1)/M bytes out of (and into) each machine; the stages to worker 0
      (components, results) move N * b * (M-1)/M into machine 0.
    - core-seconds of a stage per document, c = (seconds summed over processes) * workers *
      min(1, cores / (P * workers)) / D, from the multi-process run whose workers fit the cores
      (no oversubscription); all-to-all stages then take N/M * c / C per machine, the stages to
      worker 0 N * (process 0's least seconds in the stage over the divided runs / D) on
      machine 0 (its part does not divide; the seconds include waiting for the others).
    - a stage's time = compute + traffic at one link's rate (no overlap: an upper bound on a
      quiet network, a lower bound on a congested one); read + sketch: max(compute, reading
      N/M * corpus bytes per document at --model-read-gbs).
    - everything linear in documents, except the candidate pairs per document, whose growth
      with the corpus is fitted between the smallest and the largest corpus (n^alpha).
    """
    n_docs = max(res)
    cores = os.cpu_count() or 1
    M, C, G, N = a.model_machines, a.model_cores, a.model_gbps, a.model_docs
    link = G * 1e9 / 8  # bytes/s
    cases = {m: c for m, c in res[n_docs].items() if c.get("1p") and divided_multi(c)}
    if not cases:
        return (["## Model", "", "No divided multi-process run of the largest corpus with a 1-process "
                 "run beside it: no model."], {})
    method = "concept" if "concept" in cases else sorted(cases)[0]
    c = cases[method]
    one = median_run(c["1p"])
    multi = divided_multi(c)
    # the most processes; of those the exchange that scales (prefix) when it ran
    big_cfg = max(multi, key=lambda k: (n_processes(multi[k]), -n_workers(multi[k]), k.endswith("-prefix")))
    big = multi[big_cfg]
    fit = [k for k in multi if n_processes(multi[k]) * n_workers(multi[k]) <= cores]
    sec_cfg = (max(fit, key=lambda k: (n_processes(multi[k]), k.endswith("-prefix") == big_cfg.endswith("-prefix")))
               if fit else big_cfg)
    srun = multi[sec_cfg]
    s1 = one["summary"]
    D = s1["documents"]
    P = n_processes(big)
    frac = (P - 1) / P
    Dm, Mfrac, W_model = N / M, (M - 1) / M, M * C
    others = sorted(multi, key=lambda k: (n_processes(multi[k]), n_workers(multi[k])))

    st_rows = []
    for st in stage_names(big):
        intr = (stage_tot(big, st, "bytes_sent") or 0) / D / frac
        intr_by = {k: (stage_tot(r, st, "bytes_sent") or 0) / D / ((n_processes(r) - 1) / n_processes(r))
                   for k, r in multi.items()}
        cs = core_seconds(srun, st, cores)
        cs_doc = (cs or 0) / D
        # process 0's own part (stages to worker 0): its seconds in the stage hold the wait for
        # the slowest worker's previous stage too, which varies from run to run; the least over
        # every divided run of this corpus and method (any configuration, any round) is the
        # tightest upper bound measured
        p0_all = [stage_p0(r, st, "seconds") for cfg, runs in c.items() if cfg != "1p" for r in runs
                  if dist_block(r).get("mode") == "divided"]
        p0_all = [x for x in p0_all if isinstance(x, (int, float))]
        p0s = (min(p0_all) if p0_all else 0) / D
        cnt = stage_tot(big, st, "count")
        if st in TO_ZERO:
            b_m = N * intr * Mfrac
            t_cpu = N * p0s
        else:
            b_m = Dm * intr * Mfrac
            t_cpu = Dm * cs_doc / C
        t_net = b_m / link
        t_read = Dm * corpus_bytes / (a.model_read_gbs * 1e9) if st == "read and sketch" else 0.0
        t = max(t_cpu, t_read) + t_net
        st_rows.append({"stage": st, "count_per_doc": cnt / D if cnt is not None else None,
                        "bytes_per_doc_all_remote": intr, "bytes_per_doc_all_remote_by_config": intr_by,
                        "core_seconds_per_doc": cs_doc, "p0_seconds_per_doc": p0s,
                        "model_bytes": b_m, "model_net_seconds": t_net, "model_cpu_seconds": t_cpu,
                        "model_read_seconds": t_read, "model_seconds": t})
    skew = skew_model(res, method, big_cfg, srun, cores, D, N, Dm, C, link)
    for r in st_rows:
        extra = skew["extra_seconds"].get(r["stage"], 0.0)
        r["model_skew_seconds"] = extra
        r["model_seconds"] += extra
    total_t = sum(r["model_seconds"] for r in st_rows)
    ranked = sorted(st_rows, key=lambda r: -r["model_seconds"])
    dom = ranked[0]
    by = {r["stage"]: r for r in st_rows}

    # candidate pairs per document against corpus size (same configuration where possible)
    cp = {}
    for n in sorted(res):
        cm = res[n].get(method) or {}
        mm = divided_multi(cm)
        r = mm.get(big_cfg) or (next(iter(mm.values())) if mm else None)
        if r and candidate_pairs(r) is not None:
            cp[n] = candidate_pairs(r) / r["summary"]["documents"]
    alpha = None
    if len(cp) >= 2 and min(cp.values()) > 0:
        lo, hi = min(cp), max(cp)
        alpha = math.log(cp[hi] / cp[lo]) / math.log(hi / lo)
    cp_d = cp.get(n_docs)
    cp_n = cp_d * (N / D) ** alpha if (cp_d and alpha is not None and alpha > 0) else cp_d
    pairs_cs = core_seconds(srun, "pairs", cores)
    ns_pair = pairs_cs / candidate_pairs(srun) if (pairs_cs and candidate_pairs(srun)) else None
    t_pairs_grown = Dm * cp_n * ns_pair / C if (cp_n and ns_pair) else None

    # memory: the largest process other than 0, against the documents each process read; the
    # slope between the smallest and the largest corpus leaves the fixed base out
    def rest_rss(r):
        rest = [p for p in per_process_rows(r) if p["process"] != 0 and p["documents"]]
        if not rest:
            return None
        return max(p["time_peak_rss_bytes"] for p in rest), statistics.mean(p["documents"] for p in rest)
    rss_by_n = {}
    for n in sorted(res):
        r = divided_multi(res[n].get(method) or {}).get(big_cfg)
        if r and rest_rss(r):
            rss_by_n[n] = rest_rss(r)
    rss_rest, own_docs = rss_by_n.get(n_docs, (0, 0))
    rss_per_own, rss_src = None, ""
    if len(rss_by_n) >= 2:
        lo, hi = min(rss_by_n), max(rss_by_n)
        if rss_by_n[hi][1] > rss_by_n[lo][1] and rss_by_n[hi][0] > rss_by_n[lo][0]:
            rss_per_own = (rss_by_n[hi][0] - rss_by_n[lo][0]) / (rss_by_n[hi][1] - rss_by_n[lo][1])
            rss_src = (f"slope between {lo:,} and {hi:,} documents in {big_cfg}: {mib(rss_by_n[lo][0])} MiB "
                       f"for {rss_by_n[lo][1]:,.0f} documents read, {mib(rss_by_n[hi][0])} MiB for "
                       f"{rss_by_n[hi][1]:,.0f}")
    if rss_per_own is None and own_docs:
        rss_per_own = rss_rest / own_docs
        rss_src = f"{big_cfg}: {mib(rss_rest)} MiB for {own_docs:,.0f} documents read, fixed base included"
    rss0 = big["processes"][0]["time_peak_rss_bytes"]
    rss1 = one["processes"][0]["time_peak_rss_bytes"]
    out_b = output_bytes(one)
    comp, resl = by.get("components"), by.get("results")
    edges_pd = s1.get("edges", 0) / D

    L = []
    L.append(f"## Model: {N:.0e} documents on {M} machines ({C} cores, {G:g} Gb/s links)")
    L.append("")
    L.append(f"From the {n_docs:,}-document `{method}` median runs above, divided mode: bytes and "
             f"counts from `{big_cfg}` ({P} processes), seconds from `{sec_cfg}` (its workers do not "
             f"outnumber this machine's {cores} cores). **Measured** (columns so marked): figures "
             f"of those runs on this machine, processes on 127.0.0.1. **Extrapolated** (everything "
             f"at the model's scale): linear in documents unless said otherwise, perfect division "
             f"over the {M * C:,} cores, {G:g} Gb/s per link without contention, stages one after "
             "the other, but for the skew: the largest component and the hottest row, grown to "
             "the model's scale by their measured growth and each given one core (and one link), "
             "are added to their stages. See `model()` and `skew_model()` in `eval/dist/bench.py` "
             "for every formula.")
    L.append("")
    L.append(f"| stage | count / doc (measured) | B/doc if every item crossed machines (measured: "
             f"{', '.join(others)}) | core-µs / doc (measured, waiting included) | traffic at scale | network | compute | stage time |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in st_rows:
        st = r["stage"]
        byc = " / ".join(f"{r['bytes_per_doc_all_remote_by_config'][k]:,.0f}" for k in others)
        if st in TO_ZERO:
            cpu = (f"{r['p0_seconds_per_doc'] * 1e6:.3f} (process 0's least seconds over the divided "
                   "runs, waiting included: an upper bound)")
            traffic = f"{human_b(r['model_bytes'])} into machine 0"
        else:
            cpu = f"{r['core_seconds_per_doc'] * 1e6:.2f}"
            traffic = f"{human_b(r['model_bytes'])} per machine"
        comp_s = human_s(r["model_cpu_seconds"])
        if st == "read and sketch":
            comp_s += f" (reading {human_b(Dm * corpus_bytes)}: {human_s(r['model_read_seconds'])})"
        skew_s = (f" (skew {human_s(r['model_skew_seconds'])} of it)"
                  if r.get("model_skew_seconds") else "")
        L.append(f"| {st} | {fmt_num(r['count_per_doc'])} | {byc} | {cpu} | {traffic} | "
                 f"{human_s(r['model_net_seconds'])} | {comp_s} | {human_s(r['model_seconds'])}{skew_s} |")
    L.append(f"| **total** | | | | | | | **{human_s(total_t)}** |")
    L.append("")
    L.append("| quantity | measured | at the model's scale (extrapolated) |")
    L.append("|---|---:|---:|")
    if rss_per_own:
        L.append(f"| peak RSS of a process other than 0, per document it read | {rss_per_own:,.0f} B "
                 f"({rss_src}) | {human_b(rss_per_own * Dm)} per machine ({Dm:,.0f} documents) |")
    L.append(f"| peak RSS of process 0 / of the largest other | {mib(rss0)} / {mib(rss_rest)} MiB | "
             f"process 0 adds the counters of every worker |")
    L.append(f"| peak RSS of the 1-process run per document | {rss1 / D:,.0f} B ({mib(rss1)} MiB) | "
             f"{human_b(rss1 / D * N)} in one process |")
    if comp:
        rounds_c = max((p.get("component_rounds") or 0) for p in (dist_block(big).get("per_process") or [{}]))
        L.append(f"| links into the components stage (spanning forests, collapse classes) per document | "
                 f"{fmt_num(comp['count_per_doc'])} ({comp['bytes_per_doc_all_remote']:.1f} B over "
                 f"{rounds_c} rounds of large-star and small-star); edges per "
                 f"document {edges_pd:.4f}, largest component {s1.get('largest_component', '?')} | "
                 f"{human_b(comp['model_bytes'])} per machine: "
                 f"{human_s(comp['model_net_seconds'])} at one link |")
    if resl:
        L.append(f"| results (clusters, member pairs, ids) into process 0 per document | "
                 f"{resl['bytes_per_doc_all_remote']:.1f} B | {human_b(resl['model_bytes'])}: "
                 f"{human_s(resl['model_net_seconds'])} at one link |")
    if out_b is not None:
        L.append(f"| output files (clusters.jsonl, pairs.csv) per document | {out_b / D:.1f} B | "
                 f"{human_b(out_b / D * N)}, each machine writing its parts: {human_b(out_b / D * Dm)} |")
    for name, what in (("largest_component", "largest component (documents; one group on one worker)"),
                       ("hottest_row", "hottest row (incidences of one element at its owner)")):
        k = skew.get(name)
        if not k:
            continue
        meas = ", ".join(f"{int(v):,} at {int(n):,}" for n, v in sorted(k["measured"].items(), key=lambda x: int(x[0])))
        grow = (f"growth n^{k['alpha']:.2f}" if k["alpha"] is not None
                else "one size measured: taken linear, a fixed share of the corpus")
        L.append(f"| {what} | {meas}; {grow} | {k['at_model']:,.0f}: "
                 f"{human_s(k['model_seconds'])} added to stage {k['stage']} (one core"
                 + (", one link" if name == "hottest_row" else "") + ") |")
    if cp:
        L.append(f"| candidate pairs per document (stage `pairs`, summed over processes) | "
                 + ", ".join(f"{cp[n]:,.1f} at {n:,}" for n in sorted(cp))
                 + (f"; growth n^{alpha:.2f}" if alpha is not None else "")
                 + (f"; {ns_pair * 1e9:.0f} core-ns per pair counted" if ns_pair else "") + " | "
                 + (f"{cp_n:,.0f} per document if n^{alpha:.2f} holds"
                    + (f": counting alone {human_s(t_pairs_grown)} per machine" if t_pairs_grown else "")
                    if alpha is not None and alpha > 0 and cp_n else "constant: as in the stage table") + " |")
    L.append("")
    top = ", ".join(f"{r['stage']} {human_s(r['model_seconds'])}" for r in ranked[:4])
    rows_r, pairs_r, sk = by.get("rows"), by.get("pairs"), by.get("read and sketch")
    pairs_p0 = stage_p0(srun, "pairs", "seconds")
    L.append(f"What dominates now (extrapolated linearly, the candidate pairs per document held at "
             f"the measured {fmt_num(cp_d)}): **{dom['stage']}** ({human_s(dom['model_seconds'])} "
             f"of {human_s(total_t)} in all; then {top.split(', ', 1)[1] if ', ' in top else '-'}). "
             "Every all-to-all stage divides over the machines: its bytes per machine are "
             f"N/M x bytes per document x (M-1)/M and its compute N/M x core-seconds / C."
             + (f" The exchange of rows ("
                + ("each representative's prefix, its first |x| - k + 1 elements in element order "
                   "with the frequent ones last, `--exchange prefix`"
                   if big_cfg.endswith("-prefix") else "each representative's kept image elements")
                + f", sent to the owner of the element) moves: {rows_r['bytes_per_doc_all_remote']:,.0f} "
                f"B per document if all crossed machines ({(stage_tot(big, 'rows', 'bytes_sent') or 0) / D / P:,.0f} "
                f"B per corpus document per process in `{big_cfg}`), {human_b(rows_r['model_bytes'])} "
                f"per machine at the model's scale, {human_s(rows_r['model_net_seconds'])} at {G:g} Gb/s."
                if rows_r else "")
             + (f" Reading and sketching stay per machine: {human_s(sk['model_cpu_seconds'])} of "
                f"compute on {C} cores, {human_s(sk['model_read_seconds'])} to read "
                f"{human_b(Dm * corpus_bytes)} at {a.model_read_gbs:g} GB/s." if sk else "")
             + " Nothing passes through one process any more but the spanning forests (stage "
             "components) and the counters (stage summary): every process writes its parts of "
             "the outputs (the gathered mode sends every document's record to process 0).")
    L.append("")
    if alpha is not None and alpha > 0.2 and t_pairs_grown:
        common = ("probably the generator's 200 stock phrases and Zipf-frequent words"
                  if not a.corpus_note else
                  "on source files, probably licence headers, imports and other boilerplate")
        whole_p0 = srun['summary'].get('seconds', 0)
        share = (pairs_p0 or 0) / whole_p0 if whole_p0 else 0
        decides = ("It already decides the wall time here" if share >= 0.25 else
                   "It does not decide the wall time here yet")
        L.append(f"But the candidate pairs per document are not constant: they grew as n^{alpha:.2f} "
                 f"from {min(cp):,} to {max(cp):,} documents (measured), because some shingles are "
                 f"common to a fixed share of all documents ({common}), so their rows grow with "
                 "the corpus and their pairs with its square. Held to that growth, the pairs stage "
                 f"alone would take **{human_s(t_pairs_grown)} per machine** at {N:.0e} documents "
                 "(extrapolated): the pair counting breaks first, before any volume does. "
                 f"{decides}: in `{sec_cfg}` at {n_docs:,} documents process 0 spent "
                 f"{pairs_p0 or 0:.1f} s of its {whole_p0:.1f} s in the "
                 "pairs stage (see Seconds per stage), against "
                 f"{one['summary'].get('seconds', 0):.1f} s for the whole 1-process run.")
        L.append("")
    L.append("Where it breaks next (extrapolated; the measured inputs are in the tables):")
    L.append("")
    if pairs_r:
        byc = ", ".join(f"{pairs_r['bytes_per_doc_all_remote_by_config'][k]:,.0f} B in {k}" for k in others)
        L.append(f"- **Hot rows.** Concept and union-find count pairs by prefix filtering: an element "
                 "held by m documents is one row at its owner (m incidences in, m document frequencies "
                 "back to the documents' owners), and it pairs documents only where it is among a "
                 "document's |x| - k + 1 rarest elements, which a common element seldom is. Measured: "
                 f"the pairs stage costs {byc} per document (if every item crossed machines)"
                 + (f"; the candidate pairs per document grow as n^{alpha:.2f} here" if alpha else "")
                 + ". What is not bounded is the row itself: an element held by 10^6 documents is "
                 "10^6 incidences into one worker (12 MB) and, were it in the prefixes of many of them "
                 "(documents made almost only of common elements), up to 5 x 10^11 candidate pairs "
                 "there. --max-df (applied at the row's owner) bounds it, at the price of the pairs "
                 "that only such elements would find; splitting such a row's pair grid in blocks over "
                 "several workers is not done. Lsh and super-shingle send each row to up to "
                 f"min(m-1, W) pair owners (W = {W_model:,} at the model's scale).")
    if comp:
        L.append(f"- **Components.** Each worker reduces its edges to a spanning forest; with the "
                 "collapse classes they are the edges of rounds of large-star and small-star over "
                 "the workers (nodes by a hash of their DocId), and no worker gathers every link: "
                 f"measured {fmt_num(comp['count_per_doc'])} links per document, "
                 f"{comp['bytes_per_doc_all_remote']:.1f} B per document over all rounds at "
                 f"{edges_pd:.4f} edges per document; at scale {human_b(comp['model_bytes'])} per "
                 "machine. Every round sends every edge again, finished stars included, so the bytes "
                 "grow with the rounds (a long path takes more: 14 on a 100,000-document path); the "
                 "owner of a big component's label receives all of its arcs each round (the largest "
                 "component's skew, in the table above).")
    if resl:
        L.append(f"- **The merge at process 0.** The groups' clusters, member pairs and ids go to "
                 f"process 0, which orders them and writes the outputs: measured "
                 f"{resl['bytes_per_doc_all_remote']:.1f} B per document received"
                 + (f" and {out_b / D:.1f} B per document written" if out_b is not None else "")
                 + f"; at scale {human_b(resl['model_bytes'])} through one link "
                 f"({human_s(resl['model_net_seconds'])}) and held by one process"
                 + (f", {human_b(out_b / D * N)} of files" if out_b is not None else "")
                 + ". Output-sized: it grows with the pairs found, not with the corpus.")
    nums = {"documents_measured": D, "method": method, "cores_here": cores, "bytes_config": big_cfg,
            "seconds_config": sec_cfg, "corpus_bytes_per_doc": corpus_bytes, "stages": st_rows,
            "total_model_seconds": total_t, "dominant": dom["stage"],
            "candidate_pairs_per_doc": {str(k): v for k, v in cp.items()}, "candidate_pairs_alpha": alpha,
            "candidate_pairs_per_doc_at_model": cp_n, "core_seconds_per_candidate_pair": ns_pair,
            "pairs_counting_seconds_at_model_grown": t_pairs_grown,
            "peak_rss_per_own_doc": rss_per_own, "peak_rss_p0": rss0, "peak_rss_other_max": rss_rest,
            "peak_rss_1p": rss1, "output_bytes_per_doc": (out_b / D if out_b is not None else None),
            "edges_per_doc": edges_pd,
            "skew": {k: v for k, v in skew.items() if k != "extra_seconds"},
            "model": {"documents": N, "machines": M, "cores": C, "gbps": G, "read_gbs": a.model_read_gbs}}
    return L, nums


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--corpus", action="append", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--raw", required=True)
    ap.add_argument("--methods", default="concept,union-find")
    ap.add_argument("--configs", default="1p,2x1,4x1,1x2")
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--repeat-large", type=int, default=3)
    ap.add_argument("--connect-timeout", type=int, default=60)
    ap.add_argument("--timeout", type=int, default=3600)
    ap.add_argument("--note")
    ap.add_argument("--corpus-note", help="what the corpora are (default: the generated ones of run.sh)")
    ap.add_argument("--report-only", action="store_true",
                    help="write the report from the raw JSON in --raw instead of running")
    ap.add_argument("--model-docs", type=float, default=1e9)
    ap.add_argument("--model-machines", type=int, default=100)
    ap.add_argument("--model-cores", type=int, default=16)
    ap.add_argument("--model-gbps", type=float, default=10.0)
    ap.add_argument("--model-read-gbs", type=float, default=1.0, help="storage read rate per machine, GB/s")
    a = ap.parse_args()
    a.bin = os.path.abspath(a.bin)
    os.makedirs(a.work, exist_ok=True)
    os.makedirs(a.raw, exist_ok=True)
    methods = a.methods.split(",")
    configs = a.configs.split(",")
    if configs[0] != "1p":
        configs = ["1p"] + [c for c in configs if c != "1p"]
    for cfg in configs:
        parse_cfg(cfg)  # exits on an unknown configuration
    version = subprocess.run([a.bin, "--version"], capture_output=True, text=True).stdout.strip()
    git = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True).stdout.strip()
    loads = [" ".join(f"{x:.2f}" for x in os.getloadavg())]
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())

    res = {}  # docs -> method -> config -> [runs]
    corpus_bytes = {}
    failures = []
    if a.report_only:
        # the report again from the raw JSON of an earlier run (its corpora must still exist
        # for their sizes in bytes)
        for docs in a.corpus:
            n = count_docs(docs)
            corpus_bytes[n] = os.path.getsize(docs) / n
            for method in methods:
                with open(os.path.join(a.raw, f"{n}-{method}.json")) as f:
                    raw = json.load(f)
                res.setdefault(n, {})[method] = raw["runs"]
                failures += [f"{n}-{method}-{r['config']}-{r['round']}: {p}"
                             for rs in raw["runs"].values() for r in rs for p in r.get("problems", [])]
        loads = ["(not recorded: --report-only)"]
        meta = os.path.join(a.raw, "run.json")
        if os.path.exists(meta):  # the run's own start time and load averages
            with open(meta) as f:
                m = json.load(f)
            started, loads = m.get("started", started), m.get("loads", loads)
            version, git = m.get("binary", version), m.get("git", git)
        write_report(a, res, corpus_bytes, failures, version, git, loads, started, configs, methods)
        return
    for docs in a.corpus:
        n = count_docs(docs)
        corpus_bytes[n] = os.path.getsize(docs) / n
        reps = a.repeat if n < 200_000 else a.repeat_large
        for method in methods:
            runs = {c: [] for c in configs}
            res.setdefault(n, {})[method] = runs
            for r in range(reps):
                for cfg in configs:
                    tag = f"{n}-{method}-{cfg}-{r}"
                    log(f"{tag}")
                    try:
                        run = run_config(a, cfg, docs, method, tag)
                    except Failure as e:
                        failures.append(str(e))
                        log(f"FAILED {e}")
                        continue
                    run["round"] = r
                    runs[cfg].append(run)
                    log(f"{tag}: {run['wall_seconds']:.2f} s")
                    if cfg != "1p" and runs["1p"]:
                        probs = check_same(runs["1p"][-1], run)
                        run["identical_to_1p"] = not probs
                        run["problems"] = probs
                        for p in probs:
                            failures.append(f"{tag}: {p}")
                            log(f"MISMATCH {tag}: {p}")
            with open(os.path.join(a.raw, f"{n}-{method}.json"), "w") as f:
                json.dump({"documents": n, "method": method, "corpus": docs, "binary": version,
                           "git": git, "runs": runs}, f, indent=1, sort_keys=True)
            loads.append(" ".join(f"{x:.2f}" for x in os.getloadavg()))

    with open(os.path.join(a.raw, "run.json"), "w") as f:
        json.dump({"started": started, "loads": loads, "configs": configs, "methods": methods,
                   "repeat": a.repeat, "repeat_large": a.repeat_large, "binary": version, "git": git,
                   "note": a.note}, f, indent=1, sort_keys=True)
    write_report(a, res, corpus_bytes, failures, version, git, loads, started, configs, methods)
    if failures:
        print("\nFAILED:\n  " + "\n  ".join(failures), file=sys.stderr)
        sys.exit(1)
    log(f"wrote {a.out}")




def median_runs(res, methods, others):
    """(docs, method, config, median run, its documents) of every configuration but 1p that ran."""
    for n in sorted(res):
        for m in methods:
            for cfg in others:
                runs = res[n].get(m, {}).get(cfg)
                if runs:
                    t = median_run(runs)
                    yield n, m, cfg, t, t["summary"].get("documents") or 1


def write_report(a, res, corpus_bytes, failures, version, git, loads, started, configs, methods):
    others = [c for c in configs if c != "1p"]
    L = []
    L.append(f"# Many processes: one process against {', '.join(others)} on one machine")
    L.append("")
    L.append(f"Generated by `eval/dist/run.sh`, {started}.")
    L.append("")
    if failures:
        L.append("**FAILED** (outputs differ or a process failed):")
        L.append("")
        L += [f"- {f}" for f in failures]
        L.append("")
    L.append(f"- Machine: {os.cpu_count()} cores, "
             f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.1f} GiB, "
             f"{platform.system()} {platform.release()}; load average (1/5/15 min) at start and "
             f"after each corpus and method: {'; '.join(loads)}")
    L.append(f"- Binary: {version} (its own build commit); scripts at git {git}.")
    what = a.corpus_note or ("`fimdup gen --config eval/peers/corpus.json --docs N --stream` "
                             "(250-350 words, 20 % in edit families)")
    L.append(f"- Corpora: {what}, sizes " + ", ".join(f"{n:,}" for n in sorted(res))
             + "; read from the page cache (`run.sh` reads each file once first).")
    reps = {n: len(next(iter(res[n].values())).get("1p", [])) for n in res}
    L.append("- Runs: " + ", ".join(f"{n:,} documents: {r} round(s)" for n, r in sorted(reps.items()))
             + "; configurations interleaved within a round; the tables show the median run by wall time.")
    L.append(f"- Outputs: every file the 1-process run writes except summary.json (clusters.jsonl, "
             f"pairs.csv) compared with `cmp` against each other configuration's, and summary.json's "
             f"fields except {', '.join(sorted(VOLATILE))}: "
             + ("**all identical**." if not failures else "**see FAILED above**."))
    if a.note:
        L.append(f"- Note: {a.note}")
    L.append("")
    L.append("`1p`: the plain command, one process on every core. `NxW`: N processes x W timely "
             "workers on 127.0.0.1 (TCP between the processes when N > 1), all started together; "
             "its wall time is from the first start to the last exit. `mode`: summary.json's "
             "`distributed.mode`: `divided` runs the cluster stage on every worker (ids by hash, "
             "collapse by fingerprint, rows by element, pairs by pair owner, spanning forests to "
             "worker 0, the method per group, results merged at process 0); `gathered` sends every "
             "record to process 0, which clusters alone. RSS per process: `/usr/bin/time`; `max "
             "RSS / 1p`: the largest process's over the 1-process run's. `sent B/doc per process`: "
             "each process's bytes sent to other processes / the documents it read, process 0 "
             "first. `received B/doc at p0`: process 0's bytes received / corpus documents. "
             "`candidate pairs / doc`: stage `pairs` count (distinct pairs sharing a kept element, "
             "counted by the pair owner) summed over processes / documents. `edges / doc` and "
             "`components`: summary.json (equal in every configuration).")
    L.append("")
    for cfg in others:
        L.append(f"| docs | method | 1p s | {cfg} s | {cfg}/1p | 1p RSS MiB | {cfg} RSS MiB per process | "
                 f"max RSS / 1p | sent B/doc per process | received B/doc at p0 | mode | "
                 f"candidate pairs / doc | edges / doc | components | outputs |")
        L.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---|")
        for n in sorted(res):
            for m in methods:
                runs = res[n].get(m, {})
                if not runs.get("1p") or not runs.get(cfg):
                    L.append(f"| {n:,} | {m} | - | - | - | - | - | - | - | - | - | - | - | - | failed |")
                    continue
                o, t = median_run(runs["1p"]), median_run(runs[cfg])
                w1 = statistics.median(r["wall_seconds"] for r in runs["1p"])
                w2 = statistics.median(r["wall_seconds"] for r in runs[cfg])
                r1 = o["processes"][0]["time_peak_rss_bytes"]
                r2 = [p["time_peak_rss_bytes"] for p in t["processes"]]
                pp = per_process_rows(t)
                D = t["summary"].get("documents") or 0
                sent = " / ".join(fmt_bpd(p["sent_per_doc"]) for p in pp) or "-"
                recv0 = "-"
                if pp and pp[0]["bytes_received"] is not None:
                    recv0 = fmt_bpd(per_doc(pp[0]["bytes_received"], D))
                cand = candidate_pairs(t)
                ok = all(r.get("identical_to_1p") for r in runs[cfg])
                L.append(f"| {n:,} | {m} | {w1:.2f} | {w2:.2f} | {w2 / w1:.2f} | {mib(r1)} | "
                         f"{' / '.join(mib(x) for x in r2)} | {max(r2) / r1:.2f} | {sent} | {recv0} | "
                         f"{mode_of(t)} | {fmt_num(cand / D) if cand is not None and D else '-'} | "
                         f"{t['summary'].get('edges', 0) / D:.4f} | {t['summary'].get('components', 0):,} | "
                         f"{'identical' if ok else 'DIFFER'} ({len(runs[cfg])} run(s)) |")
        L.append("")

    # bytes and counts per stage
    stage_set = []
    for n in res:
        for m in methods:
            for cfg in others:
                for r in res[n].get(m, {}).get(cfg, [])[:1]:
                    for s in stage_names(r):
                        if s not in stage_set:
                            stage_set.append(s)
    stage_set = [s for s in STAGES if s in stage_set] + [s for s in stage_set if s not in STAGES]
    L.append("## Bytes and counts per stage")
    L.append("")
    L.append("From the `distributed` block of the median run. Bytes: payload bytes to or from "
             "workers of other processes in that stage, as `sent by all processes / received by "
             "process 0`, each divided by the corpus's documents (per process on average: the "
             "first figure / processes). Counts: the stage's count summed over processes / "
             "documents (read and sketch: documents; ids: ids checked; collapse: documents folded "
             "into a representative; rows: (element, document) incidences sent; pairs: candidate "
             "pairs counted; components: forest and class links sent to worker 0; per group: "
             "members shipped to group owners; results: clusters sent to worker 0).")
    L.append("")
    if stage_set:
        L.append("| docs | method | config | mode | " + " | ".join(stage_set) + " | total |")
        L.append("|---:|---|---|---|" + "---:|" * (len(stage_set) + 1))
        for n, m, cfg, t, D in median_runs(res, methods, others):
            cells = []
            for s in stage_set:
                sent, recv = stage_tot(t, s, "bytes_sent"), stage_p0(t, s, "bytes_received")
                cells.append("-" if sent is None else f"{sent / D:,.1f} / {(recv or 0) / D:,.1f}")
            pp = per_process_rows(t)
            tot_s = sum(total_bytes(p["bytes_sent"]) for p in pp)
            tot_r = total_bytes(pp[0]["bytes_received"]) if pp else 0
            L.append(f"| {n:,} | {m} | {cfg} | {mode_of(t)} | " + " | ".join(cells)
                     + f" | {tot_s / D:,.1f} / {tot_r / D:,.1f} |")
        L.append("")
        L.append("| docs | method | config | " + " | ".join(f"{s} count / doc" for s in stage_set) + " |")
        L.append("|---:|---|---|" + "---:|" * len(stage_set))
        for n, m, cfg, t, D in median_runs(res, methods, others):
            cells = []
            for s in stage_set:
                cnt = stage_tot(t, s, "count")
                cells.append("-" if cnt is None else fmt_num(cnt / D))
            L.append(f"| {n:,} | {m} | {cfg} | " + " | ".join(cells) + " |")
        L.append("")
    else:
        L.append("No run reported stages (no divided run).")
        L.append("")

    L.append("## Seconds per stage")
    L.append("")
    L.append("`phases`: summary.json's phases of the process that writes (1p: the one process; "
             "otherwise process 0). `per process`: the `distributed` block's seconds per stage "
             "(wall seconds of that process in the stage, waiting for the others included), "
             "documents read, bytes sent / received per document it read, and its own peak RSS. "
             "With more workers than this machine's cores (4x1 on 2 cores) the processes share "
             "the cores and each stage's seconds grow accordingly.")
    L.append("")
    L.append("| docs | method | config | wall s | summary seconds | phases | per process: documents; seconds per stage; sent / received B/doc; peak RSS MiB |")
    L.append("|---:|---|---|---:|---:|---|---|")
    for n in sorted(res):
        for m in methods:
            for cfg in configs:
                if not res[n].get(m, {}).get(cfg):
                    continue
                r = median_run(res[n][m][cfg])
                pp = per_process_rows(r)
                ppt = "<br>".join(
                    f"p{p['process']}: {p['documents']:,}; {fmt_stages(p['seconds'])}; "
                    f"{fmt_bpd(p['sent_per_doc'])} / {fmt_bpd(p['received_per_doc'])}; "
                    f"{mib(p['peak_rss_bytes']) if p['peak_rss_bytes'] else '-'}"
                    for p in pp) or "-"
                L.append(f"| {n:,} | {m} | {cfg} | {r['wall_seconds']:.2f} | "
                         f"{r['summary'].get('seconds', 0):.2f} | {fmt_stages(phases_of(r['summary']))} | {ppt} |")
    L.append("")

    n_big = max(res)
    ml, nums = model(a, res, corpus_bytes[n_big])
    L += ml
    L.append("")
    L.append("## Commands")
    L.append("")
    hosts_ex = []
    for cfg in others:
        rr = res[n_big].get(methods[0], {}).get(cfg)
        if rr and median_run(rr).get("hosts"):
            hosts_ex.append(f"{cfg}: {', '.join(median_run(rr)['hosts'])}")
    L.append(f"As run for the {n_big:,}-document corpus (the others differ only in the path); "
             "`HOSTS` held one line `127.0.0.1:PORT` per process, ports free at run time "
             f"(this run: {'; '.join(hosts_ex) or '-'}). The processes of one run were started "
             "together and waited for.")
    L.append("")
    L.append("```sh")
    for m in methods:
        for cfg in configs:
            runs = res[n_big].get(m, {}).get(cfg)
            if not runs:
                continue
            many = len(runs[0]["commands"]) > 1
            for cmd in runs[0]["commands"]:
                c = [os.path.basename(cmd[0])] + cmd[1:]
                c = ["HOSTS" if x.endswith("hosts.txt") else x for x in c]
                c = [re.sub(r".*/work/[^/]+/out$", "OUT", x) for x in c]
                c = [f"c{n_big}/docs.jsonl" if x.endswith("docs.jsonl") else x for x in c]
                L.append(" ".join(c) + (" &" if many else ""))
            if many:
                L.append("wait")
    L.append("```")
    L.append("")
    L.append("Raw figures of every run (commands, wall seconds, `/usr/bin/time` per process, "
             "output file sizes, summary.json): `eval/results/dist/DOCS-METHOD.json`; the model's "
             "numbers: `eval/results/dist/model.json`.")
    with open(a.out, "w") as f:
        f.write("\n".join(L) + "\n")
    with open(os.path.join(a.raw, "model.json"), "w") as f:
        json.dump(nums, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
