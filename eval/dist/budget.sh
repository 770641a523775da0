#!/usr/bin/env bash
# Peak RSS per process of a divided `fimdup cluster` under --memory-budget, and whether the
# outputs equal the unbudgeted run's: eval/results/dist-budget.md.
#
#   eval/dist/budget.sh CORPUS.jsonl [PROCESSES] [BUDGET...]
#
# e.g. eval/dist/budget.sh c1000000/docs.jsonl 4 512MiB 256MiB 128MiB
# (corpus: fimdup gen --config eval/peers/corpus.json --docs 1000000 --stream > docs.jsonl).
# Every process runs on 127.0.0.1 under /usr/bin/time -v, one worker each.
set -euo pipefail
corpus=$(realpath "${1:?usage: $0 CORPUS.jsonl [PROCESSES] [BUDGET...]}")
n=${2:-4}
shift $(( $# >= 2 ? 2 : 1 ))
budgets=("$@")
[ ${#budgets[@]} -gt 0 ] || budgets=(512MiB 256MiB 128MiB)
bin=$(realpath "${FIMDUP:-target/release/fimdup}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() { # name, extra args...
  local name=$1; shift
  local dir=$work/$name base=$((20000 + RANDOM % 20000))
  mkdir -p "$dir"
  : > "$dir/hosts"
  for p in $(seq 0 $((n - 1))); do echo "127.0.0.1:$((base + p))" >> "$dir/hosts"; done
  local t0; t0=$(date +%s.%N)
  for p in $(seq 0 $((n - 1))); do
    mkdir -p "$dir/p$p/tmp"
    ( cd "$dir/p$p" && /usr/bin/time -v "$bin" cluster "$corpus" --out out --processes "$n" \
        --workers 1 --process "$p" --hosts ../hosts --connect-timeout 60 "$@" \
        > log.out 2> log.err ) &
  done
  wait
  local wall; wall=$(echo "$(date +%s.%N) - $t0" | bc)
  local rss="" passes
  for p in $(seq 0 $((n - 1))); do
    rss+="$(grep 'Maximum resident' "$dir/p$p/log.err" | awk '{printf "%d", $6/1024}') / "
  done
  passes=$(python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(s['distributed']['per_process'][0].get('row_passes'))" "$dir/p0/out/summary.json")
  local same=-
  if [ "$name" != none ]; then
    if cmp -s "$work/none/p0/out/pairs.csv" "$dir/p0/out/pairs.csv" \
      && cmp -s "$work/none/p0/out/clusters.jsonl" "$dir/p0/out/clusters.jsonl"; then
      same=identical
    else
      same=DIFFERENT
    fi
  fi
  printf '| %s | %s | %s | %.1f | %s |\n' "$name" "$passes" "${rss% / }" "$wall" "$same"
}

echo "| budget | row passes | peak RSS MiB per process | wall s | pairs.csv, clusters.jsonl |"
echo "|---|---:|---|---:|---|"
run none
for b in "${budgets[@]}"; do run "$b" --memory-budget "$b" --tmp-dir tmp; done
