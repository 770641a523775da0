# shellcheck shell=bash
# The Python package for the tests, as a user gets it: an abi3 wheel built once and installed
# where no Rust toolchain can be found.
#
# Sourced by .ci/run from the repository root, under `set -euo pipefail`:
#
#     source .ci/python.sh SCRATCH
#
# SCRATCH: an existing directory the caller removes afterwards. In it:
#   build-venv/  maturin (pinned) and nothing else;
#   wheels/      the wheel, `maturin build --release -m python/Cargo.toml`, built in the
#                workspace's target directory (target/, or CARGO_TARGET_DIR) with the
#                library's features of `cargo test --release --features full` (`--features
#                fimdup/default,fimdup/full`): the tests' build then reuses the library
#                compiled here (a third of the whole build) instead of compiling it a second
#                time with the package's own two features. python/Cargo.toml asks the shared
#                dependencies for the features the tests turn on, so they too are compiled
#                once (the wheel build prints how many crates it compiled). The package's
#                own feature set (parquet, object-store) is compiled and linted by the
#                clippy step; the Python code and its calls are the same in both;
#   test-venv/   a fresh virtual environment made and filled with a PATH that holds no cargo,
#                rustc or rustup: the test dependencies (while the wheel builds), then the wheel with
#                `--only-binary=:all: --no-index` (pip can neither build it from source nor
#                fetch another fimdup).
# Exports FIMDUP_PYTHON (test-venv's python: tests/it runs the package's pytest suite and the
# interoperability scripts with it) and FIMDUP_WHEEL (the wheel's path).

_fimdup_ci_python() {
  local scratch=${1:?usage: source .ci/python.sh SCRATCH_DIR}
  local maturin_version=1.16.0
  local test_deps=(pyarrow==26.0.1 numpy pandas pytest datasets pyfim==6.28 "moto[server]")
  local t python wheel log norust d crates
  # the interpreter itself, not a shim that needs the caller's PATH
  python=$(python3 -c 'import sys; print(sys.executable)')

  t=$SECONDS
  "$python" -m venv "$scratch/build-venv"
  "$scratch/build-venv/bin/pip" install -q "maturin==$maturin_version"
  echo "== python: build venv with maturin $maturin_version ($((SECONDS - t)) s)"

  # PATH without the directories that hold a Rust toolchain
  norust=
  local dirs
  IFS=: read -ra dirs <<<"$PATH"
  for d in "${dirs[@]}"; do
    if [ -n "$d" ] && ! [ -e "$d/cargo" ] && ! [ -e "$d/rustc" ] && ! [ -e "$d/rustup" ]; then
      norust=${norust:+$norust:}$d
    fi
  done
  if env PATH="$norust" sh -c 'command -v cargo || command -v rustc || command -v rustup'; then
    echo "ci: a Rust toolchain is still on the PATH meant to have none ($norust)" >&2
    return 1
  fi
  # The test venv and its dependencies are made while the wheel builds (pip waits on the
  # network, maturin on the cores).
  local deps_log=$scratch/test-deps.log deps_pid
  (
    env PATH="$norust" "$python" -m venv "$scratch/test-venv" &&
      env PATH="$norust" "$scratch/test-venv/bin/pip" install -q "${test_deps[@]}"
  ) >"$deps_log" 2>&1 &
  deps_pid=$!
  t=$SECONDS
  log=$scratch/wheel-build.log
  "$scratch/build-venv/bin/maturin" build --release -m python/Cargo.toml \
    --features fimdup/default,fimdup/full --out "$scratch/wheels" 2>&1 | tee "$log"
  crates=$(grep -c '^ *Compiling ' "$log" || true)
  local nullglob wheels
  nullglob=$(shopt -p nullglob || true)
  shopt -s nullglob
  wheels=("$scratch"/wheels/fimdup-*-cp310-abi3-*.whl)
  eval "$nullglob"
  if [ "${#wheels[@]}" -ne 1 ] || [ "$(find "$scratch/wheels" -type f | wc -l)" -ne 1 ]; then
    echo "ci: expected one abi3 wheel fimdup-*-cp310-abi3-*.whl in $scratch/wheels:" >&2
    ls -l "$scratch/wheels" >&2
    return 1
  fi
  wheel=${wheels[0]}
  # exactly the package's files (module, stub, marker, extension) besides the metadata:
  # no tests, no data
  "$python" - "$wheel" <<'EOF'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
pkg = sorted(n for n in names if not n.split("/")[0].endswith(".dist-info"))
want = ["fimdup/__init__.py", "fimdup/_fimdup.abi3.so", "fimdup/_fimdup.pyi", "fimdup/py.typed"]
if pkg != want:
    sys.exit(f"ci: the wheel holds {pkg}, expected exactly {want} (and its .dist-info)")
EOF
  echo "== python: wheel $(basename "$wheel"), $crates crates compiled ($((SECONDS - t)) s)"

  t=$SECONDS
  if ! wait "$deps_pid"; then
    echo "ci: the test venv or its dependencies (${test_deps[*]}) could not be installed:" >&2
    cat "$deps_log" >&2
    return 1
  fi
  env PATH="$norust" "$scratch/test-venv/bin/pip" install -q --only-binary=:all: --no-index "$wheel"
  # the package imported from the venv (the wheel), not from the checkout
  (cd / && env PATH="$norust" "$scratch/test-venv/bin/python" -c '
import sys, fimdup
assert fimdup.__file__.startswith(sys.prefix), fimdup.__file__
print(f"   fimdup {fimdup.__version__} (git {fimdup.__git_hash__}) from {fimdup.__file__}")')
  echo "== python: test venv with ${test_deps[*]} (installed while the wheel built) and the wheel, no Rust on PATH ($((SECONDS - t)) s after the wheel)"

  export FIMDUP_PYTHON=$scratch/test-venv/bin/python
  export FIMDUP_WHEEL=$wheel
}

_fimdup_ci_python "$@"
unset -f _fimdup_ci_python
