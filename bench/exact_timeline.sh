#!/usr/bin/env bash
# exact_timeline.sh: step 10 with the GPU's timer stamped in the kernel: when
# each warp's last loads land, when its last group is in its digits, when the
# last block has its words, has met the others and has rounded
# (bench/exact_timeline.py says how; results/NOTES.md, "Step 10: the ending,
# stamped", says what it showed). Needs a GPU, NCCL and MPI; a minute.
#
#   bash bench/exact_timeline.sh [SIZES]         (default "2^24 2^25 2^26")
#   FROM=build/variants/ticket bash bench/exact_timeline.sh    (the step as it was, with its
#                                                 ticket; bench/exact_variants.sh makes that copy)
set -u
cd "$(dirname "$0")/.." || exit 2
FROM=${FROM:-steps}
python3 bench/exact_timeline.py make "$FROM" || exit 2
out=build/variants/timeline/runs
mkdir -p "$out"
if ! make -j"$(nproc 2>/dev/null || echo 2)" --no-print-directory build/variants/timeline/step10 \
        build/variants/timeline_lo/step10 >"$out/build.log" 2>&1; then
    grep -m5 -E 'error|Error' "$out/build.log" >&2
    exit 3
fi
files=()
for v in timeline timeline_lo; do
    for n in ${1:-2^24 2^25 2^26}; do
        for r in 1 2; do
            f="$out/$v.$(echo "$n" | tr -c '0-9\n' '_').$r.txt"
            build/variants/$v/step10 --gpus 1 --n "$n" --reps 20 >"$f" 2>&1
            files+=("$f")
        done
    done
done
python3 bench/exact_timeline.py table "${files[@]}"
