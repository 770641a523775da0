#!/usr/bin/env bash
# Side-by-side benchmark of fimdup against datasketch, rensa, gaoya (and pyfim with --miner)
# on one generated corpus; writes eval/results/peers.md. See eval/peers/bench.py for what is
# measured and how each peer is called.
#
# Usage: eval/peers/run.sh [--miner] [--out FILE] [--note TEXT]
# Env:   FIMDUP_BIN    a fimdup binary to use (default: cargo build --release --features full, target/release/fimdup)
#        PEERS_VENV    the virtual environment (default: ${TMPDIR:-/tmp}/fimdup-peers-venv)
#        PEERS_SCRATCH corpus, truth cache and outputs (default: ${TMPDIR:-/tmp}/fimdup-peers)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
VENV=${PEERS_VENV:-${TMPDIR:-/tmp}/fimdup-peers-venv}
SCRATCH=${PEERS_SCRATCH:-${TMPDIR:-/tmp}/fimdup-peers}
OUT=eval/results/peers.md
ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT=$2; shift 2 ;;
    *) ARGS+=("$1"); shift ;;
  esac
done

# pinned peer versions
PEERS="datasketch==2.0.0 rensa==0.5.0 gaoya==0.2.2 pyfim==6.28"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
# shellcheck disable=SC2086
"$VENV/bin/pip" install -q $PEERS

# shellcheck source=eval/common.sh
. eval/common.sh
fimdup_bin
peers_corpus

"$VENV/bin/python" eval/peers/bench.py --bin "$FIMDUP_BIN" --corpus "$CORPUS" \
  --work "$SCRATCH/work" --out "$OUT" ${ARGS[@]+"${ARGS[@]}"}
