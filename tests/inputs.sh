#!/usr/bin/env bash
# inputs.sh: the input distributions, the exact sum and the user's file,
# on the host (group "inputs" of tests/run, which counts the lines).
#
#   inputs/...          every check of build/tests/unit_inputs (tests/unit_*.c)
#   inputs/oracle/...   the same sums worked out again with Python's fractions
#                       (tests/exact_oracle.py), case by case
#   inputs/mutant       a reference that truncates instead of rounding to
#                       nearest must fail both the checks and the oracle
#   inputs/asan+ubsan   every check again under the sanitizers, none reporting
#
# Prints one PASS or FAIL line per check; exits 1 if any failed. Files go to
# a temporary folder, removed at the end.
set -u
cd "$(dirname "$0")/.." || exit 1
B=build/tests
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
pass() { echo "PASS inputs/$1"; }
fail() { failed=1; echo "FAIL inputs/$1: $2"; }

for p in unit_inputs unit_inputs_mutant unit_inputs_san; do
    [ -x "$B/$p" ] || { fail "$p" "not built (make unit)"; exit 1; }
done

mkdir "$tmp/unit" "$tmp/cases" "$tmp/mutant" "$tmp/mutant_cases" "$tmp/san"
"$B/unit_inputs" "$tmp/unit" || failed=1

if "$B/unit_inputs" --dump "$tmp/cases"; then
    python3 tests/exact_oracle.py "$tmp/cases" || failed=1
else
    fail "oracle" "unit_inputs --dump could not write the cases"
fi

caught=$("$B/unit_inputs_mutant" "$tmp/mutant" | grep -c '^FAIL')
if [ "$caught" -gt 0 ]; then
    pass "mutant: exact_round truncating instead of rounding to nearest fails $caught checks"
else
    fail "mutant" "exact_round truncating instead of rounding to nearest passes every check"
fi
if "$B/unit_inputs_mutant" --dump "$tmp/mutant_cases"; then
    python3 tests/exact_oracle.py "$tmp/mutant_cases" --mutant || failed=1
else
    fail "oracle (mutant)" "unit_inputs_mutant --dump could not write the cases"
fi

out=$(ASAN_OPTIONS=halt_on_error=1:exitcode=86 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=87 \
      "$B/unit_inputs_san" "$tmp/san" 2>&1)
rc=$?
report=$(printf '%s\n' "$out" | grep -m1 -E 'ERROR: (Address|Leak)Sanitizer|runtime error:|^FAIL')
if [ $rc -eq 0 ] && [ -z "$report" ]; then
    pass "asan+ubsan: all $(printf '%s\n' "$out" | grep -c '^PASS') checks pass, no report"
else
    fail "asan+ubsan" "exit $rc: ${report:-no report}"
fi
exit $failed
