/* 06_no_fence.cu: step 06 with both __threadfence() calls removed. Racy on
 * purpose; 06_no_fence.md says what can go wrong and how to look for it.
 *
 *     make answers && build/answers/06_no_fence --n 2^20
 *     build/answers/06_no_fence --n 1000,65537,2^20+3,2^24 --reps 10000    (a stress run)
 *
 * Everything else is step 06: each block writes its partial, takes a ticket
 * with atomicAdd, and the block that draws the last ticket sums the partials.
 * Without the fences nothing orders the write of a partial before its
 * block's ticket, as another multiprocessor sees them, nor the last block's
 * reads of the partials after its ticket. The last block may then read a
 * partial that is not yet visible: it gets the NaN the harness wrote into
 * scratch before the run, and the harness reports WRONG. It may also pass
 * every run you try; that proves nothing (see 06_no_fence.md).
 *
 * Changed functions: reduce_kernel.
 */
#include <cooperative_groups.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "../common/harness.h"

namespace cg = cooperative_groups;

#define LOADS_IN_FLIGHT 4   // independent 16-byte loads per thread per round

// ---- kernels ----------------------------------------------------------------
// The sum of this thread's share of in[0..n): vectors i, i + stride,
// i + 2 stride, ... where i is the thread's rank in the grid and stride the
// number of threads in the grid. in must be 16-byte aligned (cudaMalloc
// gives 256). Valid in every thread.
__device__ elem_t thread_sum(cg::grid_group grid, const elem_t *in, size_t n)
{
    const elem4_t *in4 = (const elem4_t *)in;
    size_t n4 = n / 4;                                    // whole vectors
    size_t rank = grid.thread_rank();
    size_t stride = grid.num_threads();
    elem_t sum = 0;
    size_t i = rank;
    // Issue all loads of a round before adding any, so they overlap in flight.
    for (; i + (LOADS_IN_FLIGHT - 1) * stride < n4; i += LOADS_IN_FLIGHT * stride) {
        elem4_t v[LOADS_IN_FLIGHT];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            v[k] = in4[i + k * stride];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    for (; i < n4; i += stride) {                         // fewer than a round left
        elem4_t v = in4[i];
        sum += (v.x + v.y) + (v.z + v.w);
    }
    if (rank < n - n4 * 4)                                // the last n % 4 elements
        sum += in[n4 * 4 + rank];
    return sum;
}

// Sums one value per thread across the block: each 32-thread tile with
// cg::reduce, then tile 0 sums the tiles' sums. The block size must be a
// multiple of 32. The result is valid in tile 0, so in thread 0.
__device__ elem_t block_sum(cg::thread_block block, elem_t v)
{
    __shared__ elem_t tile_sums[32];       // one per tile: at most 1024 / 32
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    v = cg::reduce(tile, v, cg::plus<elem_t>());
    if (tile.thread_rank() == 0)
        tile_sums[tile.meta_group_rank()] = v;
    block.sync();                          // every tile's sum is written
    if (tile.meta_group_rank() == 0) {
        unsigned tiles = tile.meta_group_size();
        v = tile.thread_rank() < tiles ? tile_sums[tile.thread_rank()] : 0;
        v = cg::reduce(tile, v, cg::plus<elem_t>());
    }
    return v;
}

#include "../steps/one_block.cuh"  // one block for a small n; threads per block from n

// Each block writes its partial and takes a ticket; the block with the last
// ticket sums all partials into *out and resets the counter.
__global__ void reduce_kernel(const elem_t *in, size_t n, elem_t *partials,
                              unsigned *blocks_done, elem_t *out)
{
    __shared__ bool is_last;
    cg::thread_block block = cg::this_thread_block();
    elem_t v = thread_sum(cg::this_grid(), in, n);
    elem_t total = block_sum(block, v);
    if (block.thread_rank() == 0) {
        partials[blockIdx.x] = total;
        // (no fence here: nothing orders the partial before the ticket)
        unsigned ticket = atomicAdd(blocks_done, 1);
        is_last = ticket == gridDim.x - 1;
        // (no fence here: nothing orders the reads of the partials after the ticket)
    }
    block.sync();                          // share is_last (and what thread 0 saw)
    if (!is_last)
        return;

    v = 0;                                 // as pass 2 of step 05
    for (unsigned i = block.thread_rank(); i < gridDim.x; i += block.size())
        v += partials[i];
    total = block_sum(block, v);
    if (block.thread_rank() == 0) {
        *out = total;
        *blocks_done = 0;                  // every ticket is drawn: ready for the next launch
    }
}

// ---- launcher ---------------------------------------------------------------
// As many blocks as the GPU can run at once, and no more: extra blocks would
// only wait for a free multiprocessor. A small input gets fewer, so that each
// thread still has a full round of loads.
static size_t grid_size(const launch_t *L)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_kernel, L->block, 0));
    size_t resident = (size_t)per_sm * L->sm_count;
    size_t needed = div_up(L->n, (size_t)L->block * 4 * LOADS_IN_FLIGHT);
    return min_size(resident, needed);
}

// One partial per block.
static size_t scratch_size(const launch_t *L)
{
    return L->grid * sizeof(elem_t);
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    elem_t *partials = (elem_t *)L->scratch;
    if (one_block_sum<LOADS_IN_FLIGHT>(d_in, d_out, L, stream))  // one block: nothing to combine
        return;
    unsigned *blocks_done = (unsigned *)L->state;     // zero between launches
    reduce_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n, partials, blocks_done, d_out);
    CUDA_CHECK(cudaGetLastError());
}

// ---- step -------------------------------------------------------------------
static const step_t step = {
    .name = "06_no_fence",
    .technique = "racy on purpose: step 06 without its two fences",
    .deterministic = 1,
    .combine = COMBINE_TREE,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .block_size = block_size<LOADS_IN_FLIGHT>,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .state_bytes = sizeof(unsigned),
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
