/* 12_argmin.cu: the index of the smallest float, combined with atomics in
 * whatever order the warps finish, and still the same bits every run
 * (chapter 12, exercise 1).
 *
 *     make answers && build/answers/12_argmin --n 2^20,1000003 --input ties
 *
 * The rules, step 12's turned upside down: any NaN wins (the first NaN's
 * index, as numpy.argmin and torch.argmin do); otherwise the smallest value,
 * -0 below +0; on a tie the smallest index.
 *
 * Those rules make argmin a minimum over one 64-bit key per element:
 *
 *     key = order(x) << 32 | i     order(NaN) = 0; order(x) > 0 otherwise
 *
 * order(x) is the float's bits as an unsigned integer that grows with x:
 * negatives have all their bits flipped, non-negatives only the sign bit, so
 * that -inf = 0x007fffff < ... < -0 = 0x7fffffff < +0 = 0x80000000 < ... <
 * +inf = 0xff800000. The smallest key has the smallest order, and among equal
 * orders the smallest index. A minimum of integers is associative and
 * commutative bit for bit, so every thread, warp and block may fold its keys
 * in any order: here each warp's smallest goes to one 64-bit atomicMin, in
 * whatever order the warps get there, and the result cannot change.
 *
 * Built twice more, wrong on purpose (answers.mk):
 *   12_argmin_ties_last  keeps ~i instead of i: ties give the LAST index;
 *   12_argmin_nan_last   order(NaN) = 0xffffffff: NaN loses to every number,
 *                        as fminf (and numpy.nanargmin) would have it.
 * Each is still deterministic, every run the same bits, and wrong: the tests
 * require the first to fail on --input ties and zeros, the second on nan.
 *
 * Each size runs over grids 1, 7 and the GPU's full grid, blocks 32, 256 and
 * 1024, three runs each, against a plain CPU scan that knows nothing of keys.
 * n is at most 2^32 - 1 (the index has 32 bits of the key).
 * Exit 0 every run right, 1 some wrong, 2 bad usage, 3 a CUDA problem.
 */
#ifdef REDUCE_EXACT
#error "12_argmin takes floats: it has no exact (uint32) build"
#endif

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cooperative_groups.h>

#include "../common/answer_main.h"

namespace cg = cooperative_groups;

// ---- the key ------------------------------------------------------------------
__host__ __device__ uint32_t order(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    if (x != x) {
#ifdef NAN_LAST
        return 0xffffffffu;                  // NaN loses to every number: wrong here
#else
        return 0;                            // NaN wins
#endif
    }
    return u & 0x80000000u ? ~u : u | 0x80000000u;
}

__device__ unsigned long long key(float x, size_t i)
{
#ifdef TIES_LAST
    i = 0xffffffffu - i;                     // ties to the last index: wrong here
#endif
    return (unsigned long long)order(x) << 32 | (uint32_t)i;
}

// ---- the kernel ---------------------------------------------------------------
// Each thread folds its elements' keys (grid-stride, four at a time where the
// array allows), each warp its threads', and lane 0 takes the warp's smallest
// to *out, which starts at ~0 (the identity: above every key).
__global__ void argmin_kernel(const float *in, size_t n, unsigned long long *out)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    unsigned long long best = ~0ull;
    const float4 *v = (const float4 *)in;
    for (size_t j = tid; j < n / 4; j += stride) {
        float4 q = v[j];
        best = min(best, min(min(key(q.x, 4 * j), key(q.y, 4 * j + 1)), min(key(q.z, 4 * j + 2), key(q.w, 4 * j + 3))));
    }
    for (size_t i = n / 4 * 4 + tid; i < n; i += stride)
        best = min(best, key(in[i], i));
    for (unsigned offset = 16; offset > 0; offset /= 2)
        best = min(best, warp.shfl_down(best, offset));
    if (warp.thread_rank() == 0)
        atomicMin(out, best);
}

// ---- the inputs and the reference ------------------------------------------------
static const char *const inputs[] = { "uniform", "ties", "zeros", "nan", "inf" };
enum { UNIFORM, TIES, ZEROS, NANS, INFS, INPUTS };

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// uniform: k / 2^23, k in [-2^23, 2^23); ties: 1 to 4 (the smallest many times);
// zeros: +0 and -0; nan: uniform with NaNs of both signs here and there;
// inf: uniform with some -inf.
static void draw(int input, uint64_t seed, size_t n, float *x)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t h = mix(seed * 0x100000001b3ULL ^ mix(i));
        float u = (float)((int64_t)(h >> 40) - (1 << 23)) / (1 << 23);
        switch (input) {
        case TIES: x[i] = (float)(1 + h % 4); break;
        case ZEROS: x[i] = h >> 63 ? -0.0f : 0.0f; break;
        case NANS: x[i] = h % 1024 == 0 ? (h >> 20 & 1 ? -NAN : NAN) : u; break;
        case INFS: x[i] = h % 512 == 0 ? -INFINITY : u; break;
        default: x[i] = u;
        }
    }
}

// The rules, read literally: the first NaN; else the first of the smallest,
// -0 counting as below +0.
static size_t reference(const float *x, size_t n)
{
    size_t best = 0;
    for (size_t i = 0; i < n; i++) {
        if (std::isnan(x[i])) return i;
        float b = x[best];
        if (x[i] < b || (x[i] == b && std::signbit(x[i]) && !std::signbit(b))) best = i;
    }
    return best;
}

// ---- one size ---------------------------------------------------------------------
static int run_size(const device_t *dev, size_t n, int input, uint64_t seed)
{
    float *x = (float *)malloc(n * sizeof(float)), *d_x;
    unsigned long long *d_out, got;
    if (!x) device_fail("out of host memory for the input");
    draw(input, seed, n, x);
    size_t want = reference(x, n);
    d_x = (float *)device_alloc(n * sizeof(float), "the input");
    d_out = (unsigned long long *)device_alloc(sizeof *d_out, "the result");
    CUDA_CHECK(cudaMemcpy(d_x, x, n * sizeof(float), cudaMemcpyHostToDevice));
    int per_sm = 0, runs = 0, wrong = 0, blocks[] = { 32, 256, 1024 };
    size_t first = SIZE_MAX, bad_index = 0;
    for (int b : blocks) {
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, argmin_kernel, b, 0));
        size_t full = min_size((size_t)per_sm * dev->sm_count, div_up(n, (size_t)b * 4));
        size_t grids[] = { 1, 7, full };
        for (size_t g : grids)
            for (int r = 0; r < 3; r++) {
                CUDA_CHECK(cudaMemset(d_out, 0xff, sizeof *d_out));
                argmin_kernel<<<(unsigned)g, b>>>(d_x, n, d_out);
                CUDA_CHECK(cudaGetLastError());
                CUDA_CHECK(cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost));
                size_t index = (size_t)(uint32_t)got;
#ifdef TIES_LAST
                index = 0xffffffffu - index;
#endif
                runs++;
                if (first == SIZE_MAX) first = index;
                if (index != want && !wrong++) bad_index = index;
            }
    }
    int same = wrong == 0 || wrong == runs;   // (a wrong answer every run is still one answer)
    printf("%s | n %zu, %s, seed %llu | index %zu (value %.9g), expected %zu (value %.9g) | %d runs over "
           "grids 1, 7, full and blocks 32, 256, 1024: %s | %s\n", g_step, n, inputs[input],
           (unsigned long long)seed, wrong ? bad_index : first, (double)x[wrong ? bad_index : first], want,
           (double)x[want], runs, same ? "the same index every run" : "DIFFERENT indices",
           wrong ? "WRONG" : "OK");
    fflush(stdout);
    free(x);
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_out));
    return wrong ? EXIT_WRONG : EXIT_OK;
}

// ---- the command line -------------------------------------------------------------
static void help(const char *argv0)
{
    printf("usage: %s [--n N[,N...]] [--input NAME] [--seed S]\n"
           "The index of the smallest float (the first NaN if any; -0 below +0; ties: the\n"
           "first index), folded into one 64-bit atomicMin in any order, checked against a\n"
           "CPU scan on many grids and blocks.\n"
           "  --n N[,N...]  sizes, 1 to 2^32-1, as the steps take them (default 2^24)\n"
           "  --input NAME  uniform (default), ties, zeros, nan, inf\n"
           "  --seed S      the input's seed (default 1)\n"
           "Exit status: 0 right, 1 wrong, 2 bad usage, 3 a CUDA problem.\n", argv0);
}

int main(int argc, char **argv)
{
#if defined(TIES_LAST)
    g_step = "12_argmin_ties_last";
#elif defined(NAN_LAST)
    g_step = "12_argmin_nan_last";
#else
    g_step = "12_argmin";
#endif
    static const answer_t answer = { inputs, INPUTS, 0xffffffffu, "2^32-1", help, run_size };
    return answer_main(argc, argv, &answer);
}
