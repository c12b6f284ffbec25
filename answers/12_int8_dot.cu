/* 12_int8_dot.cu: the dot product of two int8 arrays, four products at a
 * time with __dp4a, exact for every n up to 2^40 (chapter 12, exercise 2).
 *
 *     make answers && build/answers/12_int8_dot --n 2^24,1000003
 *     build/answers/12_int8_dot_acc32 --n 2^17-1,2^17 --input extreme   (int32 all the way: wraps)
 *
 * __dp4a(a, b, c) takes two 32-bit words as four int8 each and returns
 * c + a0 b0 + a1 b1 + a2 b2 + a3 b3, in int32. Each product is at most
 * (-128)(-128) = 2^14 in magnitude, so an int32 holds the sum of fewer than
 * 2^31 / 2^14 = 2^17 of them whatever they are: at n = 2^17 products of
 * -128 by -128 the sum is 2^31, one past INT32_MAX, and wraps to INT32_MIN.
 * Random int8s take longer: an int8 drawn evenly from -128..127 has mean
 * -1/2, so a product of two has mean 1/4 (and a spread of about 5461); the
 * sum drifts by n/4 and passes 2^31 near n = 2^33.
 *
 * So a thread adds the 16 products of one 16-byte load of each array (four
 * __dp4a, at most 2^18 in magnitude: exact in int32), then adds that int32 to
 * an int64. The warps' int64s meet in one atomicAdd on the result, in any
 * order: integer addition is associative and commutative, so the bits are
 * the same every run. An int64 holds 2^63 / 2^14 = 2^49 products: n up to
 * 2^40 is far inside.
 *
 * ACC32 (answers.mk builds it as 12_int8_dot_acc32) keeps everything in int32,
 * each thread's sum and the atomicAdd alike: right below n = 2^17 on every
 * input, WRONG from 2^17 on --input extreme, and the same wrong bits every
 * run (wrapping is associative too).
 *
 * Each size runs at grids 1, 7 and the GPU's full grid, three runs each,
 * against an int64 sum on the CPU (exact: the same bound).
 * Exit 0 every run right, 1 some wrong, 2 bad usage, 3 a CUDA problem.
 */
#ifdef REDUCE_EXACT
#error "12_int8_dot sums integers: it has no exact (uint32) build"
#endif

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <cooperative_groups.h>

#include "../common/answer_main.h"

namespace cg = cooperative_groups;

#ifdef ACC32
typedef unsigned acc_t;     // int32's bits, added modulo 2^32 (as int32 wraps): wrong on purpose
#define AS_SIGNED(x) ((long long)(int)(x))
#else
typedef long long acc_t;
#define AS_SIGNED(x) ((long long)(x))
#endif

// The warp's sum into the total: 64-bit, or 32-bit in ACC32.
__device__ void add_total(unsigned long long *out, long long v) { atomicAdd(out, (unsigned long long)v); }
__device__ void add_total(unsigned *out, unsigned v) { atomicAdd(out, v); }

// ---- the kernel ---------------------------------------------------------------
// Thread t takes 16-byte vectors t, t + stride, ... of both arrays; the last
// n % 16 elements go one to a thread. Each warp's sum goes to *out (zeroed).
template <typename Total>
__global__ void dot_kernel(const int8_t *a, const int8_t *b, size_t n, Total *out)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    const int4 *va = (const int4 *)a, *vb = (const int4 *)b;
    acc_t sum = 0;
    for (size_t j = tid; j < n / 16; j += stride) {
        int4 p = va[j], q = vb[j];
        int s = __dp4a(p.x, q.x, 0);           // 16 products: |s| <= 2^18, exact in int32
        s = __dp4a(p.y, q.y, s);
        s = __dp4a(p.z, q.z, s);
        s = __dp4a(p.w, q.w, s);
        sum += (acc_t)s;
    }
    for (size_t i = n / 16 * 16 + tid; i < n; i += stride)
        sum += (acc_t)((int)a[i] * (int)b[i]);
    for (unsigned offset = 16; offset > 0; offset /= 2)
        sum += warp.shfl_down(sum, offset);
    if (warp.thread_rank() == 0)
        add_total(out, sum);
}
// The total's type: what atomicAdd takes, of acc_t's width.
typedef std::conditional<sizeof(acc_t) == 4, unsigned, unsigned long long>::type total_t;

// ---- the inputs ------------------------------------------------------------------
static const char *const inputs[] = { "uniform", "extreme" };

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// uniform: every int8 equally likely; extreme: every element -128, so every
// product is 2^14, the largest there is.
static void draw(int input, uint64_t seed, size_t n, int8_t *a, int8_t *b)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t h = mix(seed * 0x100000001b3ULL ^ mix(i));
        a[i] = input ? -128 : (int8_t)(h & 0xff);
        b[i] = input ? -128 : (int8_t)(h >> 8 & 0xff);
    }
}

// ---- one size ----------------------------------------------------------------------
static int run_size(const device_t *dev, size_t n, int input, uint64_t seed)
{
    int8_t *h = (int8_t *)malloc(2 * n), *d_a, *d_b;
    if (!h) device_fail("out of host memory for the input");
    draw(input, seed, n, h, h + n);
    long long want = 0;                       // |want| <= 2^14 n < 2^63
    for (size_t i = 0; i < n; i++) want += (int)h[i] * (int)h[n + i];
    d_a = (int8_t *)device_alloc(n, "the first array");
    d_b = (int8_t *)device_alloc(n, "the second array");
    total_t *d_out = (total_t *)device_alloc(sizeof(total_t), "the result");
    CUDA_CHECK(cudaMemcpy(d_a, h, n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, h + n, n, cudaMemcpyHostToDevice));
    int per_sm = 0, runs = 0, wrong = 0, block = 256;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, dot_kernel<total_t>, block, 0));
    size_t full = min_size((size_t)per_sm * dev->sm_count, div_up(n, (size_t)block * 16)), grids[] = { 1, 7, full };
    long long first = 0, shown = 0;
    int same = 1;
    for (size_t g : grids)
        for (int r = 0; r < 3; r++) {
            total_t bits;
            CUDA_CHECK(cudaMemset(d_out, 0, sizeof bits));
            dot_kernel<<<(unsigned)g, block>>>(d_a, d_b, n, d_out);
            CUDA_CHECK(cudaGetLastError());
            CUDA_CHECK(cudaMemcpy(&bits, d_out, sizeof bits, cudaMemcpyDeviceToHost));
            long long got = AS_SIGNED(bits);
            if (runs++ == 0) first = shown = got;
            if (got != want && !wrong++) shown = got;
            if (got != first) same = 0;
        }
    printf("%s | n %zu, %s, seed %llu | dot %lld, exact %lld | %d runs over grids 1, 7, full: %s | %s\n",
           g_step, n, inputs[input], (unsigned long long)seed, shown, want, runs,
           same ? "the same bits every run" : "DIFFERENT results", wrong ? "WRONG" : "OK");
    fflush(stdout);
    free(h);
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_out));
    return wrong ? EXIT_WRONG : EXIT_OK;
}

// ---- the command line -------------------------------------------------------------
static void help(const char *argv0)
{
    printf("usage: %s [--n N[,N...]] [--input NAME] [--seed S]\n"
           "The dot product of two int8 arrays with __dp4a, summed %s,\n"
           "checked against an int64 sum on the CPU at several grids.\n"
           "  --n N[,N...]  sizes, 1 to 2^40, as the steps take them (default 2^24)\n"
           "  --input NAME  uniform (default): random int8; extreme: every element -128\n"
           "  --seed S      the input's seed (default 1)\n"
           "Exit status: 0 right, 1 wrong, 2 bad usage, 3 a CUDA problem.\n", argv0,
           sizeof(acc_t) == 4 ? "in int32 (wraps from n = 2^17 on)" : "exactly (int32 a load, int64 after)");
}

int main(int argc, char **argv)
{
    g_step = sizeof(acc_t) == 4 ? "12_int8_dot_acc32" : "12_int8_dot";
    static const answer_t answer = { inputs, 2, MAX_N, "2^40", help, run_size };
    return answer_main(argc, argv, &answer);
}
