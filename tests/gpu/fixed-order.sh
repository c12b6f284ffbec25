# shellcheck shell=bash
# The gpu group fixed-order: tests/run sources this file when the group is to run
# (see its table), so that its lines are counted there.
#
# Step 08: one input, one sum, whatever the block, the grid (those that GPUs
# of 16 to 160 SMs would choose, and more) or the GPU, on both sides of
# 2^21 (a block a chunk up to it, a warp a chunk above). The harness checks every
# row against the CPU replica of the order; across rows, the sums must agree.
FO_SIZES=1,2,3,4,5,127,128,129,4095,4096,4097,8193,65537,10^6+3,2^21,2^21+1,2^24+1,2^24+4097
for build_dir in . build/exact; do
    kind=float; [ "$build_dir" = . ] || kind=exact
    for b in 32 64 128 256 512 1024; do
        $build_dir/step08 --check-only --csv --n $FO_SIZES --seed 1,2 --block $b 2>>"$LOGS/gpu.err"
    done | python3 tests/csvcheck.py "gpu/fixed-order/step08/$kind: blocks 32 to 1024, one sum per input" \
               --rows 216 --ok all --same-sum --replica equal | collect
    for g in 1 2 3 7 16 64 132 264 528 640 1280 2112 4096; do
        $build_dir/step08 --check-only --csv --n $FO_SIZES --seed 1 --block 256 --grid $g 2>>"$LOGS/gpu.err"
    done | python3 tests/csvcheck.py "gpu/fixed-order/step08/$kind: grids 1 to 4096, one sum per input" \
               --rows 234 --ok all --same-sum --replica equal | collect
done
if [ "$FULL" = 1 ]; then
    { ./step08 --check-only --csv --n 2^31+5 2>>"$LOGS/gpu.err"
      ./step08 --check-only --csv --n 2^31+5 --block 32 --grid 100 2>>"$LOGS/gpu.err"; } |
        python3 tests/csvcheck.py "gpu/fixed-order/step08/float: n = 2^31+5, two launch shapes" \
            --rows 2 --ok all --same-sum --replica equal | collect
    build/exact/step08 --check-only --csv --n 2^31+5 2>>"$LOGS/gpu.err" |
        python3 tests/csvcheck.py "gpu/fixed-order/step08/exact: n = 2^31+5" --rows 1 --ok all | collect
fi
line=$(./step08 --check-only --n 10^6+3 2>&1 | tail -1)
case "$line" in
*"| OK | same bits on any GPU, grid and block: yes (1 run, equal to the CPU replica of the order)") pass "gpu/fixed-order/step08: the report says how far the bits reach" ;;
*) fail "gpu/fixed-order/step08: the report says how far the bits reach" "$line" ;;
esac
# A mutant whose order follows the grid: the same bits every run, every
# element once (its exact build is right), so only the replica catches it.
for g in 1 2 3; do
    build/mutants/grid_order --check-only --csv --n 10^6+3,2^24+1 --seed 1,2,3 --grid $g 2>/dev/null
done | python3 tests/csvcheck.py "gpu/fixed-order/mutant grid_order/float: caught by the replica" \
        --ok some-wrong | collect
build/mutants/grid_order_exact --check-only --csv --n 10^6+3,2^24+1 --seed 1,2,3 --grid 1 2>/dev/null |
    python3 tests/csvcheck.py "gpu/fixed-order/mutant grid_order/exact: right (an order is no integer's business)" \
        --rows 6 --ok all | collect
