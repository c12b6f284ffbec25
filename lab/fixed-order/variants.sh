#!/usr/bin/env bash
# variants.sh OUT.csv [SIZES]: step 08's schedule variants, timed beside
# steps 07 and 08 and CUB at each size (cold L2, the harness's median), in
# one CSV. Each variant is step 08's own source changed by a script here, or
# lab/fixed-order/staged.cu; every one keeps step 08's order, and the
# harness checks its bits against the CPU replica on every run (a row with
# status OK has the replica's bits). Needs a GPU; lab/fixed-order/README.md
# says what each found.
#
#   fences      the ticket as step 06 draws it: every thread fences, a
#               relaxed atomicAdd, the last block fences again (step 08 before
#               it took the acquire-release atomic)
#   warps       a warp a chunk at every n (BLOCK_CHUNKS 0): step 08 before
#               it took blocks on small sums, with the last level still by
#               the block (the variant called lastlevel in the earlier runs)
#   old08       step 08 as it was: fences, and a warp a chunk everywhere,
#               the last level too
#   blockonly   a block a chunk at every n and level: the warp path not
#               compiled (is the kernel's code size, not its work, the cost?)
#   one2        the block path, in one block, for up to 2 chunks (step 08:
#               for 1; one1, measured before, is now the step)
#   l16         LOADS_IN_FLIGHT 16 instead of 8
#   staged1, staged4        staged.cu: a block loads 1 or 4 chunks a round, one fence
#   staged1c, staged4c      the same, the levels above loaded the same way
#   staged1a    staged1 with every thread fencing (as step 08)
#   queue       the warp path's chunks from a queue (one atomic counter)
#               instead of warp w taking w, w + warps, ...: the SMs'
#               shares of chunks even where chunks / warps is not whole
#   noticket    (WRONG sums, times only) each block returns after its chunks
#   firstlevel  (WRONG sums, times only) the ticket drawn, no combine: the
#               step less these two is what the ticket and the combine cost
#   gcombine    the combine's levels of more than one chunk by the block, 4
#               chunks at a time loaded at once, not a warp a chunk
#   grouped     block_sums taking up to GROUP (4) chunks a round, four loads
#               a thread at once (unrolled), for the first level (one chunk
#               a round) and for combine's levels of up to four chunks
#               (grouped1.csv, grouped2.csv: as "step08" there)
#   l16g        gcombine with LOADS_IN_FLIGHT 16 (l16's window)
#   stamps      step 08 printing, from the last block at each launch, where
#               the time after the first level goes: the first block's start
#               to the first ticket, the first ticket to the last (how ragged
#               the first level ends), the combine (%globaltimer, ns) and each
#               level of it (clock64 cycles). Not in the timed loop: run
#               $B/stamps --n 2^24,2^25,2^28 --reps 5 | grep ^stamps
#   wide        the combine's levels of 2-4 chunks by the block, each
#               thread's 4 loads issued at once (a fixed count, predicated),
#               warp g adding chunk g; widestamps
#               is stamps on it (run as stamps)
#   groups      groups.cu: each block a contiguous range of chunks, a ticket
#               for each chunk of chunk sums, whose last block sums it while
#               others stream; a second ticket over those (the order the same)
#   gc3         gcombine in at most 40 registers (__launch_bounds__(512, 3)):
#               three blocks of 512 a multiprocessor, not two (block 512 only)
#   runs        runs.cu, another order: step 08's chunks, then runs of 32
#               chunk sums by the block that summed them (runs.sh checks
#               its bits against runs_replica.c)
#   chunk16k    another order, for large sums: chunks of 16384, so that from
#               2^25 to 2^28 the chunk sums are one chunk, one block_sums
#               (checked against the CPU replica of that order)
#   chunk512    another order, the one the README proposes for small sums:
#               chunks of 512 (four loads a lane, all at once), checked
#               against the CPU replica of that order
# The runs before step 08 took its schedule by n (commit 3b966a9) also timed
# even, bysize, lastlevel and bysize1f; their CSVs are in results/.
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
ticket_new='    block.sync();                             // every chunk sum of this block is written
    if (block.thread_rank() == 0) {           // the ticket: releases the block'"'"'s sums, acquires the rest
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(*blocks_done);
        is_last = gridDim.x == 1 || done.fetch_add(1, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
'
ticket_old='    if (gridDim.x > 1)
        __threadfence();                      // release: this thread'"'"'s chunk sums before the ticket
    block.sync();                             // every chunk sum of this block is written
    if (block.thread_rank() == 0) {
        is_last = gridDim.x == 1 || atomicAdd(blocks_done, 1) == gridDim.x - 1;
        if (is_last && gridDim.x > 1)
            __threadfence();                  // acquire: the tickets before the chunk sums
    }
'
inc_old='#include "fixed_order.cuh"'
inc_new='#include "../../../steps/fixed_order.cuh"'
edit steps/08_fixed_order.cu $B/fences.cu "$ticket_new" "$ticket_old" "$inc_old" "$inc_new"
edit steps/fixed_order.cuh $B/fo_warps.cuh '#define BLOCK_CHUNKS 512 ' '#define BLOCK_CHUNKS 0 '
edit steps/08_fixed_order.cu $B/warps.cu "$inc_old" '#include "fo_warps.cuh"'
edit steps/fixed_order.cuh $B/fo_old08.cuh '#define BLOCK_CHUNKS 512 ' '#define BLOCK_CHUNKS 0 ' \
    '        if (m <= CHUNK)' '        if (false)'
edit $B/fences.cu $B/old08.cu "$inc_new" '#include "fo_old08.cuh"'
edit steps/fixed_order.cuh $B/fo_blockonly.cuh '    if ((chunks >= w || chunks == 1) && chunks <= BLOCK_CHUNKS)' '    if (chunks || w)' \
    '        if (m <= CHUNK)' '        if (true)' '    return chunks >= w && chunks <= BLOCK_CHUNKS ?' '    return true ?'
edit steps/08_fixed_order.cu $B/blockonly.cu "$inc_old" '#include "fo_blockonly.cuh"'
edit steps/fixed_order.cuh $B/fo_one2.cuh '    if ((chunks >= w || chunks == 1) && chunks <= BLOCK_CHUNKS)' \
    '    if ((chunks >= w || chunks <= 2) && chunks <= BLOCK_CHUNKS)'
edit steps/08_fixed_order.cu $B/one2.cu "$inc_old" '#include "fo_one2.cuh"'
edit steps/fixed_order.cuh $B/fo_l16.cuh '#define LOADS_IN_FLIGHT 8 ' '#define LOADS_IN_FLIGHT 16 '
edit steps/08_fixed_order.cu $B/l16.cu "$inc_old" '#include "fo_l16.cuh"'
edit steps/fixed_order.cuh $B/fo_queue.cuh '// The first level, in[0..n)' '// A queue of chunks: a warp takes its next chunk from one counter, drawn while
// it sums the one it has; the draw of the last chunk puts the counter back to 0.
__device__ unsigned chunk_queue;
__device__ void queue_chunks(cg::thread_block_tile<32> warp, const elem_t *from, size_t m,
                             elem_t *to, elem_t *out, size_t first, size_t stride)
{
    size_t chunks = (m + CHUNK - 1) / CHUNK;
    for (size_t c = first; c < chunks;) {
        unsigned next = 0;
        if (warp.thread_rank() == 0) next = atomicAdd(&chunk_queue, 1);
        unsigned len = m - c * CHUNK < CHUNK ? (unsigned)(m - c * CHUNK) : CHUNK;
        elem_t s = chunk_sum(warp, from + c * CHUNK, len);
        if (warp.thread_rank() == 0) {
            *(m <= CHUNK ? out : to + c) = s;
            if (next == chunks - 1) chunk_queue = 0;
        }
        c = stride + warp.shfl(next, 0);
    }
}

// The first level, in[0..n)' \
    '        sum_chunks(warp, in, n, sums, out, blockIdx.x * w + warp.meta_group_rank(), gridDim.x * w);' \
    '        queue_chunks(warp, in, n, sums, out, blockIdx.x * w + warp.meta_group_rank(), gridDim.x * w);'
edit steps/08_fixed_order.cu $B/queue.cu "$inc_old" '#include "fo_queue.cuh"'
# firstlevel and noticket: WRONG sums, times only (the step less them: what the combine and the ticket cost)
edit steps/08_fixed_order.cu $B/noticket.cu "$inc_old" "$inc_new" \
    '    if (n <= CHUNK) return;                   // one chunk: first_level wrote *out' '    return;'
edit steps/08_fixed_order.cu $B/firstlevel.cu "$inc_old" "$inc_new" \
    '    if (!is_last) return;' '    return;'
edit steps/fixed_order.cuh $B/fo_gcombine.cuh '// Sums m >= 2 chunk sums, level after level' '// A level of more than one chunk by the block: GROUP chunks at a time, every
// vector of them loaded at once into a stage, warp g adding chunk g'"'"'s as block_sums.
#define GROUP 4
__device__ void group_sums(cg::thread_block block, const elem_t *from, size_t m, elem_t *to)
{
    __shared__ elem_t gstage[GROUP][CHUNK / 4];
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    unsigned t = block.thread_rank(), b = block.size(), g = warp.meta_group_rank();
    size_t up = (m + CHUNK - 1) / CHUNK;
    for (size_t c0 = 0; c0 < up; c0 += GROUP) {
        #pragma unroll 8
        for (unsigned i = t; i < GROUP * (CHUNK / 4); i += b) {
            size_t c = c0 + i / (CHUNK / 4);
            unsigned len = c >= up ? 0 : m - c * CHUNK < CHUNK ? (unsigned)(m - c * CHUNK) : CHUNK;
            elem4_t x = vector_at(from + c * CHUNK, i % (CHUNK / 4), len);
            gstage[i / (CHUNK / 4)][i % (CHUNK / 4)] = (x.x + x.y) + (x.z + x.w);
        }
        block.sync();
        if (g < GROUP && c0 + g < up) {
            elem_t sum = 0;
            for (int k = 0; k < PER_LANE; k++)
                sum += gstage[g][warp.thread_rank() + LANES * k];
            sum = lane_tree(warp, sum);
            if (warp.thread_rank() == 0) to[c0 + g] = sum;
        }
        block.sync();
    }
}

// Sums m >= 2 chunk sums, level after level' \
    '            sum_chunks(warp, level, m, next, out, warp.meta_group_rank(), warp.meta_group_size());' \
    '            group_sums(block, level, m, next);'
edit steps/08_fixed_order.cu $B/gcombine.cu "$inc_old" '#include "fo_gcombine.cuh"'
edit $B/fo_gcombine.cuh $B/fo_l16g.cuh '#define LOADS_IN_FLIGHT 8 ' '#define LOADS_IN_FLIGHT 16 '
edit $B/gcombine.cu $B/l16g.cu '#include "fo_gcombine.cuh"' '#include "fo_l16g.cuh"'
edit $B/gcombine.cu $B/gc3.cu '__global__ void reduce_kernel' '__global__ void __launch_bounds__(512, 3) reduce_kernel'
edit steps/fixed_order.cuh $B/fo_grouped.cuh '// The same level with blocks first, first + stride, ... on the chunks, all of
// a chunk'"'"'s loads in flight at once: each thread loads two vectors and stores
// each as (x + y) + (z + w); warp 0 adds the 1024 values as lane_sum adds the
// vectors, then lane_tree. The same additions in the same order.
__device__ void block_sums(cg::thread_block block, const elem_t *from, size_t m, elem_t *to, elem_t *out,
                           size_t first, size_t stride)
{
    __shared__ elem_t stage[CHUNK / 4];
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    unsigned t = block.thread_rank(), b = block.size();
    for (size_t c = first; c * CHUNK < m; c += stride) {
        const elem_t *p = from + c * CHUNK;
        unsigned len = m - c * CHUNK < CHUNK ? (unsigned)(m - c * CHUNK) : CHUNK;
        for (unsigned i = t; i < CHUNK / 4; i += 2 * b) {
            unsigned j = i + b < CHUNK / 4 ? i + b : i;          // blocks of CHUNK / 4 or more: i twice
            elem4_t x = vector_at(p, i, len), y = vector_at(p, j, len);
            stage[i] = (x.x + x.y) + (x.z + x.w);
            stage[j] = (y.x + y.y) + (y.z + y.w);
        }
        block.sync();                                           // the chunk'"'"'s CHUNK / 4 values are in stage
        if (warp.meta_group_rank() == 0) {
            elem_t sum = 0;
            for (int k = 0; k < PER_LANE; k++)
                sum += stage[t + LANES * k];
            sum = lane_tree(warp, sum);
            if (t == 0) *(m <= CHUNK ? out : to + c) = sum;
        }
        block.sync();                                           // stage is read: the next chunk may go in
    }
}

' '// grouped: block b sums chunks first, first + stride, ..., per of them (at
// most GROUP, no more than it has warps) a round: its threads load the
// round'"'"'s vectors STAGE_LOADS at once, warp g adds chunk g'"'"'s values.
#define GROUP 4
#define STAGE_LOADS 4
__device__ void block_sums(cg::thread_block block, const elem_t *from, size_t m, elem_t *to, elem_t *out,
                           size_t first, size_t stride, unsigned per)
{
    __shared__ elem_t stage[GROUP * (CHUNK / 4)];
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    unsigned t = block.thread_rank(), b = block.size(), g = warp.meta_group_rank();
    per = per < warp.meta_group_size() ? per : warp.meta_group_size();
    unsigned values = per * (CHUNK / 4);
    size_t chunks = (m + CHUNK - 1) / CHUNK;
    for (size_t c0 = first; c0 < chunks; c0 += per * stride) {
        for (unsigned i0 = t; i0 < values; i0 += STAGE_LOADS * b) {
            elem4_t v[STAGE_LOADS];
            #pragma unroll
            for (int k = 0; k < STAGE_LOADS; k++) {
                unsigned i = i0 + k * b;
                size_t c = c0 + i / (CHUNK / 4) * stride;
                unsigned len = c < chunks ? (m - c * CHUNK < CHUNK ? (unsigned)(m - c * CHUNK) : CHUNK) : 0;
                v[k] = i < values ? vector_at(from + c * CHUNK, i % (CHUNK / 4), len) : elem4_t{ 0, 0, 0, 0 };
            }
            #pragma unroll
            for (int k = 0; k < STAGE_LOADS; k++)
                if (i0 + k * b < values)
                    stage[i0 + k * b] = (v[k].x + v[k].y) + (v[k].z + v[k].w);
        }
        block.sync();
        size_t c = c0 + g * stride;
        if (g < per && c < chunks) {
            elem_t sum = 0;
            for (int k = 0; k < PER_LANE; k++)
                sum += stage[g * (CHUNK / 4) + warp.thread_rank() + LANES * k];
            sum = lane_tree(warp, sum);
            if (warp.thread_rank() == 0) *(m <= CHUNK ? out : to + c) = sum;
        }
        block.sync();
    }
}

' \
    '        block_sums(block, in, n, sums, out, blockIdx.x, gridDim.x);' '        block_sums(block, in, n, sums, out, blockIdx.x, gridDim.x, 1);' \
    '        if (m <= CHUNK)
            block_sums(block, level, m, next, out, 0, 1);' '        if (m <= GROUP * CHUNK)
            block_sums(block, level, m, next, out, 0, 1, GROUP);'
edit steps/08_fixed_order.cu $B/grouped.cu "$inc_old" '#include "fo_grouped.cuh"'
stamp_combine() { edit "$1" "$2" '__device__ void combine(cg::thread_block block, elem_t *sums, size_t m, elem_t *out)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    for (elem_t *level = sums; m > 1; m = (m + CHUNK - 1) / CHUNK) {' '__device__ long long level_clocks[8];    // stamps: clock64() before the combine and after each level
__device__ void combine(cg::thread_block block, elem_t *sums, size_t m, elem_t *out)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int lvl = 0;
    if (block.thread_rank() == 0) level_clocks[lvl] = clock64();
    for (elem_t *level = sums; m > 1; m = (m + CHUNK - 1) / CHUNK) {' \
    '        block.sync();                         // this level is written: the next may read it
        level = next;' '        block.sync();                         // this level is written: the next may read it
        if (block.thread_rank() == 0 && lvl < 7) level_clocks[++lvl] = clock64();
        level = next;'; }
stamp_combine steps/fixed_order.cuh $B/fo_stamps.cuh
edit steps/08_fixed_order.cu $B/stamps.cu '#include "fixed_order.cuh"' '#include "fo_stamps.cuh"' \
    '    __shared__ bool is_last;
    cg::thread_block block = cg::this_thread_block();
    first_level(block, in, n, sums, out);' '    __shared__ bool is_last;
    cg::thread_block block = cg::this_thread_block();
    if (block.thread_rank() == 0) atomicMin(&t_start, globaltimer());
    first_level(block, in, n, sums, out);' \
    '    if (block.thread_rank() == 0) {           // the ticket: releases the block'"'"'s sums, acquires the rest
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(*blocks_done);' '    if (block.thread_rank() == 0) {           // the ticket: releases the block'"'"'s sums, acquires the rest
        atomicMin(&t_first_ticket, globaltimer());
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(*blocks_done);' \
    '    combine(block, sums, (n + CHUNK - 1) / CHUNK, out);
    if (gridDim.x > 1 && block.thread_rank() == 0)
        *blocks_done = 0;                     // every ticket drawn: ready for the next launch' '    unsigned long long t_last = globaltimer();
    combine(block, sums, (n + CHUNK - 1) / CHUNK, out);
    if (block.thread_rank() == 0) {
        unsigned long long t_end = globaltimer();
        printf("stamps n=%llu grid=%u start_to_first_ticket_ns=%llu first_to_last_ticket_ns=%llu combine_ns=%llu"
               " level_cycles=%lld,%lld,%lld\n", (unsigned long long)n, gridDim.x, t_first_ticket - t_start,
               t_last - t_first_ticket, t_end - t_last, level_clocks[1] - level_clocks[0],
               level_clocks[2] ? level_clocks[2] - level_clocks[1] : 0,
               level_clocks[3] ? level_clocks[3] - level_clocks[2] : 0);
        t_start = t_first_ticket = ~0ull;
        for (int i = 0; i < 8; i++) level_clocks[i] = 0;
    }
    if (gridDim.x > 1 && block.thread_rank() == 0)
        *blocks_done = 0;                     // every ticket drawn: ready for the next launch' \
    '__global__ void reduce_kernel(' '__device__ unsigned long long t_start = ~0ull, t_first_ticket = ~0ull;
__device__ unsigned long long globaltimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__global__ void reduce_kernel('
edit steps/fixed_order.cuh $B/fo_wide.cuh '// Sums m >= 2 chunk sums, level after level' '// wide: a level of 2 to WIDE chunks by the block: each thread loads
// WIDE_LOADS vectors at once (a count known when compiled, the loads
// predicated, not a loop), stages each as (x + y) + (z + w), then warp g adds
// chunk g'"'"'s values as block_sums does. 8 loads took 96-127 registers.
#define WIDE 4
#define WIDE_LOADS 4
__device__ void wide_sums(cg::thread_block block, const elem_t *from, size_t m, elem_t *to)
{
    __shared__ elem_t wstage[WIDE * (CHUNK / 4)];
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    unsigned t = block.thread_rank(), b = block.size();
    size_t chunks = (m + CHUNK - 1) / CHUNK;
    for (size_t c0 = 0; c0 < chunks; c0 += WIDE) {
        unsigned here = chunks - c0 < WIDE ? (unsigned)(chunks - c0) : WIDE;
        unsigned values = here * (CHUNK / 4);
        unsigned len = m - c0 * CHUNK < WIDE * CHUNK ? (unsigned)(m - c0 * CHUNK) : WIDE * CHUNK;
        const elem_t *p = from + c0 * CHUNK;
        for (unsigned i0 = t; i0 < values; i0 += WIDE_LOADS * b) {
            elem4_t v[WIDE_LOADS];
            #pragma unroll
            for (int k = 0; k < WIDE_LOADS; k++)
                v[k] = vector_at(p, i0 + k * b, i0 + k * b < values ? len : 0);
            #pragma unroll
            for (int k = 0; k < WIDE_LOADS; k++)
                if (i0 + k * b < values)
                    wstage[i0 + k * b] = (v[k].x + v[k].y) + (v[k].z + v[k].w);
        }
        block.sync();
        for (unsigned g = warp.meta_group_rank(); g < here; g += warp.meta_group_size()) {
            elem_t sum = 0;
            for (int k = 0; k < PER_LANE; k++)
                sum += wstage[g * (CHUNK / 4) + warp.thread_rank() + LANES * k];
            sum = lane_tree(warp, sum);
            if (warp.thread_rank() == 0) to[c0 + g] = sum;
        }
        block.sync();
    }
}

// Sums m >= 2 chunk sums, level after level' \
    '        else
            sum_chunks(warp, level, m, next, out, warp.meta_group_rank(), warp.meta_group_size());' \
    '        else if (m <= WIDE * CHUNK)
            wide_sums(block, level, m, next);
        else
            sum_chunks(warp, level, m, next, out, warp.meta_group_rank(), warp.meta_group_size());'
edit steps/08_fixed_order.cu $B/wide.cu "$inc_old" '#include "fo_wide.cuh"'
stamp_combine $B/fo_wide.cuh $B/fo_widestamps.cuh
edit $B/stamps.cu $B/widestamps.cu '#include "fo_stamps.cuh"' '#include "fo_widestamps.cuh"'
edit steps/fixed_order.cuh $B/fo_c512.cuh '#define CHUNK 4096 ' '#define CHUNK 512 ' \
    '#define LOADS_IN_FLIGHT 8 ' '#define LOADS_IN_FLIGHT 4 '
edit steps/08_fixed_order.cu $B/chunk512.cu "$inc_old" '#include "fo_c512.cuh"'
edit steps/fixed_order.cuh $B/fo_c16k.cuh '#define CHUNK 4096 ' '#define CHUNK 16384 '
edit steps/08_fixed_order.cu $B/chunk16k.cu "$inc_old" '#include "fo_c16k.cuh"'
pids=()
for v in fences warps old08 one2 blockonly l16 chunk512 queue noticket firstlevel gcombine gc3 l16g grouped stamps wide widestamps chunk16k; do nv -o $B/$v $B/$v.cu & pids+=($!); done
nv -o $B/groups lab/fixed-order/groups.cu & pids+=($!)
nv -o $B/runs lab/fixed-order/runs.cu & pids+=($!)
nv -DROUND_CHUNKS=1 -o $B/staged1 lab/fixed-order/staged.cu & pids+=($!)
nv -DROUND_CHUNKS=4 -o $B/staged4 lab/fixed-order/staged.cu & pids+=($!)
nv -DROUND_CHUNKS=1 -DSTAGED_COMBINE=1 -o $B/staged1c lab/fixed-order/staged.cu & pids+=($!)
nv -DROUND_CHUNKS=4 -DSTAGED_COMBINE=1 -o $B/staged4c lab/fixed-order/staged.cu & pids+=($!)
nv -DROUND_CHUNKS=1 -DALL_FENCE=1 -o $B/staged1a lab/fixed-order/staged.cu & pids+=($!)
for p in "${pids[@]}"; do wait "$p" || { echo "variants: a build failed" >&2; exit 1; }; done
[ -n "${BUILD_ONLY:-}" ] && exit 0
first=1
: > "$out"
for p in ./step07 ./step08 build/bench/cub_sum $B/fences $B/warps $B/old08 $B/one2 $B/blockonly $B/l16 $B/staged1 $B/staged1a $B/staged1c \
         $B/staged4 $B/staged4c $B/chunk512 $B/queue $B/noticket $B/firstlevel $B/gcombine $B/gc3 $B/l16g $B/grouped $B/wide $B/groups $B/chunk16k $B/runs ./step08 ./step07; do
    case " ${PROGRAMS:-$(basename "$p")} " in *" $(basename "$p") "*) ;; *) continue ;; esac
    "$p" --n "$sizes" --csv > $B/one.csv || echo "$p: exit $?" >&2
    name=$(basename "$p")
    if [ $first = 1 ]; then sed -n '1s/^/program,/p' $B/one.csv >> "$out"; first=0; fi
    sed -n "2,\$s/^/$name,/p" $B/one.csv >> "$out"
    echo "$name done" >&2
done
