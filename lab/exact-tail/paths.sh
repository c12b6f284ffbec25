#!/usr/bin/env bash
# Step 10 with FP64 groups and with integer groups, on this GPU, at 2^20,
# 2^24 and 2^28: the file chapter 10's "FP64 or integers" reads.
#   bash lab/exact-tail/paths.sh results/<gpu>/exact_paths.csv
set -euo pipefail
out=${1:?usage: bash lab/exact-tail/paths.sh results/<gpu>/exact_paths.csv}
make -s step10
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for g in 1 0; do
  name=$([ "$g" = 1 ] && echo fp64 || echo int64)
  EXACT_FP64=$g ./step10 --csv --n 2^20,2^24,2^28 \
    | awk -v g="$name" 'NR==1{print $0",groups"; next} {print $0","g}' > "$tmp/$g.csv"
done
{ cat "$tmp/1.csv"; tail -n +2 "$tmp/0.csv"; } > "$out"
echo "wrote $out"
