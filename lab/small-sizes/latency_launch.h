/* latency_launch.h: the kernels of latency.cu's probes, by block size
 * and piece; plan(): each probe's grid, as the steps or clusters.cu would
 * choose it; and launch(): one run of a probe, as clusters.cu would
 * launch it (cluster dimension, cooperative attribute, a second kernel placed
 * early by programmatic dependent launch). Included once, by latency.cu,
 * after probe_def and launch_kind.
 */
// ---- the kernels, by block size and piece --------------------------------------------
typedef void (*probe_fn)(const float *, size_t, probe_t);
typedef void (*program_fn)(const float *, size_t, meet_t, float *);
typedef void (*second_fn)(const float *, unsigned, float *);
#define PIECES(B) { probe_kernel<B, P_READ>, probe_kernel<B, P_WRITE>, probe_kernel<B, P_BLOCK>, \
    probe_kernel<B, P_EARLY>, probe_kernel<B, P_TICKET>, probe_kernel<B, P_FENCE>,             \
    probe_kernel<B, P_LAST>, probe_kernel<B, P_ACQ_REL>, probe_kernel<B, P_FLAG>,              \
    probe_kernel<B, P_GRID>, probe_kernel<B, C_SYNC>, probe_kernel<B, C_PULL>,                 \
    probe_kernel<B, C_GRID> }
static const probe_fn probe_kernels[3][13] = { PIECES(256), PIECES(512), PIECES(1024) };
#define MEETS(B) { cluster_sum_kernel<B, MEET_TICKET>, cluster_sum_kernel<B, MEET_WAIT>, \
                   cluster_sum_kernel<B, MEET_LAUNCH> }
static const program_fn program_kernels[3][3] = { MEETS(256), MEETS(512), MEETS(1024) };
static const second_fn second_kernels[3] = { partials_kernel<256>, partials_kernel<512>,
                                             partials_kernel<1024> };
static const int BLOCKS[3] = { 256, 512, 1024 };

// ---- one probe's launch ----------------------------------------------------------------
typedef struct {
    const probe_def *d;
    int b;                      // index into BLOCKS
    int k;                      // cluster size (1 for plain probes)
    size_t n, grid;
    probe_t p;
    const float *in;            // copy 0 of the input
    size_t stride;              // floats between copies
    int copies;
    cudaStream_t stream;
} run_t;

static const void *kernel_of(const run_t *r)
{
    return r->d->launch == PROGRAM ? (const void *)program_kernels[r->b][r->d->piece]
                                   : (const void *)probe_kernels[r->b][r->d->piece];
}

// ---- the grid of each probe ------------------------------------------------------------
// Plain probes: one round of loads a thread, at most what fits at once (as
// the steps); cluster probes: clusters.cu's grid for cluster size k.
// Returns 0, or a reason the GPU would not run it.
static const char *plan(run_t *r, int sms)
{
    const void *kernel = kernel_of(r);
    int block = BLOCKS[r->b];
    size_t needed = div_up(r->n, (size_t)block * 4 * LOADS_IN_FLIGHT);
    if (r->d->launch == EMPTY) {
        r->grid = 1;
        return NULL;
    }
    if (r->d->launch < CLUSTER) {
        int per_sm = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0));
        r->grid = r->d->launch == ONE_BLOCK ? 1 : min_size(needed, (size_t)per_sm * sms);
        return r->grid ? NULL : "no block fits";
    }
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess)
        (void)cudaGetLastError();
    cudaLaunchAttribute attr = {};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = (unsigned)r->k;
    attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
    cudaLaunchConfig_t config = { dim3((unsigned)r->k), dim3((unsigned)block), 0, 0, &attr, 1 };
    int most = 0, resident = 0;
    CUDA_CHECK(cudaOccupancyMaxPotentialClusterSize(&most, kernel, &config));
    if (most < r->k)
        return "cluster larger than this GPU runs";
    CUDA_CHECK(cudaOccupancyMaxActiveClusters(&resident, kernel, &config));
    r->grid = needed <= (size_t)r->k ? (size_t)r->k
                                     : min_size(div_up(needed, (size_t)r->k) * r->k, (size_t)resident * r->k);
    return r->grid ? NULL : "no cluster fits";
}

// Queues one run on copy `copy`; returns the launch's error (a refusal).
static cudaError_t launch(const run_t *r, int copy)
{
    const float *in = r->in + (size_t)copy * r->stride;
    int launch = r->d->launch, clusters = (int)(r->grid / r->k);
    if (launch == EMPTY) {
        empty_kernel<<<1, 32, 0, r->stream>>>();
        return cudaGetLastError();
    }
    cudaLaunchAttribute attr[2] = {};
    unsigned count = 0;
    if (launch == CLUSTER || launch == CLUSTER_COOP || launch == PROGRAM) {
        attr[count].id = cudaLaunchAttributeClusterDimension;
        attr[count].val.clusterDim.x = (unsigned)r->k;
        attr[count].val.clusterDim.y = attr[count].val.clusterDim.z = 1;
        count++;
    }
    if (launch == COOP || launch == CLUSTER_COOP || (launch == PROGRAM && r->d->piece == MEET_WAIT && clusters > 1)) {
        attr[count].id = cudaLaunchAttributeCooperative;
        attr[count].val.cooperative = 1;
        count++;
    }
    cudaLaunchConfig_t config = { dim3((unsigned)r->grid), dim3((unsigned)BLOCKS[r->b]), 0, r->stream, attr, count };
    cudaError_t e;
    if (launch == PROGRAM) {
        meet_t m = { r->p.words, r->p.done, r->p.totals };
        e = cudaLaunchKernelEx(&config, program_kernels[r->b][r->d->piece], in, r->n, m, r->p.out);
    } else {
        e = cudaLaunchKernelEx(&config, probe_kernels[r->b][r->d->piece], in, r->n, r->p);
    }
    int second = launch == TWO || launch == TWO_PDL || (launch == PROGRAM && r->d->piece == MEET_LAUNCH && clusters > 1);
    if (e != cudaSuccess || !second)
        return e;
    cudaLaunchAttribute early = {};
    early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    early.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t next = { dim3(1), dim3((unsigned)BLOCKS[r->b]), 0, r->stream, &early, launch == TWO ? 0u : 1u };
    return cudaLaunchKernelEx(&next, second_kernels[r->b], (const float *)r->p.totals, (unsigned)clusters, r->p.out);
}

static void timed_run(void *ctx, int slot, int copy)   // the driver's work_t.run
{
    const run_t *r = (const run_t *)ctx;
    (void)slot;
    CUDA_CHECK(launch(r, copy));
}

static void poison(void *ctx, int slot)        // as the harness poisons a step's scratch
{
    const run_t *r = (const run_t *)ctx;
    (void)slot;
    CUDA_CHECK(cudaMemsetAsync(r->p.totals, POISON, r->grid * sizeof(float), r->stream));
}

