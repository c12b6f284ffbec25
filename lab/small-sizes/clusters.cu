/* clusters.cu: a sum whose blocks meet in thread block clusters, through
 * distributed shared memory (an appendix program, not a step).
 *
 *     make clusters-programs && build/clusters/clusters --n 2^18
 *     build/clusters/clusters --n 2^20 --cluster 8      eight blocks a cluster
 *     make clusters                                      the appendix's measurements (GPU)
 *
 * Below 2^23 every step spends more time meeting its blocks (a ticket, a grid
 * barrier or a second launch, each a few trips to L2) than reading the input.
 * Here blocks meet first in clusters: each block leaves its tile sums in its
 * own shared memory, cluster.sync(), and block rank 0 reads them all from the
 * cluster's blocks' shared memory (clusters.cuh). Where one cluster covers n,
 * that is the sum; above, the clusters' totals meet by one of (-DMEET=...):
 *   MEET_TICKET  (clusters)       each stores its total and a flag in one word and
 *                                 takes a relaxed ticket; the last reads the words
 *   MEET_WAIT    (clusters_wait)  cluster 0 waits for every word: a cooperative launch
 *   MEET_LAUNCH  (clusters_pdl)   a second kernel, started early (programmatic
 *                                 dependent launch), waits for the grid, sums them
 * and -DASYNC_LOADS=1 (clusters_async) loads through cg::memcpy_async instead.
 *
 * Defaults, from n and the GPU: blocks of 256 up to 2^12, 512 up to 2^13,
 * 1024 above: as few blocks as read n in one round of four 16-byte loads a
 * thread. If the largest cluster this GPU runs for this kernel (16 where
 * non-portable sizes are allowed, else 8) holds that many blocks, one cluster
 * of the next power of two; otherwise the cluster size whose clusters let the
 * most blocks run at once (the larger on a tie), and as many of them as n
 * needs or the GPU holds. --cluster K (1, 2, 4, 8 or 16) sets the size; --grid
 * must then be a multiple of it.
 *
 * Same bits every run: the order of additions is fixed by n, the block, the
 * grid and K, whoever finishes first. Along its path an element goes through
 * its thread's additions, log2(block x K) in the cluster's trees and, with
 * several clusters, ceil(clusters / block) + log2(block) more: COMBINE_TREE's
 * count for this grid covers it whenever each thread reads two vectors or
 * more, which every default grid gives (one cluster needs no such condition).
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "../../common/parts.h"   // exit_cleanly: --cluster errors that only the GPU can show
#include "clusters.cuh"

#ifndef MEET
#define MEET MEET_TICKET
#endif
#define NAME (ASYNC_LOADS ? "clusters_async" : MEET == MEET_WAIT ? "clusters_wait" \
              : MEET == MEET_LAUNCH ? "clusters_pdl" : "clusters")

// ---- the kernels for each block size ----------------------------------------------
typedef void (*kernel_t)(const elem_t *, size_t, meet_t, elem_t *);
typedef void (*partials_t)(const elem_t *, unsigned, elem_t *);
#define PER_BLOCK(k, ...) { k<32 __VA_ARGS__>, k<64 __VA_ARGS__>, k<128 __VA_ARGS__>, \
                            k<256 __VA_ARGS__>, k<512 __VA_ARGS__>, k<1024 __VA_ARGS__> }
static const kernel_t kernels[] = PER_BLOCK(cluster_sum_kernel, , MEET);
static const partials_t partials_kernels[] = PER_BLOCK(partials_kernel);

static int block_index(int block)
{
    int k = 0;
    while ((32 << k) < block) k++;         // 32 -> 0, 64 -> 1, ..., 1024 -> 5
    return k;
}

static size_t dynamic_smem(int block)      // thread_sum_async's ring of chunks
{
    return ASYNC_LOADS ? (size_t)(LOADS_IN_FLIGHT + 1) * block * sizeof(elem4_t) : 0;
}

// ---- the cluster size ------------------------------------------------------------
#include "clusters_host.h"      // --cluster; need_clusters, largest_cluster, grid_of

static int g_cluster_chosen;    // grid_size's choice for this n (reduce fits it to L->grid)

// [begin grid_size]
static size_t grid_size(const launch_t *L)
{
    kernel_t kernel = kernels[block_index(L->block)];
    need_clusters(L->device, kernel);
    int most = largest_cluster(kernel, L->block);
    if (g_cluster_option > most) {
        char why[200];
        snprintf(why, sizeof why, "--cluster %d: this GPU runs clusters of at most %d blocks of %d "
                 "threads", g_cluster_option, most, L->block);
        usage_fail(why);
    }
    size_t needed = div_up(L->n, (size_t)L->block * 4 * LOADS_IN_FLIGHT);  // one round each
    int k = g_cluster_option;
    if (k == 0 && needed <= (size_t)most)
        for (k = 1; (size_t)k < needed; k *= 2) {}       // one cluster covers n
    if (k == 0) {                                         // the most blocks at once, then the larger
        size_t best = 0;
        for (int c = most; c >= 1; c /= 2)
            if (grid_of(kernel, L->block, c, needed) > best) { best = grid_of(kernel, L->block, c, needed); k = c; }
    }
    g_cluster_chosen = k;
    return needed <= (size_t)k ? (size_t)k : grid_of(kernel, L->block, k, needed);
}
// [end grid_size]

// The cluster size for this launch: the choice, or the largest power of two
// below it that divides a --grid (given with --cluster, it divides already).
static int cluster_of(const launch_t *L)
{
    int k = g_cluster_option ? g_cluster_option : g_cluster_chosen;
    while (L->grid % k) k /= 2;
    return k;
}

// MEET_LAUNCH's totals, one a cluster; the others keep theirs in the state,
// which has room for MAX_CLUSTERS (only a --grid can ask for more).
static size_t scratch_size(const launch_t *L)
{
    size_t clusters = (size_t)L->grid / cluster_of(L);
    if (MEET != MEET_LAUNCH && clusters > MAX_CLUSTERS) {
        char why[200];
        snprintf(why, sizeof why, "--grid %d makes %zu clusters of %d blocks; this program has room "
                 "for the totals of %d: give a larger --cluster", L->grid, clusters, cluster_of(L),
                 MAX_CLUSTERS);
        usage_fail(why);
    }
    return MEET == MEET_LAUNCH && clusters > 1 ? clusters * sizeof(elem_t) : 0;
}

// Blocks of 256 threads up to 2^12, 512 up to 2^13, 1024 above.
static int block_size(const launch_t *L)
{
    size_t round = 4 * LOADS_IN_FLIGHT;                   // elements per thread per round
    return L->n <= 256 * round ? 256 : L->n <= 512 * round ? 512 : 1024;
}

// ---- launcher ---------------------------------------------------------------------
// [begin launcher]
static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    int k = cluster_of(L);
    unsigned clusters = (unsigned)L->grid / k;
    unsigned long long *words = (unsigned long long *)L->state;   // zero between launches
    meet_t m = { words, words ? (unsigned *)(words + MAX_CLUSTERS) : NULL, (elem_t *)L->scratch };
    cudaLaunchAttribute attr[2] = {};
    attr[0].id = cudaLaunchAttributeClusterDimension;     // the grid, in clusters of k
    attr[0].val.clusterDim.x = (unsigned)k;
    attr[0].val.clusterDim.y = attr[0].val.clusterDim.z = 1;
    attr[1].id = cudaLaunchAttributeCooperative;          // MEET_WAIT: all on the GPU at once,
    attr[1].val.cooperative = 1;                          // or the launch fails
    unsigned attrs = MEET == MEET_WAIT && clusters > 1 ? 2 : 1;
    cudaLaunchConfig_t config = { dim3((unsigned)L->grid), dim3((unsigned)L->block),
                                  dynamic_smem(L->block), stream, attr, attrs };
    CUDA_CHECK(cudaLaunchKernelEx(&config, kernels[block_index(L->block)], d_in, L->n, m, d_out));
    if (MEET != MEET_LAUNCH || clusters == 1)
        return;
    cudaLaunchAttribute early = {};                       // placed before the first grid ends
    early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    early.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t second = { dim3(1), dim3((unsigned)L->block), 0, stream, &early, 1 };
    CUDA_CHECK(cudaLaunchKernelEx(&second, partials_kernels[block_index(L->block)],
                                  (const elem_t *)m.partials, clusters, d_out));
}
// [end launcher]

// ---- step ---------------------------------------------------------------------------
static const step_t step = {
    .name = NAME,
    .technique = ASYNC_LOADS ? "clusters, loads through cg::memcpy_async"
               : MEET == MEET_WAIT ? "clusters meet in DSMEM; cluster 0 waits for the rest"
               : MEET == MEET_LAUNCH ? "clusters meet in DSMEM; then a dependent launch"
               : "clusters meet in DSMEM; then a flag-word ticket",
    .deterministic = 1,
    .combine = COMBINE_TREE,
    .block_rule = BLOCK_POW2,
    .default_block = 256,
    .block_size = block_size,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .state_bytes = MEET == MEET_LAUNCH ? 0 : MAX_CLUSTERS * sizeof(unsigned long long) + 8,
    .reduce = reduce,
};

int main(int argc, char **argv)
{
    g_prog = argv[0];
    argc = take_cluster_option(argc, argv);
    int rc = run_step(argc, argv, &step);
    if (rc == EXIT_OK && asks_for_help(argc, argv))
        print_cluster_help();
    return rc;
}
