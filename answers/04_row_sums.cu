/* 04_row_sums.cu: many small sums at once: one block per row.
 *
 *     make answers && build/answers/04_row_sums --n 2^24
 *     build/answers/04_row_sums_exact --n 2^24             (the uint32 build)
 *
 * Often the job is not one sum of a huge array but a sum per row of a matrix
 * (a softmax denominator, a norm per sample): a batch of independent
 * reductions. This program sees its n input elements as rows of ROW_LENGTH
 * (1000) elements, the last row shorter when n is not a multiple of 1000,
 * and launches one block per row:
 *
 *     rows = ceil(n / 1000); block r sums in[1000 r .. min(1000 r + 1000, n))
 *
 * Each thread of the block adds the elements t, t + blockDim, ... of its row
 * in a register, and step 04's block_sum (cg::reduce on tiles of 32, then
 * tile 0 over the tiles' sums) finishes the row. The row sums go to scratch
 * memory, row_sums[r]. The harness checks one number, so a second small
 * kernel (one block, as pass 2 of step 05) adds the row sums in a fixed order
 * into the total. No atomics anywhere: the result is the same bits every run.
 *
 * A row length of 1000 is not a multiple of 32, so no block size divides it:
 * in the last pass over a row some threads have nothing to add (with 256
 * threads, threads 232 to 255 skip the fourth pass).
 *
 * Rows of 1000 floats start at multiples of 4000 bytes, which happen to be
 * 16-byte aligned, but most lengths (try -DROW_LENGTH=1001) give rows that
 * are not: a float4 load from such a row would be misaligned and fault. So
 * the loads are scalar: still coalesced, since consecutive threads read
 * consecutive words, and correct for any length. A vector version would
 * first peel each row's unaligned head, element by element, up to the next
 * 16-byte boundary.
 *
 * Block size: 256 by default (each thread then adds 3 or 4 elements of a
 * row); any power of two from 32 to 1024 works.
 *
 * Changed functions: grid_size, reduce.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "../common/harness.h"

namespace cg = cooperative_groups;

#ifndef ROW_LENGTH
#define ROW_LENGTH 1000     // elements per row; the last row may be shorter
#endif
#define STR_(x) #x
#define STR(x) STR_(x)      // STR(ROW_LENGTH) is "1000", for the report

// ---- kernels ----------------------------------------------------------------
// The sum of this thread's share of one row: elements t, t + blockDim, ...
// of row[0..len). Scalar loads: a row need not be 16-byte aligned.
// Valid in every thread.
__device__ elem_t row_thread_sum(cg::thread_block block, const elem_t *row, size_t len)
{
    elem_t sum = 0;
    for (size_t j = block.thread_rank(); j < len; j += block.size())
        sum += row[j];
    return sum;
}

// Sums one value per thread across the block: each 32-thread tile with
// cg::reduce, then tile 0 sums the tiles' sums (as in step 04). The block
// size must be a multiple of 32. The result is valid in tile 0, so in thread 0.
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

// Pass 1: block r writes the sum of row r to row_sums[r].
__global__ void row_sums_kernel(const elem_t *in, size_t n, elem_t *row_sums)
{
    cg::thread_block block = cg::this_thread_block();
    size_t row = block.group_index().x;
    size_t first = row * ROW_LENGTH;
    size_t len = n - first < ROW_LENGTH ? n - first : ROW_LENGTH;   // the last row may be short
    elem_t v = row_thread_sum(block, in + first, len);
    elem_t total = block_sum(block, v);
    if (block.thread_rank() == 0)
        row_sums[row] = total;
}

// Pass 2, one block: thread t adds row sums t, t + blockDim, ..., then the
// block sums those. The order is fixed, so the result is too.
__global__ void final_kernel(const elem_t *row_sums, size_t rows, elem_t *out)
{
    cg::thread_block block = cg::this_thread_block();
    elem_t v = 0;
    for (size_t i = block.thread_rank(); i < rows; i += block.size())
        v += row_sums[i];
    elem_t total = block_sum(block, v);
    if (block.thread_rank() == 0)
        *out = total;
}

// ---- launcher ---------------------------------------------------------------
// One block per row.
static size_t grid_size(const launch_t *L)
{
    return div_up(L->n, ROW_LENGTH);
}

// One sum per row.
static size_t scratch_size(const launch_t *L)
{
    return L->grid * sizeof(elem_t);
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    elem_t *row_sums = (elem_t *)L->scratch;
    size_t rows = L->grid;
    row_sums_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n, row_sums);
    CUDA_CHECK(cudaGetLastError());
    final_kernel<<<1, L->block, 0, stream>>>(row_sums, rows, d_out);   // after pass 1, by stream order
    CUDA_CHECK(cudaGetLastError());
}

// ---- step -------------------------------------------------------------------
// The error bound: the harness's tree model spreads n evenly over the
// threads; here a thread adds up to ceil(1000 / block) elements of its row,
// a few more than that model counts when the last row is short, which the
// bound's margin (LAMBDA = 10 in common/bound.c) covers many times over.
static const step_t step = {
    .name = "04_row_sums",
    .technique = "batched row sums: a block per row of " STR(ROW_LENGTH) ", then one block sums the rows",
    .deterministic = 1,
    .combine = COMBINE_TREE,
    .block_rule = BLOCK_POW2,
    .default_block = 256,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
