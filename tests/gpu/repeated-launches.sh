# shellcheck shell=bash
# The gpu group repeated-launches: tests/run sources this file when the group is to run
# (see its table), so that its lines are counted there.
#
# Launches back to back: a step that leaves state behind fails here.
for s in 06 07 08; do
    ./step$s --csv --n 1000,2^20+3 --reps 1000 2>>"$LOGS/gpu.err" |
        python3 tests/csvcheck.py "gpu/repeated-launches/step$s x1000" --rows 2 --ok all --distinct 1 | collect
done
