#!/usr/bin/env bash
# Measures whether `index add` of a 100k batch costs what the batch costs as the index grows
# (eval/results/index.md): from a built index of the 1M corpus, a batch of 100k is added at
# 1M, then the index is grown by batches of generated documents to 2M and 4M (the merge
# policy leaves the segments of 1M and 2M as they are) and the same batch is added at
# each size. Each measured add runs on a hard-linked copy of the index (`cp -al`: an add
# writes new files only), twice, and the second run is reported (the page cache warm).
#
#   INDEX=/path/to/1M-index BATCH=b1.jsonl eval/index/growth.sh
#
# Env: BIN (default target/release/fimdup), INDEX (an index of 1M documents, not changed),
# BATCH (the 100k batch, ids unique against the index), WORK (scratch, about 12 GB,
# removed at the end), OUT (default eval/results/index-raw).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-target/release/fimdup}
INDEX=${INDEX:?an index of the 1M corpus}
BATCH=${BATCH:?a batch of 100k documents}
WORK=${WORK:-/tmp/fimdup-index-growth}
OUT=${OUT:-eval/results/index-raw}
mkdir -p "$OUT"
rm -rf "$WORK"
mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT

# N generated documents with ids PREFIX-... (unique against the corpus' d...).
docs() { # N SEED PREFIX
  "$BIN" gen --config eval/peers/corpus.json --docs "$1" --seed "$2" --stream \
    --out "$WORK/gen-$3" >/dev/null
  sed "s/\"id\":\"d/\"id\":\"$3-/" "$WORK/gen-$3/docs.jsonl" >"$WORK/$3.jsonl"
  rm -rf "$WORK/gen-$3"
}

# "seconds user-seconds MiB" of a /usr/bin/time -v file.
figures() {
  awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); t=0; for(i=1;i<=n;i++) t=t*60+a[i]; w=t}
    /User time/ {u=$2} /Maximum resident set size/ {m=int($2/1024)}
    END {printf "%s s wall, %s s user, %d MiB", w, u, m}' "$1"
}

# The batch added to a copy of the index at $1 (its size named $2), twice.
measure() { # IDX LABEL
  local i
  for i in 1 2; do
    rm -rf "$WORK/copy"
    cp -al "$1" "$WORK/copy"
    /usr/bin/time -v "$BIN" index add "$WORK/copy" "$BATCH" --batch --tag b --json \
      >"$OUT/growth-$2.json" 2>"$OUT/growth-$2.time"
  done
  echo "add 100k at $2: $(figures "$OUT/growth-$2.time"), segments $(grep -o '"segments_after": [0-9]*' "$OUT/growth-$2.json" | grep -o '[0-9]*$')"
}

# The index grown by N generated documents of SEED (ids PREFIX-...), to the size SIZE.
grow() { # N SEED PREFIX SIZE
  docs "$1" "$2" "$3"
  /usr/bin/time -v "$BIN" index add "$WORK/idx" "$WORK/$3.jsonl" --batch --tag "$3" --json \
    >/dev/null 2>"$OUT/growth-grow-$4.time"
  echo "grow to $4 (a batch of $1): $(figures "$OUT/growth-grow-$4.time")"
  rm -f "$WORK/$3.jsonl"
}

cp -al "$INDEX" "$WORK/idx"
measure "$WORK/idx" 1M
grow 1000000 47001 g1 2M
measure "$WORK/idx" 2M
grow 2000000 47002 g2 4M
measure "$WORK/idx" 4M
