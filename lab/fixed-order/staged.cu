/* staged.cu: step 08's order, with a chunk's loads spread over the block.
 *
 * The question (lab/fixed-order/README.md): is step 08 slower than step 07
 * because one warp waits for a chunk's 32 loads a lane in windows, while
 * step 07 has every load of the array in flight at once? Here a block of
 * BLOCK threads loads R = ROUND_CHUNKS chunks a round, all its loads issued
 * before the first is used; each thread reduces each vector to
 * (x + y) + (z + w), exactly as lane_sum does, into shared memory; then warp
 * q < R adds chunk q's 1024 values in step 08's sequence (lane l: vectors
 * l, l + 32, ..., l + 992) and its shuffle tree. Same additions, same
 * order, same bits: the harness checks them against the CPU replica.
 *
 * Switches (lab/fixed-order/variants.sh builds them):
 *   ROUND_CHUNKS=R    chunks a block loads a round (1, 2 or 4 for blocks of 512)
 *   STAGED_COMBINE=1  the levels above the chunks loaded the same way by the
 *                     last block (else step 08's combine, a warp a chunk)
 *   ALL_FENCE=1       every thread fences before the ticket, as step 08 does
 *                     (else thread 0 alone, after the block's barrier)
 */
#include "../../common/harness.h"
#include "../../steps/fixed_order.cuh"

#ifndef ROUND_CHUNKS
#define ROUND_CHUNKS 4
#endif
#ifndef STAGED_COMBINE
#define STAGED_COMBINE 0
#endif
#ifndef ALL_FENCE
#define ALL_FENCE 0
#endif
#define BLOCK 512
#define VECS (CHUNK / 4)                                   // vectors a chunk: 1024
#define PER_THREAD (ROUND_CHUNKS * VECS / BLOCK)           // vectors a thread loads a round

typedef elem_t stage_t[2][ROUND_CHUNKS * VECS];

// Sums chunks (r * stride + first) * R + q of from[0..m), r = 0, 1, ...,
// q < R, into to[chunk], or *out if there is only one. from is 16-byte aligned.
__device__ void staged_sums(cg::thread_block block, stage_t &s, const elem_t *from, size_t m,
                            elem_t *to, elem_t *out, size_t first, size_t stride)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    const elem4_t *from4 = (const elem4_t *)from;
    size_t chunks = (m + CHUNK - 1) / CHUNK;
    size_t per_round = stride * ROUND_CHUNKS;
    size_t rounds = (chunks + per_round - 1) / per_round;
    unsigned t = block.thread_rank(), q = warp.meta_group_rank(), lane = warp.thread_rank();
    for (size_t r = 0; r < rounds; r++) {
        elem_t *buf = s[r & 1];
        size_t c0 = (r * stride + first) * ROUND_CHUNKS;         // this round's first chunk
        elem4_t v[PER_THREAD];
        #pragma unroll
        for (int k = 0; k < PER_THREAD; k++) {                    // every load before any add
            unsigned j = t + BLOCK * k;                            // vector j of the round
            size_t at = (c0 + j / VECS) * CHUNK + 4 * (size_t)(j % VECS);
            v[k] = at + 4 <= m ? from4[at / 4]
                 : at < m      ? vector_at(from + at, 0, (unsigned)(m - at)) : elem4_t{0, 0, 0, 0};
        }
        #pragma unroll
        for (int k = 0; k < PER_THREAD; k++)
            buf[t + BLOCK * k] = (v[k].x + v[k].y) + (v[k].z + v[k].w);
        block.sync();                                              // the round's values are in buf
        size_t c = c0 + q;
        if (q < ROUND_CHUNKS && c < chunks) {
            elem_t sum = 0;
            #pragma unroll
            for (int k = 0; k < PER_LANE; k++)
                sum += buf[q * VECS + lane + LANES * k];
            for (int offset = LANES / 2; offset > 0; offset /= 2)
                sum += warp.shfl_down(sum, offset);
            if (lane == 0)
                *(chunks == 1 ? out : to + c) = sum;
        }
        // No second barrier: the round after next writes this buffer only
        // after the next round's barrier, which its readers reach after reading.
    }
}

__global__ void __launch_bounds__(BLOCK) staged_kernel(const elem_t *in, size_t n, elem_t *sums,
                                                       unsigned *blocks_done, elem_t *out)
{
    __shared__ stage_t s;
    __shared__ bool is_last;
    cg::thread_block block = cg::this_thread_block();
    staged_sums(block, s, in, n, sums, out, blockIdx.x, gridDim.x);
    if (n <= CHUNK) return;
#if ALL_FENCE
    if (gridDim.x > 1)
        __threadfence();
#endif
    block.sync();
    if (block.thread_rank() == 0) {
#if !ALL_FENCE
        if (gridDim.x > 1)
            __threadfence();          // release, cumulative: the block's sums, seen through the barrier
#endif
        is_last = gridDim.x == 1 || atomicAdd(blocks_done, 1) == gridDim.x - 1;
        if (is_last && gridDim.x > 1)
            __threadfence();
    }
    block.sync();
    if (!is_last) return;
#if STAGED_COMBINE
    size_t m = (n + CHUNK - 1) / CHUNK;
    for (elem_t *level = sums; m > 1; m = (m + CHUNK - 1) / CHUNK) {
        elem_t *next = level + (m + 3) / 4 * 4;
        staged_sums(block, s, level, m, next, out, 0, 1);
        block.sync();
        level = next;
    }
#else
    combine(block, sums, (n + CHUNK - 1) / CHUNK, out);
#endif
    if (gridDim.x > 1 && block.thread_rank() == 0)
        *blocks_done = 0;
}

static size_t grid_size(const launch_t *L)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, staged_kernel, BLOCK, 0));
    return min_size((size_t)per_sm * L->sm_count, div_up(div_up(L->n, CHUNK), ROUND_CHUNKS));
}

static size_t scratch_size(const launch_t *L)
{
    size_t elems = 0;
    for (size_t m = div_up(L->n, CHUNK); m > 1; m = div_up(m, CHUNK))
        elems += div_up(m, 4) * 4;
    return elems * sizeof(elem_t);
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    staged_kernel<<<L->grid, BLOCK, 0, stream>>>(d_in, L->n, (elem_t *)L->scratch, (unsigned *)L->state, d_out);
    CUDA_CHECK(cudaGetLastError());
}

static const step_t step = {
    .name = "08_staged",
    .technique = "step 08's order, a chunk's loads spread over the block",
    .deterministic = 1,
    .combine = COMBINE_FIXED_ORDER,
    .block_rule = BLOCK_POW2,
    .default_block = BLOCK,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .state_bytes = sizeof(unsigned),
    .chunk = CHUNK,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
