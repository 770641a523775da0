#!/usr/bin/env bash
# Runs one fimdup command as N processes x W workers on 127.0.0.1 with a shared --out OUTDIR,
# each process under /usr/bin/time -v (OUTDIR.logs/time.P; stdout/stderr in out.P/err.P).
# A divided run leaves its parts in OUTDIR (clusters.part-00000.jsonl, ...).
# Usage: eval/dist/parts.sh BIN N W OUTDIR -- ARGS...   (ports: random in 20000-39999)
set -u
BIN=$1; N=$2; W=$3; OUT=$4; shift 5
LOGS=$OUT.logs; rm -rf "$OUT" "$LOGS"; mkdir -p "$LOGS"
base=$((20000 + RANDOM % 20000))
: > "$LOGS/hosts"
for p in $(seq 0 $((N-1))); do echo "127.0.0.1:$((base+p))" >> "$LOGS/hosts"; done
pids=()
for p in $(seq 0 $((N-1))); do
  if [ "$N" -gt 1 ]; then L=(--processes "$N" --process "$p" --hosts "$LOGS/hosts" --workers "$W"); else L=(--processes 1 --workers "$W"); fi
  /usr/bin/time -v -o "$LOGS/time.$p" "$BIN" "$@" --out "$OUT" "${L[@]}" > "$LOGS/out.$p" 2> "$LOGS/err.$p" &
  pids+=($!)
done
rc=0; for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
exit $rc
