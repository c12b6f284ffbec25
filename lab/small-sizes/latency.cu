/* latency.cu: what a one-launch sum pays beyond reading its input, piece by
 * piece (appendix on clusters; results/NOTES.md has the predictions).
 *
 *     make clusters-programs && build/clusters/latency [--n 2^14,2^20] [--reps 200]
 *     make clusters                                   runs it with the rest of the appendix
 *
 * At each n, for blocks of 256, 512 and 1024 threads, every probe of
 * latency_kernels.cuh is timed as the harness times a step: runs queued behind
 * a gate, each between two events, each reading the next of as many copies of
 * the input as outrun L2 (at most one a run), after a checked run and two
 * warm-ups; the median and the least of --reps runs. Plain probes get the
 * grid the steps would (one round of loads a thread, at most what fits at
 * once), "one_block" a single block; cluster probes ("c_...") run for every
 * cluster size the GPU allows, with clusters.cu's grid for that size.
 * A probe that finishes a sum is checked against the exact sum of the input
 * (small whole numbers, so every order is exact). CSV on stdout:
 *     probe,block,cluster,grid,n,median_us,min_us,reps,check,device
 * check is ok, WRONG, - (the probe stops before the sum), or refused: why
 * (a launch the GPU does not take, e.g. a cooperative grid of clusters).
 */
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../../common/parts.h"
#include "latency_kernels.cuh"

enum launch_kind { EMPTY, PLAIN, ONE_BLOCK, POISONED, COOP, TWO, TWO_PDL, CLUSTER, CLUSTER_COOP, PROGRAM };

typedef struct {
    const char *name;
    int piece;     // probe_kernel's piece; for PROGRAM, cluster_sum_kernel's MEET
    int launch;
    int sums;      // 0: never the sum; 1: always; 2: when the grid is one block or one cluster
} probe_def;

static const probe_def probes[] = {
    { "empty", 0, EMPTY, 0 },
    { "read", P_READ, PLAIN, 0 },               { "write", P_WRITE, PLAIN, 0 },
    { "block", P_BLOCK, PLAIN, 2 },             { "block_poisoned", P_BLOCK, POISONED, 2 },
    { "one_block", P_BLOCK, ONE_BLOCK, 2 },     { "ticket", P_TICKET, PLAIN, 0 },
    { "fence_ticket", P_FENCE, PLAIN, 0 },      { "last_block", P_LAST, PLAIN, 1 },
    { "acq_rel", P_ACQ_REL, PLAIN, 1 },         { "flag_word", P_FLAG, PLAIN, 1 },
    { "grid_sync", P_GRID, COOP, 1 },           { "two_kernels", P_EARLY, TWO, 1 },
    { "two_kernels_pdl", P_EARLY, TWO_PDL, 1 },
    { "c_read", P_READ, CLUSTER, 0 },           { "c_block", P_BLOCK, CLUSTER, 0 },
    { "c_sync", C_SYNC, CLUSTER, 0 },           { "c_pull", C_PULL, CLUSTER, 2 },
    { "c_ticket", MEET_TICKET, PROGRAM, 1 },    { "c_wait", MEET_WAIT, PROGRAM, 1 },
    { "c_pdl", MEET_LAUNCH, PROGRAM, 1 },       { "c_grid_sync", C_GRID, CLUSTER_COOP, 1 },
};

#include "latency_launch.h"   // the kernels by block size and piece; plan(): the grid; launch(): one run

// ---- one probe, timed ---------------------------------------------------------------
static void measure(run_t *r, int sms, int reps, double expected, const char *device)
{
    int block = r->d->launch == EMPTY ? 32 : BLOCKS[r->b];
    const char *why = plan(r, sms);
    char check[96] = "-";
    if (!why) {
        float got = 0;
        CUDA_CHECK(cudaMemsetAsync(r->p.out, POISON, sizeof(float), r->stream));
        cudaError_t e = launch(r, 0);                   // the checked run: a refusal shows here
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            snprintf(check, sizeof check, "refused: %s", cudaGetErrorName(e));
        } else {
            sync_or_fail(r->stream, "in a probe's checked run");
            CUDA_CHECK(cudaMemcpy(&got, r->p.out, sizeof got, cudaMemcpyDeviceToHost));
            int sums = r->d->sums == 1 || (r->d->sums == 2 && r->grid == (size_t)r->k);
            if (sums) snprintf(check, sizeof check, "%s", got == expected ? "ok" : "WRONG");
        }
    } else {
        snprintf(check, sizeof check, "refused: %s", why);
    }
    if (strncmp(check, "refused", 7) == 0) {
        printf("%s,%d,%d,0,%zu,0,0,0,%s,\"%s\"\n", r->d->name, block, r->k, r->n, check, device);
        return;
    }
    for (int w = 0; w < 2; w++) CUDA_CHECK(launch(r, 0));
    sync_or_fail(r->stream, "in a probe's warm-up");
    std::vector<double> us(reps);
    work_t w = {};
    w.ctx = r;
    w.count = 1;
    w.stream[0] = r->stream;
    CUDA_CHECK(cudaGetDevice(&w.device[0]));
    w.copies = r->copies;
    w.prepare = r->d->launch == POISONED ? poison : NULL;
    w.run = timed_run;
    timed_runs(&w, reps, us.data());
    std::sort(us.begin(), us.end());
    printf("%s,%d,%d,%zu,%zu,%.3f,%.3f,%d,%s,\"%s\"\n", r->d->name, block, r->k, r->grid, r->n,
           us[reps / 2], us[0], reps, check, device);
    fflush(stdout);
}

// Element i: a small whole number, 0 to 3, so every order of additions is exact.
__global__ void fill_kernel(float *x, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (float)((unsigned)(i * 2654435761u) >> 30);
}

// Every probe at size n: the input in as many copies as the harness would make.
static void probe_size(size_t n, int reps, const cudaDeviceProp &prop, probe_t p, cudaStream_t stream)
{
    size_t stride = div_up(n, 64) * 64;                        // 256-byte aligned copies
    int copies = (int)min_size(div_up(3 * (size_t)prop.l2CacheSize, n * sizeof(float)), (size_t)reps);
    float *in = (float *)device_alloc(copies * stride * sizeof(float), "the probes' input");
    fill_kernel<<<1024, 256, 0, stream>>>(in, n);
    CUDA_CHECK(cudaGetLastError());
    for (int c = 1; c < copies; c++)
        CUDA_CHECK(cudaMemcpyAsync(in + c * stride, in, n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    double expected = 0;
    for (size_t i = 0; i < n; i++)
        expected += (double)((unsigned)(i * 2654435761u) >> 30);
    for (const probe_def &d : probes)
        for (int b = 0; b < (d.launch == EMPTY ? 1 : 3); b++)
            for (int k = 1; k <= (d.launch >= CLUSTER ? MAX_CLUSTER : 1); k *= 2) {
                run_t r = { &d, b, k, n, 0, p, in, stride, copies, stream };
                measure(&r, prop.multiProcessorCount, reps, expected, prop.name);
            }
    CUDA_CHECK(cudaFree(in));
}

int main(int argc, char **argv)
{
    g_step = "latency";
    std::vector<size_t> sizes = { 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22 };
    int reps = 200;
    char err[256];
    for (int i = 1; i < argc; i++) {
        size_t v = 0;
        if (!strcmp(argv[i], "--n") && i + 1 < argc) {
            sizes.clear();
            for (char *tok = strtok(argv[++i], ","); tok; tok = strtok(NULL, ",")) {
                if (parse_size(tok, &v, err, sizeof err) || v > ((size_t)1 << 24)) {
                    fprintf(stderr, "latency: --n: %s\n", v > ((size_t)1 << 24) ? "at most 2^24" : err);
                    return EXIT_USAGE;
                }
                sizes.push_back(v);
            }
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc && atoi(argv[i + 1]) > 0) {
            reps = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [--n N[,N...]] [--reps R]   (N at most 2^24)\n", argv[0]);
            return EXIT_USAGE;
        }
    }
    device_t dev;
    count_devices();
    open_device_id(&dev, 0);
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev.id));
    cudaFuncAttributes f;
    CUDA_CHECK(cudaFuncGetAttributes(&f, (const void *)probe_kernels[0][0]));
    if (dev.cc_major < 9 || f.ptxVersion < 90)
        device_fail("the probes use thread block clusters, which need compute capability 9.0 or newer "
                    "(the GPU, and the code this program was built for)");
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    probe_t p = {};
    p.totals = (float *)device_alloc(65536 * sizeof(float), "the probes' totals");
    p.done = (unsigned *)device_alloc(sizeof(unsigned), "the probes' counter");
    p.words = (unsigned long long *)device_alloc(MAX_CLUSTERS * sizeof(unsigned long long), "the probes' words");
    p.out = (float *)device_alloc(sizeof(float), "the probes' sum");
    CUDA_CHECK(cudaMemset(p.done, 0, sizeof(unsigned)));
    CUDA_CHECK(cudaMemset(p.words, 0, MAX_CLUSTERS * sizeof(unsigned long long)));
    printf("probe,block,cluster,grid,n,median_us,min_us,reps,check,device\n");
    for (size_t n : sizes)
        probe_size(n, reps, prop, p, stream);
    CUDA_CHECK(cudaStreamDestroy(stream));
    return EXIT_OK;
}
