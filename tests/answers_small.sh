#!/usr/bin/env bash
# tests/answers_small.sh: the answers to the exercises of the appendix on small
# sizes (docs/appendix_clusters.md), on a GPU. tests/answers.sh runs it last; it
# can also run alone (it builds what it needs). One line per check, starting
# with PASS, FAIL or SKIP.
#
#   flag_block0        block 0 collects, no ticket, a cooperative launch: every size to
#                      2^24+1 with two seeds, every block, grids from 1 to what fits,
#                      float and exact; 22 runs and 1000 launches give one result;
#                      the same bits as lab/small-sizes/flag_sum.cu for the same launch; a grid
#                      larger than fits refused (exit 3, one line); compute-sanitizer
#   flag_no_clear      the words left flagged: every sum right and one result, yet
#                      exit 1 and the harness's "left its state changed"
#   cluster_occupancy  one row per block size and cluster size; no cluster size
#                      holds more blocks than plain occupancy (on an H100, clusters
#                      of one block of 128 threads hold half as many: measured);
#                      exit 3 and one line on a GPU without clusters
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh

LOGS=build/logs
mkdir -p "$LOGS"
ERR=$LOGS/answers_small.err
: >"$ERR"
A=build/answers

made answers/small-sizes/build "$LOGS/build_answers_small.log" $A/flag_block0 $A/flag_block0_exact \
    $A/flag_no_clear $A/cluster_occupancy build/clusters/flag_sum || exit 0

# ---- flag_block0 --------------------------------------------------------------------
for p in $A/flag_block0 $A/flag_block0_exact; do
    kind=float; [ "$p" = $A/flag_block0_exact ] && kind=exact
    check "answers/flag_block0/$kind: sizes" --rows 24 --ok all -- \
        $p --check-only --n 1,2,3,31,32,33,1023,4097,65537,10^6+3,2^20+3,2^24+1 --seed 1,2
    for b in 32 64 128 256 512 1024; do
        check "answers/flag_block0/$kind --block $b" --rows 4 --ok all -- \
            $p --check-only --n 1,129,65537,2^20+3 --block $b
    done
    for g in 1 2 7 64; do
        check "answers/flag_block0/$kind --grid $g" --rows 3 --ok all -- $p --check-only --n 1,4097,10^6+3 --grid $g
    done
    check "answers/flag_block0/$kind: 22 runs, one result" --rows 3 --ok all --distinct 1 -- \
        $p --n 1000,2^20+3,2^24+1 --reps 20
done
check "answers/flag_block0: 1000 launches back to back" --rows 2 --ok all --distinct 1 -- \
    $A/flag_block0 --n 2^20+3,10^6+3 --reps 1000
# The same blocks and the same order as lab/small-sizes/flag_sum.cu: the same bits.
for p in build/clusters/flag_sum $A/flag_block0; do
    $p --csv --check-only --n 65537,10^6+3,2^24+1 --seed 1,2 --block 256 --grid 64 2>>"$ERR"
done | python3 tests/csvcheck.py "answers/flag_block0: the bits of lab/small-sizes/flag_sum.cu, one launch shape" \
           --rows 12 --ok all --same-sum
err=$($A/flag_block0 --check-only --n 10^6+3 --block 1024 --grid 100000 2>&1 >/dev/null)
rc=$?
if [ $rc = 3 ] && [ "$(printf '%s' "$err" | grep -c '')" = 1 ] &&
   printf '%s' "$err" | grep -q cudaErrorCooperativeLaunchTooLarge; then
    echo "PASS answers/flag_block0: a grid larger than fits refused (exit 3, one line)"
else
    echo "FAIL answers/flag_block0: --grid 100000: exit $rc: $err"
fi
if command -v compute-sanitizer >/dev/null 2>&1; then
    for tool in memcheck racecheck; do
        log=$LOGS/answers_sanitize_flag_block0_$tool.log
        timeout 180 compute-sanitizer --tool $tool --error-exitcode 42 $A/flag_block0 \
            --check-only --n 1,1000,65537 >"$log" 2>&1
        rc=$?
        if [ $rc = 0 ] && grep -Eq "SUMMARY: 0 (errors|hazards)" "$log"; then
            echo "PASS answers/flag_block0/sanitize/$tool"
        else
            echo "FAIL answers/flag_block0/sanitize/$tool: exit $rc (see $log)"
        fi
    done
else
    echo "SKIP answers/flag_block0/sanitize: compute-sanitizer is not installed"
fi

# ---- flag_no_clear ------------------------------------------------------------------
out=$($A/flag_no_clear --csv --n 65537,2^20+3 --reps 20 2>"$LOGS/answers_no_clear.err")
rc=$?
summary=$(printf '%s\n' "$out" | python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if r["step"] != "step"]
right = [r for r in rows if float(r["error"]) <= float(r["bound"]) and r["distinct"] == "1"]
print(f"{len(rows)} {len(right)}")')
if [ $rc = 1 ] && [ "$summary" = "2 2" ] && grep -q "left its state changed" "$LOGS/answers_no_clear.err"; then
    echo "PASS answers/flag_no_clear: right sums, one result each, and the state check fails (exit 1)"
else
    echo "FAIL answers/flag_no_clear: exit $rc, rows/right '$summary', stderr: $(head -2 "$LOGS/answers_no_clear.err" | tr '\n' ' ')"
fi

# ---- cluster_occupancy ----------------------------------------------------------------
$A/cluster_occupancy --help >/dev/null 2>&1 && echo "PASS answers/cluster_occupancy --help" ||
    echo "FAIL answers/cluster_occupancy --help: not exit 0"
$A/cluster_occupancy --n 5 >/dev/null 2>&1
rc=$?
[ $rc = 2 ] && echo "PASS answers/cluster_occupancy: an argument -> exit 2" ||
    echo "FAIL answers/cluster_occupancy: an argument: exit $rc"
out=$($A/cluster_occupancy 2>"$LOGS/answers_occupancy.err")
rc=$?
if [ $rc = 3 ] && grep -q "compute capability 9.0" "$LOGS/answers_occupancy.err"; then
    echo "SKIP answers/cluster_occupancy: this GPU has no clusters ($(head -1 "$LOGS/answers_occupancy.err"))"
else
    printf '%s\n' "$out" | python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
bad = [r for r in rows if int(r["blocks"]) > int(r["plain_blocks"]) or int(r["blocks"]) < 1]
k16 = [r["blocks"] + "/" + r["plain_blocks"] for r in rows if r["cluster"] == "16"]
if sys.argv[1] != "0" or len(rows) != 20 or bad:
    print(f"FAIL answers/cluster_occupancy: exit {sys.argv[1]}, {len(rows)} rows (20 expected), wrong: {bad[:2]}")
else:
    print("PASS answers/cluster_occupancy: 20 rows; clusters of 16 hold " + ", ".join(k16)
          + " blocks of 128 to 1024 threads (of the plain occupancy)")' "$rc"
fi
