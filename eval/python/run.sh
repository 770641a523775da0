#!/usr/bin/env bash
# Benchmark of the fimdup Python package against datasketch, rensa (MinHash LSH dedup on the
# peers corpus) and pyfim (maximal itemsets on chess and retail), all in one Python process;
# writes eval/results/python.md. See eval/python/bench.py for what is measured.
#
# Usage: eval/python/run.sh [--out FILE] [bench.py options: --limit N, --repeat N,
#                           --peer-repeat N, --mine chess:959,..., --skip ..., --note TEXT]
# Env:   PY_VENV       the virtual environment (default: ${TMPDIR:-/tmp}/fimdup-py-venv); made
#                      when missing; the pinned peers and the package (`pip install ./python`)
#                      are installed into it
#        FIMDUP_BIN    a fimdup binary for the corpus generator and the CLI reference row
#                      (default: cargo build --release --features full, target/release/fimdup)
#        PEERS_SCRATCH where the peers corpus lives (default: ${TMPDIR:-/tmp}/fimdup-peers, shared
#                      with eval/peers/run.sh; regenerated when its stamp does not match)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
VENV=${PY_VENV:-${TMPDIR:-/tmp}/fimdup-py-venv}
SCRATCH=${PEERS_SCRATCH:-${TMPDIR:-/tmp}/fimdup-peers}
OUT=eval/results/python.md
ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT=$2; shift 2 ;;
    *) ARGS+=("$1"); shift ;;
  esac
done

# the command line recorded in the report (with the environment that changes what runs)
CMD="bash eval/python/run.sh"
for a in ${ARGS[@]+"${ARGS[@]}"}; do CMD+=" $(printf '%q' "$a")"; done
[ "$OUT" = eval/results/python.md ] || CMD+=" --out $OUT"
ENVS=""
[ -z "${PY_VENV:-}" ] || ENVS+="PY_VENV=$PY_VENV "
[ -z "${FIMDUP_BIN:-}" ] || ENVS+="FIMDUP_BIN=$FIMDUP_BIN "
[ -z "${PEERS_SCRATCH:-}" ] || ENVS+="PEERS_SCRATCH=$PEERS_SCRATCH "
CMD="$ENVS$CMD"

# pinned peer versions
PKGS="datasketch==2.0.0 rensa==0.5.0 pyfim==6.28 numpy pyarrow==26.0.1 pandas"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
# shellcheck disable=SC2086
"$VENV/bin/pip" install -q $PKGS
"$VENV/bin/pip" install -q ./python

# shellcheck source=eval/common.sh
. eval/common.sh
fimdup_bin
peers_corpus

"$VENV/bin/python" eval/python/bench.py --bin "$FIMDUP_BIN" --corpus "$CORPUS" \
  --work "$SCRATCH/python" --out "$OUT" --command "$CMD" ${ARGS[@]+"${ARGS[@]}"}
