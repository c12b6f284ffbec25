/* subwarp_tiles.cu: tiles of 2 to 32 threads, three ways (claim D).
 *
 *     make claims-programs && build/claims/subwarp_cg_8 --n 2^24
 *
 * A course report times reductions over tiles smaller than a warp three ways,
 * on an A100: with Cooperative Groups tiles, with two kernels, and with
 * groups made by hand from thread indices. It finds the two-kernel version
 * slowest for tiles of 2 and fastest from tiles of 16 up, and the other two
 * about equal. Its workload is not given; this is ours, chosen so that the
 * tile level is the work: one element per thread (step 01's front half; a
 * grid-stride loop would hide everything after it), then
 *
 *   tile level    the TILE threads of each tile sum their elements;
 *   block level   warp 0 sums the block's tile sums and writes the block's
 *                 partial, which a last one-block kernel adds up (step 05's
 *                 pass 2), the same for every way. No atomics: a total fed
 *                 by one atomic per block would time the atomics.
 *
 * Built with -DTILE=T (2, 4, 8, 16 or 32) and one of
 *   -DWAY_CG       cg::tiled_partition<T> and cg::reduce; tile sums in shared memory
 *   -DWAY_INDEX    by hand: tile = threadIdx.x / T, __shfl_down_sync of width T
 *   -DWAY_KERNELS  the tile level as WAY_CG, but the tile sums go to global
 *                  memory, and a second kernel with the same grid does the
 *                  block level from there: what one kernel keeps in shared
 *                  memory, two must write out and read back
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "../../common/harness.h"

namespace cg = cooperative_groups;

#ifndef TILE
#define TILE 8
#endif
static_assert(TILE >= 2 && TILE <= 32 && (TILE & (TILE - 1)) == 0, "TILE: a power of two, 2 to 32");
#define STR_(x) #x
#define STR(x) STR_(x)
#if defined(WAY_INDEX)
#define WAY "index"
#elif defined(WAY_KERNELS)
#define WAY "kernels"
#else
#define WAY "cg"
#endif

// ---- kernels ----------------------------------------------------------------
// This thread's element; threads past the end hold 0.
__device__ elem_t my_element(const elem_t *in, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    return i < n ? in[i] : 0;
}

// The sum of v over this thread's tile, valid in the tile's first thread.
__device__ elem_t tile_sum(elem_t v)
{
#ifdef WAY_INDEX
    // Width TILE keeps each shuffle inside the thread's group of TILE lanes;
    // every lane of the warp takes part, so the mask is the whole warp.
    for (int offset = TILE / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset, TILE);
    return v;
#else
    cg::thread_block_tile<TILE> tile = cg::tiled_partition<TILE>(cg::this_thread_block());
    return cg::reduce(tile, v, cg::plus<elem_t>());
#endif
}

// The block level, in warp 0: lane k adds sums k, k + 32, ... of the block's
// count tile sums, the lanes meet in shuffles, lane 0 writes the partial.
__device__ void block_level(const elem_t *sums, unsigned count, elem_t *partials)
{
    elem_t v = 0;
    for (unsigned k = threadIdx.x; k < count; k += 32)
        v += sums[k];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = v;
}

#ifndef WAY_KERNELS
// One kernel: tile sums to shared memory, then the block level.
__global__ void reduce_kernel(const elem_t *in, size_t n, elem_t *partials)
{
    __shared__ elem_t tile_sums[1024 / TILE];
    elem_t v = tile_sum(my_element(in, n));
    if (threadIdx.x % TILE == 0)
        tile_sums[threadIdx.x / TILE] = v;
    __syncthreads();                        // every tile's sum is written
    if (threadIdx.x < 32)
        block_level(tile_sums, blockDim.x / TILE, partials);
}
#else
// Kernel 1: every tile's sum to global memory, in the order of the tiles.
__global__ void tiles_kernel(const elem_t *in, size_t n, elem_t *tile_sums)
{
    elem_t v = tile_sum(my_element(in, n));
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x % TILE == 0)
        tile_sums[i / TILE] = v;
}

// Kernel 2, the same grid: block b does block b's level from global memory.
__global__ void block_kernel(const elem_t *tile_sums, elem_t *partials)
{
    unsigned per_block = blockDim.x / TILE;
    if (threadIdx.x < 32)
        block_level(tile_sums + (size_t)blockIdx.x * per_block, per_block, partials);
}
#endif

// The last kernel, one block: thread t adds partials t, t + blockDim, ...,
// then warp 0 adds the warps' sums, in a fixed order.
__global__ void final_kernel(const elem_t *partials, unsigned count, elem_t *out)
{
    __shared__ elem_t warp_sums[32];
    elem_t v = 0;
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x)
        v += partials[i];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = v;
    __syncthreads();                        // every warp's sum is written
    if (threadIdx.x < 32)
        block_level(warp_sums, blockDim.x / 32, out);   // block 0: writes out[0]
}

// ---- launcher ---------------------------------------------------------------
// One thread per element.
static size_t grid_size(const launch_t *L)
{
    return div_up(L->n, L->block);
}

// The blocks' partials, then (two kernels) the tile sums.
static size_t scratch_size(const launch_t *L)
{
    size_t bytes = (size_t)L->grid * sizeof(elem_t);
#ifdef WAY_KERNELS
    bytes += (size_t)L->grid * L->block / TILE * sizeof(elem_t);
#endif
    return bytes;
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    elem_t *partials = (elem_t *)L->scratch;
#ifdef WAY_KERNELS
    elem_t *tile_sums = partials + L->grid;
    tiles_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n, tile_sums);
    CUDA_CHECK(cudaGetLastError());
    block_kernel<<<L->grid, L->block, 0, stream>>>(tile_sums, partials);
#else
    reduce_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n, partials);
#endif
    CUDA_CHECK(cudaGetLastError());
    final_kernel<<<1, 1024, 0, stream>>>(partials, L->grid, d_out);
    CUDA_CHECK(cudaGetLastError());
}

// ---- step -------------------------------------------------------------------
static const step_t step = {
    .name = "subwarp_" WAY "_" STR(TILE),
    .technique = "tiles of " STR(TILE) " threads, one element per thread: " WAY,
    .deterministic = 1,
    .combine = COMBINE_TREE,
    .block_rule = BLOCK_POW2,
    .default_block = 256,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
