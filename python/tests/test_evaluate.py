"""fimdup.evaluate with every kind of prediction and truth equals `fimdup eval --json`.

The predictions are the CLI's own pairs.csv / clusters.jsonl (read here independently), so
these tests check evaluate alone, whatever cluster returns."""

from __future__ import annotations

import csv
from pathlib import Path

import pyarrow as pa
import pytest

import _ref

FIVE_VALUES = ["truth_pairs", "found", "unique_truth", "unique_ours", "common", "precision", "recall", "f1"]


def assert_values(got, expected, keys=FIVE_VALUES):
    assert isinstance(got, dict)
    for k in keys:
        assert k in got, f"missing key {k!r} in {sorted(got)}"
        assert got[k] == expected[k], f"{k}: package {got[k]!r}, CLI {expected[k]!r}"


def assert_all_but_truth(got, expected):
    assert set(got) == set(expected)
    assert_values(got, expected, [k for k in expected if k != "truth"])


@pytest.fixture(scope="module")
def lsh_out(cli):
    # lsh at 0.7 has both false positives and misses against the default truth.
    return cli.cluster("--method", "lsh", "--threshold", "0.7")


@pytest.fixture(scope="module")
def lsh_pairs_rows(lsh_out):
    return _ref.read_pairs_csv(lsh_out / "pairs.csv")


@pytest.fixture(scope="module")
def cli_eval_pairs(cli, corpus, lsh_out):
    ref = cli.json("eval", "--truth", corpus.truth, "--pairs", lsh_out / "pairs.csv", "--json")
    # errors both ways, so that the comparisons exercise unique_ours and unique_truth
    assert ref["unique_ours"] > 0 and ref["unique_truth"] > 0
    return ref


def test_pred_pairs_table(fimdup, corpus, lsh_pairs_rows, cli_eval_pairs):
    table = pa.Table.from_pylist(lsh_pairs_rows)
    assert_all_but_truth(fimdup.evaluate(table, corpus.truth), cli_eval_pairs)


def test_pred_pairs_table_only_a_b(fimdup, corpus, lsh_pairs_rows, cli_eval_pairs):
    table = pa.table({"a": [r["a"] for r in lsh_pairs_rows], "b": [r["b"] for r in lsh_pairs_rows]})
    assert_values(fimdup.evaluate(table, corpus.truth), cli_eval_pairs)


def test_pred_dataframe(fimdup, corpus, lsh_out, cli_eval_pairs):
    import pandas as pd

    df = pd.read_csv(lsh_out / "pairs.csv", dtype={"a": str, "b": str})
    assert_all_but_truth(fimdup.evaluate(df, corpus.truth), cli_eval_pairs)


def test_pred_list_of_tuples(fimdup, corpus, lsh_pairs_rows, cli_eval_pairs):
    pairs = [(r["a"], r["b"]) for r in lsh_pairs_rows]
    assert_values(fimdup.evaluate(pairs, corpus.truth), cli_eval_pairs)


def test_pred_pairs_path(fimdup, corpus, lsh_out, cli_eval_pairs):
    assert_all_but_truth(fimdup.evaluate(lsh_out / "pairs.csv", corpus.truth), cli_eval_pairs)
    assert_all_but_truth(fimdup.evaluate(str(lsh_out / "pairs.csv"), str(corpus.truth)), cli_eval_pairs)


def test_pred_clusters_path(cli, fimdup, corpus, lsh_out):
    expected = cli.json("eval", "--truth", corpus.truth, "--clusters", lsh_out / "clusters.jsonl", "--json")
    assert_all_but_truth(fimdup.evaluate(lsh_out / "clusters.jsonl", corpus.truth), expected)


def test_truth_rule_and_labeled_only(cli, fimdup, corpus, lsh_out):
    for extra_cli, kw in (
        (["--truth-rule", "resemblance>=0.8"], {"truth_rule": "resemblance>=0.8"}),
        (["--truth-rule", "resemblance>=0.5", "--labeled-only"], {"truth_rule": "resemblance>=0.5", "labeled_only": True}),
        (["--labeled-only"], {"labeled_only": True}),
    ):
        expected = cli.json("eval", "--truth", corpus.truth, "--pairs", lsh_out / "pairs.csv", *extra_cli, "--json")
        got = fimdup.evaluate(lsh_out / "pairs.csv", corpus.truth, **kw)
        assert_all_but_truth(got, expected)


def test_corpus_floor_examples(cli, fimdup, corpus, lsh_out):
    expected = cli.json("eval", "--truth", corpus.truth, "--clusters", lsh_out / "clusters.jsonl",
                        "--corpus", corpus.path, "--floor", "0.75", "--examples", "2", "--json")
    got = fimdup.evaluate(lsh_out / "clusters.jsonl", corpus.truth, corpus=corpus.path, floor=0.75, examples=2)
    assert_all_but_truth(got, expected)


def _truth_rows(corpus):
    with open(corpus.truth, newline="") as f:
        return list(csv.DictReader(f))


def test_truth_as_list_of_pairs(cli, fimdup, corpus, lsh_out, lsh_pairs_rows, tmp_path):
    # the default rule of `fimdup eval` on a gen truth is edit_similarity>0.85
    positives = [(r["a"], r["b"]) for r in _truth_rows(corpus) if float(r["edit_similarity"]) > 0.85]
    f = tmp_path / "positives.csv"
    f.write_text("".join(f"{a},{b}\n" for a, b in positives))
    expected = cli.json("eval", "--truth", f, "--pairs", lsh_out / "pairs.csv", "--json")
    assert expected["truth_pairs"] == len(positives)
    got = fimdup.evaluate([(r["a"], r["b"]) for r in lsh_pairs_rows], positives)
    assert_values(got, expected)
    got = fimdup.evaluate(lsh_out / "pairs.csv", pa.table({"a": [a for a, _ in positives], "b": [b for _, b in positives]}))
    assert_values(got, expected)


@pytest.mark.parametrize("labeled_only", [False, True])
def test_truth_as_labeled_dataframe(cli, fimdup, corpus, lsh_out, tmp_path, labeled_only):
    import pandas as pd

    rows = _truth_rows(corpus)
    labels = [float(r["edit_similarity"]) > 0.85 for r in rows]
    f = tmp_path / "labeled.csv"
    f.write_text("a,b,label\n" + "".join(f"{r['a']},{r['b']},{int(l)}\n" for r, l in zip(rows, labels)))
    extra = ["--labeled-only"] if labeled_only else []
    expected = cli.json("eval", "--truth", f, "--truth-rule", "label=1", "--pairs", lsh_out / "pairs.csv", *extra, "--json")
    df = pd.DataFrame({"a": [r["a"] for r in rows], "b": [r["b"] for r in rows], "label": labels})
    got = fimdup.evaluate(lsh_out / "pairs.csv", df, labeled_only=labeled_only)
    assert_values(got, expected)
    got = fimdup.evaluate(lsh_out / "pairs.csv", pa.Table.from_pandas(df, preserve_index=False), labeled_only=labeled_only)
    assert_values(got, expected)


def test_clough_labeled_truth_dataframe(cli, fimdup, clough_dir, tmp_path):
    """Real labels (answers against their source, labeled only): a DataFrame truth with a
    bool label column gives the CLI's values for the CSV with --truth-rule plagiarised=1."""
    import pandas as pd

    with open(clough_dir / "pairs_vs_source.tsv", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    assert len(rows) == 95
    ab = [tuple(sorted((r["answer_id"], r["source_id"]))) for r in rows]
    plag = [r["plagiarised"] == "1" for r in rows]
    truth_csv = tmp_path / "truth.csv"
    truth_csv.write_text("a,b,plagiarised\n" + "".join(f"{a},{b},{int(p)}\n" for (a, b), p in zip(ab, plag)))
    out = cli.cluster("--method", "exact", "--measure", "containment", "--threshold", "0.3",
                      "--unit", "word", "--shingle-len", "3", docs=clough_dir / "docs.jsonl")
    expected = cli.json("eval", "--truth", truth_csv, "--truth-rule", "plagiarised=1", "--labeled-only",
                        "--pairs", out / "pairs.csv", "--json")
    assert expected["truth_pairs"] == sum(plag) and expected["found"] > 0
    df = pd.DataFrame({"a": [a for a, _ in ab], "b": [b for _, b in ab], "label": plag})
    got = fimdup.evaluate(out / "pairs.csv", df, labeled_only=True)
    assert_values(got, expected)
    # the same truth as a path with the rule
    got = fimdup.evaluate(Path(out / "pairs.csv"), truth_csv, truth_rule="plagiarised=1", labeled_only=True)
    assert_all_but_truth(got, expected)


@pytest.mark.parametrize("fmt", ["auto", "clusters"])
def test_clusters_truth_from_families(cli, fimdup, corpus, lsh_out, tmp_path, fmt):
    """A cluster-assignment truth (the corpus's generator families as clusters)."""
    import json

    f = tmp_path / "families.jsonl"
    with open(corpus.path, encoding="utf-8") as src, open(f, "w") as dst:
        for line in src:
            r = json.loads(line)
            if r.get("family"):
                dst.write(json.dumps({"id": r["id"], "cluster": r["family"]}) + "\n")
    expected = cli.json("eval", "--truth", f, "--truth-format", fmt, "--clusters", lsh_out / "clusters.jsonl", "--json")
    assert expected["truth_format"] == "clusters" and expected["truth_pairs"] > 1000
    got = fimdup.evaluate(lsh_out / "clusters.jsonl", f, truth_format=fmt)
    assert_all_but_truth(got, expected)


# Three clusters whose members are the same words or not depending on how words are cut:
# hyphens separate words under every tokenizer but `whitespace`; `_` joins words under `word`
# (\w+) and `unicode` (UAX #29 ExtendNumLet) but not under `alnum`; an apostrophe between
# letters joins under `unicode` (MidLetter) and `whitespace` only.
TOKENIZER_DOCS = {
    "x1": "alpha-beta gamma-delta epsilon-zeta eta-theta iota-kappa",
    "x2": "alpha beta gamma delta epsilon zeta eta theta iota kappa",
    "y1": "one_two three_four five_six seven_eight nine_ten",
    "y2": "one two three four five six seven eight nine ten",
    "z1": "Can't won't don't isn't aren't",
    "z2": "can t won t don t isn t aren t",
}
TOKENIZER_CLUSTERS = [["x1", "x2"], ["y1", "y2"], ["z1", "z2"]]


def _ref_words(tokenizer, text):
    """The words of the module docs of eval::similarity, for these ASCII texts."""
    import re

    text = text.lower()
    if tokenizer == "word":
        return re.findall(r"[a-z0-9_]+", text)
    if tokenizer == "alnum":
        return re.findall(r"[a-z0-9]+", text)
    if tokenizer == "whitespace":
        return text.split()
    # UAX #29 on ASCII letters: `_` joins, an apostrophe between two letters joins.
    return re.findall(r"[a-z0-9_]+(?:'[a-z0-9_]+)*", text)


def _ref_resemblance(tokenizer, a, b):
    def shingles(text):
        w = _ref_words(tokenizer, text)
        if len(w) < 5:
            return {tuple(w)} if w else set()
        return {tuple(w[i : i + 5]) for i in range(len(w) - 4)}

    sa, sb = shingles(a), shingles(b)
    return len(sa & sb) / len(sa | sb) if sa or sb else 0.0


@pytest.fixture(scope="module")
def tokenizer_case(tmp_path_factory):
    import json

    d = tmp_path_factory.mktemp("tokenizers")
    docs = d / "docs.jsonl"
    docs.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in TOKENIZER_DOCS.items()))
    clusters = d / "clusters.jsonl"
    clusters.write_text(
        "".join(json.dumps({"id": n, "docs": c, "support": 1}) + "\n" for n, c in enumerate(TOKENIZER_CLUSTERS))
    )
    truth = d / "truth.csv"  # pairs without a resemblance column: the corpus gives it
    truth.write_text("a,b\n" + "".join(f"{a},{b}\n" for a, b in TOKENIZER_CLUSTERS))
    return docs, clusters, truth


@pytest.mark.parametrize("tokenizer", ["word", "alnum", "whitespace", "unicode"])
def test_truth_tokenizer_equals_cli(cli, fimdup, tokenizer_case, tokenizer):
    docs, clusters, truth = tokenizer_case
    expected = cli.json("eval", "--truth", truth, "--clusters", clusters, "--corpus", docs,
                        "--truth-tokenizer", tokenizer, "--json")
    want_false = sum(_ref_resemblance(tokenizer, TOKENIZER_DOCS[a], TOKENIZER_DOCS[b]) < 0.5
                     for a, b in TOKENIZER_CLUSTERS)
    assert expected["false_clusters"]["false_clusters"] == want_false
    got = fimdup.evaluate(clusters, truth, corpus=docs, truth_tokenizer=tokenizer)
    assert_all_but_truth(got, expected)
    # a prediction held in memory, and the corpus as a str, give the same
    got = fimdup.evaluate(TOKENIZER_CLUSTERS, str(truth), corpus=str(docs), truth_tokenizer=tokenizer)
    assert_values(got, expected)
    assert got["false_clusters"]["false_clusters"] == want_false


def test_truth_tokenizer_changes_the_result(cli, fimdup, tokenizer_case):
    """The tokenizers disagree on this corpus, so the keyword is not ignored: each gives its
    own count of false clusters (word 1, alnum 0, whitespace 3, unicode 2), the default is
    word's, and the counts are those of the command's flag."""
    docs, clusters, truth = tokenizer_case
    counts = {
        t: fimdup.evaluate(clusters, truth, corpus=docs, truth_tokenizer=t)["false_clusters"]["false_clusters"]
        for t in ("word", "alnum", "whitespace", "unicode")
    }
    assert counts == {"word": 1, "alnum": 0, "whitespace": 3, "unicode": 2}
    assert fimdup.evaluate(clusters, truth, corpus=docs)["false_clusters"]["false_clusters"] == counts["word"]
    flagless = cli.json("eval", "--truth", truth, "--clusters", clusters, "--corpus", docs, "--json")
    assert flagless["false_clusters"]["false_clusters"] == counts["word"]


def test_truth_tokenizer_needs_a_corpus(cli, fimdup, tokenizer_case):
    _, clusters, truth = tokenizer_case
    with pytest.raises(ValueError, match="corpus"):
        fimdup.evaluate(clusters, truth, truth_tokenizer="whitespace")
    p = cli.run("eval", "--truth", truth, "--clusters", clusters, "--truth-tokenizer", "whitespace", check=False)
    assert p.returncode == 2 and "--corpus" in p.stderr
    with pytest.raises(ValueError, match="word, alnum, whitespace or unicode"):
        fimdup.evaluate(clusters, truth, corpus=tokenizer_case[0], truth_tokenizer="words")


def test_bootstrap_intervals_equal_cli(fimdup, cli, corpus, lsh_out):
    # The same resamples of the corpus's families, seeded alike, give the same intervals.
    args = ["--corpus", corpus.path, "--bootstrap", "60", "--bootstrap-seed", "5", "--group-by", "family"]
    ref = cli.json("eval", "--truth", corpus.truth, "--pairs", lsh_out / "pairs.csv", *args, "--json")
    got = fimdup.evaluate(lsh_out / "pairs.csv", corpus.truth, corpus=corpus.path, bootstrap=60,
                          bootstrap_seed=5, group_by="family")
    keys = ["precision_lo", "precision_hi", "recall_lo", "recall_hi", "f1_lo", "f1_hi"]
    assert_values(got, ref, FIVE_VALUES + keys)
    assert got["f1_lo"] <= got["f1_hi"]
    assert got["bootstrap"] == ref["bootstrap"]
    assert "f1_lo" not in fimdup.evaluate(lsh_out / "pairs.csv", corpus.truth)
