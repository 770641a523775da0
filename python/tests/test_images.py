"""fimdup.sketch / Images: arrays, save -> CLI, CLI images file -> Images.load."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import _ref


@pytest.fixture(scope="module")
def images(fimdup, corpus):
    return fimdup.sketch(corpus.texts, corpus.ids)


@pytest.fixture(scope="module")
def cli_img(cli, corpus):
    def make(*args):
        d = cli.new_dir("sketch")
        d.mkdir()
        f = d / "x.img"
        cli.run("sketch", corpus.path, *args, "--out", f)
        return f

    return make


def test_shapes_and_dtypes(images, corpus):
    n = corpus.n
    assert len(images) == n
    assert images.ids == corpus.ids
    lengths = images.lengths
    assert isinstance(lengths, np.ndarray) and lengths.dtype == np.uint32 and lengths.shape == (n,)
    arr = images.to_numpy()
    assert isinstance(arr, np.ndarray) and arr.dtype == np.uint64 and arr.shape == (n, 128)
    assert lengths.max() == 128 and lengths.min() >= 1
    assert isinstance(images.params, dict) and images.params


def test_elements_match_cli_context(cli, images, cli_img):
    """`fimdup context --orientation doc-rows --min-df 1` lists each document's image elements
    (renumbered): same count per document, same overlaps between documents."""
    d = cli.new_dir("context")
    d.mkdir()
    ctx = d / "ctx.dat"
    cli.run("context", cli_img(), "--orientation", "doc-rows", "--min-df", "1", "--out", ctx)
    rows = [set(map(int, line.split())) for line in ctx.read_text().splitlines()]
    assert len(rows) == len(images)
    assert [len(r) for r in rows] == images.lengths.tolist()
    ours = [set(images[i].tolist()) for i in range(len(images))]
    # near-duplicates share elements: check overlaps over a window that holds some
    for i in range(0, 1500, 7):
        for j in (280, 487, 740, 945, 1192, i + 1, i + 3):
            if j < len(images) and j != i:
                assert len(rows[i] & rows[j]) == len(ours[i] & ours[j]), (i, j)
    assert len(ours[0] & ours[280]) > 100  # d0000 ~ d0280 in the truth


def test_rows_and_items(images):
    arr = images.to_numpy()
    lengths = images.lengths
    for i in range(0, len(images), 37):
        row = images[i]
        assert isinstance(row, np.ndarray) and row.dtype == np.uint64
        assert row.shape == (int(lengths[i]),)
        assert np.array_equal(arr[i, : lengths[i]], row)
        assert not arr[i, lengths[i]:].any()
    # bottom-k images are sets of distinct hashes
    assert len(set(images[0].tolist())) == int(lengths[0])


def test_short_documents_lengths(fimdup):
    """A 10-word document has 6 word 5-shingles: a bottom-k image of 6 elements padded with 0."""
    words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet".split()
    texts = [" ".join(words), " ".join(words[:5]), " ".join(words * 30)]
    sk = fimdup.sketch(texts, size=16)
    assert sk.lengths.tolist()[:2] == [6, 1]
    assert sk.lengths[2] == 10  # the repeated text has 10 distinct shingles
    arr = sk.to_numpy()
    assert arr.shape == (3, 16)
    assert not arr[0, 6:].any() and np.count_nonzero(arr[0, :6]) == 6
    # the third text holds every shingle of the first two
    assert set(sk[0].tolist()) <= set(sk[2].tolist())


def test_load_cli_images_equals_sketch(fimdup, images, cli_img):
    f = cli_img()
    loaded = fimdup.Images.load(f)
    assert len(loaded) == len(images)
    assert loaded.ids == images.ids
    assert np.array_equal(loaded.lengths, images.lengths)
    assert np.array_equal(loaded.to_numpy(), images.to_numpy())
    assert np.array_equal(fimdup.Images.load(str(f)).to_numpy(), images.to_numpy())


@pytest.mark.parametrize("args,kw", [
    (["--scheme", "k-mins", "--size", "64"], {"scheme": "k-mins", "size": 64}),
    (["--scheme", "mod-m", "--modulus", "7"], {"scheme": "mod-m", "modulus": 7}),
    (["--unit", "char", "--seed", "9"], {"unit": "char", "seed": 9}),
], ids=["k-mins-64", "mod-m-7", "char-seed9"])
def test_load_cli_images_other_schemes(fimdup, corpus, cli_img, args, kw):
    loaded = fimdup.Images.load(cli_img(*args))
    sk = fimdup.sketch(corpus.texts, corpus.ids, **kw)
    assert loaded.ids == sk.ids
    assert np.array_equal(loaded.lengths, sk.lengths)
    assert np.array_equal(loaded.to_numpy(), sk.to_numpy())
    if kw.get("scheme") == "k-mins":
        assert sk.to_numpy().shape == (corpus.n, 64)
        assert (sk.lengths == 64).all()


def test_sketch_path_input_equals_cli_file(fimdup, corpus, cli_img):
    loaded = fimdup.Images.load(cli_img())
    sk = fimdup.sketch(Path(corpus.path))
    assert sk.ids == loaded.ids
    assert np.array_equal(sk.to_numpy(), loaded.to_numpy())


@pytest.mark.parametrize("method", ["concept", "union-find"])
def test_saved_images_read_by_cli(cli, fimdup, corpus, images, tmp_path, method, py_cluster):
    f = tmp_path / "saved.img"
    images.save(f)
    out = cli.out("cluster", f, "--method", method)
    res = py_cluster(method=method)
    assert _ref.read_clusters_jsonl(out / "clusters.jsonl") == res.clusters
    assert _ref.read_pairs_csv(out / "pairs.csv") == res.pairs.to_pylist()
    assert len(res.clusters) > 20


def test_saved_kmins_images_read_by_cli_lsh(cli, fimdup, corpus, tmp_path):
    sk = fimdup.sketch(corpus.texts, corpus.ids, scheme="k-mins")
    f = tmp_path / "kmins.img"
    sk.save(str(f))
    out = cli.out("cluster", f, "--method", "lsh")
    res = fimdup.cluster(corpus.texts, corpus.ids, method="lsh")
    assert _ref.read_clusters_jsonl(out / "clusters.jsonl") == res.clusters
    assert _ref.read_pairs_csv(out / "pairs.csv") == res.pairs.to_pylist()


def test_saved_images_equal_cli_sketch_clusters(cli, images, cli_img, tmp_path):
    """The saved file and the CLI's own images file cluster identically under the CLI."""
    f = tmp_path / "saved.img"
    images.save(f)
    a = cli.out("cluster", f, "--method", "concept")
    b = cli.out("cluster", cli_img(), "--method", "concept")
    assert (a / "clusters.jsonl").read_bytes() == (b / "clusters.jsonl").read_bytes()
    assert (a / "pairs.csv").read_bytes() == (b / "pairs.csv").read_bytes()


def test_save_load_roundtrip_int_ids(fimdup, corpus, tmp_path):
    sk = fimdup.sketch(corpus.texts[:200])
    f = tmp_path / "ints.img"
    sk.save(f)
    back = fimdup.Images.load(f)
    assert np.array_equal(back.to_numpy(), sk.to_numpy())
    assert np.array_equal(back.lengths, sk.lengths)
    assert len(back) == 200
    # an images file stores external ids as text (as the CLI's do)
    assert [str(i) for i in back.ids] == [str(i) for i in range(200)]
