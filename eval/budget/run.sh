#!/usr/bin/env bash
# Memory budgets against peak RSS: every method (concept, union-find, lsh, super-shingle,
# exact), with and without --verify exact, and dedup, on the corpus of
# `fimdup gen --docs N --stream --seed 7` (N = 1M by default), under each budget of
# BUDGETS (default "1GiB 512MiB"), each run under /usr/bin/time, its outputs compared byte
# for byte with the same command without a budget (eval/scale/budget.sh does the runs).
# A row passes when its peak RSS is at most the budget + 64 MiB. Writes
# eval/results/budget.md.
#
# Usage: eval/budget/run.sh
# Env:   FIMDUP_BIN     binary (default: cargo build --release, then target/release/fimdup)
#        BUDGET_DOCS    documents (default 1000000)
#        BUDGETS        budgets (default "1GiB 512MiB")
#        BUDGET_SCRATCH work dir (default ${TMPDIR:-/tmp}/fimdup-budget); the corpus is kept
#                       there and used again when its stamp names the same size and seed
#        BUDGET_CMDS    a subset of the commands (see eval/scale/budget.sh)
#        BUDGET_REFERENCE=0 BUDGET_REUSE=1: compare with the runs without a budget an
#                       earlier call left in BUDGET_SCRATCH instead of running them again
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
DOCS=${BUDGET_DOCS:-1000000}
BUDGETS=${BUDGETS:-"1GiB 512MiB"}
export BUDGET_SCRATCH=${BUDGET_SCRATCH:-${TMPDIR:-/tmp}/fimdup-budget}
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
if [ -z "${FIMDUP_BIN:-}" ]; then
  cargo build --release
  export FIMDUP_BIN=$ROOT/target/release/fimdup
fi
CMDS=${BUDGET_CMDS:-"concept concept-verify uf uf-verify lsh lsh-verify super-shingle super-shingle-verify dedup dedup-verify"}
# The exact join holds every full shingle set (about 56 bytes a token): without a budget
# it would take more memory than the machine has at 1M, so it runs under the budgets only.
EXACT_CMDS=${BUDGET_EXACT_CMDS-"exact exact-verify"}
C=$BUDGET_SCRATCH/corpus
stamp="gen --docs $DOCS --stream --seed 7"
mkdir -p "$C"
if [ "$(cat "$C/stamp" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "$C" && mkdir -p "$C"
  "$FIMDUP_BIN" gen --out "$C" --docs "$DOCS" --stream --seed 7 >/dev/null
  echo "$stamp" >"$C/stamp"
fi
OUT=eval/results/budget.md
{
  echo "# Memory budgets against peak RSS"
  echo
  echo "Made by \`eval/budget/run.sh\` (\`FIMDUP_BIN\` $(git rev-parse --short HEAD)): the corpus of"
  echo "\`fimdup gen --out DIR --docs $DOCS --stream --seed 7\`, every command with"
  echo "\`--threshold 0.8\` under \`/usr/bin/time\`, peak RSS in MiB against the budget + 64 MiB;"
  echo "\"same\" compares the outputs (clusters.jsonl and pairs.csv; every file of dedup but"
  echo "summary.json) with the same command without a budget. A refusal (exit 2) is a pass when"
  echo "the process stayed within the bound before it refused. The machine: $(nproc) cores."
} >"$OUT"
BUDGET_CMDS=$CMDS eval/scale/budget.sh "$C/docs.jsonl" none "$BUDGETS" "$OUT"
if [ -n "$EXACT_CMDS" ]; then
  BUDGET_CMDS=$EXACT_CMDS BUDGET_REFERENCE=0 eval/scale/budget.sh "$C/docs.jsonl" none "$BUDGETS" "$OUT"
fi
# The scratch directory is this machine's: name the corpus by its file alone.
sed -i "s#$C/##g" "$OUT"
