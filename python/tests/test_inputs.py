"""Every input kind gives the same result; int ids stay ints; threads do not change results."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import _ref


@pytest.fixture(scope="module")
def baseline(py_cluster):
    res = py_cluster(method="concept")
    assert res.pairs.num_rows > 100 and len(res.clusters) > 50
    return res


def chunked(texts, typ, cuts=(1, 400, 401, 1100)):
    bounds = [0, *cuts, len(texts)]
    chunks = [pa.array(texts[a:b], type=typ) for a, b in zip(bounds, bounds[1:])]
    return pa.chunked_array(chunks, type=typ)


def make_input(kind, texts):
    import pandas as pd

    n = len(texts)
    if kind == "list":
        return list(texts)
    if kind == "tuple":
        return tuple(texts)
    if kind == "generator":
        return (t for t in texts)
    if kind == "numpy-object":
        return np.array(texts, dtype=object)
    if kind == "pandas-series":
        return pd.Series(texts)
    if kind == "pandas-series-object":
        return pd.Series(texts, dtype=object)
    if kind == "pandas-series-shuffled-index":
        return pd.Series(texts, index=np.arange(n)[::-1] * 3 + 7)
    if kind == "arrow-string":
        return pa.array(texts, type=pa.string())
    if kind == "arrow-large-string":
        return pa.array(texts, type=pa.large_string())
    if kind == "chunked-string":
        a = chunked(texts, pa.string())
        assert a.num_chunks == 5
        return a
    if kind == "chunked-large-string":
        return chunked(texts, pa.large_string())
    if kind == "sliced-array":
        a = pa.array(["padding before", "more padding", *texts, "padding after"], type=pa.string())
        s = a.slice(2, n)
        assert s.offset == 2
        return s
    if kind == "sliced-large-array":
        return pa.array(["x", *texts, "y"], type=pa.large_string()).slice(1, n)
    if kind == "sliced-chunked":
        c = chunked(["pad a", "pad b", "pad c", *texts, "pad z"], pa.string(), cuts=(2, 300, 900))
        s = c.slice(3, n)
        assert s.num_chunks >= 3
        return s
    if kind == "arrow-from-table-column":
        t = pa.table({"id": pa.array(range(n)), "text": texts})
        return t.column("text")
    raise AssertionError(kind)


KINDS = [
    "list", "tuple", "generator", "numpy-object", "pandas-series", "pandas-series-object",
    "pandas-series-shuffled-index", "arrow-string", "arrow-large-string", "chunked-string",
    "chunked-large-string", "sliced-array", "sliced-large-array", "sliced-chunked",
    "arrow-from-table-column",
]


def assert_same(res, baseline):
    assert res.pairs.to_pylist() == baseline.pairs.to_pylist()
    assert res.clusters == baseline.clusters


@pytest.mark.parametrize("kind", KINDS)
def test_input_kind_same_result(fimdup, corpus, baseline, kind):
    if kind not in ("generator",):
        # the input itself holds exactly the corpus texts, in order
        probe = make_input(kind, corpus.texts)
        assert (probe.to_pylist() if hasattr(probe, "to_pylist") else list(probe)) == corpus.texts
    inp = make_input(kind, corpus.texts)
    assert_same(fimdup.cluster(inp, corpus.ids), baseline)


def test_python_texts_read_in_place_same_result(fimdup, corpus, baseline):
    """A list of str is read in place, with the ids as a separate Arrow column: ids given as
    strs, as a pyarrow array in chunks (batches of ids that do not follow any batching of the
    texts) or as positions give the documents and ids of the baseline."""
    assert_same(fimdup.cluster(corpus.texts, corpus.ids), baseline)
    ids = pa.chunked_array([corpus.ids[:5], corpus.ids[5:700], corpus.ids[700:]], type=pa.string())
    assert_same(fimdup.cluster(iter(corpus.texts), ids), baseline)
    res = fimdup.cluster(corpus.texts)  # ids: the positions
    pairs, clusters = remapped(baseline, {s: i for i, s in enumerate(corpus.ids)})
    assert res.pairs.to_pylist() == pairs and res.clusters == clusters


def test_baseline_equals_cli(cli, baseline):
    out = cli.cluster("--method", "concept")
    assert baseline.pairs.to_pylist() == _ref.read_pairs_csv(out / "pairs.csv")


def test_datasets_dataset(fimdup, corpus, baseline):
    import datasets

    ds = datasets.Dataset.from_dict({"id": corpus.ids, "text": corpus.texts, "n": list(range(corpus.n))})
    assert_same(fimdup.cluster(ds, corpus.ids), baseline)


def test_datasets_dataset_text_field(fimdup, corpus, baseline):
    import datasets

    ds = datasets.Dataset.from_dict({"body": corpus.texts, "text": ["decoy text"] * corpus.n})
    assert_same(fimdup.cluster(ds, corpus.ids, text_field="body"), baseline)


def test_datasets_column(fimdup, corpus, baseline):
    import datasets

    ds = datasets.Dataset.from_dict({"text": corpus.texts})
    assert_same(fimdup.cluster(ds["text"], corpus.ids), baseline)


def test_datasets_large_string_feature(fimdup, corpus, baseline):
    import datasets

    ds = datasets.Dataset.from_dict(
        {"text": corpus.texts}, features=datasets.Features({"text": datasets.Value("large_string")})
    )
    assert_same(fimdup.cluster(ds, corpus.ids), baseline)


@pytest.mark.parametrize("kind", ["generator", "chunked-large-string", "sliced-array"])
def test_input_kinds_in_sketch_and_dedup(fimdup, corpus, kind):
    ref_sk = fimdup.sketch(corpus.texts, corpus.ids)
    sk = fimdup.sketch(make_input(kind, corpus.texts), corpus.ids)
    assert np.array_equal(sk.to_numpy(), ref_sk.to_numpy())
    assert np.array_equal(sk.lengths, ref_sk.lengths)
    ref_dd = fimdup.dedup(corpus.texts, corpus.ids)
    dd = fimdup.dedup(make_input(kind, corpus.texts), corpus.ids)
    assert np.array_equal(dd.keep_mask, ref_dd.keep_mask)
    assert dd.removed.equals(ref_dd.removed)


# ---- ids ---------------------------------------------------------------------------------

def to_int(s: str) -> int:
    return int(s[1:])  # "d0042" -> 42; the corpus ids are d0000..d1499 in order


def canonical_pairs(rows):
    """Pairs as an order-free multiset keyed by the unordered id pair."""
    return sorted((tuple(sorted((r["a"], r["b"]))), r["shared"], r["estimate"], r["exact"]) for r in rows)


def canonical_clusters(clusters):
    return sorted(tuple(sorted(c)) for c in clusters)


def remapped(ref, m):
    pairs = [dict(r, a=m[r["a"]], b=m[r["b"]]) for r in ref.pairs.to_pylist()]
    clusters = [[m[d] for d in c] for c in ref.clusters]
    return pairs, clusters


@pytest.mark.parametrize("method", ["concept", "lsh", "union-find"])
def test_int_ids_default_positions(fimdup, corpus, py_cluster, method):
    """ids=None: the positions, as Python ints; the same pairs and clusters as with str ids."""
    assert corpus.ids == [f"d{i:04d}" for i in range(corpus.n)]
    ref = py_cluster(method=method)
    res = fimdup.cluster(corpus.texts, method=method)  # ids None -> positions
    assert res.pairs.schema.field("a").type == pa.int64()
    assert res.pairs.schema.field("b").type == pa.int64()
    pairs, clusters = remapped(ref, {s: i for i, s in enumerate(corpus.ids)})
    got = res.pairs.to_pylist()
    assert all(type(r["a"]) is int and type(r["b"]) is int for r in got)
    assert canonical_pairs(got) == canonical_pairs(pairs)
    assert canonical_clusters(res.clusters) == canonical_clusters(clusters)
    assert all(type(d) is int for c in res.clusters for d in c)


@pytest.mark.parametrize("method", ["concept", "lsh"])
def test_int_ids_positions_keep_cli_order(fimdup, corpus, py_cluster, method):
    """With ids = positions the id order is the corpus order (d0000 < d0001 < ...), so the rows
    and clusters come in the CLI's order, every pair with a < b."""
    ref = py_cluster(method=method)
    res = fimdup.cluster(corpus.texts, method=method)
    pairs, clusters = remapped(ref, {s: i for i, s in enumerate(corpus.ids)})
    got = res.pairs.to_pylist()
    assert all(r["a"] < r["b"] for r in got)
    assert got == pairs
    assert res.clusters == clusters


def test_int_ids_explicit(fimdup, corpus, py_cluster):
    """Arbitrary large int ids (increasing with the position) are reported as given."""
    ids = [2**40 + 17 * i for i in range(corpus.n)]
    ref = py_cluster(method="concept")
    res = fimdup.cluster(corpus.texts, ids)
    assert res.pairs.schema.field("a").type == pa.int64()
    pairs, clusters = remapped(ref, dict(zip(corpus.ids, ids)))
    got = res.pairs.to_pylist()
    assert canonical_pairs(got) == canonical_pairs(pairs)
    assert all(r["a"] < r["b"] for r in got)
    assert canonical_clusters(res.clusters) == canonical_clusters(clusters)
    assert all(type(d) is int for c in res.clusters for d in c)


def test_int_ids_pairs_df_and_sketch(fimdup, corpus):
    res = fimdup.cluster(corpus.texts)
    df = res.pairs_df()
    assert str(df["a"].dtype) in ("int64", "Int64")
    assert df["a"].tolist() == res.pairs.column("a").to_pylist()
    sk = fimdup.sketch(corpus.texts[:10])
    assert sk.ids == list(range(10)) and all(type(i) is int for i in sk.ids)


def test_str_ids_other_than_file_ids(fimdup, corpus, py_cluster):
    """Other str ids (whose string order differs from the corpus order): the same pairs and
    clusters under the renaming."""
    ids = [f"doc-{i}" for i in range(corpus.n)]
    ref = py_cluster(method="concept")
    res = fimdup.cluster(corpus.texts, ids)
    pairs, clusters = remapped(ref, dict(zip(corpus.ids, ids)))
    assert canonical_pairs(res.pairs.to_pylist()) == canonical_pairs(pairs)
    assert canonical_clusters(res.clusters) == canonical_clusters(clusters)


# ---- threads -----------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [
    {"method": "concept"}, {"method": "lsh"}, {"method": "union-find"},
    {"method": "concept", "verify": "exact"}, {"method": "exact"},
], ids=lambda kw: "+".join(str(v) for v in kw.values()))
def test_threads_identical(fimdup, corpus, kw):
    one = fimdup.cluster(corpus.texts, corpus.ids, threads=1, **kw)
    two = fimdup.cluster(corpus.texts, corpus.ids, threads=2, **kw)
    assert one.pairs.num_rows > 0
    assert one.pairs.equals(two.pairs)
    assert one.clusters == two.clusters


def test_threads_identical_sketch(fimdup, corpus):
    a = fimdup.sketch(corpus.texts, corpus.ids, threads=1)
    b = fimdup.sketch(corpus.texts, corpus.ids, threads=2)
    assert np.array_equal(a.to_numpy(), b.to_numpy())
    assert np.array_equal(a.lengths, b.lengths)
