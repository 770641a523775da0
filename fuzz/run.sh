#!/usr/bin/env bash
# Builds every fuzz target once (libFuzzer through cargo-fuzz, with debug assertions, on the
# stable toolchain with RUSTC_BOOTSTRAP=1), then runs each for a bounded time, FUZZ_JOBS at
# a time (default one after the other), starting from the committed seeds
# (fuzz/seeds/<target>/, copied into the working corpus fuzz/corpus/<target>/). Prints per target the executions and whether it crashed;
# exits non-zero when any target crashed (the input is kept in fuzz/artifacts/<target>/, and
# printed in base64 when small). A timeout is a crash unless its input, run alone three times,
# each time finishes within the timeout (then the machine was the cause; the input is kept).
#
# Usage: [FUZZ_JOBS=N] [FUZZ_BUILD_ONLY=1] fuzz/run.sh [SECONDS_PER_TARGET (default 60)] [TARGET...]
# FUZZ_BUILD_ONLY=1 builds the targets as a run of SECONDS_PER_TARGET would and exits (so
# that a later run finds them built).
# Limits: -rss_limit_mb=2048 -malloc_limit_mb=2048 (a length in the input that drives a huge
# allocation is a crash), -timeout=30 (one input taking longer is a crash), -detect_leaks=0
# and ASAN_OPTIONS=detect_leaks=0 (LeakSanitizer reports the thread pools of the parallel
# reader now and then: libFuzzer's flag stops its checks between inputs, the sanitizer's
# option the check at exit, which otherwise reports an exit with those threads alive as a
# crash on an empty input; see README.md).
set -uo pipefail
cd "$(dirname "$0")"
secs=${1:-60}
shift || true
export RUSTC_BOOTSTRAP=1

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz/run.sh: cargo-fuzz is not installed (cargo install cargo-fuzz)" >&2
  exit 2
fi
if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo fuzz list)
fi

# A smoke run (a minute a target or less) builds the manifest's dev profile (`--dev`):
# everything at opt-level 0, the library too, whose instrumented build at opt-level 3 is
# half of the whole build; inputs run several times slower. Longer runs build the release
# profile: the library at opt-level 3, its dependencies at 1.
profile=()
if [ "$secs" -le 60 ]; then
  profile=(--dev)
fi

echo "== building ${#targets[@]} fuzz targets ${profile[*]:-(release)}"
start=$SECONDS
cargo fuzz build -a "${profile[@]}" || exit 2
echo "   built in $((SECONDS - start)) s"
if [ "${FUZZ_BUILD_ONLY:-0}" = 1 ]; then
  exit 0
fi

# The targets write their inputs to a scratch directory; keep those out of /tmp for good.
scratch=$(mktemp -d "${PWD}/target/scratch.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# One target's run: its log in $scratch/<target>.log, its exit code in $scratch/<target>.rc.
run_target() {
  local t=$1
  mkdir -p "corpus/$t" "artifacts/$t"
  if [ -d "seeds/$t" ]; then
    cp -n "seeds/$t"/* "corpus/$t"/ 2>/dev/null || true
  fi
  TMPDIR="$scratch" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" cargo fuzz run -a "${profile[@]}" "$t" "corpus/$t" -- \
    -max_total_time="$secs" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=30 \
    -print_final_stats=1 -detect_leaks=0 >"$scratch/$t.log" 2>&1
  echo $? >"$scratch/$t.rc"
}

# FUZZ_JOBS targets at a time (default 1): each target is one process on one core, so on a
# machine with spare cores they run side by side, each for the same time.
jobs=${FUZZ_JOBS:-1}
running=0
for t in "${targets[@]}"; do
  echo "== $t: ${secs} s"
  run_target "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait

# A timeout of one target while others share the cores may be the machine, not the input:
# the input runs alone three times, each within the same timeout (exit 0: it always did).
replay_in_time() {
  local t=$1 input=$2 i start
  for i in 1 2 3; do
    start=$SECONDS
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" TMPDIR="$scratch" \
      cargo fuzz run -a "${profile[@]}" "$t" "$input" -- -timeout=30 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
      -detect_leaks=0 >"$scratch/$t.replay.log" 2>&1 || {
      echo "   $t: the input timed out or crashed again alone (run $i)"
      return 1
    }
    echo "   $t: the input ran alone in $((SECONDS - start)) s (run $i)"
  done
}

failed=0
summary=()
for t in "${targets[@]}"; do
  log="$scratch/$t.log"
  rc=$(cat "$scratch/$t.rc" 2>/dev/null || echo 1)
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  execs=${execs:-0}
  if [ "$rc" -eq 0 ]; then
    line="$t: $execs executions, 0 crashes"
  else
    artifact=$(grep -o 'Test unit written to [^ ]*' "$log" | tail -1 | sed 's/Test unit written to //')
    if grep -q 'ERROR: libFuzzer: timeout' "$log" && [ -n "$artifact" ] && replay_in_time "$t" "$artifact"; then
      line="$t: $execs executions, 0 crashes (one input passed the timeout while ${jobs} targets ran, and ran in time alone 3 times; kept: $artifact)"
    else
      failed=1
      line="$t: $execs executions, CRASH (exit $rc) ${artifact:+-> $artifact}"
    fi
    grep -E -A12 'panicked at|ERROR: libFuzzer|out-of-memory|deadly signal' "$log" | head -40 | sed 's/^/   /'
    grep -E 'SUMMARY' "$log" | head -2 | sed 's/^/   /'
    if [ -n "$artifact" ] && [ -f "$artifact" ] && [ "$(stat -c %s "$artifact")" -le 16384 ]; then
      echo "   the input, base64 (base64 -d > input; cargo fuzz run -a $t input):"
      base64 -w 100 "$artifact" | sed 's/^/   /'
    fi
  fi
  summary+=("$line")
done

echo "== fuzz summary (${secs} s per target, ${jobs} at a time)"
printf '   %s\n' "${summary[@]}"
exit $failed
