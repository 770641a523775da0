"""fimdup.sweep / fimdup.report against `fimdup sweep` (results.csv, report.html)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

import _ref


@pytest.fixture(scope="module")
def cli_sweep(cli, corpus):
    return cli.out("sweep", corpus.path, "--truth", corpus.truth, "--methods", "concept", "--thresholds", "0.8,0.9")


@pytest.fixture(scope="module")
def py_rows(fimdup, corpus):
    return fimdup.sweep(corpus.texts, corpus.ids, corpus.truth, methods=["concept"], thresholds=[0.8, 0.9])


def test_rows_match_request(py_rows):
    assert isinstance(py_rows, list) and len(py_rows) == 2
    assert [(r["method"], float(r["threshold"])) for r in py_rows] == [("concept", 0.8), ("concept", 0.9)]


def test_rows_columns_are_results_csv_columns(py_rows, cli_sweep):
    with open(cli_sweep / "results.csv", newline="") as f:
        header = next(csv.reader(f))
    for r in py_rows:
        assert set(r) == set(header)


def test_rows_equal_cli_results_csv(py_rows, cli_sweep):
    expected = _ref.read_results_csv(cli_sweep / "results.csv")
    assert len(expected) == 2
    for got, exp in zip(py_rows, expected):
        assert got["precision"] == exp["precision"]
        assert got["recall"] == exp["recall"]
        assert _ref.comparable_row(got) == _ref.comparable_row(exp)


def test_threshold_grid_string_and_several_methods(cli, fimdup, corpus):
    out = cli.out("sweep", corpus.path, "--truth", corpus.truth, "--methods", "concept,union-find",
                  "--thresholds", "0.9:0.8:0.1")
    expected = _ref.read_results_csv(out / "results.csv")
    rows = fimdup.sweep(corpus.texts, corpus.ids, corpus.truth, methods=("concept", "union-find"),
                        thresholds="0.9:0.8:0.1")
    asked = {(m, t) for m in ("concept", "union-find") for t in (0.9, 0.8)}
    assert {(r["method"], round(float(r["threshold"]), 9)) for r in rows} == asked
    assert len(rows) == 4
    assert [_ref.comparable_row(r) for r in rows] == [_ref.comparable_row(r) for r in expected]


def test_sweep_options_equal_cli(cli, fimdup, corpus):
    out = cli.out("sweep", corpus.path, "--truth", corpus.truth, "--truth-rule", "resemblance>=0.8",
                  "--methods", "lsh", "--thresholds", "0.7,0.85", "--verify", "exact")
    expected = _ref.read_results_csv(out / "results.csv")
    rows = fimdup.sweep(Path(corpus.path), None, str(corpus.truth), methods=["lsh"], thresholds=[0.7, 0.85],
                        truth_rule="resemblance>=0.8", verify="exact")
    assert [_ref.comparable_row(r) for r in rows] == [_ref.comparable_row(r) for r in expected]


def test_report_writes_files_and_rows(cli, fimdup, corpus, cli_sweep, py_rows, tmp_path):
    out = tmp_path / "report"
    rows = fimdup.report(corpus.texts, corpus.ids, corpus.truth, out, methods=["concept"], thresholds=[0.8, 0.9])
    for name in ("report.html", "results.csv", "errors.csv", "report.md", "f1.svg", "pr.svg"):
        assert (out / name).is_file(), f"{name} missing in {out}: {sorted(p.name for p in out.iterdir())}"
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.lstrip().lower().startswith("<!doctype html") and "concept" in html
    assert [_ref.comparable_row(r) for r in rows] == [_ref.comparable_row(r) for r in py_rows]
    written = _ref.read_results_csv(out / "results.csv")
    expected = _ref.read_results_csv(cli_sweep / "results.csv")
    assert [_ref.comparable_row(r) for r in written] == [_ref.comparable_row(r) for r in expected]
    assert [_ref.comparable_row(r) for r in rows] == [_ref.comparable_row(r) for r in written]


def test_report_errors_csv_equals_cli(fimdup, corpus, cli_sweep, tmp_path):
    out = tmp_path / "report"
    fimdup.report(corpus.texts, corpus.ids, corpus.truth, str(out), methods=["concept"], thresholds=[0.8, 0.9])
    assert (out / "errors.csv").read_text() == (cli_sweep / "errors.csv").read_text()


def test_default_methods_and_grid_equal_cli(cli, fimdup, corpus):
    """The defaults: every method over 0.95:0.5:0.05, as `fimdup sweep` with no options."""
    out = cli.out("sweep", corpus.path, "--truth", corpus.truth)
    expected = _ref.read_results_csv(out / "results.csv")
    # every registered method (the library's default list) at the 10 thresholds of the grid
    methods = fimdup.defaults()["sweep"]["methods"]
    assert "simhash" in methods and len(expected) == 10 * len(methods)
    rows = fimdup.sweep(corpus.texts, corpus.ids, corpus.truth)
    assert [(r["method"], round(float(r["threshold"]), 9)) for r in rows] == \
        [(r["method"], round(float(r["threshold"]), 9)) for r in expected]
    assert [_ref.comparable_row(r) for r in rows] == [_ref.comparable_row(r) for r in expected]


def test_truth_tokenizer_reaches_the_false_cluster_check(fimdup):
    # The pipeline's words make x and y equal (the exact method clusters them); the truth
    # gives no resemblance, so the corpus does: 1 with "word" words, 0 with "whitespace"
    # words ("one," is not "one"), a false cluster.
    texts = [
        "one two three four five six seven eight nine ten",
        "One, two, three, four, five, six, seven, eight, nine, ten.",
        "an unrelated document about something else entirely, with other words",
    ]
    ids = ["x", "y", "z"]

    def false_clusters(**kw):
        rows = fimdup.sweep(texts, ids, [("x", "y")], methods=["exact"], thresholds=[0.9], errors=0, **kw)
        assert rows[0]["common"] == 1
        return rows[0]["false_clusters"]

    assert false_clusters() == 0
    assert false_clusters(truth_tokenizer="word") == 0
    assert false_clusters(truth_tokenizer="whitespace") == 1
    with pytest.raises(Exception, match="word, alnum, whitespace or unicode"):
        false_clusters(truth_tokenizer="words")


def test_bootstrap_intervals_equal_cli(cli, fimdup, corpus):
    out = cli.out("sweep", corpus.path, "--truth", corpus.truth, "--methods", "concept,union-find",
                  "--thresholds", "0.9:0.8:0.1", "--bootstrap", "50", "--bootstrap-seed", "4")
    expected = _ref.read_results_csv(out / "results.csv")
    rows = fimdup.sweep(Path(corpus.path), None, str(corpus.truth), methods=["concept", "union-find"],
                        thresholds="0.9:0.8:0.1", bootstrap=50, bootstrap_seed=4)
    assert "f1_lo" in rows[0] and "f1_hi" in expected[0]
    assert [_ref.comparable_row(r) for r in rows] == [_ref.comparable_row(r) for r in expected]


def test_sweep_returns_the_report_curves(cli, fimdup, corpus):
    out = cli.out("sweep", corpus.path, "--truth", corpus.truth, "--methods", "lsh,exact",
                  "--thresholds", "0.9:0.6:0.1")
    rows = fimdup.sweep(Path(corpus.path), None, str(corpus.truth), methods=["lsh", "exact"],
                        thresholds="0.9:0.6:0.1")
    assert isinstance(rows, fimdup.SweepRows) and len(rows) == 8
    # prcurve.csv: one line per point of every curve, the AP repeated on each
    with open(out / "prcurve.csv", newline="") as f:
        pr = list(csv.DictReader(f))
    assert [c["method"] for c in rows.pr_curves] == ["lsh", "exact"]
    for c in rows.pr_curves:
        mine = [r for r in pr if r["method"] == c["method"]]
        assert len(mine) == len(c["curve"]["points"])
        assert float(mine[0]["average_precision"]) == c["curve"]["average_precision"]
        assert c["threshold"] == min(r["threshold"] for r in rows)
    # scurve.csv: ten bins per run
    with open(out / "scurve.csv", newline="") as f:
        sc = list(csv.DictReader(f))
    assert len(rows.s_curves) == 8 and len(sc) == 80
    for c in rows.s_curves:
        for b, r in zip(c["bins"], [r for r in sc if r["method"] == c["method"]
                                    and float(r["threshold"]) == c["threshold"]]):
            assert (b["pairs"], b["found"], b["edges"]) == (int(r["pairs"]), int(r["found"]), int(r["edges"]))


def test_cv_grid_and_choose_equal_cli(cli, fimdup, clough_dir, tmp_path):
    """`cv`, `cv_choose` and `shingle_lens` give the figures `fimdup sweep --json` prints."""
    import json

    docs = clough_dir / "docs.jsonl"
    pairs = clough_dir / "pairs_vs_source.tsv"
    truth = tmp_path / "truth.csv"
    with open(pairs, newline="", encoding="utf-8") as f, open(truth, "w", newline="") as out:
        w = csv.writer(out)
        w.writerow(["a", "b", "plagiarised"])
        for r in csv.DictReader(f, delimiter="\t"):
            a, b = sorted([r["answer_id"], r["source_id"]])
            w.writerow([a, b, r["plagiarised"]])
    p = cli.run("sweep", docs, "--truth", truth, "--truth-rule", "plagiarised=1", "--labeled-only",
                "--unit", "word", "--shingle-len", "2,3", "--methods", "union-find,exact",
                "--thresholds", "0.5,0.3,0.1", "--errors", "0", "--cv", "5", "--group-by", "task",
                "--cv-choose", "2", "--json", "--out", tmp_path / "cli")
    want = json.loads(p.stdout)
    got = fimdup.sweep(Path(docs), None, str(truth), truth_rule="plagiarised=1", labeled_only=True,
                       unit="word", shingle_lens=[2, 3], methods=["union-find", "exact"],
                       thresholds="0.5,0.3,0.1", errors=0, cv=5, group_by="task", cv_choose=2)
    assert isinstance(got, fimdup.SweepRows) and len(got) == 12
    assert [r["shingle_len"] for r in got] == [2] * 6 + [3] * 6
    assert got.cv == want["cv"]
    assert got.cv["splits"] == 10 and got.cv["choose"] == [2] and got.cv["shingle_lens"] == [2, 3]
    assert [m["method"] for m in got.methods] == [m["method"] for m in want["methods"]]
    # exact on resemblance: every split chooses w = 2 at 0.1 (the grid's edges) and its F1
    # equals the one tuned on its own report-set
    ex = next(m for m in got.cv["methods"] if m["method"] == "exact")
    assert ex["chosen"] == [{"shingle_len": 2, "threshold": 0.1, "splits": 10}]
    assert ex["splits_at_edge"] == 10 and ex["splits_shingle_len_at_edge"] == 10
    assert abs(ex["cv_f1"] - ex["report_tuned_f1"]) < 1e-12
    assert 0.9 < ex["cv_f1"] < 1.0
    assert got.bootstrap is None and got.paired is None
    plain = fimdup.sweep(Path(docs), None, str(truth), truth_rule="plagiarised=1", labeled_only=True,
                         methods=["exact"], thresholds=[0.5], errors=0)
    assert plain.cv is None and "shingle_len" not in plain[0]
