"""Reference readers for the files the `fimdup` CLI writes, and small independent helpers.

Everything here is plain Python (csv/json/itertools): it never calls the package under test,
so a comparison between the package and these readers is a comparison with the CLI.
"""

from __future__ import annotations

import csv
import itertools
import json
import math
from pathlib import Path

PAIRS_COLUMNS = ["a", "b", "shared", "estimate", "exact"]
REMOVED_COLUMNS = ["id", "representative", "cluster", "score", "score_kind"]
# results.csv columns that depend on the run (timings, memory), not on the data.
VOLATILE_RESULT_COLUMNS = {"seconds", "peak_rss_bytes", "repeats", "seconds_max", "peak_rss_max_bytes"}
# summary.json keys that depend on the run, not on the data.
VOLATILE_SUMMARY_KEYS = {"seconds", "phases", "peak_rss_bytes"}


def _opt(cell: str, conv):
    return None if cell == "" else conv(cell)


def read_corpus(path, text_field="text", id_field="id"):
    """(texts, ids) of a JSONL corpus, ids as the strings the file holds."""
    texts, ids = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            rec = json.loads(line)
            texts.append(rec[text_field])
            ids.append(rec[id_field])
    return texts, ids


def read_pairs_csv(path, id_conv=str):
    """The rows of a CLI pairs.csv as dicts; empty cells are None."""
    with open(path, newline="", encoding="utf-8") as f:
        r = csv.reader(f)
        header = next(r)
        assert header == PAIRS_COLUMNS, f"{path}: unexpected header {header}"
        return [
            {
                "a": id_conv(a),
                "b": id_conv(b),
                "shared": _opt(s, int),
                "estimate": _opt(e, float),
                "exact": _opt(x, float),
            }
            for a, b, s, e, x in r
        ]


def read_clusters_jsonl(path, id_conv=None):
    """The `docs` lists of a CLI clusters.jsonl, in file order."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                docs = json.loads(line)["docs"]
                out.append([id_conv(d) for d in docs] if id_conv else docs)
    return out


def read_removed_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        r = csv.reader(f)
        header = next(r)
        assert header == REMOVED_COLUMNS, f"{path}: unexpected header {header}"
        return [
            {
                "id": i,
                "representative": _opt(rep, str),
                "cluster": _opt(c, int),
                "score": _opt(s, float),
                "score_kind": _opt(k, str),
            }
            for i, rep, c, s, k in r
        ]


def _num(cell: str):
    if cell == "":
        return None
    try:
        return int(cell)
    except ValueError:
        pass
    try:
        return float(cell)
    except ValueError:
        return cell


def read_results_csv(path):
    """results.csv of `fimdup sweep` as a list of dicts, numbers parsed."""
    with open(path, newline="", encoding="utf-8") as f:
        return [{k: _num(v) if k != "method" else v for k, v in row.items()} for row in csv.DictReader(f)]


def comparable_row(row: dict) -> dict:
    """A results row without the run-dependent columns, numbers as float (None kept)."""
    out = {}
    for k, v in row.items():
        if k in VOLATILE_RESULT_COLUMNS:
            continue
        if k == "method" or v is None or isinstance(v, str):
            out[k] = v
        else:
            out[k] = float(v)
    return out


def strip_volatile(obj):
    """A summary (nested dicts/lists) without the keys that measure the run."""
    if isinstance(obj, dict):
        return {k: strip_volatile(v) for k, v in obj.items() if k not in VOLATILE_SUMMARY_KEYS}
    if isinstance(obj, list):
        return [strip_volatile(v) for v in obj]
    return obj


def parse_mine_output(text: str):
    """`fimdup mine` lines `i1 i2 ... (support)` -> [(items, support)]."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        body, sup = line.rsplit("(", 1)
        out.append(([int(x) for x in body.split()], int(sup.rstrip(")"))))
    return out


def write_fimi(path, transactions):
    with open(path, "w") as f:
        for t in transactions:
            f.write(" ".join(str(i) for i in sorted(set(t))) + " \n")


def brute_force_itemsets(transactions, minsup_abs, target):
    """Every non-empty frequent / closed / maximal itemset with its support, by enumeration.

    Returns a set of (tuple(sorted items), support)."""
    tsets = [frozenset(t) for t in transactions]
    items = sorted(set().union(*tsets)) if tsets else []
    support = {}
    for r in range(1, len(items) + 1):
        for combo in itertools.combinations(items, r):
            s = frozenset(combo)
            support[combo] = sum(1 for t in tsets if s <= t)
    frequent = {k: v for k, v in support.items() if v >= minsup_abs}
    if target == "all":
        return set(frequent.items())
    out = set()
    for k, v in frequent.items():
        ks = set(k)
        supersets = [tuple(sorted(ks | {i})) for i in items if i not in ks]
        if target == "closed":
            if all(support[s] < v for s in supersets):
                out.add((k, v))
        elif target == "maximal":
            if all(support[s] < minsup_abs for s in supersets):
                out.add((k, v))
        else:
            raise ValueError(target)
    return out


def ceil_fraction(frac: float, n: int) -> int:
    return max(1, math.ceil(frac * n - 1e-9))


def is_null(v) -> bool:
    if v is None:
        return True
    try:
        import pandas as pd

        r = pd.isna(v)
        return bool(r) if not hasattr(r, "__len__") else False
    except (TypeError, ValueError):
        return False


def py_scalar(v):
    """numpy / pandas scalars -> Python, NaN / NA -> None."""
    if is_null(v):
        return None
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        try:
            return v.item()
        except (ValueError, AttributeError):
            pass
    return v


def df_records(df):
    """A DataFrame as a list of dicts of Python values (missing -> None)."""
    cols = list(df.columns)
    return [{c: py_scalar(v) for c, v in zip(cols, row)} for row in df.itertuples(index=False, name=None)]


def cli_eval_json(cli, *args):
    """Run `fimdup eval ... --json` and parse the output."""
    return json.loads(cli.run("eval", *args, "--json").stdout)
