#!/usr/bin/env bash
# A newcomer's first minutes, timed: clones the repository into an empty folder with nothing
# beside it, then runs the README's two set-up commands there from an empty target directory
# (`cargo run --release -- demo`, then `cargo test --release`) and writes
# eval/results/newcomer.md with each command's wall seconds.
#
# Usage: eval/newcomer/run.sh [--cold-registry] [--out FILE] [REPO]
#   REPO             what to clone (default: this checkout; its committed HEAD is cloned)
#   --cold-registry  an empty CARGO_HOME too, so every crate is downloaded as on a machine
#                    that never built Rust (default: this machine's registry cache, if any)
#   --out FILE       where the table goes (default: eval/results/newcomer.md)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
OUT=$ROOT/eval/results/newcomer.md
COLD=0
REPO=$ROOT
while [ $# -gt 0 ]; do
  case "$1" in
    --cold-registry) COLD=1; shift ;;
    --out) OUT=$2; shift 2 ;;
    *) REPO=$1; shift ;;
  esac
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/fimdup-newcomer.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/empty"
git clone -q "$REPO" "$WORK/empty/fimdup"
cd "$WORK/empty/fimdup"
COMMIT=$(git rev-parse --short=12 HEAD)
ls -A .. | grep -qvx fimdup && { echo "newcomer: the clone's folder is not empty" >&2; exit 1; }
[ -e target ] && { echo "newcomer: the clone has a target directory" >&2; exit 1; }

# A newcomer has none of the project's environment: no test Python, no CI, no target dir
# from elsewhere.
unset FIMDUP_PYTHON FIMDUP_BIN CI CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR
if [ "$COLD" = 1 ]; then
  export CARGO_HOME=$WORK/cargo-home
  mkdir -p "$CARGO_HOME"
  registry="empty CARGO_HOME: every crate downloaded"
else
  registry="this machine's CARGO_HOME (crates already downloaded are not fetched again)"
fi

step() { # NAME LOG COMMAND...: runs COMMAND, records its wall seconds in $secs
  local name=$1 log=$2; shift 2
  local t0 t1
  t0=$(date +%s.%N)
  if ! "$@" >"$log" 2>&1; then
    tail -40 "$log" >&2
    echo "newcomer: '$name' failed" >&2
    exit 1
  fi
  t1=$(date +%s.%N)
  secs=$(python3 -c "print(f'{$t1 - $t0:.1f}')")
  echo "newcomer: $name: $secs s" >&2
}

step "cargo run --release -- demo" "$WORK/demo.log" cargo run --release -- demo
demo_s=$secs
step "cargo test --release --features full" "$WORK/test.log" cargo test --release --features full
test_s=$secs
# The test command's own figures: how many tests passed, and its compile time.
passed=$(grep -E '^test result:' "$WORK/test.log" | sed -E 's/.* ([0-9]+) passed.*/\1/' | paste -sd+ | bc)
ignored=$(grep -E '^test result:' "$WORK/test.log" | sed -E 's/.* ([0-9]+) ignored.*/\1/' | paste -sd+ | bc)
failed=$(grep -E '^test result:' "$WORK/test.log" | sed -E 's/.* ([0-9]+) failed.*/\1/' | paste -sd+ | bc)
compile=$(grep -E 'Finished `release` profile' "$WORK/test.log" | sed -E 's/.* in (.*)$/\1/' | head -1)
demo_compile=$(grep -E 'Finished `release` profile' "$WORK/demo.log" | sed -E 's/.* in (.*)$/\1/' | head -1)

mkdir -p "$(dirname "$OUT")"
{
  echo "# A newcomer's set-up, timed"
  echo
  echo "\`eval/newcomer/run.sh$([ "$COLD" = 1 ] && echo ' --cold-registry')\`: a fresh clone (commit \`$COMMIT\`) in an empty folder with"
  echo "nothing beside it, an empty target directory, no test Python (\`FIMDUP_PYTHON\` unset), the"
  echo "README's two commands in order. Registry: $registry."
  echo
  echo "Machine: $(nproc) cores, $(free -g | awk '/^Mem:/{print $2}') GiB, $(rustc --version), $(date -u +%Y-%m-%d)."
  echo
  echo "| command | wall seconds | compile (cargo's \"Finished ... in\") | goal |"
  echo "|---|---:|---|---|"
  echo "| \`cargo run --release -- demo\` | $demo_s | $demo_compile | <= 120 s |"
  echo "| \`cargo test --release --features full\` (after the demo) | $test_s | $compile | <= 600 s |"
  echo
  echo "The test command ran $passed tests: $passed passed, $failed failed, $ignored ignored (the"
  echo "\`#[ignore]\`d ones are the full-size runs \`.ci/run\` adds: the slow miner references, the"
  echo "100-kill loop, the hostile sizes). Without \`FIMDUP_PYTHON\` the Python suite and the"
  echo "tests that read files written by pyarrow print a note and pass; \`.ci/run\` runs them."
} >"$OUT"
cat "$OUT"
