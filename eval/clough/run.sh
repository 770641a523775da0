#!/usr/bin/env bash
# Sweeps fimdup on the Clough & Stevenson (2011) corpus of plagiarised short answers:
# answers against their Wikipedia source, cut/light/heavy positive, non negative.
# Writes eval/results/clough/{resemblance,containment}/ (results.csv, *.svg, report.md), then
# runs cv.py: the best F1 chosen on some tasks and reported on the others (cv.md, cv.csv).
#
# Usage: eval/clough/run.sh            (from anywhere; needs cargo)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
data="${CLOUGH_DATA:-$root/datasets/clough_stevenson_2011}"
out="$root/eval/results/clough"
[ -f "$data/docs.jsonl" ] && [ -f "$data/pairs_vs_source.tsv" ] || {
    echo "run.sh: $data/docs.jsonl or pairs_vs_source.tsv is missing" >&2
    exit 2
}

(cd "$root" && cargo build --release --features full --quiet)
bin="$root/target/release/fimdup"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# pairs_vs_source.tsv -> truth CSV: a < b in id string order (byte order, as fimdup sorts);
# plagiarised and the similarity columns stay numeric; category is text (no rule reads it).
truth="$tmp/truth.csv"
LC_ALL=C awk -F'\t' '
    NR == 1 { print "a,b,plagiarised,category,jaccard_w5,containment_w5_answer_in_source"; next }
    {
        a = $1; b = $2
        if (b < a) { t = a; a = b; b = t }
        print a "," b "," $5 "," $4 "," $7 "," $8
    }' "$data/pairs_vs_source.tsv" > "$truth"
n=$(($(wc -l < "$truth") - 1))
[ "$n" -eq 95 ] || { echo "run.sh: expected 95 labelled pairs, got $n" >&2; exit 2; }

# Word 3-shingles: answers are 200-300 words and light/heavy revisions keep few 5-word runs
# (mean containment of heavy answers in the source is 0.196 at w=5); 3-shingles keep more of
# the reused phrasing. Images: bottom-k n=128 (answers have ~200-300 shingles); mod-m m=4 keeps
# about a quarter of the shingles (~60 per answer) for union-find's containment estimate.
common=(--truth "$truth" --truth-rule 'plagiarised=1' --labeled-only
        --unit word --shingle-len 3 --thresholds 0.9:0.1:0.1 --threads 1)

"$bin" sweep "$data/docs.jsonl" "${common[@]}" --measure resemblance \
    --methods concept,union-find,lsh,super-shingle,exact --scheme bottom-k --size 128 \
    --out "$tmp/resemblance"
"$bin" sweep "$data/docs.jsonl" "${common[@]}" --measure containment \
    --methods exact,union-find --scheme mod-m --modulus 4 \
    --out "$tmp/containment"

for m in resemblance containment; do
    mkdir -p "$out/$m"
    cp "$tmp/$m"/results.csv "$tmp/$m"/errors.csv "$tmp/$m"/*.svg "$tmp/$m"/report.md "$out/$m/"
    # The corpus path is machine-specific; print it relative to the repository.
    sed -i "s#$data#datasets/clough_stevenson_2011#g; s#$tmp/truth.csv#(pairs_vs_source.tsv converted by eval/clough/run.sh)#g" "$out/$m/report.md"
done
echo "results in $out" >&2

# Cross-validated best F1 (shingle length and threshold chosen on other tasks); cv.md, cv.csv.
FIMDUP="$bin" CLOUGH_DATA="$data" python3 "$here/cv.py"
