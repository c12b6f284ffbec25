/* flag_sum.cuh: what bench/flag_sum.cu does before its blocks meet: each
 * thread's share of the input (thread_sum) and each block's total
 * (block_total), with the block size a constant, as the probes of
 * bench/latency.cu that led to the program have it. The answers on flag words
 * (answers/flag_block0.cu, answers/flag_no_clear.cu) include it too, so that
 * they differ from the program only in how the blocks meet.
 *
 * Included after the harness (elem_t, elem4_t) and LOADS_IN_FLIGHT.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// [begin thread_sum]
// The sum of this thread's share of in[0..n): vectors i, i + stride,
// i + 2 stride, ... (i the thread's rank in the grid, stride the grid's
// threads), in whole rounds of LOADS_IN_FLIGHT loads, then one guarded round
// with all its loads still in flight (past the end: zeros, added exactly),
// then the last n % 4 elements. in must be 16-byte aligned. Valid in every
// thread.
template <int BLOCK>
__device__ elem_t thread_sum(const elem_t *in, size_t n)
{
    const elem4_t *in4 = (const elem4_t *)in;
    size_t n4 = n / 4, rank = (size_t)blockIdx.x * BLOCK + threadIdx.x;
    size_t stride = (size_t)gridDim.x * BLOCK, i = rank;
    elem_t sum = 0;
    elem4_t v[LOADS_IN_FLIGHT];
    for (; i + (LOADS_IN_FLIGHT - 1) * stride < n4; i += LOADS_IN_FLIGHT * stride) {
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            v[k] = in4[i + k * stride];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    #pragma unroll
    for (int k = 0; k < LOADS_IN_FLIGHT; k++)
        v[k] = i + k * stride < n4 ? in4[i + k * stride] : elem4_t{};
    #pragma unroll
    for (int k = 0; k < LOADS_IN_FLIGHT; k++)
        sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    if (rank < n - n4 * 4)
        sum += in[n4 * 4 + rank];
    return sum;
}
// [end thread_sum]

// One value per thread summed across the block: each tile's tree of five
// shuffles, then warp 0's over the tiles' sums (log2 BLOCK additions in
// all). Valid in warp 0, so in thread 0. tile_sums must not be in use: the
// caller puts a barrier between two calls.
template <int BLOCK>
__device__ elem_t block_total(cg::thread_block block, cg::thread_block_tile<32> tile,
                              elem_t *tile_sums, elem_t v)
{
    v = cg::reduce(tile, v, cg::plus<elem_t>());
    if (tile.thread_rank() == 0)
        tile_sums[tile.meta_group_rank()] = v;
    block.sync();                                         // every tile's sum is written
    if (tile.meta_group_rank() == 0) {
        v = tile.thread_rank() < BLOCK / 32 ? tile_sums[tile.thread_rank()] : 0;
        v = cg::reduce(tile, v, cg::plus<elem_t>());
    }
    return v;
}

// An element's 32 bits as an unsigned int, and back.
#ifdef REDUCE_EXACT
__device__ unsigned bits_of(elem_t v) { return v; }
__device__ elem_t elem_of(unsigned u) { return u; }
#else
__device__ unsigned bits_of(elem_t v) { return __float_as_uint(v); }
__device__ elem_t elem_of(unsigned u) { return __uint_as_float(u); }
#endif

// The kernels for every block size BLOCK_POW2 allows, in a table indexed by
// block_index(block): a constant block size in each.
#define PER_BLOCK(k) { k<32>, k<64>, k<128>, k<256>, k<512>, k<1024> }

static int block_index(int block)
{
    int k = 0;
    while ((32 << k) < block) k++;                        // 32 -> 0, 64 -> 1, ..., 1024 -> 5
    return k;
}
