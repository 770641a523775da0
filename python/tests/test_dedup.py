"""fimdup.dedup equals `fimdup dedup` (removed.csv, kept records, clusters, summary)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import _ref

CASES = [
    ([], {}),
    (["--verify", "exact"], {"verify": "exact"}),
    (["--keep", "longest"], {"keep": "longest"}),
    (["--keep", "shortest"], {"keep": "shortest"}),
    (["--method", "union-find", "--per-cluster"], {"method": "union-find", "per_cluster": True}),
    (["--method", "lsh", "--threshold", "0.7"], {"method": "lsh", "threshold": 0.7}),
]
CASE_IDS = ["default", "verify", "longest", "shortest", "uf-per-cluster", "lsh-0.7"]


def kept_ids_of(out: Path):
    return [json.loads(l)["id"] for l in (out / "kept.jsonl").read_text().splitlines() if l.strip()]


def check_against(out: Path, res, ids):
    removed = _ref.read_removed_csv(out / "removed.csv")
    assert len(removed) > 0
    assert isinstance(res.removed, pa.Table)
    # the contract's five columns (an extra column is checked by test_removed_columns)
    got = res.removed.select(_ref.REMOVED_COLUMNS).to_pylist()
    # an empty score_kind string is taken as the empty cell here; test_removed_empty_cells_are_null
    # checks the null representation on its own
    for r in got:
        if r["score_kind"] == "":
            r["score_kind"] = None
    assert len(got) == len(removed), f"{len(got)} removed, the CLI removed {len(removed)}"
    for i, (g, e) in enumerate(zip(got, removed)):
        assert g == e, f"removed row {i}: package {g}, CLI {e}"
    removed_ids = {r["id"] for r in removed}
    expected_mask = np.array([i not in removed_ids for i in ids])
    mask = res.keep_mask
    assert isinstance(mask, np.ndarray) and mask.dtype == np.bool_ and mask.shape == (len(ids),)
    assert np.array_equal(mask, expected_mask), f"keep_mask differs at positions {np.flatnonzero(mask != expected_mask)[:10]}"
    kept = kept_ids_of(out)
    assert res.kept_ids == kept
    assert [i for i, k in zip(ids, mask) if k] == kept


@pytest.mark.parametrize("args,kw", CASES, ids=CASE_IDS)
def test_dedup_equals_cli(cli, fimdup, corpus, args, kw):
    out = cli.dedup(*args)
    res = fimdup.dedup(corpus.texts, corpus.ids, **kw)
    check_against(out, res, corpus.ids)
    assert res.clusters == _ref.read_clusters_jsonl(out / "clusters.jsonl")


def test_removed_columns(fimdup, corpus):
    """removed has the columns of removed.csv, in its order, then the reason."""
    res = fimdup.dedup(corpus.texts, corpus.ids)
    assert res.removed.column_names == _ref.REMOVED_COLUMNS + ["reason"]
    reasons = set(res.removed.column("reason").to_pylist())
    assert reasons <= {"identical", "lexically-equivalent", "near-duplicate", "against-index"}, reasons
    assert res.summary["removed_by"]["near_duplicate"] == sum(
        r == "near-duplicate" for r in res.removed.column("reason").to_pylist())
    s = res.removed.schema
    assert pa.types.is_string(s.field("id").type) or pa.types.is_large_string(s.field("id").type)
    assert s.field("cluster").type == pa.int64() and s.field("score").type == pa.float64()


def test_removed_empty_cells_are_null(cli, fimdup, corpus):
    """Where removed.csv has an empty cell (--per-cluster: no score for some rows), the table
    has a null, in score as in score_kind."""
    out = cli.dedup("--method", "union-find", "--per-cluster")
    expected = _ref.read_removed_csv(out / "removed.csv")
    empty = [r["id"] for r in expected if r["score_kind"] is None]
    assert empty  # the reference has such rows
    res = fimdup.dedup(corpus.texts, corpus.ids, method="union-find", per_cluster=True)
    rows = {r["id"]: r for r in res.removed.to_pylist()}
    for i in empty:
        assert rows[i]["score"] is None, rows[i]
        assert rows[i]["score_kind"] is None, rows[i]


def test_dedup_path_input_equals_cli(cli, fimdup, corpus):
    out = cli.dedup()
    res = fimdup.dedup(Path(corpus.path))
    check_against(out, res, corpus.ids)


def test_dedup_summary_counts_equal_cli(cli, fimdup, corpus):
    out = cli.dedup()
    expected = json.loads((out / "summary.json").read_text())
    got = fimdup.dedup(corpus.texts, corpus.ids).summary
    assert isinstance(got, dict)
    for k in ("documents", "kept", "removed", "removed_by", "keep", "per_cluster", "verified"):
        assert got.get(k) == expected[k], f"summary[{k!r}]: package {got.get(k)!r}, CLI {expected[k]!r}"
    assert _ref.strip_volatile(got["cluster"]) == _ref.strip_volatile(expected["cluster"])


def test_dedup_keys_field_desc_equals_cli(cli, fimdup, corpus, tmp_path):
    """keys= with keep="field:key:desc" is the CLI's --keep field:key:desc on a JSONL field."""
    keys = list(range(corpus.n))
    random.Random(7).shuffle(keys)
    f = tmp_path / "keyed.jsonl"
    with open(f, "w", encoding="utf-8") as fh:
        for i, t, k in zip(corpus.ids, corpus.texts, keys):
            fh.write(json.dumps({"id": i, "text": t, "key": k}) + "\n")
    out = cli.out("dedup", f, "--keep", "field:key:desc")
    res = fimdup.dedup(corpus.texts, corpus.ids, keep="field:key:desc", keys=keys)
    check_against(out, res, corpus.ids)
    # the same policy ascending differs (otherwise the keys would not matter)
    out_asc = cli.out("dedup", f, "--keep", "field:key:asc")
    assert _ref.read_removed_csv(out_asc / "removed.csv") != _ref.read_removed_csv(out / "removed.csv")
    check_against(out_asc, fimdup.dedup(corpus.texts, corpus.ids, keep="field:key:asc", keys=keys), corpus.ids)


def test_dedup_int_ids(cli, fimdup, corpus):
    """ids as ints: removed ids and kept_ids are the ints."""
    out = cli.dedup()
    res = fimdup.dedup(corpus.texts)  # ids = positions
    expected = [dict(r, id=int(r["id"][1:]), representative=int(r["representative"][1:]))
                for r in _ref.read_removed_csv(out / "removed.csv")]
    assert res.removed.select(_ref.REMOVED_COLUMNS).to_pylist() == expected
    assert res.removed.schema.field("id").type == pa.int64()
    assert res.removed.schema.field("representative").type == pa.int64()
    assert res.kept_ids == [int(i[1:]) for i in kept_ids_of(out)]
    assert all(type(i) is int for i in res.kept_ids)


def test_dedup_threads_identical(fimdup, corpus):
    a = fimdup.dedup(corpus.texts, corpus.ids, threads=1)
    b = fimdup.dedup(corpus.texts, corpus.ids, threads=2)
    assert a.removed.equals(b.removed)
    assert np.array_equal(a.keep_mask, b.keep_mask)
    assert a.clusters == b.clusters


def test_dedup_against_index_equals_cli(cli, fimdup, corpus, tmp_path):
    first = tmp_path / "first.jsonl"
    with open(corpus.path, encoding="utf-8") as f:
        first.write_text("".join(next(f) for _ in range(300)), encoding="utf-8")
    idx = tmp_path / "idx"
    cli.run("index", "build", first, "--threshold", "0.8", "--out", idx)
    out = cli.dedup("--against", idx)
    res = fimdup.dedup(corpus.texts, corpus.ids, against=idx)
    check_against(out, res, corpus.ids)
    assert json.loads((out / "summary.json").read_text())["removed_by"]["against_index"] > 0
