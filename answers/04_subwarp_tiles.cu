/* 04_subwarp_tiles.cu: step 04's block_sum with tiles smaller than a warp.
 *
 *     make answers && build/answers/04_subwarp_tiles --n 2^24        (tiles of 16)
 *     build/answers/04_subwarp_tiles_8 --n 2^24                      (-DTILE=8)
 *     build/answers/04_subwarp_tiles_exact --n 2^24 --block 32       (uint32, 2 tiles a block)
 *
 * cg::tiled_partition<TILE>(block) cuts the block into tiles of TILE threads,
 * for any power of two TILE up to 32. A tile smaller than a warp is still a
 * full group: cg::reduce(tile, v, op) sums over its TILE threads only (for
 * float, log2(TILE) shuffle steps that stay inside the tile), and
 * tile.meta_group_rank() / meta_group_size() say which tile this is and how
 * many there are. The code is step 04's with 32 replaced by TILE, plus one
 * change the smaller tiles force:
 *
 *   - A block of 1024 threads has 1024 / 16 = 64 tiles (128 with TILE = 8),
 *     more than tile 0 has threads. So each thread of tile 0 first adds the
 *     tile sums TILE apart (thread k: sums k, k + TILE, k + 2 TILE, ...),
 *     then tile 0 reduces those. With TILE = 16 and 1024 threads, thread 3
 *     of tile 0 adds tile sums 3, 19, 35 and 51.
 *   - A block of 32 threads has 2 tiles of 16 (4 of 8): only the first 2 (4)
 *     threads of tile 0 find a tile sum; the others add nothing.
 *
 * Why smaller tiles: when a problem is naturally 8 or 16 wide (a row of 16
 * elements, a small matrix per group of threads), each tile is an independent
 * team, and two or four teams share a warp without any of them idling. For
 * one big sum, as here, they only add work (more tile sums to combine), so
 * expect no speed-up over step 04: the exercise is about the API.
 *
 * Correct for every block size the step allows (powers of two, 32 to 1024),
 * in the float and the exact build; one atomic per block, like step 04.
 *
 * Changed functions: block_sum.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "../common/harness.h"

namespace cg = cooperative_groups;

#ifndef TILE
#define TILE 16             // threads per tile: a power of two, at most 32
#endif
static_assert(TILE >= 2 && TILE <= 32 && (TILE & (TILE - 1)) == 0,
              "TILE must be a power of two from 2 to 32");
#define STR_(x) #x
#define STR(x) STR_(x)      // STR(TILE) is "16", for the report
#if TILE == 16
#define PROGRAM_NAME "04_subwarp_tiles"
#else
#define PROGRAM_NAME "04_subwarp_tiles_" STR(TILE)   // as the Makefile names the build
#endif

#define LOADS_IN_FLIGHT 4   // independent 16-byte loads per thread per round

// ---- kernels ----------------------------------------------------------------
// The sum of this thread's share of in[0..n), as in step 04: vectors i,
// i + stride, i + 2 stride, ... where i is the thread's rank in the grid and
// stride the number of threads in the grid. in must be 16-byte aligned
// (cudaMalloc gives 256). Valid in every thread.
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

// Sums one value per thread across the block: each TILE-thread tile with
// cg::reduce, then tile 0 sums the tiles' sums, TILE apart per thread first.
// The block size must be a multiple of TILE. The result is valid in tile 0,
// so in thread 0.
__device__ elem_t block_sum(cg::thread_block block, elem_t v)
{
    __shared__ elem_t tile_sums[1024 / TILE];   // one per tile of the largest block
    cg::thread_block_tile<TILE> tile = cg::tiled_partition<TILE>(block);
    v = cg::reduce(tile, v, cg::plus<elem_t>());
    if (tile.thread_rank() == 0)
        tile_sums[tile.meta_group_rank()] = v;
    block.sync();                               // every tile's sum is written
    if (tile.meta_group_rank() == 0) {
        unsigned tiles = tile.meta_group_size();
        v = 0;
        for (unsigned k = tile.thread_rank(); k < tiles; k += TILE)
            v += tile_sums[k];
        v = cg::reduce(tile, v, cg::plus<elem_t>());
    }
    return v;
}

__global__ void reduce_kernel(const elem_t *in, size_t n, elem_t *out)
{
    cg::thread_block block = cg::this_thread_block();
    elem_t v = thread_sum(cg::this_grid(), in, n);
    elem_t total = block_sum(block, v);
    if (block.thread_rank() == 0)
        atomicAdd(out, total);             // one atomic per block
}

// ---- launcher ---------------------------------------------------------------
// As in step 04: as many blocks as the GPU can run at once, fewer for a
// small input.
static size_t grid_size(const launch_t *L)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_kernel, L->block, 0));
    size_t resident = (size_t)per_sm * L->sm_count;
    size_t needed = div_up(L->n, (size_t)L->block * 4 * LOADS_IN_FLIGHT);
    return min_size(resident, needed);
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(elem_t), stream));  // the total starts at 0
    reduce_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n, d_out);
    CUDA_CHECK(cudaGetLastError());
}

// ---- step -------------------------------------------------------------------
// The error bound: the harness counts log2(block) tree levels; here an
// element sees log2(TILE) + 1024 / TILE^2 + log2(TILE) additions at most
// (22 for TILE = 8 and 1024 threads, against 10 counted). The bound's
// margin (LAMBDA = 10 in common/bound.c) covers that dozen many times over.
static const step_t step = {
    .name = PROGRAM_NAME,
    .technique = "block_sum on tiled_partition<" STR(TILE) ">: tiles, then tile 0 combines",
    .deterministic = 0,
    .combine = COMBINE_ATOMIC_PER_BLOCK,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .grid_size = grid_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
