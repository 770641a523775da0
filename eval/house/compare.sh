#!/usr/bin/env bash
# Compares the outputs written by eval/house/outputs.sh for two builds: clusters.jsonl and
# pairs.csv byte for byte, and the deterministic columns of the sweeps' results.csv.
set -euo pipefail
A=${1:?usage: compare.sh OLD_OUT NEW_OUT}
B=${2:?usage: compare.sh OLD_OUT NEW_OUT}
same=0; diff=0
while IFS= read -r f; do
  rel=${f#"$A"/}
  if cmp -s "$f" "$B/$rel"; then same=$((same + 1)); else diff=$((diff + 1)); echo "differs: $rel"; fi
done < <(find "$A" \( -name clusters.jsonl -o -name pairs.csv -o -name results.det.csv \) -not -path '*/corpora/*' | sort)
echo "$same identical, $diff different"
[ "$diff" -eq 0 ]
