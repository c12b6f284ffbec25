/* 07_normalize.cu: several phases in one cooperative launch, one grid.sync()
 * between each and the next.
 *
 *     make answers && build/answers/07_normalize --n 2^24
 *
 * Step 07 used one grid-wide barrier to get from "every block has its
 * partial" to "one block sums them". A cooperative kernel can go through as
 * many such phases as it likes; this one normalises the array:
 *
 *   phase 1  each block sums its share of in[] into partials[block], as in
 *            step 07;
 *   grid.sync() 1: every partial is written;
 *            every block adds all the partials itself, in the same fixed
 *            order, so every block gets the same sum S, to the bit (that
 *            costs each block one read per block of the grid, from L2, and
 *            saves a barrier to hand S from block 0 to the others);
 *   phase 2  y[i] = in[i] / S for every i, into scratch, with the simple
 *            mapping: thread r writes elements r, r + threads, r + 2 threads...
 *            Each thread also adds up |y[i]| of what it wrote, and each block
 *            writes that sum to a second array of partials;
 *   grid.sync() 2: all of y[] is written;
 *   phase 3  each block sums its share of y[] into a third array of
 *            partials. The loads are step 07's 16-byte ones: thread r reads
 *            elements 4r .. 4r + 3 (and so on), which other threads, mostly
 *            in other blocks, wrote. This is why barrier 2 is needed: without
 *            it a thread could read y[] before its writer got there, and find
 *            the NaN the harness fills scratch with;
 *   grid.sync() 3: every partial of phase 3 is written;
 *            block 0 adds them into T, the sum of the normalised array, which
 *            must be 1 up to rounding.
 *
 * The harness checks one number, the sum S, so that is what the kernel
 * writes to *out. The normalisation is checked on the GPU: if |T - 1| is
 * over the rounding bound below, the kernel writes NaN instead of S, and the
 * harness reports WRONG. So a missing barrier (a NaN read from scratch) or
 * a wrong divisor fails the run, not only a wrong sum. (An input whose sum is
 * exactly 0 cannot be normalised; it would be reported WRONG too.)
 *
 * Launched exactly as step 07: the device attribute for cooperative launches
 * is checked first, the grid is sized by the occupancy calculator for this
 * kernel, and cudaLaunchCooperativeKernel starts it. Every result is the
 * same bits run to run: nothing is added in an order the hardware chooses.
 *
 * Float only: dividing by the sum means nothing for the modular integers of
 * the exact build, so answers.mk builds no 07_normalize_exact. (An integer
 * version would check a different identity, e.g. scale by a constant k in
 * phase 2 and check T == k * S modulo 2^32; it is left out as a different
 * program.)
 *
 * Changed functions: grid_size, reduce, scratch_size.
 */
#ifdef REDUCE_EXACT
#error "07_normalize divides by the sum: it has no exact (uint32) build"
#endif

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "../common/harness.h"

namespace cg = cooperative_groups;

#define LOADS_IN_FLIGHT 4   // independent 16-byte loads per thread per round
#define UNIT_ROUNDOFF 0x1p-24

// ---- kernels ----------------------------------------------------------------
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

// The sum of partials[0..count), in a fixed order: thread t adds partials
// t, t + blockDim, ..., then the block sums those (as pass 2 of step 05).
// Valid in thread 0. Every block that calls it gets the same bits.
__device__ elem_t sum_partials(cg::thread_block block, const elem_t *partials, unsigned count)
{
    elem_t v = 0;
    for (unsigned i = block.thread_rank(); i < count; i += block.size())
        v += partials[i];
    return block_sum(block, v);
}

// How far the sum T of the normalised array may be from 1, given abs_y, the
// computed sum of |y[i]|. With x the input, S its computed sum, u = 2^-24
// and gamma = d u / (1 - d u), where d bounds the additions any one element
// goes through in any of the three sums (Higham, Accuracy and Stability of
// Numerical Algorithms, ch. 4: a sum computed in any order is within
// gamma * sum of |terms| of the exact one):
//   |S - sum x| <= gamma sum|x|              so  sum x / S = 1 + e1, |e1| <= gamma B
//   y[i] = x[i] / S (1 + delta), |delta| <= u  so  sum y = (1 + e1) + e2, |e2| <= u B
//   |T - sum y| <= gamma sum|y| <= gamma (1 + u) B
// where B = sum|x| / |S|, the condition of the sum (large when the input
// nearly cancels). Together |T - 1| <= (2 gamma + u + u gamma) B, and B is
// at most abs_y / ((1 - gamma)(1 - u)), since abs_y is computed with error
// gamma from values each within u of |x[i]| / |S|.
// d: a thread adds at most ceil(n / threads) elements (3 more additions
// inside a 16-byte vector and for the tail), block_sum is two cg::reduce of 5
// levels each (10), and sum_partials adds ceil(grid / block) partials serially
// and then calls block_sum (10 more): ceil(n / threads) + ceil(grid / block) + 23.
// The bound means something while d u is well below 1 (gamma is then about
// d u), as it is for any input that fits in GPU memory, with the grid the
// launcher picks. Only a tiny --grid with a huge n reaches d u = 1/2; the
// bound is then taken as infinite, and only a NaN fails the check.
__device__ double normalization_bound(size_t n, unsigned blocks, unsigned block_size, elem_t abs_y)
{
    const double u = UNIT_ROUNDOFF;
    size_t threads = (size_t)blocks * block_size;
    double d = (double)((n + threads - 1) / threads) + (double)((blocks + block_size - 1) / block_size) + 23;
    if (d * u >= 0.5)
        return INFINITY;
    double gamma = d * u / (1 - d * u);
    return (2 * gamma + u + u * gamma) / ((1 - gamma) * (1 - u)) * (double)abs_y;
}

// The three phases. normalized holds n elements (16-byte aligned); partials
// holds 3 * gridDim.x: the sums of in[], of |y|, and of y, per block.
__global__ void normalize_kernel(const elem_t *in, size_t n, elem_t *normalized,
                                 elem_t *partials, elem_t *out)
{
    __shared__ elem_t input_sum;                // S, handed from thread 0 to its block
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    unsigned blocks = grid.num_blocks();
    elem_t *in_partials = partials;             // phase 1: sums of in[]
    elem_t *abs_partials = partials + blocks;   // phase 2: sums of |y|
    elem_t *y_partials = partials + 2 * blocks; // phase 3: sums of y

    // Phase 1: the sum S of the input.
    elem_t v = thread_sum(grid, in, n);
    v = block_sum(block, v);
    if (block.thread_rank() == 0)
        in_partials[grid.block_rank()] = v;
    grid.sync();                                // 1: every partial of in[] is written
    v = sum_partials(block, in_partials, blocks);
    if (block.thread_rank() == 0)
        input_sum = v;
    block.sync();                               // S reaches every thread of the block
    elem_t sum = input_sum;

    // Phase 2: y = in / S, and the sum of |y| (IEEE division, nvcc's default).
    elem_t abs_y = 0;
    for (size_t i = grid.thread_rank(); i < n; i += grid.num_threads()) {
        elem_t y = in[i] / sum;
        normalized[i] = y;
        abs_y += fabsf(y);
    }
    abs_y = block_sum(block, abs_y);
    if (block.thread_rank() == 0)
        abs_partials[grid.block_rank()] = abs_y;
    grid.sync();                                // 2: all of y[] is written

    // Phase 3: the sum T of y, read with another mapping than it was written.
    v = thread_sum(grid, normalized, n);
    v = block_sum(block, v);
    if (block.thread_rank() == 0)
        y_partials[grid.block_rank()] = v;
    grid.sync();                                // 3: every partial of y is written

    if (grid.block_rank() != 0)
        return;
    elem_t t = sum_partials(block, y_partials, blocks);
    block.sync();                               // block_sum's shared memory is reused next
    abs_y = sum_partials(block, abs_partials, blocks);
    if (block.thread_rank() == 0) {
        double bound = normalization_bound(n, blocks, block.size(), abs_y);
        bool normalized_ok = fabs((double)t - 1.0) <= bound;   // false for NaN too
        *out = normalized_ok ? sum : nanf("");  // NaN: the harness reports WRONG
    }
}

// ---- launcher ---------------------------------------------------------------
// As step 07: a cooperative grid may hold only as many blocks as the GPU can
// run at once: blocks per multiprocessor for this kernel, block size and
// (zero) dynamic shared memory, times the multiprocessors. A small input
// gets fewer.
static size_t grid_size(const launch_t *L)
{
    int cooperative = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, L->device));
    if (!cooperative)
        device_fail("this GPU does not support cooperative launches "
                    "(cudaDevAttrCooperativeLaunch is 0), which grid.sync() needs");
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, normalize_kernel, L->block, 0));
    size_t resident = (size_t)per_sm * L->sm_count;
    size_t needed = div_up(L->n, (size_t)L->block * 4 * LOADS_IN_FLIGHT);
    return min_size(resident, needed);
}

// The normalised array (rounded up to 256 bytes, so that the partials after
// it stay aligned), then three partials per block.
static size_t normalized_bytes(size_t n)
{
    return div_up(n * sizeof(elem_t), 256) * 256;
}

static size_t scratch_size(const launch_t *L)
{
    return normalized_bytes(L->n) + 3 * (size_t)L->grid * sizeof(elem_t);
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    elem_t *normalized = (elem_t *)L->scratch;
    elem_t *partials = (elem_t *)((char *)L->scratch + normalized_bytes(L->n));
    size_t n = L->n;
    void *args[] = { &d_in, &n, &normalized, &partials, &d_out };   // the kernel's arguments, in order
    CUDA_CHECK(cudaLaunchCooperativeKernel((const void *)normalize_kernel, L->grid, L->block,
                                           args, 0, stream));
}

// ---- step -------------------------------------------------------------------
static const step_t step = {
    .name = "07_normalize",
    .technique = "one cooperative launch, three grid.sync() phases: sum, y = x / sum, sum of y",
    .deterministic = 1,
    .combine = COMBINE_TREE,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
