/* 08_fixed_order.cu: the same bits on every GPU, from an order of additions fixed by n alone.
 *
 *     make step08 && ./step08
 *
 * Changed since 07: who adds what to what. In steps 05-07 thread t adds
 * elements t, t + grid * block, ..., so another --block, another --grid or a
 * GPU with another number of multiprocessors adds in another order, and float
 * addition is not associative. Here the array is cut into chunks of 4096
 * elements; one warp sums one chunk, whichever warp it is, in a fixed order
 * (lane l adds vectors l, l + 32, ... in sequence; the lanes meet in a fixed
 * shuffle tree); the chunk sums are summed the same way, level after level.
 * The grid, the block and the GPU decide only which warp sums which chunk.
 *
 * The levels above the first are summed by the last block to finish (step
 * 06's ticket), not after a grid.sync() (step 07): a cooperative launch
 * refuses a grid larger than fits on this GPU, and a sum whose bits must not
 * depend on the grid should take any grid. A grid of one block needs no
 * ticket, and n <= 4096 is one chunk, whose warp writes the result. The
 * harness replays the order on the CPU (common/order.c) and requires its bits.
 * The order itself (chunk_sum, sum_chunks, combine) is in steps/fixed_order.cuh,
 * which step 09 and the answers built on this step include too.
 *
 * Changed functions: grid_size, reduce, reduce_kernel, scratch_size.
 */
#include "../common/harness.h"
#include "fixed_order.cuh"             // CHUNK, chunk_sum, sum_chunks, combine: the order

// ---- kernels ----------------------------------------------------------------
// [begin kernel]
// Warp w of the grid sums chunks w, w + warps, ... into sums[chunk]; then the
// last block to finish (step 06's ticket) or the only one sums them.
__global__ void reduce_kernel(const elem_t *in, size_t n, elem_t *sums, unsigned *blocks_done,
                              elem_t *out)
{
    __shared__ bool is_last;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    size_t warps = (size_t)gridDim.x * warp.meta_group_size();
    sum_chunks(warp, in, n, sums, out, (size_t)blockIdx.x * warp.meta_group_size() + warp.meta_group_rank(),
               warps);
    if (n <= CHUNK) return;                   // one chunk: its warp wrote *out
    if (gridDim.x > 1)
        __threadfence();                      // release: this thread's chunk sums before the ticket
    block.sync();                             // every chunk sum of this block is written
    if (block.thread_rank() == 0) {
        is_last = gridDim.x == 1 || atomicAdd(blocks_done, 1) == gridDim.x - 1;
        if (is_last && gridDim.x > 1)
            __threadfence();                  // acquire: the tickets before the chunk sums
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
// As many blocks as fit on the GPU at once, no more warps than chunks. Any
// other grid gives the same bits (try --grid).
static size_t grid_size(const launch_t *L)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_kernel, L->block, 0));
    size_t resident = (size_t)per_sm * L->sm_count;
    size_t needed = div_up(div_up(L->n, CHUNK), (size_t)L->block / LANES);
    return min_size(resident, needed);
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
    .technique = "order fixed by n: chunks of 4096, a warp each, fixed trees",
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
