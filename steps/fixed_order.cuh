/* fixed_order.cuh: step 08's order of additions on the GPU, in one place, for
 * step 08 (chapter 08 explains it) and what keeps its bits: step 09, the
 * answers on them, the tests' mutants. common/order.c replays it on the CPU.
 *
 *   chunk_sum    one warp sums one chunk of CHUNK elements in a fixed order
 *   sum_chunks   one level, a warp a chunk; block_sums: the same, a block a chunk
 *   first_level  the array's chunks, by the faster of the two for n
 *   combine      one block sums the chunk sums, level after level
 */
#ifndef FIXED_ORDER_CUH
#define FIXED_ORDER_CUH

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define CHUNK 4096                        // elements per chunk: part of the order, the same on every GPU
#define LANES 32
#define PER_LANE (CHUNK / (4 * LANES))    // 4-element vectors each lane adds: 32
#define LOADS_IN_FLIGHT 8                 // loads issued before the first add: speed only, not the order
#define BLOCK_CHUNKS 512                  // up to this many chunks, a block a chunk: speed only

// [begin chunk_sum]
// Vector i of p[0..len), 0 past len. p must be 16-byte aligned.
__device__ __forceinline__ elem4_t vector_at(const elem_t *p, unsigned i, unsigned len)
{
    if (4 * i + 4 <= len) return ((const elem4_t *)p)[i];
    elem4_t v = { 0, 0, 0, 0 };           // v.w stays 0: 4 i + 3 < len is a whole vector
    if (4 * i + 0 < len) v.x = p[4 * i + 0];
    if (4 * i + 1 < len) v.y = p[4 * i + 1];
    if (4 * i + 2 < len) v.z = p[4 * i + 2];
    return v;
}

// Lane l's share of p[0..len): vectors l, l + 32, ..., l + 992, added in that
// sequence, each as (x + y) + (z + w). whole says that len == CHUNK, so that
// the compiler drops every comparison with len.
__device__ __forceinline__ elem_t lane_sum(const elem_t *p, unsigned lane, unsigned len, bool whole)
{
    elem_t sum = 0;
    for (int j = 0; j < PER_LANE; j += LOADS_IN_FLIGHT) {
        elem4_t v[LOADS_IN_FLIGHT];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            v[k] = vector_at(p, lane + LANES * (j + k), whole ? CHUNK : len);
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    return sum;
}

// The lanes' sums in a fixed tree, valid in lane 0 (cg::reduce's is the library's to change).
__device__ elem_t lane_tree(cg::thread_block_tile<32> warp, elem_t sum)
{
    for (int offset = LANES / 2; offset > 0; offset /= 2)
        sum += warp.shfl_down(sum, offset);       // lane l adds lane l + offset
    return sum;
}

// The sum of p[0..len), len <= CHUNK, in the chunk's fixed order; valid in lane 0.
__device__ elem_t chunk_sum(cg::thread_block_tile<32> warp, const elem_t *p, unsigned len)
{
    unsigned lane = warp.thread_rank();
    return lane_tree(warp, len == CHUNK ? lane_sum(p, lane, CHUNK, true) : lane_sum(p, lane, len, false));
}
// [end chunk_sum]

// [begin combine]
// One level: warps first, first + stride, ... sum the chunks of from[0..m),
// chunk c into to[c], or into *out when there is only one chunk.
__device__ void sum_chunks(cg::thread_block_tile<32> warp, const elem_t *from, size_t m,
                           elem_t *to, elem_t *out, size_t first, size_t stride)
{
    for (size_t c = first; c * CHUNK < m; c += stride) {
        unsigned len = m - c * CHUNK < CHUNK ? (unsigned)(m - c * CHUNK) : CHUNK;
        elem_t s = chunk_sum(warp, from + c * CHUNK, len);
        if (warp.thread_rank() == 0)
            *(m <= CHUNK ? out : to + c) = s;
    }
}

// The same level with blocks first, first + stride, ... on the chunks, all of
// a chunk's loads in flight at once: each thread loads two vectors and stores
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
        block.sync();                                           // the chunk's CHUNK / 4 values are in stage
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

// The first level, in[0..n) into sums[chunk] (or *out: one chunk). One chunk: the block.
// Fewer chunks than a block has warps: one block, a warp a chunk, no ticket. Up to BLOCK_CHUNKS
// a warp a chunk would leave the GPU idle (2^16 elements: 16 warps): a block a chunk.
__device__ void first_level(cg::thread_block block, const elem_t *in, size_t n, elem_t *sums, elem_t *out)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    size_t chunks = (n + CHUNK - 1) / CHUNK, w = warp.meta_group_size();
    if ((chunks >= w || chunks == 1) && chunks <= BLOCK_CHUNKS)
        block_sums(block, in, n, sums, out, blockIdx.x, gridDim.x);
    else
        sum_chunks(warp, in, n, sums, out, blockIdx.x * w + warp.meta_group_rank(), gridDim.x * w);
}

// The blocks first_level has work for.
static inline size_t first_level_blocks(size_t n, int block)
{
    size_t chunks = (n + CHUNK - 1) / CHUNK, w = block / LANES;
    return chunks >= w && chunks <= BLOCK_CHUNKS ? chunks : (chunks + w - 1) / w;
}

// Sums m >= 2 chunk sums, level after level, in one block, into *out (the last
// level, one chunk, with block_sums). Each level's sums follow the level below,
// 16-byte aligned. Step 09 runs this on chunk sums that came from other GPUs.
__device__ void combine(cg::thread_block block, elem_t *sums, size_t m, elem_t *out)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    for (elem_t *level = sums; m > 1; m = (m + CHUNK - 1) / CHUNK) {
        elem_t *next = level + (m + 3) / 4 * 4;
        if (m <= CHUNK)
            block_sums(block, level, m, next, out, 0, 1);
        else
            sum_chunks(warp, level, m, next, out, warp.meta_group_rank(), warp.meta_group_size());
        block.sync();                         // this level is written: the next may read it
        level = next;
    }
}
// [end combine]

#endif
