#!/usr/bin/env bash
# Scaling run: corpus -> verified concept pairs at 1M and 10M documents, every stage's
# seconds and memory. For each size it generates the corpus with
# `fimdup gen --config eval/peers/corpus.json --docs N --stream` (unless SCALE_SCRATCH
# already holds it: the generator is deterministic), times `wc -w` on it (one core reading
# and counting every word: the yardstick of the goals), then runs
#
#   fimdup cluster docs.jsonl --method concept --verify exact --threshold 0.8 [--memory-budget B]
#
# with default settings and with each budget of SCALE_BUDGETS, under /usr/bin/time (wall
# seconds, peak RSS). Each phase's seconds and the process's peak RSS at its end come from
# the run's summary.json. Every run's pairs.csv and clusters.jsonl are compared with those of
# the default run. A budget the run refuses (exit 2, memory budget too small) is reported
# with its message. Writes eval/results/scale.md.
#
# Before each size it checks the free disk (corpus, temporary key file, outputs: about
# 3.5 GB per million documents); a size that does not fit stops the run, and the report says so.
#
# Usage: eval/scale/run.sh [--out FILE]
# Env:   FIMDUP_BIN      binary (default: cargo build --release, then target/release/fimdup)
#        SCALE_SIZES     sizes (default: "1000000 10000000")
#        SCALE_BUDGETS   budgets besides the default run (default: "512MiB")
#        SCALE_SCRATCH   work dir (default: ${TMPDIR:-/tmp}/fimdup-scale); corpora are
#                        deleted after their size unless SCALE_KEEP=1
#        SCALE_NOTE      free text for the report
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
OUT=eval/results/scale.md
[ "${1:-}" = "--out" ] && OUT=$2
SIZES=${SCALE_SIZES:-"1000000 10000000"}
BUDGETS=${SCALE_BUDGETS-"512MiB"}
SCRATCH=${SCALE_SCRATCH:-${TMPDIR:-/tmp}/fimdup-scale}
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
if [ -z "${FIMDUP_BIN:-}" ]; then
  cargo build --release
  FIMDUP_BIN=$ROOT/target/release/fimdup
fi
mkdir -p "$SCRATCH/tmp"

log() { echo "[scale $(date -u +%H:%M:%S)] $*" >&2; }
# timed NAME CMD...: runs CMD under /usr/bin/time; sets T_WALL (s), T_RSS (MiB), T_RC
timed() {
  local name=$1; shift
  local tf=$SCRATCH/$name.time
  set +e
  /usr/bin/time -f "%e %M" -o "$tf" "$@" > "$SCRATCH/$name.stdout" 2> "$SCRATCH/$name.stderr"
  T_RC=$?
  set -e
  read -r T_WALL T_RSS_KB < <(tail -1 "$tf")
  T_RSS=$((T_RSS_KB / 1024))
}
# phases DIR: "name s / MiB" of each phase of DIR/summary.json, joined by "; "
phases() {
  python3 - "$1/summary.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("; ".join(
    f"{p['name']} {p['seconds']:.2f} s / {(p.get('peak_rss_bytes') or 0) >> 20}"
    for p in d["phases"]))
PY
}

ROWS=()
NOTES=()
STOP="all sizes ran"
LOADS=("$(cut -d' ' -f1-3 /proc/loadavg)")
for N in $SIZES; do
  MIL=$(( (N + 999999) / 1000000 ))
  C=$SCRATCH/c$N
  # A corpus generated before from the same configuration and size is used again.
  STAMP="$(sha256sum eval/peers/corpus.json | cut -d' ' -f1) $N"
  HAVE=0
  [ -s "$C/docs.jsonl" ] && [ -s "$C/stamp" ] && [ "$(cut -d' ' -f1-2 "$C/stamp")" = "$STAMP" ] && HAVE=1
  NEED_GB=$(( (HAVE ? 1 : 3) * MIL + MIL / 2 + 1 ))
  AVAIL_GB=$(( $(df --output=avail -k "$SCRATCH" | tail -1) / 1024 / 1024 ))
  if [ "$AVAIL_GB" -lt "$NEED_GB" ]; then
    STOP="stopped before $N docs: needs about $NEED_GB GB of disk, $AVAIL_GB GB free"; break
  fi
  if [ "$HAVE" = 0 ]; then
    log "gen $N"
    timed "gen-$N" "$FIMDUP_BIN" gen --config eval/peers/corpus.json --docs "$N" --stream --out "$C"
    [ "$T_RC" = 0 ] || { echo "gen failed: see $SCRATCH/gen-$N.stderr" >&2; exit 1; }
    echo "$STAMP $("$FIMDUP_BIN" --version)" > "$C/stamp"
  fi
  BYTES=$(stat -c %s "$C/docs.jsonl")
  log "wc -w $N"
  cat "$C/docs.jsonl" > /dev/null   # the file in the page cache, as for the runs
  timed "wc-$N" wc -w "$C/docs.jsonl"
  WC_W=$T_WALL
  REF=""
  for B in default $BUDGETS; do
    FLAGS=()
    [ "$B" = default ] || FLAGS=(--memory-budget "$B")
    O=$C/out-$B
    rm -rf "$O"
    log "cluster $N $B"
    timed "cluster-$N-$B" "$FIMDUP_BIN" cluster "$C/docs.jsonl" --method concept --verify exact \
      --threshold 0.8 ${FLAGS[@]+"${FLAGS[@]}"} --tmp-dir "$SCRATCH/tmp" --out "$O"
    if [ "$T_RC" != 0 ]; then
      MSG=$(grep -v '^\s*$' "$SCRATCH/cluster-$N-$B.stderr" | tail -1 | tr '|' '/')
      ROWS+=("| $N | $B | $T_WALL | $T_RSS | exit $T_RC: $MSG | | | |")
      continue
    fi
    PAIRS=$(( $(wc -l < "$O/pairs.csv") - 1 ))
    if [ -z "$REF" ]; then
      REF=$O; SAME="(reference)"
    elif cmp -s "$O/pairs.csv" "$REF/pairs.csv" && cmp -s "$O/clusters.jsonl" "$REF/clusters.jsonl"; then
      SAME="yes"
    else
      SAME="**no**"
    fi
    RATIO=$(awk -v a="$T_WALL" -v b="$WC_W" 'BEGIN { printf "%.2f", a / b }')
    ROWS+=("| $N | $B | $T_WALL | $T_RSS | $(phases "$O") | $RATIO | $PAIRS | $SAME |")
  done
  NOTES+=("$N documents: $(awk -v b="$BYTES" 'BEGIN { printf "%.2f GB", b / 1e9 }') of JSONL; \`wc -w\` $WC_W s")
  LOADS+=("$(cut -d' ' -f1-3 /proc/loadavg)")
  [ "${SCALE_KEEP:-0}" = 1 ] || rm -rf "$C"
done

# The report's sections after the table ("## " headings: what was written by hand about a
# run, and what eval/scale/budget.sh measures) are kept.
KEEP=""
if [ -f "$OUT" ]; then
  KEEP=$(awk '/^## / { on = 1 } on' "$OUT")
fi
{
  echo "# Scaling: corpus to verified concept pairs at 1M and 10M documents"
  echo
  echo "Generated by \`eval/scale/run.sh\`, $(date -u '+%Y-%m-%d %H:%M UTC')."
  echo
  echo "- Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo); load average (1/5/15 min) at the start and after each size: $(IFS=';'; echo "${LOADS[*]}")"
  echo "- Binary: $("$FIMDUP_BIN" --version) (its own build commit; scripts at git $(git rev-parse --short HEAD))"
  echo "- Command: \`fimdup cluster docs.jsonl --method concept --verify exact --threshold 0.8 [--memory-budget B] --tmp-dir DIR\`, the corpus in the page cache."
  echo "- Corpus: \`fimdup gen --config eval/peers/corpus.json --docs N --stream\` (250-350 words, 20 % in edit families made by 1-10 % word edits). $(IFS=';'; echo "${NOTES[*]}")."
  echo "- Run: $STOP."
  [ -n "${SCALE_NOTE:-}" ] && echo "- Note: $SCALE_NOTE"
  echo
  echo "Wall seconds and peak RSS (MiB) of the whole process (\`/usr/bin/time\`). Phases from \`summary.json\`: seconds / the process's peak RSS (MiB) when the phase ended (the phase where it first reaches the run's peak sets it). \"/ wc -w\": wall time over that of \`wc -w\` on the same file in the same run. \"same\": \`pairs.csv\` and \`clusters.jsonl\` byte-identical to the default run's."
  echo
  echo "| docs | memory | wall s | peak RSS MiB | phases (s / MiB) | / wc -w | pairs | same |"
  echo "|---:|---|---:|---:|---|---:|---:|---|"
  for r in "${ROWS[@]}"; do echo "$r"; done
  if [ -n "$KEEP" ]; then echo; echo "$KEEP"; fi
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
log "wrote $OUT ($STOP)"
