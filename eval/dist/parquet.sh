#!/usr/bin/env bash
# Sharded and Parquet input divided by bytes. The corpus JSONL (default: the 1M generated
# corpus of eval/dist/run.sh) is written by pyarrow as one Parquet file (row groups of ROWS
# rows, zstd) and as 16 Parquet shards of it, and cut into 16 JSONL shards compressed by
# `zstd -3` (`part-NN.jsonl.zst`); `fimdup cluster --threshold 0.8` runs on each in one
# process and as 4 processes x 1 worker on 127.0.0.1 (eval/dist/parts.sh, each under
# /usr/bin/time -v). Checks that the 4 processes' parts concatenated are the one-process
# files byte for byte (exit 1 otherwise) and writes eval/results/dist-parquet.md: wall
# seconds, each process's bytes read (summary.json's distributed.per_process) as a share of
# the input's bytes, its peak RSS against the one-process run's, and the bytes process 0
# received per document (in all, and in the output stage).
#
# Usage: eval/dist/parquet.sh [JSONL]
# Env:   FIMDUP_BIN  binary (default: cargo build --release --features full, then
#                    target/release/fimdup)
#        PYTHON      a Python with pyarrow (default: python3)
#        PQ_SCRATCH  the Parquet files and outputs (default: ${TMPDIR:-/tmp}/fimdup-parquet)
#        ROWS        rows per row group (default 16384)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
JSONL=${1:-${TMPDIR:-/tmp}/fimdup-dist/c1000000/docs.jsonl}
PY=${PYTHON:-python3}
SCRATCH=${PQ_SCRATCH:-${TMPDIR:-/tmp}/fimdup-parquet}
ROWS=${ROWS:-16384}
OUT=eval/results/dist-parquet.md
if [ -z "${FIMDUP_BIN:-}" ]; then
  cargo build --release --features full --quiet
  FIMDUP_BIN=$ROOT/target/release/fimdup
fi
[ -f "$JSONL" ] || { echo "parquet.sh: no corpus at $JSONL (eval/dist/run.sh generates it)" >&2; exit 2; }
mkdir -p "$SCRATCH"
if [ ! -f "$SCRATCH/one/docs.parquet" ] || [ "$JSONL" -nt "$SCRATCH/one/docs.parquet" ]; then
  rm -rf "$SCRATCH/one" "$SCRATCH/shards"
  mkdir -p "$SCRATCH/one" "$SCRATCH/shards"
  "$PY" - "$JSONL" "$SCRATCH" "$ROWS" <<'EOF'
import sys, pyarrow as pa, pyarrow.json as pj, pyarrow.parquet as pq
src, out, rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
t = pj.read_json(src).select(["id", "text"])
pq.write_table(t, f"{out}/one/docs.parquet", row_group_size=rows, compression="zstd")
k = (t.num_rows + 15) // 16
for s in range(16):
    pq.write_table(t.slice(s * k, k), f"{out}/shards/part-{s:02d}.parquet",
                   row_group_size=rows, compression="zstd")
EOF
fi
if [ ! -f "$SCRATCH/zst/part-15.jsonl.zst" ] || [ "$JSONL" -nt "$SCRATCH/zst/part-15.jsonl.zst" ]; then
  rm -rf "$SCRATCH/zst"; mkdir -p "$SCRATCH/zst"
  split -n l/16 -d -a 2 --additional-suffix=.jsonl "$JSONL" "$SCRATCH/zst/part-"
  zstd -q -3 --rm "$SCRATCH"/zst/part-*.jsonl
fi
groups=$("$PY" -c "import pyarrow.parquet as pq, sys; print(pq.ParquetFile(sys.argv[1]).num_row_groups)" "$SCRATCH/one/docs.parquet")
rss() { awk -F': ' '/Maximum resident/ {printf "%d", $2 / 1024}' "$1"; }
wall() { awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; printf "%.2f", s}' "$1"; }

rows_md=()
for kind in one shards zst; do
  case $kind in
    one) input=$SCRATCH/one/docs.parquet ;;
    shards) input="$SCRATCH/shards/part-*.parquet" ;;
    zst) input="$SCRATCH/zst/part-*.jsonl.zst" ;;
  esac
  bytes=$(du -cb $input | tail -1 | cut -f1)
  args=(cluster "$input" --threshold 0.8)
  d=$SCRATCH/run-$kind
  rm -rf "$d"; mkdir -p "$d"
  /usr/bin/time -v -o "$d/time.1p" "$FIMDUP_BIN" "${args[@]}" --out "$d/1p" > "$d/1p.log" 2>&1
  t0=$(date +%s.%N)
  bash eval/dist/parts.sh "$FIMDUP_BIN" 4 1 "$d/4x1" -- "${args[@]}"
  t1=$(date +%s.%N)
  for f in pairs.csv clusters.jsonl; do
    stem=${f%.*}; ext=${f##*.}
    cat "$d/4x1/$stem".part-*."$ext" | cmp -s - "$d/1p/$f" || { echo "parquet.sh: $kind: $f differs" >&2; exit 1; }
  done
  read -r mode recv0 shares <<<"$("$PY" - "$d/4x1/summary.json" "$bytes" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1])); total = int(sys.argv[2])
d = s["distributed"]
p0 = d["per_process"][0]
recv = f'{p0["bytes_received"] / s["documents"]:.0f}/{p0["stages"]["output"]["bytes_received"] / s["documents"]:.3f}'
print(d["mode"], recv, " / ".join(f"{p['bytes_read'] / total * 100:.1f} %" for p in d["per_process"]))
EOF
)"
  one_rss=$(rss "$d/time.1p")
  procs=""; max=0
  for p in 0 1 2 3; do
    r=$(rss "$d/4x1.logs/time.$p"); procs="$procs${procs:+ / }$r"; [ "$r" -gt "$max" ] && max=$r
  done
  ratio=$(awk -v a="$max" -v b="$one_rss" 'BEGIN {printf "%.2f", a / b}')
  secs4=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')
  case $kind in
    one) name="Parquet, one file, $groups row groups" ;;
    shards) name="Parquet, 16 shards" ;;
    zst) name="JSONL, 16 zstd shards" ;;
  esac
  rows_md+=("| $name | $(echo "$bytes" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta') | $(wall "$d/time.1p") | $secs4 | $mode | $shares | $one_rss | $procs | $ratio | ${recv0//\// \/ } | identical |")
done

{
  echo "# Sharded and Parquet input divided by bytes: one process against 4 x 1"
  echo
  echo "Generated by \`eval/dist/parquet.sh\`, $(date -u '+%Y-%m-%d %H:%M') UTC."
  echo
  echo "- Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "- Binary: $("$FIMDUP_BIN" --version); scripts at git $(git rev-parse --short HEAD)."
  echo "- Corpus: \`$(basename "$JSONL")\` ($(wc -l < "$JSONL") documents) written by pyarrow $("$PY" -c 'import pyarrow; print(pyarrow.__version__)') as one Parquet file and as 16 shards, columns \`id\` and \`text\`, row groups of $ROWS rows, zstd; and cut by \`split -n l/16\` into 16 JSONL shards compressed by \`zstd -3\` (\`part-NN.jsonl.zst\`)."
  echo "- Command: \`fimdup cluster INPUT --threshold 0.8\` (concept); 4 x 1 by \`eval/dist/parts.sh BIN 4 1 OUT -- cluster INPUT --threshold 0.8\`, its wall time from the first start to the last exit."
  echo "- Outputs: the 4 processes' parts concatenated (\`cat OUT/pairs.part-*.csv\`, \`clusters.part-*.jsonl\`) compared with \`cmp\` against the one-process files."
  echo
  echo "Each worker reads the pieces that start in its quarter of the bytes (the shards laid end to end; a Parquet file cut where its row groups start, a compressed JSONL shard read whole by one worker); \`bytes read\` is each process's bytes of those pieces as a share of the input's. \`p0 B/doc\`: the bytes process 0 received per document, in all (its share of every exchange, as each process receives) / in the output stage (what it gathers of the results)."
  echo
  echo "| input | bytes | 1p s | 4x1 s | mode | bytes read per process | 1p RSS MiB | 4x1 RSS MiB per process | max RSS / 1p | p0 B/doc | outputs |"
  echo "|---|---:|---:|---:|---|---|---:|---|---:|---:|---|"
  printf '%s\n' "${rows_md[@]}"
} > "$OUT"
cat "$OUT"
