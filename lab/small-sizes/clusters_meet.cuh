/* clusters_meet.cuh: how the clusters of clusters.cu meet, once each
 * has its total (clusters.cuh, which includes this file); latency.cu's
 * probes use its pieces too.
 *
 *   meet_kind, meet_t   the three ways, and what each keeps in memory
 *   block_total         one block sums one value per thread
 *   flagged, collect    a cluster's total and a flag in one word; the words summed
 *   meet                the clusters' totals meet: the sum
 *   partials_kernel     MEET_LAUNCH's second kernel
 *
 * Compute capability 9.0 (sm_90) and newer, as the clusters themselves.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/atomic>

#include "../../common/harness.h"

namespace cg = cooperative_groups;

#define MAX_CLUSTERS 8192    // cluster words in the state (clusters.cu)

// How the clusters' totals meet when there are several clusters.
enum meet_kind {
    MEET_TICKET,   // each stores its total and a flag in one word, then takes a ticket;
                   // the last to take one sums the words
    MEET_WAIT,     // each stores its word; cluster 0 waits for them all (a cooperative
                   // launch: every cluster on the GPU at once)
    MEET_LAUNCH    // each stores its total; a second kernel, placed early by programmatic
                   // dependent launch, waits for this grid to end and sums them
};

typedef struct {
    unsigned long long *words;   // TICKET, WAIT: one word a cluster, zero between launches
    unsigned *done;              // TICKET: tickets taken, zero between launches
    elem_t *partials;            // LAUNCH: one total a cluster
} meet_t;

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
// One value per thread summed across the block: each tile's tree, then
// warp 0's over the tile sums (log2 BLOCK additions). Valid in warp 0.
template <int BLOCK>
__device__ elem_t block_total(cg::thread_block block, cg::thread_block_tile<32> tile,
                              elem_t *tile_sums, elem_t v)
{
    v = cg::reduce(tile, v, cg::plus<elem_t>());
    if (tile.thread_rank() == 0)
        tile_sums[tile.meta_group_rank()] = v;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        v = tile.thread_rank() < BLOCK / 32 ? tile_sums[tile.thread_rank()] : 0;
        v = cg::reduce(tile, v, cg::plus<elem_t>());
    }
    return v;
}

// ---- the meeting ------------------------------------------------------------------
// [begin words]
// A cluster's total and a flag in one 64-bit word: whoever sees the flag
// sees the total, so no fence orders the two.
__device__ unsigned long long flagged(elem_t v)
{
#ifdef REDUCE_EXACT
    return 1ull << 32 | v;
#else
    return 1ull << 32 | __float_as_uint(v);
#endif
}

// words[0 .. count) summed (each thread a strided share), each waited for
// until its flag is there: its cluster stored it, the store is on its way.
// Each word is put back to zero for the next launch.
template <int BLOCK>
__device__ elem_t collect(cg::thread_block block, unsigned long long *words, unsigned count)
{
    elem_t v = 0;
    for (unsigned i = block.thread_rank(); i < count; i += BLOCK) {
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(words[i]);
        unsigned long long w = word.load(cuda::memory_order_relaxed);
        while (w >> 32 == 0)
            w = word.load(cuda::memory_order_relaxed);
#ifdef REDUCE_EXACT
        v += (unsigned)w;
#else
        v += __uint_as_float((unsigned)w);
#endif
        word.store(0, cuda::memory_order_relaxed);
    }
    return v;
}
// [end words]

// [begin meet]
// Block rank 0 of each cluster, all its threads: total (valid in thread 0)
// is its cluster's; the sum of them all goes to *out.
template <int BLOCK, int MEET>
__device__ void meet(cg::thread_block block, cg::thread_block_tile<32> tile, elem_t *tile_sums,
                     elem_t total, const meet_t &m, elem_t *out)
{
    __shared__ bool is_last;
    unsigned clusters = (unsigned)cg::this_grid().num_clusters();
    unsigned c = (unsigned)cg::this_grid().cluster_rank();
    if (clusters == 1 || MEET == MEET_LAUNCH) {          // one cluster: its total is the sum
        if (block.thread_rank() == 0)
            *(clusters == 1 ? out : m.partials + c) = total;
        return;
    }
    if (block.thread_rank() == 0) {
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(m.words[c])
            .store(flagged(total), cuda::memory_order_relaxed);
        if (MEET == MEET_TICKET)                          // relaxed: the words need no order
            is_last = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*m.done)
                          .fetch_add(1, cuda::memory_order_relaxed) == clusters - 1;
    }
    block.sync();                                         // is_last is set; warp 0 is done with tile_sums
    if (MEET == MEET_TICKET ? !is_last : c != 0)
        return;
    elem_t v = block_total<BLOCK>(block, tile, tile_sums, collect<BLOCK>(block, m.words, clusters));
    if (block.thread_rank() == 0) {
        *out = v;
        if (MEET == MEET_TICKET)
            cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*m.done).store(0, cuda::memory_order_relaxed);
    }
}
// [end meet]
#endif

// MEET_LAUNCH's second kernel, one block: waits until the first grid has
// ended (its stores visible), then sums the clusters' totals into *out.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) partials_kernel(const elem_t *partials, unsigned count,
                                                         elem_t *out)
{
#if __CUDA_ARCH__ >= 900
    __shared__ elem_t tile_sums[BLOCK / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    cudaGridDependencySynchronize();
    elem_t v = 0;
    for (unsigned i = block.thread_rank(); i < count; i += BLOCK)
        v += partials[i];
    v = block_total<BLOCK>(block, tile, tile_sums, v);
    if (block.thread_rank() == 0)
        *out = v;
#endif
}
