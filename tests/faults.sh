#!/usr/bin/env bash
# faults.sh: device faults made visible (needs a GPU; tests/run runs it in the
# GPU tier, `make faults` on its own).
#
#   faults/oob_write       a kernel stores far out of bounds: exit 3 and one
#                          line naming the program and its failed GPU work,
#                          never a result line, never exit 1
#   faults/late_null       a kernel stores through a null pointer from its
#                          fourth launch on, inside the timed runs: the same,
#                          "during the timed runs", and no hang at the gate
#   faults/gpu-recovers    a step runs correctly right after the faults
#   faults/no-device/*     CUDA_VISIBLE_DEVICES= hides the GPU: exactly one
#                          line of output and exit 3, every step, both builds
#   faults/oom/*           --n 2^40 on every step, both builds: exit 3, one
#                          line with the bytes needed (at least 4 n) and free;
#                          and a size just past the free memory for one step
#
# Prints one PASS, FAIL or SKIP line per check; exits 1 if any failed.
set -u
cd "$(dirname "$0")/.." || exit 1

LOGS=build/logs
mkdir -p "$LOGS"
failed=0
pass() { echo "PASS $1${2:+ ($2)}"; }
fail() { failed=1; echo "FAIL $1: $(echo "$2" | tr '\n' ' ' | cut -c1-300)"; }

STEPS=$(ls steps/[0-9][0-9]_*.cu | sed -E 's|steps/([0-9][0-9])_.*|\1|' | grep -vx 11)   # not step 11 (rows): tests/rows.sh

# The programs under test must exist; the fault programs are built here.
JOBS=$(nproc 2>/dev/null || echo 2)
if ! make -j"$JOBS" --no-print-directory all exact faults-build >"$LOGS/build_faults.log" 2>&1; then
    echo "FAIL faults/build: $(grep -m3 -E '(^|[^W])[Ee]rror' "$LOGS/build_faults.log" | tr '\n' ' ')"
    exit 1
fi

probe=$(./step00 --check-only --n 1 2>&1 >/dev/null)
if [ $? -ne 0 ]; then
    echo "SKIP faults: no usable GPU here (${probe:-step00 did not run})"
    exit 0
fi

# run NAME CMD...: runs a program with a time limit; sets rc, out (stdout),
# err (stderr) and lines (stderr lines).
run() {
    local name=$1
    shift
    timeout 300 "$@" >"$LOGS/$name.out" 2>"$LOGS/$name.err"
    rc=$?
    out=$(cat "$LOGS/$name.out")
    err=$(cat "$LOGS/$name.err")
    lines=$(grep -c '' "$LOGS/$name.err")
}

# ---- kernels that fault --------------------------------------------------------
# check_fault NAME PROGRAM STEPNAME WHEN ARGS...: exit 3, one line on stderr
# that names the program and says its GPU work failed (WHEN, if not empty, is
# the phase the message must name), a CUDA error name, and no result line.
check_fault() {
    local name=$1 prog=$2 step=$3 when=$4
    shift 4
    run "fault_$(basename "$prog")" "$prog" "$@"
    if [ $rc = 124 ]; then
        fail "$name" "did not finish in 300 s: the harness hangs on a fault"
    elif [ $rc != 3 ]; then
        fail "$name" "exit $rc, expected 3: $err"
    elif [ "$lines" != 1 ]; then
        fail "$name" "expected one line on stderr, got $lines: $err"
    elif ! printf '%s' "$err" | grep -Eq "^$step: the step's GPU work failed"; then
        fail "$name" "the message does not name $step and its failed GPU work: $err"
    elif [ -n "$when" ] && ! printf '%s' "$err" | grep -q "failed $when"; then
        fail "$name" "the message does not say 'failed $when': $err"
    elif ! printf '%s' "$err" | grep -Eq '\(cudaError(IllegalAddress|LaunchFailure|InvalidAddressSpace)\)'; then
        fail "$name" "the message names no memory fault: $err"
    elif printf '%s' "$out" | grep -Eq '\| (OK|WRONG) \|'; then
        fail "$name" "a result was reported for a run that faulted: $out"
    else
        pass "$name" "exit 3: $err"
    fi
}

for kind in "" _exact; do
    label=${kind:+exact}
    label=${label:-float}
    # The fault happens in the checked run; its error may surface at the
    # synchronisation or at the CUDA call queued right after the launch,
    # and either way the message must say that the GPU work failed.
    check_fault "faults/oob_write/$label" "build/faults/oob_write$kind" fault_oob_write "" \
        --n 2^20 --reps 5
    # The fault happens in the second timed run, behind the gate.
    check_fault "faults/late_null/$label" "build/faults/late_null$kind" fault_late_null \
        "during the timed runs" --n 2^20 --reps 20
done

# The GPU is usable again by the next program.
run recover ./step03 --check-only --n 2^20+3
if [ $rc = 0 ] && printf '%s' "$out" | grep -q '| OK |'; then
    pass "faults/gpu-recovers" "step03 runs and is correct after the faults"
else
    fail "faults/gpu-recovers" "step03 after the faults: exit $rc: $err"
fi

# ---- no visible GPU ------------------------------------------------------------
for s in $STEPS; do
    for p in ./step$s build/exact/step$s; do
        label=float
        [ "$p" = ./step$s ] || label=exact
        name="faults/no-device/step$s/$label"
        CUDA_VISIBLE_DEVICES='' timeout 60 "$p" --n 10 >"$LOGS/nodev.all" 2>&1
        rc=$?
        all=$(cat "$LOGS/nodev.all")
        n=$(grep -c '' "$LOGS/nodev.all")
        if [ $rc != 3 ]; then
            fail "$name" "exit $rc, expected 3: $all"
        elif [ "$n" != 1 ]; then
            fail "$name" "expected exactly one line of output, got $n: $all"
        elif ! printf '%s' "$all" | grep -q "no CUDA GPU found (CUDA_VISIBLE_DEVICES is set"; then
            fail "$name" "the line does not say that no GPU is visible: $all"
        else
            pass "$name" "exit 3, one line"
        fi
    done
done

# ---- not enough GPU memory -------------------------------------------------------
# check_oom NAME N PROGRAM ARGS...: exit 3 and one line that gives the bytes
# needed, at least 4 N (the input alone), and the bytes free, fewer than that.
check_oom() {
    local name=$1 n=$2
    shift 2
    run oom "$@"
    local need have
    need=$(printf '%s' "$err" | sed -nE 's/.* needs ([0-9]+) bytes .*/\1/p')
    have=$(printf '%s' "$err" | sed -nE 's/.* but only ([0-9]+) bytes .* are free.*/\1/p')
    if [ $rc != 3 ]; then
        fail "$name" "exit $rc, expected 3: $err"
    elif [ "$lines" != 1 ] || [ -z "$need" ] || [ -z "$have" ]; then
        fail "$name" "expected one line with the bytes needed and free, got: $err"
    elif ! python3 -c "import sys; need, have, n = map(int, sys.argv[1:]); sys.exit(not (need >= 4 * n and have < need))" "$need" "$have" "$n"; then
        fail "$name" "the numbers do not add up (n = $n, needs $need, free $have): $err"
    else
        pass "$name" "exit 3, needs $need bytes, $have free"
    fi
}

for s in $STEPS; do
    check_oom "faults/oom/step$s/float" $((1 << 40)) ./step$s --n 2^40
    check_oom "faults/oom/step$s/exact" $((1 << 40)) build/exact/step$s --n 2^40 --check-only
done
# Just past what is free, rather than absurdly large: 1 GiB more than the
# free memory the last run reported.
free_now=$(printf '%s' "$err" | sed -nE 's/.* but only ([0-9]+) bytes .* are free.*/\1/p')
if [ -n "$free_now" ]; then
    n=$(( (free_now + (1 << 30)) / 4 ))
    check_oom "faults/oom/step05/just-past-free" $n ./step05 --n $n --check-only
else
    fail "faults/oom/step05/just-past-free" "no free memory figure from the runs before"
fi

exit $failed
