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
#   inputs/cli/...      ./step03 --input-file on every kind of bad file: one
#                       line naming the file and the problem, exit 2, before
#                       any GPU is asked for, and no file written
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
# ---- the user's file, through a step --------------------------------------------
# bad_file NAME REGEX: ./step03 on $tmp/files/NAME says REGEX in one line
# (then the usage errors' hint), exit 2.
bad_file() {
    local name=$1 regex=$2 out rc
    out=$(./step03 --check-only --input-file "$tmp/files/$name" 2>&1 >/dev/null)
    rc=$?
    if [ $rc = 2 ] && [ "$(printf '%s\n' "$out" | grep -c .)" = 2 ] && printf '%s' "$out" | head -1 | grep -Eq -- "$regex" &&
       printf '%s' "$out" | tail -1 | grep -q "^Try '.*--help'"; then
        pass "cli/$name: exit 2, one line: $(printf '%s' "$out" | head -1 | cut -c1-110)"
    else
        fail "cli/$name" "exit $rc, expected 2, one line matching '$regex' and the hint: $out"
    fi
}
if [ -x ./step03 ]; then
    f=$tmp/files
    mkdir "$f"
    : >"$f/empty.f32"
    printf 'abcdefghij' >"$f/ten.f32"
    npy() {    # npy FILE DICT DATA_BYTES: a version 1.0 .npy with that header
        python3 - "$@" <<'PY'
import struct, sys
path, d, data = sys.argv[1], sys.argv[2], int(sys.argv[3])
h = d + " " * ((64 - (10 + len(d) + 1) % 64) % 64) + "\n"
open(path, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + b"\0" * data)
PY
    }
    npy "$f/f8.npy" "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }" 32
    npy "$f/2d.npy" "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }" 16
    npy "$f/short.npy" "{'descr': '<f4', 'fortran_order': False, 'shape': (100,), }" 8
    head -c 12 "$f/f8.npy" >"$f/cut.npy"
    printf 'not a numpy file' >"$f/plain.npy"
    before=$(ls "$f" | sort)
    bad_file empty.f32 "empty"
    bad_file ten.f32 "10 bytes is not a whole number of floats"
    bad_file f8.npy "'<f8'.*is not float32"
    bad_file 2d.npy "not one-dimensional"
    bad_file short.npy "truncated"
    bad_file cut.npy "truncated .npy header|header"
    bad_file plain.npy "npy"
    if [ "$(ls "$f" | sort)" = "$before" ]; then
        pass "cli/nothing written beside the files"
    else
        fail "cli/nothing written beside the files" "$(ls "$f")"
    fi
else
    fail "cli" "./step03 is not built"
fi
exit $failed
