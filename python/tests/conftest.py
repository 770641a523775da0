"""Shared fixtures: the reference CLI binary, the default corpus, and cached CLI runs.

The `fimdup` CLI binary is the reference every result is compared with. It is found via the
environment variable FIMDUP_BIN, else at <repo>/target/release/fimdup. A missing binary or
missing reference data is a failure (with the path in the message), never a skip.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.dont_write_bytecode = True  # nothing written next to the tests

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import _ref  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DEFAULT_DOCS = REPO / "datasets" / "default" / "docs.jsonl"
DEFAULT_TRUTH = REPO / "datasets" / "default" / "truth.csv"
FIMI_DIR = REPO / "datasets" / "fimi"
CLOUGH_DIR = REPO / "datasets" / "clough_stevenson_2011"


def _binary_path() -> Path:
    env = os.environ.get("FIMDUP_BIN")
    return Path(env) if env else REPO / "target" / "release" / "fimdup"


def require_file(path: Path, what: str) -> Path:
    """`path`, which must exist: the data ships in the repository's datasets/, so a missing
    file is a broken checkout and a failure naming it."""
    if not path.exists():
        pytest.fail(f"{what} is missing: {path} (it ships in the repository's datasets/)", pytrace=False)
    return path


class Cli:
    """Runs the reference CLI in a temporary directory; caches outputs by argument list."""

    def __init__(self, binary: Path, workdir: Path):
        self.binary = binary
        self.workdir = workdir
        self._cache: dict = {}
        self._n = 0

    def run(self, *args, check=True, input=None) -> subprocess.CompletedProcess:
        cmd = [str(self.binary), *[str(a) for a in args]]
        p = subprocess.run(cmd, cwd=self.workdir, capture_output=True, text=True, input=input)
        if check and p.returncode != 0:
            raise AssertionError(f"reference CLI failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
        return p

    def new_dir(self, stem: str) -> Path:
        self._n += 1
        d = self.workdir / f"{stem}-{self._n}"
        return d

    def out(self, command: str, *args) -> Path:
        """`fimdup COMMAND ARGS --out DIR` (cached): returns DIR."""
        key = (command, *map(str, args))
        if key not in self._cache:
            d = self.new_dir(command)
            self.run(command, *args, "--out", d)
            self._cache[key] = d
        return self._cache[key]

    def cluster(self, *args, docs=DEFAULT_DOCS) -> Path:
        return self.out("cluster", docs, *args)

    def dedup(self, *args, docs=DEFAULT_DOCS) -> Path:
        return self.out("dedup", docs, *args)

    def json(self, *args) -> dict:
        key = ("json", *map(str, args))
        if key not in self._cache:
            self._cache[key] = json.loads(self.run(*args).stdout)
        return self._cache[key]


@pytest.fixture(scope="session")
def fimdup_bin() -> Path:
    p = _binary_path()
    if not p.is_file() or not os.access(p, os.X_OK):
        src = "FIMDUP_BIN" if os.environ.get("FIMDUP_BIN") else "the default location"
        pytest.fail(
            f"the reference fimdup CLI binary is missing or not executable: {p} (from {src}); "
            "build it with `cargo build --release --features full` in the repository or set FIMDUP_BIN",
            pytrace=False,
        )
    return p


@pytest.fixture(scope="session")
def cli(fimdup_bin, tmp_path_factory) -> Cli:
    return Cli(fimdup_bin, tmp_path_factory.mktemp("cli"))


class Corpus:
    def __init__(self, path: Path, truth: Path):
        self.path = path
        self.truth = truth
        self.texts, self.ids = _ref.read_corpus(path)
        self.n = len(self.texts)


@pytest.fixture(scope="session")
def corpus() -> Corpus:
    require_file(DEFAULT_DOCS, "the default corpus")
    require_file(DEFAULT_TRUTH, "the default truth")
    c = Corpus(DEFAULT_DOCS, DEFAULT_TRUTH)
    assert c.n == 1500 and len(set(c.ids)) == c.n
    return c


@pytest.fixture(scope="session")
def fimi_dir() -> Path:
    require_file(FIMI_DIR / "reference_counts.csv", "the FIMI reference counts")
    return FIMI_DIR


@pytest.fixture(scope="session")
def clough_dir() -> Path:
    require_file(CLOUGH_DIR / "docs.jsonl", "the Clough & Stevenson corpus")
    require_file(CLOUGH_DIR / "pairs_vs_source.tsv", "the Clough & Stevenson labels")
    return CLOUGH_DIR


@pytest.fixture(scope="session")
def fimdup():
    """The package under test (an import failure is an error, not a skip)."""
    import fimdup as m

    return m


@pytest.fixture(scope="session")
def py_cluster(fimdup, corpus):
    """fimdup.cluster on the in-memory default corpus, cached by keyword arguments."""
    cache: dict = {}

    def get(**kw):
        key = tuple(sorted(kw.items()))
        if key not in cache:
            cache[key] = fimdup.cluster(corpus.texts, corpus.ids, **kw)
        return cache[key]

    return get
