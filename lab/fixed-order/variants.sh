#!/usr/bin/env bash
# variants.sh OUT.csv [SIZES]: step 08's schedule variants, timed beside
# steps 07 and 08 and CUB at each size (cold L2, the harness's median), in
# one CSV. Each variant is step 08's own source changed by a script here, or
# lab/fixed-order/staged.cu; every one keeps step 08's order, and the
# harness checks its bits against the CPU replica on every run (a row with
# status OK has the replica's bits). Needs a GPU; lab/fixed-order/README.md
# says what each found.
#
#   fence1      thread 0 alone fences before the ticket, after the block's
#               barrier (step 08: every thread fences)
#   even        fence1, and a grid that gives every warp the same number of chunks
#   l16         LOADS_IN_FLIGHT 16 instead of 8
#   staged1, staged4        staged.cu: a block loads 1 or 4 chunks a round, one fence
#   staged1c, staged4c      the same, the levels above loaded the same way
#   staged1a    staged1 with every thread fencing (as step 08)
#   bysize      bysize.cu: one kernel, the schedule chosen by n (a block a
#               chunk up to 2^21 elements, a warp a chunk above), the last
#               level of the combine loaded by the whole block
#   lastlevel   bysize.cu with a warp a chunk at every n: the last level alone
#   bysize1f    bysize with one fence a block (thread 0, after the barrier)
#   chunk512    another order, the one the README proposes for small sums:
#               chunks of 512 (four loads a lane, all at once), checked
#               against the CPU replica of that order
# PROGRAMS="step07 step08 chunk512 ..." times only those (default: all).
set -eu
out=${1:?usage: variants.sh OUT.csv [SIZES]}
sizes=${2:-2^14,2^16,2^17,2^18,2^20,2^22,2^24,2^26,2^28}
cd "$(dirname "$0")/../.."
make -s step07 step08 build/bench/cub_sum
B=build/lab/fixed-order
mkdir -p "$B"
objs="build/float/*.o build/float/inputs/*.o"
nv() { nvcc -O3 -lineinfo -std=c++20 $(cat build/gencode) -Isteps "$@" $objs -lgomp; }
# edit FILE OUT 'old' 'new' ...: OUT is FILE with each old text replaced once (each must be there)
edit() {
    python3 - "$@" <<'PY'
import sys
src, dst, *pairs = sys.argv[1:]
s = open(src).read()
for old, new in zip(pairs[::2], pairs[1::2]):
    if s.count(old) != 1:
        sys.exit(f"variants: {dst}: '{old[:40]}' found {s.count(old)} times in {src}")
    s = s.replace(old, new)
open(dst, "w").write(s)
PY
}
fence_old='    if (gridDim.x > 1)
        __threadfence();                      // release: this thread'"'"'s chunk sums before the ticket
    block.sync();                             // every chunk sum of this block is written
    if (block.thread_rank() == 0) {
'
fence_new='    block.sync();
    if (block.thread_rank() == 0) {
        if (gridDim.x > 1)
            __threadfence();
'
inc_old='#include "fixed_order.cuh"'
inc_new='#include "../../../steps/fixed_order.cuh"'
edit steps/08_fixed_order.cu $B/fence1.cu "$fence_old" "$fence_new" "$inc_old" "$inc_new"
edit steps/08_fixed_order.cu $B/even.cu "$fence_old" "$fence_new" "$inc_old" "$inc_new" \
    '    size_t needed = div_up(div_up(L->n, CHUNK), (size_t)L->block / LANES);
    return min_size(resident, needed);' \
    '    size_t warps = (size_t)L->block / LANES, chunks = div_up(L->n, CHUNK);
    size_t rounds = div_up(chunks, resident * warps);
    return min_size(resident, div_up(chunks, rounds * warps));'
edit steps/fixed_order.cuh $B/fo_l16.cuh '#define LOADS_IN_FLIGHT 8 ' '#define LOADS_IN_FLIGHT 16 '
edit steps/08_fixed_order.cu $B/l16.cu "$inc_old" '#include "fo_l16.cuh"'
edit steps/fixed_order.cuh $B/fo_c512.cuh '#define CHUNK 4096 ' '#define CHUNK 512 ' \
    '#define LOADS_IN_FLIGHT 8 ' '#define LOADS_IN_FLIGHT 4 '
edit steps/08_fixed_order.cu $B/chunk512.cu "$inc_old" '#include "fo_c512.cuh"'
pids=()
for v in fence1 even l16 chunk512; do nv -o $B/$v $B/$v.cu & pids+=($!); done
nv -DROUND_CHUNKS=1 -o $B/staged1 lab/fixed-order/staged.cu & pids+=($!)
nv -DROUND_CHUNKS=4 -o $B/staged4 lab/fixed-order/staged.cu & pids+=($!)
nv -DROUND_CHUNKS=1 -DSTAGED_COMBINE=1 -o $B/staged1c lab/fixed-order/staged.cu & pids+=($!)
nv -DROUND_CHUNKS=4 -DSTAGED_COMBINE=1 -o $B/staged4c lab/fixed-order/staged.cu & pids+=($!)
nv -DROUND_CHUNKS=1 -DALL_FENCE=1 -o $B/staged1a lab/fixed-order/staged.cu & pids+=($!)
nv -o $B/bysize lab/fixed-order/bysize.cu & pids+=($!)
nv -DSTAGED_MAX=0 -o $B/lastlevel lab/fixed-order/bysize.cu & pids+=($!)
nv -DONE_FENCE=1 -o $B/bysize1f lab/fixed-order/bysize.cu & pids+=($!)
for p in "${pids[@]}"; do wait "$p" || { echo "variants: a build failed" >&2; exit 1; }; done
[ -n "${BUILD_ONLY:-}" ] && exit 0
first=1
: > "$out"
for p in ./step07 ./step08 build/bench/cub_sum $B/fence1 $B/even $B/l16 $B/staged1 $B/staged1a $B/staged1c \
         $B/staged4 $B/staged4c $B/chunk512 $B/bysize $B/lastlevel $B/bysize1f ./step08 ./step07; do
    case " ${PROGRAMS:-$(basename "$p")} " in *" $(basename "$p") "*) ;; *) continue ;; esac
    "$p" --n "$sizes" --csv > $B/one.csv || echo "$p: exit $?" >&2
    name=$(basename "$p")
    if [ $first = 1 ]; then sed -n '1s/^/program,/p' $B/one.csv >> "$out"; first=0; fi
    sed -n "2,\$s/^/$name,/p" $B/one.csv >> "$out"
    echo "$name done" >&2
done
