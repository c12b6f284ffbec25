# shellcheck shell=bash
# The gpu group sizes: tests/run sources this file when the group is to run
# (see its table), so that its lines are counted there.
for s in $STEPS; do
    for build_dir in . build/exact; do
        kind=float; [ "$build_dir" = . ] || kind=exact
        p=$build_dir/step$s
        $p --check-only --csv --n $SIZES --seed $SEEDS 2>>"$LOGS/gpu.err" |
            python3 tests/csvcheck.py "gpu/sizes/step$s/$kind" --rows $SIZE_ROWS --ok all | collect
    done
done
# Steps 05 to 07 sum a small n with one_block_kernel, a kernel per block
# size (steps/one_block.cuh), and with their own kernels for blocks of 32
# and 64 threads or more than one round: every block size, around the
# edges of one round (block * 16 elements).
for s in 05 06 07; do
    for build_dir in . build/exact; do
        kind=float; [ "$build_dir" = . ] || kind=exact
        for b in 32 64 128 256 512 1024; do
            $build_dir/step$s --check-only --csv --n 1,3,127,129,1023,1025,4095,4096,4097,8191,8192,8193,16385 \
                --seed 1,2 --block $b 2>>"$LOGS/gpu.err"
        done | python3 tests/csvcheck.py "gpu/sizes/step$s/$kind: blocks 32 to 1024 around one round" \
                   --rows 156 --ok all | collect
    done
done
