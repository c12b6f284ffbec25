/* subwarp_tiles.cu: tiles of 2 to 32 threads, three ways (claim D).
 *
 *     make claims-programs && build/claims/subwarp_cg_8 --n 2^24
 *
 * A course report times reductions over tiles smaller than a warp three ways,
 * on an A100: with Cooperative Groups tiles, with two kernels, and with
 * groups made by hand from thread indices. It finds the two-kernel version
 * slowest for tiles of 2 and fastest from tiles of 16 up, and the other two
 * about equal. Its workload is not given; this is ours, chosen so that the
 * tile level is the work: one element per thread (step 01's front half, no
 * grid-stride loop, which would hide everything after it), then
 *
 *   tile level    the TILE threads of each tile sum their elements;
 *   block level   warp 0 sums the block's tile sums from shared memory and
 *                 adds them into the total with one atomic per block.
 *
 * Built with -DTILE=T (2, 4, 8, 16 or 32) and one of
 *   -DWAY_CG       cg::tiled_partition<T> and cg::reduce
 *   -DWAY_INDEX    hand-made: tile = threadIdx.x / T, __shfl_down_sync with width T
 *   -DWAY_KERNELS  kernel 1 does the tile level with CG and writes every tile's
 *                  sum to global memory (n / T floats); kernel 2 sums those, one
 *                  per thread, with the same block level
 * With TILE = 32 and WAY_INDEX this is a plain shared-memory + warp-shuffle sum
 * with one element per thread, which claim B's comparison also needs.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "../common/harness.h"

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

// Warp 0 sums count values of sums[] (lane k: k, k + 32, ...), then the
// warp's lanes; valid in thread 0.
__device__ elem_t warp0_sum(const elem_t *sums, unsigned count)
{
    elem_t v = 0;
    for (unsigned k = threadIdx.x; k < count; k += 32)
        v += sums[k];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// One element per thread; threads past the end hold 0.
__device__ elem_t my_element(const elem_t *in, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    return i < n ? in[i] : 0;
}

#ifndef WAY_KERNELS
// One kernel: tile sums to shared memory, then the block level.
__global__ void reduce_kernel(const elem_t *in, size_t n, elem_t *out)
{
    __shared__ elem_t tile_sums[1024 / TILE];
    elem_t v = tile_sum(my_element(in, n));
    if (threadIdx.x % TILE == 0)
        tile_sums[threadIdx.x / TILE] = v;
    __syncthreads();                        // every tile's sum is written
    if (threadIdx.x < 32) {
        v = warp0_sum(tile_sums, blockDim.x / TILE);
        if (threadIdx.x == 0)
            atomicAdd(out, v);              // one atomic per block
    }
}
#else
// Kernel 1: every tile's sum to global memory, tile_sums[global tile index].
__global__ void tiles_kernel(const elem_t *in, size_t n, elem_t *tile_sums)
{
    elem_t v = tile_sum(my_element(in, n));
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x % TILE == 0)
        tile_sums[i / TILE] = v;
}

// Kernel 2: one tile sum per thread, then the block level of the one-kernel ways.
__global__ void combine_kernel(const elem_t *tile_sums, size_t count, elem_t *out)
{
    __shared__ elem_t warp_sums[32];
    elem_t v = my_element(tile_sums, count);
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = v;
    __syncthreads();                        // every warp's sum is written
    if (threadIdx.x < 32) {
        v = warp0_sum(warp_sums, blockDim.x / 32);
        if (threadIdx.x == 0)
            atomicAdd(out, v);
    }
}
#endif

// ---- launcher ---------------------------------------------------------------
// One thread per element.
static size_t grid_size(const launch_t *L)
{
    return div_up(L->n, L->block);
}

// The two-kernel way: one sum per tile of the grid.
static size_t scratch_size(const launch_t *L)
{
#ifdef WAY_KERNELS
    return (size_t)L->grid * L->block / TILE * sizeof(elem_t);
#else
    (void)L;
    return 0;
#endif
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(elem_t), stream));  // the total starts at 0
#ifdef WAY_KERNELS
    elem_t *tile_sums = (elem_t *)L->scratch;
    size_t count = (size_t)L->grid * L->block / TILE;
    tiles_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n, tile_sums);
    CUDA_CHECK(cudaGetLastError());
    combine_kernel<<<div_up(count, L->block), L->block, 0, stream>>>(tile_sums, count, d_out);
#else
    reduce_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n, d_out);
#endif
    CUDA_CHECK(cudaGetLastError());
}

// ---- step -------------------------------------------------------------------
static const step_t step = {
    .name = "subwarp_" WAY "_" STR(TILE),
    .technique = "tiles of " STR(TILE) " threads, one element per thread: " WAY,
    .deterministic = 0,
    .combine = COMBINE_ATOMIC_PER_BLOCK,
    .block_rule = BLOCK_POW2,
    .default_block = 256,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
