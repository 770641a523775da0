#!/usr/bin/env bash
# Every method on every labeled corpus: the default corpus (datasets/default), Clough &
# Stevenson's plagiarised answers (datasets/clough_stevenson_2011, 95 labelled pairs) and a
# generated corpus (eval/peers/corpus.json, 10,000 documents, truth = exact resemblance).
# Per corpus: best F1 with its bootstrap interval, precision at matched recall (Henzinger's
# comparison), and the paired comparisons of simhash and henzinger with the others.
# Writes eval/results/methods.md.
#
# Usage: eval/methods/run.sh [--out FILE]
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
out=eval/results/methods.md
[ "${1:-}" = "--out" ] && out=$2
cargo build --release --features full --quiet
bin="${CARGO_TARGET_DIR:-$root/target}/release/fimdup"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
methods=concept,union-find,lsh,super-shingle,exact,simhash,henzinger
grid=0.3:0.9:0.1

# The default corpus: its own truth (a pair is a duplicate when the generator made it one).
"$bin" sweep datasets/default/docs.jsonl --truth datasets/default/truth.csv \
    --methods "$methods" --thresholds "$grid" --bootstrap 200 --out "$tmp/default" >/dev/null

# Clough & Stevenson: labelled pairs only, word 3-shingles, resamples of the five tasks (as
# eval/clough/run.sh).
data=datasets/clough_stevenson_2011
LC_ALL=C awk -F'\t' '
    NR == 1 { print "a,b,plagiarised"; next }
    { a = $1; b = $2; if (b < a) { t = a; a = b; b = t }; print a "," b "," $5 }' \
    "$data/pairs_vs_source.tsv" > "$tmp/clough-truth.csv"
"$bin" sweep "$data/docs.jsonl" --truth "$tmp/clough-truth.csv" --truth-rule 'plagiarised=1' \
    --labeled-only --unit word --shingle-len 3 --methods "$methods" --thresholds "$grid" \
    --bootstrap 200 --group-by task --out "$tmp/clough" >/dev/null

# A generated corpus: truth = every pair of exact resemblance >= 0.8.
"$bin" gen --config eval/peers/corpus.json --docs 10000 --out "$tmp/gen" >/dev/null
"$bin" sweep "$tmp/gen/docs.jsonl" --truth "$tmp/gen/truth.csv" --truth-rule 'resemblance>=0.8' \
    --methods "$methods" --thresholds "$grid" --bootstrap 200 --out "$tmp/generated" >/dev/null

python3 eval/methods/summarize.py "$out" \
    "default:datasets/default (1,500 documents, the generator's duplicate pairs):$tmp/default" \
    "clough:Clough & Stevenson 2011 (95 labelled answer-source pairs, word 3-shingles, resamples of tasks):$tmp/clough" \
    "generated:eval/peers/corpus.json, 10,000 documents (truth: exact resemblance >= 0.8):$tmp/generated"
