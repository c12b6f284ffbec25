#!/usr/bin/env bash
# exact_timeline.sh: step 10 with the GPU's timer stamped in the kernel: when
# each warp's last loads land, when its last group is in its digits, when the
# last block has its words, has met the others and has rounded
# (exact_timeline.py says how; lab/exact-tail/README.md, what it showed).
# Needs a GPU, NCCL and MPI; a minute. Built, as exact_variants.sh builds,
# from step 10 as measured (commit 7b31581, in $TREE: tree.sh), not from
# steps/ as it is now.
#
#   bash lab/exact-tail/exact_timeline.sh [SIZES]      (default "2^24 2^25 2^26")
#   FROM=build/lab/exact-tail/7b31581/build/variants/ticket bash lab/exact-tail/exact_timeline.sh
#                         (the step as it was, with its ticket; exact_variants.sh makes that copy)
#   BUILD_ONLY=1 bash lab/exact-tail/exact_timeline.sh (make both programs, run nothing)
set -u
cd "$(dirname "$0")/../.." || exit 2
. lab/exact-tail/tree.sh
FROM=${FROM:-$TREE/steps}
V=$TREE/build/variants
python3 lab/exact-tail/exact_timeline.py make "$FROM" "$V" || exit 2
out=$V/timeline/runs
mkdir -p "$out"
if ! make -C "$TREE" -j"$(nproc 2>/dev/null || echo 2)" --no-print-directory build/variants/timeline/step10 \
        build/variants/timeline_lo/step10 >"$out/build.log" 2>&1; then
    grep -m5 -E 'error|Error' "$out/build.log" >&2
    exit 3
fi
[ -n "${BUILD_ONLY:-}" ] && exit 0
files=()
for v in timeline timeline_lo; do
    for n in ${1:-2^24 2^25 2^26}; do
        for r in 1 2; do
            f="$out/$v.$(echo "$n" | tr -c '0-9\n' '_').$r.txt"
            "$V/$v/step10" --gpus 1 --n "$n" --reps 20 >"$f" 2>&1
            files+=("$f")
        done
    done
done
python3 lab/exact-tail/exact_timeline.py table "${files[@]}"
