#!/usr/bin/env bash
# tests/answers_rows.sh: the answers to chapter 11's exercises that are
# programs (answers/11_softmax.cu, answers/11_bf16.cu), on a GPU.
# tests/answers.sh runs it; it can also run alone (it builds what it needs).
# One line per check, starting with PASS, FAIL or SKIP.
#
#   softmax       every element within its bound of a softmax in double, every
#                 row adding up to 1, the first rows alone the same bits as in
#                 the whole batch: at 1x1, 7x3, 1000x33, 3x4097, 2x131077 and
#                 more, two seeds; every element negative (--shift -100) with
#                 L % 4 != 0 (1x1, 1x3, 7x3, 3x4097, 2x131077) and = 0; a causal
#                 mask (row 0 all -inf: NaN required there)
#   softmax-pad0  the same program padded with 0 past a row's end, where it
#                 takes -inf: right where L % 4 = 0 (no padding), WRONG on
#                 negative rows with L % 4 != 0 and on 7x3
#   bf16          every row sum the CPU replica's bits and within the bound
#                 of the exact sum of its bf16 values, one result every run:
#                 1x1, 5x129, 100x4096, 1x(2^20+3), two seeds, inputs wide,
#                 cancel and huge; timed at 100x4096 and 65536x4096 (time
#                 and GB/s in the line)
#   cli           --help exits 0, a bad option exits 2 with one line
#   sanitize      compute-sanitizer's four tools on both, small shapes
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh

LOGS=build/logs
mkdir -p "$LOGS"
ERR=$LOGS/answers_rows.err
: >"$ERR"
A=build/answers

made answers/rows/build "$LOGS/build_answers_rows.log" answers-rows || exit 0

SOFTMAX_OK='\| rows add up to 1: yes .*\| rows? 0( to [0-9]+)? alone: the same bits \| OK$'
BF16_OK="replica's bits: yes, the same bits every run: yes .*\| OK$"

# ---- cli ---------------------------------------------------------------------
for p in $A/11_softmax $A/11_bf16; do
    "$p" --help >/dev/null 2>&1
    rc=$?
    [ $rc = 0 ] && echo "PASS answers/rows/cli/$(basename "$p") --help" ||
        echo "FAIL answers/rows/cli/$(basename "$p") --help: exit $rc"
    for bad in "--shape 0x5" "--shape 5" "--seed x" "--nope"; do
        err=$("$p" $bad 2>&1 >/dev/null)
        rc=$?
        if [ $rc = 2 ] && [ "$(printf '%s\n' "$err" | grep -c '')" = 2 ]; then
            echo "PASS answers/rows/cli/$(basename "$p") $bad -> exit 2"
        else
            echo "FAIL answers/rows/cli/$(basename "$p") $bad: exit $rc ($err)"
        fi
    done
done

# ---- softmax -----------------------------------------------------------------
S=$A/11_softmax
SHAPES=1x1,1x3,1x4,7x3,1000x33,3x4096,3x4097,2x131077
for seed in 1 2; do
    expect "answers/rows/softmax: odd shapes, seed $seed" 0 8 "$SOFTMAX_OK" -- $S --shape $SHAPES --seed $seed
done
expect "answers/rows/softmax: every element negative (--shift -100)" 0 7 "$SOFTMAX_OK" -- \
    $S --shape 1x1,1x3,7x3,3x4096,3x4097,1000x33,2x131077 --shift -100
expect "answers/rows/softmax: a causal mask, row 0 all -inf" 0 5 "$SOFTMAX_OK" -- \
    $S --shape 1x1,7x3,3x4097,40x33,2x131077 --mask
expect "answers/rows/softmax: a causal mask on negative rows" 0 2 "$SOFTMAX_OK" -- \
    $S --shape 7x3,3x4097 --mask --shift -100
expect "answers/rows/softmax: 1000x4096 (the default)" 0 1 "$SOFTMAX_OK" -- $S

# ---- softmax-pad0 ---------------------------------------------------------------
P=$A/11_softmax_pad0
expect "answers/rows/softmax-pad0: right where L % 4 = 0 (nothing padded)" 0 3 "$SOFTMAX_OK" -- \
    $P --shape 3x4096,8x4,2x131072 --shift -100
for shape in 1x1 1x3 3x4097 2x131077; do
    expect "answers/rows/softmax-pad0: WRONG at $shape, every element negative" 1 1 '\| WRONG$' -- \
        $P --shape $shape --shift -100
done
expect "answers/rows/softmax-pad0: WRONG at 7x3" 1 1 '\| WRONG$' -- $P --shape 7x3

# ---- bf16 ----------------------------------------------------------------------
B=$A/11_bf16
for seed in 1 2; do
    expect "answers/rows/bf16: shapes, seed $seed" 0 4 "$BF16_OK" -- \
        $B --check-only --shape 1x1,5x129,100x4096,1x2^20+3 --seed $seed
done
for input in wide cancel huge; do
    expect "answers/rows/bf16: --input $input" 0 4 "$BF16_OK" -- \
        $B --check-only --shape 1x1,5x129,100x4096,3x131077 --input $input
done
expect "answers/rows/bf16: timed, 100x4096 and 65536x4096" 0 2 "GB/s.*$BF16_OK" -- \
    $B --shape 100x4096,65536x4096

# ---- sanitize -------------------------------------------------------------------
if command -v compute-sanitizer >/dev/null 2>&1; then
    for cmd in "$S --shape 7x3,3x4097,2x131077 --mask" "$B --check-only --shape 5x129,3x4096,3x4097,2x131077"; do
        name=$(basename "${cmd%% *}")
        for tool in memcheck racecheck synccheck initcheck; do
            log=$LOGS/answers_rows_${name}_$tool.log
            extra=
            [ "$tool" = memcheck ] && extra="--leak-check full"
            compute-sanitizer --tool $tool $extra --error-exitcode 42 $cmd >"$log" 2>&1
            rc=$?
            if [ $rc = 0 ] && grep -Eq "SUMMARY: 0 (errors|hazards)" "$log"; then
                echo "PASS answers/rows/sanitize/$name/$tool"
            else
                echo "FAIL answers/rows/sanitize/$name/$tool: exit $rc; $(grep -m1 -E '^========= (Invalid|Race|Barrier|Uninitialized|Leaked|Error|ERROR)' "$log")"
            fi
        done
    done
else
    echo "SKIP answers/rows/sanitize: compute-sanitizer is not installed"
fi
