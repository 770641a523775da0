"""fimdup.Index: build, query, add, len, against `fimdup index build/query/add`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

QUERY_POSITIONS = [0, 3, 16, 30, 280, 487, 740, 1192, 1499]


def write_queries(path: Path, texts, names):
    with open(path, "w", encoding="utf-8") as f:
        for n, t in zip(names, texts):
            f.write(json.dumps({"id": n, "text": t}) + "\n")
    return path


def cli_hits(cli, index_dir, qfile, *args):
    out = json.loads(cli.run("index", "query", index_dir, "--jsonl", qfile, *args, "--json").stdout)
    return [
        [{"doc": h["doc"], "id": h["ext_id"], "estimate": h["estimate"]} for h in q["hits"]]
        for q in out["queries"]
    ]


def py_hits(result):
    assert isinstance(result, list)
    out = []
    for hits in result:
        assert isinstance(hits, list)
        row = []
        for h in hits:
            assert isinstance(h, dict)
            assert type(h["doc"]) is int and isinstance(h["id"], str) and isinstance(h["estimate"], float)
            row.append({"doc": h["doc"], "id": h["id"], "estimate": h["estimate"]})
        out.append(row)
    return out


@pytest.fixture(scope="module")
def queries(corpus, tmp_path_factory):
    texts = [corpus.texts[i] for i in QUERY_POSITIONS]
    qfile = write_queries(tmp_path_factory.mktemp("q") / "q.jsonl", texts, [f"q{i}" for i in QUERY_POSITIONS])
    return texts, qfile


@pytest.fixture(scope="module")
def py_index(fimdup, corpus, tmp_path_factory):
    d = tmp_path_factory.mktemp("pyidx") / "idx"
    idx = fimdup.Index.build(d, corpus.texts, corpus.ids, threshold=0.8, tag="crawl-1")
    return d, idx


@pytest.fixture(scope="module")
def cli_index(cli, corpus):
    d = cli.new_dir("index")
    cli.run("index", "build", corpus.path, "--threshold", "0.8", "--out", d)
    return d


def test_build_len_and_self_hits(py_index, corpus, queries):
    _, idx = py_index
    assert len(idx) == corpus.n
    texts, _ = queries
    res = idx.query(texts)
    assert len(res) == len(texts)
    for pos, hits in zip(QUERY_POSITIONS, res):
        self_hits = [h for h in hits if h["doc"] == pos]
        assert self_hits, f"document {pos} does not find itself"
        assert self_hits[0]["id"] == corpus.ids[pos]
        assert self_hits[0]["estimate"] == 1.0
        assert all(h["estimate"] >= 0.5 for h in hits)  # the CLI's default threshold


def test_query_equals_cli_on_python_built_index(cli, py_index, queries):
    d, idx = py_index
    texts, qfile = queries
    assert py_hits(idx.query(texts)) == cli_hits(cli, d, qfile)
    assert py_hits(idx.query(texts, threshold=0.7, top=2)) == cli_hits(cli, d, qfile, "--threshold", "0.7", "--top", "2")


def test_python_built_index_has_tag(cli, py_index, queries):
    d, _ = py_index
    _, qfile = queries
    out = json.loads(cli.run("index", "query", d, "--jsonl", qfile, "--json").stdout)
    seen = {h["last_seen"] for q in out["queries"] for h in q["hits"]}
    assert seen == {"crawl-1"}


def test_open_cli_index_equals_cli_query(cli, fimdup, cli_index, corpus, queries):
    idx = fimdup.Index(cli_index)
    assert len(idx) == corpus.n
    texts, qfile = queries
    expected = cli_hits(cli, cli_index, qfile)
    assert sum(len(h) for h in expected) > len(texts)  # some queries have near-duplicates
    got = idx.query(texts)
    assert py_hits(got) == expected
    assert all(h["exact"] is None for hits in got for h in hits)
    assert py_hits(fimdup.Index(str(cli_index)).query(texts, threshold=0.6)) == cli_hits(
        cli, cli_index, qfile, "--threshold", "0.6")


def test_python_and_cli_built_indexes_answer_alike(cli, py_index, cli_index, queries):
    texts, qfile = queries
    assert cli_hits(cli, py_index[0], qfile) == cli_hits(cli, cli_index, qfile)


def test_build_from_path(cli, fimdup, corpus, queries, tmp_path):
    d = tmp_path / "idx"
    idx = fimdup.Index.build(d, Path(corpus.path), threshold=0.8)
    texts, qfile = queries
    assert len(idx) == corpus.n
    assert py_hits(idx.query(texts)) == cli_hits(cli, d, qfile)


def test_lsh_and_containment_queries_equal_cli(cli, fimdup, corpus, queries):
    d = cli.new_dir("index-kmins")
    cli.run("index", "build", corpus.path, "--scheme", "k-mins", "--threshold", "0.8", "--containment", "--out", d)
    texts, qfile = queries
    idx = fimdup.Index(d)
    assert py_hits(idx.query(texts, lsh=True)) == cli_hits(cli, d, qfile, "--lsh")
    expected = cli_hits(cli, d, qfile, "--measure", "containment", "--threshold", "0.5")
    assert py_hits(idx.query(texts, measure="containment", threshold=0.5)) == expected
    # and an index built by the package with the same options answers the same
    d2 = cli.new_dir("pyindex-kmins")
    idx2 = fimdup.Index.build(d2, corpus.texts, corpus.ids, scheme="k-mins", threshold=0.8, containment=True)
    assert py_hits(idx2.query(texts, measure="containment", threshold=0.5)) == expected
    assert py_hits(idx2.query(texts, lsh=True)) == cli_hits(cli, d, qfile, "--lsh")


def new_sweep(corpus):
    texts, ids = list(corpus.texts), list(corpus.ids)
    for i in range(3):
        w = corpus.texts[i].split()
        texts.append(" ".join(w[:-3] + ["zzfoo", "zzbar"]))
        ids.append(f"new{i}")
    texts.append("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda")
    ids.append("fresh")
    return texts, ids


def test_add_equals_cli_add(cli, fimdup, corpus, tmp_path):
    texts, ids = new_sweep(corpus)
    sweep_file = write_queries(tmp_path / "sweep2.jsonl", texts, ids)
    # the CLI on its own index
    cdir = tmp_path / "cli-idx"
    cli.run("index", "build", corpus.path, "--threshold", "0.8", "--out", cdir)
    expected = json.loads(cli.run("index", "add", cdir, sweep_file, "--json").stdout)
    # the package on its own index
    pdir = tmp_path / "py-idx"
    idx = fimdup.Index.build(pdir, corpus.texts, corpus.ids, threshold=0.8)
    got = idx.add(texts, ids)
    assert isinstance(got, dict)
    for k in expected:
        if k in ("index", "seconds"):
            continue
        assert got.get(k) == expected[k], f"add()[{k!r}]: package {got.get(k)!r}, CLI {expected[k]!r}"
    assert expected["added"] == 4
    assert len(idx) == corpus.n + 4
    assert len(fimdup.Index(pdir)) == corpus.n + 4
    # the new documents are found, in the package's index as in the CLI's
    q = write_queries(tmp_path / "q.jsonl", texts[-4:], ids[-4:])
    assert py_hits(idx.query(texts[-4:])) == cli_hits(cli, cdir, q)
    fresh = py_hits(idx.query([texts[-1]]))[0]
    assert fresh == [{"doc": corpus.n + 3, "id": "fresh", "estimate": 1.0}]


def test_batch_add_equals_cli_batch_add(cli, fimdup, corpus, tmp_path):
    texts, ids = new_sweep(corpus)
    sweep_file = write_queries(tmp_path / "batch.jsonl", texts[-4:], ids[-4:])
    cdir, pdir = tmp_path / "cli-idx", tmp_path / "py-idx"
    cli.run("index", "build", corpus.path, "--threshold", "0.8", "--out", cdir)
    expected = json.loads(cli.run("index", "add", cdir, sweep_file, "--batch", "--json").stdout)
    idx = fimdup.Index.build(pdir, corpus.texts, corpus.ids, threshold=0.8)
    got = idx.add(texts[-4:], ids[-4:], batch=True)
    for k in expected:
        if k in ("index", "seconds"):
            continue
        assert got.get(k) == expected[k], f"add(batch=True)[{k!r}]: package {got.get(k)!r}, CLI {expected[k]!r}"
    # a batch of four loses none of the indexed documents; a full sweep of the same four would
    assert got["lost"] == [] and got["added"] == 4
    full = fimdup.Index.build(tmp_path / "py-full", corpus.texts, corpus.ids, threshold=0.8)
    assert len(full.add(texts[-4:], ids[-4:])["lost"]) == corpus.n


def test_remove_and_merge_equal_cli(cli, fimdup, corpus, tmp_path):
    texts, ids = new_sweep(corpus)
    sweep_file = write_queries(tmp_path / "sweep2.jsonl", texts, ids)
    gone = [corpus.ids[3], corpus.ids[16], "no-such-id"]
    cdir, pdir = tmp_path / "cli-idx", tmp_path / "py-idx"
    cli.run("index", "build", corpus.path, "--threshold", "0.8", "--out", cdir)
    cli.run("index", "add", cdir, sweep_file)
    expected = json.loads(cli.run("index", "remove", cdir, *gone, "--json").stdout)
    idx = fimdup.Index.build(pdir, corpus.texts, corpus.ids, threshold=0.8)
    idx.add(texts, ids)
    got = idx.remove(gone)
    for k in expected:
        if k in ("index", "seconds"):
            continue
        assert got.get(k) == expected[k], f"remove()[{k!r}]: package {got.get(k)!r}, CLI {expected[k]!r}"
    assert got["removed"] == 2 and got["unknown"] == ["no-such-id"]
    # the removed documents are found no more, by their own texts, here as through the CLI
    q = write_queries(tmp_path / "q.jsonl", [corpus.texts[3], corpus.texts[16]], gone[:2])
    hits = py_hits(idx.query([corpus.texts[3], corpus.texts[16]]))
    assert hits == cli_hits(cli, cdir, q)
    assert all(h["id"] not in gone for row in hits for h in row)
    assert py_hits(fimdup.Index(pdir).query([corpus.texts[3]])) == hits[:1]
    # a merge drops them and keeps every answer
    before = py_hits(idx.query(corpus.texts[:40]))
    m = idx.merge()
    expected_m = json.loads(cli.run("index", "merge", cdir, "--json").stdout)
    for k in ("segments_before", "segments_after", "documents_rewritten", "generation"):
        assert m[k] == expected_m[k], f"merge()[{k!r}]: package {m[k]!r}, CLI {expected_m[k]!r}"
    assert m["segments_before"] == 2 and m["segments_after"] == 1
    # every document of the two segments is rewritten (the removed ones without postings)
    assert m["documents_rewritten"] == corpus.n + 4
    assert py_hits(idx.query(corpus.texts[:40])) == before
    with pytest.raises(ValueError):
        idx.remove([])
    with pytest.raises(TypeError):
        idx.remove("one-id")


def cli_exact_hits(cli, index_dir, qfile, *args):
    out = json.loads(cli.run("index", "query", index_dir, "--jsonl", qfile, "--exact", *args, "--json").stdout)
    return [
        [{"doc": h["doc"], "id": h["ext_id"], "estimate": h["estimate"], "exact": h["exact"]} for h in q["hits"]]
        for q in out["queries"]
    ]


def test_exact_queries_equal_cli(cli, fimdup, corpus, queries, tmp_path):
    """Exact measures from the kept sources: the package's query of an index the command
    built with --keep-sources, and of one the package built from the corpus file with
    keep_sources, give the command's `query --exact`."""
    d = cli.new_dir("index-sources")
    cli.run("index", "build", corpus.path, "--threshold", "0.8", "--keep-sources", "--out", d)
    texts, qfile = queries
    expected = cli_exact_hits(cli, d, qfile, "--threshold", "0.6")
    assert sum(len(h) for h in expected) > len(texts)
    # every exact value is a resemblance, and a query finds itself exactly
    for pos, hits in zip(QUERY_POSITIONS, expected):
        assert all(0.0 <= h["exact"] <= 1.0 for h in hits)
        assert [h["exact"] for h in hits if h["doc"] == pos] == [1.0]
    got = fimdup.Index(d).query(texts, threshold=0.6, exact=True)
    assert [[{k: h[k] for k in ("doc", "id", "estimate", "exact")} for h in q] for q in got] == expected
    p = tmp_path / "py-sources"
    idx = fimdup.Index.build(p, Path(corpus.path), threshold=0.8, keep_sources=True)
    assert idx.query(texts, threshold=0.6, exact=True) == got
    # without sources the library says so, from both entry points
    with pytest.raises(ValueError, match="keeps its sources"):
        fimdup.Index.build(tmp_path / "py-plain", Path(corpus.path)).query(texts[:1], exact=True)
    with pytest.raises(ValueError, match="corpus file"):
        fimdup.Index.build(tmp_path / "py-mem", corpus.texts, corpus.ids, keep_sources=True)


def test_query_order_and_empty_queries(fimdup, py_index, corpus):
    """Answers come in the order of the texts; a text too short to sketch finds nothing."""
    _, idx = py_index
    texts = [corpus.texts[5], "too short", corpus.texts[3], ""]
    res = idx.query(texts, threads=3)
    assert res[1] == [] and res[3] == []
    assert [h["doc"] for h in res[0] if h["estimate"] == 1.0][:1] == [5]
    assert [h["doc"] for h in res[2] if h["estimate"] == 1.0][:1] == [3]
    assert idx.query(texts, threads=1) == res
