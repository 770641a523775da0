# Shared by the benchmark scripts (source it from the repository root, with ROOT and SCRATCH
# set): the fimdup binary and the peers corpus.

# Sets FIMDUP_BIN (builds ${CARGO_TARGET_DIR:-target}/release/fimdup unless it is set) and
# checks /usr/bin/time.
fimdup_bin() {
  if [ -z "${FIMDUP_BIN:-}" ]; then
    cargo build --release --features full
    FIMDUP_BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release/fimdup
  fi
  [ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
}

# Sets CORPUS to $SCRATCH/corpus, the corpus of eval/peers/corpus.json, regenerated only when
# that file or the binary's version changes.
peers_corpus() {
  mkdir -p "$SCRATCH"
  local stamp
  stamp="$(sha256sum eval/peers/corpus.json | cut -d' ' -f1) $("$FIMDUP_BIN" --version)"
  CORPUS=$SCRATCH/corpus
  if [ ! -f "$CORPUS/stamp" ] || [ "$(cat "$CORPUS/stamp")" != "$stamp" ]; then
    rm -rf "$CORPUS"
    "$FIMDUP_BIN" gen --config eval/peers/corpus.json --out "$CORPUS"
    echo "$stamp" > "$CORPUS/stamp"
  fi
}
