"""Errors are Python exceptions of the contract's classes, with the file and line named."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa
import pytest

TEXTS = [
    "the quick brown fox jumps over the lazy dog again and again",
    "the quick brown fox jumps over the lazy dog again and again today",
    "an entirely different sentence about something else with many words",
    "yet another sentence that has nothing to do with foxes or dogs at all",
]


def names_line(message: str, path, line: int) -> bool:
    rest = message.replace(str(path), " ")
    return re.search(rf"(?<![0-9]){line}(?![0-9])", rest) is not None


def test_exception_classes(fimdup):
    assert issubclass(fimdup.FormatError, ValueError)
    assert issubclass(fimdup.LimitError, RuntimeError)


@pytest.fixture
def bad_jsonl(tmp_path):
    f = tmp_path / "bad corpus.jsonl"
    f.write_text(
        '{"id":"a","text":"one two three four five six seven"}\n'
        '{"id":"b","text":"one two three four five six eight"}\n'
        '{"id":"c","text": oops}\n'
        '{"id":"d","text":"nine ten eleven twelve thirteen fourteen"}\n'
    )
    return f


@pytest.mark.parametrize("call", ["cluster", "sketch", "dedup"])
def test_malformed_jsonl_path_is_format_error(cli, fimdup, bad_jsonl, tmp_path, call):
    # the reference names line 3 too
    p = cli.run("cluster", bad_jsonl, "--out", tmp_path / "o", check=False)
    assert p.returncode == 2 and f"{bad_jsonl}:3:" in p.stderr
    with pytest.raises(fimdup.FormatError) as ei:
        getattr(fimdup, call)(bad_jsonl)
    e = ei.value
    assert isinstance(e, ValueError)
    msg = str(e)
    assert str(bad_jsonl) in msg, msg
    assert names_line(msg, bad_jsonl, 3), msg
    assert e.path is not None and Path(e.path) == bad_jsonl
    assert e.line == 3


def test_duplicate_id_in_file_is_format_error(fimdup, tmp_path):
    f = tmp_path / "dup.jsonl"
    f.write_text(
        '{"id":"a","text":"one two three four five six seven"}\n'
        '{"id":"b","text":"one two three four five six eight"}\n'
        '{"id":"a","text":"nine ten eleven twelve thirteen fourteen"}\n'
    )
    with pytest.raises(ValueError) as ei:
        fimdup.cluster(f)
    assert str(f) in str(ei.value)


def test_missing_corpus_file(fimdup, tmp_path):
    f = tmp_path / "absent.jsonl"
    for call in (fimdup.cluster, fimdup.sketch, fimdup.dedup):
        with pytest.raises((OSError, fimdup.FormatError)) as ei:
            call(f)
        assert str(f) in str(ei.value) or getattr(ei.value, "filename", None) == str(f)


def test_missing_truth_file(fimdup, tmp_path):
    f = tmp_path / "absent-truth.csv"
    with pytest.raises((OSError, fimdup.FormatError)) as ei:
        fimdup.evaluate([("a", "b")], f)
    assert str(f) in str(ei.value) or getattr(ei.value, "filename", None) == str(f)


def test_malformed_truth_file(fimdup, tmp_path):
    f = tmp_path / "truth.csv"
    f.write_text("a,b\nx,y\nd0000\n")
    with pytest.raises(fimdup.FormatError) as ei:
        fimdup.evaluate([("x", "y")], f)
    assert str(f) in str(ei.value)
    assert ei.value.line == 3


@pytest.fixture(scope="module")
def cli_images(cli, corpus):
    d = cli.new_dir("images")
    d.mkdir()
    img = d / "x.img"
    cli.run("sketch", corpus.path, "--out", img)
    return img


@pytest.mark.parametrize("kind", ["truncated", "foreign", "empty", "header-only"])
def test_images_load_bad_file(fimdup, cli_images, tmp_path, kind):
    data = cli_images.read_bytes()
    f = tmp_path / f"{kind}.img"
    f.write_bytes({
        "truncated": data[: len(data) // 2],
        "foreign": b"PAR1 this is not an images file at all\n" * 10,
        "empty": b"",
        "header-only": data[:12],
    }[kind])
    with pytest.raises(fimdup.FormatError) as ei:
        fimdup.Images.load(f)
    assert isinstance(ei.value, ValueError)
    assert str(f) in str(ei.value)
    assert ei.value.path is not None and Path(ei.value.path) == f


def test_images_load_missing(fimdup, tmp_path):
    with pytest.raises((OSError, fimdup.FormatError)):
        fimdup.Images.load(tmp_path / "absent.img")


def test_index_open_missing(fimdup, tmp_path):
    with pytest.raises((OSError, fimdup.FormatError)):
        fimdup.Index(tmp_path / "no-index-here")


@pytest.mark.parametrize("kw", [
    {"threshold": 1.5}, {"threshold": -0.1}, {"method": "nope"}, {"size": 0}, {"scheme": "nope"},
    {"unit": "syllable"}, {"verify": "sloppy"}, {"measure": "nope"}, {"threads": 0},
    {"unit": "char", "stopwords": "english"}, {"method": "concept", "measure": "containment"},
    {"shingle_len": 0},
], ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_bad_cluster_parameters(fimdup, kw):
    with pytest.raises(ValueError):
        fimdup.cluster(TEXTS, **kw)


@pytest.mark.parametrize("kw", [{"size": 0}, {"scheme": "nope"}, {"threads": 0}])
def test_bad_sketch_parameters(fimdup, kw):
    with pytest.raises(ValueError):
        fimdup.sketch(TEXTS, **kw)


@pytest.mark.parametrize("kw", [{"keep": "random"}, {"threshold": 2.0}])
def test_bad_dedup_parameters(fimdup, kw):
    with pytest.raises(ValueError):
        fimdup.dedup(TEXTS, **kw)


def test_bad_threshold_message_is_the_librarys(fimdup):
    with pytest.raises(ValueError) as ei:
        fimdup.cluster(TEXTS, threshold=1.5)
    assert "invalid configuration" in str(ei.value) and "1.5" in str(ei.value)


@pytest.mark.parametrize("call", ["cluster", "sketch", "dedup"])
def test_plain_str_is_type_error(fimdup, call):
    with pytest.raises(TypeError):
        getattr(fimdup, call)("a single string is not a corpus of documents at all")


@pytest.mark.parametrize("bad", [None, 5, b"bytes text here"])
def test_non_str_element_is_type_error_naming_index(fimdup, bad):
    texts = list(TEXTS)
    texts.insert(3, bad)
    with pytest.raises(TypeError) as ei:
        fimdup.cluster(texts)
    assert "texts[3]" in str(ei.value)


def test_unencodable_str_raises_pythons_encode_error(fimdup):
    """A str that is not valid Unicode (a lone surrogate) has no UTF-8 form: the call raises
    Python's own UnicodeEncodeError, as a conversion to Arrow would."""
    texts = list(TEXTS)
    texts[3] = "a lone surrogate \ud800 in the fourth text"
    with pytest.raises(UnicodeEncodeError) as ei:
        fimdup.cluster(texts)
    assert "surrogates not allowed" in str(ei.value)


def test_null_in_arrow_array_is_type_error(fimdup):
    arr = pa.array(TEXTS[:2] + [None] + TEXTS[2:])
    with pytest.raises(TypeError) as ei:
        fimdup.cluster(arr)
    assert "texts[2]" in str(ei.value)


def test_none_element_in_sketch_and_dedup(fimdup):
    for call in (fimdup.sketch, fimdup.dedup):
        with pytest.raises(TypeError) as ei:
            call([TEXTS[0], None])
        assert "texts[1]" in str(ei.value)


def test_repeated_ids_value_error_names_both_positions(fimdup):
    ids = ["p", "q", "dup", "r"]
    ids[3] = "dup"
    with pytest.raises(ValueError) as ei:
        fimdup.cluster(TEXTS, ids)
    msg = str(ei.value)
    assert re.search(r"(?<![0-9])2(?![0-9])", msg) and re.search(r"(?<![0-9])3(?![0-9])", msg), msg
    with pytest.raises(ValueError):
        fimdup.cluster(TEXTS, [10, 11, 10, 12])
    with pytest.raises(ValueError):
        fimdup.sketch(TEXTS, ["a", "a", "b", "c"])


def test_ids_length_mismatch(fimdup):
    with pytest.raises(ValueError):
        fimdup.cluster(TEXTS, ["a", "b", "c"])


def test_ids_of_wrong_type(fimdup):
    with pytest.raises(TypeError):
        fimdup.cluster(TEXTS, [1.5, 2.5, 3.5, 4.5])


def test_ids_with_path_input_refused(fimdup, corpus):
    with pytest.raises((ValueError, TypeError)):
        fimdup.cluster(Path(corpus.path), ["x"] * corpus.n)


def test_max_pairs_limit(fimdup, corpus):
    with pytest.raises(fimdup.LimitError) as ei:
        fimdup.cluster(corpus.texts, corpus.ids, max_pairs=10)
    assert isinstance(ei.value, RuntimeError)
