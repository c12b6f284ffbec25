# shellcheck shell=bash
# The host group alike: tests/run sources this file when the group is to run
# (see its table), so that its lines are counted there.
#
# Copies that stay alike, and a copy changed on purpose must be caught.
python3 tests/alike.py | collect
broken=$(mktemp -d)
mkdir -p "$broken/steps" "$broken/lab/claims"
cp steps/03_*.cu steps/06_*.cu "$broken/steps/"
cp lab/claims/grid_sync.cu lab/claims/one_per_thread.cu "$broken/lab/claims/"
sed '/^__device__ elem_t thread_sum(/,/^}/ s/sum += (v\[k\].x + v\[k\].y) + (v\[k\].z + v\[k\].w);/sum += v[k].x + v[k].y + v[k].z + v[k].w;/' \
    steps/07_*.cu > "$broken/steps/$(basename steps/07_*.cu)"
out=$(python3 tests/alike.py --root "$broken")
case "$out" in
*"FAIL alike/steps/07_"*"thread_sum"*) pass "alike/a changed thread_sum in step 07 is caught" ;;
*) fail "alike/a changed thread_sum in step 07 is caught" "$out" ;;
esac
case "$out" in      # and the lab's copy of step 07 no longer matches it
*"FAIL alike/lab/claims/grid_sync.cu vs 07_"*"thread_sum"*) pass "alike/the lab's copy of a changed step is caught" ;;
*) fail "alike/the lab's copy of a changed step is caught" "$out" ;;
esac
# Every quoted include found, and one pointing where a header used to be caught.
python3 tests/includes.py | collect
mkdir -p "$broken/answers"
sed 's|#include "nccl_comms.cuh"|#include "../steps/nccl_comms.cuh"|' answers/09_allreduce.cu >"$broken/answers/09_allreduce.cu"
out=$(python3 tests/includes.py --root "$broken")
case "$out" in
*"FAIL alike/includes/answers/09_allreduce.cu"*) pass "alike/includes: a header included from where it is not is caught" ;;
*) fail "alike/includes: a header included from where it is not is caught" "$out" ;;
esac
# Each step's reading path within its cap, and a step pushed past it caught.
python3 tests/reading_path.py --check | collect
mkdir -p "$broken/common"
cp common/*.h "$broken/common/"
{ cat steps/one_block.cuh; printf '\n%.0s' $(seq 30); } >"$broken/steps/one_block.cuh"
out=$(python3 tests/reading_path.py --check --root "$broken")
case "$out" in
*"FAIL alike/reading-path/step06"*) pass "alike/reading-path: a step over its cap is caught" ;;
*) fail "alike/reading-path: a step over its cap is caught" "$out" ;;
esac
rm -rf "$broken"
