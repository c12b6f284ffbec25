#!/usr/bin/env bash
# rows.sh: step 11 (a sum for every row) on this GPU (tests/run's gpu/rows).
# Prints PASS, FAIL or SKIP lines:
#   shapes      odd rows and lengths (1, 2, 31, 33 rows; lengths 1 to 2^24 + 5,
#               one a row per thread, tiles, a warp, parts of a block, three
#               levels), every row its exact sum within its bound and the CPU
#               replica's bits, float and exact builds, two seeds
#   launches    blocks 32 and 1024, grids 1 and 7: the same checks
#   inputs      wide, cancel, ties, huge; a 2-D .npy
#   batches     the same rows in batches of 1, 7 and 1000 and at two block
#               sizes: one sum per row, bit for bit (--sums)
#   timed       the timed runs, slots shared when the sums outgrow a gigabyte
#   mutants     a row one element short, a long row combined in another order,
#               rows started at the wrong offset: each caught
set -u
cd "$(dirname "$0")/.." || exit 1
G=gpu/rows
LOGS=build/logs
mkdir -p "$LOGS"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass() { echo "PASS $G/$1${2:+ ($2)}"; }
fail() { echo "FAIL $G/$1: $(printf '%s' "$2" | tr '\n' ' ' | cut -c1-300)"; }
if [ ! -x ./step11 ] || [ ! -x build/exact/step11 ]; then
    echo "SKIP $G: step11 is not built (make step11 build/exact/step11)"
    exit 0
fi

# check NAME EXPECT_ROWS CMD...: the CSV has EXPECT_ROWS rows, every one OK
# (and, for the float build, equal to the replica).
check() {
    local name=$1 rows=$2
    shift 2
    local out rc
    out=$("$@" 2>"$TMP/err")
    rc=$?
    local got bad
    got=$(printf '%s\n' "$out" | tail -n +2 | grep -c .)
    bad=$(printf '%s\n' "$out" | python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    if r["status"] != "OK" or (r["elem"] == "float" and r["replica"] != "equal"):
        print(r["rows"] + "x" + r["len"], r["status"], r["replica"]); break')
    if [ "$rc" != 0 ] || [ "$got" != "$rows" ] || [ -n "$bad" ]; then
        fail "$name" "exit $rc, $got of $rows rows; ${bad:-} $(head -c 300 "$TMP/err")"
    else
        pass "$name" "$rows runs, every row right"
    fi
}

SHAPES=1x1,2x1,31x2,33x3,1x31,2x33,31x64,33x65,7x100,3x128,5x129,2x4095,33x4096,31x4097,3x8193,2x65537,1x131077,100003x1,1000x33,2x16777221
COUNT=$(($(echo $SHAPES | tr ',' '\n' | grep -c .) * 2))
check shapes/float "$COUNT" ./step11 --check-only --csv --shape $SHAPES --seed 1,2
check shapes/exact "$COUNT" build/exact/step11 --check-only --csv --shape $SHAPES --seed 1,2
SOME=33x4097,31x65,5x131077,100003x1,3x129
for b in 32 1024; do
    check launches/block-$b 5 ./step11 --check-only --csv --shape $SOME --block $b
done
for g in 1 7; do
    check launches/grid-$g 5 ./step11 --check-only --csv --shape $SOME --grid $g
    check launches/grid-$g/exact 5 build/exact/step11 --check-only --csv --shape $SOME --grid $g
done
for d in wide cancel ties huge; do
    check inputs/$d 8 ./step11 --check-only --csv --shape 31x4097,3x131077,1000x33,7x1 --input $d --seed 1,4
done
if python3 -c "import numpy" 2>/dev/null; then
    python3 -c "
import numpy as np
np.save('$TMP/m.npy', (np.arange(5 * 1001, dtype=np.float32).reshape(5, 1001) % 97 - 48) / np.float32(7))
np.save('$TMP/c.npy', np.zeros((2, 3, 4), dtype=np.float32))"
    check inputs/npy-2d 1 ./step11 --check-only --csv --input-file "$TMP/m.npy"
    ./step11 --check-only --input-file "$TMP/c.npy" >/dev/null 2>"$TMP/err"
    rc=$?
    if [ $rc = 2 ] && grep -q "not a 1-D array or a 2-D matrix" "$TMP/err"; then pass inputs/npy-3d-refused
    else fail inputs/npy-3d-refused "exit $rc: $(cat "$TMP/err")"; fi
else
    echo "SKIP $G/inputs/npy: needs numpy (pip install numpy)"
fi

# The same rows in batches of 1000, 7 and 1, at blocks 512 and 128: row r's
# bits must not depend on the batch or the block.
for L in 1 33 100 4097 131077; do
    ok=1
    ./step11 --check-only --shape 1000x$L --sums "$TMP/a" >/dev/null 2>"$TMP/err" || ok=0
    ./step11 --check-only --shape 1000x$L --block 128 --sums "$TMP/b" >/dev/null 2>>"$TMP/err" || ok=0
    ./step11 --check-only --shape 7x$L --sums "$TMP/c" >/dev/null 2>>"$TMP/err" || ok=0
    ./step11 --check-only --shape 1x$L --sums "$TMP/d" >/dev/null 2>>"$TMP/err" || ok=0
    if [ $ok = 1 ] && cmp -s "$TMP/a" "$TMP/b" && cmp -s -n 28 "$TMP/a" "$TMP/c" &&
        cmp -s -n 4 "$TMP/a" "$TMP/d" && [ "$(stat -c %s "$TMP/a")" = 4000 ]; then
        pass "batches/L=$L" "batches of 1000, 7 and 1, blocks 512 and 128: one sum per row"
    else
        fail "batches/L=$L" "sums differ between batches or blocks; $(head -c 300 "$TMP/err")"
    fi
done

check timed 2 ./step11 --csv --shape 65536x4096,2^26x1 --reps 5

for m in drop_last combine_order row_offset; do
    for kind in "" _exact; do
        [ "$m$kind" = combine_order_exact ] && continue   # every element once: only the order differs
        exe=build/mutants/rows/$m$kind
        if [ ! -x "$exe" ]; then fail "mutants/$m$kind" "not built (make rows-mutants)"; continue; fi
        "$exe" --check-only --shape 31x4097,3x131077 >/dev/null 2>"$TMP/err"
        rc=$?
        if [ $rc = 1 ] && grep -q "row" "$TMP/err"; then pass "mutants/$m$kind" "caught: $(head -1 "$TMP/err" | cut -c1-120)"
        else fail "mutants/$m$kind" "exit $rc, not caught: $(head -c 200 "$TMP/err")"; fi
    done
done
