/* grid_order.cu: a broken fixed-order sum that the GPU tests must catch.
 *
 * Step 08, except that each warp adds the sums of the chunks it took into one
 * running value and writes that: which chunk sums share a running value, and
 * in which order they are added, now follows the grid. Every run gives the
 * same bits (run-to-run determinism holds) and every element is added once
 * (the exact build is right), but another --grid or --block gives other
 * bits: only the CPU replica of the order can tell. (Step 08's order itself,
 * chunk_sum and combine, comes from steps/fixed_order.cuh.)
 */
#include "../../common/harness.h"
#include "../../steps/fixed_order.cuh"

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
    size_t chunks = (n + CHUNK - 1) / CHUNK;
    size_t first = (size_t)blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    elem_t mine = 0;
    for (size_t c = first; c < chunks; c += warps) {
        size_t left = n - c * CHUNK;
        mine += chunk_sum(warp, in + c * CHUNK, left < CHUNK ? (unsigned)left : CHUNK);
    }
    size_t count = warps < chunks ? warps : chunks;      // BUG: one running sum per warp
    if (warp.thread_rank() == 0 && first < chunks)
        *(count == 1 ? out : sums + first) = mine;
    if (count == 1) return;
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
    combine(block, sums, count, out);           // the combine sees those sums
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
    .name = "grid_order",
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
