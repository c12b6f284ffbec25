/* clusters.cuh: the kernels of clusters.cu, a sum whose blocks meet in
 * thread block clusters; latency.cu times them piece by piece.
 *
 *   cluster_total       block rank 0 sums its cluster's tile sums (DSMEM)
 *   cluster_sum_kernel  every block's share, the cluster's total, then the
 *                       clusters meet (clusters_meet.cuh says how)
 *
 * A cluster is up to 8 blocks (16 where the GPU allows non-portable sizes)
 * that the hardware runs at the same time in one GPC, and each of them can
 * read the others' shared memory: cluster.map_shared_rank(p, r) turns an
 * address in this block's shared memory into the same one in block r's.
 * cluster.sync() is a barrier for every thread of the cluster that also makes
 * their shared-memory writes visible to each other; split in two
 * (barrier_arrive, barrier_wait), it lets a thread go on between the halves.
 * Compute capability 9.0 (sm_90) and newer: for older targets the kernels
 * compile to nothing, and clusters.cu refuses to launch them there.
 */
#include <cooperative_groups/reduce.h>
#include <cuda/atomic>
#include <utility>

#include "clusters_loads.cuh"   // thread_sum, thread_sum_async
#include "clusters_meet.cuh"    // meet_t, block_total, meet, partials_kernel

#define MAX_CLUSTER 16       // blocks in a cluster, non-portable sizes included

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

#endif

// ---- kernels ------------------------------------------------------------------------
// [begin kernel]
// Every block sums its share into tile sums in its shared memory; block rank
// 0 of each cluster sums them all through distributed shared memory; the
// clusters meet as MEET says. Launched with a cluster dimension (a grid of
// whole clusters) by clusters.cu.
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
        v = thread_sum<BLOCK>(in, n);
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

