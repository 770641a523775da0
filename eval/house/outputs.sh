#!/usr/bin/env bash
# Writes the outputs of every clustering method, with and without --verify exact, on the
# default corpus and on 5k and 50k generated corpora (eval/peers/corpus.json), so that two
# builds can be compared byte for byte:
#
#   eval/house/outputs.sh OLD_BIN out/house-old
#   eval/house/outputs.sh NEW_BIN out/house-new
#   eval/house/compare.sh out/house-old out/house-new
#
# Also: each method on an images file (the streamed context path for concept and
# union-find), and the deterministic columns of a sweep's results.csv.
set -euo pipefail
BIN=${1:?usage: outputs.sh FIMDUP_BIN OUT_DIR}
OUT=${2:?usage: outputs.sh FIMDUP_BIN OUT_DIR}
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
CORPORA=${CORPORA:-"default 5k 50k"}
mkdir -p "$OUT"
CACHE=${CORPUS_CACHE:-"$OUT/corpora"}
mkdir -p "$CACHE"
for c in $CORPORA; do
  case $c in
    default) docs="$ROOT/datasets/default/docs.jsonl"; extra=(--html) ;;
    5k|50k)
      n=${c%k}000
      if [ ! -f "$CACHE/$c/docs.jsonl" ]; then
        "$BIN" gen --config "$ROOT/eval/peers/corpus.json" --docs "$n" --out "$CACHE/$c" 2>/dev/null
      fi
      docs="$CACHE/$c/docs.jsonl"; extra=() ;;
    *) echo "unknown corpus $c" >&2; exit 2 ;;
  esac
  mkdir -p "$OUT/$c"
  for m in concept union-find lsh super-shingle exact; do
    for v in none exact; do
      d="$OUT/$c/$m-$v"
      args=(cluster "$docs" --method "$m" --threshold 0.8 --out "$d" "${extra[@]}")
      [ "$v" = exact ] && args+=(--verify exact)
      "$BIN" "${args[@]}" 2>"$d.log" || { echo "failed: ${args[*]}" >&2; cat "$d.log" >&2; exit 1; }
    done
  done
  # The images-file paths (streamed context for concept / union-find).
  for s in bottom-k k-mins; do
    img="$OUT/$c/$s.img"
    "$BIN" sketch "$docs" --scheme "$s" --out "$img" "${extra[@]}" 2>/dev/null
  done
  for m in concept union-find; do
    "$BIN" cluster "$OUT/$c/bottom-k.img" --method "$m" --threshold 0.8 --out "$OUT/$c/img-$m" 2>/dev/null
  done
  for m in lsh super-shingle; do
    "$BIN" cluster "$OUT/$c/k-mins.img" --method "$m" --threshold 0.8 --out "$OUT/$c/img-$m" 2>/dev/null
  done
  rm -f "$OUT/$c"/*.img "$OUT/$c"/*.img.ids.tsv
done
if [[ " $CORPORA " == *" default "* ]]; then
  "$BIN" sweep "$ROOT/datasets/default/docs.jsonl" --truth "$ROOT/datasets/default/truth.csv" \
    --html --thresholds 0.9:0.5:0.1 --out "$OUT/sweep" 2>/dev/null
  "$BIN" sweep "$ROOT/datasets/default/docs.jsonl" --truth "$ROOT/datasets/default/truth.csv" \
    --html --thresholds 0.9:0.5:0.1 --verify exact --out "$OUT/sweep-verify" 2>/dev/null
  # seconds and memory columns vary from run to run
  for s in sweep sweep-verify; do
    python3 - "$OUT/$s/results.csv" >"$OUT/$s/results.det.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
keep = [k for k in rows[0] if k not in ("seconds", "peak_rss_bytes", "peak_rss_mib", "repeats", "seconds_max", "peak_rss_max_bytes")]
w = csv.writer(sys.stdout, lineterminator="\n")
w.writerow(keep)
for r in rows:
    w.writerow([r[k] for k in keep])
PY
  done
fi
echo "outputs in $OUT"
