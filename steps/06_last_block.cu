/* 06_last_block.cu: one launch; the last block to finish sums the partials.
 *
 *     make step06 && ./step06
 *
 * Changed since 05: the two kernels become one. Each block still writes its
 * partial, then takes a ticket from a counter with atomicAdd. Tickets come out
 * 0, 1, ..., grid - 1 in the order blocks finish; the block that draws
 * grid - 1 knows every other block has written its partial, and sums them the
 * same way pass 2 of step 05 did. Same bits every run, one launch fewer.
 *
 * The subtle part is memory ordering. "Block A wrote its partial, then took a
 * ticket" in A's program order says nothing about the order in which another
 * multiprocessor sees the two writes: the ticket lives in L2, the partial may
 * still be on its way. Two fences make it safe, one on each side:
 *   release: the writer fences between its partial and its ticket, so any
 *            block that sees the ticket can see the partial;
 *   acquire: the last block fences between seeing the last ticket and reading
 *            the partials, so none of its reads is served from before.
 * Then a block barrier passes what thread 0 learned to the rest of the block.
 *
 * The counter lives in state memory that the harness zeroes once, before the
 * first launch; the last block puts it back to zero, so the next launch finds
 * it ready without a memset. A grid of one block needs none of this (step 05).
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
        __threadfence();                   // release: the partial before the ticket
        unsigned ticket = atomicAdd(blocks_done, 1);
        is_last = ticket == gridDim.x - 1;
        if (is_last)
            __threadfence();               // acquire: the tickets before the partials
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
// [end kernel]

// ---- launcher ---------------------------------------------------------------
// [begin launcher]
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
// [end launcher]

// ---- step -------------------------------------------------------------------
static const step_t step = {
    .name = "06_last_block",
    .technique = "one launch: threadfence + atomic ticket, last block sums partials",
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
