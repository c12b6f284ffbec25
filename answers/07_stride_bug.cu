/* 07_stride_bug.cu: step 07 with a loop bound that another course's
 * cooperative kernel gets wrong, made on purpose so that the harness can be
 * seen to catch it.
 *
 *     make answers && build/answers/07_stride_bug --n 2^20              (WRONG)
 *     build/answers/07_stride_bug --n 2^20 --grid 1                     (OK)
 *
 * The mistake is in thread_sum: each thread starts at its index in the
 * *block* and strides by the *block's* size, so every block walks the whole
 * array, and the grid adds it up once per block. The result is the true sum
 * times the number of blocks. Nothing crashes, nothing races, the result is
 * the same bits every run, and with a grid of one block it is even right:
 * only a check against a reference at several sizes, with the grid the
 * program really uses, shows it. A test that sums all ones and compares with
 * n would catch it too, but would miss a mistake in the order of the
 * additions; the exact build catches both.
 *
 * tests/answers.sh runs it: WRONG in the float and the exact build, at every
 * size where the grid has more than one block, and OK with --grid 1.
 *
 * Changed functions: thread_sum.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "../common/harness.h"

namespace cg = cooperative_groups;

#define LOADS_IN_FLIGHT 4   // independent 16-byte loads per thread per round

// ---- kernels ----------------------------------------------------------------
// [begin thread_sum]
// Meant to be the sum of this thread's share of in[0..n); but see above.
__device__ elem_t thread_sum(cg::grid_group grid, const elem_t *in, size_t n)
{
    (void)grid;
    cg::thread_block block = cg::this_thread_block();
    elem_t sum = 0;
    // The mistake: the block's thread index and the block's size, where the
    // grid's (grid.thread_rank(), grid.num_threads()) were meant.
    for (size_t i = block.thread_rank(); i < n; i += block.size())
        sum += in[i];
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

#include "../steps/one_block.cuh"  // one block for a small n; threads per block from n

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
    .name = "07_stride_bug",
    .technique = "step 07 with every block summing the whole array (a bug)",
    .deterministic = 1,             /* wrong, but the same bits every run */
    .combine = COMBINE_TREE,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .block_size = block_size<LOADS_IN_FLIGHT>,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
