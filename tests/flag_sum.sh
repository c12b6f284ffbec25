#!/usr/bin/env bash
# tests/flag_sum.sh: the flag-word sum (lab/small-sizes/flag_sum.cu) on a GPU. tests/clusters.sh
# runs it (the gpu group clusters), after building it; it prints one line per
# check, starting with PASS, FAIL or SKIP. It needs no cluster: it runs on any
# GPU the steps run on.
#
#   cli          --grid beyond the state's words and a bad --block: exit 2, one line
#   sizes        1 to 2^24+1, two seeds, float and exact, as it chooses (one block up to
#                2^14, flag words above)
#   large        n = 2^31+5, float and exact
#   blocks       every --block from 32 to 1024, float and exact
#   grids        --grid 1 to 4096, float and exact; 20000 blocks of 1024, far more than
#                fit at once: the last block only waits for blocks that have drawn
#                their tickets, so it must finish, and right
#   determinism  22 runs, identical bits, float and exact; 1000 launches back to back,
#                each finding the words and the ticket at zero (the harness checks the
#                state after every size)
#   sanitize     compute-sanitizer memcheck, racecheck, synccheck and initcheck as it
#                chooses, memcheck and racecheck on a grid of 64 blocks of 128, at
#                n = 1, 1000, 65537
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh

LOGS=build/logs
mkdir -p "$LOGS"
ERR=$LOGS/flag_sum.err
: >"$ERR"
F=build/clusters/flag_sum
X=build/exact/clusters/flag_sum

if [ ! -x $F ] || [ ! -x $X ]; then
    echo "FAIL clusters/flag_sum/build: $F or $X is not built (make flag-sum)"
    exit 0
fi

# usage NAME REGEX PROGRAM ARGS...: exit 2 and one line on stderr, matching REGEX.
usage() {
    local name=$1 regex=$2 err rc lines
    shift 2
    err=$("$@" 2>&1 >/dev/null)
    rc=$?
    lines=$(printf '%s' "$err" | grep -c '')
    if [ $rc = 2 ] && [ "$lines" -le 2 ] && printf '%s' "$err" | head -1 | grep -Eq "$regex"; then
        echo "PASS $name"
    else
        echo "FAIL $name: exit $rc, $lines lines: $err"
    fi
}

# ---- the command line ---------------------------------------------------------------
usage "clusters/flag_sum/cli: --grid 65537 -> exit 2 (one word per block)" "room for 65536" \
    $F --check-only --n 10^6 --grid 65537
usage "clusters/flag_sum/cli: --block 48 -> exit 2" "power of two" $F --check-only --n 1000 --block 48

# ---- sizes, blocks, grids ---------------------------------------------------------------
for kind in float exact; do
    p=$F; [ $kind = exact ] && p=$X
    check "clusters/flag_sum/sizes/$kind" --rows 20 --ok all -- \
        $p --check-only --n 1,2,3,31,33,4095,4097,65537,10^6+3,2^24+1 --seed 1,2
    check "clusters/flag_sum/large/$kind: n = 2^31+5" --rows 1 --ok all -- $p --check-only --n 2^31+5
    for b in 32 64 128 256 512 1024; do
        check "clusters/flag_sum/blocks/$kind --block $b" --rows 4 --ok all -- \
            $p --check-only --n 1,129,65537,2^20+3 --block $b
    done
    for g in 1 2 3 7 64 1000 4096; do
        check "clusters/flag_sum/grids/$kind --grid $g" --rows 4 --ok all -- \
            $p --check-only --n 1,33,4097,10^6+3 --grid $g
    done
    check "clusters/flag_sum/grids/$kind: 20000 blocks of 1024, more than fit at once" --rows 2 --ok all -- \
        $p --check-only --n 10^6+3,2^24+1 --block 1024 --grid 20000
done

# ---- determinism --------------------------------------------------------------------------
for kind in float exact; do
    p=$F; [ $kind = exact ] && p=$X
    check "clusters/flag_sum/determinism/$kind: 22 runs" --rows 3 --ok all --distinct 1 -- \
        $p --n 1000,2^20+3,2^24+1 --reps 20
done
check "clusters/flag_sum/determinism: 1000 launches back to back" --rows 2 --ok all --distinct 1 -- \
    $F --n 2^20+3,10^6+3 --reps 1000

# ---- sanitize -------------------------------------------------------------------------------
if ! command -v compute-sanitizer >/dev/null 2>&1; then
    echo "SKIP clusters/flag_sum/sanitize: compute-sanitizer is not installed"
    exit 0
fi
for entry in "|memcheck racecheck synccheck initcheck" "--grid 64 --block 128|memcheck racecheck"; do
    args=${entry%%|*}
    for tool in ${entry#*|}; do
        name="flag_sum${args:+ $args}/$tool"
        log=$LOGS/clusters_sanitize_$(echo "flag_sum $args" | tr -s ' -' '_')_$tool.log
        timeout 180 compute-sanitizer --tool "$tool" --error-exitcode 42 $F $args \
            --check-only --n 1,1000,65537 >"$log" 2>&1
        rc=$?
        if [ $rc -eq 0 ] && grep -Eq "SUMMARY: 0 (errors|hazards)" "$log"; then
            echo "PASS clusters/flag_sum/sanitize/$name"
        else
            first=$(grep -m1 -E "^========= (Invalid|Race|Barrier|Uninitialized|Error|ERROR)|error" "$log")
            [ $rc = 124 ] && first="timed out after 180 s"
            echo "FAIL clusters/flag_sum/sanitize/$name: exit $rc${first:+; $first} (see $log)"
        fi
    done
done
