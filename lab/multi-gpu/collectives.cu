/* collectives.cu: where a small sum's microseconds go on several GPUs.
 *
 *     make lab-collectives && build/lab/collectives [--gpus G] [--csv]
 *
 * A question, not a lesson: at n = 2^16 step 09 and step 10 take longer on
 * several GPUs than on one. A run of either is three pieces on every GPU: a
 * kernel (the shard's sum), one NCCL collective over all of them (09: an
 * all-gather of the chunk sums; 10: an all-reduce of 14 64-bit words), and a
 * kernel (the total). This program times each piece alone and the three
 * together with empty kernels, for G = 1 up to every GPU, one process
 * driving them all (ncclCommInitAll), exactly as the harness times a step:
 * calls queued back to back behind a gate, events on every GPU's stream, a
 * call's time its slowest GPU's, the median of 15 batches of 64 calls. It
 * also times, on the host, how long enqueueing one NCCL group takes.
 */
#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "collectives: %s failed: %s\n", #call, cudaGetErrorString(e_));       \
            exit(3);                                                                             \
        }                                                                                        \
    } while (0)
#define NCHECK(call)                                                                             \
    do {                                                                                         \
        ncclResult_t r_ = (call);                                                                \
        if (r_ != ncclSuccess) {                                                                 \
            fprintf(stderr, "collectives: %s failed: %s\n", #call, ncclGetErrorString(r_));       \
            exit(3);                                                                             \
        }                                                                                        \
    } while (0)

static const int CALLS = 64, BATCHES = 15;
static const size_t CHUNK_SUMS = 16;     // 2^16 elements in chunks of 4096: step 09's all-gather
static const size_t WORDS = 14;          // step 10's all-reduce

__global__ void empty_kernel() {}

struct gpus_t {
    int g;
    std::vector<ncclComm_t> comm;
    std::vector<cudaStream_t> stream;
    std::vector<float *> gather;         // CHUNK_SUMS floats
    std::vector<long long *> words;      // 2 * WORDS
};

enum piece_t { LAUNCH, GATHER, REDUCE, RUN09, RUN10, PIECES };
static const char *piece_name[PIECES] = { "one empty kernel", "all-gather (64 bytes)",
                                          "all-reduce (14 int64)", "kernel + all-gather + kernel",
                                          "kernel + all-reduce + kernel" };

static void kernels(gpus_t &G)
{
    for (int i = 0; i < G.g; i++) {
        CHECK(cudaSetDevice(i));
        empty_kernel<<<1, 32, 0, G.stream[i]>>>();
    }
}

static void collective(gpus_t &G, bool reduce)
{
    size_t per = CHUNK_SUMS / G.g * sizeof(float);
    NCHECK(ncclGroupStart());
    for (int i = 0; i < G.g; i++) {
        if (reduce)
            NCHECK(ncclAllReduce(G.words[i], G.words[i] + WORDS, WORDS, ncclInt64, ncclSum, G.comm[i],
                                 G.stream[i]));
        else
            NCHECK(ncclAllGather((char *)G.gather[i] + i * per, G.gather[i], per, ncclUint8, G.comm[i],
                                 G.stream[i]));
    }
    NCHECK(ncclGroupEnd());
}

static void one_call(gpus_t &G, piece_t p)
{
    if (p == LAUNCH || p == RUN09 || p == RUN10) kernels(G);
    if (p == GATHER || p == RUN09) collective(G, false);
    if (p == REDUCE || p == RUN10) collective(G, true);
    if (p == RUN09 || p == RUN10) kernels(G);
}

// The gate: every stream waits in a host function until the whole batch is
// queued, so the events time the GPUs, not the host's queueing.
static std::atomic<int> gate_open{ 1 };
static void CUDART_CB gate_wait(void *)
{
    while (!gate_open.load()) {
    }
}

// Median µs per call of piece p; *host_us: the host's time to queue one call.
static double time_piece(gpus_t &G, piece_t p, double *host_us)
{
    std::vector<cudaEvent_t> start(G.g), stop(G.g);
    for (int i = 0; i < G.g; i++) {
        CHECK(cudaSetDevice(i));
        CHECK(cudaEventCreate(&start[i]));
        CHECK(cudaEventCreate(&stop[i]));
    }
    for (int w = 0; w < 8; w++) one_call(G, p);              // warm-up
    for (int i = 0; i < G.g; i++) CHECK(cudaStreamSynchronize(G.stream[i]));
    std::vector<double> per_call, host;
    for (int b = 0; b < BATCHES; b++) {
        gate_open = 0;
        for (int i = 0; i < G.g; i++) {
            CHECK(cudaSetDevice(i));
            CHECK(cudaLaunchHostFunc(G.stream[i], gate_wait, nullptr));
            CHECK(cudaEventRecord(start[i], G.stream[i]));
        }
        auto t0 = std::chrono::steady_clock::now();
        for (int c = 0; c < CALLS; c++) one_call(G, p);
        auto t1 = std::chrono::steady_clock::now();
        for (int i = 0; i < G.g; i++) {
            CHECK(cudaSetDevice(i));
            CHECK(cudaEventRecord(stop[i], G.stream[i]));
        }
        gate_open = 1;
        double worst = 0;
        for (int i = 0; i < G.g; i++) {
            CHECK(cudaSetDevice(i));
            CHECK(cudaStreamSynchronize(G.stream[i]));
            float ms = 0;
            CHECK(cudaEventElapsedTime(&ms, start[i], stop[i]));
            worst = std::max(worst, 1e3 * ms / CALLS);
        }
        per_call.push_back(worst);
        host.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / CALLS);
    }
    for (int i = 0; i < G.g; i++) {
        CHECK(cudaEventDestroy(start[i]));
        CHECK(cudaEventDestroy(stop[i]));
    }
    std::sort(per_call.begin(), per_call.end());
    std::sort(host.begin(), host.end());
    *host_us = host[BATCHES / 2];
    return per_call[BATCHES / 2];
}

int main(int argc, char **argv)
{
    int most = 0, csv = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--csv")) csv = 1;
        else if (!strcmp(argv[a], "--gpus") && a + 1 < argc) most = atoi(argv[++a]);
        else {
            fprintf(stderr, "usage: %s [--gpus G] [--csv]\n", argv[0]);
            return strcmp(argv[a], "--help") ? 2 : 0;
        }
    }
    setenv("NCCL_NVLS_ENABLE", "0", 1);                    // no NVLink multicast
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    if (most <= 0 || most > count) most = count;
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    if (csv) printf("device,gpus,piece,median_us,host_us\n");
    else printf("%s, one process driving G GPUs; median µs per call (host µs to queue one)\n", prop.name);
    for (int g = 1; g <= most; g++) {
        gpus_t G;
        G.g = g;
        G.comm.resize(g);
        G.stream.resize(g);
        G.gather.resize(g);
        G.words.resize(g);
        std::vector<int> dev(g);
        for (int i = 0; i < g; i++) dev[i] = i;
        NCHECK(ncclCommInitAll(G.comm.data(), g, dev.data()));
        for (int i = 0; i < g; i++) {
            CHECK(cudaSetDevice(i));
            CHECK(cudaStreamCreateWithFlags(&G.stream[i], cudaStreamNonBlocking));
            CHECK(cudaMalloc(&G.gather[i], CHUNK_SUMS * sizeof(float)));
            CHECK(cudaMalloc(&G.words[i], 2 * WORDS * sizeof(long long)));
            CHECK(cudaMemset(G.words[i], 0, 2 * WORDS * sizeof(long long)));
        }
        for (int p = 0; p < PIECES; p++) {
            double host = 0, us = time_piece(G, (piece_t)p, &host);
            if (csv) printf("%s,%d,%s,%.2f,%.2f\n", prop.name, g, piece_name[p], us, host);
            else printf("  G = %d  %-30s %7.2f µs  (host %6.2f µs)\n", g, piece_name[p], us, host);
            fflush(stdout);
        }
        for (int i = 0; i < g; i++) {
            CHECK(cudaSetDevice(i));
            NCHECK(ncclCommDestroy(G.comm[i]));
            CHECK(cudaFree(G.gather[i]));
            CHECK(cudaFree(G.words[i]));
            CHECK(cudaStreamDestroy(G.stream[i]));
        }
    }
    return 0;
}
