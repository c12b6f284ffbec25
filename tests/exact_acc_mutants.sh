#!/usr/bin/env bash
# exact_acc_mutants.sh: step 10's CPU test must fail on each broken copy of
# its accumulator (make exact-acc-mutants runs this).
#
#   bash tests/exact_acc_mutants.sh [BUILD_DIR]
#
# Each tests/mutants/exact/NAME.sed turns steps/exact_acc.cuh into a broken
# copy in BUILD_DIR/mutants/exact/NAME/ (a sed that changes nothing is itself
# a failure); tests/exact_acc_test.cu is built against the copy, float and
# float without FP64, and run with tests/exact_acc_oracle.py. A mutant is
# caught when the test or the oracle fails. Prints PASS/FAIL per mutant and
# build, then "N passed, N failed"; exits 1 if a mutant went uncaught.
set -u
cd "$(dirname "$0")/.." || exit 2
build=${1:-build}
CXX=${CXX:-g++}
CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc)")")}
passed=0 failed=0
for sed_file in tests/mutants/exact/*.sed; do
    name=$(basename "$sed_file" .sed)
    dir=$build/mutants/exact/$name
    mkdir -p "$dir"
    changed=0
    for h in steps/exact_*.cuh; do            # the accumulator's headers, each through the sed
        sed -f "$sed_file" "$h" > "$dir/$(basename "$h")"
        cmp -s "$dir/$(basename "$h")" "$h" || changed=1
    done
    if [ $changed = 0 ]; then
        echo "FAIL exact-acc-mutant/$name: the sed changes nothing in steps/exact_*.cuh"
        failed=$((failed + 1))
        continue
    fi
    for variant in float no_fp64; do
        flags=""
        [ "$variant" = no_fp64 ] && flags=-DEXACT_NO_FP64
        test_bin=$dir/test_$variant
        if ! $CXX -std=c++20 -O2 -Wno-unknown-pragmas -x c++ $flags -I"$CUDA_HOME/include" -I"$CUDA_HOME/include/cccl" -I"$dir" -o "$test_bin" \
                tests/exact_acc_test.cu 2>"$dir/build_$variant.log"; then
            echo "FAIL exact-acc-mutant/$name/$variant: does not build ($(head -1 "$dir/build_$variant.log"))"
            failed=$((failed + 1))
            continue
        fi
        "$test_bin" "$dir/cases_$variant.bin" >"$dir/test_$variant.log" 2>&1
        test_rc=$?
        oracle_rc=0
        if [ -s "$dir/cases_$variant.bin" ]; then
            python3 tests/exact_acc_oracle.py "$dir/cases_$variant.bin" >"$dir/oracle_$variant.log" 2>&1
            oracle_rc=$?
        fi
        if [ $test_rc -ne 0 ] || [ $oracle_rc -ne 0 ]; then
            why=$(grep -h -m1 FAIL "$dir/test_$variant.log" "$dir/oracle_$variant.log" 2>/dev/null | head -1)
            echo "PASS exact-acc-mutant/$name/$variant: caught (${why:-exit $test_rc/$oracle_rc})"
            passed=$((passed + 1))
        else
            echo "FAIL exact-acc-mutant/$name/$variant: the test and the oracle both passed"
            failed=$((failed + 1))
        fi
    done
done
echo "exact-acc-mutants: $passed passed, $failed failed"
[ $failed -eq 0 ]
