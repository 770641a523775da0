"""Every example in the package's docstrings holds (doctest)."""

from __future__ import annotations

import doctest


def test_docstring_examples(fimdup, tmp_path):
    res = doctest.testmod(fimdup, extraglobs={"fimdup": fimdup, "tmp": tmp_path}, verbose=False)
    assert res.attempted >= 15, res
    assert res.failed == 0, res
