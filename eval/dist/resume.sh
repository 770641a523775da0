#!/usr/bin/env bash
# What a resume saves: a divided run of N processes x 1 worker kept in a run directory,
# uninterrupted, then killed and resumed twice: process 1 SIGKILLs itself at a fail point
# (the `failpoints` feature: `cargo build --release --features full`) in the components
# stage (the resume restarts after the pairs), and as it leaves the output stage (the
# resume restarts after the per-group stage). Prints a Markdown table: each run's wall
# seconds (first start to last exit), the resumed run's `resumed_after`, and whether its
# parts concatenated are the uninterrupted run's bytes.
#
# Usage: eval/dist/resume.sh BIN N SCRATCH -- ARGS...   (ARGS: a `cluster` or `dedup`
# command line without --out; ports random in 20000-39999)
set -u
BIN=$1; N=$2; SCRATCH=$3; shift 4
rm -rf "$SCRATCH"; mkdir -p "$SCRATCH"

# run NAME RUN_DIR FAILPOINT [--resume]: N processes, process 1 given FAILPOINT (or none);
# prints the wall seconds.
run() {
  local name=$1 rd=$2 fp=$3; shift 3
  local out=$SCRATCH/$name hosts=$SCRATCH/$name.hosts base=$((20000 + RANDOM % 20000)) p pids=()
  : > "$hosts"
  for p in $(seq 0 $((N - 1))); do echo "127.0.0.1:$((base + p))" >> "$hosts"; done
  local t0; t0=$(date +%s.%N)
  for p in $(seq 0 $((N - 1))); do
    if [ "$p" = 1 ] && [ -n "$fp" ]; then
      FAILPOINTS="$fp" "$BIN" "${ARGS[@]}" --out "$out" --run-dir "$rd" "$@" \
        --processes "$N" --process "$p" --hosts "$hosts" --workers 1 >"$out.$p.log" 2>&1 &
    else
      "$BIN" "${ARGS[@]}" --out "$out" --run-dir "$rd" "$@" \
        --processes "$N" --process "$p" --hosts "$hosts" --workers 1 >"$out.$p.log" 2>&1 &
    fi
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  echo "$(date +%s.%N) - $t0" | bc
}

# same NAME: the parts of NAME concatenated against the uninterrupted run's.
same() {
  local f stem ext
  for f in "$SCRATCH"/whole/*.part-00000.*; do
    stem=$(basename "$f"); ext=${stem#*.part-00000.}; stem=${stem%%.part-00000.*}
    cmp -s <(cat "$SCRATCH/whole/$stem".part-*."$ext") <(cat "$SCRATCH/$1/$stem".part-*."$ext") \
      || { echo "differ ($stem.$ext)"; return; }
  done
  echo identical
}

resumed_after() {
  python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['distributed'].get('resumed_after'))" \
    "$SCRATCH/$1/summary.json"
}

ARGS=("$@")
whole=$(run whole "$SCRATCH/rd-whole" "")
echo "| run | wall s | resumed after | outputs |"
echo "|---|---:|---|---|"
printf '| uninterrupted | %.2f | - | - |\n' "$whole"
for kill in dataflow-in-components dataflow-after-output; do
  k=$(run "killed-$kill" "$SCRATCH/rd-$kill" "$kill=return")
  r=$(run "resumed-$kill" "$SCRATCH/rd-$kill" "" --resume)
  printf '| killed at `%s` | %.2f | - | - |\n' "$kill" "$k"
  printf '| its --resume | %.2f | %s | %s |\n' "$r" "$(resumed_after "resumed-$kill")" "$(same "resumed-$kill")"
done
