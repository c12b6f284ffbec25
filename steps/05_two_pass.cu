/* 05_two_pass.cu: no atomics; a second kernel sums the blocks' partial sums.
 *
 *     make step05 && ./step05
 *
 * Changed since 04: the end. Instead of adding its sum into the total with an
 * atomic, each block writes it to partials[block]; a second launch of one
 * block reads all the partials and writes the total. Nothing is added in an
 * order the hardware chooses, so the float result is the same bits on every
 * run (for the same n, block size and GPU, which fix the grid).
 *
 * The price is a second launch. The first kernel must finish completely before
 * the second starts; stream order guarantees that, and also that every
 * partial written by the first is visible to the second. On a large array
 * that wait is noise; on a small one it is a good part of the time. Steps 06
 * and 07 get back to one launch without giving up determinism.
 *
 * The partials live in scratch memory that the harness fills with garbage
 * before every run: the second pass may only read what the first wrote.
 *
 * When one block is all there is, there is nothing to combine: a small kernel
 * of its own sums n and writes the total, in one launch (one_block_kernel, as
 * CUB does for an input of one tile). The block size is chosen from n. Both
 * are in one_block.cuh, which steps 06 and 07 include too.
 *
 * Changed functions: grid_size, reduce.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "../common/harness.h"

namespace cg = cooperative_groups;

#define LOADS_IN_FLIGHT 4   // independent 16-byte loads per thread per round

// ---- kernels ----------------------------------------------------------------
// [begin thread_sum]
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
// [end thread_sum]

// [begin block_sum]
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
// [end block_sum]

#include "one_block.cuh"  // one block for a small n; threads per block from n

// [begin kernel]
// Pass 1: each block writes its sum to partials[block].
__global__ void partials_kernel(const elem_t *in, size_t n, elem_t *partials)
{
    cg::thread_block block = cg::this_thread_block();
    elem_t v = thread_sum(cg::this_grid(), in, n);
    elem_t total = block_sum(block, v);
    if (block.thread_rank() == 0)
        partials[block.group_index().x] = total;
}

// Pass 2, one block: thread t adds partials t, t + blockDim, ..., then the
// block sums those. The order is fixed, so the result is too.
__global__ void final_kernel(const elem_t *partials, unsigned count, elem_t *out)
{
    cg::thread_block block = cg::this_thread_block();
    elem_t v = 0;
    for (unsigned i = block.thread_rank(); i < count; i += block.size())
        v += partials[i];
    elem_t total = block_sum(block, v);
    if (block.thread_rank() == 0)
        *out = total;
}
// [end kernel]

// ---- launcher ---------------------------------------------------------------
// [begin launcher]
// As many blocks as the GPU can run at once, and no more: extra blocks would
// only wait for a free multiprocessor. A small input gets fewer, so that each
// thread still has a full round of loads.
static size_t grid_size(const launch_t *L)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, partials_kernel, L->block, 0));
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
    partials_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n, partials);
    CUDA_CHECK(cudaGetLastError());
    final_kernel<<<1, L->block, 0, stream>>>(partials, L->grid, d_out);   // after pass 1, by stream order
    CUDA_CHECK(cudaGetLastError());
}
// [end launcher]

// ---- step -------------------------------------------------------------------
static const step_t step = {
    .name = "05_two_pass",
    .technique = "two passes, no atomics: partials, then one block sums them",
    .deterministic = 1,
    .combine = COMBINE_TREE,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .block_size = block_size<LOADS_IN_FLIGHT>,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
