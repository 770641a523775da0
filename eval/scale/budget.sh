#!/usr/bin/env bash
# Memory budget table: every command that takes --memory-budget, on a generated corpus of N
# documents, under each budget, measured with /usr/bin/time (wall seconds, peak RSS), with
# the outputs compared byte for byte against the same command without a budget. Appends a
# markdown table to OUT (default eval/results/scale.md).
#
# Every row checks peak RSS <= budget + BUDGET_SLACK MiB (default 64).
#
# Usage: eval/scale/budget.sh CORPUS.jsonl IMAGES.img "BUDGETS" [OUT]
#   e.g. eval/scale/budget.sh /scratch/g1m/docs.jsonl /scratch/docs1m.img "512MiB 1GiB"
# The corpus: fimdup gen --config eval/peers/corpus.json --docs N --stream --out DIR;
# the images file: fimdup sketch DIR/docs.jsonl --out IMAGES.img.
# Env: FIMDUP_BIN (default target/release/fimdup), BUDGET_SCRATCH (work dir, default
#      /tmp/fimdup-budget), BUDGET_CMDS (subset of the command names below),
#      BUDGET_REFERENCE=0 (skip the runs without a budget; with BUDGET_REUSE=1 compare with
#      the ones an earlier call left in BUDGET_SCRATCH),
#      BUDGET_SWEEP2 (index-add: the second sweep, default CORPUS itself),
#      BUDGET_BASE_INDEX (index-add: the index a copy of which the sweep is added to,
#      default the one index-build made without a budget, so run index-build first).
set -uo pipefail
cd "$(dirname "$0")/../.."
CORPUS=$1; IMAGES=$2; BUDGETS=$3; OUT=${4:-eval/results/scale.md}
BIN=${FIMDUP_BIN:-target/release/fimdup}
S=${BUDGET_SCRATCH:-/tmp/fimdup-budget}
mkdir -p "$S/tmp"
CMDS=${BUDGET_CMDS:-"sketch context concept-img uf-img concept concept-verify uf uf-verify lsh lsh-verify super-shingle super-shingle-verify exact exact-verify dedup dedup-verify index-build index-add"}
SLACK=${BUDGET_SLACK:-64}
N=$(wc -l < "$CORPUS")

# args NAME OUTDIR: the command line of NAME writing into OUTDIR
args() {
  local o=$2
  case $1 in
    sketch) echo sketch "$CORPUS" --out "$o/out.img";;
    context) echo context "$IMAGES" --out "$o/out.dat";;
    concept-img) echo cluster "$IMAGES" --method concept --threshold 0.8 --out "$o";;
    uf-img) echo cluster "$IMAGES" --method union-find --threshold 0.8 --out "$o";;
    concept) echo cluster "$CORPUS" --method concept --threshold 0.8 --out "$o";;
    concept-verify) echo cluster "$CORPUS" --method concept --threshold 0.8 --verify exact --out "$o";;
    uf) echo cluster "$CORPUS" --method union-find --threshold 0.8 --out "$o";;
    uf-verify) echo cluster "$CORPUS" --method union-find --threshold 0.8 --verify exact --out "$o";;
    lsh) echo cluster "$CORPUS" --method lsh --threshold 0.8 --out "$o";;
    lsh-verify) echo cluster "$CORPUS" --method lsh --threshold 0.8 --verify exact --out "$o";;
    super-shingle) echo cluster "$CORPUS" --method super-shingle --threshold 0.8 --out "$o";;
    super-shingle-verify) echo cluster "$CORPUS" --method super-shingle --threshold 0.8 --verify exact --out "$o";;
    exact) echo cluster "$CORPUS" --method exact --threshold 0.8 --out "$o";;
    exact-verify) echo cluster "$CORPUS" --method exact --threshold 0.8 --verify exact --out "$o";;
    dedup) echo dedup "$CORPUS" --threshold 0.8 --out "$o";;
    dedup-verify) echo dedup "$CORPUS" --threshold 0.8 --verify exact --out "$o";;
    index-build) echo index build --out "$o/idx" "$CORPUS";;
    index-add) echo index add "$o/idx" "${BUDGET_SWEEP2:-$CORPUS}" --tag sweep-2;;
  esac
}
# The files that must be identical with and without a budget.
outputs() {
  case $1 in
    sketch) echo out.img;;
    context) echo out.dat out.dat.ids.tsv;;
    index-build|index-add) echo idx/CURRENT;;
    dedup|dedup-verify) (cd "$S/$1.none" 2>/dev/null && ls | grep -v -e '^summary.json$' -e '\.time$');;
    *) echo clusters.jsonl pairs.csv;;
  esac
}
# run NAME BUDGET: sets WALL RSS RC; the outputs in $S/NAME.BUDGET/
run() {
  local name=$1 b=$2 o=$S/$1.$2
  rm -rf "$o"; mkdir -p "$o"
  [ "$name" = index-add ] && cp -r "${BUDGET_BASE_INDEX:-$S/index-build.none/idx}" "$o/idx"
  local bf=()
  [ "$b" != none ] && bf=(--memory-budget "$b" --tmp-dir "$S/tmp")
  # shellcheck disable=SC2046
  /usr/bin/time -f "%e %M" -o "$o.time" "$BIN" $(args "$name" "$o") "${bf[@]}" >"$o.stdout" 2>"$o.stderr"
  RC=$?
  read -r WALL RSS_KB < <(tail -1 "$o.time")
  RSS=$((RSS_KB / 1024))
}
ROWS=()
for name in $CMDS; do
  if [ "$name" = sketch ] && ! "$BIN" sketch --help | grep -q -- --memory-budget; then
    run sketch none
    ROWS+=("| $name | (none: streams) | $RSS | $WALL | yes | - |")
    continue
  fi
  REF=""
  have_ref=${BUDGET_REFERENCE:-1}
  if [ "$have_ref" = 1 ]; then
    run "$name" none
    REF="$WALL s, $RSS MiB"; [ $RC -ne 0 ] && REF="failed (exit $RC)"
  elif [ "${BUDGET_REUSE:-0}" = 1 ] && [ -s "$S/$name.none.time" ]; then
    # BUDGET_REUSE=1: the run without a budget that an earlier call left in $S
    read -r w k < <(tail -1 "$S/$name.none.time")
    REF="$w s, $((k / 1024)) MiB (earlier run)"; have_ref=1
  fi
  for b in $BUDGETS; do
    run "$name" "$b"
    bytes=$(python3 -c "
import re,sys
m=re.fullmatch(r'(\d+)(KiB|MiB|GiB)?','$b'); u={'KiB':1<<10,'MiB':1<<20,'GiB':1<<30,None:1}
print(int(m.group(1))*u[m.group(2)])")
    limit=$(( bytes / 1048576 + SLACK ))
    if [ $RC -eq 0 ]; then
      same=yes
      if [ "$have_ref" = 1 ]; then
        for f in $(outputs "$name"); do
          if [ "$name" = index-build ] || [ "$name" = index-add ]; then
            # every file of the generation CURRENT names
            g=$(cut -d' ' -f1 "$S/$name.none/idx/CURRENT")
            diff -rq "$S/$name.none/idx/$g" "$S/$name.$b/idx/$g" >/dev/null || same=no
          else
            cmp -s "$S/$name.none/$f" "$S/$name.$b/$f" || same=no
          fi
        done
      else
        same="-"
      fi
      ok=$([ "$RSS" -le "$limit" ] && echo "yes" || echo "**no**")
      ROWS+=("| $name | $b | $RSS | $WALL | $ok | $same | $REF |")
    else
      msg=$(tail -1 "$S/$name.$b.stderr" | sed 's/|/\\|/g' | cut -c1-220)
      ok=$([ "$RSS" -le "$limit" ] && echo "yes" || echo "**no**")
      ROWS+=("| $name | $b | $RSS | $WALL | $ok | refused (exit $RC): $msg | $REF |")
    fi
  done
done
{
  echo
  echo "### $N documents, budgets $BUDGETS ($(date -u +%Y-%m-%d), git $(git rev-parse --short HEAD))"
  echo
  echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  echo "| command | budget | peak RSS MiB | wall s | RSS <= budget + $SLACK MiB | output same as without budget | without budget |"
  echo "|---|---|---:|---:|---|---|---|"
  printf '%s\n' "${ROWS[@]}"
} | tee -a "$OUT"
