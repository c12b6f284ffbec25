/* ceiling.cu: how fast can this GPU read memory at all?
 *
 *     make bench && ./build/bench/ceiling [--n 2^28] [--csv]
 *
 * A sum reads every byte once and writes almost nothing, so its ceiling is a
 * kernel that only reads: 16-byte loads, eight in flight per thread, a grid
 * that fills the GPU, and an XOR of what it read so that the loads cannot be
 * optimised away. We try three block sizes and keep the fastest. For
 * reference, a device-to-device copy is timed too, counting the bytes it reads
 * plus the bytes it writes, as copy benchmarks do. Last, an empty kernel: the
 * fixed cost of one launch, as the harness measures it.
 *
 * "% of achievable" in the comparison is a step's GB/s over the read ceiling
 * measured here, beside "% of nominal", which divides by the datasheet number.
 *
 * With --floor N[,N...] it measures instead, at each size, the least a sum of
 * n elements can take: the same read-only kernel with a grid sized for n, on
 * inputs laid out as the harness lays them out (cold: a fresh copy each run,
 * as many copies as the harness would make; warm: one copy), and the empty
 * kernel. These are the floor rows of the comparison. Where one wave of
 * blocks covers n in one round of loads, the floor is the faster of that
 * kernel and round_kernel, which issues every load of a thread at once, at a
 * block size fixed when compiling (as steps/one_block.cuh does): at small n
 * the instructions before the loads are a visible part of the time.
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../common/parts.h"

#define LOADS_IN_FLIGHT 8
#define REPS 30

__global__ void read_kernel(const uint4 *in, size_t n4, unsigned *sink)
{
    size_t rank = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned acc = 0;
    size_t i = rank;
    for (; i + (LOADS_IN_FLIGHT - 1) * stride < n4; i += LOADS_IN_FLIGHT * stride) {
        uint4 v[LOADS_IN_FLIGHT];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            v[k] = in[i + k * stride];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
    }
    for (; i < n4; i += stride) {
        uint4 v = in[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u)                // almost never true, but the compiler can't know
        *sink = acc;
}

// One round: thread t of block b reads vectors b * 1024 + t + k * 256, k < 4,
// each guarded, all in flight at once.
#define ROUND_BLOCK 256
#define ROUND_LOADS 4
__global__ void __launch_bounds__(ROUND_BLOCK) round_kernel(const uint4 *in, unsigned n4, unsigned *sink)
{
    unsigned i = blockIdx.x * (ROUND_BLOCK * ROUND_LOADS) + threadIdx.x;
    uint4 v[ROUND_LOADS];
    #pragma unroll
    for (int k = 0; k < ROUND_LOADS; k++)
        v[k] = i + k * ROUND_BLOCK < n4 ? in[i + k * ROUND_BLOCK] : uint4{};
    unsigned acc = 0;
    #pragma unroll
    for (int k = 0; k < ROUND_LOADS; k++)
        acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
    if (acc == 0x9e3779b9u)
        *sink = acc;
}

__global__ void empty_kernel() {}

// Median device time of REPS runs, in microseconds, timed by the harness's
// own method (events, batches queued behind a gate) after three warm-ups.
typedef void (*run_fn)(void *ctx, int r, cudaStream_t stream);
struct timed_ctx { run_fn fn; void *ctx; cudaStream_t stream; };
static void timed_run(void *p, int slot, int copy)
{
    timed_ctx *t = (timed_ctx *)p;
    (void)copy;                            // the runs choose their own copies
    t->fn(t->ctx, slot - 2, t->stream);    // timed run r has slot 2 + r
}

static double median_us(run_fn fn, void *ctx, cudaStream_t stream, int reps = REPS)
{
    for (int w = 0; w < 3; w++) fn(ctx, w, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<double> us(reps);
    timed_ctx t = { fn, ctx, stream };
    work_t w = {};
    w.ctx = &t;
    w.count = 1;
    w.stream[0] = stream;
    CUDA_CHECK(cudaGetDevice(&w.device[0]));
    w.copies = 1;
    w.run = timed_run;
    timed_runs(&w, reps, us.data());
    std::sort(us.begin(), us.end());
    return us[reps / 2];
}

struct read_ctx { const uint4 *in; size_t n4; unsigned *sink; int grid, block, round; };

static void run_read(void *p, int r, cudaStream_t stream)
{
    read_ctx *c = (read_ctx *)p;
    (void)r;
    if (c->round)
        round_kernel<<<c->grid, ROUND_BLOCK, 0, stream>>>(c->in, (unsigned)c->n4, c->sink);
    else
        read_kernel<<<c->grid, c->block, 0, stream>>>(c->in, c->n4, c->sink);
    CUDA_CHECK(cudaGetLastError());
}

struct copy_ctx { void *dst; const void *src; size_t bytes; };

static void run_copy(void *p, int r, cudaStream_t stream)
{
    copy_ctx *c = (copy_ctx *)p;
    (void)r;
    CUDA_CHECK(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, stream));
}

static void run_empty(void *p, int r, cudaStream_t stream)
{
    (void)p;
    (void)r;
    empty_kernel<<<1, 32, 0, stream>>>();
    CUDA_CHECK(cudaGetLastError());
}

// The read-only kernel at n elements, cold and warm, timed like a step: REPS
// runs (FLOOR_REPS for small n, as bench/compare.py asks of the steps), each
// reading the next of `copies` copies of the input, made as the harness makes
// them (so "cold" means here what it means there).
#define FLOOR_REPS 200
static void print_floor(size_t n, const char *device, int sms, int l2_bytes)
{
    size_t bytes = div_up(n, 4) * 16, stride = div_up(bytes, 256) * 256;
    int reps = n <= ((size_t)1 << 22) ? FLOOR_REPS : REPS;
    for (int warm = 0; warm <= 1; warm++) {
        int copies = warm ? 1 : (int)min_size(div_up(3 * (size_t)l2_bytes, bytes), (size_t)reps);
        char *a = NULL;
        unsigned *sink = NULL;
        CUDA_CHECK(cudaMalloc(&a, copies * stride));
        CUDA_CHECK(cudaMalloc(&sink, sizeof *sink));
        CUDA_CHECK(cudaMemset(a, 0x5a, copies * stride));
        cudaStream_t stream;
        CUDA_CHECK(cudaStreamCreate(&stream));
        int block = 512, per_sm = 0, round_per_sm = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_kernel, block, 0));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&round_per_sm, round_kernel, ROUND_BLOCK, 0));
        size_t grid = min_size((size_t)per_sm * sms, div_up(bytes / 16, (size_t)block * LOADS_IN_FLIGHT));
        size_t round_grid = div_up(bytes / 16, (size_t)ROUND_BLOCK * ROUND_LOADS);
        double us = 0;
        for (int round = 0; round <= 1; round++) {   // round_kernel only where one wave covers n
            if (round && round_grid > (size_t)round_per_sm * sms)
                break;
            std::vector<read_ctx> ctx(copies);
            for (int c = 0; c < copies; c++)
                ctx[c] = { (const uint4 *)(a + c * stride), bytes / 16, sink,
                           (int)(round ? round_grid : grid), block, round };
            struct rot { std::vector<read_ctx> *ctx; } rc = { &ctx };
            auto run = [](void *p, int r, cudaStream_t st) {
                std::vector<read_ctx> &v = *((rot *)p)->ctx;
                run_read(&v[(size_t)r % v.size()], r, st);
            };
            double t = median_us(run, &rc, stream, reps);
            us = round ? std::min(us, t) : t;
        }
        printf("%s,\"%s\",%zu,%.3f,%.1f\n", warm ? "floor_warm" : "floor", device, n * 4, us,
               4.0 * n / (us * 1e-6) / 1e9);
        CUDA_CHECK(cudaFree(a));
        CUDA_CHECK(cudaFree(sink));
        CUDA_CHECK(cudaStreamDestroy(stream));
    }
}

// What the command line asks for: the ceiling at n (as CSV or as text), or,
// where floor_sizes is not empty, the floor at each of its sizes.
struct options { size_t n; int csv; std::vector<size_t> floor_sizes; };

// Reads the command line into *o; EXIT_OK, or EXIT_USAGE after one message.
static int parse_args(int argc, char **argv, options *o)
{
    char err[256];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--csv")) o->csv = 1;
        else if (!strcmp(argv[i], "--n") && i + 1 < argc) {
            if (parse_size(argv[++i], &o->n, err, sizeof err)) {
                fprintf(stderr, "ceiling: --n: %s\n", err);
                return EXIT_USAGE;
            }
        } else if (!strcmp(argv[i], "--floor") && i + 1 < argc) {
            for (char *tok = strtok(argv[++i], ","); tok; tok = strtok(NULL, ",")) {
                size_t m = 0;
                if (parse_size(tok, &m, err, sizeof err)) {
                    fprintf(stderr, "ceiling: --floor: %s\n", err);
                    return EXIT_USAGE;
                }
                o->floor_sizes.push_back(m);
            }
        } else {
            fprintf(stderr, "usage: %s [--n N] [--csv] | --floor N[,N...]\n", argv[0]);
            return EXIT_USAGE;
        }
    }
    return EXIT_OK;
}

// --floor: the floor rows at each size, then the empty kernel, always as CSV
// (the comparison reads it).
static void floor_mode(const std::vector<size_t> &sizes, const cudaDeviceProp &prop, int sms)
{
    printf("kind,device,bytes,median_us,gbps\n");
    for (size_t m : sizes) print_floor(m, prop.name, sms, prop.l2CacheSize);
    printf("empty,\"%s\",0,%.3f,0\n", prop.name, median_us(run_empty, NULL, 0));
}

// The ceiling at n elements: the read-only kernel at its fastest of three
// block sizes, a device-to-device copy and one empty launch, as CSV or text.
static void ceiling_mode(size_t n, int csv, const cudaDeviceProp &prop, int sms)
{
    size_t bytes = n / 4 * 16;             // whole 16-byte vectors
    void *a = NULL, *b = NULL;
    unsigned *sink = NULL;
    CUDA_CHECK(cudaMalloc(&a, bytes));
    CUDA_CHECK(cudaMalloc(&b, bytes));
    CUDA_CHECK(cudaMalloc(&sink, sizeof *sink));
    CUDA_CHECK(cudaMemset(a, 0x5a, bytes)); // not zeros: time real data
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    double best_us = 0;
    int best_block = 0;
    for (int block = 256; block <= 1024; block *= 2) {
        int per_sm = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_kernel, block, 0));
        read_ctx c = { (const uint4 *)a, bytes / 16, sink, per_sm * sms, block, 0 };
        double us = median_us(run_read, &c, stream);
        if (best_block == 0 || us < best_us) { best_us = us; best_block = block; }
    }
    copy_ctx cc = { b, a, bytes };
    double copy_us = median_us(run_copy, &cc, stream);
    double empty_us = median_us(run_empty, NULL, stream);

    double read_gbps = bytes / (best_us * 1e-6) / 1e9;
    double copy_gbps = 2.0 * bytes / (copy_us * 1e-6) / 1e9;
    if (csv) {
        printf("kind,device,bytes,median_us,gbps\n");
        printf("read,\"%s\",%zu,%.3f,%.1f\n", prop.name, bytes, best_us, read_gbps);
        printf("copy,\"%s\",%zu,%.3f,%.1f\n", prop.name, 2 * bytes, copy_us, copy_gbps);
        printf("empty,\"%s\",0,%.3f,0\n", prop.name, empty_us);
    } else {
        printf("# ceiling on %s, %zu bytes\n", prop.name, bytes);
        printf("read-only kernel (block %d):   %6.0f GB/s  (median %.1f us)\n", best_block,
               read_gbps, best_us);
        printf("device-to-device copy (r + w): %6.0f GB/s  (median %.1f us)\n", copy_gbps, copy_us);
        printf("empty kernel, one launch:      %6.2f us\n", empty_us);
    }
    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(b));
    CUDA_CHECK(cudaFree(sink));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

int main(int argc, char **argv)
{
    options o = { DEFAULT_N, 0, {} };
    int rc = parse_args(argc, argv, &o);
    if (rc != EXIT_OK)
        return rc;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) device_fail("no CUDA GPU found");
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    int sms = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    if (!o.floor_sizes.empty())
        floor_mode(o.floor_sizes, prop, sms);
    else
        ceiling_mode(o.n, o.csv, prop, sms);
    return EXIT_OK;
}
