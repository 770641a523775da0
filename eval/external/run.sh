#!/usr/bin/env bash
# fimdup's methods and datasketch (a peer, through `--external`) in one sweep report on the
# default corpus: the same tables, plots and error analysis. Writes
# eval/results/external/ (results.csv, errors.csv, report.md, *.svg).
#
# Usage: eval/external/run.sh
# Env:   FIMDUP_BIN    a fimdup binary (default: cargo build --release --features full, target/release/fimdup)
#        PEERS_VENV    the virtual environment (default: ${TMPDIR:-/tmp}/fimdup-peers-venv)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
VENV=${PEERS_VENV:-${TMPDIR:-/tmp}/fimdup-peers-venv}
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q datasketch==2.0.0

# shellcheck source=eval/common.sh
. eval/common.sh
fimdup_bin

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
docs=datasets/default/docs.jsonl
"$VENV/bin/python" eval/external/datasketch_pairs.py "$docs" "$tmp/datasketch.csv" --threshold 0.5
"$FIMDUP_BIN" sweep "$docs" --truth datasets/default/truth.csv --html \
    --methods concept,union-find,lsh --thresholds 0.95:0.5:0.05 --threads 1 \
    --external "datasketch=$tmp/datasketch.csv" --out "$tmp/out"
out=eval/results/external
mkdir -p "$out"
cp "$tmp/out"/results.csv "$tmp/out"/errors.csv "$tmp/out"/*.svg "$tmp/out"/report.md "$out/"
sed -i "s#$tmp/datasketch.csv#(written by eval/external/datasketch_pairs.py)#g; s#$(pwd)/##g" "$out/report.md"
echo "results in $out" >&2
