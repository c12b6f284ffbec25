# shellcheck shell=bash
# The gpu group claims: tests/run sources this file when the group is to run
# (see its table), so that its lines are counted there.
#
# The programs of make claims: a timing is only worth something if the sum
# is right. Every one at edge sizes, two seeds (the float build: they exist
# to be timed); the row sums also with rows that do not start 16-byte
# aligned, and with a short last row after aligned ones.
if $MAKE claims-programs >"$LOGS/build_claims.log" 2>&1; then
    pass "gpu/claims/build"
else
    fail "gpu/claims/build" "$(grep -m3 -E '(^|[^W])[Ee]rror' "$LOGS/build_claims.log" | tr '\n' ' ')"
fi
for p in $($MAKE -s print-claims-builds | awk '$1 != "multi_device" { print $1 }'); do
    build/claims/$p --check-only --csv --n 1,33,1000,65537,2^20+3 --seed 1,2 2>>"$LOGS/gpu.err" |
        python3 tests/csvcheck.py "gpu/claims/$p" --rows 10 --ok all | collect
done
for p in row_sums_cg_tree row_sums_plain_shfl row_sums_cg_shfl_vec; do
    { build/claims/$p --check-only --csv --n 2^20 --grid 256 2>>"$LOGS/gpu.err"
      build/claims/$p --check-only --csv --n 2^20+3 --grid 256 2>>"$LOGS/gpu.err"
      build/claims/$p --check-only --csv --n 10993 --grid 11 2>>"$LOGS/gpu.err"; } |
        python3 tests/csvcheck.py "gpu/claims/$p rows of 4096, 4097, and 1000 with 993 last" \
            --rows 3 --ok all | collect
done
out=$(build/claims/multi_device 2>&1)
if [ $? = 0 ] && printf '%s\n' "$out" | grep -q '^entry,'; then
    pass "gpu/claims/multi_device: $(printf '%s' "$out" | tail -n +2 | tr '\n' ' ' | cut -c1-200)"
else
    fail "gpu/claims/multi_device" "$(printf '%s' "$out" | tail -2 | tr '\n' ' ')"
fi
