/* clusters_host.h: what clusters.cu asks of its user and of the GPU
 * before it launches anything.
 *
 *   --cluster K        the one option the harness does not know: main() takes
 *                      it out of the arguments before run_step() sees them, and
 *                      checks it here (and --grid against it), with the
 *                      harness's kind of message: one line, then "Try '...
 *                      --help'.", exit 2
 *   need_clusters      exit 3, one line, on a GPU before sm_90, or for a
 *                      program built for one
 *   largest_cluster    the largest cluster this GPU runs for a kernel
 *   grid_of            a grid of clusters, as large as the GPU holds at once
 *
 * Included once, by clusters.cu, after NAME, MEET, kernel_t and
 * dynamic_smem are defined.
 */
static int g_cluster_option;               // --cluster K, or 0: chosen from n and the GPU
static const char *g_prog = "clusters";    // argv[0]

NORETURN static void usage_fail(const char *why)
{
    char line[256];
    snprintf(line, sizeof line, "%s", why);
    for (char *p = line; *p; p++)          // what was typed stays on one plain line
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
    fprintf(stderr, "%s: %s\nTry '%s --help'.\n", NAME, line, g_prog);
    exit_cleanly(EXIT_USAGE);
}

// K of --cluster K: 1, 2, 4, 8 or 16, or a usage error.
static int parse_cluster(const char *s)
{
    char why[200];
    size_t digits = strspn(s, "0123456789");
    if (*s == '\0')
        usage_fail("--cluster needs a value: 1, 2, 4, 8 or 16 blocks");
    if (digits != strlen(s)) {
        snprintf(why, sizeof why, "--cluster: '%.40s' is not a whole number of blocks", s);
        usage_fail(why);
    }
    unsigned long k = digits > 9 ? 1000000000ul : strtoul(s, NULL, 10);
    if (k > MAX_CLUSTER) {
        snprintf(why, sizeof why, "--cluster: %.40s is too large: a cluster holds at most %d blocks "
                 "(8 where the GPU allows only portable sizes)", s, MAX_CLUSTER);
        usage_fail(why);
    }
    if (k == 0)
        usage_fail("--cluster: 0 is too few: at least 1 block");
    if (k & (k - 1)) {
        snprintf(why, sizeof why, "--cluster: %lu is not a power of two: use 1, 2, 4, 8 or 16 blocks", k);
        usage_fail(why);
    }
    return (int)k;
}

// Takes "--cluster K" or "--cluster=K" out of argv; checks K, and --grid
// against it. Returns the new argc.
static int take_cluster_option(int argc, char **argv)
{
    const char *value = NULL, *grid = NULL;
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int bare = strcmp(a, "--cluster") == 0;
        if (!bare && strncmp(a, "--cluster=", 10) != 0) {
            if (strcmp(a, "--grid") == 0 && i + 1 < argc) grid = argv[i + 1];
            if (strncmp(a, "--grid=", 7) == 0) grid = a + 7;
            argv[kept++] = argv[i];
            continue;
        }
        if (value) usage_fail("--cluster is given more than once");
        if (bare && (i + 1 >= argc || strncmp(argv[i + 1], "--", 2) == 0))
            usage_fail("--cluster needs a value: 1, 2, 4, 8 or 16 blocks");
        value = bare ? argv[++i] : a + 10;
    }
    argv[kept] = NULL;
    if (!value) return kept;
    g_cluster_option = parse_cluster(value);
    if (grid && *grid && strspn(grid, "0123456789") == strlen(grid) && strlen(grid) <= 9 &&
        strtoul(grid, NULL, 10) % g_cluster_option) {     // other mistakes: the harness's to report
        char why[160];
        snprintf(why, sizeof why, "--grid %s is not a multiple of --cluster %d: a grid is whole "
                 "clusters", grid, g_cluster_option);
        usage_fail(why);
    }
    return kept;
}

static int asks_for_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return 1;
    return 0;
}

static void print_cluster_help(void)
{
    printf("\nThis program's own option:\n"
           "  --cluster K        blocks per thread block cluster: 1, 2, 4, 8 or 16 (16 where\n"
           "                     the GPU allows non-portable sizes). Default: one cluster if\n"
           "                     the largest this GPU runs holds the blocks n needs (one\n"
           "                     round of loads each), else the size whose clusters let the\n"
           "                     most blocks run at once, the larger on a tie. With --grid G,\n"
           "                     G must be a multiple of K, and G / K at most %d.\n", MAX_CLUSTERS);
}

// ---- what the GPU allows ------------------------------------------------------------
// Exit 3 with one line unless this GPU runs clusters and this program has
// code for them (a build for an older architecture, run here, has not).
static void need_clusters(int device, kernel_t kernel)
{
    int major = 0, minor = 0, launch = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&launch, cudaDevAttrClusterLaunch, device));
    char why[256];
    if (major < 9 || !launch) {
        snprintf(why, sizeof why, "thread block clusters need a GPU of compute capability 9.0 or "
                 "newer, and this one is %d.%d", major, minor);
        device_fail(why);
    }
    cudaFuncAttributes f;
    CUDA_CHECK(cudaFuncGetAttributes(&f, kernel));
    if (f.ptxVersion < 90) {
        snprintf(why, sizeof why, "thread block clusters need compute capability 9.0 or newer: this "
                 "GPU is %d.%d, but this program was built for %d.%d (make clean, then make without "
                 "ARCH)", major, minor, f.ptxVersion / 10, f.ptxVersion % 10);
        device_fail(why);
    }
}

// The largest power-of-two cluster of `block`-thread blocks this GPU runs
// for this kernel: 16 where it allows non-portable sizes (asked for here; a
// GPU that refuses keeps 8), 8 on most others.
static int largest_cluster(kernel_t kernel, int block)
{
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess)
        (void)cudaGetLastError();
    if (dynamic_smem(block) > 48 * 1024)
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)dynamic_smem(block)));
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(MAX_CLUSTER);
    config.blockDim = dim3(block);
    config.dynamicSmemBytes = dynamic_smem(block);
    int most = 0, k = 1;
    CUDA_CHECK(cudaOccupancyMaxPotentialClusterSize(&most, kernel, &config));
    while (2 * k <= most && 2 * k <= MAX_CLUSTER) k *= 2;
    return k;
}

// Blocks in a grid of clusters of k: as many as one round of loads needs,
// at most as many as the GPU holds at once.
static size_t grid_of(kernel_t kernel, int block, int k, size_t needed)
{
    cudaLaunchAttribute cluster = {};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = (unsigned)k;
    cluster.val.clusterDim.y = cluster.val.clusterDim.z = 1;
    cudaLaunchConfig_t config = { dim3((unsigned)k), dim3((unsigned)block), dynamic_smem(block), 0, &cluster, 1 };
    int resident = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveClusters(&resident, kernel, &config));
    return min_size(div_up(needed, (size_t)k) * k, (size_t)resident * k);
}
