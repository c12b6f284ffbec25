/* latency_kernels.cuh: a one-launch sum built up piece by piece, for
 * latency.cu. Each piece is the one before it and one thing more; the
 * pieces that finish a sum write it to *out, and latency.cu checks it. The
 * sums of the whole program (a cluster's ticket, wait and second kernel) are
 * clusters.cuh's own kernels, launched as clusters.cu does.
 *
 * Float only: the inputs are small whole numbers, so any order gives the
 * exact sum and the check is exact too.
 */
#include "clusters.cuh"

enum piece {
    P_READ,      // one thread's share read and summed; stored only if it is a value it never is
    P_WRITE,     // + thread 0 of each block stores its own sum
    P_BLOCK,     // + the block's tree; thread 0 stores the block's total (a grid of 1: the sum)
    P_EARLY,     // P_BLOCK that lets a dependent second kernel start at once
    P_TICKET,    // + a relaxed atomicAdd ticket, its value used
    P_FENCE,     // + __threadfence() before the ticket
    P_LAST,      // + the last block sums the totals, after a second fence: step 06
    P_ACQ_REL,   // P_LAST with one acq_rel atomic for the ticket and both fences
    P_FLAG,      // each total and a flag in one word, a relaxed ticket, the last sums the words
    P_GRID,      // totals, grid.sync(), block 0 sums them: step 07 (cooperative launch)
    C_SYNC,      // a cluster launch: tile sums, cluster.sync(), the split barrier; no reading
    C_PULL,      // + block rank 0 reads its cluster's tile sums (DSMEM) and stores the total
    C_GRID       // + the clusters' totals, grid.sync(), block 0 sums them (cooperative)
};

typedef struct {
    float *totals;                // one a block (or a cluster)
    unsigned *done;               // tickets; zero between launches
    unsigned long long *words;    // P_FLAG: one a block; zero between launches
    float *out;                   // the sum, for the pieces that finish one
} probe_t;

#define NEVER -1.0f               // no share of small whole numbers sums to this

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
// After the block's tree: the ticket pieces. Thread 0 takes a ticket as
// PIECE says; the last block (P_LAST, P_ACQ_REL, P_FLAG) sums the totals.
template <int BLOCK, int PIECE>
__device__ void ticket_pieces(cg::thread_block block, cg::thread_block_tile<32> tile,
                              float *tile_sums, float total, const probe_t &p)
{
    __shared__ bool is_last;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(*p.done);
    if (block.thread_rank() == 0) {
        if (PIECE == P_FLAG)
            cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(p.words[blockIdx.x])
                .store(flagged(total), cuda::memory_order_relaxed);
        else
            p.totals[blockIdx.x] = total;
        if (PIECE == P_FENCE || PIECE == P_LAST)
            __threadfence();
        unsigned ticket = done.fetch_add(1, PIECE == P_ACQ_REL ? cuda::memory_order_acq_rel
                                                               : cuda::memory_order_relaxed);
        is_last = ticket == gridDim.x - 1;
        if (PIECE == P_LAST && is_last)
            __threadfence();
        if ((PIECE == P_TICKET || PIECE == P_FENCE) && is_last)
            done.store(0, cuda::memory_order_relaxed);    // ready for the next run
    }
    if (PIECE == P_TICKET || PIECE == P_FENCE)
        return;
    block.sync();
    if (!is_last)
        return;
    float v = 0;
    if (PIECE == P_FLAG)
        v = collect<BLOCK>(block, p.words, gridDim.x);
    else
        for (unsigned i = block.thread_rank(); i < gridDim.x; i += BLOCK)
            v += p.totals[i];
    v = block_total<BLOCK>(block, tile, tile_sums, v);
    if (block.thread_rank() == 0) {
        *p.out = v;
        done.store(0, cuda::memory_order_relaxed);
    }
}

// Every block has stored its total (or its cluster's); after the grid-wide
// barrier, block 0 sums them. Every thread of the grid must call it.
template <int BLOCK>
__device__ void grid_sync_sum(cg::thread_block block, cg::thread_block_tile<32> tile,
                              float *tile_sums, unsigned count, const probe_t &p)
{
    cg::this_grid().sync();
    if (blockIdx.x != 0)
        return;
    float v = 0;
    for (unsigned i = block.thread_rank(); i < count; i += BLOCK)
        v += p.totals[i];
    v = block_total<BLOCK>(block, tile, tile_sums, v);
    if (block.thread_rank() == 0)
        *p.out = v;
}
#endif

template <int BLOCK, int PIECE>
__global__ void __launch_bounds__(BLOCK) probe_kernel(const float *in, size_t n, probe_t p)
{
#if __CUDA_ARCH__ >= 900
    __shared__ float tile_sums[BLOCK / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    if (PIECE == P_EARLY)
        cudaTriggerProgrammaticLaunchCompletion();
    float v = thread_sum<BLOCK>(in, n);
    if (PIECE == P_READ || PIECE == P_WRITE) {
        if (v == NEVER || (PIECE == P_WRITE && block.thread_rank() == 0))
            p.totals[blockIdx.x] = v;
        return;
    }
    if constexpr (PIECE >= C_SYNC) {
        cg::cluster_group cluster = cg::this_cluster();
        unsigned clusters = (unsigned)cg::this_grid().num_clusters();
        v = cg::reduce(tile, v, cg::plus<float>());
        if (tile.thread_rank() == 0)
            tile_sums[tile.meta_group_rank()] = v;
        cluster.sync();
        bool leader = cluster.block_rank() == 0;
        if (PIECE != C_SYNC && leader && tile.meta_group_rank() == 0)
            v = cluster_total<BLOCK>(cluster, tile, tile_sums);
        auto done_reading = cluster.barrier_arrive();
        if (leader && block.thread_rank() == 0) {
            float total = PIECE == C_SYNC ? tile_sums[0] : v;
            *(PIECE == C_PULL && clusters == 1 ? p.out : p.totals + cg::this_grid().cluster_rank()) = total;
        }
        if (PIECE == C_GRID)
            grid_sync_sum<BLOCK>(block, tile, tile_sums, clusters, p);
        cluster.barrier_wait(std::move(done_reading));
        return;
    }
    v = block_total<BLOCK>(block, tile, tile_sums, v);
    if (PIECE == P_BLOCK || PIECE == P_EARLY || PIECE == P_GRID) {
        if (block.thread_rank() == 0)
            *(PIECE == P_BLOCK && gridDim.x == 1 ? p.out : p.totals + blockIdx.x) = v;
        if (PIECE == P_GRID)
            grid_sync_sum<BLOCK>(block, tile, tile_sums, gridDim.x, p);
        return;
    }
    ticket_pieces<BLOCK, PIECE>(block, tile, tile_sums, v, p);
#endif
}

__global__ void empty_kernel() {}
