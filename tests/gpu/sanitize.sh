# shellcheck shell=bash
# The gpu group sanitize: tests/run sources this file when the group is to run
# (see its table), so that its lines are counted there.
#
# compute-sanitizer over every step and every program the fragments add.
extra=$($MAKE -s print-SANITIZE_EXTRA 2>/dev/null)
[ -n "$extra" ] && $MAKE $extra >"$LOGS/build_sanitize_extra.log" 2>&1
bash tests/sanitize.sh "1,1000,2^20+3" $(for s in $STEPS; do echo step$s; done) $extra | collect
# Step 11 on matrices: one row a thread, tiles, a warp, parts with tickets.
[ -x step11 ] && bash tests/sanitize.sh "31,31*33,31*4097,31*131077" "./step11 --rows 31" | collect
# Steps 09 and 10's own code on virtual ranks (NCCL's is not ours to check).
[ -x build/tests/step09_virtual ] &&
    bash tests/sanitize.sh "1,4097,65537" "build/tests/step09_virtual --virtual-ranks 3" | collect
[ -x build/tests/10_multi_gpu_virtual ] &&
    bash tests/sanitize.sh "1,4097,65537" "build/tests/10_multi_gpu_virtual --virtual-ranks 3" \
        "build/tests/10_multi_gpu_virtual --virtual-ranks 1" | collect
# And on two real GPUs, where there are: the steps' code beside NCCL's.
if [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')" -ge 2 ] && [ -x ./step09 ] && [ -x build/answers/10_multi_gpu ]; then
    bash tests/sanitize.sh "1,4097,65537" "./step09 --gpus 2" "build/answers/10_multi_gpu --gpus 2" | collect
fi
