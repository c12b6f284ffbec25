/* flag_sum.cuh: what flag_sum.cu does before its blocks meet: each
 * thread's share of the input (thread_sum, from thread_sum.cuh) and each
 * block's total (block_total), with the block size a constant, as the probes of
 * latency.cu that led to the program have it. The answers on flag words
 * (answers/flag_block0.cu, answers/flag_no_clear.cu) include it too, so that
 * they differ from the program only in how the blocks meet.
 *
 * Included after the harness (elem_t, elem4_t) and LOADS_IN_FLIGHT.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "thread_sum.cuh"     // thread_sum: the thread's share

namespace cg = cooperative_groups;


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
