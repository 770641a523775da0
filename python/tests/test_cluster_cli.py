"""fimdup.cluster / Result / evaluate on the default corpus equal the CLI's outputs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow as pa
import pytest

import _ref

# (method, verify) settings compared with `fimdup cluster`.
SETTINGS = [
    ("concept", None),
    ("union-find", None),
    ("lsh", None),
    ("concept", "exact"),
    ("super-shingle", None),
    ("exact", None),
]
SETTING_IDS = [m + ("+verify" if v else "") for m, v in SETTINGS]

FIVE_VALUES = ["truth_pairs", "found", "unique_truth", "unique_ours", "common", "precision", "recall", "f1"]


def cli_args(method, verify):
    args = ["--method", method]
    if verify:
        args += ["--verify", verify]
    return args


def py_kwargs(method, verify):
    kw = {"method": method}
    if verify:
        kw["verify"] = verify
    return kw


def pairs_rows(table: pa.Table):
    return table.to_pylist()


@pytest.mark.parametrize("method,verify", SETTINGS, ids=SETTING_IDS)
def test_pairs_equal_cli(cli, py_cluster, method, verify):
    out = cli.cluster(*cli_args(method, verify))
    expected = _ref.read_pairs_csv(out / "pairs.csv")
    res = py_cluster(**py_kwargs(method, verify))
    assert isinstance(res.pairs, pa.Table)
    assert res.pairs.column_names == _ref.PAIRS_COLUMNS
    got = pairs_rows(res.pairs)
    assert len(got) == len(expected), f"{len(got)} pairs, the CLI wrote {len(expected)}"
    assert len(expected) > 50  # the corpus has near-duplicates for every method
    for i, (g, e) in enumerate(zip(got, expected)):
        assert g == e, f"pairs row {i}: package {g}, CLI {e}"


@pytest.mark.parametrize("method,verify", SETTINGS, ids=SETTING_IDS)
def test_clusters_equal_cli(cli, py_cluster, method, verify):
    out = cli.cluster(*cli_args(method, verify))
    expected = _ref.read_clusters_jsonl(out / "clusters.jsonl")
    res = py_cluster(**py_kwargs(method, verify))
    assert isinstance(res.clusters, list)
    assert res.clusters == expected
    assert len(expected) > 20


@pytest.mark.parametrize("method,verify", SETTINGS[:4], ids=SETTING_IDS[:4])
def test_five_values_equal_cli_eval(cli, corpus, fimdup, py_cluster, method, verify):
    out = cli.cluster(*cli_args(method, verify))
    expected = cli.json("eval", "--truth", corpus.truth, "--clusters", out / "clusters.jsonl", "--json")
    got = fimdup.evaluate(py_cluster(**py_kwargs(method, verify)), corpus.truth)
    assert isinstance(got, dict)
    for k in FIVE_VALUES:
        assert got[k] == expected[k], f"{k}: package {got[k]!r}, CLI {expected[k]!r}"
    assert expected["found"] > 0 and expected["common"] > 0


@pytest.mark.parametrize("method,verify", SETTINGS[:4], ids=SETTING_IDS[:4])
def test_evaluate_dict_equals_cli_json(cli, corpus, fimdup, py_cluster, method, verify):
    """The whole `fimdup eval --json` object but the echoed truth path."""
    out = cli.cluster(*cli_args(method, verify))
    expected = cli.json("eval", "--truth", corpus.truth, "--clusters", out / "clusters.jsonl", "--json")
    got = fimdup.evaluate(py_cluster(**py_kwargs(method, verify)), str(corpus.truth))
    assert set(got) == set(expected)
    for k in expected:
        if k == "truth":
            continue
        assert got[k] == expected[k], f"{k}: package {got[k]!r}, CLI {expected[k]!r}"


@pytest.mark.parametrize("method", ["concept", "union-find", "lsh"])
def test_path_input_equals_cli(cli, corpus, fimdup, method):
    out = cli.cluster("--method", method)
    res = fimdup.cluster(Path(corpus.path), method=method)
    assert _ref.read_pairs_csv(out / "pairs.csv") == pairs_rows(res.pairs)
    assert _ref.read_clusters_jsonl(out / "clusters.jsonl") == res.clusters


def test_str_pathlike_input_equals_cli(cli, corpus, fimdup):
    class PL:
        def __init__(self, p):
            self.p = p

        def __fspath__(self):
            return str(self.p)

    out = cli.cluster("--method", "concept", "--verify", "exact")
    res = fimdup.cluster(PL(corpus.path), verify="exact")
    assert _ref.read_pairs_csv(out / "pairs.csv") == pairs_rows(res.pairs)
    assert _ref.read_clusters_jsonl(out / "clusters.jsonl") == res.clusters


def test_pairs_schema(py_cluster):
    res = py_cluster(method="concept", verify="exact")
    s = res.pairs.schema
    assert s.names == _ref.PAIRS_COLUMNS
    for c in ("a", "b"):
        assert pa.types.is_string(s.field(c).type) or pa.types.is_large_string(s.field(c).type), s
    assert s.field("shared").type == pa.int64()
    assert s.field("estimate").type == pa.float64()
    assert s.field("exact").type == pa.float64()


@pytest.mark.parametrize("method", ["exact", "concept"])
def test_pairs_nulls_where_cli_cells_are_empty(cli, py_cluster, method):
    """Null cells of the table are exactly the empty cells of pairs.csv (exact: the estimate
    of non-identical pairs; concept without verify: every exact)."""
    out = cli.cluster("--method", method)
    expected = _ref.read_pairs_csv(out / "pairs.csv")
    got = py_cluster(method=method).pairs
    n_null = 0
    for col in ("shared", "estimate", "exact"):
        want = [r[col] is None for r in expected]
        have = got.column(col).is_null().to_pylist()
        assert have == want, col
        n_null += sum(want)
    assert n_null > 0


@pytest.mark.parametrize("method,verify", [("concept", "exact"), ("lsh", None)], ids=["concept+verify", "lsh"])
def test_pairs_df_equals_cli_csv_read_by_pandas(cli, py_cluster, method, verify):
    import pandas as pd
    out = cli.cluster(*cli_args(method, verify))
    expected = pd.read_csv(out / "pairs.csv", dtype={"a": str, "b": str})
    got = py_cluster(**py_kwargs(method, verify)).pairs_df()
    assert isinstance(got, pd.DataFrame)
    assert list(got.columns) == _ref.PAIRS_COLUMNS
    assert _ref.df_records(got) == _ref.df_records(expected)


def test_threshold_and_min_common_equal_cli(cli, fimdup, corpus):
    out = cli.cluster("--method", "union-find", "--min-common", "100", "--max-df", "1000")
    res = fimdup.cluster(corpus.texts, corpus.ids, method="union-find", min_common=100, max_df=1000)
    assert _ref.read_pairs_csv(out / "pairs.csv") == pairs_rows(res.pairs)
    assert _ref.read_clusters_jsonl(out / "clusters.jsonl") == res.clusters

    out = cli.cluster("--method", "lsh", "--threshold", "0.7", "--bands", "16")
    res = fimdup.cluster(corpus.texts, corpus.ids, method="lsh", threshold=0.7, bands=16)
    assert _ref.read_pairs_csv(out / "pairs.csv") == pairs_rows(res.pairs)
    assert _ref.read_clusters_jsonl(out / "clusters.jsonl") == res.clusters


def test_method_options_come_from_the_declarations(cli, fimdup, corpus):
    """simhash's own options (declared in its file) are flags and keywords alike; an
    option of another method and an unknown keyword are refused."""
    out = cli.cluster("--method", "simhash", "--bits", "128", "--hamming", "12", "--blocks", "16")
    res = fimdup.cluster(corpus.texts, corpus.ids, method="simhash", bits=128, hamming=12, blocks=16)
    assert _ref.read_pairs_csv(out / "pairs.csv") == pairs_rows(res.pairs)
    assert _ref.read_clusters_jsonl(out / "clusters.jsonl") == res.clusters
    assert res.summary["options"] == {"bits": 128, "hamming": 12, "blocks": 16}
    assert res.summary["image_size"] == 128 and res.pairs.num_rows > 0
    with pytest.raises(ValueError, match="option bands belongs to lsh, not to concept"):
        fimdup.cluster(corpus.texts, corpus.ids, method="concept", bands=4)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bandz'"):
        fimdup.cluster(corpus.texts, corpus.ids, method="lsh", bandz=4)
    with pytest.raises(ValueError, match="option hamming takes a distance below"):
        fimdup.cluster(corpus.texts, corpus.ids, method="simhash", hamming=64)


SKETCH_OPTION_CASES = [
    (["--shingle-len", "4", "--scheme", "one-permutation", "--size", "64", "--seed", "3",
      "--stopwords", "english", "--stem", "--threshold", "0.75"],
     dict(shingle_len=4, scheme="one-permutation", size=64, seed=3, stopwords="english", stem=True,
          threshold=0.75)),
    (["--unit", "char", "--shingle-len", "7", "--keep-case", "--threshold", "0.75"],
     dict(unit="char", shingle_len=7, keep_case=True, threshold=0.75)),
    (["--html", "--offset", "2"], dict(html=True, offset=2)),
    (["--tokenizer", "alnum", "--normalize", "nfkc", "--lang", "de", "--stopwords", "lang",
      "--stem", "--threshold", "0.75"],
     dict(tokenizer="alnum", normalize="nfkc", lang="de", stopwords="lang", stem=True,
          threshold=0.75)),
    (["--tokenizer", "whitespace", "--normalize", "nfc"], dict(tokenizer="whitespace", normalize="nfc")),
]


@pytest.mark.parametrize("args,kw", SKETCH_OPTION_CASES,
                         ids=["word-opts", "char-opts", "html-offset", "alnum-nfkc-de", "whitespace-nfc"])
def test_sketch_options_equal_cli(cli, fimdup, corpus, args, kw):
    out = cli.cluster(*args)
    res = fimdup.cluster(corpus.texts, corpus.ids, **kw)
    expected = _ref.read_pairs_csv(out / "pairs.csv")
    assert len(expected) > 0
    assert pairs_rows(res.pairs) == expected
    assert res.clusters == _ref.read_clusters_jsonl(out / "clusters.jsonl")


@pytest.mark.parametrize("method,verify", SETTINGS[:4], ids=SETTING_IDS[:4])
def test_summary_equals_cli_summary(cli, py_cluster, method, verify):
    out = cli.cluster(*cli_args(method, verify))
    expected = _ref.strip_volatile(json.loads((out / "summary.json").read_text()))
    got = py_cluster(**py_kwargs(method, verify)).summary
    assert isinstance(got, dict)
    got = _ref.strip_volatile(got)
    assert set(got) == set(expected), f"keys: package only {set(got) - set(expected)}, CLI only {set(expected) - set(got)}"
    for k in expected:
        assert got[k] == expected[k], f"summary[{k!r}]: package {got[k]!r}, CLI {expected[k]!r}"


@pytest.mark.parametrize("method,verify", [("concept", None), ("concept", "exact"), ("lsh", None)],
                         ids=["concept", "concept+verify", "lsh"])
def test_write_equals_cli_files(cli, py_cluster, tmp_path, method, verify):
    out = cli.cluster(*cli_args(method, verify))
    res = py_cluster(**py_kwargs(method, verify))
    d = tmp_path / "written"
    res.write(d)
    assert (d / "pairs.csv").read_bytes() == (out / "pairs.csv").read_bytes()
    assert (d / "clusters.jsonl").read_bytes() == (out / "clusters.jsonl").read_bytes()
    got = _ref.strip_volatile(json.loads((d / "summary.json").read_text()))
    assert got == _ref.strip_volatile(json.loads((out / "summary.json").read_text()))


def test_write_accepts_str_path(py_cluster, tmp_path):
    res = py_cluster(method="concept")
    res.write(str(tmp_path / "w"))
    assert _ref.read_clusters_jsonl(tmp_path / "w" / "clusters.jsonl") == res.clusters


def test_containment_on_clough_equals_cli(cli, fimdup, clough_dir):
    """Real texts (non-ASCII, cp1252-decoded): exact and union-find containment joins."""
    texts, ids = _ref.read_corpus(clough_dir / "docs.jsonl")
    docs = clough_dir / "docs.jsonl"
    for method, extra_cli, extra_py in (
        ("exact", [], {}),
        ("union-find", ["--scheme", "mod-m", "--modulus", "4"], {"scheme": "mod-m", "modulus": 4}),
    ):
        out = cli.cluster("--method", method, "--measure", "containment", "--threshold", "0.3",
                          "--unit", "word", "--shingle-len", "3", *extra_cli, docs=docs)
        res = fimdup.cluster(texts, ids, method=method, measure="containment", threshold=0.3,
                             unit="word", shingle_len=3, **extra_py)
        expected = _ref.read_pairs_csv(out / "pairs.csv")
        assert len(expected) > 0, method
        assert pairs_rows(res.pairs) == expected, method
        assert res.clusters == _ref.read_clusters_jsonl(out / "clusters.jsonl"), method


def test_candidate_threshold_equals_cli(cli, fimdup, corpus):
    out = cli.cluster("--verify", "exact", "--candidate-threshold", "0.7")
    res = fimdup.cluster(corpus.texts, corpus.ids, verify="exact", candidate_threshold=0.7)
    assert pairs_rows(res.pairs) == _ref.read_pairs_csv(out / "pairs.csv")
    assert res.clusters == _ref.read_clusters_jsonl(out / "clusters.jsonl")


def test_memory_budget_same_result(py_cluster, fimdup, corpus, tmp_path):
    ref = py_cluster(method="concept")
    res = fimdup.cluster(corpus.texts, corpus.ids, memory_budget="512MiB", tmp_dir=tmp_path)
    assert res.pairs.equals(ref.pairs)
    assert res.clusters == ref.clusters


def test_max_itemsets_limit(fimdup, corpus):
    with pytest.raises(fimdup.LimitError):
        fimdup.cluster(corpus.texts, corpus.ids, max_itemsets=5)


def test_path_input_fields_and_format(cli, fimdup, corpus, tmp_path):
    """format=, text_field=, id_field= on a corpus file are the CLI's flags."""
    f = tmp_path / "renamed.data"
    with open(f, "w", encoding="utf-8") as fh:
        for i, t in zip(corpus.ids, corpus.texts):
            fh.write(json.dumps({"key": "k" + i, "body": t, "text": "decoy"}) + "\n")
    out = cli.out("cluster", f, "--format", "jsonl", "--text-field", "body", "--id-field", "key")
    res = fimdup.cluster(f, format="jsonl", text_field="body", id_field="key")
    expected = _ref.read_pairs_csv(out / "pairs.csv")
    assert len(expected) > 100 and expected[0]["a"].startswith("k")
    assert pairs_rows(res.pairs) == expected
    assert res.clusters == _ref.read_clusters_jsonl(out / "clusters.jsonl")


def test_tokenizer_choice_changes_what_is_a_duplicate(fimdup):
    # Identical under alnum words (`_`, `.` and `::` separate), different under UAX #29 words.
    texts = ["std::io::read_to_string reads the whole file into a new string buffer",
             "std io read to string reads the whole file into a new string buffer"]
    kw = dict(method="exact", threshold=0.9)
    assert fimdup.cluster(texts, **kw).pairs.num_rows == 0
    assert fimdup.cluster(texts, tokenizer="alnum", **kw).pairs.num_rows == 1
    with pytest.raises(ValueError, match="expected unicode, alnum or whitespace"):
        fimdup.cluster(texts, tokenizer="regex", **kw)
