/* 08_fixed_point.cu: the same bits on any GPU without fixing the order: every
 * element becomes an exact integer, and the integers meet through atomics in
 * whatever order the blocks finish.
 *
 *     make answers && build/answers/08_fixed_point --n 10^6+3
 *     build/answers/08_fixed_point_exact --n 10^6+3          (the uint32 build)
 *
 * Step 08 gets the same bits everywhere by doing the float additions in one
 * fixed order. This answer gets them by making the additions exact, so that
 * their order stops mattering. That only works because our inputs are
 * fixed-point numbers to begin with (the default input, common/inputs/inputs.c): every float element is
 * k * 2^-23 for an integer k with -2^23 <= k < 2^23. So
 *
 *   1. x * 2^23 is exactly k (multiplying by a power of two only moves the
 *      exponent), and k fits in an int: the conversion loses nothing;
 *   2. the k's are added as 64-bit integers: per thread, per warp and per
 *      block (cg::reduce: its tree is the library's choice, and for integers
 *      that no longer matters), then one atomicAdd per block into a 64-bit
 *      total, in whatever order the blocks arrive. atomicAdd is offered for
 *      unsigned long long; in two's complement, adding the bit patterns as
 *      unsigned numbers is the same as adding them as signed ones. The total
 *      is at most n 2^23 in size, which fits a signed 64-bit integer for any
 *      n the harness takes (at most 2^40);
 *   3. once, at the very end, the total becomes a float: __ll2float_rn
 *      rounds it to the nearest float, and the product with 2^-23 is exact.
 *      That is the only rounding in the whole sum.
 * The last block learns that every block's atomicAdd has landed from step
 * 06's ticket and its two fences; it reads the total and puts it back to
 * zero in one atomicExch, ready for the next launch.
 *
 * What to observe:
 *   - The same bits for every --grid and --block, though the additions meet
 *     in timing order through atomics: an order that is not even the same
 *     from run to run. Reproducible, with no order fixed anywhere.
 *   - The result is the float nearest to the exact sum: correctly rounded,
 *     an error of at most half an ulp. Compare the sum and reference columns
 *     of --csv. A float sum in a fixed order, step 08's included, is often
 *     an ulp or more away (well within its bound), and how far depends on
 *     the order.
 *   - Why this is not a general answer: the trick needs every input on one
 *     grid of 2^-23 and a small range. General floats reach from 2^-149 to
 *     2^128, and an exact accumulator for all of them needs about 280 bits.
 *     CUB's gpu_to_gpu mode uses a cheaper relative of that idea, a binned
 *     accumulator: each value is split into pieces that fall into a few bins
 *     of fixed exponent ranges, where adding is exact. The lesson is the
 *     same: it is exactness of the accumulation, not an order, that makes a
 *     sum independent of how the work was spread.
 *   - What it costs: a conversion and a 64-bit add per element, which hide
 *     behind the loads. Time it against step 08 at 2^28 (--n 2^28): on one
 *     H100 it was slightly faster. It is this cheap only because our values
 *     need no more than 64 bits; an accumulator for any float has to find
 *     each value's bins first, which is where CUB's gpu_to_gpu mode pays.
 *   - The exact build needs no conversion: its uint32 elements are widened to
 *     64 bits, and the low 32 bits of the total are the sum modulo 2^32.
 *
 * tests/answers.sh runs it: one sum per input over several blocks and grids,
 * float and exact, and in float every sum is the float nearest to the
 * harness's exact reference.
 *
 * Changed functions: grid_size, reduce, reduce_kernel.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "../common/harness.h"

namespace cg = cooperative_groups;

#define LOADS_IN_FLIGHT 4   // independent 16-byte loads per thread per round

typedef unsigned long long fixed_t;   // two's complement: signed sums, unsigned atomics

// ---- kernels ----------------------------------------------------------------
#ifdef REDUCE_EXACT
__device__ fixed_t to_fixed(elem_t x) { return x; }
__device__ elem_t from_fixed(fixed_t t) { return (elem_t)t; }   // modulo 2^32, as the reference
#else
// x = k 2^-23 exactly (the default input): x * 2^23 is the integer k, |k| <= 2^23.
__device__ fixed_t to_fixed(float x) { return (fixed_t)(long long)(int)(x * 0x1p23f); }
// The one rounding: the nearest float to t 2^-23 (the product is exact).
__device__ float from_fixed(fixed_t t) { return __ll2float_rn((long long)t) * 0x1p-23f; }
#endif

__device__ fixed_t to_fixed4(elem4_t v)
{
    return to_fixed(v.x) + to_fixed(v.y) + to_fixed(v.z) + to_fixed(v.w);
}

// This thread's share of in[0..n), as in step 06: vectors i, i + stride, ...
// where i is the thread's rank in the grid and stride the number of threads.
__device__ fixed_t thread_sum(cg::grid_group grid, const elem_t *in, size_t n)
{
    const elem4_t *in4 = (const elem4_t *)in;
    size_t n4 = n / 4;                                    // whole vectors
    size_t rank = grid.thread_rank();
    size_t stride = grid.num_threads();
    fixed_t sum = 0;
    size_t i = rank;
    for (; i + (LOADS_IN_FLIGHT - 1) * stride < n4; i += LOADS_IN_FLIGHT * stride) {
        elem4_t v[LOADS_IN_FLIGHT];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            v[k] = in4[i + k * stride];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            sum += to_fixed4(v[k]);
    }
    for (; i < n4; i += stride)                           // fewer than a round left
        sum += to_fixed4(in4[i]);
    if (rank < n - n4 * 4)                                // the last n % 4 elements
        sum += to_fixed(in[n4 * 4 + rank]);
    return sum;
}

// One value per thread, summed across the block as in step 06; valid in
// thread 0. The block size must be a multiple of 32.
__device__ fixed_t block_sum(cg::thread_block block, fixed_t v)
{
    __shared__ fixed_t tile_sums[32];      // one per tile: at most 1024 / 32
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    v = cg::reduce(tile, v, cg::plus<fixed_t>());
    if (tile.thread_rank() == 0)
        tile_sums[tile.meta_group_rank()] = v;
    block.sync();                          // every tile's sum is written
    if (tile.meta_group_rank() == 0) {
        unsigned tiles = tile.meta_group_size();
        v = tile.thread_rank() < tiles ? tile_sums[tile.thread_rank()] : 0;
        v = cg::reduce(tile, v, cg::plus<fixed_t>());
    }
    return v;
}

// Each block adds its exact sum into *total with one atomic and takes a
// ticket; the block with the last ticket converts the total, once.
__global__ void reduce_kernel(const elem_t *in, size_t n, fixed_t *total, unsigned *blocks_done,
                              elem_t *out)
{
    cg::thread_block block = cg::this_thread_block();
    fixed_t v = block_sum(block, thread_sum(cg::this_grid(), in, n));
    if (block.thread_rank() != 0)
        return;
    atomicAdd(total, v);                   // any order: integer addition is exact
    __threadfence();                       // release: this block's add before its ticket
    if (atomicAdd(blocks_done, 1) == gridDim.x - 1) {
        __threadfence();                   // acquire: every block's add before the read
        *out = from_fixed(atomicExch(total, 0));   // read the total, leave zero behind
        *blocks_done = 0;                  // every ticket drawn: ready for the next launch
    }
}

// ---- launcher ---------------------------------------------------------------
// As in step 06: as many blocks as fit at once, fewer for a small input.
static size_t grid_size(const launch_t *L)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_kernel, L->block, 0));
    size_t resident = (size_t)per_sm * L->sm_count;
    size_t needed = div_up(L->n, (size_t)L->block * 4 * LOADS_IN_FLIGHT);
    return min_size(resident, needed);
}

// The state: the 64-bit total, then the ticket counter. Zeroed by the harness
// before the first launch, and left zeroed by the last block of each.
typedef struct {
    fixed_t total;
    unsigned blocks_done;
} fixed_state_t;

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    fixed_state_t *s = (fixed_state_t *)L->state;
    reduce_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n, &s->total, &s->blocks_done, d_out);
    CUDA_CHECK(cudaGetLastError());
}

// ---- step -------------------------------------------------------------------
// combine: one atomic add per block. The harness's bound for that assumes a
// rounding at every addition; here there is one rounding in all, so the
// error (at most half an ulp of the result) is far inside it.
static const step_t step = {
    .name = "08_fixed_point",
    .technique = "exact 64-bit fixed point, atomics in any order, one rounding",
    .deterministic = 1,
    .combine = COMBINE_ATOMIC_PER_BLOCK,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .grid_size = grid_size,
    .state_bytes = sizeof(fixed_state_t),
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
