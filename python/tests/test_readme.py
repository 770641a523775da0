"""The README's "From Python" example runs as written (its outputs redirected to a temporary
directory), and the values its comments state are what it computes."""

from __future__ import annotations

import os
import re

from conftest import FIMI_DIR, REPO, require_file


def readme_block() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## From Python") :]
    m = re.search(r"```python\n(.*?)```", section, re.S)
    assert m, "no python block in the README's From Python section"
    return m.group(1)


def test_readme_example_runs_and_its_comments_hold(fimdup, tmp_path, monkeypatch):
    require_file(FIMI_DIR / "chess.dat.gz", "the FIMI chess data set")
    code = readme_block().replace('"out/', f'"{tmp_path}/')
    assert str(tmp_path) in code  # every output goes to the temporary directory
    monkeypatch.chdir(REPO)
    env: dict = {}
    exec(compile(code, "README.md (From Python)", "exec"), env)
    r, d, ev, idx = env["r"], env["d"], env["ev"], env["idx"]
    assert r.summary["pairs"] == 334
    assert r.clusters[0] == ["d0030", "d0730", "d1015", "d1031", "d1364"]
    assert ev["precision"] == 1.0 and str(ev["recall"]).startswith("0.2551")
    assert int(d.keep_mask.sum()) == 1253
    assert len(fimdup.mine(REPO / "datasets/fimi/chess.dat.gz", 0.6)) == 3323
    assert (tmp_path / "py-report" / "report.html").is_file()
    assert len(idx) == 1500 and os.path.isdir(tmp_path / "py-index")
