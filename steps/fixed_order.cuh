/* fixed_order.cuh: step 08's order of additions on the GPU, in one place.
 *
 * Included by step 08, which introduces it (chapter 08 explains it), and by
 * what keeps step 08's bits: step 09 on several GPUs, the answers built on
 * them and the tests' mutants. common/order.c writes the same order again in
 * plain C, so that the harness can replay it on the CPU.
 *
 *   chunk_sum   one warp sums one chunk of CHUNK elements in a fixed order
 *   combine     one block sums the chunk sums, level after level, the same way
 */
#ifndef FIXED_ORDER_CUH
#define FIXED_ORDER_CUH

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define CHUNK 4096                        // elements per chunk: part of the order, the same on every GPU
#define LANES 32
#define PER_LANE (CHUNK / (4 * LANES))    // 4-element vectors each lane adds: 32
#define LOADS_IN_FLIGHT 8                 // loads issued before the first add: speed only, not the order

// [begin chunk_sum]
// Vector i of p[0..len) where the chunk ends inside or before it: 0 past len.
__device__ elem4_t tail_vector(const elem_t *p, unsigned i, unsigned len)
{
    elem4_t v = { 0, 0, 0, 0 };           // v.w stays 0: 4 i + 3 < len is a whole vector
    if (4 * i + 0 < len) v.x = p[4 * i + 0];
    if (4 * i + 1 < len) v.y = p[4 * i + 1];
    if (4 * i + 2 < len) v.z = p[4 * i + 2];
    return v;
}

// Lane l's share of p[0..len): vectors l, l + 32, ..., l + 992, added in that
// sequence, each as (x + y) + (z + w). whole says that len == CHUNK, so that
// the compiler drops every comparison with len. p must be 16-byte aligned.
__device__ __forceinline__ elem_t lane_sum(const elem_t *p, unsigned lane, unsigned len, bool whole)
{
    const elem4_t *p4 = (const elem4_t *)p;
    elem_t sum = 0;
    for (int j = 0; j < PER_LANE; j += LOADS_IN_FLIGHT) {
        elem4_t v[LOADS_IN_FLIGHT];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++) {
            unsigned i = lane + LANES * (j + k);
            v[k] = whole || 4 * i + 4 <= len ? p4[i] : tail_vector(p, i, len);
        }
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    return sum;
}

// The sum of p[0..len), len <= CHUNK, in the chunk's fixed order; valid in
// lane 0. The tree is written out: cg::reduce's is the library's to change.
__device__ elem_t chunk_sum(cg::thread_block_tile<32> warp, const elem_t *p, unsigned len)
{
    unsigned lane = warp.thread_rank();
    elem_t sum = len == CHUNK ? lane_sum(p, lane, CHUNK, true) : lane_sum(p, lane, len, false);
    for (int offset = LANES / 2; offset > 0; offset /= 2)
        sum += warp.shfl_down(sum, offset);       // lane l adds lane l + offset
    return sum;
}
// [end chunk_sum]

// [begin combine]
// One level: warps first, first + stride, ... sum the chunks of from[0..m),
// chunk c into to[c], or into *out when there is only one chunk.
__device__ void sum_chunks(cg::thread_block_tile<32> warp, const elem_t *from, size_t m,
                           elem_t *to, elem_t *out, size_t first, size_t stride)
{
    size_t chunks = (m + CHUNK - 1) / CHUNK;
    for (size_t c = first; c < chunks; c += stride) {
        size_t left = m - c * CHUNK;
        elem_t s = chunk_sum(warp, from + c * CHUNK, left < CHUNK ? (unsigned)left : CHUNK);
        if (warp.thread_rank() == 0)
            *(chunks == 1 ? out : to + c) = s;
    }
}

// Sums m >= 2 chunk sums, level after level, in one block, into *out. Each
// level's sums follow the level below, 16-byte aligned. Step 09 runs this on
// chunk sums that came from other GPUs.
__device__ void combine(cg::thread_block block, elem_t *sums, size_t m, elem_t *out)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    for (elem_t *level = sums; m > 1; m = (m + CHUNK - 1) / CHUNK) {
        elem_t *next = level + (m + 3) / 4 * 4;
        sum_chunks(warp, level, m, next, out, warp.meta_group_rank(), warp.meta_group_size());
        block.sync();                         // this level is written: the next may read it
        level = next;
    }
}
// [end combine]

#endif
