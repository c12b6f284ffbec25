/* 07_compensated.cu: step 07, keeping the rounding error of every addition.
 *
 *     make answers && build/answers/07_compensated --n 2^28
 *     build/answers/07_compensated_front --n 2^28     (-DFRONT_ONLY: the running sums only)
 *     build/answers/07_compensated_exact --n 2^28     (uint32: no error to keep, same sums)
 *
 * Changed since 07: what a partial sum is. Here it is a pair (s, c): s is the
 * float step 07 would hold, c the sum of the rounding errors made on the way
 * to it, so s + c is much closer to the exact sum. Each addition a + b becomes
 * two_sum(a, b): the rounded sum and, exactly, the error of that rounding
 * (for floats itself a float, found with five more additions: Knuth's
 * TwoSum). The pairs go through step 07's front half, block tree and grid
 * barrier; block 0 writes s + c, the one rounding left. Errors of a few ulp
 * become about half an ulp: nearly always the float nearest the exact sum.
 *
 * Why every addition, not only each thread's running sum (a Kahan loop)?
 * The error grows with the square root of the additions an element goes
 * through. At n = 2^28 a thread of step 07 adds about 250 vectors in
 * sequence, but each element also meets two additions inside its vector, ten
 * tree levels and the sum of the blocks' partials. -DFRONT_ONLY keeps only
 * the running sums' errors and adds the rest as step 07 does: the two builds
 * show how much of step 07's error each part holds (docs/comparison.md,
 * "How accurate each order is"). There is no one-block kernel here: every size
 * takes the cooperative launch, whose one block is summed the same way.
 *
 * Changed functions: thread_sum, block_sum, reduce_kernel, scratch_size, reduce.
 */
#include <cooperative_groups.h>

#include "../common/harness.h"

namespace cg = cooperative_groups;

#define LOADS_IN_FLIGHT 4   // independent 16-byte loads per thread per round
#ifdef FRONT_ONLY
#define PROGRAM_NAME "07_compensated_front"
#else
#define PROGRAM_NAME "07_compensated"
#endif

// ---- kernels ----------------------------------------------------------------
// A sum and the rounding errors made on the way to it: its value is s + c.
struct comp_t {
    elem_t s, c;
};

// a + b, and the error of rounding it, exactly: s + e equals a + b with no
// rounding at all, whatever the magnitudes (Knuth's TwoSum). With a = 1 and
// b = 2^-25: s = 1, e = 2^-25.
__device__ comp_t two_sum(elem_t a, elem_t b)
{
    elem_t s = a + b;
    elem_t b_in_s = s - a;                  // the part of b that s holds
    elem_t a_in_s = s - b_in_s;             // and of a
    elem_t e = (a - a_in_s) + (b - b_in_s); // what rounding left out of each
    return { s, e };
}

// sum + v, the error of the addition kept.
__device__ comp_t comp_add(comp_t sum, elem_t v)
{
    comp_t r = two_sum(sum.s, v);
    r.c += sum.c;
    return r;
}

// a + b for two pairs: their sums with two_sum, their errors added up. With
// FRONT_ONLY, the sums are added as in step 07 and that rounding is lost.
__device__ comp_t comp_merge(comp_t a, comp_t b)
{
#ifdef FRONT_ONLY
    return { a.s + b.s, a.c + b.c };
#else
    comp_t r = two_sum(a.s, b.s);
    r.c += a.c + b.c;
    return r;
#endif
}

// One 16-byte vector into a running sum, element by element. With
// FRONT_ONLY, step 07's (x + y) + (z + w) first, then kept.
__device__ comp_t add_vector(comp_t sum, elem4_t v)
{
#ifdef FRONT_ONLY
    return comp_add(sum, (v.x + v.y) + (v.z + v.w));
#else
    return comp_add(comp_add(comp_add(comp_add(sum, v.x), v.y), v.z), v.w);
#endif
}

// [begin thread_sum]
// The sum of this thread's share of in[0..n), in step 07's order: vectors i,
// i + stride, i + 2 stride, ... where i is the thread's rank in the grid and
// stride the number of threads in the grid. in must be 16-byte aligned
// (cudaMalloc gives 256). Valid in every thread.
__device__ comp_t thread_sum(cg::grid_group grid, const elem_t *in, size_t n)
{
    const elem4_t *in4 = (const elem4_t *)in;
    size_t n4 = n / 4;                                    // whole vectors
    size_t rank = grid.thread_rank();
    size_t stride = grid.num_threads();
    comp_t sum = { 0, 0 };
    size_t i = rank;
    // Issue all loads of a round before adding any, so they overlap in flight.
    for (; i + (LOADS_IN_FLIGHT - 1) * stride < n4; i += LOADS_IN_FLIGHT * stride) {
        elem4_t v[LOADS_IN_FLIGHT];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            v[k] = in4[i + k * stride];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            sum = add_vector(sum, v[k]);
    }
    for (; i < n4; i += stride)                           // fewer than a round left
        sum = add_vector(sum, in4[i]);
    if (rank < n - n4 * 4)                                // the last n % 4 elements
        sum = comp_add(sum, in[n4 * 4 + rank]);
    return sum;
}
// [end thread_sum]

// The sum of one pair per lane over the tile, valid in every lane: the
// butterfly that cg::reduce uses for a float, written out because each step
// moves two values.
__device__ comp_t tile_sum(cg::thread_block_tile<32> tile, comp_t v)
{
    for (int mask = 16; mask > 0; mask /= 2) {
        comp_t other = { tile.shfl_xor(v.s, mask), tile.shfl_xor(v.c, mask) };
        v = comp_merge(v, other);
    }
    return v;
}

// Sums one pair per thread across the block: each 32-thread tile, then tile
// 0 sums the tiles' sums. The block size must be a multiple of 32. The
// result is valid in tile 0, so in thread 0.
__device__ comp_t block_sum(cg::thread_block block, comp_t v)
{
    __shared__ comp_t tile_sums[32];       // one per tile: at most 1024 / 32
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    v = tile_sum(tile, v);
    if (tile.thread_rank() == 0)
        tile_sums[tile.meta_group_rank()] = v;
    block.sync();                          // every tile's sum is written
    if (tile.meta_group_rank() == 0) {
        unsigned tiles = tile.meta_group_size();
        v = tile.thread_rank() < tiles ? tile_sums[tile.thread_rank()] : comp_t{ 0, 0 };
        v = tile_sum(tile, v);
    }
    return v;
}

// [begin kernel]
// Each block writes its pair; after the grid-wide barrier, block 0 sums
// them all and writes s + c, the only rounding of the total.
__global__ void reduce_kernel(const elem_t *in, size_t n, comp_t *partials, elem_t *out)
{
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    comp_t v = thread_sum(grid, in, n);
    comp_t total = block_sum(block, v);
    if (block.thread_rank() == 0)
        partials[grid.block_rank()] = total;
    grid.sync();                           // every partial is written and visible

    if (grid.block_rank() != 0)
        return;
    v = { 0, 0 };                          // as pass 2 of step 05
    for (unsigned i = block.thread_rank(); i < grid.num_blocks(); i += block.size())
        v = comp_merge(v, partials[i]);
    total = block_sum(block, v);
    if (block.thread_rank() == 0)
        *out = total.s + total.c;
}
// [end kernel]

// ---- launcher ---------------------------------------------------------------
// As in step 07: the cooperative grid holds only as many blocks as fit on the
// GPU at once, fewer for a small input.
static size_t grid_size(const launch_t *L)
{
    int cooperative = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, L->device));
    if (!cooperative)
        device_fail("this GPU does not support cooperative launches "
                    "(cudaDevAttrCooperativeLaunch is 0), which grid.sync() needs");
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_kernel, L->block, 0));
    size_t resident = (size_t)per_sm * L->sm_count;
    size_t needed = div_up(L->n, (size_t)L->block * 4 * LOADS_IN_FLIGHT);
    return min_size(resident, needed);
}

// One pair per block.
static size_t scratch_size(const launch_t *L)
{
    return L->grid * sizeof(comp_t);
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    comp_t *partials = (comp_t *)L->scratch;
    size_t n = L->n;
    void *args[] = { &d_in, &n, &partials, &d_out };   // the kernel's arguments, in order
    CUDA_CHECK(cudaLaunchCooperativeKernel((const void *)reduce_kernel, L->grid, L->block,
                                           args, 0, stream));
}

// ---- step -------------------------------------------------------------------
// The bound is step 07's: the pairs only make the result closer to the truth.
static const step_t step = {
    .name = PROGRAM_NAME,
#ifdef FRONT_ONLY
    .technique = "step 07, each thread's running sum compensated (a Kahan-style loop)",
#else
    .technique = "step 07, the rounding error of every addition kept (TwoSum pairs)",
#endif
    .deterministic = 1,
    .combine = COMBINE_TREE,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
