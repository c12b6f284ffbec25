/* 04_binary_partition.cu: step 04 with each warp split in two by a predicate.
 *
 *     make answers && build/answers/04_binary_partition --n 2^24
 *     build/answers/04_binary_partition_exact --n 2^24      (the uint32 build)
 *
 * cg::binary_partition(tile, pred) splits a tile of up to 32 threads into
 * two groups, the threads whose pred is true and those whose pred is false;
 * each thread gets back the group it is in, a cg::coalesced_group that works
 * with cg::reduce like any other group. Here the predicate is the sign of
 * the thread's value (its partial sum from the loads, as in step 04): each
 * warp sums its negative values and its positive values separately, each
 * side with cg::reduce over its own group, and then every lane fetches the
 * two side sums (from the first lane of each side, found with a ballot) and
 * adds them. With lanes holding 3, -1, 2, -4, ...:
 *     negative side {lane 1, lane 3, ...}: sum N, valid in each of them
 *     positive side {lane 0, lane 2, ...}: sum P, valid in each of them
 *     every lane: P + N
 * The rest is step 04: tile 0 sums the tiles' sums (split the same way),
 * and thread 0 adds the block's sum into the total with one atomic.
 * In the exact build the values are unsigned; the predicate is then the top
 * bit, the sign the same bits would have as a signed integer.
 *
 * When is partitioning by a predicate useful? When the threads of a warp
 * fall into two classes and each class needs its own collective result:
 *   - P and N of the elements themselves give both the sum (P + N) and the
 *     sum of magnitudes (P - N) in one pass, which is what an error bound or
 *     a condition number needs (the harness's own bound uses the sum of |x|;
 *     here the split is of partial sums, so P - N is not that);
 *   - values in and out of a range, hits and misses, valid and invalid items:
 *     a count or a sum per class, without a second pass;
 *   - a segment boundary inside a warp (a segmented reduction): the threads
 *     before and after it reduce separately;
 *   - after a data-dependent branch, the threads on one side can keep using
 *     group collectives with each other, without guessing a mask.
 * For more than two classes, cg::labeled_partition(tile, label) splits by
 * an integer label.
 *
 * For a plain sum it gains nothing: the partition costs a ballot, a
 * reduction over a coalesced group of arbitrary lanes cannot use the fixed
 * shuffle pattern of a full tile, and two shuffles combine the sides, so
 * expect it to be no faster than step 04. Nor is it more accurate: the
 * rounding errors of P and N scale with P and -N, that is with the sum of
 * |x|, as before. Correct in the float and the exact build; not
 * deterministic, like step 04 (one atomic per block).
 *
 * Changed functions: block_sum.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "../common/harness.h"

namespace cg = cooperative_groups;

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

// Which side of the partition v is on. Floats: negative values (-0 counts
// as positive). The exact build's unsigned values: the top bit set.
__device__ bool is_negative(elem_t v)
{
#ifdef REDUCE_EXACT
    return (v >> 31) != 0;
#else
    return v < 0;
#endif
}

// Sums v over a 32-thread tile as negatives plus positives: each side sums
// itself over a coalesced group, then every lane adds the two side sums.
// The result is valid in every lane.
__device__ elem_t tile_sum_by_sign(cg::thread_block_tile<32> tile, elem_t v)
{
    bool negative = is_negative(v);
    cg::coalesced_group side = cg::binary_partition(tile, negative);
    elem_t side_sum = cg::reduce(side, v, cg::plus<elem_t>());   // valid in every lane of the side

    // Fetch each side's sum from its first lane. The ballot is the same in
    // every lane, so each `if` is taken by all 32 lanes or by none: every
    // shuffle has the whole tile present, as it must.
    unsigned negative_lanes = tile.ballot(negative);
    elem_t negatives = 0, positives = 0;
    if (negative_lanes != 0)
        negatives = tile.shfl(side_sum, __ffs(negative_lanes) - 1);
    if (negative_lanes != 0xffffffffu)
        positives = tile.shfl(side_sum, __ffs(~negative_lanes) - 1);
    return positives + negatives;                         // same order in every lane
}

// Sums one value per thread across the block: each 32-thread tile by sign,
// then tile 0 sums the tiles' sums the same way. The block size must be a
// multiple of 32. The result is valid in tile 0, so in thread 0.
__device__ elem_t block_sum(cg::thread_block block, elem_t v)
{
    __shared__ elem_t tile_sums[32];       // one per tile: at most 1024 / 32
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    v = tile_sum_by_sign(tile, v);
    if (tile.thread_rank() == 0)
        tile_sums[tile.meta_group_rank()] = v;
    block.sync();                          // every tile's sum is written
    if (tile.meta_group_rank() == 0) {
        unsigned tiles = tile.meta_group_size();
        v = tile.thread_rank() < tiles ? tile_sums[tile.thread_rank()] : 0;
        v = tile_sum_by_sign(tile, v);
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
static const step_t step = {
    .name = "04_binary_partition",
    .technique = "binary_partition by sign: each warp sums negatives and positives, then adds",
    .deterministic = 0,
    .combine = COMBINE_ATOMIC_PER_BLOCK,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .grid_size = grid_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
