#!/usr/bin/env bash
# Side-by-side benchmark of `fimdup dedup` against text-dedup's MinHash dedup on the peers
# benchmark's generated corpus (eval/peers/corpus.json), JSONL and Parquet input; writes
# eval/results/dedup.md. See eval/dedup/bench.py for what is measured and how each tool is called.
#
# Usage: eval/dedup/run.sh [--out FILE] [--note TEXT] [--repeat N] [--tools fimdup,text-dedup]
# Env:   FIMDUP_BIN     a fimdup binary to use (default: cargo build --release --features full, target/release/fimdup)
#        DEDUP_VENV     the virtual environment (default: ${TMPDIR:-/tmp}/fimdup-dedup-venv)
#        DEDUP_SCRATCH  corpus, truth cache, Parquet copy and outputs (default: ${TMPDIR:-/tmp}/fimdup-dedup)
#        DEDUP_PYTHON   the interpreter the venv is made with; text-dedup 0.4.x needs Python >= 3.12
#                       (default: the first of python3.12, python3.13, pyenv's 3.12+ that runs)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
VENV=${DEDUP_VENV:-${TMPDIR:-/tmp}/fimdup-dedup-venv}
SCRATCH=${DEDUP_SCRATCH:-${TMPDIR:-/tmp}/fimdup-dedup}
OUT=eval/results/dedup.md
ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT=$2; shift 2 ;;
    *) ARGS+=("$1"); shift ;;
  esac
done

# pinned versions: text-dedup and the libraries its MinHash path runs on (datasets, polars,
# pyarrow), so a rerun resolves the same stack
PINS="text-dedup==0.4.1 datasets==5.2.0 polars==1.44.2 polars-grouper==0.6.1 pyarrow==26.0.1 numpy==2.5.5 scipy==1.18.1"
if [ ! -x "$VENV/bin/python" ]; then
  PY=${DEDUP_PYTHON:-}
  if [ -z "$PY" ]; then
    # on PATH, or installed by pyenv but not selected
    for c in python3.12 python3.13 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3; do
      if "$c" -c 'import sys; assert sys.version_info >= (3, 12)' 2>/dev/null; then PY=$c; break; fi
    done
  fi
  [ -n "$PY" ] || { echo "text-dedup 0.4.x needs Python >= 3.12: set DEDUP_PYTHON" >&2; exit 2; }
  "$PY" -m venv "$VENV"
fi
# shellcheck disable=SC2086
"$VENV/bin/pip" install -q $PINS

# shellcheck source=eval/common.sh
. eval/common.sh
fimdup_bin
peers_corpus

"$VENV/bin/python" eval/dedup/bench.py --bin "$FIMDUP_BIN" --corpus "$CORPUS" \
  --work "$SCRATCH/work" --out "$OUT" ${ARGS[@]+"${ARGS[@]}"}
