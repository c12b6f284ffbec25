# shellcheck shell=bash
# The gpu group baseline: tests/run sources this file when the group is to run
# (see its table), so that its lines are counted there.
#
# The library baseline used by `make compare` builds and is correct.
if $MAKE bench >"$LOGS/build_baseline.log" 2>&1; then
    pass "gpu/baseline/build"
else
    fail "gpu/baseline/build" "$(grep -m3 -E '(^|[^W])[Ee]rror' "$LOGS/build_baseline.log" | tr '\n' ' ')"
fi
if [ -x build/bench/cub_sum ]; then
    build/bench/cub_sum --csv --n 1,1000,2^20+3,2^24+1 --reps 5 2>>"$LOGS/gpu.err" |
        python3 tests/csvcheck.py "gpu/baseline/cub" --rows 4 --ok all --distinct 1 | collect
fi
