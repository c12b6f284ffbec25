#!/usr/bin/env bash
# tests/clusters_runs.sh ERRLOG: the cluster programs (lab/small-sizes/clusters.cu) run and
# checked, on a GPU with clusters; tests/clusters.sh calls it once they are built
# and the command line is checked. One line per check (PASS, FAIL or SKIP).
#
#   sizes        1 to 2^24+1, two seeds, float and exact, each program as it chooses
#   cluster      every --cluster size for the cluster program, float and exact; 16
#                for the other ways (a size this GPU does not run: a SKIP line)
#   blocks       every --block from 32 to 1024 for the cluster program, float and
#                exact; 32 and 1024 for the other ways
#   grids        several clusters where one would do, and more than fit at once (which
#                clusters_wait, whose clusters wait for each other, must refuse)
#   large        n = 2^31+5, float and exact
#   same-bits    the four programs, one launch shape: the same float sum
#   determinism  22 runs, identical bits, float and exact; 1000 launches back to back
#   sanitize     compute-sanitizer: memcheck, racecheck, synccheck and initcheck on one
#                cluster, memcheck and racecheck on several (n = 1, 1000, 65537)
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh

LOGS=build/logs
ERR=${1:-$LOGS/clusters.err}
F=build/clusters
X=build/exact/clusters
PROGRAMS="clusters clusters_wait clusters_pdl clusters_async"

# refuses NAME REGEX PROGRAM ARGS...: exit 3 and one line on stderr, matching REGEX.
refuses() {
    local name=$1 regex=$2
    shift 2
    local err rc lines
    err=$("$@" 2>&1 >/dev/null)
    rc=$?
    lines=$(printf '%s' "$err" | grep -c '')
    if [ $rc = 3 ] && [ "$lines" = 1 ] && printf '%s' "$err" | grep -Eq "$regex"; then
        echo "PASS $name"
    else
        echo "FAIL $name: exit $rc, $lines lines: $err"
    fi
}

# What this GPU may refuse, and the test then skips: a cluster larger than it runs
# (exit 2, said so), and, for clusters_wait only, a cooperative launch of clusters
# (exit 3, the launch failing). Anything else that fails is for the checks to catch.
# refused PROGRAM ARGS...: prints the reason, or nothing if it runs.
refused() {
    local err rc
    err=$("$@" --check-only --n 2^20 2>&1 >/dev/null)
    rc=$?
    if [ $rc = 2 ] && printf '%s' "$err" | grep -q "runs clusters of at most"; then
        printf '%s' "$err" | head -1
    elif [ $rc = 3 ] && [ "${1##*/}" = clusters_wait ] && printf '%s' "$err" | grep -q "cudaLaunchKernelEx"; then
        printf '%s' "$err" | head -1
    fi
}

# ---- sizes, cluster sizes, blocks, grids ---------------------------------------------------
SIZES=1,2,3,31,33,4095,4097,65537,10^6+3,2^24+1
K_SIZES=1,3,33,4097,65537,10^6+3,2^24+1
same=""                                                   # the programs this GPU runs
for p in $PROGRAMS; do
    why=$(refused $F/$p --cluster 2 --grid 8)
    if [ -n "$why" ]; then
        echo "SKIP clusters/$p: this GPU does not run it as asked: $why"
        continue
    fi
    same="$same $p"
    # The program in full; the other ways of meeting and loading at the edges.
    ks="16" blocks="32 1024"
    [ $p = clusters ] && ks="1 2 4 8 16" blocks="32 64 128 256 512 1024"
    for kind in float exact; do
        d=$F; [ $kind = exact ] && d=$X
        check "clusters/sizes/$p/$kind" --rows 20 --ok all -- $d/$p --check-only --n $SIZES --seed 1,2
        [ $p = clusters ] || [ $kind = float ] || continue
        for k in $ks; do
            why=
            [ $k = 16 ] && why=$(refused $d/$p --cluster $k)   # 16: where non-portable sizes are allowed
            if [ -n "$why" ]; then echo "SKIP clusters/cluster/$p/$kind --cluster $k: $why"; continue; fi
            check "clusters/cluster/$p/$kind --cluster $k" --rows 7 --ok all -- \
                $d/$p --check-only --n $K_SIZES --cluster $k
        done
        for b in $blocks; do
            check "clusters/blocks/$p/$kind --block $b" --rows 4 --ok all -- \
                $d/$p --check-only --n 1,129,65537,2^20+3 --block $b
        done
        check "clusters/grids/$p/$kind: 16 clusters of 4 for n from 1" --rows 5 --ok all -- \
            $d/$p --check-only --n 1,33,4097,65537,10^6+3 --cluster 4 --grid 64
    done
done
for kind in float exact; do
    d=$F; [ $kind = exact ] && d=$X
    for p in clusters clusters_pdl; do                    # these need no cluster to wait for another
        check "clusters/grids/$p/$kind: 4096 clusters of 2, more than fit at once" --rows 2 --ok all -- \
            $d/$p --check-only --n 10^6+3,2^24+1 --cluster 2 --grid 8192
    done
    check "clusters/large/$kind: n = 2^31+5" --rows 1 --ok all -- $d/clusters --check-only --n 2^31+5
done
case " $same " in *" clusters_wait "*)                  # its clusters must all be on the GPU at once
    refuses "clusters/grids/clusters_wait: more clusters than fit at once -> exit 3, one line" \
        "cudaErrorCooperativeLaunchTooLarge" $F/clusters_wait --check-only --n 10^6+3 --cluster 2 --grid 8192 ;;
esac

# ---- the same bits, whatever the way of meeting or loading -----------------------------------
for p in $same; do
    $F/$p --csv --check-only --n 1,33,4097,65537,10^6+3,2^24+1 --seed 1,2 --cluster 4 --grid 64 --block 256 2>>"$ERR"
done | python3 tests/csvcheck.py "clusters/same-bits:$same, one launch shape" --ok all --same-sum

# ---- determinism ------------------------------------------------------------------------------
for p in $same; do
    for kind in float exact; do
        d=$F; [ $kind = exact ] && d=$X
        check "clusters/determinism/$p/$kind: 22 runs" --rows 3 --ok all --distinct 1 -- \
            $d/$p --n 1000,2^20+3,2^24+1 --reps 20
    done
    check "clusters/determinism/$p: 1000 launches back to back" --rows 2 --ok all --distinct 1 -- \
        $F/$p --n 2^20+3,10^6+3 --reps 1000
done

# ---- sanitize ---------------------------------------------------------------------------------
if ! command -v compute-sanitizer >/dev/null 2>&1; then
    echo "SKIP clusters/sanitize: compute-sanitizer is not installed"
    exit 0
fi
# Every tool on the program as it chooses (one cluster at these sizes), two on
# several clusters meeting. (The other ways share all but the meeting, which
# their own runs above check; the time a sanitizer takes goes where it tells most.)
SANITIZE=("$F/clusters|memcheck racecheck synccheck initcheck"
          "$F/clusters --cluster 2 --grid 8|memcheck racecheck")
for entry in "${SANITIZE[@]}"; do
    read -r -a cmd <<<"${entry%%|*}"
    name=$(echo "${cmd[*]}" | sed 's|^build/||; s|/|_|g; s| --*|_|g; s| |_|g')
    for tool in ${entry#*|}; do
        log=$LOGS/clusters_sanitize_${name}_$tool.log
        timeout 180 compute-sanitizer --tool "$tool" --error-exitcode 42 "${cmd[@]}" \
            --check-only --n 1,1000,65537 >"$log" 2>&1
        rc=$?
        if [ $rc -eq 0 ] && grep -Eq "SUMMARY: 0 (errors|hazards)" "$log"; then
            echo "PASS clusters/sanitize/$name/$tool"
        else
            first=$(grep -m1 -E "^========= (Invalid|Race|Barrier|Uninitialized|Error|ERROR)|error" "$log")
            [ $rc = 124 ] && first="timed out after 180 s"
            echo "FAIL clusters/sanitize/$name/$tool: exit $rc${first:+; $first} (see $log)"
        fi
    done
done
