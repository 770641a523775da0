"""Every keyword default of the package is the library's (``_fimdup.defaults()``, built from
the library's configurations, the same the command's flags read), and a call without
options makes what the command makes without flags."""

from __future__ import annotations

import inspect
import json
import pydoc
import re

import pytest

# The groups of _fimdup.defaults() each public call takes its keywords from, the most
# specific first.
GROUPS = {
    "sketch": ["pipeline", "corpus"],
    "cluster": ["job", "method", "pipeline", "corpus"],
    "dedup": ["dedup", "job", "method", "pipeline", "corpus"],
    "evaluate": ["eval", "truth"],
    "sweep": ["sweep", "truth", "pipeline", "corpus"],
    "report": ["sweep", "truth", "pipeline", "corpus"],
    "mine": ["mine"],
    "Index.build": ["index", "pipeline", "corpus"],
    "Index.add": ["corpus"],
    "Index.query": ["query"],
}

# Keywords that are no library option: what a call is given besides its options (None:
# absent), where temporary files go, and which library call an add is (`batch`: the
# batch add, as `index add --batch` picks it; absent: a full sweep).
PACKAGE_OWN = {"ids", "keys", "tag", "tmp_dir", "threads", "batch"}


def _calls(fimdup):
    for name in GROUPS:
        obj = fimdup
        for part in name.split("."):
            obj = getattr(obj, part)
        yield name, obj


def test_every_keyword_default_is_the_library_default(fimdup):
    d = fimdup._fimdup.defaults()
    checked = 0
    for name, fn in _calls(fimdup):
        for p in inspect.signature(fn).parameters.values():
            if p.default is inspect.Parameter.empty:
                continue
            group = next((g for g in GROUPS[name] if p.name in d[g]), None)
            if group is None:
                assert p.name in PACKAGE_OWN, f"{name}({p.name}=...) is no library option"
                assert p.default is None, f"{name}({p.name}={p.default!r}) states a default of its own"
                continue
            want = d[group][p.name]
            got = list(p.default) if isinstance(p.default, tuple) else p.default
            assert got == want, f"{name}({p.name}={p.default!r}): the library's {group}.{p.name} is {want!r}"
            checked += 1
    assert checked > 100, checked


def test_the_keywords_handed_over_are_the_library_options(fimdup):
    """The keywords cluster and sketch pass by name are exactly the fields of the library's
    named options (unknown names are refused there)."""
    d = fimdup._fimdup.defaults()
    for g in ("pipeline", "job", "method"):
        assert set(d[g]) <= set(inspect.signature(fimdup.cluster).parameters), g
    assert set(d["pipeline"]) <= set(inspect.signature(fimdup.sketch).parameters)
    assert set(d["eval"]) <= set(inspect.signature(fimdup.evaluate).parameters)
    assert set(d["sweep"]) <= set(inspect.signature(fimdup.sweep).parameters)


def _shown(text, key, value):
    """Whether help's signature shows `key: <annotation> = <value>`."""
    return re.search(rf"\b{key}: [^=,]+ = {re.escape(repr(value))}[,)]", text) is not None


def test_help_states_the_default_values(fimdup):
    d = fimdup.defaults()
    text = pydoc.render_doc(fimdup.cluster, renderer=pydoc.plaintext)
    for key in ("max_pairs", "method"):
        assert _shown(text, key, d["job"][key]), key
    for key in ("max_itemsets", "fn_weight", "grouping", "bits"):
        assert _shown(text, key, d["method"][key]), key
    for key in ("size", "modulus", "unit", "tokenizer", "lang"):
        assert _shown(text, key, d["pipeline"][key]), key
    text = pydoc.render_doc(fimdup.evaluate, renderer=pydoc.plaintext)
    assert _shown(text, "truth_tokenizer", d["eval"]["truth_tokenizer"])
    assert _shown(text, "examples", d["eval"]["examples"])


def test_defaults_is_a_fresh_copy(fimdup):
    a = fimdup.defaults()
    a["job"]["max_pairs"] = 1
    assert fimdup.defaults()["job"]["max_pairs"] != 1
    assert fimdup.cluster.__kwdefaults__["max_pairs"] != 1


def test_the_default_images_are_the_command_s(cli, fimdup, corpus, tmp_path):
    """No options on either side: the package's images carry the parameters (text,
    shingles, scheme, size, seed) of the command's."""
    out = tmp_path / "cli.img"
    cli.run("sketch", corpus.path, "--out", out)
    assert fimdup.sketch(corpus.texts[:50], corpus.ids[:50]).params == fimdup.Images.load(out).params


def test_the_default_index_is_the_command_s(cli, fimdup, corpus, tmp_path):
    d = cli.new_dir("index-defaults")
    cli.run("index", "build", corpus.path, "--out", d)
    ours = fimdup.Index.build(tmp_path / "idx", corpus.texts, corpus.ids)
    theirs = fimdup.Index(d)
    a, b = ours._n.info(), theirs._n.info()
    assert json.loads(a.pop("params")) == json.loads(b.pop("params"))
    assert a == b


def test_a_job_without_options_is_the_command_s(cli, fimdup, corpus, py_cluster):
    """Every default of a clustering job as the command's summary states it."""
    expected = json.loads((cli.cluster() / "summary.json").read_text())
    got = py_cluster().summary
    for k in ("method", "threshold", "measure", "k", "k_rule", "max_df", "pairs", "clusters"):
        if k in expected:
            assert got.get(k) == expected[k], k


@pytest.mark.parametrize("bad", [{"keep": "middle"}, {"truth_tokenizer": "words"}])
def test_bad_values_are_the_library_s_errors(fimdup, corpus, bad):
    with pytest.raises(ValueError):
        if "keep" in bad:
            fimdup.dedup(corpus.texts[:5], **bad)
        else:
            fimdup.evaluate([("a", "b")], [("a", "b")], corpus=corpus.path, **bad)
