# shellcheck shell=bash
# The gpu group determinism: tests/run sources this file when the group is to run
# (see its table), so that its lines are counted there.
#
# Deterministic steps: identical bits over 22 runs (the checked run, a
# warm-up and 20 timed). The exact build of every step must be identical
# too, whatever its order. The harness itself fails a step whose declared
# determinism does not hold.
DET_STEPS=$STEPS
[ -x step10 ] && [ -x build/exact/step10 ] && DET_STEPS="$DET_STEPS 10"    # on every GPU here
for s in $DET_STEPS; do
    if grep -q '\.deterministic = 1' steps/${s}_*.cu || [ "$s" = 10 ]; then   # (step 10: exact)
        ./step$s --csv --n 1000,2^13,2^20+3,2^26 --reps 20 2>>"$LOGS/gpu.err" |
            python3 tests/csvcheck.py "gpu/determinism/step$s/float" --rows 4 --ok all --distinct 1 | collect
    else
        ./step$s --csv --n 1000,2^20+3 --reps 20 2>>"$LOGS/gpu.err" |
            python3 tests/csvcheck.py "gpu/determinism/step$s/float (not claimed)" --rows 2 --ok all | collect
    fi
    build/exact/step$s --csv --n 1000,2^20+3 --reps 20 2>>"$LOGS/gpu.err" |
        python3 tests/csvcheck.py "gpu/determinism/step$s/exact" --rows 2 --ok all --distinct 1 | collect
done
