#!/usr/bin/env bash
# tests/answers_types.sh: the answers to chapter 12's exercises (answers/12_argmin.cu,
# answers/12_int8_dot.cu, and answers/11_bf16.cu built with -DSQUARES as
# 12_rms_rows), on a GPU. tests/answers.sh runs it; it can also run alone (it
# builds what it needs). One line per check, starting with PASS, FAIL or SKIP.
#
#   cli            --help exits 0, a bad option exits 2 with one line
#   argmin         the CPU scan's index at every size, input and seed, the same
#                  index over grids 1, 7, full and blocks 32, 256, 1024
#   argmin-wrong   12_argmin_ties_last WRONG on ties and zeros, 12_argmin_nan_last
#                  WRONG on nan; both right on uniform
#   int8-dot       the int64 sum at every size, uniform and extreme (every
#                  product 2^14), the same bits over grids
#   int8-acc32     the int32 version: right at n = 2^17 - 1 extreme, WRONG at 2^17
#   rms-rows       every row's sum of squares the replica's bits, within the bound
#                  of the exact sum of squares, the same every run: odd shapes,
#                  batches of 1000, 7 and 1 rows of 4097, inputs wide and huge
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh

LOGS=build/logs
mkdir -p "$LOGS"
ERR=$LOGS/answers_types.err
: >"$ERR"
A=build/answers

made answers/types/build "$LOGS/build_answers_types.log" answers-types || exit 0

SAME='the same (index|bits) every run '

# ---- cli ---------------------------------------------------------------------
for p in $A/12_argmin $A/12_int8_dot $A/12_rms_rows; do
    "$p" --help >/dev/null 2>&1
    rc=$?
    [ $rc = 0 ] && echo "PASS answers/types/cli/$(basename "$p") --help" ||
        echo "FAIL answers/types/cli/$(basename "$p") --help: exit $rc"
    case $p in *rms_rows) bads="--shape 0x5|--nope" ;; *) bads="--n 0|--seed x|--nope" ;; esac
    IFS='|' read -ra list <<<"$bads"
    for bad in "${list[@]}"; do
        err=$("$p" $bad 2>&1 >/dev/null)
        rc=$?
        if [ $rc = 2 ] && [ "$(printf '%s\n' "$err" | grep -c '')" = 2 ]; then
            echo "PASS answers/types/cli/$(basename "$p") $bad -> exit 2"
        else
            echo "FAIL answers/types/cli/$(basename "$p") $bad: exit $rc ($err)"
        fi
    done
done

# ---- argmin ------------------------------------------------------------------
SIZES=1,3,4,5,31,33,1000003,2^20+3
for input in uniform ties zeros nan inf; do
    for seed in 1 2; do
        expect "answers/types/argmin: --input $input, seed $seed" 0 8 "$SAME\\| OK$" -- \
            $A/12_argmin --n $SIZES --input $input --seed $seed
    done
done
for input in ties zeros; do
    expect "answers/types/argmin-wrong: ties to the last index, WRONG on $input" 1 1 "$SAME\\| WRONG$" -- \
        $A/12_argmin_ties_last --n 2^20+3 --input $input
done
expect "answers/types/argmin-wrong: NaN last, WRONG on nan" 1 1 "$SAME\\| WRONG$" -- \
    $A/12_argmin_nan_last --n 2^20+3 --input nan
for p in 12_argmin_ties_last 12_argmin_nan_last; do
    expect "answers/types/argmin-wrong: $p right on uniform" 0 1 "$SAME\\| OK$" -- $A/$p --n 2^20+3
done

# ---- int8 dot ------------------------------------------------------------------
for input in uniform extreme; do
    expect "answers/types/int8-dot: --input $input" 0 8 "$SAME\\| OK$" -- \
        $A/12_int8_dot --n 1,15,16,17,2^17-1,2^17,1000003,2^24 --input $input
done
expect "answers/types/int8-acc32: right below 2^17 (extreme)" 0 1 "$SAME\\| OK$" -- \
    $A/12_int8_dot_acc32 --n 2^17-1 --input extreme
expect "answers/types/int8-acc32: WRONG at 2^17 (extreme: wraps)" 1 1 "$SAME\\| WRONG$" -- \
    $A/12_int8_dot_acc32 --n 2^17 --input extreme

# ---- RMSNorm's statistic ---------------------------------------------------------
R=$A/12_rms_rows
RMS_OK="replica's bits: yes, the same bits every run: yes .*\\| OK$"
for seed in 1 2; do
    expect "answers/types/rms-rows: shapes, seed $seed" 0 4 "$RMS_OK" -- \
        $R --check-only --shape 1x1,5x129,100x4096,1x2^20+3 --seed $seed
done
expect "answers/types/rms-rows: batches of 1000, 7 and 1 rows of 4097" 0 3 "$RMS_OK" -- \
    $R --check-only --shape 1000x4097,7x4097,1x4097
for input in wide huge; do
    expect "answers/types/rms-rows: --input $input" 0 3 "$RMS_OK" -- \
        $R --check-only --shape 5x129,100x4096,3x131077 --input $input
done
expect "answers/types/rms-rows: timed, 65536x4096" 0 1 "GB/s.*$RMS_OK" -- $R --shape 65536x4096
