#!/usr/bin/env bash
# hygiene.sh: the host code checked by tools (no GPU needed; runs in CI).
#
#   sanitizer-canary    the sanitizers, as set up here, do catch a known bug
#   asan+ubsan/unit_*   the unit tests, float and exact, with the harness built
#                       with AddressSanitizer + UndefinedBehaviorSanitizer
#   fuzz-args           random command lines against the argument parser
#                       (tests/fuzz_args.c), under the same sanitizers
#   asan+ubsan/stepNN   every row of tests/misuse.txt against each step with
#                       its host code sanitized: the expected exit, no report
#                       (make test: steps 00 and 10, one of each block rule;
#                       a misuse stops in the harness, before a step's own
#                       code runs; every step with TEST_FULL=1, as make
#                       test-full sets)
#   misuse-table        the table has every kind of misuse (tests/misusecheck.py)
#   function-length     no function over 60 lines in common/, steps/, bench/, lab/
#                       and tests/*.py (tests/funclen.py), and a function of 61
#                       lines is caught
#   cppcheck, clang-tidy  static analysis of common/ and tests/*.c (make
#                       test: clang-tidy on common/ only, its analyzer on the
#                       float build; TEST_FULL=1: all of it)
#
# Prints one PASS, FAIL or SKIP line per check, which tests/run counts; exits
# 1 if any check failed. FUZZ_ITERATIONS, FUZZ_SECONDS and FUZZ_SEED change
# the fuzzer's run (defaults: 500000 iterations, at most 20 s, seed 20240601).
set -u
cd "$(dirname "$0")/.." || exit 1

HYG=build/hygiene
LOGS=build/logs
mkdir -p "$HYG" "$LOGS"
failed=0
pass() { echo "PASS $1${2:+ ($2)}"; }
fail() { failed=1; echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }

# A sanitizer report stops the program with these exit codes (never 0..3,
# the harness's own), and the log is searched for the reports as well.
# protect_shadow_gap=0: CUDA's driver maps memory where ASan would otherwise
# reserve its shadow gap; the driver cannot start without it.
ASAN_BASE=halt_on_error=1:abort_on_error=0:exitcode=86:protect_shadow_gap=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=87
REPORT='ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: (Address|UndefinedBehavior)Sanitizer'

# first_report LOG: the first line of a sanitizer report, for a FAIL line.
first_report() { grep -m1 -E "$REPORT" "$1" | cut -c1-200; }

# ---- build -------------------------------------------------------------------
JOBS=$(nproc 2>/dev/null || echo 2)
FULL=${TEST_FULL:-1}
if [ "$FULL" = 1 ]; then
    multi=" $(make -s --no-print-directory print-multi-steps) "      # (NCCL's steps: not sanitized here)
    HYG_STEPS=$(for f in $(make -s --no-print-directory print-steps print-rows-steps); do
                    case "$multi" in *" $f "*) ;; *) echo "$f" | sed -E 's|steps/([0-9][0-9])_.*|step\1|' ;; esac
                done)
else
    HYG_STEPS="step00 step10"
fi
if ! make -j"$JOBS" --no-print-directory hygiene-build HYG_STEPS="$(echo $HYG_STEPS)" >"$LOGS/build_hygiene.log" 2>&1; then
    fail "hygiene/build" "$(grep -m3 -E '(^|[^W])[Ee]rror' "$LOGS/build_hygiene.log" | tr '\n' ' ')"
    exit 1
fi

# ---- the sanitizers work here ------------------------------------------------
# A program with one bug of each kind, built with the same flags as the
# harness: each must be reported, or every PASS below would mean nothing.
cat >"$HYG/canary.c" <<'EOF'
#include <limits.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    (void)argv;
    char *p = malloc(8);
    volatile int big = INT_MAX;
    switch (argc) {
    case 2: memset(p, 0, 9); break;               /* heap overflow */
    case 3: big = big + argc; break;              /* signed overflow */
    case 4: for (int i = 0; i < 4; i++) p = malloc(8); break;   /* leaks */
    }
    free(p);
    return big == 0;
}
EOF
SAN_FLAGS=$(make -s --no-print-directory print-SAN_FLAGS)
CUDA_INC=$(make -s --no-print-directory print-CUDA_HOME)/include
canary_ok=1
canary_why=
if ! ${CC:-gcc} $SAN_FLAGS -g -o "$HYG/canary" "$HYG/canary.c" 2>"$LOGS/canary_build.log"; then
    canary_ok=0; canary_why="does not build: $(head -1 "$LOGS/canary_build.log")"
else
    ASAN_OPTIONS=$ASAN_BASE:detect_leaks=1 "$HYG/canary" >"$LOGS/canary.log" 2>&1 || canary_ok=0
    [ $canary_ok = 1 ] || canary_why="the clean run failed"
    for bug in "heap overflow:a" "signed overflow:a b" "leak:a b c"; do
        name=${bug%%:*}
        ASAN_OPTIONS=$ASAN_BASE:detect_leaks=1 "$HYG/canary" ${bug#*:} >"$LOGS/canary.log" 2>&1
        rc=$?
        if [ $rc -lt 86 ] || ! grep -Eq "$REPORT" "$LOGS/canary.log"; then
            canary_ok=0; canary_why="$canary_why${canary_why:+; }a $name is not reported (exit $rc)"
        fi
    done
fi
if [ $canary_ok = 1 ]; then
    pass "hygiene/sanitizer-canary" "a heap overflow, a signed overflow and a leak are each reported"
else
    fail "hygiene/sanitizer-canary" "$canary_why"
fi

# ---- unit tests under the sanitizers ------------------------------------------
for kind in float exact; do
    log=$LOGS/hygiene_unit_$kind.log
    ASAN_OPTIONS=$ASAN_BASE:detect_leaks=1 "$HYG/unit_$kind" >"$log" 2>&1
    rc=$?
    checks=$(grep -c '^PASS ' "$log")
    if grep -Eq "$REPORT" "$log"; then
        fail "hygiene/asan+ubsan/unit_$kind" "$(first_report "$log")"
    elif [ $rc != 0 ] || grep -q '^FAIL ' "$log" || [ "$checks" -eq 0 ]; then
        fail "hygiene/asan+ubsan/unit_$kind" "exit $rc, $checks checks passed, $(grep -m1 '^FAIL ' "$log")"
    else
        pass "hygiene/asan+ubsan/unit_$kind" "$checks unit checks, no sanitizer report"
    fi
done

# ---- the argument fuzzer ---------------------------------------------------------
log=$LOGS/hygiene_fuzz.log
seed=${FUZZ_SEED:-20240601}
ASAN_OPTIONS=$ASAN_BASE:detect_leaks=1 "$HYG/fuzz_args" "${FUZZ_ITERATIONS:-500000}" \
    "${FUZZ_SECONDS:-20}" "$seed" >"$log" 2>&1
rc=$?
line=$(grep -m1 -E '^(PASS|FAIL) ' "$log")
if [ "${line#FAIL }" != "$line" ]; then
    failed=1
    echo "$line"                       # the fuzzer's own verdict, with its input
elif grep -Eq "$REPORT" "$log"; then
    fail "hygiene/fuzz-args" "seed $seed: $(first_report "$log")"
elif [ $rc = 0 ] && [ "${line#PASS }" != "$line" ]; then
    echo "$line"
else
    fail "hygiene/fuzz-args" "exit $rc: ${line:-no result line}"
fi

# ---- the misuse table against the sanitized steps --------------------------------
# The same rows as tests/run, checked for the exit code and for silence from
# the sanitizers. Leak checking is off here: a step that stops early exits
# with its CUDA allocations in place, on purpose, and the CUDA driver's own
# memory is not this course's to check. (The unit tests and the fuzzer above
# run with it on.)
for prog in $(for s in $HYG_STEPS; do echo "$HYG/$s"; done); do
    s=${prog##*step}
    rows=0 bad=
    log=$LOGS/hygiene_step$s.log
    : >"$log"
    while IFS='|' read -r which env args want _; do
        case "$which" in "#"* | "") continue ;; esac
        which=$(echo $which)
        env=$(echo $env)
        want=$(echo $want)
        [ "$which" = all ] && which=$s
        case " $which " in *" $s "*) ;; *) continue ;; esac
        rows=$((rows + 1))
        eval "env ASAN_OPTIONS=$ASAN_BASE:detect_leaks=0 $env $prog $args" >"$log.one" 2>&1
        rc=$?
        cat "$log.one" >>"$log"
        if grep -Eq "$REPORT" "$log.one"; then
            bad="$(echo $args): $(first_report "$log.one")"
            break
        elif [ "$rc" != "$want" ]; then
            bad="$(echo $args): exit $rc, expected $want"
            break
        fi
    done <tests/misuse.txt
    rm -f "$log.one"
    if [ -n "$bad" ]; then
        fail "hygiene/asan+ubsan/step$s" "$bad"
    elif [ $rows = 0 ]; then
        fail "hygiene/asan+ubsan/step$s" "no row of tests/misuse.txt names this step"
    else
        pass "hygiene/asan+ubsan/step$s" "$rows misuse rows, each with its exit code, no sanitizer report"
    fi
done

# ---- the table covers every kind of misuse ---------------------------------------
python3 tests/misusecheck.py tests/misuse.txt || failed=1

# ---- no function too long to read at once -------------------------------------------
python3 tests/funclen.py || failed=1

# The check must catch a function one line too long, in C and in Python, and
# pass one of exactly 60 lines: each case is a tree of its own.
# long_c FILE NAME LINES: a C function of LINES lines, braces included.
long_c() {
    { echo "static int $2(int x)"; echo "{"
      for _ in $(seq 4 "$3"); do echo "    x++;"; done; echo "}"; } >"$1"
}
# long_py FILE NAME LINES: a Python function of LINES lines.
long_py() {
    { echo "def $2(x):"; for _ in $(seq 2 "$3"); do echo "    x += 1"; done; } >"$1"
}
selftest=$(mktemp -d)
mkdir -p "$selftest"/{c61,c60,py61}/{common,bench}
long_c "$selftest/c61/common/long.c" sixty_one 61
long_c "$selftest/c60/common/long.c" sixty 60
long_py "$selftest/py61/bench/long.py" sixty_one 61
c61=$(python3 tests/funclen.py --root "$selftest/c61")
c60=$(python3 tests/funclen.py --root "$selftest/c60")
py61=$(python3 tests/funclen.py --root "$selftest/py61")
case "$c61|$c60|$py61" in
"FAIL hygiene/function-length: common/long.c:sixty_one 61 lines"*"|PASS "*"|FAIL hygiene/function-length: bench/long.py:sixty_one 61 lines"*)
    pass "hygiene/self-test/function-length" "a C and a Python function of 61 lines are caught, one of 60 is not" ;;
*)
    fail "hygiene/self-test/function-length" "61 lines in C: $c61; 60 lines: $c60; 61 in Python: $py61" ;;
esac
rm -rf "$selftest"

# ---- static analysis ---------------------------------------------------------------
C_FILES="common/*.c common/inputs/*.c common/multi/*.c common/rows/*.c tests/*.c"
TIDY_FILES="common/*.c common/inputs/*.c common/multi/*.c common/rows/*.c"
[ "$FULL" = 1 ] && TIDY_FILES=$C_FILES
if command -v cppcheck >/dev/null 2>&1; then
    # Every configuration of the #ifdefs (float and exact) is checked; the
    # accepted findings, each with its reason, are in tests/cppcheck.supp.
    cppcheck --enable=warning,style,performance,portability --std=c11 --quiet \
        --error-exitcode=1 --suppressions-list=tests/cppcheck.supp -Icommon $C_FILES \
        >"$LOGS/cppcheck.log" 2>&1
    rc=$?
    if [ $rc = 0 ] && ! grep -q . "$LOGS/cppcheck.log"; then
        pass "hygiene/cppcheck" "$(echo $C_FILES | wc -w) files, warning, style, performance, portability"
    else
        fail "hygiene/cppcheck" "$(grep -m2 -E ':[0-9]+:' "$LOGS/cppcheck.log" | tr '\n' ' ')"
    fi
else
    skip "hygiene/cppcheck" "cppcheck is not installed (apt-get install cppcheck)"
fi

if command -v clang-tidy >/dev/null 2>&1; then
    # common/multi/ builds with MPI's headers: checked where step 09 can be
    # built, which is where those headers are.
    multi_flags=$(make -s --no-print-directory print-multi-flags 2>/dev/null)
    : >"$LOGS/clang-tidy.log"
    ok=1
    # The float build of every file, in two halves (largest files first,
    # dealt out in turn), and the exact build of the files where it differs
    # (those that name elem_t or REDUCE_EXACT): three runs side by side.
    # args.c is checked without two path checks that assume argv[i] may be
    # NULL for i < argc, which C11 5.1.2.2.1 rules out. The analyzer (nearly
    # all of clang-tidy's time) sees the exact build in make test-full only;
    # make test checks it with the others.
    tidy() {    # tidy LOG DEFINE FILE...
        local log=$1 def=$2 off= f rc=0
        shift 2
        local files=()
        [ -n "$def" ] && [ "$FULL" != 1 ] && off=-clang-analyzer-*
        for f in "$@"; do [ "$f" = common/args.c ] || files+=("$f"); done
        : >"$log"
        if [ ${#files[@]} -gt 0 ]; then
            clang-tidy --config-file=tests/clang-tidy.yaml --quiet "${files[@]}" ${def:+--extra-arg=$def} \
                ${off:+--checks=$off} -- -std=c11 -Icommon -I"$CUDA_INC" $multi_flags >>"$log" 2>&1 || rc=1
        fi
        case " $* " in *" common/args.c "*)
            clang-tidy --config-file=tests/clang-tidy.yaml --quiet common/args.c ${def:+--extra-arg=$def} \
                --checks=-clang-analyzer-core.NullDereference,-clang-analyzer-core.NonNullParamChecker${off:+,$off} \
                -- -std=c11 -Icommon -I"$CUDA_INC" $multi_flags >>"$log" 2>&1 || rc=1 ;;
        esac
        return $rc
    }
    half_a=() half_b=() exact=() k=0
    for f in $(ls -S $TIDY_FILES); do
        case "$f" in common/multi/*) [ -n "$multi_flags" ] || continue ;; esac
        if [ $((k % 2)) = 0 ]; then half_a+=("$f"); else half_b+=("$f"); fi
        k=$((k + 1))
        grep -qE 'elem_t|REDUCE_EXACT' "$f" && exact+=("$f")
    done
    tidy "$LOGS/clang-tidy-float-a.log" "" "${half_a[@]}" & p1=$!
    tidy "$LOGS/clang-tidy-float-b.log" "" "${half_b[@]}" & p2=$!
    tidy "$LOGS/clang-tidy-exact.log" -DREDUCE_EXACT "${exact[@]}" & p3=$!
    wait $p1 || ok=0
    wait $p2 || ok=0
    wait $p3 || ok=0
    cat "$LOGS/clang-tidy-float-a.log" "$LOGS/clang-tidy-float-b.log" "$LOGS/clang-tidy-exact.log" >"$LOGS/clang-tidy.log"
    if [ $ok = 1 ] && ! grep -Eq '(warning|error):' "$LOGS/clang-tidy.log"; then
        pass "hygiene/clang-tidy" "$(echo $TIDY_FILES | wc -w) files, float and exact$([ "$FULL" = 1 ] || echo " (its analyzer: float)"), checks in tests/clang-tidy.yaml"
    else
        fail "hygiene/clang-tidy" "$(grep -m2 -E '(warning|error):' "$LOGS/clang-tidy.log" | sed "s|$PWD/||" | tr '\n' ' ')"
    fi
else
    skip "hygiene/clang-tidy" "clang-tidy is not installed (apt-get install clang-tidy)"
fi

exit $failed
