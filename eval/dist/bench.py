#!/usr/bin/env python3
"""Multi-process benchmark of `fimdup cluster`; see eval/dist/run.sh, which builds the binary,
generates the corpora and calls this. Standard library only.

Configurations (--configs, comma-separated; default 1p,2x1,1x2):
  1p    the plain single-process command: `fimdup cluster DOCS --method M --threshold T --out D`
        (all cores: --threads defaults to every core).
  2x1   2 processes x 1 timely worker on 127.0.0.1: the same command plus `--processes 2
        --process P --hosts HOSTS --workers 1 --connect-timeout S`, P = 0 and 1 started together,
        HOSTS two lines 127.0.0.1:PORT with ports free at run time (bound to port 0, read back,
        closed). Both processes get the same --out; process 0 writes it, process 1 nothing.
  1x2   one process, 2 workers: `--processes 1 --workers 2`, the dataflow without the
        network, to tell the dataflow's cost from the network's.
Each run is one child process per fimdup process under /usr/bin/time (%e %M: wall seconds,
peak RSS); the run's wall time is from the first start to the last exit. Runs are
interleaved (1p, 2x1, 1x2, 1p, 2x1, ...) and the median wall time is reported; --repeat
rounds for corpora under 200k documents, --repeat-large for larger ones (default 3 each).

Checks (any failure: the report and raw JSON are still written, with the failure at the top,
then exit 1): every process exits 0; the output directory of every other configuration holds
exactly the files of the 1p run, each equal byte for byte (cmp); the deterministic fields of
summary.json (all but phases, seconds, peak_rss_bytes, distributed) are equal; no temporary
file is left behind.

Recorded: wall seconds, summary.json's phases (name, seconds) of the writing process, its
`distributed` block (per process: documents, bytes_sent, bytes_received, seconds per stage,
peak_rss_bytes), and /usr/bin/time's peak RSS per process. Written: --out (Markdown) and one
JSON file per (corpus, method) in --raw with every run.

The model of --model-docs documents on --model-machines machines is computed from the largest
corpus's runs (concept first): see model() for each formula.

Usage: bench.py --bin FIMDUP --corpus DOCS.jsonl [--corpus ...] --work DIR --out FILE.md
                --raw DIR [--methods concept,union-find] [--threshold 0.8] [--repeat 3]
                [--repeat-large 3] [--configs 1p,2x1,1x2] [--note TEXT]
"""
import argparse
import json
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
# stage names in the distributed block that are not the read + sketch compute
NOT_COMPUTE = re.compile(r"exchange|send|sent|gather|wait|recv|receiv|connect|total|setup|cluster|method|write", re.I)


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


# ---------------------------------------------------------------- runs


def commands(a, cfg, docs, method, out, hosts):
    base = [a.bin, "cluster", docs, "--method", method, "--threshold", str(a.threshold), "--out", out]
    if cfg == "1p":
        return [base]
    if cfg == "1x2":
        return [base + ["--processes", "1", "--workers", "2"]]
    m = re.fullmatch(r"(\d+)x(\d+)", cfg)
    if not m:
        raise SystemExit(f"unknown configuration {cfg}")
    n, w = int(m.group(1)), int(m.group(2))
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
    m = re.fullmatch(r"(\d+)x(\d+)", cfg)
    if m and cfg != "1x2":
        ports = free_ports(int(m.group(1)))
        with open(hosts, "w") as f:
            f.write("".join(f"127.0.0.1:{p}\n" for p in ports))
    cmds = commands(a, cfg, docs, method, out, hosts)
    load = os.getloadavg()[0]
    wall, res = launch(cmds, os.path.join(a.work, tag), tag, a.timeout)
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    return {
        "config": cfg,
        "commands": cmds,
        "hosts": open(hosts).read().split() if os.path.exists(hosts) else None,
        "wall_seconds": wall,
        "load_1min_before": load,
        "processes": [{"process": i, "time_wall_seconds": w, "time_peak_rss_bytes": r}
                      for i, (w, r, _) in enumerate(res)],
        "files": files_under(out),
        "summary": summary,
        "out": out,
    }


def check_same(ref, run):
    """Problems of run's outputs against the 1p reference (empty: identical)."""
    probs = []
    rf = [f for f in ref["files"] if f != "summary.json"]
    xf = [f for f in run["files"] if f != "summary.json"]
    if rf != xf:
        probs.append(f"files differ: 1p {rf}, {run['config']} {xf}")
    for f in rf:
        if f in xf:
            r = subprocess.run(["cmp", os.path.join(ref["out"], f), os.path.join(run["out"], f)],
                               capture_output=True, text=True)
            if r.returncode != 0:
                probs.append(f"{f}: {r.stdout.strip() or r.stderr.strip()}")
    tmp = [f for f in run["files"] if ".tmp" in f]
    if tmp:
        probs.append(f"temporary files left: {tmp}")
    rs, xs = ref["summary"], run["summary"]
    for k in sorted(set(rs) - VOLATILE):
        if rs.get(k) != xs.get(k):
            probs.append(f"summary.json {k}: 1p {rs.get(k)!r}, {run['config']} {xs.get(k)!r}")
    return probs


def median_run(runs):
    ws = sorted(runs, key=lambda r: r["wall_seconds"])
    return ws[(len(ws) - 1) // 2]


# ---------------------------------------------------------------- figures from a run


def dist_block(run):
    return run["summary"].get("distributed") or {}


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
            "seconds": stages_of(p.get("seconds")),
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


def compute_seconds(stages):
    """The read + sketch seconds of a process's stages: all but exchange/wait/method ones."""
    keys = [k for k in stages if not NOT_COMPUTE.search(k)]
    return sum(stages[k] for k in keys), keys


# ---------------------------------------------------------------- model


def model(a, res, corpus_bytes):
    """The model of a.model_docs documents on a.model_machines machines, from the runs of the
    largest corpus. Returns (lines of Markdown, dict of the numbers)."""
    n_docs = max(res)
    cases = {m: c for m, c in res[n_docs].items() if c["1p"]}
    if not cases:
        return ["## Model", "", "No 1-process run of the largest corpus succeeded: no model."], {}
    method = "concept" if "concept" in cases else sorted(cases)[0]
    c = cases[method]
    one = median_run(c["1p"])
    two = median_run(c["2x1"]) if c.get("2x1") else None
    s1 = one["summary"]
    D = s1["documents"]
    cores = os.cpu_count() or 1
    ph1 = phases_of(s1)
    sketch1 = ph1.get("sketch", 0.0)
    method_s = s1["seconds"] - sketch1
    n_image = s1.get("image_size") or 128
    M, C, G, N = a.model_machines, a.model_cores, a.model_gbps, a.model_docs
    link = G * 1e9 / 8  # bytes/s

    # per-document read + sketch compute, core-seconds
    c_1p = sketch1 * cores / D  # the 1p sketch phase ran on every core
    rows = per_process_rows(two) if two else []
    remote = [r for r in rows if r["process"] != 0 and r["documents"]]
    c_dist, c_keys = None, []
    if remote:
        secs = [compute_seconds(r["seconds"]) for r in remote]
        c_keys = secs[0][1]
        tot = sum(s for s, _ in secs)
        if tot > 0:
            c_dist = tot / sum(r["documents"] for r in remote)  # 1 worker = 1 core each
    c_use = c_dist if c_dist else c_1p
    c_src = (f"2-process run, processes other than 0 (1 worker each): stages {', '.join(c_keys)} / their documents"
             if c_dist else f"1-process run: sketch phase x {cores} cores / documents")

    # bytes on the wire per document: what the processes other than 0 sent, per document they read
    b_wire = None
    if remote:
        sent = sum(total_bytes(r["bytes_sent"]) for r in remote)
        if sent:
            b_wire = sent / sum(r["documents"] for r in remote)
    p0 = [r for r in rows if r["process"] == 0]
    recv0 = total_bytes(p0[0]["bytes_received"]) if p0 else 0
    b_recv0 = recv0 / D if recv0 else None
    rss0 = None
    if two:
        rss0 = two["processes"][0]["time_peak_rss_bytes"]
    rss1 = one["processes"][0]["time_peak_rss_bytes"]

    docs_m = N / M
    t_dist = docs_m * c_use / C
    t_read = docs_m * corpus_bytes / (a.model_read_gbs * 1e9)
    read_m = docs_m * corpus_bytes
    b_gather = b_wire if b_wire else (n_image * 8)
    vol = N * (M - 1) / M * b_gather
    t_gather = vol / link
    mem0 = (rss0 or rss1) / D * N
    mem_records = N * b_gather
    t_cluster = method_s / D * N
    t_cluster_c = t_cluster * cores / C
    inc_lo, inc_hi = n_image * 8, n_image * 16
    a2a_lo = docs_m * (M - 1) / M * inc_lo
    a2a_hi = docs_m * (M - 1) / M * inc_hi
    pairs_per_doc = s1.get("edges", 0) / D

    parts = {"distributed stage (read + sketch) per machine": max(t_dist, t_read),
             "gather to process 0 at one link": t_gather,
             "one-process clustering (linear)": t_cluster}
    dom = max(parts, key=parts.get)
    L = []
    L.append(f"## Model: {N:.0e} documents on {M} machines ({C} cores, {G:g} Gb/s links)")
    L.append("")
    L.append(f"From the {n_docs:,}-document `{method}` runs above (median runs); every figure is "
             "measured here and scaled linearly, which for the clustering is a lower bound "
             "(`eval/results/scale.md`: the cluster stage's time per document grows 1.77x "
             "from 1M to 10M documents).")
    L.append("")
    L.append("| quantity | measured | at the model's scale |")
    L.append("|---|---:|---:|")
    L.append(f"| read + sketch, core-seconds per document | {c_use * 1e6:.1f} µs ({c_src}); 1-process sketch phase: {c_1p * 1e6:.1f} µs | {docs_m:,.0f} documents per machine / {C} cores: **{human_s(t_dist)}** |")
    L.append(f"| corpus bytes read per document | {corpus_bytes:,.0f} B | {human_b(read_m)} per machine: {human_s(t_read)} at {a.model_read_gbs:g} GB/s of storage |")
    L.append(f"| bytes sent to process 0 per document (records: image, fingerprints, offsets, id) | {fmt_bpd(b_wire) if b_wire else '- (not reported; model uses n x 8 = ' + str(n_image * 8) + ' B)'} | {human_b(vol)} into one process: **{human_s(t_gather)}** at {G:g} Gb/s |")
    L.append(f"| bytes received by process 0 per document (all documents) | {fmt_bpd(b_recv0) if b_recv0 else '-'} | |")
    L.append(f"| peak RSS of process 0 per document | {(rss0 or rss1) / D:,.0f} B ({'2-process' if rss0 else '1-process'} run without --memory-budget, `/usr/bin/time`) | **{human_b(mem0)}** in process 0 (the records alone: {human_b(mem_records)}); under `--memory-budget` the records go to a temporary images file ({human_b(mem_records)} of disk) and concept / union-find hold the ids, per-document data and context rows (README: about 100 bytes a document for the first two, {human_b(100 * N)}) |")
    L.append(f"| clustering (method) seconds per document, one process on {cores} cores | {method_s / D * 1e6:.1f} µs (1-process run: seconds - sketch phase) | **{human_s(t_cluster)}** ({human_s(t_cluster_c)} if it used {C} cores as well as it uses {cores}) |")
    L.append("")
    L.append(f"What dominates: **{dom}** ({human_s(parts[dom])}), against "
             + ", ".join(f"{k} {human_s(v)}" for k, v in parts.items() if k != dom) + ". "
             f"The distributed stage is the part that scales: it divides by the {M * C} cores "
             f"(and by the machines' storage: {human_s(t_read)} to read each machine's share at "
             f"{a.model_read_gbs:g} GB/s against {human_s(t_dist)} of sketching, so it is "
             f"{'bound by reading' if t_read > t_dist else 'bound by sketching'}). "
             f"The design breaks at the gather and after it. All {human_b(vol)} of records flow "
             f"through process 0's one link ({human_s(t_gather)} at best, however many machines "
             f"there are), and process 0 must then hold them: {human_b(mem0)} at the measured RSS per "
             f"document, more than any one machine has (under a budget: {human_b(mem_records)} of "
             f"disk and {human_b(100 * N)} or more of memory, and every pass over the spilled "
             "records is a sequential read of that file). The clustering that follows runs in that "
             f"one process, {human_s(t_cluster)} extrapolated linearly from {n_docs:,} documents "
             "(and superlinear in practice). Adding machines shortens only the first stage.")
    L.append("")
    L.append("Next step: do the clustering's first steps in the dataflow as well. Exchange each "
             f"document's image by element (or LSH band key): {n_image} incidences per document "
             f"(element, document), {8}-{16} bytes each, so {inc_lo / 1e3:.1f}-{inc_hi / 1e3:.1f} KB "
             f"per document, {human_b(N * inc_lo)}-{human_b(N * inc_hi)} in all, but all-to-all: "
             f"each machine sends and receives {human_b(a2a_lo)}-{human_b(a2a_hi)}, "
             f"{human_s(a2a_lo / link)}-{human_s(a2a_hi / link)} at {G:g} Gb/s on every link at "
             "once instead of the whole volume through one. Each worker then owns the rows "
             "(posting lists) of its keys, counts candidate pairs there (pairs sharing an "
             "element, bounded by --max-df), and exchanges the pair counts by pair to sum them "
             f"(the measured edges are {pairs_per_doc:.3f} per document, so the pairs that pass "
             "are few; the candidate pairs counted are what --max-df must keep in check); "
             "connected components of the pair graph by label propagation in the dataflow; "
             f"then each component (small: the largest has {s1.get('largest_component', '?')} documents here) is sent to one "
             "worker, which mines it as one process does now. No process would hold more than "
             "its share of the rows and its components.")
    nums = {"documents_measured": D, "method": method, "cores_here": cores,
            "core_seconds_per_doc_read_sketch": c_use, "core_seconds_per_doc_source": c_src,
            "core_seconds_per_doc_1p_sketch": c_1p, "corpus_bytes_per_doc": corpus_bytes,
            "wire_bytes_per_doc": b_wire, "received_bytes_per_doc_p0": b_recv0,
            "peak_rss_p0_bytes": rss0, "peak_rss_1p_bytes": rss1,
            "method_seconds_per_doc": method_s / D, "read_seconds_per_machine": t_read,
            "model": {"documents": N, "machines": M, "cores": C, "gbps": G,
                      "dist_stage_seconds_per_machine": t_dist, "read_bytes_per_machine": read_m,
                      "gather_bytes": vol, "gather_seconds": t_gather, "p0_memory_bytes": mem0,
                      "p0_record_bytes": mem_records, "cluster_seconds_linear": t_cluster,
                      "all_to_all_bytes_per_machine": [a2a_lo, a2a_hi],
                      "all_to_all_seconds": [a2a_lo / link, a2a_hi / link], "dominant": dom}}
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
    ap.add_argument("--configs", default="1p,2x1,1x2")
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--repeat-large", type=int, default=3)
    ap.add_argument("--connect-timeout", type=int, default=60)
    ap.add_argument("--timeout", type=int, default=3600)
    ap.add_argument("--note")
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

    write_report(a, res, corpus_bytes, failures, version, git, loads, started, configs, methods)
    if failures:
        print("\nFAILED:\n  " + "\n  ".join(failures), file=sys.stderr)
        sys.exit(1)
    log(f"wrote {a.out}")


def write_report(a, res, corpus_bytes, failures, version, git, loads, started, configs, methods):
    L = []
    L.append("# Many processes: one process against two on one machine")
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
    L.append("- Corpora: `fimdup gen --config eval/peers/corpus.json --docs N --stream` (250-350 "
             "words, 20 % in edit families), sizes " + ", ".join(f"{n:,}" for n in sorted(res))
             + f"; read from the page cache (`run.sh` reads each file once first).")
    reps = {n: len(next(iter(res[n].values()))["1p"]) for n in res}
    L.append("- Runs: " + ", ".join(f"{n:,} documents: {r} round(s)" for n, r in sorted(reps.items()))
             + "; configurations interleaved within a round; the table shows the median wall time.")
    L.append(f"- Outputs: every file the 1-process run writes except summary.json (clusters.jsonl, "
             f"pairs.csv) compared with `cmp` against each other configuration's, and summary.json's "
             f"fields except {', '.join(sorted(VOLATILE))}: "
             + ("**all identical**." if not failures else "**see FAILED above**."))
    if a.note:
        L.append(f"- Note: {a.note}")
    L.append("")
    L.append("`1p`: the plain command, one process on every core. `2x1`: 2 processes x 1 "
             "worker on 127.0.0.1 (TCP between them), both started together; its wall time is "
             "from the first start to the last exit; RSS per process from `/usr/bin/time`. "
             "Bytes are summary.json's `distributed` figures of the median run.")
    L.append("")
    others = [c for c in configs if c != "1p"]
    for cfg in others:
        L.append(f"| docs | method | 1p s | {cfg} s | {cfg}/1p | 1p RSS MiB | {cfg} RSS MiB per process | p0 RSS / 1p | sent B/doc per process | received B/doc at p0 | outputs |")
        L.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for n in sorted(res):
            for m in methods:
                runs = res[n][m]
                if not runs["1p"] or not runs[cfg]:
                    L.append(f"| {n:,} | {m} | - | - | - | - | - | - | - | - | failed |")
                    continue
                o, t = median_run(runs["1p"]), median_run(runs[cfg])
                w1 = statistics.median(r["wall_seconds"] for r in runs["1p"])
                w2 = statistics.median(r["wall_seconds"] for r in runs[cfg])
                r1 = o["processes"][0]["time_peak_rss_bytes"]
                r2 = [p["time_peak_rss_bytes"] for p in t["processes"]]
                pp = per_process_rows(t)
                sent = " / ".join(fmt_bpd(p["sent_per_doc"]) for p in pp) or "-"
                recv0 = "-"
                if pp and pp[0]["bytes_received"] is not None:
                    recv0 = fmt_bpd(per_doc(pp[0]["bytes_received"], t["summary"].get("documents")))
                ok = all(r.get("identical_to_1p") for r in runs[cfg])
                L.append(f"| {n:,} | {m} | {w1:.2f} | {w2:.2f} | {w2 / w1:.2f} | {mib(r1)} | "
                         f"{' / '.join(mib(x) for x in r2)} | {r2[0] / r1:.2f} | {sent} | {recv0} | "
                         f"{'identical' if ok else 'DIFFER'} ({len(runs[cfg])} run(s)) |")
        L.append("")

    L.append("## Seconds per stage")
    L.append("")
    L.append("`phases`: summary.json's phases of the process that writes (1p: the one process; "
             "2x1: process 0). `per process`: the `distributed` block's seconds per stage, "
             "documents read and bytes sent / received per document, and its own peak RSS.")
    L.append("")
    L.append("| docs | method | config | wall s | summary seconds | phases | per process: documents; seconds per stage; sent / received B/doc; peak RSS MiB |")
    L.append("|---:|---|---|---:|---:|---|---|")
    for n in sorted(res):
        for m in methods:
            for cfg in configs:
                if not res[n][m][cfg]:
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
    L.append(f"As run for the {n_big:,}-document corpus (the others differ only in the path); "
             "`HOSTS` held two lines `127.0.0.1:PORT`, ports free at run time "
             f"(this run: {', '.join(median_run(res[n_big][methods[0]][others[0]])['hosts'] or []) if others and res[n_big][methods[0]][others[0]] else '-'}).")
    L.append("")
    L.append("```sh")
    for m in methods:
        for cfg in configs:
            runs = res[n_big][m][cfg]
            if not runs:
                continue
            for cmd in runs[0]["commands"]:
                c = [os.path.basename(cmd[0])] + cmd[1:]
                c = ["HOSTS" if x.endswith("hosts.txt") else x for x in c]
                c = [re.sub(r".*/work/[^/]+/out$", "OUT", x) for x in c]
                c = [f"c{n_big}/docs.jsonl" if x.endswith("docs.jsonl") else x for x in c]
                many = len(runs[0]["commands"]) > 1
                L.append(" ".join(c) + (" &" if many else ""))
            if len(runs[0]["commands"]) > 1:
                L.append("wait")
    L.append("```")
    L.append("")
    L.append("Raw figures of every run (commands, wall seconds, `/usr/bin/time` per process, "
             "summary.json): `eval/results/dist/DOCS-METHOD.json`.")
    with open(a.out, "w") as f:
        f.write("\n".join(L) + "\n")
    with open(os.path.join(a.raw, "model.json"), "w") as f:
        json.dump(nums, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
