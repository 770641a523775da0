#!/usr/bin/env bash
# Side-by-side benchmark of fimdup against datasketch, rensa, gaoya (and pyfim with --miner)
# on one generated corpus; writes eval/results/peers.md. See eval/peers/bench.py for what is
# measured and how each peer is called.
#
# Usage: eval/peers/run.sh [--miner] [--out FILE] [--note TEXT]
# Env:   FIMDUP_BIN    a fimdup binary to use (default: cargo build --release, target/release/fimdup)
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

if [ -z "${FIMDUP_BIN:-}" ]; then
  cargo build --release
  FIMDUP_BIN=$ROOT/target/release/fimdup
fi
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 2; }

# the corpus, regenerated only when its params file or the binary's version changes
mkdir -p "$SCRATCH"
STAMP="$(sha256sum eval/peers/corpus.json | cut -d' ' -f1) $("$FIMDUP_BIN" --version)"
CORPUS=$SCRATCH/corpus
if [ ! -f "$CORPUS/stamp" ] || [ "$(cat "$CORPUS/stamp")" != "$STAMP" ]; then
  rm -rf "$CORPUS"
  "$FIMDUP_BIN" gen --config eval/peers/corpus.json --out "$CORPUS"
  echo "$STAMP" > "$CORPUS/stamp"
fi

"$VENV/bin/python" eval/peers/bench.py --bin "$FIMDUP_BIN" --corpus "$CORPUS" \
  --work "$SCRATCH/work" --out "$OUT" ${ARGS[@]+"${ARGS[@]}"}
