"""Every example in the package's docstrings holds (doctest)."""

from __future__ import annotations

import doctest


def test_docstring_examples(fimdup, tmp_path):
    res = doctest.testmod(fimdup, extraglobs={"fimdup": fimdup, "tmp": tmp_path}, verbose=False)
    assert res.attempted >= 15, res
    assert res.failed == 0, res


def test_build_commit_is_recorded(fimdup, cli):
    import re

    h = fimdup.__git_hash__
    assert h == "unknown" or re.fullmatch(r"[0-9a-f]{12}", h), h
    # The CLI binary names its own commit the same way.
    v = cli.run("--version").stdout.strip()
    assert re.fullmatch(r"fimdup \S+ \(git ([0-9a-f]{12}|unknown)\)", v), v
