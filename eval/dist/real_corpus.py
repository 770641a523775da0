#!/usr/bin/env python3
"""A real corpus for the multi-process benchmark: source files as JSONL.

Every file under the given roots whose name ends with one of --ext, smaller than --max-bytes,
becomes one document {"id": path relative to its root's parent, "text": its contents} (UTF-8,
undecodable bytes replaced), in sorted path order, so the same roots give the same bytes.

The default roots are the standard libraries of every CPython that pyenv installed
(~/.pyenv/versions/*/lib/python*, site-packages left out) and the crate sources in cargo's
registry (~/.cargo/registry/src): the same modules in several versions (os.py of 2.7 and
of 3.6 .. 3.13; hashbrown 0.15 and 0.17) are real near-duplicates of every degree, next to
unrelated files. `pyenv install 2.7.18 3.6.15 ... 3.13.0` and a cargo build of any project
make one on another machine.

Usage: eval/dist/real_corpus.py OUT.jsonl [--root DIR]... [--ext .py --ext .rs] [--max-bytes N]

eval/results/dist-real.md was made from it with
  eval/dist/real_corpus.py /tmp/real/docs.jsonl
  awk 'NR%2==1' /tmp/real/docs.jsonl > /tmp/real/half.jsonl
  python3 eval/dist/bench.py --bin target/release/fimdup --corpus /tmp/real/half.jsonl \
    --corpus /tmp/real/docs.jsonl --methods concept,union-find,lsh \
    --configs 1p,2x1,4x1,4x1-prefix --repeat 1 --work /tmp/real/work \
    --out eval/results/dist-real.md --raw eval/results/dist-real --corpus-note "..."
(the half corpus gives the model the growth of the largest component and the hottest row)
"""
import argparse
import glob
import json
import os
import sys


def default_roots():
    home = os.path.expanduser("~")
    roots = sorted(glob.glob(os.path.join(home, ".pyenv/versions/*/lib/python*")))
    roots += sorted(glob.glob(os.path.join(home, ".cargo/registry/src/*")))
    return [r for r in roots if os.path.isdir(r)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--root", action="append")
    ap.add_argument("--ext", action="append")
    ap.add_argument("--max-bytes", type=int, default=1 << 20)
    a = ap.parse_args()
    roots = a.root or default_roots()
    exts = tuple(a.ext or [".py", ".rs"])
    if not roots:
        sys.exit("real_corpus.py: no roots (none given, no pyenv or cargo registry found)")
    paths = []
    for root in roots:
        base = os.path.dirname(os.path.abspath(root))
        for d, dirs, files in os.walk(root):
            dirs[:] = sorted(x for x in dirs if x != "site-packages")
            for f in files:
                p = os.path.join(d, f)
                if f.endswith(exts) and os.path.isfile(p) and os.path.getsize(p) <= a.max_bytes:
                    paths.append((os.path.relpath(p, base), p))
    paths.sort()
    n = 0
    with open(a.out, "w", encoding="utf-8") as out:
        for rel, p in paths:
            with open(p, "rb") as f:
                text = f.read().decode("utf-8", errors="replace")
            out.write(json.dumps({"id": rel, "text": text}, ensure_ascii=False) + "\n")
            n += 1
    print(f"{a.out}: {n} documents from {len(roots)} roots", file=sys.stderr)


if __name__ == "__main__":
    main()
