#!/usr/bin/env bash
# fimdup's simhash against gaoya's SimHashStringIndex on the peers corpus (eval/peers/corpus.json,
# 50,000 generated documents), in one run; writes eval/results/simhash.md. See bench.py.
#
# Usage: eval/simhash/run.sh [--repeat N] [--out FILE]
# Env:   FIMDUP_BIN    a fimdup binary (default: cargo build --release --features full)
#        PEERS_VENV    the virtual environment (default: ${TMPDIR:-/tmp}/fimdup-peers-venv)
#        PEERS_SCRATCH corpus and outputs (default: ${TMPDIR:-/tmp}/fimdup-peers)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
VENV=${PEERS_VENV:-${TMPDIR:-/tmp}/fimdup-peers-venv}
SCRATCH=${PEERS_SCRATCH:-${TMPDIR:-/tmp}/fimdup-peers}
OUT=eval/results/simhash.md
ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT=$2; shift 2 ;;
    *) ARGS+=("$1"); shift ;;
  esac
done
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install -q gaoya==0.2.2 "numpy>=2"

# shellcheck source=eval/common.sh
. eval/common.sh
fimdup_bin
peers_corpus

"$VENV/bin/python" eval/simhash/bench.py --bin "$FIMDUP_BIN" --corpus "$CORPUS" \
  --work "$SCRATCH/simhash" --out "$OUT" ${ARGS[@]+"${ARGS[@]}"}
