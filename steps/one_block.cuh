/* one_block.cuh: what steps 05, 06 and 07 choose from n, in one place.
 *
 * Included by those steps (and the answers built on them); chapter 05
 * explains it. The three steps differ in how they combine the blocks' sums,
 * which is their lesson; what they do when there is nothing to combine, and
 * how many threads a block gets, is the same in all three, so it is written
 * once, here. LOADS, a template argument, is the step's LOADS_IN_FLIGHT.
 *
 * When one block covers n in one round of loads, there is nothing to combine
 * across blocks: one_block_kernel sums n and writes the total in one launch,
 * as CUB does for an input of one tile.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "../common/harness.h"

namespace cg = cooperative_groups;

// [begin one_block]
// The whole sum when one block covers n in one round of loads: nothing to
// combine across blocks. Here the time is one trip to memory plus what runs
// before and after it, so the kernel is written for that (results/NOTES.md,
// note 8, has the probes):
//   - the block size is a template argument and the block one-dimensional:
//     thread t's addresses are one register plus constant offsets, and its
//     loads leave a few instructions after the kernel starts;
//   - after each tile's cg::reduce, thread 0 adds the tiles' sums, read from
//     shared memory four at a time, where block_sum would have tile 0 run a
//     second tree of five shuffles.
// A fixed order, so the same bits every run (not those of the step's own
// kernels with a grid of one block, which add in another order).
template <int BLOCK, int LOADS>
__global__ void __launch_bounds__(BLOCK) one_block_kernel(const elem_t *in, unsigned n, elem_t *out)
{
    static_assert(BLOCK % 128 == 0 && BLOCK <= 1024, "whole vectors of tile sums");
    __shared__ __align__(16) elem_t tile_sums[BLOCK / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    const elem4_t *in4 = (const elem4_t *)in;
    unsigned n4 = n / 4, t = threadIdx.x;                 // the rank in a 1-D block
    elem4_t v[LOADS];
    #pragma unroll
    for (int k = 0; k < LOADS; k++)                       // every load guarded, all in flight
        v[k] = t + k * BLOCK < n4 ? in4[t + k * BLOCK] : elem4_t{};
    elem_t sum = 0;
    #pragma unroll
    for (int k = 0; k < LOADS; k++)
        sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    if (t < n - n4 * 4)                                   // the last n % 4 elements
        sum += in[n4 * 4 + t];
    sum = cg::reduce(tile, sum, cg::plus<elem_t>());
    if (tile.thread_rank() == 0)
        tile_sums[tile.meta_group_rank()] = sum;
    block.sync();                                         // every tile's sum is written
    if (t == 0) {
        const elem4_t *s4 = (const elem4_t *)tile_sums;
        elem_t total = 0;
        #pragma unroll
        for (int k = 0; k < BLOCK / 128; k++)
            total += (s4[k].x + s4[k].y) + (s4[k].z + s4[k].w);
        *out = total;
    }
}
// [end one_block]

// Sums n with one_block_kernel when the launch is one block that covers n in
// one round, and says so; otherwise launches nothing and returns 0, and the
// step launches its own kernels (so also for blocks of 32 or 64 threads).
template <int LOADS>
static int one_block_sum(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    if (L->grid != 1 || L->n > (size_t)L->block * 4 * LOADS)
        return 0;
    unsigned n = (unsigned)L->n;
    switch (L->block) {                                   // a constant in each kernel
    case 128:  one_block_kernel<128, LOADS><<<1, 128, 0, stream>>>(d_in, n, d_out); break;
    case 256:  one_block_kernel<256, LOADS><<<1, 256, 0, stream>>>(d_in, n, d_out); break;
    case 512:  one_block_kernel<512, LOADS><<<1, 512, 0, stream>>>(d_in, n, d_out); break;
    case 1024: one_block_kernel<1024, LOADS><<<1, 1024, 0, stream>>>(d_in, n, d_out); break;
    default:   return 0;
    }
    CUDA_CHECK(cudaGetLastError());
    return 1;
}

// Threads per block from n, as CUB's tuning does: 256 while one block of
// them covers n in a round, 512, then 1024 once every multiprocessor gets a
// block of 1024 full rounds (half the partials; results/NOTES.md, note 8).
template <int LOADS>
static int block_size(const launch_t *L)
{
    size_t round = 4 * LOADS;                             // elements per thread per round
    if (L->n <= 256 * round) return 256;
    return L->n >= 1024 * round * L->sm_count ? 1024 : 512;
}
