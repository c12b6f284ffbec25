/* 07_cooperative.cu: one launch, with a barrier across the whole grid.
 *
 *     make step07 && ./step07
 *
 * Changed since 06: the ticket and its fences become grid.sync(), a barrier
 * that no thread of the grid passes until every thread has reached it, and
 * after which every write made before it is visible to every block. Each
 * block writes its partial, the grid synchronises, and block 0 sums the
 * partials with all its threads. Same bits every run, one launch.
 *
 * A grid-wide barrier is only possible if every block of the grid is on the
 * GPU at the same time: a block still waiting for a free multiprocessor could
 * never arrive, and the others would wait forever. So:
 *   - the kernel is started with cudaLaunchCooperativeKernel, which refuses
 *     (cudaErrorCooperativeLaunchTooLarge) a grid larger than can be resident;
 *     <<<...>>> makes no such promise, and grid.sync() is not allowed after it
 *     (grid.sync() checks grid.is_valid() first and stops the kernel);
 *   - the grid is sized by the occupancy calculator with the real block size
 *     and shared memory, times the number of multiprocessors;
 *   - the device must support cooperative launches, which we check first.
 * Step 02 sized its grid the same way for speed; here it is a rule. A grid of
 * one block needs no barrier (step 05).
 *
 * Changed functions: grid_size, reduce, reduce_kernel.
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
// Each block writes its partial; after the grid-wide barrier, block 0 sums
// them all (each thread a strided share, then the block tree) into *out.
__global__ void reduce_kernel(const elem_t *in, size_t n, elem_t *partials, elem_t *out)
{
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    elem_t v = thread_sum(grid, in, n);
    elem_t total = block_sum(block, v);
    if (block.thread_rank() == 0)
        partials[grid.block_rank()] = total;
    grid.sync();                           // every partial is written and visible

    if (grid.block_rank() != 0)
        return;
    v = 0;                                 // as pass 2 of step 05
    for (unsigned i = block.thread_rank(); i < grid.num_blocks(); i += block.size())
        v += partials[i];
    total = block_sum(block, v);
    if (block.thread_rank() == 0)
        *out = total;
}
// [end kernel]

// ---- launcher ---------------------------------------------------------------
// [begin launcher]
// A cooperative grid may hold only as many blocks as the GPU can run at once:
// blocks per multiprocessor for this kernel, block size and (zero) dynamic
// shared memory, times the multiprocessors. A small input gets fewer.
static size_t grid_size(const launch_t *L)
{
    int cooperative = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, L->device));
    if (!cooperative)
        device_fail("this GPU does not support cooperative launches "
                    "(cudaDevAttrCooperativeLaunch is 0), which grid.sync() needs");
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
    size_t n = L->n;
    void *args[] = { &d_in, &n, &partials, &d_out };   // the kernel's arguments, in order
    CUDA_CHECK(cudaLaunchCooperativeKernel((const void *)reduce_kernel, L->grid, L->block,
                                           args, 0, stream));
}
// [end launcher]

// ---- step -------------------------------------------------------------------
static const step_t step = {
    .name = "07_cooperative",
    .technique = "one cooperative launch: grid.sync(), block 0 sums partials",
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
