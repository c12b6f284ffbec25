/* cluster_occupancy.cu: how many blocks the GPU holds at once when they come
 * in clusters, beside how many it holds one by one (the answer to the
 * exercise "What a cluster costs in places" of the appendix on small sizes).
 *
 *     make answers && build/answers/cluster_occupancy
 *
 * For lab/small-sizes/clusters.cu's kernel with blocks of 128 to 1024 threads and
 * clusters of 1 to 16 blocks, one CSV row each:
 *     block,cluster,most,clusters,blocks,plain_blocks,share,device
 * most: the largest cluster this GPU runs for that kernel and block
 * (cudaOccupancyMaxPotentialClusterSize, with non-portable sizes allowed);
 * clusters: how many clusters of that size fit at once
 * (cudaOccupancyMaxActiveClusters; 0 where the size is above most); blocks:
 * clusters times the size; plain_blocks: blocks of the same kernel that fit
 * at once without clusters (cudaOccupancyMaxActiveBlocksPerMultiprocessor
 * times the multiprocessors); share: blocks / plain_blocks.
 *
 * Why blocks are lost: the blocks of a cluster must all run at the same time
 * on multiprocessors of one GPC (a group of multiprocessors that share a
 * distributed shared memory network), and a GPC has room for a whole
 * number of clusters only. A GPC whose free places are fewer than a
 * cluster's blocks leaves them empty, and GPCs differ in how many of their
 * multiprocessors are enabled, so the larger the cluster and the fewer
 * blocks a multiprocessor holds (large blocks), the more places stay empty.
 * A cluster of one block loses nothing. lab/small-sizes/clusters.cu chooses the
 * cluster size whose clusters let the most blocks run at once for exactly
 * this reason.
 *
 * Exit 3 with one line on a GPU without clusters (before compute
 * capability 9.0), or for a build without code for them.
 */
#include <cstdio>
#include <cstring>

#include "../common/parts.h"
#include "../lab/small-sizes/clusters.cuh"

// The kernel for blocks of 128, 256, 512 and 1024 threads, in that order.
static const void *const kernels[] = {
    (const void *)cluster_sum_kernel<128, MEET_TICKET>, (const void *)cluster_sum_kernel<256, MEET_TICKET>,
    (const void *)cluster_sum_kernel<512, MEET_TICKET>, (const void *)cluster_sum_kernel<1024, MEET_TICKET> };

static const void *kernel_of(int block)
{
    int k = 0;
    while ((128 << k) < block) k++;
    return kernels[k];
}

// One row: clusters of k blocks of `block` threads.
static void print_row(const device_t *d, int block, int k)
{
    const void *kernel = kernel_of(block);
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess)
        (void)cudaGetLastError();                         // portable sizes (up to 8) only
    cudaLaunchAttribute attr = {};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = (unsigned)k;
    attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
    cudaLaunchConfig_t config = { dim3((unsigned)k), dim3((unsigned)block), 0, 0, &attr, 1 };
    int most = 0, clusters = 0, per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxPotentialClusterSize(&most, kernel, &config));
    if (k <= most)
        CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0));
    int plain = per_sm * d->sm_count;
    printf("%d,%d,%d,%d,%d,%d,%.3f,\"%s\"\n", block, k, most, clusters, clusters * k, plain,
           plain ? (double)(clusters * k) / plain : 0.0, d->name);
}

int main(int argc, char **argv)
{
    g_step = "cluster_occupancy";
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: %s\nPrints, for lab/small-sizes/clusters.cu's kernel, how many blocks fit on this GPU at once "
               "in clusters of 1 to 16 blocks, beside the blocks that fit without clusters (CSV).\n", argv[0]);
        return EXIT_OK;
    }
    if (argc > 1) {
        fprintf(stderr, "cluster_occupancy: takes no arguments ('%.40s')\nTry '%s --help'.\n", argv[1], argv[0]);
        return EXIT_USAGE;
    }
    device_t d;
    count_devices();
    open_device_id(&d, 0);
    cudaFuncAttributes f;
    CUDA_CHECK(cudaFuncGetAttributes(&f, kernel_of(128)));
    if (d.cc_major < 9 || f.ptxVersion < 90)
        device_fail("thread block clusters need compute capability 9.0 or newer (the GPU, and the code "
                    "this program was built for)");
    printf("block,cluster,most,clusters,blocks,plain_blocks,share,device\n");
    for (int block = 128; block <= 1024; block *= 2)
        for (int k = 1; k <= MAX_CLUSTER; k *= 2)
            print_row(&d, block, k);
    return EXIT_OK;
}
