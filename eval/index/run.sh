#!/usr/bin/env bash
# Measures the index at scale (eval/results/index.md): `index build` of the 1M corpus,
# `index add` of 100k new documents to it (a full sweep, then a batch), a batch of 100k at
# 2M (ADD_2M=1), each under
# /usr/bin/time -v, and the single-query latency of `cargo bench --bench index` at 1M
# (BENCH=1).
#
#   BIN=target/release/fimdup LABEL=after eval/index/run.sh
#
# Env: BIN (the fimdup binary), LABEL (names the output), CORPUS (1M JSONL, default
# /work/scratch/big/docs.jsonl), WORK (scratch directory, removed at the end; needs about
# 3 GB, 8 GB with ADD_2M=1), OUT (where the .time files and the summary go, default
# eval/results/index-raw).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-target/release/fimdup}
LABEL=${LABEL:-$(basename "$BIN")}
CORPUS=${CORPUS:-/work/scratch/big/docs.jsonl}
WORK=${WORK:-/tmp/fimdup-index-eval-$LABEL}
OUT=${OUT:-eval/results/index-raw}
GEN=${GEN:-target/release/fimdup}
mkdir -p "$OUT"
rm -rf "$WORK"
mkdir -p "$WORK"

# A batch of N generated documents with ids PREFIX-... (unique against the corpus' d...).
batch() { # N SEED PREFIX
  "$GEN" gen --config eval/peers/corpus.json --docs "$1" --seed "$2" --out "$WORK/gen-$3" >/dev/null
  sed "s/\"id\":\"d/\"id\":\"$3-/" "$WORK/gen-$3/docs.jsonl" >"$WORK/$3.jsonl"
  rm -rf "$WORK/gen-$3"
}

# Runs a command under /usr/bin/time -v; prints "name  seconds  MiB".
timed() { # NAME CMD...
  local name=$1
  shift
  /usr/bin/time -v "$@" >"$OUT/$LABEL-$name.stdout" 2>"$OUT/$LABEL-$name.time"
  local s m
  s=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); t=0; for(i=1;i<=n;i++) t=t*60+a[i]; print t}' "$OUT/$LABEL-$name.time")
  m=$(awk -F': ' '/Maximum resident set size/ {printf "%d", $2/1024}' "$OUT/$LABEL-$name.time")
  printf '%s\t%s\t%s s\t%s MiB\n' "$LABEL" "$name" "$s" "$m" | tee -a "$OUT/summary.tsv"
}

batch 100000 46001 b1
timed build-1M "$BIN" index build "$CORPUS" --out "$WORK/idx" --tag s0 --json
du -sh "$WORK/idx" | tee "$OUT/$LABEL-size-1M.txt"
# A full sweep of 100k new pages: every indexed document is lost (and queried for where it
# went); the summary is the last line of the .time file (no --json: the report lists them).
cp -al "$WORK/idx" "$WORK/idx-full"
timed add-100k-at-1M "$BIN" index add "$WORK/idx-full" "$WORK/b1.jsonl" --tag s1
rm -rf "$WORK/idx-full"
# The same 100k as a batch of new pages (BATCH=0 for a binary without --batch).
if [ "${BATCH:-1}" = 1 ]; then
  timed batch-add-100k-at-1M "$BIN" index add "$WORK/idx" "$WORK/b1.jsonl" --tag s1 --batch
else
  timed dedup-add-100k-at-1M "$BIN" dedup "$WORK/b1.jsonl" --against "$WORK/idx" --add --out "$WORK/dd"
fi
if [ "${ADD_2M:-0}" = 1 ]; then
  batch 900000 46002 b2
  timed batch-add-900k-at-1.1M "$BIN" index add "$WORK/idx" "$WORK/b2.jsonl" --tag s2 --batch
  rm -f "$WORK/b2.jsonl"
  batch 100000 46003 b3
  timed batch-add-100k-at-2M "$BIN" index add "$WORK/idx" "$WORK/b3.jsonl" --tag s3 --batch
  du -sh "$WORK/idx" | tee "$OUT/$LABEL-size-2M.txt"
fi
rm -rf "$WORK"
if [ "${BENCH:-0}" = 1 ]; then
  FIMDUP_BENCH_DOCS=1000000 FIMDUP_BENCH_QUERY_ONLY=1 cargo bench --features full --bench index 2>&1 |
    tee "$OUT/$LABEL-bench.txt" | grep -E "built an index|time:|p50|p99" || true
fi
