#!/usr/bin/env bash
# Multi-process benchmark: `fimdup cluster` as one plain process (1p) against N processes x W
# timely workers on 127.0.0.1 (`--processes N --process P --hosts FILE --workers W`, free ports
# found at run time; any `<n>x<w>`, default 2x1, 4x1 and 1x2 = one process, two workers, no
# network), on the 50k and the 1M generated corpora, methods concept and union-find at
# --threshold 0.8 (both run the divided cluster stage on an uncompressed JSONL corpus). Checks
# that every configuration's outputs equal the 1-process outputs byte for byte (cmp), that
# summary.json's deterministic fields are equal and that no temporary file is left (exit 1
# otherwise), and writes eval/results/dist.md (per configuration: median wall and its ratio to
# 1p, peak RSS per process and the largest over 1p, the mode divided / gathered, bytes per
# document sent per process and received at process 0, bytes and counts per stage, candidate
# pairs, edges and components per document, seconds per stage; a model of 10^9 documents on
# 100 machines from the divided runs' figures; the exact commands) and the raw JSON of every
# run in eval/results/dist/. See eval/dist/bench.py.
#
# Usage: eval/dist/run.sh [--out FILE] [--raw DIR] [--repeat N] [--repeat-large N] [--note TEXT]
#                          [--configs 1p,2x1,4x1,1x2] [--report-only] (see eval/dist/bench.py)
# Env:   FIMDUP_BIN     binary (default: cargo build --release --features full, then
#                       ${CARGO_TARGET_DIR:-target}/release/fimdup)
#        DIST_SIZES     corpus sizes (default: "50000 1000000"); each is
#                       `fimdup gen --config eval/peers/corpus.json --docs N --stream`
#        DIST_METHODS   methods (default: "concept union-find")
#        DIST_SCRATCH   corpora and outputs (default: ${TMPDIR:-/tmp}/fimdup-dist); a corpus is
#                       regenerated only when the binary's version or corpus.json changes
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
SCRATCH=${DIST_SCRATCH:-${TMPDIR:-/tmp}/fimdup-dist}
SIZES=${DIST_SIZES:-"50000 1000000"}
METHODS=${DIST_METHODS:-"concept union-find"}
OUT=eval/results/dist.md
RAW=eval/results/dist
ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT=$2; shift 2 ;;
    --raw) RAW=$2; shift 2 ;;
    *) ARGS+=("$1"); shift ;;
  esac
done

# shellcheck source=eval/common.sh
. eval/common.sh
fimdup_bin
"$FIMDUP_BIN" cluster --help | grep -q -- '--processes' || {
  echo "$FIMDUP_BIN has no --processes flag: build with the 'distributed' feature" >&2; exit 2; }
mkdir -p "$SCRATCH"

log() { echo "[dist $(date -u +%H:%M:%S)] $*" >&2; }
CORPORA=()
for N in $SIZES; do
  C=$SCRATCH/c$N
  stamp="$(sha256sum eval/peers/corpus.json | cut -d' ' -f1) $N $("$FIMDUP_BIN" --version)"
  if [ ! -f "$C/stamp" ] || [ "$(cat "$C/stamp")" != "$stamp" ]; then
    # about 2.2 GB of JSONL per million documents, plus the outputs
    need_kb=$(( N * 3 ))
    avail_kb=$(df --output=avail -k "$SCRATCH" | tail -1)
    [ "$avail_kb" -gt "$need_kb" ] || { echo "needs about $((need_kb / 1024)) MiB free in $SCRATCH for $N documents, $((avail_kb / 1024)) MiB free" >&2; exit 2; }
    log "gen $N documents -> $C"
    rm -rf "$C"
    "$FIMDUP_BIN" gen --config eval/peers/corpus.json --docs "$N" --stream --out "$C"
    echo "$stamp" > "$C/stamp"
  fi
  # into the page cache, so the first timed run does not pay for the disk alone
  cat "$C/docs.jsonl" > /dev/null
  CORPORA+=(--corpus "$C/docs.jsonl")
done

# shellcheck disable=SC2086
python3 eval/dist/bench.py --bin "$FIMDUP_BIN" "${CORPORA[@]}" --methods "${METHODS// /,}" \
  --work "$SCRATCH/work" --out "$OUT" --raw "$RAW" ${ARGS[@]+"${ARGS[@]}"}
