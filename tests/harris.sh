#!/usr/bin/env bash
# tests/harris.sh: Harris's seven kernels (lab/harris/harris.cu) on a GPU. tests/run
# calls it in the gpu tier, only when a GPU is usable; it prints one line per
# check, starting with PASS, FAIL or SKIP, for tests/run to count.
#
#   build        make harris-kernels
#   cli          --help exits 0, a bad size exits 2
#   exact        every kernel's exact build equals the reference at odd sizes
#                (1, 127, 129, 2^22-1, 2^22+1, 10^8+7), two seeds
#   float        every kernel's float build within its bound at a few sizes
#   grids        kernel 7 on the G80's grids, --grid 64 and 256, both builds
#   blocks       every block size the harness accepts, 32 to 1024, both builds
#   determinism  float: identical bits over 22 runs, as every kernel declares
#   sanitize     memcheck, synccheck and initcheck clean for all seven,
#                racecheck clean for kernels 1-4; for kernels 5-7 racecheck's
#                summary is reported, not judged (their warp tail is the race
#                that docs/appendix_harris.md is about)
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh

LOGS=build/logs
mkdir -p "$LOGS"
ERR=$LOGS/harris.err
: >"$ERR"
KERNELS="1 2 3 4 5 6 7"

made harris/build "$LOGS/build_harris.log" harris-kernels || exit 0

# The two builds of kernel K: "float build/harris/harrisK", "exact build/exact/harris/harrisK".
builds() { echo "float build/harris/harris$1 exact build/exact/harris/harris$1"; }

for k in $KERNELS; do
    p=build/harris/harris$k
    "$p" --help >/dev/null 2>&1 && echo "PASS harris/cli/$k --help" || echo "FAIL harris/cli/$k --help: exit $?"
    err=$("$p" --n 0 2>&1 >/dev/null)
    rc=$?
    if [ $rc = 2 ]; then echo "PASS harris/cli/$k --n 0 -> exit 2"; else echo "FAIL harris/cli/$k --n 0: exit $rc ($err)"; fi
done

ODD=1,127,129,2^22-1,2^22+1,10^8+7
FEW=1,1000,65537,2^22+1,10^8+7
BLOCK_SIZES=1,129,65537,2^20+3
for k in $KERNELS; do
    check "harris/exact/$k: odd sizes, two seeds" --rows 12 --ok all -- \
        build/exact/harris/harris$k --check-only --n $ODD --seed 1,2
    check "harris/float/$k: a few sizes" --rows 5 --ok all -- \
        build/harris/harris$k --check-only --n $FEW
    set -- $(builds "$k")
    while [ $# -gt 0 ]; do
        kind=$1 p=$2
        shift 2
        for b in 32 64 128 256 512 1024; do
            check "harris/blocks/$k/$kind --block $b" --rows 4 --ok all -- "$p" --check-only --n $BLOCK_SIZES --block $b
        done
    done
    check "harris/determinism/$k/float: 22 runs, identical bits" --rows 3 --ok all --distinct 1 -- \
        build/harris/harris$k --n 1000,2^20+3,2^24+1 --reps 20
done

set -- $(builds 7)
while [ $# -gt 0 ]; do
    kind=$1 p=$2
    shift 2
    for g in 64 256; do
        check "harris/grids/7/$kind --grid $g" --rows 6 --ok all -- "$p" --check-only --n $ODD --grid $g
    done
done

# ---- sanitize ----------------------------------------------------------------
if ! command -v compute-sanitizer >/dev/null 2>&1; then
    echo "SKIP harris/sanitize: compute-sanitizer is not installed"
    exit 0
fi
for k in $KERNELS; do
    for tool in memcheck synccheck initcheck racecheck; do
        log=$LOGS/harris_sanitize_${k}_$tool.log
        compute-sanitizer --tool "$tool" --error-exitcode 42 build/exact/harris/harris$k \
            --check-only --n 1,1000,65537 >"$log" 2>&1
        rc=$?
        summary=$(grep -m1 -Eo "SUMMARY: [0-9]+ (errors|hazards)[^=]*" "$log")
        if [ "$tool" = racecheck ] && [ "$k" -ge 5 ]; then
            if [ -n "$summary" ]; then
                echo "PASS harris/sanitize/$k/racecheck ran (warp-synchronous tail; racecheck $summary)"
            else
                echo "FAIL harris/sanitize/$k/racecheck: no summary (exit $rc; see $log)"
            fi
        elif [ $rc -eq 0 ] && grep -Eq "SUMMARY: 0 (errors|hazards)" "$log"; then
            echo "PASS harris/sanitize/$k/$tool"
        else
            echo "FAIL harris/sanitize/$k/$tool: exit $rc; ${summary:-see $log}"
        fi
    done
done
