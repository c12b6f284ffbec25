/* 08_fixed_order.cu: the same bits on every GPU, from an order of additions fixed by n alone.
 *
 *     make step08 && ./step08
 *
 * Changed since 07: who adds what to what. In steps 05-07 the grid and the
 * block decide which thread adds which elements, so another --block, --grid
 * or GPU adds in another order, and float addition is not associative. Here
 * the array is cut into chunks of 4096 elements, each summed in a fixed order
 * (steps/fixed_order.cuh, which step 09 includes too), then the chunk sums
 * the same way, level after level. The launch decides only who sums which
 * chunk: a warp, or a block where chunks are few.
 *
 * The levels above the first are summed by the last block to finish (step
 * 06's ticket, one acquire-release atomic), not after a grid.sync(): a
 * cooperative launch refuses a grid larger than fits on the GPU, and bits
 * that must not depend on the grid should take any grid. The harness replays
 * the order on the CPU (common/order.c) and requires its bits.
 *
 * Changed functions: grid_size, reduce, reduce_kernel, scratch_size.
 */
#include <cuda/atomic>

#include "../common/harness.h"
#include "fixed_order.cuh"             // CHUNK, first_level, combine: the order

// ---- kernels ----------------------------------------------------------------
// [begin kernel]
// The grid sums the chunks into sums[chunk], a block or a warp a chunk; then
// the last block to finish (step 06's ticket) or the only one sums them.
__global__ void reduce_kernel(const elem_t *in, size_t n, elem_t *sums, unsigned *blocks_done,
                              elem_t *out)
{
    __shared__ bool is_last;
    cg::thread_block block = cg::this_thread_block();
    first_level(block, in, n, sums, out);
    if (n <= CHUNK) return;                   // one chunk: first_level wrote *out
    block.sync();                             // every chunk sum of this block is written
    if (block.thread_rank() == 0) {           // the ticket: releases the block's sums, acquires the rest
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(*blocks_done);
        is_last = gridDim.x == 1 || done.fetch_add(1, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
    block.sync();                             // share is_last (and what thread 0 saw)
    if (!is_last) return;
    combine(block, sums, (n + CHUNK - 1) / CHUNK, out);
    if (gridDim.x > 1 && block.thread_rank() == 0)
        *blocks_done = 0;                     // every ticket drawn: ready for the next launch
}
// [end kernel]

// ---- launcher ---------------------------------------------------------------
// [begin launcher]
// As many blocks as fit on the GPU at once, no more than first_level has work
// for. Any other grid gives the same bits (try --grid).
static size_t grid_size(const launch_t *L)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_kernel, L->block, 0));
    size_t resident = (size_t)per_sm * L->sm_count;
    return min_size(resident, first_level_blocks(L->n, L->block));
}

// The sums of every level that has more than one, each 16-byte aligned.
static size_t scratch_size(const launch_t *L)
{
    size_t elems = 0;
    for (size_t m = div_up(L->n, CHUNK); m > 1; m = div_up(m, CHUNK))
        elems += div_up(m, 4) * 4;
    return elems * sizeof(elem_t);
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    elem_t *sums = (elem_t *)L->scratch;
    unsigned *blocks_done = (unsigned *)L->state;     // zero between launches
    reduce_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n, sums, blocks_done, d_out);
    CUDA_CHECK(cudaGetLastError());
}
// [end launcher]

// ---- step -------------------------------------------------------------------
static const step_t step = {
    .name = "08_fixed_order",
    .technique = "order fixed by n: chunks of 4096, fixed sequences and trees",
    .deterministic = 1,
    .combine = COMBINE_FIXED_ORDER,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .state_bytes = sizeof(unsigned),
    .chunk = CHUNK,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
