/* clusters.cuh: the kernels of bench/clusters.cu, a sum whose blocks meet in
 * thread block clusters; bench/latency.cu times them piece by piece.
 *
 *   cluster_total       block rank 0 sums its cluster's tile sums (DSMEM)
 *   block_total         one block sums one value per thread
 *   flagged, collect    a cluster's total and a flag in one word; the words summed
 *   meet                the clusters' totals meet: the sum
 *   cluster_sum_kernel, partials_kernel
 *
 * A cluster is up to 8 blocks (16 where the GPU allows non-portable sizes)
 * that the hardware runs at the same time in one GPC, and each of them can
 * read the others' shared memory: cluster.map_shared_rank(p, r) turns an
 * address in this block's shared memory into the same one in block r's.
 * cluster.sync() is a barrier for every thread of the cluster that also makes
 * their shared-memory writes visible to each other; split in two
 * (barrier_arrive, barrier_wait), it lets a thread go on between the halves.
 * Compute capability 9.0 (sm_90) and newer: for older targets the kernels
 * compile to nothing, and bench/clusters.cu refuses to launch them there.
 */
#include <cooperative_groups/reduce.h>
#include <cuda/atomic>
#include <utility>

#include "clusters_loads.cuh"   // thread_sum_loads, thread_sum_async

#define MAX_CLUSTER 16       // blocks in a cluster, non-portable sizes included
#define MAX_CLUSTERS 8192    // cluster words in the state (bench/clusters.cu)

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
// ---- sums of sums ---------------------------------------------------------------
// [begin cluster_total]
// Warp 0 of the cluster's block rank 0 sums the cluster's tile sums, read
// from each block's shared memory. Lane l reads sums l, l + 32, ... (block
// j / TILES, tile j % TILES): with blocks of 1024, block k's tile l. All the
// reads are in flight at once; a tree adds each lane's, then the warp's tree:
// log2(cluster size x tiles) additions. Valid in every lane of warp 0.
template <int BLOCK>
__device__ elem_t cluster_total(cg::cluster_group cluster, cg::thread_block_tile<32> tile,
                                elem_t *tile_sums)
{
    const unsigned TILES = BLOCK / 32, PER_LANE = (MAX_CLUSTER * TILES + 31) / 32;
    unsigned count = cluster.num_blocks() * TILES;
    elem_t r[PER_LANE];
    #pragma unroll
    for (unsigned k = 0; k < PER_LANE; k++) {
        unsigned j = tile.thread_rank() + 32 * k;
        r[k] = j < count ? cluster.map_shared_rank(tile_sums, (int)(j / TILES))[j % TILES] : 0;
    }
    #pragma unroll
    for (unsigned w = 1; w < PER_LANE; w *= 2)
        #pragma unroll
        for (unsigned k = 0; k + w < PER_LANE; k += 2 * w)
            r[k] += r[k + w];
    return cg::reduce(tile, r[0], cg::plus<elem_t>());
}
// [end cluster_total]

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

// ---- kernels ------------------------------------------------------------------------
// [begin kernel]
// Every block sums its share into tile sums in its shared memory; block rank
// 0 of each cluster sums them all through distributed shared memory; the
// clusters meet as MEET says. Launched with a cluster dimension (a grid of
// whole clusters) by bench/clusters.cu.
template <int BLOCK, int MEET>
__global__ void __launch_bounds__(BLOCK) cluster_sum_kernel(const elem_t *in, size_t n, meet_t m,
                                                            elem_t *out)
{
#if __CUDA_ARCH__ >= 900
    __shared__ elem_t tile_sums[BLOCK / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::cluster_group cluster = cg::this_cluster();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    if (MEET == MEET_LAUNCH)
        cudaTriggerProgrammaticLaunchCompletion();        // the second kernel may be placed now
    elem_t v;
    if constexpr (ASYNC_LOADS)
        v = thread_sum_async<BLOCK>(block, in, n);
    else
        v = thread_sum_loads<BLOCK>(in, n);
    v = cg::reduce(tile, v, cg::plus<elem_t>());
    if (tile.thread_rank() == 0)
        tile_sums[tile.meta_group_rank()] = v;
    cluster.sync();                       // every tile sum written and visible; every block running
    bool leader = cluster.block_rank() == 0;
    if (leader && tile.meta_group_rank() == 0)
        v = cluster_total<BLOCK>(cluster, tile, tile_sums);
    auto done_reading = cluster.barrier_arrive();   // this thread reads no other block's memory now
    if (leader)
        meet<BLOCK, MEET>(block, tile, tile_sums, v, m, out);
    cluster.barrier_wait(std::move(done_reading));  // no block leaves while the leader reads it
#endif
}
// [end kernel]

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
